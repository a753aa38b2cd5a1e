//! ShuffleWatcher's multi-tenant job mix (Ahmad et al., §4 and Tables 1–3): PUMA/Hadoop
//! benchmarks in Table 1's proportions, input sizes in Table 2's distribution, 30 users with
//! exponential inter-arrivals of 40 s on the paper's 100-node EC2 testbed split into 10
//! sub-clusters (racks) of 10 nodes.
//!
//! From the paper:
//! - Table 1 (benchmark, share of jobs): Shuffle-heavy terasort 5%, ranked-inverted-index 10%,
//!   self-join 10%, word-sequence-count 10%, adjacency-list 5%; Shuffle-medium inverted-index
//!   10%, term-vector 10%; Shuffle-light grep 15%, wordcount 10%, classification 5%,
//!   histogram-movies 5%, histogram-ratings 5% (§5.5's default mix2: 40 / 20 / 40%).
//! - Table 2 (input size, share of jobs): < 100 MB 20%, 100 MB–1 GB 19%, 1–20 GB 21%,
//!   20–100 GB 10%, 100–200 GB 10%, 200–500 GB 7%, 500 GB–1 TB 8%, > 1 TB 5%.
//! - §3.1: Shuffle-heavy means ShuffleInputRatio (shuffle / map input) > 1.0.
//! - §4.3: 30 users, exponential inter-arrivals with mean 40 s, 4 hours steady state; §5.4:
//!   12 jobs per user by default — 360 jobs (= 4 h / 40 s).
//! - §4.1–4.2: 100 nodes in 10 sub-clusters of 10; 4 map and 2 reduce slots per node; HDFS
//!   blocks of 64 MB, replication 3; within a sub-cluster ~250 Mbit/s per node, across
//!   sub-clusters 500 Mbit/s aggregate (50 Mbit/s per node): [`SW_RACK_MBPS`],
//!   [`SW_CROSS_RACK_MBPS`] (the [`Workload`] model has no bandwidths; the simulator takes
//!   these).
//!
//! placer's choices where the paper is silent:
//! - Shuffle ratios per class (the paper gives none per benchmark): heavy = 1.1 (just above
//!   §3.1's threshold; terasort's is about 1); medium and light follow Table 3's total
//!   shuffle volumes under the Fair Scheduler (1261 / 70 / 13 GB) per share of jobs (40 / 20 /
//!   40%), assuming the same input sizes per class: medium = heavy · (70/0.2)/(1261/0.4) ≈
//!   0.122, light = heavy · (13/0.4)/(1261/0.4) ≈ 0.0113. Reduce output = its shuffle input.
//! - Table 2's open ends: the first bin starts at 10 MB, the last ends at 2 TB; sizes are
//!   log-uniform within a bin; MB/GB/TB are decimal. Table 2 as printed averages ~170 GB per
//!   job (~62 TB per run, ~0.9M maps), far above Table 3's totals (1261 GB of heavy shuffle
//!   suggests ~1/20 of that): `input_scale` multiplies every size (paper(): 1.0, as printed).
//! - Exact counts: Table 1's and Table 2's shares are apportioned to the job count by largest
//!   remainders (360 jobs: 72 / 68 / 76 / 36 / 36 / 25 / 29 / 18 per size bin) and shuffled
//!   independently; each user gets exactly `jobs_per_user` jobs in random order; pool = user
//!   `u{i}` (per-user fairness, §5.4), weight 1.
//! - Reduces per job: ⌈shuffle / `reduce_input_bytes`⌉ (1 GiB) clamped to [1, `max_reduces`]
//!   (200 = the cluster's reduce slots); the shuffle splits evenly.
//! - Input layout ([`InputLayout`]): the paper does not say how its inputs were written;
//!   placer's default is HDFS's uniform first replica per block (`Hdfs`); `WriterRack` and
//!   `WriterNode` put every block's first replica on one rack or node per job.
//! - Compute: 10 s per full map block (pro rata for the last, short one), 10 s per GiB a
//!   reduce pulls. Under [`SwCompute::PerBenchmark`] a map's compute follows its benchmark's
//!   kind, with the mix's mean unchanged. The paper gives no per-benchmark costs; PUMA
//!   describes its benchmarks only as of high or low computation. placer's relative weights
//!   per block: a Shuffle-heavy map emits at least its input and does little per record, so it
//!   is bound by writing its output (terasort's map is the identity, 0.2; self-join 0.3;
//!   ranked-inverted-index and adjacency-list 0.4; word-sequence-count 0.5); the medium ones
//!   index (inverted-index 1.0, term-vector 1.25); the light ones compute per record and emit
//!   little (grep 1.0; wordcount, which tokenises and combines, and the two histograms 2.0;
//!   classification, a distance to every centroid, 4.0).
//! - Load: §4.3 set the 40 s gap "to utilize the cluster maximally", a property of its
//!   testbed and jobs rather than a constant. `target_utilisation` = ρ sets the mean gap so
//!   the maps offer ρ of the map slots' time ([`target_gap_s`]); the draws are those of a
//!   unit gap, scaled, so the jobs do not change with ρ.
//! - Ids `sw-j{k}` in submit order; class = the benchmark name ([`sw_shuffle_class`] gives its
//!   Table 1 class).
//!
//! Units: seconds, bytes. Deterministic: ChaCha8 seeded with `seed`. O(Σ maps · replication +
//! Σ reduces + nodes).

use crate::error::DatasetError;
use crate::replicas::InputLayout;
use crate::sampling::{
    apportion, check_cluster, even_split, log_uniform, poisson_arrivals, slotted_cluster,
};
use crate::workload::{JobSpec, MapSpec, PoolSpec, ReduceSpec, Workload};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const MIB: u64 = 1 << 20;
const GIB: f64 = (1u64 << 30) as f64;

/// Per-node bandwidth inside a sub-cluster, Mbit/s (§4.1: "around 250 Mbps").
pub const SW_RACK_MBPS: f64 = 250.0;
/// Per-node bandwidth across sub-clusters, Mbit/s (§4.1: 500 Mbps aggregate per sub-cluster
/// of 10, "50 Mbps is the typical per-node bisection bandwidth").
pub const SW_CROSS_RACK_MBPS: f64 = 50.0;

/// Table 1's Shuffle classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ShuffleClass {
    /// ShuffleInputRatio > 1.0 (§3.1).
    Heavy,
    /// Between heavy and light.
    Medium,
    /// Little shuffle.
    Light,
}

/// One benchmark of Table 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SwBenchmark {
    /// Benchmark name (the job class).
    pub name: &'static str,
    /// Its Shuffle class.
    pub class: ShuffleClass,
    /// Its share of jobs, % (relative weights; finite, ≥ 0).
    pub percent: f64,
    /// Its map's compute per block relative to the mix's mean (placer's estimate of PUMA's
    /// compute intensity, module docs; used under [`SwCompute::PerBenchmark`]; finite, ≥ 0).
    pub map_weight: f64,
}

/// How the compute time of a map is set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SwCompute {
    /// Every benchmark's map computes `map_compute_s` per full block (placer's first model).
    #[default]
    Uniform,
    /// A benchmark's map computes `map_compute_s · w_b / Σ_b share_b · w_b` per full block,
    /// `w_b` = [`SwBenchmark::map_weight`]: the mix's mean stays `map_compute_s`.
    PerBenchmark,
}

impl SwCompute {
    /// The model a name stands for: `uniform` or `per-benchmark`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "uniform" => Some(Self::Uniform),
            "per-benchmark" => Some(Self::PerBenchmark),
            _ => None,
        }
    }
}

/// One input-size bin of Table 2.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SwSizeBin {
    /// Smallest input, bytes (> 0).
    pub lo_bytes: f64,
    /// Largest input, bytes (≥ `lo_bytes`).
    pub hi_bytes: f64,
    /// Its share of jobs, % (relative weights; finite, ≥ 0).
    pub percent: f64,
}

/// ShuffleWatcher Table 1.
pub const SW_TABLE1: [SwBenchmark; 12] = [
    bench("terasort", ShuffleClass::Heavy, 5.0, 0.2),
    bench("ranked-inverted-index", ShuffleClass::Heavy, 10.0, 0.4),
    bench("self-join", ShuffleClass::Heavy, 10.0, 0.3),
    bench("word-sequence-count", ShuffleClass::Heavy, 10.0, 0.5),
    bench("adjacency-list", ShuffleClass::Heavy, 5.0, 0.4),
    bench("inverted-index", ShuffleClass::Medium, 10.0, 1.0),
    bench("term-vector", ShuffleClass::Medium, 10.0, 1.25),
    bench("grep", ShuffleClass::Light, 15.0, 1.0),
    bench("wordcount", ShuffleClass::Light, 10.0, 2.0),
    bench("classification", ShuffleClass::Light, 5.0, 4.0),
    bench("histogram-movies", ShuffleClass::Light, 5.0, 2.0),
    bench("histogram-ratings", ShuffleClass::Light, 5.0, 2.0),
];

/// One row of Table 1 with placer's map weight.
const fn bench(
    name: &'static str,
    class: ShuffleClass,
    percent: f64,
    map_weight: f64,
) -> SwBenchmark {
    SwBenchmark { name, class, percent, map_weight }
}

const MB: f64 = 1e6;
const GB: f64 = 1e9;
const TB: f64 = 1e12;

/// ShuffleWatcher Table 2, with placer's open ends (10 MB, 2 TB).
pub const SW_TABLE2: [SwSizeBin; 8] = [
    SwSizeBin { lo_bytes: 10.0 * MB, hi_bytes: 100.0 * MB, percent: 20.0 },
    SwSizeBin { lo_bytes: 100.0 * MB, hi_bytes: GB, percent: 19.0 },
    SwSizeBin { lo_bytes: GB, hi_bytes: 20.0 * GB, percent: 21.0 },
    SwSizeBin { lo_bytes: 20.0 * GB, hi_bytes: 100.0 * GB, percent: 10.0 },
    SwSizeBin { lo_bytes: 100.0 * GB, hi_bytes: 200.0 * GB, percent: 10.0 },
    SwSizeBin { lo_bytes: 200.0 * GB, hi_bytes: 500.0 * GB, percent: 7.0 },
    SwSizeBin { lo_bytes: 500.0 * GB, hi_bytes: TB, percent: 8.0 },
    SwSizeBin { lo_bytes: TB, hi_bytes: 2.0 * TB, percent: 5.0 },
];

/// Table 3's total shuffle under the Fair Scheduler, GB: heavy, medium, light.
const TABLE3_SHUFFLE_GB: [f64; 3] = [1261.0, 70.0, 13.0];
/// Table 1's class shares (mix2): heavy, medium, light.
const TABLE1_CLASS_SHARE: [f64; 3] = [0.4, 0.2, 0.4];

/// The Table 1 class of a benchmark name, if it is one.
pub fn sw_shuffle_class(benchmark: &str) -> Option<ShuffleClass> {
    SW_TABLE1.iter().find(|b| b.name == benchmark).map(|b| b.class)
}

/// Parameters of the mix; [`ShuffleWatcherSpec::paper`] is the paper's setup.
#[derive(Clone, Debug, PartialEq)]
pub struct ShuffleWatcherSpec {
    /// Users, one pool each (paper: 30; ≥ 1).
    pub users: usize,
    /// Jobs per user (paper: 12; ≥ 1).
    pub jobs_per_user: usize,
    /// Mean inter-arrival of the exponential submissions, s (paper: 40; finite, > 0).
    pub mean_interarrival_s: f64,
    /// Benchmarks and their shares (non-empty, positive total).
    pub benchmarks: Vec<SwBenchmark>,
    /// Input-size bins and their shares (non-empty, positive total).
    pub size_bins: Vec<SwSizeBin>,
    /// ShuffleInputRatio of heavy jobs (placer: 1.1; finite, > 0); medium and light follow
    /// Table 3 (module docs).
    pub heavy_shuffle_ratio: f64,
    /// Multiplier on every input size (paper(): 1.0; finite, > 0).
    pub input_scale: f64,
    /// Racks (sub-clusters; paper: 10; ≥ 1).
    pub racks: usize,
    /// Nodes per rack (paper: 10; ≥ 1).
    pub nodes_per_rack: usize,
    /// Map slots per node (paper: 4).
    pub map_slots: u32,
    /// Reduce slots per node (paper: 2).
    pub reduce_slots: u32,
    /// HDFS block size, bytes (paper: 64 MiB; ≥ 1).
    pub block_bytes: u64,
    /// Replicas per block (paper: 3; 1 ≤ R ≤ nodes).
    pub replication: usize,
    /// Where each job's input was written ([`InputLayout`]; the paper does not say; placer's
    /// default: `Hdfs`, a uniform first replica per block).
    pub layout: InputLayout,
    /// Shuffle bytes per reduce that sets the reduce count (placer: 1 GiB; ≥ 1).
    pub reduce_input_bytes: u64,
    /// Most reduces of a job (placer: 200; ≥ 1).
    pub max_reduces: usize,
    /// Compute time of a map on a full block, s (placer: 10; finite, ≥ 0).
    pub map_compute_s: f64,
    /// Compute time of a reduce per GiB pulled, s (placer: 10; finite, ≥ 0).
    pub reduce_compute_s_per_gib: f64,
    /// How a map's compute depends on its benchmark (placer: [`SwCompute::Uniform`]).
    pub compute: SwCompute,
    /// Offered map load ρ that sets the arrivals instead of `mean_interarrival_s` (module
    /// docs; `None`: the gap as given; finite, > 0).
    pub target_utilisation: Option<f64>,
    /// RNG seed.
    pub seed: u64,
}

impl ShuffleWatcherSpec {
    /// The paper's mix: Tables 1–2, 30 users × 12 jobs, 40 s mean gap, 100 nodes in 10 racks,
    /// 4 + 2 slots, 64 MiB blocks × 3, inputs as printed (`input_scale` 1).
    pub fn paper(seed: u64) -> Self {
        Self {
            users: 30,
            jobs_per_user: 12,
            mean_interarrival_s: 40.0,
            benchmarks: SW_TABLE1.to_vec(),
            size_bins: SW_TABLE2.to_vec(),
            heavy_shuffle_ratio: 1.1,
            input_scale: 1.0,
            racks: 10,
            nodes_per_rack: 10,
            map_slots: 4,
            reduce_slots: 2,
            block_bytes: 64 * MIB,
            replication: 3,
            layout: InputLayout::Hdfs,
            reduce_input_bytes: 1 << 30,
            max_reduces: 200,
            map_compute_s: 10.0,
            reduce_compute_s_per_gib: 10.0,
            compute: SwCompute::Uniform,
            target_utilisation: None,
            seed,
        }
    }

    /// The compute of a full-block map of benchmark `b`, s ([`SwCompute`]).
    pub fn map_block_s(&self, b: &SwBenchmark) -> f64 {
        match self.compute {
            SwCompute::Uniform => self.map_compute_s,
            SwCompute::PerBenchmark => {
                let total: f64 = self.benchmarks.iter().map(|b| b.percent).sum();
                let mean: f64 =
                    self.benchmarks.iter().map(|b| b.percent * b.map_weight).sum::<f64>() / total;
                if mean > 0.0 {
                    self.map_compute_s * b.map_weight / mean
                } else {
                    self.map_compute_s
                }
            }
        }
    }

    /// ShuffleInputRatio of a class: `heavy_shuffle_ratio` scaled by Table 3 (module docs).
    pub fn shuffle_ratio(&self, class: ShuffleClass) -> f64 {
        let per_share = |i: usize| TABLE3_SHUFFLE_GB[i] / TABLE1_CLASS_SHARE[i];
        let i = match class {
            ShuffleClass::Heavy => 0,
            ShuffleClass::Medium => 1,
            ShuffleClass::Light => 2,
        };
        self.heavy_shuffle_ratio * per_share(i) / per_share(0)
    }

    fn check(&self) -> Result<(), DatasetError> {
        let invalid = |field, message: String| Err(DatasetError::InvalidSpec { field, message });
        let finite_pos = |v: f64| v.is_finite() && v > 0.0;
        let finite_nonneg = |v: f64| v.is_finite() && v >= 0.0;
        if self.users == 0 {
            return invalid("users", "must be ≥ 1".into());
        }
        if self.jobs_per_user == 0 {
            return invalid("jobs-per-user", "must be ≥ 1".into());
        }
        if !finite_pos(self.mean_interarrival_s) {
            return invalid(
                "mean-interarrival-s",
                format!("must be finite and > 0, got {}", self.mean_interarrival_s),
            );
        }
        if self.benchmarks.iter().any(|b| !finite_nonneg(b.percent))
            || self.benchmarks.iter().map(|b| b.percent).sum::<f64>() <= 0.0
        {
            return invalid("benchmarks", "need shares finite, ≥ 0, with a positive sum".into());
        }
        if self.size_bins.iter().any(|b| !finite_nonneg(b.percent))
            || self.size_bins.iter().map(|b| b.percent).sum::<f64>() <= 0.0
        {
            return invalid("size-bins", "need shares finite, ≥ 0, with a positive sum".into());
        }
        if let Some(b) = self
            .size_bins
            .iter()
            .find(|b| !finite_pos(b.lo_bytes) || !finite_pos(b.hi_bytes) || b.hi_bytes < b.lo_bytes)
        {
            return invalid(
                "size-bins",
                format!("need 0 < lo ≤ hi, finite; got [{}, {}]", b.lo_bytes, b.hi_bytes),
            );
        }
        if !finite_pos(self.heavy_shuffle_ratio) {
            return invalid(
                "heavy-shuffle-ratio",
                format!("must be finite and > 0, got {}", self.heavy_shuffle_ratio),
            );
        }
        if !finite_pos(self.input_scale) {
            return invalid(
                "input-scale",
                format!("must be finite and > 0, got {}", self.input_scale),
            );
        }
        check_cluster(self.racks, self.nodes_per_rack, self.replication)?;
        if self.block_bytes == 0 {
            return invalid("block-bytes", "must be ≥ 1".into());
        }
        if self.reduce_input_bytes == 0 {
            return invalid("reduce-input-bytes", "must be ≥ 1".into());
        }
        if self.max_reduces == 0 {
            return invalid("max-reduces", "must be ≥ 1".into());
        }
        if !finite_nonneg(self.map_compute_s) {
            return invalid(
                "map-compute-s",
                format!("must be finite and ≥ 0, got {}", self.map_compute_s),
            );
        }
        if self.benchmarks.iter().any(|b| !finite_nonneg(b.map_weight)) {
            return invalid("benchmarks", "need map weights finite and ≥ 0".into());
        }
        if let Some(rho) = self.target_utilisation.filter(|&r| !finite_pos(r)) {
            return invalid("target-utilisation", format!("must be finite and > 0, got {rho}"));
        }
        if !finite_nonneg(self.reduce_compute_s_per_gib) {
            return invalid(
                "reduce-compute-s-per-gib",
                format!("must be finite and ≥ 0, got {}", self.reduce_compute_s_per_gib),
            );
        }
        Ok(())
    }
}

/// Generates the mix: `users · jobs_per_user` jobs in submit order, one pool per user, and
/// the 10 × 10 testbed's topology.
pub fn shuffle_watcher_mix(spec: &ShuffleWatcherSpec) -> Result<Workload, DatasetError> {
    spec.check()?;
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
    let (topology, placer) = slotted_cluster(
        spec.racks,
        spec.nodes_per_rack,
        (spec.map_slots, spec.reduce_slots),
        spec.replication,
    );
    let n = spec.users.saturating_mul(spec.jobs_per_user);

    let expand = |counts: Vec<usize>| -> Vec<usize> {
        counts.iter().enumerate().flat_map(|(i, &c)| std::iter::repeat_n(i, c)).collect()
    };
    let bench_shares: Vec<f64> = spec.benchmarks.iter().map(|b| b.percent).collect();
    let mut bench = expand(apportion(n, &bench_shares));
    bench.shuffle(&mut rng);
    let bin_shares: Vec<f64> = spec.size_bins.iter().map(|b| b.percent).collect();
    let mut bins = expand(apportion(n, &bin_shares));
    bins.shuffle(&mut rng);
    let mut users: Vec<usize> =
        (0..spec.users).flat_map(|u| std::iter::repeat_n(u, spec.jobs_per_user)).collect();
    users.shuffle(&mut rng);
    // Under a target load the gaps are drawn for a unit mean and scaled once the maps' work is
    // known: the same draws, so the job mix does not depend on the target.
    let unit_gap = if spec.target_utilisation.is_some() { 1.0 } else { spec.mean_interarrival_s };
    let mut submits = poisson_arrivals(&mut rng, n, unit_gap);

    let block = spec.block_bytes as f64;
    let mut jobs = Vec::with_capacity(n);
    for k in 0..n {
        let b = spec.benchmarks[bench[k]];
        let bin = spec.size_bins[bins[k]];
        let ratio = spec.shuffle_ratio(b.class);
        let size = log_uniform(&mut rng, bin.lo_bytes, bin.hi_bytes) * spec.input_scale;
        let input = (size.round() as u64).max(1);
        let full = input / spec.block_bytes;
        let last = input % spec.block_bytes;
        let writer = placer.writer(spec.layout, &mut rng);
        let splits = std::iter::repeat_n(spec.block_bytes, full as usize)
            .chain((last > 0).then_some(last))
            .collect::<Vec<u64>>();
        let maps: Vec<MapSpec> = splits
            .into_iter()
            .map(|bytes| MapSpec {
                input_bytes: bytes,
                replicas: placer.place_written(spec.layout, writer, &mut rng),
                compute_s: spec.map_block_s(&b) * bytes as f64 / block,
                output_bytes: (ratio * bytes as f64).round() as u64,
                ..MapSpec::default()
            })
            .collect();
        let shuffle: u64 = maps.iter().map(|m| m.output_bytes).sum();
        let reduces =
            (shuffle.div_ceil(spec.reduce_input_bytes) as usize).clamp(1, spec.max_reduces);
        let reduces = even_split(shuffle, reduces)
            .into_iter()
            .map(|bytes| ReduceSpec {
                failed_attempts_s: Vec::new(),
                shuffle_bytes: bytes,
                output_bytes: bytes,
                compute_s: spec.reduce_compute_s_per_gib * bytes as f64 / GIB,
                demand: None,
            })
            .collect();
        let user = format!("u{}", users[k]);
        jobs.push(JobSpec {
            gang: None,
            topology: None,
            cleanup_s: None,
            setup_s: None,
            observed_finish_s: None,
            id: format!("sw-j{k}"),
            submit_s: submits[k],
            user: user.clone(),
            pool: user,
            maps,
            reduces,
            deadline_s: None,
            class: Some(b.name.to_string()),
        });
    }
    if let Some(rho) = spec.target_utilisation {
        let gap = target_gap_s(
            &jobs,
            rho,
            spec.map_slots as f64 * (spec.racks * spec.nodes_per_rack) as f64,
        );
        for (job, t) in jobs.iter_mut().zip(&mut submits) {
            *t *= gap;
            job.submit_s = *t;
        }
    }
    let pools = (0..spec.users).map(|u| PoolSpec::plain(&format!("u{u}"))).collect();
    Ok(Workload {
        measured_times: false,
        name: format!("shuffle-watcher-mix seed={}", spec.seed),
        jobs,
        pools,
        topology: Some(topology),
    })
}

/// The mean gap between submissions at which the maps of `jobs` offer the load `rho` to
/// `map_slots` slots: ρ = Σ map compute-seconds / (map slots · jobs · gap), so
/// gap = Σ compute / (ρ · map slots · jobs), s. Only compute counts: a map's read, start-up and
/// the wait for a heartbeat add to the slot time the simulator measures. A workload without
/// map compute (or slots) keeps a gap of 1 s.
///
/// # Complexity
/// O(Σ maps).
///
/// # Examples
/// 10 jobs of 4 maps of 10 s on 8 slots at ρ = 0.5: gap = 400 / (0.5 · 8 · 10) = 10 s.
fn target_gap_s(jobs: &[JobSpec], rho: f64, map_slots: f64) -> f64 {
    let work: f64 = jobs.iter().flat_map(|j| &j.maps).map(|m| m.compute_s).sum();
    let denom = rho * map_slots * jobs.len() as f64;
    if work > 0.0 && denom > 0.0 {
        work / denom
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeMap, BTreeSet};

    /// The paper's mix with inputs scaled by 1/1000 (Table 2 as printed is ~1M maps).
    fn small(seed: u64) -> ShuffleWatcherSpec {
        ShuffleWatcherSpec { input_scale: 1e-3, ..ShuffleWatcherSpec::paper(seed) }
    }

    #[test]
    fn target_gap_follows_the_offered_load() {
        // The doc's example: 10 jobs of 4 maps × 10 s on 8 slots at ρ = 0.5 → 10 s.
        let job = JobSpec {
            maps: vec![MapSpec { compute_s: 10.0, ..MapSpec::default() }; 4],
            ..JobSpec::default()
        };
        assert_eq!(target_gap_s(&vec![job; 10], 0.5, 8.0), 10.0);
        assert_eq!(target_gap_s(&[], 0.5, 8.0), 1.0);
        // Through the generator: the offered load over n gaps is ρ, and only the times change.
        let base = ShuffleWatcherSpec { input_scale: 0.01, ..small(4) };
        let plain = shuffle_watcher_mix(&base).unwrap();
        let spec = ShuffleWatcherSpec { target_utilisation: Some(0.9), ..base };
        let loaded = shuffle_watcher_mix(&spec).unwrap();
        let work: f64 = loaded.jobs.iter().flat_map(|j| &j.maps).map(|m| m.compute_s).sum();
        let n = loaded.jobs.len() as f64;
        let gap = loaded.jobs[1].submit_s / plain.jobs[1].submit_s * spec.mean_interarrival_s;
        let rho = work / (400.0 * n * gap);
        assert!((rho - 0.9).abs() < 1e-9, "{rho}");
        for (a, b) in plain.jobs.iter().zip(&loaded.jobs) {
            assert_eq!((&a.id, &a.class, a.maps.len()), (&b.id, &b.class, b.maps.len()));
        }
    }

    #[test]
    fn per_benchmark_compute_keeps_the_mix_mean() {
        // Table 1's shares weight the map weights to 1.125; terasort's block then computes
        // 10 · 0.2 / 1.125 s and classification's 10 · 4 / 1.125 s, and the share-weighted
        // mean is 10 s.
        let spec = ShuffleWatcherSpec { compute: SwCompute::PerBenchmark, ..small(1) };
        let of = |name: &str| SW_TABLE1.iter().find(|b| b.name == name).copied().unwrap();
        assert!((spec.map_block_s(&of("terasort")) - 2.0 / 1.125).abs() < 1e-9);
        assert!((spec.map_block_s(&of("classification")) - 40.0 / 1.125).abs() < 1e-9);
        let mean: f64 =
            SW_TABLE1.iter().map(|b| b.percent * spec.map_block_s(b)).sum::<f64>() / 100.0;
        assert!((mean - 10.0).abs() < 1e-9, "{mean}");
        let uniform = ShuffleWatcherSpec { compute: SwCompute::Uniform, ..spec };
        assert_eq!(uniform.map_block_s(&of("classification")), 10.0);
    }

    #[test]
    fn shuffle_watcher_table1_benchmark_counts() {
        // 360 jobs × Table 1 shares: 5% → 18, 10% → 36, 15% → 54.
        let w = shuffle_watcher_mix(&small(1)).unwrap();
        assert_eq!(w.jobs.len(), 360);
        let mut count: BTreeMap<&str, usize> = BTreeMap::new();
        for j in &w.jobs {
            *count.entry(j.class.as_deref().unwrap()).or_default() += 1;
        }
        let want: BTreeMap<&str, usize> = [
            ("terasort", 18),
            ("ranked-inverted-index", 36),
            ("self-join", 36),
            ("word-sequence-count", 36),
            ("adjacency-list", 18),
            ("inverted-index", 36),
            ("term-vector", 36),
            ("grep", 54),
            ("wordcount", 36),
            ("classification", 18),
            ("histogram-movies", 18),
            ("histogram-ratings", 18),
        ]
        .into_iter()
        .collect();
        assert_eq!(count, want);
    }

    #[test]
    fn shuffle_watcher_table2_size_bins() {
        // 360 × (20, 19, 21, 10, 10, 7, 8, 5) % by largest remainders.
        let spec = small(2);
        let w = shuffle_watcher_mix(&spec).unwrap();
        let mut count = [0usize; 8];
        for j in &w.jobs {
            let input: u64 = j.maps.iter().map(|m| m.input_bytes).sum();
            let unscaled = input as f64 / spec.input_scale;
            // Rounding to whole bytes moves a scaled size by ≤ 0.5 B, i.e. 500 B unscaled.
            let bin = SW_TABLE2
                .iter()
                .position(|b| unscaled >= b.lo_bytes - 500.0 && unscaled <= b.hi_bytes + 500.0)
                .unwrap();
            count[bin] += 1;
        }
        assert_eq!(count, [72, 68, 76, 36, 36, 25, 29, 18]);
    }

    #[test]
    fn shuffle_watcher_3_1_heavy_ratio_above_one_and_table3_ratios() {
        let spec = ShuffleWatcherSpec::paper(0);
        assert!(spec.shuffle_ratio(ShuffleClass::Heavy) > 1.0);
        // (70 / 0.2) / (1261 / 0.4) · 1.1 and (13 / 0.4) / (1261 / 0.4) · 1.1.
        assert!((spec.shuffle_ratio(ShuffleClass::Medium) - 0.122_125).abs() < 1e-5);
        assert!((spec.shuffle_ratio(ShuffleClass::Light) - 0.011_340).abs() < 1e-5);
        let w = shuffle_watcher_mix(&ShuffleWatcherSpec { input_scale: 1e-2, ..spec }).unwrap();
        for j in &w.jobs {
            let input: u64 = j.maps.iter().map(|m| m.input_bytes).sum();
            let shuffle: u64 = j.reduces.iter().map(|r| r.shuffle_bytes).sum();
            assert_eq!(shuffle, j.maps.iter().map(|m| m.output_bytes).sum::<u64>());
            let class = sw_shuffle_class(j.class.as_deref().unwrap()).unwrap();
            if class == ShuffleClass::Heavy && input > 1_000_000 {
                assert!(shuffle > input, "heavy job {} pulls {shuffle} of {input}", j.id);
            }
            if class == ShuffleClass::Light {
                assert!(shuffle < input / 50 + j.maps.len() as u64);
            }
            assert!((1..=200).contains(&j.reduces.len()));
        }
    }

    #[test]
    fn shuffle_watcher_4_1_testbed_users_and_replicas() {
        let w = shuffle_watcher_mix(&small(3)).unwrap();
        let t = w.topology.as_ref().unwrap();
        assert_eq!(t.racks.len(), 10);
        assert!(t.racks.iter().all(|r| r.nodes.len() == 10));
        assert!(t.nodes().all(|(_, n)| n.map_slots == Some(4) && n.reduce_slots == Some(2)));
        let rack: BTreeMap<&str, usize> = t.nodes().map(|(r, n)| (n.id.as_str(), r)).collect();
        for m in w.jobs.iter().flat_map(|j| &j.maps) {
            assert!(m.input_bytes <= 64 << 20);
            let nodes: BTreeSet<&str> = m.replicas.iter().map(String::as_str).collect();
            assert_eq!(nodes.len(), 3);
            let racks: BTreeSet<usize> = nodes.iter().map(|n| rack[n]).collect();
            assert_eq!(racks.len(), 2);
        }
        let mut per_user: BTreeMap<&str, usize> = BTreeMap::new();
        for j in &w.jobs {
            assert_eq!(j.user, j.pool);
            *per_user.entry(j.pool.as_str()).or_default() += 1;
        }
        assert_eq!(per_user.len(), 30);
        assert!(per_user.values().all(|&c| c == 12));
        assert_eq!(w.pools.len(), 30);
    }

    #[test]
    fn input_layouts_put_first_replicas_on_the_writer() {
        // Jobs of several blocks; each layout keeps HDFS's rule for replicas 2 and 3 (two
        // distinct racks, three distinct nodes).
        let spec = |layout| ShuffleWatcherSpec { input_scale: 0.05, layout, ..small(5) };
        let hdfs = shuffle_watcher_mix(&spec(InputLayout::Hdfs)).unwrap();
        assert_eq!(hdfs, shuffle_watcher_mix(&small_scaled(5, 0.05)).unwrap());
        let t = hdfs.topology.as_ref().unwrap();
        let rack: BTreeMap<&str, usize> = t.nodes().map(|(r, n)| (n.id.as_str(), r)).collect();
        let firsts = |w: &Workload, of: &dyn Fn(&str) -> String| -> Vec<BTreeSet<String>> {
            let jobs = w.jobs.iter().filter(|j| j.maps.len() >= 8);
            jobs.map(|j| j.maps.iter().map(|m| of(&m.replicas[0])).collect()).collect()
        };
        for (layout, spread) in [(InputLayout::WriterNode, 0), (InputLayout::WriterRack, 1)] {
            let w = shuffle_watcher_mix(&spec(layout)).unwrap();
            for m in w.jobs.iter().flat_map(|j| &j.maps) {
                let nodes: BTreeSet<&str> = m.replicas.iter().map(String::as_str).collect();
                let racks: BTreeSet<usize> = nodes.iter().map(|n| rack[n]).collect();
                assert_eq!((nodes.len(), racks.len()), (3, 2));
            }
            let by_node = firsts(&w, &|n: &str| n.to_owned());
            let by_rack = firsts(&w, &|n: &str| rack[n].to_string());
            assert!(!by_node.is_empty());
            // writer-node: one first node per job; writer-rack: one first rack, several nodes.
            assert!(by_rack.iter().all(|r| r.len() == 1), "{layout:?}");
            assert_eq!(by_node.iter().all(|n| n.len() == 1), spread == 0, "{layout:?}");
        }
        // Under HDFS's layout a job of 8 or more blocks has its first replicas on several racks.
        assert!(firsts(&hdfs, &|n: &str| rack[n].to_string()).iter().all(|r| r.len() > 1));
        assert_eq!(InputLayout::from_name("writer-rack"), Some(InputLayout::WriterRack));
        assert_eq!(InputLayout::from_name("rack"), None);
    }

    fn small_scaled(seed: u64, input_scale: f64) -> ShuffleWatcherSpec {
        ShuffleWatcherSpec { input_scale, ..ShuffleWatcherSpec::paper(seed) }
    }

    #[test]
    fn shuffle_watcher_4_3_exponential_gaps_of_40_s() {
        // 359 gaps per run, 10 seeds: k = 3,590, σ of the mean = 40 / √k ≈ 0.67 s; ±4σ.
        let (mut sum, mut k) = (0.0, 0usize);
        for seed in 0..10 {
            let w = shuffle_watcher_mix(&ShuffleWatcherSpec { input_scale: 1e-5, ..small(seed) })
                .unwrap();
            assert_eq!(w.jobs[0].submit_s, 0.0);
            assert!(w.jobs.windows(2).all(|p| p[0].submit_s <= p[1].submit_s));
            sum += w.jobs.last().unwrap().submit_s;
            k += w.jobs.len() - 1;
        }
        let mean = sum / k as f64;
        let tol = 4.0 * 40.0 / (k as f64).sqrt();
        assert!((mean - 40.0).abs() <= tol, "mean gap {mean} outside 40 ± {tol}");
    }

    #[test]
    fn shuffle_watcher_same_seed_same_workload_different_seed_differs() {
        let a = shuffle_watcher_mix(&small(11)).unwrap();
        assert_eq!(a, shuffle_watcher_mix(&small(11)).unwrap());
        assert_ne!(a, shuffle_watcher_mix(&small(12)).unwrap());
    }

    #[test]
    fn shuffle_watcher_invalid_specs_name_their_field() {
        let field = |s: ShuffleWatcherSpec| match shuffle_watcher_mix(&s) {
            Err(DatasetError::InvalidSpec { field, .. }) => field,
            other => panic!("expected InvalidSpec, got {other:?}"),
        };
        let p = small(1);
        assert_eq!(field(ShuffleWatcherSpec { users: 0, ..p.clone() }), "users");
        assert_eq!(field(ShuffleWatcherSpec { jobs_per_user: 0, ..p.clone() }), "jobs-per-user");
        assert_eq!(
            field(ShuffleWatcherSpec { mean_interarrival_s: -1.0, ..p.clone() }),
            "mean-interarrival-s"
        );
        assert_eq!(field(ShuffleWatcherSpec { benchmarks: vec![], ..p.clone() }), "benchmarks");
        let mut bad_bin = p.clone();
        bad_bin.size_bins[0].hi_bytes = 1.0;
        assert_eq!(field(bad_bin), "size-bins");
        assert_eq!(field(ShuffleWatcherSpec { input_scale: 0.0, ..p.clone() }), "input-scale");
        assert_eq!(
            field(ShuffleWatcherSpec { heavy_shuffle_ratio: f64::INFINITY, ..p.clone() }),
            "heavy-shuffle-ratio"
        );
        assert_eq!(field(ShuffleWatcherSpec { replication: 101, ..p.clone() }), "replication");
        assert_eq!(field(ShuffleWatcherSpec { max_reduces: 0, ..p }), "max-reduces");
    }
}
