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
    /// lsap with water-filling fair shares as hard capacities.
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
    /// The fastest exact engine this build has (today: `jv`).
    #[default]
    Auto,
    /// placer's structured min-cost flow (not in this build yet: answered with 422).
    Flow,
    /// placer's dense rectangular shortest-augmenting-path solver (Jonker–Volgenant family).
    Jv,
    /// `pathfinding::kuhn_munkres`, the O(n³) reference. For checks only: slow on large,
    /// tie-heavy matrices.
    Hungarian,
}

/// Which algorithm runs and how. Omitted in the snapshot → all defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Policy {
    /// The placement algorithm; default `lsap`.
    pub algorithm: Algorithm,
    /// The exact engine; default `auto`. Ignored by greedy algorithms.
    pub solver: SolverEngine,
    /// Weight α of the data-locality cost (lsap eq. 1 scaled; unitless, ≥ 0); default 1.
    pub alpha: f64,
}

impl Default for Policy {
    fn default() -> Self {
        Self { algorithm: Algorithm::Lsap, solver: SolverEngine::Auto, alpha: 1.0 }
    }
}
