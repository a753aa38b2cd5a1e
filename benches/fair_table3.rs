//! FAIR's delay-scheduling small-jobs experiment (Zaharia et al., EuroSys 2010, §6.2.1, Table 3
//! and Fig. 12) replayed in the what-if simulator: map-only scan jobs of 3, 10 and 100 maps on
//! the Small Private Cluster (100 nodes in 4 racks, 6 map slots each), one workload per job size
//! from `placer_datasets::small_jobs` (`SmallJobsSpec::paper`, seed 1: 36,000 maps per
//! workload, Poisson arrivals at 30 task launches per second), each run under `fifo`, `fair` ("standard" fair
//! sharing) and `delay` (delay scheduling with the paper's T1 = T2 = 15 s), 3 s heartbeats,
//! 1,000 Mbit/s node links and 100 MB/s disks (the simulator's defaults), and two cross-rack
//! bandwidths (per directed rack pair): the simulator's default 100 Mbit/s, and 1,000 Mbit/s
//! for the paper's cluster, whose 4 racks had "fairly good bisection bandwidth" (§5);
//! `--cross-rack-mbps N` runs only N.
//!
//! Prints, per job size and policy, the node-, rack- and off-rack shares of the completed maps
//! (summed over the jobs of that size, from `JobMetrics`, grouped by `JobMetrics::class`), the
//! mean job response time and the time the last job finished, next to Table 3's locality
//! (standard / delay: 3 maps 2% / 50% and 75% / 96%; 10 maps 37% / 98% and 99% / 100%;
//! 100 maps 84% / 99% and 94% / 99%). Deterministic for the seed. A quality comparison, not a
//! timing: `cargo bench --bench fair_table3` (minutes in release on 2 cores: the 100 Mbit/s runs
//! of `fifo` and `fair` are network-bound and simulate hours).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use placer_datasets::{small_jobs, SmallJobsSpec, SMALL_JOB_SIZES};
use placer_models::{Algorithm, Policy};
use placer_sim::{simulate_many, ClusterSource, SimConfig, SimReport};
use placer_solver::registry;
use std::collections::BTreeMap;

/// FAIR Table 3: (maps per job, standard node %, standard rack %, delay node %, delay rack %).
const TABLE3: [(usize, u32, u32, u32, u32); 3] =
    [(3, 2, 50, 75, 96), (10, 37, 98, 99, 100), (100, 84, 99, 94, 99)];

/// T1 = T2 of §6.2.1, s.
const PAPER_DELAY_S: f64 = 15.0;

const SEED: u64 = 1;

fn config(algorithm: Algorithm, cross_rack_mbps: f64) -> SimConfig {
    SimConfig {
        name: algorithm.name().to_owned(),
        policy: {
            let mut policy = Policy::of(algorithm);
            policy.set("locality_delay_node_s", PAPER_DELAY_S);
            policy.set("locality_delay_rack_s", PAPER_DELAY_S);
            policy
        },
        cluster: ClusterSource::Workload { map_slots: 6, reduce_slots: 4 },
        cross_rack_mbps,
        seed: SEED,
        ..SimConfig::default()
    }
}

/// Completed maps of one class: (node-local, rack-local, remote, jobs, Σ response s, finished).
#[derive(Default)]
struct ClassTotals {
    node: usize,
    rack: usize,
    remote: usize,
    jobs: usize,
    response_s: f64,
    finished: usize,
}

fn by_class(report: &SimReport) -> BTreeMap<String, ClassTotals> {
    let mut out: BTreeMap<String, ClassTotals> = BTreeMap::new();
    for job in &report.jobs {
        let c = out.entry(job.class.clone().unwrap_or_default()).or_default();
        c.node += job.maps_node_local;
        c.rack += job.maps_rack_local;
        c.remote += job.maps_remote;
        c.jobs += 1;
        if let Some(r) = job.response_s {
            c.response_s += r;
            c.finished += 1;
        }
    }
    out
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing: run only for bench.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let args: Vec<String> = std::env::args().collect();
    let networks: Vec<f64> = match args.iter().position(|a| a == "--cross-rack-mbps") {
        Some(i) => vec![args.get(i + 1).and_then(|v| v.parse().ok()).expect("--cross-rack-mbps N")],
        None => vec![100.0, 1000.0],
    };
    for cross_rack_mbps in networks {
        table(cross_rack_mbps);
    }
}

fn table(cross_rack_mbps: f64) {
    // FAIR Table 3 compares Hadoop's schedulers without and with delay scheduling.
    let configs: Vec<SimConfig> = ["fifo", "fair", "delay"]
        .into_iter()
        .map(|name| registry::by_name(name).expect("a registered policy").0)
        .map(|a| config(a, cross_rack_mbps))
        .collect();
    println!();
    println!("Cross-rack bandwidth {cross_rack_mbps} Mbit/s per directed rack pair");
    println!();
    println!("| job size | jobs | policy | node-local | rack-local (node + rack) | off-rack | mean response (s) | last job done (s) | FAIR Table 3 node / rack |");
    println!("|---|---:|---|---:|---:|---:|---:|---:|---|");
    for maps in SMALL_JOB_SIZES {
        let workload = small_jobs(&SmallJobsSpec::paper(maps, SEED)).expect("valid spec");
        let reports: Vec<SimReport> =
            simulate_many(&workload, &configs).into_iter().map(|r| r.expect("runs")).collect();
        let paper = TABLE3.iter().find(|row| row.0 == maps).expect("a Table 3 size");
        for report in &reports {
            let classes = by_class(report);
            let c = classes.get(&format!("{maps}-map")).expect("the size's class");
            let with_replicas = (c.node + c.rack + c.remote) as f64;
            let pct = |x: usize| 100.0 * x as f64 / with_replicas;
            let paper_cell = match report.algorithm.name() {
                "fair" => format!("standard: {}% / {}%", paper.1, paper.2),
                "delay" => format!("delay: {}% / {}%", paper.3, paper.4),
                _ => "(FIFO: \"the same as fair sharing\")".to_owned(),
            };
            println!(
                "| {maps} maps | {} | {} | {:.1}% | {:.1}% | {:.1}% | {:.1} | {:.0} | {paper_cell} |",
                c.jobs,
                report.name,
                pct(c.node),
                pct(c.node + c.rack),
                pct(c.remote),
                c.response_s / c.finished.max(1) as f64,
                report.summary.makespan_s,
            );
        }
    }
}
