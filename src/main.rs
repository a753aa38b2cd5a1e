//! `placer`, the command line (DESIGN.md §CLI contract): the service, one epoch offline, a dense
//! LSAP solve (lsap-sched §3.2), the lsap paper's synthetic snapshots (§4) and their cost matrix.

mod error;
mod lsap_file;
mod whatif;

use clap::{Parser, Subcommand, ValueEnum};
use error::CliError;
use placer_datasets::{lsap_snapshot, LsapSnapshotSpec};
use placer_models::{Algorithm, SolverEngine, TaskKind};
use placer_solver::{lsap::jv, PlaceOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// jemalloc with background purging threads: after four concurrent 69 MB requests it gave
/// back all but 24 MB within 10 s, where glibc kept 166 MB and mimalloc 67 MB
/// (BENCHMARKS.md "Issue 16: memory").
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Exact, bandwidth-aware task placement for shared data-processing clusters.
#[derive(Parser, Debug)]
#[command(name = "placer", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Serve POST /place and GET /healthz.
    Serve {
        /// Address to listen on.
        #[arg(long, default_value = placer_server::DEFAULT_ADDR)]
        addr: String,
        /// Largest accepted request body in bytes (larger ones get 413).
        #[arg(long, default_value_t = placer_server::DEFAULT_BODY_LIMIT_BYTES)]
        body_limit: usize,
        /// Most snapshots read or solved at once (one more gets 503); default 2 × cores.
        #[arg(long)]
        max_in_flight: Option<usize>,
        /// HTTP worker threads; default one per core.
        #[arg(long)]
        workers: Option<usize>,
    },
    /// Place one snapshot (a v1 JSON file, `-` for stdin) and print the response JSON.
    Place {
        /// The snapshot.
        file: PathBuf,
        /// List waiting tasks one by one.
        #[arg(long)]
        explain: bool,
        /// Override `policy.algorithm` (e.g. dl_sched, lsap).
        #[arg(long, value_parser = parse_algorithm)]
        algorithm: Option<Algorithm>,
        /// Override `policy.solver` (auto, flow, jv, hungarian; mip under ras and lsap_ras).
        #[arg(long, value_parser = parse_engine)]
        solver: Option<SolverEngine>,
    },
    /// Solve one dense `.lsap` matrix and print {"rows","cols","objective","assignment","seconds"}.
    Lsap {
        /// The matrix: u64 rows, u64 cols, rows × cols f64 (little-endian, row-major).
        file: PathBuf,
        /// Maximise instead of minimise (+inf still marks a forbidden pair).
        #[arg(long)]
        maximize: bool,
    },
    /// Generate a synthetic input.
    Gen {
        #[command(subcommand)]
        what: GenCommand,
    },
    /// Replay a trace, or a paper's own experiment (--workload), through several policies side by
    /// side on a simulated cluster.
    Whatif(Box<WhatifCommand>),
    /// Write a snapshot's dense pending-task × free-slot locality cost matrix as `.lsap`.
    ExportMatrix {
        /// The snapshot.
        file: PathBuf,
        /// The `.lsap` output.
        out: PathBuf,
        /// Which slot kind's problem (default map).
        #[arg(long, value_enum, default_value_t = KindArg::Map)]
        kind: KindArg,
    },
}

/// `placer whatif [summarize DIR | --trace ... --out DIR]`.
#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
struct WhatifCommand {
    #[command(subcommand)]
    action: Option<WhatifAction>,
    #[command(flatten)]
    run: whatif::RunArgs,
}

#[derive(Subcommand, Debug)]
enum WhatifAction {
    /// Merge the shards of a sweep written under DIR into DIR/summary.csv.
    Summarize {
        /// The `--out` directory the shards wrote to.
        dir: PathBuf,
    },
}

#[derive(Subcommand, Debug)]
enum GenCommand {
    /// The lsap paper's synthetic cluster as a v1 snapshot on stdout.
    Snapshot {
        /// Nodes.
        #[arg(long)]
        nodes: usize,
        /// Nodes per rack.
        #[arg(long)]
        rack_size: usize,
        /// Map slots per node.
        #[arg(long)]
        map_slots: u32,
        /// Fraction of all map slots that is idle, in [0, 1].
        #[arg(long)]
        idle: f64,
        /// Pending map tasks.
        #[arg(long)]
        tasks: usize,
        /// Replicas per input block.
        #[arg(long)]
        replication: usize,
        /// In-rack 1000 Mbit/s, cross-rack 100 Mbit/s (else 1000 everywhere).
        #[arg(long)]
        rack_aware: bool,
        /// RNG seed.
        #[arg(long)]
        seed: u64,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum KindArg {
    Map,
    Reduce,
}

pub(crate) fn parse_algorithm(s: &str) -> Result<Algorithm, String> {
    serde_json::from_value(serde_json::Value::String(s.to_owned())).map_err(|e| e.to_string())
}

/// A policy this build implements (for `whatif --policies`, where an unimplemented one would
/// fail only at its first epoch).
pub(crate) fn parse_policy(s: &str) -> Result<Algorithm, String> {
    placer_solver::registry::by_name(s).map(|(a, _)| a).ok_or_else(|| {
        format!(
            "{s:?} is not a policy of this build (available: {})",
            placer_solver::registry::available()
        )
    })
}

fn parse_engine(s: &str) -> Result<SolverEngine, String> {
    serde_json::from_value(serde_json::Value::String(s.to_owned())).map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            match e.json() {
                Some(json) => eprintln!("{json}"),
                None => eprintln!("placer: {e}"),
            }
            ExitCode::FAILURE
        }
    }
}

fn run(command: Command) -> Result<(), CliError> {
    match command {
        Command::Serve { addr, body_limit, max_in_flight, workers } => {
            let mut config = placer_server::ServerConfig {
                addr,
                body_limit_bytes: body_limit,
                workers,
                ..placer_server::ServerConfig::default()
            };
            if let Some(m) = max_in_flight {
                config.max_in_flight = m;
            }
            actix_web::rt::System::new()
                .block_on(placer_server::run(config))
                .map_err(|source| CliError::Io { path: PathBuf::from("serve"), source })
        }
        Command::Place { file, explain, algorithm, solver } => {
            // The body is dropped once parsed: only the request is held during the solve.
            let mut req = placer_models::parse_request(&read_input(&file)?)?;
            if let Some(a) = algorithm {
                req.policy.algorithm = a;
            }
            if let Some(s) = solver {
                req.policy.solver = s;
            }
            let start = Instant::now();
            let mut response =
                placer_solver::place(&req, &PlaceOptions { explain, ..PlaceOptions::default() })?;
            response.stats.solve_ms = start.elapsed().as_secs_f64() * 1e3;
            print_json(&response)
        }
        Command::Lsap { file, maximize } => {
            let m = lsap_file::read(&file)?;
            let start = Instant::now();
            let solution = if maximize {
                let negated = m.mapv(|x| if x == f64::INFINITY { x } else { -x });
                jv::solve_f64(negated.view())?
            } else {
                jv::solve_f64(m.view())?
            };
            let seconds = start.elapsed().as_secs_f64();
            let objective: f64 = solution
                .row_to_col
                .iter()
                .enumerate()
                .filter_map(|(i, j)| j.map(|j| m[[i, j]]))
                .sum();
            let (rows, cols) = m.dim();
            print_json(&LsapOutput {
                rows,
                cols,
                objective,
                assignment: solution.row_to_col,
                seconds,
            })
        }
        Command::Gen {
            what:
                GenCommand::Snapshot {
                    nodes,
                    rack_size,
                    map_slots,
                    idle,
                    tasks,
                    replication,
                    rack_aware,
                    seed,
                },
        } => {
            let spec = LsapSnapshotSpec {
                nodes,
                rack_size,
                map_slots,
                idle,
                tasks,
                replication,
                rack_aware,
                seed,
            };
            print_json(&lsap_snapshot(&spec)?)
        }
        Command::Whatif(whatif_command) => match *whatif_command {
            WhatifCommand { action: Some(WhatifAction::Summarize { dir }), .. } => {
                whatif::summarize(&dir)
            }
            WhatifCommand { action: None, run } => whatif::run(&run),
        },
        Command::ExportMatrix { file, out, kind } => {
            let req = placer_models::parse_request(&read_input(&file)?)?;
            let kind = match kind {
                KindArg::Map => TaskKind::Map,
                KindArg::Reduce => TaskKind::Reduce,
            };
            let m = placer_solver::cost_matrix(&req, kind)?;
            lsap_file::write(&out, &m)
        }
    }
}

/// The one-line answer of `placer lsap`, fields in the contract's order.
#[derive(serde::Serialize)]
struct LsapOutput {
    rows: usize,
    cols: usize,
    /// Σ of the original (not negated) entries of the assigned pairs.
    objective: f64,
    /// The column of each row, `null` for rows left out of a tall matrix.
    assignment: Vec<Option<usize>>,
    /// Wall time of the solve alone, in seconds.
    seconds: f64,
}

fn read_input(path: &Path) -> Result<Vec<u8>, CliError> {
    let io = |source| CliError::Io { path: path.to_owned(), source };
    if path == Path::new("-") {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf).map_err(io)?;
        Ok(buf)
    } else {
        std::fs::read(path).map_err(io)
    }
}

fn print_json<T: serde::Serialize>(value: &T) -> Result<(), CliError> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    serde_json::to_writer(&mut out, value)?;
    writeln!(out)
        .and_then(|()| out.flush())
        .map_err(|source| CliError::Io { path: PathBuf::from("stdout"), source })
}
