//! placer's pure algorithms (DESIGN.md §The epoch pipeline): the bandwidth-aware locality cost
//! of lsap-sched (Guo, Fox, Zhou, eq. 1), exact rectangular assignment, the greedy dl-sched
//! baseline, and the epoch pipeline [`place`]. No I/O, no clock, no environment: the same
//! function serves the HTTP service, the CLI and the simulator.

mod answer;
pub mod cost;
mod error;
pub mod fair_shares;
pub mod index;
pub mod lsap;
pub mod matrix;
pub mod network;
pub mod policy;
pub mod quantum;
pub mod schedulable;
pub mod water_filling;

pub use error::SolveError;

use ndarray::Array2;
use placer_models::{Algorithm, PlaceRequest, PlaceResponse, TaskKind};

/// The algorithms this build implements.
pub const AVAILABLE_ALGORITHMS: &str = "lsap, dl_sched";

/// Caller-side options of one `place` call that are not part of the snapshot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlaceOptions {
    /// List waiting tasks one by one instead of aggregated per (job, kind, reason).
    pub explain: bool,
}

/// One epoch: validate and index the snapshot, cost, assign with `policy.algorithm`, answer.
/// `stats.solve_ms` is left 0 for the caller to fill (the solver has no clock).
///
/// Errors: [`SolveError::Invalid`] for a snapshot that fails validation,
/// [`SolveError::UnsupportedAlgorithm`] / [`SolveError::UnsupportedEngine`] for what this build
/// does not implement, [`SolveError::CostOverflow`] for costs beyond exact integer range.
pub fn place(req: &PlaceRequest, opts: &PlaceOptions) -> Result<PlaceResponse, SolveError> {
    placer_models::validate(req)?;
    let ix = index::Indexed::new(req);
    let model = cost::LocalityCost::new(&ix);
    let placement = match req.policy.algorithm {
        Algorithm::Lsap => policy::lsap::place(&ix, &model, req.policy.solver)?,
        Algorithm::DlSched => policy::dl_sched::place(&ix),
        other => {
            return Err(SolveError::UnsupportedAlgorithm {
                path: "policy.algorithm".to_owned(),
                algorithm: other.name(),
                available: AVAILABLE_ALGORITHMS,
            })
        }
    };
    Ok(answer::build(&ix, &model, &placement, opts))
}

/// lsap-sched's dense cost matrix of one kind (pending tasks × free slots in node order), in
/// seconds × α: what `placer export-matrix` writes for a dense solver to check against.
pub fn cost_matrix(req: &PlaceRequest, kind: TaskKind) -> Result<Array2<f64>, SolveError> {
    placer_models::validate(req)?;
    let ix = index::Indexed::new(req);
    let model = cost::LocalityCost::new(&ix);
    Ok(matrix::CostMatrix::new(&ix, &model, kind, false)?.dense(|c| c))
}
