//! The v1 snapshot the simulator hands to `placer_solver::place` each epoch (DESIGN.md §Wire
//! schema v1, §What-if simulator; lsap-sched §3.2's "instant system state"): the fixed cluster
//! and policy, every pool with its echoed starvation clocks, every arrived unfinished job with
//! its echoed delay state, the running tasks, and the pending tasks under
//! `SimConfig::pending_bound`.
//!
//! Node order: a fresh random permutation each epoch unless `SimConfig::node_order` is
//! `Fixed` (see [`crate::NodeOrder`]): the order heartbeats arrive in.
//!
//! Pending bound (documented on [`crate::PendingBound`]): per job and kind at most B tasks, B =
//! the cluster's free slots of that kind (`FreeSlots`) or all its slots of that kind
//! (`Capacity`). Maps: first a greedy matching in task order — a task is taken while one of its
//! replica nodes has a free map slot not yet claimed by an earlier task of the job (so a job
//! with 6,000 maps on 2,400 free slots offers tasks that fit the free slots node-locally, not
//! just the first 2,400 with a replica on some free node) — then, the same way, those with a
//! replica in a rack with an unclaimed free map slot, then the others in task order (on a
//! heartbeat that offers one slot, the job shows its node-local task if it has one, else a
//! rack-local one, as Hadoop 0.20's task search did). Reduces: task order. The selection scans the job's pending set
//! without allocating strings, so a snapshot costs O(active jobs + Σ pending scanned) integer
//! work but only O(offered + running) strings. `All` offers every pending task.

use crate::cluster::{parse_node_id, SimCluster};
use crate::config::{NodeOrder, PendingBound, SimConfig};
use crate::engine::Engine;
use crate::workload_index::WorkloadIndex;
use placer_models::{
    Job, JobId, PendingTask, PlaceRequest, Pool, PoolId, Resources, RunningTask, ShuffleSource,
    TaskKind, UserId,
};
use rand::seq::SliceRandom;

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
    /// On a heartbeat (`self.offer`) only that node shows free slots: every node's slots are
    /// set to its running tasks, plus the offered ones on the heartbeating node.
    pub(crate) fn fill_snapshot(&mut self) -> usize {
        let mut req = std::mem::take(&mut self.req);
        req.now_s = self.now;
        match self.offer {
            Some((beating, offer)) => {
                // Heartbeat snapshots keep the topology's order: node i is `n{i}`.
                for (i, node) in req.cluster.nodes.iter_mut().enumerate() {
                    let extra = if i == beating { offer } else { [0, 0] };
                    node.map_slots = self.used[i][0] + extra[0];
                    node.reduce_slots = self.used[i][1] + extra[1];
                }
            }
            None if self.cfg.node_order == NodeOrder::Shuffled => {
                req.cluster.nodes.shuffle(&mut self.order_rng);
            }
            None => {}
        }
        if self.disks.limited() {
            for node in &mut req.cluster.nodes {
                if let Some(n) = parse_node_id(node.id.as_str(), self.cluster.len()) {
                    let disk = self.disks.free(n);
                    node.resources.get_or_insert_with(Resources::default).disk = disk;
                }
            }
        }
        for (pool, clocks) in req.pools.iter_mut().zip(&self.starvation) {
            pool.starvation = *clocks;
        }
        req.jobs.clear();
        req.pending.clear();
        req.running.clear();
        let mut chosen: Vec<usize> = Vec::new();
        let mut quota: Vec<(u64, u32)> = vec![(0, 0); self.cluster.len()];
        let mut rack_quota: Vec<(u64, u32)> = vec![(0, 0); self.cluster.nodes_of_rack.len()];
        self.count_rack_free();
        self.heartbeat_bound();
        let mut stamp = 0u64;
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
                self.choose(j, kind, &mut chosen, &mut quota, &mut rack_quota, &mut stamp);
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

    /// On a heartbeat, `self.beat_bound`: per kind `max(4, ⌈2 · S / J⌉)`, S the cluster's
    /// slots of the kind and J the active jobs with pending tasks of it (see
    /// [`crate::PendingBound::Capacity`]).
    fn heartbeat_bound(&mut self) {
        if self.offer.is_none() {
            return;
        }
        let slots = [self.cluster.total_map_slots, self.cluster.total_reduce_slots];
        for (k, total) in slots.into_iter().enumerate() {
            let jobs =
                self.active_jobs.iter().filter(|&&j| !self.jobs[j].pending[k].is_empty()).count();
            self.beat_bound[k] = (2 * total).div_ceil(jobs.max(1) as u64).max(4);
        }
    }

    /// Rack `r`'s unclaimed free map slots in `quota` (scratch valid when its stamp is `stamp`).
    fn rack_left<'q>(&self, quota: &'q mut [(u64, u32)], r: usize, stamp: u64) -> &'q mut u32 {
        let (at, left) = &mut quota[r];
        if *at != stamp {
            *at = stamp;
            *left = self.rack_free[r];
        }
        left
    }

    /// `self.rack_free`: the free (offered) map slots per rack.
    fn count_rack_free(&mut self) {
        let mut free = std::mem::take(&mut self.rack_free);
        free.clear();
        free.resize(self.cluster.nodes_of_rack.len(), 0);
        match self.offer {
            Some((n, offer)) => free[self.cluster.rack_of[n]] = offer[0],
            None => {
                for (n, &r) in self.cluster.rack_of.iter().enumerate() {
                    free[r] += self.cluster.map_slots[n].saturating_sub(self.used[n][0]);
                }
            }
        }
        self.rack_free = free;
    }

    /// The pending tasks of job `j` and `kind` to offer, into `out`.
    /// `quota[n]` = (stamp, unclaimed free map slots of node n) scratch, valid when its stamp
    /// is `*stamp`.
    fn choose(
        &self,
        j: usize,
        kind: TaskKind,
        out: &mut Vec<usize>,
        quota: &mut [(u64, u32)],
        rack_quota: &mut [(u64, u32)],
        stamp: &mut u64,
    ) {
        out.clear();
        if kind == TaskKind::Map && self.suspended.contains(&j) {
            return;
        }
        let pending = &self.jobs[j].pending[kind.slot()];
        let total = match kind {
            TaskKind::Map => self.cluster.total_map_slots,
            TaskKind::Reduce => self.cluster.total_reduce_slots,
        };
        let offered = match self.offer {
            Some((_, offer)) => u64::from(offer[kind.slot()]),
            None => self.free[kind.slot()],
        };
        let bound = match self.cfg.pending_bound.resolve(self.cfg.policy.algorithm) {
            PendingBound::All | PendingBound::Auto => u64::MAX,
            PendingBound::Capacity if self.offer.is_some() => {
                total.min(self.beat_bound[kind.slot()])
            }
            PendingBound::Capacity => total,
            PendingBound::FreeSlots => offered,
        };
        let bound = usize::try_from(bound).unwrap_or(usize::MAX);
        if bound >= pending.len() {
            out.extend(pending.iter().copied());
            return;
        }
        if kind == TaskKind::Map {
            // Greedy matching in task order, as a heartbeat scheduler looks for a task (Hadoop
            // 0.20's findNewMapTask: node-local, then rack-local, then any): first every task
            // one of whose replica nodes still has a free map slot no earlier task of this job
            // has claimed, then every task one of whose replica racks still has one, then the
            // others, in task order.
            *stamp += 1;
            let free_on = |n: usize| match self.offer {
                Some((beating, offer)) if beating == n => offer[0],
                Some(_) => 0,
                None => self.cluster.map_slots[n].saturating_sub(self.used[n][0]),
            };
            let mut taken = vec![false; pending.len()];
            for (i, &t) in pending.iter().enumerate() {
                if out.len() == bound {
                    break;
                }
                for &n in self.ix.replicas(t) {
                    let n = n as usize;
                    let (at, left) = &mut quota[n];
                    if *at != *stamp {
                        *at = *stamp;
                        *left = free_on(n);
                    }
                    if *left > 0 {
                        *left -= 1;
                        let left = self.rack_left(rack_quota, self.cluster.rack_of[n], *stamp);
                        *left = left.saturating_sub(1);
                        out.push(t);
                        taken[i] = true;
                        break;
                    }
                }
            }
            for (i, &t) in pending.iter().enumerate() {
                if out.len() == bound {
                    break;
                }
                if taken[i] {
                    continue;
                }
                for &n in self.ix.replicas(t) {
                    let left = self.rack_left(rack_quota, self.cluster.rack_of[n as usize], *stamp);
                    if *left > 0 {
                        *left -= 1;
                        out.push(t);
                        taken[i] = true;
                        break;
                    }
                }
            }
            for (i, &t) in pending.iter().enumerate() {
                if out.len() == bound {
                    break;
                }
                if !taken[i] {
                    out.push(t);
                }
            }
            out.sort_unstable();
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
                if self.disks.limited() {
                    p.output_bytes = task.output_bytes;
                }
                p.replicas =
                    self.ix.replicas(t).iter().map(|&n| nodes[n as usize].id.clone()).collect();
            }
            TaskKind::Reduce => {
                p.shuffle = self
                    .known_shuffle(t)
                    .into_iter()
                    .filter(|&(_, b)| b > 0)
                    .map(|(n, bytes)| ShuffleSource { node: nodes[n].id.clone(), bytes })
                    .collect();
            }
        }
        p
    }
}
