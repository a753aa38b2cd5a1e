//! Which engine solves an exact problem (docs/architecture.md, "The exact engines": `policy.solver`
//! is `auto`, `flow`, `jv`, `hungarian` or `mip`), and which engines a policy accepts. `auto`
//! is the structured flow, the fastest exact engine of this build (BENCHMARKS.md §Solver
//! speed); `mip` is the MIP reference of the multi-resource policies (RAS, Polo et al. §3.4),
//! present only in builds with the `mip` feature.

use crate::error::SolveError;
use crate::lsap::{hungarian::Hungarian, jv::Jv, DenseSolver};
use placer_models::SolverEngine;

/// Whether this build has the MIP reference (`crate::mip`, the cargo feature `mip`, on by
/// default): without it `policy.solver: mip` is `422 unsupported_solver` for every policy.
pub const MIP_AVAILABLE: bool = cfg!(feature = "mip");

/// Every engine: what a policy whose problems have a dense form accepts (and what a greedy
/// policy, which ignores `policy.solver`, declares).
pub const ANY_ENGINE: &[SolverEngine] =
    &[SolverEngine::Auto, SolverEngine::Flow, SolverEngine::Jv, SolverEngine::Hungarian];

/// The structured flow alone: for problems with side capacities a dense LSAP cannot express
/// (`lsap_quota`'s pools and jobs).
pub const FLOW_ONLY: &[SolverEngine] = &[SolverEngine::Auto, SolverEngine::Flow];

/// What `policy.solver` resolves to.
#[derive(Clone, Copy)]
pub enum EngineChoice {
    /// The structured min-cost flow ([`crate::flow::structured`]).
    Flow,
    /// A dense engine on the full task × slot matrix.
    Dense(&'static dyn DenseSolver),
}

impl EngineChoice {
    /// The engine for `engine` (`auto` → the structured flow).
    pub fn of(engine: SolverEngine) -> Self {
        match engine {
            // `mip` is no assignment engine: the multi-resource policies that accept it solve
            // it themselves, and the pipeline refuses it for every other policy first.
            SolverEngine::Auto | SolverEngine::Flow | SolverEngine::Mip => Self::Flow,
            SolverEngine::Jv => Self::Dense(&Jv),
            SolverEngine::Hungarian => Self::Dense(&Hungarian),
        }
    }
}

/// Whether a policy that accepts `accepted` can run on `engine` in this build: `engine` must
/// be accepted, and `mip` needs [`MIP_AVAILABLE`].
///
/// # Complexity
/// O(|accepted|).
///
/// # Errors
/// [`SolveError::UnsupportedEngine`] at `policy.solver`, listing what the policy accepts in
/// this build.
///
/// # Examples
/// ```
/// use placer_models::SolverEngine;
/// use placer_solver::exact::{check_engine, MIP_AVAILABLE, FLOW_ONLY};
/// assert!(check_engine(FLOW_ONLY, SolverEngine::Flow).is_ok());
/// let err = check_engine(FLOW_ONLY, SolverEngine::Jv).unwrap_err();
/// assert_eq!((err.code(), err.path()), ("unsupported_solver", "policy.solver"));
/// let mip = [SolverEngine::Auto, SolverEngine::Mip];
/// assert_eq!(check_engine(&mip, SolverEngine::Mip).is_ok(), MIP_AVAILABLE);
/// ```
pub fn check_engine(accepted: &[SolverEngine], engine: SolverEngine) -> Result<(), SolveError> {
    let available = |e: &SolverEngine| *e != SolverEngine::Mip || MIP_AVAILABLE;
    if accepted.contains(&engine) && available(&engine) {
        return Ok(());
    }
    let usable: Vec<SolverEngine> = accepted.iter().copied().filter(available).collect();
    Err(SolveError::UnsupportedEngine {
        path: "policy.solver".to_owned(),
        engine: engine.name(),
        available: engine_list(&usable),
    })
}

/// `engines` as a comma-separated list of wire names, for error messages.
pub fn engine_list(engines: &[SolverEngine]) -> String {
    engines.iter().map(|e| e.name()).collect::<Vec<_>>().join(", ")
}
