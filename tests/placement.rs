//! The epoch pipeline end to end on hand-derived snapshots: lsap paper cases (Guo, Fox, Zhou
//! Fig. 1, eq. 1), the bandwidth-aware cost with rack-pair overrides, reduce shuffle costs,
//! dl-sched's documented order, and the valid edge cases (empty cluster, no free slots).

use approx::assert_relative_eq;
use placer_models::{Locality, PlaceRequest, PlaceResponse, Status, WaitReason};
use placer_solver::{place, PlaceOptions};
use placer_testkit::{Job, Map, Node, Pool, Reduce, Running, Snapshot, BLOCK};

/// The base of every case: one pool `p` with jobs `j1`, `j2` and `bg`, the default bandwidths
/// stated, at time 0. Cases add racks, nodes, tasks (j1's pending maps, bg's running ones) and
/// the algorithm.
fn one_pool() -> Snapshot {
    Snapshot::new()
        .network(1000.0, 100.0)
        .pool(Pool::new("p"))
        .job(Job::new("j1").pool("p"))
        .job(Job::new("j2").pool("p"))
        .job(Job::new("bg").pool("p"))
}

fn request(s: &Snapshot) -> PlaceRequest {
    s.build().unwrap()
}

fn run(s: &Snapshot) -> PlaceResponse {
    place(&request(s), &PlaceOptions::default()).unwrap()
}

fn node_of(r: &PlaceResponse, task: &str) -> Option<String> {
    r.assignments.iter().find(|a| a.task.as_str() == task).map(|a| a.node.to_string())
}

/// lsap Fig. 1: nodes A and B with one idle slot each; T1's block on A and B, T2's only on A.
/// dl-sched visits A first and gives it T1 (the first local task), so T2 lands on B: one
/// node-local task. lsap-sched places T1 on B and T2 on A: both node-local, cost 0.
fn fig1(algorithm: &str) -> Snapshot {
    one_pool()
        .rack("r")
        .nodes([Node::new("A").rack("r").map_slots(1), Node::new("B").rack("r").map_slots(1)])
        .maps([
            Map::new("T1").job("j1").input_bytes(BLOCK).replicas(&["A", "B"]),
            Map::new("T2").job("j1").input_bytes(BLOCK).replicas(&["A"]),
        ])
        .algorithm(algorithm)
}

#[test]
fn lsap_fig1_dl_sched_is_not_optimal() {
    let r = run(&fig1("dl_sched"));
    assert_eq!(node_of(&r, "T1").as_deref(), Some("A"));
    assert_eq!(node_of(&r, "T2").as_deref(), Some("B"));
    assert_eq!((r.stats.node_local, r.stats.rack_local), (1, 1));
    assert_eq!(r.stats.status, Status::Heuristic);
    // T2 read in-rack at 1000 Mbit/s: 134,217,728 · 8 / 10⁹ s.
    assert_relative_eq!(r.stats.objective, 1.073_741_824, max_relative = 1e-12);
}

#[test]
fn lsap_fig1_lsap_places_both_node_local() {
    let r = run(&fig1("lsap"));
    assert_eq!(node_of(&r, "T1").as_deref(), Some("B"));
    assert_eq!(node_of(&r, "T2").as_deref(), Some("A"));
    assert_eq!(r.stats.node_local, 2);
    assert_eq!(r.stats.objective, 0.0);
    assert_eq!(r.stats.status, Status::Optimal);
}

#[test]
fn every_exact_engine_gives_the_same_objective() {
    for solver in ["auto", "jv", "hungarian"] {
        assert_eq!(run(&fig1("lsap").solver(solver)).stats.objective, 0.0, "{solver}");
    }
}

/// eq. 1 with bandwidths: one 128 MiB task, replica on n1 (rack r1), the only free slot on n3
/// (rack r2). Cross-rack 100 Mbit/s → 10.737 s; with an r1→r2 override of 50 → 21.475 s;
/// α = 2 doubles it.
#[test]
fn bandwidth_aware_locality_cost_eq1() {
    let base = one_pool()
        .rack("r1")
        .rack("r2")
        .nodes([Node::new("n1").rack("r1").map_slots(1), Node::new("n3").rack("r2").map_slots(1)])
        .map(Map::new("t").job("j1").input_bytes(BLOCK).replicas(&["n1"]))
        .running(Running::map("b").job("bg").node("n1").started_s(0.0))
        .algorithm("lsap");
    let r = run(&base);
    assert_eq!(r.assignments[0].locality, Locality::Remote);
    assert_relative_eq!(r.stats.locality_cost, 10.737_418_24, max_relative = 1e-12);

    let slow_pair = base.rack_pair("r1", "r2", 50.0);
    assert_relative_eq!(run(&slow_pair).stats.objective, 21.474_836_48, max_relative = 1e-12);

    let r = run(&slow_pair.policy("alpha", 2.0));
    assert_relative_eq!(r.assignments[0].cost.locality, 42.949_672_96, max_relative = 1e-12);
    assert_eq!(r.assignments[0].cost.total, r.assignments[0].cost.locality);
}

/// The best replica wins: replicas on n1 (r1, 100 Mbit/s to r2) and n2 (r2, in-rack 1000) for a
/// slot on n3 (r2): 1.074 s, rack-local.
#[test]
fn nearest_replica_sets_the_cost() {
    let s = one_pool()
        .rack("r1")
        .rack("r2")
        .nodes([
            Node::new("n1").rack("r1").map_slots(0),
            Node::new("n2").rack("r2").map_slots(0),
            Node::new("n3").rack("r2").map_slots(1),
        ])
        .map(Map::new("t").job("j1").input_bytes(BLOCK).replicas(&["n1", "n2"]))
        .algorithm("lsap");
    let r = run(&s);
    assert_eq!(r.assignments[0].locality, Locality::Rack);
    assert_relative_eq!(r.stats.objective, 1.073_741_824, max_relative = 1e-12);
}

/// Reduce shuffle cost: 10 MB from n1 (r1), 5 MB from n3 (r2); r1–r2 at 50 Mbit/s.
/// On n1: 5e6·8/5e7 = 0.8 s. On n2 (r1): 0.08 + 0.8 = 0.88 s. On n3: 1.6 s. lsap picks n1.
#[test]
fn reduce_goes_where_its_shuffle_is_cheapest() {
    let s = one_pool()
        .rack("r1")
        .rack("r2")
        .nodes([
            Node::new("n1").rack("r1").map_slots(0).reduce_slots(1),
            Node::new("n2").rack("r1").map_slots(0).reduce_slots(1),
            Node::new("n3").rack("r2").map_slots(0).reduce_slots(1),
        ])
        .rack_pair("r1", "r2", 50.0)
        .reduce(Reduce::new("r").job("j1").shuffle("n1", 10_000_000).shuffle("n3", 5_000_000))
        .algorithm("lsap");
    let r = run(&s);
    assert_eq!(node_of(&r, "r").as_deref(), Some("n1"));
    assert_relative_eq!(r.stats.objective, 0.8, max_relative = 1e-12);
    assert_eq!(r.assignments[0].locality, Locality::Remote);
    assert_eq!(r.stats.node_local + r.stats.rack_local + r.stats.remote, 0, "maps only");
}

/// dl-sched's documented order: heartbeat rounds (one slot per node per round, nodes in
/// snapshot order); per slot a node-local task first, else rack-local, else the first remaining.
#[test]
fn dl_sched_order() {
    let s = one_pool()
        .rack("r1")
        .rack("r2")
        .nodes([
            Node::new("a").rack("r1").map_slots(2),
            Node::new("b").rack("r1").map_slots(1),
            Node::new("c").rack("r2").map_slots(1),
            Node::new("d").rack("r2").map_slots(1),
        ])
        .maps([
            Map::new("t0").job("j1").input_bytes(BLOCK).replicas(&["c"]),
            Map::new("t1").job("j1").input_bytes(BLOCK).replicas(&["b"]),
            Map::new("t2").job("j1").input_bytes(BLOCK).replicas(&["a"]),
            Map::new("t3").job("j1").input_bytes(BLOCK).replicas(&["b"]),
            Map::new("t4").job("j1").input_bytes(BLOCK).replicas(&["b"]),
            Map::new("t5").job("j1").input_bytes(BLOCK),
        ])
        .algorithm("dl_sched");
    let r = run(&s);
    // Round 0: a → local t2; b → local t1 (first of t1, t3, t4 on b); c → local t0;
    // d → nothing local, nothing left in r2, first remaining t3 (remote: its block is in r1).
    // Round 1: a → nothing local, rack-local t4 (on b). t5 waits.
    assert_eq!(node_of(&r, "t2").as_deref(), Some("a"));
    assert_eq!(node_of(&r, "t1").as_deref(), Some("b"));
    assert_eq!(node_of(&r, "t0").as_deref(), Some("c"));
    assert_eq!(node_of(&r, "t3").as_deref(), Some("d"));
    assert_eq!(node_of(&r, "t4").as_deref(), Some("a"));
    assert_eq!(node_of(&r, "t5"), None);
    assert_eq!((r.stats.node_local, r.stats.rack_local, r.stats.remote), (3, 1, 1));
}

#[test]
fn empty_cluster_places_nothing_and_says_why() {
    for algorithm in ["lsap", "dl_sched"] {
        let s = one_pool()
            .maps([
                Map::new("t").job("j1").input_bytes(BLOCK),
                Map::new("u").job("j1").input_bytes(1),
            ])
            .algorithm(algorithm);
        let r = run(&s);
        assert!(r.assignments.is_empty());
        assert_eq!(r.waiting.len(), 1);
        assert_eq!(r.waiting[0].tasks, 2);
        assert_eq!(r.waiting[0].reason, WaitReason::NoFreeSlots);
        assert_eq!(r.stats.free_slots, 0);
    }
}

#[test]
fn all_slots_busy_places_nothing_and_says_why() {
    let s = one_pool()
        .rack("r")
        .node(Node::new("n").rack("r").map_slots(1))
        .map(Map::new("t").job("j1").input_bytes(BLOCK).replicas(&["n"]))
        .running(Running::map("b").job("bg").node("n").started_s(0.0))
        .algorithm("lsap");
    let r = run(&s);
    assert!(r.assignments.is_empty());
    assert_eq!(r.waiting[0].reason, WaitReason::NoFreeSlots);
}

#[test]
fn more_tasks_than_slots_wait_per_job_or_per_task() {
    let s = one_pool()
        .rack("r")
        .node(Node::new("n").rack("r").map_slots(1))
        .maps([
            Map::new("t0").job("j1").input_bytes(BLOCK).replicas(&["n"]),
            Map::new("t1").job("j1").input_bytes(BLOCK),
            Map::new("t2").job("j2").input_bytes(BLOCK),
        ])
        .algorithm("lsap");
    let r = run(&s);
    assert_eq!(node_of(&r, "t0").as_deref(), Some("n"), "the local task takes the slot");
    let waiting: Vec<_> = r.waiting.iter().map(|w| (w.job.as_str(), w.tasks, w.reason)).collect();
    assert_eq!(waiting, [("j1", 1, WaitReason::SlotsTaken), ("j2", 1, WaitReason::SlotsTaken)]);

    let r =
        place(&request(&s), &PlaceOptions { explain: true, ..PlaceOptions::default() }).unwrap();
    let tasks: Vec<_> = r.waiting.iter().map(|w| w.task.as_ref().unwrap().as_str()).collect();
    assert_eq!(tasks, ["t1", "t2"]);
}

#[test]
fn unsupported_engines_are_422_errors_not_panics() {
    let s = fig1("ras").policy("solver", "hungarian");
    let err = place(&request(&s), &PlaceOptions::default()).unwrap_err();
    assert_eq!((err.code(), err.path()), ("unsupported_solver", "policy.solver"));
    assert!(!err.is_invalid_input());
}

#[test]
fn same_input_same_output() {
    let s = fig1("lsap");
    let a = serde_json::to_string(&run(&s)).unwrap();
    let b = serde_json::to_string(&run(&s)).unwrap();
    assert_eq!(a, b);
}

/// Fair shares reported for the shipped example (FAIR App. A water-filling, by hand):
/// 6 map slots; prod (w 2, min 2, demand 1 running + 3 pending = 4), adhoc (w 1, demand 3).
/// f(r) = min(4, max(2r, 2)) + min(3, r) = 6 at r = 2 → prod 4, adhoc 2. Reduce: 3 slots,
/// demand 1 (prod) ≤ 3 → prod 1, adhoc 0. Jobs: j1 takes all of prod's share; j2 (fifo pool)
/// min(3, 2) = 2 maps.
#[test]
fn example_fair_shares_by_hand() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(root.join("examples/snapshot.json")).unwrap();
    let req = placer_models::parse_request(&bytes).unwrap();
    let r = place(&req, &PlaceOptions::default()).unwrap();
    let pool = |i: usize| r.pools[i].fair_share.unwrap();
    let job = |i: usize| r.jobs[i].fair_share.unwrap();
    assert_relative_eq!(pool(0).map, 4.0, max_relative = 1e-12);
    assert_relative_eq!(pool(1).map, 2.0, max_relative = 1e-12);
    assert_relative_eq!(pool(0).reduce, 1.0, max_relative = 1e-12);
    assert_eq!(pool(1).reduce, 0.0);
    assert_relative_eq!(job(0).map, 4.0, max_relative = 1e-12);
    assert_relative_eq!(job(1).map, 2.0, max_relative = 1e-12);
    assert_eq!((r.pools[0].running.map, r.pools[0].demand.map), (1.0, 4.0));
}

/// A node may declare billions of slots: the dense engine caps its columns at the task count
/// and dl_sched's heartbeat rounds stop when the tasks run out, so both answer at once.
#[test]
fn billions_of_slots_on_one_node_are_cheap() {
    for algorithm in ["lsap", "dl_sched"] {
        let s = one_pool()
            .rack("r")
            .nodes([
                Node::new("big").rack("r").map_slots(4_000_000_000).reduce_slots(4_000_000_000),
                Node::new("n").rack("r").map_slots(1),
            ])
            .maps([
                Map::new("t0").job("j1").input_bytes(BLOCK).replicas(&["n"]),
                Map::new("t1").job("j1").input_bytes(BLOCK).replicas(&["big"]),
                Map::new("t2").job("j1").input_bytes(BLOCK),
            ])
            .algorithm(algorithm);
        let r = run(&s);
        assert_eq!(r.stats.assigned, 3, "{algorithm}");
        assert_eq!(r.stats.free_map_slots, 4_000_000_001);
    }
}

/// A dense problem beyond 2²⁷ entries is refused with a 422-class error before allocating.
#[test]
fn oversized_dense_problem_is_refused_not_allocated() {
    let s = one_pool()
        .rack("r")
        .node(Node::new("n").rack("r").map_slots(12_000))
        .maps((0..12_000).map(|i| Map::new(&format!("t{i}")).job("j1").input_bytes(1)))
        .algorithm("lsap");
    let err = place(&request(&s.clone().solver("jv")), &PlaceOptions::default()).unwrap_err();
    assert_eq!((err.code(), err.path()), ("problem_too_large", "pending"));
    assert!(!err.is_invalid_input());
    // The structured flow engine and the greedy baseline have no such limit.
    let flow = s.solver("flow");
    assert_eq!(run(&flow).stats.assigned, 12_000);
    assert_eq!(run(&flow.algorithm("dl_sched")).stats.assigned, 12_000);
}
