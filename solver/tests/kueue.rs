//! The greedy per-workload baselines of Kueue's topology-aware scheduling (`kueue_best_fit`,
//! `kueue_least_free`; Kueue KEP-2724, "Computing the assignment") and the gang-unaware
//! baseline `lsap_quota_no_gang`: hand-derived cases from Kueue's description of its
//! profiles, and, on random small snapshots, every answer valid under `lsap_quota`'s scorer
//! (no slot oversubscribed, pool quotas kept, no gang below `min_member`, required domains
//! held).

use super::gang::{check_invariants, kueue_640, racks_used, random_snapshot, request};
use placer_models::{PlaceResponse, WaitReason};
use placer_solver::fair::{fair_shares, starvation::Starvation};
use placer_solver::gang::GangProblem;
use placer_solver::policy::Epoch;
use placer_solver::{tas, Indexed, LocalityCost, PlaceOptions};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::collections::BTreeMap;

const KUEUE: [&str; 2] = ["kueue_best_fit", "kueue_least_free"];

fn place(v: &Value, algorithm: &str) -> PlaceResponse {
    let mut v = v.clone();
    v["policy"] = json!({"algorithm": algorithm});
    placer_solver::place(&request(&v), &PlaceOptions::default()).unwrap()
}

/// Racks of one-slot nodes named `r{rack}n{i}`, `free[r]` free nodes in rack r out of `size`;
/// the busy nodes run one task each of the job `busy`.
fn racks(size: usize, free: &[usize], jobs: Value, pending: Vec<Value>) -> Value {
    let mut nodes = Vec::new();
    let mut running = Vec::new();
    for (r, &f) in free.iter().enumerate() {
        for i in 0..size {
            let id = format!("r{r}n{i}");
            if i < size - f {
                running.push(json!({"id": format!("x-{id}"), "job": "busy", "kind": "map",
                                    "node": id}));
            }
            nodes.push(json!({"id": id, "rack": format!("r{r}"), "map_slots": 1}));
        }
    }
    let mut jobs = jobs.as_array().unwrap().clone();
    jobs.push(json!({"id": "busy", "pool": "p", "submit_s": 0}));
    let racks: Vec<Value> = (0..free.len()).map(|r| json!({"id": format!("r{r}")})).collect();
    json!({"schema_version": 1, "cluster": {"racks": racks, "nodes": nodes},
           "pools": [{"id": "p"}], "jobs": jobs, "pending": pending, "running": running})
}

fn tasks(job: &str, n: usize) -> Vec<Value> {
    (0..n).map(|i| json!({"id": format!("{job}-{i}"), "job": job, "kind": "map"})).collect()
}

/// Tasks placed per (job, rack), from node ids `r{rack}n{i}` and task ids `{job}-{i}`.
fn per_rack(r: &PlaceResponse) -> BTreeMap<(String, String), u64> {
    let mut out = BTreeMap::new();
    for a in &r.assignments {
        let job = a.task.as_str().split('-').next().unwrap().to_owned();
        let rack = a.node.as_str().split('n').next().unwrap().to_owned();
        *out.entry((job, rack)).or_insert(0) += 1;
    }
    out
}

/// Two racks of 4 one-slot nodes, 3 free in r0 and 4 in r1; rack-required gangs `a` of 3 and
/// `b` of 4, in that queue order. Kueue's BestFit sorts racks by free capacity (r1: 4, r0: 3)
/// and, as r1 fits `a`, "optimizes the selection of the last domain": the rack with the least
/// capacity that still fits, r0. LeastFreeCapacity sorts them ascending (r0, r1) and takes the
/// first that fits: r0 as well. So both profiles give `a` r0 and `b` r1 and start all 7 tasks;
/// a "most free first" choice would give `a` r1 and leave `b` no rack.
#[test]
fn kueue_tas_required_gangs_of_3_and_4_take_the_tight_rack_first_under_both_profiles() {
    let jobs = json!([
        {"id": "a", "pool": "p", "submit_s": 0, "gang": {"min_member": 3},
         "topology": {"level": "rack", "mode": "required"}},
        {"id": "b", "pool": "p", "submit_s": 1, "gang": {"min_member": 4},
         "topology": {"level": "rack", "mode": "required"}}]);
    let mut pending = tasks("a", 3);
    pending.extend(tasks("b", 4));
    let v = racks(4, &[3, 4], jobs, pending);
    for algorithm in KUEUE {
        let r = place(&v, algorithm);
        let want: BTreeMap<(String, String), u64> =
            [(("a".into(), "r0".into()), 3), (("b".into(), "r1".into()), 4)].into();
        assert_eq!(per_rack(&r), want, "{algorithm}");
        assert!(r.waiting.is_empty(), "{algorithm}: {:?}", r.waiting);
    }
}

/// The profiles differ where a workload spreads: a rack-preferred job of 4 on racks with 3, 2
/// and 1 free nodes fits no rack (Kueue's preferred then falls back to several domains).
/// BestFit takes the most free rack (3 tasks in r0), then the tightest rack that holds the
/// last task (r2, 1 free); LeastFreeCapacity takes racks from the least free: r2 (1), r1 (2),
/// then 1 task in r0.
#[test]
fn kueue_tas_a_preferred_job_spreads_most_free_first_or_least_free_first() {
    let jobs =
        json!([{"id": "j", "pool": "p", "topology": {"level": "rack", "mode": "preferred"}}]);
    let v = racks(3, &[3, 2, 1], jobs, tasks("j", 4));
    let got = |algorithm| {
        per_rack(&place(&v, algorithm)).into_iter().map(|((_, r), c)| (r, c)).collect::<Vec<_>>()
    };
    assert_eq!(got("kueue_best_fit"), [("r0".into(), 3), ("r2".into(), 1)]);
    assert_eq!(got("kueue_least_free"), [("r0".into(), 1), ("r1".into(), 2), ("r2".into(), 1)]);
}

/// A gang of 3 (no topology) with 2 free slots cannot reach `min_member`: none of it starts
/// and all 3 wait `gang_incomplete`; the gang-unaware baseline starts 2 of them.
#[test]
fn a_gang_short_of_min_member_waits_gang_incomplete_and_the_blind_baseline_starts_part() {
    let jobs = json!([{"id": "g", "pool": "p", "gang": {"min_member": 3}}]);
    let v = racks(2, &[1, 1], jobs, tasks("g", 3));
    for algorithm in KUEUE {
        let r = place(&v, algorithm);
        assert!(r.assignments.is_empty(), "{algorithm}");
        assert_eq!(r.waiting.len(), 1, "{algorithm}");
        assert_eq!((r.waiting[0].tasks, r.waiting[0].reason), (3, WaitReason::GangIncomplete));
    }
    let blind = place(&v, "lsap_quota_no_gang");
    assert_eq!(blind.assignments.len(), 2);
    assert_eq!(place(&v, "lsap_quota").assignments.len(), 0);
}

/// A rack-required gang of 4 on racks with 3 and 3 free nodes: 6 free slots, but no rack holds
/// 4, so none starts (`no_domain_fits`); the blind baseline starts all 4 across both racks.
#[test]
fn a_required_gang_without_a_fitting_rack_waits_no_domain_fits() {
    let jobs = json!([{"id": "g", "pool": "p", "gang": {"min_member": 4},
                       "topology": {"level": "rack", "mode": "required"}}]);
    let v = racks(4, &[3, 3], jobs, tasks("g", 4));
    for algorithm in KUEUE {
        let r = place(&v, algorithm);
        assert!(r.assignments.is_empty(), "{algorithm}");
        assert_eq!((r.waiting[0].tasks, r.waiting[0].reason), (4, WaitReason::NoDomainFits));
    }
    let blind = per_rack(&place(&v, "lsap_quota_no_gang"));
    assert_eq!(blind.values().sum::<u64>(), 4);
    assert_eq!(blind.len(), 2, "split over both racks: {blind:?}");
}

/// One workload at a time against the joint placement: two racks of 2 nodes, 2 free in r0 and 1 in r1; `a` (rack-required, gang of 2) is queued
/// after `b` (no rules, 1 task whose block is on r0n1). Kueue places `b` first, node-local on
/// r0n1, and `a` then finds no rack with 2 free slots (`no_domain_fits`); `lsap_quota`, placing
/// both at once, starts `a` in r0 and `b` remote on r1.
#[test]
fn one_workload_at_a_time_loses_a_gang_that_the_joint_placement_starts() {
    let jobs = json!([
        {"id": "b", "pool": "p", "submit_s": 0},
        {"id": "a", "pool": "p", "submit_s": 1, "gang": {"min_member": 2},
         "topology": {"level": "rack", "mode": "required"}}]);
    let mut pending = tasks("a", 2);
    pending.push(json!({"id": "b-0", "job": "b", "kind": "map", "input_bytes": 134217728,
                        "replicas": ["r0n1"]}));
    let v = racks(2, &[2, 1], jobs, pending);
    for algorithm in KUEUE {
        let r = place(&v, algorithm);
        assert_eq!(per_rack(&r), [(("b".into(), "r0".into()), 1)].into(), "{algorithm}");
        let a = r.waiting.iter().find(|w| w.job.as_str() == "a").unwrap();
        assert_eq!((a.tasks, a.reason), (2, WaitReason::NoDomainFits));
    }
    let joint = per_rack(&place(&v, "lsap_quota"));
    assert_eq!(joint, [(("a".into(), "r0".into()), 2), (("b".into(), "r1".into()), 1)].into());
}

/// Kueue's examples on 640 nodes (1 block × 10 racks × 64 one-slot nodes) under both
/// profiles: a rack-required gang of 64 fills one rack; of 65 waits `no_domain_fits`; a
/// rack-preferred gang of 65 fits no rack and is spread: all racks have 64 free, so BestFit
/// (descending, ties by index) and LeastFreeCapacity (ascending, ties by index) both take r0
/// for 64 and r1 for the last one; block-required, the one block holds all 65.
#[test]
fn kueue_tas_examples_on_640_nodes_under_both_profiles() {
    for algorithm in KUEUE {
        let r = place(&kueue_640(64, "rack", "required"), algorithm);
        assert_eq!(racks_used(&r), [(0, 64)].into(), "{algorithm}");
        let r = place(&kueue_640(65, "rack", "required"), algorithm);
        assert_eq!((r.stats.assigned, r.waiting[0].reason), (0, WaitReason::NoDomainFits));
        let r = place(&kueue_640(65, "rack", "preferred"), algorithm);
        assert_eq!(racks_used(&r), [(0, 64), (1, 1)].into(), "{algorithm}");
        let r = place(&kueue_640(65, "block", "required"), algorithm);
        assert_eq!(r.stats.assigned, 65, "{algorithm}");
    }
}

/// Locality inside a domain, node-local first over the whole workload: one rack of three
/// one-slot nodes, n2 busy; `t0`'s block is on n2 (full), `t1`'s on n0. Taking the tasks one
/// by one, `t0` would take the first free node of its rack, n0, and push `t1` off its block;
/// node-local first, `t1` takes n0 and `t0` n1, rack-local.
#[test]
fn node_local_placements_come_before_rack_local_ones() {
    let jobs = json!([{"id": "j", "pool": "p"}]);
    let pending = vec![
        json!({"id": "j-0", "job": "j", "kind": "map", "input_bytes": 1000, "replicas": ["r0n2"]}),
        json!({"id": "j-1", "job": "j", "kind": "map", "input_bytes": 1000, "replicas": ["r0n0"]}),
    ];
    let mut v = racks(3, &[3], jobs, pending);
    v["running"] = json!([{"id": "x", "job": "busy", "kind": "map", "node": "r0n2"}]);
    for algorithm in KUEUE {
        let r = place(&v, algorithm);
        let got: Vec<(&str, &str)> =
            r.assignments.iter().map(|a| (a.task.as_str(), a.node.as_str())).collect();
        assert_eq!(got, [("j-0", "r0n1"), ("j-1", "r0n0")], "{algorithm}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Both profiles on random small snapshots: valid under `lsap_quota`'s scorer (slots, pool
    /// quotas, gangs, required domains) before the pipeline's guard, and through the pipeline.
    #[test]
    fn kueue_answers_are_valid_on_random_snapshots(seed in 0u64..1_000_000) {
        let v = random_snapshot(seed, 7);
        let req = request(&v);
        let ix = Indexed::new(&req);
        let model = LocalityCost::new(&ix);
        let shares = fair_shares::compute(&ix);
        let starvation = Starvation::new(&ix, &shares);
        let epoch = Epoch { ix: &ix, model: &model, shares: &shares, starvation: &starvation,
                            engine: placer_models::SolverEngine::Auto, cancel: None, warm: None };
        let p = GangProblem::new(&ix, &model, &shares, None).unwrap();
        for profile in [tas::Profile::BestFit, tas::Profile::LeastFreeCapacity] {
            let answer = tas::place(&epoch, profile).unwrap();
            prop_assert!(p.score(&answer.node_of_task).is_ok(), "{profile:?}: {:?}",
                         p.score(&answer.node_of_task));
        }
        for algorithm in KUEUE {
            check_invariants(&v, &place(&v, algorithm));
        }
    }
}
