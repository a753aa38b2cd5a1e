//! Fairness against data locality, one epoch at a time: (a) every placement policy on a shared
//! cluster whose pools start unfairly loaded (FAIR, Zaharia et al. §2–3; `MultiPoolSpec`), and
//! (b) the α sweep of lsap-fair-sched (Guo, Fox, Zhou §4.4, Fig. 9; `Fig9Spec`): as the weight
//! of the data-locality cost grows, locality improves and fairness deteriorates in steps.
//! A quality comparison, not a timing: run it with
//! `cargo bench --bench fairness_tradeoff -- --bench`; `cargo test` builds it and runs nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use placer_datasets::{fig9_snapshot, multi_pool_snapshot, Fig9Spec, MultiPoolSpec};
use placer_models::{Algorithm, PlaceRequest, PlaceResponse};
use placer_solver::fairness_distance;
use placer_solver::{place, registry, PlaceOptions};
use serde_json::json;
use std::collections::BTreeMap;

const SEEDS: std::ops::RangeInclusive<u64> = 1..=5;
/// The seed of the Fig. 9 staircase table (one seed shows the steps undiluted).
const FIG9_SEED: u64 = 1;
/// β of the sweep (the default).
const FIG9_BETA: f64 = 10.0;

fn solve(req: &PlaceRequest) -> PlaceResponse {
    place(req, &PlaceOptions::default()).expect("places")
}

/// d(0): the fairness distance of the running maps before placement, with the formula of
/// `stats.fairness_distance` (active pools: map demand > 0).
fn initial_distance(req: &PlaceRequest, resp: &PlaceResponse) -> f64 {
    let weight: Vec<f64> = req.pools.iter().map(|p| p.weight).collect();
    let running: Vec<f64> = resp.pools.iter().map(|p| p.running.map).collect();
    let active: Vec<bool> = resp.pools.iter().map(|p| p.demand.map > 0.0).collect();
    fairness_distance(&weight, &running, &active)
}

/// Maps placed per pool, in pool order.
fn placed_per_pool(req: &PlaceRequest, resp: &PlaceResponse) -> Vec<f64> {
    let pool_of_job: BTreeMap<_, _> = req
        .jobs
        .iter()
        .map(|j| (&j.id, req.pools.iter().position(|p| p.id == j.pool).expect("pool")))
        .collect();
    let job_of_task: BTreeMap<_, _> = req.pending.iter().map(|t| (&t.id, &t.job)).collect();
    let mut placed = vec![0.0; req.pools.len()];
    for a in &resp.assignments {
        placed[pool_of_job[job_of_task[&a.task]]] += 1.0;
    }
    placed
}

struct Row {
    label: String,
    set: Box<dyn Fn(&mut PlaceRequest)>,
}

/// The registered algorithm named `name`.
fn algorithm(name: &str) -> Algorithm {
    registry::by_name(name).expect("a registered policy").0
}

/// One row per registered policy on the wire defaults, each followed by the settings of it
/// the table also shows (delay scheduling's waits, lsap_fair's α).
fn rows() -> Vec<Row> {
    let default = placer_models::Policy::default().algorithm;
    let mut rows = Vec::new();
    for &(a, policy) in registry::REGISTRY {
        let label = match policy.name() {
            "delay" => "delay (first epoch: level 0, wait 0)".to_owned(),
            "lsap_fair" => "lsap_fair (α = 1, β = 10)".to_owned(),
            name if a == default => format!("{name} (default)"),
            name => name.to_owned(),
        };
        rows.push(Row { label, set: Box::new(move |r| r.policy.algorithm = a) });
        rows.extend(variants(policy.name()));
    }
    rows
}

/// The extra rows of one policy.
fn variants(name: &str) -> Vec<Row> {
    let delay = algorithm("delay");
    let lsap_fair = algorithm("lsap_fair");
    match name {
        "delay" => vec![
            Row {
                label: "delay (wait elapsed: 10 s ≥ T1 + T2 = 9 s)".to_owned(),
                set: Box::new(move |r| {
                    r.policy.algorithm = delay;
                    for j in &mut r.jobs {
                        j.state.set("delay", &json!({"level": 0, "wait_s": 10.0}));
                    }
                }),
            },
            Row {
                label: "delay (T1 = T2 = 0)".to_owned(),
                set: Box::new(move |r| {
                    r.policy.algorithm = delay;
                    r.policy.set("locality_delay_node_s", 0.0);
                    r.policy.set("locality_delay_rack_s", 0.0);
                }),
            },
        ],
        "lsap_fair" => [10.0, 100.0]
            .into_iter()
            .map(|alpha| Row {
                label: format!("lsap_fair (α = {alpha}, β = 10)"),
                set: Box::new(move |r: &mut PlaceRequest| {
                    r.policy.algorithm = lsap_fair;
                    r.policy.set("alpha", alpha);
                }),
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn policies_table() {
    let spec = MultiPoolSpec::default();
    // Determinism of the generator at the byte level (the datasets crate has no JSON dependency).
    let bytes = |s: &MultiPoolSpec| serde_json::to_vec(&multi_pool_snapshot(s).expect("spec"));
    assert_eq!(bytes(&spec).expect("json"), bytes(&spec).expect("json"), "same seed, same bytes");

    let n = SEEDS.count() as f64;
    let (mut d0, mut pending, mut free) = (0.0, 0.0, 0.0);
    println!(
        "| policy | node-local | rack-local | remote | locality cost (s) | d(t) | d(0) − d(t) | assigned | placed p0 / p1 / p2 (w 1 / 2 / 4) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---|");
    for (i, row) in rows().iter().enumerate() {
        let (mut node, mut rack, mut remote, mut cost, mut dt, mut assigned) =
            (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
        let mut placed = vec![0.0; spec.weights.len()];
        let mut row_d0 = 0.0;
        for seed in SEEDS {
            let mut req =
                multi_pool_snapshot(&MultiPoolSpec { seed, ..spec.clone() }).expect("spec");
            (row.set)(&mut req);
            let resp = solve(&req);
            let s = &resp.stats;
            node += s.node_local as f64;
            rack += s.rack_local as f64;
            remote += s.remote as f64;
            cost += s.locality_cost / req.policy.settings["alpha"].as_f64().unwrap_or(1.0);
            dt += s.fairness_distance;
            assigned += s.assigned as f64;
            row_d0 += initial_distance(&req, &resp);
            for (p, c) in placed_per_pool(&req, &resp).into_iter().enumerate() {
                placed[p] += c;
            }
            if i == 0 {
                pending += s.pending as f64;
                free += s.free_map_slots as f64;
            }
        }
        if i == 0 {
            d0 = row_d0 / n;
        }
        let pct = |x: f64| if assigned > 0.0 { 100.0 * x / assigned } else { 0.0 };
        let placed: Vec<String> = placed.iter().map(|c| format!("{:.1}", c / n)).collect();
        println!(
            "| {} | {:.1}% | {:.1}% | {:.1}% | {:.1} | {:.3} | {:+.3} | {:.1} | {} |",
            row.label,
            pct(node),
            pct(rack),
            pct(remote),
            cost / n,
            dt / n,
            (row_d0 - dt) / n,
            assigned / n,
            placed.join(" / "),
        );
    }
    println!();
    println!(
        "Before placement (mean of seeds {}..={}): d(0) = {d0:.3}; {:.1} pending maps, {:.1} free map slots.",
        SEEDS.start(),
        SEEDS.end(),
        pending / n,
        free / n
    );
}

fn fig9_table() {
    println!("| α | node-local | rack-local | remote | transfer (s) | α · DLC (s) | d(t) | d(0) − d(t) | placed g0 / g1 / g2 / g3 / g4 | mean node-local, seeds 1–5 | mean d(0) − d(t), seeds 1–5 |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|");
    let base = |seed: u64| {
        let mut req = fig9_snapshot(&Fig9Spec::paper(seed)).expect("spec");
        req.policy.algorithm = algorithm("lsap_fair");
        req.policy.set("beta", FIG9_BETA);
        req
    };
    let mut d0 = 0.0;
    let n = SEEDS.count() as f64;
    for k in 0..=24 {
        let alpha = 10f64.powf(-3.0 + 0.25 * f64::from(k));
        let mut req = base(FIG9_SEED);
        req.policy.set("alpha", alpha);
        let resp = solve(&req);
        let s = &resp.stats;
        d0 = initial_distance(&req, &resp);
        let placed: Vec<String> =
            placed_per_pool(&req, &resp).iter().map(|c| format!("{c}")).collect();
        let (mut mean_node, mut mean_gain) = (0.0, 0.0);
        for seed in SEEDS {
            let mut req = base(seed);
            req.policy.set("alpha", alpha);
            let resp = solve(&req);
            mean_node += resp.stats.node_local as f64;
            mean_gain += initial_distance(&req, &resp) - resp.stats.fairness_distance;
        }
        println!(
            "| {alpha:.4} | {} | {} | {} | {:.1} | {:.2} | {:.3} | {:+.3} | {} | {:.1} | {:+.3} |",
            s.node_local,
            s.rack_local,
            s.remote,
            s.locality_cost / alpha,
            s.locality_cost,
            s.fairness_distance,
            d0 - s.fairness_distance,
            placed.join(" / "),
            mean_node / n,
            mean_gain / n,
        );
    }
    let mut req = base(FIG9_SEED);
    let count = |tasks: &mut dyn Iterator<Item = &placer_models::JobId>, g: usize| {
        tasks.filter(|&j| *j == req.jobs[g].id).count()
    };
    let running: Vec<usize> =
        (0..req.pools.len()).map(|g| count(&mut req.running.iter().map(|t| &t.job), g)).collect();
    let pending: Vec<usize> =
        (0..req.pools.len()).map(|g| count(&mut req.pending.iter().map(|t| &t.job), g)).collect();
    let groups: Vec<String> = (0..req.pools.len())
        .map(|g| format!("g{g}: {} running, {} pending", running[g], pending[g]))
        .collect();
    println!();
    println!("Seed {FIG9_SEED}, β = {FIG9_BETA}: d(0) = {d0:.3}; {}.", groups.join("; "));

    // References on the same snapshot: lsap (no fairness cost), and the smallest D any
    // placement filling the free slots can reach (brute force over per-group counts).
    req.policy.algorithm = algorithm("lsap");
    req.policy.set("alpha", 1.0);
    let lsap = solve(&req);
    let weight: Vec<f64> = req.pools.iter().map(|p| p.weight).collect();
    let free = lsap.stats.free_map_slots.min(req.pending.len() as u64) as usize;
    let (best, counts) = best_distance(&weight, &running, &pending, free);
    println!(
        "lsap on the same snapshot: {} node-local, {} rack-local, {} remote, transfer {:.1} s, d(t) = {:.3}. \
         Smallest d(t) any placement of {free} maps can reach: {best:.3} (placed {}).",
        lsap.stats.node_local,
        lsap.stats.rack_local,
        lsap.stats.remote,
        lsap.stats.locality_cost,
        lsap.stats.fairness_distance,
        counts.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" / "),
    );
}

/// The smallest fairness distance over all ways to place `free` maps, at most `pending[g]` of
/// group g, on top of `running` (every group active), and the per-group counts reaching it.
fn best_distance(
    weight: &[f64],
    running: &[usize],
    pending: &[usize],
    free: usize,
) -> (f64, Vec<usize>) {
    fn walk(
        g: usize,
        left: usize,
        x: &mut Vec<usize>,
        eval: &dyn Fn(&[usize]) -> f64,
        pending: &[usize],
        best: &mut (f64, Vec<usize>),
    ) {
        if g == pending.len() {
            if left == 0 {
                let d = eval(x);
                if d < best.0 {
                    *best = (d, x.clone());
                }
            }
            return;
        }
        for c in 0..=pending[g].min(left) {
            x.push(c);
            walk(g + 1, left - c, x, eval, pending, best);
            x.pop();
        }
    }
    let active = vec![true; weight.len()];
    let eval = |x: &[usize]| {
        let after: Vec<f64> = running.iter().zip(x).map(|(&r, &c)| (r + c) as f64).collect();
        fairness_distance(weight, &after, &active)
    };
    let mut best = (f64::INFINITY, Vec::new());
    walk(0, free, &mut Vec::new(), &eval, pending, &mut best);
    best
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing: run only for bench.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    policies_table();
    println!();
    fig9_table();
}
