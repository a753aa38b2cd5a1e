//! Which engine solves an exact problem (DESIGN.md §The epoch pipeline, step 5: `policy.solver`
//! is `auto`, `flow`, `jv` or `hungarian`), and which engines a policy accepts. `auto` is the
//! structured flow, the fastest exact engine of this build (BENCHMARKS.md §Solver speed).

use crate::lsap::{hungarian::Hungarian, jv::Jv, DenseSolver};
use placer_models::SolverEngine;

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

/// `engines` as a comma-separated list of wire names, for error messages.
pub fn engine_list(engines: &[SolverEngine]) -> String {
    engines.iter().map(|e| e.name()).collect::<Vec<_>>().join(", ")
}
