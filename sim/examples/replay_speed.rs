//! Speed probe of the what-if engine (`sim/README.md`; FAIR, Zaharia et al.
//! Table 2 for the synthetic job-size mix): replays a day of Facebook-like jobs on N nodes
//! and prints simulated events/s and epochs/s.
//!
//! ```sh
//! cargo run --release -p placer-sim --example replay_speed -- \
//!     [--swim FB-2009_samples_24_times_1hr_0.tsv] [--jobs 5894] [--nodes 600] [--rack-size 20] \
//!     [--map-slots 4] [--reduce-slots 2] [--algorithm lsap] [--bound auto|all|capacity|free] [--seed 1] \
//!     [--slowstart 0.05] [--task-overhead-s 1]
//! ```
//!
//! With `--swim FILE` the jobs come from a SWIM trace (`placer_datasets::swim`, replicas
//! synthesised HDFS-style on the simulated cluster); otherwise from a seeded generator here:
//! `--jobs` jobs over 24 h (Poisson arrivals), map counts drawn log-uniformly inside a FAIR
//! Table 2 size bin chosen with the table's Facebook frequencies, 64–128 MB per map at
//! 5–30 s compute, reduces = maps / 20 (FAIR's BM uses 5 %), each pulling 32 MB and computing
//! 10 s.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use placer_datasets::swim::{read_swim, SwimOptions};
use placer_datasets::{JobSpec, MapSpec, NodeSpec, RackSpec, ReduceSpec, Topology, Workload};
use placer_models::{Algorithm, Policy};
use placer_sim::{simulate, ClusterSource, PendingBound, ReplicaSource, SimConfig};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::PathBuf;
use std::time::Instant;

/// FAIR Table 2: (min maps, max maps, % of Facebook jobs).
const BINS: [(u64, u64, f64); 9] = [
    (1, 25, 58.0),
    (26, 50, 9.6),
    (51, 100, 8.6),
    (101, 200, 8.4),
    (201, 400, 5.6),
    (401, 800, 4.3),
    (801, 1600, 2.5),
    (1601, 3200, 1.3),
    (3201, 6400, 1.7),
];

fn synthetic_day(jobs: usize, seed: u64) -> Workload {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let total: f64 = BINS.iter().map(|b| b.2).sum();
    let mut t = 0.0;
    let gap = 86_400.0 / jobs as f64;
    let mut out = Workload { name: format!("fb-like-{seed}"), ..Workload::default() };
    for j in 0..jobs {
        if j > 0 {
            t += -gap * (1.0 - rng.random::<f64>()).ln();
        }
        let mut u = rng.random::<f64>() * total;
        let (bin, &(lo, hi, _)) = BINS
            .iter()
            .enumerate()
            .find(|(_, b)| {
                u -= b.2;
                u < 0.0
            })
            .unwrap_or((8, &BINS[8]));
        let maps = ((lo as f64).ln() + rng.random::<f64>() * ((hi as f64).ln() - (lo as f64).ln()))
            .exp()
            .round() as u64;
        let maps = maps.clamp(lo, hi) as usize;
        let reduces = maps / 20;
        out.jobs.push(JobSpec {
            id: format!("job{j}"),
            submit_s: t,
            user: "unknown".to_owned(),
            pool: "default".to_owned(),
            maps: (0..maps)
                .map(|_| MapSpec {
                    input_bytes: rng.random_range(64_000_000..128_000_000),
                    compute_s: rng.random_range(5.0..30.0),
                    output_bytes: if reduces > 0 { 20_000_000 } else { 0 },
                    ..MapSpec::default()
                })
                .collect(),
            reduces: (0..reduces)
                .map(|_| ReduceSpec {
                    shuffle_bytes: 32_000_000,
                    compute_s: 10.0,
                    ..ReduceSpec::default()
                })
                .collect(),
            class: Some(format!("bin{bin}")),
            ..JobSpec::default()
        });
    }
    out
}

fn topology(nodes: usize, rack_size: usize) -> Topology {
    Topology {
        racks: (0..nodes.div_ceil(rack_size))
            .map(|r| RackSpec {
                id: format!("r{r}"),
                nodes: (r * rack_size..((r + 1) * rack_size).min(nodes))
                    .map(|n| NodeSpec { id: format!("n{n}"), ..NodeSpec::default() })
                    .collect(),
            })
            .collect(),
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut swim, mut jobs, mut nodes, mut rack_size) =
        (None::<PathBuf>, 5894usize, 600usize, 20usize);
    let (mut map_slots, mut reduce_slots, mut algorithm, mut seed) =
        (4u32, 2u32, "lsap".to_owned(), 1u64);
    let mut bound = PendingBound::Auto;
    let defaults = SimConfig::default();
    let (mut slowstart, mut overhead) = (defaults.slowstart, defaults.task_overhead_s);
    while let Some(flag) = args.next() {
        let value = args.next().expect("every flag takes a value");
        match flag.as_str() {
            "--swim" => swim = Some(PathBuf::from(value)),
            "--jobs" => jobs = value.parse().expect("--jobs N"),
            "--nodes" => nodes = value.parse().expect("--nodes N"),
            "--rack-size" => rack_size = value.parse().expect("--rack-size K"),
            "--map-slots" => map_slots = value.parse().expect("--map-slots S"),
            "--reduce-slots" => reduce_slots = value.parse().expect("--reduce-slots R"),
            "--algorithm" => algorithm = value,
            "--seed" => seed = value.parse().expect("--seed X"),
            "--slowstart" => slowstart = value.parse().expect("--slowstart F"),
            "--task-overhead-s" => overhead = value.parse().expect("--task-overhead-s S"),
            "--bound" => {
                bound = match value.as_str() {
                    "all" => PendingBound::All,
                    "capacity" => PendingBound::Capacity,
                    "free" => PendingBound::FreeSlots,
                    _ => PendingBound::Auto,
                }
            }
            other => panic!("unknown flag {other}"),
        }
    }
    let algorithm: Algorithm =
        serde_json::from_value(serde_json::Value::String(algorithm)).expect("an algorithm name");
    let cluster = ClusterSource::Synthetic { nodes, rack_size, map_slots, reduce_slots };
    let started = Instant::now();
    let (workload, replicas) = match &swim {
        Some(path) => {
            let options = SwimOptions::new(topology(nodes, rack_size), seed);
            (read_swim(path, &options).expect("a readable SWIM file"), ReplicaSource::Workload)
        }
        None => (synthetic_day(jobs, seed), ReplicaSource::Synthesize { replication: 3 }),
    };
    let load_s = started.elapsed().as_secs_f64();
    println!(
        "workload {}: {} jobs, {} maps, {} reduces (built in {load_s:.2} s)",
        workload.name,
        workload.jobs.len(),
        workload.maps(),
        workload.reduces()
    );
    let config = SimConfig {
        name: algorithm.name().to_owned(),
        policy: Policy { algorithm, ..Policy::default() },
        cluster,
        replicas,
        seed,
        pending_bound: bound,
        slowstart,
        task_overhead_s: overhead,
        ..SimConfig::default()
    };
    let report = simulate(&workload, &config).expect("the replay runs");
    let s = &report.summary;
    let t = &report.timing;
    println!(
        "{}: stop {:?}, {}/{} jobs, simulated {:.0} s, wall {:.2} s",
        report.name, report.stop, s.jobs_finished, s.jobs, s.end_time_s, t.wall_s
    );
    println!(
        "events {} ({:.0}/s), solver epochs {} ({:.1}/s), ticks {}; solve {:.1} s total, {:.2} ms mean, {:.1} ms max; snapshots {:.1} s",
        s.events,
        s.events as f64 / t.wall_s,
        s.epochs,
        s.epochs as f64 / t.wall_s,
        s.ticks,
        t.total_solve_ms / 1e3,
        t.mean_solve_ms,
        t.max_solve_ms,
        t.snapshot_ms / 1e3
    );
    println!(
        "locality node {:.1}% rack {:.1}% remote {:.1}%, mean response {:.1} s, p95 {:.1} s, makespan {:.0} s, cross-rack {:.1} GB, map-slot utilisation {:.1}%",
        100.0 * s.node_local,
        100.0 * s.rack_local,
        100.0 * s.remote,
        s.mean_response_s,
        s.p95_response_s,
        s.makespan_s,
        s.cross_rack_gb,
        100.0 * s.map_slot_utilisation
    );
}
