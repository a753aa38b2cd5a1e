//! Dominant Resource Fairness (Ghodsi et al., NSDI 2011) as `drf` serves it, the YARN
//! FairScheduler's DominantResourceFairnessPolicy order: the paper's §4 example, weights,
//! needy pools, the tie-breaks, `no_node_fits` and bad demands, each derived by hand; and a
//! property test that no node's resources or slots are ever oversubscribed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use placer_models::{Locality, PlaceRequest, PlaceResponse, Status, TaskKind, WaitReason};
use placer_solver::{place, PlaceOptions, SolveError};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::collections::BTreeMap;

fn run(snapshot: &Value) -> PlaceResponse {
    let req: PlaceRequest = serde_json::from_value(snapshot.clone()).expect("snapshot parses");
    place(&req, &PlaceOptions { explain: true, ..PlaceOptions::default() }).expect("placed")
}

/// Assignments per job, by the prefix of task ids (`<job>-<n>`).
fn placed_per_job(r: &PlaceResponse) -> BTreeMap<String, usize> {
    let mut count = BTreeMap::new();
    for a in &r.assignments {
        let job = a.task.as_str().split('-').next().unwrap().to_owned();
        *count.entry(job).or_insert(0) += 1;
    }
    count
}

fn counts(pairs: &[(&str, usize)]) -> BTreeMap<String, usize> {
    pairs.iter().map(|&(j, c)| (j.to_owned(), c)).collect()
}

/// `n` pending maps of `job`, each demanding `demand`, ids `<job>-0` …
fn maps(job: &str, n: usize, demand: &Value) -> Vec<Value> {
    (0..n)
        .map(|i| json!({"id": format!("{job}-{i}"), "job": job, "kind": "map", "demand": demand}))
        .collect()
}

/// One node (rack r) with the given capacities and no slot cap; pools `(id, weight)` each
/// with one job named after it in lower case, submitted at 0, with 10 maps of the pool's
/// demand.
fn two_users(capacity: &Value, pools: &[(&str, f64)], demands: &[Value]) -> Value {
    let mut pending = Vec::new();
    let mut jobs = Vec::new();
    for (&(pool, _), demand) in pools.iter().zip(demands) {
        let job = pool.to_lowercase();
        pending.extend(maps(&job, 10, demand));
        jobs.push(json!({"id": job, "pool": pool}));
    }
    json!({"schema_version": 1,
        "cluster": {"racks": [{"id": "r"}],
            "nodes": [{"id": "n", "rack": "r", "map_slots": 0, "resources": capacity}]},
        "pools": pools.iter().map(|&(id, w)| json!({"id": id, "weight": w})).collect::<Vec<_>>(),
        "jobs": jobs,
        "pending": pending,
        "policy": {"algorithm": "drf"}})
}

/// DRF §4: 9 CPUs and 18 GB; A's tasks ⟨1 CPU, 4 GB⟩ (dominant: memory, 4/18 each), B's
/// ⟨3 CPU, 1 GB⟩ (dominant: CPU, 3/9 each). Progressive filling: A (tie at 0, by name) 4/18,
/// B 3/9, A 8/18, B 6/9, A 12/18; now A's and B's next tasks both need CPUs beyond the 9th
/// (9 used): A runs 3 tasks ⟨3 CPU, 12 GB⟩, B 2 ⟨6 CPU, 2 GB⟩, both at dominant share 2/3.
#[test]
fn drf_paper_s4_example_a_gets_three_tasks_b_two() {
    let snapshot = two_users(
        &json!({"cpu": 9, "mem": 18}),
        &[("A", 1.0), ("B", 1.0)],
        &[json!({"cpu": 1, "mem": 4}), json!({"cpu": 3, "mem": 1})],
    );
    let r = run(&snapshot);
    assert_eq!(placed_per_job(&r), counts(&[("a", 3), ("b", 2)]));
    assert_eq!(r.stats.status, Status::Heuristic);
    assert!(r.assignments.iter().all(|a| a.node.as_str() == "n"));
    // The rest waits for room, not for a node that could never hold it.
    assert_eq!(r.waiting.len(), 15);
    assert!(r.waiting.iter().all(|w| w.reason == WaitReason::SlotsTaken));
    // The 4th of A's tasks is the first not placed: pending order inside a job.
    assert!(r.assignments.iter().any(|a| a.task.as_str() == "a-2"));
    assert!(r.waiting.iter().any(|w| w.task.as_ref().is_some_and(|t| t.as_str() == "a-3")));
}

/// Weights: ⟨12 CPU, 30 GB⟩, A's tasks ⟨1 CPU, 4 GB⟩ (dominant share 4/30 each), B's
/// ⟨3 CPU, 1 GB⟩ (3/12 each).
/// - Equal weights: A 4/30, B 3/12, A 8/30, B 6/12, A 12/30, A 16/30 (< 1/2), B's third task
///   needs CPUs 11–13 of 12 (10 used): skipped; A takes CPUs 11 and 12: A 6, B 2.
/// - B weight 2 (B's key = share / 2): A 4/30 (tie at 0, by name), B 0 → 3/12 (key 1/8),
///   B 1/8 < 4/30 → 6/12 (key 1/4), A 4/30 → 8/30, B 1/4 < 8/30 → 9/12 (key 3/8; CPU 11),
///   A 8/30 → 12/30 (CPU 12); then neither fits: A 3, B 3.
#[test]
fn drf_weights_pool_b_weight_2_doubles_its_dominant_share() {
    let cap = json!({"cpu": 12, "mem": 30});
    let demands = [json!({"cpu": 1, "mem": 4}), json!({"cpu": 3, "mem": 1})];
    let equal = run(&two_users(&cap, &[("A", 1.0), ("B", 1.0)], &demands));
    assert_eq!(placed_per_job(&equal), counts(&[("a", 6), ("b", 2)]));
    let weighted = run(&two_users(&cap, &[("A", 1.0), ("B", 2.0)], &demands));
    assert_eq!(placed_per_job(&weighted), counts(&[("a", 3), ("b", 3)]));
}

/// Needy first: ⟨10 CPU, 100 GB⟩; pool A already runs a map of ⟨4 CPU, 10 GB⟩ (dominant share
/// 0.4), B runs nothing; every pending map takes ⟨1 CPU, 1 GB⟩ (0.1 each, CPU dominant).
/// - A's `min_map_share` 3: A has 1 of min(3, 11) maps, so it goes first although 0.4 > 0: A
///   0.5 (2 maps), A 0.6 (3 maps, no longer needy); then B 0.1 … 0.4 fills the 10 CPUs: A 2, B 4.
/// - Without a min share: B first up to 0.4 (4 maps), tie at 0.4 → pool A by name (same
///   submit time): A 0.5 (CPU 9), B 0.5 (CPU 10): A 1, B 5.
#[test]
fn drf_needy_pool_below_its_min_share_goes_first() {
    let snapshot = |min_map_share: u32| {
        let one = json!({"cpu": 1, "mem": 1});
        let mut pending = maps("a", 10, &one);
        pending.extend(maps("b", 10, &one));
        json!({"schema_version": 1,
            "cluster": {"racks": [{"id": "r"}],
                "nodes": [{"id": "n", "rack": "r", "resources": {"cpu": 10, "mem": 100}}]},
            "pools": [{"id": "A", "min_map_share": min_map_share}, {"id": "B"}],
            "jobs": [{"id": "a", "pool": "A"}, {"id": "b", "pool": "B"}],
            "pending": pending,
            "running": [{"id": "a-run", "job": "a", "kind": "map", "node": "n",
                         "demand": {"cpu": 4, "mem": 10}}],
            "policy": {"algorithm": "drf"}})
    };
    let r = run(&snapshot(3));
    assert_eq!(placed_per_job(&r), counts(&[("a", 2), ("b", 4)]));
    let r = run(&snapshot(0));
    assert_eq!(placed_per_job(&r), counts(&[("a", 1), ("b", 5)]));
}

/// Ties: 3 CPUs, every map ⟨1 CPU⟩ (1/3 each); equal shares are broken by the earliest submit
/// time, then by id — between pools (by their jobs' submit times) and between the jobs of one
/// pool.
/// - Pools a (job submitted at 20) and b (at 10): b 1/3, a 1/3, b 2/3 (tie, b earlier); a's
///   next needs a 4th CPU: b 2, a 1. Submitted together: a first by name: a 2, b 1.
/// - One pool, jobs y (at 1) and x (at 2): y, x, y: y 2, x 1. Together: x, y, x: x 2, y 1.
#[test]
fn drf_ties_by_submit_time_then_name() {
    let one = json!({"cpu": 1});
    let cluster = json!({"racks": [{"id": "r"}],
        "nodes": [{"id": "n", "rack": "r", "resources": {"cpu": 3}}]});
    let two_pools = |a_submit: f64, b_submit: f64| {
        let mut pending = maps("a", 3, &one);
        pending.extend(maps("b", 3, &one));
        json!({"schema_version": 1, "cluster": cluster,
            "pools": [{"id": "b"}, {"id": "a"}],
            "jobs": [{"id": "b", "pool": "b", "submit_s": b_submit},
                     {"id": "a", "pool": "a", "submit_s": a_submit}],
            "pending": pending, "policy": {"algorithm": "drf"}})
    };
    assert_eq!(placed_per_job(&run(&two_pools(20.0, 10.0))), counts(&[("a", 1), ("b", 2)]));
    assert_eq!(placed_per_job(&run(&two_pools(10.0, 10.0))), counts(&[("a", 2), ("b", 1)]));
    let two_jobs = |x_submit: f64, y_submit: f64| {
        let mut pending = maps("y", 3, &one);
        pending.extend(maps("x", 3, &one));
        json!({"schema_version": 1, "cluster": cluster,
            "pools": [{"id": "p"}],
            "jobs": [{"id": "y", "pool": "p", "submit_s": y_submit},
                     {"id": "x", "pool": "p", "submit_s": x_submit}],
            "pending": pending, "policy": {"algorithm": "drf"}})
    };
    assert_eq!(placed_per_job(&run(&two_jobs(2.0, 1.0))), counts(&[("x", 1), ("y", 2)]));
    assert_eq!(placed_per_job(&run(&two_jobs(1.0, 1.0))), counts(&[("x", 2), ("y", 1)]));
}

/// A task demanding 8 CPUs where the largest node has 4 waits with `no_node_fits` and does not
/// hold its job back (the job's next task, 1 CPU, runs); a node without `resources` (2 map
/// slots) has no CPU at all, so only the task without a demand goes there.
#[test]
fn drf_task_larger_than_every_node_waits_with_no_node_fits() {
    let r = run(&json!({"schema_version": 1,
        "cluster": {"racks": [{"id": "r"}], "nodes": [
            {"id": "bare", "rack": "r", "map_slots": 2},
            {"id": "big", "rack": "r", "resources": {"cpu": 4, "mem": 8}}]},
        "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}],
        "pending": [
            {"id": "j-huge", "job": "j", "kind": "map", "demand": {"cpu": 8}},
            {"id": "j-small", "job": "j", "kind": "map", "demand": {"cpu": 1}},
            {"id": "j-free", "job": "j", "kind": "map"}],
        "policy": {"algorithm": "drf"}}));
    let node_of =
        |t: &str| r.assignments.iter().find(|a| a.task.as_str() == t).map(|a| a.node.to_string());
    assert_eq!(node_of("j-small").as_deref(), Some("big"));
    assert_eq!(node_of("j-free").as_deref(), Some("bare"));
    assert_eq!(r.waiting.len(), 1);
    assert_eq!(r.waiting[0].task.as_ref().unwrap().as_str(), "j-huge");
    assert_eq!(r.waiting[0].reason, WaitReason::NoNodeFits);
    let wire = serde_json::to_value(&r.waiting[0]).unwrap();
    assert_eq!(wire["reason"], "no_node_fits");
}

/// The best node: racks r0 = {n0, n1} and r1 = {n2, n3}, one CPU each; one job's maps of one
/// CPU, in pending order. a (replica on n3) is node-local on n3; b (replica on n3, now full)
/// is rack-local on n2; c (replica on n2, rack r1 now full) goes remote to the lowest index,
/// n0; d (no replicas) to the lowest index left, n1.
#[test]
fn drf_places_node_local_then_rack_local_then_lowest_index() {
    let node = |id: &str, rack: &str| json!({"id": id, "rack": rack, "resources": {"cpu": 1}});
    let map = |id: &str, replicas: &[&str]| json!({"id": id, "job": "j", "kind": "map", "demand": {"cpu": 1}, "replicas": replicas});
    let r = run(&json!({"schema_version": 1,
        "cluster": {"racks": [{"id": "r0"}, {"id": "r1"}],
            "nodes": [node("n0", "r0"), node("n1", "r0"), node("n2", "r1"), node("n3", "r1")]},
        "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}],
        "pending": [map("a", &["n3"]), map("b", &["n3"]), map("c", &["n2"]), map("d", &[])],
        "policy": {"algorithm": "drf"}}));
    let placed: Vec<(&str, &str, Locality)> =
        r.assignments.iter().map(|a| (a.task.as_str(), a.node.as_str(), a.locality)).collect();
    assert_eq!(
        placed,
        [
            ("a", "n3", Locality::Node),
            ("b", "n2", Locality::Rack),
            ("c", "n0", Locality::Remote),
            ("d", "n1", Locality::None)
        ]
    );
}

/// A demand naming a resource no node has is a bad reference (400 `unknown_reference`), with
/// the path of the offending amount.
#[test]
fn drf_demand_for_an_unknown_resource_is_unknown_reference() {
    let req: PlaceRequest = serde_json::from_value(json!({"schema_version": 1,
        "cluster": {"racks": [{"id": "r"}],
            "nodes": [{"id": "n", "rack": "r", "resources": {"cpu": 4}}]},
        "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}],
        "pending": [{"id": "j-0", "job": "j", "kind": "map", "demand": {"gpu": 1}}],
        "policy": {"algorithm": "drf"}}))
    .unwrap();
    match place(&req, &PlaceOptions::default()) {
        Err(SolveError::Invalid(e)) => {
            assert_eq!(e.code(), "unknown_reference");
            assert_eq!(e.path(), "pending[0].demand.gpu");
        }
        other => panic!("expected unknown_reference, got {other:?}"),
    }
}

/// Node: capacities (`None`: no `resources`; `Some((cpu, mem))`, mem `None` = not listed),
/// map slots, reduce slots.
type NodeGen = (Option<(u8, Option<u8>)>, u32, u32);
/// Demand ⟨cpu, mem⟩, or none.
type DemandGen = Option<(u8, u8)>;

/// A random small multi-resource snapshot: up to 4 nodes (node 0 lists both resources), 3
/// pools, 4 jobs (some with a map profile), 5 running and 10 pending tasks (some maps with
/// replicas). Running tasks respect the slot caps (validation), not necessarily the
/// capacities.
fn snapshot() -> impl Strategy<Value = PlaceRequest> {
    let node = (proptest::option::of((0u8..=8, proptest::option::of(0u8..=8))), 0u32..=3, 0u32..=2);
    let demand = || proptest::option::of((0u8..=4, 0u8..=4));
    (
        (0u8..=8, 0u8..=8, 0u32..=3, 0u32..=2),
        proptest::collection::vec(node, 0..=3),
        proptest::collection::vec((0u32..=3, 0u32..=3), 1..=3),
        proptest::collection::vec((0usize..3, 0u32..=3, demand()), 1..=4),
        proptest::collection::vec((0usize..4, 0usize..4, any::<bool>(), demand()), 0..=5),
        proptest::collection::vec(
            (0usize..4, any::<bool>(), demand(), proptest::collection::btree_set(0usize..4, 0..=2)),
            0..=10,
        ),
    )
        .prop_map(|(first, rest, pools, jobs, running, pending)| {
            let (cpu, mem, ms, rs) = first;
            let mut nodes: Vec<NodeGen> = vec![(Some((cpu, Some(mem))), ms, rs)];
            nodes.extend(rest);
            build(&nodes, &pools, &jobs, &running, &pending)
        })
}

fn amounts(d: DemandGen) -> Option<Value> {
    d.map(|(cpu, mem)| json!({"cpu": cpu, "mem": mem}))
}

fn build(
    nodes: &[NodeGen],
    pools: &[(u32, u32)],
    jobs: &[(usize, u32, DemandGen)],
    running: &[(usize, usize, bool, DemandGen)],
    pending: &[(usize, bool, DemandGen, std::collections::BTreeSet<usize>)],
) -> PlaceRequest {
    let nodes_json: Vec<Value> = nodes
        .iter()
        .enumerate()
        .map(|(i, &(caps, map_slots, reduce_slots))| {
            let mut node = json!({"id": format!("n{i}"), "rack": format!("r{}", i % 2),
                "map_slots": map_slots, "reduce_slots": reduce_slots});
            if let Some((cpu, mem)) = caps {
                let mut res = json!({"cpu": cpu});
                if let Some(mem) = mem {
                    res["mem"] = json!(mem);
                }
                node["resources"] = res;
            }
            node
        })
        .collect();
    let jobs_json: Vec<Value> = jobs
        .iter()
        .enumerate()
        .map(|(i, &(p, submit, profile))| {
            let mut job = json!({"id": format!("j{i}"), "pool": format!("p{}", p % pools.len()),
                "submit_s": submit});
            if let Some(map) = amounts(profile) {
                job["profile"] = json!({"map": map});
            }
            job
        })
        .collect();
    // Running tasks within the slot caps (a node with capacities and 0 slots is uncapped).
    let mut used = vec![[0u32; 2]; nodes.len()];
    let mut running_json = Vec::new();
    for (i, &(j, n, reduce, demand)) in running.iter().enumerate() {
        let (n, k) = (n % nodes.len(), usize::from(reduce));
        let (caps, map_slots, reduce_slots) = nodes[n];
        let slots = [map_slots, reduce_slots][k];
        if !(slots == 0 && caps.is_some()) && used[n][k] >= slots {
            continue;
        }
        used[n][k] += 1;
        let mut task = json!({"id": format!("run{i}"), "job": format!("j{}", j % jobs.len()),
            "kind": if reduce { "reduce" } else { "map" }, "node": format!("n{n}")});
        if let Some(d) = amounts(demand) {
            task["demand"] = d;
        }
        running_json.push(task);
    }
    let pending_json: Vec<Value> = pending
        .iter()
        .enumerate()
        .map(|(i, (j, reduce, demand, replicas))| {
            let mut task = json!({"id": format!("t{i}"), "job": format!("j{}", j % jobs.len()),
                "kind": if *reduce { "reduce" } else { "map" }});
            if let Some(d) = amounts(*demand) {
                task["demand"] = d;
            }
            if !reduce {
                let reps: std::collections::BTreeSet<usize> =
                    replicas.iter().map(|r| r % nodes.len()).collect();
                task["replicas"] = json!(reps.iter().map(|r| format!("n{r}")).collect::<Vec<_>>());
            }
            task
        })
        .collect();
    serde_json::from_value(json!({"schema_version": 1,
        "cluster": {"racks": [{"id": "r0"}, {"id": "r1"}], "nodes": nodes_json},
        "pools": pools.iter().enumerate().map(|(i, &(w, m))|
            json!({"id": format!("p{i}"), "weight": w, "min_map_share": m})).collect::<Vec<_>>(),
        "jobs": jobs_json,
        "running": running_json,
        "pending": pending_json,
        "policy": {"algorithm": "drf"}}))
    .expect("generated snapshot parses")
}

/// The test's own reading of a task's demand: its `demand`, else a map's job profile, else
/// nothing (the generated profiles have no reduce phases); `[cpu, mem]`.
fn demand_of(
    req: &PlaceRequest,
    job: &str,
    kind: TaskKind,
    own: Option<&placer_models::Amounts>,
) -> [f64; 2] {
    let profile = req.jobs.iter().find(|j| j.id.as_str() == job).and_then(|j| j.profile.as_ref());
    let amounts = own.or(match kind {
        TaskKind::Map => profile.map(|p| &p.map),
        TaskKind::Reduce => None,
    });
    let get = |name: &str| amounts.and_then(|a| a.get(name)).copied().unwrap_or(0.0);
    [get("cpu"), get("mem")]
}

/// A node's capacities `[cpu, mem]` (0 when not listed) and slot caps (`None` = uncapped).
fn node_caps(node: &placer_models::Node) -> ([f64; 2], [Option<u32>; 2]) {
    let get = |name: &str| {
        node.resources.as_ref().and_then(|r| r.amounts.get(name)).copied().unwrap_or(0.0)
    };
    let cap = |slots: u32| (slots > 0 || !node.has_capacities()).then_some(slots);
    ([get("cpu"), get("mem")], [cap(node.map_slots), cap(node.reduce_slots)])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// On random small instances, running + placed tasks never exceed a node's slot caps, nor
    /// any resource that a placed task there demands; `no_node_fits` goes exactly to the tasks
    /// no empty node could hold; every job left with a placeable task has a head task (maps
    /// first, pending order) that fits no node after the answer (DRF skips a job only then);
    /// and the answer is deterministic.
    #[test]
    fn drf_never_oversubscribes_a_node(req in snapshot()) {
        let r = place(&req, &PlaceOptions { explain: true, ..PlaceOptions::default() }).expect("places");
        let again = place(&req, &PlaceOptions { explain: true, ..PlaceOptions::default() }).unwrap();
        prop_assert_eq!(serde_json::to_string(&r).unwrap(), serde_json::to_string(&again).unwrap());
        prop_assert_eq!(r.assignments.len() + r.waiting.len(), req.pending.len());

        let nodes = &req.cluster.nodes;
        let at = |id: &str| nodes.iter().position(|n| n.id.as_str() == id).unwrap();
        let mut used = vec![[0.0f64; 2]; nodes.len()];
        let mut tasks = vec![[0u32; 2]; nodes.len()];
        for t in &req.running {
            let n = at(t.node.as_str());
            let d = demand_of(&req, t.job.as_str(), t.kind, t.demand.as_ref());
            for (u, x) in used[n].iter_mut().zip(d) {
                *u += x;
            }
            tasks[n][t.kind.slot()] += 1;
        }
        let mut demanded = vec![[false; 2]; nodes.len()];
        for a in &r.assignments {
            let n = at(a.node.as_str());
            let t = req.pending.iter().find(|t| t.id == a.task).unwrap();
            let d = demand_of(&req, t.job.as_str(), t.kind, t.demand.as_ref());
            for k in 0..2 {
                used[n][k] += d[k];
                demanded[n][k] |= d[k] > 0.0;
            }
            tasks[n][t.kind.slot()] += 1;
        }
        let fits = |n: usize, d: [f64; 2], used: &[f64; 2]| {
            let (cap, _) = node_caps(&nodes[n]);
            (0..2).all(|k| d[k] <= 0.0 || used[k] + d[k] <= cap[k] + 1e-9)
        };
        for (n, node) in nodes.iter().enumerate() {
            let (cap, slots) = node_caps(node);
            for k in 0..2 {
                if demanded[n][k] {
                    prop_assert!(used[n][k] <= cap[k] + 1e-9, "{}: resource {} over", node.id, k);
                }
                if let Some(s) = slots[k] {
                    let placed_here = r.assignments.iter().filter(|a| {
                        a.node == node.id
                            && req.pending.iter().any(|t| t.id == a.task && t.kind.slot() == k)
                    }).count() as u32;
                    prop_assert!(placed_here == 0 || tasks[n][k] <= s, "{}: slots {} over", node.id, k);
                }
            }
        }

        let never = |t: &placer_models::PendingTask| {
            let d = demand_of(&req, t.job.as_str(), t.kind, t.demand.as_ref());
            !(0..nodes.len()).any(|n| fits(n, d, &[0.0, 0.0]))
        };
        for w in &r.waiting {
            let t = req.pending.iter().find(|t| Some(&t.id) == w.task.as_ref()).unwrap();
            prop_assert_eq!(w.reason == WaitReason::NoNodeFits, never(t), "{}", t.id);
        }
        // Each job's head task (first waiting placeable one, maps first) fits nowhere now.
        for job in &req.jobs {
            let head = TaskKind::ALL.iter().find_map(|&kind| {
                req.pending.iter().find(|t| {
                    t.job == job.id && t.kind == kind && !never(t)
                        && !r.assignments.iter().any(|a| a.task == t.id)
                })
            });
            let Some(t) = head else { continue };
            let d = demand_of(&req, t.job.as_str(), t.kind, t.demand.as_ref());
            let k = t.kind.slot();
            let open = (0..nodes.len()).find(|&n| {
                let (_, slots) = node_caps(&nodes[n]);
                slots[k].is_none_or(|s| tasks[n][k] < s) && fits(n, d, &used[n])
            });
            prop_assert!(open.is_none(), "{} still fits {:?}", t.id, open);
        }
    }
}
