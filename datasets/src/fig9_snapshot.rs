//! The fairness/locality tradeoff setup of lsap-fair-sched (Guo, Fox, Zhou §4.4, Fig. 9) as a v1
//! snapshot: 60 nodes with 1 map slot each, half of the slots idle, replication 1, 30 running
//! and 90 pending maps, 5 groups (pools) with weights 2^0 … 2^4; the group of every running and
//! of every pending task drawn uniformly at random.
//!
//! What the paper leaves open, placer's choices: racks of 20 (3 racks) with 1,000 Mbit/s inside
//! a rack and 100 Mbit/s across (`rack_aware`; otherwise 1,000 Mbit/s everywhere); input blocks
//! of 64–256 MiB (uniform, as in the paper's other experiments); one job per group (`g{i}-j`,
//! pool `g{i}`, submitted at 0, `now_s` 0, so `lsap_fair` gives no ageing credit); the busy
//! slots drawn uniformly at random and the single replica of every block on a node drawn
//! uniformly at random. The paper varies "the DLC of non-local tasks"; placer's knob is
//! `policy.alpha`, which scales every non-local DLC at once (set it on the snapshot).
//! Deterministic: ChaCha8 seeded with `seed`; O(N·S + T·R).

use crate::error::DatasetError;
use crate::topology::racks_and_nodes;
use placer_models::{
    Cluster, Job, JobId, Network, PendingTask, PlaceRequest, Pool, PoolId, RunningTask, TaskId,
    TaskKind,
};
use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const MIB: u64 = 1 << 20;

/// Parameters of the Fig. 9 setup; [`Fig9Spec::paper`] is the paper's.
#[derive(Clone, Debug, PartialEq)]
pub struct Fig9Spec {
    /// N, nodes (paper: 60).
    pub nodes: usize,
    /// K, nodes per rack (≥ 1; the last rack may be smaller). placer's choice: 20.
    pub rack_size: usize,
    /// S, map slots per node (paper: 1).
    pub map_slots: u32,
    /// F ∈ [0, 1], the fraction of all map slots idle (paper: 0.5); the others, round((1 − F) ·
    /// N · S) of them, run one map each.
    pub idle: f64,
    /// T, pending maps (paper: 90).
    pub tasks: usize,
    /// R, replicas per input block (paper: 1; ≤ N when T > 0).
    pub replication: usize,
    /// G, groups (pools) with weights 2^0 … 2^(G−1) (paper: 5; 1 ≤ G ≤ 30).
    pub groups: usize,
    /// 1,000 Mbit/s inside a rack and 100 Mbit/s across racks (placer's default: true), instead
    /// of 1,000 Mbit/s for every non-local read.
    pub rack_aware: bool,
    /// RNG seed.
    pub seed: u64,
}

impl Fig9Spec {
    /// The paper's setup (60 nodes × 1 slot, 50% idle, 90 pending, replication 1, 5 groups)
    /// with placer's choices: racks of 20, rack-aware bandwidths.
    pub fn paper(seed: u64) -> Self {
        Self {
            nodes: 60,
            rack_size: 20,
            map_slots: 1,
            idle: 0.5,
            tasks: 90,
            replication: 1,
            groups: 5,
            rack_aware: true,
            seed,
        }
    }
}

/// Generates the snapshot (policy: `lsap` by default; set `policy.algorithm = lsap_fair` and
/// `policy.alpha` / `policy.beta` to sweep the tradeoff).
pub fn fig9_snapshot(spec: &Fig9Spec) -> Result<PlaceRequest, DatasetError> {
    if spec.rack_size == 0 {
        return Err(DatasetError::InvalidSpec {
            field: "rack-size",
            message: "must be ≥ 1".into(),
        });
    }
    if !(0.0..=1.0).contains(&spec.idle) {
        return Err(DatasetError::InvalidSpec {
            field: "idle",
            message: format!("must be in [0, 1], got {}", spec.idle),
        });
    }
    if spec.tasks > 0 && spec.replication > spec.nodes {
        return Err(DatasetError::InvalidSpec {
            field: "replication",
            message: format!("{} replicas need ≥ {} nodes", spec.replication, spec.replication),
        });
    }
    if !(1..=30).contains(&spec.groups) {
        return Err(DatasetError::InvalidSpec {
            field: "groups",
            message: format!("must be in 1..=30, got {}", spec.groups),
        });
    }
    let total_slots = spec.nodes.checked_mul(spec.map_slots as usize).ok_or_else(|| {
        DatasetError::InvalidSpec { field: "map-slots", message: "nodes × slots overflows".into() }
    })?;
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);

    let (racks, nodes) = racks_and_nodes(spec.nodes, spec.rack_size, spec.map_slots);
    let pools: Vec<Pool> = (0..spec.groups)
        .map(|g| Pool {
            id: PoolId(format!("g{g}")),
            weight: f64::from(1u32 << g),
            ..Pool::default()
        })
        .collect();
    let jobs: Vec<Job> = pools
        .iter()
        .map(|p| Job { id: JobId(format!("{}-j", p.id)), pool: p.id.clone(), ..Job::default() })
        .collect();
    let mut next_map = vec![0usize; jobs.len()];
    let mut task_of = |g: usize| {
        let id = TaskId(format!("{}-m-{}", jobs[g].id, next_map[g]));
        next_map[g] += 1;
        (id, jobs[g].id.clone())
    };

    let idle = (spec.idle * total_slots as f64).round() as usize;
    let mut busy: Vec<usize> = sample(&mut rng, total_slots, total_slots - idle).into_vec();
    busy.sort_unstable();
    let running: Vec<RunningTask> = busy
        .iter()
        .map(|&slot| {
            let (id, job) = task_of(rng.random_range(0..spec.groups));
            RunningTask {
                id,
                job,
                kind: TaskKind::Map,
                node: nodes[slot / spec.map_slots as usize].id.clone(),
                started_s: Some(0.0),
                ..RunningTask::default()
            }
        })
        .collect();

    let pending: Vec<PendingTask> = (0..spec.tasks)
        .map(|_| {
            let (id, job) = task_of(rng.random_range(0..spec.groups));
            let input_bytes = rng.random_range(64 * MIB..=256 * MIB);
            let replicas = sample(&mut rng, spec.nodes, spec.replication)
                .into_iter()
                .map(|n| nodes[n].id.clone())
                .collect();
            PendingTask {
                id,
                job,
                kind: TaskKind::Map,
                input_bytes,
                replicas,
                ..PendingTask::default()
            }
        })
        .collect();

    let network = Network {
        rack_mbps: 1000.0,
        cross_rack_mbps: if spec.rack_aware { 100.0 } else { 1000.0 },
        rack_pairs: Vec::new(),
    };
    Ok(PlaceRequest {
        cluster: Cluster { racks, nodes, network },
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

    #[test]
    fn paper_shape() {
        let s = fig9_snapshot(&Fig9Spec::paper(1)).unwrap();
        placer_models::validate(&s).unwrap();
        assert_eq!(s.cluster.nodes.len(), 60);
        assert_eq!(s.cluster.racks.len(), 3, "racks of 20");
        assert!(s.cluster.nodes.iter().all(|n| n.map_slots == 1));
        assert_eq!(s.running.len(), 30, "half of 60 slots busy");
        assert_eq!(s.pending.len(), 90);
        let weights: Vec<f64> = s.pools.iter().map(|p| p.weight).collect();
        assert_eq!(weights, vec![1.0, 2.0, 4.0, 8.0, 16.0]);
        let mut busy: Vec<&placer_models::NodeId> = s.running.iter().map(|t| &t.node).collect();
        busy.sort();
        busy.dedup();
        assert_eq!(busy.len(), 30, "one slot per node: distinct nodes");
        for t in &s.pending {
            assert_eq!(t.replicas.len(), 1);
            assert!((64 * MIB..=256 * MIB).contains(&t.input_bytes));
        }
        // Random groups: with 120 tasks over 5 groups, every group gets some.
        for job in &s.jobs {
            assert!(s.pending.iter().any(|t| t.job == job.id), "{}", job.id);
        }
        assert_eq!(s.cluster.network.cross_rack_mbps, 100.0);
    }

    #[test]
    fn same_seed_same_snapshot_other_seed_other() {
        let a = fig9_snapshot(&Fig9Spec::paper(1)).unwrap();
        let b = fig9_snapshot(&Fig9Spec::paper(1)).unwrap();
        assert_eq!(a, b);
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
        assert_ne!(a, fig9_snapshot(&Fig9Spec::paper(2)).unwrap());
    }

    #[test]
    fn homogeneous_network_and_bad_specs() {
        let s = fig9_snapshot(&Fig9Spec { rack_aware: false, ..Fig9Spec::paper(3) }).unwrap();
        assert_eq!(s.cluster.network.cross_rack_mbps, 1000.0);
        for (spec, want) in [
            (Fig9Spec { groups: 0, ..Fig9Spec::paper(1) }, "groups"),
            (Fig9Spec { groups: 31, ..Fig9Spec::paper(1) }, "groups"),
            (Fig9Spec { idle: -0.1, ..Fig9Spec::paper(1) }, "idle"),
            (Fig9Spec { replication: 61, ..Fig9Spec::paper(1) }, "replication"),
            (Fig9Spec { rack_size: 0, ..Fig9Spec::paper(1) }, "rack-size"),
        ] {
            match fig9_snapshot(&spec) {
                Err(DatasetError::InvalidSpec { field, .. }) => assert_eq!(field, want),
                Ok(_) => panic!("{want} accepted"),
                Err(other) => panic!("{want}: unexpected {other}"),
            }
        }
    }
}
