//! Reader for SWIM workload files (Chen, Ganapathi, Griffith, Katz, "The Case for Evaluating
//! MapReduce Performance Using Workload Suites", MASCOTS 2011; SWIMProjectUCB/SWIM
//! `workloadSuite/`): the Facebook 2009 and 2010 synthesized days, tab-separated, one job per
//! line: `job id, submit s, gap s, map input bytes, shuffle bytes, reduce output bytes
//! [, input path, output path]` (6, 8 or — the FB-2010 `withInputPaths` file — 9 fields).
//! Units: seconds (relative to the workload's start, as in the file) and bytes.
//! Complexity: O(lines + Σ tasks · replication) time and memory.
//!
//! SWIM has only job-level sizes; the tasks follow SWIM's own replay rules
//! (`GenerateReplayScript.java`), with these choices of placer's:
//! - maps = ⌈input / `block_bytes`⌉, an input below one block (including 0) counting as one
//!   block; the input bytes are split evenly over the maps (the first `input mod maps` get one
//!   byte more). Unlike SWIM's replay, the bytes are not raised to 64 MiB: the simulator reads
//!   what the trace says.
//! - reduces = round((shuffle + output) / `bytes_per_reduce`), at least 1 — **but a job with
//!   shuffle 0 is map-only (0 reduces)** unless [`SwimOptions::swim_min_one_reduce`] asks for
//!   SWIM's rule (it raises shuffle and output to ≥ 1,024 bytes, so every job has a reduce).
//!   75.5 % of FB-2009 jobs have shuffle 0; treating them as map-only is what the numbers say.
//!   `bytes_per_reduce` defaults to 64 MiB, the value SWIM's README uses for "amount of data
//!   per reduce task" (and for its pre-generated scripts). SWIM's cap of reduces at the replay
//!   cluster's size is not applied (it depends on a cluster the trace does not name). The
//!   shuffle and output bytes are split evenly over the reduces; each map's `output_bytes` is
//!   its even share of the shuffle (0 for a map-only job, whose output SWIM's model has no
//!   place for).
//! - `size_scale` multiplies every byte count first (SWIM's `machines now / machines then`),
//!   truncating like SWIM's integer arithmetic; FB-2010 at scale 1 has 16 million maps.
//! - Block locations: SWIM has none, so each map's split gets `replication` replicas by
//!   [`hdfs_replicas`] over the given topology, from a ChaCha8 RNG seeded with `seed`, drawn in
//!   file order. Jobs naming the same input path (the `withInputPaths` file: data reuse across
//!   jobs) read the same blocks: block k of a path has the same replicas in every job that
//!   reads it. A map with 0 input bytes has no block and no replicas; so does every map when
//!   the topology is empty.
//! - Compute time: `compute_s` = map input bytes × `map_s_per_byte` for maps and (shuffle +
//!   output) × `reduce_s_per_byte` for reduces. Both default to 5 s per 64 MiB, FAIR's
//!   IO-bound task (Zaharia et al., EuroSys 2010, §4.3, IO-rate biasing: "5s to process a
//!   64 MB block").
//! - Users and pools: the trace has none. user = `"unknown"`; pool per [`SwimPools`]
//!   (`"default"` by default). `class` = the job's size bin of FAIR's Table 2 by map count
//!   (`bin0` = 1–25 maps, `bin1` = 26–50, … `bin8` > 3,200).
//!
//! Validation: the id must be non-empty and unique; submit and gap must be finite numbers ≥ 0;
//! sizes non-negative integers; a job may have at most `max_tasks_per_job` maps and as many
//! reduces (an input of 2⁶⁴ bytes must not exhaust memory). Errors name the file, `line N` and
//! the column's name. Blank lines are skipped.

use crate::error::DatasetError;
use crate::replicas::{hdfs_replicas, rack_index};
use crate::rumen::{malformed, read_file};
use crate::workload::{JobSpec, MapSpec, ReduceSpec, Topology, Workload};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const MIB: u64 = 1 << 20;

/// How jobs are put in pools (SWIM names none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SwimPools {
    /// Every job in `"default"`.
    #[default]
    Single,
    /// Job i (file order) in pool `pool{i mod n}` (n ≥ 1).
    RoundRobin(usize),
    /// A job in the pool named after its FAIR Table 2 size bin (`bin0` … `bin8`).
    BySizeBin,
}

/// How [`read_swim`] derives tasks from a SWIM file. [`SwimOptions::new`] gives the documented
/// defaults for a topology and seed.
#[derive(Clone, Debug, PartialEq)]
pub struct SwimOptions {
    /// Cluster whose nodes hold the synthesised replicas (not attached to the workload).
    pub topology: Topology,
    /// Seed of the replica placement.
    pub seed: u64,
    /// HDFS block size, bytes (default 64 MiB; ≥ 1).
    pub block_bytes: u64,
    /// Shuffle + output bytes per reduce, bytes (default 64 MiB; ≥ 1).
    pub bytes_per_reduce: u64,
    /// Replicas per block (default 3).
    pub replication: usize,
    /// Map compute time per input byte, s (default 5 s / 64 MiB).
    pub map_s_per_byte: f64,
    /// Reduce compute time per shuffle + output byte, s (default 5 s / 64 MiB).
    pub reduce_s_per_byte: f64,
    /// Factor on every byte count (default 1; finite, > 0).
    pub size_scale: f64,
    /// SWIM's own reduce rule: every job has ≥ 1 reduce, shuffle and output raised to 1,024
    /// bytes (default false: shuffle 0 means map-only).
    pub swim_min_one_reduce: bool,
    /// Pool assignment (default [`SwimPools::Single`]).
    pub pools: SwimPools,
    /// Most maps (and most reduces) one job may have (default 1,000,000).
    pub max_tasks_per_job: u64,
}

impl SwimOptions {
    /// The documented defaults on `topology` with `seed`.
    pub fn new(topology: Topology, seed: u64) -> Self {
        SwimOptions {
            topology,
            seed,
            block_bytes: 64 * MIB,
            bytes_per_reduce: 64 * MIB,
            replication: 3,
            map_s_per_byte: 5.0 / (64 * MIB) as f64,
            reduce_s_per_byte: 5.0 / (64 * MIB) as f64,
            size_scale: 1.0,
            swim_min_one_reduce: false,
            pools: SwimPools::Single,
            max_tasks_per_job: 1_000_000,
        }
    }
}

/// FAIR Table 2's size bin (0–8) of a job with `maps` maps.
pub fn fair_size_bin(maps: usize) -> usize {
    const UPPER: [usize; 8] = [25, 50, 100, 200, 400, 800, 1600, 3200];
    UPPER.iter().position(|&u| maps <= u).unwrap_or(8)
}

/// Reads a SWIM tsv file.
pub fn read_swim(path: &Path, options: &SwimOptions) -> Result<Workload, DatasetError> {
    let file = path.display().to_string();
    let bytes = read_file(&file, path)?;
    parse_swim(&file, &bytes, options)
}

/// Parses SWIM tsv bytes; `file` names them in errors.
pub fn parse_swim(
    file: &str,
    bytes: &[u8],
    options: &SwimOptions,
) -> Result<Workload, DatasetError> {
    check_options(options)?;
    let (rack_of, nodes_of_rack) = rack_index(&options.topology);
    let names: Vec<String> = options.topology.nodes().map(|(_, n)| n.id.clone()).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let mut blocks_of_path: BTreeMap<String, Vec<Vec<usize>>> = BTreeMap::new();
    let mut ids = BTreeSet::new();
    let mut jobs = Vec::new();
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let loc = format!("line {}", i + 1);
        let m = |field: &str, msg: &str| malformed(file, &loc, field, msg);
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let line = std::str::from_utf8(raw).map_err(|_| m("line", "not UTF-8"))?;
        let cols: Vec<&str> = line.split('\t').collect();
        const NAMES: [&str; 6] = [
            "job_id",
            "submit_time_seconds",
            "inter_job_submit_gap_seconds",
            "map_input_bytes",
            "shuffle_bytes",
            "reduce_output_bytes",
        ];
        if cols.len() < 6 {
            return Err(m(NAMES[cols.len()], &format!("missing column ({} of 6)", cols.len() + 1)));
        }
        let id = cols[0].trim();
        if id.is_empty() {
            return Err(m(NAMES[0], "empty"));
        }
        if !ids.insert(id.to_string()) {
            return Err(m(NAMES[0], "duplicate job id"));
        }
        let submit = seconds(cols[1], NAMES[1], &m)?;
        seconds(cols[2], NAMES[2], &m)?;
        let scale = |x: u64| -> u64 {
            if options.size_scale == 1.0 {
                x
            } else {
                (x as f64 * options.size_scale).floor() as u64
            }
        };
        let input = scale(bytes_field(cols[3], NAMES[3], &m)?);
        let mut shuffle = scale(bytes_field(cols[4], NAMES[4], &m)?);
        let mut output = scale(bytes_field(cols[5], NAMES[5], &m)?);
        let path = cols.get(6).map(|p| p.trim()).filter(|p| !p.is_empty());

        let n_maps = input.div_ceil(options.block_bytes).max(1);
        if n_maps > options.max_tasks_per_job {
            return Err(m(
                NAMES[3],
                &format!("{n_maps} maps exceed max_tasks_per_job {}", options.max_tasks_per_job),
            ));
        }
        let n_reduces = if options.swim_min_one_reduce {
            shuffle = shuffle.max(1024);
            output = output.max(1024);
            reduce_count(shuffle, output, options.bytes_per_reduce).max(1)
        } else if shuffle == 0 {
            0
        } else {
            reduce_count(shuffle, output, options.bytes_per_reduce).max(1)
        };
        if n_reduces > options.max_tasks_per_job {
            return Err(m(
                NAMES[4],
                &format!(
                    "{n_reduces} reduces exceed max_tasks_per_job {}",
                    options.max_tasks_per_job
                ),
            ));
        }

        let maps_n = n_maps as usize;
        let mut maps = Vec::with_capacity(maps_n);
        for k in 0..maps_n {
            let input_bytes = share(input, n_maps, k as u64);
            let replicas = if input_bytes == 0 || names.is_empty() {
                Vec::new()
            } else {
                let nodes = match path {
                    Some(p) => {
                        let blocks = blocks_of_path.entry(p.to_string()).or_default();
                        while blocks.len() <= k {
                            blocks.push(hdfs_replicas(
                                &rack_of,
                                &nodes_of_rack,
                                options.replication,
                                &mut rng,
                            ));
                        }
                        blocks[k].clone()
                    }
                    None => hdfs_replicas(&rack_of, &nodes_of_rack, options.replication, &mut rng),
                };
                nodes.into_iter().map(|n| names[n].clone()).collect()
            };
            maps.push(MapSpec {
                failed_attempts_s: Vec::new(),
                input_bytes,
                replicas,
                compute_s: input_bytes as f64 * options.map_s_per_byte,
                output_bytes: if n_reduces == 0 { 0 } else { share(shuffle, n_maps, k as u64) },
                demand: None,
                observed_host: None,
            });
        }
        let reduces = (0..n_reduces)
            .map(|k| {
                let s = share(shuffle, n_reduces, k);
                let o = share(output, n_reduces, k);
                ReduceSpec {
                    failed_attempts_s: Vec::new(),
                    shuffle_bytes: s,
                    output_bytes: o,
                    compute_s: (s as f64 + o as f64) * options.reduce_s_per_byte,
                    demand: None,
                }
            })
            .collect();
        let bin = fair_size_bin(maps_n);
        let pool = match options.pools {
            SwimPools::Single => "default".to_string(),
            SwimPools::RoundRobin(n) => format!("pool{}", jobs.len() % n.max(1)),
            SwimPools::BySizeBin => format!("bin{bin}"),
        };
        jobs.push(JobSpec {
            gang: None,
            topology: None,
            cleanup_s: None,
            setup_s: None,
            observed_finish_s: None,
            id: id.to_string(),
            submit_s: submit,
            user: "unknown".into(),
            pool,
            maps,
            reduces,
            deadline_s: None,
            class: Some(format!("bin{bin}")),
        });
    }
    let mut w = Workload {
        measured_times: false,
        name: file.to_string(),
        jobs,
        pools: Vec::new(),
        topology: None,
    };
    w.sort_jobs();
    Ok(w)
}

fn check_options(o: &SwimOptions) -> Result<(), DatasetError> {
    let bad = |field: &'static str, message: &str| {
        Err(DatasetError::InvalidSpec { field, message: message.to_string() })
    };
    if o.block_bytes == 0 {
        return bad("block-bytes", "must be ≥ 1");
    }
    if o.bytes_per_reduce == 0 {
        return bad("bytes-per-reduce", "must be ≥ 1");
    }
    if !(o.size_scale.is_finite() && o.size_scale > 0.0) {
        return bad("size-scale", "must be finite and > 0");
    }
    for (f, v) in [("map-s-per-byte", o.map_s_per_byte), ("reduce-s-per-byte", o.reduce_s_per_byte)]
    {
        if !(v.is_finite() && v >= 0.0) {
            return bad(f, "must be finite and ≥ 0");
        }
    }
    if matches!(o.pools, SwimPools::RoundRobin(0)) {
        return bad("pools", "round-robin needs ≥ 1 pool");
    }
    Ok(())
}

/// round((shuffle + output) / per) with Java's `Math.round` (half up), in integers.
fn reduce_count(shuffle: u64, output: u64, per: u64) -> u64 {
    let total = u128::from(shuffle) + u128::from(output);
    let per = u128::from(per);
    let r = (2 * total + per) / (2 * per);
    u64::try_from(r).unwrap_or(u64::MAX)
}

/// Part k of `total` split evenly into n parts (the first `total mod n` one more).
fn share(total: u64, n: u64, k: u64) -> u64 {
    total / n + u64::from(k < total % n)
}

fn seconds(
    s: &str,
    field: &str,
    m: &dyn Fn(&str, &str) -> DatasetError,
) -> Result<f64, DatasetError> {
    let v: f64 = s.trim().parse().map_err(|_| m(field, &format!("not a number: {s:?}")))?;
    if !v.is_finite() {
        return Err(m(field, "not finite"));
    }
    if v < 0.0 {
        return Err(m(field, &format!("negative time {v}")));
    }
    Ok(v)
}

fn bytes_field(
    s: &str,
    field: &str,
    m: &dyn Fn(&str, &str) -> DatasetError,
) -> Result<u64, DatasetError> {
    let t = s.trim();
    match t.parse::<u64>() {
        Ok(v) => Ok(v),
        Err(_) if t.parse::<i128>().is_ok_and(|v| v < 0) => {
            Err(m(field, &format!("negative size {t}")))
        }
        Err(_) => Err(m(field, &format!("not a byte count: {s:?}"))),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn reduce_rounding_is_half_up() {
        let mib = 1 << 20;
        assert_eq!(reduce_count(32 * mib, 0, 64 * mib), 1); // 0.5 → 1
        assert_eq!(reduce_count(32 * mib - 1, 0, 64 * mib), 0);
        assert_eq!(reduce_count(u64::MAX, u64::MAX, 1), u64::MAX);
    }

    #[test]
    fn even_shares_sum_to_the_total() {
        assert_eq!((0..3).map(|k| share(10, 3, k)).collect::<Vec<_>>(), [4, 3, 3]);
    }

    #[test]
    fn fair_bins() {
        assert_eq!([1, 25, 26, 50, 51, 3200, 3201].map(fair_size_bin), [0, 0, 1, 1, 2, 7, 8]);
    }
}
