//! The World: the simulated cluster's physical state and a task's life (the slot and
//! heartbeat model of FAIR, Zaharia et al. §2; `sim/README.md` draws where it sits between the
//! event loop and the Master): nodes with their slots and resources, the running and pending
//! tasks, the flows on the links (`network.rs`), the contention on a node (`contention.rs`),
//! a reduce's copying (`shuffle.rs`), the intermediate data on the disks (`intermediate.rs`),
//! the held resources (`resources.rs`) and when nodes ask for work (`offers.rs`). The Master
//! reads it to build a snapshot and changes it only through [`World::start`] and
//! [`World::kill`].
//!
//! **A task's run** (placer's model):
//! 1. *A failed attempt* of a trace (`failed_attempts_s`) holds its slot for the attempt's
//!    measured time and returns the task to pending; nothing is read or produced.
//! 2. *Input.* A map reads `input_bytes` from its own disk at `disk_mb_s` when a replica is on
//!    its node (or when it has no replica at all), else over the network from a replica in its
//!    rack if there is one, else from the replica whose rack-to-rack link is least loaded (ties:
//!    replica order), at the shared link rates of `network.rs`. With measured times
//!    ([`placer_datasets::Workload::measured_times`]) the read is counted by locality but takes
//!    no time: the trace's attempt time contains it. A reduce copies its job's map outputs
//!    (`shuffle.rs`): from the moment it starts, each finished map's share, and each later
//!    one's when it next polls (every `epoch_s`), until the last map is done and every byte
//!    has arrived.
//! 3. *Compute.* Work = the local disk read still to come + `task_overhead_s` (not with
//!    measured times) + `compute_s`, done at rate 1, or at the node's contention rate when
//!    the task has a demand (`contention.rs`).
//!
//! **Resources** (`resources.rs`): with a workload that has demands, a multi-resource policy
//! (`ras`, `drf`, `lsap_ras`) places by the nodes' capacities, not their slots: a node may run
//! more tasks than its configured slots, and an epoch whose previous solver call placed
//! nothing skips the solver until a task ends or becomes pending (its answer would be as
//! empty: the room it saw has not grown).
//!
//! **Jobs** run a setup task before their tasks are pending and a cleanup task after their
//! last one (Hadoop 0.20's, as a trace measured them or `job_setup_s` / `job_cleanup_s`), each
//! in a slot it takes through an offer, or as delays without a slot (`job_tasks.rs`).
//!
//! **Ends are reported** at the node's next heartbeat (`reports.rs`): until then the slot stays
//! taken and the job's progress unchanged.
//!
//! **Reduces** become pending once ⌈`slowstart` · maps⌉ of their job's maps have finished
//! (Hadoop's slowstart; 1.0: when all have).
//!
//! **Intermediate data** (`intermediate.rs`, FAIR §5.4): with `intermediate_gb`, map outputs
//! occupy their node's disk until their job finishes, the snapshot tells the solver each
//! node's free space, and a stuck cluster evicts a victim job's outputs.
//!
//! Per event the work is O(log events) plus O(flows on the touched links) plus O(tasks
//! computing on the node); a map's end costs O(its job's copying reduces). What the run
//! measures, and the report built from it, is in `metrics.rs`.

mod contention;
mod hooks;
mod intermediate;
mod job_tasks;
mod offers;
mod reports;
mod resources;
mod shuffle;
mod task;

pub(crate) use task::{JobRun, Phase, TaskRun};

use hooks::{Ctx, Mechanism};

use crate::cluster::SimCluster;
use crate::config::{SimConfig, Victim};
use crate::error::SimError;
use crate::metrics::Metrics;
use crate::network::{FlowEnd, Network};
use crate::queue::{EventKind, EventQueue};
use crate::report::StopReason;
use crate::workload_index::WorkloadIndex;
use placer_datasets::Workload;
use placer_models::{Locality, TaskKind};
use std::collections::BTreeSet;

/// The World as a mechanism's hook sees it ([`Ctx`]), borrowed field by field so that the
/// mechanisms themselves stay free to borrow.
macro_rules! ctx {
    ($w:ident) => {
        Ctx {
            now: $w.now,
            cfg: $w.cfg,
            cluster: &$w.cluster,
            ix: &$w.ix,
            tasks: &mut $w.tasks,
            jobs: &$w.jobs,
            net: &mut $w.net,
            queue: &mut $w.queue,
            metrics: &mut $w.metrics,
        }
    };
}

/// The cluster's state and every task's and job's.
pub(crate) struct World<'a> {
    pub cfg: &'a SimConfig,
    pub workload: &'a Workload,
    /// Called once per finished job (a progress bar's tick); never affects the run.
    pub on_job_done: Option<&'a (dyn Fn() + Sync)>,
    pub cluster: SimCluster,
    pub ix: WorkloadIndex,
    /// The world's clock: every scheduled event.
    pub queue: EventQueue,
    pub net: Network,
    pub tasks: Vec<TaskRun>,
    pub jobs: Vec<JobRun>,
    /// Busy slots per node and kind (above the node's slots only when uncapped).
    pub used: Vec<[u32; 2]>,
    /// Σ demand (cpu, mem, io) of the tasks running per node, and per job and kind the
    /// pending bound of an uncapped run (`resources.rs`).
    pub resources: resources::Held,
    /// Uncapped runs: the last solver call placed nothing and no task has ended or become
    /// pending since, so the next epoch's answer would be as empty (the solver is skipped).
    pub idle: bool,
    /// Pending tasks per kind.
    pub pending: [usize; 2],
    /// Running tasks, in task order.
    pub running: BTreeSet<usize>,
    /// Running tasks per kind.
    pub running_kind: [usize; 2],
    /// Arrived, unfinished jobs.
    pub active_jobs: BTreeSet<usize>,
    pub arrivals_left: usize,
    pub tick_scheduled: bool,
    pub stall: u32,
    pub now: f64,
    /// Scratch list reused across events (no allocation per event).
    scratch_tasks: Vec<usize>,
    /// Per-node heartbeats (`offers.rs`); `None` at epochs.
    pub beats: Option<offers::Beats>,
    /// Tasks computing with a demand, per node (`contention.rs`).
    load: contention::NodeLoad,
    /// Intermediate data on disks and its evictions (`intermediate.rs`).
    pub disks: intermediate::Disks,
    /// Reduces' copy phases and jobs' finished outputs (`shuffle.rs`).
    shuffle: shuffle::Shuffle,
    /// What the run measures; read only by the report.
    pub metrics: Metrics,
    /// Setup and cleanup tasks waiting and holding slots (`job_tasks.rs`).
    job_tasks: job_tasks::JobTasks,
    /// Ends each node has yet to report (`reports.rs`).
    reports: reports::Reports,
}

impl<'a> World<'a> {
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
                attempt: 0,
                doomed: false,
                computing: false,
                exited: false,
                work_left: 0.0,
                settled_s: 0.0,
            };
            ix.tasks.len()
        ];
        let jobs = ix
            .jobs
            .iter()
            .map(|j| JobRun {
                arrived: false,
                maps_done: 0,
                reduces_left: j.reduces,
                released: false,
                pending: [BTreeSet::new(), BTreeSet::new()],
                maps_io_done: (0, 0),
                map_s_done: 0.0,
            })
            .collect();
        let mut queue = EventQueue::default();
        for (j, job) in ix.jobs.iter().enumerate() {
            queue.push(job.submit_s, EventKind::Arrival(j));
        }
        if cluster.uncapped && cfg.heartbeats().is_some() {
            return Err(SimError::config(
                "offers",
                format!(
                    "{} places by resources at epochs; heartbeat offers count a node's free \
                     slots, which its uncapped nodes do not have (use epoch offers)",
                    cfg.policy.algorithm.name()
                ),
            ));
        }
        let bound = if cluster.uncapped {
            resources::ResourceBound::new(&ix, &cluster.capacity)
        } else {
            resources::ResourceBound::default()
        };
        let mut metrics = Metrics::new(ix.jobs.len(), ix.tasks.len(), cluster.nodes_of_rack.len());
        metrics.set_submissions(ix.jobs.iter().map(|j| j.submit_s));
        metrics.fragmentation = crate::fragmentation::Fragmentation::new(workload, &cluster);
        let beats = cfg.heartbeats().map(|multiple| {
            let heartbeat: placer_solver::delay_scheduling::Heartbeat =
                placer_solver::settings::read(&cfg.policy);
            offers::Beats::new(cluster.len(), heartbeat.heartbeat_s, multiple, cfg.seed)
        });
        let racks = cluster.nodes_of_rack.len();
        let (cluster_len, ix_jobs) = (cluster.len(), ix.jobs.len());
        Ok(Self {
            net: Network::new(
                cluster.len(),
                racks,
                cfg.rack_mbps,
                cfg.cross_rack_mbps,
                cfg.uplink_mbps,
                cfg.sharing,
            )
            .with_loss(cfg.goodput, cfg.netsat_measure == crate::NetSatMeasure::Offered),
            used: vec![[0, 0]; cluster.len()],
            resources: resources::Held::new(cluster.len(), bound),
            idle: false,
            arrivals_left: ix.jobs.len(),
            load: contention::NodeLoad::new(cluster.len()),
            disks: intermediate::Disks::new(cluster.len(), ix.jobs.len(), cfg.intermediate_gb),
            shuffle: shuffle::Shuffle::new(ix.tasks.len(), ix.jobs.len()),
            beats,
            cfg,
            workload,
            on_job_done: None,
            cluster,
            ix,
            queue,
            tasks,
            jobs,
            pending: [0, 0],
            running: BTreeSet::new(),
            running_kind: [0, 0],
            active_jobs: BTreeSet::new(),
            tick_scheduled: false,
            stall: 0,
            now: 0.0,
            scratch_tasks: Vec::new(),
            metrics,
            job_tasks: job_tasks::JobTasks::new(cluster_len, ix_jobs),
            reports: reports::Reports::new(cluster_len),
        })
    }

    /// A kind has pending tasks again: the epoch tick, or every node that can use a heartbeat.
    fn wake_all(&mut self) {
        let Some(mut beats) = self.beats.take() else {
            self.offer_soon();
            return;
        };
        let view =
            slot_view(&self.cluster, &self.used, self.pending, self.cfg, self.job_tasks.waiting());
        beats.wake_all(&view, self.now, &mut self.queue);
        self.beats = Some(beats);
    }

    /// A slot of `kind` on node `n` was freed: its next heartbeat, if tasks of the kind wait.
    fn slot_freed(&mut self, n: usize, kind: usize) {
        if let Some(b) = &mut self.beats {
            let waiting = self.pending[kind] + self.job_tasks.waiting();
            b.slot_freed(n, waiting, self.now, &mut self.queue);
        }
    }

    /// Node `n` heartbeats: the free slots per kind it offers, `None` when it has no use for
    /// the heartbeat (or offers are at epochs).
    pub(crate) fn heartbeat_offer(&mut self, n: usize) -> Option<[u32; 2]> {
        let mut beats = self.beats.take()?;
        self.metrics.tick();
        let offer = beats.offer(
            &slot_view(&self.cluster, &self.used, self.pending, self.cfg, self.job_tasks.waiting()),
            n,
        );
        self.beats = Some(beats);
        offer
    }

    /// After node `n`'s heartbeat was answered: its next one, if it still has a use for it.
    pub(crate) fn heartbeat_done(&mut self, n: usize) {
        let Some(mut beats) = self.beats.take() else { return };
        let view =
            slot_view(&self.cluster, &self.used, self.pending, self.cfg, self.job_tasks.waiting());
        beats.answered(&view, n, self.now, &mut self.queue);
        self.beats = Some(beats);
    }

    /// Reduce `t`'s shuffle bytes known so far, per source node, into `out` (`shuffle.rs`).
    pub(crate) fn known_shuffle_into(&self, t: usize, out: &mut Vec<(usize, u64)>) {
        self.shuffle.known_into(&self.ix, t, out);
    }

    /// The version of job `j`'s known shuffle bytes: while it is the same,
    /// [`World::known_shuffle_into`] gives the same for each of its reduces.
    pub(crate) fn known_shuffle_version(&self, j: usize) -> u64 {
        self.shuffle.known_version(j)
    }

    /// Job `j`'s copying reduces poll for finished maps: they fetch what they are owed, and
    /// those whose copy is complete start computing.
    pub(crate) fn fetch_poll(&mut self, j: usize) {
        self.shuffle.poll_due(j);
        let mut copying = std::mem::take(&mut self.scratch_tasks);
        self.shuffle.copying_of(j, &mut copying);
        for &r in &copying {
            if self.with_shuffle(|s, cx| s.poll(cx, r)) {
                self.start_compute(r);
            }
        }
        self.scratch_tasks = copying;
    }

    /// Calls `f` with the shuffle and the rest of the World as a mechanism sees it.
    fn with_shuffle<R>(&mut self, f: impl FnOnce(&mut shuffle::Shuffle, &mut Ctx<'_>) -> R) -> R {
        f(&mut self.shuffle, &mut ctx!(self))
    }

    /// Calls `hook` on every mechanism of the World, in this order: their registration.
    fn each_mechanism(&mut self, mut hook: impl FnMut(&mut dyn Mechanism, &mut Ctx<'_>)) {
        let mut cx = ctx!(self);
        let mechanisms: [&mut dyn Mechanism; 3] =
            [&mut self.load, &mut self.disks, &mut self.shuffle];
        for m in mechanisms {
            hook(m, &mut cx);
        }
    }

    pub(crate) fn arrive(&mut self, j: usize) {
        self.arrivals_left -= 1;
        self.jobs[j].arrived = true;
        let spec = self.ix.jobs[j].clone();
        if spec.maps + spec.reduces == 0 {
            self.job_done(j);
            return;
        }
        self.active_jobs.insert(j);
        self.metrics.fragmentation.arrived(j);
        self.set_up(j);
    }

    /// Job `j`'s set-up is done: its maps (and, with slowstart 0, reduces) are pending.
    pub(crate) fn job_ready(&mut self, j: usize) {
        let spec = self.ix.jobs[j].clone();
        for m in 0..spec.maps {
            self.make_pending(spec.task(TaskKind::Map, m));
        }
        for r in 0..spec.reduces {
            self.tasks[spec.task(TaskKind::Reduce, r)].phase = Phase::Blocked;
        }
        self.release_reduces(j);
        self.offer_soon();
    }

    /// Makes job `j`'s reduces pending once slowstart allows it.
    pub(crate) fn release_reduces(&mut self, j: usize) {
        let spec = &self.ix.jobs[j];
        if self.jobs[j].released || self.jobs[j].maps_done < spec.slowstart_maps {
            return;
        }
        self.jobs[j].released = true;
        let (first, maps, reduces) = (spec.first, spec.maps, spec.reduces);
        for t in first + maps..first + maps + reduces {
            if self.tasks[t].phase == Phase::Blocked {
                self.make_pending(t);
            }
        }
        if reduces > 0 {
            self.offer_soon();
        }
    }

    pub(crate) fn make_pending(&mut self, t: usize) {
        let task = &self.ix.tasks[t];
        let kind = task.kind.slot();
        let run = &mut self.tasks[t];
        run.phase = Phase::Pending;
        run.pending_since_s = self.now;
        self.idle = false;
        self.jobs[task.job as usize].pending[kind].insert(t);
        self.pending[kind] += 1;
        if self.pending[kind] == 1 {
            self.wake_all();
        }
    }

    /// Schedules the next offer: the next epoch tick, or nothing with heartbeats (those are
    /// woken by `make_pending` and by freed slots).
    pub(crate) fn offer_soon(&mut self) {
        self.idle = false;
        if self.beats.is_some() || self.tick_scheduled {
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

    /// After an offer that started `assigned` tasks: whether the run can still move (else a
    /// stuck disk is unblocked by an eviction, `intermediate.rs`, or the offer counts towards
    /// a stall).
    pub(crate) fn progressing(&mut self, assigned: u64) -> bool {
        if assigned > 0 || self.arrivals_left > 0 {
            self.stall = 0;
            return true;
        }
        if self.pending[0] > 0 && self.disks.limited() && self.disks_stuck() {
            if self.disks.evictions > 2 * self.active_jobs.len() + 2 {
                // Every job was evicted twice and none finished (its reduces have no slot,
                // say): evicting again only refills the disks. The run is stuck.
                return false;
            }
            self.disks.evictions += 1;
            self.evict();
            self.stall = 0;
            return true;
        }
        // Reduces copying with no byte in flight wait for maps: they do not move the run.
        let moving = self.net.active() > 0
            || self.job_tasks.holding()
            || self.running.iter().any(|&t| !self.shuffle.is_copying(t));
        if !moving {
            if self.disks.suspended.is_empty() {
                return false;
            }
            // Only evicted jobs could move: they may run again.
            self.disks.suspended.clear();
            self.offer_soon();
        }
        self.stall = 0;
        true
    }

    /// Starts pending task `t` on node `n` (a free slot of its kind).
    pub(crate) fn start(&mut self, t: usize, n: usize) {
        let task = &self.ix.tasks[t];
        let (j, kind) = (task.job as usize, task.kind.slot());
        self.jobs[j].pending[kind].remove(&t);
        self.pending[kind] -= 1;
        self.used[n][kind] += 1;
        // A reduce holds its demand only once it computes (`start_compute`): while it copies
        // it consumes next to nothing (RAS Table 2's shuffle column, §3.4).
        if task.kind == TaskKind::Map {
            self.resources.take(n, task.demand);
        }
        self.running.insert(t);
        self.running_kind[kind] += 1;
        self.metrics.fragmentation.running_changed(j, true);
        let map = task.kind == TaskKind::Map;
        self.metrics.run_placed(j, map, self.now, self.cluster.rack_of[n]);
        let run = &mut self.tasks[t];
        run.phase = Phase::Running;
        run.version = run.version.wrapping_add(1);
        run.node = n;
        run.started_s = self.now;
        run.local_done_s = self.now;
        run.flows.clear();
        run.flows_left = 0;
        run.computing = false;
        run.exited = false;
        let attempts = self.ix.failed_attempts(t);
        if let Some(&d) = attempts.get(run.attempt as usize) {
            // A failed attempt of the trace: it holds the slot, then fails.
            run.doomed = true;
            let version = run.version;
            self.queue.push(self.now + d, EventKind::TaskDone { task: t, version });
            self.metrics.task_started(j, t, Locality::None);
            return;
        }
        run.doomed = false;
        self.each_mechanism(|m, cx| m.task_started(cx, t));
        match self.ix.tasks[t].kind {
            TaskKind::Map => self.start_map(t, n),
            TaskKind::Reduce => {
                self.metrics.task_started(j, t, Locality::None);
                if self.with_shuffle(|s, cx| s.start(cx, t)) {
                    self.start_compute(t);
                }
            }
        }
    }

    /// A map's input: node-local from disk, else one flow from the chosen replica.
    fn start_map(&mut self, t: usize, n: usize) {
        let task = &self.ix.tasks[t];
        let j = task.job as usize;
        let replicas = self.ix.replicas(t);
        let locality = self.map_locality(replicas, n);
        self.metrics.task_started(j, t, locality);
        let rack = self.cluster.rack_of[n];
        let bytes = task.bytes;
        match locality {
            Locality::Node | Locality::None => {
                self.metrics.read_local(bytes);
                if !self.workload.measured_times {
                    self.tasks[t].local_done_s = self.now + bytes as f64 / self.disk_rate();
                }
            }
            Locality::Rack | Locality::Remote => {
                let src = self.map_source(replicas, n, locality);
                let src_rack = self.cluster.rack_of[src];
                if self.workload.measured_times {
                    // The trace's time already contains the read: count its bytes only.
                    let read = FlowEnd {
                        task: t,
                        moved: bytes as f64,
                        cross_rack: src_rack != rack,
                        src_rack,
                        dst_rack: rack,
                    };
                    self.metrics.flow_ended(&read, TaskKind::Map, j);
                    if read.cross_rack {
                        self.net.meter.lump(self.now, (src_rack, rack), false, read.moved);
                    }
                } else if bytes > 0 {
                    let f = self.net.start(
                        self.now,
                        t,
                        false,
                        bytes,
                        (src, src_rack),
                        (n, rack),
                        &mut self.queue,
                    );
                    self.tasks[t].flows.push(f);
                    self.tasks[t].flows_left = 1;
                }
            }
        }
        if self.tasks[t].flows_left == 0 {
            self.start_compute(t);
        }
    }

    /// Free slots per kind: the cluster's slots less the running tasks (0 once an uncapped
    /// run's tasks outnumber its configured slots).
    pub(crate) fn free_slots(&self) -> [u64; 2] {
        let held = self.job_tasks.held();
        let running = |k: usize| self.running_kind[k] as u64 + held[k];
        [
            self.cluster.total_map_slots.saturating_sub(running(0)),
            self.cluster.total_reduce_slots.saturating_sub(running(1)),
        ]
    }

    /// Measures the free slots stranded by the waiting required gangs now (`fragmentation.rs`):
    /// after an epoch's placement is applied. O(nodes + arrived required gangs).
    pub(crate) fn measure_fragmentation(&mut self) {
        let (cluster, used, jobs) = (&self.cluster, &self.used, &self.jobs);
        let free = |n: usize| {
            [
                u64::from(cluster.map_slots[n].saturating_sub(used[n][0])),
                u64::from(cluster.reduce_slots[n].saturating_sub(used[n][1])),
            ]
        };
        let pending = |j: usize| jobs[j].pending.iter().any(|p| !p.is_empty());
        self.metrics.fragmentation.measure(self.now, cluster, free, pending);
    }

    /// Bytes/s of a local disk.
    pub(crate) fn disk_rate(&self) -> f64 {
        self.cfg.disk_mb_s * 1e6
    }

    /// The task's input is complete: its compute begins (the local read still to come, the
    /// start-up overhead and `compute_s`, as one piece of work).
    pub(crate) fn start_compute(&mut self, t: usize) {
        let overhead = if self.workload.measured_times { 0.0 } else { self.cfg.task_overhead_s };
        let work = (self.tasks[t].local_done_s - self.now).max(0.0)
            + overhead
            + self.ix.tasks[t].compute_s;
        if self.ix.tasks[t].kind == TaskKind::Reduce {
            let n = self.tasks[t].node;
            self.resources.take(n, self.ix.tasks[t].demand);
        }
        let run = &mut self.tasks[t];
        run.computing = true;
        run.work_left = work;
        run.settled_s = self.now;
        let mut scheduled = false;
        self.each_mechanism(|m, cx| scheduled |= m.compute_started(cx, t));
        if !scheduled {
            let version = self.tasks[t].version;
            self.queue.push(self.now + work, EventKind::TaskDone { task: t, version });
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

    pub(crate) fn flow_done(&mut self, end: FlowEnd) {
        let task = &self.ix.tasks[end.task];
        self.metrics.flow_ended(&end, task.kind, task.job as usize);
        let t = end.task;
        let run = &mut self.tasks[t];
        run.flows_left = run.flows_left.saturating_sub(1);
        if self.shuffle.is_copying(t) {
            if self.with_shuffle(|s, cx| s.fetch_done(cx, t, end.src_rack)) {
                self.start_compute(t);
            }
        } else if self.tasks[t].flows_left == 0 {
            self.start_compute(t);
        }
    }

    /// Frees task `t`'s slot (it ran since `started_s`) and drops whatever it was doing.
    fn release(&mut self, t: usize) {
        let task = &self.ix.tasks[t];
        let (kind, is_map) = (task.kind.slot(), task.kind == TaskKind::Map);
        let holds = is_map || self.tasks[t].computing;
        self.each_mechanism(|m, cx| m.task_released(cx, t));
        let run = &mut self.tasks[t];
        run.version = run.version.wrapping_add(1);
        run.computing = false;
        run.exited = false;
        let (n, started_s) = (run.node, run.started_s);
        self.used[n][kind] -= 1;
        if holds {
            self.resources.give_back(n, self.ix.tasks[t].demand);
        }
        self.idle = false;
        self.running_kind[kind] -= 1;
        self.metrics.slot_freed(kind, started_s, self.now);
        self.metrics.fragmentation.running_changed(self.ix.tasks[t].job as usize, false);
        self.running.remove(&t);
        self.slot_freed(n, kind);
    }

    /// Preemption: the run dies, its transfers stop, the task is pending again.
    pub(crate) fn kill(&mut self, t: usize) {
        let flows = std::mem::take(&mut self.tasks[t].flows);
        for &f in &flows {
            if let Some(end) = self.net.cancel(f, t, self.now, &mut self.queue) {
                let task = &self.ix.tasks[end.task];
                self.metrics.flow_ended(&end, task.kind, task.job as usize);
            }
        }
        self.tasks[t].flows = flows;
        self.tasks[t].flows_left = 0;
        self.release(t);
        self.metrics.task_preempted(self.ix.tasks[t].job as usize);
        self.make_pending(t);
    }

    /// Task `t`'s end takes effect (at once, or when its node reports it: `reports.rs`).
    pub(crate) fn finish_task(&mut self, t: usize) -> Result<(), SimError> {
        if self.tasks[t].doomed {
            // A failed attempt ends: the task is pending again for its next attempt.
            self.release(t);
            self.tasks[t].attempt += 1;
            self.make_pending(t);
            return Ok(());
        }
        self.release(t);
        let (j, kind, input, output) = {
            let task = &self.ix.tasks[t];
            (task.job as usize, task.kind, task.bytes, task.output_bytes)
        };
        let run = &mut self.tasks[t];
        run.phase = Phase::Done;
        run.completions += 1;
        if run.completions > 1 {
            return Err(SimError::Invariant {
                time_s: self.now,
                message: format!("task {t} (job {j}) completed twice"),
            });
        }
        match kind {
            TaskKind::Map => {
                self.metrics.map_finished(j, t);
                self.each_mechanism(|m, cx| m.map_finished(cx, t));
                self.jobs[j].maps_done += 1;
                self.jobs[j].map_s_done += self.now - self.tasks[t].started_s;
                let io = &mut self.jobs[j].maps_io_done;
                io.0 += u128::from(input);
                io.1 += u128::from(output);
                self.release_reduces(j);
            }
            TaskKind::Reduce => self.jobs[j].reduces_left -= 1,
        }
        let job = &self.jobs[j];
        if job.maps_done == self.ix.jobs[j].maps && job.reduces_left == 0 {
            self.active_jobs.remove(&j);
            self.metrics.fragmentation.finished(j);
            self.free_intermediate(j);
            self.clean_up(j);
        }
        Ok(())
    }

    /// Job `j` finished now.
    pub(crate) fn job_done(&mut self, j: usize) {
        self.metrics.job_finished(j, self.now);
        self.disks.evictions = 0;
        if !self.disks.suspended.is_empty() {
            self.disks.suspended.clear();
            self.wake_all();
        }
        if let Some(f) = self.on_job_done {
            f();
        }
    }

    /// Slots never oversubscribed (uncapped: resources never oversubscribed); the counters
    /// agree with the running set.
    pub(crate) fn audit_slots(&self) -> Result<(), SimError> {
        let mut used: Vec<[u32; 2]> =
            (0..self.cluster.len()).map(|n| self.job_tasks.held_on(n)).collect();
        for &t in &self.running {
            used[self.tasks[t].node][self.ix.tasks[t].kind.slot()] += 1;
        }
        let capped = !self.cluster.uncapped;
        for (n, u) in used.iter().enumerate() {
            if *u != self.used[n]
                || (capped && u[0] > self.cluster.map_slots[n])
                || (capped && u[1] > self.cluster.reduce_slots[n])
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
        if self.cluster.uncapped {
            let maps = self.running.iter().filter(|&&t| self.ix.tasks[t].kind == TaskKind::Map);
            let maps = maps.map(|&t| (self.tasks[t].node, self.ix.tasks[t].demand));
            resources::audit_maps(maps, &self.cluster.capacity, self.now)?;
        }
        self.disks.audit(self.now)
    }

    /// At the end of a completed run every task completed exactly once.
    pub(crate) fn audit_end(&self, stop: StopReason) -> Result<(), SimError> {
        if stop != StopReason::Completed {
            return Ok(());
        }
        for (t, run) in self.tasks.iter().enumerate() {
            if run.completions != 1 || run.phase != Phase::Done {
                return Err(SimError::Invariant {
                    time_s: self.now,
                    message: format!(
                        "task {t} (job {}) completed {} times, phase {:?}",
                        self.ix.tasks[t].job, run.completions, run.phase
                    ),
                });
            }
        }
        Ok(())
    }

    /// An evicted map's output is lost: it must run again (`intermediate.rs`).
    pub(crate) fn unfinish_map(&mut self, t: usize) {
        let run = &mut self.tasks[t];
        run.completions = run.completions.saturating_sub(1);
        self.metrics.map_lost(self.ix.tasks[t].job as usize, t);
        self.make_pending(t);
    }
}

/// What a heartbeat decision reads (`offers.rs`).
fn slot_view<'w>(
    cluster: &'w SimCluster,
    used: &'w [[u32; 2]],
    pending: [usize; 2],
    cfg: &SimConfig,
    job_tasks_waiting: usize,
) -> offers::SlotView<'w> {
    offers::SlotView {
        map_slots: &cluster.map_slots,
        reduce_slots: &cluster.reduce_slots,
        used,
        pending,
        may_preempt: cfg.may_preempt(),
        job_tasks_waiting,
    }
}

/// Intermediate space: FAIR §5.4's deadlock and its eviction (`intermediate.rs` documents
/// both).
impl World<'_> {
    /// Job `j` finished or was evicted: its outputs are deleted.
    pub(crate) fn free_intermediate(&mut self, j: usize) {
        self.idle = false;
        self.disks.free_job(j);
    }

    /// §5.4's deadlock (see the module docs).
    pub(crate) fn disks_stuck(&self) -> bool {
        if self.running_kind[0] > 0
            || self.net.active() > 0
            || self.running.iter().any(|&t| self.tasks[t].computing)
        {
            return false;
        }
        let smallest = self
            .active_jobs
            .iter()
            .flat_map(|&j| self.jobs[j].pending[0].iter())
            .map(|&t| self.ix.tasks[t].output_bytes)
            .min();
        let Some(smallest) = smallest else { return false };
        let fits = (0..self.cluster.len()).any(|n| {
            // An uncapped node with no map running has room for any map that fits it at all.
            (self.cluster.uncapped || self.used[n][0] < self.cluster.map_slots[n])
                && self.disks.free(n).is_none_or(|f| f >= smallest)
        });
        !fits && self.active_jobs.iter().any(|&j| self.disks.holds(j))
    }

    /// Evicts the victim job's intermediate data.
    pub(crate) fn evict(&mut self) {
        let progress = |e: &Self, j: usize| {
            let spec = &e.ix.jobs[j];
            let done = (spec.first..spec.first + spec.maps + spec.reduces)
                .filter(|&t| e.tasks[t].phase == Phase::Done)
                .count();
            done as f64 / (spec.maps + spec.reduces).max(1) as f64
        };
        let holders: Vec<usize> = self
            .active_jobs
            .iter()
            .copied()
            .filter(|&j| self.disks.holds(j) && !self.disks.suspended.contains(&j))
            .collect();
        let later = |a: usize, b: usize, e: &Self| {
            e.ix.jobs[a].submit_s.total_cmp(&e.ix.jobs[b].submit_s).then(a.cmp(&b))
        };
        let victim = match self.cfg.victim {
            Victim::LatestSubmitted => holders.iter().copied().max_by(|&a, &b| later(a, b, self)),
            Victim::LeastProgress => holders.iter().copied().min_by(|&a, &b| {
                progress(self, a).total_cmp(&progress(self, b)).then(later(b, a, self))
            }),
        };
        let Some(j) = victim else {
            // Every holder is suspended already: let them run again.
            self.disks.suspended.clear();
            return;
        };
        self.disks.suspended.insert(j);
        let spec = self.ix.jobs[j].clone();
        let mut copying = Vec::new();
        self.shuffle.copying_of(j, &mut copying);
        for r in copying {
            self.kill(r);
        }
        for m in 0..spec.maps {
            let t = spec.task(TaskKind::Map, m);
            if self.tasks[t].phase == Phase::Done {
                self.unfinish_map(t);
            }
        }
        let job = &mut self.jobs[j];
        job.maps_done = 0;
        job.maps_io_done = (0, 0);
        job.map_s_done = 0.0;
        self.shuffle.forget_maps(j);
        self.free_intermediate(j);
        self.metrics.intermediate_changed(self.disks.held_total());
        if spec.slowstart_maps > 0 && self.jobs[j].released {
            self.jobs[j].released = false;
            for r in 0..spec.reduces {
                let t = spec.task(TaskKind::Reduce, r);
                if self.tasks[t].phase == Phase::Pending {
                    self.jobs[j].pending[1].remove(&t);
                    self.pending[1] -= 1;
                    self.tasks[t].phase = Phase::Blocked;
                }
            }
        }
    }
}
