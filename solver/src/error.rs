//! The one error type of `placer-solver` (docs/wire-schema.md, "Errors"): bad input (400), a valid
//! snapshot that cannot be solved as asked (422), or an infeasible dense matrix. "Task not placed"
//! is never an error: it is data in the response.

use placer_models::ModelError;

/// Why `place` or a dense solve did not produce an answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SolveError {
    /// The snapshot failed validation (HTTP 400).
    #[error(transparent)]
    Invalid(#[from] ModelError),
    /// The algorithm is part of the schema but not implemented by this build (HTTP 422).
    #[error(
        "{path}: algorithm {algorithm:?} is not available in this build (available: {available})"
    )]
    UnsupportedAlgorithm {
        /// Always `policy.algorithm`.
        path: String,
        /// The algorithm asked for.
        algorithm: &'static str,
        /// The algorithms this build implements, comma-separated.
        available: String,
    },
    /// The engine is part of the schema but cannot run the asked algorithm (HTTP 422).
    #[error("{path}: solver {engine:?} cannot run this algorithm (available: {available})")]
    UnsupportedEngine {
        /// Always `policy.solver`.
        path: String,
        /// The engine asked for.
        engine: &'static str,
        /// The engines the asked algorithm accepts, comma-separated.
        available: String,
    },
    /// A job asks for something the asked algorithm cannot honour: a gang (`jobs[].gang`) or
    /// a topology domain (`jobs[].topology`) under a policy without
    /// [`crate::Policy::gangs`] (HTTP 422).
    #[error("{path}: {message}")]
    UnsupportedFeature {
        /// `jobs[i].gang` or `jobs[i].topology`.
        path: String,
        /// What cannot be honoured, and by which algorithm.
        message: String,
    },
    /// A dense assignment problem has no complete assignment: the smaller side cannot be
    /// matched entirely without a forbidden pair.
    #[error("infeasible: {message}")]
    Infeasible {
        /// Which side could not be matched.
        message: String,
    },
    /// A dense matrix entry is not usable (NaN, or −inf).
    #[error("{path}: {message}")]
    InvalidCost {
        /// `[row][col]` of the entry.
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// A problem beyond the size placer builds for an exact engine: a dense matrix, a
    /// shuffle-aware view, the MIP reference's variables (HTTP 422).
    #[error("{path}: problem too large to solve exactly: {message}")]
    ProblemTooLarge {
        /// The field whose size is at fault.
        path: String,
        /// Sizes and limit.
        message: String,
    },
    /// The MIP reference's solver (HiGHS) failed on a valid model (HTTP 422).
    #[error("{path}: the MIP solver failed: {message}")]
    EngineFailed {
        /// Always `policy.solver`.
        path: String,
        /// HiGHS's description.
        message: String,
    },
    /// Costs too large to sum exactly in the solver's integer type (HTTP 422).
    #[error("{path}: costs too large to be summed exactly: {message}")]
    CostOverflow {
        /// The field whose magnitude overflowed.
        path: String,
        /// Details.
        message: String,
    },
}

impl SolveError {
    /// Machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Invalid(e) => e.code(),
            Self::UnsupportedAlgorithm { .. } => "unsupported_algorithm",
            Self::UnsupportedEngine { .. } => "unsupported_solver",
            Self::UnsupportedFeature { .. } => "unsupported_feature",
            Self::Infeasible { .. } => "infeasible",
            Self::InvalidCost { .. } => "invalid_cost",
            Self::CostOverflow { .. } => "cost_overflow",
            Self::ProblemTooLarge { .. } => "problem_too_large",
            Self::EngineFailed { .. } => "solver_failed",
        }
    }

    /// JSON path of the offending field (`$` when the whole input is at fault).
    pub fn path(&self) -> &str {
        match self {
            Self::Invalid(e) => e.path(),
            Self::UnsupportedAlgorithm { path, .. }
            | Self::UnsupportedEngine { path, .. }
            | Self::UnsupportedFeature { path, .. }
            | Self::InvalidCost { path, .. }
            | Self::CostOverflow { path, .. }
            | Self::ProblemTooLarge { path, .. }
            | Self::EngineFailed { path, .. } => path,
            Self::Infeasible { .. } => "$",
        }
    }

    /// True when the input itself is malformed or inconsistent (HTTP 400); false when it is
    /// valid but cannot be solved as asked (HTTP 422).
    pub fn is_invalid_input(&self) -> bool {
        matches!(self, Self::Invalid(_) | Self::InvalidCost { .. })
    }
}
