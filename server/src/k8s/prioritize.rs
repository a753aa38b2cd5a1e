//! `POST /k8s/v1/prioritize` (issue 17 item 5): each candidate node scored 0..10 by placer's
//! bandwidth-aware locality cost, best = 10.
//!
//! The pod is one map task reading `input_bytes` from its replica nodes; its cost on node n
//! is `placer_solver::cost::LocalityCost::cost` of a one-task snapshot built from the call
//! (lsap-sched eq. 1, DESIGN.md §Costs): 0 on a replica node, `input_bytes · 8 / (10⁶ ·
//! 1000 Mbit/s)` seconds when a replica is in n's rack, `input_bytes · 8 / (10⁶ · 100 Mbit/s)`
//! across racks (the snapshot defaults of `cluster.network`, α = 1). Racks come from the rack
//! label of `Nodes`, else from the racks learned from earlier `Nodes` calls
//! ([`super::racks`]); a node of unknown rack is a rack of its own.
//!
//! Mapping: score(n) = round(10 · (1 − cost(n) / worst)), half away from zero, where `worst`
//! is the pod's cost on a node of a rack holding none of its replicas (the largest cost of its
//! row, [`placer_solver::cost::CostRow::max`], with such a rack always in the snapshot); every
//! node scores 10 when `worst` is 0 (no replicas, or no input bytes). The score is affine in
//! the seconds of transfer a node saves, the same for every call: with the default bandwidths
//! a replica node scores 10, a node in a replica's rack round(10 · (1 − 1.074 / 10.737)) = 9,
//! another rack 0, whichever nodes kube-scheduler offers. kube-scheduler multiplies the score
//! by the extender's `weight` and by 100 / 10 (MaxNodeScore / MaxExtenderPriority) and adds it
//! to its plugins' scores, so only differences between nodes matter.

use super::args::{Args, Candidates};
use super::racks::RackMap;
use super::wire::HostPriority;
use crate::error::ServerError;
use placer_solver::cost::LocalityCost;
use placer_solver::index::Indexed;
use serde_json::json;
use std::collections::{BTreeSet, HashMap};

/// The highest score (`extenderv1.MaxExtenderPriority`).
pub const MAX_SCORE: i64 = 10;

/// A node's rack: the value of its rack label, or the node alone when it has none. Label
/// values cannot hold ':', so the two kinds never collide in [`RackKey::id`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum RackKey<'a> {
    /// A rack label's value.
    Label(&'a str),
    /// A node of unknown rack, a rack of its own.
    Node(&'a str),
}

impl<'a> RackKey<'a> {
    fn of(node: &'a str, rack: Option<&'a str>) -> Self {
        rack.map_or(RackKey::Node(node), RackKey::Label)
    }

    /// The rack's id in the one-task snapshot.
    fn id(self) -> String {
        match self {
            RackKey::Label(rack) => format!("rack:{rack}"),
            RackKey::Node(node) => format!("node:{node}"),
        }
    }
}

/// A node id that no `placer.io/replicas` entry can be (it holds a comma), in a rack of its
/// own: a node of a rack without replicas, whose cost is the pod's worst.
const ELSEWHERE: &str = "placer,elsewhere";

/// The id of the node standing for every non-replica node of the `i`-th replica rack (holds
/// a comma, so no replica has it).
fn stand_in(i: usize) -> String {
    format!("placer,in-rack,{i}")
}

/// The locality cost of the pod on each candidate, in seconds, in candidate order, and its
/// cost on a node of a rack holding none of its replicas (`worst`).
///
/// A candidate's cost depends only on whether it holds a replica and, if not, on its rack:
/// so the one-task snapshot holds the replica nodes in their racks, one stand-in node per
/// replica rack and one node in a rack of its own ([`ELSEWHERE`]), and each candidate takes the
/// cost of the node it stands with. The snapshot is O(replicas) whatever the candidates; a
/// candidate sent twice keeps the rack of its first appearance.
///
/// # Complexity
/// O(candidates) expected for the lookups, O(replicas · log) to build and index the snapshot.
///
/// # Errors
/// `internal` (500) if the snapshot built here were invalid (a bug).
pub fn costs(
    args: &Args<'_>,
    racks: &RackMap,
    label: &str,
) -> Result<(Vec<f64>, f64), ServerError> {
    let names = args.candidates.names();
    let learned_names: Vec<Option<String>> = match &args.candidates {
        Candidates::Nodes { .. } => Vec::new(),
        Candidates::Names(names) => racks.racks_of(label, names),
    };
    let known: Vec<Option<&str>> = match &args.candidates {
        Candidates::Nodes { nodes, .. } => nodes.iter().map(|n| n.rack).collect(),
        Candidates::Names(_) => learned_names.iter().map(Option::as_deref).collect(),
    };
    let mut rack_of: HashMap<&str, Option<&str>> = HashMap::with_capacity(names.len());
    for (name, rack) in names.iter().zip(&known) {
        rack_of.entry(name).or_insert(*rack);
    }
    let replicas: Vec<&str> = args.pod.replicas.iter().map(String::as_str).collect();
    let elsewhere: Vec<&str> =
        replicas.iter().copied().filter(|r| !rack_of.contains_key(r)).collect();
    let elsewhere_racks = racks.racks_of(label, &elsewhere);
    let mut replica_rack: HashMap<&str, RackKey<'_>> = HashMap::with_capacity(replicas.len());
    for (name, rack) in elsewhere.iter().zip(&elsewhere_racks) {
        replica_rack.insert(name, RackKey::of(name, rack.as_deref()));
    }
    for name in &replicas {
        if let Some(rack) = rack_of.get(name) {
            replica_rack.insert(name, RackKey::of(name, *rack));
        }
    }
    // Replica racks in first-seen order, each with its stand-in.
    let mut stand_ins: HashMap<RackKey<'_>, usize> = HashMap::new();
    let mut order: Vec<RackKey<'_>> = Vec::new();
    for name in &replicas {
        let rack = replica_rack.get(name).copied().unwrap_or(RackKey::Node(name));
        if !stand_ins.contains_key(&rack) {
            stand_ins.insert(rack, order.len());
            order.push(rack);
        }
    }
    let elsewhere_rack = RackKey::Node(ELSEWHERE).id();
    let mut nodes: Vec<serde_json::Value> = replicas
        .iter()
        .map(|n| {
            let rack = replica_rack.get(n).copied().unwrap_or(RackKey::Node(n));
            json!({"id": n, "rack": rack.id()})
        })
        .collect();
    nodes.extend(order.iter().enumerate().map(|(i, r)| json!({"id": stand_in(i), "rack": r.id()})));
    nodes.push(json!({"id": ELSEWHERE, "rack": elsewhere_rack}));
    let mut all_racks: BTreeSet<String> = order.iter().map(|r| r.id()).collect();
    all_racks.insert(elsewhere_rack);
    let snapshot = json!({
        "schema_version": 1,
        "cluster": {
            "racks": all_racks.iter().map(|r| json!({"id": r})).collect::<Vec<_>>(),
            "nodes": nodes,
        },
        "pools": [{"id": "pool"}],
        "jobs": [{"id": "job", "pool": "pool"}],
        "pending": [{"id": "pod", "job": "job", "kind": "map",
                     "input_bytes": args.pod.input_bytes, "replicas": replicas}],
    });
    let bug = |e: String| ServerError::Internal { message: format!("extender snapshot: {e}") };
    let bytes = serde_json::to_vec(&snapshot).map_err(|e| bug(e.to_string()))?;
    let req = placer_models::parse_request(&bytes).map_err(|e| bug(e.to_string()))?;
    placer_models::validate(&req).map_err(|e| bug(e.to_string()))?;
    let ix = Indexed::new(&req);
    let model = LocalityCost::new(&ix);
    // Node indices follow the snapshot's order: replicas, stand-ins, then ELSEWHERE.
    let replica_cost: HashMap<&str, f64> =
        replicas.iter().enumerate().map(|(i, n)| (*n, model.cost(0, i as u32))).collect();
    let in_rack = |i: usize| model.cost(0, (replicas.len() + i) as u32);
    let elsewhere_cost = model.cost(0, (replicas.len() + order.len()) as u32);
    let costs = names
        .iter()
        .map(|name| {
            if let Some(&cost) = replica_cost.get(name) {
                return cost;
            }
            let rack = RackKey::of(name, rack_of.get(name).copied().flatten());
            stand_ins.get(&rack).map_or(elsewhere_cost, |&i| in_rack(i))
        })
        .collect();
    Ok((costs, model.row(0).max()))
}

/// Scores 0..=10 from costs and the pod's `worst` cost (see the module docs).
///
/// # Complexity
/// O(costs).
pub fn scores(costs: &[f64], worst: f64) -> Vec<i64> {
    costs
        .iter()
        .map(|&c| {
            if worst > 0.0 && worst.is_finite() {
                ((MAX_SCORE as f64 * (1.0 - c / worst)).round() as i64).clamp(0, MAX_SCORE)
            } else {
                MAX_SCORE
            }
        })
        .collect()
}

/// The `HostPriorityList` for `args`, in candidate order.
///
/// # Errors
/// As [`costs`].
pub fn prioritize<'v>(
    args: &'v Args<'v>,
    racks: &RackMap,
    label: &str,
) -> Result<Vec<HostPriority<'v>>, ServerError> {
    let (costs, worst) = costs(args, racks, label)?;
    let names = args.candidates.names();
    let scores = scores(&costs, worst);
    Ok(names.into_iter().zip(scores).map(|(host, score)| HostPriority { host, score }).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn affine_mapping() {
        let (node, rack, remote) = (0.0, 1.073_741_824, 10.737_418_24);
        assert_eq!(scores(&[node, rack, remote], remote), [10, 9, 0]);
        assert_eq!(scores(&[rack, remote], remote), [9, 0]);
        assert_eq!(scores(&[rack, rack], remote), [9, 9]);
        assert_eq!(scores(&[0.0, 0.0], 0.0), [10, 10]);
        assert_eq!(scores(&[], 1.0), Vec::<i64>::new());
        assert_eq!(scores(&[0.5, 0.25, 0.95, 1.0], 1.0), [5, 8, 1, 0]); // halves away from 0
    }
}
