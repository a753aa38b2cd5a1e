//! `shuffle_watcher_relaxed`: ShuffleWatcher with delay scheduling's relaxed fairness, SW-relaxed
//! (Ahmad et al. §5.2, compared against Delay Scheduler): NASS's local and remote map categories
//! wait for locality as FAIR Alg. 1 does (`crate::shuffle::nass`). Preemption as `delay`.

use super::{Epoch, Placement, Policy};
use crate::error::SolveError;
use crate::settings::Declared;
use crate::shuffle::nass;

/// SW-relaxed.
#[derive(Clone, Copy, Debug, Default)]
pub struct ShuffleWatcherRelaxed;

impl Policy for ShuffleWatcherRelaxed {
    fn name(&self) -> &'static str {
        "shuffle_watcher_relaxed"
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

    fn heartbeat(&self) -> bool {
        true
    }

    fn preempts(&self) -> bool {
        true
    }

    fn place(&self, epoch: &Epoch<'_, '_>) -> Result<Placement, SolveError> {
        crate::shuffle::ShuffleView::check_size(epoch.ix)?;
        Ok(nass::place(epoch.ix, epoch.starvation, true))
    }
}
