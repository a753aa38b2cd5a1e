//! The `policy` block of a snapshot: which placement algorithm runs this epoch and on which
//! assignment engine (DESIGN.md §The epoch pipeline, step 5; lsap-sched eq. 1 for `alpha`).

use serde::{Deserialize, Serialize};

/// A placement algorithm. Every name DESIGN.md lists is accepted by the schema, so that a
/// snapshot written for a later build parses; an algorithm this build does not implement yet is
/// answered with `422 unsupported_algorithm`, a name outside the list with `400 invalid_field`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
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
    /// ShuffleWatcher's shuffle-aware placement.
    ShuffleWatcher,
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
        }
    }
}

/// The engine that solves an exact assignment problem.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
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
}

impl SolverEngine {
    /// The wire name (`auto`, `flow`, `jv`, `hungarian`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Flow => "flow",
            Self::Jv => "jv",
            Self::Hungarian => "hungarian",
        }
    }
}

/// Which algorithm runs and how. Omitted in the snapshot → all defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
        }
    }
}
