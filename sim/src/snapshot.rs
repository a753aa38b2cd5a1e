//! The v1 snapshot the simulator hands to `placer_solver::place` each epoch (DESIGN.md §Wire
//! schema v1, §What-if simulator; lsap-sched §3.2's "instant system state"): the fixed cluster
//! and policy, every pool with its echoed starvation clocks, every arrived unfinished job with
//! its echoed delay state, the running tasks, and the pending tasks under
//! `SimConfig::pending_bound`.
//!
//! Pending bound (documented on [`crate::PendingBound`]): per job and kind at most B tasks, B =
//! the cluster's free slots of that kind (`FreeSlots`) or all its slots of that kind
//! (`Capacity`); maps with a replica on a node with a free map slot first (task order), then
//! the others (task order); reduces in task order. The selection scans the job's pending set
//! without allocating strings, so a snapshot costs O(active jobs + Σ pending scanned) integer
//! work but only O(offered + running) strings. `All` offers every pending task.

use crate::cluster::SimCluster;
use crate::config::{PendingBound, SimConfig};
use crate::engine::{k, shuffle_split, Engine};
use crate::workload_index::WorkloadIndex;
use placer_models::{
    Job, JobId, PendingTask, PlaceRequest, Pool, PoolId, RunningTask, ShuffleSource, TaskKind,
    UserId,
};

/// The parts of every snapshot that do not change: cluster, policy, pools (without clocks).
pub(crate) fn base_request(
    cfg: &SimConfig,
    cluster: &SimCluster,
    ix: &WorkloadIndex,
) -> PlaceRequest {
    PlaceRequest {
        cluster: cluster.wire.clone(),
        pools: ix
            .pools
            .iter()
            .enumerate()
            .map(|(i, p)| Pool {
                id: PoolId(format!("p{i}")),
                weight: p.weight,
                min_map_share: p.min_map_share,
                min_reduce_share: p.min_reduce_share,
                min_share_timeout_s: cfg.min_share_timeout_s,
                fair_share_timeout_s: cfg.fair_share_timeout_s,
                ..Pool::default()
            })
            .collect(),
        policy: cfg.policy.clone(),
        ..PlaceRequest::default()
    }
}

impl Engine<'_> {
    /// Refreshes `self.req` from the state; returns the number of pending tasks offered.
    pub(crate) fn fill_snapshot(&mut self) -> usize {
        let mut req = std::mem::take(&mut self.req);
        req.now_s = self.now;
        for (pool, clocks) in req.pools.iter_mut().zip(&self.starvation) {
            pool.starvation = *clocks;
        }
        req.jobs.clear();
        req.pending.clear();
        req.running.clear();
        let mut chosen: Vec<usize> = Vec::new();
        for &j in &self.active_jobs {
            let spec = &self.ix.jobs[j];
            let run = &self.jobs[j];
            let job_id = JobId(format!("j{j}"));
            let user = &self.workload.jobs[j].user;
            req.jobs.push(Job {
                id: job_id.clone(),
                pool: PoolId(format!("p{}", spec.pool)),
                submit_s: spec.submit_s,
                user: (!user.is_empty()).then(|| UserId(user.clone())),
                delay: run.delay,
                ..Job::default()
            });
            for kind in [TaskKind::Map, TaskKind::Reduce] {
                self.choose(j, kind, &mut chosen);
                for &t in &chosen {
                    req.pending.push(self.pending_task(t, &job_id));
                }
            }
        }
        let offered = req.pending.len();
        for &t in &self.running {
            let task = &self.ix.tasks[t];
            let run = &self.tasks[t];
            req.running.push(RunningTask {
                id: self.ix.task_id(t),
                job: JobId(format!("j{}", task.job)),
                kind: task.kind,
                node: self.cluster.wire.nodes[run.node].id.clone(),
                started_s: Some(run.started_s),
                phase: None,
            });
        }
        self.req = req;
        offered
    }

    /// The pending tasks of job `j` and `kind` to offer, into `out`.
    fn choose(&self, j: usize, kind: TaskKind, out: &mut Vec<usize>) {
        out.clear();
        let pending = &self.jobs[j].pending[k(kind)];
        let total = match kind {
            TaskKind::Map => self.cluster.total_map_slots,
            TaskKind::Reduce => self.cluster.total_reduce_slots,
        };
        let bound = match self.cfg.pending_bound.resolve(self.cfg.policy.algorithm) {
            PendingBound::All | PendingBound::Auto => u64::MAX,
            PendingBound::Capacity => total,
            PendingBound::FreeSlots => self.free[k(kind)],
        };
        let bound = usize::try_from(bound).unwrap_or(usize::MAX);
        if bound >= pending.len() {
            out.extend(pending.iter().copied());
            return;
        }
        if kind == TaskKind::Map {
            let has_room = |n: u32| {
                let n = n as usize;
                self.used[n][0] < self.cluster.map_slots[n]
            };
            out.extend(
                pending
                    .iter()
                    .copied()
                    .filter(|&t| self.ix.replicas(t).iter().any(|&n| has_room(n)))
                    .take(bound),
            );
            if out.len() < bound {
                let local = out.len();
                let rest: Vec<usize> = pending
                    .iter()
                    .copied()
                    .filter(|&t| !self.ix.replicas(t).iter().any(|&n| has_room(n)))
                    .take(bound - local)
                    .collect();
                out.extend(rest);
                out.sort_unstable();
            }
        } else {
            out.extend(pending.iter().copied().take(bound));
        }
    }

    fn pending_task(&self, t: usize, job: &JobId) -> PendingTask {
        let task = &self.ix.tasks[t];
        let nodes = &self.cluster.wire.nodes;
        let mut p = PendingTask {
            id: self.ix.task_id(t),
            job: job.clone(),
            kind: task.kind,
            pending_since_s: Some(self.tasks[t].pending_since_s),
            ..PendingTask::default()
        };
        match task.kind {
            TaskKind::Map => {
                p.input_bytes = task.bytes;
                p.replicas =
                    self.ix.replicas(t).iter().map(|&n| nodes[n as usize].id.clone()).collect();
            }
            TaskKind::Reduce => {
                p.shuffle = shuffle_split(task.bytes, &self.jobs[task.job as usize].shuffle)
                    .into_iter()
                    .filter(|&(_, b)| b > 0)
                    .map(|(n, bytes)| ShuffleSource { node: nodes[n].id.clone(), bytes })
                    .collect();
            }
        }
        p
    }
}
