//! The discrete-event engine (DESIGN.md §What-if simulator; the slot and heartbeat model of
//! FAIR, Zaharia et al. §2): job arrivals, flow ends, task ends, epoch ticks and node heartbeats
//! on simulated time; at each offer a v1 snapshot goes to `placer_solver::place` and its answer
//! is applied (tasks start, preempted tasks die and return to pending, losing their progress)
//! and its per-job `delay` and per-pool `starvation` state is echoed into the next snapshot,
//! as a master does with the stateless service (models `state.rs`).
//!
//! **Offers** ([`crate::Offers`], `offers.rs`): at epochs (every `epoch_s` one snapshot offers
//! every free slot: the batch policies) or on per-node heartbeats (each node on its own seeded
//! phase, one map and one reduce per heartbeat as Hadoop 0.20 gave, or all free slots with
//! `assign_multiple`: the heartbeat schedulers).
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
//! **Jobs** wait `setup_s` after arriving before their tasks are pending, and finish
//! `cleanup_s` after their last task (Hadoop 0.20's setup and cleanup tasks, as a trace measured
//! them or `job_setup_s` / `job_cleanup_s`; they hold no slot here).
//!
//! **Reduces** become pending once ⌈`slowstart` · maps⌉ of their job's maps have finished
//! (Hadoop's slowstart; 1.0: when all have).
//!
//! **Intermediate data** (`intermediate.rs`, FAIR §5.4): with `intermediate_gb`, map outputs
//! occupy their node's disk until their job finishes, the snapshot tells the solver each
//! node's free space, and a stuck cluster evicts a victim job's outputs.
//!
//! Epochs fall on the grid k · `epoch_s`. A tick with no pending task schedules no further
//! tick; the next arrival or ready reduce schedules the next grid point, so idle stretches
//! cost nothing. A tick whose pending tasks have no free slot of their kind skips the solver
//! (its answer would be empty) unless the policy may preempt. Per event the work is
//! O(log events) plus O(flows on the touched links) plus O(tasks computing on the node);
//! a map's end costs O(its job's copying reduces); per solver call O(snapshot), and the
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
    /// A reduce whose job has not finished enough maps (slowstart).
    Blocked,
    /// Waiting for a slot.
    Pending,
    /// Holding a slot.
    Running,
    /// Finished.
    Done,
}

/// A reduce's copy state for one source rack.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RackFetch {
    pub rack: usize,
    /// The node the next flow comes from (the rack's latest source).
    pub src: usize,
    /// Bytes known but not yet requested.
    pub owed: u64,
    /// A flow from this rack is in progress.
    pub active: bool,
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
    completions: u32,
    pub flows: Vec<usize>,
    /// Failed attempts run so far.
    attempt: u32,
    /// The current run is one of the trace's failed attempts.
    doomed: bool,
    /// A reduce still in its copy phase.
    pub copying: bool,
    /// Per source rack, for a copying reduce.
    pub fetch: Vec<RackFetch>,
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
    reduces_left: usize,
    /// Its reduces are placeable (slowstart reached).
    pub released: bool,
    /// Pending tasks by kind, in task order.
    pub pending: [BTreeSet<usize>; 2],
    /// Echoed delay-scheduling state.
    pub delay: Option<placer_models::DelayState>,
    /// Finished maps' shuffle weight per node (node order).
    pub map_output: BTreeMap<usize, u128>,
    /// Σ `map_output`.
    pub weight_done: u128,
    /// Running reduces in their copy phase.
    pub copying: BTreeSet<usize>,
    /// A `FetchPoll` is scheduled.
    pub poll_scheduled: bool,
    /// Finished maps' output bytes per node, held on disk until the job ends.
    pub held: BTreeMap<usize, u64>,
    /// Σ input bytes and Σ output bytes of its completed maps (ShuffleWatcher §3.1's
    /// ShuffleInputRatio is their quotient; `snapshot.rs`).
    pub maps_io_done: (u128, u128),
    /// Echoed SAMP decision (ShuffleWatcher Fig. 4), as `delay`.
    pub shuffle_watcher: Option<placer_models::ShuffleWatcherState>,
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

/// One run's whole state.
pub(crate) struct Engine<'a> {
    pub cfg: &'a SimConfig,
    pub workload: &'a Workload,
    /// Draws each epoch's node order ([`crate::NodeOrder::Shuffled`]).
    pub order_rng: ChaCha8Rng,
    /// Called once per finished job (a progress bar's tick); never affects the run.
    pub on_job_done: Option<&'a (dyn Fn() + Sync)>,
    /// Called with every snapshot before it is solved (the crate's tests read them); never
    /// affects the run.
    pub on_snapshot: Option<&'a (dyn Fn(&PlaceRequest) + Sync)>,
    pub cluster: SimCluster,
    pub ix: WorkloadIndex,
    pub queue: EventQueue,
    pub net: Network,
    pub tasks: Vec<TaskRun>,
    pub jobs: Vec<JobRun>,
    /// Echoed starvation clocks per pool.
    pub starvation: Vec<Option<StarvationState>>,
    /// Busy slots per node and kind (above the node's slots only when uncapped).
    pub used: Vec<[u32; 2]>,
    /// Σ demand (cpu, mem, io) of the tasks running per node (`resources.rs`).
    pub held: Vec<[f64; 3]>,
    /// Per job and kind, the pending bound of an uncapped run (`resources.rs`).
    pub bound: crate::resources::ResourceBound,
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
    arrivals_left: usize,
    tick_scheduled: bool,
    pub stall: u32,
    pub now: f64,
    /// Reused snapshot buffer.
    pub req: PlaceRequest,
    /// Snapshot entries kept for reuse (`snapshot.rs`).
    pub spare: crate::snapshot::Spare,
    /// Scratch lists reused across events (no allocation per event).
    pub scratch_tasks: Vec<usize>,
    /// See `scratch_tasks`.
    pub scratch_parts: Vec<(usize, u64)>,
    /// Free map slots per rack in the snapshot being built (`snapshot.rs`).
    pub rack_free: Vec<u32>,
    /// Per kind, the pending tasks per job a heartbeat's snapshot carries (`snapshot.rs`).
    pub beat_bound: [u64; 2],
    /// Per-node heartbeats (`offers.rs`); `None` at epochs.
    pub beats: Option<crate::offers::Beats>,
    /// The node whose heartbeat is being answered and the free slots per kind it offers;
    /// `None` at an epoch (every free slot is offered).
    pub offer: Option<(usize, [u32; 2])>,
    /// Tasks computing with a demand, per node (`contention.rs`).
    pub load: crate::contention::NodeLoad,
    /// Intermediate data on disks (`intermediate.rs`).
    pub disks: crate::intermediate::Disks,
    /// Jobs whose outputs were evicted: their maps are not offered until a job finishes
    /// (`intermediate.rs`).
    pub suspended: BTreeSet<usize>,
    /// Evictions since a job last finished (`intermediate.rs`): past a bound, the disks
    /// thrash without any job finishing and the run counts as stalled.
    pub evictions: usize,
    /// The structured flow's labels kept from epoch to epoch (`SimConfig::warm_start`).
    pub warm: Option<placer_solver::WarmStart>,
    /// The racks' measured cross-rack traffic as the last snapshot reported it
    /// (`snapshot.rs`).
    pub rack_window: crate::snapshot::RackWindow,
    /// What the run measures; read only by the report.
    pub metrics: Metrics,
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
                attempt: 0,
                doomed: false,
                copying: false,
                fetch: Vec::new(),
                computing: false,
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
                delay: None,
                map_output: BTreeMap::new(),
                weight_done: 0,
                copying: BTreeSet::new(),
                poll_scheduled: false,
                held: BTreeMap::new(),
                maps_io_done: (0, 0),
                shuffle_watcher: None,
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
            crate::resources::ResourceBound::new(&ix, &cluster.capacity)
        } else {
            crate::resources::ResourceBound::default()
        };
        let req = crate::snapshot::base_request(cfg, &cluster, &ix, workload);
        let metrics = Metrics::new(ix.jobs.len(), ix.tasks.len(), cluster.nodes_of_rack.len());
        let beats = cfg.heartbeats().map(|multiple| {
            crate::offers::Beats::new(cluster.len(), cfg.policy.heartbeat_s, multiple, cfg.seed)
        });
        let racks = cluster.nodes_of_rack.len();
        Ok(Self {
            net: Network::new(
                cluster.len(),
                racks,
                cfg.rack_mbps,
                cfg.cross_rack_mbps,
                cfg.uplink_mbps,
            ),
            rack_window: crate::snapshot::RackWindow::new(racks),
            used: vec![[0, 0]; cluster.len()],
            held: vec![[0.0; 3]; cluster.len()],
            bound,
            idle: false,
            starvation: vec![None; ix.pools.len()],
            arrivals_left: ix.jobs.len(),
            load: crate::contention::NodeLoad::new(cluster.len()),
            disks: crate::intermediate::Disks::new(cluster.len(), cfg.intermediate_gb),
            beats,
            offer: None,
            suspended: BTreeSet::new(),
            evictions: 0,
            warm: cfg.warm_start.then(placer_solver::WarmStart::new),
            cfg,
            workload,
            on_job_done: None,
            on_snapshot: None,
            // A stream of its own, so that the replica draws of the same seed do not change.
            order_rng: ChaCha8Rng::seed_from_u64(cfg.seed ^ 0x6865_6172_7462_6561),
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
            req,
            spare: crate::snapshot::Spare::default(),
            scratch_tasks: Vec::new(),
            scratch_parts: Vec::new(),
            rack_free: Vec::new(),
            beat_bound: [u64::MAX; 2],
            metrics,
        })
    }

    /// Runs to the end and reports.
    pub fn run(mut self) -> Result<SimReport, SimError> {
        let wall = Instant::now();
        let mut stop = StopReason::Completed;
        while let Some(ev) = self.queue.pop() {
            if ev.time() < self.now {
                return Err(SimError::Invariant {
                    time_s: self.now,
                    message: format!("an event at {} s comes after {} s", ev.time(), self.now),
                });
            }
            if self.cfg.max_time_s.is_some_and(|limit| ev.time() > limit) {
                stop = StopReason::TimeLimit;
                break;
            }
            self.now = ev.time();
            // Stale flow and task ends do not count.
            let counted = match ev.kind {
                EventKind::Arrival(j) => {
                    self.arrive(j);
                    true
                }
                EventKind::JobReady(j) => {
                    self.job_ready(j);
                    true
                }
                EventKind::JobCleaned(j) => {
                    self.job_done(j);
                    true
                }
                EventKind::FetchPoll(j) => {
                    self.fetch_poll(j);
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
                EventKind::Heartbeat(n) => {
                    if !self.heartbeat(n)? {
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
        // Heartbeats stop when no node could take a pending task: unfinished jobs then can
        // never finish.
        if stop == StopReason::Completed && (!self.active_jobs.is_empty() || self.arrivals_left > 0)
        {
            stop = StopReason::Stalled;
        }
        if self.cfg.audit {
            self.audit_end(stop)?;
        }
        let wall_s = wall.elapsed().as_secs_f64();
        let series = self.net.meter.series(self.now);
        Ok(self.metrics.report(
            stop,
            wall_s,
            series,
            self.cfg,
            self.workload,
            &self.ix,
            &self.cluster,
        ))
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
        if spec.setup_s > 0.0 {
            self.queue.push(self.now + spec.setup_s, EventKind::JobReady(j));
        } else {
            self.job_ready(j);
        }
    }

    /// Job `j`'s set-up is done: its maps (and, with slowstart 0, reduces) are pending.
    fn job_ready(&mut self, j: usize) {
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

    /// One epoch tick; false when the run has stalled.
    fn tick(&mut self, tick: u64) -> Result<bool, SimError> {
        self.tick_scheduled = false;
        self.metrics.tick();
        if self.pending == [0, 0] {
            return Ok(true);
        }
        let room = if self.cluster.uncapped {
            !self.idle
        } else {
            let free = self.free_slots();
            (self.pending[0] > 0 && free[0] > 0) || (self.pending[1] > 0 && free[1] > 0)
        };
        let mut assigned = 0;
        if room || self.cfg.may_preempt() {
            assigned = self.solve(None)?;
        }
        if !self.progressing(assigned) {
            self.stall += 1;
            if self.stall >= self.cfg.stall_epochs {
                return Ok(false);
            }
        }
        if self.pending != [0, 0] {
            let next = tick + 1;
            self.queue.push(next as f64 * self.cfg.epoch_s, EventKind::Tick(next));
            self.tick_scheduled = true;
        }
        Ok(true)
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
            if self.evictions > 2 * self.active_jobs.len() + 2 {
                // Every job was evicted twice and none finished (its reduces have no slot,
                // say): evicting again only refills the disks. The run is stuck.
                return false;
            }
            self.evictions += 1;
            self.evict();
            self.stall = 0;
            return true;
        }
        // Reduces copying with no byte in flight wait for maps: they do not move the run.
        let moving = self.net.active() > 0 || self.running.iter().any(|&t| !self.tasks[t].copying);
        if !moving {
            if self.suspended.is_empty() {
                return false;
            }
            // Only evicted jobs could move: they may run again.
            self.suspended.clear();
            self.offer_soon();
        }
        self.stall = 0;
        true
    }

    /// Builds the snapshot (every free slot, or node `offer`'s on its heartbeat), calls the
    /// solver, applies the answer; returns the tasks started.
    pub(crate) fn solve(&mut self, offer: Option<(usize, [u32; 2])>) -> Result<u64, SimError> {
        let before = Instant::now();
        self.offer = offer;
        let offered = self.fill_snapshot();
        if let Some(f) = self.on_snapshot {
            f(&self.req);
        }
        let built = Instant::now();
        let options = PlaceOptions { warm: self.warm.clone(), ..PlaceOptions::default() };
        let answer = placer_solver::place(&self.req, &options)
            .map_err(|source| SimError::Solver { time_s: self.now, source })?;
        let solve_ms = built.elapsed().as_secs_f64() * 1e3;
        let snapshot_ms = built.duration_since(before).as_secs_f64() * 1e3;
        let free = match offer {
            Some((_, f)) => [u64::from(f[0]), u64::from(f[1])],
            None => self.free_slots(),
        };
        let start = EpochStart {
            pending: self.pending[0] + self.pending[1],
            offered,
            running: self.running.len(),
            free,
        };
        self.apply(&answer)?;
        self.idle = answer.assignments.is_empty() && answer.preemptions.is_empty();
        let window = self.beats.as_ref().map(|_| self.cfg.epoch_s);
        self.metrics.epoch_solved(self.now, start, &answer, snapshot_ms, solve_ms, window);
        if self.cfg.audit {
            self.audit_slots()?;
        }
        Ok(answer.assignments.len() as u64)
    }

    pub(crate) fn apply(&mut self, answer: &PlaceResponse) -> Result<(), SimError> {
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
            // Uncapped nodes have no slots to run out of: the solver's room bounds them.
            if !self.cluster.uncapped && self.used[n][kind.slot()] >= slots {
                return Err(bad(format!(
                    "task {} assigned to node {} without a free slot",
                    a.task, a.node
                )));
            }
            if self.offer.is_some_and(|(beating, _)| beating != n) {
                return Err(bad(format!(
                    "task {} assigned to node {}, which is not heartbeating",
                    a.task, a.node
                )));
            }
            self.start(t, n);
        }
        for report in &answer.jobs {
            if let Some(j) = parse_job_id(report.id.as_str(), self.jobs.len()) {
                self.jobs[j].delay = report.delay;
                self.jobs[j].shuffle_watcher.clone_from(&report.shuffle_watcher);
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
        // A reduce holds its demand only once it computes (`start_compute`): while it copies
        // it consumes next to nothing (RAS Table 2's shuffle column, §3.4).
        if task.kind == TaskKind::Map {
            crate::resources::hold(&mut self.held[n], task.demand, 1.0);
        }
        self.running.insert(t);
        self.running_kind[kind] += 1;
        let run = &mut self.tasks[t];
        run.phase = Phase::Running;
        run.version = run.version.wrapping_add(1);
        run.node = n;
        run.started_s = self.now;
        run.local_done_s = self.now;
        run.flows.clear();
        run.flows_left = 0;
        run.copying = false;
        run.fetch.clear();
        run.computing = false;
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
        if task.kind == TaskKind::Map {
            self.disks.reserve(n, task.output_bytes);
        }
        match task.kind {
            TaskKind::Map => self.start_map(t, n),
            TaskKind::Reduce => {
                self.metrics.task_started(j, t, Locality::None);
                self.start_copy(t);
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
        let running = |k: usize| self.running_kind[k] as u64;
        [
            self.cluster.total_map_slots.saturating_sub(running(0)),
            self.cluster.total_reduce_slots.saturating_sub(running(1)),
        ]
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
            crate::resources::hold(&mut self.held[n], self.ix.tasks[t].demand, 1.0);
        }
        let run = &mut self.tasks[t];
        run.computing = true;
        run.work_left = work;
        run.settled_s = self.now;
        if self.cfg.contention.enabled && self.ix.tasks[t].demand.is_some() {
            self.join_load(t);
        } else {
            let version = run.version;
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

    fn flow_done(&mut self, end: FlowEnd) {
        let task = &self.ix.tasks[end.task];
        self.metrics.flow_ended(&end, task.kind, task.job as usize);
        let t = end.task;
        let run = &mut self.tasks[t];
        run.flows_left = run.flows_left.saturating_sub(1);
        if run.copying {
            self.fetch_done(t, end.src_rack);
        } else if run.flows_left == 0 {
            self.start_compute(t);
        }
    }

    /// Frees task `t`'s slot (it ran since `started_s`) and drops whatever it was doing.
    fn release(&mut self, t: usize) {
        let task = &self.ix.tasks[t];
        let (kind, j, is_map, output) =
            (task.kind.slot(), task.job as usize, task.kind == TaskKind::Map, task.output_bytes);
        let holds = is_map || self.tasks[t].computing;
        if self.tasks[t].computing {
            self.leave_load(t);
        }
        if self.tasks[t].copying {
            self.tasks[t].copying = false;
            self.jobs[j].copying.remove(&t);
        }
        if is_map && !self.tasks[t].doomed {
            self.disks.unreserve(self.tasks[t].node, output);
        }
        let run = &mut self.tasks[t];
        run.version = run.version.wrapping_add(1);
        run.computing = false;
        let (n, started_s) = (run.node, run.started_s);
        self.used[n][kind] -= 1;
        if holds {
            crate::resources::hold(&mut self.held[n], self.ix.tasks[t].demand, -1.0);
        }
        self.idle = false;
        self.running_kind[kind] -= 1;
        self.metrics.slot_freed(kind, self.now - started_s);
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

    fn task_done(&mut self, t: usize) -> Result<(), SimError> {
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
                message: format!("task {} completed twice", self.ix.task_id(t)),
            });
        }
        let node = run.node;
        match kind {
            TaskKind::Map => {
                self.metrics.map_finished(j, t);
                self.disks.hold(node, output);
                *self.jobs[j].held.entry(node).or_insert(0) += output;
                self.metrics.intermediate_changed(self.disks.held_total());
                self.jobs[j].maps_done += 1;
                self.jobs[j].map_s_done += self.now - self.tasks[t].started_s;
                let io = &mut self.jobs[j].maps_io_done;
                io.0 += u128::from(input);
                io.1 += u128::from(output);
                self.map_output_ready(j, node, output);
                self.release_reduces(j);
            }
            TaskKind::Reduce => self.jobs[j].reduces_left -= 1,
        }
        let job = &self.jobs[j];
        if job.maps_done == self.ix.jobs[j].maps && job.reduces_left == 0 {
            self.active_jobs.remove(&j);
            self.free_intermediate(j);
            match self.ix.jobs[j].cleanup_s {
                c if c > 0.0 => self.queue.push(self.now + c, EventKind::JobCleaned(j)),
                _ => self.job_done(j),
            }
        }
        Ok(())
    }

    /// Job `j` finished now.
    fn job_done(&mut self, j: usize) {
        self.metrics.job_finished(j, self.now);
        self.evictions = 0;
        if !self.suspended.is_empty() {
            self.suspended.clear();
            self.wake_all();
        }
        if let Some(f) = self.on_job_done {
            f();
        }
    }

    /// Slots never oversubscribed (uncapped: resources never oversubscribed); the counters
    /// agree with the running set.
    fn audit_slots(&self) -> Result<(), SimError> {
        let mut used = vec![[0u32; 2]; self.cluster.len()];
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
            self.audit_resources()?;
        }
        self.disks.audit(self.now)
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

    /// An evicted map's output is lost: it must run again (`intermediate.rs`).
    pub(crate) fn unfinish_map(&mut self, t: usize) {
        let run = &mut self.tasks[t];
        run.completions = run.completions.saturating_sub(1);
        self.metrics.map_lost(self.ix.tasks[t].job as usize, t);
        self.make_pending(t);
    }
}
