//! Resource mode: what the simulator tells the multi-resource policies (RAS, Polo et al. §3.1:
//! "job slots" made of a TaskTracker's resources; DRF, Ghodsi et al. §4: demand vectors) and
//! how it holds them to it.
//!
//! **Units.** A task's `Demand` is a fraction of one node (`placer_datasets::Demand`: RAS
//! Table 2's shares of a TaskTracker; Alibaba's cpu / memory / GPUs as fractions of the node
//! list's largest capacity of each dimension). The snapshots use the same units, under the
//! resource names `cpu`, `mem` and `io` (`io` is the GPU share for Alibaba): a node's
//! capacity of resource r is its `Capacity` divided by the largest capacity of r over the
//! topology's nodes (per dimension, the scaling `alibaba.rs` applies to the pods), so that a
//! node as large as the largest has 1.0 of each. Every node of a cluster without capacities
//! (synthetic, SLS, Rumen, and the RAS generator's identical TaskTrackers after scaling) has
//! 1.0 of each; so has a node without a capacity in a topology where others state one. A
//! dimension no node has (largest 0) is 0 everywhere.
//!
//! **When.** A workload with demands (some task has a `Demand`) sends every snapshot's nodes
//! with `resources` = {cpu, mem, io} and every pending and running task with its `demand`
//! (a task without one sends none: it takes a slot only, or, on an uncapped node, nothing).
//! A reduce's demand is its one `Demand` in every phase (the workload has no separate
//! shuffle profile; RAS's shuffle I/O per map is not modelled). Under a policy that says it
//! places by resources ([`placer_solver::Policy::multi_resource`]: `ras`, `drf`, `lsap_ras`)
//! the run is *uncapped*: nodes go out with `map_slots = reduce_slots = 0`, which on a node
//! with capacities means no slot cap, and the engine lets a node run more tasks than its
//! configured slots (the solver's room keeps Σ demand ≤ capacity; the audit checks it). Such
//! policies place at epochs: heartbeat offers, which count a node's free slots, are refused
//! for them (`SimError::Config`, field `offers`).
//!
//! **Pending bound when uncapped** (the `Capacity` and `FreeSlots` bounds of
//! [`crate::PendingBound`] count slots, which uncapped nodes do not have): per job and kind
//! at most H tasks, H = Σ over nodes of ⌊capacity_r / d_r⌋ minimised over the resources r
//! with d_r > 0, where d is the componentwise least demand of the job's tasks of that kind
//! (an upper bound on how many of them the cluster could hold at once), at least 1 (a task no
//! node can hold is still shown, to wait with `no_node_fits`); unbounded when one of those
//! tasks has no demand. Maps are then chosen as under slots, with a node's free room for the
//! job, ⌊(capacity_r − held_r) / d_r⌋ minimised over r, standing for its free map slots, and
//! no rack quota. Example: RAS Sort maps (cpu 0.30, mem 0.25, io 0.45) on 20 nodes of 1.0:
//! min(3, 4, 2) = 2 per node, H = 40.
//!
//! O(jobs · kinds · distinct node capacities) once per run; O(1) per task start and end.

use placer_datasets::{Capacity, Topology, Workload};
use placer_models::Amounts;

/// The snapshots' resource names, in `Demand` order (cpu, mem, io).
pub(crate) const NAMES: [&str; 3] = ["cpu", "mem", "io"];

/// The solver's relative tolerance on fitting (`placer_solver::room`), so that e.g. five
/// demands of 0.2 fill 1.0.
const TOLERANCE: f64 = 1e-9;

/// Whether any task of `workload` has a resource demand.
pub(crate) fn has_demands(workload: &Workload) -> bool {
    workload.jobs.iter().any(|j| {
        j.maps.iter().any(|m| m.demand.is_some()) || j.reduces.iter().any(|r| r.demand.is_some())
    })
}

/// `amounts` as the wire's named amounts.
pub(crate) fn amounts(v: [f64; 3]) -> Amounts {
    NAMES.iter().zip(v).map(|(n, x)| ((*n).to_owned(), x)).collect()
}

/// Each node's capacity in demand units (module docs), for the topology's nodes in rack order.
/// Example: nodes of 96 and 128 CPUs, 384 and 768 GiB, 8 and 8 GPUs → (0.75, 0.5, 1) and
/// (1, 1, 1).
pub(crate) fn scaled_capacities(topology: &Topology) -> Vec<[f64; 3]> {
    let caps: Vec<Option<Capacity>> = topology.nodes().map(|(_, n)| n.capacity).collect();
    let max_of = |f: fn(&Capacity) -> f64| caps.iter().flatten().map(f).fold(0.0, f64::max);
    let max = [max_of(|c| c.cpu), max_of(|c| c.mem_mib), max_of(|c| c.gpu)];
    let scale = |v: f64, m: f64| if m > 0.0 { v / m } else { 0.0 };
    caps.iter()
        .map(|c| match c {
            Some(c) => [scale(c.cpu, max[0]), scale(c.mem_mib, max[1]), scale(c.gpu, max[2])],
            None => [1.0; 3],
        })
        .collect()
}

/// How many tasks of demand `d` fit a capacity `c` alone: min over r with d_r > 0 of
/// ⌊(c_r + tolerance) / d_r⌋, clamped at 0; `u64::MAX` when `d` is all 0. Example: c = 1,
/// d = (0.3, 0.25, 0.45) → min(3, 4, 2) = 2.
pub(crate) fn fit_count(c: [f64; 3], d: [f64; 3]) -> u64 {
    let mut k = u64::MAX;
    for (c, d) in c.into_iter().zip(d) {
        if d > 0.0 {
            let n = ((c + TOLERANCE * c.abs().max(1.0)) / d).floor().max(0.0);
            k = k.min(if n >= u64::MAX as f64 { u64::MAX } else { n as u64 });
        }
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use placer_datasets::{NodeSpec, RackSpec};

    #[test]
    fn ras_sort_maps_fit_two_to_a_tasktracker() {
        assert_eq!(fit_count([1.0; 3], [0.30, 0.25, 0.45]), 2);
        // Select: cpu 0.15, mem 0.10, io 0.20 → min(6, 10, 5): five, 5 × 0.2 = 1.0 exactly.
        assert_eq!(fit_count([1.0; 3], [0.15, 0.10, 0.20]), 5);
        assert_eq!(fit_count([1.0; 3], [0.0; 3]), u64::MAX);
        assert_eq!(fit_count([0.5, 1.0, 0.0], [0.1, 0.0, 0.1]), 0);
    }

    #[test]
    fn capacities_scale_to_the_largest_node_per_dimension() {
        let node = |id: &str, capacity| NodeSpec { id: id.into(), capacity, ..NodeSpec::default() };
        let t = Topology {
            racks: vec![RackSpec {
                id: "r".into(),
                nodes: vec![
                    node("a", Some(Capacity { cpu: 96.0, mem_mib: 393_216.0, gpu: 8.0 })),
                    node("b", Some(Capacity { cpu: 128.0, mem_mib: 786_432.0, gpu: 0.0 })),
                    node("c", None),
                ],
            }],
        };
        assert_eq!(scaled_capacities(&t), [[0.75, 0.5, 1.0], [1.0, 1.0, 0.0], [1.0; 3]]);
        // No GPU anywhere: io is 0 on every node.
        let t = Topology {
            racks: vec![RackSpec {
                id: "r".into(),
                nodes: vec![node("a", Some(Capacity { cpu: 2.0, mem_mib: 2048.0, gpu: 0.0 }))],
            }],
        };
        assert_eq!(scaled_capacities(&t), [[1.0, 1.0, 0.0]]);
    }
}
