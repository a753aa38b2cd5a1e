//! `lsap_quota_no_gang`: a gang-unaware baseline, `lsap_quota` (lsap-sched's exact locality
//! assignment, Guo, Fox, Zhou §3.2, under fair shares as hard pool capacities) placing every
//! task as if no job had a `gang` (KEP-4671's all-or-nothing PodGroup) or a `topology` rule
//! (Kueue's `podset-required-topology` / `podset-preferred-topology`).
//!
//! It accepts such snapshots ([`Policy::gang_blind`]) and its answer is not held to the rules
//! afterwards, so it may start part of a gang or spread a rack-required job over racks: that
//! is the point of the baseline. Against it, `lsap_quota` shows what keeping the rules costs
//! in placements and locality, and `kueue_best_fit` / `kueue_least_free` what placing one
//! workload at a time costs. Without gangs and topology rules its answers are `lsap_quota`'s,
//! byte for byte. Engines: `auto` and `flow` (the gang MIP is `lsap_quota`'s).

use super::{Epoch, Placement, Policy};
use crate::echo::Field;
use crate::error::SolveError;
use crate::settings::{Declared, Knobs};
use placer_models::SolverEngine;

/// `lsap_quota` blind to gangs and topology domains.
#[derive(Clone, Copy, Debug, Default)]
pub struct LsapQuotaNoGang;

impl Policy for LsapQuotaNoGang {
    fn name(&self) -> &'static str {
        "lsap_quota_no_gang"
    }

    fn settings(&self) -> &'static [&'static dyn Declared] {
        &[
            &Knobs::<crate::delay_scheduling::Heartbeat>::OF,
            &Knobs::<crate::delay_scheduling::DelayWaits>::OF,
        ]
    }

    fn job_fields(&self) -> &'static [&'static dyn crate::echo::Declared] {
        &[&Field::<crate::delay_scheduling::DelayState>::OF]
    }

    fn engines(&self) -> &'static [SolverEngine] {
        crate::exact::FLOW_ONLY
    }

    /// Accepts gangs and domains and ignores them.
    fn gang_blind(&self) -> bool {
        true
    }

    /// Places as `lsap_quota` does without gangs and domains.
    ///
    /// # Errors
    /// As `lsap_quota`'s structured flow: costs beyond the exact integer range.
    ///
    /// # Examples
    /// Two one-slot nodes and a gang of 3: `lsap_quota` starts none of it (`gang_incomplete`),
    /// the baseline starts two.
    /// ```
    /// let snapshot = |algorithm: &str| format!(r#"{{"schema_version": 1, "cluster": {{
    ///     "racks": [{{"id": "r"}}], "nodes": [{{"id": "a", "rack": "r", "map_slots": 1}},
    ///                                     {{"id": "b", "rack": "r", "map_slots": 1}}]}},
    ///   "pools": [{{"id": "p"}}], "jobs": [{{"id": "g", "pool": "p", "gang": {{"min_member": 3}}}}],
    ///   "pending": [{{"id": "t0", "job": "g", "kind": "map"}}, {{"id": "t1", "job": "g", "kind": "map"}},
    ///               {{"id": "t2", "job": "g", "kind": "map"}}],
    ///   "policy": {{"algorithm": "{algorithm}"}}}}"#);
    /// let placed = |algorithm: &str| {
    ///     let req = placer_models::parse_request(snapshot(algorithm).as_bytes()).unwrap();
    ///     placer_solver::place(&req, &Default::default()).unwrap().assignments.len()
    /// };
    /// assert_eq!(placed("lsap_quota"), 0);
    /// assert_eq!(placed("lsap_quota_no_gang"), 2);
    /// ```
    fn place(&self, epoch: &Epoch<'_, '_>) -> Result<Placement, SolveError> {
        super::lsap_quota::place(epoch, false)
    }
}
