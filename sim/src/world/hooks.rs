//! The hooks of a World mechanism (the model is Firmament's simulator, Gog et al., OSDI 2016,
//! whose interference models sit behind placement, completion, eviction and migration
//! hooks): the moments of a task's life a mechanism may act on, and
//! the part of the World it sees then. A mechanism owns its state and reaches the rest of the
//! World only through [`Ctx`]; `sim/README.md` walks through adding one.

use super::task::{JobRun, TaskRun};
use crate::cluster::SimCluster;
use crate::config::SimConfig;
use crate::metrics::Metrics;
use crate::network::Network;
use crate::queue::EventQueue;
use crate::workload_index::WorkloadIndex;

/// What a mechanism sees of the World while one of its hooks runs.
pub(crate) struct Ctx<'w> {
    /// Simulated time, s.
    pub now: f64,
    pub cfg: &'w SimConfig,
    pub cluster: &'w SimCluster,
    pub ix: &'w WorkloadIndex,
    /// Every task's record (a hook may settle and reschedule the tasks it governs).
    pub tasks: &'w mut [TaskRun],
    /// Every job's record (read only).
    pub jobs: &'w [JobRun],
    /// The links and their flows.
    pub net: &'w mut Network,
    /// The World's clock.
    pub queue: &'w mut EventQueue,
    pub metrics: &'w mut Metrics,
}

/// A mechanism of the simulated world, called at these moments of a task's life, in the order
/// of their registration in `World::each_mechanism`. Every hook does nothing by default.
pub(crate) trait Mechanism {
    /// Task `t` took a slot on `cx.tasks[t].node` for a real run (not one of a trace's failed
    /// attempts).
    fn task_started(&mut self, _cx: &mut Ctx<'_>, _t: usize) {}

    /// Task `t` has its input and begins computing `cx.tasks[t].work_left` s of work at rate 1
    /// from now. True when this mechanism schedules the task's end (else the World does, at
    /// rate 1).
    fn compute_started(&mut self, _cx: &mut Ctx<'_>, _t: usize) -> bool {
        false
    }

    /// Task `t`'s run ended (its process is gone) but the master learns of it only at its
    /// node's next heartbeat ([`crate::CompletionReport::Heartbeat`]); `task_released`
    /// follows then. Whatever the run itself consumed stops here.
    fn task_exited(&mut self, _cx: &mut Ctx<'_>, _t: usize) {}

    /// Task `t` gives its slot back (it finished, failed or was killed), its record as it was
    /// while it ran.
    fn task_released(&mut self, _cx: &mut Ctx<'_>, _t: usize) {}

    /// Map `t` finished on `cx.tasks[t].node`: its output now exists there.
    fn map_finished(&mut self, _cx: &mut Ctx<'_>, _t: usize) {}
}
