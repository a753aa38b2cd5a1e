//! What a run measures while it runs, and the report built from it at the end
//! (`sim/README.md`; "Metrics: node/rack/remote locality, bytes moved in-rack and cross-rack,
//! job response times and slowdowns, makespan, throughput, fairness distance over time,
//! utilization, solver time per epoch"). The engine owns one [`Metrics`] and tells it what
//! happened at a few points (a task started or was preempted, a map or job finished, bytes
//! moved, a slot was freed, an epoch was solved, an event or tick was processed); nothing here
//! feeds back into the run. The output types are in `report.rs`.
//!
//! Definitions (placer's): a job's locality counts its *completed* maps, by the locality of the
//! run that completed; a slot is busy from a task's start to its end or preemption (runs still
//! going when the run stops do not count); a flow's bytes count when it ends (finishes or is
//! cancelled), not while they move, and an epoch's bytes are those counted since the previous
//! solver call. A cross-rack flow of a map is remote map input, one of a reduce is cross-rack
//! shuffle. Intermediate data is what the engine reports held on the nodes' disks
//! ([`Metrics::intermediate_changed`]), and resource use the Σ demand of the computing tasks
//! capped at each node's capacity ([`Metrics::resources_changed`]), integrated as a step
//! function of time and divided by the cluster's capacity. Goals (RAS §3.2): a job with a
//! deadline has the goal `submit_s + deadline_s` and meets it when it finishes by then. O(1) per call; the
//! report is O(jobs + epochs) plus the sort of the response times for the p95.
//!
//! Per job (ShuffleWatcher Table 3's columns): its total shuffle (every byte its reduces
//! pulled: from their own node's disk, inside the rack and across racks), its cross-rack
//! shuffle and its remote map input (map input read from another rack), counted like the
//! run's totals (at flow end, cancelled flows with what they moved).
//!
//! Steady state (ShuffleWatcher §4.3: "we are interested only in the steady-state period of
//! the cluster under full load, we ignore the load ramp-up and ramp-down periods"): with the
//! submissions spanning `[first, last]`, `steady_throughput_jobs_per_h` = jobs that finished
//! in `[first, last]` per hour of that span (0 when the span is 0), and
//! `steady_mean_turnaround_s` = the mean response of the finished jobs submitted in the middle
//! 80% of it, `[first + 0.1 · span, last − 0.1 · span]` (0 when there is none).
//!
//! The cross-rack traffic over time (Figs. 1 and 10) is the network's measurement, integrated
//! at the flows' actual rates (`traffic.rs`), not counted at flow ends.
//! The steady state's load ([`SteadyLoad`]) over the same span: busy map-slot time inside it
//! per slot, the time-mean jobs in the system (submitted, not finished; a job that never
//! finishes stays to the run's last event) and pools holding two or more of them, and the
//! cross-rack rate of the time buckets starting inside it against the bisection.

use crate::cluster::SimCluster;
use crate::config::SimConfig;
use crate::fragmentation::Fragmentation;
use crate::ideal::ideal_time_s;
use crate::network::FlowEnd;
use crate::report::{
    mean, quantile, EpochMetrics, JobMetrics, RackTraffic, ResourceUse, SimReport, SteadyLoad,
    StopReason, Summary, WallTiming,
};
use crate::traffic::TrafficSeries;
use crate::workload_index::WorkloadIndex;
use placer_datasets::Workload;
use placer_models::{Locality, PlaceResponse, TaskKind};

/// The simulator's state as an epoch found it, before its answer was applied.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EpochStart {
    /// Pending tasks (all of them, not only those offered).
    pub pending: usize,
    /// Pending tasks the snapshot carried.
    pub offered: usize,
    /// Running tasks.
    pub running: usize,
    /// Free slots per kind.
    pub free: [u64; 2],
}

/// One job's counters.
#[derive(Clone, Debug, Default)]
struct JobCounts {
    finish_s: Option<f64>,
    /// Completed maps by locality: node, rack, remote, none.
    locality: [usize; 4],
    runs: usize,
    preempted: usize,
    /// Bytes its reduces pulled (local, in-rack and cross-rack).
    shuffle: f64,
    /// The part of `shuffle` that crossed racks.
    cross_rack_shuffle: f64,
    /// Map input it read across racks.
    remote_map: f64,
    /// When its first task run started, s.
    first_start_s: Option<f64>,
    /// When its latest map run started, s.
    last_map_start_s: Option<f64>,
    /// The racks its map runs started in.
    map_racks: std::collections::BTreeSet<usize>,
    /// Map runs started at `first_start_s`.
    maps_at_start: usize,
}

/// Bytes read and moved so far.
#[derive(Clone, Debug, Default)]
struct Bytes {
    in_rack: f64,
    cross_rack: f64,
    local: f64,
    /// The part of `cross_rack` that was reduce shuffle.
    cross_rack_shuffle: f64,
    /// The part of `cross_rack` that was map input (remote maps).
    remote_map: f64,
    /// `in_rack` and `cross_rack` at the last solver call.
    in_rack_recorded: f64,
    cross_rack_recorded: f64,
    /// Per rack: cross-rack bytes out and in since the last solver call.
    rack_out: Vec<f64>,
    rack_in: Vec<f64>,
}

impl Bytes {
    /// The racks with cross-rack traffic since the last call, and a fresh window.
    fn rack_window(&mut self) -> Vec<RackTraffic> {
        let mut racks = Vec::new();
        for (rack, (out, into)) in self.rack_out.iter_mut().zip(&mut self.rack_in).enumerate() {
            if *out > 0.0 || *into > 0.0 {
                racks.push(RackTraffic { rack: rack as u32, bytes_out: *out, bytes_in: *into });
                (*out, *into) = (0.0, 0.0);
            }
        }
        racks
    }
}

/// Σ demand of the running tasks (cpu, mem, io) as a step function of time, integrated.
#[derive(Clone, Debug, Default)]
struct ResourceIntegral {
    /// Whether the engine reported resource use at all.
    reported: bool,
    /// The current Σ demand, since `since_s`.
    in_use: [f64; 3],
    since_s: f64,
    /// ∫ Σ demand dt up to `since_s`, per resource (demand-seconds).
    area: [f64; 3],
}

impl ResourceIntegral {
    /// The integral up to `t` (≥ the last change; earlier → up to the last change).
    fn area_until(&self, t: f64) -> [f64; 3] {
        let dt = (t - self.since_s).max(0.0);
        std::array::from_fn(|r| self.area[r] + self.in_use[r] * dt)
    }
}

/// A run's measurements, accumulated as it goes.
#[derive(Clone, Debug)]
pub(crate) struct Metrics {
    jobs: Vec<JobCounts>,
    /// Locality of each task's current (or last) run; reduces have `None`.
    run_locality: Vec<Locality>,
    bytes: Bytes,
    /// Busy slot-seconds per kind.
    busy: [f64; 2],
    /// The submission span `[first, last]` (the steady state) and the busy slot-seconds
    /// inside it per kind.
    steady: (f64, f64),
    steady_busy: [f64; 2],
    /// The most intermediate bytes held at once, over the cluster.
    peak_intermediate: u64,
    resources: ResourceIntegral,
    events: u64,
    /// Time of the last event that counted (stale flow and task ends do not).
    last_event_s: f64,
    ticks: u64,
    epochs: Vec<EpochMetrics>,
    timing: WallTiming,
    /// The free slots stranded by waiting required gangs (`fragmentation.rs`).
    pub fragmentation: Fragmentation,
}

impl Metrics {
    /// Nothing measured yet, for `jobs` jobs and `tasks` tasks.
    pub fn new(jobs: usize, tasks: usize, racks: usize) -> Self {
        Self {
            jobs: vec![JobCounts::default(); jobs],
            run_locality: vec![Locality::None; tasks],
            bytes: Bytes {
                rack_out: vec![0.0; racks],
                rack_in: vec![0.0; racks],
                ..Bytes::default()
            },
            busy: [0.0, 0.0],
            steady: (0.0, 0.0),
            steady_busy: [0.0, 0.0],
            peak_intermediate: 0,
            resources: ResourceIntegral::default(),
            events: 0,
            last_event_s: 0.0,
            ticks: 0,
            epochs: Vec::new(),
            timing: WallTiming::default(),
            fragmentation: Fragmentation::default(),
        }
    }

    /// An event counted (an arrival, a current flow or task end, a tick that did not stall
    /// the run); its time `now` becomes the run's end time.
    pub fn event(&mut self, now: f64) {
        self.events += 1;
        self.last_event_s = now;
    }

    /// The tick that found the run stalled: it counts as an event but leaves the end time at
    /// the event before it.
    pub fn stalling_tick(&mut self) {
        self.events += 1;
    }

    /// An epoch tick, whether or not it calls the solver.
    pub fn tick(&mut self) {
        self.ticks += 1;
    }

    /// A run of a task of job `j` (a map when `map`) started at `now` in rack `rack`.
    pub fn run_placed(&mut self, j: usize, map: bool, now: f64, rack: usize) {
        if let Some(job) = self.jobs.get_mut(j) {
            let first = *job.first_start_s.get_or_insert(now);
            if map && now == first {
                job.maps_at_start += 1;
            }
            if map {
                job.last_map_start_s = Some(now);
                job.map_racks.insert(rack);
            }
        }
    }

    /// Task `t` of job `j` started a run with `locality` (`None` for reduces).
    pub fn task_started(&mut self, j: usize, t: usize, locality: Locality) {
        self.jobs[j].runs += 1;
        self.run_locality[t] = locality;
    }

    /// `bytes` read from the disk of the node a task runs on.
    pub fn read_local(&mut self, bytes: u64) {
        self.bytes.local += bytes as f64;
    }

    /// A reduce of job `j` read `bytes` of its shuffle from its own node's disk.
    pub fn shuffle_read_locally(&mut self, j: usize, bytes: u64) {
        if let Some(job) = self.jobs.get_mut(j) {
            job.shuffle += bytes as f64;
        }
    }

    /// A flow ended, finished or cancelled, having moved `end.moved` bytes for a task of
    /// `kind` (a map's input read or a reduce's shuffle) of job `j`.
    pub fn flow_ended(&mut self, end: &FlowEnd, kind: TaskKind, j: usize) {
        if let (TaskKind::Reduce, Some(job)) = (kind, self.jobs.get_mut(j)) {
            job.shuffle += end.moved;
        }
        if end.cross_rack {
            self.bytes.cross_rack += end.moved;
            let job = self.jobs.get_mut(j);
            match kind {
                TaskKind::Map => {
                    self.bytes.remote_map += end.moved;
                    if let Some(job) = job {
                        job.remote_map += end.moved;
                    }
                }
                TaskKind::Reduce => {
                    self.bytes.cross_rack_shuffle += end.moved;
                    if let Some(job) = job {
                        job.cross_rack_shuffle += end.moved;
                    }
                }
            }
            if let Some(out) = self.bytes.rack_out.get_mut(end.src_rack) {
                *out += end.moved;
            }
            if let Some(into) = self.bytes.rack_in.get_mut(end.dst_rack) {
                *into += end.moved;
            }
        } else {
            self.bytes.in_rack += end.moved;
        }
    }

    /// The map outputs held on the nodes' disks now total `held_bytes` over the cluster (call
    /// on every change: an output written, a job's outputs deleted or evicted).
    pub fn intermediate_changed(&mut self, held_bytes: u64) {
        self.peak_intermediate = self.peak_intermediate.max(held_bytes);
    }

    /// From `now` on, the running tasks' demands sum to `in_use` (cpu, mem, io; fractions of
    /// one node, summed over the cluster). Call on every change (a task with a demand starts,
    /// ends or is killed); the use is constant between calls. `now` never goes back.
    pub fn resources_changed(&mut self, now: f64, in_use: [f64; 3]) {
        let r = &mut self.resources;
        r.area = r.area_until(now);
        r.since_s = r.since_s.max(now);
        r.in_use = in_use;
        r.reported = true;
    }

    /// The jobs are submitted at `submits`: their span is the steady state.
    pub fn set_submissions(&mut self, submits: impl Iterator<Item = f64>) {
        let (lo, hi) =
            submits.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), t| (lo.min(t), hi.max(t)));
        self.steady = if lo <= hi { (lo, hi) } else { (0.0, 0.0) };
    }

    /// A slot of `kind` (0 map, 1 reduce), taken at `started_s`, was freed at `now`.
    pub fn slot_freed(&mut self, kind: usize, started_s: f64, now: f64) {
        self.busy[kind] += now - started_s;
        let (lo, hi) = self.steady;
        self.steady_busy[kind] += (now.min(hi) - started_s.max(lo)).max(0.0);
    }

    /// A run of job `j` was killed by preemption.
    pub fn task_preempted(&mut self, j: usize) {
        self.jobs[j].preempted += 1;
    }

    /// Map `t` of job `j` completed (with the locality of its last run).
    pub fn map_finished(&mut self, j: usize, t: usize) {
        let slot = match self.run_locality[t] {
            Locality::Node => 0,
            Locality::Rack => 1,
            Locality::Remote => 2,
            Locality::None => 3,
        };
        self.jobs[j].locality[slot] += 1;
    }

    /// Map `t` of job `j` lost its output (evicted) and must run again: its completion no
    /// longer counts.
    pub fn map_lost(&mut self, j: usize, t: usize) {
        let slot = match self.run_locality[t] {
            Locality::Node => 0,
            Locality::Rack => 1,
            Locality::Remote => 2,
            Locality::None => 3,
        };
        let c = &mut self.jobs[j].locality[slot];
        *c = c.saturating_sub(1);
    }

    /// Job `j` finished at `now`.
    pub fn job_finished(&mut self, j: usize, now: f64) {
        self.jobs[j].finish_s = Some(now);
    }

    /// A solver call at `now` whose `answer` has been applied to the state `start`; it took
    /// `snapshot_ms` to build the snapshot and `solve_ms` inside the solver (wall clock).
    /// With `window` (heartbeats) the calls of one window ⌊now / window⌋ share one row: its
    /// time and fairness distance are the first call's, pending, offered and running tasks the
    /// window's largest, its counts (the free slots the heartbeats offered, assigned,
    /// localities, preemptions, bytes) and solve time the window's sums.
    pub fn epoch_solved(
        &mut self,
        now: f64,
        start: EpochStart,
        answer: &PlaceResponse,
        snapshot_ms: f64,
        solve_ms: f64,
        window: Option<f64>,
    ) {
        let s = &answer.stats;
        let same_window =
            |last: &EpochMetrics, w: f64| (last.time_s / w).floor() == (now / w).floor();
        if let (Some(w), Some(last)) = (window, self.epochs.last_mut()) {
            if same_window(last, w) {
                last.pending = last.pending.max(start.pending);
                last.offered = last.offered.max(start.offered);
                last.running = last.running.max(start.running);
                last.free_map_slots += start.free[0];
                last.free_reduce_slots += start.free[1];
                last.assigned += answer.assignments.len() as u64;
                last.node_local += s.node_local;
                last.rack_local += s.rack_local;
                last.remote += s.remote;
                last.preempted += answer.preemptions.len() as u64;
                last.bytes_in_rack += self.bytes.in_rack - self.bytes.in_rack_recorded;
                last.bytes_cross_rack += self.bytes.cross_rack - self.bytes.cross_rack_recorded;
                for add in self.bytes.rack_window() {
                    match last.racks.binary_search_by_key(&add.rack, |r| r.rack) {
                        Ok(i) => {
                            last.racks[i].bytes_out += add.bytes_out;
                            last.racks[i].bytes_in += add.bytes_in;
                        }
                        Err(i) => last.racks.insert(i, add),
                    }
                }
                self.bytes.in_rack_recorded = self.bytes.in_rack;
                self.bytes.cross_rack_recorded = self.bytes.cross_rack;
                self.timing.snapshot_ms += snapshot_ms;
                if let Some(ms) = self.timing.solve_ms.last_mut() {
                    *ms += solve_ms;
                }
                return;
            }
        }
        self.epochs.push(EpochMetrics {
            time_s: now,
            pending: start.pending,
            offered: start.offered,
            running: start.running,
            free_map_slots: start.free[0],
            free_reduce_slots: start.free[1],
            assigned: answer.assignments.len() as u64,
            node_local: s.node_local,
            rack_local: s.rack_local,
            remote: s.remote,
            preempted: answer.preemptions.len() as u64,
            fairness_distance: s.fairness_distance,
            bytes_in_rack: self.bytes.in_rack - self.bytes.in_rack_recorded,
            bytes_cross_rack: self.bytes.cross_rack - self.bytes.cross_rack_recorded,
            racks: self.bytes.rack_window(),
        });
        self.bytes.in_rack_recorded = self.bytes.in_rack;
        self.bytes.cross_rack_recorded = self.bytes.cross_rack;
        self.timing.snapshot_ms += snapshot_ms;
        self.timing.solve_ms.push(solve_ms);
    }

    /// The report of a run that ended for `stop` after `wall_s` seconds of wall clock, with the
    /// network's cross-rack traffic `series`.
    #[allow(clippy::too_many_arguments)]
    pub fn report(
        mut self,
        stop: StopReason,
        wall_s: f64,
        series: TrafficSeries,
        cfg: &SimConfig,
        workload: &Workload,
        ix: &WorkloadIndex,
        cluster: &SimCluster,
    ) -> SimReport {
        let jobs = self.job_metrics(cfg, workload, ix, cluster);
        let mut summary = self.summary(&jobs, cluster, crate::resources::has_demands(workload));
        let racks = cluster.nodes_of_rack.len() as f64;
        let bisection_mbps = match cfg.uplink_mbps {
            Some(up) => racks * up,
            None => racks * (racks - 1.0) * cfg.cross_rack_mbps,
        };
        (summary.steady_load.cross_rack_use, summary.steady_load.cross_rack_saturated_share) =
            steady_cross_rack(&series, self.steady, bisection_mbps);
        let t = &mut self.timing;
        t.wall_s = wall_s;
        t.total_solve_ms = t.solve_ms.iter().sum();
        t.mean_solve_ms = mean(t.solve_ms.iter().copied());
        t.max_solve_ms = t.solve_ms.iter().copied().fold(0.0, f64::max);
        SimReport {
            name: cfg.name.clone(),
            algorithm: cfg.policy.algorithm,
            stop,
            jobs,
            epochs: self.epochs,
            summary,
            cross_rack_series: series,
            timing: self.timing,
        }
    }

    /// Per job, in workload order.
    fn job_metrics(
        &self,
        cfg: &SimConfig,
        workload: &Workload,
        ix: &WorkloadIndex,
        cluster: &SimCluster,
    ) -> Vec<JobMetrics> {
        let (map_slots, reduce_slots) = (cluster.total_map_slots, cluster.total_reduce_slots);
        workload
            .jobs
            .iter()
            .zip(&self.jobs)
            .zip(&ix.jobs)
            .map(|((spec, run), index)| {
                let ideal_s =
                    ideal_time_s(spec, map_slots, reduce_slots, cfg.disk_mb_s, cfg.rack_mbps);
                let response_s = run.finish_s.map(|f| f - index.submit_s);
                let goal_met = index.goal_s.map(|g| run.finish_s.is_some_and(|f| f <= g));
                let slowdown = response_s
                    .filter(|_| ideal_s > 0.0 && ideal_s.is_finite())
                    .map(|r| r / ideal_s);
                JobMetrics {
                    id: spec.id.clone(),
                    class: spec.class.clone(),
                    pool: ix.pools[index.pool].name.clone(),
                    submit_s: index.submit_s,
                    finish_s: run.finish_s,
                    response_s,
                    ideal_s,
                    slowdown,
                    maps: index.maps,
                    reduces: index.reduces,
                    maps_node_local: run.locality[0],
                    maps_rack_local: run.locality[1],
                    maps_remote: run.locality[2],
                    maps_no_preference: run.locality[3],
                    task_runs: run.runs,
                    preempted: run.preempted,
                    observed_response_s: spec.observed_finish_s.map(|f| f - index.submit_s),
                    shuffle_gb: run.shuffle / 1e9,
                    cross_rack_shuffle_gb: run.cross_rack_shuffle / 1e9,
                    remote_map_gb: run.remote_map / 1e9,
                    goal_s: index.goal_s,
                    goal_met,
                    start_s: run.first_start_s,
                    wait_s: run.first_start_s.map(|s| s - index.submit_s),
                    maps_started_s: run.last_map_start_s,
                    map_racks: run.map_racks.len(),
                    maps_at_start: run.maps_at_start,
                    gang: spec.gang.map(|g| g.min_member),
                }
            })
            .collect()
    }

    /// The totals over `jobs` (this run's [`Metrics::job_metrics`]); `demands`: whether any
    /// task of the workload has a resource demand.
    fn summary(&self, jobs: &[JobMetrics], cluster: &SimCluster, demands: bool) -> Summary {
        let (map_slots, reduce_slots) = (cluster.total_map_slots, cluster.total_reduce_slots);
        let responses: Vec<f64> = jobs.iter().filter_map(|j| j.response_s).collect();
        let first_submit = jobs.iter().map(|j| j.submit_s).fold(f64::INFINITY, f64::min);
        let last_finish = jobs.iter().filter_map(|j| j.finish_s).fold(f64::NEG_INFINITY, f64::max);
        let makespan_s =
            if last_finish.is_finite() { (last_finish - first_submit).max(0.0) } else { 0.0 };
        let [node, rack, remote, _] = jobs.iter().fold([0usize; 4], |mut acc, j| {
            acc[0] += j.maps_node_local;
            acc[1] += j.maps_rack_local;
            acc[2] += j.maps_remote;
            acc[3] += j.maps_no_preference;
            acc
        });
        let with_pref = (node + rack + remote).max(1) as f64;
        let steady = steady_state(jobs);
        let stranded = self.fragmentation.report(first_submit, self.last_event_s);
        let per = |busy: f64, slots: u64| {
            if slots == 0 || makespan_s <= 0.0 {
                0.0
            } else {
                busy / (slots as f64 * makespan_s)
            }
        };
        Summary {
            jobs: jobs.len(),
            jobs_finished: responses.len(),
            map_tasks: jobs
                .iter()
                .map(|j| {
                    j.maps_node_local + j.maps_rack_local + j.maps_remote + j.maps_no_preference
                })
                .sum(),
            node_local: node as f64 / with_pref,
            rack_local: rack as f64 / with_pref,
            remote: remote as f64 / with_pref,
            mean_response_s: mean(responses.iter().copied()),
            p95_response_s: quantile(&responses, 0.95),
            mean_slowdown: mean(jobs.iter().filter_map(|j| j.slowdown)),
            makespan_s,
            throughput_jobs_per_h: if makespan_s > 0.0 {
                responses.len() as f64 * 3600.0 / makespan_s
            } else {
                0.0
            },
            in_rack_gb: self.bytes.in_rack / 1e9,
            cross_rack_gb: self.bytes.cross_rack / 1e9,
            local_read_gb: self.bytes.local / 1e9,
            cross_rack_shuffle_gb: self.bytes.cross_rack_shuffle / 1e9,
            remote_map_gb: self.bytes.remote_map / 1e9,
            peak_intermediate_gb: self.peak_intermediate as f64 / 1e9,
            utilisation: self.utilisation(demands, first_submit, makespan_s, &cluster.capacity),
            goals: jobs.iter().filter(|j| j.goal_s.is_some()).count(),
            goals_met: jobs.iter().filter(|j| j.goal_met == Some(true)).count(),
            fairness_distance: mean(self.epochs.iter().map(|e| e.fairness_distance)),
            map_slot_utilisation: per(self.busy[0], map_slots),
            reduce_slot_utilisation: per(self.busy[1], reduce_slots),
            stranded_slot_fraction: stranded.fraction,
            stranded_slots_while_waiting: stranded.while_waiting,
            task_runs: jobs.iter().map(|j| j.task_runs).sum(),
            preemptions: jobs.iter().map(|j| j.preempted).sum(),
            events: self.events,
            epochs: self.epochs.len(),
            ticks: self.ticks,
            end_time_s: self.last_event_s,
            steady_throughput_jobs_per_h: steady.throughput_jobs_per_h,
            steady_mean_turnaround_s: steady.mean_turnaround_s,
            steady_load: self.steady_load(jobs, map_slots),
        }
    }

    /// The steady state's slot use and jobs in the system ([`SteadyLoad`]; the cross-rack
    /// shares are added by [`Metrics::report`]). A job not finished stays in the system to the
    /// run's last event. O(jobs log jobs).
    fn steady_load(&self, jobs: &[JobMetrics], map_slots: u64) -> SteadyLoad {
        let (lo, hi) = self.steady;
        let span = hi - lo;
        if span.is_nan() || span <= 0.0 {
            return SteadyLoad::default();
        }
        let end = |j: &JobMetrics| j.finish_s.unwrap_or(self.last_event_s.max(j.submit_s));
        let inside: f64 = jobs.iter().map(|j| (end(j).min(hi) - j.submit_s.max(lo)).max(0.0)).sum();
        // Pools with ≥ 2 jobs: sweep the jobs' arrivals (+1) and departures (−1) per pool.
        let mut pool_ix: std::collections::BTreeMap<&str, usize> = Default::default();
        let mut changes: Vec<(f64, i8, usize)> = Vec::with_capacity(2 * jobs.len());
        for j in jobs {
            let next = pool_ix.len();
            let p = *pool_ix.entry(j.pool.as_str()).or_insert(next);
            changes.push((j.submit_s, 1, p));
            changes.push((end(j), -1, p));
        }
        // Departures before arrivals at the same instant: a job replaced at once is not two.
        changes.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        let mut held = vec![0u32; pool_ix.len()];
        let (mut crowded, mut area, mut t) = (0u32, 0.0, lo);
        for (at, delta, p) in changes {
            let at = at.clamp(lo, hi);
            area += f64::from(crowded) * (at - t);
            t = at;
            let before = held[p] >= 2;
            held[p] = if delta > 0 { held[p] + 1 } else { held[p].saturating_sub(1) };
            crowded = crowded + u32::from(held[p] >= 2) - u32::from(before);
        }
        area += f64::from(crowded) * (hi - t);
        SteadyLoad {
            map_slot_utilisation: if map_slots > 0 {
                self.steady_busy[0] / (map_slots as f64 * span)
            } else {
                0.0
            },
            jobs_in_system: inside / span,
            pools_with_two_jobs: area / span,
            cross_rack_use: 0.0,
            cross_rack_saturated_share: 0.0,
            arrivals_jobs_per_h: jobs.len() as f64 * 3600.0 / span,
        }
    }

    /// The mean share of the cluster's capacity in use over the makespan `[first_submit,
    /// first_submit + makespan_s]`, per resource: ∫ Σ used dt / (Σ capacity · makespan), with
    /// `capacity` per node in the demands' units (on RAS's cluster 1 per node: ∫ Σ demand dt
    /// / (nodes · makespan)). `None` when the workload has no demands or the engine reported
    /// no resource use; 0 for an empty makespan or a resource no node has.
    fn utilisation(
        &self,
        demands: bool,
        first_submit: f64,
        makespan_s: f64,
        capacity: &[[f64; 3]],
    ) -> Option<ResourceUse> {
        if !demands || !self.resources.reported {
            return None;
        }
        let area = self.resources.area_until(first_submit + makespan_s);
        let per = |r: usize| {
            let total: f64 = capacity.iter().map(|c| c[r]).sum();
            if total <= 0.0 || makespan_s <= 0.0 {
                0.0
            } else {
                area[r] / (total * makespan_s)
            }
        };
        Some(ResourceUse { cpu: per(0), mem: per(1), io: per(2) })
    }
}

/// The mean cross-rack use over the time buckets of `series` that start inside `span`, as a
/// share of `bisection_mbps`, and the share of those buckets at ≥ 80% of it. (0, 0) without
/// such buckets or bisection. Example: buckets of 60 s at 480, 100 and 0 Mbit/s of a 500
/// Mbit/s bisection over [0, 150 s] → mean (0.96 + 0.2 + 0) / 3 = 0.387, saturated 1 / 3.
fn steady_cross_rack(series: &TrafficSeries, span: (f64, f64), bisection_mbps: f64) -> (f64, f64) {
    let w = series.bucket_s;
    if !(w > 0.0 && bisection_mbps > 0.0) {
        return (0.0, 0.0);
    }
    let first = (span.0 / w).ceil().max(0.0) as usize;
    let uses: Vec<f64> = (first..)
        .take_while(|&k| (k as f64) * w < span.1)
        .map(|k| series.total_bytes.get(k).copied().unwrap_or(0.0) * 8.0 / 1e6 / w)
        .map(|mbps| mbps / bisection_mbps)
        .collect();
    if uses.is_empty() {
        return (0.0, 0.0);
    }
    let n = uses.len() as f64;
    (uses.iter().sum::<f64>() / n, uses.iter().filter(|&&u| u >= 0.8).count() as f64 / n)
}

/// The steady-state measures of a run (ShuffleWatcher §4.3; module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
struct SteadyState {
    /// Jobs finished within the submission span, per hour of it.
    throughput_jobs_per_h: f64,
    /// Mean response of the finished jobs submitted in the span's middle 80%, s.
    mean_turnaround_s: f64,
}

/// The steady-state measures of `jobs`. Example: submits at 0, 100, 200, 300, 400 s (span
/// [0, 400]) and finishes at 50, 150, 380, 420, 500 s: 3 finished within the span, over
/// 400 s = 1/9 h → 27 jobs/h; the middle 80% is [40, 360]: the jobs submitted at 100, 200 and
/// 300 s, responses 50, 180 and 120 s → mean 116.67 s.
fn steady_state(jobs: &[JobMetrics]) -> SteadyState {
    let first = jobs.iter().map(|j| j.submit_s).fold(f64::INFINITY, f64::min);
    let last = jobs.iter().map(|j| j.submit_s).fold(f64::NEG_INFINITY, f64::max);
    if !(first.is_finite() && last.is_finite()) {
        return SteadyState { throughput_jobs_per_h: 0.0, mean_turnaround_s: 0.0 };
    }
    let span = (last - first).max(0.0);
    let done = jobs.iter().filter_map(|j| j.finish_s).filter(|&f| f >= first && f <= last).count();
    let throughput_jobs_per_h = if span > 0.0 { done as f64 * 3600.0 / span } else { 0.0 };
    let (lo, hi) = (first + 0.1 * span, last - 0.1 * span);
    let middle =
        jobs.iter().filter(|j| j.submit_s >= lo && j.submit_s <= hi).filter_map(|j| j.response_s);
    SteadyState { throughput_jobs_per_h, mean_turnaround_s: mean(middle) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(moved: f64, cross_rack: bool) -> FlowEnd {
        FlowEnd { task: 0, moved, cross_rack, src_rack: 0, dst_rack: 1 }
    }

    #[test]
    fn cross_rack_bytes_split_into_remote_map_input_and_shuffle() {
        // A remote map reads 3 bytes, a reduce pulls 5 across racks and 7 inside its rack.
        let mut m = Metrics::new(1, 2, 2);
        m.flow_ended(&flow(3.0, true), TaskKind::Map, 0);
        m.flow_ended(&flow(5.0, true), TaskKind::Reduce, 0);
        m.flow_ended(&flow(7.0, false), TaskKind::Reduce, 0);
        m.shuffle_read_locally(0, 11);
        let job = &m.jobs[0];
        assert_eq!((job.shuffle, job.cross_rack_shuffle, job.remote_map), (23.0, 5.0, 3.0));
        assert_eq!(m.bytes.cross_rack, 8.0);
        assert_eq!(m.bytes.remote_map, 3.0);
        assert_eq!(m.bytes.cross_rack_shuffle, 5.0);
        assert_eq!(m.bytes.in_rack, 7.0);
        assert_eq!((m.bytes.rack_out[0], m.bytes.rack_in[1]), (8.0, 8.0));
    }

    fn job(pool: &str, submit_s: f64, finish_s: Option<f64>) -> JobMetrics {
        JobMetrics {
            id: String::new(),
            class: None,
            pool: pool.into(),
            submit_s,
            finish_s,
            response_s: finish_s.map(|f| f - submit_s),
            ideal_s: 0.0,
            slowdown: None,
            maps: 0,
            reduces: 0,
            maps_node_local: 0,
            maps_rack_local: 0,
            maps_remote: 0,
            maps_no_preference: 0,
            task_runs: 0,
            preempted: 0,
            observed_response_s: None,
            shuffle_gb: 0.0,
            cross_rack_shuffle_gb: 0.0,
            remote_map_gb: 0.0,
            goal_s: None,
            goal_met: None,
            start_s: None,
            wait_s: None,
            maps_started_s: None,
            map_racks: 0,
            maps_at_start: 0,
            gang: None,
        }
    }

    #[test]
    fn steady_load_counts_the_submission_span_only() {
        // Submissions at 0, 10 and 100 s: the span is [0, 100]. Jobs in the system: a (0–50)
        // 50 s, b (10–200) 90 s inside, c (100–) 0 s → 140 / 100 = 1.4. Pool p holds a and b
        // on [10, 50]: 40 / 100 = 0.4 pools with two jobs.
        let mut m = Metrics::new(3, 0, 1);
        m.set_submissions([0.0, 10.0, 100.0].into_iter());
        // Two map slots, busy on [−10, 30] (30 s inside the span) and [90, 150] (10 s inside).
        m.slot_freed(0, -10.0, 30.0);
        m.slot_freed(0, 90.0, 150.0);
        m.event(300.0);
        let jobs = [job("p", 0.0, Some(50.0)), job("p", 10.0, Some(200.0)), job("q", 100.0, None)];
        let load = m.steady_load(&jobs, 2);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(close(load.jobs_in_system, 1.4), "{load:?}");
        assert!(close(load.pools_with_two_jobs, 0.4), "{load:?}");
        assert!(close(load.map_slot_utilisation, 40.0 / 200.0), "{load:?}");
        assert!(close(load.arrivals_jobs_per_h, 108.0), "3 jobs in 100 s: {load:?}");
        assert_eq!(m.busy[0], 100.0);
        // Everything at once: no span, no load.
        let mut m = Metrics::new(1, 0, 1);
        m.set_submissions([5.0].into_iter());
        assert_eq!(m.steady_load(&jobs[..1], 2), SteadyLoad::default());
    }

    #[test]
    fn steady_cross_rack_matches_its_example() {
        // The doc's example: 480, 100 and 0 Mbit/s of 500 over [0, 150 s].
        let mb = |mbps: f64| mbps * 1e6 / 8.0 * 60.0;
        let series = TrafficSeries {
            bucket_s: 60.0,
            shuffle_bytes: vec![0.0; 4],
            total_bytes: vec![mb(480.0), mb(100.0), 0.0, mb(500.0)],
        };
        let (mean, saturated) = steady_cross_rack(&series, (0.0, 150.0), 500.0);
        assert!((mean - 1.16 / 3.0).abs() < 1e-12 && (saturated - 1.0 / 3.0).abs() < 1e-12);
        // A span starting at 30 s skips the first bucket; no bisection, nothing.
        let (mean, _) = steady_cross_rack(&series, (30.0, 150.0), 500.0);
        assert!((mean - 0.1).abs() < 1e-12, "{mean}");
        assert_eq!(steady_cross_rack(&series, (0.0, 150.0), 0.0), (0.0, 0.0));
    }

    #[test]
    fn intermediate_data_keeps_its_peak() {
        let mut m = Metrics::new(1, 1, 1);
        for held in [10, 250, 40, 0] {
            m.intermediate_changed(held);
        }
        assert_eq!(m.peak_intermediate, 250);
    }

    #[test]
    fn resource_use_integrates_a_step_function() {
        // Σ demand (cpu, mem, io): (1, 0.5, 0) on [0, 10), (2, 1, 0.5) on [10, 20), then
        // nothing. ∫ = (10 + 20, 5 + 10, 0 + 5) = (30, 15, 5); on 5 nodes over a 20 s
        // makespan: (30, 15, 5) / 100 = (0.3, 0.15, 0.05).
        let mut m = Metrics::new(1, 1, 1);
        let nodes = |n: usize| vec![[1.0; 3]; n];
        assert_eq!(m.utilisation(true, 0.0, 20.0, &nodes(5)), None, "nothing reported");
        m.resources_changed(0.0, [1.0, 0.5, 0.0]);
        m.resources_changed(10.0, [2.0, 1.0, 0.5]);
        m.resources_changed(20.0, [0.0, 0.0, 0.0]);
        let u = m.utilisation(true, 0.0, 20.0, &nodes(5)).unwrap();
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(close(u.cpu, 0.3) && close(u.mem, 0.15) && close(u.io, 0.05), "{u:?}");
        // A use still going at the end of the makespan counts up to its end.
        let mut m = Metrics::new(1, 1, 1);
        m.resources_changed(2.0, [1.0, 1.0, 1.0]);
        let u = m.utilisation(true, 0.0, 10.0, &nodes(2)).unwrap();
        assert!(close(u.cpu, 8.0 / 20.0), "{u:?}");
        // Nodes of (1, 1, 0) and (0.5, 1, 0) capacity: cpu 8 / (1.5 · 10), mem 8 / 20, no io.
        let u = m.utilisation(true, 0.0, 10.0, &[[1.0, 1.0, 0.0], [0.5, 1.0, 0.0]]).unwrap();
        assert!(close(u.cpu, 8.0 / 15.0) && close(u.mem, 0.4) && u.io == 0.0, "{u:?}");
        // No demands in the workload: no utilisation, whatever was reported.
        assert_eq!(m.utilisation(false, 0.0, 10.0, &nodes(2)), None);
        assert_eq!(m.utilisation(true, 0.0, 0.0, &nodes(2)), Some(ResourceUse::default()));
    }
}
