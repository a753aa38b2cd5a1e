//! The `policy` block of a snapshot: which placement algorithm runs this epoch and on which
//! assignment engine (DESIGN.md §The epoch pipeline, step 5; lsap-sched eq. 1 for `alpha`).

use serde::{Deserialize, Serialize};

/// A placement algorithm. Every name DESIGN.md lists is accepted by the schema, so that a
/// snapshot written for a later build parses; an algorithm this build does not implement yet is
/// answered with `422 unsupported_algorithm`, a name outside the list with `400 invalid_field`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    /// Hadoop's default FIFO scheduler.
    Fifo,
    /// The Hadoop Fair Scheduler (pools, min shares).
    Fair,
    /// Fair sharing with delay scheduling (Zaharia et al., Alg. 1).
    Delay,
    /// The lsap paper's greedy data-locality baseline: per free slot, a node-local task, else a
    /// rack-local one, else the first remaining.
    DlSched,
    /// lsap-sched: minimum total locality cost over all pending tasks × free slots at once.
    Lsap,
    /// lsap-fair-sched: lsap with the fairness cost (GFC, β) added.
    LsapFair,
    /// lsap with fair shares as hard capacities: D-optimal pool counts, then the least
    /// locality cost, then job shares and delay levels (the default).
    LsapQuota,
    /// RAS's resource-aware utility heuristic.
    Ras,
    /// ShuffleWatcher (Ahmad et al.) on the Fair Scheduler's fairness (SW-fair): NetSat, NASS,
    /// SAMP and SARP.
    ShuffleWatcher,
    /// ShuffleWatcher with delay scheduling's relaxed fairness (SW-relaxed, §5.2).
    ShuffleWatcherRelaxed,
    /// placer's exact shuffle-aware policy: one min-cost flow per slot kind pricing map input,
    /// expected shuffle and saturated uplinks, under `lsap_quota`'s pool capacities.
    LsapShuffle,
    /// The YARN FairScheduler's Dominant Resource Fairness (Ghodsi et al.): the next task
    /// goes to the pool, then the job, with the lowest dominant share ÷ weight.
    Drf,
    /// placer's multi-resource policy beyond RAS: RAS's max-min utility decides how many
    /// tasks of each job run, an exact locality flow decides where, within the nodes' room.
    LsapRas,
}

impl Algorithm {
    /// The wire name (`dl_sched`, `lsap`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Self::Fifo => "fifo",
            Self::Fair => "fair",
            Self::Delay => "delay",
            Self::DlSched => "dl_sched",
            Self::Lsap => "lsap",
            Self::LsapFair => "lsap_fair",
            Self::LsapQuota => "lsap_quota",
            Self::Ras => "ras",
            Self::ShuffleWatcher => "shuffle_watcher",
            Self::ShuffleWatcherRelaxed => "shuffle_watcher_relaxed",
            Self::LsapShuffle => "lsap_shuffle",
            Self::Drf => "drf",
            Self::LsapRas => "lsap_ras",
        }
    }
}

/// The engine that solves an exact assignment problem.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum SolverEngine {
    /// The fastest exact engine this build has (today: `flow`).
    #[default]
    Auto,
    /// placer's structured min-cost flow over tasks, replica nodes, rack and cluster
    /// aggregators (no dense matrix).
    Flow,
    /// placer's dense rectangular shortest-augmenting-path solver (Jonker–Volgenant family).
    Jv,
    /// `pathfinding::kuhn_munkres`, the O(n³) reference. For checks only: slow on large,
    /// tie-heavy matrices.
    Hungarian,
    /// The exact MIP reference of the multi-resource policies (`ras`, `lsap_ras`): max-min
    /// utility, then packing, over integer task counts per (job, node), solved by HiGHS
    /// through `good_lp`. Small instances only (`422 problem_too_large` above its limit);
    /// in builds without the `mip` feature, `422 unsupported_solver`.
    Mip,
}

impl SolverEngine {
    /// The wire name (`auto`, `flow`, `jv`, `hungarian`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Flow => "flow",
            Self::Jv => "jv",
            Self::Hungarian => "hungarian",
            Self::Mip => "mip",
        }
    }
}

/// Which algorithm runs and how. Omitted in the snapshot → all defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(default)]
pub struct Policy {
    /// The placement algorithm; default `lsap_quota`.
    pub algorithm: Algorithm,
    /// The exact engine; default `auto`. Ignored by greedy algorithms.
    pub solver: SolverEngine,
    /// Weight α of the data-locality cost (lsap eq. 1 scaled; unitless, ≥ 0); default 1.
    pub alpha: f64,
    /// Scale β of the fairness cost of `lsap_fair` (lsap-fair-sched §3.3), in the cost's
    /// units (seconds of transfer, like α · DLC); ≥ 0, default 10: a task beyond its pool's
    /// quota then costs as much as reading a 128 MiB block across a 100 Mbit/s rack link.
    pub beta: f64,
    /// The master's heartbeat interval in seconds (> 0); default 3 (Hadoop 0.20's minimum).
    /// The locality delays default to 1.5 × this (design doc §4.8).
    pub heartbeat_s: f64,
    /// Delay scheduling's node-locality wait T1 in seconds (FAIR Alg. 1); ≥ 0, default
    /// 1.5 × `heartbeat_s`. A job may override it (`jobs[].locality_delay_node_s`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locality_delay_node_s: Option<f64>,
    /// Delay scheduling's further rack-locality wait T2 in seconds; ≥ 0, default
    /// 1.5 × `heartbeat_s`. A job may override it (`jobs[].locality_delay_rack_s`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locality_delay_rack_s: Option<f64>,
    /// `lsap_fair` ageing horizon in seconds (> 0); default 300. A task pending for w seconds
    /// gets a cost credit of β · w / `aging_s`, so that after long enough it is cheaper than
    /// any fresh task and cannot starve (lsap-fair-sched §3.3, last paragraph).
    pub aging_s: f64,
    /// Running-job limit of users not listed in `users` with their own limit (design doc §3.4);
    /// optional, unset = unlimited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_max_running_jobs: Option<u32>,
    /// NWSaturationThreshold (ShuffleWatcher §3.1, §4.2): a rack's network is saturated when
    /// `racks[].cross_rack_traffic_mbps / racks[].uplink_mbps` exceeds it. In (0, 1]; default
    /// 0.8 (the paper's 400 of 500 Mbit/s).
    pub saturation_threshold: f64,
    /// MapCompletionThreshold (ShuffleWatcher §3.3, §4.2): above this fraction of a job's maps
    /// completed, SARP places reduces by the intermediate data on each rack, below it by SAMP's
    /// tentative counts. In [0, 1]; default 0.15.
    pub map_completion_threshold: f64,
    /// ShuffleWatcher's starvation window in seconds (§3.4; > 0, default 600): a user's jobs
    /// submitted in an earlier window (⌊submit_s / window⌋) go before those of a later one,
    /// overriding NASS, SAMP and SARP.
    pub starvation_window_s: f64,
    /// A job whose ShuffleInputRatio is at most this is Shuffle-light, above 1.0 it is
    /// Shuffle-heavy, between the two Shuffle-medium (ShuffleWatcher Table 1; the paper gives
    /// no number for light: placer's default 0.1). In [0, 1].
    pub shuffle_light_ratio: f64,
    /// Which ShuffleWatcher mechanisms run (the §5.3 ablation); default all three.
    pub shuffle_watcher: SwMechanisms,
    /// Wall-clock budget of this answer in milliseconds (> 0), measured by the service from
    /// the moment the body is read; unset = the server's `--deadline-ms`. When the exact solve
    /// cannot finish in time, the answer is the best valid placement found, with
    /// `stats.status: time_limited`. `POST /place?deadline_ms=` overrides it. `placer place`
    /// honours it too, from the moment the file is read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<u64>,
}

/// ShuffleWatcher's three mechanisms, each switchable for the §5.3 ablation. With all three
/// off, `shuffle_watcher` is the Fair Scheduler with users as the fairness unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(default)]
pub struct SwMechanisms {
    /// Network-aware shuffle scheduling (Fig. 3's two orders); off = the unsaturated order
    /// without SAMP's or SARP's categories, whatever the network.
    pub nass: bool,
    /// Shuffle-aware map placement (Fig. 4); off = no preferred map racks.
    pub samp: bool,
    /// Shuffle-aware reduce placement (Fig. 6); off = no preferred reduces per rack.
    pub sarp: bool,
    /// SAMP's and SARP's estimate caps a job's reduces on a rack at the rack's configured
    /// reduce slots ÷ the job's reduces (placer's choice: the paper's Fig. 6 puts the
    /// reduces where the map output is, with no cap); off = the paper's uncapped estimate.
    pub reduce_slot_cap: bool,
    /// SAMP's preferred racks bind (§3.2's "restriction of a job's Map tasks to a subset of
    /// nodes or racks"): a Shuffle-heavy job with preferred racks runs its maps only there,
    /// Fig. 3's lines 5–6 skip it elsewhere (the other jobs, whose shuffle is small, keep
    /// filling the slots it leaves). Off (the default) = Fig. 3 as printed, where a preference only
    /// orders the offers.
    pub hold_maps: bool,
    /// SARP's targets bind: a Shuffle-heavy job's reduce starts only on a rack whose
    /// PreferredReducesPerRack is not met, Fig. 3's "any reduce" lines (9, 15) skip it
    /// elsewhere. Off (the default) = Fig. 3 as printed.
    pub hold_reduces: bool,
    /// §3.3's option for a saturated rack: its reduce slots take only Shuffle-light reduces,
    /// and stay idle otherwise, rather than start more shuffle against a saturated uplink
    /// (Fig. 3's line 9 skipped). Off (the default) = Fig. 3 as printed.
    pub idle_when_saturated: bool,
    /// Inside a user, jobs go by fewest running tasks of the slot's kind (fair sharing among
    /// the user's jobs) instead of by arrival (§3.1: "within each category, the tasks are
    /// ordered by job arrival times"). Off (the default) = arrival order.
    pub fair_within_user: bool,
}

impl Default for SwMechanisms {
    fn default() -> Self {
        Self {
            nass: true,
            samp: true,
            sarp: true,
            reduce_slot_cap: true,
            hold_maps: false,
            hold_reduces: false,
            idle_when_saturated: false,
            fair_within_user: false,
        }
    }
}

impl Policy {
    /// The default node-locality and rack-locality waits: 1.5 × heartbeat (design doc §4.8).
    pub fn default_locality_delay_s(&self) -> f64 {
        1.5 * self.heartbeat_s
    }
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            algorithm: Algorithm::LsapQuota,
            solver: SolverEngine::Auto,
            alpha: 1.0,
            beta: 10.0,
            heartbeat_s: 3.0,
            locality_delay_node_s: None,
            locality_delay_rack_s: None,
            aging_s: 300.0,
            user_max_running_jobs: None,
            saturation_threshold: 0.8,
            map_completion_threshold: 0.15,
            starvation_window_s: 600.0,
            shuffle_light_ratio: 0.1,
            shuffle_watcher: SwMechanisms::default(),
            deadline_ms: None,
        }
    }
}
