//! One scheduling epoch of a shared, unfairly loaded cluster with several weighted pools (FAIR,
//! Zaharia et al., §2–3: pools with weights and min shares, jobs of differing sizes; the
//! snapshot model of lsap-sched, Guo, Fox, Zhou §3.2 and §4.4), for comparing how the placement
//! policies trade data locality against fairness.
//!
//! The cluster: N nodes in racks of K, S map slots and no reduce slots each, 1,000 Mbit/s inside
//! a rack and 100 Mbit/s across racks (configurable). P pools (`p0`, `p1`, …) with the given
//! weights and min map shares, each with J jobs (`p{i}-j{k}`). A fraction B of all map slots is
//! busy with running maps of those jobs, split among the pools by `running_mix` (not by weight:
//! by default the heaviest pool runs least, so the epoch starts unfair), each on a slot drawn
//! uniformly at random and in a job of its pool drawn uniformly at random. Every job has a number
//! of pending maps drawn uniformly in `[min_job_tasks, max_job_tasks]`, each reading a block of
//! 64–256 MiB (uniform) with R replicas on distinct nodes drawn uniformly at random.
//!
//! Time: jobs are submitted at distinct times uniformly in [0, `now_s`) and their running maps
//! started between submission and `now_s`; every pending map has `pending_since_s = now_s` (it
//! became runnable this epoch), so `lsap_fair`'s ageing credit is 0 and delay scheduling starts
//! every job at level 0 with no wait: the snapshot is a single epoch, not a replay.
//!
//! Order: pools and jobs as above; `pending` shuffled (jobs interleaved at random), so that a
//! fairness-blind policy breaking ties by snapshot order does not favour the first pool.
//!
//! Ids: a job's maps are numbered `p{i}-j{k}-m-{n}`, its running ones first. Deterministic:
//! ChaCha8 seeded with `seed`; O(N·S + Σ pending · R).

use crate::error::DatasetError;
use crate::sampling::apportion;
use crate::topology::racks_and_nodes;
use placer_models::{
    Cluster, Job, JobId, Network, PendingTask, PlaceRequest, Pool, PoolId, RunningTask, TaskId,
    TaskKind,
};
use rand::seq::index::sample;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const MIB: u64 = 1 << 20;

/// Parameters of a multi-pool epoch. [`MultiPoolSpec::default`] is the workload of the
/// `fairness_tradeoff` bench.
#[derive(Clone, Debug, PartialEq)]
pub struct MultiPoolSpec {
    /// N, nodes (≥ 1).
    pub nodes: usize,
    /// K, nodes per rack (≥ 1; the last rack may be smaller).
    pub rack_size: usize,
    /// S, map slots per node (reduce slots are 0).
    pub map_slots: u32,
    /// The pools' weights, one per pool (P = its length ≥ 1; each finite and ≥ 0).
    pub weights: Vec<f64>,
    /// The pools' min map shares in slots, one per pool (finite, ≥ 0).
    pub min_map_shares: Vec<f64>,
    /// J, jobs per pool (≥ 1).
    pub jobs_per_pool: usize,
    /// Fewest pending maps of a job.
    pub min_job_tasks: usize,
    /// Most pending maps of a job (≥ `min_job_tasks`).
    pub max_job_tasks: usize,
    /// B ∈ [0, 1], the fraction of all map slots busy with running maps: round(B · N · S) of
    /// them.
    pub busy: f64,
    /// Relative number of running maps per pool, one per pool (finite, ≥ 0, with a positive
    /// sum when B > 0): the busy slots are divided in these proportions by largest remainders.
    pub running_mix: Vec<f64>,
    /// R, replicas per input block (≤ N when any map is pending).
    pub replication: usize,
    /// Bandwidth between two nodes of a rack, Mbit/s (finite, > 0).
    pub rack_mbps: f64,
    /// Bandwidth between nodes of different racks, Mbit/s (finite, > 0).
    pub cross_rack_mbps: f64,
    /// The snapshot's clock in seconds (finite, > 0); jobs are submitted before it.
    pub now_s: f64,
    /// RNG seed.
    pub seed: u64,
}

impl Default for MultiPoolSpec {
    /// 100 nodes in racks of 20 with 4 map slots (400 slots); pools of weights 1, 2, 4 with min
    /// map shares 0, 20, 40; 3 jobs per pool of 10–60 pending maps (about 315 in all); 75% of
    /// the slots busy (300), split 6 : 3 : 1 (180, 90, 30: the weight-4 pool runs least);
    /// replication 3; 1,000 / 100 Mbit/s; `now_s` 600; seed 1.
    fn default() -> Self {
        Self {
            nodes: 100,
            rack_size: 20,
            map_slots: 4,
            weights: vec![1.0, 2.0, 4.0],
            min_map_shares: vec![0.0, 20.0, 40.0],
            jobs_per_pool: 3,
            min_job_tasks: 10,
            max_job_tasks: 60,
            busy: 0.75,
            running_mix: vec![6.0, 3.0, 1.0],
            replication: 3,
            rack_mbps: 1000.0,
            cross_rack_mbps: 100.0,
            now_s: 600.0,
            seed: 1,
        }
    }
}

fn invalid(field: &'static str, message: String) -> DatasetError {
    DatasetError::InvalidSpec { field, message }
}

fn non_negative(field: &'static str, values: &[f64]) -> Result<(), DatasetError> {
    match values.iter().find(|v| !v.is_finite() || **v < 0.0) {
        Some(v) => Err(invalid(field, format!("must be finite and ≥ 0, got {v}"))),
        None => Ok(()),
    }
}

impl MultiPoolSpec {
    fn check(&self) -> Result<usize, DatasetError> {
        if self.nodes == 0 {
            return Err(invalid("nodes", "must be ≥ 1".into()));
        }
        if self.rack_size == 0 {
            return Err(invalid("rack-size", "must be ≥ 1".into()));
        }
        let pools = self.weights.len();
        if pools == 0 {
            return Err(invalid("weights", "need at least one pool".into()));
        }
        non_negative("weights", &self.weights)?;
        if self.min_map_shares.len() != pools {
            return Err(invalid(
                "min-map-shares",
                format!("one per pool: {pools} expected, got {}", self.min_map_shares.len()),
            ));
        }
        non_negative("min-map-shares", &self.min_map_shares)?;
        if self.running_mix.len() != pools {
            return Err(invalid(
                "running-mix",
                format!("one per pool: {pools} expected, got {}", self.running_mix.len()),
            ));
        }
        non_negative("running-mix", &self.running_mix)?;
        if self.jobs_per_pool == 0 {
            return Err(invalid("jobs-per-pool", "must be ≥ 1".into()));
        }
        if self.min_job_tasks > self.max_job_tasks {
            return Err(invalid(
                "max-job-tasks",
                format!("must be ≥ min-job-tasks ({})", self.min_job_tasks),
            ));
        }
        if !(0.0..=1.0).contains(&self.busy) {
            return Err(invalid("busy", format!("must be in [0, 1], got {}", self.busy)));
        }
        if self.max_job_tasks > 0 && self.replication > self.nodes {
            return Err(invalid(
                "replication",
                format!("{} replicas need ≥ {} nodes", self.replication, self.replication),
            ));
        }
        for (field, mbps) in
            [("rack-mbps", self.rack_mbps), ("cross-rack-mbps", self.cross_rack_mbps)]
        {
            if !mbps.is_finite() || mbps <= 0.0 {
                return Err(invalid(field, format!("must be finite and > 0, got {mbps}")));
            }
        }
        if !self.now_s.is_finite() || self.now_s <= 0.0 {
            return Err(invalid("now-s", format!("must be finite and > 0, got {}", self.now_s)));
        }
        let slots = self
            .nodes
            .checked_mul(self.map_slots as usize)
            .ok_or_else(|| invalid("map-slots", "nodes × slots overflows".into()))?;
        let busy = (self.busy * slots as f64).round() as usize;
        if busy > 0 && self.running_mix.iter().sum::<f64>() <= 0.0 {
            return Err(invalid("running-mix", "must have a positive sum when busy > 0".into()));
        }
        Ok(slots)
    }
}

/// Generates the snapshot (policy: the default `lsap`; set `policy.algorithm` to compare).
pub fn multi_pool_snapshot(spec: &MultiPoolSpec) -> Result<PlaceRequest, DatasetError> {
    let total_slots = spec.check()?;
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);

    let (racks, nodes) = racks_and_nodes(spec.nodes, spec.rack_size, spec.map_slots);

    let pools: Vec<Pool> = spec
        .weights
        .iter()
        .zip(&spec.min_map_shares)
        .enumerate()
        .map(|(i, (&weight, &min_map_share))| Pool {
            id: PoolId(format!("p{i}")),
            weight,
            min_map_share,
            ..Pool::default()
        })
        .collect();

    // Jobs, pool by pool, submitted at distinct random times before `now_s`.
    let job_count = pools.len() * spec.jobs_per_pool;
    let mut jobs: Vec<Job> = Vec::with_capacity(job_count);
    for pool in &pools {
        for k in 0..spec.jobs_per_pool {
            let submit_s = rng.random_range(0.0..spec.now_s);
            jobs.push(Job {
                id: JobId(format!("{}-j{k}", pool.id)),
                pool: pool.id.clone(),
                submit_s,
                ..Job::default()
            });
        }
    }

    // Busy slots: drawn at random, labelled with pools in `running_mix` proportions (labels
    // shuffled over the slots), each in a random job of its pool.
    let busy = (spec.busy * total_slots as f64).round() as usize;
    let per_pool = apportion(busy, &spec.running_mix);
    let mut labels: Vec<usize> =
        per_pool.iter().enumerate().flat_map(|(p, &c)| std::iter::repeat_n(p, c)).collect();
    labels.shuffle(&mut rng);
    let mut slots: Vec<usize> = sample(&mut rng, total_slots, busy).into_vec();
    slots.sort_unstable();
    let mut next_map = vec![0usize; job_count];
    let mut running = Vec::with_capacity(busy);
    for (&slot, &p) in slots.iter().zip(&labels) {
        let j = p * spec.jobs_per_pool + rng.random_range(0..spec.jobs_per_pool);
        let job = &jobs[j];
        let started_s = rng.random_range(job.submit_s..=spec.now_s);
        running.push(RunningTask {
            id: TaskId(format!("{}-m-{}", job.id, next_map[j])),
            job: job.id.clone(),
            kind: TaskKind::Map,
            node: nodes[slot / spec.map_slots as usize].id.clone(),
            started_s: Some(started_s),
            ..RunningTask::default()
        });
        next_map[j] += 1;
    }

    // Pending maps, job by job.
    let mut pending = Vec::new();
    for (j, job) in jobs.iter().enumerate() {
        let count = rng.random_range(spec.min_job_tasks..=spec.max_job_tasks);
        for _ in 0..count {
            let input_bytes = rng.random_range(64 * MIB..=256 * MIB);
            let replicas = sample(&mut rng, spec.nodes, spec.replication)
                .into_iter()
                .map(|n| nodes[n].id.clone())
                .collect();
            pending.push(PendingTask {
                id: TaskId(format!("{}-m-{}", job.id, next_map[j])),
                job: job.id.clone(),
                kind: TaskKind::Map,
                input_bytes,
                replicas,
                pending_since_s: Some(spec.now_s),
                ..PendingTask::default()
            });
            next_map[j] += 1;
        }
    }
    // Listed in random order, so that the tie-breaks of fairness-blind policies (snapshot
    // order) do not favour the pools listed first.
    pending.shuffle(&mut rng);

    Ok(PlaceRequest {
        now_s: spec.now_s,
        cluster: Cluster {
            racks,
            nodes,
            network: Network {
                rack_mbps: spec.rack_mbps,
                cross_rack_mbps: spec.cross_rack_mbps,
                rack_pairs: Vec::new(),
            },
        },
        pools,
        jobs,
        pending,
        running,
        ..PlaceRequest::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn running_per_pool(s: &PlaceRequest) -> Vec<usize> {
        let mut count = vec![0; s.pools.len()];
        for t in &s.running {
            let job = s.jobs.iter().find(|j| j.id == t.job).unwrap();
            let p = s.pools.iter().position(|p| p.id == job.pool).unwrap();
            count[p] += 1;
        }
        count
    }

    #[test]
    fn default_shape_matches_the_spec() {
        let spec = MultiPoolSpec::default();
        let s = multi_pool_snapshot(&spec).unwrap();
        placer_models::validate(&s).unwrap();
        assert_eq!(s.cluster.racks.len(), 5, "100 nodes in racks of 20");
        assert_eq!(s.cluster.nodes.len(), 100);
        assert!(s.cluster.nodes.iter().all(|n| n.map_slots == 4 && n.reduce_slots == 0));
        assert_eq!(s.pools.len(), 3);
        assert_eq!(s.pools.iter().map(|p| p.weight).collect::<Vec<_>>(), vec![1.0, 2.0, 4.0]);
        assert_eq!(s.pools[2].min_map_share, 40.0);
        assert_eq!(s.jobs.len(), 9);
        assert_eq!(s.running.len(), 300, "75% of 400 slots busy");
        assert_eq!(running_per_pool(&s), vec![180, 90, 30], "6 : 3 : 1");
        // Every node runs at most its slots.
        for n in &s.cluster.nodes {
            assert!(s.running.iter().filter(|t| t.node == n.id).count() <= 4);
        }
        for job in &s.jobs {
            let pending = s.pending.iter().filter(|t| t.job == job.id).count();
            assert!((10..=60).contains(&pending), "{}: {pending} pending", job.id);
            assert!((0.0..600.0).contains(&job.submit_s));
        }
        for t in &s.pending {
            assert!((64 * MIB..=256 * MIB).contains(&t.input_bytes));
            let mut r = t.replicas.to_ids();
            r.sort();
            r.dedup();
            assert_eq!(r.len(), 3, "distinct replicas");
            assert_eq!(t.pending_since_s, Some(600.0));
        }
    }

    #[test]
    fn job_sizes_differ() {
        let s = multi_pool_snapshot(&MultiPoolSpec::default()).unwrap();
        let mut sizes: Vec<usize> =
            s.jobs.iter().map(|j| s.pending.iter().filter(|t| t.job == j.id).count()).collect();
        sizes.sort_unstable();
        sizes.dedup();
        assert!(sizes.len() > 1);
    }

    #[test]
    fn same_seed_same_snapshot_other_seed_other() {
        let a = multi_pool_snapshot(&MultiPoolSpec::default()).unwrap();
        let b = multi_pool_snapshot(&MultiPoolSpec::default()).unwrap();
        assert_eq!(a, b);
        // Same serialised form, field for field and float for float.
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
        let c = multi_pool_snapshot(&MultiPoolSpec { seed: 2, ..MultiPoolSpec::default() });
        assert_ne!(a, c.unwrap());
    }

    #[test]
    fn other_shapes_stay_valid() {
        let spec = MultiPoolSpec {
            nodes: 7,
            rack_size: 3,
            map_slots: 2,
            weights: vec![1.0, 0.0, 3.0, 5.0],
            min_map_shares: vec![1.0, 0.0, 0.0, 2.0],
            jobs_per_pool: 2,
            min_job_tasks: 0,
            max_job_tasks: 4,
            busy: 1.0,
            running_mix: vec![1.0, 1.0, 0.0, 1.0],
            replication: 7,
            ..MultiPoolSpec::default()
        };
        let s = multi_pool_snapshot(&spec).unwrap();
        placer_models::validate(&s).unwrap();
        assert_eq!(s.cluster.racks.len(), 3);
        assert_eq!(s.running.len(), 14);
        assert_eq!(running_per_pool(&s), vec![5, 5, 0, 4], "14 by largest remainders");
    }

    #[test]
    fn apportion_is_exact_and_proportional() {
        assert_eq!(apportion(300, &[6.0, 3.0, 1.0]), vec![180, 90, 30]);
        assert_eq!(apportion(10, &[1.0, 1.0, 1.0]), vec![4, 3, 3]);
        assert_eq!(apportion(0, &[1.0]), vec![0]);
        assert_eq!(apportion(5, &[0.0, 2.0]), vec![0, 5]);
    }

    #[test]
    fn bad_specs_name_their_field() {
        let field = |spec: MultiPoolSpec| match multi_pool_snapshot(&spec) {
            Err(DatasetError::InvalidSpec { field, .. }) => field,
            Ok(_) => "ok",
            Err(_) => "other error",
        };
        let d = MultiPoolSpec::default;
        assert_eq!(field(MultiPoolSpec { weights: vec![], ..d() }), "weights");
        assert_eq!(field(MultiPoolSpec { weights: vec![1.0, f64::NAN, 1.0], ..d() }), "weights");
        assert_eq!(field(MultiPoolSpec { min_map_shares: vec![0.0], ..d() }), "min-map-shares");
        assert_eq!(field(MultiPoolSpec { running_mix: vec![0.0; 3], ..d() }), "running-mix");
        assert_eq!(field(MultiPoolSpec { busy: 1.5, ..d() }), "busy");
        assert_eq!(field(MultiPoolSpec { replication: 101, ..d() }), "replication");
        assert_eq!(field(MultiPoolSpec { jobs_per_pool: 0, ..d() }), "jobs-per-pool");
        assert_eq!(field(MultiPoolSpec { min_job_tasks: 70, ..d() }), "max-job-tasks");
        assert_eq!(field(MultiPoolSpec { cross_rack_mbps: 0.0, ..d() }), "cross-rack-mbps");
        assert_eq!(field(MultiPoolSpec { rack_size: 0, ..d() }), "rack-size");
        assert_eq!(field(MultiPoolSpec { busy: 0.0, running_mix: vec![0.0; 3], ..d() }), "ok");
    }
}
