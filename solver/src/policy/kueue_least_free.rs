//! `kueue_least_free`: Kueue's topology-aware scheduling with the `LeastFreeCapacity` profile
//! (Kueue KEP-2724, "Computing the assignment": domains taken from the one with the least free
//! capacity; the feature gate `TASProfileLeastFreeCapacity`), one workload at a time in queue
//! order, gangs all or nothing, under `lsap_quota`'s pool quotas. The algorithm, its sources
//! and its simplifications: [`crate::tas`].

use super::{Epoch, Placement, Policy};
use crate::error::SolveError;
use crate::tas::{self, Profile};

/// Kueue TAS, `LeastFreeCapacity`.
#[derive(Clone, Copy, Debug, Default)]
pub struct KueueLeastFree;

impl Policy for KueueLeastFree {
    fn name(&self) -> &'static str {
        "kueue_least_free"
    }

    /// Gangs start whole or not at all; a required domain is always kept.
    fn gangs(&self) -> bool {
        true
    }

    /// Places as [`tas::place`] with [`Profile::LeastFreeCapacity`].
    ///
    /// # Errors
    /// As [`tas::place`].
    ///
    /// # Examples
    /// `kueue_best_fit`'s example under this profile: the job of 4 fits no rack, so the racks
    /// are taken from the least free: 1 task in the rack with 1, 2 in the rack with 2, the last
    /// in the rack with 3.
    /// ```
    /// let racks = [3, 2, 1];
    /// let mut nodes = Vec::new();
    /// for (r, &n) in racks.iter().enumerate() {
    ///     for i in 0..n {
    ///         nodes.push(format!(r#"{{"id": "r{r}n{i}", "rack": "r{r}", "map_slots": 1}}"#));
    ///     }
    /// }
    /// let body = format!(r#"{{"schema_version": 1, "cluster": {{"racks": [{{"id": "r0"}},
    ///     {{"id": "r1"}}, {{"id": "r2"}}], "nodes": [{}]}}, "pools": [{{"id": "p"}}],
    ///   "jobs": [{{"id": "j", "pool": "p", "topology": {{"level": "rack", "mode": "preferred"}}}}],
    ///   "pending": [{}], "policy": {{"algorithm": "kueue_least_free"}}}}"#, nodes.join(","),
    ///   (0..4).map(|t| format!(r#"{{"id": "t{t}", "job": "j", "kind": "map"}}"#))
    ///     .collect::<Vec<_>>().join(","));
    /// let req = placer_models::parse_request(body.as_bytes()).unwrap();
    /// let answer = placer_solver::place(&req, &Default::default()).unwrap();
    /// let mut nodes: Vec<String> = answer.assignments.iter().map(|a| a.node.to_string()).collect();
    /// nodes.sort();
    /// assert_eq!(nodes, ["r0n0", "r1n0", "r1n1", "r2n0"]);
    /// ```
    fn place(&self, epoch: &Epoch<'_, '_>) -> Result<Placement, SolveError> {
        tas::place(epoch, Profile::LeastFreeCapacity)
    }
}
