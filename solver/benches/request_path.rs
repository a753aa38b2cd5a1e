//! The request path around the solve, stage by stage (docs/architecture.md, "The
//! epoch pipeline"): parse → validate → index (ids to dense indices, costs, fair shares,
//! starvation) → [solve, timed apart] → answer (intermediate space, preemption, response) →
//! serialize. The snapshot is the file `PLACER_SNAPSHOT` (the performance targets': `placer gen
//! snapshot --nodes 100000 --rack-size 40 --map-slots 4 --idle 0.25 --tasks 150000 --replication 3
//! --rack-aware --seed 1 > s100k.json`); `PLACER_RUNS` sets the runs (default 5). Prints the
//! minimum of each stage over the runs, and MB/s = snapshot bytes / Σ stages without the solve.
//! Same allocator as the `placer` binary. Run:
//! `PLACER_SNAPSHOT=s100k.json cargo bench -p placer-solver --no-default-features --bench request_path`.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use placer_models::{PlaceRequest, Status};
use placer_solver::fair::starvation::Starvation;
use placer_solver::policy::{registry, Epoch};
use placer_solver::Indexed;
use placer_solver::LocalityCost;
use placer_solver::{fair::disk, fair::fair_shares, fair::preemption, stages, PlaceOptions};
use std::time::Instant;

#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// This thread's CPU time in seconds (`/proc/thread-self/schedstat`, ns on the CPU): on a shared
/// machine it counts the stage's own work, not the time other processes held the cores.
fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|ns| ns.parse::<f64>().ok()))
        .map_or(0.0, |ns| ns * 1e-9)
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

const STAGES: [&str; 6] = ["parse", "validate", "index", "solve", "answer", "serialize"];

fn main() {
    let file = std::env::var("PLACER_SNAPSHOT").expect("PLACER_SNAPSHOT=FILE (see the header)");
    let bytes = std::fs::read(&file).unwrap();
    let runs = env("PLACER_RUNS", 5);
    let mut best = [f64::INFINITY; 6];
    let mut best_cpu = [f64::INFINITY; 6];
    let mut placement = None;
    let mut answer_len = 0;
    for _ in 0..runs {
        let mut t = [0.0; 6];
        let mut c = [0.0; 6];
        let mut clock = Instant::now();
        let mut cpu = cpu_seconds();
        let mut lap = |k: usize| {
            t[k] = clock.elapsed().as_secs_f64();
            c[k] = cpu_seconds() - cpu;
            clock = Instant::now();
            cpu = cpu_seconds();
        };
        let req: PlaceRequest = placer_models::parse_request(&bytes).unwrap();
        lap(0);
        let resolved = placer_models::validate_resolved(&req).unwrap();
        lap(1);
        let policy = registry::lookup(req.policy.algorithm).unwrap();
        let ix = Indexed::with_resolved(&req, resolved);
        let model = LocalityCost::new(&ix);
        stages::check_costs(&ix, &model).unwrap();
        let shares = fair_shares::compute(&ix);
        let starvation = Starvation::new(&ix, &shares);
        lap(2);
        // The solve is the engine's: run once, its placement reused by the later runs.
        let mut placed = match &placement {
            Some(p) => Clone::clone(p),
            None => {
                let epoch = Epoch {
                    ix: &ix,
                    model: &model,
                    shares: &shares,
                    starvation: &starvation,
                    engine: req.policy.solver,
                    cancel: None,
                    warm: None,
                };
                let p = policy.place(&epoch).unwrap();
                placement = Some(p.clone());
                p
            }
        };
        lap(3);
        let settled = disk::settle(&ix, &model, &mut placed.node_of_task);
        if settled.changed() && placed.status == Status::Optimal {
            placed.status = Status::Heuristic;
        }
        let running_after = stages::running_after_placement(&ix, &placed);
        let victims = if policy.preempts() {
            preemption::plan(&ix, &shares, &starvation, &running_after)
        } else {
            Vec::new()
        };
        let outcome = stages::Outcome {
            placement: &placed,
            victims: &victims,
            shares: &shares,
            clocks: starvation.clocks_after(&running_after),
            running_after: &running_after,
        };
        let response = stages::build(&ix, &model, &outcome, &PlaceOptions::default());
        stages::check_answer(&req, &response).unwrap();
        lap(4);
        let out = serde_json::to_vec(&response).unwrap();
        lap(5);
        answer_len = out.len();
        for (b, x) in best.iter_mut().zip(t) {
            *b = b.min(x);
        }
        for (b, x) in best_cpu.iter_mut().zip(c) {
            *b = b.min(x);
        }
    }
    let without_solve = |x: &[f64; 6]| -> f64 {
        x.iter().enumerate().filter(|&(k, _)| k != 3).map(|(_, x)| x).sum()
    };
    let (path, path_cpu) = (without_solve(&best), without_solve(&best_cpu));
    println!("{file}: {} bytes, answer {answer_len} bytes, min of {runs} runs", bytes.len());
    println!("{:>10} {:>9} {:>9}", "stage", "wall ms", "cpu ms");
    for ((name, x), y) in STAGES.iter().zip(best).zip(best_cpu) {
        println!("{name:>10} {:9.1} {:9.1}", x * 1e3, y * 1e3);
    }
    let mb = bytes.len() as f64 / 1e6;
    println!(
        "{:>10} {:9.1} {:9.1}  {:.0} MB/s wall, {:.0} MB/s cpu (bytes / path without the solve)",
        "path",
        path * 1e3,
        path_cpu * 1e3,
        mb / path,
        mb / path_cpu
    );
}
