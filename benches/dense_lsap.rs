//! Dense LSAP speed (Jonker & Volgenant 1987; lsap-sched §3.2's per-epoch solve): placer's JV
//! engine (`placer lsap`, `policy.solver = jv`) on seeded uniform-random f64 matrices in [0, 1):
//! 1,000², 3,000² and a rectangular 1,000 × 2,000. The matrix is built once outside the timed
//! loop. Run: `cargo bench --bench dense_lsap`.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use ndarray::Array2;
use placer_solver::lsap::jv;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Duration;

fn uniform(rows: usize, cols: usize, seed: u64) -> Array2<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    Array2::from_shape_simple_fn((rows, cols), || rng.random::<f64>())
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("dense_lsap_jv");
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    for (rows, cols, seed) in [(1000, 1000, 1), (3000, 3000, 3), (1000, 2000, 2)] {
        let m = uniform(rows, cols, seed);
        group.measurement_time(Duration::from_secs(if rows * cols > 4_000_000 { 8 } else { 3 }));
        group.bench_with_input(
            BenchmarkId::new("uniform", format!("{rows}x{cols}")),
            &m,
            |b, m| b.iter(|| jv::solve_f64(m.view()).expect("feasible")),
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
