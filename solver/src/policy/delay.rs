//! `delay`: fair sharing with delay scheduling (Zaharia et al., FAIR Alg. 1): the Fair
//! Scheduler's order, but a job at locality level 0 launches only node-local maps and waits
//! T1 (then T2) before it may launch rack-local (then any) ones (`crate::fair::heartbeat`);
//! preemption as `fair`.

use super::{Epoch, Placement, Policy};
use crate::echo::Field;
use crate::error::SolveError;
use crate::fair::heartbeat::{self, Mode};
use crate::settings::{Declared, Knobs};

/// The Fair Scheduler with delay scheduling.
#[derive(Clone, Copy, Debug, Default)]
pub struct Delay;

impl Policy for Delay {
    fn name(&self) -> &'static str {
        "delay"
    }

    fn settings(&self) -> &'static [&'static dyn Declared] {
        &[
            &Knobs::<crate::delay_scheduling::Heartbeat>::OF,
            &Knobs::<crate::delay_scheduling::DelayWaits>::OF,
        ]
    }

    fn job_fields(&self) -> &'static [&'static dyn crate::echo::Declared] {
        &[&Field::<crate::delay_scheduling::DelayState>::OF]
    }

    fn heartbeat(&self) -> bool {
        true
    }

    fn preempts(&self) -> bool {
        true
    }

    fn place(&self, epoch: &Epoch<'_, '_>) -> Result<Placement, SolveError> {
        Ok(heartbeat::place(epoch.ix, epoch.starvation, Mode::Delay))
    }
}
