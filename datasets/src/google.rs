//! Reader for Google's cluster-usage trace of 2011 (clusterdata-2011-2; Reiss, Wilkes and
//! Hellerstein, "Google cluster-usage traces: format + schema", 2011), the trace Firmament's
//! simulator replays: the `machine_events`, `job_events` and `task_events` tables.
//!
//! Files: comma-separated, no header, no quoting, one table per folder as Google ships them
//! (`DIR/task_events/part-00000-of-00500.csv.gz`, …) or flat in `DIR` with the table's name
//! as prefix (`DIR/task_events-part-00000-of-00500.csv.gz`); plain or gzip; each table's files
//! are read in name order. `machine_events` and `task_events` are required, `job_events` is
//! optional (without it every job is in pool `default`). Columns used (1-based, the schema's
//! numbering; the others are read past):
//!
//! | table | columns |
//! |---|---|
//! | `machine_events` | 1 time, 2 machine ID, 3 event type (0 ADD, 1 REMOVE, 2 UPDATE), 4 platform ID, 5 CPUs, 6 memory |
//! | `job_events` | 1 time, 3 job ID, 4 event type, 5 user, 6 scheduling class |
//! | `task_events` | 1 time, 3 job ID, 4 task index, 6 event type, 10 CPU request, 11 memory request |
//!
//! Task and job event types: 0 SUBMIT, 1 SCHEDULE, 2 EVICT, 3 FAIL, 4 FINISH, 5 KILL, 6 LOST,
//! 7 UPDATE_PENDING, 8 UPDATE_RUNNING. Times are microseconds; 0 means "before the trace
//! began" (kept as 0) and 2⁶³ − 1 "after it ended" (such events are skipped). Seconds =
//! microseconds / 10⁶.
//!
//! Machines → [`Topology`]: every machine ever added, with the CPUs and memory of its last
//! ADD or UPDATE that gives them (a later REMOVE does not drop it: the simulated cluster is
//! static); a machine never given a capacity is left out. Racks: one per platform ID (the
//! trace has no racks), in first-appearance order, named by the platform ID (`unknown` when
//! empty); node `m<machine ID>`. [`Capacity`] { cpu: CPUs, mem_mib: memory, gpu: 0 } in the
//! trace's normalised units (the largest machine is 1).
//!
//! Tasks → one map task each (no input, no replicas: no data locality), grouped into one job
//! per job ID. A task's **attempts** are its SCHEDULE events, each ended by the task's next
//! EVICT, FAIL, KILL, LOST or FINISH (an attempt still open at the next SCHEDULE, a record the
//! trace lost, ends there as a failed attempt). Its **duration** (`compute_s`) is the length
//! of its last FINISH-ed attempt; every attempt before it is a failed attempt
//! (`failed_attempts_s`, each holding its slot for its length); attempts after the last
//! FINISH are ignored. A task that never finished takes its last attempt as the duration (the
//! time it held its machine before it was killed, failed or evicted), or, when that attempt is
//! still running at the trace's end (the last event time of `task_events`), its time up to the
//! end (censored). A task never scheduled is left out. **Demand**: the task's last CPU and
//! memory requests (SUBMIT and UPDATE events carry them; empty fields keep the previous
//! value), each as a fraction of the largest machine's capacity of that resource, so the
//! simulator's per-node capacities (scaled the same way) and demands share units; io = 0.
//!
//! Jobs: submit = the job's first SUBMIT in `job_events`, else its tasks' earliest SUBMIT,
//! else their earliest SCHEDULE; user and **pool = the job's user** (`default` when unknown);
//! class = `class<scheduling class>`. A job whose tasks were all left out is left out.
//! Complexity: O(events · log events) time (a stable sort by time), O(events) memory.

use crate::error::DatasetError;
use crate::rumen::{gunzip_if_gzip, malformed, read_file};
use crate::workload::{Capacity, Demand, JobSpec, MapSpec, NodeSpec, RackSpec, Topology, Workload};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The time value that means "after the trace ended" (2⁶³ − 1 µs).
const AFTER_END: u64 = i64::MAX as u64;

/// Task and job event types of the 2011 schema.
mod event {
    pub const SUBMIT: u8 = 0;
    pub const SCHEDULE: u8 = 1;
    pub const EVICT: u8 = 2;
    pub const FAIL: u8 = 3;
    pub const FINISH: u8 = 4;
    pub const KILL: u8 = 5;
    pub const LOST: u8 = 6;
    pub const UPDATE_PENDING: u8 = 7;
    pub const UPDATE_RUNNING: u8 = 8;
}

/// One table's files: (name for errors, contents).
pub type TableFiles = Vec<(String, Vec<u8>)>;

/// Reads the trace in `dir` (see the module docs for the layout).
///
/// # Errors
/// [`DatasetError::Io`] when a table's files cannot be listed or read, or `machine_events` or
/// `task_events` has no file; [`DatasetError::Malformed`] for a bad record (file, line,
/// column named).
pub fn read_google(dir: &Path) -> Result<Workload, DatasetError> {
    let read = |table: &str, required: bool| -> Result<TableFiles, DatasetError> {
        let paths = table_files(dir, table)?;
        if paths.is_empty() && required {
            return Err(DatasetError::Io {
                file: dir.display().to_string(),
                message: format!(
                    "no {table} files ({table}/*.csv[.gz] or {table}*.csv[.gz]): is this a \
                     Google 2011 trace folder?"
                ),
            });
        }
        paths
            .into_iter()
            .map(|p| {
                let file = p.display().to_string();
                let bytes = read_file(&file, &p)?;
                let bytes = gunzip_if_gzip(&file, &bytes)?.into_owned();
                Ok((file, bytes))
            })
            .collect()
    };
    let machines = read("machine_events", true)?;
    let jobs = read("job_events", false)?;
    let tasks = read("task_events", true)?;
    let mut w = parse_google(&machines, &jobs, &tasks)?;
    w.name = dir.display().to_string();
    Ok(w)
}

/// The files of `table` in `dir`: those in `dir/table/` and those in `dir` named `table…`,
/// ending in `.csv` or `.csv.gz`, sorted by path.
fn table_files(dir: &Path, table: &str) -> Result<Vec<PathBuf>, DatasetError> {
    let list = |d: &Path, prefix: Option<&str>| -> Result<Vec<PathBuf>, DatasetError> {
        let entries = std::fs::read_dir(d).map_err(|e| DatasetError::Io {
            file: d.display().to_string(),
            message: e.to_string(),
        })?;
        let mut out = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let csv = name.ends_with(".csv") || name.ends_with(".csv.gz");
            if csv && path.is_file() && prefix.is_none_or(|p| name.starts_with(p)) {
                out.push(path);
            }
        }
        Ok(out)
    };
    let mut files = list(dir, Some(table))?;
    let sub = dir.join(table);
    if sub.is_dir() {
        files.extend(list(&sub, None)?);
    }
    files.sort();
    Ok(files)
}

/// Parses the three tables from their files' bytes (each table's files in order); see the
/// module docs. The workload's name is left empty ([`read_google`] sets it).
///
/// # Errors
/// [`DatasetError::Malformed`] naming the file, line and column of a record with too few
/// fields, a mandatory field empty, or a number that does not parse (negative times and ids
/// included); and when no machine has a capacity.
pub fn parse_google(
    machines: &[(String, Vec<u8>)],
    jobs: &[(String, Vec<u8>)],
    tasks: &[(String, Vec<u8>)],
) -> Result<Workload, DatasetError> {
    let topology = parse_machines(machines)?;
    let caps: Vec<Capacity> = topology.nodes().filter_map(|(_, n)| n.capacity).collect();
    let max_cpu = caps.iter().map(|c| c.cpu).fold(0.0, f64::max);
    let max_mem = caps.iter().map(|c| c.mem_mib).fold(0.0, f64::max);
    let job_info = parse_jobs(jobs)?;
    let (events, trace_end) = task_events(tasks)?;
    let mut by_task: BTreeMap<(u64, u64), TaskState> = BTreeMap::new();
    for e in &events {
        by_task.entry((e.job, e.index)).or_default().apply(e);
    }
    let mut per_job: BTreeMap<u64, (Option<u64>, Vec<MapSpec>)> = BTreeMap::new();
    for ((job, _), state) in by_task {
        let first_seen = state.submit.or(state.first_schedule);
        let (cpu, mem) = (state.cpu, state.mem);
        let Some((compute_s, failed_attempts_s)) = state.outcome(trace_end) else {
            continue;
        };
        let frac = |need: Option<f64>, max: f64| match need {
            Some(v) if v > 0.0 && max > 0.0 => v / max,
            _ => 0.0,
        };
        let entry = per_job.entry(job).or_insert((None, Vec::new()));
        entry.0 = match (entry.0, first_seen) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        entry.1.push(MapSpec {
            compute_s,
            failed_attempts_s,
            demand: Some(Demand { cpu: frac(cpu, max_cpu), mem: frac(mem, max_mem), io: 0.0 }),
            ..MapSpec::default()
        });
    }
    let mut out = Vec::with_capacity(per_job.len());
    for (job, (first_task, maps)) in per_job {
        let info = job_info.get(&job);
        let submit = info.and_then(|i| i.submit).or(first_task).unwrap_or(0);
        let user = info.map(|i| i.user.clone()).filter(|u| !u.is_empty());
        out.push(JobSpec {
            id: job.to_string(),
            submit_s: seconds(submit),
            user: user.clone().unwrap_or_else(|| "unknown".into()),
            pool: user.unwrap_or_else(|| "default".into()),
            maps,
            class: info.and_then(|i| i.class).map(|c| format!("class{c}")),
            ..JobSpec::default()
        });
    }
    let mut w = Workload {
        jobs: out,
        topology: Some(topology),
        measured_times: false,
        ..Workload::default()
    };
    w.sort_jobs();
    Ok(w)
}

/// Microseconds → seconds.
fn seconds(us: u64) -> f64 {
    us as f64 / 1e6
}

/// A record's fields with the file and line for errors.
struct Record<'a> {
    file: &'a str,
    line: u64,
    table: &'static [&'static str],
    fields: csv::StringRecord,
}

impl Record<'_> {
    fn err(&self, col: usize, message: &str) -> DatasetError {
        let field = self.table.get(col).copied().unwrap_or("field");
        malformed(self.file, &format!("line {}", self.line), field, message)
    }

    fn text(&self, col: usize) -> &str {
        self.fields.get(col).unwrap_or("").trim()
    }

    /// A mandatory non-negative integer.
    fn int(&self, col: usize) -> Result<u64, DatasetError> {
        self.opt_int(col)?.ok_or_else(|| self.err(col, "empty (the field is mandatory)"))
    }

    fn opt_int(&self, col: usize) -> Result<Option<u64>, DatasetError> {
        let s = self.text(col);
        if s.is_empty() {
            return Ok(None);
        }
        s.parse::<u64>()
            .map(Some)
            .map_err(|_| self.err(col, &format!("not a non-negative integer: {s:?}")))
    }

    /// An optional finite, non-negative number.
    fn opt_float(&self, col: usize) -> Result<Option<f64>, DatasetError> {
        let s = self.text(col);
        if s.is_empty() {
            return Ok(None);
        }
        match s.parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 0.0 => Ok(Some(v)),
            _ => Err(self.err(col, &format!("not a finite non-negative number: {s:?}"))),
        }
    }
}

/// Every record of a table's files (`table` names its columns), in order, checked to have at
/// least `required` fields.
fn records<'a>(
    files: &'a [(String, Vec<u8>)],
    table: &'static [&'static str],
    required: usize,
    mut each: impl FnMut(Record<'a>) -> Result<(), DatasetError>,
) -> Result<(), DatasetError> {
    for (file, bytes) in files {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .quoting(false)
            .from_reader(bytes.as_slice());
        let mut fields = csv::StringRecord::new();
        loop {
            let line = reader.position().line();
            match reader.read_record(&mut fields) {
                Ok(false) => break,
                Ok(true) => {}
                Err(e) => {
                    return Err(malformed(file, &format!("line {line}"), "record", &e.to_string()))
                }
            }
            let line = fields.position().map_or(line, csv::Position::line);
            if fields.len() == 1 && fields.get(0).is_some_and(|f| f.trim().is_empty()) {
                continue;
            }
            if fields.len() < required {
                let missing = table.get(fields.len()).copied().unwrap_or("field");
                return Err(malformed(
                    file,
                    &format!("line {line}"),
                    missing,
                    &format!(
                        "missing column ({} fields, at least {required} needed)",
                        fields.len()
                    ),
                ));
            }
            each(Record { file, line, table, fields: fields.clone() })?;
        }
    }
    Ok(())
}

const MACHINE_EVENTS: &[&str] =
    &["time", "machine ID", "event type", "platform ID", "CPUs", "memory"];
const JOB_EVENTS: &[&str] = &[
    "time",
    "missing info",
    "job ID",
    "event type",
    "user",
    "scheduling class",
    "job name",
    "logical job name",
];
const TASK_EVENTS: &[&str] = &[
    "time",
    "missing info",
    "job ID",
    "task index",
    "machine ID",
    "event type",
    "user",
    "scheduling class",
    "priority",
    "CPU request",
    "memory request",
    "disk space request",
    "different machines restriction",
];

/// The machines (module docs).
fn parse_machines(files: &[(String, Vec<u8>)]) -> Result<Topology, DatasetError> {
    // machine ID → (platform, capacity), and the order machines first appeared in.
    let mut machines: BTreeMap<u64, (String, Option<Capacity>)> = BTreeMap::new();
    let mut order: Vec<u64> = Vec::new();
    records(files, MACHINE_EVENTS, 3, |r| {
        r.int(0)?;
        let id = r.int(1)?;
        let kind = r.int(2)?;
        if kind > 2 {
            return Err(r.err(2, &format!("unknown machine event type {kind} (0, 1 or 2)")));
        }
        let platform = r.text(3).to_string();
        let cpu = r.opt_float(4)?;
        let mem = r.opt_float(5)?;
        let m = machines.entry(id).or_insert_with(|| {
            order.push(id);
            (String::new(), None)
        });
        if kind != 1 {
            if !platform.is_empty() {
                m.0 = platform;
            }
            let old = m.1.unwrap_or_default();
            if cpu.is_some() || mem.is_some() {
                m.1 = Some(Capacity {
                    cpu: cpu.unwrap_or(old.cpu),
                    mem_mib: mem.unwrap_or(old.mem_mib),
                    gpu: 0.0,
                });
            }
        }
        Ok(())
    })?;
    let mut racks: Vec<RackSpec> = Vec::new();
    let mut rack_at: BTreeMap<String, usize> = BTreeMap::new();
    for id in order {
        let Some((platform, Some(capacity))) = machines.get(&id) else { continue };
        let name = if platform.is_empty() { "unknown" } else { platform.as_str() };
        let r = *rack_at.entry(name.to_string()).or_insert_with(|| {
            racks.push(RackSpec { id: name.to_string(), nodes: Vec::new() });
            racks.len() - 1
        });
        racks[r].nodes.push(NodeSpec {
            id: format!("m{id}"),
            capacity: Some(*capacity),
            ..NodeSpec::default()
        });
    }
    if racks.is_empty() {
        let file = files.first().map_or("machine_events", |(f, _)| f.as_str());
        return Err(malformed(file, "all records", "CPUs", "no machine has a capacity"));
    }
    Ok(Topology { racks })
}

/// What a job's events tell: its first SUBMIT, user and scheduling class.
#[derive(Default)]
struct JobInfo {
    submit: Option<u64>,
    user: String,
    class: Option<u64>,
}

fn parse_jobs(files: &[(String, Vec<u8>)]) -> Result<BTreeMap<u64, JobInfo>, DatasetError> {
    let mut jobs: BTreeMap<u64, JobInfo> = BTreeMap::new();
    records(files, JOB_EVENTS, 4, |r| {
        let time = r.int(0)?;
        let id = r.int(2)?;
        let kind = r.int(3)?;
        if kind > 8 {
            return Err(r.err(3, &format!("unknown event type {kind} (0 to 8)")));
        }
        let user = r.text(4).to_string();
        let class = r.opt_int(5)?;
        let j = jobs.entry(id).or_default();
        if kind == u64::from(event::SUBMIT) && time != AFTER_END {
            j.submit = Some(j.submit.map_or(time, |s| s.min(time)));
        }
        if !user.is_empty() {
            j.user = user;
        }
        if class.is_some() {
            j.class = class;
        }
        Ok(())
    })?;
    Ok(jobs)
}

/// One task event, the fields the reader uses.
struct TaskEvent {
    time: u64,
    job: u64,
    index: u64,
    kind: u8,
    cpu: Option<f64>,
    mem: Option<f64>,
}

/// The task events in time order (stable: equal times keep file order), without those after
/// the trace's end, and the trace's end (the last time left).
fn task_events(files: &[(String, Vec<u8>)]) -> Result<(Vec<TaskEvent>, u64), DatasetError> {
    let mut events = Vec::new();
    records(files, TASK_EVENTS, 6, |r| {
        let time = r.int(0)?;
        let job = r.int(2)?;
        let index = r.int(3)?;
        let kind = r.int(5)?;
        if kind > 8 {
            return Err(r.err(5, &format!("unknown event type {kind} (0 to 8)")));
        }
        let cpu = r.opt_float(9)?;
        let mem = r.opt_float(10)?;
        if time != AFTER_END {
            events.push(TaskEvent { time, job, index, kind: kind as u8, cpu, mem });
        }
        Ok(())
    })?;
    events.sort_by_key(|e| e.time);
    let end = events.last().map_or(0, |e| e.time);
    Ok((events, end))
}

/// One task's history so far.
#[derive(Default)]
struct TaskState {
    submit: Option<u64>,
    first_schedule: Option<u64>,
    /// The open attempt's start.
    running_since: Option<u64>,
    /// Ended attempts: (length µs, finished).
    attempts: Vec<(u64, bool)>,
    cpu: Option<f64>,
    mem: Option<f64>,
}

impl TaskState {
    fn apply(&mut self, e: &TaskEvent) {
        if e.cpu.is_some() {
            self.cpu = e.cpu;
        }
        if e.mem.is_some() {
            self.mem = e.mem;
        }
        match e.kind {
            event::SUBMIT => {
                self.submit.get_or_insert(e.time);
            }
            event::SCHEDULE => {
                self.first_schedule.get_or_insert(e.time);
                if let Some(start) = self.running_since.take() {
                    self.attempts.push((e.time.saturating_sub(start), false));
                }
                self.running_since = Some(e.time);
            }
            event::EVICT | event::FAIL | event::KILL | event::LOST | event::FINISH => {
                if let Some(start) = self.running_since.take() {
                    let finished = e.kind == event::FINISH;
                    self.attempts.push((e.time.saturating_sub(start), finished));
                }
            }
            event::UPDATE_PENDING | event::UPDATE_RUNNING => {}
            _ => {}
        }
    }

    /// (compute_s, failed attempts' seconds) per the module docs; `None` when never scheduled.
    fn outcome(mut self, trace_end: u64) -> Option<(f64, Vec<f64>)> {
        let last_finish = self.attempts.iter().rposition(|&(_, finished)| finished);
        let (duration, before) = match (last_finish, self.running_since) {
            (Some(k), _) => (self.attempts[k].0, k),
            (None, Some(start)) => {
                self.attempts.push((trace_end.saturating_sub(start), false));
                (trace_end.saturating_sub(start), self.attempts.len() - 1)
            }
            (None, None) => {
                let (length, _) = *self.attempts.last()?;
                (length, self.attempts.len() - 1)
            }
        };
        let failed = self.attempts[..before].iter().map(|&(length, _)| seconds(length)).collect();
        Some((seconds(duration), failed))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn outcome(events: &[(u64, u8)], end: u64) -> Option<(f64, Vec<f64>)> {
        let mut s = TaskState::default();
        for &(time, kind) in events {
            s.apply(&TaskEvent { time, job: 1, index: 0, kind, cpu: None, mem: None });
        }
        s.outcome(end)
    }

    const S: u64 = 1_000_000;

    #[test]
    fn durations_from_attempts() {
        use event::*;
        // Submitted at 0, runs 10..40 s and finishes: 30 s, no failed attempt.
        assert_eq!(
            outcome(&[(0, SUBMIT), (10 * S, SCHEDULE), (40 * S, FINISH)], 0),
            Some((30.0, vec![]))
        );
        // Fails after 5 s, evicted after 7 s, then finishes in 20 s.
        let e = [
            (0, SUBMIT),
            (S, SCHEDULE),
            (6 * S, FAIL),
            (8 * S, SCHEDULE),
            (15 * S, EVICT),
            (20 * S, SCHEDULE),
            (40 * S, FINISH),
        ];
        assert_eq!(outcome(&e, 0), Some((20.0, vec![5.0, 7.0])));
        // Killed after 12 s, never finished: the killed attempt is its duration.
        assert_eq!(outcome(&[(S, SCHEDULE), (13 * S, KILL)], 100 * S), Some((12.0, vec![])));
        // Still running at the trace's end (100 s): censored at 100 − 30.
        assert_eq!(
            outcome(&[(S, SCHEDULE), (3 * S, LOST), (30 * S, SCHEDULE)], 100 * S),
            Some((70.0, vec![2.0]))
        );
        // Two SCHEDULEs in a row: the first attempt ends at the second as a failed one.
        assert_eq!(
            outcome(&[(S, SCHEDULE), (4 * S, SCHEDULE), (9 * S, FINISH)], 0),
            Some((5.0, vec![3.0]))
        );
        // Never scheduled (killed while pending): left out.
        assert_eq!(outcome(&[(0, SUBMIT), (5 * S, KILL)], 10 * S), None);
    }
}
