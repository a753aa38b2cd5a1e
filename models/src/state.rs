//! Per-job and per-pool state the service hands back to the master each epoch and receives
//! again in the next snapshot, so that placer itself stays stateless (DESIGN.md §Wire schema v1:
//! "the response returns the updated state for the master to send back next epoch"): the
//! delay-scheduling variables of FAIR Alg. 1 and the starvation clocks of the Hadoop Fair
//! Scheduler design doc §4.5, and ShuffleWatcher's once-per-job SAMP decision (Fig. 4).

use serde::{Deserialize, Serialize};

/// FAIR Alg. 1's per-job variables. Copy `jobs[].delay` of an answer verbatim into the job of
/// the next snapshot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DelayState {
    /// Locality level: 0 = node-local only, 1 = rack-local allowed, 2 = anything (0 … 2).
    #[serde(default)]
    pub level: u8,
    /// Seconds the job has been skipped since it last launched a map (≥ 0).
    #[serde(default)]
    pub wait_s: f64,
    /// Set when the job was skipped in the epoch at this time (`now_s` of that epoch) and has
    /// not launched since: the next epoch adds `now_s − skipped_at_s` to `wait_s` (Alg. 1,
    /// "increase j.wait by the time since last heartbeat"). `null` = not skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped_at_s: Option<f64>,
}

/// The design doc's two preemption clocks (§4.5), for one slot kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StarvationClock {
    /// Last time (s) the pool had at least min(min share, demand) running; `null` = `now_s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_min_share_s: Option<f64>,
    /// Last time (s) the pool had at least half of min(fair share, demand) running; `null` =
    /// `now_s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_half_fair_share_s: Option<f64>,
}

/// A pool's starvation clocks per slot kind. Copy `pools[].starvation` of an answer verbatim
/// into the pool of the next snapshot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StarvationState {
    /// Map slots.
    #[serde(default)]
    pub map: StarvationClock,
    /// Reduce slots.
    #[serde(default)]
    pub reduce: StarvationClock,
}

/// SAMP's per-job decision (ShuffleWatcher Fig. 4, lines 8–9), made once when the job is
/// first seen and echoed by the master afterwards. Copy `jobs[].shuffle_watcher` of an answer
/// verbatim into the job of the next snapshot.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ShuffleWatcherState {
    /// PreferredMapRacks: the racks the job's maps prefer (rack ids, each listed in
    /// `cluster.racks`).
    #[serde(default)]
    pub preferred_map_racks: Vec<crate::RackId>,
    /// TentativeReducesPerRack: how many of the job's reduces SAMP expects on each rack if its
    /// maps run on the preferred racks; SARP uses it while fewer than MapCompletionThreshold of
    /// the maps have completed (Fig. 6, lines 4–6). Racks not listed: 0.
    #[serde(default)]
    pub tentative_reduces_per_rack: Vec<RackReduces>,
}

/// A number of reduces on one rack.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RackReduces {
    /// The rack (listed in `cluster.racks`).
    pub rack: crate::RackId,
    /// Reduces (≥ 0).
    pub reduces: u32,
}
