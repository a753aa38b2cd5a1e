//! The discrete-event engine (DESIGN.md §What-if simulator; the slot and heartbeat model of
//! FAIR, Zaharia et al. §2): job arrivals, flow ends, task ends and epoch ticks on simulated
//! time; every epoch a v1 snapshot goes to `placer_solver::place` and its answer is applied
//! (tasks start, preempted tasks die and return to pending, losing their progress) and its
//! per-job `delay` and per-pool `starvation` state is echoed into the next snapshot, as a
//! master does with the stateless service (models `state.rs`).
//!
//! Task time (s) = `compute_s` + input:
//! - a map reads `input_bytes` from its own disk at `disk_mb_s` when a replica is on its node
//!   (or when it has no replica at all), else over the network from a replica in its rack if
//!   there is one, else from the replica whose rack-to-rack link is least loaded (ties: replica
//!   order), at the shared link rates of `network.rs`;
//! - a reduce pulls its `shuffle_bytes` from every node its job's maps ran on, split in
//!   proportion to the map output each node holds (to the number of maps there when the
//!   outputs are all 0); the part on its own node is read from disk, the rest moves as **one
//!   flow per source rack** (the bytes of all that rack's source nodes together), all at once;
//!   the input phase ends when the last part has arrived. One flow per rack rather than per
//!   node keeps a reduce to ≤ racks flows (Hadoop fetches with a few parallel copiers, 5 by
//!   default, not one per map node) and the rebalancing cost O(racks²) per reduce instead of
//!   O(nodes²), which on 600 nodes was the whole run time;
//! - then it computes for `compute_s`.
//!
//! A job's reduces become pending when all of its maps have finished (no Hadoop slowstart).
//!
//! Epochs fall on the grid k · `epoch_s`. A tick with no pending task schedules no further
//! tick; the next arrival or ready reduce schedules the next grid point, so idle stretches
//! cost nothing. A tick whose pending tasks have no free slot of their kind skips the solver
//! (its answer would be empty) unless the policy may preempt. Per event the work is
//! O(log events) plus O(flows on the touched links); per solver call O(snapshot), and the
//! snapshot is O(active jobs + offered pending + running) (see `snapshot.rs`). What the run
//! measures, and the report built from it, is in `metrics.rs`.

use crate::cluster::{parse_node_id, SimCluster};
use crate::config::SimConfig;
use crate::error::SimError;
use crate::metrics::{EpochStart, Metrics};
use crate::network::{FlowEnd, Network};
use crate::queue::{EventKind, EventQueue};
use crate::report::{SimReport, StopReason};
use crate::workload_index::{parse_job_id, WorkloadIndex};
use placer_datasets::Workload;
use placer_models::{Locality, PlaceRequest, PlaceResponse, StarvationState, TaskKind};
use placer_solver::PlaceOptions;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

/// Where a task is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Its job has not arrived.
    NotArrived,
    /// A reduce whose job still has unfinished maps.
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
    /// Bumped at every start, kill and finish; stale `TaskDone` events carry an older one.
    pub version: u32,
    pub node: usize,
    pub started_s: f64,
    pub pending_since_s: f64,
    flows_left: usize,
    local_done_s: f64,
    completions: u32,
    flows: Vec<usize>,
}

/// A job's dynamic state.
#[derive(Clone, Debug)]
pub(crate) struct JobRun {
    pub arrived: bool,
    maps_left: usize,
    reduces_left: usize,
    /// Pending tasks by kind, in task order.
    pub pending: [BTreeSet<usize>; 2],
    /// Echoed delay-scheduling state.
    pub delay: Option<placer_models::DelayState>,
    /// Map output bytes and map count per node, of finished maps.
    map_output: BTreeMap<usize, (u64, u64)>,
    /// Shuffle sources (node, weight), fixed when the reduces became pending.
    pub shuffle: Vec<(usize, u64)>,
}

/// One run's whole state.
pub(crate) struct Engine<'a> {
    pub cfg: &'a SimConfig,
    pub workload: &'a Workload,
    /// Draws each epoch's node order ([`crate::NodeOrder::Shuffled`]).
    pub order_rng: ChaCha8Rng,
    /// Called once per finished job (a progress bar's tick); never affects the run.
    pub on_job_done: Option<&'a (dyn Fn() + Sync)>,
    pub cluster: SimCluster,
    pub ix: WorkloadIndex,
    queue: EventQueue,
    net: Network,
    pub tasks: Vec<TaskRun>,
    pub jobs: Vec<JobRun>,
    /// Echoed starvation clocks per pool.
    pub starvation: Vec<Option<StarvationState>>,
    /// Busy slots per node and kind.
    pub used: Vec<[u32; 2]>,
    /// Free slots per kind.
    pub free: [u64; 2],
    /// Pending tasks per kind.
    pub pending: [usize; 2],
    /// Running tasks, in task order.
    pub running: BTreeSet<usize>,
    /// Arrived, unfinished jobs.
    pub active_jobs: BTreeSet<usize>,
    arrivals_left: usize,
    tick_scheduled: bool,
    stall: u32,
    pub now: f64,
    /// Reused snapshot buffer.
    pub req: PlaceRequest,
    /// What the run measures; read only by the report.
    metrics: Metrics,
}

impl<'a> Engine<'a> {
    /// Indexes the workload and cluster; schedules the arrivals.
    pub fn new(workload: &'a Workload, cfg: &'a SimConfig) -> Result<Self, SimError> {
        cfg.validate()?;
        let cluster = SimCluster::build(workload, cfg)?;
        let ix = WorkloadIndex::build(workload, &cluster, cfg)?;
        let tasks = vec![
            TaskRun {
                phase: Phase::NotArrived,
                version: 0,
                node: 0,
                started_s: 0.0,
                pending_since_s: 0.0,
                flows_left: 0,
                local_done_s: 0.0,
                completions: 0,
                flows: Vec::new(),
            };
            ix.tasks.len()
        ];
        let jobs = ix
            .jobs
            .iter()
            .map(|j| JobRun {
                arrived: false,
                maps_left: j.maps,
                reduces_left: j.reduces,
                pending: [BTreeSet::new(), BTreeSet::new()],
                delay: None,
                map_output: BTreeMap::new(),
                shuffle: Vec::new(),
            })
            .collect();
        let mut queue = EventQueue::default();
        for (j, job) in ix.jobs.iter().enumerate() {
            queue.push(job.submit_s, EventKind::Arrival(j));
        }
        let req = crate::snapshot::base_request(cfg, &cluster, &ix);
        let metrics = Metrics::new(ix.jobs.len(), ix.tasks.len(), cluster.nodes_of_rack.len());
        Ok(Self {
            net: Network::new(cluster.len(), cfg.rack_mbps, cfg.cross_rack_mbps, cfg.uplink_mbps),
            used: vec![[0, 0]; cluster.len()],
            free: [cluster.total_map_slots, cluster.total_reduce_slots],
            starvation: vec![None; ix.pools.len()],
            arrivals_left: ix.jobs.len(),
            cfg,
            workload,
            on_job_done: None,
            // A stream of its own, so that the replica draws of the same seed do not change.
            order_rng: ChaCha8Rng::seed_from_u64(cfg.seed ^ 0x6865_6172_7462_6561),
            cluster,
            ix,
            queue,
            tasks,
            jobs,
            pending: [0, 0],
            running: BTreeSet::new(),
            active_jobs: BTreeSet::new(),
            tick_scheduled: false,
            stall: 0,
            now: 0.0,
            req,
            metrics,
        })
    }

    /// Runs to the end and reports.
    pub fn run(mut self) -> Result<SimReport, SimError> {
        let wall = Instant::now();
        let mut stop = StopReason::Completed;
        while let Some(ev) = self.queue.pop() {
            if ev.time < self.now {
                return Err(SimError::Invariant {
                    time_s: self.now,
                    message: format!("an event at {} s comes after {} s", ev.time, self.now),
                });
            }
            if self.cfg.max_time_s.is_some_and(|limit| ev.time > limit) {
                stop = StopReason::TimeLimit;
                break;
            }
            self.now = ev.time;
            // Stale flow and task ends do not count.
            let counted = match ev.kind {
                EventKind::Arrival(j) => {
                    self.arrive(j);
                    true
                }
                EventKind::FlowDone { flow, version } => {
                    match self.net.finish(flow, version, self.now, &mut self.queue) {
                        Some(end) => {
                            self.flow_done(end);
                            true
                        }
                        None => false,
                    }
                }
                EventKind::TaskDone { task, version } => {
                    let t = &self.tasks[task];
                    let current = t.version == version && t.phase == Phase::Running;
                    if current {
                        self.task_done(task)?;
                    }
                    current
                }
                EventKind::Tick(tick) => {
                    if !self.tick(tick)? {
                        self.metrics.stalling_tick();
                        stop = StopReason::Stalled;
                        break;
                    }
                    true
                }
            };
            if counted {
                self.metrics.event(self.now);
            }
        }
        if self.cfg.audit {
            self.audit_end(stop)?;
        }
        let wall_s = wall.elapsed().as_secs_f64();
        Ok(self.metrics.report(stop, wall_s, self.cfg, self.workload, &self.ix, &self.cluster))
    }

    fn arrive(&mut self, j: usize) {
        self.arrivals_left -= 1;
        self.jobs[j].arrived = true;
        let spec = self.ix.jobs[j].clone();
        if spec.maps + spec.reduces == 0 {
            self.job_done(j);
            return;
        }
        self.active_jobs.insert(j);
        if spec.maps == 0 {
            for r in 0..spec.reduces {
                self.make_pending(spec.task(TaskKind::Reduce, r));
            }
        } else {
            for m in 0..spec.maps {
                self.make_pending(spec.task(TaskKind::Map, m));
            }
            for r in 0..spec.reduces {
                self.tasks[spec.task(TaskKind::Reduce, r)].phase = Phase::Blocked;
            }
        }
        self.ensure_tick();
    }

    fn make_pending(&mut self, t: usize) {
        let task = &self.ix.tasks[t];
        let kind = task.kind.slot();
        let run = &mut self.tasks[t];
        run.phase = Phase::Pending;
        run.pending_since_s = self.now;
        self.jobs[task.job as usize].pending[kind].insert(t);
        self.pending[kind] += 1;
    }

    /// Schedules the next grid tick at or after now, unless one is scheduled.
    fn ensure_tick(&mut self) {
        if self.tick_scheduled {
            return;
        }
        let e = self.cfg.epoch_s;
        let mut tick = (self.now / e).ceil().max(0.0) as u64;
        if (tick as f64) * e < self.now {
            tick += 1;
        }
        self.queue.push(tick as f64 * e, EventKind::Tick(tick));
        self.tick_scheduled = true;
    }

    /// One epoch tick; false when the run has stalled.
    fn tick(&mut self, tick: u64) -> Result<bool, SimError> {
        self.tick_scheduled = false;
        self.metrics.tick();
        if self.pending == [0, 0] {
            return Ok(true);
        }
        let room =
            (self.pending[0] > 0 && self.free[0] > 0) || (self.pending[1] > 0 && self.free[1] > 0);
        let mut assigned = 0;
        if room || self.cfg.may_preempt() {
            assigned = self.epoch()?;
        }
        if self.running.is_empty() && self.net.active() == 0 && self.arrivals_left == 0 {
            if assigned == 0 {
                self.stall += 1;
                if self.stall >= self.cfg.stall_epochs {
                    return Ok(false);
                }
            } else {
                self.stall = 0;
            }
        } else {
            self.stall = 0;
        }
        if self.pending != [0, 0] {
            let next = tick + 1;
            self.queue.push(next as f64 * self.cfg.epoch_s, EventKind::Tick(next));
            self.tick_scheduled = true;
        }
        Ok(true)
    }

    /// Builds the snapshot, calls the solver, applies the answer; returns the tasks started.
    fn epoch(&mut self) -> Result<u64, SimError> {
        let before = Instant::now();
        let offered = self.fill_snapshot();
        let built = Instant::now();
        let answer = placer_solver::place(&self.req, &PlaceOptions::default())
            .map_err(|source| SimError::Solver { time_s: self.now, source })?;
        let solve_ms = built.elapsed().as_secs_f64() * 1e3;
        let snapshot_ms = built.duration_since(before).as_secs_f64() * 1e3;
        let start = EpochStart {
            pending: self.pending[0] + self.pending[1],
            offered,
            running: self.running.len(),
            free: self.free,
        };
        self.apply(&answer)?;
        self.metrics.epoch_solved(self.now, start, &answer, snapshot_ms, solve_ms);
        if self.cfg.audit {
            self.audit_slots()?;
        }
        Ok(answer.assignments.len() as u64)
    }

    fn apply(&mut self, answer: &PlaceResponse) -> Result<(), SimError> {
        let time_s = self.now;
        let bad = |message: String| SimError::InvalidAnswer { time_s, message };
        for p in &answer.preemptions {
            let t = self
                .ix
                .parse_task_id(p.task.as_str())
                .ok_or_else(|| bad(format!("preemption of unknown task {}", p.task)))?;
            if self.tasks[t].phase != Phase::Running {
                return Err(bad(format!("preemption of task {} that is not running", p.task)));
            }
            self.kill(t);
        }
        for a in &answer.assignments {
            let t = self
                .ix
                .parse_task_id(a.task.as_str())
                .ok_or_else(|| bad(format!("assignment of unknown task {}", a.task)))?;
            let n = parse_node_id(a.node.as_str(), self.cluster.len())
                .ok_or_else(|| bad(format!("assignment to unknown node {}", a.node)))?;
            if self.tasks[t].phase != Phase::Pending {
                return Err(bad(format!("assignment of task {} that is not pending", a.task)));
            }
            let kind = self.ix.tasks[t].kind;
            let slots = match kind {
                TaskKind::Map => self.cluster.map_slots[n],
                TaskKind::Reduce => self.cluster.reduce_slots[n],
            };
            if self.used[n][kind.slot()] >= slots {
                return Err(bad(format!(
                    "task {} assigned to node {} without a free slot",
                    a.task, a.node
                )));
            }
            self.start(t, n);
        }
        for report in &answer.jobs {
            if let Some(j) = parse_job_id(report.id.as_str(), self.jobs.len()) {
                self.jobs[j].delay = report.delay;
            }
        }
        for report in &answer.pools {
            let pool = report.id.as_str().strip_prefix('p').and_then(|i| i.parse::<usize>().ok());
            if let Some(p) = pool.filter(|&p| p < self.starvation.len()) {
                self.starvation[p] = Some(report.starvation);
            }
        }
        Ok(())
    }

    /// Starts pending task `t` on node `n` (a free slot of its kind).
    fn start(&mut self, t: usize, n: usize) {
        let task = &self.ix.tasks[t];
        let (j, kind) = (task.job as usize, task.kind.slot());
        self.jobs[j].pending[kind].remove(&t);
        self.pending[kind] -= 1;
        self.used[n][kind] += 1;
        self.free[kind] -= 1;
        self.running.insert(t);
        let disk = self.cfg.disk_mb_s * 1e6;
        let rack = self.cluster.rack_of[n];
        let mut local_bytes = 0u64;
        let mut flows = std::mem::take(&mut self.tasks[t].flows);
        flows.clear();
        let locality;
        match task.kind {
            TaskKind::Map => {
                let replicas = self.ix.replicas(t);
                locality = self.map_locality(replicas, n);
                match locality {
                    Locality::Node | Locality::None => local_bytes = task.bytes,
                    Locality::Rack | Locality::Remote => {
                        let src = self.map_source(replicas, n, locality);
                        if task.bytes > 0 {
                            let f = self.net.start(
                                self.now,
                                t,
                                task.bytes,
                                (src, self.cluster.rack_of[src]),
                                (n, rack),
                                &mut self.queue,
                            );
                            flows.push(f);
                        }
                    }
                }
            }
            TaskKind::Reduce => {
                locality = Locality::None;
                // One flow per source rack: bytes of that rack's nodes summed (ordered by
                // rack, then by first source node).
                let mut per_rack: BTreeMap<usize, (usize, u64)> = BTreeMap::new();
                for (src, bytes) in shuffle_split(task.bytes, &self.jobs[j].shuffle) {
                    if src == n {
                        local_bytes += bytes;
                    } else if bytes > 0 {
                        let e = per_rack.entry(self.cluster.rack_of[src]).or_insert((src, 0));
                        e.1 += bytes;
                    }
                }
                for (src_rack, (src, bytes)) in per_rack {
                    let f = self.net.start(
                        self.now,
                        t,
                        bytes,
                        (src, src_rack),
                        (n, rack),
                        &mut self.queue,
                    );
                    flows.push(f);
                }
            }
        }
        self.metrics.task_started(j, t, locality);
        self.metrics.read_local(local_bytes);
        let compute_s = task.compute_s;
        let run = &mut self.tasks[t];
        run.phase = Phase::Running;
        run.version = run.version.wrapping_add(1);
        run.node = n;
        run.started_s = self.now;
        run.local_done_s = self.now + local_bytes as f64 / disk;
        run.flows_left = flows.len();
        run.flows = flows;
        if run.flows_left == 0 {
            let (at, version) = (run.local_done_s + compute_s, run.version);
            self.queue.push(at, EventKind::TaskDone { task: t, version });
        }
    }

    fn map_locality(&self, replicas: &[u32], n: usize) -> Locality {
        if replicas.is_empty() {
            Locality::None
        } else if replicas.iter().any(|&r| r as usize == n) {
            Locality::Node
        } else if replicas
            .iter()
            .any(|&r| self.cluster.rack_of[r as usize] == self.cluster.rack_of[n])
        {
            Locality::Rack
        } else {
            Locality::Remote
        }
    }

    /// The replica a non-local map reads from: the first in its rack, else the one whose
    /// rack-to-rack link carries the fewest flows (ties: replica order).
    fn map_source(&self, replicas: &[u32], n: usize, locality: Locality) -> usize {
        let rack = self.cluster.rack_of[n];
        let mut best = replicas[0] as usize;
        if locality == Locality::Rack {
            for &r in replicas {
                if self.cluster.rack_of[r as usize] == rack {
                    return r as usize;
                }
            }
        }
        let mut best_load = usize::MAX;
        for &r in replicas {
            let load = self.net.cross_load(self.cluster.rack_of[r as usize], rack);
            if load < best_load {
                best_load = load;
                best = r as usize;
            }
        }
        best
    }

    fn flow_done(&mut self, end: FlowEnd) {
        self.metrics.flow_ended(&end);
        let t = end.task;
        let compute_s = self.ix.tasks[t].compute_s;
        let run = &mut self.tasks[t];
        run.flows_left = run.flows_left.saturating_sub(1);
        if run.flows_left == 0 {
            let at = self.now.max(run.local_done_s) + compute_s;
            let version = run.version;
            self.queue.push(at, EventKind::TaskDone { task: t, version });
        }
    }

    /// Frees task `t`'s slot (it ran since `started_s`).
    fn release(&mut self, t: usize) {
        let task = &self.ix.tasks[t];
        let kind = task.kind.slot();
        let run = &mut self.tasks[t];
        run.version = run.version.wrapping_add(1);
        self.used[run.node][kind] -= 1;
        self.free[kind] += 1;
        self.metrics.slot_freed(kind, self.now - run.started_s);
        self.running.remove(&t);
    }

    /// Preemption: the run dies, its transfers stop, the task is pending again.
    fn kill(&mut self, t: usize) {
        let flows = std::mem::take(&mut self.tasks[t].flows);
        for &f in &flows {
            if let Some(end) = self.net.cancel(f, t, self.now, &mut self.queue) {
                self.metrics.flow_ended(&end);
            }
        }
        self.tasks[t].flows = flows;
        self.release(t);
        self.metrics.task_preempted(self.ix.tasks[t].job as usize);
        self.make_pending(t);
    }

    fn task_done(&mut self, t: usize) -> Result<(), SimError> {
        self.release(t);
        let (j, kind, output) = {
            let task = &self.ix.tasks[t];
            (task.job as usize, task.kind, task.output_bytes)
        };
        let run = &mut self.tasks[t];
        run.phase = Phase::Done;
        run.completions += 1;
        if run.completions > 1 {
            return Err(SimError::Invariant {
                time_s: self.now,
                message: format!("task {} completed twice", self.ix.task_id(t)),
            });
        }
        let node = run.node;
        let job = &mut self.jobs[j];
        match kind {
            TaskKind::Map => {
                self.metrics.map_finished(j, t);
                let e = job.map_output.entry(node).or_insert((0, 0));
                e.0 += output;
                e.1 += 1;
                job.maps_left -= 1;
                if job.maps_left == 0 {
                    let by_bytes = job.map_output.values().any(|&(b, _)| b > 0);
                    job.shuffle = job
                        .map_output
                        .iter()
                        .map(|(&n, &(b, c))| (n, if by_bytes { b } else { c }))
                        .collect();
                    let spec = self.ix.jobs[j].clone();
                    for r in 0..spec.reduces {
                        self.make_pending(spec.task(TaskKind::Reduce, r));
                    }
                    if spec.reduces > 0 {
                        self.ensure_tick();
                    }
                }
            }
            TaskKind::Reduce => job.reduces_left -= 1,
        }
        let job = &self.jobs[j];
        if job.maps_left == 0 && job.reduces_left == 0 {
            self.active_jobs.remove(&j);
            self.job_done(j);
        }
        Ok(())
    }

    /// Job `j` finished now.
    fn job_done(&mut self, j: usize) {
        self.metrics.job_finished(j, self.now);
        if let Some(f) = self.on_job_done {
            f();
        }
    }

    /// Slots never oversubscribed; the counters agree with the running set.
    fn audit_slots(&self) -> Result<(), SimError> {
        let mut used = vec![[0u32; 2]; self.cluster.len()];
        for &t in &self.running {
            used[self.tasks[t].node][self.ix.tasks[t].kind.slot()] += 1;
        }
        for (n, u) in used.iter().enumerate() {
            if *u != self.used[n]
                || u[0] > self.cluster.map_slots[n]
                || u[1] > self.cluster.reduce_slots[n]
            {
                return Err(SimError::Invariant {
                    time_s: self.now,
                    message: format!(
                        "node {n}: running {u:?}, counted {:?}, slots {} / {}",
                        self.used[n], self.cluster.map_slots[n], self.cluster.reduce_slots[n]
                    ),
                });
            }
        }
        Ok(())
    }

    /// At the end of a completed run every task completed exactly once.
    fn audit_end(&self, stop: StopReason) -> Result<(), SimError> {
        if stop != StopReason::Completed {
            return Ok(());
        }
        for (t, run) in self.tasks.iter().enumerate() {
            if run.completions != 1 || run.phase != Phase::Done {
                return Err(SimError::Invariant {
                    time_s: self.now,
                    message: format!(
                        "task {} completed {} times, phase {:?}",
                        self.ix.task_id(t),
                        run.completions,
                        run.phase
                    ),
                });
            }
        }
        Ok(())
    }
}

/// A reduce's shuffle bytes per source node: `bytes · w_s / Σ w` (floor), the rounding
/// remainder on the last source, so that the parts sum to `bytes`. Example: 10 bytes over
/// weights (n1: 1, n4: 2) → (n1, 3), (n4, 7). No sources → nothing to pull.
pub(crate) fn shuffle_split(bytes: u64, sources: &[(usize, u64)]) -> Vec<(usize, u64)> {
    let total: u128 = sources.iter().map(|&(_, w)| u128::from(w)).sum();
    if total == 0 {
        return Vec::new();
    }
    let mut left = bytes;
    let mut out = Vec::with_capacity(sources.len());
    for (i, &(n, w)) in sources.iter().enumerate() {
        let part = if i + 1 == sources.len() {
            left
        } else {
            (u128::from(bytes) * u128::from(w) / total) as u64
        };
        left -= part.min(left);
        out.push((n, part));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffle_split_sums_to_bytes() {
        assert_eq!(shuffle_split(10, &[(1, 1), (4, 2)]), vec![(1, 3), (4, 7)]);
        assert_eq!(shuffle_split(10, &[]), vec![]);
        assert_eq!(shuffle_split(u64::MAX, &[(0, u64::MAX), (1, u64::MAX)]).len(), 2);
        let parts = shuffle_split(1_000_003, &[(0, 3), (1, 5), (2, 7)]);
        assert_eq!(parts.iter().map(|p| p.1).sum::<u64>(), 1_000_003);
    }
}
