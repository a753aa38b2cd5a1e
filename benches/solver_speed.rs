//! Solver speed on the lsap paper's synthetic clusters (Guo, Fox, Zhou §4.1 measured its LSAP
//! solver at 1 s for 2,900²): one `place` call (validate, index, cost, assign, answer) on
//! `gen snapshot` with racks of 20, 4 map slots, replication 3, rack-aware, seed 1, at the
//! three target sizes: 500 nodes / 50% idle / 1,000 tasks, 2,500 / 50% / 5,000 and
//! 12,500 / 25% / 20,000. Algorithms: every registered policy on `policy.solver = auto` (the
//! structured flow for the exact ones), and those that accept it on the dense `jv` engine at
//! 500 nodes (at 2,500 it needs ≈ 10 s, see BENCHMARKS.md). Run:
//! `cargo bench --bench solver_speed` (one policy: `cargo bench --bench solver_speed -- lsap/`).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use placer_datasets::{lsap_snapshot, LsapSnapshotSpec};
use placer_models::{PlaceRequest, SolverEngine, Status};
use placer_solver::{place, registry::REGISTRY, PlaceOptions};
use std::time::Duration;

fn snapshot(nodes: usize, idle: f64, tasks: usize) -> PlaceRequest {
    let spec = LsapSnapshotSpec { idle, tasks, ..LsapSnapshotSpec::fig3(nodes, true, 1) };
    lsap_snapshot(&spec).expect("valid spec")
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("place");
    group.sample_size(20).warm_up_time(Duration::from_secs(1));
    for (nodes, idle, tasks) in [(500, 0.5, 1000), (2500, 0.5, 5000), (12500, 0.25, 20000)] {
        let base = snapshot(nodes, idle, tasks);
        // Every registered policy on `auto`, and on the small size the exact ones (their
        // answer is `optimal`; the greedy ones ignore the engine) on the dense `jv` engine
        // too where they accept it (it is O(T · S) memory: too big for the larger sizes).
        let mut runs = Vec::new();
        for &(algorithm, policy) in REGISTRY {
            runs.push((algorithm, SolverEngine::Auto));
            let mut req = base.clone();
            req.policy.algorithm = algorithm;
            let exact = place(&req, &PlaceOptions::default())
                .is_ok_and(|r| r.stats.status == Status::Optimal);
            if nodes == 500 && exact && policy.engines().contains(&SolverEngine::Jv) {
                runs.push((algorithm, SolverEngine::Jv));
            }
        }
        for (algorithm, engine) in runs {
            let mut req = base.clone();
            req.policy.algorithm = algorithm;
            req.policy.solver = engine;
            group.measurement_time(Duration::from_secs(if nodes == 500 { 3 } else { 8 }));
            group.bench_with_input(
                BenchmarkId::new(
                    format!("{}/{engine:?}", algorithm.name()),
                    format!("{nodes}n_{tasks}t"),
                ),
                &req,
                |b, req| b.iter(|| place(req, &PlaceOptions::default()).expect("places")),
            );
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
