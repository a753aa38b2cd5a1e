//! `ras` and `lsap_ras` on hand-derived snapshots (Polo et al., Middleware 2011): Algorithm 1's
//! reducers-first spread (lines 1–8), its mapper rounds that move a slot from the job of
//! highest utility to the lowest (lines 9–25), the shuffle → reduce profile switch (line 26),
//! the utilities of eqs. 1–3 with a completion-time goal (§3.2), and `lsap_ras` keeping RAS's
//! counts while placing them by exact locality.

use placer_models::{PlaceRequest, PlaceResponse};
use placer_solver::{place, PlaceOptions};
use serde_json::{json, Value};

fn run(snapshot: &Value, algorithm: &str) -> PlaceResponse {
    let mut snapshot = snapshot.clone();
    snapshot["policy"] = json!({"algorithm": algorithm});
    let req: PlaceRequest = serde_json::from_value(snapshot).expect("snapshot parses");
    place(&req, &PlaceOptions::default()).expect("placed")
}

/// Placed tasks per (job, node), sorted.
fn placed(r: &PlaceResponse) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = r
        .assignments
        .iter()
        .map(|a| (a.task.as_str().split('-').next().unwrap_or("").to_owned(), a.node.to_string()))
        .collect();
    v.sort();
    v
}

fn utility(r: &PlaceResponse, job: &str) -> Option<f64> {
    r.jobs
        .iter()
        .find(|j| j.id.as_str() == job)
        .and_then(placer_solver::echo::reported::<placer_solver::ras::report::JobUtility>)
        .and_then(|u| u.0)
}

fn maps(job: &str, n: usize) -> Vec<Value> {
    (0..n).map(|i| json!({"id": format!("{job}-m{i}"), "job": job, "kind": "map"})).collect()
}

fn reduces(job: &str, n: usize) -> Vec<Value> {
    (0..n).map(|i| json!({"id": format!("{job}-r{i}"), "job": job, "kind": "reduce"})).collect()
}

fn snapshot(nodes: Value, jobs: Value, pending: Vec<Value>, running: Value) -> Value {
    json!({"schema_version": 1, "now_s": 0,
           "cluster": {"racks": [{"id": "r"}], "nodes": nodes},
           "pools": [{"id": "p"}], "jobs": jobs, "pending": pending, "running": running})
}

/// Algorithm 1, lines 1–8: each job places at most one reducer per TaskTracker per cycle,
/// on the nodes with the fewest reducers first. A (3 reduces) takes n1 and n2; B (2) then
/// finds one reducer on each and takes n1 and n2 too. A's third waits: u_A = u_R(2 of 3) =
/// ln 2 / ln 3 − 1 (no map left: u_M = 1, so u = 1 + u_R).
#[test]
fn ras_alg1_lines_1_8_reducers_spread_one_per_node() {
    let nodes = json!([{"id": "n1", "rack": "r", "resources": {"mem": 100}},
                       {"id": "n2", "rack": "r", "resources": {"mem": 100}}]);
    let jobs = json!([{"id": "A", "pool": "p", "submit_s": 0, "profile": {"reduce": {"mem": 10}}},
                      {"id": "B", "pool": "p", "submit_s": 1, "profile": {"reduce": {"mem": 10}}}]);
    let pending = [reduces("A", 3), reduces("B", 2)].concat();
    let r = run(&snapshot(nodes, jobs, pending, json!([])), "ras");
    let pairs = placed(&r);
    let pairs: Vec<(&str, &str)> = pairs.iter().map(|(j, n)| (j.as_str(), n.as_str())).collect();
    assert_eq!(pairs, [("A", "n1"), ("A", "n2"), ("B", "n1"), ("B", "n2")]);
    let u_a = 1.0 + (2f64.ln() / 3f64.ln() - 1.0);
    assert!((utility(&r, "A").unwrap() - u_a).abs() < 1e-12);
    assert_eq!(utility(&r, "B"), Some(1.0));
    assert!((r.stats.extra["min_utility"].as_f64().unwrap() - u_a).abs() < 1e-12);
}

/// Algorithm 1, lines 9–25. n1 has 100 I/O and 2 GPUs, n2 100 I/O and none. A's maps need
/// I/O 50; B's I/O 50 and a GPU, so B runs only on n1. Round 1 fills n1 with A (earlier, tied
/// at −∞) then B, and n2 with two of A: A 3 of 4 maps (u = 2/3), B 1 of 2 (u = 0). Round 2 on
/// n1: A, the highest, gives its map back (u_A = 1/3 > u_B = 0) and B, the lowest, takes it:
/// A 2 (u = 1/3), B 2 (u = 1). The least utility rose from 0 to 1/3, the optimum.
#[test]
fn ras_alg1_round_two_moves_a_slot_to_the_lowest_job() {
    let nodes = json!([{"id": "n1", "rack": "r", "resources": {"io": 100, "gpu": 2}},
                       {"id": "n2", "rack": "r", "resources": {"io": 100}}]);
    let jobs = json!([{"id": "A", "pool": "p", "submit_s": 0, "profile": {"map": {"io": 50}}},
                      {"id": "B", "pool": "p", "submit_s": 1,
                       "profile": {"map": {"io": 50, "gpu": 1}}}]);
    let pending = [maps("A", 4), maps("B", 2)].concat();
    let r = run(&snapshot(nodes, jobs, pending, json!([])), "ras");
    let pairs = placed(&r);
    let count = |job: &str, node: &str| pairs.iter().filter(|(j, n)| j == job && n == node).count();
    assert_eq!((count("A", "n1"), count("A", "n2"), count("B", "n1")), (0, 2, 2));
    assert!((utility(&r, "A").unwrap() - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(utility(&r, "B"), Some(1.0));
}

/// Algorithm 1, line 26: a reduce shuffles while its job has maps left (profile `shuffle`,
/// mem 10) and reduces after (profile `reduce`, mem 60). One node of mem 100 runs X's map
/// (mem 35). X's reduce (shuffling: 10) and X's next map (35) fit: 80. Y has no map left, so
/// its reduce needs 60 and waits; had it still been shuffling it would have fit.
#[test]
fn ras_alg1_line_26_profile_switch_shuffle_to_reduce() {
    let nodes = json!([{"id": "n1", "rack": "r", "resources": {"mem": 100}}]);
    let profile = json!({"map": {"mem": 35}, "shuffle": {"mem": 10}, "reduce": {"mem": 60}});
    let jobs = json!([{"id": "X", "pool": "p", "submit_s": 0, "profile": profile},
                      {"id": "Y", "pool": "p", "submit_s": 1, "profile": profile}]);
    let pending = [maps("X", 1), reduces("X", 1), reduces("Y", 1)].concat();
    let running = json!([{"id": "X-m9", "job": "X", "kind": "map", "node": "n1"}]);
    let r = run(&snapshot(nodes, jobs, pending, running), "ras");
    let pairs = placed(&r);
    assert_eq!(pairs, [("X".to_owned(), "n1".to_owned()), ("X".to_owned(), "n1".to_owned())]);
    let y = r.waiting.iter().find(|w| w.job.as_str() == "Y").expect("Y waits");
    assert_eq!(serde_json::to_value(y.reason).unwrap(), json!("slots_taken"));
}

/// §3.2 with a goal, placer's goal plan: 10 maps of 60 s and 120 s to the goal. Eq. 2 would
/// ask for ⌈10 · 60 / 120⌉ = 5 at once; the node fits 2 (I/O 40 each of 100), so even alone the
/// job needs 5 waves = 300 s > 120 s: the goal is out of reach, and the plan asks for what the
/// job can use now, s_req = 2, which its 2 maps meet: u = 0 (eq. 2 would leave it at ln 2 /
/// ln 5 − 1, lowest for ever). With no goal (s_req = 1) the same 2 maps give (2 − 1) / (10 − 1).
#[test]
fn ras_eq2_goal_sets_required_concurrency() {
    let nodes = json!([{"id": "n1", "rack": "r", "resources": {"io": 100}}]);
    let goal = json!([{"id": "G", "pool": "p", "goal_s": 120, "mean_map_s": 60,
                       "profile": {"map": {"io": 40}}}]);
    let r = run(&snapshot(nodes.clone(), goal, maps("G", 10), json!([])), "ras");
    assert_eq!(r.assignments.len(), 2);
    assert_eq!(utility(&r, "G"), Some(0.0));
    let relaxed = json!([{"id": "G", "pool": "p", "profile": {"map": {"io": 40}}}]);
    let r = run(&snapshot(nodes, relaxed, maps("G", 10), json!([])), "ras");
    assert!((utility(&r, "G").unwrap() - 1.0 / 9.0).abs() < 1e-12);
}

/// placer's goal plan: a job with slack yields to an urgent one (RAS Experiment 2's J1 and
/// J5 in miniature). Two nodes of I/O 100, maps of I/O 50: the cluster runs 4 at once. A
/// (earlier, 40 maps of 10 s, goal 1,000 s) needs 100 s of the whole cluster; B (4 maps of
/// 10 s, goal 20 s) needs all 4 slots for one wave, or 3 for two waves (20 s). Eq. 2 asks
/// ⌈40 · 10 / 1,000⌉ = 1 for A and ⌈4 · 10 / 20⌉ = 2 for B, and max-min then splits the
/// cluster 2 / 2 (tied at u = 0, the earlier A takes the last map). The plan serves B first:
/// B's s_req is 4 (it ends at 10 s), A's 1 (what B leaves now, at least one map). Algorithm
/// 1: n1 gets A (tied at −∞, earlier) then B; n2 two of B; taking A's map back would drop A
/// to −∞, so B ends with 3 (u = ln 3 / ln 4 − 1) and A with 1 (u = 0 / 39 = 0).
#[test]
fn ras_goal_plan_slack_job_yields_to_urgent_one() {
    let nodes = json!([{"id": "n1", "rack": "r", "resources": {"io": 100}},
                       {"id": "n2", "rack": "r", "resources": {"io": 100}}]);
    let jobs = json!([{"id": "A", "pool": "p", "submit_s": 0, "goal_s": 1000, "mean_map_s": 10,
                       "profile": {"map": {"io": 50}}},
                      {"id": "B", "pool": "p", "submit_s": 0, "goal_s": 20, "mean_map_s": 10,
                       "profile": {"map": {"io": 50}}}]);
    let pending = [maps("A", 40), maps("B", 4)].concat();
    for policy in ["ras", "lsap_ras"] {
        let r = run(&snapshot(nodes.clone(), jobs.clone(), pending.clone(), json!([])), policy);
        let count = |job: &str| placed(&r).iter().filter(|(j, _)| j == job).count();
        assert_eq!((count("A"), count("B")), (1, 3), "{policy}");
        assert_eq!(utility(&r, "A"), Some(0.0), "{policy}");
        let u_b = 3f64.ln() / 4f64.ln() - 1.0;
        assert!((utility(&r, "B").unwrap() - u_b).abs() < 1e-12, "{policy}");
    }
}

/// A job with no map running or placed while it needs one has u = −∞: `null` on the wire,
/// and so is `stats.min_utility`.
#[test]
fn ras_minus_infinity_is_null() {
    let nodes = json!([{"id": "n1", "rack": "r", "resources": {"io": 100}}]);
    let jobs = json!([{"id": "big", "pool": "p", "profile": {"map": {"io": 150}}}]);
    let mut s = snapshot(nodes, jobs, maps("big", 1), json!([]));
    s["policy"] = json!({"algorithm": "ras"});
    let req: PlaceRequest = serde_json::from_value(s).unwrap();
    let r = place(&req, &PlaceOptions::default()).unwrap();
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["jobs"][0]["utility"], Value::Null);
    assert!(v["jobs"][0].as_object().unwrap().contains_key("utility"));
    assert_eq!(v["stats"]["min_utility"], Value::Null);
}

/// `lsap_ras` keeps RAS's counts and packing, and places them by locality. Two nodes of I/O
/// 100; A's maps (I/O 50) have their blocks on n2, B's (I/O 50) on n1. RAS fills n1 first
/// with A then B, so one of each per node, half of them remote; lsap_ras swaps them: every map
/// node-local, the same utilities.
#[test]
fn lsap_ras_same_counts_better_locality() {
    let nodes = json!([{"id": "n1", "rack": "r", "resources": {"io": 100}},
                       {"id": "n2", "rack": "r", "resources": {"io": 100}}]);
    let jobs = json!([{"id": "A", "pool": "p", "submit_s": 0, "profile": {"map": {"io": 50}}},
                      {"id": "B", "pool": "p", "submit_s": 1, "profile": {"map": {"io": 50}}}]);
    let map = |id: &str, job: &str, at: &str| json!({"id": id, "job": job, "kind": "map", "input_bytes": 64_000_000, "replicas": [at]});
    let pending = vec![
        map("A-m0", "A", "n2"),
        map("A-m1", "A", "n2"),
        map("B-m0", "B", "n1"),
        map("B-m1", "B", "n1"),
    ];
    let s = snapshot(nodes, jobs, pending, json!([]));
    let ras = run(&s, "ras");
    let exact = run(&s, "lsap_ras");
    assert_eq!(ras.stats.assigned, 4);
    assert_eq!(exact.stats.assigned, 4);
    assert_eq!(ras.stats.extra.get("min_utility"), exact.stats.extra.get("min_utility"));
    assert_eq!(exact.stats.node_local, 4);
    assert!(ras.stats.node_local < 4);
    assert_eq!(exact.stats.locality_cost, 0.0);
}

#[test]
fn multi_resource_policies_are_ras_drf_and_lsap_ras() {
    // The simulator sends uncapped nodes to exactly the policies that place by resources.
    let multi: Vec<&str> = placer_solver::registry::REGISTRY
        .iter()
        .filter(|(_, p)| p.multi_resource())
        .map(|(_, p)| p.name())
        .collect();
    assert_eq!(multi, ["ras", "lsap_ras", "drf"]);
}
