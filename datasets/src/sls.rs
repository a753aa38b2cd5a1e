//! Reader for YARN Scheduler Load Simulator inputs (Apache Hadoop `hadoop-sls`,
//! `SchedulerLoadSimulator.md`, "SLS JSON input file format" and the nodes file): SLS-native job
//! files (`inputsls.json`) and topology files (`nodes.json`, `nodes-with-resources.json`).
//! Units: SLS times are ms relative to the simulation start, kept as that origin and converted
//! to seconds; memory MiB; vcores. Complexity: O(file size + Σ task counts).
//!
//! Jobs: concatenated JSON objects (a top-level array is accepted too). Per job:
//! `job.start.ms` (required, ≥ 0) → `submit_s`; `job.id` → id (`sls_job_{record}` when absent;
//! ids must be unique); `job.user` → user (`"unknown"` when absent); `job.queue.name` → pool
//! (`"default"` when absent); `job.end.ms` and `am.type` are not modelled. `job.count` = c > 1
//! repeats the job c times as `{id}-0` … `{id}-{c−1}` (SLS starts c AMs of it); `count` on a task
//! likewise repeats the container. Per container: `container.type` `map` (default) or `reduce`;
//! duration = `duration.ms` if present, else `container.end.ms − container.start.ms`; like SLS,
//! a duration ≤ 0 is malformed. It becomes `compute_s` (a measured total: SLS containers have no
//! input or shuffle sizes, so `input_bytes` and `shuffle_bytes` are 0 and maps have no
//! replicas). `container.host` `/rack/node` → `observed_host` = `node` (maps only: the model's
//! reduces have no such field). `container.priority` and `container.execution.type` are not
//! modelled. Numbers may be JSON numbers or numeric strings (SLS parses both). A record may
//! expand to at most 1,000,000 tasks over all its job copies (more is malformed, not an
//! out-of-memory abort).
//!
//! Topology: records `{"rack": name, "nodes": [{"node": name, "memory-mb": m, "vcores": v,
//! "labels": …}]}`; a rack named twice is one rack. **An empty node entry `{}` is skipped** (the
//! upstream `nodes.json` ends its last rack with one); a node entry with other keys but no
//! `node` is malformed; node names must be unique. A node with `memory-mb` or `vcores` gets a
//! [`Capacity`], the missing one filled with SLS's default NodeManager size (10,240 MiB,
//! 10 vcores, `sls-runner.xml`), GPUs 0; a node with neither has no capacity (the simulator's
//! default). `labels` are not modelled.
//!
//! Errors name the file, `record N, line L` and the field (`job.tasks[2].container.end.ms`).

use crate::error::DatasetError;
use crate::rumen::{for_each_json_record, gunzip_if_gzip, read_file, JsonRecord};
use crate::workload::{
    Capacity, JobSpec, MapSpec, NodeSpec, RackSpec, ReduceSpec, Topology, Workload,
};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// SLS's default NodeManager memory, MiB (`yarn.sls.nm.memory.mb`).
pub const SLS_NM_MEMORY_MB: f64 = 10240.0;
/// SLS's default NodeManager vcores (`yarn.sls.nm.vcores`).
pub const SLS_NM_VCORES: f64 = 10.0;
/// Most tasks (and job copies) one record may expand to.
const MAX_REPEAT: u64 = 1_000_000;

/// Reads an SLS-native job file (plain or gzip).
pub fn read_sls(path: &Path) -> Result<Workload, DatasetError> {
    let file = path.display().to_string();
    let bytes = read_file(&file, path)?;
    parse_sls(&file, &bytes)
}

/// Parses SLS-native job JSON from bytes; `file` names them in errors.
pub fn parse_sls(file: &str, bytes: &[u8]) -> Result<Workload, DatasetError> {
    let bytes = gunzip_if_gzip(file, bytes)?;
    let mut jobs: Vec<JobSpec> = Vec::new();
    let mut ids = BTreeSet::new();
    for_each_json_record(file, &bytes, |rec| {
        let obj = object(file, &rec, &rec.value, "$")?;
        let start = number(file, &rec, obj, "", "job.start.ms")?
            .ok_or_else(|| rec.err(file, "job.start.ms", "missing"))?;
        let id = match obj.get("job.id") {
            None | Some(Value::Null) => format!("sls_job_{}", rec.index),
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            Some(_) => return Err(rec.err(file, "job.id", "not a non-empty string")),
        };
        let user = string(file, &rec, obj, "", "job.user")?.unwrap_or_else(|| "unknown".into());
        let pool =
            string(file, &rec, obj, "", "job.queue.name")?.unwrap_or_else(|| "default".into());
        let count = number(file, &rec, obj, "", "job.count")?.unwrap_or(1).max(1);
        if count > MAX_REPEAT {
            return Err(rec.err(file, "job.count", "above 1,000,000"));
        }
        let mut maps = Vec::new();
        let mut reduces = Vec::new();
        let tasks = match obj.get("job.tasks") {
            None | Some(Value::Null) => &[][..],
            Some(Value::Array(a)) => &a[..],
            Some(_) => return Err(rec.err(file, "job.tasks", "not an array")),
        };
        for (i, t) in tasks.iter().enumerate() {
            let p = format!("job.tasks[{i}]");
            let t = object(file, &rec, t, &p)?;
            let n = number(file, &rec, t, &p, "count")?.unwrap_or(1).max(1);
            if n + (maps.len() + reduces.len()) as u64 > MAX_REPEAT {
                return Err(rec.err(file, &format!("{p}.count"), "above 1,000,000 tasks"));
            }
            let ms = match number(file, &rec, t, &p, "duration.ms")? {
                Some(d) => d,
                None => {
                    let s = number(file, &rec, t, &p, "container.start.ms")?.ok_or_else(|| {
                        rec.err(file, &format!("{p}.container.start.ms"), "missing")
                    })?;
                    let e = number(file, &rec, t, &p, "container.end.ms")?.ok_or_else(|| {
                        rec.err(file, &format!("{p}.container.end.ms"), "missing")
                    })?;
                    e.saturating_sub(s)
                }
            };
            if ms == 0 {
                let field = if t.contains_key("duration.ms") {
                    format!("{p}.duration.ms")
                } else {
                    format!("{p}.container.end.ms")
                };
                return Err(rec.err(file, &field, "task duration must be > 0 ms"));
            }
            let compute_s = ms as f64 / 1000.0;
            let host = string(file, &rec, t, &p, "container.host")?
                .and_then(|h| h.rsplit('/').next().map(str::to_string))
                .filter(|h| !h.is_empty());
            let kind = string(file, &rec, t, &p, "container.type")?;
            for _ in 0..n {
                match kind.as_deref() {
                    None | Some("map") => maps.push(MapSpec {
                        compute_s,
                        observed_host: host.clone(),
                        ..MapSpec::default()
                    }),
                    Some("reduce") => {
                        reduces.push(ReduceSpec { compute_s, ..ReduceSpec::default() })
                    }
                    Some(other) => {
                        return Err(rec.err(
                            file,
                            &format!("{p}.container.type"),
                            &format!("{other:?} is neither map nor reduce"),
                        ))
                    }
                }
            }
        }
        let tasks_in_record = u128::from(count) * (maps.len() + reduces.len()).max(1) as u128;
        if tasks_in_record > u128::from(MAX_REPEAT) {
            return Err(rec.err(file, "job.count", "above 1,000,000 tasks in the record"));
        }
        for c in 0..count {
            let id = if count == 1 { id.clone() } else { format!("{id}-{c}") };
            if !ids.insert(id.clone()) {
                return Err(rec.err(file, "job.id", &format!("duplicate job id {id:?}")));
            }
            jobs.push(JobSpec {
                gang: None,
                topology: None,
                cleanup_s: None,
                setup_s: None,
                observed_finish_s: None,
                id,
                submit_s: start as f64 / 1000.0,
                user: user.clone(),
                pool: pool.clone(),
                maps: maps.clone(),
                reduces: reduces.clone(),
                deadline_s: None,
                class: None,
            });
        }
        Ok(())
    })?;
    let mut w = Workload {
        measured_times: false,
        name: file.to_string(),
        jobs,
        pools: Vec::new(),
        topology: None,
    };
    w.sort_jobs();
    Ok(w)
}

/// Reads an SLS topology (nodes) file (plain or gzip).
pub fn read_sls_topology(path: &Path) -> Result<Topology, DatasetError> {
    let file = path.display().to_string();
    let bytes = read_file(&file, path)?;
    parse_sls_topology(&file, &bytes)
}

/// Parses an SLS topology from bytes; `file` names them in errors.
pub fn parse_sls_topology(file: &str, bytes: &[u8]) -> Result<Topology, DatasetError> {
    let bytes = gunzip_if_gzip(file, bytes)?;
    let mut racks: Vec<RackSpec> = Vec::new();
    let mut rack_at: BTreeMap<String, usize> = BTreeMap::new();
    let mut names = BTreeSet::new();
    for_each_json_record(file, &bytes, |rec| {
        let obj = object(file, &rec, &rec.value, "$")?;
        let rack = string(file, &rec, obj, "", "rack")?
            .filter(|r| !r.is_empty())
            .ok_or_else(|| rec.err(file, "rack", "missing rack name"))?;
        let r = *rack_at.entry(rack.clone()).or_insert_with(|| {
            racks.push(RackSpec { id: rack, nodes: Vec::new() });
            racks.len() - 1
        });
        let nodes = match obj.get("nodes") {
            None | Some(Value::Null) => &[][..],
            Some(Value::Array(a)) => &a[..],
            Some(_) => return Err(rec.err(file, "nodes", "not an array")),
        };
        for (i, n) in nodes.iter().enumerate() {
            let p = format!("nodes[{i}]");
            let n = object(file, &rec, n, &p)?;
            if n.is_empty() {
                continue; // upstream nodes.json ends with an empty `{}` entry
            }
            let name = string(file, &rec, n, &p, "node")?
                .filter(|s| !s.is_empty())
                .ok_or_else(|| rec.err(file, &format!("{p}.node"), "missing node name"))?;
            if !names.insert(name.clone()) {
                return Err(rec.err(file, &format!("{p}.node"), "duplicate node"));
            }
            let mem = number(file, &rec, n, &p, "memory-mb")?;
            let vcores = number(file, &rec, n, &p, "vcores")?;
            let capacity = (mem.is_some() || vcores.is_some()).then(|| Capacity {
                cpu: vcores.map_or(SLS_NM_VCORES, |v| v as f64),
                mem_mib: mem.map_or(SLS_NM_MEMORY_MB, |v| v as f64),
                gpu: 0.0,
            });
            racks[r].nodes.push(NodeSpec { id: name, capacity, ..NodeSpec::default() });
        }
        Ok(())
    })?;
    Ok(Topology { racks })
}

fn object<'a>(
    file: &str,
    rec: &JsonRecord,
    v: &'a Value,
    path: &str,
) -> Result<&'a Map<String, Value>, DatasetError> {
    v.as_object().ok_or_else(|| rec.err(file, path, "not a JSON object"))
}

/// `prefix.key`, or `key` at the record's top level.
fn field_name(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

/// A string field (absent or null → None).
fn string(
    file: &str,
    rec: &JsonRecord,
    obj: &Map<String, Value>,
    prefix: &str,
    key: &str,
) -> Result<Option<String>, DatasetError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => {
            Err(rec.err(file, &field_name(prefix, key), &format!("not a string: {other}")))
        }
    }
}

/// A non-negative integer field, as a JSON number or a numeric string (absent/null → None).
fn number(
    file: &str,
    rec: &JsonRecord,
    obj: &Map<String, Value>,
    prefix: &str,
    key: &str,
) -> Result<Option<u64>, DatasetError> {
    let field = field_name(prefix, key);
    let v: i128 = match obj.get(key) {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Number(n)) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i128::from(i),
            (None, Some(u)) => i128::from(u),
            _ => return Err(rec.err(file, &field, &format!("not an integer: {n}"))),
        },
        Some(Value::String(s)) => s
            .trim()
            .parse::<i128>()
            .map_err(|_| rec.err(file, &field, &format!("not an integer: {s:?}")))?,
        Some(other) => return Err(rec.err(file, &field, &format!("not a number: {other}"))),
    };
    if v < 0 {
        return Err(rec.err(file, &field, &format!("negative value {v}")));
    }
    u64::try_from(v).map(Some).map_err(|_| rec.err(file, &field, "too large"))
}
