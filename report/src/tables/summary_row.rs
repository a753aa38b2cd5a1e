//! The summary row of a `placer whatif` run (docs/simulator.md, "Outputs"): one row of
//! `summary.csv`, its encoding, and reading the file back to merge shards.

use std::path::Path;

use placer_sim::SimReport;

use super::csv_records::read_records;
use super::encode::{int, Cells, Column, Table};
use super::hive::emit;
use crate::manifest::FileEntry;
use crate::ReportError;

/// The columns of `summary.csv`, in order: the eleven of docs/simulator.md, "Outputs", then extras.
pub const SUMMARY_COLUMNS: [&str; 50] = [
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
    "cross_rack_shuffle_gb",
    "remote_map_gb",
    "peak_intermediate_gb",
    "cpu_utilisation",
    "mem_utilisation",
    "io_utilisation",
    "steady_throughput_jobs_per_h",
    "steady_mean_turnaround_s",
    "goals",
    "goals_met",
    "steady_map_slot_utilisation",
    "steady_jobs_in_system",
    "steady_pools_with_two_jobs",
    "steady_cross_rack_use",
    "steady_cross_rack_saturated_share",
    "steady_arrivals_jobs_per_h",
    "stranded_slot_fraction",
    "stranded_slots_while_waiting",
];

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
    /// GB of reduce shuffle that crossed racks (part of `cross_rack_gb`).
    pub cross_rack_shuffle_gb: f64,
    /// GB of map input read across racks (part of `cross_rack_gb`).
    pub remote_map_gb: f64,
    /// Most map output held on disks at once, GB.
    pub peak_intermediate_gb: f64,
    /// Mean Σ cpu demand of the running tasks / nodes over the makespan; `None` (an empty
    /// cell) when the workload has no demands.
    pub cpu_utilisation: Option<f64>,
    /// Likewise for memory.
    pub mem_utilisation: Option<f64>,
    /// Likewise for I/O.
    pub io_utilisation: Option<f64>,
    /// Jobs finished between the first and the last submission per hour of that span
    /// (ShuffleWatcher §4.3's steady state); 0 when the span is 0.
    pub steady_throughput_jobs_per_h: f64,
    /// Mean response of the finished jobs submitted in the middle 80% of the submission span,
    /// s (§4.3's steady state); 0 when there is none.
    pub steady_mean_turnaround_s: f64,
    /// Jobs with a completion-time goal (RAS §3.2: the workload's deadlines).
    pub goals: u64,
    /// Jobs that finished by their goal.
    pub goals_met: u64,
    /// Busy map-slot seconds between the first and the last submission / (map slots · that
    /// span) (§4.3's steady state, "under full load").
    pub steady_map_slot_utilisation: f64,
    /// Time-mean jobs in the system over that span.
    pub steady_jobs_in_system: f64,
    /// Time-mean pools (users) holding ≥ 2 jobs over that span.
    pub steady_pools_with_two_jobs: f64,
    /// Mean cross-rack rate over that span's minutes / the bisection (ShuffleWatcher Fig. 1).
    pub steady_cross_rack_use: f64,
    /// Share of that span's minutes at ≥ 80% of the bisection.
    pub steady_cross_rack_saturated_share: f64,
    /// Submissions per hour of that span: a steady throughput equal to it is set by the
    /// arrivals, whatever the policy.
    pub steady_arrivals_jobs_per_h: f64,
    /// Time-mean free slots stranded in topology domains too small for the smallest waiting
    /// gang that requires one, over the cluster's slots (`placer_sim::Summary`).
    pub stranded_slot_fraction: f64,
    /// Mean stranded slots while some required gang waits.
    pub stranded_slots_while_waiting: f64,
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
            cross_rack_shuffle_gb: s.cross_rack_shuffle_gb,
            remote_map_gb: s.remote_map_gb,
            peak_intermediate_gb: s.peak_intermediate_gb,
            cpu_utilisation: s.utilisation.map(|u| u.cpu),
            mem_utilisation: s.utilisation.map(|u| u.mem),
            io_utilisation: s.utilisation.map(|u| u.io),
            steady_throughput_jobs_per_h: s.steady_throughput_jobs_per_h,
            steady_mean_turnaround_s: s.steady_mean_turnaround_s,
            goals: s.goals as u64,
            goals_met: s.goals_met as u64,
            steady_map_slot_utilisation: s.steady_load.map_slot_utilisation,
            steady_jobs_in_system: s.steady_load.jobs_in_system,
            steady_pools_with_two_jobs: s.steady_load.pools_with_two_jobs,
            steady_cross_rack_use: s.steady_load.cross_rack_use,
            steady_cross_rack_saturated_share: s.steady_load.cross_rack_saturated_share,
            steady_arrivals_jobs_per_h: s.steady_load.arrivals_jobs_per_h,
            stranded_slot_fraction: s.stranded_slot_fraction,
            stranded_slots_while_waiting: s.stranded_slots_while_waiting,
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

/// The summary table of `rows`, in the given order.
fn summary_table(rows: &[SummaryRow]) -> Table {
    let r = rows;
    let s = |f: fn(&SummaryRow) -> &str| Cells::Str(r.iter().map(|x| f(x).to_owned()).collect());
    let n = |f: fn(&SummaryRow) -> u64| Cells::I64(r.iter().map(|x| int(f(x))).collect());
    let x = |f: fn(&SummaryRow) -> f64| Cells::F64(r.iter().map(f).collect());
    let o = |f: fn(&SummaryRow) -> Option<f64>| Cells::OptF64(r.iter().map(f).collect());
    let cells: [Cells; 50] = [
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
        x(|r| r.cross_rack_shuffle_gb),
        x(|r| r.remote_map_gb),
        x(|r| r.peak_intermediate_gb),
        o(|r| r.cpu_utilisation),
        o(|r| r.mem_utilisation),
        o(|r| r.io_utilisation),
        x(|r| r.steady_throughput_jobs_per_h),
        x(|r| r.steady_mean_turnaround_s),
        n(|r| r.goals),
        n(|r| r.goals_met),
        x(|r| r.steady_map_slot_utilisation),
        x(|r| r.steady_jobs_in_system),
        x(|r| r.steady_pools_with_two_jobs),
        x(|r| r.steady_cross_rack_use),
        x(|r| r.steady_cross_rack_saturated_share),
        x(|r| r.steady_arrivals_jobs_per_h),
        x(|r| r.stranded_slot_fraction),
        x(|r| r.stranded_slots_while_waiting),
    ];
    let columns =
        SUMMARY_COLUMNS.iter().zip(cells).map(|(&name, cells)| Column { name, cells }).collect();
    Table::new(columns, rows.len())
}

/// `summary.csv`'s text for `rows`, in the given order (see [`SUMMARY_COLUMNS`]).
pub fn summary_csv(rows: &[SummaryRow]) -> String {
    summary_table(rows).to_csv()
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
    let records = read_records(text).map_err(bad)?;
    let Some((header, body)) = records.split_first() else {
        return Err(bad("empty file, no header".to_owned()));
    };
    let index = |name: &str| {
        header
            .fields
            .iter()
            .position(|f| f == name)
            .ok_or_else(|| bad(format!("missing column `{name}`")))
    };
    let mut at = [0usize; 50];
    for (slot, name) in at.iter_mut().zip(SUMMARY_COLUMNS) {
        *slot = index(name)?;
    }
    let mut rows = Vec::with_capacity(body.len());
    for record in body {
        let line = record.line;
        let cell = |c: usize| -> Result<(&str, bool), ReportError> {
            record.get(at[c]).ok_or_else(|| {
                bad(format!("line {line}: {} fields, header has {}", record.len(), header.len()))
            })
        };
        let s = |c: usize| cell(c).map(|(text, _)| text.to_owned());
        let n = |c: usize| {
            cell(c)?
                .0
                .parse::<u64>()
                .map_err(|e| bad(format!("line {line}, column `{}`: {e}", SUMMARY_COLUMNS[c])))
        };
        let o = |c: usize| {
            let (text, quoted) = cell(c)?;
            if text.is_empty() && !quoted {
                return Ok(None);
            }
            text.parse::<f64>()
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
            cross_rack_shuffle_gb: x(32)?,
            remote_map_gb: x(33)?,
            peak_intermediate_gb: x(34)?,
            cpu_utilisation: o(35)?,
            mem_utilisation: o(36)?,
            io_utilisation: o(37)?,
            steady_throughput_jobs_per_h: x(38)?,
            steady_mean_turnaround_s: x(39)?,
            goals: n(40)?,
            goals_met: n(41)?,
            steady_map_slot_utilisation: x(42)?,
            steady_jobs_in_system: x(43)?,
            steady_pools_with_two_jobs: x(44)?,
            steady_cross_rack_use: x(45)?,
            steady_cross_rack_saturated_share: x(46)?,
            steady_arrivals_jobs_per_h: x(47)?,
            stranded_slot_fraction: x(48)?,
            stranded_slots_while_waiting: x(49)?,
        });
    }
    Ok(rows)
}
