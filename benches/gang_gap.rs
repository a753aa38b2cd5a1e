//! The gang heuristic against the exact optimum (gangs as in Kubernetes KEP-4671's PodGroup
//! `minCount`, domains as in Kueue's topology-aware scheduling, under `lsap_quota`'s quotas on
//! lsap-sched's locality cost): on seeded random epochs (2–4 racks of 2–4 nodes with 1–3 map
//! and 0–2 reduce slots, 2–4 pools, 3–6 jobs of 1–8 tasks, half of them gangs and half with a
//! node, rack or block domain, required or preferred, some tasks already running), the
//! heuristic's answer ([`placer_solver::gang::heuristic`]) and the MIP's
//! ([`placer_solver::mip::quota_mip`]) are scored by the one scorer
//! ([`placer_solver::gang::GangProblem::score`]) on
//! - the tasks placed (the first objective), and
//! - the cost when both place as many (the second), in seconds of locality cost.
//!
//! Prints one line per instance with `--verbose` (and instance N's snapshot and both answers
//! with `--dump N`), then how often the heuristic reaches the
//! optimum and the quantiles of the gaps. Deterministic for the seed; asserts that both
//! answers are valid and the MIP's never worse. A quality comparison, not a timing:
//! `cargo bench --bench gang_gap -- --instances 200 --seed 1`.
//!
//! The same epochs under the per-workload baselines of Kueue's topology-aware scheduling
//! (`kueue_best_fit`, `kueue_least_free`: [`placer_solver::tas`], one workload at a time; their
//! answers asserted valid) and the gang-unaware `lsap_quota_no_gang` (how many of its answers
//! start a gang below `min_member` or split a required job), against the same optimum.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use placer_models::{parse_request, validate};
use placer_solver::fair::fair_shares;
use placer_solver::fair::starvation::Starvation;
use placer_solver::gang::{heuristic, GangProblem};
use placer_solver::mip::{self, MipLimits};
use placer_solver::policy::{by_name, Epoch};
use placer_solver::{tas, Indexed, LocalityCost};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

fn instance(rng: &mut ChaCha8Rng) -> Value {
    let racks = rng.random_range(2..=4);
    let per_rack = rng.random_range(2..=4);
    let nodes = racks * per_rack;
    let node_list: Vec<Value> = (0..nodes)
        .map(|n| {
            json!({"id": format!("n{n}"), "rack": format!("r{}", n / per_rack),
                   "block": format!("b{}", n / (2 * per_rack)),
                   "map_slots": rng.random_range(1..=3), "reduce_slots": rng.random_range(0..=2)})
        })
        .collect();
    let rack_list: Vec<Value> = (0..racks).map(|r| json!({"id": format!("r{r}")})).collect();
    let pools = rng.random_range(2..=4);
    let pool_list: Vec<Value> = (0..pools)
        .map(|p| json!({"id": format!("p{p}"), "weight": rng.random_range(1..=3)}))
        .collect();
    let jobs = rng.random_range(3..=6);
    let (mut job_list, mut pending, mut running) = (Vec::new(), Vec::new(), Vec::new());
    let mut used = vec![[0u32; 2]; nodes];
    for j in 0..jobs {
        let tasks = rng.random_range(1..=8);
        let mut total = 0;
        for i in 0..tasks {
            let id = format!("j{j}-{i}");
            if rng.random_bool(0.75) {
                let replicas: Vec<String> =
                    (0..2).map(|_| format!("n{}", rng.random_range(0..nodes))).collect();
                let mut replicas = replicas;
                replicas.dedup();
                pending.push(json!({"id": id, "job": format!("j{j}"), "kind": "map",
                    "input_bytes": 64_000_000 * rng.random_range(1..=4), "replicas": replicas}));
            } else {
                pending.push(json!({"id": id, "job": format!("j{j}"), "kind": "reduce",
                    "shuffle": [{"node": format!("n{}", rng.random_range(0..nodes)),
                                 "bytes": 20_000_000 * rng.random_range(1..=5)}]}));
            }
            total += 1;
        }
        if rng.random_bool(0.3) {
            let n = rng.random_range(0..nodes);
            if used[n][0] < node_list[n]["map_slots"].as_u64().unwrap() as u32 {
                used[n][0] += 1;
                total += 1;
                running.push(json!({"id": format!("j{j}-run"), "job": format!("j{j}"),
                                    "kind": "map", "node": format!("n{n}")}));
            }
        }
        let mut job = json!({"id": format!("j{j}"), "pool": format!("p{}", rng.random_range(0..pools)),
                             "submit_s": j});
        if rng.random_bool(0.5) {
            job["gang"] = json!({"min_member": rng.random_range(1..=total)});
        }
        if rng.random_bool(0.5) {
            let level = ["node", "rack", "block"][rng.random_range(0..3)];
            let mode = if rng.random_bool(0.5) { "required" } else { "preferred" };
            job["topology"] = json!({"level": level, "mode": mode});
        }
        job_list.push(job);
    }
    json!({"schema_version": 1,
           "cluster": {"racks": rack_list, "nodes": node_list},
           "pools": pool_list, "jobs": job_list, "pending": pending, "running": running})
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

/// One baseline's comparison with the optimum over the instances.
#[derive(Default)]
struct Against {
    same: u64,
    same_count: u64,
    ratio_placed: Vec<f64>,
    cost_gap: Vec<f64>,
}

impl Against {
    fn add(&mut self, b: placer_solver::gang::Score, m: placer_solver::gang::Score, units: f64) {
        self.same += u64::from(b == m);
        if b.placed == m.placed {
            self.same_count += 1;
            self.cost_gap.push((b.cost - m.cost) as f64 / units);
        }
        if m.placed > 0 {
            self.ratio_placed.push(b.placed as f64 / m.placed as f64);
        }
    }

    fn print(&mut self, name: &str, instances: u64) {
        self.ratio_placed.sort_by(f64::total_cmp);
        self.cost_gap.sort_by(f64::total_cmp);
        println!(
            "{name}: optimum {} of {instances}, same count {} of {instances}, placed / optimal \
             min {:.3} p10 {:.3} p50 {:.3} mean {:.3}, cost gap where the counts agree, s: \
             p50 {:.3} p90 {:.3} max {:.3}",
            self.same,
            self.same_count,
            self.ratio_placed.first().copied().unwrap_or(f64::NAN),
            quantile(&self.ratio_placed, 0.1),
            quantile(&self.ratio_placed, 0.5),
            self.ratio_placed.iter().sum::<f64>() / self.ratio_placed.len().max(1) as f64,
            quantile(&self.cost_gap, 0.5),
            quantile(&self.cost_gap, 0.9),
            self.cost_gap.last().copied().unwrap_or(f64::NAN),
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str, default: u64| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (instances, seed) = (value("--instances", 200), value("--seed", 1));
    let verbose = args.iter().any(|a| a == "--verbose");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut same, mut same_count, mut limited) = (0u64, 0u64, 0u64);
    let mut ratio_placed = Vec::new();
    let mut cost_gap = Vec::new();
    let started = std::time::Instant::now();
    let (mut heuristic_s, mut mip_s) = (0.0, 0.0);
    let mut kueue = [Against::default(), Against::default()];
    let (mut blind_placed, mut optimal_placed, mut blind_broken) = (0u64, 0u64, 0u64);
    let (mut kueue_placed, mut heuristic_placed) = ([0u64; 2], 0u64);
    for i in 0..instances {
        let v = instance(&mut rng);
        let req = parse_request(v.to_string().as_bytes()).unwrap();
        validate(&req).unwrap();
        let ix = Indexed::new(&req);
        let model = LocalityCost::new(&ix);
        let shares = fair_shares::compute(&ix);
        let p = GangProblem::new(&ix, &model, &shares, None).unwrap();
        let t = std::time::Instant::now();
        let fast = heuristic::place(&p);
        heuristic_s += t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        let exact = mip::quota_mip::solve(
            &p,
            MipLimits { max_nodes: Some(20_000), ..MipLimits::default() },
        )
        .unwrap();
        mip_s += t.elapsed().as_secs_f64();
        limited += u64::from(exact.status != placer_models::Status::Optimal);
        let h = p.score(&fast.node_of_task).expect("the heuristic's answer is valid");
        let m = p.score(&exact.node_of_task).expect("the MIP's answer is valid");
        assert!(m.at_least(h) || exact.status != placer_models::Status::Optimal, "instance {i}");
        if h == m {
            same += 1;
        }
        if h.placed == m.placed {
            same_count += 1;
            // The cost gap in seconds of locality cost (surcharge units are far below a second).
            cost_gap.push((h.cost - m.cost) as f64 / p.units_per_second);
        }
        if m.placed > 0 {
            ratio_placed.push(h.placed as f64 / m.placed as f64);
        }
        // The per-workload baselines on the same epoch.
        let starvation = Starvation::new(&ix, &shares);
        let epoch = Epoch {
            ix: &ix,
            model: &model,
            shares: &shares,
            starvation: &starvation,
            engine: placer_models::SolverEngine::Auto,
            cancel: None,
            warm: None,
        };
        let profiles = [tas::Profile::BestFit, tas::Profile::LeastFreeCapacity];
        for (against, profile) in kueue.iter_mut().zip(profiles) {
            let answer = tas::place(&epoch, profile).unwrap();
            let b = p.score(&answer.node_of_task).expect("the Kueue baseline's answer is valid");
            against.add(b, m, p.units_per_second);
            kueue_placed[usize::from(profile == tas::Profile::LeastFreeCapacity)] += b.placed;
        }
        heuristic_placed += h.placed;
        optimal_placed += m.placed;
        let (_, blind) = by_name("lsap_quota_no_gang").unwrap();
        let answer = blind.place(&epoch).unwrap();
        blind_placed += answer.node_of_task.iter().flatten().count() as u64;
        blind_broken += u64::from(matches!(
            p.score(&answer.node_of_task),
            Err(placer_solver::gang::Invalid::Gang(_) | placer_solver::gang::Invalid::Domain(_))
        ));
        if verbose {
            println!("{i}: heuristic {h:?}, mip {m:?} ({:?})", exact.status);
        }
        if value("--dump", u64::MAX) == i {
            println!("{v}\nheuristic {:?}\nmip {:?}", fast.node_of_task, exact.node_of_task);
        }
    }
    ratio_placed.sort_by(f64::total_cmp);
    cost_gap.sort_by(f64::total_cmp);
    println!("instances {instances}, seed {seed}, {:.1} s in all", started.elapsed().as_secs_f64());
    println!(
        "heuristic {:.3} s, MIP {:.3} s in all; MIP cut by its node budget: {limited}",
        heuristic_s, mip_s
    );
    println!("heuristic reaches the optimum (placed and cost): {same} of {instances}");
    println!("the same number of tasks placed: {same_count} of {instances}");
    println!(
        "heuristic / optimal placed: min {:.3}, p10 {:.3}, p50 {:.3}",
        ratio_placed.first().copied().unwrap_or(f64::NAN),
        quantile(&ratio_placed, 0.1),
        quantile(&ratio_placed, 0.5)
    );
    println!(
        "heuristic − optimal cost where the counts agree, s: p50 {:.3}, p90 {:.3}, max {:.3}",
        quantile(&cost_gap, 0.5),
        quantile(&cost_gap, 0.9),
        cost_gap.last().copied().unwrap_or(f64::NAN)
    );
    println!(
        "tasks placed in all: MIP {optimal_placed}, heuristic {heuristic_placed}, \
              kueue_best_fit {}, kueue_least_free {}, lsap_quota_no_gang {blind_placed}",
        kueue_placed[0], kueue_placed[1]
    );
    kueue[0].print("kueue_best_fit", instances);
    kueue[1].print("kueue_least_free", instances);
    println!(
        "lsap_quota_no_gang breaks a gang or a required domain in {blind_broken} of {instances}"
    );
}
