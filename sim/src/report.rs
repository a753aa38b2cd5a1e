//! What a what-if run reports (`sim/README.md`; the per-job response
//! times and locality of FAIR, Zaharia et al. §6, the locality and fairness distance of
//! lsap-sched §4, the cross-rack bytes of ShuffleWatcher §5: Table 3 per job, the steady-state
//! throughput and turnaround of §4.3 and §5.2, the cross-rack traffic over time of Figs. 1 and
//! 10): per job, per epoch, a summary, a traffic time series, and wall-clock solver timings
//! kept apart so that two runs of one config compare equal with [`SimReport::same_outcome`].

use crate::traffic::TrafficSeries;
use placer_models::Algorithm;
use serde::Serialize;

/// Why the run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// Every job finished.
    Completed,
    /// Pending tasks could never be placed (see `SimConfig::stall_epochs`); unfinished jobs
    /// have no `finish_s`.
    Stalled,
    /// `SimConfig::max_time_s` was reached.
    TimeLimit,
}

/// One job's outcome.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobMetrics {
    /// The workload's job id.
    pub id: String,
    /// The workload's label (size bin, benchmark, ...), if any.
    pub class: Option<String>,
    /// Pool name.
    pub pool: String,
    /// Submit time, s.
    pub submit_s: f64,
    /// When its last task finished, s; `None` if it did not finish.
    pub finish_s: Option<f64>,
    /// `finish_s − submit_s`, s.
    pub response_s: Option<f64>,
    /// The job alone on the idle cluster, s ([`crate::ideal::ideal_time_s`]).
    pub ideal_s: f64,
    /// `response_s / ideal_s`; `None` if unfinished or `ideal_s` is 0 or infinite.
    pub slowdown: Option<f64>,
    /// Map tasks.
    pub maps: usize,
    /// Reduce tasks.
    pub reduces: usize,
    /// Completed maps that ran on a node holding a replica.
    pub maps_node_local: usize,
    /// Completed maps that ran in a replica's rack, not on a replica.
    pub maps_rack_local: usize,
    /// Completed maps that read across racks.
    pub maps_remote: usize,
    /// Completed maps without replicas (no preference).
    pub maps_no_preference: usize,
    /// Task runs started (tasks + re-runs after preemption).
    pub task_runs: usize,
    /// Runs killed by preemption.
    pub preempted: usize,
    /// The real cluster's response time, s (`JobSpec::observed_finish_s − submit_s`), when the
    /// trace records when the job really finished: what `response_s` is validated against.
    pub observed_response_s: Option<f64>,
    /// GB (10⁹ bytes) its reduces pulled in all (from their own disk, inside the rack and
    /// across racks: ShuffleWatcher Table 3's "Total Shuffle").
    pub shuffle_gb: f64,
    /// GB of its shuffle that crossed racks (Table 3's "Cross-Rack Shuffle").
    pub cross_rack_shuffle_gb: f64,
    /// GB of its map input read from another rack (Table 3's "Remote Map Traffic").
    pub remote_map_gb: f64,
    /// Its completion-time goal, s on the run's clock: `submit_s + deadline_s` when the
    /// workload gives a deadline (RAS §3.2), else `None`.
    pub goal_s: Option<f64>,
    /// Whether it finished by `goal_s` (`finish_s ≤ goal_s`; an unfinished job did not);
    /// `None` without a goal.
    pub goal_met: Option<bool>,
    /// When its first task started, s; `None` if none did.
    pub start_s: Option<f64>,
    /// `start_s − submit_s`, s: how long it waited to start (a gang's wait for all of its
    /// members at once).
    pub wait_s: Option<f64>,
    /// When its last map run started, s: a gang started together has `maps_started_s =
    /// start_s`.
    pub maps_started_s: Option<f64>,
    /// How many racks its map runs started in (1: a gang kept inside a rack).
    pub map_racks: usize,
    /// Map runs that started at `start_s`: a gang started whole has at least its
    /// `min_member` (later runs, such as a failed attempt's retry, do not count).
    pub maps_at_start: usize,
    /// Its gang's `min_member` when the workload makes it a gang (`JobSpec::gang`), whatever
    /// the policy; `None` for an ordinary job.
    pub gang: Option<u32>,
}

/// One solver call.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EpochMetrics {
    /// Simulated time, s.
    pub time_s: f64,
    /// Pending tasks in the simulator before placement (all of them, not only those offered).
    pub pending: usize,
    /// Pending tasks the snapshot carried (see `SimConfig::pending_bound`).
    pub offered: usize,
    /// Running tasks before placement.
    pub running: usize,
    /// Free map slots before placement.
    pub free_map_slots: u64,
    /// Free reduce slots before placement.
    pub free_reduce_slots: u64,
    /// Tasks started.
    pub assigned: u64,
    /// Maps started node-local.
    pub node_local: u64,
    /// Maps started rack-local.
    pub rack_local: u64,
    /// Maps started remote.
    pub remote: u64,
    /// Tasks killed.
    pub preempted: u64,
    /// The answer's `stats.fairness_distance` (lsap-fair-sched D, placer's definition).
    pub fairness_distance: f64,
    /// Bytes moved inside racks since the previous epoch of this table.
    pub bytes_in_rack: f64,
    /// Bytes moved across racks since the previous epoch of this table.
    pub bytes_cross_rack: f64,
    /// Per rack with cross-rack traffic since the previous epoch of this table (rack order):
    /// the bytes that left and entered it (ShuffleWatcher §3.1's per-rack cross-rack load,
    /// what NetSat reads). Σ `bytes_out` = Σ `bytes_in` = `bytes_cross_rack`.
    pub racks: Vec<RackTraffic>,
}

/// One rack's cross-rack bytes over one epoch's window (flows counted when they end).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RackTraffic {
    /// Rack index (`r{rack}` in the snapshots).
    pub rack: u32,
    /// Bytes that left the rack.
    pub bytes_out: f64,
    /// Bytes that entered the rack.
    pub bytes_in: f64,
}

/// Totals of a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Jobs in the workload.
    pub jobs: usize,
    /// Jobs that finished.
    pub jobs_finished: usize,
    /// Completed map tasks.
    pub map_tasks: usize,
    /// Node-local share of the completed maps that have replicas.
    pub node_local: f64,
    /// Rack-local share of them.
    pub rack_local: f64,
    /// Remote share of them.
    pub remote: f64,
    /// Mean response time of finished jobs, s.
    pub mean_response_s: f64,
    /// 95th percentile (nearest rank) response time of finished jobs, s.
    pub p95_response_s: f64,
    /// Mean slowdown of finished jobs that have one.
    pub mean_slowdown: f64,
    /// Last job finish − first submit, s.
    pub makespan_s: f64,
    /// Finished jobs per hour of makespan.
    pub throughput_jobs_per_h: f64,
    /// GB (10⁹ bytes) moved inside racks.
    pub in_rack_gb: f64,
    /// GB moved across racks.
    pub cross_rack_gb: f64,
    /// GB read from local disks.
    pub local_read_gb: f64,
    /// GB of reduce shuffle that crossed racks (part of `cross_rack_gb`; ShuffleWatcher §5's
    /// cross-rack shuffle).
    pub cross_rack_shuffle_gb: f64,
    /// GB of map input read across racks (remote maps; the rest of `cross_rack_gb`).
    pub remote_map_gb: f64,
    /// The most map output held on the nodes' disks at once over the cluster, GB (FAIR §5.4's
    /// intermediate data); 0 until the engine reports it.
    pub peak_intermediate_gb: f64,
    /// Mean resource use over the makespan: ∫ Σ demand of the computing tasks (capped at
    /// each node's capacity) dt / (Σ capacity · makespan), per resource (RAS §4.2's
    /// utilisation); `None` when no task has a demand.
    pub utilisation: Option<ResourceUse>,
    /// Jobs with a completion-time goal.
    pub goals: usize,
    /// Jobs that finished by their goal.
    pub goals_met: usize,
    /// Mean fairness distance over the solver calls.
    pub fairness_distance: f64,
    /// Busy map-slot seconds / (map slots × makespan).
    pub map_slot_utilisation: f64,
    /// Busy reduce-slot seconds / (reduce slots × makespan).
    pub reduce_slot_utilisation: f64,
    /// Time-mean free slots stranded in topology domains too small for the smallest waiting
    /// gang that requires one, over the cluster's slots and the span from the first
    /// submission to the last event (`fragmentation.rs` defines it).
    pub stranded_slot_fraction: f64,
    /// Mean stranded slots while some required gang waits; 0 when none ever waited.
    pub stranded_slots_while_waiting: f64,
    /// Task runs started.
    pub task_runs: usize,
    /// Runs killed by preemption.
    pub preemptions: usize,
    /// Events processed (arrivals, current flow and task ends, ticks; stale ones not counted).
    pub events: u64,
    /// Solver calls (rows of the epoch table).
    pub epochs: usize,
    /// Epoch ticks, including those that skipped the solver (no free slot for any pending
    /// task).
    pub ticks: u64,
    /// Simulated time of the last event, s.
    pub end_time_s: f64,
    /// Jobs that finished between the first and the last submission, per hour of that span
    /// (ShuffleWatcher §4.3's steady state: ramp-up and ramp-down left out); 0 when every job
    /// was submitted at once.
    pub steady_throughput_jobs_per_h: f64,
    /// Mean response time of the finished jobs submitted in the middle 80% of the submission
    /// span, s (§4.3's steady state); 0 when there is none.
    pub steady_mean_turnaround_s: f64,
    /// The load in the steady state (the submission span; `metrics.rs`).
    pub steady_load: SteadyLoad,
}

/// How loaded the cluster was between the first and the last submission (ShuffleWatcher
/// §4.3's steady state, "under full load"): what decides whether a policy can change
/// throughput at all. All 0 when every job was submitted at once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct SteadyLoad {
    /// Busy map-slot seconds inside the span / (map slots · span).
    pub map_slot_utilisation: f64,
    /// Time-mean number of jobs submitted and not finished.
    pub jobs_in_system: f64,
    /// Time-mean number of pools (users) with at least 2 jobs in the system.
    pub pools_with_two_jobs: f64,
    /// Mean cross-rack rate over the span's time buckets / the bisection (Σ rack uplinks, or
    /// without uplinks Σ rack-pair links).
    pub cross_rack_use: f64,
    /// Share of the span's time buckets (minutes) whose cross-rack rate is ≥ 80% of the
    /// bisection (ShuffleWatcher Fig. 1's saturated stretches).
    pub cross_rack_saturated_share: f64,
    /// Submissions per hour of the span: the most any policy's steady throughput can be. A
    /// throughput at this rate is set by the arrivals, not by the policy.
    pub arrivals_jobs_per_h: f64,
}

/// A use of the cluster's resources, per resource, as a fraction of all nodes' capacity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct ResourceUse {
    /// CPU.
    pub cpu: f64,
    /// Memory.
    pub mem: f64,
    /// I/O.
    pub io: f64,
}

/// Wall-clock measurements (vary between runs).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct WallTiming {
    /// Solve time of each solver call (parallel to `SimReport::epochs`), ms: snapshot
    /// validation, indexing and solve inside `placer_solver::place`.
    pub solve_ms: Vec<f64>,
    /// Mean of `solve_ms`.
    pub mean_solve_ms: f64,
    /// Max of `solve_ms`.
    pub max_solve_ms: f64,
    /// Σ `solve_ms`.
    pub total_solve_ms: f64,
    /// Time spent building snapshots, ms (Σ over epochs).
    pub snapshot_ms: f64,
    /// The whole run, s.
    pub wall_s: f64,
}

/// A run's report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimReport {
    /// `SimConfig::name`.
    pub name: String,
    /// The algorithm that ran.
    pub algorithm: Algorithm,
    /// Why it ended.
    pub stop: StopReason,
    /// Per job, in workload order.
    pub jobs: Vec<JobMetrics>,
    /// Per solver call, in time order.
    pub epochs: Vec<EpochMetrics>,
    /// Totals.
    pub summary: Summary,
    /// The cluster's cross-rack traffic over time, as the network measured it (ShuffleWatcher
    /// Figs. 1 and 10; `traffic.rs`).
    pub cross_rack_series: TrafficSeries,
    /// Wall-clock timings (the only non-deterministic part).
    pub timing: WallTiming,
}

impl SimReport {
    /// Equality of everything but the wall-clock timings: what a seed determines.
    pub fn same_outcome(&self, other: &Self) -> bool {
        self.name == other.name
            && self.algorithm == other.algorithm
            && self.stop == other.stop
            && self.jobs == other.jobs
            && self.epochs == other.epochs
            && self.summary == other.summary
            && self.cross_rack_series == other.cross_rack_series
    }
}

/// The nearest-rank p-quantile (0 < p ≤ 1) of `values`, 0 if empty: the ⌈p·n⌉-th smallest.
/// Example: p = 0.95 of 1..=20 → the 19th smallest, 19.
pub(crate) fn quantile(values: &[f64], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = ((p * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

/// Mean, 0 if empty.
pub(crate) fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    if n == 0 {
        0.0
    } else {
        sum / n as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_quantile() {
        let v: Vec<f64> = (1..=20).rev().map(f64::from).collect();
        assert_eq!(quantile(&v, 0.95), 19.0);
        assert_eq!(quantile(&[4.0], 0.95), 4.0);
        assert_eq!(quantile(&[], 0.95), 0.0);
        assert_eq!(mean([1.0, 2.0, 6.0].into_iter()), 3.0);
    }
}
