//! The tables of `placer whatif` (DESIGN.md §CLI contract): `summary.csv`, the per-job and
//! per-epoch tables as CSV and Parquet in hive-style partitions, and SLS's `jobruntime.csv`
//! (hadoop-sls `SchedulerMetrics.addAMRuntime`: `JobID,real_start_time,real_end_time,
//! simulate_start_time,simulate_end_time`, in ms).
//!
//! # Layout (under the `--out` directory `DIR`)
//!
//! ```text
//! DIR/summary.csv                                   one row per run (see Shard::summary_file)
//! DIR/jobs/policy=lsap/part-0.csv                   JOB_COLUMNS, one row per job
//! DIR/jobs/policy=lsap/part-0.parquet               the same rows
//! DIR/epochs/policy=lsap/part-0.{csv,parquet}       EPOCH_COLUMNS, one row per solver call
//! DIR/jobruntime/policy=lsap/jobruntime.csv         SLS's columns, one row per finished job
//! ```
//!
//! The partition directories are the caller's `(key, value)` pairs in order (a sweep adds
//! `policy=lsap/alpha=10/`), hive style, so that DuckDB reads every run with one glob and gets
//! the keys as columns: `read_parquet('DIR/jobs/*/*.parquet', hive_partitioning = true)` (one
//! key; `DIR/jobs/**/*.parquet` for any depth), likewise `read_csv`. The files themselves do
//! not repeat the keys. Key and value bytes outside `[A-Za-z0-9._+-]` are written `%XX`
//! (hive's escaping; `/` and `=` must not appear raw). A key should not be a column name of
//! the table (DuckDB would see both).
//!
//! # Formats (the contract for readers)
//!
//! - CSV: RFC 4180, `,` separated, `\n` line ends, a header row. A field is quoted when it
//!   contains `,`, `"`, CR or LF (quotes doubled) or is an empty string; an absent value
//!   (`Option::None`) is an empty unquoted field (DuckDB reads it as NULL).
//! - Floats: Rust's `{:?}` of `f64` — the shortest decimal that parses back to the same bits,
//!   always with a `.` or an exponent (`12.0`, `0.35`, `1e-7`, `NaN`, `inf`), so CSV readers
//!   type every float column as floating point even when a run's values happen to be
//!   integral. Integers in decimal. Output is byte-identical for equal inputs; only the
//!   wall-clock columns (`*_solve_ms`, `snapshot_ms`, `wall_s`, epochs' `solve_ms`) vary.
//! - Parquet (format 1.0 types, Snappy, one row group): strings `BYTE_ARRAY (STRING)`,
//!   floats `DOUBLE`, counts `INT64`; `Option` columns are `OPTIONAL` with nulls, the rest
//!   `REQUIRED`.
//! - `summary.csv` locality: `node_local`, `rack_local`, `remote` are fractions of the
//!   completed map tasks that have a locality preference (replicas), and sum to 1 (up to float
//!   rounding, 1e-15): [`placer_sim::Summary`]'s definition, the one the plots and the terminal
//!   table use, and the one of the Mumak trace's 65 / 30 / 4 % (maps with location info).
//!   Maps without replicas have no locality to score; `no_preference` is their share of all
//!   completed maps and `map_tasks` counts all of them. With no completed map with replicas the
//!   three are empty (undefined), not zeros.

use std::path::Path;
use std::sync::Arc;

use parquet::basic::Compression;
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use placer_sim::SimReport;

use crate::atomic::write_atomic;
use crate::manifest::FileEntry;
use crate::ReportError;

/// The columns of `summary.csv`, in order: the eleven of DESIGN.md §CLI contract, then extras.
pub const SUMMARY_COLUMNS: [&str; 32] = [
    "policy",
    "jobs",
    "node_local",
    "rack_local",
    "remote",
    "mean_response_s",
    "p95_response_s",
    "makespan_s",
    "cross_rack_gb",
    "fairness_distance",
    "mean_solve_ms",
    "algorithm",
    "stop",
    "jobs_finished",
    "map_tasks",
    "no_preference",
    "mean_slowdown",
    "throughput_jobs_per_h",
    "in_rack_gb",
    "local_read_gb",
    "map_slot_utilisation",
    "reduce_slot_utilisation",
    "task_runs",
    "preemptions",
    "events",
    "epochs",
    "ticks",
    "end_time_s",
    "max_solve_ms",
    "total_solve_ms",
    "snapshot_ms",
    "wall_s",
];

/// The columns of the per-job table: the fields of [`placer_sim::JobMetrics`], in order.
pub const JOB_COLUMNS: [&str; 16] = [
    "id",
    "class",
    "pool",
    "submit_s",
    "finish_s",
    "response_s",
    "ideal_s",
    "slowdown",
    "maps",
    "reduces",
    "maps_node_local",
    "maps_rack_local",
    "maps_remote",
    "maps_no_preference",
    "task_runs",
    "preempted",
];

/// The columns of the per-epoch table: `epoch` (0-based index of the solver call), the fields
/// of [`placer_sim::EpochMetrics`], then `solve_ms` from `WallTiming::solve_ms` (null if the
/// timing vector is shorter).
pub const EPOCH_COLUMNS: [&str; 16] = [
    "epoch",
    "time_s",
    "pending",
    "offered",
    "running",
    "free_map_slots",
    "free_reduce_slots",
    "assigned",
    "node_local",
    "rack_local",
    "remote",
    "preempted",
    "fairness_distance",
    "bytes_in_rack",
    "bytes_cross_rack",
    "solve_ms",
];

/// SLS's `jobruntime.csv` header (hadoop-sls `SchedulerMetrics`), all times in ms.
///
/// What placer writes in each (SLS writes one row when an application master finishes, so
/// only finished jobs have a row, ordered by `simulate_end_time`, ties in workload order):
/// - `JobID`: the workload's job id (SLS writes the YARN application id).
/// - `real_start_time`: the job's start in the trace, `round(submit_s · 1000)` (SLS: the
///   trace's `job.start.ms`).
/// - `real_end_time`: the job's end in the trace. The workload does not carry it, so the
///   field is empty.
/// - `simulate_start_time`: when the simulated job was submitted, `round(submit_s · 1000)` on
///   the simulated clock (SLS: the AM's first step, ms after the simulation start).
/// - `simulate_end_time`: when its last task finished, `round(finish_s · 1000)`.
pub const JOBRUNTIME_COLUMNS: [&str; 5] =
    ["JobID", "real_start_time", "real_end_time", "simulate_start_time", "simulate_end_time"];

/// The per-job table's directory under `DIR`.
pub const JOBS_DIR: &str = "jobs";
/// The per-epoch table's directory under `DIR`.
pub const EPOCHS_DIR: &str = "epochs";
/// The SLS job runtime table's directory under `DIR`.
pub const JOBRUNTIME_DIR: &str = "jobruntime";

/// One row of `summary.csv` (see [`SUMMARY_COLUMNS`]; units in the names: s, GB = 10⁹ bytes,
/// ms of wall clock).
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryRow {
    /// The run's label (`SimReport::name`, e.g. `lsap` or `lsap/alpha=10`).
    pub policy: String,
    /// Jobs in the workload.
    pub jobs: u64,
    /// Share of completed maps that read locally (incl. maps without replicas); `None` if no
    /// map completed.
    pub node_local: Option<f64>,
    /// Share of completed maps that read inside their replica's rack.
    pub rack_local: Option<f64>,
    /// Share of completed maps that read across racks.
    pub remote: Option<f64>,
    /// Mean response time of finished jobs, s.
    pub mean_response_s: f64,
    /// 95th percentile (nearest rank) response time, s.
    pub p95_response_s: f64,
    /// Last finish − first submit, s.
    pub makespan_s: f64,
    /// GB moved across racks.
    pub cross_rack_gb: f64,
    /// Mean fairness distance over the solver calls.
    pub fairness_distance: f64,
    /// Mean wall-clock solve time per solver call, ms.
    pub mean_solve_ms: f64,
    /// The algorithm's wire name.
    pub algorithm: String,
    /// Why the run ended (`completed`, `stalled`, `time_limit`).
    pub stop: String,
    /// Jobs that finished.
    pub jobs_finished: u64,
    /// Completed map tasks.
    pub map_tasks: u64,
    /// Share of completed maps without replicas; `None` if no map completed.
    pub no_preference: Option<f64>,
    /// Mean slowdown of finished jobs.
    pub mean_slowdown: f64,
    /// Finished jobs per hour of makespan.
    pub throughput_jobs_per_h: f64,
    /// GB moved inside racks.
    pub in_rack_gb: f64,
    /// GB read from local disks.
    pub local_read_gb: f64,
    /// Busy map-slot seconds / (map slots × makespan).
    pub map_slot_utilisation: f64,
    /// Busy reduce-slot seconds / (reduce slots × makespan).
    pub reduce_slot_utilisation: f64,
    /// Task runs started.
    pub task_runs: u64,
    /// Runs killed by preemption.
    pub preemptions: u64,
    /// Events processed.
    pub events: u64,
    /// Solver calls.
    pub epochs: u64,
    /// Epoch ticks (incl. those that skipped the solver).
    pub ticks: u64,
    /// Simulated time of the last event, s.
    pub end_time_s: f64,
    /// Max wall-clock solve time, ms.
    pub max_solve_ms: f64,
    /// Σ wall-clock solve time, ms.
    pub total_solve_ms: f64,
    /// Wall-clock time building snapshots, ms.
    pub snapshot_ms: f64,
    /// Wall-clock time of the whole run, s.
    pub wall_s: f64,
}

impl SummaryRow {
    /// The row of one run. Locality shares are recomputed from the per-job counts (see the
    /// module docs); everything else is copied from `report.summary` and `report.timing`.
    pub fn from_report(report: &SimReport) -> Self {
        let s = &report.summary;
        let [node, rack, remote, none] = report.jobs.iter().fold([0u64; 4], |mut acc, j| {
            acc[0] += j.maps_node_local as u64;
            acc[1] += j.maps_rack_local as u64;
            acc[2] += j.maps_remote as u64;
            acc[3] += j.maps_no_preference as u64;
            acc
        });
        let total = node + rack + remote + none;
        let scored = node + rack + remote;
        let share = |n: u64| (scored > 0).then(|| n as f64 / scored as f64);
        SummaryRow {
            policy: report.name.clone(),
            jobs: s.jobs as u64,
            node_local: share(node),
            rack_local: share(rack),
            remote: share(remote),
            mean_response_s: s.mean_response_s,
            p95_response_s: s.p95_response_s,
            makespan_s: s.makespan_s,
            cross_rack_gb: s.cross_rack_gb,
            fairness_distance: s.fairness_distance,
            mean_solve_ms: report.timing.mean_solve_ms,
            algorithm: report.algorithm.name().to_owned(),
            stop: stop_name(report.stop).to_owned(),
            jobs_finished: s.jobs_finished as u64,
            map_tasks: total,
            no_preference: (total > 0).then(|| none as f64 / total as f64),
            mean_slowdown: s.mean_slowdown,
            throughput_jobs_per_h: s.throughput_jobs_per_h,
            in_rack_gb: s.in_rack_gb,
            local_read_gb: s.local_read_gb,
            map_slot_utilisation: s.map_slot_utilisation,
            reduce_slot_utilisation: s.reduce_slot_utilisation,
            task_runs: s.task_runs as u64,
            preemptions: s.preemptions as u64,
            events: s.events,
            epochs: s.epochs as u64,
            ticks: s.ticks,
            end_time_s: s.end_time_s,
            max_solve_ms: report.timing.max_solve_ms,
            total_solve_ms: report.timing.total_solve_ms,
            snapshot_ms: report.timing.snapshot_ms,
            wall_s: report.timing.wall_s,
        }
    }
}

/// The wire-style name of a stop reason.
fn stop_name(stop: placer_sim::StopReason) -> &'static str {
    match stop {
        placer_sim::StopReason::Completed => "completed",
        placer_sim::StopReason::Stalled => "stalled",
        placer_sim::StopReason::TimeLimit => "time_limit",
    }
}

// ---------------------------------------------------------------------------------------------
// Column-wise tables: one description feeds both the CSV and the Parquet writer.

/// A column's values.
enum Cells {
    /// Required strings.
    Str(Vec<String>),
    /// Nullable strings.
    OptStr(Vec<Option<String>>),
    /// Required floats.
    F64(Vec<f64>),
    /// Nullable floats.
    OptF64(Vec<Option<f64>>),
    /// Required integers.
    I64(Vec<i64>),
    /// Nullable integers.
    OptI64(Vec<Option<i64>>),
}

/// A named column.
struct Column {
    name: &'static str,
    cells: Cells,
}

/// A table of equally long columns.
struct Table {
    columns: Vec<Column>,
    rows: usize,
}

/// A count as Parquet's INT64 (saturating; counts never come near 2⁶³).
fn int(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// Seconds → whole milliseconds (nearest; non-finite → `None`).
fn ms(s: f64) -> Option<i64> {
    let v = (s * 1000.0).round();
    v.is_finite().then_some(v as i64)
}

impl Table {
    fn new(columns: Vec<Column>, rows: usize) -> Self {
        Table { columns, rows }
    }

    /// The CSV text (see the module docs for the format).
    fn to_csv(&self) -> String {
        let mut out = String::new();
        push_record(&mut out, self.columns.iter().map(|c| Some(csv_field(c.name))));
        for row in 0..self.rows {
            push_record(
                &mut out,
                self.columns.iter().map(|c| match &c.cells {
                    Cells::Str(v) => Some(csv_field(&v[row])),
                    Cells::OptStr(v) => v[row].as_deref().map(csv_field),
                    Cells::F64(v) => Some(float(v[row])),
                    Cells::OptF64(v) => v[row].map(float),
                    Cells::I64(v) => Some(v[row].to_string()),
                    Cells::OptI64(v) => v[row].map(|x| x.to_string()),
                }),
            );
        }
        out
    }

    /// The Parquet message type of this table.
    fn parquet_schema(&self, name: &str) -> String {
        let mut s = format!("message {name} {{\n");
        for c in &self.columns {
            let (rep, ty) = match c.cells {
                Cells::Str(_) => ("REQUIRED", "BYTE_ARRAY"),
                Cells::OptStr(_) => ("OPTIONAL", "BYTE_ARRAY"),
                Cells::F64(_) => ("REQUIRED", "DOUBLE"),
                Cells::OptF64(_) => ("OPTIONAL", "DOUBLE"),
                Cells::I64(_) => ("REQUIRED", "INT64"),
                Cells::OptI64(_) => ("OPTIONAL", "INT64"),
            };
            let logical = if ty == "BYTE_ARRAY" { " (STRING)" } else { "" };
            s.push_str(&format!("  {rep} {ty} {}{logical};\n", c.name));
        }
        s.push('}');
        s
    }

    /// The Parquet file's bytes: one row group (none if the table is empty), Snappy.
    fn to_parquet(&self, name: &str, path: &str) -> Result<Vec<u8>, ReportError> {
        let err = |e: parquet::errors::ParquetError| ReportError::Format {
            path: path.to_owned(),
            message: format!("writing parquet: {e}"),
        };
        let schema = Arc::new(parse_message_type(&self.parquet_schema(name)).map_err(err)?);
        let props =
            Arc::new(WriterProperties::builder().set_compression(Compression::SNAPPY).build());
        let mut writer = SerializedFileWriter::new(Vec::new(), schema, props).map_err(err)?;
        if self.rows > 0 {
            let mut group = writer.next_row_group().map_err(err)?;
            let mut columns = self.columns.iter();
            while let Some(mut out) = group.next_column().map_err(err)? {
                let Some(column) = columns.next() else {
                    return Err(ReportError::Format {
                        path: path.to_owned(),
                        message: "parquet schema has more columns than the table".to_owned(),
                    });
                };
                match &column.cells {
                    Cells::Str(v) => {
                        let values: Vec<ByteArray> = v.iter().map(|s| s.as_str().into()).collect();
                        out.typed::<ByteArrayType>().write_batch(&values, None, None)
                    }
                    Cells::OptStr(v) => {
                        let values: Vec<ByteArray> =
                            v.iter().flatten().map(|s| s.as_str().into()).collect();
                        out.typed::<ByteArrayType>().write_batch(&values, Some(&defs(v)), None)
                    }
                    Cells::F64(v) => out.typed::<DoubleType>().write_batch(v, None, None),
                    Cells::OptF64(v) => {
                        let values: Vec<f64> = v.iter().flatten().copied().collect();
                        out.typed::<DoubleType>().write_batch(&values, Some(&defs(v)), None)
                    }
                    Cells::I64(v) => out.typed::<Int64Type>().write_batch(v, None, None),
                    Cells::OptI64(v) => {
                        let values: Vec<i64> = v.iter().flatten().copied().collect();
                        out.typed::<Int64Type>().write_batch(&values, Some(&defs(v)), None)
                    }
                }
                .map_err(err)?;
                out.close().map_err(err)?;
            }
            group.close().map_err(err)?;
        }
        writer.into_inner().map_err(err)
    }
}

/// Definition levels of a nullable column: 1 present, 0 null.
fn defs<T>(v: &[Option<T>]) -> Vec<i16> {
    v.iter().map(|x| i16::from(x.is_some())).collect()
}

/// A float as written in CSV (see the module docs).
fn float(x: f64) -> String {
    format!("{x:?}")
}

/// A string field, quoted if needed (RFC 4180; empty strings quoted to tell them from null).
fn csv_field(s: &str) -> String {
    if s.is_empty() || s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// Appends one record (`None` = empty field) and a `\n`.
fn push_record(out: &mut String, fields: impl Iterator<Item = Option<String>>) {
    for (i, f) in fields.enumerate() {
        if i > 0 {
            out.push(',');
        }
        if let Some(f) = f {
            out.push_str(&f);
        }
    }
    out.push('\n');
}

/// The per-job table of a run.
fn jobs_table(report: &SimReport) -> Table {
    let j = &report.jobs;
    let count = |f: fn(&placer_sim::JobMetrics) -> usize| {
        Cells::I64(j.iter().map(|x| int(f(x) as u64)).collect())
    };
    let columns = vec![
        Column { name: "id", cells: Cells::Str(j.iter().map(|x| x.id.clone()).collect()) },
        Column { name: "class", cells: Cells::OptStr(j.iter().map(|x| x.class.clone()).collect()) },
        Column { name: "pool", cells: Cells::Str(j.iter().map(|x| x.pool.clone()).collect()) },
        Column { name: "submit_s", cells: Cells::F64(j.iter().map(|x| x.submit_s).collect()) },
        Column { name: "finish_s", cells: Cells::OptF64(j.iter().map(|x| x.finish_s).collect()) },
        Column {
            name: "response_s",
            cells: Cells::OptF64(j.iter().map(|x| x.response_s).collect()),
        },
        Column { name: "ideal_s", cells: Cells::F64(j.iter().map(|x| x.ideal_s).collect()) },
        Column { name: "slowdown", cells: Cells::OptF64(j.iter().map(|x| x.slowdown).collect()) },
        Column { name: "maps", cells: count(|x| x.maps) },
        Column { name: "reduces", cells: count(|x| x.reduces) },
        Column { name: "maps_node_local", cells: count(|x| x.maps_node_local) },
        Column { name: "maps_rack_local", cells: count(|x| x.maps_rack_local) },
        Column { name: "maps_remote", cells: count(|x| x.maps_remote) },
        Column { name: "maps_no_preference", cells: count(|x| x.maps_no_preference) },
        Column { name: "task_runs", cells: count(|x| x.task_runs) },
        Column { name: "preempted", cells: count(|x| x.preempted) },
    ];
    Table::new(columns, j.len())
}

/// The per-epoch table of a run, with the wall-clock solve time of each call.
fn epochs_table(report: &SimReport) -> Table {
    let e = &report.epochs;
    let count =
        |f: fn(&placer_sim::EpochMetrics) -> u64| Cells::I64(e.iter().map(|x| int(f(x))).collect());
    let float = |f: fn(&placer_sim::EpochMetrics) -> f64| Cells::F64(e.iter().map(f).collect());
    let columns = vec![
        Column { name: "epoch", cells: Cells::I64((0..e.len()).map(|i| int(i as u64)).collect()) },
        Column { name: "time_s", cells: float(|x| x.time_s) },
        Column { name: "pending", cells: count(|x| x.pending as u64) },
        Column { name: "offered", cells: count(|x| x.offered as u64) },
        Column { name: "running", cells: count(|x| x.running as u64) },
        Column { name: "free_map_slots", cells: count(|x| x.free_map_slots) },
        Column { name: "free_reduce_slots", cells: count(|x| x.free_reduce_slots) },
        Column { name: "assigned", cells: count(|x| x.assigned) },
        Column { name: "node_local", cells: count(|x| x.node_local) },
        Column { name: "rack_local", cells: count(|x| x.rack_local) },
        Column { name: "remote", cells: count(|x| x.remote) },
        Column { name: "preempted", cells: count(|x| x.preempted) },
        Column { name: "fairness_distance", cells: float(|x| x.fairness_distance) },
        Column { name: "bytes_in_rack", cells: float(|x| x.bytes_in_rack) },
        Column { name: "bytes_cross_rack", cells: float(|x| x.bytes_cross_rack) },
        Column {
            name: "solve_ms",
            cells: Cells::OptF64(
                (0..e.len()).map(|i| report.timing.solve_ms.get(i).copied()).collect(),
            ),
        },
    ];
    Table::new(columns, e.len())
}

/// SLS's `jobruntime.csv` rows of a run (see [`JOBRUNTIME_COLUMNS`]).
fn jobruntime_table(report: &SimReport) -> Table {
    let mut finished: Vec<(usize, f64)> =
        report.jobs.iter().enumerate().filter_map(|(i, j)| j.finish_s.map(|f| (i, f))).collect();
    finished.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    let jobs: Vec<&placer_sim::JobMetrics> =
        finished.iter().map(|&(i, _)| &report.jobs[i]).collect();
    let columns = vec![
        Column { name: "JobID", cells: Cells::Str(jobs.iter().map(|j| j.id.clone()).collect()) },
        Column {
            name: "real_start_time",
            cells: Cells::OptI64(jobs.iter().map(|j| ms(j.submit_s)).collect()),
        },
        Column { name: "real_end_time", cells: Cells::OptI64(vec![None; jobs.len()]) },
        Column {
            name: "simulate_start_time",
            cells: Cells::OptI64(jobs.iter().map(|j| ms(j.submit_s)).collect()),
        },
        Column {
            name: "simulate_end_time",
            cells: Cells::OptI64(jobs.iter().map(|j| j.finish_s.and_then(ms)).collect()),
        },
    ];
    Table::new(columns, jobs.len())
}

/// The summary table of `rows`, in the given order.
fn summary_table(rows: &[SummaryRow]) -> Table {
    let r = rows;
    let s = |f: fn(&SummaryRow) -> &str| Cells::Str(r.iter().map(|x| f(x).to_owned()).collect());
    let n = |f: fn(&SummaryRow) -> u64| Cells::I64(r.iter().map(|x| int(f(x))).collect());
    let x = |f: fn(&SummaryRow) -> f64| Cells::F64(r.iter().map(f).collect());
    let o = |f: fn(&SummaryRow) -> Option<f64>| Cells::OptF64(r.iter().map(f).collect());
    let cells: [Cells; 32] = [
        s(|r| &r.policy),
        n(|r| r.jobs),
        o(|r| r.node_local),
        o(|r| r.rack_local),
        o(|r| r.remote),
        x(|r| r.mean_response_s),
        x(|r| r.p95_response_s),
        x(|r| r.makespan_s),
        x(|r| r.cross_rack_gb),
        x(|r| r.fairness_distance),
        x(|r| r.mean_solve_ms),
        s(|r| &r.algorithm),
        s(|r| &r.stop),
        n(|r| r.jobs_finished),
        n(|r| r.map_tasks),
        o(|r| r.no_preference),
        x(|r| r.mean_slowdown),
        x(|r| r.throughput_jobs_per_h),
        x(|r| r.in_rack_gb),
        x(|r| r.local_read_gb),
        x(|r| r.map_slot_utilisation),
        x(|r| r.reduce_slot_utilisation),
        n(|r| r.task_runs),
        n(|r| r.preemptions),
        n(|r| r.events),
        n(|r| r.epochs),
        n(|r| r.ticks),
        x(|r| r.end_time_s),
        x(|r| r.max_solve_ms),
        x(|r| r.total_solve_ms),
        x(|r| r.snapshot_ms),
        x(|r| r.wall_s),
    ];
    let columns =
        SUMMARY_COLUMNS.iter().zip(cells).map(|(&name, cells)| Column { name, cells }).collect();
    Table::new(columns, rows.len())
}

// ---------------------------------------------------------------------------------------------
// Writing.

/// The partition directories of `partition`, hive style: `policy=lsap/alpha=10` (empty for no
/// keys). Bytes outside `[A-Za-z0-9._+-]` are escaped `%XX`.
pub fn partition_path(partition: &[(String, String)]) -> String {
    partition
        .iter()
        .map(|(k, v)| format!("{}={}", hive_escape(k), hive_escape(v)))
        .collect::<Vec<_>>()
        .join("/")
}

/// Hive's path escaping of one key or value.
fn hive_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'+' | b'-') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `a/b` joined, skipping an empty middle part.
fn rel(table_dir: &str, part: &str, file: &str) -> String {
    if part.is_empty() {
        format!("{table_dir}/{file}")
    } else {
        format!("{table_dir}/{part}/{file}")
    }
}

/// Writes `bytes` to `dir/rel_path` atomically and describes the file.
fn emit(
    dir: &Path,
    rel_path: String,
    kind: &str,
    rows: usize,
    bytes: &[u8],
) -> Result<FileEntry, ReportError> {
    write_atomic(&dir.join(&rel_path), bytes)?;
    Ok(FileEntry::new(rel_path, kind, Some(rows as u64), bytes))
}

/// `summary.csv`'s text for `rows`, in the given order (see [`SUMMARY_COLUMNS`]).
pub fn summary_csv(rows: &[SummaryRow]) -> String {
    summary_table(rows).to_csv()
}

/// The per-job CSV text of a run (see [`JOB_COLUMNS`]).
pub fn jobs_csv(report: &SimReport) -> String {
    jobs_table(report).to_csv()
}

/// The per-epoch CSV text of a run (see [`EPOCH_COLUMNS`]).
pub fn epochs_csv(report: &SimReport) -> String {
    epochs_table(report).to_csv()
}

/// SLS's `jobruntime.csv` text of a run (see [`JOBRUNTIME_COLUMNS`]).
pub fn jobruntime_csv(report: &SimReport) -> String {
    jobruntime_table(report).to_csv()
}

/// Writes `rows` as CSV to `dir/rel_path` (normally `summary.csv`, see
/// [`crate::manifest::Shard::summary_file`]), atomically.
///
/// Errors: [`ReportError::Io`].
pub fn write_summary_csv(
    dir: &Path,
    rel_path: &str,
    rows: &[SummaryRow],
) -> Result<FileEntry, ReportError> {
    emit(dir, rel_path.to_owned(), "summary", rows.len(), summary_csv(rows).as_bytes())
}

/// Writes one run's tables under `dir` in the partition `partition` (e.g.
/// `[("policy", "lsap")]`): `jobs/…/part-0.{csv,parquet}`, `epochs/…/part-0.{csv,parquet}`
/// and `jobruntime/…/jobruntime.csv`, each atomically. Returns the files written, in that
/// order, with paths relative to `dir` (`/`-separated).
///
/// Errors: [`ReportError::Io`] for a file that cannot be written, [`ReportError::Format`] if
/// the Parquet encoder refuses a table (a bug).
pub fn write_run_tables(
    dir: &Path,
    partition: &[(String, String)],
    report: &SimReport,
) -> Result<Vec<FileEntry>, ReportError> {
    let part = partition_path(partition);
    let mut files = Vec::with_capacity(5);
    for (table_dir, table) in [(JOBS_DIR, jobs_table(report)), (EPOCHS_DIR, epochs_table(report))] {
        let csv = rel(table_dir, &part, "part-0.csv");
        files.push(emit(dir, csv, table_dir, table.rows, table.to_csv().as_bytes())?);
        let pq = rel(table_dir, &part, "part-0.parquet");
        let bytes = table.to_parquet(table_dir, &pq)?;
        files.push(emit(dir, pq, table_dir, table.rows, &bytes)?);
    }
    let runtime = jobruntime_table(report);
    let path = rel(JOBRUNTIME_DIR, &part, "jobruntime.csv");
    files.push(emit(dir, path, JOBRUNTIME_DIR, runtime.rows, runtime.to_csv().as_bytes())?);
    Ok(files)
}

// ---------------------------------------------------------------------------------------------
// Reading `summary.csv` back (merging shards).

/// Reads a `summary.csv` written by [`write_summary_csv`] (columns found by name; unknown
/// columns ignored, so a later version's extras do not break the merge).
///
/// Errors: [`ReportError::Io`] if the file cannot be read, [`ReportError::Format`] naming the
/// line and column that does not parse or the column that is missing.
pub fn read_summary_csv(path: &Path) -> Result<Vec<SummaryRow>, ReportError> {
    let text = std::fs::read_to_string(path).map_err(|e| ReportError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    parse_summary_csv(&text, &path.display().to_string())
}

/// Parses `summary.csv` text; `origin` names it in errors. See [`read_summary_csv`].
pub fn parse_summary_csv(text: &str, origin: &str) -> Result<Vec<SummaryRow>, ReportError> {
    let bad = |message: String| ReportError::Format { path: origin.to_owned(), message };
    let records = parse_csv(text).map_err(bad)?;
    let Some((header, body)) = records.split_first() else {
        return Err(bad("empty file, no header".to_owned()));
    };
    let index = |name: &str| {
        header
            .iter()
            .position(|f| f.text == name)
            .ok_or_else(|| bad(format!("missing column `{name}`")))
    };
    let mut at = [0usize; 32];
    for (slot, name) in at.iter_mut().zip(SUMMARY_COLUMNS) {
        *slot = index(name)?;
    }
    let mut rows = Vec::with_capacity(body.len());
    for (line, record) in body.iter().enumerate() {
        let line = line + 2;
        let cell = |c: usize| -> Result<&Field, ReportError> {
            record.get(at[c]).ok_or_else(|| {
                bad(format!("line {line}: {} fields, header has {}", record.len(), header.len()))
            })
        };
        let s = |c: usize| cell(c).map(|f| f.text.clone());
        let n = |c: usize| {
            cell(c)?
                .text
                .parse::<u64>()
                .map_err(|e| bad(format!("line {line}, column `{}`: {e}", SUMMARY_COLUMNS[c])))
        };
        let o = |c: usize| {
            let f = cell(c)?;
            if f.text.is_empty() && !f.quoted {
                return Ok(None);
            }
            f.text
                .parse::<f64>()
                .map(Some)
                .map_err(|e| bad(format!("line {line}, column `{}`: {e}", SUMMARY_COLUMNS[c])))
        };
        let x = |c: usize| {
            o(c)?.ok_or_else(|| bad(format!("line {line}, column `{}`: empty", SUMMARY_COLUMNS[c])))
        };
        rows.push(SummaryRow {
            policy: s(0)?,
            jobs: n(1)?,
            node_local: o(2)?,
            rack_local: o(3)?,
            remote: o(4)?,
            mean_response_s: x(5)?,
            p95_response_s: x(6)?,
            makespan_s: x(7)?,
            cross_rack_gb: x(8)?,
            fairness_distance: x(9)?,
            mean_solve_ms: x(10)?,
            algorithm: s(11)?,
            stop: s(12)?,
            jobs_finished: n(13)?,
            map_tasks: n(14)?,
            no_preference: o(15)?,
            mean_slowdown: x(16)?,
            throughput_jobs_per_h: x(17)?,
            in_rack_gb: x(18)?,
            local_read_gb: x(19)?,
            map_slot_utilisation: x(20)?,
            reduce_slot_utilisation: x(21)?,
            task_runs: n(22)?,
            preemptions: n(23)?,
            events: n(24)?,
            epochs: n(25)?,
            ticks: n(26)?,
            end_time_s: x(27)?,
            max_solve_ms: x(28)?,
            total_solve_ms: x(29)?,
            snapshot_ms: x(30)?,
            wall_s: x(31)?,
        });
    }
    Ok(rows)
}

/// One parsed CSV field.
struct Field {
    text: String,
    /// Whether it was quoted (tells `""` from an empty, null field).
    quoted: bool,
}

/// RFC 4180 records of `text` (LF or CRLF line ends; a final line end optional).
fn parse_csv(text: &str) -> Result<Vec<Vec<Field>>, String> {
    let mut records = Vec::new();
    let mut record: Vec<Field> = Vec::new();
    let mut field = Field { text: String::new(), quoted: false };
    let mut chars = text.chars().peekable();
    let mut line = 1usize;
    let mut at_record_start = true;
    while let Some(c) = chars.next() {
        at_record_start = false;
        match c {
            '"' if field.text.is_empty() && !field.quoted => {
                field.quoted = true;
                loop {
                    match chars.next() {
                        Some('"') if chars.peek() == Some(&'"') => {
                            chars.next();
                            field.text.push('"');
                        }
                        Some('"') => break,
                        Some(ch) => {
                            if ch == '\n' {
                                line += 1;
                            }
                            field.text.push(ch);
                        }
                        None => return Err(format!("line {line}: unterminated quoted field")),
                    }
                }
                if !matches!(chars.peek(), None | Some(',' | '\n' | '\r')) {
                    return Err(format!("line {line}: text after a closing quote"));
                }
            }
            ',' => record
                .push(std::mem::replace(&mut field, Field { text: String::new(), quoted: false })),
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                record.push(std::mem::replace(
                    &mut field,
                    Field { text: String::new(), quoted: false },
                ));
                records.push(std::mem::take(&mut record));
                line += 1;
                at_record_start = true;
            }
            '"' => return Err(format!("line {line}: quote inside an unquoted field")),
            ch => field.text.push(ch),
        }
    }
    if !at_record_start {
        record.push(field);
        records.push(record);
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_round_trip_through_the_parser() {
        let fields = ["plain", "a,b", "say \"hi\"", "two\nlines", "", "x\r\ny"];
        let mut text = String::new();
        push_record(&mut text, fields.iter().map(|f| Some(csv_field(f))).chain([None]));
        let records = parse_csv(&text).unwrap();
        assert_eq!(records.len(), 1);
        let got: Vec<(&str, bool)> =
            records[0].iter().map(|f| (f.text.as_str(), f.quoted)).collect();
        assert_eq!(
            got,
            [
                ("plain", false),
                ("a,b", true),
                ("say \"hi\"", true),
                ("two\nlines", true),
                ("", true),
                ("x\r\ny", true),
                ("", false),
            ]
        );
    }

    #[test]
    fn floats_always_read_as_floats() {
        assert_eq!(float(12.0), "12.0");
        assert_eq!(float(0.35), "0.35");
        assert_eq!(float(1e-7), "1e-7");
        assert_eq!(float(f64::INFINITY), "inf");
        assert_eq!(float(f64::NAN), "NaN");
        for x in [0.1 + 0.2, 1e300, -2.5e-12, 123456789.125] {
            assert_eq!(float(x).parse::<f64>().unwrap().to_bits(), x.to_bits());
        }
    }

    #[test]
    fn hive_paths_escape_separators() {
        let p =
            [("policy".to_owned(), "lsap".to_owned()), ("alpha".to_owned(), "1/2=x".to_owned())];
        assert_eq!(partition_path(&p), "policy=lsap/alpha=1%2F2%3Dx");
        assert_eq!(partition_path(&[]), "");
    }

    #[test]
    fn bad_csv_is_an_error() {
        assert!(parse_csv("a,\"b").is_err());
        assert!(parse_csv("a,\"b\"c\n").is_err());
        assert!(parse_csv("a,b\"c\n").is_err());
    }
}
