//! Delay scheduling (Zaharia et al., FAIR Alg. 1) in one place: its knobs (the heartbeat, the
//! waits T1 and T2), its per-job state echoed to the master (`jobs[].delay`), and its rule for
//! the locality level a job may launch at. The heartbeat schedulers (`delay`, and the
//! ShuffleWatcher policies' NASS loop) apply the rule offer by offer; `lsap_quota` applies it
//! once per epoch, as each job's level for the exact flow.
//!
//! The rule: a job at level 0 launches only node-local maps; a rack-local map if its level is
//! ≥ 1 or it has waited ≥ T1 (level := 1); any map if its level is 2, or it is 1 and has waited
//! ≥ T2, or it is 0 and has waited ≥ T1 + T2 (level := 2). A launch resets the wait to 0.
//! placer's reading of an epoch: all its heartbeats happen at `now_s`, so waits grow only
//! between epochs: a job skipped in an epoch is returned with `skipped_at_s = now_s`, and the
//! next snapshot adds `now_s' − skipped_at_s` to its wait.

use crate::echo::{Context, JobField};
use crate::settings::Settings;
use placer_models::{non_negative, positive, ModelError, PlaceRequest};
use serde::{Deserialize, Serialize};

/// The master's heartbeat interval (Hadoop 0.20: a TaskTracker reports, and is offered work,
/// once per interval).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(default)]
pub struct Heartbeat {
    /// The master's heartbeat interval in seconds (> 0); default 3 (Hadoop 0.20's minimum).
    /// The locality waits default to 1.5 × this (design doc §4.8); the what-if simulator
    /// offers slots at this interval.
    pub heartbeat_s: f64,
}

impl Default for Heartbeat {
    fn default() -> Self {
        Self { heartbeat_s: 3.0 }
    }
}

impl Settings for Heartbeat {
    const NAME: &'static str = "heartbeat";
    fn check(&self) -> Result<(), ModelError> {
        positive(self.heartbeat_s, || "policy.heartbeat_s".to_owned())
    }
}

/// Delay scheduling's waits, for every job that does not set its own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(default)]
pub struct DelayWaits {
    /// Delay scheduling's node-locality wait T1 in seconds (FAIR Alg. 1); ≥ 0, default
    /// 1.5 × `heartbeat_s`. A job may override it (`jobs[].locality_delay_node_s`).
    pub locality_delay_node_s: Option<f64>,
    /// Delay scheduling's further rack-locality wait T2 in seconds; ≥ 0, default
    /// 1.5 × `heartbeat_s`. A job may override it (`jobs[].locality_delay_rack_s`).
    pub locality_delay_rack_s: Option<f64>,
}

impl Settings for DelayWaits {
    const NAME: &'static str = "delay waits";
    fn check(&self) -> Result<(), ModelError> {
        for (key, v) in [
            ("locality_delay_node_s", self.locality_delay_node_s),
            ("locality_delay_rack_s", self.locality_delay_rack_s),
        ] {
            if let Some(v) = v {
                non_negative(v, || format!("policy.{key}"))?;
            }
        }
        Ok(())
    }
}

/// FAIR Alg. 1's per-job variables, echoed to the master as `jobs[].delay`: copy an answer's
/// `jobs[].delay` verbatim into the job of the next snapshot.
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

impl JobField for DelayState {
    const KEY: &'static str = "delay";
    const ECHOED: bool = true;
    const DESCRIPTION: &'static str = "Delay-scheduling state (FAIR Alg. 1): updated by `delay` \
        and `lsap_quota`, echoed unchanged by the other algorithms; send it back as \
        `jobs[].delay`. Omitted in a snapshot = level 0, no wait, not skipped.";

    fn check(&self, _cx: &Context<'_>, path: &str) -> Result<(), ModelError> {
        if self.level > 2 {
            return Err(ModelError::InvalidNumber {
                path: format!("{path}.level"),
                message: format!("a locality level is 0, 1 or 2, got {}", self.level),
            });
        }
        non_negative(self.wait_s, || format!("{path}.wait_s"))?;
        if let Some(v) = self.skipped_at_s {
            non_negative(v, || format!("{path}.skipped_at_s"))?;
        }
        Ok(())
    }
}

/// One job's delay-scheduling inputs for an epoch: its state with the wait since its last skip
/// added, and its waits T1, T2 (s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JobDelay {
    /// The state at the start of the epoch.
    pub state: DelayState,
    /// T1: the job's `locality_delay_node_s`, else the policy's, else 1.5 × heartbeat.
    pub t1: f64,
    /// T2: the job's `locality_delay_rack_s`, else the policy's, else 1.5 × heartbeat.
    pub t2: f64,
}

/// Every job's [`JobDelay`] at the start of the epoch.
///
/// # Complexity
/// O(jobs + bytes of their echoed state).
pub fn start(req: &PlaceRequest) -> Vec<JobDelay> {
    let heartbeat: Heartbeat = crate::settings::read(&req.policy);
    let waits: DelayWaits = crate::settings::read(&req.policy);
    let default_wait = 1.5 * heartbeat.heartbeat_s;
    req.jobs
        .iter()
        .enumerate()
        .map(|(j, job)| {
            let mut state: DelayState = crate::echo::read(req, j).unwrap_or_default();
            if let Some(t) = state.skipped_at_s.take() {
                state.wait_s += (req.now_s - t).max(0.0);
            }
            JobDelay {
                state,
                t1: job
                    .locality_delay_node_s
                    .or(waits.locality_delay_node_s)
                    .unwrap_or(default_wait),
                t2: job
                    .locality_delay_rack_s
                    .or(waits.locality_delay_rack_s)
                    .unwrap_or(default_wait),
            }
        })
        .collect()
}

/// FAIR Alg. 1's test for job state `d` offered a map of locality `offered` (0 node-local,
/// 1 rack-local, 2 off-rack): the level it launches at, or `None` to skip it, with waits
/// T1 = `t1` and T2 = `t2` seconds.
///
/// # Complexity
/// O(1).
///
/// # Examples
/// FAIR Alg. 1 with T1 = T2 = 4.5 s: a job at level 0 that has waited 5 s may launch a
/// rack-local map (at level 1) but not an off-rack one, which needs 9 s.
/// ```
/// use placer_solver::delay_scheduling::{allowed_level, DelayState};
/// let d = DelayState { level: 0, wait_s: 5.0, skipped_at_s: None };
/// assert_eq!(allowed_level(&d, 0, 4.5, 4.5), Some(0));
/// assert_eq!(allowed_level(&d, 1, 4.5, 4.5), Some(1));
/// assert_eq!(allowed_level(&d, 2, 4.5, 4.5), None);
/// ```
pub fn allowed_level(d: &DelayState, offered: u8, t1: f64, t2: f64) -> Option<u8> {
    match offered {
        0 => Some(0),
        1 => (d.level >= 1 || d.wait_s >= t1).then_some(1),
        _ => (d.level == 2
            || (d.level == 1 && d.wait_s >= t2)
            || (d.level == 0 && d.wait_s >= t1 + t2))
            .then_some(2),
    }
}

/// The highest level job state `d` may launch at now ([`allowed_level`]'s largest).
///
/// # Complexity
/// O(1).
pub fn level(d: &DelayState, t1: f64, t2: f64) -> u8 {
    (0..=2u8).rev().find(|&l| allowed_level(d, l, t1, t2).is_some()).unwrap_or(0)
}

/// The state to echo after an epoch: `skipped_at_s = now` for the jobs skipped in it.
///
/// # Complexity
/// O(jobs).
pub fn end(now: f64, delay: Vec<DelayState>, skipped: &[bool]) -> Vec<Option<DelayState>> {
    delay
        .into_iter()
        .zip(skipped)
        .map(|(mut d, &s)| {
            d.skipped_at_s = s.then_some(now);
            Some(d)
        })
        .collect()
}
