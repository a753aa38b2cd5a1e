//! A job's setup and cleanup tasks (FAIR, Zaharia et al. §6.2.1: "at small job sizes, job
//! initialization becomes a bottleneck in Hadoop"). Hadoop 0.20's JobTracker, on every
//! heartbeat and before it asks the scheduler, hands the TaskTracker a job's cleanup task if
//! one can run, else a setup task (jobs in submission order), in a map slot if the tracker has
//! one free, else in a reduce slot; a heartbeat that receives one gets nothing from the
//! scheduler. A job's maps are schedulable once its setup task has finished and its cleanup
//! task runs once its last task has; the job finishes with its cleanup. (That order is
//! Hadoop 0.20's `JobTracker.getSetupAndCleanupTasks`, not something the paper states.)
//!
//! With [`JobTasks::Slots`] (the default) the World runs them that way: a job that arrives
//! waits for its setup task's slot, a job whose last task is done waits for its cleanup's,
//! and the task holds the slot for `setup_s` / `cleanup_s` (measured by a trace, else
//! `SimConfig::job_setup_s` / `job_cleanup_s`; 0: the job has none). They stay inside the
//! World: the Master never sees them as tasks (no locality, no fair-share count: Hadoop's
//! Fair Scheduler does not count them either), only as busy slots in the nodes' free slots.
//! On a heartbeat the node's offer goes to the oldest waiting cleanup, else setup, before the
//! Master; at an epoch every waiting one takes a free slot (nodes from a rotating cursor)
//! before the solver runs. Their end is reported like a task's (`reports.rs`). With
//! [`JobTasks::Delays`], and on uncapped nodes (which have no slots to take), setup and
//! cleanup are delays that hold no slot. O(log jobs) per launch and end.

use super::reports::Report;
use super::World;
use crate::config::JobTasks as Model;
use crate::queue::EventKind;
use std::collections::BTreeSet;

/// A setup or cleanup task holding a slot.
#[derive(Clone, Copy, Debug)]
struct Hold {
    node: usize,
    /// 0 a map slot, 1 a reduce slot.
    kind: usize,
    started_s: f64,
    cleanup: bool,
}

/// The jobs waiting for a setup or cleanup slot and the slots their tasks hold.
#[derive(Clone, Debug)]
pub(crate) struct JobTasks {
    setups: BTreeSet<usize>,
    cleanups: BTreeSet<usize>,
    /// Per job, its setup or cleanup task while it holds a slot.
    holds: Vec<Option<Hold>>,
    /// Slots held per node and kind.
    per_node: Vec<[u32; 2]>,
    /// Slots held per kind.
    total: [u64; 2],
    /// The node an epoch's launches start from.
    cursor: usize,
}

impl JobTasks {
    pub fn new(nodes: usize, jobs: usize) -> Self {
        Self {
            setups: BTreeSet::new(),
            cleanups: BTreeSet::new(),
            holds: vec![None; jobs],
            per_node: vec![[0, 0]; nodes],
            total: [0, 0],
            cursor: 0,
        }
    }

    /// Setup and cleanup tasks waiting for a slot.
    pub fn waiting(&self) -> usize {
        self.setups.len() + self.cleanups.len()
    }

    /// Slots held on node `n`, per kind.
    pub fn held_on(&self, n: usize) -> [u32; 2] {
        self.per_node[n]
    }

    /// Slots held in the cluster, per kind.
    pub fn held(&self) -> [u64; 2] {
        self.total
    }

    /// Whether any setup or cleanup task is running.
    pub fn holding(&self) -> bool {
        self.total != [0, 0]
    }

    /// The next to launch: the oldest job's cleanup, else the oldest job's setup.
    fn next(&self) -> Option<(usize, bool)> {
        match self.cleanups.first() {
            Some(&j) => Some((j, true)),
            None => self.setups.first().map(|&j| (j, false)),
        }
    }
}

impl World<'_> {
    /// Setup and cleanup tasks waiting for a slot.
    pub(crate) fn job_tasks_waiting(&self) -> usize {
        self.job_tasks.waiting()
    }

    /// Slots held by setup and cleanup tasks on node `n`, per kind: the snapshot shows them
    /// neither as free nor as running tasks.
    pub(crate) fn job_task_slots_on(&self, n: usize) -> [u32; 2] {
        self.job_tasks.held_on(n)
    }

    /// Whether any setup or cleanup task holds a slot.
    pub(crate) fn job_task_slots(&self) -> bool {
        self.job_tasks.holding()
    }

    /// Whether setup and cleanup take slots in this run.
    fn job_tasks_take_slots(&self) -> bool {
        self.cfg.job_tasks == Model::Slots && !self.cluster.uncapped
    }

    /// Job `j` arrived: its setup task waits for a slot (or its setup delay runs); without
    /// one its tasks are pending now.
    pub(crate) fn set_up(&mut self, j: usize) {
        let setup_s = self.ix.jobs[j].setup_s;
        if setup_s <= 0.0 {
            self.job_ready(j);
        } else if self.job_tasks_take_slots() {
            self.job_tasks.setups.insert(j);
            self.job_task_waits();
        } else {
            self.queue.push(self.now + setup_s, EventKind::JobReady(j));
        }
    }

    /// Job `j`'s last task is done: its cleanup task waits for a slot (or its cleanup delay
    /// runs); without one it finishes now.
    pub(crate) fn clean_up(&mut self, j: usize) {
        let cleanup_s = self.ix.jobs[j].cleanup_s;
        if cleanup_s <= 0.0 {
            self.job_done(j);
        } else if self.job_tasks_take_slots() {
            self.job_tasks.cleanups.insert(j);
            self.job_task_waits();
        } else {
            self.queue.push(self.now + cleanup_s, EventKind::JobCleaned(j));
        }
    }

    /// A setup or cleanup task waits: every node that could take it heartbeats, or the next
    /// epoch comes.
    fn job_task_waits(&mut self) {
        if self.beats.is_some() {
            self.wake_all();
        } else {
            self.offer_soon();
        }
    }

    /// Node `n` heartbeats: the oldest waiting cleanup, else setup, takes one of its free
    /// slots (a map slot first). True when one did (the heartbeat is then answered).
    pub(crate) fn launch_job_task(&mut self, n: usize) -> bool {
        let Some((j, cleanup)) = self.job_tasks.next() else { return false };
        let kind = if self.used[n][0] < self.cluster.map_slots[n] {
            0
        } else if self.used[n][1] < self.cluster.reduce_slots[n] {
            1
        } else {
            return false;
        };
        let jt = &mut self.job_tasks;
        if cleanup {
            jt.cleanups.remove(&j);
        } else {
            jt.setups.remove(&j);
        }
        jt.holds[j] = Some(Hold { node: n, kind, started_s: self.now, cleanup });
        jt.per_node[n][kind] += 1;
        jt.total[kind] += 1;
        self.used[n][kind] += 1;
        let spec = &self.ix.jobs[j];
        let (at, event) = if cleanup {
            (self.now + spec.cleanup_s, EventKind::JobCleaned(j))
        } else {
            (self.now + spec.setup_s, EventKind::JobReady(j))
        };
        self.queue.push(at, event);
        true
    }

    /// An epoch: every waiting setup and cleanup task takes a free slot, nodes taken from a
    /// rotating cursor. Returns how many started.
    pub(crate) fn launch_job_tasks_at_epoch(&mut self) -> u64 {
        let nodes = self.cluster.len();
        let mut launched = 0;
        let mut tried = 0;
        while self.job_tasks.waiting() > 0 && tried < nodes {
            let n = self.job_tasks.cursor % nodes;
            if self.launch_job_task(n) {
                launched += 1;
                tried = 0;
            } else {
                tried += 1;
            }
            self.job_tasks.cursor = (n + 1) % nodes;
        }
        launched
    }

    /// Job `j`'s setup (`cleanup` false) or cleanup ran out: reported at its node's next
    /// heartbeat, or now; as a delay, it is simply over.
    pub(crate) fn job_task_ended(&mut self, j: usize, cleanup: bool) {
        match self.job_tasks.holds[j] {
            None if cleanup => self.job_done(j),
            None => self.job_ready(j),
            Some(hold) if self.cfg.reports_at_heartbeat() => {
                self.exited(hold.node, Report::JobTask(j));
            }
            Some(_) => self.release_job_task(j),
        }
    }

    /// Job `j`'s setup or cleanup task gives its slot back and its job moves on.
    pub(crate) fn release_job_task(&mut self, j: usize) {
        let Some(hold) = self.job_tasks.holds[j].take() else { return };
        let jt = &mut self.job_tasks;
        jt.per_node[hold.node][hold.kind] -= 1;
        jt.total[hold.kind] -= 1;
        self.used[hold.node][hold.kind] -= 1;
        self.idle = false;
        self.metrics.slot_freed(hold.kind, hold.started_s, self.now);
        if hold.cleanup {
            self.job_done(j);
        } else {
            self.job_ready(j);
        }
        self.slot_freed(hold.node, hold.kind);
    }
}
