//! What one what-if run simulates (`sim/README.md`; the slot/heartbeat model of
//! FAIR, Zaharia et al. §2): the cluster, link and disk rates, the epoch length, the policy the
//! solver runs, how replicas are placed, the seed, and the per-job bound on the pending tasks a
//! snapshot carries. `SimConfig::default()` is a usable run on a workload with a topology.
//!
//! Units: seconds, bandwidths in Mbit/s (10⁶ bit/s, as in the wire schema), the disk rate in
//! MB/s (10⁶ byte/s).

use crate::error::SimError;
pub use crate::goodput::Goodput;
pub use crate::network::Sharing;
pub use crate::traffic::NetSatMeasure;
use placer_models::{Algorithm, Policy};
use placer_solver::policy::Candidates;
use placer_solver::PolicyOf;
use serde::{Deserialize, Serialize};

/// Where the simulated cluster comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ClusterSource {
    /// The workload's own [`placer_datasets::Topology`] (an error if it has none). Nodes that
    /// do not state their slots get these.
    Workload {
        /// Map slots of a node whose topology entry has none.
        map_slots: u32,
        /// Reduce slots of a node whose topology entry has none.
        reduce_slots: u32,
    },
    /// `nodes` nodes `n0..` in racks `r0..` of `rack_size` (the last rack possibly smaller),
    /// each with `map_slots` and `reduce_slots` (lsap-sched §4's synthetic cluster). Replica
    /// names in the workload must then be `n0`, `n1`, ... or be synthesized
    /// ([`ReplicaSource::Synthesize`]).
    Synthetic {
        /// Number of nodes (≥ 1).
        nodes: usize,
        /// Nodes per rack (≥ 1).
        rack_size: usize,
        /// Map slots per node.
        map_slots: u32,
        /// Reduce slots per node.
        reduce_slots: u32,
    },
}

impl Default for ClusterSource {
    /// The workload's topology, 4 map and 2 reduce slots where it does not say.
    fn default() -> Self {
        Self::Workload { map_slots: 4, reduce_slots: 2 }
    }
}

/// Where map input replicas are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReplicaSource {
    /// The workload's `MapSpec::replicas` (node names of the cluster; duplicates ignored).
    #[default]
    Workload,
    /// Redraw every map's replicas HDFS-style (`placer_datasets::replicas::hdfs_replicas`:
    /// one rack, then two nodes of another) with a ChaCha8 RNG seeded by `SimConfig::seed`.
    Synthesize {
        /// Replicas per block (HDFS default 3).
        replication: usize,
    },
}

/// How many pending tasks of one job and kind one epoch's snapshot carries. The tasks offered
/// under a bound are chosen by `master/snapshot.rs`: maps matched greedily (task order) to unclaimed
/// free map slots on their replica nodes first, then the others in task order; reduces in task
/// order. A multi-resource policy on a workload with demands has no slots to count: there
/// `Capacity` and `FreeSlots` both bound a job by the cluster's room for its tasks (how many
/// of them the nodes' capacities could hold; `resources.rs`), never by 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum PendingBound {
    /// Every pending task: the snapshot is the exact state, the solver's answer the exact
    /// answer of the epoch. Snapshot size O(pending) per epoch.
    All,
    /// At most the cluster's total slots of the kind per job. Fair shares and demands are
    /// exactly those of `All` (a share never exceeds the cluster's slots, so a demand capped at
    /// running + total slots gives the same water-filling), and so are preemptions; the
    /// assignment itself can differ when a job has more candidates than that (the solver may
    /// not see its best-placed task). O(active jobs × slots) per epoch. On a per-node
    /// heartbeat ([`Offers::Heartbeats`]), which places one task or a node's few, at most
    /// `max(4, ⌈2 · S / J⌉)` (S the cluster's slots of the kind, J the active jobs with pending
    /// tasks of it), chosen node-local first: a job's fair share exceeds S / J only when others
    /// demand less than theirs, so shares are exact unless one job's exceeds twice the even
    /// split by more than its running tasks; without it a heartbeat costs O(all pending), and
    /// FAIR's 12,000-job small-jobs run did not finish in 20 minutes.
    Capacity,
    /// At most the cluster's free slots of the kind per job (a job cannot start more in one
    /// epoch): the cheapest, O(active jobs × free slots) per epoch, but it CAN change the
    /// answer: beyond the missed candidates, fair shares are capped at the demand the snapshot
    /// shows (running + offered), which moves shares, delay levels and the quotas of
    /// `lsap_quota`, and a pool with no free slot to offer shows no demand and never preempts.
    /// Exact when no job has more pending tasks of a kind than there are free slots of it.
    FreeSlots,
    /// What the policy says it needs ([`placer_solver::Policy::candidates`]): `FreeSlots` for
    /// the greedy algorithms that ignore fair shares (`fifo`, `dl_sched`), `Capacity` for the
    /// others: the exact ones must see more candidates than slots to choose the best-placed
    /// (on the Mumak trace with 2 slots per node, `FreeSlots` showed `lsap` 222 of a
    /// 3,204-map job's maps and cost it 11 GB more cross-rack traffic). The default.
    #[default]
    Auto,
}

impl PendingBound {
    /// The bound this resolves to for `algorithm` (`Auto` → what its registered policy needs;
    /// `Capacity` for an algorithm this build does not implement, whose first epoch fails).
    pub fn resolve(self, algorithm: Algorithm) -> Self {
        match self {
            Self::Auto => match algorithm.policy().map(|p| p.candidates()) {
                Some(Candidates::FreeSlots) => Self::FreeSlots,
                Some(Candidates::Capacity) | None => Self::Capacity,
            },
            other => other,
        }
    }
}

/// One what-if run. Build with struct update syntax from `SimConfig::default()`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimConfig {
    /// A label for reports (the policy name when `placer whatif` compares policies).
    pub name: String,
    /// The policy block of every snapshot (algorithm, engine, α, β, delays, and ShuffleWatcher's
    /// `saturation_threshold`, `map_completion_threshold`, `starvation_window_s`,
    /// `shuffle_light_ratio` and mechanisms `shuffle_watcher`). Default: the wire defaults
    /// (`lsap_quota`, the service's default; ShuffleWatcher's 0.8, 0.15, 600 s, 0.1, all three
    /// mechanisms). Checked by [`SimConfig::validate`] with the wire's domains.
    pub policy: Policy,
    /// The cluster; default the workload's topology.
    pub cluster: ClusterSource,
    /// Bandwidth of a node's in-rack link (its NIC), Mbit/s (> 0); default 1000.
    pub rack_mbps: f64,
    /// Bandwidth of one directed rack-to-rack path, Mbit/s (> 0); default 100.
    pub cross_rack_mbps: f64,
    /// Each rack's uplink and downlink to the core, Mbit/s (> 0), shared by every flow that
    /// leaves or enters the rack (ShuffleWatcher §4.1's oversubscription); default none (no
    /// rack limit beyond the rack-pair links).
    #[serde(default)]
    pub uplink_mbps: Option<f64>,
    /// How concurrent flows share links ([`Sharing`]): per link (default) or max-min fair.
    #[serde(default)]
    pub sharing: Sharing,
    /// Disk read rate of node-local input, MB/s (10⁶ byte/s, > 0); default 100 (one 2009-era
    /// SATA disk per slot: reads on a node do not share it).
    pub disk_mb_s: f64,
    /// Epoch length, s (> 0); default 3, the heartbeat interval of `policy.heartbeat_s`.
    pub epoch_s: f64,
    /// Replica placement; default the workload's.
    pub replicas: ReplicaSource,
    /// Seed of every random choice of the run (replica synthesis); default 1.
    pub seed: u64,
    /// Pending tasks per job and kind in a snapshot; default [`PendingBound::Auto`].
    pub pending_bound: PendingBound,
    /// Min-share preemption timeout given to every pool, s (≥ 0); default none (no min-share
    /// preemption). Only `fair`, `delay` and `lsap_fair` preempt.
    pub min_share_timeout_s: Option<f64>,
    /// Fair-share preemption timeout given to every pool, s (≥ 0); default none.
    pub fair_share_timeout_s: Option<f64>,
    /// Stop after this simulated time, s (> 0); default none (run until every job finished or
    /// the run stalls).
    pub max_time_s: Option<f64>,
    /// Stop when this many consecutive epochs found pending tasks, nothing running, no job
    /// still to arrive and placed nothing (≥ 1); default 100. Such a run can never progress
    /// (e.g. reduces on a cluster without reduce slots).
    pub stall_epochs: u32,
    /// Check invariants as the run goes (slots never oversubscribed, time never goes back,
    /// every task completes exactly once) and fail with `SimError::Invariant`; default off
    /// (O(nodes) per epoch more).
    pub audit: bool,
    /// The order the snapshot lists nodes in, i.e. the order heartbeats arrive in; default
    /// [`NodeOrder::Shuffled`].
    pub node_order: NodeOrder,
    /// How free slots are offered to the policy; default [`Offers::Auto`].
    #[serde(default)]
    pub offers: Offers,
    /// Fraction of a job's maps that must have finished before its reduces become placeable
    /// (Hadoop's `mapred.reduce.slowstart.completed.maps`), in [0, 1]; default 0.05, Hadoop's.
    /// 1.0 starts reduces only when every map is done. A placed reduce copies each map's
    /// output as that map finishes (see `world/shuffle.rs`).
    #[serde(default = "default_slowstart")]
    pub slowstart: f64,
    /// Start-up time of every task attempt, s (≥ 0; JVM launch and task set-up): the slot is
    /// held, nothing is read or computed. Default 1 s (Hadoop 0.20 launched a fresh JVM per
    /// task, about a second). Not added to measured times ([`Workload::measured_times`]).
    ///
    /// [`Workload::measured_times`]: placer_datasets::Workload::measured_times
    #[serde(default = "default_task_overhead_s")]
    pub task_overhead_s: f64,
    /// Run time of every job's setup task, s (≥ 0; Hadoop 0.20's job setup task, which must
    /// finish before the job's maps can run), unless the workload measured its own
    /// (`JobSpec::setup_s`); 0: no setup task. Default 2 s: the median setup attempt (2.2 s)
    /// of the Mumak trace's 19 Hadoop 0.20 jobs, about 1 s of it the task's JVM start.
    #[serde(default = "default_job_task_s")]
    pub job_setup_s: f64,
    /// Run time of every job's cleanup task, s (≥ 0; it runs after the job's last task and
    /// the job finishes with it), unless the workload measured its own (`JobSpec::cleanup_s`);
    /// 0: no cleanup task. Default 2 s (the Mumak trace's median cleanup attempt, 2.2 s).
    #[serde(default = "default_job_task_s")]
    pub job_cleanup_s: f64,
    /// How setup and cleanup run ([`JobTasks`]); default [`JobTasks::Slots`], Hadoop 0.20's.
    #[serde(default)]
    pub job_tasks: JobTasks,
    /// When the master learns that a task ended ([`CompletionReport`]); default
    /// [`CompletionReport::Heartbeat`], Hadoop 0.20's. Only heartbeat offers have a heartbeat
    /// to wait for: at epochs a completion is always immediate.
    #[serde(default)]
    pub completion_report: CompletionReport,
    /// How tasks that share a node slow each other when their resource demands exceed it;
    /// default [`Contention::default`]. Only tasks with a `demand` take part.
    #[serde(default)]
    pub contention: Contention,
    /// Each node's disk space for map outputs (intermediate data), GB (10⁹ bytes, > 0): an
    /// output stays on its node until its job finishes (FAIR §5.4); default none (unlimited).
    #[serde(default)]
    pub intermediate_gb: Option<f64>,
    /// Whose intermediate data goes when the disks are full and nothing can progress (FAIR
    /// §5.4's deadlock); default [`Victim::LatestSubmitted`].
    #[serde(default)]
    pub victim: Victim,
    /// Pool settings by pool name (`id`), e.g. from a YARN fair-scheduler allocation file
    /// (`placer whatif --allocations`): a workload pool of that name gets this weight, min
    /// shares, mode, running-job limit and timeouts (a timeout it leaves unset falls back to
    /// `min_share_timeout_s` / `fair_share_timeout_s`). Default none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pools: Vec<placer_models::Pool>,
    /// Users with running-job limits, listed in every snapshot in place of the workload's
    /// unlimited entry of the same id. Default none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub users: Vec<placer_models::User>,
    /// Start each epoch's structured flow from the dual labels the previous epoch's left on
    /// the lasting vertices (nodes, racks; `placer_solver::WarmStart`, measured in
    /// `BENCHMARKS.md`, "Item 3: warm starts across epochs"), as Firmament's incremental
    /// solvers do; default off (every epoch cold). Placements are least-cost either way;
    /// where several tie, a warm epoch may pick another of them.
    #[serde(default)]
    pub warm_start: bool,
    /// Send each epoch to the solver as a delta against the master's in-process session, as a
    /// master drives `POST /v1/sessions/{id}/place` (`master/session.rs`): the kept snapshot
    /// is edited by what changed and validated by difference, where off every epoch builds and
    /// validates the whole snapshot. Heartbeat offers keep whole snapshots. Each epoch is
    /// least-cost either way; the session's lists are in arrival order, so ties may be broken
    /// otherwise (docs/simulator.md, "Sessions"). Default off.
    #[serde(default)]
    pub sessions: bool,
    /// Goodput collapse and timeouts on the shaped cross-rack links ([`Goodput`],
    /// `goodput.rs`); default none (loss-free links).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goodput: Option<Goodput>,
    /// Most shuffle flows in progress per reduce (≥ 1; Hadoop's
    /// `mapred.reduce.parallel.copies`, 5 by default); default none: one flow per source rack
    /// at a time, however many racks (`world/shuffle.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copiers: Option<u32>,
    /// What the snapshots report as each rack's cross-rack traffic ([`NetSatMeasure`]);
    /// default the delivered bytes.
    #[serde(default, skip_serializing_if = "is_delivered")]
    pub netsat_measure: NetSatMeasure,
}

fn is_delivered(m: &NetSatMeasure) -> bool {
    *m == NetSatMeasure::Delivered
}

fn default_slowstart() -> f64 {
    0.05
}

fn default_task_overhead_s() -> f64 {
    1.0
}

fn default_job_task_s() -> f64 {
    2.0
}

/// How a job's setup and cleanup run (Hadoop 0.20's JobTracker hands out a job's setup task
/// before its maps can be scheduled and its cleanup task after its last task; `world/job_tasks.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum JobTasks {
    /// Each is a task: it waits for an offer with a free slot (a map slot if the node has one,
    /// else a reduce slot), takes the whole offer, and holds the slot for its run time. The
    /// default. A multi-resource run with uncapped nodes has no slots to take: there they are
    /// `Delays`.
    #[default]
    Slots,
    /// Each is a delay that holds no slot: the job's tasks become pending `setup_s` after it
    /// arrives and it finishes `cleanup_s` after its last task (the simulator's earlier model).
    Delays,
}

/// When the master learns of a task's end (and of a setup or cleanup task's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum CompletionReport {
    /// At once: the slot is free and the job's progress updated the instant the task ends.
    Immediate,
    /// At its node's next heartbeat (Hadoop 0.20's TaskTracker sleeps a full interval between
    /// heartbeats and reports its finished tasks in the next one, which asks for work in the
    /// same call): until then the slot stays taken and the job's progress (its finished maps,
    /// its reduces' release, its end) unchanged; the freed slot is offered in that heartbeat.
    /// The default; with epoch offers it acts as `Immediate`.
    #[default]
    Heartbeat,
}

/// How free slots reach the policy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Offers {
    /// What the policy is ([`placer_solver::Policy::heartbeat`]): `Heartbeats { assign_multiple:
    /// false }` for the heartbeat schedulers Hadoop shipped (`fifo`, `fair`, `delay`,
    /// `dl_sched`), `Epochs` for the batch policies (`lsap*`), which place at each epoch over
    /// all free slots: that difference is what lsap-sched measures. The default.
    #[default]
    Auto,
    /// Every `epoch_s`, one snapshot offers every free slot of the cluster.
    Epochs,
    /// Each node heartbeats on its own phase (drawn uniformly in [0, `policy.heartbeat_s`) from
    /// the seed) every `policy.heartbeat_s`, and its snapshot offers only that node's free
    /// slots: at most one map and one reduce (Hadoop 0.20), or all of them with
    /// `assign_multiple` (the Fair Scheduler's `assignmultiple`).
    Heartbeats {
        /// Offer every free slot of the node, not one per kind.
        assign_multiple: bool,
    },
}

/// The contention model: a running task's compute progresses at rate
/// `ρ = min_r f_r` (1 = alone on an idle node: its bottleneck resource sets the pace), over the
/// resources r ∈ {cpu, io, mem}, where with `D_r` = Σ demands of the tasks computing on the
/// node (fractions of the node, RAS Table 2) and `C_r` = 1:
/// - cpu and io are shared proportionally, and overcommitting them wastes some of them
///   (context switches, disk seeks): `f_r = 1` while `D_r ≤ 1`, else
///   `1 / (D_r · (1 + κ_r (D_r − 1)))`;
/// - memory beyond the node swaps: `f_mem = 1` while `D_mem ≤ 1`, else
///   `1 / (1 + κ_mem (D_mem − 1))`.
///
/// κ = 0 is pure proportional sharing. The defaults are calibrated on RAS Fig. 3 (`fair`, 1..8
/// map slots on RAS's 20 TaskTrackers: the makespan is a U with its best at 4 slots, as in the
/// paper): see BENCHMARKS.md.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Contention {
    /// Whether demands slow tasks at all (false: every task runs at rate 1).
    pub enabled: bool,
    /// κ_cpu.
    pub cpu_thrash: f64,
    /// κ_io.
    pub io_thrash: f64,
    /// κ_mem (the swap penalty).
    pub swap_penalty: f64,
}

impl Default for Contention {
    fn default() -> Self {
        Self { enabled: true, cpu_thrash: 0.1, io_thrash: 0.5, swap_penalty: 4.0 }
    }
}

/// FAIR §5.4's victim heuristics (evicting the job using the most space is not offered: §5.4
/// shows it can starve every job).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Victim {
    /// The job submitted latest.
    #[default]
    LatestSubmitted,
    /// The job with the least progress (fraction of its tasks done).
    LeastProgress,
}

/// The order of the nodes in each epoch's snapshot. The heartbeat policies (`fifo`, `fair`,
/// `delay`, `dl_sched`) offer free slots node by node in snapshot order (one slot per node per
/// round), so this is the order in which TaskTrackers' heartbeats reach the master; the exact
/// policies only break ties with it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum NodeOrder {
    /// A fresh random permutation every epoch (ChaCha8 seeded from `seed`): TaskTrackers
    /// heartbeat independently, so on a real cluster slots free up in no fixed order (FAIR
    /// §5's delay-scheduling analysis assumes as much). Without it every small job would be
    /// offered the lowest-numbered nodes first, epoch after epoch.
    #[default]
    Shuffled,
    /// The topology's order every epoch (for hand-checked tests).
    Fixed,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            name: Policy::default().algorithm.name().to_owned(),
            policy: Policy::default(),
            cluster: ClusterSource::default(),
            rack_mbps: 1000.0,
            cross_rack_mbps: 100.0,
            uplink_mbps: None,
            sharing: Sharing::PerLink,
            disk_mb_s: 100.0,
            epoch_s: 3.0,
            replicas: ReplicaSource::Workload,
            seed: 1,
            pending_bound: PendingBound::Auto,
            min_share_timeout_s: None,
            fair_share_timeout_s: None,
            max_time_s: None,
            stall_epochs: 100,
            audit: false,
            node_order: NodeOrder::default(),
            offers: Offers::Auto,
            slowstart: default_slowstart(),
            task_overhead_s: default_task_overhead_s(),
            job_setup_s: default_job_task_s(),
            job_cleanup_s: default_job_task_s(),
            job_tasks: JobTasks::default(),
            completion_report: CompletionReport::default(),
            contention: Contention::default(),
            intermediate_gb: None,
            victim: Victim::default(),
            pools: Vec::new(),
            users: Vec::new(),
            warm_start: false,
            sessions: false,
            goodput: None,
            copiers: None,
            netsat_measure: NetSatMeasure::Delivered,
        }
    }
}

impl SimConfig {
    /// The default run with another algorithm, labelled with its wire name.
    pub fn with_algorithm(algorithm: Algorithm) -> Self {
        Self {
            name: algorithm.name().to_owned(),
            policy: Policy { algorithm, ..Policy::default() },
            ..Self::default()
        }
    }

    /// Checks every field's domain; the error names the first bad field.
    pub fn validate(&self) -> Result<(), SimError> {
        positive("rack_mbps", self.rack_mbps)?;
        positive("cross_rack_mbps", self.cross_rack_mbps)?;
        if let Some(up) = self.uplink_mbps {
            positive("uplink_mbps", up)?;
        }
        positive("disk_mb_s", self.disk_mb_s)?;
        positive("epoch_s", self.epoch_s)?;
        if let Some(t) = self.min_share_timeout_s {
            non_negative("min_share_timeout_s", t)?;
        }
        if let Some(t) = self.fair_share_timeout_s {
            non_negative("fair_share_timeout_s", t)?;
        }
        if let Some(t) = self.max_time_s {
            positive("max_time_s", t)?;
        }
        fraction("slowstart", self.slowstart)?;
        non_negative("task_overhead_s", self.task_overhead_s)?;
        non_negative("job_setup_s", self.job_setup_s)?;
        non_negative("job_cleanup_s", self.job_cleanup_s)?;
        let c = &self.contention;
        non_negative("contention.cpu_thrash", c.cpu_thrash)?;
        non_negative("contention.io_thrash", c.io_thrash)?;
        non_negative("contention.swap_penalty", c.swap_penalty)?;
        if let Some(gb) = self.intermediate_gb {
            positive("intermediate_gb", gb)?;
        }
        if self.stall_epochs == 0 {
            return Err(SimError::config("stall_epochs", "must be ≥ 1"));
        }
        if let ClusterSource::Synthetic { nodes, rack_size, .. } = self.cluster {
            if nodes == 0 {
                return Err(SimError::config("cluster.nodes", "must be ≥ 1"));
            }
            if rack_size == 0 {
                return Err(SimError::config("cluster.rack_size", "must be ≥ 1"));
            }
            if nodes > u32::MAX as usize {
                return Err(SimError::config("cluster.nodes", "too many nodes"));
            }
        }
        if let ReplicaSource::Synthesize { replication } = self.replicas {
            if replication > 64 {
                return Err(SimError::config("replicas.replication", "must be ≤ 64"));
            }
        }
        // The policy's knobs: the checks of the groups the solver's policies declare.
        placer_solver::registry::check_settings(&self.policy).map_err(|e| {
            let message = match &e {
                placer_models::ModelError::InvalidNumber { message, .. }
                | placer_models::ModelError::InvalidField { message, .. } => message.clone(),
                other => other.to_string(),
            };
            SimError::config(e.path(), message)
        })?;
        if let Some(g) = &self.goodput {
            g.validate()?;
        }
        if self.copiers == Some(0) {
            return Err(SimError::config("copiers", "must be ≥ 1"));
        }
        Ok(())
    }

    /// Whether the run's algorithm may preempt at all (its policy preempts and some pool
    /// timeout is set); when it may not, an epoch without a free slot for any pending task is
    /// skipped without calling the solver (its answer would be empty).
    pub fn may_preempt(&self) -> bool {
        self.policy.algorithm.policy().is_some_and(|p| p.preempts())
            && (self.min_share_timeout_s.is_some()
                || self.fair_share_timeout_s.is_some()
                || self
                    .pools
                    .iter()
                    .any(|p| p.min_share_timeout_s.is_some() || p.fair_share_timeout_s.is_some()))
    }

    /// Whether a task's end reaches the master only at its node's next heartbeat.
    pub fn reports_at_heartbeat(&self) -> bool {
        self.completion_report == CompletionReport::Heartbeat && self.heartbeats().is_some()
    }

    /// Whether slots are offered node by node on heartbeats (and then whether every free slot
    /// of the node at once), [`Offers::Auto`] resolved for the run's algorithm.
    pub fn heartbeats(&self) -> Option<bool> {
        match self.offers {
            Offers::Epochs => None,
            Offers::Heartbeats { assign_multiple } => Some(assign_multiple),
            Offers::Auto => {
                self.policy.algorithm.policy().is_some_and(|p| p.heartbeat()).then_some(false)
            }
        }
    }
}

fn positive(field: &str, v: f64) -> Result<(), SimError> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(SimError::config(field, format!("must be a finite number > 0, got {v}")))
    }
}

fn fraction(field: &str, v: f64) -> Result<(), SimError> {
    if (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(SimError::config(field, format!("must be in [0, 1], got {v}")))
    }
}

fn non_negative(field: &str, v: f64) -> Result<(), SimError> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(SimError::config(field, format!("must be a finite number ≥ 0, got {v}")))
    }
}
