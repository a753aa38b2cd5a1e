//! One answered epoch, digested for the dashboard, `GET /v1/epochs` and the event log
//! (docs/operations/observability.md; Hadoop Fair Scheduler design doc §3.8, "a web page of pools
//! and jobs", and §5, "an event log"): who asked and when, how the solve went, where the placed
//! tasks went by locality, which jobs wait and why, each pool's weight, min share, fair share,
//! running tasks and demand, and who was preempted for whom.
//!
//! A record is bounded whatever the snapshot's size: at most [`MAX_JOBS`] jobs,
//! [`MAX_POOLS`] pools and [`MAX_PREEMPTIONS`] preemptions are listed, each list with a
//! `*_truncated` count of what was left out; the totals (`waiting_total`, `waiting_by_reason`,
//! `placed`, `stats`) still count everything. Ids are kept as sent.

use crate::metrics;
use placer_models::{
    JobId, NodeId, PlaceRequest, PlaceResponse, PoolId, PoolMode, PoolReport, PreemptionReason,
    Stats, Status, TaskId, TaskKind, WaitReason,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{SystemTime, UNIX_EPOCH};
use utoipa::ToSchema;

/// Most jobs listed in [`EpochRecord::jobs`]: those with the most waiting tasks.
pub const MAX_JOBS: usize = 200;

/// Most pools listed in [`EpochRecord::pools`] (and `pool_settings`): the first in the
/// answer's order.
pub const MAX_POOLS: usize = 1000;

/// Most preemptions listed in [`EpochRecord::preemptions`]: the first in the answer's order.
pub const MAX_PREEMPTIONS: usize = 200;

/// What the service remembers of one answered epoch (one line of the event log, one element
/// of `GET /v1/epochs`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct EpochRecord {
    /// Position in this process's sequence of answered epochs, from 1 (set when the record
    /// enters the ring; restarts at 1 with the process).
    #[serde(default)]
    pub seq: u64,
    /// The request's id (`X-Request-Id`, the caller's or a generated one).
    #[serde(default)]
    pub request_id: String,
    /// Wall-clock time the answer was ready, RFC 3339 in UTC with milliseconds
    /// (`2026-11-24T09:30:43.123Z`).
    #[serde(default)]
    pub time: String,
    /// The same instant in milliseconds since the Unix epoch.
    #[serde(default)]
    pub unix_ms: u64,
    /// The snapshot's `now_s` (the cluster master's clock, seconds).
    #[serde(default)]
    pub now_s: f64,
    /// `policy.algorithm` in force (after the config file's defaults).
    #[serde(default)]
    pub algorithm: String,
    /// `policy.solver` in force.
    #[serde(default)]
    pub engine: String,
    /// Solve wall time in milliseconds (`stats.solve_ms`).
    #[serde(default)]
    pub solve_ms: f64,
    /// `stats.status`: `optimal`, `heuristic` or `time_limited`.
    pub status: Status,
    /// The answer's `stats`, verbatim.
    pub stats: Stats,
    /// Tasks placed this epoch, by kind and locality.
    #[serde(default)]
    pub placed: PlacedByKind,
    /// Waiting tasks by kind (every job, listed or not).
    #[serde(default)]
    pub waiting_total: TaskCounts,
    /// Waiting tasks per (kind, reason), every job counted; sorted by kind, then reason.
    #[serde(default)]
    pub waiting_by_reason: Vec<ReasonCount>,
    /// Jobs with waiting tasks, most waiting first (ties by id), at most [`MAX_JOBS`].
    #[serde(default)]
    pub jobs: Vec<JobWaiting>,
    /// Jobs with waiting tasks left out of `jobs`.
    #[serde(default)]
    pub jobs_truncated: u64,
    /// Per pool, as answered (`pools` of the answer), at most [`MAX_POOLS`].
    #[serde(default)]
    pub pools: Vec<PoolReport>,
    /// The snapshot's settings of the same pools, in the same order.
    #[serde(default)]
    pub pool_settings: Vec<PoolSettings>,
    /// Pools left out of `pools` and `pool_settings`.
    #[serde(default)]
    pub pools_truncated: u64,
    /// Running tasks to kill, with their job and pool, at most [`MAX_PREEMPTIONS`].
    #[serde(default)]
    pub preemptions: Vec<PreemptionRecord>,
    /// Preemptions left out of `preemptions`.
    #[serde(default)]
    pub preemptions_truncated: u64,
}

/// A count of tasks per kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TaskCounts {
    /// Map tasks.
    pub map: u64,
    /// Reduce tasks.
    pub reduce: u64,
}

impl TaskCounts {
    fn add(&mut self, kind: TaskKind, n: u64) {
        match kind {
            TaskKind::Map => self.map += n,
            TaskKind::Reduce => self.reduce += n,
        }
    }

    /// `map + reduce`.
    pub fn total(&self) -> u64 {
        self.map + self.reduce
    }
}

/// Placed tasks by locality.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct LocalityCounts {
    /// Input on the node itself.
    pub node: u64,
    /// Input in the node's rack.
    pub rack: u64,
    /// Input in another rack.
    pub remote: u64,
    /// No input location.
    pub none: u64,
}

/// Placed tasks by kind, then locality.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PlacedByKind {
    /// Maps placed.
    pub map: LocalityCounts,
    /// Reduces placed.
    pub reduce: LocalityCounts,
}

/// Waiting tasks of one kind for one reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ReasonCount {
    /// Map or reduce.
    pub kind: TaskKind,
    /// Why they wait.
    pub reason: WaitReason,
    /// How many.
    pub tasks: u64,
}

/// One job's waiting tasks ("37 of 40 maps waiting: waiting_for_locality").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct JobWaiting {
    /// The job.
    pub job: JobId,
    /// Its pool.
    pub pool: PoolId,
    /// Its pending tasks in the snapshot, by kind (the "of 40").
    pub pending: TaskCounts,
    /// Its running tasks in the snapshot, by kind.
    pub running: TaskCounts,
    /// Its pending tasks not placed this epoch, by kind (the "37").
    pub waiting: TaskCounts,
    /// The waiting tasks per (kind, reason), sorted by kind, then reason.
    pub reasons: Vec<ReasonCount>,
}

/// A pool's settings from the snapshot (`pools[]`; defaults for a pool it does not list).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PoolSettings {
    /// The pool.
    pub id: PoolId,
    /// Weight.
    pub weight: f64,
    /// Guaranteed map slots.
    pub min_map_share: f64,
    /// Guaranteed reduce slots.
    pub min_reduce_share: f64,
    /// `fair` or `fifo`.
    pub mode: PoolMode,
}

/// One preemption with its victim.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PreemptionRecord {
    /// The running task killed.
    pub task: TaskId,
    /// Its node.
    pub node: NodeId,
    /// The rule: `min_share` or `fair_share` (which timeout fired).
    pub reason: PreemptionReason,
    /// The pool the slot is freed for (the beneficiary).
    pub for_pool: PoolId,
    /// The victim's job, when the snapshot lists the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub victim_job: Option<JobId>,
    /// The victim job's pool, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub victim_pool: Option<PoolId>,
}

impl Default for EpochRecord {
    fn default() -> Self {
        Self {
            seq: 0,
            request_id: String::new(),
            time: String::new(),
            unix_ms: 0,
            now_s: 0.0,
            algorithm: String::new(),
            engine: String::new(),
            solve_ms: 0.0,
            status: Status::Heuristic,
            stats: Stats {
                pending: 0,
                free_slots: 0,
                free_map_slots: 0,
                free_reduce_slots: 0,
                assigned: 0,
                node_local: 0,
                rack_local: 0,
                remote: 0,
                no_preference: 0,
                locality_cost: 0.0,
                fairness_distance: 0.0,
                preempted: 0,
                objective: 0.0,
                status: Status::Heuristic,
                solve_ms: 0.0,
                extra: Default::default(),
            },
            placed: PlacedByKind::default(),
            waiting_total: TaskCounts::default(),
            waiting_by_reason: Vec::new(),
            jobs: Vec::new(),
            jobs_truncated: 0,
            pools: Vec::new(),
            pool_settings: Vec::new(),
            pools_truncated: 0,
            preemptions: Vec::new(),
            preemptions_truncated: 0,
        }
    }
}

impl EpochRecord {
    /// The digest of `response`, the answer to `request`, ready at `at`, for the request
    /// `request_id`. `seq` is left 0 (the ring numbers records).
    ///
    /// # Complexity
    /// O(pending + running + jobs + |answer|) time, plus sorting the waiting jobs
    /// (O(w log w) for w waiting jobs); the record itself is O(1) in the snapshot's size
    /// (see the module's bounds) apart from the ids' lengths.
    pub fn digest(
        request: &PlaceRequest,
        response: &PlaceResponse,
        request_id: &str,
        at: SystemTime,
    ) -> Self {
        let unix_ms = at
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        let (jobs, jobs_truncated, waiting_total, waiting_by_reason) = waiting(request, response);
        let (preemptions, preemptions_truncated) = preemptions(request, response);
        let pools: Vec<PoolReport> = response.pools.iter().take(MAX_POOLS).cloned().collect();
        let pool_settings = pool_settings(request, &pools);
        Self {
            seq: 0,
            request_id: request_id.to_owned(),
            time: rfc3339_ms(unix_ms),
            unix_ms,
            now_s: request.now_s,
            algorithm: request.policy.algorithm.name().to_owned(),
            engine: request.policy.solver.name().to_owned(),
            solve_ms: response.stats.solve_ms,
            status: response.stats.status,
            stats: response.stats.clone(),
            placed: placed(response),
            waiting_total,
            waiting_by_reason,
            jobs,
            jobs_truncated,
            pools_truncated: count(response.pools.len().saturating_sub(pools.len())),
            pools,
            pool_settings,
            preemptions,
            preemptions_truncated,
        }
    }
}

fn count(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// Placed tasks by kind and locality ([`metrics::placed_by_locality`]'s split).
fn placed(response: &PlaceResponse) -> PlacedByKind {
    let mut out = PlacedByKind::default();
    for (kind, locality, n) in metrics::placed_by_locality(response) {
        let counts = if kind == "map" { &mut out.map } else { &mut out.reduce };
        match locality {
            "node_local" => counts.node = n,
            "rack_local" => counts.rack = n,
            "remote" => counts.remote = n,
            _ => counts.none = n,
        }
    }
    out
}

type Waiting = (Vec<JobWaiting>, u64, TaskCounts, Vec<ReasonCount>);

/// The waiting jobs (at most [`MAX_JOBS`]) and how many were left out, the totals by kind, and
/// by (kind, reason). Per-task entries (`?explain=true`) are counted like grouped ones.
fn waiting(request: &PlaceRequest, response: &PlaceResponse) -> Waiting {
    let mut by_job: HashMap<&JobId, BTreeMap<(TaskKind, WaitReason), u64>> = HashMap::new();
    let mut by_reason: BTreeMap<(TaskKind, WaitReason), u64> = BTreeMap::new();
    let mut total = TaskCounts::default();
    for w in &response.waiting {
        *by_job.entry(&w.job).or_default().entry((w.kind, w.reason)).or_default() += w.tasks;
        *by_reason.entry((w.kind, w.reason)).or_default() += w.tasks;
        total.add(w.kind, w.tasks);
    }
    let mut ranked: Vec<(u64, &JobId)> =
        by_job.iter().map(|(job, reasons)| (reasons.values().sum(), *job)).collect();
    // Most waiting first, ties by id: deterministic whatever the hash order.
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    let truncated = count(ranked.len().saturating_sub(MAX_JOBS));
    ranked.truncate(MAX_JOBS);

    let listed: HashSet<&JobId> = ranked.iter().map(|(_, job)| *job).collect();
    let mut pending: HashMap<&JobId, TaskCounts> = HashMap::new();
    for t in request.pending.iter().filter(|t| listed.contains(&t.job)) {
        pending.entry(&t.job).or_default().add(t.kind, 1);
    }
    let mut running: HashMap<&JobId, TaskCounts> = HashMap::new();
    for t in request.running.iter().filter(|t| listed.contains(&t.job)) {
        running.entry(&t.job).or_default().add(t.kind, 1);
    }
    let pools: HashMap<&JobId, &PoolId> =
        request.jobs.iter().filter(|j| listed.contains(&j.id)).map(|j| (&j.id, &j.pool)).collect();
    let jobs = ranked
        .into_iter()
        .map(|(_, job)| {
            let reasons = by_job.get(job).map(reason_counts).unwrap_or_default();
            let mut waiting = TaskCounts::default();
            for r in &reasons {
                waiting.add(r.kind, r.tasks);
            }
            JobWaiting {
                job: job.clone(),
                pool: pools.get(job).map(|p| (*p).clone()).unwrap_or_default(),
                pending: pending.get(job).copied().unwrap_or_default(),
                running: running.get(job).copied().unwrap_or_default(),
                waiting,
                reasons,
            }
        })
        .collect();
    (jobs, truncated, total, reason_counts(&by_reason))
}

fn reason_counts(counts: &BTreeMap<(TaskKind, WaitReason), u64>) -> Vec<ReasonCount> {
    counts.iter().map(|(&(kind, reason), &tasks)| ReasonCount { kind, reason, tasks }).collect()
}

/// The settings of `pools` from the snapshot, in their order; a pool the snapshot does not
/// list gets the schema's defaults (weight 1, no min share, fair).
fn pool_settings(request: &PlaceRequest, pools: &[PoolReport]) -> Vec<PoolSettings> {
    let by_id: HashMap<&PoolId, &placer_models::Pool> =
        request.pools.iter().map(|p| (&p.id, p)).collect();
    pools
        .iter()
        .map(|report| match by_id.get(&report.id) {
            Some(p) => PoolSettings {
                id: p.id.clone(),
                weight: p.weight,
                min_map_share: p.min_map_share,
                min_reduce_share: p.min_reduce_share,
                mode: p.mode,
            },
            None => PoolSettings {
                id: report.id.clone(),
                weight: 1.0,
                min_map_share: 0.0,
                min_reduce_share: 0.0,
                mode: PoolMode::Fair,
            },
        })
        .collect()
}

/// The first [`MAX_PREEMPTIONS`] preemptions with their victims' job and pool, and how many
/// were left out.
fn preemptions(request: &PlaceRequest, response: &PlaceResponse) -> (Vec<PreemptionRecord>, u64) {
    let listed = &response.preemptions[..response.preemptions.len().min(MAX_PREEMPTIONS)];
    let truncated = count(response.preemptions.len() - listed.len());
    if listed.is_empty() {
        return (Vec::new(), truncated);
    }
    let tasks: HashSet<&TaskId> = listed.iter().map(|p| &p.task).collect();
    let jobs: HashMap<&TaskId, &JobId> =
        request.running.iter().filter(|t| tasks.contains(&t.id)).map(|t| (&t.id, &t.job)).collect();
    let pools: HashMap<&JobId, &PoolId> = request.jobs.iter().map(|j| (&j.id, &j.pool)).collect();
    let records = listed
        .iter()
        .map(|p| {
            let victim_job = jobs.get(&p.task).copied();
            PreemptionRecord {
                task: p.task.clone(),
                node: p.node.clone(),
                reason: p.reason,
                for_pool: p.for_pool.clone(),
                victim_pool: victim_job.and_then(|j| pools.get(j)).map(|p| (*p).clone()),
                victim_job: victim_job.cloned(),
            }
        })
        .collect();
    (records, truncated)
}

/// `unix_ms` as RFC 3339 in UTC with milliseconds, e.g. `2026-11-24T09:30:43.123Z`.
pub fn rfc3339_ms(unix_ms: u64) -> String {
    let nanos = i128::from(unix_ms) * 1_000_000;
    match time::OffsetDateTime::from_unix_timestamp_nanos(nanos) {
        Ok(t) => format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
            t.year(),
            u8::from(t.month()),
            t.day(),
            t.hour(),
            t.minute(),
            t.second(),
            t.millisecond()
        ),
        Err(_) => String::new(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A small snapshot: pools prod (weight 2, min 2 maps) and adhoc (not listed → defaults);
    /// job j1 (prod) has 4 pending maps and 1 pending reduce, 1 running map; j2 (adhoc) has 2
    /// pending maps and 2 running maps, one of which is preempted for prod.
    fn request() -> PlaceRequest {
        placer_models::parse_request(
            br#"{"schema_version":1,"now_s":50,
            "cluster":{"racks":[{"id":"r1"}],"nodes":[
              {"id":"n1","rack":"r1","map_slots":2,"reduce_slots":1},
              {"id":"n2","rack":"r1","map_slots":2,"reduce_slots":1}]},
            "pools":[{"id":"prod","weight":2,"min_map_share":2}, {"id":"adhoc"}],
            "jobs":[{"id":"j1","pool":"prod"},{"id":"j2","pool":"adhoc"}],
            "pending":[
              {"id":"a","job":"j1","kind":"map","replicas":["n1"]},
              {"id":"b","job":"j1","kind":"map","replicas":["n1"]},
              {"id":"c","job":"j1","kind":"map","replicas":["n1"]},
              {"id":"d","job":"j1","kind":"map","replicas":["n1"]},
              {"id":"e","job":"j1","kind":"reduce"},
              {"id":"f","job":"j2","kind":"map"},
              {"id":"g","job":"j2","kind":"map"}],
            "running":[
              {"id":"r","job":"j1","kind":"map","node":"n1"},
              {"id":"s","job":"j2","kind":"map","node":"n2"},
              {"id":"t","job":"j2","kind":"map","node":"n2"}],
            "policy":{"algorithm":"fair","solver":"auto"}}"#,
        )
        .unwrap()
    }

    /// A hand-written answer to [`request`]: a (node), e (reduce, none) placed; b, c wait for
    /// locality, d waits slots_taken; f, g wait slots_taken, given one per task as
    /// `?explain=true` would; t is preempted for prod by the min-share rule.
    fn response() -> PlaceResponse {
        let pool = |id: &str, fair: f64| {
            serde_json::json!({"id": id, "fair_share": {"map": fair, "reduce": 1.0},
                "running": {"map": 1.0, "reduce": 0.0}, "demand": {"map": 5.0, "reduce": 1.0},
                "running_after": {"map": 2.0, "reduce": 1.0}, "starvation": {}})
        };
        let cost = serde_json::json!({"total": 0.0, "locality": 0.0, "fairness": 0.0});
        serde_json::from_value(serde_json::json!({
            "schema_version": 1,
            "assignments": [
                {"task": "a", "node": "n1", "locality": "node", "cost": cost},
                {"task": "e", "node": "n2", "locality": "none", "cost": cost}],
            "preemptions": [
                {"task": "t", "node": "n2", "reason": "min_share", "for_pool": "prod"}],
            "waiting": [
                {"job": "j1", "kind": "map", "tasks": 2, "reason": "waiting_for_locality"},
                {"job": "j1", "kind": "map", "tasks": 1, "reason": "slots_taken"},
                {"job": "j2", "task": "f", "kind": "map", "tasks": 1, "reason": "slots_taken"},
                {"job": "j2", "task": "g", "kind": "map", "tasks": 1, "reason": "slots_taken"}],
            "pools": [pool("adhoc", 1.5), pool("prod", 2.5)],
            "jobs": [],
            "stats": {"pending": 7, "free_slots": 3, "free_map_slots": 1,
                "free_reduce_slots": 2, "assigned": 2, "node_local": 1, "rack_local": 0,
                "remote": 0, "no_preference": 0, "locality_cost": 0.0,
                "fairness_distance": 0.1, "preempted": 1, "objective": 0.0,
                "status": "heuristic", "solve_ms": 1.25}
        }))
        .unwrap()
    }

    fn digest() -> EpochRecord {
        let at = UNIX_EPOCH + Duration::from_millis(1_795_000_000_123);
        EpochRecord::digest(&request(), &response(), "req-1", at)
    }

    #[test]
    fn the_header_fields_come_from_the_request_and_the_clock() {
        let r = digest();
        assert_eq!(r.request_id, "req-1");
        assert_eq!(r.unix_ms, 1_795_000_000_123);
        assert_eq!(r.time, "2026-11-18T11:06:40.123Z");
        assert_eq!((r.now_s, r.algorithm.as_str(), r.engine.as_str()), (50.0, "fair", "auto"));
        assert_eq!((r.solve_ms, r.status), (1.25, Status::Heuristic));
    }

    #[test]
    fn placements_split_by_kind_and_locality() {
        let r = digest();
        // Maps: a on its replica's node (stats.node_local = 1). Reduces: e, no input location.
        assert_eq!(r.placed.map, LocalityCounts { node: 1, rack: 0, remote: 0, none: 0 });
        assert_eq!(r.placed.reduce, LocalityCounts { node: 0, rack: 0, remote: 0, none: 1 });
    }

    #[test]
    fn waiting_jobs_carry_their_pool_and_counts_hand_derived() {
        let r = digest();
        // j1: 3 of 4 maps wait (2 locality + 1 slots_taken), its reduce was placed.
        // j2: 2 of 2 maps wait (two per-task slots_taken entries summed).
        assert_eq!(r.waiting_total, TaskCounts { map: 5, reduce: 0 });
        assert_eq!(r.jobs.len(), 2);
        let j1 = &r.jobs[0];
        assert_eq!((j1.job.as_str(), j1.pool.as_str()), ("j1", "prod"));
        assert_eq!(j1.pending, TaskCounts { map: 4, reduce: 1 });
        assert_eq!(j1.running, TaskCounts { map: 1, reduce: 0 });
        assert_eq!(j1.waiting, TaskCounts { map: 3, reduce: 0 });
        let reasons: Vec<(WaitReason, u64)> =
            j1.reasons.iter().map(|c| (c.reason, c.tasks)).collect();
        assert_eq!(reasons, [(WaitReason::SlotsTaken, 1), (WaitReason::WaitingForLocality, 2)]);
        let j2 = &r.jobs[1];
        assert_eq!((j2.job.as_str(), j2.pool.as_str()), ("j2", "adhoc"));
        assert_eq!((j2.pending.map, j2.running.map, j2.waiting.map), (2, 2, 2));
        assert_eq!(j2.reasons.len(), 1);
        let by_reason: Vec<(WaitReason, u64)> =
            r.waiting_by_reason.iter().map(|c| (c.reason, c.tasks)).collect();
        assert_eq!(by_reason, [(WaitReason::SlotsTaken, 3), (WaitReason::WaitingForLocality, 2)]);
        assert_eq!(r.jobs_truncated, 0);
    }

    #[test]
    fn pools_keep_the_answer_and_the_snapshot_settings() {
        let r = digest();
        let ids: Vec<&str> = r.pools.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["adhoc", "prod"]);
        let settings: Vec<(&str, f64, f64)> =
            r.pool_settings.iter().map(|p| (p.id.as_str(), p.weight, p.min_map_share)).collect();
        assert_eq!(settings, [("adhoc", 1.0, 0.0), ("prod", 2.0, 2.0)]);
        assert_eq!(r.pools[1].fair_share.unwrap().map, 2.5);
    }

    #[test]
    fn a_preemption_names_its_victim_job_and_pool() {
        let r = digest();
        assert_eq!(r.preemptions.len(), 1);
        let p = &r.preemptions[0];
        assert_eq!((p.task.as_str(), p.for_pool.as_str()), ("t", "prod"));
        assert_eq!(p.reason, PreemptionReason::MinShare);
        assert_eq!(p.victim_job.as_ref().map(JobId::as_str), Some("j2"));
        assert_eq!(p.victim_pool.as_ref().map(PoolId::as_str), Some("adhoc"));
    }

    #[test]
    fn lists_are_capped_with_a_truncated_count() {
        let mut req = request();
        let mut resp = response();
        let jobs = MAX_JOBS + 5;
        resp.waiting.clear();
        for i in 0..jobs {
            let job = JobId::from(format!("x{i:04}"));
            req.jobs.push(placer_models::Job { id: job.clone(), ..Default::default() });
            // x0000 waits most, so it is listed first; the 5 with the fewest are dropped.
            resp.waiting.push(placer_models::Waiting {
                job,
                task: None,
                kind: TaskKind::Map,
                tasks: count(jobs - i),
                reason: WaitReason::NoFreeSlots,
            });
        }
        let template = resp.preemptions[0].clone();
        resp.preemptions = vec![template; MAX_PREEMPTIONS + 3];
        let r = EpochRecord::digest(&req, &resp, "", UNIX_EPOCH);
        assert_eq!((r.jobs.len(), r.jobs_truncated), (MAX_JOBS, 5));
        assert_eq!(r.jobs[0].job.as_str(), "x0000");
        assert_eq!(r.waiting_total.map, (6..=count(jobs)).sum::<u64>() + 15);
        assert_eq!((r.preemptions.len(), r.preemptions_truncated), (MAX_PREEMPTIONS, 3));
        assert_eq!(r.time, "1970-01-01T00:00:00.000Z");
    }

    #[test]
    fn a_record_round_trips_through_json() {
        let r = digest();
        let line = serde_json::to_string(&r).unwrap();
        assert!(!line.contains('\n'));
        assert_eq!(serde_json::from_str::<EpochRecord>(&line).unwrap(), r);
    }
}
