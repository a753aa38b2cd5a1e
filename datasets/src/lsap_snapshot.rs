//! The synthetic cluster of the lsap paper's experiments (Guo, Fox, Zhou §4.2–4.3, Figs. 3–8) as
//! a v1 snapshot: N nodes in racks of K, S map slots each, a fraction F of all map slots idle
//! (the rest run tasks of a background job, on slots drawn uniformly at random), T pending map
//! tasks with input sizes uniform in [64, 256] MiB and R replicas on distinct nodes drawn
//! uniformly at random.
//!
//! Bandwidths: with `rack_aware`, 1,000 Mbit/s inside a rack and 100 Mbit/s across racks (the
//! paper draws rack-local and remote costs from N(1, 0.5) and N(4, 2); placer derives costs
//! from bandwidths instead); without it every non-local read runs at 1,000 Mbit/s, the paper's
//! homogeneous case. Deterministic: ChaCha8 seeded with `seed`, O(N·S + T·R).

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

/// Parameters of the lsap paper's synthetic setup (`placer gen snapshot` flags).
#[derive(Clone, Debug, PartialEq)]
pub struct LsapSnapshotSpec {
    /// N, nodes.
    pub nodes: usize,
    /// K, nodes per rack (the last rack may be smaller).
    pub rack_size: usize,
    /// S, map slots per node.
    pub map_slots: u32,
    /// F ∈ [0, 1], fraction of all map slots left idle.
    pub idle: f64,
    /// T, pending map tasks.
    pub tasks: usize,
    /// R, replicas per input block (≤ N when T > 0).
    pub replication: usize,
    /// In-rack 1,000 Mbit/s vs cross-rack 100 Mbit/s, instead of one bandwidth.
    pub rack_aware: bool,
    /// RNG seed.
    pub seed: u64,
}

impl LsapSnapshotSpec {
    /// The paper's §4.2 setup for `nodes` nodes: 4 map slots, 50% idle, tasks = idle slots,
    /// replication 3, racks of 20.
    pub fn fig3(nodes: usize, rack_aware: bool, seed: u64) -> Self {
        Self {
            nodes,
            rack_size: 20,
            map_slots: 4,
            idle: 0.5,
            tasks: nodes * 2,
            replication: 3,
            rack_aware,
            seed,
        }
    }
}

/// Generates the snapshot. Idle slots = round(F · N · S); the background job `bg` runs on the
/// others; pending tasks belong to job `j1`; both are in pool `default`.
pub fn lsap_snapshot(spec: &LsapSnapshotSpec) -> Result<PlaceRequest, DatasetError> {
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
    let total_slots = spec.nodes.checked_mul(spec.map_slots as usize).ok_or_else(|| {
        DatasetError::InvalidSpec { field: "map-slots", message: "nodes × slots overflows".into() }
    })?;
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);

    let (racks, nodes) = racks_and_nodes(spec.nodes, spec.rack_size, spec.map_slots);

    let idle = (spec.idle * total_slots as f64).round() as usize;
    let mut busy: Vec<usize> = sample(&mut rng, total_slots, total_slots - idle).into_vec();
    busy.sort_unstable();
    let background = JobId::from("bg");
    let running = busy
        .iter()
        .enumerate()
        .map(|(k, &slot)| RunningTask {
            id: TaskId(format!("bg-m-{k}")),
            job: background.clone(),
            kind: TaskKind::Map,
            node: nodes[slot / spec.map_slots as usize].id.clone(),
            started_s: Some(0.0),
            ..RunningTask::default()
        })
        .collect();

    let job = JobId::from("j1");
    let pending = (0..spec.tasks)
        .map(|i| {
            let input_bytes = rng.random_range(64 * MIB..=256 * MIB);
            let replicas = sample(&mut rng, spec.nodes, spec.replication)
                .into_iter()
                .map(|n| nodes[n].id.clone())
                .collect();
            PendingTask {
                id: TaskId(format!("j1-m-{i}")),
                job: job.clone(),
                kind: TaskKind::Map,
                input_bytes,
                replicas,
                ..PendingTask::default()
            }
        })
        .collect();

    let pool = PoolId::from("default");
    let network = if spec.rack_aware {
        Network { rack_mbps: 1000.0, cross_rack_mbps: 100.0, rack_pairs: Vec::new() }
    } else {
        Network { rack_mbps: 1000.0, cross_rack_mbps: 1000.0, rack_pairs: Vec::new() }
    };
    Ok(PlaceRequest {
        cluster: Cluster { racks, nodes, network },
        pools: vec![Pool { id: pool.clone(), ..Pool::default() }],
        jobs: vec![
            Job { id: background, pool: pool.clone(), ..Job::default() },
            Job { id: job, pool, ..Job::default() },
        ],
        pending,
        running,
        ..PlaceRequest::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(seed: u64) -> LsapSnapshotSpec {
        LsapSnapshotSpec {
            nodes: 50,
            rack_size: 20,
            map_slots: 4,
            idle: 0.5,
            tasks: 100,
            replication: 3,
            rack_aware: true,
            seed,
        }
    }

    #[test]
    fn shape_matches_the_spec() {
        let s = lsap_snapshot(&spec(7)).unwrap();
        assert_eq!(s.cluster.racks.len(), 3, "50 nodes in racks of 20");
        assert_eq!(s.cluster.nodes.len(), 50);
        assert_eq!(s.running.len(), 100, "half of 200 slots busy");
        assert_eq!(s.pending.len(), 100);
        for t in &s.pending {
            assert!((64 * MIB..=256 * MIB).contains(&t.input_bytes));
            let mut r = t.replicas.to_ids();
            r.sort();
            r.dedup();
            assert_eq!(r.len(), 3, "distinct replicas");
        }
        placer_models::validate(&s).unwrap();
    }

    #[test]
    fn same_seed_same_snapshot_other_seed_other() {
        assert_eq!(lsap_snapshot(&spec(7)).unwrap(), lsap_snapshot(&spec(7)).unwrap());
        assert_ne!(lsap_snapshot(&spec(7)).unwrap(), lsap_snapshot(&spec(8)).unwrap());
    }

    #[test]
    fn bad_specs_name_their_flag() {
        let mut s = spec(1);
        s.replication = 51;
        assert!(matches!(
            lsap_snapshot(&s),
            Err(DatasetError::InvalidSpec { field: "replication", .. })
        ));
        let mut s = spec(1);
        s.idle = 1.5;
        assert!(matches!(lsap_snapshot(&s), Err(DatasetError::InvalidSpec { field: "idle", .. })));
    }
}
