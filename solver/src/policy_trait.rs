//! The one interface every placement policy implements, the `Policy` trait (name, preempts?,
//! pending bound for the simulator, engines accepted, place(&Epoch) -> Placement). The pipeline,
//! the simulator, the server's errors, the tests and the benches ask a policy these questions
//! instead of matching on algorithm names.

use crate::epoch::Epoch;
use crate::error::SolveError;
use crate::exact::ANY_ENGINE;
use crate::placement::Placement;
use placer_models::SolverEngine;

/// How many pending tasks per job and kind a snapshot must carry for a policy's answer to be
/// the one it would give on the whole queue (the what-if simulator bounds its snapshots by it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Candidates {
    /// At most the free slots of the kind: enough for a greedy policy that ignores fair shares
    /// and takes each job's tasks in queue order.
    FreeSlots,
    /// At most the cluster's slots of the kind: fair shares and demands are exactly those of
    /// the whole queue, and an exact policy sees more candidates than slots.
    Capacity,
}

/// A placement policy.
pub trait Policy: Sync {
    /// The wire name (`policy.algorithm`), e.g. `lsap_quota`.
    fn name(&self) -> &'static str;

    /// Whether the pipeline plans preemptions for starved pools after this policy's placement
    /// (design doc §3.3; FAIR §3.2).
    fn preempts(&self) -> bool {
        false
    }

    /// Whether it is a heartbeat scheduler (FAIR §2, Hadoop 0.20): it hands out free slots one
    /// node at a time as TaskTrackers report, and a node's heartbeat is its only chance to be
    /// given work; a batch policy (lsap-sched) instead solves one epoch over every free slot.
    /// The what-if simulator offers slots accordingly. Default false.
    fn heartbeat(&self) -> bool {
        false
    }

    /// The pending tasks a snapshot must carry for this policy (see [`Candidates`]); by
    /// default the cluster's slots, which every policy can use.
    fn candidates(&self) -> Candidates {
        Candidates::Capacity
    }

    /// Whether it plans a job from all of its input the first time it sees the job
    /// (ShuffleWatcher's SAMP, Fig. 4, at job submission), under the snapshot's `policy`: the
    /// per-job field whose absence marks a job not planned yet. A master should then list every
    /// pending map of a job that lacks it, whatever bound it keeps otherwise, since the plan it
    /// gets back is echoed for the job's life. Default `None`.
    fn plans_from_all_maps(&self, _policy: &placer_models::Policy) -> Option<&'static str> {
        None
    }

    /// Whether it places tasks by the nodes' multi-resource room (`crate::room`) rather than
    /// by slots: RAS's job slots made of resources (Polo et al. §3.1), DRF's demand vectors.
    /// A master (the what-if simulator) then sends nodes with capacities and
    /// `map_slots = reduce_slots = 0` (no slot cap), and tasks with their demands. Default
    /// false.
    fn multi_resource(&self) -> bool {
        false
    }

    /// Whether it honours gangs (`jobs[].gang`: all-or-nothing placement, KEP-4671) and
    /// topology domains (`jobs[].topology`, Kueue's topology-aware scheduling): never
    /// starting a gang below `min_member`, and keeping a required domain. A snapshot with such
    /// a job under a policy without it is refused, `422 unsupported_feature` at the job's
    /// field ([`check_gangs`]). Default false.
    fn gangs(&self) -> bool {
        false
    }

    /// Whether it also honours slices (`jobs[].topology.slice`, Kueue TAS's
    /// `podset-slice-size`): whole slices per domain of the slice level. A policy that honours
    /// gangs but not slices refuses a job with slices, `422 unsupported_feature` at
    /// `jobs[i].topology.slice` ([`check_gangs`]). Default false.
    fn slices(&self) -> bool {
        false
    }

    /// Whether it accepts gangs and topology domains only to ignore them: a baseline that
    /// shows what a gang-unaware placement does (`lsap_quota_no_gang`). Such snapshots are not
    /// refused ([`check_gangs`]), and the pipeline does not hold its answer to the gang and
    /// domain rules afterwards, so it may start part of a gang. Default false.
    fn gang_blind(&self) -> bool {
        false
    }

    /// The knob groups it reads from the `policy` object ([`crate::settings`]), beyond α,
    /// which every policy's answer reads ([`crate::cost::LocalityWeight`]). Default none.
    fn settings(&self) -> &'static [&'static dyn crate::settings::Declared] {
        &[]
    }

    /// The per-job fields it echoes or reports ([`crate::echo`]). Default none.
    fn job_fields(&self) -> &'static [&'static dyn crate::echo::Declared] {
        &[]
    }

    /// The totals it reports in `stats` beyond the common ones, as (wire key, description).
    /// Default none.
    fn stats_fields(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }

    /// The values of `policy.solver` it accepts; by default every engine (a greedy policy
    /// ignores the engine; an exact one whose problems have a dense form runs on any).
    fn engines(&self) -> &'static [SolverEngine] {
        ANY_ENGINE
    }

    /// Places one epoch.
    ///
    /// # Errors
    /// What the exact front door refuses ([`crate::exact::solve()`]): a problem too large
    /// for a dense engine, costs beyond the exact integer range.
    fn place(&self, epoch: &Epoch<'_, '_>) -> Result<Placement, SolveError>;
}

/// Refuses a snapshot whose jobs ask for a gang or a topology domain that `policy` cannot
/// honour ([`Policy::gangs`]).
///
/// # Complexity
/// O(jobs).
///
/// # Errors
/// [`SolveError::UnsupportedFeature`] at the first such job's `jobs[i].gang` (or
/// `jobs[i].topology` when it has no gang); under a policy that honours gangs but not slices,
/// at the first job's `jobs[i].topology.slice`.
///
/// # Examples
/// ```
/// use placer_solver::policy::{by_name, check_gangs};
/// let req = placer_models::parse_request(br#"{"schema_version": 1, "cluster": {},
///   "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p", "gang": {"min_member": 1}}],
///   "pending": [{"id": "t", "job": "j", "kind": "map"}]}"#).unwrap();
/// let (_, fair) = by_name("fair").unwrap();
/// let e = check_gangs(fair, &req).unwrap_err();
/// assert_eq!((e.code(), e.path()), ("unsupported_feature", "jobs[0].gang"));
/// for name in ["lsap_quota", "drf", "ras", "lsap_ras"] {
///     assert!(check_gangs(by_name(name).unwrap().1, &req).is_ok());
/// }
/// ```
pub fn check_gangs(
    policy: &dyn Policy,
    req: &placer_models::PlaceRequest,
) -> Result<(), SolveError> {
    if policy.gang_blind() || (policy.gangs() && policy.slices()) {
        return Ok(());
    }
    if policy.gangs() {
        let sliced = req.jobs.iter().position(|j| j.topology.is_some_and(|t| t.slice.is_some()));
        return match sliced {
            Some(i) => Err(SolveError::UnsupportedFeature {
                path: format!("jobs[{i}].topology.slice"),
                message: format!(
                    "algorithm {:?} does not keep slices whole; use lsap_quota",
                    policy.name()
                ),
            }),
            None => Ok(()),
        };
    }
    for (i, job) in req.jobs.iter().enumerate() {
        let (field, what) = if job.gang.is_some() {
            ("gang", "gang (all-or-nothing) placement")
        } else if job.topology.is_some() {
            ("topology", "topology domains")
        } else {
            continue;
        };
        return Err(SolveError::UnsupportedFeature {
            path: format!("jobs[{i}].{field}"),
            message: format!(
                "algorithm {:?} does not honour {what}; use lsap_quota, or drf, ras or \
                 lsap_ras on multi-resource nodes",
                policy.name()
            ),
        });
    }
    Ok(())
}
