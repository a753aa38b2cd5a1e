//! The one error type of `placer-sim` (`sim/README.md`; the crate style: one `thiserror`
//! enum per crate with structured fields). A job that never finishes is data in the report
//! (`SimReport::stop`), not an error; `Err` is for bad input, a solver failure or a bug.

use placer_solver::SolveError;

/// Why a simulation did not produce a report.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    /// A [`crate::SimConfig`] field is out of its domain.
    #[error("config.{field}: {message}")]
    Config {
        /// The field, as named in `SimConfig` (`epoch_s`, `cluster.nodes`, ...).
        field: String,
        /// What is wrong with it.
        message: String,
    },
    /// A map task names a replica node the simulated cluster does not have.
    #[error("job {job:?} map {map}: replica node {node:?} is not in the cluster")]
    UnknownNode {
        /// The workload's job id.
        job: String,
        /// The map's index within the job.
        map: usize,
        /// The node name.
        node: String,
    },
    /// The workload is malformed (a non-finite time, a duplicate node name, ...).
    #[error("workload {path}: {message}")]
    Workload {
        /// Where, e.g. `jobs[3].maps[0].compute_s` or `topology.racks[1].nodes[2].id`.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// `placer_solver::place` refused the snapshot of an epoch.
    #[error("solver failed at t = {time_s} s: {source}")]
    Solver {
        /// Simulated time of the epoch, s.
        time_s: f64,
        /// The solver's error.
        #[source]
        source: SolveError,
    },
    /// The solver's answer cannot be applied (a task or node the snapshot did not have, a slot
    /// that is not free): a bug in the solver or the simulator.
    #[error("unusable answer at t = {time_s} s: {message}")]
    InvalidAnswer {
        /// Simulated time of the epoch, s.
        time_s: f64,
        /// What was wrong.
        message: String,
    },
    /// An invariant checked under `SimConfig::audit` failed: a bug in the simulator.
    #[error("invariant violated at t = {time_s} s: {message}")]
    Invariant {
        /// Simulated time, s.
        time_s: f64,
        /// Which invariant and where.
        message: String,
    },
}

impl SimError {
    pub(crate) fn config(field: &str, message: impl Into<String>) -> Self {
        Self::Config { field: field.to_owned(), message: message.into() }
    }

    pub(crate) fn workload(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Workload { path: path.into(), message: message.into() }
    }
}
