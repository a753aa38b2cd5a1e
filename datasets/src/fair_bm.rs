//! FAIR's multi-user macrobenchmark BM (Zaharia et al., §6.1 and Table 2): 50 loadgen jobs in
//! the 9 size bins of Facebook's job-size distribution, submitted by a Poisson process, on the
//! paper's EC2 cluster (Table 1: 100 nodes, 4 map and 2 reduce slots each).
//!
//! From the paper:
//! - Table 2, per bin: the representative size (maps) and the number of jobs in BM — bin 0:
//!   16 maps × 29 jobs, 1: 40 × 5, 2: 80 × 4, 3: 160 × 4, 4: 320 × 3, 5: 600 × 2, 6: 1200 × 1,
//!   7: 2400 × 1, 8: 6400 × 1 (50 jobs, 13,784 maps).
//! - §6.1: "Jobs were submitted roughly every 30s by a Poisson process" — mean inter-arrival
//!   30 s (the 25 minutes of submissions = 50 × 30 s). A 14 s figure sometimes quoted is not
//!   this paper's; placer uses 30 s.
//! - §6.1: "For each job, we set number of reducers to 5% to 25% of the number of maps":
//!   reduces = max(1, round(f · maps)), f uniform in [0.05, 0.25] per job.
//! - §6: "a block size of 128 MB": one 128 MiB block per map.
//! - §6.1: random keepMap/keepReduce and CPU work, "maps took between 9s and 60s".
//!
//! placer's choices where the paper is silent:
//! - keepMap and keepReduce are log-uniform in [0.1%, 100%] per job (the scan and sort ends
//!   the paper names for loadgen, §6): map output = keepMap · input; the job's map output is
//!   split evenly over its reduces; reduce output = keepReduce · shuffle.
//! - CPU work: each job draws c uniform in [9, 60] s per 128 MiB block; a map's `compute_s` is
//!   c · input / block and a reduce's is c · shuffle / block (the same per-record work,
//!   §6: mappers and reducers made "more CPU-intensive"). The paper's 9–60 s includes the
//!   read; placer stores it as compute and lets the simulator add the read.
//! - Pools: the paper does not say how BM's jobs map to pools; FAIR creates "one pool per user"
//!   (§3) and BM is a multi-user benchmark, so job k goes to pool (and user) `u{k mod users}`
//!   with `users` = 50 by default: one pool per job, weight 1, no min share.
//! - Order: the 50 jobs are shuffled and then given the Poisson times in order; ids `bm-j{k}`
//!   in submit order; class = the Table 2 bin label `bin{b}`.
//! - Topology: EC2 gives none (§6: "topology information is not provided by EC2", nodes
//!   "able to send 1 Gbps to each other"), so one rack `r0` of 100 nodes; replication 3 with
//!   [`crate::replicas::hdfs_replicas`] (on one rack: three distinct random nodes).
//!
//! Units: seconds, bytes. Deterministic: ChaCha8 seeded with `seed`. O(Σ maps · replication +
//! Σ reduces + nodes).

use crate::error::DatasetError;
use crate::sampling::{check_cluster, even_split, log_uniform, poisson_arrivals, slotted_cluster};
use crate::workload::{JobSpec, MapSpec, PoolSpec, ReduceSpec, Workload};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const MIB: u64 = 1 << 20;

/// One size bin of BM (a row of FAIR's Table 2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BmBin {
    /// Bin number (the label is `bin{bin}`).
    pub bin: u32,
    /// Maps of every job in the bin ("Size in BM").
    pub maps: usize,
    /// Jobs of the bin ("Jobs in BM").
    pub jobs: usize,
}

/// FAIR Table 2's BM columns: (bin, size in BM, jobs in BM).
pub const FAIR_TABLE2: [BmBin; 9] = [
    BmBin { bin: 0, maps: 16, jobs: 29 },
    BmBin { bin: 1, maps: 40, jobs: 5 },
    BmBin { bin: 2, maps: 80, jobs: 4 },
    BmBin { bin: 3, maps: 160, jobs: 4 },
    BmBin { bin: 4, maps: 320, jobs: 3 },
    BmBin { bin: 5, maps: 600, jobs: 2 },
    BmBin { bin: 6, maps: 1200, jobs: 1 },
    BmBin { bin: 7, maps: 2400, jobs: 1 },
    BmBin { bin: 8, maps: 6400, jobs: 1 },
];

/// Parameters of BM; [`FairBmSpec::paper`] is the paper's setup.
#[derive(Clone, Debug, PartialEq)]
pub struct FairBmSpec {
    /// Size bins (non-empty; each with ≥ 1 map; at least one job in all).
    pub bins: Vec<BmBin>,
    /// Mean inter-arrival of the Poisson submissions, s (finite, > 0; paper: 30).
    pub mean_interarrival_s: f64,
    /// Fewest reduces as a fraction of maps (paper: 0.05).
    pub min_reduce_fraction: f64,
    /// Most reduces as a fraction of maps (paper: 0.25; ≥ the minimum, ≤ 1).
    pub max_reduce_fraction: f64,
    /// Block (= map input split) size, bytes (paper: 128 MiB; ≥ 1).
    pub block_bytes: u64,
    /// Least CPU time per block, s (paper: 9).
    pub min_block_compute_s: f64,
    /// Most CPU time per block, s (paper: 60; ≥ the least).
    pub max_block_compute_s: f64,
    /// Least keepMap / keepReduce fraction (placer: 0.001; > 0).
    pub min_keep: f64,
    /// Most keepMap / keepReduce fraction (placer: 1.0; ≥ the least, ≤ 1).
    pub max_keep: f64,
    /// Users, one pool each; job k goes to `u{k mod users}` (placer: 50, ≥ 1).
    pub users: usize,
    /// Racks (EC2: 1, ≥ 1).
    pub racks: usize,
    /// Nodes per rack (Table 1 EC2: 100, ≥ 1).
    pub nodes_per_rack: usize,
    /// Map slots per node (Table 1 EC2: 4).
    pub map_slots: u32,
    /// Reduce slots per node (Table 1 EC2: 2).
    pub reduce_slots: u32,
    /// Replicas per block (HDFS default 3; 1 ≤ R ≤ nodes).
    pub replication: usize,
    /// RNG seed.
    pub seed: u64,
}

impl FairBmSpec {
    /// The paper's BM: Table 2's bins, Poisson arrivals every 30 s on average, 5–25% reduces,
    /// 128 MiB blocks, 9–60 s per map, on 100 EC2 nodes with 4 map and 2 reduce slots.
    pub fn paper(seed: u64) -> Self {
        Self {
            bins: FAIR_TABLE2.to_vec(),
            mean_interarrival_s: 30.0,
            min_reduce_fraction: 0.05,
            max_reduce_fraction: 0.25,
            block_bytes: 128 * MIB,
            min_block_compute_s: 9.0,
            max_block_compute_s: 60.0,
            min_keep: 0.001,
            max_keep: 1.0,
            users: 50,
            racks: 1,
            nodes_per_rack: 100,
            map_slots: 4,
            reduce_slots: 2,
            replication: 3,
            seed,
        }
    }

    fn check(&self) -> Result<(), DatasetError> {
        let invalid = |field, message: String| Err(DatasetError::InvalidSpec { field, message });
        if self.bins.is_empty() || self.bins.iter().all(|b| b.jobs == 0) {
            return invalid("bins", "need at least one job".into());
        }
        if let Some(b) = self.bins.iter().find(|b| b.maps == 0) {
            return invalid("bins", format!("bin {} has 0 maps per job", b.bin));
        }
        if !self.mean_interarrival_s.is_finite() || self.mean_interarrival_s <= 0.0 {
            return invalid(
                "mean-interarrival-s",
                format!("must be finite and > 0, got {}", self.mean_interarrival_s),
            );
        }
        if !(0.0..=1.0).contains(&self.min_reduce_fraction) {
            return invalid(
                "min-reduce-fraction",
                format!("must be in [0, 1], got {}", self.min_reduce_fraction),
            );
        }
        if !(self.min_reduce_fraction..=1.0).contains(&self.max_reduce_fraction) {
            return invalid(
                "max-reduce-fraction",
                format!(
                    "must be in [min-reduce-fraction, 1] = [{}, 1], got {}",
                    self.min_reduce_fraction, self.max_reduce_fraction
                ),
            );
        }
        if self.block_bytes == 0 {
            return invalid("block-bytes", "must be ≥ 1".into());
        }
        if !self.min_block_compute_s.is_finite() || self.min_block_compute_s < 0.0 {
            return invalid(
                "min-block-compute-s",
                format!("must be finite and ≥ 0, got {}", self.min_block_compute_s),
            );
        }
        if !self.max_block_compute_s.is_finite()
            || self.max_block_compute_s < self.min_block_compute_s
        {
            return invalid(
                "max-block-compute-s",
                format!(
                    "must be finite and ≥ min-block-compute-s ({}), got {}",
                    self.min_block_compute_s, self.max_block_compute_s
                ),
            );
        }
        if !(self.min_keep > 0.0 && self.min_keep <= 1.0) {
            return invalid("min-keep", format!("must be in (0, 1], got {}", self.min_keep));
        }
        if !(self.min_keep..=1.0).contains(&self.max_keep) {
            return invalid(
                "max-keep",
                format!("must be in [min-keep, 1] = [{}, 1], got {}", self.min_keep, self.max_keep),
            );
        }
        if self.users == 0 {
            return invalid("users", "must be ≥ 1".into());
        }
        check_cluster(self.racks, self.nodes_per_rack, self.replication)?;
        Ok(())
    }
}

/// Generates BM: jobs in submit order with their maps (one block each, replicas on distinct
/// nodes) and reduces, one pool per user, and the cluster's topology.
pub fn fair_bm(spec: &FairBmSpec) -> Result<Workload, DatasetError> {
    spec.check()?;
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
    let (topology, placer) = slotted_cluster(
        spec.racks,
        spec.nodes_per_rack,
        (spec.map_slots, spec.reduce_slots),
        spec.replication,
    );

    let mut order: Vec<BmBin> =
        spec.bins.iter().flat_map(|b| std::iter::repeat_n(*b, b.jobs)).collect();
    order.shuffle(&mut rng);
    let submits = poisson_arrivals(&mut rng, order.len(), spec.mean_interarrival_s);

    let block = spec.block_bytes as f64;
    let mut jobs = Vec::with_capacity(order.len());
    for (k, (bin, submit_s)) in order.iter().zip(submits).enumerate() {
        let per_block_s = rng.random_range(spec.min_block_compute_s..=spec.max_block_compute_s);
        let keep_map = log_uniform(&mut rng, spec.min_keep, spec.max_keep);
        let keep_reduce = log_uniform(&mut rng, spec.min_keep, spec.max_keep);
        let fraction = rng.random_range(spec.min_reduce_fraction..=spec.max_reduce_fraction);
        let reduces = ((fraction * bin.maps as f64).round() as usize).max(1);

        let maps: Vec<MapSpec> = (0..bin.maps)
            .map(|_| MapSpec {
                input_bytes: spec.block_bytes,
                replicas: placer.place(&mut rng),
                compute_s: per_block_s,
                output_bytes: (keep_map * block).round() as u64,
                ..MapSpec::default()
            })
            .collect();
        let shuffle: u64 = maps.iter().map(|m| m.output_bytes).sum();
        let reduces = even_split(shuffle, reduces)
            .into_iter()
            .map(|bytes| ReduceSpec {
                failed_attempts_s: Vec::new(),
                shuffle_bytes: bytes,
                output_bytes: (keep_reduce * bytes as f64).round() as u64,
                compute_s: per_block_s * bytes as f64 / block,
                demand: None,
            })
            .collect();
        let user = format!("u{}", k % spec.users);
        jobs.push(JobSpec {
            gang: None,
            topology: None,
            cleanup_s: None,
            setup_s: None,
            observed_finish_s: None,
            id: format!("bm-j{k}"),
            submit_s,
            user: user.clone(),
            pool: user,
            maps,
            reduces,
            deadline_s: None,
            class: Some(format!("bin{}", bin.bin)),
        });
    }
    let pools =
        (0..spec.users.min(jobs.len())).map(|u| PoolSpec::plain(&format!("u{u}"))).collect();
    Ok(Workload {
        measured_times: false,
        name: format!("fair-bm seed={}", spec.seed),
        jobs,
        pools,
        topology: Some(topology),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn count_by_class(w: &Workload) -> BTreeMap<String, (usize, usize)> {
        let mut out = BTreeMap::new();
        for j in &w.jobs {
            let e = out.entry(j.class.clone().unwrap()).or_insert((0, j.maps.len()));
            e.0 += 1;
            assert_eq!(e.1, j.maps.len(), "one size per bin");
        }
        out
    }

    #[test]
    fn fair_table2_bin_counts() {
        // Table 2 "Size in BM" / "Jobs in BM", 50 jobs, 13,784 maps.
        let w = fair_bm(&FairBmSpec::paper(1)).unwrap();
        let want: BTreeMap<String, (usize, usize)> = [
            (0, 29, 16),
            (1, 5, 40),
            (2, 4, 80),
            (3, 4, 160),
            (4, 3, 320),
            (5, 2, 600),
            (6, 1, 1200),
            (7, 1, 2400),
            (8, 1, 6400),
        ]
        .into_iter()
        .map(|(b, jobs, maps)| (format!("bin{b}"), (jobs, maps)))
        .collect();
        assert_eq!(count_by_class(&w), want);
        assert_eq!(w.jobs.len(), 50);
        assert_eq!(w.maps(), 13_784);
    }

    #[test]
    fn fair_6_1_reducers_5_to_25_percent_of_maps() {
        let w = fair_bm(&FairBmSpec::paper(2)).unwrap();
        for j in &w.jobs {
            let m = j.maps.len() as f64;
            let r = j.reduces.len() as f64;
            assert!(r >= 1.0);
            assert!(r >= (0.05 * m).round().max(1.0) && r <= (0.25 * m).round(), "{m} {r}");
            // The map output is exactly what the reduces pull.
            let out: u64 = j.maps.iter().map(|m| m.output_bytes).sum();
            assert_eq!(out, j.reduces.iter().map(|r| r.shuffle_bytes).sum::<u64>());
            for m in &j.maps {
                assert_eq!(m.input_bytes, 128 << 20);
                assert!((9.0..=60.0).contains(&m.compute_s));
            }
        }
    }

    #[test]
    fn fair_table1_ec2_cluster_and_replicas() {
        let w = fair_bm(&FairBmSpec::paper(3)).unwrap();
        let t = w.topology.as_ref().unwrap();
        assert_eq!(t.node_count(), 100);
        assert!(t.nodes().all(|(_, n)| n.map_slots == Some(4) && n.reduce_slots == Some(2)));
        let names: std::collections::BTreeSet<&str> =
            t.nodes().map(|(_, n)| n.id.as_str()).collect();
        for m in w.jobs.iter().flat_map(|j| &j.maps) {
            assert_eq!(m.replicas.len(), 3);
            let distinct: std::collections::BTreeSet<&str> =
                m.replicas.iter().map(String::as_str).collect();
            assert_eq!(distinct.len(), 3);
            assert!(distinct.is_subset(&names));
        }
        // One pool per job (user) by default.
        assert_eq!(w.pools.len(), 50);
        let pools: std::collections::BTreeSet<&str> =
            w.jobs.iter().map(|j| j.pool.as_str()).collect();
        assert_eq!(pools.len(), 50);
    }

    #[test]
    fn fair_bm_same_seed_same_workload_different_seed_differs() {
        let a = fair_bm(&FairBmSpec::paper(7)).unwrap();
        assert_eq!(a, fair_bm(&FairBmSpec::paper(7)).unwrap());
        assert_ne!(a, fair_bm(&FairBmSpec::paper(8)).unwrap());
    }

    #[test]
    fn fair_6_1_poisson_every_30_s() {
        // Submits sorted, the first at 0. The mean of k exponential gaps has standard
        // deviation 30 / √k; over 40 seeds × 49 gaps (k = 1,960, σ ≈ 0.68 s) a 4σ band is
        // ±2.71 s.
        let mut sum = 0.0;
        let mut k = 0usize;
        for seed in 0..40 {
            let w = fair_bm(&FairBmSpec::paper(seed)).unwrap();
            assert_eq!(w.jobs[0].submit_s, 0.0);
            assert!(w.jobs.windows(2).all(|p| p[0].submit_s <= p[1].submit_s));
            sum += w.jobs.last().unwrap().submit_s;
            k += w.jobs.len() - 1;
        }
        let mean = sum / k as f64;
        let tol = 4.0 * 30.0 / (k as f64).sqrt();
        assert!((mean - 30.0).abs() <= tol, "mean gap {mean} outside 30 ± {tol}");
    }

    #[test]
    fn fair_bm_invalid_specs_name_their_field() {
        let field = |s: FairBmSpec| match fair_bm(&s) {
            Err(DatasetError::InvalidSpec { field, .. }) => field,
            other => panic!("expected InvalidSpec, got {other:?}"),
        };
        let p = FairBmSpec::paper(1);
        assert_eq!(field(FairBmSpec { bins: vec![], ..p.clone() }), "bins");
        assert_eq!(
            field(FairBmSpec { mean_interarrival_s: f64::NAN, ..p.clone() }),
            "mean-interarrival-s"
        );
        assert_eq!(
            field(FairBmSpec { max_reduce_fraction: 0.01, ..p.clone() }),
            "max-reduce-fraction"
        );
        assert_eq!(field(FairBmSpec { block_bytes: 0, ..p.clone() }), "block-bytes");
        assert_eq!(field(FairBmSpec { min_keep: 0.0, ..p.clone() }), "min-keep");
        assert_eq!(field(FairBmSpec { users: 0, ..p.clone() }), "users");
        assert_eq!(field(FairBmSpec { replication: 101, ..p.clone() }), "replication");
        assert_eq!(field(FairBmSpec { max_block_compute_s: 1.0, ..p }), "max-block-compute-s");
    }
}
