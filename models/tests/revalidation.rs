//! Validation by difference against validation in full (docs/wire-schema.md, "Sessions"):
//! random sequences of deltas — pending and running tasks added, replaced and removed (some
//! naming unknown jobs or nodes, some reusing ids, some oversubscribing a node), jobs added,
//! replaced and removed (some still named by tasks), the clock moved (sometimes below 0), a
//! rack's measured traffic (sometimes negative, sometimes on a new rack), a node's slots or
//! capacities (sometimes invalid, sometimes in another rack or with another resource), a pool's
//! weight (sometimes negative) — applied to a snapshot in place, some after the nodes were reordered
//! (`Revalidator::nodes_reordered`, as a simulated master does). After each one
//! `Revalidator::revalidate` must give exactly what `validate_resolved` gives: the same
//! resolved references, or the same error; and an invalid delta, undone, leaves the next
//! revalidation right.

use placer_models::{parse_delta, parse_request, validate_resolved, PlaceRequest, Revalidator};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Two racks, four nodes (map 2, reduce 1 each; n4 has a `cpu` capacity), two pools, jobs
/// j0..j2, a few tasks.
fn base() -> PlaceRequest {
    let body = json!({
        "schema_version": 1, "now_s": 10.0,
        "cluster": {"racks": [{"id": "r1"}, {"id": "r2"}], "nodes": [
            {"id": "n1", "rack": "r1", "map_slots": 2, "reduce_slots": 1},
            {"id": "n2", "rack": "r1", "map_slots": 2, "reduce_slots": 1},
            {"id": "n3", "rack": "r2", "map_slots": 2, "reduce_slots": 1},
            {"id": "n4", "rack": "r2", "map_slots": 2, "reduce_slots": 1,
             "resources": {"cpu": 8}}]},
        "pools": [{"id": "p1"}, {"id": "p2", "weight": 2}],
        "jobs": [{"id": "j0", "pool": "p1"}, {"id": "j1", "pool": "p2"}, {"id": "j2", "pool": "p1"}],
        "pending": [
            {"id": "m0", "job": "j0", "kind": "map", "replicas": ["n1", "n2"]},
            {"id": "m1", "job": "j1", "kind": "map", "replicas": ["n3"]},
            {"id": "r0", "job": "j1", "kind": "reduce",
             "shuffle": [{"node": "n1", "bytes": 5}, {"node": "n4", "bytes": 7}]}],
        "running": [{"id": "x0", "job": "j0", "kind": "map", "node": "n1"},
                    {"id": "x1", "job": "j2", "kind": "map", "node": "n3"}]
    });
    parse_request(&serde_json::to_vec(&body).unwrap()).unwrap()
}

const NODES: [&str; 5] = ["n1", "n2", "n3", "n4", "nx"];
const JOBS: [&str; 5] = ["j0", "j1", "j2", "j3", "jx"];

#[derive(Clone, Debug)]
enum Op {
    Pending {
        id: u8,
        job: usize,
        replicas: Vec<usize>,
        reduce: bool,
        demand: bool,
    },
    Unpend(u8),
    Running {
        id: u8,
        job: usize,
        node: usize,
        reduce: bool,
    },
    Stop(u8),
    Job {
        id: usize,
        pool: bool,
    },
    Unjob(usize),
    Now(i32),
    Node {
        slots: u32,
        how: u8,
    },
    Pool(i8),
    Rack {
        new: bool,
        traffic: i32,
    },
    /// Before the delta: the nodes rotated left by this much.
    Reorder(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0u8..8, 0..5usize, prop::collection::vec(0..5usize, 0..3), any::<bool>(), prop::bool::weighted(0.1))
            .prop_map(|(id, job, replicas, reduce, demand)| Op::Pending { id, job, replicas, reduce, demand }),
        3 => (0u8..8).prop_map(Op::Unpend),
        5 => (0u8..8, 0..5usize, 0..5usize, prop::bool::weighted(0.2))
            .prop_map(|(id, job, node, reduce)| Op::Running { id, job, node, reduce }),
        3 => (0u8..8).prop_map(Op::Stop),
        2 => (0..5usize, prop::bool::weighted(0.9)).prop_map(|(id, pool)| Op::Job { id, pool }),
        1 => (0..5usize).prop_map(Op::Unjob),
        2 => (-5i32..100).prop_map(Op::Now),
        2 => (0u32..3, 0u8..4).prop_map(|(slots, how)| Op::Node { slots, how }),
        1 => (-1i8..4).prop_map(Op::Pool),
        2 => (prop::bool::weighted(0.1), -2i32..50).prop_map(|(new, traffic)| Op::Rack { new, traffic }),
        2 => (1..4usize).prop_map(Op::Reorder),
    ]
}

fn changes(ops: &[Op]) -> Value {
    let mut c = json!({"upsert": {"pending": [], "running": [], "jobs": [], "nodes": [], "pools": [], "racks": []},
                       "remove": {"pending": [], "running": [], "jobs": []}});
    let push = |c: &mut Value, a: &str, k: &str, v: Value| c[a][k].as_array_mut().unwrap().push(v);
    for op in ops {
        match op {
            Op::Pending { id, job, replicas, reduce, demand } => {
                // Task ids t0..t7 are shared by pending and running: a reused one is a duplicate.
                let mut t = json!({"id": format!("t{id}"), "job": JOBS[*job],
                    "kind": if *reduce { "reduce" } else { "map" }});
                let nodes: Vec<&str> = replicas.iter().map(|&n| NODES[n]).collect();
                if *reduce {
                    t["shuffle"] = nodes.iter().map(|n| json!({"node": n, "bytes": 3})).collect();
                } else {
                    t["replicas"] = json!(nodes);
                }
                if *demand {
                    t["demand"] = json!({"gpu": 1});
                }
                push(&mut c, "upsert", "pending", t);
            }
            Op::Unpend(id) => push(&mut c, "remove", "pending", json!(format!("t{id}"))),
            Op::Running { id, job, node, reduce } => push(
                &mut c,
                "upsert",
                "running",
                json!({
                "id": format!("t{id}"), "job": JOBS[*job], "node": NODES[*node],
                "kind": if *reduce { "reduce" } else { "map" }}),
            ),
            Op::Stop(id) => push(&mut c, "remove", "running", json!(format!("t{id}"))),
            Op::Job { id, pool } => push(
                &mut c,
                "upsert",
                "jobs",
                json!({
                "id": JOBS[*id], "pool": if *pool { "p2" } else { "px" }, "submit_s": 1}),
            ),
            Op::Unjob(id) => push(&mut c, "remove", "jobs", json!(JOBS[*id])),
            Op::Now(s) => c["now_s"] = json!(f64::from(*s)),
            // n2's slots in its rack; n2 moved to another rack; n4's cpu (−1: invalid);
            // n4 with another resource name.
            Op::Node { slots, how } => {
                let node = match how {
                    0 => json!({"id": "n2", "rack": "r1", "map_slots": slots, "reduce_slots": 1}),
                    1 => json!({"id": "n2", "rack": "r2", "map_slots": slots, "reduce_slots": 1}),
                    2 => json!({"id": "n4", "rack": "r2", "map_slots": slots, "reduce_slots": 1,
                                "resources": {"cpu": f64::from(*slots) - 1.0}}),
                    _ => json!({"id": "n4", "rack": "r2", "map_slots": slots, "reduce_slots": 1,
                                "resources": {"gpu": 2}}),
                };
                push(&mut c, "upsert", "nodes", node);
            }
            Op::Pool(weight) => {
                push(&mut c, "upsert", "pools", json!({"id": "p1", "weight": weight}));
            }
            Op::Rack { new, traffic } => push(
                &mut c,
                "upsert",
                "racks",
                json!({"id": if *new { "rx" } else { "r2" }, "cross_rack_traffic_mbps": traffic}),
            ),
            Op::Reorder(_) => {}
        }
    }
    c
}

/// Runs the deltas; returns how many were validated by difference.
fn check(deltas: &[Vec<Op>]) -> usize {
    let mut fast = 0;
    let mut req = base();
    let mut checker = Revalidator::new();
    let first = checker.revalidate(&req, None).unwrap();
    assert_eq!(first.resolved_for(&req), Some(validate_resolved(&req).unwrap()));
    for (e, ops) in deltas.iter().enumerate() {
        let body = json!({"base_epoch": e, "changes": changes(ops)});
        let delta = parse_delta(&serde_json::to_vec(&body).unwrap()).unwrap();
        for op in ops {
            if let Op::Reorder(k) = op {
                req.cluster.nodes.rotate_left(*k);
                checker.nodes_reordered(&req);
            }
        }
        let before = req.clone();
        let undo = req.apply_changes(delta.changes.0);
        let full = validate_resolved(&req);
        let by_difference = checker.revalidate(&req, Some(&undo));
        match (full, by_difference) {
            (Ok(full), Ok(checked)) => {
                fast += usize::from(checker.was_by_difference());
                assert_eq!(checked.resolved_for(&req), Some(full), "after {body}");
            }
            (Err(full), Err(got)) => {
                assert_eq!(got, full, "after {body}");
                req.undo(undo);
                assert_eq!(req, before);
                checker.invalidate();
            }
            (full, got) => panic!("after {body}: in full {full:?}, by difference {got:?}"),
        }
    }
    fast
}

/// Deltas a master sends every epoch — a task started, one finished, one arrived, the clock, a
/// rack's measured traffic, the nodes in another order — are validated by difference.
#[test]
fn an_epochs_delta_is_validated_by_difference() {
    let epoch = |id: u8| {
        vec![
            Op::Unpend(id),
            Op::Running { id, job: 0, node: 1, reduce: false },
            Op::Pending { id: id + 1, job: 1, replicas: vec![2], reduce: false, demand: false },
            Op::Now(20 + i32::from(id)),
            Op::Rack { new: false, traffic: 7 },
            Op::Reorder(usize::from(id) + 1),
            Op::Node { slots: 2, how: 0 },
            Op::Pool(2),
        ]
    };
    let deltas: Vec<Vec<Op>> = vec![epoch(0), vec![Op::Stop(0)], epoch(2), vec![Op::Stop(2)]];
    assert_eq!(check(&deltas), deltas.len());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn revalidation_equals_validation_in_full(
        deltas in prop::collection::vec(prop::collection::vec(op(), 1..6), 1..10)
    ) {
        check(&deltas);
    }
}

/// A delta recorded against another snapshot than the one the revalidator last saw (a caller
/// skipped one): the lists' lengths before it differ from the state's, so it is validated in
/// full, and the references are right.
#[test]
fn a_delta_against_another_snapshot_is_validated_in_full() {
    let mut req = base();
    let mut checker = Revalidator::new();
    checker.revalidate(&req, None).unwrap();
    let delta = |ops: &[Op]| {
        let body = json!({"base_epoch": 0, "changes": changes(ops)});
        parse_delta(&serde_json::to_vec(&body).unwrap()).unwrap().changes.0
    };
    // Not shown to the checker: the first pending task goes.
    req.pending.remove(0);
    let undo = req.apply_changes(delta(&[Op::Pending {
        id: 1,
        job: 0,
        replicas: vec![2],
        reduce: false,
        demand: false,
    }]));
    let checked = checker.revalidate(&req, Some(&undo)).unwrap();
    assert!(!checker.was_by_difference());
    assert_eq!(checked.resolved_for(&req), Some(validate_resolved(&req).unwrap()));
}

/// Session deltas that upsert a gang job, or take a gang's task away, are validated as a full
/// snapshot would be: j1 has two tasks (m1, r0), so a gang of 2 is valid, a gang of 3 is not,
/// and removing r0 afterwards leaves the gang of 2 above its one task; both errors at
/// `jobs[1].gang.min_member`, as validation in full says.
#[test]
fn gang_jobs_in_deltas_are_validated_as_in_full() {
    let mut req = base();
    let mut checker = Revalidator::new();
    checker.revalidate(&req, None).unwrap();
    let delta = |changes: Value| {
        let body = json!({"base_epoch": 0, "changes": changes});
        parse_delta(&serde_json::to_vec(&body).unwrap()).unwrap().changes.0
    };
    let gang = |n: u32| {
        json!({"upsert": {"jobs": [{"id": "j1", "pool": "p2", "gang": {"min_member": n},
                                    "topology": {"level": "rack", "mode": "preferred"}}]}})
    };
    let mut too_big = req.clone();
    let undo = too_big.apply_changes(delta(gang(3)));
    let e = checker.revalidate(&too_big, Some(&undo)).unwrap_err();
    assert_eq!((e.code(), e.path()), ("inconsistent", "jobs[1].gang.min_member"));
    assert_eq!(Err(e), validate_resolved(&too_big).map(drop));

    let mut checker = Revalidator::new();
    checker.revalidate(&req, None).unwrap();
    let undo = req.apply_changes(delta(gang(2)));
    let checked = checker.revalidate(&req, Some(&undo)).unwrap();
    assert_eq!(checked.resolved_for(&req), Some(validate_resolved(&req).unwrap()));
    assert_eq!(req.jobs[1].gang.map(|g| g.min_member), Some(2));
    let undo = req.apply_changes(delta(json!({"remove": {"pending": ["r0"]}})));
    let e = checker.revalidate(&req, Some(&undo)).unwrap_err();
    assert_eq!((e.code(), e.path()), ("inconsistent", "jobs[1].gang.min_member"));
}
