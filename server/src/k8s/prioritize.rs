//! `POST /k8s/v1/prioritize` (docs/operations/kubernetes-extender.md): each candidate node scored
//! 0..10 by placer's bandwidth-aware locality cost, best = 10.
//!
//! The pod is one map task reading `input_bytes` from its replica nodes; its cost on node n
//! is `placer_solver::LocalityCost::cost` of a one-task snapshot built from the call
//! (lsap-sched eq. 1, `solver/src/cost.rs`): 0 on a replica node, `input_bytes · 8 / (10⁶ ·
//! 1000 Mbit/s)` seconds when a replica is in n's rack, `input_bytes · 8 / (10⁶ · 100 Mbit/s)`
//! across racks (the snapshot defaults of `cluster.network`, α = 1). Racks come from the rack
//! map file when it lists the node ([`super::rack_file`]), else from the rack label of
//! `Nodes`, else from the racks learned from earlier `Nodes` calls ([`super::racks`]); a node
//! of unknown rack is a rack of its own.
//!
//! Mapping: score(n) = round(10 · (1 − cost(n) / worst)), half away from zero, where `worst`
//! is the pod's cost on a node of a rack holding none of its replicas (the largest cost of its
//! row, [`placer_solver::CostRow::max`], with such a rack always in the snapshot); every
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
use placer_solver::Indexed;
use placer_solver::LocalityCost;
use serde_json::json;
use std::collections::{HashMap, HashSet};

/// The highest score (`extenderv1.MaxExtenderPriority`).
pub const MAX_SCORE: i64 = 10;

/// The three nodes of the one-task snapshot (ids with a comma: no `placer.io/replicas` entry
/// is one): a replica holder, a node in its rack, and a node of another rack.
const REPLICA: &str = "placer,replica";
const IN_RACK: &str = "placer,in-rack";
const ELSEWHERE: &str = "placer,elsewhere";

/// The locality cost of the pod on each candidate, in seconds, in candidate order, and its
/// cost on a node of a rack holding none of its replicas (`worst`).
///
/// Under the snapshot defaults every rack has the same bandwidths, so a candidate's cost
/// depends only on its class: a replica holder, a node in a rack holding a replica, or any
/// other node. The one-task snapshot therefore holds one node of each class (the pod reads its
/// block from the first), and each candidate takes the cost of its class. A replica's rack is
/// the rack map file's, else its label as sent (a candidate) or as learned ([`RackMap`]); a
/// candidate sent twice keeps the rack of its first appearance.
///
/// # Complexity
/// O(candidates + replicas) expected; the snapshot is of constant size.
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
        Candidates::Nodes { nodes, .. } => {
            nodes.iter().map(|n| racks.file_rack(n.name).or(n.rack)).collect()
        }
        Candidates::Names(_) => learned_names.iter().map(Option::as_deref).collect(),
    };
    let mut rack_of: HashMap<&str, Option<&str>> = HashMap::with_capacity(names.len());
    for (name, rack) in names.iter().zip(&known) {
        rack_of.entry(name).or_insert(*rack);
    }
    let replicas: HashSet<&str> = args.pod.replicas.iter().map(String::as_str).collect();
    let elsewhere: Vec<&str> =
        args.pod.replicas.iter().map(String::as_str).filter(|r| !rack_of.contains_key(r)).collect();
    let learned = racks.racks_of(label, &elsewhere);
    // The labelled racks holding a replica (a replica of unknown rack is a rack of its own,
    // which no other candidate shares).
    let mut replica_racks: HashSet<&str> = learned.iter().flatten().map(String::as_str).collect();
    replica_racks.extend(replicas.iter().filter_map(|r| rack_of.get(r).copied().flatten()));

    let snapshot = json!({
        "schema_version": 1,
        "cluster": {
            "racks": [{"id": "with-replica"}, {"id": "without"}],
            "nodes": [{"id": REPLICA, "rack": "with-replica"}, {"id": IN_RACK, "rack": "with-replica"},
                      {"id": ELSEWHERE, "rack": "without"}],
        },
        "pools": [{"id": "pool"}],
        "jobs": [{"id": "job", "pool": "pool"}],
        "pending": [{"id": "pod", "job": "job", "kind": "map",
                     "input_bytes": args.pod.input_bytes,
                     "replicas": if replicas.is_empty() { vec![] } else { vec![REPLICA] }}],
    });
    let bug = |e: String| ServerError::Internal { message: format!("extender snapshot: {e}") };
    let bytes = serde_json::to_vec(&snapshot).map_err(|e| bug(e.to_string()))?;
    let req = placer_models::parse_request(&bytes).map_err(|e| bug(e.to_string()))?;
    placer_models::validate(&req).map_err(|e| bug(e.to_string()))?;
    let ix = Indexed::new(&req);
    let model = LocalityCost::new(&ix);
    // Node indices follow the snapshot's order.
    let (local, in_rack, other) = (model.cost(0, 0), model.cost(0, 1), model.cost(0, 2));
    let costs = names
        .iter()
        .map(|name| {
            if replicas.contains(name) {
                local
            } else if rack_of
                .get(name)
                .copied()
                .flatten()
                .is_some_and(|r| replica_racks.contains(r))
            {
                in_rack
            } else {
                other
            }
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
