//! A mixed workload of MapReduce jobs and gang jobs kept inside a rack (all-or-nothing jobs:
//! Kubernetes KEP-4671 PodGroup's `minCount`, Volcano's `minMember`, Kueue's all-or-nothing
//! admission; topology domains: Kueue Topology Aware Scheduling's
//! `podset-required-topology` / `podset-preferred-topology`), for comparing placer's joint
//! placement of gangs with greedy per-workload placement.
//!
//! The cluster: R racks of K nodes, S map and S' reduce slots each (default 8 × 8 nodes, 4 + 2
//! slots: a rack holds 32 map tasks).
//!
//! The jobs, a Poisson stream (mean gap `mean_interarrival_s`):
//! - a fraction `gang_fraction` are **gangs**: G tasks that must start together
//!   (`gang.min_member = G`), G drawn uniformly from `gang_sizes` (kept to those a rack can
//!   hold, S · K), each task computing `gang_compute_s` × U(0.5, 1.5) seconds with no input to
//!   read (a training worker, an MPI rank: what matters is that they run together, close to
//!   each other). A fraction `required_fraction` of the gangs ask for one rack
//!   (`topology: {level: rack, mode: required}`), the rest prefer one (`mode: preferred`, the
//!   default penalty). Pool `gang`, class `gang-required` or `gang-preferred`.
//! - the others are **MapReduce** jobs: M maps, M uniform in [1, `max_maps`], each reading
//!   one `block_mib` block with HDFS-placed replicas and computing `map_compute_s` ×
//!   U(0.5, 1.5), and ⌈M / 10⌉ reduces that pull 20% of the input, computing
//!   `reduce_compute_s` each. Pool `batch`, class `mapreduce`.
//!
//! Both pools weigh 1, so the batch jobs and the gangs share the cluster half and half when
//! both want more than half. Ids: `g{k}` for gangs and `m{k}` for MapReduce jobs, k the job's
//! position in submit order. Units: seconds, bytes. Deterministic: ChaCha8 seeded with `seed`;
//! O(jobs · tasks · replication + nodes).

use crate::error::DatasetError;
use crate::sampling::{check_cluster, poisson_arrivals, slotted_cluster};
use crate::workload::{JobSpec, MapSpec, PoolSpec, ReduceSpec, Workload};
use placer_models::{Gang, Topology, TopologyLevel, TopologyMode};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const MIB: u64 = 1 << 20;

/// Parameters of a mixed gang workload; [`GangMixSpec::default`] is the `gang-mix` preset of
/// `placer whatif --workload`.
#[derive(Clone, Debug, PartialEq)]
pub struct GangMixSpec {
    /// Jobs (≥ 1).
    pub jobs: usize,
    /// Mean gap between submissions, s (> 0).
    pub mean_interarrival_s: f64,
    /// The fraction of jobs that are gangs, in [0, 1].
    pub gang_fraction: f64,
    /// Gang sizes drawn from (each ≥ 1; those above a rack's map slots are left out).
    pub gang_sizes: Vec<u32>,
    /// The fraction of gangs whose rack is required (the others prefer one), in [0, 1].
    pub required_fraction: f64,
    /// A gang task's mean compute time, s (≥ 0).
    pub gang_compute_s: f64,
    /// Most maps of a MapReduce job (≥ 1).
    pub max_maps: usize,
    /// A map's mean compute time, s (≥ 0).
    pub map_compute_s: f64,
    /// A reduce's compute time, s (≥ 0).
    pub reduce_compute_s: f64,
    /// Block size, MiB (≥ 1).
    pub block_mib: u64,
    /// Replicas per block (in [1, nodes]).
    pub replication: usize,
    /// Racks (≥ 1).
    pub racks: usize,
    /// Nodes per rack (≥ 1).
    pub nodes_per_rack: usize,
    /// Map slots per node.
    pub map_slots: u32,
    /// Reduce slots per node.
    pub reduce_slots: u32,
    /// Seed.
    pub seed: u64,
}

impl Default for GangMixSpec {
    /// 400 jobs every 15 s, a third of them gangs of 4–32 tasks (half rack-required), on 8
    /// racks of 8 nodes with 4 map and 2 reduce slots: the gangs alone ask for about
    /// 400 / 3 · 17 tasks · 120 s / (6,000 s · 256 slots) ≈ 0.18 of the map slots, the MapReduce
    /// jobs about as much again, so gangs wait for racks to drain rather than for the cluster.
    fn default() -> Self {
        Self {
            jobs: 400,
            mean_interarrival_s: 15.0,
            gang_fraction: 1.0 / 3.0,
            gang_sizes: vec![4, 8, 16, 24, 32],
            required_fraction: 0.5,
            gang_compute_s: 120.0,
            max_maps: 40,
            map_compute_s: 20.0,
            reduce_compute_s: 30.0,
            block_mib: 128,
            replication: 3,
            racks: 8,
            nodes_per_rack: 8,
            map_slots: 4,
            reduce_slots: 2,
            seed: 1,
        }
    }
}

impl GangMixSpec {
    fn check(&self) -> Result<(), DatasetError> {
        let invalid = |field, message: String| Err(DatasetError::InvalidSpec { field, message });
        check_cluster(self.racks, self.nodes_per_rack, self.replication)?;
        if self.jobs == 0 {
            return invalid("jobs", "must be ≥ 1".into());
        }
        if !(self.mean_interarrival_s.is_finite() && self.mean_interarrival_s > 0.0) {
            return invalid("mean-interarrival-s", "must be a finite number > 0".into());
        }
        for (field, v) in
            [("gang-fraction", self.gang_fraction), ("required-fraction", self.required_fraction)]
        {
            if !(0.0..=1.0).contains(&v) {
                return invalid(field, format!("must be in [0, 1], got {v}"));
            }
        }
        for (field, v) in [
            ("gang-compute-s", self.gang_compute_s),
            ("map-compute-s", self.map_compute_s),
            ("reduce-compute-s", self.reduce_compute_s),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return invalid(field, format!("must be a finite number ≥ 0, got {v}"));
            }
        }
        if self.max_maps == 0 {
            return invalid("max-maps", "must be ≥ 1".into());
        }
        if self.block_mib == 0 {
            return invalid("block-mib", "must be ≥ 1".into());
        }
        if self.gang_fraction > 0.0 && self.fitting_sizes().is_empty() {
            return invalid(
                "gang-sizes",
                format!(
                    "none of {:?} fits a rack's {} map slots",
                    self.gang_sizes,
                    self.rack_map_slots()
                ),
            );
        }
        Ok(())
    }

    /// A rack's map slots, S · K.
    fn rack_map_slots(&self) -> u64 {
        u64::from(self.map_slots).saturating_mul(self.nodes_per_rack as u64)
    }

    /// The gang sizes a rack can hold.
    fn fitting_sizes(&self) -> Vec<u32> {
        let cap = self.rack_map_slots();
        self.gang_sizes.iter().copied().filter(|&g| g >= 1 && u64::from(g) <= cap).collect()
    }
}

/// Generates the mixed workload: jobs in submit order, two pools, and the cluster's topology.
///
/// # Errors
/// [`DatasetError::InvalidSpec`] naming the field out of its domain.
///
/// # Examples
/// ```
/// use placer_datasets::{gang_mix, GangMixSpec};
/// let w = gang_mix(&GangMixSpec { jobs: 30, ..GangMixSpec::default() }).unwrap();
/// let gangs = w.jobs.iter().filter(|j| j.gang.is_some()).count();
/// assert!(gangs > 0 && gangs < 30);
/// for j in w.jobs.iter().filter(|j| j.gang.is_some()) {
///     assert_eq!(j.gang.unwrap().min_member as usize, j.maps.len());
///     assert!(j.maps.len() <= 32);
/// }
/// ```
pub fn gang_mix(spec: &GangMixSpec) -> Result<Workload, DatasetError> {
    spec.check()?;
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
    let (topology, placer) = slotted_cluster(
        spec.racks,
        spec.nodes_per_rack,
        (spec.map_slots, spec.reduce_slots),
        spec.replication,
    );
    let sizes = spec.fitting_sizes();
    let block = spec.block_mib.saturating_mul(MIB);
    let submits = poisson_arrivals(&mut rng, spec.jobs, spec.mean_interarrival_s);
    let mut jobs = Vec::with_capacity(spec.jobs);
    for (k, submit_s) in submits.into_iter().enumerate() {
        let gang = !sizes.is_empty() && rng.random::<f64>() < spec.gang_fraction;
        let job = if gang {
            let g = sizes[rng.random_range(0..sizes.len())];
            let required = rng.random::<f64>() < spec.required_fraction;
            let mode = if required { TopologyMode::Required } else { TopologyMode::Preferred };
            JobSpec {
                id: format!("g{k}"),
                submit_s,
                user: "gang".into(),
                pool: "gang".into(),
                maps: (0..g)
                    .map(|_| MapSpec {
                        compute_s: spec.gang_compute_s * rng.random_range(0.5..1.5),
                        ..MapSpec::default()
                    })
                    .collect(),
                class: Some(if required { "gang-required" } else { "gang-preferred" }.into()),
                gang: Some(Gang { min_member: g }),
                topology: Some(Topology {
                    level: TopologyLevel::Rack,
                    mode,
                    penalty_s: None,
                    slice: None,
                }),
                ..JobSpec::default()
            }
        } else {
            let m = rng.random_range(1..=spec.max_maps);
            let maps: Vec<MapSpec> = (0..m)
                .map(|_| MapSpec {
                    input_bytes: block,
                    replicas: placer.place(&mut rng),
                    compute_s: spec.map_compute_s * rng.random_range(0.5..1.5),
                    output_bytes: block / 5,
                    ..MapSpec::default()
                })
                .collect();
            let r = m.div_ceil(10);
            let shuffle = (block / 5).saturating_mul(m as u64) / r as u64;
            JobSpec {
                id: format!("m{k}"),
                submit_s,
                user: "batch".into(),
                pool: "batch".into(),
                maps,
                reduces: (0..r)
                    .map(|_| ReduceSpec {
                        shuffle_bytes: shuffle,
                        output_bytes: shuffle,
                        compute_s: spec.reduce_compute_s,
                        ..ReduceSpec::default()
                    })
                    .collect(),
                class: Some("mapreduce".into()),
                ..JobSpec::default()
            }
        };
        jobs.push(job);
    }
    Ok(Workload {
        name: format!("gang-mix seed={}", spec.seed),
        jobs,
        pools: vec![PoolSpec::plain("batch"), PoolSpec::plain("gang")],
        topology: Some(topology),
        measured_times: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gangs_fit_a_rack_and_ask_for_it() {
        let w = gang_mix(&GangMixSpec::default()).unwrap();
        assert_eq!(w.jobs.len(), 400);
        let gangs: Vec<&JobSpec> = w.jobs.iter().filter(|j| j.gang.is_some()).collect();
        // A third of 400, ±4σ of a binomial (σ ≈ 9.4).
        assert!((96..=171).contains(&gangs.len()), "{}", gangs.len());
        for j in &gangs {
            let g = j.gang.unwrap().min_member;
            assert!([4, 8, 16, 24, 32].contains(&g));
            assert_eq!(j.maps.len(), g as usize);
            assert!(j.reduces.is_empty() && j.pool == "gang");
            assert!(j.maps.iter().all(|m| m.replicas.is_empty() && m.input_bytes == 0));
            let t = j.topology.unwrap();
            assert_eq!(t.level, TopologyLevel::Rack);
            let class =
                if t.mode == TopologyMode::Required { "gang-required" } else { "gang-preferred" };
            assert_eq!(j.class.as_deref(), Some(class));
        }
        let required = gangs.iter().filter(|j| j.topology.unwrap().mode == TopologyMode::Required);
        assert!(required.count() > 0);
        for j in w.jobs.iter().filter(|j| j.gang.is_none()) {
            assert!(j.topology.is_none() && j.pool == "batch");
            assert!((1..=40).contains(&j.maps.len()));
            assert_eq!(j.reduces.len(), j.maps.len().div_ceil(10));
            assert!(j.maps.iter().all(|m| m.replicas.len() == 3));
        }
        assert!(w.jobs.windows(2).all(|p| p[0].submit_s <= p[1].submit_s));
    }

    #[test]
    fn gang_sizes_above_a_rack_are_left_out() {
        // 2 nodes × 4 slots: a rack holds 8, so only 4 and 8 are drawn.
        let spec = GangMixSpec { nodes_per_rack: 2, gang_fraction: 1.0, ..GangMixSpec::default() };
        let w = gang_mix(&spec).unwrap();
        assert!(w.jobs.iter().all(|j| matches!(j.gang.unwrap().min_member, 4 | 8)));
        let none = GangMixSpec { gang_sizes: vec![64], ..spec };
        assert!(matches!(
            gang_mix(&none),
            Err(DatasetError::InvalidSpec { field: "gang-sizes", .. })
        ));
    }

    #[test]
    fn same_seed_same_workload() {
        let a = gang_mix(&GangMixSpec { jobs: 50, ..GangMixSpec::default() }).unwrap();
        assert_eq!(a, gang_mix(&GangMixSpec { jobs: 50, ..GangMixSpec::default() }).unwrap());
        let b = gang_mix(&GangMixSpec { jobs: 50, seed: 2, ..GangMixSpec::default() }).unwrap();
        assert_ne!(a, b);
    }
}
