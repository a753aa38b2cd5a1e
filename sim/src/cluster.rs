//! The simulated cluster (`sim/README.md`; FAIR, Zaharia et al. §2: nodes with
//! map and reduce slots in racks): built from the workload's topology or from N nodes in racks
//! of K, with dense indices (in rack order); the trace's own names are kept for lookups and
//! reports (the Master writes the snapshot's ids, `master/ids.rs`). With a workload that has
//! demands, every node also carries its capacity in the demands' units, and under a
//! multi-resource policy it runs without slot caps (`resources.rs`). O(nodes) to build.

use crate::config::{ClusterSource, SimConfig};
use crate::error::SimError;
use placer_datasets::Workload;

use placer_solver::PolicyOf;
use std::collections::HashMap;

/// Racks and nodes with dense indices.
#[derive(Clone, Debug)]
pub(crate) struct SimCluster {
    /// Node names (the trace's, or `n{i}` for a synthetic cluster).
    pub names: Vec<String>,
    /// Rack index of each node.
    pub rack_of: Vec<usize>,
    /// Node indices of each rack.
    pub nodes_of_rack: Vec<Vec<usize>>,
    /// Map slots per node.
    pub map_slots: Vec<u32>,
    /// Reduce slots per node.
    pub reduce_slots: Vec<u32>,
    /// Σ map slots.
    pub total_map_slots: u64,
    /// Σ reduce slots.
    pub total_reduce_slots: u64,
    /// Capacity per node (cpu, mem, io) in the units of the tasks' demands (`resources.rs`).
    pub capacity: Vec<[f64; 3]>,
    /// The run places by resources: nodes are sent with `map_slots = reduce_slots = 0` (no
    /// slot cap) and may run more tasks than `map_slots` / `reduce_slots` (`resources.rs`).
    pub uncapped: bool,
    /// Node name → index.
    by_name: HashMap<String, usize>,
}

impl SimCluster {
    /// The cluster `config.cluster` describes for `workload`.
    pub fn build(workload: &Workload, config: &SimConfig) -> Result<Self, SimError> {
        let mut names = Vec::new();
        let mut rack_of = Vec::new();
        let mut map_slots = Vec::new();
        let mut reduce_slots = Vec::new();
        let capacity;
        let racks = match &config.cluster {
            ClusterSource::Workload { map_slots: dm, reduce_slots: dr } => {
                let Some(topology) = &workload.topology else {
                    return Err(SimError::config(
                        "cluster",
                        "the workload has no topology; give a synthetic cluster",
                    ));
                };
                for (r, rack) in topology.racks.iter().enumerate() {
                    for node in &rack.nodes {
                        names.push(node.id.clone());
                        rack_of.push(r);
                        map_slots.push(node.map_slots.unwrap_or(*dm));
                        reduce_slots.push(node.reduce_slots.unwrap_or(*dr));
                    }
                }
                capacity = crate::resources::scaled_capacities(topology);
                topology.racks.len()
            }
            ClusterSource::Synthetic { nodes, rack_size, map_slots: m, reduce_slots: r } => {
                let rack_size = (*rack_size).max(1);
                for n in 0..*nodes {
                    names.push(format!("n{n}"));
                    rack_of.push(n / rack_size);
                    map_slots.push(*m);
                    reduce_slots.push(*r);
                }
                capacity = vec![[1.0; 3]; *nodes];
                nodes.div_ceil(rack_size)
            }
        };
        let demands = crate::resources::has_demands(workload);
        let uncapped =
            demands && config.policy.algorithm.policy().is_some_and(|p| p.multi_resource());
        let mut by_name = HashMap::with_capacity(names.len());
        for (i, name) in names.iter().enumerate() {
            if name.is_empty() {
                return Err(SimError::workload(format!("topology node {i}"), "empty node name"));
            }
            if by_name.insert(name.clone(), i).is_some() {
                return Err(SimError::workload(
                    format!("topology node {i}"),
                    format!("duplicate node name {name:?}"),
                ));
            }
        }
        let mut nodes_of_rack = vec![Vec::new(); racks];
        for (i, &r) in rack_of.iter().enumerate() {
            nodes_of_rack[r].push(i);
        }
        let total_map_slots = map_slots.iter().map(|&s| u64::from(s)).sum();
        let total_reduce_slots = reduce_slots.iter().map(|&s| u64::from(s)).sum();
        Ok(Self {
            names,
            rack_of,
            nodes_of_rack,
            map_slots,
            reduce_slots,
            total_map_slots,
            total_reduce_slots,
            capacity,
            uncapped,
            by_name,
        })
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// The index of a node name.
    pub fn node(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_racks_of_k_last_one_smaller() {
        // 5 nodes in racks of 2: r0 = {n0, n1}, r1 = {n2, n3}, r2 = {n4}.
        let cfg = SimConfig {
            cluster: ClusterSource::Synthetic {
                nodes: 5,
                rack_size: 2,
                map_slots: 3,
                reduce_slots: 1,
            },
            ..SimConfig::default()
        };
        let c = SimCluster::build(&Workload::default(), &cfg).unwrap();
        assert_eq!(c.nodes_of_rack, vec![vec![0, 1], vec![2, 3], vec![4]]);
        assert_eq!(c.total_map_slots, 15);
        assert_eq!(c.total_reduce_slots, 5);
        assert_eq!(c.node("n4"), Some(4));
        assert_eq!(c.rack_of[4], 2);
    }

    #[test]
    fn workload_without_topology_is_a_config_error() {
        let err = SimCluster::build(&Workload::default(), &SimConfig::default()).unwrap_err();
        assert!(matches!(err, SimError::Config { ref field, .. } if field == "cluster"));
    }
}
