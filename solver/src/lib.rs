//! placer's pure algorithms (DESIGN.md §The epoch pipeline): the bandwidth-aware locality cost
//! of lsap-sched (Guo, Fox, Zhou, eq. 1), exact rectangular assignment, the greedy dl-sched
//! baseline, and the epoch pipeline [`place`]. No I/O, no clock, no environment: the same
//! function serves the HTTP service, the CLI and the simulator.

mod answer;
pub mod cost;
pub mod cpac;
mod error;
pub mod fair_order;
pub mod fair_shares;
pub mod fairness;
pub mod flow;
pub mod index;
pub mod job_limits;
pub mod lsap;
pub mod matrix;
pub mod network;
pub mod policy;
pub mod preemption;
pub mod quantum;
pub mod schedulable;
pub mod starvation;
pub mod water_filling;

pub use error::SolveError;

use ndarray::Array2;
use placer_models::{Algorithm, PlaceRequest, PlaceResponse, TaskKind};
use policy::heartbeat::Mode;

/// The algorithms this build implements.
pub const AVAILABLE_ALGORITHMS: &str = "fifo, fair, delay, dl_sched, lsap, lsap_fair, lsap_quota";

/// Caller-side options of one `place` call that are not part of the snapshot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlaceOptions {
    /// List waiting tasks one by one instead of aggregated per (job, kind, reason).
    pub explain: bool,
}

/// One epoch: validate and index the snapshot (with running-job limits and CPAC admission),
/// compute fair shares and starvation, assign with `policy.algorithm`, preempt for starved
/// pools (the fair-sharing algorithms `fair`, `delay`, `lsap_fair`), answer.
/// `stats.solve_ms` is left 0 for the caller to fill (the solver has no clock).
///
/// Errors: [`SolveError::Invalid`] for a snapshot that fails validation,
/// [`SolveError::UnsupportedAlgorithm`] / [`SolveError::UnsupportedEngine`] for what this build
/// does not implement, [`SolveError::CostOverflow`] for costs beyond exact integer range.
pub fn place(req: &PlaceRequest, opts: &PlaceOptions) -> Result<PlaceResponse, SolveError> {
    placer_models::validate(req)?;
    let ix = index::Indexed::new(req);
    let model = cost::LocalityCost::new(&ix);
    let shares = fair_shares::compute(&ix);
    let starvation = starvation::Starvation::new(&ix, &shares);
    let engine = req.policy.solver;
    let algorithm = req.policy.algorithm;
    let placement = match algorithm {
        Algorithm::Lsap => policy::lsap::place(&ix, &model, engine)?,
        Algorithm::LsapFair => policy::lsap_fair::place(&ix, &model, engine)?,
        Algorithm::LsapQuota => {
            policy::lsap_quota::place(&ix, &model, &shares, &starvation, engine)?
        }
        Algorithm::DlSched => policy::dl_sched::place(&ix),
        Algorithm::Fifo => policy::heartbeat::place(&ix, &starvation, Mode::Fifo),
        Algorithm::Fair => policy::heartbeat::place(&ix, &starvation, Mode::Fair),
        Algorithm::Delay => policy::heartbeat::place(&ix, &starvation, Mode::Delay),
        other => {
            return Err(SolveError::UnsupportedAlgorithm {
                path: "policy.algorithm".to_owned(),
                algorithm: other.name(),
                available: AVAILABLE_ALGORITHMS,
            })
        }
    };
    let running_after = answer::running_after_placement(&ix, &placement);
    let preempts = matches!(algorithm, Algorithm::Fair | Algorithm::Delay | Algorithm::LsapFair);
    let victims = if preempts {
        preemption::plan(&ix, &shares, &starvation, &running_after)
    } else {
        Vec::new()
    };
    let epoch = answer::Epoch {
        placement: &placement,
        victims: &victims,
        shares: &shares,
        clocks: starvation.clocks_after(&running_after),
        running_after: &running_after,
    };
    Ok(answer::build(&ix, &model, &epoch, opts))
}

/// lsap-sched's dense cost matrix of one kind (pending tasks × free slots in node order), in
/// seconds × α: what `placer export-matrix` writes for a dense solver to check against.
pub fn cost_matrix(req: &PlaceRequest, kind: TaskKind) -> Result<Array2<f64>, SolveError> {
    placer_models::validate(req)?;
    let ix = index::Indexed::new(req);
    let model = cost::LocalityCost::new(&ix);
    Ok(matrix::CostMatrix::new(&ix, &model, kind, false)?.dense(|c| c))
}
