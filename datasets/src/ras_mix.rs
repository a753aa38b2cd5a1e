//! RAS's workload (Polo et al., §4.1, Tables 1–2): three Gridmix applications — Sort, Combine,
//! Select — with three instances each (J1–J9), their input sizes, submission times, lengths in
//! isolation and completion-time goals, and the per-phase resource profiles of Table 2, on the
//! paper's 20 TaskTracker nodes.
//!
//! From the paper:
//! - Table 1 (J: app, input, submit, length in isolation, goal): J1 Sort 90 GB 0 s 2,500 s
//!   3,000 s; J2 Combine 5 GB 100 s 500 s 850 s; J3 Select 10 GB 200 s 400 s 1,250 s; J4 Select
//!   25 GB 350 s 280 s 1,100 s; J5 Select 5 GB 500 s 50 s 950 s; J6 Combine 13 GB 600 s 750 s
//!   2,600 s; J7 Combine 50 GB 1,100 s 2,500 s 6,000 s; J8 Sort 19 GB 2,500 s 350 s 3,400 s;
//!   J9 Sort 6 GB 3,750 s 250 s 4,250 s.
//! - The goals are times since the experiment's start, not durations: §4.3 calls J1's,
//!   J7's and J8's goals (3,000 / 6,000 / 3,400 s) "a factor of 1.2X, 1.9X and 2.5X" of their
//!   lengths in isolation, i.e. (goal − submit) / length. So `deadline_s` = goal − submit (J7:
//!   4,900 s).
//! - Table 2 (share of one TaskTracker per task, Map / Shuffle / Reduce): Sort CPU 30 / – / 20%,
//!   I/O 45 / 0.15 / 50%, memory 25 / – / 60%; Combine CPU 25 / – / 10%, I/O 10 / 0.015 / 10%,
//!   memory 10 / – / 25%; Select CPU 15 / – / 10%, I/O 20 / 0.015 / 10%, memory 10 / – / 25%.
//!   Maps carry the Map column as `demand`, reduces the Reduce column; the shuffle's I/O per
//!   map placed has no slot in the model and is in [`RasProfile::shuffle_io_per_map`].
//! - §4.2: "Combine and Select are configured to run one single reduce task per job".
//! - §4.1: 20 TaskTracker machines (2-way Xeon, 2 GB RAM, Gigabit Ethernet): one rack of 20
//!   nodes with capacity 2 CPUs, 2,048 MiB, 1 I/O unit (`gpu` = I/O, workload.rs); 4 map
//!   slots, Fig. 3's best static Fair Scheduler setting (RAS itself is slot-free).
//!
//! placer's choices where the paper is silent:
//! - Experiment 1's goals are only "highly relaxed": [`RasExperiment::One`] leaves
//!   `deadline_s` empty; [`RasExperiment::Two`] uses Table 1's.
//! - GB are GiB; blocks of 64 MiB (Hadoop 0.23's default), replication 3 (one rack: three
//!   distinct random nodes). Sort has 20 reduces (one per TaskTracker).
//! - Map output / input: Sort 1 (Gridmix sort, keepMap 100%), Combine 0.05, Select 0.002
//!   (Gridmix's scan keeps 0.2%); reduce output = its shuffle input; the output splits evenly.
//! - Compute: Table 1's length in isolation L is charged to the job's map waves when it runs
//!   alone at its own concurrency c = nodes · min over resources r of ⌊1 / Γ_map,r⌋ (Table 2:
//!   Sort 20 · ⌊1 / 0.45⌋ = 40, Combine 20 · ⌊1 / 0.25⌋ = 80, Select 20 · ⌊1 / 0.20⌋ = 100;
//!   [`RasApp::maps_per_node`]), in whole waves W = ⌈maps / c⌉, less what the simulator
//!   charges besides compute: a map's `compute_s` = (`work_scale` · L − [`JOB_TAIL_S`]) / W −
//!   [`MAP_FIXED_S`] (J1: (2,500 − 3) / ⌈1,440 / 40⌉ − 1.67 = 67.7 s). Reduces get 0 (their
//!   shuffle and write are simulated). Alone, every job then takes L within 5%
//!   (`sim/tests/ras_table1_alone.rs`).
//! - `work_scale` (default 1, Table 1's lengths): Tables 1 and 2 together ask for more work than
//!   the paper's cluster did in its runs. The cpu the maps hold, Σ_j maps_j · Γ_cpu · L_j / W_j
//!   / nodes (a map holds its slot for about a wave), is 5,950 s of the whole cluster (J1
//!   1,500, J2 500, J3 240, J4 210, J5 30, J6 650,
//!   J7 2,500, J8 199.5, J9 120), more than the paper's whole 4,614 s Experiment 2 under RAS;
//!   so is io (4,829 s). `work_scale` multiplies Table 1's lengths; at 0.684 Fair (4 slots) ends
//!   Experiment 2 at 4,792 s against the paper's 4,781 s (measured in BENCHMARKS.md), and the
//!   cpu work is 0.684 · 5,950 = 4,070 s, 85% of that makespan.
//! - Ids `J1`…`J9` (already in submit order); class = the application; one pool `default`.
//!
//! Units: seconds, bytes. Deterministic: ChaCha8 seeded with `seed` (only the replicas are
//! random). O(Σ maps · replication + nodes).

use crate::error::DatasetError;
use crate::sampling::{even_split, uniform_topology, BlockPlacer};
use crate::workload::{Capacity, Demand, JobSpec, MapSpec, PoolSpec, ReduceSpec, Workload};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const MIB: u64 = 1 << 20;
const GIB: f64 = (1u64 << 30) as f64;

/// What a map costs besides its compute in placer's simulator, s: the task start-up (1 s,
/// Hadoop 0.20's JVM launch) and a node-local read of a 64 MiB block at 100 MB/s (0.67 s).
const MAP_FIXED_S: f64 = 1.0 + 64.0 * 1_048_576.0 / 100e6;

/// What a job costs after its last map wave in placer's simulator, s: up to one 3 s epoch
/// before its reduces start computing (their start-up and the last outputs' copy overlap it).
const JOB_TAIL_S: f64 = 3.0;

/// RAS's three Gridmix applications.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RasApp {
    /// Sort.
    Sort,
    /// Combine.
    Combine,
    /// Select.
    Select,
}

/// One application's Table 2 profile, fractions of a TaskTracker.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RasProfile {
    /// Map phase demand.
    pub map: Demand,
    /// Shuffle I/O per map placed (an upper bound set by parallelCopies).
    pub shuffle_io_per_map: f64,
    /// Reduce phase demand.
    pub reduce: Demand,
}

impl RasApp {
    /// Its name (the job class).
    pub fn name(self) -> &'static str {
        match self {
            RasApp::Sort => "Sort",
            RasApp::Combine => "Combine",
            RasApp::Select => "Select",
        }
    }

    /// Table 2's profile.
    pub fn profile(self) -> RasProfile {
        let d = |cpu, io, mem| Demand { cpu, mem, io };
        match self {
            RasApp::Sort => RasProfile {
                map: d(0.30, 0.45, 0.25),
                shuffle_io_per_map: 0.0015,
                reduce: d(0.20, 0.50, 0.60),
            },
            RasApp::Combine => RasProfile {
                map: d(0.25, 0.10, 0.10),
                shuffle_io_per_map: 0.000_15,
                reduce: d(0.10, 0.10, 0.25),
            },
            RasApp::Select => RasProfile {
                map: d(0.15, 0.20, 0.10),
                shuffle_io_per_map: 0.000_15,
                reduce: d(0.10, 0.10, 0.25),
            },
        }
    }

    /// Maps of this application that fit one TaskTracker at once: min over resources r of
    /// ⌊1 / Γ_map,r⌋, with Γ_map Table 2's map demand as a fraction of the TaskTracker.
    ///
    /// # Errors
    /// None: a demand of 0 does not bound (`u32::MAX` if none does).
    ///
    /// # Examples
    /// Sort's maps are io-bound (⌊1 / 0.45⌋ = 2), Combine's cpu-bound (⌊1 / 0.25⌋ = 4),
    /// Select's io-bound (⌊1 / 0.20⌋ = 5).
    /// ```
    /// use placer_datasets::RasApp;
    /// assert_eq!(RasApp::Sort.maps_per_node(), 2);
    /// assert_eq!(RasApp::Combine.maps_per_node(), 4);
    /// assert_eq!(RasApp::Select.maps_per_node(), 5);
    /// ```
    pub fn maps_per_node(self) -> u32 {
        let m = self.profile().map;
        // The tolerance keeps an exact fraction (1 / 0.2) from flooring one below.
        [m.cpu, m.mem, m.io]
            .into_iter()
            .filter(|&d| d > 0.0)
            .map(|d| (1.0 / d + 1e-9).floor() as u32)
            .min()
            .unwrap_or(u32::MAX)
    }

    /// placer's map output / input ratio (module docs).
    pub fn output_ratio(self) -> f64 {
        match self {
            RasApp::Sort => 1.0,
            RasApp::Combine => 0.05,
            RasApp::Select => 0.002,
        }
    }
}

/// One job instance of Table 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RasJob {
    /// Label (`J1`…).
    pub label: &'static str,
    /// Application.
    pub app: RasApp,
    /// Input size, GiB.
    pub input_gib: f64,
    /// Submission time, s.
    pub submit_s: f64,
    /// Length in isolation, s.
    pub isolation_s: f64,
    /// Completion-time goal of Experiment 2, s since the experiment's start.
    pub goal_s: f64,
}

/// RAS Table 1, in submit order.
pub const RAS_TABLE1: [RasJob; 9] = [
    RasJob {
        label: "J1",
        app: RasApp::Sort,
        input_gib: 90.0,
        submit_s: 0.0,
        isolation_s: 2500.0,
        goal_s: 3000.0,
    },
    RasJob {
        label: "J2",
        app: RasApp::Combine,
        input_gib: 5.0,
        submit_s: 100.0,
        isolation_s: 500.0,
        goal_s: 850.0,
    },
    RasJob {
        label: "J3",
        app: RasApp::Select,
        input_gib: 10.0,
        submit_s: 200.0,
        isolation_s: 400.0,
        goal_s: 1250.0,
    },
    RasJob {
        label: "J4",
        app: RasApp::Select,
        input_gib: 25.0,
        submit_s: 350.0,
        isolation_s: 280.0,
        goal_s: 1100.0,
    },
    RasJob {
        label: "J5",
        app: RasApp::Select,
        input_gib: 5.0,
        submit_s: 500.0,
        isolation_s: 50.0,
        goal_s: 950.0,
    },
    RasJob {
        label: "J6",
        app: RasApp::Combine,
        input_gib: 13.0,
        submit_s: 600.0,
        isolation_s: 750.0,
        goal_s: 2600.0,
    },
    RasJob {
        label: "J7",
        app: RasApp::Combine,
        input_gib: 50.0,
        submit_s: 1100.0,
        isolation_s: 2500.0,
        goal_s: 6000.0,
    },
    RasJob {
        label: "J8",
        app: RasApp::Sort,
        input_gib: 19.0,
        submit_s: 2500.0,
        isolation_s: 350.0,
        goal_s: 3400.0,
    },
    RasJob {
        label: "J9",
        app: RasApp::Sort,
        input_gib: 6.0,
        submit_s: 3750.0,
        isolation_s: 250.0,
        goal_s: 4250.0,
    },
];

/// Which of the paper's two experiments (§4.2 relaxed goals, §4.3 tight goals).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RasExperiment {
    /// Experiment 1: "highly relaxed" goals, given as none.
    One,
    /// Experiment 2: Table 1's completion-time goals.
    Two,
}

/// Parameters of the RAS workload; [`RasSpec::paper`] is the paper's setup.
#[derive(Clone, Debug, PartialEq)]
pub struct RasSpec {
    /// Which experiment's goals.
    pub experiment: RasExperiment,
    /// Job instances (non-empty; input > 0, length > 0, goal after submit, all finite).
    pub jobs: Vec<RasJob>,
    /// TaskTracker nodes, one rack (paper: 20; ≥ 1).
    pub nodes: usize,
    /// Map slots per node (Fig. 3's best: 4).
    pub map_slots: u32,
    /// HDFS block size, bytes (placer: 64 MiB; ≥ 1).
    pub block_bytes: u64,
    /// Replicas per block (placer: 3; 1 ≤ R ≤ nodes).
    pub replication: usize,
    /// Reduces of a Sort job (placer: 20; ≥ 1). Combine and Select have 1 (§4.2).
    pub sort_reduces: usize,
    /// Multiplier of every map's compute time (> 0, finite; Table 1's lengths: 1). Module
    /// docs: Tables 1–2 ask for more work than the paper's runs did.
    pub work_scale: f64,
    /// RNG seed (replica placement).
    pub seed: u64,
}

impl RasSpec {
    /// The paper's workload for one experiment: Table 1's nine jobs on 20 nodes.
    pub fn paper(experiment: RasExperiment, seed: u64) -> Self {
        Self {
            experiment,
            jobs: RAS_TABLE1.to_vec(),
            nodes: 20,
            map_slots: 4,
            block_bytes: 64 * MIB,
            replication: 3,
            sort_reduces: 20,
            work_scale: 1.0,
            seed,
        }
    }

    fn check(&self) -> Result<(), DatasetError> {
        let invalid = |field, message: String| Err(DatasetError::InvalidSpec { field, message });
        if self.jobs.is_empty() {
            return invalid("jobs", "need at least one job".into());
        }
        for j in &self.jobs {
            let ok = j.input_gib.is_finite()
                && j.input_gib > 0.0
                && j.submit_s.is_finite()
                && j.submit_s >= 0.0
                && j.isolation_s.is_finite()
                && j.isolation_s > 0.0
                && j.goal_s.is_finite()
                && j.goal_s > j.submit_s;
            if !ok {
                return invalid(
                    "jobs",
                    format!(
                        "{}: need input > 0, submit ≥ 0, length > 0, goal > submit (finite)",
                        j.label
                    ),
                );
            }
        }
        if self.nodes == 0 {
            return invalid("nodes", "must be ≥ 1".into());
        }
        if self.block_bytes == 0 {
            return invalid("block-bytes", "must be ≥ 1".into());
        }
        if self.replication == 0 || self.replication > self.nodes {
            return invalid(
                "replication",
                format!("must be in [1, nodes] = [1, {}], got {}", self.nodes, self.replication),
            );
        }
        if self.sort_reduces == 0 {
            return invalid("sort-reduces", "must be ≥ 1".into());
        }
        if !(self.work_scale.is_finite() && self.work_scale > 0.0) {
            return invalid(
                "work-scale",
                format!("must be > 0 and finite, got {}", self.work_scale),
            );
        }
        Ok(())
    }
}

/// Generates the RAS workload: the jobs (sorted by submit time, stable), their maps with
/// Table 2 demands and HDFS replicas, reduces, and the 20-node cluster.
pub fn ras_mix(spec: &RasSpec) -> Result<Workload, DatasetError> {
    spec.check()?;
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
    let capacity = Capacity { cpu: 2.0, mem_mib: 2048.0, gpu: 1.0 };
    let topology = uniform_topology(1, spec.nodes, Some(spec.map_slots), None, Some(capacity));
    let placer = BlockPlacer::new(&topology, spec.replication);

    let mut jobs = Vec::with_capacity(spec.jobs.len());
    for j in &spec.jobs {
        let profile = j.app.profile();
        let input = ((j.input_gib * GIB).round() as u64).max(1);
        let full = input / spec.block_bytes;
        let last = input % spec.block_bytes;
        let splits: Vec<u64> = std::iter::repeat_n(spec.block_bytes, full as usize)
            .chain((last > 0).then_some(last))
            .collect();
        let concurrency = spec.nodes as u64 * u64::from(j.app.maps_per_node());
        let waves = (splits.len() as u64).div_ceil(concurrency.max(1)) as f64;
        let compute_s =
            ((spec.work_scale * j.isolation_s - JOB_TAIL_S) / waves - MAP_FIXED_S).max(0.0);
        let maps: Vec<MapSpec> = splits
            .into_iter()
            .map(|bytes| MapSpec {
                failed_attempts_s: Vec::new(),
                input_bytes: bytes,
                replicas: placer.place(&mut rng),
                compute_s,
                output_bytes: (j.app.output_ratio() * bytes as f64).round() as u64,
                demand: Some(profile.map),
                observed_host: None,
            })
            .collect();
        let shuffle: u64 = maps.iter().map(|m| m.output_bytes).sum();
        let reduces = match j.app {
            RasApp::Sort => spec.sort_reduces,
            RasApp::Combine | RasApp::Select => 1,
        };
        let reduces = even_split(shuffle, reduces)
            .into_iter()
            .map(|bytes| ReduceSpec {
                failed_attempts_s: Vec::new(),
                shuffle_bytes: bytes,
                output_bytes: bytes,
                compute_s: 0.0,
                demand: Some(profile.reduce),
            })
            .collect();
        jobs.push(JobSpec {
            gang: None,
            topology: None,
            cleanup_s: None,
            setup_s: None,
            observed_finish_s: None,
            id: j.label.to_string(),
            submit_s: j.submit_s,
            user: "gridmix".into(),
            pool: "default".into(),
            maps,
            reduces,
            deadline_s: match spec.experiment {
                RasExperiment::One => None,
                RasExperiment::Two => Some(j.goal_s - j.submit_s),
            },
            class: Some(j.app.name().to_string()),
        });
    }
    let mut w = Workload {
        measured_times: false,
        name: format!(
            "ras-mix experiment={} seed={}",
            match spec.experiment {
                RasExperiment::One => 1,
                RasExperiment::Two => 2,
            },
            spec.seed
        ),
        jobs,
        pools: vec![PoolSpec::plain("default")],
        topology: Some(topology),
    };
    w.sort_jobs();
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn ras_table1_jobs_inputs_and_goals() {
        // (label, class, maps = GiB · 16, submit, deadline = goal − submit).
        let w = ras_mix(&RasSpec::paper(RasExperiment::Two, 1)).unwrap();
        let got: Vec<(&str, &str, usize, f64, f64)> = w
            .jobs
            .iter()
            .map(|j| {
                (
                    j.id.as_str(),
                    j.class.as_deref().unwrap(),
                    j.maps.len(),
                    j.submit_s,
                    j.deadline_s.unwrap(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("J1", "Sort", 1440, 0.0, 3000.0),
                ("J2", "Combine", 80, 100.0, 750.0),
                ("J3", "Select", 160, 200.0, 1050.0),
                ("J4", "Select", 400, 350.0, 750.0),
                ("J5", "Select", 80, 500.0, 450.0),
                ("J6", "Combine", 208, 600.0, 2000.0),
                ("J7", "Combine", 800, 1100.0, 4900.0),
                ("J8", "Sort", 304, 2500.0, 900.0),
                ("J9", "Sort", 96, 3750.0, 500.0),
            ]
        );
        // §4.3's factors over the length in isolation: J1 1.2×, J7 1.96×, J8 2.57×.
        assert!((w.jobs[0].deadline_s.unwrap() / 2500.0 - 1.2).abs() < 1e-9);
        assert!((w.jobs[6].deadline_s.unwrap() / 2500.0 - 1.96).abs() < 1e-9);
        // Experiment 1: relaxed, no goals.
        let one = ras_mix(&RasSpec::paper(RasExperiment::One, 1)).unwrap();
        assert!(one.jobs.iter().all(|j| j.deadline_s.is_none()));
    }

    #[test]
    fn ras_table2_profiles_as_demands() {
        let w = ras_mix(&RasSpec::paper(RasExperiment::Two, 2)).unwrap();
        let sort = &w.jobs[0];
        assert_eq!(sort.maps[0].demand, Some(Demand { cpu: 0.30, mem: 0.25, io: 0.45 }));
        assert_eq!(sort.reduces.len(), 20);
        assert_eq!(sort.reduces[0].demand, Some(Demand { cpu: 0.20, mem: 0.60, io: 0.50 }));
        let combine = &w.jobs[1];
        assert_eq!(combine.maps[0].demand, Some(Demand { cpu: 0.25, mem: 0.10, io: 0.10 }));
        assert_eq!(combine.reduces.len(), 1);
        assert_eq!(combine.reduces[0].demand, Some(Demand { cpu: 0.10, mem: 0.25, io: 0.10 }));
        let select = &w.jobs[2];
        assert_eq!(select.maps[0].demand, Some(Demand { cpu: 0.15, mem: 0.10, io: 0.20 }));
        assert_eq!(select.reduces.len(), 1);
        assert_eq!(RasApp::Sort.profile().shuffle_io_per_map, 0.0015);
        assert_eq!(RasApp::Select.profile().shuffle_io_per_map, 0.000_15);
        // Sort shuffles all its input.
        let input: u64 = sort.maps.iter().map(|m| m.input_bytes).sum();
        assert_eq!(input, 90 << 30);
        assert_eq!(sort.reduces.iter().map(|r| r.shuffle_bytes).sum::<u64>(), input);
        // J1: 2,500 s less the 3 s tail over ⌈1,440 / (20 · 2)⌉ = 36 waves of Sort maps, less
        // the 1 s start-up and the 0.671 s read of each.
        assert!((sort.maps[0].compute_s - (2497.0 / 36.0 - 1.0 - 0.671_088_64)).abs() < 1e-9);
    }

    #[test]
    fn ras_table1_whole_waves_at_each_applications_concurrency() {
        // Per job: c = 20 · (Sort 2, Combine 4, Select 5); a wave = (L − 3 s) / ⌈maps / c⌉.
        // J1 1,440 / 40 = 36 waves; J2 80 / 80 = 1; J3 160 / 100 → 2; J4 400 / 100 = 4; J5
        // 80 / 100 → 1; J6 208 / 80 → 3; J7 800 / 80 = 10; J8 304 / 40 → 8; J9 96 / 40 → 3.
        // A map computes the wave less its 1.671 s start-up and read.
        let w = ras_mix(&RasSpec::paper(RasExperiment::Two, 1)).unwrap();
        let compute: Vec<f64> = w.jobs.iter().map(|j| j.maps[0].compute_s).collect();
        let waves = [36.0, 1.0, 2.0, 4.0, 1.0, 3.0, 10.0, 8.0, 3.0];
        for (i, (got, waves)) in compute.iter().zip(waves).enumerate() {
            let want = (RAS_TABLE1[i].isolation_s - 3.0) / waves - 1.671_088_64;
            assert!((got - want).abs() < 1e-9, "J{}: {got} against {want}", i + 1);
        }
        // J5: one wave of 50 s: 45.33 s of compute.
        assert!((compute[4] - 45.328_911_36).abs() < 1e-9);
        assert!(w.jobs.iter().all(|j| j.maps.iter().all(|m| m.compute_s == j.maps[0].compute_s)));
        // The module docs' cpu work, Σ maps · Γ_cpu · (compute + 1.671 s) / 20 nodes over the
        // time the maps hold their cpu: Σ maps · Γ_cpu · L / W / 20 = 5,949.5 s less the 3 s
        // tails, Σ maps · Γ_cpu · 3 / W / 20 = 19.4 s: 5,930.1 s.
        let cpu: f64 = w
            .jobs
            .iter()
            .flat_map(|j| &j.maps)
            .map(|m| m.demand.unwrap().cpu * (m.compute_s + MAP_FIXED_S) / 20.0)
            .sum();
        assert!((cpu - 5930.1).abs() < 0.1, "{cpu}");
        // work_scale multiplies Table 1's length before the tail and fixed costs come off.
        let spec = RasSpec { work_scale: 0.7, ..RasSpec::paper(RasExperiment::Two, 1) };
        let scaled = ras_mix(&spec).unwrap();
        let j5 = &scaled.jobs[4].maps[0];
        assert!((j5.compute_s - (0.7 * 50.0 - 3.0 - 1.671_088_64)).abs() < 1e-9);
    }

    #[test]
    fn ras_4_1_twenty_tasktrackers_and_replicas() {
        let w = ras_mix(&RasSpec::paper(RasExperiment::One, 3)).unwrap();
        let t = w.topology.as_ref().unwrap();
        assert_eq!(t.node_count(), 20);
        assert!(t
            .nodes()
            .all(|(_, n)| n.capacity == Some(Capacity { cpu: 2.0, mem_mib: 2048.0, gpu: 1.0 })
                && n.map_slots == Some(4)));
        let names: BTreeSet<&str> = t.nodes().map(|(_, n)| n.id.as_str()).collect();
        for m in w.jobs.iter().flat_map(|j| &j.maps) {
            let r: BTreeSet<&str> = m.replicas.iter().map(String::as_str).collect();
            assert_eq!(r.len(), 3);
            assert!(r.is_subset(&names));
        }
        assert!(w.jobs.windows(2).all(|p| p[0].submit_s <= p[1].submit_s));
    }

    #[test]
    fn ras_same_seed_same_workload_different_seed_differs() {
        let a = ras_mix(&RasSpec::paper(RasExperiment::Two, 5)).unwrap();
        assert_eq!(a, ras_mix(&RasSpec::paper(RasExperiment::Two, 5)).unwrap());
        assert_ne!(a, ras_mix(&RasSpec::paper(RasExperiment::Two, 6)).unwrap());
    }

    #[test]
    fn ras_invalid_specs_name_their_field() {
        let field = |s: RasSpec| match ras_mix(&s) {
            Err(DatasetError::InvalidSpec { field, .. }) => field,
            other => panic!("expected InvalidSpec, got {other:?}"),
        };
        let p = RasSpec::paper(RasExperiment::Two, 1);
        assert_eq!(field(RasSpec { jobs: vec![], ..p.clone() }), "jobs");
        let mut late = p.clone();
        late.jobs[3].goal_s = late.jobs[3].submit_s;
        assert_eq!(field(late), "jobs");
        assert_eq!(field(RasSpec { nodes: 0, ..p.clone() }), "nodes");
        assert_eq!(field(RasSpec { block_bytes: 0, ..p.clone() }), "block-bytes");
        assert_eq!(field(RasSpec { replication: 21, ..p.clone() }), "replication");
        assert_eq!(field(RasSpec { sort_reduces: 0, ..p.clone() }), "sort-reduces");
        assert_eq!(field(RasSpec { work_scale: 0.0, ..p.clone() }), "work-scale");
        assert_eq!(field(RasSpec { work_scale: f64::NAN, ..p }), "work-scale");
    }
}
