//! ShuffleWatcher (Ahmad et al.) as served: hand-derived cases for NASS (Fig. 3), SAMP (Figs. 4
//! and 5), SARP (Figs. 6 and 7), the starvation windows (§3.4), SW-relaxed (§5.2) and the
//! new fields' bad input, each named after its figure or section.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use placer_models::{PlaceRequest, PlaceResponse};
use placer_solver::echo::reported;
use placer_solver::shuffle::ShuffleWatcherState;
use placer_solver::{place, PlaceOptions};
use serde_json::{json, Value};

fn run(snapshot: Value) -> PlaceResponse {
    let req: PlaceRequest = serde_json::from_value(snapshot).expect("snapshot parses");
    place(&req, &PlaceOptions::default()).expect("placed")
}

fn node_of(r: &PlaceResponse, task: &str) -> Option<String> {
    r.assignments.iter().find(|a| a.task.as_str() == task).map(|a| a.node.to_string())
}

fn nodes(ids: &[(&str, &str)], map_slots: u32, reduce_slots: u32) -> Value {
    Value::Array(
        ids.iter()
            .map(|(id, rack)| {
                json!({"id": id, "rack": rack, "map_slots": map_slots, "reduce_slots": reduce_slots})
            })
            .collect(),
    )
}

/// Fig. 5: two jobs of one user whose blocks are all on both racks. SAMP gives job 1 rack r1
/// and job 2 rack r2, and NASS's line 4 keeps each job's maps there; the Fair Scheduler, with
/// the same heartbeats, spreads both jobs over both racks.
#[test]
fn sw_fig5_samp_puts_each_jobs_maps_on_its_own_rack() {
    let snapshot = |algorithm: &str| {
        json!({"schema_version": 1,
            "cluster": {"racks": [{"id": "r1"}, {"id": "r2"}],
                "nodes": nodes(&[("a1", "r1"), ("a2", "r1"), ("b1", "r2"), ("b2", "r2")], 1, 0)},
            "pools": [{"id": "p"}],
            "jobs": [{"id": "j1", "pool": "p", "user": "u", "submit_s": 1},
                     {"id": "j2", "pool": "p", "user": "u", "submit_s": 2}],
            "pending": [
                {"id": "j1-m1", "job": "j1", "kind": "map", "input_bytes": 64, "replicas": ["a1", "b1"]},
                {"id": "j1-m2", "job": "j1", "kind": "map", "input_bytes": 64, "replicas": ["a2", "b2"]},
                {"id": "j2-m1", "job": "j2", "kind": "map", "input_bytes": 64, "replicas": ["a1", "b1"]},
                {"id": "j2-m2", "job": "j2", "kind": "map", "input_bytes": 64, "replicas": ["a2", "b2"]}],
            "policy": {"algorithm": algorithm}})
    };
    let sw = run(snapshot("shuffle_watcher"));
    let rack = |r: &PlaceResponse, t: &str| node_of(r, t).map(|n| n.starts_with('a'));
    assert_eq!(rack(&sw, "j1-m1"), Some(true));
    assert_eq!(rack(&sw, "j1-m2"), Some(true));
    assert_eq!(rack(&sw, "j2-m1"), Some(false));
    assert_eq!(rack(&sw, "j2-m2"), Some(false));
    // SAMP's decision comes back for the master to echo.
    let state: ShuffleWatcherState = reported(&sw.jobs[1]).expect("SAMP state");
    assert_eq!(state.preferred_map_racks.iter().map(|r| r.as_str()).collect::<Vec<_>>(), ["r2"]);
    // The Fair Scheduler: a1 → j1, a2 → j2 (fewer running), b1 → j1, b2 → j2.
    let fair = run(snapshot("fair"));
    assert_ne!(rack(&fair, "j1-m1"), rack(&fair, "j1-m2"), "fair spreads job 1");
}

/// Fig. 4 through the service: an echoed SAMP decision is kept even when the maps left would
/// make a fresh decision differ (SAMP runs once per job, at submission).
#[test]
fn sw_fig4_echoed_decision_is_kept() {
    let r = run(json!({"schema_version": 1,
        "cluster": {"racks": [{"id": "r1"}, {"id": "r2"}],
            "nodes": nodes(&[("a1", "r1"), ("b1", "r2")], 1, 0)},
        "pools": [{"id": "p"}],
        "jobs": [{"id": "j", "pool": "p", "shuffle_input_ratio": 2.0,
                  "shuffle_watcher": {"preferred_map_racks": ["r1"],
                                      "tentative_reduces_per_rack": [{"rack": "r1", "reduces": 3}]}}],
        "pending": [{"id": "m", "job": "j", "kind": "map", "input_bytes": 64, "replicas": ["b1"]}],
        "policy": {"algorithm": "shuffle_watcher"}}));
    // Line 4: r1 is preferred, so a1's heartbeat (first in the round) takes the map remotely.
    assert_eq!(node_of(&r, "m").as_deref(), Some("a1"));
    let state: ShuffleWatcherState = reported(&r.jobs[0]).unwrap();
    assert_eq!(state.preferred_map_racks[0].as_str(), "r1");
    assert_eq!(state.tentative_reduces_per_rack[0].reduces, 3);
}

/// Fig. 3, line 4 before line 5: a map of a job preferring the node's rack goes before a
/// node-local map of the user's earlier job.
#[test]
fn sw_fig3_line4_preferred_rack_before_local_map() {
    let r = run(json!({"schema_version": 1,
        "cluster": {"racks": [{"id": "r1"}, {"id": "r2"}],
            "nodes": nodes(&[("a1", "r1"), ("b1", "r2")], 0, 0)
                .as_array().unwrap().iter().enumerate()
                .map(|(i, n)| { let mut n = n.clone(); n["map_slots"] = json!(u32::from(i == 0)); n })
                .collect::<Vec<_>>()},
        "pools": [{"id": "p"}],
        "jobs": [{"id": "early", "pool": "p", "user": "u", "submit_s": 1,
                  "shuffle_watcher": {"preferred_map_racks": ["r2"]}},
                 {"id": "late", "pool": "p", "user": "u", "submit_s": 2,
                  "shuffle_watcher": {"preferred_map_racks": ["r1"]}}],
        "pending": [{"id": "e-m", "job": "early", "kind": "map", "input_bytes": 64, "replicas": ["a1"]},
                    {"id": "l-m", "job": "late", "kind": "map", "input_bytes": 64, "replicas": ["b1"]}],
        "policy": {"algorithm": "shuffle_watcher"}}));
    assert_eq!(node_of(&r, "l-m").as_deref(), Some("a1"));
    assert_eq!(node_of(&r, "e-m"), None);
}

/// A two-rack snapshot with one reduce slot per node, nodes listed a1, a2, b1, b2, and two
/// Shuffle-heavy jobs of one user whose intermediate data lies wholly on r1 (job A) and r2
/// (job B), all maps done, two reduces each.
fn sarp_snapshot(algorithm: &str, traffic: f64) -> Value {
    let reduce = |id: &str, job: &str, node: &str| json!({"id": id, "job": job, "kind": "reduce", "shuffle": [{"node": node, "bytes": 1_000_000_000u64}]});
    json!({"schema_version": 1,
        "cluster": {"racks": [{"id": "r1", "uplink_mbps": 500, "cross_rack_traffic_mbps": traffic},
                              {"id": "r2", "uplink_mbps": 500, "cross_rack_traffic_mbps": traffic}],
            "nodes": nodes(&[("a1", "r1"), ("a2", "r1"), ("b1", "r2"), ("b2", "r2")], 0, 1)},
        "pools": [{"id": "p"}],
        "jobs": [{"id": "A", "pool": "p", "user": "u", "submit_s": 1, "shuffle_input_ratio": 1.5,
                  "maps_total": 4, "maps_done": 4},
                 {"id": "B", "pool": "p", "user": "u", "submit_s": 2, "shuffle_input_ratio": 1.5,
                  "maps_total": 4, "maps_done": 4}],
        "pending": [reduce("A-r0", "A", "a1"), reduce("A-r1", "A", "a1"),
                    reduce("B-r0", "B", "b1"), reduce("B-r1", "B", "b1")],
        "policy": {"algorithm": algorithm}})
}

/// GB of the answer's reduces that cross racks in `snapshot` (every reduce pulls 1 GB from one
/// node; node ids start with their rack's letter).
fn cross_rack_gb(snapshot: &Value, r: &PlaceResponse) -> usize {
    r.assignments
        .iter()
        .filter(|a| {
            let task = snapshot["pending"]
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["id"] == a.task.as_str())
                .unwrap();
            let source = task["shuffle"][0]["node"].as_str().unwrap();
            source[..1] != a.node.as_str()[..1]
        })
        .count()
}

/// Fig. 7 with the scheduler: SARP prefers each job's reduces on the rack holding its data
/// (lines 13 and 8), so no shuffle crosses racks; the Fair Scheduler alternates the jobs over
/// the nodes in order (a1 → A, a2 → B, b1 → A, b2 → B) and half of the shuffle crosses.
#[test]
fn sw_fig7_sarp_keeps_each_jobs_shuffle_in_its_rack() {
    for traffic in [0.0, 450.0] {
        let snapshot = sarp_snapshot("shuffle_watcher", traffic);
        let sw = run(snapshot.clone());
        assert_eq!(sw.assignments.len(), 4);
        assert_eq!(cross_rack_gb(&snapshot, &sw), 0, "traffic {traffic}");
    }
    let snapshot = sarp_snapshot("fair", 0.0);
    assert_eq!(cross_rack_gb(&snapshot, &run(snapshot.clone())), 2);
}

/// §5.3's ablation switch, with the data swapped (job A's on r2, B's on r1): without SARP,
/// line 14 takes heavy jobs by arrival, so A fills r1's slots (a1, a2) and B r2's, and all
/// 4 GB cross racks; with SARP lines 13 send B to r1 and A to r2, and none does.
#[test]
fn sw_5_3_without_sarp_reduces_ignore_the_data() {
    let mut snapshot = sarp_snapshot("shuffle_watcher", 0.0);
    for (t, node) in [(0, "b1"), (1, "b1"), (2, "a1"), (3, "a1")] {
        snapshot["pending"][t]["shuffle"][0]["node"] = json!(node);
    }
    assert_eq!(cross_rack_gb(&snapshot, &run(snapshot.clone())), 0);
    snapshot["policy"]["shuffle_watcher"] = json!({"nass": true, "samp": true, "sarp": false});
    let r = run(snapshot.clone());
    assert_eq!(node_of(&r, "A-r0").as_deref(), Some("a1"));
    assert_eq!(node_of(&r, "A-r1").as_deref(), Some("a2"));
    assert_eq!(cross_rack_gb(&snapshot, &r), 4);
}

/// Fig. 3, lines 7 vs 13: the light job's reduce first on a saturated rack, the heavy job's
/// otherwise; NetSat's threshold is `policy.saturation_threshold`.
#[test]
fn sw_fig3_saturation_flips_the_reduce_order() {
    let snapshot = |traffic: f64, threshold: f64| {
        json!({"schema_version": 1,
            "cluster": {"racks": [{"id": "r", "uplink_mbps": 500, "cross_rack_traffic_mbps": traffic}],
                "nodes": nodes(&[("n", "r")], 0, 1)},
            "pools": [{"id": "p"}],
            "jobs": [{"id": "heavy", "pool": "p", "user": "u", "submit_s": 1, "shuffle_input_ratio": 1.5},
                     {"id": "light", "pool": "p", "user": "u", "submit_s": 2, "shuffle_input_ratio": 0.01}],
            "pending": [{"id": "h-r", "job": "heavy", "kind": "reduce"},
                        {"id": "l-r", "job": "light", "kind": "reduce"}],
            "policy": {"algorithm": "shuffle_watcher", "saturation_threshold": threshold}})
    };
    let first = |v| run(v).assignments[0].task.to_string();
    assert_eq!(first(snapshot(401.0, 0.8)), "l-r"); // 80.2% > 80%
    assert_eq!(first(snapshot(400.0, 0.8)), "h-r"); // exactly 80%: not above
    assert_eq!(first(snapshot(401.0, 0.9)), "h-r");
    // NASS off: the unsaturated order whatever the network.
    let mut off = snapshot(500.0, 0.8);
    off["policy"]["shuffle_watcher"] = json!({"nass": false});
    assert_eq!(first(off), "h-r");
}

/// §3.4: a user's job of an earlier starvation window goes first even when a later job has a
/// node-local map (which line 5 would prefer to the earlier job's remote one, line 6).
#[test]
fn sw_3_4_starvation_window_overrides_locality() {
    let snapshot = |window: f64| {
        json!({"schema_version": 1, "now_s": 1300,
            "cluster": {"racks": [{"id": "r1"}, {"id": "r2"}],
                "nodes": [{"id": "a", "rack": "r1", "map_slots": 1}, {"id": "b", "rack": "r2"}]},
            "pools": [{"id": "p"}],
            "jobs": [{"id": "old", "pool": "p", "user": "u", "submit_s": 100,
                      "shuffle_watcher": {"preferred_map_racks": ["r2"]}},
                     {"id": "new", "pool": "p", "user": "u", "submit_s": 700,
                      "shuffle_watcher": {"preferred_map_racks": ["r2"]}}],
            "pending": [{"id": "old-m", "job": "old", "kind": "map", "input_bytes": 64, "replicas": ["b"]},
                        {"id": "new-m", "job": "new", "kind": "map", "input_bytes": 64, "replicas": ["a"]}],
            "policy": {"algorithm": "shuffle_watcher", "starvation_window_s": window}})
    };
    // Windows of 600 s: old is in window 0, new in window 1.
    assert_eq!(run(snapshot(600.0)).assignments[0].task.as_str(), "old-m");
    // One window for both: line 5 (new's node-local map) before line 6 (old's remote one).
    assert_eq!(run(snapshot(3600.0)).assignments[0].task.as_str(), "new-m");
}

/// §5.2 SW-relaxed: a job at delay level 0 whose only map is off-rack waits (FAIR Alg. 1) and
/// the slot goes to the next user; SW-fair launches it.
#[test]
fn sw_5_2_relaxed_skips_a_user_without_a_local_map() {
    let snapshot = |algorithm: &str| {
        json!({"schema_version": 1, "now_s": 10,
            "cluster": {"racks": [{"id": "r1"}, {"id": "r2"}],
                "nodes": [{"id": "a", "rack": "r1", "map_slots": 1}, {"id": "b", "rack": "r2"}]},
            "pools": [{"id": "p"}],
            "jobs": [{"id": "j1", "pool": "p", "user": "u1", "submit_s": 1},
                     {"id": "j2", "pool": "p", "user": "u2", "submit_s": 2}],
            "pending": [{"id": "j1-m", "job": "j1", "kind": "map", "input_bytes": 64, "replicas": ["b"]},
                        {"id": "j2-m", "job": "j2", "kind": "map", "input_bytes": 64, "replicas": ["a"]}],
            "policy": {"algorithm": algorithm, "shuffle_watcher": {"samp": false}}})
    };
    let relaxed = run(snapshot("shuffle_watcher_relaxed"));
    assert_eq!(relaxed.assignments[0].task.as_str(), "j2-m");
    let delay: placer_solver::delay_scheduling::DelayState = reported(&relaxed.jobs[0]).unwrap();
    assert_eq!(delay.skipped_at_s, Some(10.0));
    let strict = run(snapshot("shuffle_watcher"));
    assert_eq!(strict.assignments[0].task.as_str(), "j1-m");
}

/// Users are the fairness unit: user u1 runs two maps, u2 none, so u2's job gets the slot even
/// though u1's second job runs nothing (per-job fairness would pick it, submitted first).
#[test]
fn sw_3_1_line1_fairness_is_per_user() {
    let r = run(json!({"schema_version": 1,
        "cluster": {"racks": [{"id": "r"}], "nodes": [{"id": "n", "rack": "r", "map_slots": 3}]},
        "pools": [{"id": "p"}],
        "users": [{"id": "u1"}, {"id": "u2"}],
        "jobs": [{"id": "a", "pool": "p", "user": "u1", "submit_s": 0},
                 {"id": "b", "pool": "p", "user": "u1", "submit_s": 1},
                 {"id": "c", "pool": "p", "user": "u2", "submit_s": 2}],
        "pending": [{"id": "b-m", "job": "b", "kind": "map", "input_bytes": 64, "replicas": ["n"]},
                    {"id": "c-m", "job": "c", "kind": "map", "input_bytes": 64, "replicas": ["n"]}],
        "running": [{"id": "a-m0", "job": "a", "kind": "map", "node": "n"},
                    {"id": "a-m1", "job": "a", "kind": "map", "node": "n"}],
        "policy": {"algorithm": "shuffle_watcher"}}));
    assert_eq!(r.assignments.len(), 1);
    assert_eq!(r.assignments[0].task.as_str(), "c-m");
}

/// Empty clusters and zero free slots are valid: no placement, a reason.
#[test]
fn empty_cluster_answers_with_a_reason() {
    for algorithm in ["shuffle_watcher", "shuffle_watcher_relaxed"] {
        let r = run(json!({"schema_version": 1, "cluster": {"racks": [], "nodes": []},
            "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}],
            "pending": [{"id": "m", "job": "j", "kind": "map", "input_bytes": 1}],
            "policy": {"algorithm": algorithm}}));
        assert!(r.assignments.is_empty());
        assert_eq!(r.waiting.len(), 1);
    }
}

/// The new fields' bad input: each a 400 with its code and the offending field's path.
#[test]
fn bad_shuffle_watcher_fields_name_their_path() {
    let base = || {
        json!({"schema_version": 1,
            "cluster": {"racks": [{"id": "r"}], "nodes": [{"id": "n", "rack": "r", "map_slots": 1}]},
            "pools": [{"id": "p"}], "users": [{"id": "u"}],
            "jobs": [{"id": "j", "pool": "p", "user": "u"}],
            "policy": {"algorithm": "shuffle_watcher"}})
    };
    let check = |v: Value, code: &str, path: &str| {
        let req: PlaceRequest = serde_json::from_value(v).unwrap();
        let e = placer_models::validate(&req)
            .err()
            .or_else(|| placer_solver::registry::check(&req).err())
            .expect("refused");
        assert_eq!((e.code(), e.path()), (code, path), "{e}");
    };
    let mut v = base();
    v["jobs"][0]["shuffle_input_ratio"] = json!(-0.5);
    check(v, "invalid_number", "jobs[0].shuffle_input_ratio");
    for t in [0.0, 1.5, -1.0] {
        let mut v = base();
        v["policy"]["saturation_threshold"] = json!(t);
        check(v, "invalid_number", "policy.saturation_threshold");
    }
    let mut v = base();
    v["policy"]["map_completion_threshold"] = json!(2.0);
    check(v, "invalid_number", "policy.map_completion_threshold");
    let mut v = base();
    v["policy"]["starvation_window_s"] = json!(0.0);
    check(v, "invalid_number", "policy.starvation_window_s");
    let mut v = base();
    v["jobs"][0]["user"] = json!("stranger");
    check(v, "unknown_reference", "jobs[0].user");
    let mut v = base();
    v["cluster"]["racks"][0]["cross_rack_traffic_mbps"] = json!(-1.0);
    check(v, "invalid_number", "cluster.racks[0].cross_rack_traffic_mbps");
    let mut v = base();
    v["cluster"]["racks"][0]["uplink_mbps"] = json!(0.0);
    check(v, "invalid_number", "cluster.racks[0].uplink_mbps");
    let mut v = base();
    v["users"][0]["weight"] = json!(0.0);
    check(v, "invalid_number", "users[0].weight");
    let mut v = base();
    v["jobs"][0]["maps_total"] = json!(2);
    v["jobs"][0]["maps_done"] = json!(3);
    check(v, "inconsistent", "jobs[0].maps_done");
    let mut v = base();
    v["jobs"][0]["shuffle_watcher"] = json!({"preferred_map_racks": ["nowhere"]});
    check(v, "unknown_reference", "jobs[0].shuffle_watcher.preferred_map_racks[0]");
    // Under the other algorithms an unlisted user is still allowed (running-job limits).
    let mut v = base();
    v["jobs"][0]["user"] = json!("stranger");
    v["policy"]["algorithm"] = json!("fair");
    let req: PlaceRequest = serde_json::from_value(v).unwrap();
    assert!(placer_models::validate(&req).is_ok());
}

/// Bounded work: a small snapshot with many racks and many jobs would make the per-(job, rack)
/// view huge; the shuffle-aware policies answer `422 problem_too_large` at `cluster.racks`
/// instead (3,000 racks × 2,000 jobs = 6,000,000 > 2²²), and the other policies still place.
#[test]
fn many_racks_times_many_jobs_is_problem_too_large_not_gigabytes() {
    let racks: Vec<Value> = (0..3000).map(|r| json!({"id": format!("r{r}")})).collect();
    let jobs: Vec<Value> = (0..2000).map(|j| json!({"id": format!("j{j}"), "pool": "p"})).collect();
    let snapshot = |algorithm: &str| {
        json!({"schema_version": 1,
            "cluster": {"racks": racks, "nodes": [{"id": "n", "rack": "r0", "map_slots": 1}]},
            "pools": [{"id": "p"}], "jobs": jobs,
            "pending": [{"id": "m", "job": "j0", "kind": "map", "input_bytes": 1, "replicas": ["n"]}],
            "policy": {"algorithm": algorithm}})
    };
    for algorithm in ["shuffle_watcher", "shuffle_watcher_relaxed", "lsap_shuffle"] {
        let req: PlaceRequest = serde_json::from_value(snapshot(algorithm)).unwrap();
        let e = place(&req, &PlaceOptions::default()).unwrap_err();
        assert_eq!((e.code(), e.path()), ("problem_too_large", "cluster.racks"), "{algorithm}");
        assert!(!e.is_invalid_input());
    }
    assert_eq!(run(snapshot("fair")).assignments.len(), 1);
}
