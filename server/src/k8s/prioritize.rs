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
//! Mapping (min–max over the candidates): score(n) = round(10 · (max − cost(n)) / (max −
//! min)), half away from zero; every candidate scores 10 when all costs are equal (a pod
//! without replicas, or every node alike). With the default bandwidths a replica node scores
//! 10, a node in a replica's rack round(10 · (10.737 − 1.074) / 10.737) = 9, another rack 0;
//! when no candidate holds a replica, the replicas' racks score 10 and the others 0.
//! kube-scheduler multiplies the score by the extender's `weight` and by 100 / 10
//! (MaxNodeScore / MaxExtenderPriority) and adds it to its plugins' scores.

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

/// The rack id of a node: its label value, or the node alone. Label values cannot hold ':',
/// so the two kinds never collide.
fn rack_id(node: &str, rack: Option<&str>) -> String {
    match rack {
        Some(rack) => format!("rack:{rack}"),
        None => format!("node:{node}"),
    }
}

/// The locality cost of the pod on each candidate, in seconds, in candidate order.
///
/// # Complexity
/// O((candidates + replicas) · log) to build and index the one-task snapshot, O(replicas) per
/// candidate for its cost.
///
/// # Errors
/// `internal` (500) if the snapshot built here were invalid (a bug).
pub fn costs(args: &Args<'_>, racks: &RackMap, label: &str) -> Result<Vec<f64>, ServerError> {
    let names = args.candidates.names();
    let known: Vec<Option<String>> = match &args.candidates {
        Candidates::Nodes { nodes, .. } => nodes.iter().map(|n| n.rack.map(str::to_owned)).collect(),
        Candidates::Names(names) => racks.racks_of(label, names),
    };
    let mut rack_of: HashMap<&str, Option<String>> = HashMap::new();
    let mut order: Vec<&str> = Vec::new();
    for (name, rack) in names.iter().zip(known) {
        if !rack_of.contains_key(name) {
            rack_of.insert(name, rack);
            order.push(name);
        }
    }
    let elsewhere: Vec<&str> = args
        .pod
        .replicas
        .iter()
        .map(String::as_str)
        .filter(|r| !rack_of.contains_key(r))
        .collect();
    for (name, rack) in elsewhere.iter().zip(racks.racks_of(label, &elsewhere)) {
        rack_of.insert(name, rack);
        order.push(name);
    }
    let rack_ids: Vec<String> =
        order.iter().map(|n| rack_id(n, rack_of.get(n).and_then(|r| r.as_deref()))).collect();
    let distinct: BTreeSet<&str> = rack_ids.iter().map(String::as_str).collect();
    let snapshot = json!({
        "schema_version": 1,
        "cluster": {
            "racks": distinct.iter().map(|r| json!({"id": r})).collect::<Vec<_>>(),
            "nodes": order.iter().zip(&rack_ids)
                .map(|(n, r)| json!({"id": n, "rack": r})).collect::<Vec<_>>(),
        },
        "pools": [{"id": "pool"}],
        "jobs": [{"id": "job", "pool": "pool"}],
        "pending": [{"id": "pod", "job": "job", "kind": "map",
                     "input_bytes": args.pod.input_bytes, "replicas": args.pod.replicas}],
    });
    let bug = |e: String| ServerError::Internal { message: format!("extender snapshot: {e}") };
    let bytes = serde_json::to_vec(&snapshot).map_err(|e| bug(e.to_string()))?;
    let req = placer_models::parse_request(&bytes).map_err(|e| bug(e.to_string()))?;
    placer_models::validate(&req).map_err(|e| bug(e.to_string()))?;
    let ix = Indexed::new(&req);
    let model = LocalityCost::new(&ix);
    let index: HashMap<&str, u32> = order.iter().enumerate().map(|(i, n)| (*n, i as u32)).collect();
    Ok(names.iter().map(|n| index.get(n).map_or(0.0, |&i| model.cost(0, i))).collect())
}

/// Scores 0..=10 from costs (see the module docs for the formula).
///
/// # Complexity
/// O(costs).
pub fn scores(costs: &[f64]) -> Vec<i64> {
    let min = costs.iter().copied().fold(f64::INFINITY, f64::min);
    let max = costs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let spread = max - min;
    costs
        .iter()
        .map(|&c| {
            if spread > 0.0 && spread.is_finite() {
                ((MAX_SCORE as f64 * (max - c) / spread).round() as i64).clamp(0, MAX_SCORE)
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
    let costs = costs(args, racks, label)?;
    let names = args.candidates.names();
    Ok(names.into_iter().zip(scores(&costs)).map(|(host, score)| HostPriority { host, score }).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_max_mapping() {
        let (node, rack, remote) = (0.0, 1.073_741_824, 10.737_418_24);
        assert_eq!(scores(&[node, rack, remote]), [10, 9, 0]);
        assert_eq!(scores(&[rack, remote]), [10, 0]);
        assert_eq!(scores(&[3.0, 3.0]), [10, 10]);
        assert_eq!(scores(&[]), Vec::<i64>::new());
        assert_eq!(scores(&[0.0, 0.5, 0.95, 1.0]), [10, 5, 1, 0]); // 0.5 rounds away from 0
        assert_eq!(scores(&[0.0, 0.25, 1.0]), [10, 8, 0]); // 7.5 → 8
    }
}
