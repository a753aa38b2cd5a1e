//! Reader for Hadoop Rumen job traces (`LoggedJob` JSON objects, concatenated, optionally
//! gzipped): the Mumak 19-job trace and its topology tree (MAPREDUCE-728, 2009) and the YARN SLS
//! `2jobs2min-rumen-jh.json` example (HADOOP-10311). Units: Rumen times are epoch ms; the
//! workload's are seconds relative to the earliest `submitTime` in the file; sizes are bytes.
//! Complexity: O(file size) time; memory O(one job record) beyond the decompressed bytes and the
//! result.
//!
//! Mapping (every choice below is placer's, stated here once):
//! - Job: `jobID` (required, unique) → id; `user` → user (`"unknown"` if absent); `queue` → pool
//!   (`"default"` if absent; Mumak has none); `submitTime` (required, ≥ 0) → `submit_s`;
//!   `finishTime` → `observed_finish_s`, on the same origin as `submit_s` (`None` when absent,
//!   −1 or 0; a finish before `submitTime` is malformed); `outcome` (`SUCCESS`, `FAILED`,
//!   `KILLED`) → `class`; the first `SETUP` and `CLEANUP` task of `otherTasks` with both times
//!   known → `setup_s` and `cleanup_s` (task `finishTime − startTime`). No pools are listed
//!   ([`Workload::pools`] stays empty: Rumen has no weights). Task times are measured attempt
//!   times, so [`Workload::measured_times`] is true.
//! - **FAILED jobs are kept by default** with every task they logged (their work occupied the
//!   cluster, and the trace's counts — 19 jobs, 8,573 maps — are what the model then shows);
//!   [`RumenOptions::skip_failed_jobs`] drops every job whose outcome is not `SUCCESS`.
//! - **Failed and killed attempts are retries of their task, not extra tasks.** Each task is one
//!   [`MapSpec`]/[`ReduceSpec`] described by its successful attempt; a task with none (killed,
//!   or in a failed job) takes its time from its last attempt (in trace order) with valid times
//!   (the slot time it really used), else from the task's own start/finish, else 0, and has no
//!   `observed_host`. Every *other* attempt whose `result` is `FAILED` or `KILLED` and whose
//!   times are both known is kept as a retry: its `finishTime − startTime` (s) goes to the
//!   task's `failed_attempts_s`, in start order (ties in trace order); attempts with an unknown
//!   time are skipped. Hadoop's killed speculative attempts are kept the same way, though they
//!   ran beside the successful one rather than before it (142 of Mumak's 1,313 kept attempts
//!   start after their task's successful attempt did).
//! - Map: `preferredLocations[].layers = [rack, host]` → `replicas` (the hosts, in trace order,
//!   duplicates dropped; an empty list is "no preference"); the successful attempt's `hostName`
//!   (`/rack/host`) → `observed_host`; `inputBytes`, or when it is −1 (unknown, as in all of
//!   Mumak) the successful attempt's `hdfsBytesRead`, else the largest `hdfsBytesRead` of any
//!   attempt, else 0 → `input_bytes`; `outputBytes`, else the successful attempt's
//!   `mapOutputBytes`, else 0 → `output_bytes`; attempt `finishTime − startTime` → `compute_s`
//!   (a *measured* time that includes the input read: Rumen cannot separate them).
//! - Reduce: `inputBytes`, else the successful attempt's `reduceShuffleBytes`, else the largest
//!   of any attempt, else 0 → `shuffle_bytes`; `outputBytes`, else `hdfsBytesWritten` → output;
//!   `compute_s` = `finishTime − shuffleFinished` when the attempt logged its shuffle end (so the
//!   shuffle is excluded, as the model wants), else `finishTime − startTime`.
//! - Names are unescaped: Rumen writes dots as `\.` (`node1817\.megatron\.com` after JSON
//!   decoding), so every backslash is dropped and the character after it kept.
//! - −1 means "unknown" everywhere in Rumen; any other negative size or time is malformed. A
//!   successful attempt (or a task) that finishes before it starts is malformed; a failed or
//!   killed one is not (Mumak has 3 such failed reduce attempts): its time counts as unknown.
//!
//! The topology file ([`read_rumen_topology`]) is a tree `{"name": "<root>", "children":
//! [{"name": rack, "children": [{"name": host, "children": null}]}]}`; every leaf is a host in
//! the rack named by its parent (racks in first-appearance order, host names unique; a leaf
//! directly under the root is malformed).
//!
//! Errors name the file, the record (1-based) with its job id and starting line, and the field
//! as a JSON path (`mapTasks[5].attempts[0].startTime`).

use crate::error::DatasetError;
use crate::workload::{JobSpec, MapSpec, NodeSpec, RackSpec, ReduceSpec, Topology, Workload};
use serde::Deserialize;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::Path;

/// How [`read_rumen`] turns a trace into a [`Workload`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RumenOptions {
    /// Drop jobs whose `outcome` is not `SUCCESS` (default false: keep them, see the module
    /// docs).
    pub skip_failed_jobs: bool,
    /// The cluster to attach as [`Workload::topology`] (e.g. from [`read_rumen_topology`]).
    pub topology: Option<Topology>,
}

/// Reads a Rumen trace file (plain or gzip, detected by its magic bytes).
pub fn read_rumen(path: &Path, options: &RumenOptions) -> Result<Workload, DatasetError> {
    let file = path.display().to_string();
    let bytes = read_file(&file, path)?;
    parse_rumen(&file, &bytes, options)
}

/// Parses a Rumen trace from bytes (plain or gzip); `file` names it in errors.
pub fn parse_rumen(
    file: &str,
    bytes: &[u8],
    options: &RumenOptions,
) -> Result<Workload, DatasetError> {
    let bytes = gunzip_if_gzip(file, bytes)?;
    // Each job with its submit and (known) finish times, epoch ms.
    let mut raw: Vec<(JobSpec, i64, Option<u64>)> = Vec::new();
    let mut ids = BTreeSet::new();
    for_each_json_record(file, &bytes, |rec| {
        let job: RJob = typed(file, &rec, &rec.value)?;
        let id = match job.job_id.as_deref() {
            Some(s) if !s.is_empty() => s.to_string(),
            _ => return Err(rec.err(file, "jobID", "missing or empty job id")),
        };
        let loc = format!("{} ({id})", rec.location());
        let m = |field: &str, msg: &str| malformed(file, &loc, field, msg);
        if !ids.insert(id.clone()) {
            return Err(m("jobID", "duplicate job id"));
        }
        let submit = match job.submit_time {
            Some(t) if t >= 0 => t,
            Some(_) => return Err(m("submitTime", "negative time")),
            None => return Err(m("submitTime", "missing")),
        };
        // Like an attempt's, a finish of 0 was never reached: unknown.
        let finish = known(job.finish_time, "finishTime", &m)?.filter(|&f| f > 0);
        if finish.is_some_and(|f| f < submit.unsigned_abs()) {
            return Err(m("finishTime", "before submitTime"));
        }
        let outcome = job.outcome.clone();
        if options.skip_failed_jobs && outcome.as_deref() != Some("SUCCESS") {
            return Ok(());
        }
        let mut maps = Vec::new();
        for (i, t) in job.map_tasks.iter().flatten().enumerate() {
            maps.push(map_spec(t, &format!("mapTasks[{i}]"), &m)?);
        }
        let mut reduces = Vec::new();
        for (i, t) in job.reduce_tasks.iter().flatten().enumerate() {
            reduces.push(reduce_spec(t, &format!("reduceTasks[{i}]"), &m)?);
        }
        // The first SETUP and CLEANUP task with both times known (a task-level span).
        let other = |kind: &str| -> Result<Option<f64>, DatasetError> {
            for (i, t) in job.other_tasks.iter().flatten().enumerate() {
                if t.task_type.as_deref() == Some(kind) {
                    let path = format!("otherTasks[{i}]");
                    match span(t.start_time, t.finish_time, &path, "startTime", &m) {
                        Ok(Some(secs)) => return Ok(Some(secs)),
                        Ok(None) => {}
                        Err(e) => return Err(e),
                    }
                }
            }
            Ok(None)
        };
        let (setup_s, cleanup_s) = (other("SETUP")?, other("CLEANUP")?);
        let spec = JobSpec {
            gang: None,
            topology: None,
            setup_s,
            cleanup_s,
            observed_finish_s: None,
            id,
            submit_s: 0.0,
            user: non_empty(job.user).unwrap_or_else(|| "unknown".into()),
            pool: non_empty(job.queue).unwrap_or_else(|| "default".into()),
            maps,
            reduces,
            deadline_s: None,
            class: non_empty(outcome),
        };
        raw.push((spec, submit, finish));
        Ok(())
    })?;
    let origin = raw.iter().map(|(_, t, _)| *t).min().unwrap_or(0);
    let jobs = raw
        .into_iter()
        .map(|(mut j, t, finish)| {
            j.submit_s = ms_to_s(t - origin);
            j.observed_finish_s = finish.map(|f| (f - origin.unsigned_abs()) as f64 / 1000.0);
            j
        })
        .collect();
    let mut w = Workload {
        measured_times: true,
        name: file.to_string(),
        jobs,
        pools: Vec::new(),
        topology: options.topology.clone(),
    };
    w.sort_jobs();
    Ok(w)
}

/// Reads a Rumen topology tree (plain or gzip).
pub fn read_rumen_topology(path: &Path) -> Result<Topology, DatasetError> {
    let file = path.display().to_string();
    let bytes = read_file(&file, path)?;
    parse_rumen_topology(&file, &bytes)
}

/// Parses a Rumen topology tree from bytes (plain or gzip); `file` names it in errors.
pub fn parse_rumen_topology(file: &str, bytes: &[u8]) -> Result<Topology, DatasetError> {
    let bytes = gunzip_if_gzip(file, bytes)?;
    let mut racks: Vec<RackSpec> = Vec::new();
    let mut rack_at: BTreeMap<String, usize> = BTreeMap::new();
    let mut hosts = BTreeSet::new();
    for_each_json_record(file, &bytes, |rec| {
        let root: RNode = typed(file, &rec, &rec.value)?;
        let loc = rec.location();
        let mut stack: Vec<(&RNode, String, Option<String>)> = Vec::new();
        for (i, c) in root.children.iter().flatten().enumerate() {
            stack.push((c, format!("children[{i}]"), None));
        }
        // Depth-first, children in file order (pushed reversed).
        stack.reverse();
        while let Some((node, path, parent)) = stack.pop() {
            let name = match node.name.as_deref() {
                Some(n) if !n.is_empty() => unescape(n),
                _ => return Err(malformed(file, &loc, &format!("{path}.name"), "missing name")),
            };
            let kids: Vec<&RNode> = node.children.iter().flatten().collect();
            if kids.is_empty() {
                let Some(rack) = parent else {
                    return Err(malformed(
                        file,
                        &loc,
                        &format!("{path}.name"),
                        "a host directly under the root has no rack",
                    ));
                };
                if !hosts.insert(name.clone()) {
                    return Err(malformed(file, &loc, &format!("{path}.name"), "duplicate host"));
                }
                let r = *rack_at.entry(rack.clone()).or_insert_with(|| {
                    racks.push(RackSpec { id: rack.clone(), nodes: Vec::new() });
                    racks.len() - 1
                });
                racks[r].nodes.push(NodeSpec { id: name, ..NodeSpec::default() });
            } else {
                for (i, c) in kids.into_iter().enumerate().rev() {
                    stack.push((c, format!("{path}.children[{i}]"), Some(name.clone())));
                }
            }
        }
        Ok(())
    })?;
    Ok(Topology { racks })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RJob {
    #[serde(rename = "jobID")]
    job_id: Option<String>,
    user: Option<String>,
    queue: Option<String>,
    submit_time: Option<i64>,
    finish_time: Option<i64>,
    outcome: Option<String>,
    map_tasks: Option<Vec<RTask>>,
    reduce_tasks: Option<Vec<RTask>>,
    other_tasks: Option<Vec<ROther>>,
}

/// A setup or cleanup task (`otherTasks`).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ROther {
    task_type: Option<String>,
    start_time: Option<i64>,
    finish_time: Option<i64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RTask {
    start_time: Option<i64>,
    finish_time: Option<i64>,
    input_bytes: Option<i64>,
    output_bytes: Option<i64>,
    preferred_locations: Option<Vec<RLocation>>,
    attempts: Option<Vec<RAttempt>>,
}

#[derive(Deserialize)]
struct RLocation {
    layers: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RAttempt {
    host_name: Option<String>,
    location: Option<RLocation>,
    start_time: Option<i64>,
    finish_time: Option<i64>,
    shuffle_finished: Option<i64>,
    result: Option<String>,
    hdfs_bytes_read: Option<i64>,
    hdfs_bytes_written: Option<i64>,
    map_output_bytes: Option<i64>,
    reduce_shuffle_bytes: Option<i64>,
}

#[derive(Deserialize)]
struct RNode {
    name: Option<String>,
    children: Option<Vec<RNode>>,
}

/// A Rumen count or time: −1 (or absent) is unknown, other negatives are malformed.
fn known(
    v: Option<i64>,
    field: &str,
    m: &dyn Fn(&str, &str) -> DatasetError,
) -> Result<Option<u64>, DatasetError> {
    match v {
        None | Some(-1) => Ok(None),
        Some(x) if x < 0 => {
            Err(m(field, &format!("negative value {x} (only -1, unknown, is allowed)")))
        }
        Some(x) => Ok(Some(x.unsigned_abs())),
    }
}

/// The measured duration of one attempt in seconds, if both ends are known.
fn span(
    start: Option<i64>,
    finish: Option<i64>,
    path: &str,
    start_name: &str,
    m: &dyn Fn(&str, &str) -> DatasetError,
) -> Result<Option<f64>, DatasetError> {
    // Rumen logs 0 for a time never reached (6 failed attempts in Mumak start at 0 and finish
    // in April 2009): as unknown as -1, or they would last 39 years.
    let s = known(start, &format!("{path}.{start_name}"), m)?.filter(|&x| x > 0);
    let f = known(finish, &format!("{path}.finishTime"), m)?.filter(|&x| x > 0);
    match (s, f) {
        (Some(s), Some(f)) if f >= s => Ok(Some((f - s) as f64 / 1000.0)),
        (Some(_), Some(_)) => {
            Err(m(&format!("{path}.finishTime"), &format!("before {start_name}")))
        }
        _ => Ok(None),
    }
}

/// Index of the successful attempt, and the task's time: that attempt's, else the last attempt
/// with both times known, else the task's own; and the task's retries.
struct Chosen<'a> {
    success: Option<(usize, &'a RAttempt)>,
    seconds: f64,
    /// Durations, s, of the `FAILED` or `KILLED` attempts with both times known, other than the
    /// one `seconds` describes, in start order (ties in trace order).
    failed_attempts_s: Vec<f64>,
}

fn choose<'a>(
    t: &'a RTask,
    path: &str,
    reduce: bool,
    m: &dyn Fn(&str, &str) -> DatasetError,
) -> Result<Chosen<'a>, DatasetError> {
    let attempts: Vec<&RAttempt> = t.attempts.iter().flatten().collect();
    let mut seconds = None;
    let mut success = None;
    let mut last_valid = None;
    // (start ms, index, seconds) of every FAILED or KILLED attempt with both times known.
    let mut retries: Vec<(i64, usize, f64)> = Vec::new();
    for (i, a) in attempts.iter().enumerate() {
        let ap = format!("{path}.attempts[{i}]");
        let succeeded = success.is_none() && a.result.as_deref() == Some("SUCCESS");
        let full = match span(a.start_time, a.finish_time, &ap, "startTime", m) {
            // Failed attempts may log a finish before their start (3 in Mumak): unknown time.
            Err(DatasetError::Malformed { ref message, .. })
                if !succeeded && message.starts_with("before") =>
            {
                None
            }
            other => other?,
        };
        if let Some(secs) = full {
            last_valid = Some((i, secs));
            if matches!(a.result.as_deref(), Some("FAILED" | "KILLED")) {
                retries.push((a.start_time.unwrap_or(0), i, secs));
            }
        }
        if succeeded {
            success = Some((i, *a));
            let after_shuffle = if reduce {
                let sf = known(a.shuffle_finished, &format!("{ap}.shuffleFinished"), m)?;
                let st = known(a.start_time, &format!("{ap}.startTime"), m)?;
                let fin = known(a.finish_time, &format!("{ap}.finishTime"), m)?;
                match (st, sf, fin) {
                    (Some(st), Some(sf), Some(fin)) if st <= sf && sf <= fin => {
                        Some((fin - sf) as f64 / 1000.0)
                    }
                    _ => None,
                }
            } else {
                None
            };
            seconds = after_shuffle.or(full);
        }
    }
    let task = span(t.start_time, t.finish_time, path, "startTime", m)?;
    let described = success.map(|(i, _)| i).or(last_valid.map(|(i, _)| i));
    let seconds = seconds.or(last_valid.map(|(_, s)| s)).or(task).unwrap_or(0.0);
    retries.retain(|&(_, i, _)| Some(i) != described);
    retries.sort_by_key(|&(start, i, _)| (start, i));
    let failed_attempts_s = retries.into_iter().map(|(_, _, s)| s).collect();
    Ok(Chosen { success, seconds, failed_attempts_s })
}

/// The largest known value of an attempt counter.
fn max_counter(
    t: &RTask,
    path: &str,
    name: &str,
    get: fn(&RAttempt) -> Option<i64>,
    m: &dyn Fn(&str, &str) -> DatasetError,
) -> Result<Option<u64>, DatasetError> {
    let mut best = None;
    for (i, a) in t.attempts.iter().flatten().enumerate() {
        let v = known(get(a), &format!("{path}.attempts[{i}].{name}"), m)?;
        best = best.max(v);
    }
    Ok(best)
}

fn map_spec(
    t: &RTask,
    path: &str,
    m: &dyn Fn(&str, &str) -> DatasetError,
) -> Result<MapSpec, DatasetError> {
    let c = choose(t, path, false, m)?;
    let sp = |i: usize, f: &str| format!("{path}.attempts[{i}].{f}");
    let input = match known(t.input_bytes, &format!("{path}.inputBytes"), m)? {
        Some(v) => Some(v),
        None => match c.success {
            Some((i, a)) => known(a.hdfs_bytes_read, &sp(i, "hdfsBytesRead"), m)?,
            None => None,
        },
    };
    let input = match input {
        Some(v) => v,
        None => max_counter(t, path, "hdfsBytesRead", |a| a.hdfs_bytes_read, m)?.unwrap_or(0),
    };
    let output = match known(t.output_bytes, &format!("{path}.outputBytes"), m)? {
        Some(v) => v,
        None => match c.success {
            Some((i, a)) => known(a.map_output_bytes, &sp(i, "mapOutputBytes"), m)?.unwrap_or(0),
            None => 0,
        },
    };
    let mut replicas: Vec<String> = Vec::new();
    for l in t.preferred_locations.iter().flatten() {
        if let Some(host) = l.layers.as_ref().and_then(|v| v.last()) {
            let host = unescape(host);
            if !host.is_empty() && !replicas.contains(&host) {
                replicas.push(host);
            }
        }
    }
    let observed_host = c.success.and_then(|(_, a)| {
        a.host_name
            .as_deref()
            .map(host_of)
            .filter(|h| !h.is_empty())
            .or_else(|| a.location.as_ref()?.layers.as_ref()?.last().map(|h| unescape(h)))
    });
    Ok(MapSpec {
        failed_attempts_s: c.failed_attempts_s,
        input_bytes: input,
        replicas,
        compute_s: c.seconds,
        output_bytes: output,
        demand: None,
        observed_host,
    })
}

fn reduce_spec(
    t: &RTask,
    path: &str,
    m: &dyn Fn(&str, &str) -> DatasetError,
) -> Result<ReduceSpec, DatasetError> {
    let c = choose(t, path, true, m)?;
    let sp = |i: usize, f: &str| format!("{path}.attempts[{i}].{f}");
    let shuffle = match known(t.input_bytes, &format!("{path}.inputBytes"), m)? {
        Some(v) => Some(v),
        None => match c.success {
            Some((i, a)) => known(a.reduce_shuffle_bytes, &sp(i, "reduceShuffleBytes"), m)?,
            None => None,
        },
    };
    let shuffle = match shuffle {
        Some(v) => v,
        None => {
            max_counter(t, path, "reduceShuffleBytes", |a| a.reduce_shuffle_bytes, m)?.unwrap_or(0)
        }
    };
    let output = match known(t.output_bytes, &format!("{path}.outputBytes"), m)? {
        Some(v) => v,
        None => match c.success {
            Some((i, a)) => {
                known(a.hdfs_bytes_written, &sp(i, "hdfsBytesWritten"), m)?.unwrap_or(0)
            }
            None => 0,
        },
    };
    Ok(ReduceSpec {
        failed_attempts_s: c.failed_attempts_s,
        shuffle_bytes: shuffle,
        output_bytes: output,
        compute_s: c.seconds,
        demand: None,
    })
}

/// `/rack/host` → `host` (unescaped); a bare name is kept.
fn host_of(host_name: &str) -> String {
    unescape(host_name.rsplit('/').next().unwrap_or(host_name))
}

/// Drops Rumen's escaping backslashes (`node1817\.megatron\.com` → `node1817.megatron.com`).
pub(crate) fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn non_empty(s: Option<String>) -> Option<String> {
    s.filter(|s| !s.is_empty())
}

fn ms_to_s(ms: i64) -> f64 {
    ms as f64 / 1000.0
}

// ---- shared by the JSON readers (rumen, sls) ----

/// A [`DatasetError::Malformed`].
pub(crate) fn malformed(file: &str, location: &str, field: &str, message: &str) -> DatasetError {
    DatasetError::Malformed {
        file: file.to_string(),
        location: location.to_string(),
        field: field.to_string(),
        message: message.to_string(),
    }
}

/// The whole file, or [`DatasetError::Io`].
pub(crate) fn read_file(file: &str, path: &Path) -> Result<Vec<u8>, DatasetError> {
    std::fs::read(path)
        .map_err(|e| DatasetError::Io { file: file.to_string(), message: e.to_string() })
}

/// The bytes, gunzipped when they start with the gzip magic (1f 8b).
pub(crate) fn gunzip_if_gzip<'a>(
    file: &str,
    bytes: &'a [u8],
) -> Result<Cow<'a, [u8]>, DatasetError> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(bytes)
            .read_to_end(&mut out)
            .map_err(|e| malformed(file, "gzip stream", "gzip", &e.to_string()))?;
        Ok(Cow::Owned(out))
    } else {
        Ok(Cow::Borrowed(bytes))
    }
}

/// One top-level JSON value of a concatenated-objects file.
pub(crate) struct JsonRecord {
    /// 1-based record number (elements of a top-level array count one each).
    pub index: usize,
    /// 1-based line where the record starts.
    pub line: usize,
    /// The record.
    pub value: Value,
}

impl JsonRecord {
    /// `record 3, line 17`.
    pub(crate) fn location(&self) -> String {
        format!("record {}, line {}", self.index, self.line)
    }

    /// A malformed-field error at this record.
    pub(crate) fn err(&self, file: &str, field: &str, message: &str) -> DatasetError {
        malformed(file, &self.location(), field, message)
    }
}

/// Calls `f` on every top-level JSON value in `bytes` (concatenated values, as Rumen and SLS
/// write them; a top-level array counts as its elements), in order. Syntax errors name the
/// record, line and column; the field is `JSON`.
pub(crate) fn for_each_json_record(
    file: &str,
    bytes: &[u8],
    mut f: impl FnMut(JsonRecord) -> Result<(), DatasetError>,
) -> Result<(), DatasetError> {
    let mut stream = serde_json::Deserializer::from_slice(bytes).into_iter::<Value>();
    let mut index = 0usize;
    let mut line = 1usize;
    let mut counted_to = 0usize;
    loop {
        let mut start = stream.byte_offset();
        while start < bytes.len() && bytes[start].is_ascii_whitespace() {
            start += 1;
        }
        line += bytes[counted_to.min(start)..start].iter().filter(|&&b| b == b'\n').count();
        counted_to = start;
        let Some(next) = stream.next() else { break };
        let value = next.map_err(|e| {
            malformed(
                file,
                &format!("record {}, line {} column {}", index + 1, e.line(), e.column()),
                "JSON",
                &e.to_string(),
            )
        })?;
        match value {
            Value::Array(items) => {
                for value in items {
                    index += 1;
                    f(JsonRecord { index, line, value })?;
                }
            }
            value => {
                index += 1;
                f(JsonRecord { index, line, value })?;
            }
        }
    }
    Ok(())
}

/// Deserializes a record into a typed struct, naming the failing field by its JSON path.
fn typed<T: for<'de> Deserialize<'de>>(
    file: &str,
    rec: &JsonRecord,
    value: &Value,
) -> Result<T, DatasetError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        rec.err(file, if path == "." { "$" } else { &path }, &e.inner().to_string())
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn unescapes_rumen_names() {
        assert_eq!(unescape(r"node1817\.megatron\.com"), "node1817.megatron.com");
        assert_eq!(host_of(r"/194\.6\.129\.64/node1817\.megatron\.com"), "node1817.megatron.com");
        assert_eq!(unescape(r"a\\b\"), r"a\b");
    }

    #[test]
    fn records_carry_their_start_line() {
        let mut seen = Vec::new();
        for_each_json_record("t", b"{\"a\":1}\n\n{\n\"b\":2}\n[3, 4]", |r| {
            seen.push((r.index, r.line));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, [(1, 1), (2, 3), (3, 5), (4, 5)]);
    }
}
