//! `placer`, the command line (README.md, "CLI"): the service, one epoch offline, a dense
//! LSAP solve (lsap-sched §3.2), the lsap paper's synthetic snapshots (§4) and their cost matrix.

mod deadline;
mod error;
mod events;
mod lsap_file;
mod whatif;

use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
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
/// (BENCHMARKS.md, "Memory").
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Exact, bandwidth-aware task placement for shared data-processing clusters.
#[derive(Parser, Debug)]
#[command(name = "placer", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The flags of `placer serve` (docs/operations/serving.md, "Admission and limits",
/// "Lifecycle").
#[derive(clap::Args, Debug)]
struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = placer_server::DEFAULT_ADDR)]
    addr: String,
    /// Largest accepted request body in bytes, after gzip decoding (larger ones get 413).
    #[arg(long, default_value_t = placer_server::DEFAULT_BODY_LIMIT_BYTES)]
    body_limit: usize,
    /// Most solves running at once; more wait in the queue. Default: two per core.
    #[arg(long)]
    max_in_flight: Option<usize>,
    /// Most requests waiting for a solve slot (one more gets 503).
    #[arg(long, default_value_t = placer_server::DEFAULT_QUEUE_LEN)]
    queue: usize,
    /// Longest wait for a solve slot in ms (then 503 with Retry-After).
    #[arg(long, default_value_t = placer_server::DEFAULT_QUEUE_WAIT_MS)]
    queue_wait_ms: u64,
    /// Budget in bytes for the estimated memory (12 × body) of the solves running at once.
    /// Default: half the machine's memory (4 GiB if unknown).
    #[arg(long)]
    max_memory: Option<u64>,
    /// Default per-request deadline in ms (`?deadline_ms=` and `policy.deadline_ms` win).
    #[arg(long)]
    deadline_ms: Option<u64>,
    /// Time a client gets to send the request head, in ms (then 408).
    #[arg(long, default_value_t = placer_server::DEFAULT_HEADER_TIMEOUT_MS)]
    header_timeout_ms: u64,
    /// Time a client gets to send the whole body, in ms (then 408).
    #[arg(long, default_value_t = placer_server::DEFAULT_BODY_TIMEOUT_MS)]
    body_timeout_ms: u64,
    /// After SIGTERM/SIGINT, time in-flight requests get to finish, in ms.
    #[arg(long, default_value_t = placer_server::DEFAULT_SHUTDOWN_GRACE_MS)]
    shutdown_grace_ms: u64,
    /// HTTP worker threads; default one per core.
    #[arg(long)]
    workers: Option<usize>,
    /// A TOML config file: every flag above (name with '-' -> '_') plus a [policy] table of
    /// defaults for snapshot policy keys; flags given here win. Reloaded on SIGHUP or change.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Log lines on stderr: pretty (key=value) or json (one object per line); RUST_LOG
    /// filters them (default info).
    #[arg(long, default_value = "pretty", value_parser = parse_log_format)]
    log_format: placer_server::LogFormat,
    /// A YARN fair-scheduler allocation file (fair-scheduler.xml): pools and users a snapshot
    /// does not define come from its queues and users. Reloaded on SIGHUP or change.
    #[arg(long, value_name = "FILE")]
    allocations: Option<PathBuf>,
    /// Answered epochs kept in memory for GET /v1/epochs and the dashboard at GET /.
    #[arg(long, default_value_t = placer_server::epochs::DEFAULT_EPOCHS_KEPT)]
    epochs: usize,
    /// Bytes of epoch records kept (each at its JSON size); the oldest go first, the newest
    /// is always kept.
    #[arg(long, default_value_t = placer_server::epochs::DEFAULT_EPOCHS_MAX_BYTES,
          value_parser = clap::value_parser!(u64).range(1..))]
    epochs_max_bytes: u64,
    /// Write one JSON line per answered epoch to DIR/events.jsonl (created if needed).
    #[arg(long, value_name = "DIR")]
    event_log: Option<PathBuf>,
    /// Rotate events.jsonl into events.1.jsonl ... once it would exceed this many bytes.
    #[arg(long, default_value_t = placer_server::event_log::DEFAULT_MAX_BYTES,
          value_parser = clap::value_parser!(u64).range(1..))]
    event_log_max_bytes: u64,
    /// Rotated event log files kept (events.1.jsonl newest ... events.K.jsonl oldest).
    #[arg(long, default_value_t = placer_server::event_log::DEFAULT_KEEP)]
    event_log_keep: usize,
    /// Node label whose value is the node's rack, for the Kubernetes scheduler extender
    /// (POST /k8s/v1/filter, /k8s/v1/prioritize).
    #[arg(long, default_value = placer_server::DEFAULT_K8S_RACK_LABEL, value_parser = parse_rack_label)]
    k8s_rack_label: String,
    /// A node -> rack map for the scheduler extender, one `NODE RACK` line per node (what
    /// `kubectl get nodes -o custom-columns=...` prints); wins over the rack label and gives
    /// NodeNames calls (nodeCacheCapable) their racks. Re-read on SIGHUP or change.
    #[arg(long, value_name = "FILE")]
    k8s_rack_map: Option<PathBuf>,
    /// Serve HTTPS with this PEM certificate chain (needs --tls-key). Re-read on SIGHUP or
    /// change (docs/operations/configuration.md, "TLS and tokens").
    #[arg(long, value_name = "FILE")]
    tls_cert: Option<PathBuf>,
    /// The PEM private key of --tls-cert.
    #[arg(long, value_name = "FILE")]
    tls_key: Option<PathBuf>,
    /// Require client certificates signed by this PEM CA (mutual TLS; needs --tls-cert).
    #[arg(long, value_name = "FILE")]
    tls_client_ca: Option<PathBuf>,
    /// Bearer token file, one `SCOPES TOKEN` line per token (scopes: place, read); without
    /// it no token is checked. Re-read on SIGHUP or change.
    #[arg(long, value_name = "FILE")]
    tokens: Option<PathBuf>,
    /// Sessions kept at once (POST /v1/sessions); the least recently used is evicted to make
    /// room; 0 disables sessions.
    #[arg(long, default_value_t = placer_server::DEFAULT_SESSIONS_MAX)]
    sessions_max: usize,
    /// Seconds a session may go unused before it is dropped; 0 keeps it until evicted.
    #[arg(long, default_value_t = placer_server::DEFAULT_SESSION_IDLE_S)]
    session_idle_s: u64,
}

impl ServeArgs {
    fn into_config(self) -> placer_server::ServerConfig {
        let defaults = placer_server::ServerConfig::default();
        placer_server::ServerConfig {
            addr: self.addr,
            body_limit_bytes: self.body_limit,
            max_in_flight: self.max_in_flight.unwrap_or(defaults.max_in_flight),
            queue_len: self.queue,
            queue_wait_ms: self.queue_wait_ms,
            max_memory_bytes: self.max_memory.unwrap_or(defaults.max_memory_bytes),
            deadline_ms: self.deadline_ms,
            header_timeout_ms: self.header_timeout_ms,
            body_timeout_ms: self.body_timeout_ms,
            shutdown_grace_ms: self.shutdown_grace_ms,
            workers: self.workers,
            log_format: self.log_format,
            policy_defaults: None,
            config_path: self.config,
            allocations: self.allocations,
            fair_allocations: None,
            epochs_kept: self.epochs,
            epochs_max_bytes: self.epochs_max_bytes,
            event_log: self.event_log,
            event_log_max_bytes: self.event_log_max_bytes,
            event_log_keep: self.event_log_keep,
            k8s_rack_label: self.k8s_rack_label,
            k8s_rack_map: self.k8s_rack_map,
            k8s_rack_file: None,
            tls_cert: self.tls_cert,
            tls_key: self.tls_key,
            tls_client_ca: self.tls_client_ca,
            tls: None,
            tokens: self.tokens,
            sessions_max: self.sessions_max,
            session_idle_s: self.session_idle_s,
            auth_tokens: None,
        }
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Serve POST /place, GET /healthz, /readyz, /metrics, /v1/epochs and the dashboard at /;
    /// SIGTERM drains and exits 0.
    Serve(Box<ServeArgs>),
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
        /// Override `policy.solver` (auto, flow, jv, hungarian; mip under ras, lsap_ras and lsap_quota).
        #[arg(long, value_parser = parse_engine)]
        solver: Option<SolverEngine>,
        /// A YARN fair-scheduler allocation file: pools and users the snapshot does not
        /// define come from its queues and users.
        #[arg(long, value_name = "FILE")]
        allocations: Option<PathBuf>,
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
    /// Read the event log that `serve --event-log DIR` writes.
    Events {
        #[command(subcommand)]
        action: EventsAction,
    },
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
enum EventsAction {
    /// Per-pool share over time as CSV on stdout: time, unix_ms, seq, request_id, algorithm,
    /// pool, weight, min shares, then fair share, running, running after and demand per kind.
    Summarize {
        /// The event log directory (events.jsonl and its rotated files).
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

fn parse_log_format(s: &str) -> Result<placer_server::LogFormat, String> {
    s.parse()
}

fn parse_rack_label(s: &str) -> Result<String, String> {
    placer_server::check_k8s_rack_label(s).map(|()| s.to_owned())
}

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let given = given_flags(&matches);
    match run(cli.command, given) {
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

/// The subcommand's flags given on the command line (not defaulted), as config-file keys
/// (`--body-limit` → `body_limit`): these win over `--config`.
fn given_flags(matches: &ArgMatches) -> std::collections::BTreeSet<String> {
    let Some((name, sub)) = matches.subcommand() else { return Default::default() };
    let cli = Cli::command();
    let Some(command) = cli.find_subcommand(name) else { return Default::default() };
    // The subcommand's arguments only (its matches also hold the derive's argument group).
    command
        .get_arguments()
        .map(|arg| arg.get_id().as_str())
        .filter(|id| sub.value_source(id) == Some(ValueSource::CommandLine))
        .map(str::to_owned)
        .collect()
}

fn run(command: Command, given: std::collections::BTreeSet<String>) -> Result<(), CliError> {
    match command {
        Command::Serve(args) => {
            let cli = placer_server::config_file::CommandLine { config: args.into_config(), given };
            let server_config = match &cli.config.config_path {
                Some(path) => placer_server::config_file::load(path, &cli)?,
                None => placer_server::config_file::from_command_line(&cli)?,
            };
            placer_server::logging::init(server_config.log_format);
            let runtime = actix_web::rt::System::new();
            let served = runtime.block_on(placer_server::run_reloading(server_config, cli));
            served.map_err(|source| CliError::Io { path: PathBuf::from("serve"), source })?;
            // Drained: exit now rather than wait, in the runtime's drop, for a solve that
            // outlived the grace period.
            std::process::exit(0)
        }
        Command::Place { file, explain, algorithm, solver, allocations } => {
            // The body is dropped once parsed: only the request is held during the solve.
            let body = read_input(&file)?;
            // `policy.deadline_ms`'s clock starts once the file is read, as the service's does
            // once the body is (docs/operations/serving.md, "Deadlines and the anytime
            // answer").
            let read_at = Instant::now();
            let mut req = placer_models::parse_request(&body)?;
            drop(body);
            if let Some(path) = allocations {
                placer_datasets::read_fair_allocations(&path)?.fill(&mut req);
            }
            if let Some(a) = algorithm {
                req.policy.algorithm = a;
            }
            if let Some(s) = solver {
                req.policy.solver = s;
            }
            let cancel = placer_solver::Cancel::new();
            let _deadline = req.policy.deadline_ms.map(|ms| deadline::arm(&cancel, read_at, ms));
            let start = Instant::now();
            let opts = PlaceOptions { explain, cancel: Some(cancel), ..PlaceOptions::default() };
            let mut response = placer_solver::place(&req, &opts)?;
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
        Command::Events { action: EventsAction::Summarize { dir } } => {
            events::summarize(&dir, std::io::stdout().lock())
        }
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn only_flags_typed_on_the_command_line_win_over_the_config_file() {
        let args = ["placer", "serve", "--body-limit", "5", "--config", "p.toml"];
        let matches = Cli::command().try_get_matches_from(args).unwrap();
        let given: Vec<String> = given_flags(&matches).into_iter().collect();
        assert_eq!(given, ["body_limit", "config"]);
    }
}
