//! `fifo`: Hadoop's default `JobQueueTaskScheduler` (FAIR §2; design doc §1): free slots
//! offered heartbeat by heartbeat go to the first job by priority, then submit time, pools
//! ignored; the head-of-line job launches its closest map (`crate::fair::heartbeat`).

use super::{Candidates, Epoch, Placement, Policy};
use crate::error::SolveError;
use crate::fair::heartbeat::{self, Mode};
use crate::settings::{Declared, Knobs};

/// Hadoop's FIFO scheduler.
#[derive(Clone, Copy, Debug, Default)]
pub struct Fifo;

impl Policy for Fifo {
    fn name(&self) -> &'static str {
        "fifo"
    }

    fn settings(&self) -> &'static [&'static dyn Declared] {
        &[&Knobs::<crate::delay_scheduling::Heartbeat>::OF]
    }

    fn heartbeat(&self) -> bool {
        true
    }

    fn candidates(&self) -> Candidates {
        Candidates::FreeSlots
    }

    fn place(&self, epoch: &Epoch<'_, '_>) -> Result<Placement, SolveError> {
        Ok(heartbeat::place(epoch.ix, epoch.starvation, Mode::Fifo))
    }
}
