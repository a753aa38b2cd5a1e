//! `kueue_best_fit`: Kueue's topology-aware scheduling with its default `BestFit` profile
//! (Kueue KEP-2724, "Computing the assignment": domains taken from the one with the most free
//! capacity, the last one the tightest that holds the rest), one workload at a time in queue
//! order, gangs all or nothing, under `lsap_quota`'s pool quotas. The algorithm, its sources
//! and its simplifications: [`crate::tas`].

use super::{Epoch, Placement, Policy};
use crate::error::SolveError;
use crate::tas::{self, Profile};

/// Kueue TAS, `BestFit`.
#[derive(Clone, Copy, Debug, Default)]
pub struct KueueBestFit;

impl Policy for KueueBestFit {
    fn name(&self) -> &'static str {
        "kueue_best_fit"
    }

    /// Gangs start whole or not at all; a required domain is always kept.
    fn gangs(&self) -> bool {
        true
    }

    /// Places as [`tas::place`] with [`Profile::BestFit`].
    ///
    /// # Errors
    /// As [`tas::place`].
    ///
    /// # Examples
    /// A rack-preferred job of 4 tasks on racks with 3, 2 and 1 free one-slot nodes fits no
    /// rack, so it is spread: BestFit takes the rack with 3, then the tightest rack that holds
    /// the last task, the one with 1.
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
    ///   "pending": [{}], "policy": {{"algorithm": "kueue_best_fit"}}}}"#, nodes.join(","),
    ///   (0..4).map(|t| format!(r#"{{"id": "t{t}", "job": "j", "kind": "map"}}"#))
    ///     .collect::<Vec<_>>().join(","));
    /// let req = placer_models::parse_request(body.as_bytes()).unwrap();
    /// let answer = placer_solver::place(&req, &Default::default()).unwrap();
    /// let nodes: Vec<String> = answer.assignments.iter().map(|a| a.node.to_string()).collect();
    /// assert_eq!(nodes, ["r0n0", "r0n1", "r0n2", "r2n0"]);
    /// ```
    fn place(&self, epoch: &Epoch<'_, '_>) -> Result<Placement, SolveError> {
        tas::place(epoch, Profile::BestFit)
    }
}
