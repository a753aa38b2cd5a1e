//! What a run measures while it runs, and the report built from it at the end (DESIGN.md
//! §What-if simulator "Metrics: node/rack/remote locality, bytes moved in-rack and cross-rack,
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
//! solver call. O(1) per call; the report is O(jobs + epochs) plus the sort of the response
//! times for the p95.

use crate::cluster::SimCluster;
use crate::config::SimConfig;
use crate::ideal::ideal_time_s;
use crate::network::FlowEnd;
use crate::report::{
    mean, quantile, EpochMetrics, JobMetrics, RackTraffic, SimReport, StopReason, Summary,
    WallTiming,
};
use crate::workload_index::WorkloadIndex;
use placer_datasets::Workload;
use placer_models::{Locality, PlaceResponse};

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
}

/// Bytes read and moved so far.
#[derive(Clone, Debug, Default)]
struct Bytes {
    in_rack: f64,
    cross_rack: f64,
    local: f64,
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

/// A run's measurements, accumulated as it goes.
#[derive(Clone, Debug)]
pub(crate) struct Metrics {
    jobs: Vec<JobCounts>,
    /// Locality of each task's current (or last) run; reduces have `None`.
    run_locality: Vec<Locality>,
    bytes: Bytes,
    /// Busy slot-seconds per kind.
    busy: [f64; 2],
    events: u64,
    /// Time of the last event that counted (stale flow and task ends do not).
    last_event_s: f64,
    ticks: u64,
    epochs: Vec<EpochMetrics>,
    timing: WallTiming,
    /// Jobs whose intermediate data was evicted, with multiplicity.
    evictions: usize,
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
            events: 0,
            last_event_s: 0.0,
            ticks: 0,
            epochs: Vec::new(),
            timing: WallTiming::default(),
            evictions: 0,
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

    /// Task `t` of job `j` started a run with `locality` (`None` for reduces).
    pub fn task_started(&mut self, j: usize, t: usize, locality: Locality) {
        self.jobs[j].runs += 1;
        self.run_locality[t] = locality;
    }

    /// `bytes` read from the disk of the node a task runs on.
    pub fn read_local(&mut self, bytes: u64) {
        self.bytes.local += bytes as f64;
    }

    /// A flow ended, finished or cancelled, having moved `end.moved` bytes.
    pub fn flow_ended(&mut self, end: &FlowEnd) {
        if end.cross_rack {
            self.bytes.cross_rack += end.moved;
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

    /// A slot of `kind` (0 map, 1 reduce) was freed after `busy_s` seconds of use.
    pub fn slot_freed(&mut self, kind: usize, busy_s: f64) {
        self.busy[kind] += busy_s;
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

    /// Job `j`'s intermediate data was evicted (FAIR §5.4).
    pub fn evicted(&mut self, _j: usize) {
        self.evictions += 1;
    }

    /// The map outputs held on disks now total `held_bytes`.
    pub fn intermediate_changed(&mut self, _held_bytes: u64) {}

    /// From `now` on the cluster uses `in_use` (cpu, mem, io; in nodes' worth).
    pub fn resources_changed(&mut self, _now: f64, _in_use: [f64; 3]) {}

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

    /// The report of a run that ended for `stop` after `wall_s` seconds of wall clock.
    pub fn report(
        mut self,
        stop: StopReason,
        wall_s: f64,
        cfg: &SimConfig,
        workload: &Workload,
        ix: &WorkloadIndex,
        cluster: &SimCluster,
    ) -> SimReport {
        let jobs = self.job_metrics(cfg, workload, ix, cluster);
        let summary = self.summary(&jobs, cluster);
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
                }
            })
            .collect()
    }

    /// The totals over `jobs` (this run's [`Metrics::job_metrics`]).
    fn summary(&self, jobs: &[JobMetrics], cluster: &SimCluster) -> Summary {
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
            fairness_distance: mean(self.epochs.iter().map(|e| e.fairness_distance)),
            map_slot_utilisation: per(self.busy[0], map_slots),
            reduce_slot_utilisation: per(self.busy[1], reduce_slots),
            task_runs: jobs.iter().map(|j| j.task_runs).sum(),
            preemptions: jobs.iter().map(|j| j.preempted).sum(),
            events: self.events,
            epochs: self.epochs.len(),
            ticks: self.ticks,
            end_time_s: self.last_event_s,
        }
    }
}
