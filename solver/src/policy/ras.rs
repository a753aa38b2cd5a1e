//! `ras`: the Resource-aware Adaptive Scheduler (Polo et al., "Resource-aware Adaptive
//! Scheduling for MapReduce Clusters", Middleware 2011): job slots made of resources, the
//! utility of eqs. 1–3 from completion-time goals, and Algorithm 1 ([`crate::ras`]). With
//! `policy.solver = "mip"` the same epoch is solved exactly ([`crate::mip`]).
//!
//! Every node hosts any mix of tasks whose demands fit its `resources` (and its slots when
//! non-zero, `crate::room`); each job's utility after the answer is reported in
//! `jobs[].utility` and the least in `stats.min_utility`. Locality only picks among a job's
//! equivalent tasks ([`crate::ras::realise`]); `lsap_ras` optimises it.
//!
//! Gangs and topology domains: [`crate::gang::rounds`] solves the epoch in rounds, each on
//! the problem narrowed to the round's scope (gangs left out, topology jobs' classes kept to
//! their domain's nodes, [`RasProblem::scope`]); a gang RAS started below `min_member` is left
//! out of the next round (`gang_incomplete`). Utilities are still those of every job.

use super::{Epoch, Placement, Policy};
use crate::echo::Field;
use crate::error::SolveError;
use crate::ras::{realise, Counts, RasProblem};
use placer_models::{SolverEngine, Status};

/// RAS.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ras;

/// `auto` (Algorithm 1) and, in builds with the `mip` feature, `mip`.
#[cfg(feature = "mip")]
pub const RAS_ENGINES: &[SolverEngine] = &[SolverEngine::Auto, SolverEngine::Mip];
/// `auto` (Algorithm 1); this build has no MIP (the `mip` feature is off).
#[cfg(not(feature = "mip"))]
pub const RAS_ENGINES: &[SolverEngine] = &[SolverEngine::Auto];

impl Policy for Ras {
    fn name(&self) -> &'static str {
        "ras"
    }

    fn stats_fields(&self) -> &'static [(&'static str, &'static str)] {
        crate::ras::report::STATS_FIELDS
    }

    fn job_fields(&self) -> &'static [&'static dyn crate::echo::Declared] {
        &[&Field::<crate::ras::report::JobUtility>::OF]
    }

    fn multi_resource(&self) -> bool {
        true
    }

    fn engines(&self) -> &'static [SolverEngine] {
        RAS_ENGINES
    }

    /// Gangs and topology domains through [`crate::gang::rounds`]: each round solves RAS's
    /// problem narrowed to the round's scope ([`RasProblem::scope`]), on either engine.
    fn gangs(&self) -> bool {
        true
    }

    fn place(&self, epoch: &Epoch<'_, '_>) -> Result<Placement, SolveError> {
        crate::gang::rounds::place(epoch.ix, |scope| {
            let (problem, active) = scoped_problem(epoch.ix, scope);
            let (counts, status) = counts_by_deadline(&problem, epoch)?;
            let mut placement =
                Placement::new(realise::tasks_of(epoch.ix, &problem, &counts), status);
            placement.task_reason = realise::reasons(&problem, &placement.node_of_task);
            report(&mut placement, problem, active, &counts);
            Ok(placement)
        })
    }
}

/// RAS's problem of `ix` narrowed to `scope` ([`RasProblem::scope`]), with every job's
/// `active` flag before the narrowing (what the report gives a utility to).
pub(crate) fn scoped_problem(
    ix: &crate::index::Indexed<'_>,
    scope: &crate::gang::Scope,
) -> (RasProblem, Vec<bool>) {
    let mut problem = RasProblem::of(ix);
    let active = problem.active.clone();
    problem.scope(scope);
    (problem, active)
}

/// Reports each job's utility after `counts` (`jobs[].utility`, `stats.min_utility`), a job
/// left out of the round included (`active`: the flags before the narrowing).
pub(crate) fn report(
    placement: &mut Placement,
    mut problem: RasProblem,
    active: Vec<bool>,
    counts: &Counts,
) {
    problem.active = active;
    crate::ras::report::report(placement, &problem.utilities(counts));
}

/// RAS's counts for `problem`: Algorithm 1 (`heuristic`), or the MIP's optimum with `mip`.
///
/// # Errors
/// What the MIP refuses ([`SolveError::ProblemTooLarge`]).
pub fn counts(problem: &RasProblem, engine: SolverEngine) -> Result<(Counts, Status), SolveError> {
    match engine {
        SolverEngine::Mip => mip(problem),
        _ => Ok((crate::ras::algorithm::place(problem), Status::Heuristic)),
    }
}

/// [`counts`] under the caller's deadline: the MIP (whose own limit is a node budget) is
/// skipped for Algorithm 1 when `epoch.cancel` is already cancelled, `time_limited`. One poll.
///
/// # Errors
/// As [`counts`].
pub(crate) fn counts_by_deadline(
    problem: &RasProblem,
    epoch: &Epoch<'_, '_>,
) -> Result<(Counts, Status), SolveError> {
    if epoch.engine == SolverEngine::Mip && crate::cancel::is_cut(epoch.cancel) {
        return Ok((crate::ras::algorithm::place(problem), Status::TimeLimited));
    }
    counts(problem, epoch.engine)
}

/// Branch-and-bound nodes per stage of a served MIP: a deterministic budget, so that no
/// snapshot holds a worker for long (an answer cut short by it says `time_limited`). Small
/// instances, the reference's purpose, finish far below it.
pub const MIP_NODE_BUDGET: u32 = 5_000;

#[cfg(feature = "mip")]
fn mip(problem: &RasProblem) -> Result<(Counts, Status), SolveError> {
    let limits = crate::mip::MipLimits {
        max_nodes: Some(MIP_NODE_BUDGET),
        ..crate::mip::MipLimits::default()
    };
    let solution = crate::mip::solve(problem, limits)?;
    Ok((solution.counts, solution.status))
}

#[cfg(not(feature = "mip"))]
fn mip(_: &RasProblem) -> Result<(Counts, Status), SolveError> {
    Err(SolveError::UnsupportedEngine {
        path: "policy.solver".to_owned(),
        engine: "mip",
        available: "auto (this build has no MIP: build with the `mip` feature)".to_owned(),
    })
}
