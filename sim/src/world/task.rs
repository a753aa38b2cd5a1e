//! A task's and a job's dynamic state in the simulated cluster (FAIR, Zaharia et al. §2: a
//! task waits for a slot, holds it while it runs, and finishes; a job's reduces wait for its
//! maps): the records the World keeps per task and per job (`sim/README.md`). What a mechanism
//! keeps about a task (a reduce's copying, a job's outputs on disk) is the mechanism's own.

use std::collections::BTreeSet;

/// Where a task is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Its job has not arrived.
    NotArrived,
    /// A reduce whose job has not finished enough maps (slowstart).
    Blocked,
    /// Waiting for a slot.
    Pending,
    /// Holding a slot.
    Running,
    /// Finished.
    Done,
}

/// A task's dynamic state.
#[derive(Clone, Debug)]
pub(crate) struct TaskRun {
    pub phase: Phase,
    /// Bumped at every start, kill, finish and rate change; stale `TaskDone` events carry an
    /// older one.
    pub version: u32,
    pub node: usize,
    pub started_s: f64,
    pub pending_since_s: f64,
    pub flows_left: usize,
    pub local_done_s: f64,
    pub completions: u32,
    pub flows: Vec<usize>,
    /// Failed attempts run so far.
    pub attempt: u32,
    /// The current run is one of the trace's failed attempts.
    pub doomed: bool,
    /// Its run ended and its node has not reported it yet (it still holds its slot and the
    /// master still sees it running; `world/reports.rs`).
    pub exited: bool,
    /// Computing: work left (s at rate 1) as of `settled_s`.
    pub computing: bool,
    pub work_left: f64,
    pub settled_s: f64,
}

/// A job's dynamic state.
#[derive(Clone, Debug)]
pub(crate) struct JobRun {
    pub arrived: bool,
    pub maps_done: usize,
    pub reduces_left: usize,
    /// Its reduces are placeable (slowstart reached).
    pub released: bool,
    /// Pending tasks by kind, in task order.
    pub pending: [BTreeSet<usize>; 2],
    /// Σ input bytes and Σ output bytes of its completed maps (ShuffleWatcher §3.1's
    /// ShuffleInputRatio is their quotient; `master/snapshot.rs`).
    pub maps_io_done: (u128, u128),
    /// Σ run time (start to end, s) of its completed maps (RAS §3.2's observed map length).
    pub map_s_done: f64,
}

impl JobRun {
    /// The mean run time of its completed maps, s (`jobs[].mean_map_s`); `None` until one
    /// has completed, or while their mean is 0 (the wire wants a length > 0).
    pub fn mean_map_s(&self) -> Option<f64> {
        let mean = self.map_s_done / self.maps_done as f64;
        (self.maps_done > 0 && mean > 0.0 && mean.is_finite()).then_some(mean)
    }
}
