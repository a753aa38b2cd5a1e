//! Gangs and topology domains under the multi-resource policies `drf`, `ras` and `lsap_ras`
//! (all-or-nothing as KEP-4671's PodGroup `minCount` and Volcano's `minMember`, domains as
//! Kueue's topology-aware scheduling, on RAS's and DRF's multi-resource room): hand-derived
//! cases per policy, a brute force that enumerates every placement of tiny random snapshots
//! (the answers must be valid and place no more than the best valid placement), a property
//! test on `gang.rs`'s random snapshots given resources, and (ignored, printing) the
//! measurement of what the rules cost in tasks placed.

use crate::gang::{check_invariants, random_snapshot, Rng};
use placer_models::{PlaceRequest, PlaceResponse, SolverEngine, TopologyLevel, TopologyMode};
use placer_models::{Status, WaitReason};
use placer_solver::PlaceOptions;
use proptest::prelude::*;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

/// The three policies.
const POLICIES: [&str; 3] = ["drf", "ras", "lsap_ras"];

/// The engines `policy` accepts in this build (`ras` and `lsap_ras` also `mip`).
fn engines(policy: &str) -> Vec<SolverEngine> {
    let mut out = vec![SolverEngine::Auto];
    if cfg!(feature = "mip") && policy != "drf" {
        out.push(SolverEngine::Mip);
    }
    out
}

/// Parses and validates.
fn request(v: &Value) -> PlaceRequest {
    let req = placer_models::parse_request(v.to_string().as_bytes()).unwrap();
    placer_models::validate(&req).unwrap();
    req
}

/// `v` placed by `policy` on `engine`, every waiting task explained on its own.
fn place(v: &Value, policy: &str, engine: SolverEngine) -> PlaceResponse {
    let mut v = v.clone();
    v["policy"] = json!({"algorithm": policy});
    let mut req = request(&v);
    req.policy.solver = engine;
    let opts = PlaceOptions { explain: true, ..PlaceOptions::default() };
    placer_solver::place(&req, &opts).unwrap()
}

/// Node of each assigned task id.
fn nodes_of(r: &PlaceResponse) -> BTreeMap<String, String> {
    r.assignments.iter().map(|a| (a.task.to_string(), a.node.to_string())).collect()
}

/// Reason of each waiting task id.
fn reasons(r: &PlaceResponse) -> BTreeMap<String, WaitReason> {
    r.waiting.iter().filter_map(|w| Some((w.task.as_ref()?.to_string(), w.reason))).collect()
}

/// A map of `job` with explicit demand.
fn map(id: &str, job: &str, demand: Value) -> Value {
    json!({"id": id, "job": job, "kind": "map", "demand": demand})
}

/// A node with resources and no slot cap.
fn node(id: &str, rack: &str, resources: Value) -> Value {
    json!({"id": id, "rack": rack, "resources": resources})
}

/// A gang of 3 one-CPU maps and another job's two one-CPU maps on two one-CPU nodes: the gang
/// cannot reach 3, so none of its tasks starts (`gang_incomplete`) and it holds no room: both
/// nodes go to the other job's maps (taking the gang's first task back afterwards, as the
/// pipeline's last check alone would, leaves a node idle).
#[test]
fn a_gang_of_3_on_2_fitting_nodes_waits_whole_and_holds_nothing() {
    let v = json!({"schema_version": 1,
        "cluster": {"racks": [{"id": "r"}],
                    "nodes": [node("a", "r", json!({"cpu": 1})), node("b", "r", json!({"cpu": 1}))]},
        "pools": [{"id": "p"}],
        "jobs": [{"id": "g", "pool": "p", "gang": {"min_member": 3}},
                 {"id": "o", "pool": "p", "submit_s": 1}],
        "pending": [map("g0", "g", json!({"cpu": 1})), map("g1", "g", json!({"cpu": 1})),
                    map("g2", "g", json!({"cpu": 1})), map("o0", "o", json!({"cpu": 1})),
                    map("o1", "o", json!({"cpu": 1}))]});
    for policy in POLICIES {
        for engine in engines(policy) {
            let r = place(&v, policy, engine);
            let at = nodes_of(&r);
            assert_eq!(at.keys().collect::<Vec<_>>(), ["o0", "o1"], "{policy} {engine:?}");
            let why = reasons(&r);
            for t in ["g0", "g1", "g2"] {
                assert_eq!(why[t], WaitReason::GangIncomplete, "{policy} {engine:?} {t}");
            }
        }
    }
}

/// A rack-required gang of 3 one-CPU maps: rack r1's one node has 2 CPUs (room for 2), rack
/// r2's two nodes 2 CPUs each (room for 4), so all 3 start in r2, though node a (r1) comes
/// first in node order.
#[test]
fn a_rack_required_gang_that_fits_only_r2_goes_there() {
    let v = json!({"schema_version": 1,
        "cluster": {"racks": [{"id": "r1"}, {"id": "r2"}],
                    "nodes": [node("a", "r1", json!({"cpu": 2})), node("b", "r2", json!({"cpu": 2})),
                              node("c", "r2", json!({"cpu": 2}))]},
        "pools": [{"id": "p"}],
        "jobs": [{"id": "g", "pool": "p", "gang": {"min_member": 3},
                  "topology": {"level": "rack", "mode": "required"}}],
        "pending": [map("g0", "g", json!({"cpu": 1})), map("g1", "g", json!({"cpu": 1})),
                    map("g2", "g", json!({"cpu": 1}))]});
    for policy in POLICIES {
        for engine in engines(policy) {
            let r = place(&v, policy, engine);
            let at = nodes_of(&r);
            assert_eq!(at.len(), 3, "{policy} {engine:?}");
            assert!(at.values().all(|n| n == "b" || n == "c"), "{policy} {engine:?}: {at:?}");
        }
    }
}

/// A rack-required job (no gang) with a one-CPU task running on node b (rack r1, 2 CPUs): r1
/// has room for one more of its one-CPU maps, so one starts on b and the other waits
/// `no_domain_fits`, though rack r0's node a has 4 CPUs free.
#[test]
fn a_required_job_running_in_r1_stays_in_r1() {
    let v = json!({"schema_version": 1,
        "cluster": {"racks": [{"id": "r0"}, {"id": "r1"}],
                    "nodes": [node("a", "r0", json!({"cpu": 4})), node("b", "r1", json!({"cpu": 2}))]},
        "pools": [{"id": "p"}],
        "jobs": [{"id": "j", "pool": "p", "topology": {"level": "rack", "mode": "required"}}],
        "pending": [map("j0", "j", json!({"cpu": 1})), map("j1", "j", json!({"cpu": 1}))],
        "running": [{"id": "x", "job": "j", "kind": "map", "node": "b", "demand": {"cpu": 1}}]});
    for policy in POLICIES {
        for engine in engines(policy) {
            let r = place(&v, policy, engine);
            let at = nodes_of(&r);
            assert_eq!(at.len(), 1, "{policy} {engine:?}: {at:?}");
            assert!(at.values().all(|n| n == "b"), "{policy} {engine:?}: {at:?}");
            let why = reasons(&r);
            assert_eq!(why.values().collect::<Vec<_>>(), [&WaitReason::NoDomainFits], "{policy}");
        }
    }
}

/// A gang of 2 maps of ⟨1 CPU, 3 GB⟩ on one node of ⟨4 CPU, 4 GB⟩: one fits, two need 6 GB, so
/// none starts (`gang_incomplete`); another job's two ⟨1 CPU, 1 GB⟩ maps both start (with the
/// gang's first map on the node, only one of them would fit).
#[test]
fn a_gang_whose_tasks_do_not_fit_together_starts_none() {
    let v = json!({"schema_version": 1,
        "cluster": {"racks": [{"id": "r"}],
                    "nodes": [node("n", "r", json!({"cpu": 4, "mem": 4}))]},
        "pools": [{"id": "p"}],
        "jobs": [{"id": "g", "pool": "p", "gang": {"min_member": 2}},
                 {"id": "o", "pool": "p", "submit_s": 1}],
        "pending": [map("g0", "g", json!({"cpu": 1, "mem": 3})),
                    map("g1", "g", json!({"cpu": 1, "mem": 3})),
                    map("o0", "o", json!({"cpu": 1, "mem": 1})),
                    map("o1", "o", json!({"cpu": 1, "mem": 1}))]});
    for policy in POLICIES {
        for engine in engines(policy) {
            let r = place(&v, policy, engine);
            let at = nodes_of(&r);
            assert_eq!(at.keys().collect::<Vec<_>>(), ["o0", "o1"], "{policy} {engine:?}");
            let why = reasons(&r);
            assert_eq!(why["g0"], WaitReason::GangIncomplete, "{policy} {engine:?}");
            assert_eq!(why["g1"], WaitReason::GangIncomplete, "{policy} {engine:?}");
        }
    }
}

/// Three gangs of 2 one-CPU maps on one 3-CPU node: DRF (and RAS's lowest utility first) hand
/// out one task each, a, b, c, leaving every gang at 1. Only one short gang is left out of
/// each next round, so one gang starts whole (2 tasks) and the other two wait
/// `gang_incomplete`; leaving every short gang out (or taking them back afterwards) would
/// start nothing.
#[test]
fn of_three_interleaved_gangs_one_starts_whole() {
    let v = json!({"schema_version": 1,
        "cluster": {"racks": [{"id": "r"}], "nodes": [node("n", "r", json!({"cpu": 3}))]},
        "pools": [{"id": "p"}],
        "jobs": [{"id": "a", "pool": "p", "gang": {"min_member": 2}},
                 {"id": "b", "pool": "p", "gang": {"min_member": 2}, "submit_s": 1},
                 {"id": "c", "pool": "p", "gang": {"min_member": 2}, "submit_s": 2}],
        "pending": [map("a0", "a", json!({"cpu": 1})), map("a1", "a", json!({"cpu": 1})),
                    map("b0", "b", json!({"cpu": 1})), map("b1", "b", json!({"cpu": 1})),
                    map("c0", "c", json!({"cpu": 1})), map("c1", "c", json!({"cpu": 1}))]});
    for policy in POLICIES {
        for engine in engines(policy) {
            let r = place(&v, policy, engine);
            let at = nodes_of(&r);
            assert_eq!(at.len(), 2, "{policy} {engine:?}: {at:?}");
            let job: BTreeSet<char> = at.keys().map(|t| t.chars().next().unwrap()).collect();
            assert_eq!(job.len(), 1, "{policy} {engine:?}: {at:?}");
            assert!(reasons(&r).values().all(|&w| w == WaitReason::GangIncomplete), "{policy}");
        }
    }
}

/// Kueue's TAS examples on 640 one-slot nodes (1 block × 10 racks × 64; the tasks have no
/// demand, so each takes a slot): a rack-required gang of 64 fits one rack exactly and starts
/// there whole; one of 65 fits no rack and waits whole with `no_domain_fits`; block-required,
/// the one block holds all 65.
#[test]
fn kueue_tas_examples_on_640_nodes_under_every_multi_resource_policy() {
    use crate::gang::{kueue_640, racks_used};
    for policy in POLICIES {
        let r = place(&kueue_640(64, "rack", "required"), policy, SolverEngine::Auto);
        assert_eq!(r.stats.assigned, 64, "{policy}");
        assert_eq!(racks_used(&r).len(), 1, "{policy}");
        let r = place(&kueue_640(65, "rack", "required"), policy, SolverEngine::Auto);
        assert_eq!(r.stats.assigned, 0, "{policy}");
        let why = reasons(&r);
        assert_eq!(why.len(), 65, "{policy}");
        assert!(why.values().all(|&w| w == WaitReason::NoDomainFits), "{policy}");
        let r = place(&kueue_640(65, "block", "required"), policy, SolverEngine::Auto);
        assert_eq!(r.stats.assigned, 65, "{policy}");
    }
}

/// Without gangs and domains every policy answers as it did: the rounds run it once, unscoped
/// (the same answer as with the fields never set).
#[test]
fn snapshots_without_gangs_answer_as_the_policy_alone() {
    for seed in 0..20 {
        let mut v = resourced(random_snapshot(seed, 6), seed);
        strip(&mut v);
        for policy in POLICIES {
            let r = place(&v, policy, SolverEngine::Auto);
            assert!(r.waiting.iter().all(|w| !matches!(
                w.reason,
                WaitReason::GangIncomplete | WaitReason::NoDomainFits
            )));
            if policy == "drf" {
                let req = request(&v);
                let alone = placer_solver::policy::drf::place(&placer_solver::Indexed::new(&req));
                let at: Vec<Option<usize>> =
                    alone.node_of_task.iter().map(|n| n.map(|n| n as usize)).collect();
                assert_eq!(node_indices(&req, &r), at, "seed {seed}");
            }
        }
    }
}

/// Removes every job's gang and topology.
fn strip(v: &mut Value) {
    for job in v["jobs"].as_array_mut().unwrap() {
        let job = job.as_object_mut().unwrap();
        job.remove("gang");
        job.remove("topology");
    }
}

/// `gang.rs`'s random snapshot on multi-resource nodes: each node keeps no slot cap and gets
/// ⟨cpu = its map + reduce slots, mem = 2 or 3⟩; maps demand ⟨1, 1⟩, reduces ⟨1, 2⟩ (running
/// ones too, so that they fit where the slots had them).
fn resourced(mut v: Value, seed: u64) -> Value {
    for (i, n) in v["cluster"]["nodes"].as_array_mut().unwrap().iter_mut().enumerate() {
        let cpu = n["map_slots"].as_u64().unwrap() + n["reduce_slots"].as_u64().unwrap();
        let mem = 2 + (seed >> i) % 2 + cpu;
        n["resources"] = json!({"cpu": cpu, "mem": mem});
        n["map_slots"] = json!(0);
        n["reduce_slots"] = json!(0);
    }
    for list in ["pending", "running"] {
        for t in v[list].as_array_mut().unwrap() {
            let mem = if t["kind"] == "map" { 1 } else { 2 };
            t["demand"] = json!({"cpu": 1, "mem": mem});
        }
    }
    v
}

/// A tiny random snapshot for the brute force: 3 nodes (racks r0 = {n0, n1}, r1 = {n2}; blocks
/// b0 = {n0}, b1 = {n1, n2} or none) with ⟨cpu, mem⟩ of 1–3 each, 2–3 jobs with random gangs
/// and domains, 1–5 pending tasks with demands of 0–2 of each, 0–2 running tasks that fit.
fn tiny(seed: u64) -> Value {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut below = |m: u64| rng.below(m);
    let caps: Vec<[u64; 2]> = (0..3).map(|_| [1 + below(3), 1 + below(3)]).collect();
    let blocks = below(2) == 0;
    let jobs = 2 + below(2);
    let mut of_job = vec![0u64; jobs as usize];
    let mut pending = Vec::new();
    for i in 0..1 + below(5) {
        let j = below(jobs);
        of_job[j as usize] += 1;
        let kind = if below(4) == 0 { "reduce" } else { "map" };
        pending.push(json!({"id": format!("t{i}"), "job": format!("j{j}"), "kind": kind,
                            "demand": {"cpu": below(3), "mem": below(3)}}));
    }
    let mut used = [[0u64; 2]; 3];
    let mut running = Vec::new();
    for i in 0..below(3) {
        let (n, j) = (below(3) as usize, below(jobs));
        let d = [below(2), below(2)];
        if (0..2).all(|r| used[n][r] + d[r] <= caps[n][r]) {
            used[n][0] += d[0];
            used[n][1] += d[1];
            of_job[j as usize] += 1;
            running.push(json!({"id": format!("run{i}"), "job": format!("j{j}"), "kind": "map",
                "node": format!("n{n}"), "demand": {"cpu": d[0], "mem": d[1]}}));
        }
    }
    let jobs_json: Vec<Value> = (0..jobs)
        .map(|j| {
            let mut job = json!({"id": format!("j{j}"), "pool": "p", "submit_s": j});
            if of_job[j as usize] > 0 && below(2) == 0 {
                job["gang"] = json!({"min_member": 1 + below(of_job[j as usize])});
            }
            if below(2) == 0 {
                let level = ["node", "rack", "block"][below(3) as usize];
                let mode = ["required", "preferred"][below(2) as usize];
                job["topology"] = json!({"level": level, "mode": mode});
            }
            job
        })
        .collect();
    let nodes: Vec<Value> = (0..3)
        .map(|n| {
            let mut v = json!({"id": format!("n{n}"), "rack": format!("r{}", n / 2),
                               "resources": {"cpu": caps[n][0], "mem": caps[n][1]}});
            if blocks {
                v["block"] = json!(format!("b{}", usize::from(n > 0)));
            }
            v
        })
        .collect();
    json!({"schema_version": 1,
           "cluster": {"racks": [{"id": "r0"}, {"id": "r1"}], "nodes": nodes},
           "pools": [{"id": "p"}], "jobs": jobs_json, "pending": pending, "running": running})
}

/// Why `node_of` (node index per pending task) breaks a rule, checked on the request alone:
/// a node's resources oversubscribed (running demands plus placed ones above a capacity), a
/// gang started below `min_member` (placed + running), a required job's placed and running
/// tasks not all in one domain of its level.
fn broken(req: &PlaceRequest, node_of: &[Option<usize>]) -> Option<String> {
    let nodes = &req.cluster.nodes;
    let at: BTreeMap<&str, usize> =
        nodes.iter().enumerate().map(|(i, n)| (n.id.as_str(), i)).collect();
    // Demand per (node, resource name); a name the node does not list has capacity 0.
    let mut used: Vec<BTreeMap<String, f64>> = vec![BTreeMap::new(); nodes.len()];
    let mut add = |n: usize, d: &Option<placer_models::Amounts>| {
        for (k, &v) in d.iter().flatten() {
            *used[n].entry(k.clone()).or_default() += v;
        }
    };
    for t in &req.running {
        add(at[t.node.as_str()], &t.demand);
    }
    for (t, n) in node_of.iter().enumerate() {
        if let Some(n) = *n {
            add(n, &req.pending[t].demand);
        }
    }
    for (n, u) in used.iter().enumerate() {
        for (k, &v) in u {
            let cap = nodes[n].resources.as_ref().and_then(|r| r.amounts.get(k)).copied();
            if v > cap.unwrap_or(0.0) + 1e-9 {
                return Some(format!("node {n} {k}: {v} > {cap:?}"));
            }
        }
    }
    for job in &req.jobs {
        let placed: Vec<usize> = (0..req.pending.len())
            .filter(|&t| req.pending[t].job == job.id)
            .filter_map(|t| node_of[t])
            .collect();
        let running: Vec<usize> =
            req.running.iter().filter(|t| t.job == job.id).map(|t| at[t.node.as_str()]).collect();
        if let Some(g) = job.gang {
            if !placed.is_empty() && placed.len() + running.len() < g.min_member as usize {
                return Some(format!("{}: gang short", job.id));
            }
        }
        if let Some(t) = job.topology.filter(|t| t.mode == TopologyMode::Required) {
            let domain = |n: usize| -> Option<String> {
                match t.level {
                    TopologyLevel::Node => Some(nodes[n].id.to_string()),
                    TopologyLevel::Rack => Some(nodes[n].rack.to_string()),
                    TopologyLevel::Block => nodes[n].block.as_ref().map(|b| b.to_string()),
                }
            };
            let held: BTreeSet<Option<String>> =
                placed.iter().chain(&running).map(|&n| domain(n)).collect();
            if !placed.is_empty() && (held.len() != 1 || held.contains(&None)) {
                return Some(format!("{}: domains {held:?}", job.id));
            }
        }
    }
    None
}

/// The answer as a node index per pending task.
fn node_indices(req: &PlaceRequest, r: &PlaceResponse) -> Vec<Option<usize>> {
    let node_at: BTreeMap<&str, usize> =
        req.cluster.nodes.iter().enumerate().map(|(i, n)| (n.id.as_str(), i)).collect();
    let task_at: BTreeMap<&str, usize> =
        req.pending.iter().enumerate().map(|(i, t)| (t.id.as_str(), i)).collect();
    let mut out = vec![None; req.pending.len()];
    for a in &r.assignments {
        out[task_at[a.task.as_str()]] = Some(node_at[a.node.as_str()]);
    }
    out
}

/// The rounds alone (before the pipeline's own last check) under `drf` and `ras` (each engine;
/// `lsap_ras` places RAS's counts, so its rounds are RAS's): the scope and the repair leave
/// the last word nothing to take back, and the answer breaks no rule. Returns the runs of the
/// policy.
fn rounds_alone(req: &PlaceRequest) -> usize {
    use placer_solver::gang::rounds;
    use placer_solver::ras::{realise, RasProblem};
    let ix = placer_solver::Indexed::new(req);
    let mut runs = 0;
    for (policy, engine) in [("drf", SolverEngine::Auto)]
        .into_iter()
        .chain(engines("ras").into_iter().map(|e| ("ras", e)))
    {
        let r = rounds::rounds(&ix, |scope| {
            if policy == "drf" {
                return Ok(placer_solver::policy::drf::place_scoped(&ix, scope));
            }
            let mut p = RasProblem::of(&ix);
            p.scope(scope);
            let (counts, status) = placer_solver::policy::ras::counts(&p, engine)?;
            Ok(placer_solver::Placement::new(realise::tasks_of(&ix, &p, &counts), status))
        })
        .unwrap();
        assert!(!r.taken_back, "{policy} {engine:?}: the last word took something back");
        let at: Vec<Option<usize>> =
            r.placement.node_of_task.iter().map(|n| n.map(|n| n as usize)).collect();
        assert_eq!(broken(req, &at), None, "{policy} {engine:?}");
        runs += r.runs;
    }
    runs
}

/// The most tasks any valid placement of `req` places: every task on any node or none.
fn most_valid(req: &PlaceRequest) -> usize {
    let tasks = req.pending.len();
    let choices = req.cluster.nodes.len() + 1;
    let mut best = 0;
    let mut at = vec![None; tasks];
    let total = choices.pow(tasks as u32);
    for code in 0..total {
        let mut c = code;
        for slot in at.iter_mut() {
            *slot = (c % choices).checked_sub(1);
            c /= choices;
        }
        let placed = at.iter().flatten().count();
        if placed > best && broken(req, &at).is_none() {
            best = placed;
        }
    }
    best
}

/// On 300 tiny random snapshots, each policy's answer on each engine breaks no rule (as the
/// brute force's own checker sees it) and places no more tasks than the best valid placement
/// that enumerating every placement finds; the enumeration also shows the checker is not
/// vacuous (some placements it refuses place more).
#[test]
fn answers_are_valid_and_never_beat_a_brute_force_of_every_placement() {
    let mut refused_more = 0;
    for seed in 0..300 {
        let v = tiny(seed);
        let req = request(&v);
        let best = most_valid(&req);
        let all = req.pending.len();
        if best < all {
            refused_more += 1;
        }
        rounds_alone(&req);
        for policy in POLICIES {
            for engine in engines(policy) {
                let r = place(&v, policy, engine);
                let at = node_indices(&req, &r);
                assert_eq!(broken(&req, &at), None, "seed {seed} {policy} {engine:?}: {v}");
                let placed = at.iter().flatten().count();
                assert!(placed <= best, "seed {seed} {policy}: {placed} > {best}");
            }
        }
    }
    assert!(refused_more > 50, "only {refused_more} snapshots where not every task fits");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Through the whole pipeline, on `gang.rs`'s random snapshots given resources: never a
    /// gang below `min_member`, always the required domain, never a resource oversubscribed,
    /// under every policy and engine.
    #[test]
    fn no_gang_short_no_domain_left_no_resource_oversubscribed(seed in 0u64..1_000_000) {
        let v = resourced(random_snapshot(seed, 7), seed);
        let req = request(&v);
        rounds_alone(&req);
        for policy in POLICIES {
            for engine in engines(policy) {
                let r = place(&v, policy, engine);
                check_invariants(&v, &r);
                let at = node_indices(&req, &r);
                prop_assert_eq!(broken(&req, &at), None, "{} {:?}", policy, engine);
            }
        }
    }
}

/// A seeded random multi-resource epoch for the measurement: 2–4 racks of 2–4 nodes (blocks
/// of two racks) with ⟨cpu 4–8, mem 8–16⟩, 3–6 jobs of 1–8 tasks (¾ maps, demands ⟨1–2 cpu,
/// 1–4 mem⟩ per job and kind), half of them gangs (`min_member` 1 to all their tasks) and
/// half with a node, rack or block domain, required or preferred, and 0–4 running tasks.
fn epoch(seed: u64) -> Value {
    let mut rng = Rng(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) | 1);
    let mut below = |m: u64| rng.below(m);
    let racks = 2 + below(3);
    let per_rack = 2 + below(3);
    let count = racks * per_rack;
    let caps: Vec<[u64; 2]> = (0..count).map(|_| [4 + below(5), 8 + below(9)]).collect();
    let nodes: Vec<Value> = (0..count)
        .map(|n| {
            json!({"id": format!("n{n}"), "rack": format!("r{}", n / per_rack),
                   "block": format!("b{}", n / (2 * per_rack)),
                   "resources": {"cpu": caps[n as usize][0], "mem": caps[n as usize][1]}})
        })
        .collect();
    let jobs = 3 + below(4);
    let (mut job_list, mut pending, mut running) = (Vec::new(), Vec::new(), Vec::new());
    let mut used = vec![[0u64; 2]; count as usize];
    for j in 0..jobs {
        let demand = [[1 + below(2), 1 + below(4)], [1 + below(2), 1 + below(4)]];
        let tasks = 1 + below(8);
        for i in 0..tasks {
            let k = usize::from(below(4) == 0);
            let d = demand[k];
            let replicas: Vec<String> =
                (0..count).filter(|_| below(count) < 2).map(|n| format!("n{n}")).collect();
            let kind = ["map", "reduce"][k];
            let mut t = json!({"id": format!("j{j}-{i}"), "job": format!("j{j}"),
                "kind": kind, "demand": {"cpu": d[0], "mem": d[1]}});
            if k == 0 {
                t["input_bytes"] = json!(64_000_000);
                t["replicas"] = json!(replicas);
            }
            pending.push(t);
        }
        let mut run = 0;
        if below(3) == 0 {
            let n = below(count) as usize;
            let d = demand[0];
            if used[n][0] + d[0] <= caps[n][0] && used[n][1] + d[1] <= caps[n][1] {
                used[n][0] += d[0];
                used[n][1] += d[1];
                run = 1;
                running.push(json!({"id": format!("run{j}"), "job": format!("j{j}"),
                    "kind": "map", "node": format!("n{n}"),
                    "demand": {"cpu": d[0], "mem": d[1]}}));
            }
        }
        let mut job = json!({"id": format!("j{j}"), "pool": format!("p{}", j % 2),
                             "submit_s": j});
        if below(2) == 0 {
            job["gang"] = json!({"min_member": 1 + below(tasks + run)});
        }
        if below(2) == 0 {
            let level = ["node", "rack", "block"][below(3) as usize];
            let mode = ["required", "preferred"][below(2) as usize];
            job["topology"] = json!({"level": level, "mode": mode});
        }
        job_list.push(job);
    }
    let rack_list: Vec<Value> = (0..racks).map(|r| json!({"id": format!("r{r}")})).collect();
    json!({"schema_version": 1, "cluster": {"racks": rack_list, "nodes": nodes},
           "pools": [{"id": "p0"}, {"id": "p1"}], "jobs": job_list, "pending": pending,
           "running": running})
}

/// Preferred jobs that placed tasks, and those among them whose placed and running tasks
/// span more than one domain of their level (spilled).
fn preferred_spills(req: &PlaceRequest, at: &[Option<usize>]) -> (u64, u64) {
    let nodes = &req.cluster.nodes;
    let node_at: BTreeMap<&str, usize> =
        nodes.iter().enumerate().map(|(i, n)| (n.id.as_str(), i)).collect();
    let (mut with, mut spilled) = (0, 0);
    for job in &req.jobs {
        let Some(t) = job.topology.filter(|t| t.mode == TopologyMode::Preferred) else {
            continue;
        };
        let mut used: Vec<usize> = (0..req.pending.len())
            .filter(|&i| req.pending[i].job == job.id)
            .filter_map(|i| at[i])
            .collect();
        if used.is_empty() {
            continue;
        }
        used.extend(
            req.running.iter().filter(|r| r.job == job.id).map(|r| node_at[r.node.as_str()]),
        );
        let domains: BTreeSet<Option<String>> = used
            .iter()
            .map(|&n| match t.level {
                TopologyLevel::Node => Some(nodes[n].id.to_string()),
                TopologyLevel::Rack => Some(nodes[n].rack.to_string()),
                TopologyLevel::Block => nodes[n].block.as_ref().map(|b| b.to_string()),
            })
            .collect();
        with += 1;
        spilled += u64::from(domains.len() > 1);
    }
    (with, spilled)
}

/// The measurement in BENCHMARKS.md ("The multi-resource policies"): on 400 seeded epochs
/// ([`epoch`]), the tasks each policy places with the gang and domain rules and on the same
/// epoch with `gang` and `topology` stripped, the answers that break a rule (with the rules:
/// must be 0; stripped: how often the policy alone would), and how often a preferred job
/// spills. `cargo test -p placer-solver --test tests measure_gang_rules -- --ignored
/// --nocapture`.
#[test]
#[ignore = "a measurement: prints a table"]
fn measure_gang_rules_on_the_multi_resource_policies() {
    const EPOCHS: u64 = 400;
    let runs: usize = (0..EPOCHS).map(|seed| rounds_alone(&request(&epoch(seed)))).sum();
    let pending: usize = (0..EPOCHS).map(|seed| request(&epoch(seed)).pending.len()).sum();
    println!("pending tasks over the {EPOCHS} epochs: {pending}");
    println!(
        "policy runs per epoch (drf, ras auto{}): {:.2}",
        if cfg!(feature = "mip") { ", ras mip" } else { "" },
        runs as f64 / EPOCHS as f64 / (1 + engines("ras").len()) as f64
    );
    println!("policy    epochs  placed_rules  placed_stripped  ratio   broken_rules  broken_stripped  preferred_spilled  wait_gang_incomplete  wait_no_domain_fits");
    for policy in POLICIES {
        let (mut with, mut without, mut broken_with, mut broken_without) = (0, 0, 0, 0);
        let (mut preferred, mut spilled, mut gang_waits, mut domain_waits) = (0, 0, 0, 0);
        for seed in 0..EPOCHS {
            let v = epoch(seed);
            let req = request(&v);
            let r = place(&v, policy, SolverEngine::Auto);
            assert_ne!(r.stats.status, Status::TimeLimited);
            let at = node_indices(&req, &r);
            with += at.iter().flatten().count();
            broken_with += usize::from(broken(&req, &at).is_some());
            for w in &r.waiting {
                match w.reason {
                    WaitReason::GangIncomplete => gang_waits += w.tasks,
                    WaitReason::NoDomainFits => domain_waits += w.tasks,
                    _ => {}
                }
            }
            let (p, s) = preferred_spills(&req, &at);
            preferred += p;
            spilled += s;
            let mut bare = v.clone();
            strip(&mut bare);
            let r = place(&bare, policy, SolverEngine::Auto);
            let at = node_indices(&req, &r);
            without += at.iter().flatten().count();
            broken_without += usize::from(broken(&req, &at).is_some());
        }
        assert_eq!(broken_with, 0, "{policy}");
        println!(
            "{policy:<9} {EPOCHS:>6}  {with:>12}  {without:>15}  {:>5.3}  {broken_with:>12}  {broken_without:>15}  {:>17}  {gang_waits:>20}  {domain_waits:>19}",
            with as f64 / without as f64,
            format!("{spilled}/{preferred}")
        );
        // Against the brute force on the tiny snapshots: tasks placed, best valid placement.
        let (mut tiny_placed, mut tiny_best, mut reached) = (0, 0, 0);
        for seed in 0..300 {
            let v = tiny(seed);
            let req = request(&v);
            let best = most_valid(&req);
            let placed =
                node_indices(&req, &place(&v, policy, SolverEngine::Auto)).iter().flatten().count();
            tiny_placed += placed;
            tiny_best += best;
            reached += usize::from(placed == best);
        }
        println!("{policy}: tiny snapshots {tiny_placed} placed of {tiny_best} by the best valid placements, reached in {reached} of 300");
    }
}
