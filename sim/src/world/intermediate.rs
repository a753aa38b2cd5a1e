//! Intermediate data on the nodes' disks (FAIR, Zaharia et al. §5.4): a finished map's output
//! stays on its node until its job finishes; with `SimConfig::intermediate_gb` each node has
//! that much room for it. A running map reserves its expected output, the snapshot gives the
//! solver each node's free room (`nodes[].resources.disk`) and each pending map's expected
//! output (`pending[].output_bytes`), and the solver refuses a map that would overflow its
//! node ("the node will refuse to admit tasks that are expected to overflow its disk").
//!
//! Deadlock (§5.4: "it is possible to get stuck if two jobs are running concurrently and the
//! disk becomes full before either finishes"): when an offer places nothing while maps are
//! pending, no map runs, no task computes, no byte moves, and no node with a free map slot has
//! room for the smallest pending map's output, the victim job's outputs are evicted: its
//! finished maps become pending again, its copying reduces are killed, and its reduces wait
//! for slowstart again (reduces that finished stay finished; computing ones keep their data).
//! "Results from one job must be deleted until the other job completes": the victim's maps
//! are not offered again until some job finishes (or until nothing else can move), so that a
//! policy that favours the victim (it now runs fewest tasks) cannot refill the disks with it
//! and evict it again forever.
//! The victim is the active job holding intermediate data that was submitted latest, or that
//! has the least progress (fraction of its tasks done; ties: the latest) — §5.4's two
//! heuristics under which "some job in the cluster monotonically make[s] progress". Evicting
//! the job using the most space is not offered: §5.4 shows it can starve every job.
//!
//! Each eviction lets the jobs left unsuspended use the room, so one of them finishes within
//! one eviction per active job when its reduces can run. When more than 2 × active jobs + 2
//! evictions pass without any job finishing (reduces with no slot anywhere, say), the disks
//! thrash — maps run, fill them, are evicted and run again — and the run counts as stalled
//! instead of running until its time limit.

use super::hooks::{Ctx, Mechanism};
use crate::error::SimError;
use placer_models::TaskKind;
use std::collections::{BTreeMap, BTreeSet};

/// Bytes held and reserved per node, what each job holds where, and the evictions.
#[derive(Clone, Debug)]
pub(crate) struct Disks {
    /// Room per node, bytes; `None`: unlimited.
    budget: Option<u64>,
    held: Vec<u64>,
    reserved: Vec<u64>,
    held_total: u64,
    /// Per job, its finished maps' output bytes per node, held until the job ends.
    by_job: Vec<BTreeMap<usize, u64>>,
    /// Jobs whose outputs were evicted: their maps are not offered until a job finishes.
    pub suspended: BTreeSet<usize>,
    /// Evictions since a job last finished: past a bound, the disks thrash without any job
    /// finishing and the run counts as stalled.
    pub evictions: usize,
}

impl Disks {
    /// `nodes` empty disks of `gb` GB each (`None`: unlimited) for `jobs` jobs.
    pub fn new(nodes: usize, jobs: usize, gb: Option<f64>) -> Self {
        Self {
            budget: gb.map(|g| (g * 1e9) as u64),
            held: vec![0; nodes],
            reserved: vec![0; nodes],
            held_total: 0,
            by_job: vec![BTreeMap::new(); jobs],
            suspended: BTreeSet::new(),
            evictions: 0,
        }
    }

    /// Whether job `j` holds output on some disk.
    pub fn holds(&self, j: usize) -> bool {
        !self.by_job[j].is_empty()
    }

    /// Job `j` finished or was evicted: its outputs are deleted.
    pub fn free_job(&mut self, j: usize) {
        for (n, bytes) in std::mem::take(&mut self.by_job[j]) {
            self.drop_held(n, bytes);
        }
    }

    /// Whether disks are limited at all.
    pub fn limited(&self) -> bool {
        self.budget.is_some()
    }

    /// Free room on node `n`, bytes (`None`: unlimited).
    pub fn free(&self, n: usize) -> Option<u64> {
        self.budget.map(|b| b.saturating_sub(self.held[n] + self.reserved[n]))
    }

    /// Σ held over the nodes, bytes.
    pub fn held_total(&self) -> u64 {
        self.held_total
    }

    /// A map expecting `bytes` of output started on `n`.
    fn reserve(&mut self, n: usize, bytes: u64) {
        self.reserved[n] += bytes;
    }

    /// That map stopped (finished or killed).
    fn unreserve(&mut self, n: usize, bytes: u64) {
        self.reserved[n] = self.reserved[n].saturating_sub(bytes);
    }

    /// A finished map's `bytes` of output now occupy `n`.
    fn hold(&mut self, n: usize, bytes: u64) {
        self.held[n] += bytes;
        self.held_total += bytes;
    }

    /// `bytes` of held output on `n` deleted.
    fn drop_held(&mut self, n: usize, bytes: u64) {
        let b = bytes.min(self.held[n]);
        self.held[n] -= b;
        self.held_total -= b;
    }

    /// No node over its room (maps start only where their output fits).
    pub fn audit(&self, now: f64) -> Result<(), SimError> {
        let Some(budget) = self.budget else { return Ok(()) };
        for n in 0..self.held.len() {
            if self.held[n] + self.reserved[n] > budget {
                return Err(SimError::Invariant {
                    time_s: now,
                    message: format!(
                        "node {n}: {} bytes held + {} reserved > {budget} of disk",
                        self.held[n], self.reserved[n]
                    ),
                });
            }
        }
        Ok(())
    }
}

impl Mechanism for Disks {
    /// A map reserves its expected output on its node.
    fn task_started(&mut self, cx: &mut Ctx<'_>, t: usize) {
        let task = &cx.ix.tasks[t];
        if task.kind == TaskKind::Map {
            self.reserve(cx.tasks[t].node, task.output_bytes);
        }
    }

    /// A map that stops gives its reservation back (a failed attempt made none).
    fn task_released(&mut self, cx: &mut Ctx<'_>, t: usize) {
        let task = &cx.ix.tasks[t];
        if task.kind == TaskKind::Map && !cx.tasks[t].doomed {
            self.unreserve(cx.tasks[t].node, task.output_bytes);
        }
    }

    /// A finished map's output occupies its node.
    fn map_finished(&mut self, cx: &mut Ctx<'_>, t: usize) {
        let (n, task) = (cx.tasks[t].node, &cx.ix.tasks[t]);
        self.hold(n, task.output_bytes);
        *self.by_job[task.job as usize].entry(n).or_insert(0) += task.output_bytes;
        cx.metrics.intermediate_changed(self.held_total);
    }
}
