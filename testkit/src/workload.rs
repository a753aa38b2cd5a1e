//! Workloads for the what-if simulator (docs/simulator.md): jobs, maps, reduces
//! and topologies in placer-datasets' types, and seeded random workloads.

use placer_datasets::{JobSpec, MapSpec, NodeSpec, RackSpec, ReduceSpec, Topology, Workload};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A map of `input_bytes` read from `replicas`, computing `compute_s`, writing `output_bytes`.
pub fn map(input_bytes: u64, replicas: &[&str], compute_s: f64, output_bytes: u64) -> MapSpec {
    MapSpec {
        input_bytes,
        replicas: replicas.iter().map(|r| (*r).to_owned()).collect(),
        compute_s,
        output_bytes,
        ..MapSpec::default()
    }
}

/// A reduce pulling `shuffle_bytes`, computing `compute_s`.
pub fn reduce(shuffle_bytes: u64, compute_s: f64) -> ReduceSpec {
    ReduceSpec { shuffle_bytes, compute_s, ..ReduceSpec::default() }
}

/// A job of user `u` in pool `pool`, submitted at `submit_s`.
pub fn job(
    id: &str,
    pool: &str,
    submit_s: f64,
    maps: Vec<MapSpec>,
    reduces: Vec<ReduceSpec>,
) -> JobSpec {
    JobSpec {
        id: id.to_owned(),
        submit_s,
        user: "u".to_owned(),
        pool: pool.to_owned(),
        maps,
        reduces,
        ..JobSpec::default()
    }
}

/// A topology: racks `rack0`, `rack1`, … of (node name, map slots, reduce slots).
pub fn topology(racks: &[&[(&str, u32, u32)]]) -> Topology {
    Topology {
        racks: racks
            .iter()
            .enumerate()
            .map(|(r, nodes)| RackSpec {
                id: format!("rack{r}"),
                nodes: nodes
                    .iter()
                    .map(|&(id, m, red)| NodeSpec {
                        id: id.to_owned(),
                        map_slots: Some(m),
                        reduce_slots: Some(red),
                        capacity: None,
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// A seeded random workload on nodes `n0..n{nodes}`: `jobs` jobs in two pools, up to
/// `max_maps` maps (64–128 MB, 1–3 replicas, 1–20 s) and up to `max_reduces` reduces each,
/// arrivals in [0, span_s).
pub fn random_workload(
    seed: u64,
    nodes: usize,
    jobs: usize,
    max_maps: usize,
    max_reduces: usize,
    span_s: f64,
) -> Workload {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Workload { name: format!("random-{seed}"), ..Workload::default() };
    for j in 0..jobs {
        let maps = (0..rng.random_range(0..=max_maps))
            .map(|_| {
                let copies = rng.random_range(1..=3usize.min(nodes));
                let mut replicas: Vec<String> = Vec::new();
                while replicas.len() < copies {
                    let n = format!("n{}", rng.random_range(0..nodes));
                    if !replicas.contains(&n) {
                        replicas.push(n);
                    }
                }
                MapSpec {
                    input_bytes: rng.random_range(64_000_000..128_000_000),
                    replicas,
                    compute_s: rng.random_range(1.0..20.0),
                    output_bytes: rng.random_range(0..50_000_000),
                    ..MapSpec::default()
                }
            })
            .collect();
        let reduces = (0..rng.random_range(0..=max_reduces))
            .map(|_| reduce(rng.random_range(0..100_000_000), rng.random_range(1.0..10.0)))
            .collect();
        let pool = if j % 2 == 0 { "a" } else { "b" };
        out.jobs.push(job(&format!("job{j}"), pool, rng.random_range(0.0..span_s), maps, reduces));
    }
    out.sort_jobs();
    out
}
