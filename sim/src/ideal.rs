//! A job's time alone on the idle cluster, the denominator of its slowdown (`sim/README.md`,
//! "What it models"; FAIR, Zaharia et al. §6 report response-time gains against
//! the same job under another scheduler; placer uses a cheap analytic stand-in for a one-job
//! run).
//!
//! Definition (placer's): every map node-local, every reduce pulling its whole shuffle over an
//! uncontended in-rack link, phases in sequence, tasks of a phase packed on all the cluster's
//! slots of their kind with no other job present:
//!
//! `ideal = phase(maps, M) + phase(reduces, R)`, where
//! `phase(tasks, S) = max(max_t d_t, Σ_t d_t / S)` (0 without tasks; +∞ if S = 0),
//! map `d = compute_s + input_bytes / (disk_mb_s · 10⁶)` and
//! reduce `d = compute_s + shuffle_bytes · 8 / (rack_mbps · 10⁶)`, all in seconds.
//!
//! Example: 4 maps of 10 s compute and 100 MB input on 2 map slots at 100 MB/s: d = 11 s,
//! phase = max(11, 44 / 2) = 22 s. It ignores the epoch wait and remote reads, so a real run
//! is usually a little slower (slowdown ≥ 1), but it is an estimate, not a bound: a reduce
//! whose sources are on its own node reads at the disk rate. O(tasks).

use placer_datasets::JobSpec;

/// `ideal` above for `job` on a cluster of `map_slots` and `reduce_slots` slots.
pub fn ideal_time_s(
    job: &JobSpec,
    map_slots: u64,
    reduce_slots: u64,
    disk_mb_s: f64,
    rack_mbps: f64,
) -> f64 {
    let maps = job.maps.iter().map(|m| m.compute_s + m.input_bytes as f64 / (disk_mb_s * 1e6));
    let reduces =
        job.reduces.iter().map(|r| r.compute_s + r.shuffle_bytes as f64 * 8.0 / (rack_mbps * 1e6));
    phase(maps, map_slots) + phase(reduces, reduce_slots)
}

fn phase(durations: impl Iterator<Item = f64>, slots: u64) -> f64 {
    let (max, sum, n) =
        durations.fold((0.0_f64, 0.0_f64, 0usize), |(m, s, n), d| (m.max(d), s + d, n + 1));
    if n == 0 {
        0.0
    } else if slots == 0 {
        f64::INFINITY
    } else {
        max.max(sum / slots as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use placer_datasets::{MapSpec, ReduceSpec};

    #[test]
    fn module_doc_example_and_a_reduce() {
        // Maps: max(11, 44 / 2) = 22 s. One reduce of 5 s compute pulling 125 MB at
        // 1000 Mbit/s (1 s): 6 s. Total 28 s.
        let map = MapSpec { input_bytes: 100_000_000, compute_s: 10.0, ..MapSpec::default() };
        let job = JobSpec {
            maps: vec![map; 4],
            reduces: vec![ReduceSpec {
                shuffle_bytes: 125_000_000,
                compute_s: 5.0,
                ..ReduceSpec::default()
            }],
            ..JobSpec::default()
        };
        assert!((ideal_time_s(&job, 2, 1, 100.0, 1000.0) - 28.0).abs() < 1e-12);
        assert_eq!(ideal_time_s(&job, 2, 0, 100.0, 1000.0), f64::INFINITY);
        assert_eq!(ideal_time_s(&JobSpec::default(), 0, 0, 100.0, 1000.0), 0.0);
    }
}
