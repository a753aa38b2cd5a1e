//! Times placer's dense JV (`solver/src/lsap/jv.rs`, Jonker & Volgenant 1987) in-process on a
//! `.lsap` file (`placer lsap`'s format: rows and columns as little-endian u64, then row-major
//! f64): the minimum over N runs of the wall time and of this thread's CPU time
//! (`/proc/thread-self/schedstat`), which on a shared machine counts the solve's own work.
//! Pairs with `benches/peers/dense_jv.py` (lapx's solvers timed with `time.thread_time`). Run:
//! `cargo run --release -p placer-solver --no-default-features --example jv_time -- FILE [N]`.

use ndarray::Array2;
use std::error::Error;
use std::time::Instant;

/// This thread's CPU time in seconds.
fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|ns| ns.parse::<f64>().ok()))
        .map_or(0.0, |ns| ns * 1e-9)
}

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().collect();
    let file = args.get(1).ok_or("usage: jv_time FILE [RUNS]")?;
    let runs: usize = args.get(2).map_or(Ok(5), |s| s.parse())?;
    let bytes = std::fs::read(file)?;
    let word = |k: usize| -> Result<usize, Box<dyn Error>> {
        let b = bytes.get(8 * k..8 * k + 8).ok_or("truncated header")?;
        Ok(usize::try_from(u64::from_le_bytes(b.try_into()?))?)
    };
    let (rows, cols) = (word(0)?, word(1)?);
    let body = bytes.get(16..).ok_or("truncated header")?;
    let mut values = Vec::with_capacity(rows * cols);
    for b in body.chunks_exact(8) {
        values.push(f64::from_le_bytes(b.try_into()?));
    }
    let m = Array2::from_shape_vec((rows, cols), values)?;
    let (mut wall, mut cpu, mut objective) = (f64::INFINITY, f64::INFINITY, 0.0);
    for _ in 0..runs {
        let (c0, t0) = (cpu_seconds(), Instant::now());
        let solution = placer_solver::lsap::jv::solve_f64(m.view())?;
        wall = wall.min(t0.elapsed().as_secs_f64());
        cpu = cpu.min(cpu_seconds() - c0);
        objective = solution.objective;
    }
    println!(
        "{file}: {rows} x {cols}, wall {:.1} ms, cpu {:.1} ms (min of {runs}), objective {objective:.12}",
        wall * 1e3,
        cpu * 1e3
    );
    Ok(())
}
