//! Slices (Kueue topology-aware scheduling's `podset-slice-required-topology` and
//! `podset-slice-size`): a job's tasks placed in whole slices, each inside one domain of the
//! slice level. Kueue's examples on its 640-node cluster (1 block × 10 racks × 64 nodes),
//! derived by hand, under `lsap_quota`'s heuristic; the same shape at a sixteenth of the scale
//! on every engine, the MIP included; and the refusals.

use super::gang::{check_invariants, request};
use placer_models::{PlaceResponse, SolverEngine, WaitReason};
use placer_solver::PlaceOptions;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// 1 block × `racks` racks × `per_rack` one-slot nodes; the first `busy` nodes of every rack
/// run a task of job `other` (pool q); job `train` (pool p) is a gang of `gang` maps that
/// requires the block and comes in slices of `size` per rack.
fn cluster(racks: usize, per_rack: usize, busy: usize, gang: u32, size: u32) -> Value {
    let nodes: Vec<Value> = (0..racks * per_rack)
        .map(|n| {
            json!({"id": format!("n{n}"), "rack": format!("r{}", n / per_rack), "block": "b0",
                   "map_slots": 1})
        })
        .collect();
    let running: Vec<Value> = (0..racks * per_rack)
        .filter(|n| n % per_rack < busy)
        .map(|n| {
            json!({"id": format!("x{n}"), "job": "other", "kind": "map",
                        "node": format!("n{n}")})
        })
        .collect();
    let pending: Vec<Value> =
        (0..gang).map(|i| json!({"id": format!("t{i}"), "job": "train", "kind": "map"})).collect();
    json!({"schema_version": 1,
           "cluster": {"racks": (0..racks).map(|r| json!({"id": format!("r{r}")})).collect::<Vec<_>>(),
                       "nodes": nodes},
           "pools": [{"id": "p"}, {"id": "q"}],
           "jobs": [{"id": "train", "pool": "p", "gang": {"min_member": gang},
                     "topology": {"level": "block", "mode": "required",
                                  "slice": {"level": "rack", "size": size}}},
                    {"id": "other", "pool": "q"}],
           "running": running, "pending": pending})
}

fn place(v: &Value, algorithm: &str, engine: SolverEngine) -> Result<PlaceResponse, String> {
    let mut v = v.clone();
    v["policy"] = json!({"algorithm": algorithm});
    let mut req = request(&v);
    req.policy.solver = engine;
    placer_solver::place(&req, &PlaceOptions::default())
        .map_err(|e| format!("{} {}", e.code(), e.path()))
}

/// Tasks placed per rack (rack = node / per_rack).
fn per_rack(r: &PlaceResponse, per_rack: u32) -> BTreeMap<u32, u32> {
    let mut racks = BTreeMap::new();
    for a in &r.assignments {
        let n: u32 = a.node.as_str()[1..].parse().unwrap();
        *racks.entry(n / per_rack).or_insert(0) += 1;
    }
    racks
}

/// Kueue TAS, 640 nodes, 24 of each rack's 64 busy (40 free): a gang of 128 in slices of 32
/// per rack. A rack holds one slice (40 / 32 rounded down), so the 128 go to 4 racks, 32
/// each; the freest racks tie, so the lowest four, r0–r3. Without slices the same gang packs
/// 40 + 40 + 40 + 8.
#[test]
fn kueue_tas_slices_of_32_per_rack_inside_the_block_on_640_nodes() {
    let v = cluster(10, 64, 24, 128, 32);
    for engine in [SolverEngine::Auto, SolverEngine::Flow] {
        let r = place(&v, "lsap_quota", engine).unwrap();
        check_invariants(&v, &r);
        assert_eq!(r.assignments.len(), 128, "{engine:?}");
        assert_eq!(per_rack(&r, 64), BTreeMap::from([(0, 32), (1, 32), (2, 32), (3, 32)]));
    }
}

/// The same cluster, slices of 48: no rack has 48 free, so no slice fits and the gang waits
/// whole, `no_domain_fits`, holding nothing.
#[test]
fn kueue_tas_a_slice_larger_than_any_racks_room_waits() {
    let v = cluster(10, 64, 24, 128, 48);
    let r = place(&v, "lsap_quota", SolverEngine::Auto).unwrap();
    assert!(r.assignments.is_empty());
    let waits: Vec<(String, u64, WaitReason)> =
        r.waiting.iter().map(|w| (w.job.to_string(), w.tasks, w.reason)).collect();
    assert_eq!(waits, vec![("train".to_owned(), 128, WaitReason::NoDomainFits)]);
}

/// A sixteenth of the scale, on every engine (the MIP included): 4 racks of 4 one-slot nodes,
/// one busy per rack (3 free), a gang of 4 in slices of 2 per rack. A rack holds one slice,
/// so 2 racks take 2 each (under the heuristic the two lowest, r0 and r1; the MIP may break the
/// tie otherwise). A gang of 6 takes three racks; a gang of 10 would need five slices on four
/// racks and waits.
#[test]
fn kueue_tas_slices_at_a_sixteenth_of_the_scale_on_every_engine() {
    let mut engines = vec![SolverEngine::Auto, SolverEngine::Flow];
    if cfg!(feature = "mip") {
        engines.push(SolverEngine::Mip);
    }
    for engine in engines {
        for (gang, lowest) in [(4, vec![0, 1]), (6, vec![0, 1, 2])] {
            let v = cluster(4, 4, 1, gang, 2);
            let r = place(&v, "lsap_quota", engine).unwrap();
            check_invariants(&v, &r);
            let racks = per_rack(&r, 4);
            assert_eq!(racks.values().sum::<u32>(), gang, "{engine:?}");
            assert!(racks.values().all(|&c| c == 2), "{engine:?}: {racks:?}");
            if engine != SolverEngine::Mip {
                assert_eq!(racks.keys().copied().collect::<Vec<_>>(), lowest, "{engine:?}");
            }
        }
        let v = cluster(4, 4, 1, 10, 2);
        assert!(place(&v, "lsap_quota", engine).unwrap().assignments.is_empty(), "{engine:?}");
    }
}

/// The policies that honour gangs but not slices refuse them at the field; a slice level above
/// the job's and a slice of 0 are refused by validation.
#[test]
fn slices_are_refused_where_they_cannot_be_kept() {
    let v = cluster(2, 2, 0, 2, 2);
    for algorithm in ["kueue_best_fit", "kueue_least_free", "drf", "ras", "lsap_ras"] {
        let e = place(&v, algorithm, SolverEngine::Auto).unwrap_err();
        assert_eq!(e, "unsupported_feature jobs[0].topology.slice", "{algorithm}");
    }
    let mut v = cluster(2, 2, 0, 2, 2);
    v["jobs"][0]["topology"] = json!({"level": "node", "mode": "required",
                                      "slice": {"level": "rack", "size": 2}});
    let req = placer_models::parse_request(v.to_string().as_bytes()).unwrap();
    let e = placer_models::validate(&req).unwrap_err();
    assert_eq!((e.code(), e.path()), ("inconsistent", "jobs[0].topology.slice.level"));
    v["jobs"][0]["topology"]["slice"] = json!({"level": "node", "size": 0});
    let req = placer_models::parse_request(v.to_string().as_bytes()).unwrap();
    let e = placer_models::validate(&req).unwrap_err();
    assert_eq!((e.code(), e.path()), ("invalid_number", "jobs[0].topology.slice.size"));
}

/// Six blocks: in each of b0–b4, four racks of two one-slot nodes with one busy node each
/// (4 free slots, no rack with room for a slice of 2); in b5, two racks of three free nodes (6
/// free, a slice per rack). A block-required gang of 4 in slices of 2 per rack fits each of
/// b0–b4 by raw room, and best fit would pick b0 (no room left over) and try b1–b4 next, but
/// only b5 holds whole slices: the gang goes there, 2 per rack, on every engine.
#[test]
fn the_domain_is_chosen_by_room_in_whole_slices() {
    let mut nodes = Vec::new();
    let mut running = Vec::new();
    let mut racks = Vec::new();
    for b in 0..5 {
        for r in 0..4 {
            let rack = format!("r{b}{r}");
            racks.push(json!({"id": rack}));
            for i in 0..2 {
                let id = format!("n{b}{r}{i}");
                nodes.push(
                    json!({"id": id, "rack": rack, "block": format!("b{b}"), "map_slots": 1}),
                );
                if i == 0 {
                    running.push(json!({"id": format!("x{b}{r}"), "job": "other", "kind": "map",
                                        "node": id}));
                }
            }
        }
    }
    for r in 0..2 {
        let rack = format!("r5{r}");
        racks.push(json!({"id": rack}));
        for i in 0..3 {
            nodes.push(
                json!({"id": format!("n5{r}{i}"), "rack": rack, "block": "b5", "map_slots": 1}),
            );
        }
    }
    let pending: Vec<Value> =
        (0..4).map(|i| json!({"id": format!("t{i}"), "job": "train", "kind": "map"})).collect();
    let v = json!({"schema_version": 1,
        "cluster": {"racks": racks, "nodes": nodes},
        "pools": [{"id": "p"}, {"id": "q"}],
        "jobs": [{"id": "train", "pool": "p", "gang": {"min_member": 4},
                  "topology": {"level": "block", "mode": "required",
                               "slice": {"level": "rack", "size": 2}}},
                 {"id": "other", "pool": "q"}],
        "running": running, "pending": pending});
    let mut engines = vec![SolverEngine::Auto, SolverEngine::Flow];
    if cfg!(feature = "mip") {
        engines.push(SolverEngine::Mip);
    }
    for engine in engines {
        let r = place(&v, "lsap_quota", engine).unwrap();
        check_invariants(&v, &r);
        let mut racks: BTreeMap<String, u32> = BTreeMap::new();
        for a in &r.assignments {
            *racks.entry(a.node.as_str()[1..3].to_owned()).or_default() += 1;
        }
        assert_eq!(racks, BTreeMap::from([("50".into(), 2), ("51".into(), 2)]), "{engine:?}");
    }
}
