//! Running what-if replays (`sim/README.md`: "replays a workload through a policy
//! on a simulated cluster, calling the same `solver::place` each epoch"): one run, one run
//! observed by a progress callback, or many runs in parallel.

use crate::engine;
use crate::{SimConfig, SimError, SimReport};
use placer_datasets::Workload;
use rayon::prelude::*;

/// Runs `workload` once under `config`. Deterministic: the same inputs give a report equal
/// under [`SimReport::same_outcome`] (only `timing` differs).
///
/// Errors: [`SimError::Config`] for a bad config field, [`SimError::Workload`] /
/// [`SimError::UnknownNode`] for a malformed workload, [`SimError::Solver`] when the solver
/// refuses an epoch's snapshot, [`SimError::InvalidAnswer`] / [`SimError::Invariant`] for bugs.
pub fn simulate(workload: &Workload, config: &SimConfig) -> Result<SimReport, SimError> {
    engine::Engine::new(workload, config)?.run()
}

/// [`simulate`], calling `on_job_done` once each time a job finishes (for a progress bar; it
/// cannot change the run).
pub fn simulate_observed(
    workload: &Workload,
    config: &SimConfig,
    on_job_done: &(dyn Fn() + Sync),
) -> Result<SimReport, SimError> {
    let mut engine = engine::Engine::new(workload, config)?;
    engine.world.on_job_done = Some(on_job_done);
    engine.run()
}

/// Runs `workload` under every config, in parallel on rayon's pool; results in config order.
pub fn simulate_many(
    workload: &Workload,
    configs: &[SimConfig],
) -> Vec<Result<SimReport, SimError>> {
    configs.par_iter().map(|config| simulate(workload, config)).collect()
}
