//! State the service hands back to the master each epoch and receives again in the next
//! snapshot, so that placer itself stays stateless: the starvation clocks of the Hadoop Fair
//! Scheduler design doc §4.5 per pool, and [`JobState`], the generic carrier of what a policy
//! echoes per job (FAIR Alg. 1's delay variables, ShuffleWatcher's SAMP decision, …), whose
//! types live with their policies in `placer-solver`.

use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::BTreeMap;

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

/// What policies echo for one job, by wire key (`delay`, `shuffle_watcher`, …), each value's
/// JSON text as sent. The master copies a job's keys of an answer verbatim into the job of its
/// next snapshot; the policy that owns a key reads and checks it with its own type
/// (`placer_solver::echo`). Keys no policy echoes are kept (as text, so their memory is their
/// bytes) but never answered.
#[derive(Clone, Debug, Default)]
pub struct JobState(BTreeMap<String, Box<RawValue>>);

impl JobState {
    /// The JSON text of `key`, if sent.
    pub fn get(&self, key: &str) -> Option<&RawValue> {
        self.0.get(key).map(|b| &**b)
    }

    /// Sets `key` to `value`'s JSON text.
    pub fn set(&mut self, key: &str, value: &Value) {
        if let Ok(raw) = serde_json::value::to_raw_value(value) {
            self.0.insert(key.to_owned(), raw);
        }
    }

    /// Sets `key` to JSON text already written.
    pub fn set_raw(&mut self, key: &str, raw: Box<RawValue>) {
        self.0.insert(key.to_owned(), raw);
    }

    /// Removes `key`.
    pub fn remove(&mut self, key: &str) {
        self.0.remove(key);
    }

    /// The keys and their JSON text, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &RawValue)> {
        self.0.iter().map(|(k, v)| (k.as_str(), &**v))
    }

    /// No key.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Inserts a key read from the wire; `false` if it was there already.
    pub(crate) fn insert_new(&mut self, key: String, raw: Box<RawValue>) -> bool {
        self.0.insert(key, raw).is_none()
    }
}

/// Equal when every key holds the same JSON text.
impl PartialEq for JobState {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len()
            && self.0.iter().zip(&other.0).all(|((a, x), (b, y))| a == b && x.get() == y.get())
    }
}

impl Serialize for JobState {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter())
    }
}
