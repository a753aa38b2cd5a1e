//! `fair`: the Hadoop Fair Scheduler (design doc §4.4; FAIR §3): pools by need (below min
//! share first, then running / weight), jobs inside a pool by its mode, the head job's closest
//! map for each offered slot (`crate::fair::heartbeat`); min-share and fair-share preemption for
//! starved pools (design doc §3.3).

use super::{Epoch, Placement, Policy};
use crate::error::SolveError;
use crate::fair::heartbeat::{self, Mode};
use crate::settings::{Declared, Knobs};

/// The Fair Scheduler without delay scheduling.
#[derive(Clone, Copy, Debug, Default)]
pub struct Fair;

impl Policy for Fair {
    fn name(&self) -> &'static str {
        "fair"
    }

    fn settings(&self) -> &'static [&'static dyn Declared] {
        &[&Knobs::<crate::delay_scheduling::Heartbeat>::OF]
    }

    fn heartbeat(&self) -> bool {
        true
    }

    fn preempts(&self) -> bool {
        true
    }

    fn place(&self, epoch: &Epoch<'_, '_>) -> Result<Placement, SolveError> {
        Ok(heartbeat::place(epoch.ix, epoch.starvation, Mode::Fair))
    }
}
