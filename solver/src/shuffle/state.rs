//! ShuffleWatcher's per-job SAMP decision (Ahmad et al. Fig. 4, lines 8–9), made once when
//! the job is first seen and echoed by the master afterwards as `jobs[].shuffle_watcher`.

use crate::echo::{Context, JobField};
use placer_models::ModelError;
use serde::{Deserialize, Serialize};

/// SAMP's per-job decision (ShuffleWatcher Fig. 4, lines 8–9), made once when the job is
/// first seen and echoed by the master afterwards. Copy `jobs[].shuffle_watcher` of an answer
/// verbatim into the job of the next snapshot.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ShuffleWatcherState {
    /// PreferredMapRacks: the racks the job's maps prefer (rack ids, each listed in
    /// `cluster.racks`).
    #[serde(default)]
    pub preferred_map_racks: Vec<placer_models::RackId>,
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
    pub rack: placer_models::RackId,
    /// Reduces (≥ 0).
    pub reduces: u32,
}

impl JobField for ShuffleWatcherState {
    const KEY: &'static str = "shuffle_watcher";
    const ECHOED: bool = true;
    const DESCRIPTION: &'static str = "SAMP's decision for the job (ShuffleWatcher Fig. 4): \
        decided by `shuffle_watcher`, `shuffle_watcher_relaxed` and `lsap_shuffle` when the \
        snapshot has none, echoed unchanged by every algorithm; send it back as \
        `jobs[].shuffle_watcher`. Omitted in a snapshot = not decided yet.";

    /// Every rack it names is in `cluster.racks`.
    fn check(&self, cx: &Context<'_>, path: &str) -> Result<(), ModelError> {
        let known = |rack: &placer_models::RackId, at: String| {
            if cx.rack_known(rack.as_str()) {
                Ok(())
            } else {
                Err(ModelError::UnknownReference {
                    path: at,
                    entity: "rack",
                    id: rack.as_str().to_owned(),
                })
            }
        };
        for (k, rack) in self.preferred_map_racks.iter().enumerate() {
            known(rack, format!("{path}.preferred_map_racks[{k}]"))?;
        }
        for (k, r) in self.tentative_reduces_per_rack.iter().enumerate() {
            known(&r.rack, format!("{path}.tentative_reduces_per_rack[{k}].rack"))?;
        }
        Ok(())
    }
}
