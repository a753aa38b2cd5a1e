//! Solver speed on the lsap paper's synthetic clusters (Guo, Fox, Zhou §4.1 measured its LSAP
//! solver at 1 s for 2,900²): one `place` call of `lsap` (dense JV) and `dl_sched` on
//! `gen snapshot` with 500 and 2,500 nodes × 4 slots, 50% idle, tasks = idle slots,
//! replication 3, racks of 20, rack-aware. Run: `cargo bench --bench solver_speed`.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use placer_datasets::{lsap_snapshot, LsapSnapshotSpec};
use placer_models::{Algorithm, PlaceRequest};
use placer_solver::{place, PlaceOptions};
use std::time::Duration;

fn snapshot(nodes: usize, algorithm: Algorithm) -> PlaceRequest {
    let spec = LsapSnapshotSpec::fig3(nodes, true, 1);
    let mut req = lsap_snapshot(&spec).expect("valid spec");
    req.policy.algorithm = algorithm;
    req
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("place");
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    for nodes in [500, 2500] {
        for algorithm in [Algorithm::DlSched, Algorithm::Lsap] {
            let req = snapshot(nodes, algorithm);
            if nodes == 2500 && algorithm == Algorithm::Lsap {
                group.measurement_time(Duration::from_secs(100));
            } else {
                group.measurement_time(Duration::from_secs(5));
            }
            group.bench_with_input(
                BenchmarkId::new(algorithm.name(), format!("{nodes}n_{}t", nodes * 2)),
                &req,
                |b, req| b.iter(|| place(req, &PlaceOptions::default()).expect("places")),
            );
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
