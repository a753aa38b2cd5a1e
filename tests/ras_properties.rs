//! Property tests for the multi-resource policies (RAS eq. 6; DRF): on random small snapshots
//! with capacities, per-phase profiles, demand overrides, slot caps and running tasks,
//! - `ras`, `lsap_ras` and `drf` never add demand of a resource to a node beyond its room
//!   (capacity − running), nor more tasks than its non-zero slots;
//! - `lsap_ras` starts exactly RAS's tasks per job (the same utilities, min utility and
//!   packing) at no more locality cost than `ras`;
//! - jobs carry completion-time goals (some already missed) and map lengths (some unknown), so
//!   both hold under placer's goal plan too; the plan's s_req lies in [1, s_pend] and does not
//!   depend on the order the jobs are listed in.

use placer_models::{PlaceRequest, PlaceResponse};
use placer_solver::ras::plan::{required_now, GoalJob};
use placer_solver::{place, PlaceOptions};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Node: (cpu, io, map slots, reduce slots). Job: (map cpu, map io, reduce cpu, maps, reduces).
type NodeGen = (u32, u32, u32, u32);
/// A job's completion-time goal and observed map length, s (the snapshot is at 10 s).
type GoalGen = Option<(u32, Option<u32>)>;
type JobGen = (u32, u32, u32, usize, usize);

#[derive(Clone, Debug)]
struct Spec {
    nodes: Vec<NodeGen>,
    jobs: Vec<JobGen>,
    /// Per pending map: (job, replica nodes as bits).
    replicas: Vec<u8>,
    /// Running maps: (job, node).
    running: Vec<(usize, usize)>,
    /// A demand override on the first pending map: (cpu, io).
    custom: Option<(u32, u32)>,
    /// Per job (cycled): its goal and map length, if any.
    goals: Vec<GoalGen>,
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        proptest::collection::vec((0u32..=6, 0u32..=6, 0u32..=2, 0u32..=2), 1..=3),
        proptest::collection::vec((0u32..=3, 0u32..=3, 0u32..=3, 0usize..=4, 0usize..=2), 1..=3),
        proptest::collection::vec(0u8..8, 12),
        proptest::collection::vec((0usize..3, 0usize..3), 0..=2),
        proptest::option::of((0u32..=4, 0u32..=4)),
        proptest::collection::vec(
            proptest::option::of((0u32..=60, proptest::option::of(1u32..=30))),
            3,
        ),
    )
        .prop_map(|(nodes, jobs, replicas, running, custom, goals)| Spec {
            nodes,
            jobs,
            replicas,
            running,
            custom,
            goals,
        })
}

fn snapshot(s: &Spec, algorithm: &str) -> Value {
    let nodes: Vec<Value> = s
        .nodes
        .iter()
        .enumerate()
        .map(|(i, &(cpu, io, m, r))| {
            json!({"id": format!("n{i}"), "rack": format!("r{}", i % 2), "map_slots": m,
                   "reduce_slots": r, "resources": {"cpu": cpu, "io": io}})
        })
        .collect();
    let mut jobs = Vec::new();
    let mut pending = Vec::new();
    let mut k = 0;
    for (j, &(mc, mi, rc, maps, reduces)) in s.jobs.iter().enumerate() {
        let mut job = json!({"id": format!("j{j}"), "pool": "p", "submit_s": j,
            "profile": {"map": {"cpu": mc, "io": mi}, "shuffle": {"io": 0.5},
                        "reduce": {"cpu": rc}}});
        if let Some((goal, mean)) = s.goals[j % s.goals.len()] {
            job["goal_s"] = json!(goal);
            if let Some(mean) = mean {
                job["mean_map_s"] = json!(mean);
            }
        }
        jobs.push(job);
        for m in 0..maps {
            let bits = s.replicas[k % s.replicas.len()];
            k += 1;
            let replicas: Vec<String> = (0..s.nodes.len())
                .filter(|&n| bits & (1 << n) != 0)
                .map(|n| format!("n{n}"))
                .collect();
            pending.push(json!({"id": format!("j{j}-m{m}"), "job": format!("j{j}"), "kind": "map",
                                "input_bytes": 64_000_000, "replicas": replicas}));
        }
        for r in 0..reduces {
            pending.push(json!({"id": format!("j{j}-r{r}"), "job": format!("j{j}"),
                                "kind": "reduce"}));
        }
    }
    if let (Some((cpu, io)), Some(first)) = (s.custom, pending.first_mut()) {
        first["demand"] = json!({"cpu": cpu, "io": io});
    }
    // Running maps only where a map slot (if capped) is left for them.
    let mut used = vec![0u32; s.nodes.len()];
    let mut running = Vec::new();
    for (i, &(j, n)) in s.running.iter().enumerate() {
        let (j, n) = (j % s.jobs.len(), n % s.nodes.len());
        let slots = s.nodes[n].2;
        if slots != 0 && used[n] >= slots {
            continue;
        }
        used[n] += 1;
        running.push(json!({"id": format!("run{i}"), "job": format!("j{j}"), "kind": "map",
                            "node": format!("n{n}"), "started_s": 3 * i}));
    }
    json!({"schema_version": 1, "now_s": 10,
           "cluster": {"racks": [{"id": "r0"}, {"id": "r1"}], "nodes": nodes},
           "pools": [{"id": "p"}], "jobs": jobs, "pending": pending, "running": running,
           "policy": {"algorithm": algorithm}})
}

fn run(v: &Value) -> (PlaceRequest, PlaceResponse) {
    let req: PlaceRequest = serde_json::from_value(v.clone()).unwrap();
    let r = place(&req, &PlaceOptions::default()).unwrap();
    (req, r)
}

/// A task's demand as the policies read it (override, else its phase's profile entry).
fn demand(req: &PlaceRequest, job: &str, kind: &str, custom: Option<&Value>) -> [f64; 2] {
    if let Some(d) = custom {
        return [d["cpu"].as_f64().unwrap_or(0.0), d["io"].as_f64().unwrap_or(0.0)];
    }
    let j = req.jobs.iter().find(|x| x.id.as_str() == job).unwrap();
    let p = j.profile.as_ref().unwrap();
    let maps_left = req
        .pending
        .iter()
        .chain([].iter())
        .any(|t| t.job.as_str() == job && t.kind.name() == "map")
        || req.running.iter().any(|t| t.job.as_str() == job && t.kind.name() == "map");
    let amounts = match kind {
        "map" => &p.map,
        _ if maps_left => &p.shuffle,
        _ => &p.reduce,
    };
    [amounts.get("cpu").copied().unwrap_or(0.0), amounts.get("io").copied().unwrap_or(0.0)]
}

/// Per node: running + placed demand (cpu, io), tasks per kind, placed demand (cpu, io).
type Load = ([f64; 2], [u32; 2], [f64; 2]);

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// RAS eq. 6 and the slot caps, for every multi-resource policy.
    #[test]
    fn no_node_is_oversubscribed(s in spec()) {
        for algorithm in ["ras", "lsap_ras", "drf"] {
            let v = snapshot(&s, algorithm);
            let (req, r) = run(&v);
            let mut load: BTreeMap<String, Load> = BTreeMap::new();
            for t in &req.running {
                let d = demand(&req, t.job.as_str(), t.kind.name(), None);
                let e = load.entry(t.node.to_string()).or_default();
                e.0[0] += d[0];
                e.0[1] += d[1];
                e.1[t.kind.slot()] += 1;
            }
            for a in &r.assignments {
                let t = req.pending.iter().find(|t| t.id == a.task).unwrap();
                let custom = t.demand.as_ref().map(|d| serde_json::to_value(d).unwrap());
                let d = demand(&req, t.job.as_str(), t.kind.name(), custom.as_ref());
                let e = load.entry(a.node.to_string()).or_default();
                e.0[0] += d[0];
                e.0[1] += d[1];
                e.1[t.kind.slot()] += 1;
                e.2[0] += d[0];
                e.2[1] += d[1];
            }
            for (node, (used, tasks, placed)) in &load {
                let n = req.cluster.nodes.iter().find(|n| n.id.as_str() == node).unwrap();
                let cap = &n.resources.as_ref().unwrap().amounts;
                // A resource the answer adds to must stay within capacity (running tasks may
                // already overcommit one it leaves alone).
                for (r, name) in ["cpu", "io"].into_iter().enumerate() {
                    prop_assert!(
                        placed[r] == 0.0 || used[r] <= cap[name] + 1e-9,
                        "{algorithm}: {name} on {node}"
                    );
                }
                for (k, slots) in [n.map_slots, n.reduce_slots].into_iter().enumerate() {
                    prop_assert!(slots == 0 || tasks[k] <= slots, "{algorithm}: slots on {node}");
                }
            }
        }
    }

    /// lsap_ras keeps RAS's decision (per-job counts, utilities) at no more locality cost.
    #[test]
    fn lsap_ras_keeps_ras_counts_at_no_more_locality_cost(s in spec()) {
        let (_, ras) = run(&snapshot(&s, "ras"));
        let (_, exact) = run(&snapshot(&s, "lsap_ras"));
        let per_job = |r: &PlaceResponse| {
            let mut m: BTreeMap<String, usize> = BTreeMap::new();
            for a in &r.assignments {
                let job = a.task.as_str().split('-').next().unwrap().to_owned();
                *m.entry(job).or_default() += 1;
            }
            m
        };
        prop_assert_eq!(per_job(&ras), per_job(&exact));
        prop_assert_eq!(ras.stats.extra.get("min_utility"), exact.stats.extra.get("min_utility"));
        let utilities =
            |r: &PlaceResponse| r.jobs.iter().map(|j| j.state.get("utility").cloned()).collect::<Vec<_>>();
        prop_assert_eq!(utilities(&ras), utilities(&exact));
        prop_assert!(exact.stats.locality_cost <= ras.stats.locality_cost + 1e-9);
    }

    /// The goal plan's s_req lies in [1, s_pend] (0 with nothing pending) and is the same
    /// whatever order the jobs come in (goals, then ranks, decide).
    #[test]
    fn goal_plan_bounds_and_order(
        jobs in proptest::collection::vec((0u32..=200, 0u32..=50, 1u32..=20, 0u32..=40), 1..=6),
        now in 0u32..=100,
        rotate in 0usize..6,
    ) {
        let jobs: Vec<GoalJob> = jobs
            .iter()
            .enumerate()
            .map(|(i, &(goal, pend, c, m))| GoalJob {
                goal_s: f64::from(goal),
                s_pend: pend,
                concurrency: f64::from(c),
                map_s: f64::from(m),
                rank: i as u32,
            })
            .collect();
        let req = required_now(&jobs, f64::from(now));
        for (j, &s) in jobs.iter().zip(&req) {
            prop_assert!(s <= j.s_pend && (j.s_pend == 0 || s >= 1), "{s} of {}", j.s_pend);
        }
        let k = rotate % jobs.len();
        let mut turned = jobs.clone();
        turned.rotate_left(k);
        let mut back = required_now(&turned, f64::from(now));
        back.rotate_right(k);
        prop_assert_eq!(back, req);
    }
}
