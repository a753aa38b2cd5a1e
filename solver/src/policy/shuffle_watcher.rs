//! `shuffle_watcher`: ShuffleWatcher on the Fair Scheduler's fairness, SW-fair (Ahmad et al.
//! §3, §5.2): NetSat, NASS (`crate::shuffle::nass`), SAMP and SARP (`crate::shuffle`); the
//! mechanisms can be switched off one by one (`policy.shuffle_watcher`, §5.3). Preemption as
//! `fair`.

use super::{Epoch, Placement, Policy};
use crate::error::SolveError;
use crate::settings::Declared;
use crate::shuffle::nass;

/// SW-fair.
#[derive(Clone, Copy, Debug, Default)]
pub struct ShuffleWatcher;

impl Policy for ShuffleWatcher {
    fn name(&self) -> &'static str {
        "shuffle_watcher"
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
        Ok(nass::place(epoch.ix, epoch.starvation, false))
    }
}
