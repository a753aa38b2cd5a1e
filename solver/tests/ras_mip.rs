//! RAS's epoch problem (Polo et al. §3.4, eqs. 4–6) solved by the MIP reference: hand-derived
//! cases on RAS Table 2's profiles, and a property test against a brute-force oracle that
//! enumerates every count per (task class, node) of tiny instances.

use placer_models::{parse_request, validate, Status};
use placer_solver::mip::{self, MipLimits, MAX_VARIABLES};
use placer_solver::ras::{Counts, RasProblem};
use placer_solver::Indexed;
use proptest::prelude::*;
use serde_json::{json, Value};

fn problem(snapshot: &Value) -> RasProblem {
    let req = parse_request(snapshot.to_string().as_bytes()).expect("snapshot parses");
    validate(&req).expect("snapshot is valid");
    RasProblem::of(&Indexed::new(&req))
}

/// Maps placed per job (classes are per job and kind here: one profile each).
fn maps_of(p: &RasProblem, counts: &Counts) -> Vec<u32> {
    p.allocated(counts).iter().zip(&p.running).map(|(a, r)| a[0] - r[0]).collect()
}

fn pending_maps(job: &str, n: usize) -> Vec<Value> {
    (0..n).map(|i| json!({"id": format!("{job}-m{i}"), "job": job, "kind": "map"})).collect()
}

/// RAS Table 2's Sort and Combine maps (CPU/I/O/memory: 30/45/25 and 25/10/10 % of a
/// TaskTracker) with four maps pending each, on one TaskTracker normalised to 100.
fn table2_sort_and_combine(combine_goal: Option<(f64, f64)>) -> Value {
    let mut combine = json!({"id": "combine", "pool": "p",
        "profile": {"map": {"cpu": 25, "io": 10, "mem": 10}}});
    if let Some((goal_s, mean_map_s)) = combine_goal {
        combine["goal_s"] = json!(goal_s);
        combine["mean_map_s"] = json!(mean_map_s);
    }
    json!({"schema_version": 1, "now_s": 0,
        "cluster": {"racks": [{"id": "r"}], "nodes": [{"id": "tt", "rack": "r",
            "resources": {"cpu": 100, "io": 100, "mem": 100}}]},
        "pools": [{"id": "p"}],
        "jobs": [{"id": "sort", "pool": "p", "profile": {"map": {"cpu": 30, "io": 45, "mem": 25}}},
                 combine],
        "pending": ([pending_maps("sort", 4), pending_maps("combine", 4)].concat())})
}

/// RAS Table 2, relaxed goals (Exp. 1: s_req = 1, s_pend = 4, u_M(a) = (a − 1) / 3). What
/// fits beside s Sort maps: I/O 45s + 10c ≤ 100 and CPU 30s + 25c ≤ 100 give c ≤ 2 at s = 1
/// and c ≤ 1 at s = 2 (s = 3 needs I/O 135). (1, 2) and (2, 1) both reach min utility 0 — a
/// tie eq. 4 cannot break — and eq. 5 prefers (2, 1): CPU 85 + I/O 100 + memory 60 = 2.45
/// against 80 + 65 + 45 = 1.90.
#[test]
fn ras_table2_sort_and_combine_tie_broken_by_packing() {
    let p = problem(&table2_sort_and_combine(None));
    let answer = mip::solve(&p, MipLimits::default()).expect("solved");
    assert_eq!(maps_of(&p, &answer.counts), [2, 1]);
    assert_eq!(answer.min_utility, Some(0.0));
    assert!((answer.packing - 2.45).abs() < 1e-12, "{}", answer.packing);
    assert_eq!(answer.status, Status::Optimal);
    assert!(p.feasible(&answer.counts));
}

/// RAS Table 2 with a goal for Combine (Exp. 2's kind): 4 maps of 50 s due in 100 s. The
/// TaskTracker fits 4 Combine maps at once (CPU 25 each), so placer's goal plan asks for all
/// 4 now (one wave, done at 50 s; eq. 2 would ask ⌈4 · 50 / 100⌉ = 2). Now (2, 1) leaves
/// Combine at ln 1 / ln 4 − 1 = −1 while (1, 2) lifts it to ln 2 / ln 4 − 1 = −0.5 (Sort at
/// 0): eq. 4 wins over eq. 5's better packing, 1.90 < 2.45.
#[test]
fn ras_table2_combine_goal_outweighs_packing() {
    let p = problem(&table2_sort_and_combine(Some((100.0, 50.0))));
    assert_eq!(p.needs[1].s_req, 4);
    let answer = mip::solve(&p, MipLimits::default()).expect("solved");
    assert_eq!(maps_of(&p, &answer.counts), [1, 2]);
    assert!((answer.min_utility.unwrap() + 0.5).abs() < 1e-12, "{:?}", answer.min_utility);
    assert!((answer.packing - 1.9).abs() < 1e-12, "{}", answer.packing);
}

/// RAS §3.3: u_M = −∞ with no map slot ("at least one slot must be allocated"). A job whose
/// maps fit no TaskTracker stays at −∞ whatever is placed, so eq. 4 cannot tell placements
/// apart and eq. 5 decides alone: two maps of the other job (CPU 100) rather than the stuck
/// job's two shuffling reduces (CPU 80), although those would raise its u_R from −1 to 0.
#[test]
fn ras_minus_infinity_leaves_packing_to_decide() {
    let p = problem(&json!({"schema_version": 1, "now_s": 0,
        "cluster": {"racks": [{"id": "r"}], "nodes": [{"id": "tt", "rack": "r",
            "resources": {"cpu": 100}}]},
        "pools": [{"id": "p"}],
        "jobs": [{"id": "stuck", "pool": "p",
                  "profile": {"map": {"cpu": 200}, "shuffle": {"cpu": 40}, "reduce": {"cpu": 40}}},
                 {"id": "sort", "pool": "p", "profile": {"map": {"cpu": 50}}}],
        "pending": ([pending_maps("stuck", 1), pending_maps("sort", 3),
                     vec![json!({"id": "stuck-r0", "job": "stuck", "kind": "reduce"}),
                          json!({"id": "stuck-r1", "job": "stuck", "kind": "reduce"})]].concat())}));
    let answer = mip::solve(&p, MipLimits::default()).expect("solved");
    assert_eq!(answer.min_utility, Some(f64::NEG_INFINITY));
    assert_eq!(maps_of(&p, &answer.counts), [0, 2]);
    assert_eq!(p.allocated(&answer.counts)[0][1], 0, "no reduce of the stuck job");
    assert!((answer.packing - 1.0).abs() < 1e-12);
}

/// Nothing to run: zero counts, no utility.
/// Found by the brute-force property test: n1 is overcommitted by a running map of j0 (cpu
/// 0.2 of 0.1) but has a free map slot, which j1's maps (no demand) can take. The optimum
/// puts j0's two maps on n0 (u_M = 1, its reduces, 0.4 each, do not fit beside them: u_R =
/// −1, so u = 0) and one of j1's on n1 (u = 0): least utility 0. Handing HiGHS "nothing
/// placed" as a start once made it stop there (least utility −∞).
#[test]
fn mip_zero_demand_job_joins_an_overcommitted_node() {
    let reduces = vec![
        json!({"id": "j0-r0", "job": "j0", "kind": "reduce"}),
        json!({"id": "j0-r1", "job": "j0", "kind": "reduce"}),
    ];
    let pending = [pending_maps("j0", 2), pending_maps("j1", 2), reduces].concat();
    let s = json!({"schema_version": 1, "now_s": 0,
        "cluster": {"racks": [{"id": "r"}], "nodes": [
            {"id": "n0", "rack": "r", "map_slots": 2, "resources": {"cpu": 0.7}},
            {"id": "n1", "rack": "r", "map_slots": 2, "resources": {"cpu": 0.1}}]},
        "pools": [{"id": "p"}],
        "jobs": [{"id": "j0", "pool": "p",
                  "profile": {"map": {"cpu": 0.2}, "shuffle": {"cpu": 0.4}}},
                 {"id": "j1", "pool": "p", "profile": {"map": {"cpu": 0.0}}}],
        "pending": pending,
        "running": [{"id": "j0-run", "job": "j0", "kind": "map", "node": "n1"}]});
    let p = problem(&s);
    let solution = mip::solve(&p, MipLimits::default()).unwrap();
    assert_eq!(solution.min_utility, Some(0.0));
    assert_eq!(maps_of(&p, &solution.counts), [2, 1]);
    assert!(p.feasible(&solution.counts));
}

#[test]
fn mip_without_active_jobs_places_nothing() {
    let p = problem(&json!({"schema_version": 1,
        "cluster": {"racks": [{"id": "r"}], "nodes": [{"id": "tt", "rack": "r",
            "resources": {"cpu": 1}}]},
        "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}], "pending": []}));
    let answer = mip::solve(&p, MipLimits::default()).expect("solved");
    assert_eq!(answer.min_utility, None);
    assert_eq!(answer.counts, Counts::zero(0, 1));
    assert_eq!(answer.status, Status::Optimal);
}

/// Above [`MAX_VARIABLES`] (two classes × 10,001 nodes): 422 `problem_too_large` at
/// `policy.solver`, before any model is built.
#[test]
fn mip_refuses_more_variables_than_its_limit() {
    let nodes: Vec<Value> = (0..10_001)
        .map(|i| json!({"id": format!("n{i}"), "rack": "r", "resources": {"cpu": 1}}))
        .collect();
    let p = problem(&json!({"schema_version": 1,
        "cluster": {"racks": [{"id": "r"}], "nodes": nodes},
        "pools": [{"id": "p"}],
        "jobs": [{"id": "a", "pool": "p", "profile": {"map": {"cpu": 1}}},
                 {"id": "b", "pool": "p", "profile": {"map": {"cpu": 1}}}],
        "pending": ([pending_maps("a", 1), pending_maps("b", 1)].concat())}));
    assert!(p.classes.len() * p.room.nodes() > MAX_VARIABLES);
    let err = mip::solve(&p, MipLimits::default()).expect_err("too large");
    assert_eq!((err.code(), err.path()), ("problem_too_large", "policy.solver"));
    assert!(err.to_string().contains("20000"), "{err}");
}

/// One class on one node, but 20,000 maps that all fit: 1 count + 20,000 indicators, one over
/// the limit.
#[test]
fn mip_counts_the_utility_indicators_in_its_limit() {
    let p = problem(&json!({"schema_version": 1,
        "cluster": {"racks": [{"id": "r"}], "nodes": [{"id": "tt", "rack": "r",
            "resources": {"cpu": 1}}]},
        "pools": [{"id": "p"}], "jobs": [{"id": "a", "pool": "p"}],
        "pending": pending_maps("a", MAX_VARIABLES)}));
    let err = mip::solve(&p, MipLimits::default()).expect_err("too large");
    assert_eq!((err.code(), err.path()), ("problem_too_large", "policy.solver"));
    assert!(err.to_string().contains("+ 20000 utility indicators = 20001 variables"), "{err}");
}

/// A time limit of zero: HiGHS stops at once, the answer is the feasible start (or better)
/// and says `time_limited`.
#[test]
fn mip_time_limit_zero_is_time_limited_and_feasible() {
    let p = problem(&table2_sort_and_combine(None));
    let limits = MipLimits { time_limit_s: Some(0.0), max_nodes: None };
    let answer = mip::solve(&p, limits).expect("an answer");
    assert_eq!(answer.status, Status::TimeLimited);
    assert!(p.feasible(&answer.counts));
}

/// The best (least utility, then packing) over every feasible count per (class, node):
/// least utilities within 1e-9 tie (both −∞ included).
fn oracle(p: &RasProblem) -> (Option<f64>, f64) {
    fn walk(p: &RasProblem, cell: usize, x: &mut Counts, best: &mut Option<(Option<f64>, f64)>) {
        let nodes = p.room.nodes();
        if cell == p.classes.len() * nodes {
            if !p.feasible(x) {
                return;
            }
            let (u, pack) = (p.min_utility(x), p.packing(x));
            let better = match *best {
                None => true,
                Some((bu, bpack)) => match (u, bu) {
                    (Some(a), Some(b)) if a == b || (a - b).abs() <= 1e-9 => pack > bpack,
                    (Some(a), Some(b)) => a > b,
                    _ => pack > bpack,
                },
            };
            if better {
                *best = Some((u, pack));
            }
            return;
        }
        let (c, n) = (cell / nodes, cell % nodes);
        let used: u32 = x.x[c][..n].iter().sum();
        for k in 0..=(p.classes[c].tasks.len() as u32 - used) {
            x.x[c][n] = k;
            walk(p, cell + 1, x, best);
        }
        x.x[c][n] = 0;
    }
    let mut best = None;
    walk(p, 0, &mut Counts::zero(p.classes.len(), p.room.nodes()), &mut best);
    best.expect("placing nothing is feasible")
}

const RESOURCES: [&str; 2] = ["cpu", "mem"];

/// Tenths, so that sums like 0.1 + 0.2 meet capacities like 0.3 (the room's tolerance).
fn amounts(values: &[u8]) -> Value {
    Value::Object(
        values
            .iter()
            .zip(RESOURCES)
            .map(|(&v, r)| (r.to_owned(), json!(f64::from(v) / 10.0)))
            .collect(),
    )
}

/// A tiny RAS snapshot: 1–2 nodes, 1–2 resources, 1–2 jobs with up to 3 pending maps and 3
/// pending reduces, some running tasks (which may overfill a node), optional goals.
fn tiny_snapshot() -> impl Strategy<Value = Value> {
    let node = (prop::collection::vec(1u8..=10, 2), 0u32..=2, 0u32..=2);
    let job = (
        prop::collection::vec(0u8..=6, 6),
        0usize..=3,
        0usize..=3,
        prop::collection::vec(0usize..2, 0..=2),
        prop::collection::vec(0usize..2, 0..=1),
        prop::option::of((1u32..=100, 1u32..=100)),
    );
    (1usize..=2, prop::collection::vec(node, 1..=2), prop::collection::vec(job, 1..=2)).prop_map(
        |(resources, nodes, jobs)| {
            let mut running = Vec::new();
            let mut pending = Vec::new();
            let mut busy = vec![[0u32; 2]; nodes.len()];
            let mut job_values = Vec::new();
            for (j, (demand, maps, reduces, run_maps, run_reduces, goal)) in jobs.iter().enumerate()
            {
                let id = format!("j{j}");
                let d = |i: usize| amounts(&demand[2 * i..2 * i + resources]);
                let mut job = json!({"id": id, "pool": "p",
                    "profile": {"map": d(0), "shuffle": d(1), "reduce": d(2)}});
                if let Some((goal_s, mean_map_s)) = goal {
                    job["goal_s"] = json!(goal_s);
                    job["mean_map_s"] = json!(mean_map_s);
                }
                job_values.push(job);
                for i in 0..*maps {
                    pending.push(json!({"id": format!("{id}-m{i}"), "job": id, "kind": "map"}));
                }
                for i in 0..*reduces {
                    pending.push(json!({"id": format!("{id}-r{i}"), "job": id, "kind": "reduce"}));
                }
                for (kind, on) in [("map", run_maps), ("reduce", run_reduces)] {
                    for (i, &n) in on.iter().enumerate() {
                        let n = n % nodes.len();
                        busy[n][usize::from(kind == "reduce")] += 1;
                        running.push(json!({"id": format!("{id}-run-{kind}{i}"), "job": id,
                            "kind": kind, "node": format!("n{n}"), "started_s": 0}));
                    }
                }
            }
            let node_values: Vec<Value> = nodes
                .iter()
                .zip(&busy)
                .enumerate()
                .map(|(n, ((capacity, map_slots, reduce_slots), busy))| {
                    // 0 = no slot cap on a node with capacities; a cap holds its running tasks.
                    let cap = |slots: u32, busy: u32| if slots == 0 { 0 } else { slots.max(busy) };
                    json!({"id": format!("n{n}"), "rack": "r",
                        "map_slots": cap(*map_slots, busy[0]),
                        "reduce_slots": cap(*reduce_slots, busy[1]),
                        "resources": amounts(&capacity[..resources])})
                })
                .collect();
            json!({"schema_version": 1, "now_s": 0,
                "cluster": {"racks": [{"id": "r"}], "nodes": node_values},
                "pools": [{"id": "p"}], "jobs": job_values,
                "pending": pending, "running": running})
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The MIP reaches the oracle's least utility and then its packing (1e-6), with counts the
    /// room admits, and answers the same twice.
    #[test]
    fn mip_matches_brute_force_on_tiny_instances(snapshot in tiny_snapshot()) {
        let p = problem(&snapshot);
        let answer = mip::solve(&p, MipLimits::default()).expect("solved");
        prop_assert!(p.feasible(&answer.counts), "{:?}", answer.counts);
        prop_assert_eq!(answer.status, Status::Optimal);
        prop_assert_eq!(answer.min_utility, p.min_utility(&answer.counts));
        let (best_u, best_pack) = oracle(&p);
        match (answer.min_utility, best_u) {
            (Some(a), Some(b)) if a.is_finite() || b.is_finite() => {
                prop_assert!((a - b).abs() <= 1e-6, "min utility {} vs oracle {}", a, b);
            }
            (a, b) => prop_assert_eq!(a, b),
        }
        prop_assert!((answer.packing - best_pack).abs() <= 1e-6,
            "packing {} vs oracle {}", answer.packing, best_pack);
        let again = mip::solve(&p, MipLimits::default()).expect("solved");
        prop_assert_eq!(again, answer);
    }
}
