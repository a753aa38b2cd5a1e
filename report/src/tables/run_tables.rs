//! The tables of one run of `placer whatif` (docs/simulator.md, "Outputs"): per job
//! ([`placer_sim::JobMetrics`]), per solver call ([`placer_sim::EpochMetrics`]) and SLS's
//! `jobruntime.csv` (hadoop-sls `SchedulerMetrics.addAMRuntime`), as column-wise tables.

use placer_sim::SimReport;

use super::encode::{int, ms, Cells, Column, Table};

/// The columns of the per-job table: the fields of [`placer_sim::JobMetrics`], in order
/// (`observed_response_s` empty unless the trace records real finish times; then the job's
/// traffic of ShuffleWatcher Table 3 in GB: all its shuffle, the cross-rack part, its remote
/// map input; then its completion-time goal `goal_s` (absolute, s; empty without one) and
/// `goal_met` (`true` / `false`; empty without a goal)); then when it started and waited
/// (`start_s`, `wait_s`), when its last map started (`maps_started_s`) and the racks its maps
/// ran in (`map_racks`), the map runs that started at `start_s` (`maps_at_start`): a gang's
/// wait, whether it started together and inside one rack), and its gang's `min_member`
/// (`gang`; empty for an ordinary job).
pub const JOB_COLUMNS: [&str; 28] = [
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
    "observed_response_s",
    "shuffle_gb",
    "cross_rack_shuffle_gb",
    "remote_map_gb",
    "goal_s",
    "goal_met",
    "start_s",
    "wait_s",
    "maps_started_s",
    "map_racks",
    "maps_at_start",
    "gang",
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

/// The columns of the per-rack table: one row per (epoch, rack with cross-rack traffic in the
/// window since the previous epoch), from [`placer_sim::RackTraffic`]; `epoch` and `time_s`
/// as in the epoch table, `rack` the snapshots' rack id (`r0`, `r1`, ...).
pub const RACK_COLUMNS: [&str; 5] = ["epoch", "time_s", "rack", "bytes_out", "bytes_in"];

/// SLS's `jobruntime.csv` header (hadoop-sls `SchedulerMetrics`), all times in ms.
///
/// What placer writes in each (SLS writes one row when an application master finishes, so
/// only finished jobs have a row, ordered by `simulate_end_time`, ties in workload order):
/// - `JobID`: the workload's job id (SLS writes the YARN application id).
/// - `real_start_time`: the job's start in the trace, `round(submit_s · 1000)` (SLS: the
///   trace's `job.start.ms`).
/// - `real_end_time`: the job's end in the trace, `round((submit_s + observed_response_s) ·
///   1000)`; empty when the trace does not record it.
/// - `simulate_start_time`: when the simulated job was submitted, `round(submit_s · 1000)` on
///   the simulated clock (SLS: the AM's first step, ms after the simulation start).
/// - `simulate_end_time`: when its last task finished, `round(finish_s · 1000)`.
pub const JOBRUNTIME_COLUMNS: [&str; 5] =
    ["JobID", "real_start_time", "real_end_time", "simulate_start_time", "simulate_end_time"];

/// The per-job table of a run.
pub(super) fn jobs_table(report: &SimReport) -> Table {
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
        Column {
            name: "observed_response_s",
            cells: Cells::OptF64(j.iter().map(|x| x.observed_response_s).collect()),
        },
        Column { name: "shuffle_gb", cells: Cells::F64(j.iter().map(|x| x.shuffle_gb).collect()) },
        Column {
            name: "cross_rack_shuffle_gb",
            cells: Cells::F64(j.iter().map(|x| x.cross_rack_shuffle_gb).collect()),
        },
        Column {
            name: "remote_map_gb",
            cells: Cells::F64(j.iter().map(|x| x.remote_map_gb).collect()),
        },
        Column { name: "goal_s", cells: Cells::OptF64(j.iter().map(|x| x.goal_s).collect()) },
        Column { name: "goal_met", cells: Cells::OptBool(j.iter().map(|x| x.goal_met).collect()) },
        Column { name: "start_s", cells: Cells::OptF64(j.iter().map(|x| x.start_s).collect()) },
        Column { name: "wait_s", cells: Cells::OptF64(j.iter().map(|x| x.wait_s).collect()) },
        Column {
            name: "maps_started_s",
            cells: Cells::OptF64(j.iter().map(|x| x.maps_started_s).collect()),
        },
        Column { name: "map_racks", cells: count(|x| x.map_racks) },
        Column { name: "maps_at_start", cells: count(|x| x.maps_at_start) },
        Column {
            name: "gang",
            cells: Cells::OptI64(j.iter().map(|x| x.gang.map(i64::from)).collect()),
        },
    ];
    Table::new(columns, j.len())
}

/// The per-epoch table of a run, with the wall-clock solve time of each call.
pub(super) fn epochs_table(report: &SimReport) -> Table {
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

/// The per-rack cross-rack traffic of a run, one row per epoch and rack with traffic (see
/// [`RACK_COLUMNS`]): ShuffleWatcher's per-rack cross-rack load over time.
pub(super) fn racks_table(report: &SimReport) -> Table {
    let rows: Vec<(usize, f64, &placer_sim::RackTraffic)> = report
        .epochs
        .iter()
        .enumerate()
        .flat_map(|(i, e)| e.racks.iter().map(move |r| (i, e.time_s, r)))
        .collect();
    let columns = vec![
        Column { name: "epoch", cells: Cells::I64(rows.iter().map(|r| int(r.0 as u64)).collect()) },
        Column { name: "time_s", cells: Cells::F64(rows.iter().map(|r| r.1).collect()) },
        Column {
            name: "rack",
            cells: Cells::Str(rows.iter().map(|r| format!("r{}", r.2.rack)).collect()),
        },
        Column {
            name: "bytes_out",
            cells: Cells::F64(rows.iter().map(|r| r.2.bytes_out).collect()),
        },
        Column { name: "bytes_in", cells: Cells::F64(rows.iter().map(|r| r.2.bytes_in).collect()) },
    ];
    Table::new(columns, rows.len())
}

/// SLS's `jobruntime.csv` rows of a run (see [`JOBRUNTIME_COLUMNS`]).
pub(super) fn jobruntime_table(report: &SimReport) -> Table {
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
        Column {
            name: "real_end_time",
            cells: Cells::OptI64(
                jobs.iter()
                    .map(|j| j.observed_response_s.and_then(|r| ms(j.submit_s + r)))
                    .collect(),
            ),
        },
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

/// The per-job CSV text of a run (see [`JOB_COLUMNS`]).
pub fn jobs_csv(report: &SimReport) -> String {
    jobs_table(report).to_csv()
}

/// The per-epoch CSV text of a run (see [`EPOCH_COLUMNS`]).
pub fn epochs_csv(report: &SimReport) -> String {
    epochs_table(report).to_csv()
}

/// The per-rack table's CSV text of a run (see [`RACK_COLUMNS`]).
pub fn racks_csv(report: &SimReport) -> String {
    racks_table(report).to_csv()
}

/// SLS's `jobruntime.csv` text of a run (see [`JOBRUNTIME_COLUMNS`]).
pub fn jobruntime_csv(report: &SimReport) -> String {
    jobruntime_table(report).to_csv()
}
