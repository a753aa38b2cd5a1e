//! RAS's heuristic against the exact optimum (Polo et al., Middleware 2011, §3.4: "this
//! optimization problem is a variant of the Class Constrained Multiple-Knapsack Problem ...
//! NP-hard, the scheduler adopts a heuristic"): on seeded random epochs in the paper's shape
//! (TaskTrackers of 100 CPU / 100 I/O / 100 memory, jobs with Table 2's Sort, Combine and Select
//! profiles, goals from tight to none, some tasks already running), Algorithm 1's counts and
//! the MIP's (`policy.solver = "mip"`: max-min utility, then packing) are compared on
//! - the least utility (eq. 4), and
//! - the tasks placed.
//!
//! Prints one line per instance with `--verbose`, and the distribution of the gaps: how often
//! the heuristic reaches the optimum, and quantiles of (optimum − heuristic) min utility and
//! heuristic / optimum tasks placed. Deterministic for the seed. A quality comparison, not a
//! timing: `cargo bench --bench ras_gap -- --instances 200 --seed 1`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use placer_models::{parse_request, validate};
use placer_solver::mip::{self, MipLimits};
use placer_solver::ras::{algorithm, RasProblem};
use placer_solver::Indexed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

/// One application's profile (% of one TaskTracker): (name, map cpu, map io, map mem, shuffle
/// io, reduce cpu, reduce io, reduce mem).
type Profile = (&'static str, f64, f64, f64, f64, f64, f64, f64);

/// RAS Table 2's map, shuffle and reduce profiles.
const TABLE2: [Profile; 3] = [
    ("sort", 30.0, 45.0, 25.0, 0.15, 20.0, 50.0, 60.0),
    ("combine", 25.0, 10.0, 10.0, 0.015, 10.0, 10.0, 25.0),
    ("select", 15.0, 20.0, 10.0, 0.015, 10.0, 10.0, 25.0),
];

fn instance(rng: &mut ChaCha8Rng) -> Value {
    let nodes = rng.random_range(2..=6);
    let node_list: Vec<Value> = (0..nodes)
        .map(|i| {
            json!({"id": format!("tt{i}"), "rack": "r",
                        "resources": {"cpu": 100, "io": 100, "mem": 100}})
        })
        .collect();
    let jobs = rng.random_range(2..=5);
    let now = 1000.0;
    let mut job_list = Vec::new();
    let mut pending = Vec::new();
    let mut running = Vec::new();
    for j in 0..jobs {
        let (app, mc, mi, mm, si, rc, ri, rm) = TABLE2[rng.random_range(0..3)];
        let maps = rng.random_range(1..=24);
        let reduces = rng.random_range(0..=2);
        let mut job = json!({"id": format!("{app}{j}"), "pool": "p", "submit_s": j,
            "profile": {"map": {"cpu": mc, "io": mi, "mem": mm}, "shuffle": {"io": si},
                        "reduce": {"cpu": rc, "io": ri, "mem": rm}}});
        // Goals: none (Exp. 1's relaxed), or 1.2–4× the time the maps need one node at a time.
        if rng.random_bool(0.7) {
            let mean = rng.random_range(30.0..120.0_f64).round();
            let slack = rng.random_range(0.05..0.6_f64);
            job["mean_map_s"] = json!(mean);
            job["goal_s"] = json!((now + f64::from(maps) * mean * slack).round());
        }
        job_list.push(job);
        for m in 0..maps {
            pending.push(json!({"id": format!("{app}{j}-m{m}"), "job": format!("{app}{j}"),
                                "kind": "map"}));
        }
        for r in 0..reduces {
            pending.push(json!({"id": format!("{app}{j}-r{r}"), "job": format!("{app}{j}"),
                                "kind": "reduce"}));
        }
        if rng.random_bool(0.3) {
            running.push(json!({"id": format!("{app}{j}-run"), "job": format!("{app}{j}"),
                                "kind": "map", "node": format!("tt{}", rng.random_range(0..nodes))}));
        }
    }
    json!({"schema_version": 1, "now_s": now,
           "cluster": {"racks": [{"id": "r"}], "nodes": node_list},
           "pools": [{"id": "p"}], "jobs": job_list, "pending": pending, "running": running})
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str, default: u64| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let instances = arg("--instances", 200);
    let seed = arg("--seed", 1);
    let verbose = args.iter().any(|a| a == "--verbose");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut same_min, mut same_placed, mut both_inf, mut heur_inf) = (0u64, 0u64, 0u64, 0u64);
    let mut gaps: Vec<f64> = Vec::new();
    let mut ratios: Vec<f64> = Vec::new();
    let mut done = 0u64;
    for i in 0..instances {
        let v = instance(&mut rng);
        let req = parse_request(v.to_string().as_bytes()).unwrap();
        validate(&req).unwrap();
        let ix = Indexed::new(&req);
        let problem = RasProblem::of(&ix);
        let heuristic = algorithm::place(&problem);
        let Ok(optimum) = mip::solve(&problem, MipLimits::default()) else { continue };
        done += 1;
        let h = problem.min_utility(&heuristic).unwrap_or(f64::INFINITY);
        let o = problem.min_utility(&optimum.counts).unwrap_or(f64::INFINITY);
        let placed = |c: &placer_solver::ras::Counts| -> f64 {
            c.x.iter().flatten().map(|&k| f64::from(k)).sum()
        };
        let (ph, po) = (placed(&heuristic), placed(&optimum.counts));
        if verbose {
            println!("{i}: min utility {h:.4} vs {o:.4}, placed {ph} vs {po}");
        }
        assert!(o >= h - 1e-6, "instance {i}: the MIP's {o} is below the heuristic's {h}");
        if (o - h).abs() <= 1e-6 || (o == h) {
            same_min += 1;
        }
        match (h.is_finite(), o.is_finite()) {
            (true, true) => gaps.push(o - h),
            (false, false) => both_inf += 1,
            (false, true) => heur_inf += 1,
            (true, false) => {}
        }
        if ph == po {
            same_placed += 1;
        }
        if po > 0.0 {
            ratios.push(ph / po);
        }
    }
    gaps.sort_by(f64::total_cmp);
    ratios.sort_by(f64::total_cmp);
    println!("instances solved by both: {done} of {instances} (seed {seed})");
    println!(
        "heuristic reaches the optimal min utility: {same_min} ({:.1}%)",
        100.0 * same_min as f64 / done.max(1) as f64
    );
    println!("  both -inf: {both_inf}; heuristic -inf, optimum finite: {heur_inf}");
    println!(
        "  gap (optimum - heuristic) over finite pairs: p50 {:.4}, p90 {:.4}, p99 {:.4}, max {:.4}",
        quantile(&gaps, 0.5),
        quantile(&gaps, 0.9),
        quantile(&gaps, 0.99),
        quantile(&gaps, 1.0)
    );
    println!(
        "same tasks placed: {same_placed} ({:.1}%)",
        100.0 * same_placed as f64 / done.max(1) as f64
    );
    println!(
        "  heuristic / optimum tasks placed: min {:.3}, p10 {:.3}, p50 {:.3}, max {:.3}",
        quantile(&ratios, 0.0),
        quantile(&ratios, 0.1),
        quantile(&ratios, 0.5),
        quantile(&ratios, 1.0)
    );
}
