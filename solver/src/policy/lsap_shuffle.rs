//! `lsap_shuffle`, placer's exact shuffle-aware policy: ShuffleWatcher's mechanisms (Ahmad et
//! al. §3: NetSat, NASS, SAMP, SARP) expressed as prices in one exact min-cost flow per slot
//! kind and epoch, under `lsap_quota`'s fair shares (D-optimal pool counts as hard capacities,
//! lsap-fair-sched §4.4's fairness distance; FAIR App. A), on lsap-sched's locality cost (Guo,
//! Fox, Zhou eq. 1).
//!
//! Where ShuffleWatcher fixes an order per offered slot (Fig. 3) and a rack preference per job
//! (Figs. 4, 6), lsap_shuffle prices every (task, rack) once per epoch and lets the exact
//! flow choose ([`crate::shuffle::cost`] has every formula):
//! - a map pays its input read (DLC) plus its expected shuffle, ratio × input bytes towards
//!   the racks where SARP puts its job's reduces (SAMP's intent: the map goes where the
//!   reduces will be, Fig. 5), so of two equally cheap reads the one on the reduces' rack wins;
//! - a reduce pays its real shuffle sources (DLC) plus the shuffle still to come, and a
//!   surcharge beyond SARP's count on a rack (Fig. 6, Fig. 7's 9 : 1);
//! - NetSat's measured utilisation above NWSaturationThreshold raises the price of every byte
//!   crossing that rack's uplink, continuously; reduces earn a credit for the shuffle they
//!   start, so heavy reduces win idle networks and light ones saturated ones (Fig. 3's two
//!   orders as one price, not a switch);
//! - fairness: the pools' counts are `lsap_quota`'s, hard ([`lsap_quota::place_under_quotas`]
//!   with the shuffle-aware model); inside a pool the jobs' shares break ties as there. Users
//!   (the ShuffleWatcher policies' fairness unit) are not a capacity level here; starvation
//!   windows (§3.4) are not needed by an exact answer whose only orders are prices.
//!
//! Exactness: for each kind the answer minimises Σ over placed tasks of (priced cost + offset)
//! among the answers with the D-optimal pool counts (a min-cost maximum flow, property-tested
//! against brute force in `tests/shuffle_properties.rs`). The response's `cost` fields stay
//! lsap-sched's DLC, comparable across policies; the priced objective is internal.
//!
//! Decisions: no delay levels (ShuffleWatcher's SW-fair has none; locality is priced, not
//! waited for), no preemption (as `lsap_quota`), the engine is the structured flow only (the
//! pool capacities have no dense form; the cost model itself runs on every engine). SAMP's
//! decision per job is returned for the master to echo (`jobs[].shuffle_watcher`), so a job's
//! preferred racks and tentative reduces stay those of its submission.

use super::{lsap_quota, Epoch, Placement, Policy};
use crate::error::SolveError;
use crate::exact::FLOW_ONLY;
use crate::settings::Declared;
use crate::shuffle::cost::ShufflePricing;
use crate::shuffle::ShuffleView;
use placer_models::SolverEngine;

/// placer's exact shuffle-aware policy.
#[derive(Clone, Copy, Debug, Default)]
pub struct LsapShuffle;

impl Policy for LsapShuffle {
    fn name(&self) -> &'static str {
        "lsap_shuffle"
    }

    fn settings(&self) -> &'static [&'static dyn Declared] {
        crate::shuffle::SETTINGS
    }

    fn job_fields(&self) -> &'static [&'static dyn crate::echo::Declared] {
        crate::shuffle::JOB_FIELDS
    }

    fn plans_from_all_maps(&self, policy: &placer_models::Policy) -> Option<&'static str> {
        crate::shuffle::samp::plans(policy)
    }

    /// The pool capacities have no dense form.
    fn engines(&self) -> &'static [SolverEngine] {
        FLOW_ONLY
    }

    fn place(&self, epoch: &Epoch<'_, '_>) -> Result<Placement, SolveError> {
        place(epoch)
    }
}

/// Places one epoch by `lsap_shuffle` (module docs): ShuffleWatcher's view of the epoch
/// ([`ShuffleView`]), its prices ([`ShufflePricing`]), then `lsap_quota`'s pool capacities on
/// the priced model: per kind, Σ over placed tasks t of (cost(t, node) + offset(t)) in
/// seconds × α is least among the answers giving each pool its D-optimal count. The answer
/// carries SAMP's decision per job for the master to echo.
///
/// # Complexity
/// [`ShuffleView::new`] + [`ShufflePricing::new`] + [`lsap_quota::place_under_quotas`]: the
/// structured flow on a network with O(Σ (data nodes + listed racks)) task arcs.
///
/// # Errors
/// [`SolveError::CostOverflow`] for prices beyond f64 or the exact integer range,
/// [`SolveError::UnsupportedEngine`] for a dense engine.
///
/// # Examples
/// ShuffleWatcher Fig. 5: two jobs whose blocks are all on both racks, one free map slot on
/// each rack. Every placement reads node-locally, so lsap-sched is indifferent; SAMP sends
/// job 1 to rack r1 and job 2 to r2 (its tentative reduces go there), and the priced flow
/// follows: each job's intermediate data lands where its reduces will run.
/// ```
/// let req = placer_models::parse_request(br#"{"schema_version": 1,
///   "cluster": {"racks": [{"id": "r1"}, {"id": "r2"}],
///     "nodes": [{"id": "a", "rack": "r1", "map_slots": 1},
///               {"id": "b", "rack": "r2", "map_slots": 1}]},
///   "pools": [{"id": "p"}],
///   "jobs": [{"id": "j1", "pool": "p", "reduces_total": 2},
///            {"id": "j2", "pool": "p", "reduces_total": 2}],
///   "pending": [
///     {"id": "j2-m", "job": "j2", "kind": "map", "input_bytes": 64000000,
///      "replicas": ["a", "b"]},
///     {"id": "j1-m", "job": "j1", "kind": "map", "input_bytes": 64000000,
///      "replicas": ["a", "b"]}],
///   "policy": {"algorithm": "lsap_shuffle"}}"#).unwrap();
/// let r = placer_solver::place(&req, &placer_solver::PlaceOptions::default()).unwrap();
/// let placed: Vec<(&str, &str)> =
///     r.assignments.iter().map(|a| (a.task.as_str(), a.node.as_str())).collect();
/// assert_eq!(placed, [("j2-m", "b"), ("j1-m", "a")]);
/// use placer_solver::{echo::reported, shuffle::ShuffleWatcherState};
/// let echo: ShuffleWatcherState = reported(&r.jobs[1]).unwrap();
/// assert_eq!(echo.preferred_map_racks[0].as_str(), "r2");
/// assert_eq!(r.stats.status, placer_models::Status::Optimal);
/// ```
pub fn place(epoch: &Epoch<'_, '_>) -> Result<Placement, SolveError> {
    ShuffleView::check_size(epoch.ix)?;
    let view = ShuffleView::new(epoch.ix);
    let pricing = ShufflePricing::new(epoch.ix, &view)?;
    let (node_of_task, status) =
        lsap_quota::place_under_quotas(epoch, &pricing.model, None, &pricing.offsets)?;
    let mut placement = Placement::new(node_of_task, status);
    placement.set_jobs(&view.state);
    Ok(placement)
}
