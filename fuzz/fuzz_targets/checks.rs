//! The invariants every fuzzed answer must hold (docs/wire-schema.md, "Errors": a snapshot is
//! untrusted input and every malformed one is a 4xx, never a panic), shared by the `place` and
//! `session` targets: only finite numbers, each pending task assigned at most once to a listed
//! node, no node given more tasks of a kind than it has free slots of that kind.

use placer_models::{Algorithm, PlaceRequest, PlaceResponse, TaskKind};
use serde_json::Value;
use std::collections::HashMap;

/// Largest snapshot worth solving here: larger ones only slow the fuzzer down (their bugs show
/// on small snapshots too); the server's own limits bound the real ones.
const MAX_ENTITIES: usize = 200;
/// Largest total of slots (map + reduce + CPAC reducers): the dense policies build a
/// pending × free-slot matrix.
const MAX_SLOTS: u64 = 2_000;
/// Largest total of replica and shuffle-source references.
const MAX_REFS: usize = 2_000;

/// Whether the snapshot exceeds the per-input work cap.
pub fn too_big(r: &PlaceRequest) -> bool {
    let c = &r.cluster;
    let counts = [
        c.racks.len(),
        c.nodes.len(),
        c.network.rack_pairs.len(),
        r.pools.len(),
        r.jobs.len(),
        r.users.len(),
        r.pending.len() + r.running.len(),
    ];
    let slots: u64 = c
        .nodes
        .iter()
        .map(|n| {
            u64::from(n.map_slots)
                + u64::from(n.reduce_slots)
                + u64::from(n.max_reducers.unwrap_or(0))
        })
        .sum();
    let refs: usize = r.pending.iter().map(|t| t.replicas.len() + t.shuffle.len()).sum();
    counts.iter().any(|&n| n > MAX_ENTITIES) || slots > MAX_SLOTS || refs > MAX_REFS
}

/// The answer's invariants; panics (a finding) on the first one broken.
pub fn check(request: &PlaceRequest, response: &PlaceResponse, algorithm: Algorithm) {
    let name = algorithm.name();
    let s = &response.stats;
    for (what, x) in [
        ("objective", s.objective),
        ("locality_cost", s.locality_cost),
        ("fairness_distance", s.fairness_distance),
    ] {
        assert!(x.is_finite(), "{name}: stats.{what} = {x}");
    }
    for a in &response.assignments {
        let c = a.cost;
        for x in [c.total, c.locality, c.fairness, c.aging] {
            assert!(x.is_finite(), "{name}: assignment {:?} has cost {c:?}", a.task);
        }
    }
    // Every number of the answer as JSON: NaN and ±inf serialize as `null`.
    match serde_json::to_value(response) {
        Ok(v) => no_null(&v, "$", name),
        Err(e) => panic!("{name}: the answer does not serialize: {e}"),
    }
    check_slots(request, response, algorithm);
}

/// Fails on a JSON `null` outside the fields documented as nullable (RAS's −∞ utility).
fn no_null(v: &Value, path: &str, name: &str) {
    match v {
        Value::Null => panic!("{name}: null at {path}"),
        Value::Array(items) => {
            for (i, x) in items.iter().enumerate() {
                no_null(x, &format!("{path}[{i}]"), name);
            }
        }
        Value::Object(map) => {
            for (k, x) in map {
                if x.is_null() && (k == "utility" || k == "min_utility") {
                    continue;
                }
                no_null(x, &format!("{path}.{k}"), name);
            }
        }
        Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
}

/// Each assignment names a pending task (once) and a listed node with a free slot of the
/// task's kind left: assigned(node, kind) ≤ slots(node, kind) − running(node, kind). Under the
/// multi-resource policies a slot count of 0 means "no slot cap" (docs/wire-schema.md,
/// `nodes[].resources`), so only non-zero counts are checked there.
fn check_slots(request: &PlaceRequest, response: &PlaceResponse, algorithm: Algorithm) {
    let name = algorithm.name();
    let multi_resource = matches!(algorithm, Algorithm::Ras | Algorithm::Drf | Algorithm::LsapRas);
    let kind_of: HashMap<&str, TaskKind> =
        request.pending.iter().map(|t| (t.id.as_str(), t.kind)).collect();
    let mut used: HashMap<(&str, bool), i64> = HashMap::new();
    for t in &request.running {
        *used.entry((t.node.as_str(), t.kind == TaskKind::Map)).or_default() += 1;
    }
    let mut seen = std::collections::HashSet::new();
    for a in &response.assignments {
        let Some(&kind) = kind_of.get(a.task.as_str()) else {
            panic!("{name}: assignment of {:?}, which is not pending", a.task)
        };
        assert!(seen.insert(a.task.as_str()), "{name}: {:?} assigned twice", a.task);
        *used.entry((a.node.as_str(), kind == TaskKind::Map)).or_default() += 1;
        let listed = request.cluster.nodes.iter().any(|n| n.id == a.node);
        assert!(listed, "{name}: {:?} assigned to unknown node {:?}", a.task, a.node);
    }
    for n in &request.cluster.nodes {
        let map_cap = i64::from(n.map_slots);
        let reduce_cap = i64::from(n.max_reducers.unwrap_or(n.reduce_slots));
        for (is_map, cap) in [(true, map_cap), (false, reduce_cap)] {
            if multi_resource && cap == 0 {
                continue;
            }
            let running = request
                .running
                .iter()
                .filter(|t| t.node == n.id && (t.kind == TaskKind::Map) == is_map);
            let before = i64::try_from(running.count()).unwrap_or(i64::MAX);
            let after = used.get(&(n.id.as_str(), is_map)).copied().unwrap_or(0);
            let assigned = after - before;
            let free = (cap - before).max(0);
            assert!(
                assigned <= free,
                "{name}: node {:?} gets {assigned} {} tasks with {free} free slots",
                n.id,
                if is_map { "map" } else { "reduce" }
            );
        }
    }
}
