//! Gangs and topology domains under `lsap_quota` (KEP-4671's all-or-nothing PodGroups, Kueue's
//! topology-aware scheduling): the exact MIP against a brute-force oracle that enumerates every
//! assignment of small random snapshots, the heuristic checked valid and never better than
//! the optimum, Kueue's TAS examples derived by hand on 640 nodes, and the invariants (no
//! gang below `min_member`, required domains held) through the whole pipeline on random
//! snapshots, on every engine `lsap_quota` accepts.

use placer_models::{PlaceResponse, SolverEngine, Status, WaitReason};
use placer_solver::fair::fair_shares;
use placer_solver::gang::{heuristic, GangProblem, Score};
use placer_solver::{Indexed, LocalityCost, PlaceOptions};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

/// A xorshift generator (seeded, deterministic).
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn below(&mut self, m: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % m
    }
}

/// A small random snapshot: 4 nodes in 2 racks (and 2 blocks), 1–2 pools, 2–3 jobs with random
/// gangs and topology rules, up to `tasks` pending tasks and 0–2 running ones.
pub(crate) fn random_snapshot(seed: u64, tasks: u64) -> Value {
    snapshot_drawn(seed, tasks, false)
}

/// [`random_snapshot`] where a third of the topology jobs also come in slices (Kueue TAS's
/// `podset-slice-size`: a level at or below the job's, 1–3 tasks each), drawn from a stream of
/// their own, so that every other field is as [`random_snapshot`] draws it.
pub(crate) fn random_sliced_snapshot(seed: u64, tasks: u64) -> Value {
    snapshot_drawn(seed, tasks, true)
}

fn snapshot_drawn(seed: u64, tasks: u64, slices: bool) -> Value {
    let mut r = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let nodes: Vec<(u32, u32)> = (0..4).map(|_| (r.below(3) as u32, r.below(2) as u32)).collect();
    let blocks = r.below(2) == 0;
    let pools = 1 + r.below(2);
    let jobs = 2 + r.below(2);
    let mut pending = Vec::new();
    let mut of_job = vec![0u64; jobs as usize];
    for i in 0..1 + r.below(tasks) {
        let j = r.below(jobs);
        of_job[j as usize] += 1;
        if r.below(10) < 7 {
            let replicas: Vec<String> =
                (0..4).filter(|_| r.below(3) == 0).map(|n| format!("n{n}")).collect();
            pending.push(json!({"id": format!("t{i}"), "job": format!("j{j}"), "kind": "map",
                "input_bytes": 64_000_000 * (1 + r.below(3)), "replicas": replicas}));
        } else {
            let from = r.below(4);
            pending.push(json!({"id": format!("t{i}"), "job": format!("j{j}"), "kind": "reduce",
                "shuffle": [{"node": format!("n{from}"), "bytes": 10_000_000 * (1 + r.below(5))}]}));
        }
    }
    let mut used = [[0u32; 2]; 4];
    let mut running = Vec::new();
    for i in 0..r.below(3) {
        let (n, j) = (r.below(4) as usize, r.below(jobs));
        let k = r.below(2) as usize;
        let slots = if k == 0 { nodes[n].0 } else { nodes[n].1 };
        if used[n][k] < slots {
            used[n][k] += 1;
            of_job[j as usize] += 1;
            let kind = ["map", "reduce"][k];
            running.push(json!({"id": format!("run{i}"), "job": format!("j{j}"),
                "kind": kind, "node": format!("n{n}")}));
        }
    }
    // Slices draw from their own stream, so that every other field is drawn as before.
    let mut sliced = Rng(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) | 1);
    let jobs_json: Vec<Value> = (0..jobs)
        .map(|j| {
            let mut job = json!({"id": format!("j{j}"), "pool": format!("p{}", r.below(pools)),
                                 "submit_s": j});
            if of_job[j as usize] > 0 && r.below(2) == 0 {
                job["gang"] = json!({"min_member": 1 + r.below(of_job[j as usize])});
            }
            if r.below(2) == 0 {
                let level = ["node", "rack", "block"][r.below(3) as usize];
                let mode = ["required", "preferred"][r.below(2) as usize];
                let penalty = [0.0, 5.0, 60.0][r.below(3) as usize];
                job["topology"] = json!({"level": level, "mode": mode, "penalty_s": penalty});
                if slices && sliced.below(3) == 0 {
                    let at = ["node", "rack", "block"].iter().position(|&l| l == level).unwrap();
                    let slice_level =
                        ["node", "rack", "block"][sliced.below(at as u64 + 1) as usize];
                    job["topology"]["slice"] =
                        json!({"level": slice_level, "size": 1 + sliced.below(3)});
                }
            }
            job
        })
        .collect();
    let nodes_json: Vec<Value> = nodes
        .iter()
        .enumerate()
        .map(|(n, &(m, red))| {
            let mut node = json!({"id": format!("n{n}"), "rack": format!("r{}", n / 2),
                                  "map_slots": m, "reduce_slots": red});
            if blocks && n != 3 {
                node["block"] = json!(format!("b{}", n / 2));
            }
            node
        })
        .collect();
    let pools_json: Vec<Value> =
        (0..pools).map(|p| json!({"id": format!("p{p}"), "weight": 1 + r.below(3)})).collect();
    json!({"schema_version": 1,
           "cluster": {"racks": [{"id": "r0"}, {"id": "r1"}], "nodes": nodes_json},
           "pools": pools_json, "jobs": jobs_json, "pending": pending, "running": running})
}

/// Parses and validates a snapshot.
pub(crate) fn request(v: &Value) -> placer_models::PlaceRequest {
    let req = placer_models::parse_request(v.to_string().as_bytes()).unwrap();
    placer_models::validate(&req).unwrap();
    req
}

/// The best valid score over every assignment of the eligible tasks (None or any node).
fn brute_force(p: &GangProblem<'_>) -> Score {
    let tasks: Vec<usize> = p.tasks.iter().flatten().copied().collect();
    let nodes = p.ix.node_rack.len() as u64;
    let mut at = vec![None; p.ix.req.pending.len()];
    let mut best = Score { placed: 0, cost: 0 };
    let total = (nodes + 1).pow(tasks.len() as u32);
    for code in 0..total {
        let mut c = code;
        for &t in &tasks {
            let choice = c % (nodes + 1);
            c /= nodes + 1;
            at[t] = (choice > 0).then(|| choice as u32 - 1);
        }
        if let Ok(s) = p.score(&at) {
            if s.placed > best.placed || (s.placed == best.placed && s.cost < best.cost) {
                best = s;
            }
        }
    }
    best
}

/// The MIP's score equals the brute force's; the heuristic is valid and never better.
#[cfg(feature = "mip")]
#[test]
fn the_mip_matches_a_brute_force_oracle_and_the_heuristic_is_valid_and_no_better() {
    let mut constrained = 0;
    for seed in 0..120 {
        let req = request(&random_sliced_snapshot(seed, 5));
        let ix = Indexed::new(&req);
        let model = LocalityCost::new(&ix);
        let shares = fair_shares::compute(&ix);
        let p = GangProblem::new(&ix, &model, &shares, None).unwrap();
        constrained += usize::from(p.constrained());
        let best = brute_force(&p);
        let exact = placer_solver::mip::quota_mip::solve(&p, Default::default()).unwrap();
        assert_eq!(exact.status, Status::Optimal, "seed {seed}");
        let exact_score = p.score(&exact.node_of_task);
        assert_eq!(exact_score, Ok(best), "seed {seed}: {}", serde_json::to_string(&req).unwrap());
        let fast = heuristic::place(&p);
        let fast_score = p.score(&fast.node_of_task).unwrap_or_else(|e| {
            panic!("seed {seed}: heuristic invalid {e:?}: {}", serde_json::to_string(&req).unwrap())
        });
        assert!(best.at_least(fast_score), "seed {seed}: {best:?} vs {fast_score:?}");
    }
    assert!(constrained > 60, "the generator makes gangs and domains: {constrained}");
}

/// A gang's scorer refuses a start below `min_member` and a required domain left (hand cases:
/// the oracle above is only as good as the scorer).
#[test]
fn the_scorer_refuses_a_short_gang_and_a_split_required_domain() {
    let req = request(&json!({"schema_version": 1,
        "cluster": {"racks": [{"id": "r0"}, {"id": "r1"}], "nodes": [
            {"id": "a", "rack": "r0", "map_slots": 1}, {"id": "b", "rack": "r1", "map_slots": 1}]},
        "pools": [{"id": "p"}],
        "jobs": [{"id": "g", "pool": "p", "gang": {"min_member": 2}},
                 {"id": "d", "pool": "p", "topology": {"level": "rack", "mode": "required"}}],
        "pending": [{"id": "g0", "job": "g", "kind": "map"}, {"id": "g1", "job": "g", "kind": "map"},
                    {"id": "d0", "job": "d", "kind": "map"}, {"id": "d1", "job": "d", "kind": "map"}]}));
    let ix = Indexed::new(&req);
    let model = LocalityCost::new(&ix);
    let shares = fair_shares::compute(&ix);
    let p = GangProblem::new(&ix, &model, &shares, None).unwrap();
    use placer_solver::gang::Invalid;
    assert_eq!(p.score(&[Some(0), None, None, None]), Err(Invalid::Gang(0)));
    assert_eq!(p.score(&[None, None, Some(0), Some(1)]), Err(Invalid::Domain(1)));
    // No task has data, so no locality cost; the pool's 2 map slots give each job a fair share
    // of 1, so g's second task is one unit beyond its share: one unit of surcharge.
    assert_eq!(p.score(&[Some(0), Some(1), None, None]), Ok(Score { placed: 2, cost: 1 }));
    assert_eq!(p.score(&[None, None, Some(0), None]), Ok(Score { placed: 1, cost: 0 }));
}

/// Kueue's topology-aware scheduling examples on 640 nodes: 1 block × 10 racks × 64 nodes, one
/// map slot each.
pub(crate) fn kueue_640(gang: u32, level: &str, mode: &str) -> Value {
    let nodes: Vec<Value> = (0..640)
        .map(|n| {
            json!({"id": format!("n{n}"), "rack": format!("r{}", n / 64), "block": "b0",
                        "map_slots": 1})
        })
        .collect();
    let racks: Vec<Value> = (0..10).map(|r| json!({"id": format!("r{r}")})).collect();
    let pending: Vec<Value> =
        (0..gang).map(|i| json!({"id": format!("t{i}"), "job": "train", "kind": "map"})).collect();
    json!({"schema_version": 1, "cluster": {"racks": racks, "nodes": nodes},
           "pools": [{"id": "p"}],
           "jobs": [{"id": "train", "pool": "p", "gang": {"min_member": gang},
                     "topology": {"level": level, "mode": mode}}],
           "pending": pending})
}

fn place(v: &Value, engine: SolverEngine) -> PlaceResponse {
    let mut req = request(v);
    req.policy.solver = engine;
    placer_solver::place(&req, &PlaceOptions::default()).unwrap()
}

/// The racks of the answer's assignments (nodes n0..n639, rack = n / 64).
pub(crate) fn racks_used(r: &PlaceResponse) -> BTreeMap<u32, u64> {
    let mut racks = BTreeMap::new();
    for a in &r.assignments {
        let n: u32 = a.node.as_str()[1..].parse().unwrap();
        *racks.entry(n / 64).or_insert(0) += 1;
    }
    racks
}

/// `podset-required-topology: rack` with 64 pods: a rack has exactly 64 free slots, so all 64
/// start in one rack.
#[test]
fn kueue_tas_a_rack_required_gang_of_64_fits_one_rack() {
    let r = place(&kueue_640(64, "rack", "required"), SolverEngine::Auto);
    assert_eq!(r.stats.assigned, 64);
    assert_eq!(racks_used(&r).into_values().collect::<Vec<_>>(), [64]);
    assert!(r.waiting.is_empty());
}

/// 65 pods rack-required: no rack has 65 slots, so none starts and all 65 wait with
/// `no_domain_fits` (Kueue keeps such a workload pending).
#[test]
fn kueue_tas_a_rack_required_gang_of_65_gets_no_domain_fits() {
    let r = place(&kueue_640(65, "rack", "required"), SolverEngine::Auto);
    assert_eq!(r.stats.assigned, 0);
    assert_eq!(r.waiting.len(), 1);
    assert_eq!((r.waiting[0].tasks, r.waiting[0].reason), (65, WaitReason::NoDomainFits));
}

/// 65 pods rack-preferred: all start, 64 in one rack and 1 outside it (the least penalty).
#[test]
fn kueue_tas_a_rack_preferred_gang_of_65_spills_one_pod() {
    let r = place(&kueue_640(65, "rack", "preferred"), SolverEngine::Auto);
    assert_eq!(r.stats.assigned, 65);
    let mut counts: Vec<u64> = racks_used(&r).into_values().collect();
    counts.sort_unstable();
    assert_eq!(counts, [1, 64]);
}

/// 65 pods block-required: the one block holds all 640 nodes, so all 65 start.
#[test]
fn kueue_tas_a_block_required_gang_of_65_fits_the_block() {
    let r = place(&kueue_640(65, "block", "required"), SolverEngine::Auto);
    assert_eq!(r.stats.assigned, 65);
}

/// The same two rack-required cases on the MIP, scaled to 4 racks × 4 nodes (the MIP is for
/// small instances): a gang of 4 fits one rack, a gang of 5 waits `no_domain_fits`.
#[cfg(feature = "mip")]
#[test]
fn kueue_tas_rack_required_on_the_mip_at_a_sixteenth_of_the_scale() {
    let small = |gang: u32| {
        let mut v = kueue_640(gang, "rack", "required");
        let nodes: Vec<Value> = (0..16)
            .map(|n| {
                json!({"id": format!("n{}", (n / 4) * 64 + n % 4), "rack": format!("r{}", n / 4),
                            "block": "b0", "map_slots": 1})
            })
            .collect();
        v["cluster"]["nodes"] = json!(nodes);
        v
    };
    let r = place(&small(4), SolverEngine::Mip);
    assert_eq!((r.stats.assigned, r.stats.status), (4, Status::Optimal));
    assert_eq!(racks_used(&r).len(), 1);
    let r = place(&small(5), SolverEngine::Mip);
    assert_eq!(r.stats.assigned, 0);
    assert_eq!((r.waiting[0].tasks, r.waiting[0].reason), (5, WaitReason::NoDomainFits));
}

/// Two rack-required gangs of 3 on two racks of 3 one-slot nodes and a third rack of 2: each
/// gang takes a whole rack (the heuristic's reservations keep them apart), the rack of 2 is
/// left for no one.
#[test]
fn two_rack_required_gangs_take_a_rack_each() {
    let nodes: Vec<Value> = [(0, 3), (1, 3), (2, 2)]
        .iter()
        .flat_map(|&(rack, count)| {
            (0..count).map(move |i| {
                json!({"id": format!("r{rack}n{i}"), "rack": format!("r{rack}"),
                                           "map_slots": 1})
            })
        })
        .collect();
    let mut pending = Vec::new();
    for job in ["a", "b"] {
        for i in 0..3 {
            pending.push(json!({"id": format!("{job}{i}"), "job": job, "kind": "map"}));
        }
    }
    let rule = json!({"level": "rack", "mode": "required"});
    let v = json!({"schema_version": 1,
        "cluster": {"racks": [{"id": "r0"}, {"id": "r1"}, {"id": "r2"}], "nodes": nodes},
        "pools": [{"id": "p"}],
        "jobs": [{"id": "a", "pool": "p", "gang": {"min_member": 3}, "topology": rule},
                 {"id": "b", "pool": "p", "gang": {"min_member": 3}, "topology": rule}],
        "pending": pending});
    for engine in engines() {
        let r = place(&v, engine);
        assert_eq!(r.stats.assigned, 6, "{engine:?}");
        let mut racks: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for a in &r.assignments {
            racks.entry(&a.task.as_str()[..1]).or_default().insert(&a.node.as_str()[..2]);
        }
        assert_eq!(racks["a"].len(), 1, "{engine:?}");
        assert_eq!(racks["b"].len(), 1, "{engine:?}");
        assert_ne!(racks["a"], racks["b"], "{engine:?}");
    }
}

/// A gang under a policy that cannot honour it: 422 `unsupported_feature` at its path (the
/// multi-resource policies honour them: `gang_multi_resource.rs`).
#[test]
fn other_policies_refuse_gangs_and_domains_with_their_path() {
    let mut v = kueue_640(2, "rack", "required");
    v["jobs"][0].as_object_mut().unwrap().remove("gang");
    for algorithm in ["lsap_fair", "fair", "lsap", "delay"] {
        v["policy"] = json!({"algorithm": algorithm});
        let req = request(&v);
        let e = placer_solver::place(&req, &PlaceOptions::default()).unwrap_err();
        assert_eq!((e.code(), e.path()), ("unsupported_feature", "jobs[0].topology"));
        assert!(!e.is_invalid_input(), "422, not 400");
    }
}

/// The engines `lsap_quota` accepts in this build.
fn engines() -> Vec<SolverEngine> {
    let mut out = vec![SolverEngine::Auto];
    if cfg!(feature = "mip") {
        out.push(SolverEngine::Mip);
    }
    out
}

/// Every gang in the answer runs at least `min_member` tasks or starts none; every required
/// job's placements share one domain with its running tasks.
pub(crate) fn check_invariants(v: &Value, r: &PlaceResponse) {
    let req = request(v);
    let node_of: BTreeMap<&str, &placer_models::Node> =
        req.cluster.nodes.iter().map(|n| (n.id.as_str(), n)).collect();
    for job in &req.jobs {
        let placed: Vec<&str> = r
            .assignments
            .iter()
            .filter(|a| req.pending.iter().any(|t| t.id == a.task && t.job == job.id))
            .map(|a| a.node.as_str())
            .collect();
        let running: Vec<&str> =
            req.running.iter().filter(|t| t.job == job.id).map(|t| t.node.as_str()).collect();
        if let Some(g) = job.gang {
            assert!(
                placed.is_empty() || placed.len() + running.len() >= g.min_member as usize,
                "{}: {} placed + {} running < {}",
                job.id,
                placed.len(),
                running.len(),
                g.min_member
            );
        }
        if let Some(t) = job.topology.filter(|t| t.mode == placer_models::TopologyMode::Required) {
            let domain = |n: &str| -> Option<String> {
                let node = node_of[n];
                match t.level {
                    placer_models::TopologyLevel::Node => Some(node.id.to_string()),
                    placer_models::TopologyLevel::Rack => Some(node.rack.to_string()),
                    placer_models::TopologyLevel::Block => {
                        node.block.as_ref().map(|b| b.to_string())
                    }
                }
            };
            let domains: BTreeSet<Option<String>> =
                placed.iter().chain(&running).map(|n| domain(n)).collect();
            if !placed.is_empty() {
                assert_eq!(domains.len(), 1, "{}: {domains:?}", job.id);
                assert!(!domains.contains(&None), "{}: a node in no block", job.id);
            }
        }
        if let Some(slice) = job.topology.and_then(|t| t.slice) {
            let mut count: BTreeMap<Option<String>, u32> = BTreeMap::new();
            for n in &placed {
                *count.entry(domain_of(node_of[n], slice.level)).or_default() += 1;
            }
            assert!(!count.contains_key(&None), "{}: a slice on a node in no block", job.id);
            assert!(count.values().all(|c| c % slice.size == 0), "{}: {count:?}", job.id);
        }
    }
}

/// Node `node`'s domain at `level` (`None`: a node in no block).
fn domain_of(node: &placer_models::Node, level: placer_models::TopologyLevel) -> Option<String> {
    match level {
        placer_models::TopologyLevel::Node => Some(node.id.to_string()),
        placer_models::TopologyLevel::Rack => Some(node.rack.to_string()),
        placer_models::TopologyLevel::Block => node.block.as_ref().map(|b| b.to_string()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Through the whole pipeline (delay levels, disk admission, the answer): never a gang
    /// below `min_member`, always the required domain, on every engine.
    #[test]
    fn no_gang_starts_short_and_required_domains_hold(seed in 0u64..1_000_000) {
        let v = random_sliced_snapshot(seed, 7);
        for engine in engines() {
            let r = place(&v, engine);
            check_invariants(&v, &r);
        }
    }
}

/// Without gangs or domains `lsap_quota` answers byte for byte as before: the gang path is
/// never entered (same answer as with the fields absent from every job).
#[test]
fn snapshots_without_gangs_answer_as_before() {
    for seed in 0..20 {
        let mut v = random_snapshot(seed, 6);
        for job in v["jobs"].as_array_mut().unwrap() {
            let job = job.as_object_mut().unwrap();
            job.remove("gang");
            job.remove("topology");
        }
        let r = place(&v, SolverEngine::Auto);
        assert_ne!(r.stats.status, Status::Heuristic, "seed {seed}: the flow is exact");
        assert!(r
            .waiting
            .iter()
            .all(|w| !matches!(w.reason, WaitReason::GangIncomplete | WaitReason::NoDomainFits)));
    }
}

/// Under a deadline already passed, the heuristic's flows answer with what they have: the
/// answer is `time_limited` and still valid (no gang short, every domain held) on random
/// snapshots.
#[test]
fn a_cut_heuristic_is_time_limited_and_still_valid() {
    for seed in 0..40 {
        let req = request(&random_sliced_snapshot(seed, 6));
        let ix = Indexed::new(&req);
        let model = LocalityCost::new(&ix);
        let shares = fair_shares::compute(&ix);
        let p = GangProblem::new(&ix, &model, &shares, None).unwrap();
        let cut = placer_solver::Cancel::after_polls(0);
        let answer = heuristic::place_with(&p, Some(&cut));
        assert!(p.score(&answer.node_of_task).is_ok(), "seed {seed}");
        let whole = heuristic::place(&p);
        assert_eq!(whole.status, Status::Heuristic);
        if answer.status == Status::Heuristic {
            // Nothing to cut (the seeds alone answered): the same answer.
            assert_eq!(answer.node_of_task, whole.node_of_task, "seed {seed}");
        }
    }
}
