//! FAIR's delay-scheduling small-jobs experiment (Zaharia et al., §6.2.1, Table 3 and Fig. 12):
//! map-only "scan" jobs of 3, 10 or 100 maps on the Small Private Cluster (Table 1: 100 nodes
//! in 4 racks, 6 map and 4 reduce slots each), one workload per job size.
//!
//! From the paper:
//! - §6.2.1: jobs of 3, 10 and 100 map tasks, "input files of 384, 1280 or 12800 MB, since we
//!   used a block size of 128 MB": one 128 MiB block per map.
//! - §6.2.1: each job "outputs 0.5% of the records": map output = 0.005 · input. The jobs are
//!   map-only, so there are no reduces; the output is written to HDFS, not shuffled.
//! - Table 1: 100 nodes, 4 racks (25 each), 6 map and 4 reduce slots per node.
//! - §6.2.1: "each file is replicated on 2 racks" — HDFS's default three replicas, one on one
//!   rack and two on another ([`crate::replicas::hdfs_replicas`]).
//! - §6.2.1 ran "varying numbers of jobs based on the job size so as to take 10-20 minutes in
//!   total"; the delay-scheduling waits were T1 = T2 = 15 s (a scheduler setting, not part of
//!   the workload).
//!
//! placer's choices where the paper is silent (job counts and arrivals):
//! - Every job size gets the same total work, 36,000 maps (60 waves of the cluster's 600 map
//!   slots): 12,000 jobs of 3 maps, 3,600 of 10, 360 of 100.
//! - Submissions are a Poisson process at 30 task launches per second, each job launching its
//!   maps plus a setup and a cleanup task (Hadoop 0.20): mean gap = (maps + 2) / 30 s (0.167 s,
//!   0.4 s, 3.4 s; windows of 2,000, 1,440 and 1,224 s). That is 0.9 of what the cluster can
//!   launch when each of its 100 nodes takes one task per 3 s heartbeat (33.3/s), so a run
//!   keeps up with its arrivals and finishes in about the paper's 20 minutes. At the 9 s per
//!   IO-bound scan map the paper measured (§6.2.4) the 3-map workload busies 36,000 · 9 /
//!   (600 slots · 2,000 s) = 0.27 of the map slots. (A 600 s window asked for 60 maps/s, 1.8×
//!   the launch rate, and a 1,200 s one 30 maps/s, which once setup and cleanup took slots was
//!   50 launches/s for the 3-map jobs: the queue grew for the whole window.)
//! - Each map's `compute_s` is 9 s (§6.2.4's scan map time, which includes the read; the
//!   simulator adds the read on top). All jobs in pool `default`, user `scan`; ids
//!   `s{maps}-j{k}` in submit order; class `{maps}-map`.
//!
//! Units: seconds, bytes. Deterministic: ChaCha8 seeded with `seed`. O(jobs · maps ·
//! replication + nodes).

use crate::error::DatasetError;
use crate::sampling::{check_cluster, poisson_arrivals, slotted_cluster};
use crate::workload::{JobSpec, MapSpec, PoolSpec, Workload};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const MIB: u64 = 1 << 20;

/// The job sizes of §6.2.1 (maps per job).
pub const SMALL_JOB_SIZES: [usize; 3] = [3, 10, 100];

/// Maps per workload in [`SmallJobsSpec::paper`] (placer's choice: 60 waves of 600 slots).
pub const SMALL_JOBS_TOTAL_MAPS: usize = 36_000;

/// Task launches per second [`SmallJobsSpec::paper`]'s arrivals ask for (placer's choice: 0.9
/// of one launch per 3 s heartbeat on each of 100 nodes).
pub const SMALL_JOBS_LAUNCHES_PER_S: f64 = 30.0;

/// Parameters of one small-jobs workload; [`SmallJobsSpec::paper`] is the paper's setup for
/// one job size.
#[derive(Clone, Debug, PartialEq)]
pub struct SmallJobsSpec {
    /// Maps per job (paper: 3, 10 or 100; ≥ 1).
    pub maps_per_job: usize,
    /// Jobs (≥ 1).
    pub jobs: usize,
    /// Mean inter-arrival of the Poisson submissions, s (finite, > 0).
    pub mean_interarrival_s: f64,
    /// Racks (Table 1: 4; ≥ 1).
    pub racks: usize,
    /// Nodes per rack (Table 1: 25; ≥ 1).
    pub nodes_per_rack: usize,
    /// Map slots per node (Table 1: 6).
    pub map_slots: u32,
    /// Reduce slots per node (Table 1: 4).
    pub reduce_slots: u32,
    /// Block (= map input) size, bytes (paper: 128 MiB; ≥ 1).
    pub block_bytes: u64,
    /// Replicas per block (HDFS default 3; 1 ≤ R ≤ nodes).
    pub replication: usize,
    /// Fraction of the input a map outputs (paper: 0.005; in [0, 1]).
    pub keep: f64,
    /// Compute time of a map, s (placer: 9; finite, ≥ 0).
    pub map_compute_s: f64,
    /// RNG seed.
    pub seed: u64,
}

impl SmallJobsSpec {
    /// The paper's workload of `maps_per_job`-map scan jobs (see the module docs for the job
    /// count and arrival rate: ⌈36,000 / maps⌉ jobs, one every (maps + 2) / 30 s).
    pub fn paper(maps_per_job: usize, seed: u64) -> Self {
        let jobs = SMALL_JOBS_TOTAL_MAPS.div_ceil(maps_per_job.max(1));
        Self {
            maps_per_job,
            jobs,
            mean_interarrival_s: (maps_per_job + 2) as f64 / SMALL_JOBS_LAUNCHES_PER_S,
            racks: 4,
            nodes_per_rack: 25,
            map_slots: 6,
            reduce_slots: 4,
            block_bytes: 128 * MIB,
            replication: 3,
            keep: 0.005,
            map_compute_s: 9.0,
            seed,
        }
    }

    fn check(&self) -> Result<(), DatasetError> {
        let invalid = |field, message: String| Err(DatasetError::InvalidSpec { field, message });
        if self.maps_per_job == 0 {
            return invalid("maps-per-job", "must be ≥ 1".into());
        }
        if self.jobs == 0 {
            return invalid("jobs", "must be ≥ 1".into());
        }
        if !self.mean_interarrival_s.is_finite() || self.mean_interarrival_s <= 0.0 {
            return invalid(
                "mean-interarrival-s",
                format!("must be finite and > 0, got {}", self.mean_interarrival_s),
            );
        }
        check_cluster(self.racks, self.nodes_per_rack, self.replication)?;
        if self.block_bytes == 0 {
            return invalid("block-bytes", "must be ≥ 1".into());
        }
        if !(0.0..=1.0).contains(&self.keep) {
            return invalid("keep", format!("must be in [0, 1], got {}", self.keep));
        }
        if !self.map_compute_s.is_finite() || self.map_compute_s < 0.0 {
            return invalid(
                "map-compute-s",
                format!("must be finite and ≥ 0, got {}", self.map_compute_s),
            );
        }
        Ok(())
    }
}

/// Generates one small-jobs workload: map-only jobs in submit order, every map one block with
/// HDFS-placed replicas, one pool, and the cluster's topology.
pub fn small_jobs(spec: &SmallJobsSpec) -> Result<Workload, DatasetError> {
    spec.check()?;
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
    let (topology, placer) = slotted_cluster(
        spec.racks,
        spec.nodes_per_rack,
        (spec.map_slots, spec.reduce_slots),
        spec.replication,
    );
    let submits = poisson_arrivals(&mut rng, spec.jobs, spec.mean_interarrival_s);
    let output_bytes = (spec.keep * spec.block_bytes as f64).round() as u64;
    let jobs = submits
        .into_iter()
        .enumerate()
        .map(|(k, submit_s)| JobSpec {
            gang: None,
            topology: None,
            cleanup_s: None,
            setup_s: None,
            observed_finish_s: None,
            id: format!("s{}-j{k}", spec.maps_per_job),
            submit_s,
            user: "scan".into(),
            pool: "default".into(),
            maps: (0..spec.maps_per_job)
                .map(|_| MapSpec {
                    input_bytes: spec.block_bytes,
                    replicas: placer.place(&mut rng),
                    compute_s: spec.map_compute_s,
                    output_bytes,
                    ..MapSpec::default()
                })
                .collect(),
            reduces: Vec::new(),
            deadline_s: None,
            class: Some(format!("{}-map", spec.maps_per_job)),
        })
        .collect();
    Ok(Workload {
        measured_times: false,
        name: format!("small-jobs maps={} seed={}", spec.maps_per_job, spec.seed),
        jobs,
        pools: vec![PoolSpec::plain("default")],
        topology: Some(topology),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeMap, BTreeSet};

    #[test]
    fn small_jobs_three_sizes_on_100_nodes_4_racks() {
        // §6.2.1 / Table 1: 3-, 10-, 100-map jobs; 384 / 1280 / 12800 MiB per job; 100 nodes
        // in 4 racks of 25 with 6 map and 4 reduce slots; 36,000 maps per workload.
        for (maps, jobs, mib) in [(3, 12_000, 384), (10, 3_600, 1280), (100, 360, 12_800)] {
            let w = small_jobs(&SmallJobsSpec::paper(maps, 1)).unwrap();
            let t = w.topology.as_ref().unwrap();
            assert_eq!(t.racks.len(), 4);
            assert!(t.racks.iter().all(|r| r.nodes.len() == 25));
            assert!(t.nodes().all(|(_, n)| n.map_slots == Some(6) && n.reduce_slots == Some(4)));
            assert_eq!(w.jobs.len(), jobs);
            assert_eq!(w.maps(), 36_000);
            assert_eq!(w.reduces(), 0);
            for j in &w.jobs {
                assert_eq!(j.maps.len(), maps);
                let input: u64 = j.maps.iter().map(|m| m.input_bytes).sum();
                assert_eq!(input, mib << 20);
                assert_eq!(j.class.as_deref(), Some(format!("{maps}-map").as_str()));
            }
            // 0.5% of a 128 MiB block.
            assert_eq!(w.jobs[0].maps[0].output_bytes, 671_089);
        }
    }

    #[test]
    fn small_jobs_replicas_on_two_racks() {
        // "each file is replicated on 2 racks": 3 distinct existing nodes, on exactly 2 racks.
        let w = small_jobs(&SmallJobsSpec::paper(10, 4)).unwrap();
        let t = w.topology.as_ref().unwrap();
        let rack: BTreeMap<&str, usize> = t.nodes().map(|(r, n)| (n.id.as_str(), r)).collect();
        for m in w.jobs.iter().flat_map(|j| &j.maps) {
            let nodes: BTreeSet<&str> = m.replicas.iter().map(String::as_str).collect();
            assert_eq!(nodes.len(), 3);
            assert!(nodes.iter().all(|n| rack.contains_key(n)));
            let racks: BTreeSet<usize> = nodes.iter().map(|n| rack[n]).collect();
            assert_eq!(racks.len(), 2);
        }
    }

    #[test]
    fn small_jobs_same_seed_same_workload_different_seed_differs() {
        let a = small_jobs(&SmallJobsSpec::paper(100, 5)).unwrap();
        assert_eq!(a, small_jobs(&SmallJobsSpec::paper(100, 5)).unwrap());
        assert_ne!(a, small_jobs(&SmallJobsSpec::paper(100, 6)).unwrap());
    }

    #[test]
    fn small_jobs_poisson_at_30_launches_per_s() {
        // 3,600 ten-map jobs, each 12 launches: mean gap 12 / 30 = 0.4 s; the mean of
        // k = 3,599 gaps has σ = gap / √k, so ±4σ ≈ ±6.7% of the gap.
        let spec = SmallJobsSpec::paper(10, 9);
        assert_eq!(spec.mean_interarrival_s, 0.4);
        let w = small_jobs(&spec).unwrap();
        assert!(w.jobs.windows(2).all(|p| p[0].submit_s <= p[1].submit_s));
        let k = (w.jobs.len() - 1) as f64;
        let mean = w.jobs.last().unwrap().submit_s / k;
        let tol = 4.0 * spec.mean_interarrival_s / k.sqrt();
        assert!((mean - spec.mean_interarrival_s).abs() <= tol, "{mean}");
    }

    #[test]
    fn small_jobs_invalid_specs_name_their_field() {
        let field = |s: SmallJobsSpec| match small_jobs(&s) {
            Err(DatasetError::InvalidSpec { field, .. }) => field,
            other => panic!("expected InvalidSpec, got {other:?}"),
        };
        let p = SmallJobsSpec::paper(3, 1);
        assert_eq!(field(SmallJobsSpec { maps_per_job: 0, ..p.clone() }), "maps-per-job");
        assert_eq!(field(SmallJobsSpec { jobs: 0, ..p.clone() }), "jobs");
        assert_eq!(
            field(SmallJobsSpec { mean_interarrival_s: 0.0, ..p.clone() }),
            "mean-interarrival-s"
        );
        assert_eq!(field(SmallJobsSpec { racks: 0, ..p.clone() }), "racks");
        assert_eq!(field(SmallJobsSpec { replication: 0, ..p.clone() }), "replication");
        assert_eq!(field(SmallJobsSpec { keep: 1.5, ..p.clone() }), "keep");
        assert_eq!(field(SmallJobsSpec { map_compute_s: -1.0, ..p }), "map-compute-s");
    }
}
