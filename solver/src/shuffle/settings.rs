//! ShuffleWatcher's knobs (Ahmad et al. §3.1, §3.3, §3.4, §4.2): NetSat's saturation
//! threshold, SARP's map-completion threshold, the starvation window, the Shuffle-light ratio,
//! and which mechanisms run (the §5.3 ablation and placer's options). Read by
//! `shuffle_watcher`, `shuffle_watcher_relaxed` and `lsap_shuffle`.

use crate::settings::Settings;
use placer_models::{fraction, positive, ModelError};
use serde::{Deserialize, Serialize};

/// ShuffleWatcher's knobs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(default)]
pub struct ShuffleKnobs {
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
}

impl Default for ShuffleKnobs {
    fn default() -> Self {
        Self {
            saturation_threshold: 0.8,
            map_completion_threshold: 0.15,
            starvation_window_s: 600.0,
            shuffle_light_ratio: 0.1,
            shuffle_watcher: SwMechanisms::default(),
        }
    }
}

impl Settings for ShuffleKnobs {
    const NAME: &'static str = "shuffle";
    fn check(&self) -> Result<(), ModelError> {
        positive(self.starvation_window_s, || "policy.starvation_window_s".to_owned())?;
        if !(self.saturation_threshold > 0.0 && self.saturation_threshold <= 1.0) {
            return Err(ModelError::InvalidNumber {
                path: "policy.saturation_threshold".to_owned(),
                message: format!(
                    "NWSaturationThreshold is a fraction of the uplink in (0, 1], got {}",
                    self.saturation_threshold
                ),
            });
        }
        fraction(self.map_completion_threshold, || "policy.map_completion_threshold".to_owned())?;
        fraction(self.shuffle_light_ratio, || "policy.shuffle_light_ratio".to_owned())
    }
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
