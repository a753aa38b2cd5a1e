//! The trace readers on the shipped traces (`tests/data/`, see its README): counts checked
//! against the traces' own statistics, hand-derived rows, malformed input naming file, place
//! and field, and no panic on arbitrary bytes.

use placer_datasets::alibaba::{
    parse_alibaba_nodes, parse_alibaba_pods, read_alibaba, read_alibaba_nodes, AlibabaOptions,
};
use placer_datasets::rumen::{
    parse_rumen, parse_rumen_topology, read_rumen, read_rumen_topology, RumenOptions,
};
use placer_datasets::sls::{parse_sls, parse_sls_topology, read_sls, read_sls_topology};
use placer_datasets::swim::{parse_swim, read_swim, SwimOptions, SwimPools};
use placer_datasets::{DatasetError, Topology, Workload};
use placer_testkit::data;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

/// The parts of a Malformed error.
fn malformed(e: DatasetError) -> (String, String, String, String) {
    match e {
        DatasetError::Malformed { file, location, field, message } => {
            (file, location, field, message)
        }
        other => panic!("expected Malformed, got {other:?}"),
    }
}

fn rack_of(t: &Topology) -> BTreeMap<&str, usize> {
    t.nodes().map(|(r, n)| (n.id.as_str(), r)).collect()
}

// ---------------------------------------------------------------- SWIM

const MIB: u64 = 1 << 20;

#[test]
fn swim_fb2009_counts_and_byte_totals() {
    // FB-2009 came from a 600-machine cluster: 30 racks of 20.
    let opts = SwimOptions::new(Topology::uniform(600, 20), 7);
    let w = read_swim(&data("FB-2009_samples_24_times_1hr_0.tsv"), &opts).unwrap();
    assert_eq!(w.jobs.len(), 5894);
    // ⌈input / 64 MiB⌉ (≥ 1) and round((shuffle + output) / 64 MiB) (≥ 1 unless shuffle = 0),
    // counted independently with awk on the same file.
    assert_eq!(w.maps(), 406_005);
    assert_eq!(w.reduces(), 349_978);
    assert_eq!(w.jobs.iter().filter(|j| j.reduces.is_empty()).count(), 4448); // 75.5 % map-only
    assert_eq!(w.jobs.first().unwrap().submit_s, 49.0);
    assert_eq!(w.jobs.last().unwrap().submit_s, 86404.0);
    assert!(w.jobs.windows(2).all(|p| p[0].submit_s <= p[1].submit_s));
    let input: u64 = w.jobs.iter().flat_map(|j| &j.maps).map(|m| m.input_bytes).sum();
    let shuffle: u64 = w.jobs.iter().flat_map(|j| &j.reduces).map(|r| r.shuffle_bytes).sum();
    let map_out: u64 = w.jobs.iter().flat_map(|j| &j.maps).map(|m| m.output_bytes).sum();
    assert_eq!(input, 26_886_497_357_605);
    assert_eq!(shuffle, 22_216_712_306_762);
    assert_eq!(map_out, shuffle);
    // HDFS placement: 3 distinct replicas, the first alone on its rack, the other two together.
    let racks = rack_of(&opts.topology);
    for m in w.jobs.iter().flat_map(|j| &j.maps).filter(|m| m.input_bytes > 0) {
        assert_eq!(m.replicas.len(), 3);
        let r: Vec<usize> = m.replicas.iter().map(|n| racks[n.as_str()]).collect();
        assert_ne!(r[0], r[1]);
        assert_eq!(r[1], r[2]);
        assert_ne!(m.replicas[1], m.replicas[2]);
    }
    // Maps with no input bytes (86 jobs have input 0) have no block to place.
    assert_eq!(
        w.jobs.iter().filter(|j| j.maps.len() == 1 && j.maps[0].input_bytes == 0).count(),
        86
    );
    assert!(w.jobs.iter().all(|j| j.user == "unknown" && j.pool == "default"));
}

#[test]
fn swim_first_row_hand_derived() {
    // job0  49  49  740773  2339561  627471: one map (input < one block), one reduce
    // (round(2967032 / 64 MiB) = 0, raised to 1 because shuffle > 0).
    let opts = SwimOptions::new(Topology::uniform(6, 3), 1);
    let w = read_swim(&data("FB-2009_samples_24_times_1hr_0_first50jobs.tsv"), &opts).unwrap();
    assert_eq!(w.jobs.len(), 50);
    let j = &w.jobs[0];
    assert_eq!((j.id.as_str(), j.submit_s, j.maps.len(), j.reduces.len()), ("job0", 49.0, 1, 1));
    assert_eq!(j.maps[0].input_bytes, 740_773);
    assert_eq!(j.maps[0].output_bytes, 2_339_561);
    assert!((j.maps[0].compute_s - 740_773.0 * 5.0 / (64 * MIB) as f64).abs() < 1e-12);
    assert_eq!(j.reduces[0].shuffle_bytes, 2_339_561);
    assert_eq!(j.reduces[0].output_bytes, 627_471);
    assert_eq!(j.class.as_deref(), Some("bin0"));
}

#[test]
fn swim_splits_evenly_and_rounds_reduces_half_up() {
    let opts = SwimOptions::new(Topology::uniform(6, 3), 1);
    let input = 200 * MIB + 1; // 3.125 blocks → 4 maps
    let shuffle = 96 * MIB; // (96 + 0) / 64 = 1.5 → 2 reduces
    let text = format!("a\t0\t0\t{input}\t{shuffle}\t0\nb\t1\t1\t0\t0\t5\n");
    let w = parse_swim("t.tsv", text.as_bytes(), &opts).unwrap();
    let a = &w.jobs[0];
    let sizes: Vec<u64> = a.maps.iter().map(|m| m.input_bytes).collect();
    assert_eq!(sizes, [50 * MIB + 1, 50 * MIB, 50 * MIB, 50 * MIB]);
    assert_eq!(a.reduces.len(), 2);
    assert!(a.reduces.iter().all(|r| r.shuffle_bytes == 48 * MIB));
    // b: input 0 → one map with no replicas; shuffle 0 → map-only.
    let b = &w.jobs[1];
    assert_eq!((b.maps.len(), b.reduces.len()), (1, 0));
    assert!(b.maps[0].replicas.is_empty());
    // SWIM's own rule gives b one reduce.
    let swim_rule = SwimOptions { swim_min_one_reduce: true, ..opts };
    let w = parse_swim("t.tsv", text.as_bytes(), &swim_rule).unwrap();
    assert_eq!(w.jobs[1].reduces.len(), 1);
    assert_eq!(w.jobs[1].reduces[0].shuffle_bytes, 1024);
}

#[test]
fn swim_is_deterministic_per_seed() {
    let f = data("FB-2009_samples_24_times_1hr_0_first50jobs.tsv");
    let a = read_swim(&f, &SwimOptions::new(Topology::uniform(20, 5), 3)).unwrap();
    let b = read_swim(&f, &SwimOptions::new(Topology::uniform(20, 5), 3)).unwrap();
    let c = read_swim(&f, &SwimOptions::new(Topology::uniform(20, 5), 4)).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn swim_with_input_paths_reuses_blocks() {
    let opts = SwimOptions::new(Topology::uniform(100, 10), 11);
    let f = data("FB-2010_samples_24_times_1hr_withInputPaths_0_first200jobs.tsv");
    let w = read_swim(&f, &opts).unwrap();
    assert_eq!(w.jobs.len(), 200);
    // Re-read the paths to group jobs by input path (9 fields; col 7 = path).
    let text = std::fs::read_to_string(&f).unwrap();
    let mut by_path: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for l in text.lines() {
        let c: Vec<&str> = l.split('\t').collect();
        assert_eq!(c.len(), 9);
        by_path.entry(c[6]).or_default().push(c[0]);
    }
    let job = |id: &str| w.jobs.iter().find(|j| j.id == id).unwrap();
    let mut shared = 0;
    for ids in by_path.values().filter(|v| v.len() > 1) {
        let (a, b) = (job(ids[0]), job(ids[1]));
        for (x, y) in a.maps.iter().zip(&b.maps) {
            if x.input_bytes > 0 && y.input_bytes > 0 {
                assert_eq!(x.replicas, y.replicas, "{} and {} share blocks", a.id, b.id);
                shared += 1;
            }
        }
    }
    assert!(shared > 0);
    let p = read_swim(&data("Additional_Workloads_Placeholder.tsv"), &opts).unwrap();
    assert_eq!(p.jobs.len(), 10);
}

#[test]
fn swim_pools() {
    let f = data("FB-2009_samples_24_times_1hr_0_first50jobs.tsv");
    let rr = SwimOptions {
        pools: SwimPools::RoundRobin(3),
        ..SwimOptions::new(Topology::uniform(4, 2), 1)
    };
    let w = read_swim(&f, &rr).unwrap();
    let pools: BTreeSet<&str> = w.jobs.iter().map(|j| j.pool.as_str()).collect();
    assert_eq!(pools, BTreeSet::from(["pool0", "pool1", "pool2"]));
    let bins = SwimOptions { pools: SwimPools::BySizeBin, ..rr };
    let w = read_swim(&f, &bins).unwrap();
    assert!(w.jobs.iter().all(|j| Some(&j.pool) == j.class.as_ref()));
}

#[test]
fn swim_malformed_names_line_and_column() {
    let opts = SwimOptions::new(Topology::uniform(1, 1), 0);
    let ok = "job0\t1\t1\t10\t0\t0\n";
    let cases = [
        ("job1\t2\t1\tlots\t0\t0\n", "map_input_bytes", "not a byte count"),
        ("job1\t2\t1\t10\t0\n", "reduce_output_bytes", "missing column"),
        ("job1\t2\t1\t10\t-5\t0\n", "shuffle_bytes", "negative size"),
        ("job1\tsoon\t1\t10\t0\t0\n", "submit_time_seconds", "not a number"),
        ("job0\t2\t1\t10\t0\t0\n", "job_id", "duplicate"),
    ];
    for (bad, field, msg) in cases {
        let text = format!("{ok}{bad}");
        let (file, loc, f, m) = malformed(parse_swim("w.tsv", text.as_bytes(), &opts).unwrap_err());
        assert_eq!((file.as_str(), loc.as_str(), f.as_str()), ("w.tsv", "line 2", field));
        assert!(m.contains(msg), "{m}");
    }
    let huge = format!("j\t0\t0\t{}\t0\t0\n", u64::MAX);
    let (_, _, f, m) = malformed(parse_swim("w.tsv", huge.as_bytes(), &opts).unwrap_err());
    assert_eq!(f, "map_input_bytes");
    assert!(m.contains("max_tasks_per_job"));
    let missing = read_swim(&data("no-such-file.tsv"), &opts).unwrap_err();
    assert!(
        matches!(missing, DatasetError::Io { ref file, .. } if file.ends_with("no-such-file.tsv"))
    );
}

// ---------------------------------------------------------------- Rumen

fn mumak() -> (Workload, Topology) {
    let topo = read_rumen_topology(&data("19-jobs.topology.json.gz")).unwrap();
    let opts = RumenOptions { topology: Some(topo.clone()), ..RumenOptions::default() };
    (read_rumen(&data("19-jobs.trace.json.gz"), &opts).unwrap(), topo)
}

#[test]
fn mumak_counts() {
    let (w, topo) = mumak();
    assert_eq!(topo.racks.len(), 41);
    assert_eq!(topo.node_count(), 1545);
    assert!(topo.nodes().all(|(_, n)| !n.id.contains('\\')));
    assert!(topo.nodes().any(|(_, n)| n.id == "node1817.megatron.com"));
    assert!(topo.racks.iter().any(|r| r.id == "194.6.129.64"));
    assert_eq!(w.jobs.len(), 19);
    assert_eq!(w.maps(), 8573);
    assert_eq!(w.reduces(), 3256);
    let maps: Vec<_> = w.jobs.iter().flat_map(|j| &j.maps).collect();
    assert_eq!(maps.iter().filter(|m| m.replicas.len() == 3).count(), 7067);
    assert_eq!(maps.iter().filter(|m| m.replicas.is_empty()).count(), 1506);
    let failed: BTreeSet<&str> = w
        .jobs
        .iter()
        .filter(|j| j.class.as_deref() == Some("FAILED"))
        .map(|j| j.id.as_str())
        .collect();
    let want: BTreeSet<String> =
        ["0007", "0008", "0012", "0018", "0020"].map(|n| format!("job_200904211745_{n}")).into();
    assert_eq!(failed, want.iter().map(String::as_str).collect());
    assert_eq!(w.jobs[0].submit_s, 0.0);
    assert!(w.jobs.windows(2).all(|p| p[0].submit_s <= p[1].submit_s));
    assert!(w.jobs.iter().all(|j| j.user.starts_with("geek") && j.pool == "default"));
    assert_eq!(w.topology.as_ref(), Some(&topo));
}

#[test]
fn mumak_observed_locality_split() {
    // The real scheduler's placement, recomputed from the parsed replicas, observed hosts and
    // topology: 3034 node-local, 1409 rack-local, 201 off-rack (traces README).
    let (w, topo) = mumak();
    let racks = rack_of(&topo);
    let (mut node, mut rack, mut off) = (0, 0, 0);
    for m in w.jobs.iter().flat_map(|j| &j.maps) {
        let Some(h) = &m.observed_host else { continue };
        if m.replicas.is_empty() {
            continue;
        }
        let hr = racks[h.as_str()];
        if m.replicas.contains(h) {
            node += 1;
        } else if m.replicas.iter().any(|r| racks[r.as_str()] == hr) {
            rack += 1;
        } else {
            off += 1;
        }
    }
    assert_eq!((node, rack, off), (3034, 1409, 201));
}

#[test]
fn mumak_first_map_hand_derived() {
    // Job 0002's first logged map: task ..._m_000010, hdfsBytesRead 53639 (inputBytes −1),
    // attempt 1240336647215 → 1240336651127 ms on /192\.30\.126\.128/node1396\.megatron\.com.
    let (w, _) = mumak();
    let j = w.jobs.iter().find(|j| j.id == "job_200904211745_0002").unwrap();
    assert_eq!((j.maps.len(), j.reduces.len(), j.user.as_str()), (20, 1, "geek1"));
    let m = &j.maps[0];
    assert_eq!(m.input_bytes, 53_639);
    assert_eq!(m.output_bytes, 247_925);
    assert!((m.compute_s - 3.912).abs() < 1e-9);
    assert_eq!(m.observed_host.as_deref(), Some("node1396.megatron.com"));
    assert_eq!(
        m.replicas,
        ["node1369.megatron.com", "node1854.megatron.com", "node1872.megatron.com"]
    );
}

#[test]
fn mumak_attempts_that_start_at_zero_have_no_time() {
    // Six failed attempts in Mumak log startTime 0 (never started) and a finish in April 2009
    // (e.g. job 0007's maps: 0 → 1240337402976 ms); read as spans they would last 39 years.
    // No task may take longer than the longest real attempt: job 0010's successful reduce,
    // 5,997.12 s from start to finish (a script over the trace's attempts with both times > 0).
    let (w, _) = mumak();
    let longest = w
        .jobs
        .iter()
        .flat_map(|j| {
            j.maps.iter().map(|m| m.compute_s).chain(j.reduces.iter().map(|r| r.compute_s))
        })
        .fold(0.0_f64, f64::max);
    assert!(longest > 0.0 && longest <= 5997.12, "longest task {longest} s");
}

#[test]
fn mumak_keeps_failed_and_killed_attempts_as_retries() {
    // The trace logs 3,496 FAILED and 1,096 KILLED attempts. Kept as retries: those with both
    // times known (> 0, finish ≥ start) that are not the attempt a task's `compute_s` describes
    // (its SUCCESS attempt, else its last attempt with valid times). Derived independently in
    // Python over the gzip JSON (`python3 benches/repro/mumak_observed.py`, last line: the same
    // rule per task, stdlib json): 1,168 FAILED + 145 KILLED = 1,313 kept, 1,142 on maps
    // (1,036 + 106) and 171 on reduces (132 + 39). The rest: 2,319 FAILED and 951 KILLED describe a task with no SUCCESS
    // (tasks of failed jobs), 6 FAILED start at 0 and 3 FAILED finish before they start.
    let (w, _) = mumak();
    assert!(w.measured_times);
    let on_maps: usize =
        w.jobs.iter().flat_map(|j| &j.maps).map(|m| m.failed_attempts_s.len()).sum();
    let on_reduces: usize =
        w.jobs.iter().flat_map(|j| &j.reduces).map(|r| r.failed_attempts_s.len()).sum();
    assert_eq!((on_maps, on_reduces), (1142, 171));
    // No retry outlasts the trace's longest attempt (job 0010's reduce, 5,997.12 s).
    let mut all = w.jobs.iter().flat_map(|j| {
        j.maps
            .iter()
            .flat_map(|m| &m.failed_attempts_s)
            .chain(j.reduces.iter().flat_map(|r| &r.failed_attempts_s))
    });
    assert!(all.all(|s| (0.0..=5997.12).contains(s)));
    // Job 0002's 7th logged map (task ..._m_000002): attempt _0 FAILED 1240336754665 →
    // 1240336777673 ms (23.008 s), then _1 SUCCESS 1240336821839 → 1240336824652 (2.813 s).
    let j = w.jobs.iter().find(|j| j.id == "job_200904211745_0002").unwrap();
    let m = &j.maps[6];
    assert_eq!(m.failed_attempts_s.len(), 1);
    assert!((m.failed_attempts_s[0] - 23.008).abs() < 1e-9);
    assert!((m.compute_s - 2.813).abs() < 1e-9);
}

#[test]
fn mumak_observed_finish_hand_derived() {
    // The origin is job 0002's submitTime 1240335962848 ms (the earliest). Job 0002 finished at
    // 1240336889659 (926.811 s), job 0010 at 1240343720212 (7,757.364 s, the last); every job
    // logs its finish.
    let (w, _) = mumak();
    let finish = |id: &str| {
        w.jobs.iter().find(|j| j.id == format!("job_200904211745_{id}")).unwrap().observed_finish_s
    };
    assert!((finish("0002").unwrap() - 926.811).abs() < 1e-9);
    assert!((finish("0010").unwrap() - 7757.364).abs() < 1e-9);
    assert!(w.jobs.iter().all(|j| j.observed_finish_s.is_some_and(|f| f >= j.submit_s)));
}

#[test]
fn mumak_setup_and_cleanup_tasks_hand_derived() {
    // Job 0003's otherTasks: SETUP 1240336846190 → 1240336862349 ms (16.159 s), CLEANUP
    // 1240336928224 → 1240336944237 (16.013 s). Every Mumak job logs both.
    let (w, _) = mumak();
    let j = w.jobs.iter().find(|j| j.id == "job_200904211745_0003").unwrap();
    assert!((j.setup_s.unwrap() - 16.159).abs() < 1e-9);
    assert!((j.cleanup_s.unwrap() - 16.013).abs() < 1e-9);
    assert!(w.jobs.iter().all(|j| j.setup_s.is_some() && j.cleanup_s.is_some()));
}

#[test]
fn rumen_failed_then_successful_attempt_inline() {
    // Task 1: attempt a FAILED 1000 → 4000 ms, then b SUCCESS 5000 → 7000: compute 2 s, one
    // retry of 3 s. Task 2 lists a KILLED attempt (started 3000, 1.5 s) before a FAILED one
    // (started 1000, 0.5 s), a FAILED one that never started (startTime 0: skipped), and its
    // SUCCESS: retries in start order [0.5, 1.5]. Job 2's finishTime −1 is unknown; job 1's
    // 9000 is 9 s after the origin (job 1's submit, 0 s; job 2 is submitted at 0.5 s).
    let att = |r: &str, s: i64, f: i64| {
        format!(r#"{{"result":"{r}","startTime":{s},"finishTime":{f},"hdfsBytesRead":10}}"#)
    };
    let job1 = format!(
        r#"{{"jobID":"job_1","submitTime":0,"finishTime":9000,"mapTasks":[{{"inputBytes":-1,"attempts":[{},{}]}}],"reduceTasks":[{{"attempts":[{},{},{},{}]}}]}}"#,
        att("FAILED", 1000, 4000),
        att("SUCCESS", 5000, 7000),
        att("KILLED", 3000, 4500),
        att("FAILED", 1000, 1500),
        att("FAILED", 0, 2000),
        att("SUCCESS", 5000, 6000),
    );
    let job2 = format!(
        r#"{{"jobID":"job_2","submitTime":500,"finishTime":-1,"mapTasks":[{{"attempts":[{}]}}]}}"#,
        att("SUCCESS", 1000, 2000)
    );
    let w = parse_rumen("t.json", format!("{job1}\n{job2}").as_bytes(), &RumenOptions::default())
        .unwrap();
    assert!(w.measured_times);
    let (j1, j2) = (&w.jobs[0], &w.jobs[1]);
    assert_eq!(j1.maps[0].failed_attempts_s, [3.0]);
    assert_eq!(j1.maps[0].compute_s, 2.0);
    assert_eq!(j1.reduces[0].failed_attempts_s, [0.5, 1.5]);
    assert_eq!(j1.reduces[0].compute_s, 1.0);
    assert!(j2.maps[0].failed_attempts_s.is_empty());
    assert_eq!((j1.observed_finish_s, j2.observed_finish_s), (Some(9.0), None));
    assert_eq!(j2.submit_s, 0.5);
}

#[test]
fn mumak_skip_failed_jobs() {
    let opts = RumenOptions { skip_failed_jobs: true, ..RumenOptions::default() };
    let w = read_rumen(&data("19-jobs.trace.json.gz"), &opts).unwrap();
    assert_eq!(w.jobs.len(), 14);
    assert!(w.jobs.iter().all(|j| j.class.as_deref() == Some("SUCCESS")));
}

#[test]
fn rumen_small_topology_unescapes() {
    let t = read_rumen_topology(&data("topo-with-numeric-ips.json")).unwrap();
    let names: Vec<(&str, Vec<&str>)> = t
        .racks
        .iter()
        .map(|r| (r.id.as_str(), r.nodes.iter().map(|n| n.id.as_str()).collect()))
        .collect();
    assert_eq!(
        names,
        [
            ("194.6.129.64", vec!["node1817.megatron.com", "194.6.129.67"]),
            ("192.30.63.64", vec!["192.30.63.69", "192.30.63.81"]),
        ]
    );
}

#[test]
fn sls_rumen_2jobs2min() {
    let path = data("2jobs2min-rumen-jh.json");
    let w = read_rumen(&path, &RumenOptions::default()).unwrap();
    assert_eq!(w.jobs.len(), 2);
    let ids: Vec<&str> = w.jobs.iter().map(|j| j.id.as_str()).collect();
    assert_eq!(ids, ["job_1369942127770_1205", "job_1369942127770_1206"]);
    assert_eq!(w.jobs[0].submit_s, 0.0);
    assert!((w.jobs[1].submit_s - 105.204).abs() < 1e-9);
    let hosts: BTreeSet<&str> =
        w.jobs.iter().flat_map(|j| &j.maps).filter_map(|m| m.observed_host.as_deref()).collect();
    assert_eq!(hosts.len(), 4);
    for j in &w.jobs {
        assert_eq!((j.maps.len(), j.reduces.len()), (96, 0));
        assert_eq!((j.user.as_str(), j.pool.as_str()), ("jenkins", "sls_queue_1"));
        // Attempt times (the task-level spans are 17.0–85.8 s; attempts start later).
        assert!(j
            .maps
            .iter()
            .all(|m| m.replicas.is_empty() && m.compute_s > 11.0 && m.compute_s < 48.0));
    }
    // Gzip gives the same workload.
    let bytes = std::fs::read(&path).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&bytes).unwrap();
    let gz = gz.finish().unwrap();
    let name = path.display().to_string();
    assert_eq!(parse_rumen(&name, &gz, &RumenOptions::default()).unwrap(), w);
}

#[test]
fn rumen_malformed_names_record_and_field() {
    let job = |extra: &str| {
        format!(
            r#"{{"jobID":"job_1","submitTime":1000,"mapTasks":[{{"inputBytes":-1,"attempts":[{{"result":"SUCCESS","startTime":1000,"finishTime":2000,"hdfsBytesRead":10{extra}}}]}}]}}"#
        )
    };
    let ok = job("");
    let second = |body: &str| format!("{ok}\n{body}\n");
    let opts = RumenOptions::default();
    let run = |text: String| malformed(parse_rumen("t.json", text.as_bytes(), &opts).unwrap_err());
    // Truncated JSON.
    let (file, loc, field, _) = run(second(&ok[..ok.len() - 5].replace("job_1", "job_2")));
    assert_eq!((file.as_str(), field.as_str()), ("t.json", "JSON"));
    assert!(loc.starts_with("record 2, line 3 column"), "{loc}"); // at the end of the input
                                                                  // A non-number field.
    let soon = ok.replace("job_1", "job_2").replace(r#""startTime":1000"#, r#""startTime":"soon""#);
    let (_, loc, field, msg) = run(second(&soon));
    assert_eq!(loc, "record 2, line 2");
    assert_eq!(field, "mapTasks[0].attempts[0].startTime");
    assert!(msg.contains("invalid type"), "{msg}");
    // A negative size.
    let neg =
        ok.replace("job_1", "job_2").replace(r#""hdfsBytesRead":10"#, r#""hdfsBytesRead":-7"#);
    let (_, loc, field, msg) = run(second(&neg));
    assert_eq!(loc, "record 2, line 2 (job_2)");
    assert_eq!(field, "mapTasks[0].attempts[0].hdfsBytesRead");
    assert!(msg.contains("negative"));
    // A missing field, a duplicate id, time running backwards.
    let (_, loc, field, _) = run(second(r#"{"submitTime":5}"#));
    assert_eq!((loc.as_str(), field.as_str()), ("record 2, line 2", "jobID"));
    let (_, _, field, msg) = run(second(&ok));
    assert_eq!((field.as_str(), msg.as_str()), ("jobID", "duplicate job id"));
    let back = ok.replace("job_1", "job_2").replace("2000", "500");
    let (_, _, field, _) = run(second(&back));
    assert_eq!(field, "mapTasks[0].attempts[0].finishTime");
    // Topology: a host directly under the root.
    let bad = r#"{"name":"<root>","children":[{"name":"h1","children":null}]}"#;
    let (_, loc, field, _) =
        malformed(parse_rumen_topology("topo.json", bad.as_bytes()).unwrap_err());
    assert_eq!((loc.as_str(), field.as_str()), ("record 1, line 1", "children[0].name"));
    // A corrupt gzip stream.
    let (_, _, field, _) =
        malformed(parse_rumen("t.json.gz", &[0x1f, 0x8b, 8, 0, 1, 2, 3], &opts).unwrap_err());
    assert_eq!(field, "gzip");
}

// ---------------------------------------------------------------- SLS

#[test]
fn sls_inputsls() {
    let w = read_sls(&data("inputsls.json")).unwrap();
    assert_eq!(w.jobs.len(), 2);
    let (a, b) = (&w.jobs[0], &w.jobs[1]);
    assert_eq!((a.id.as_str(), a.pool.as_str(), a.submit_s), ("job_1", "sls_queue_1", 0.0));
    assert_eq!((b.id.as_str(), b.pool.as_str(), b.submit_s), ("job_2", "sls_queue_2", 105.204));
    assert_eq!((a.maps.len(), b.maps.len(), a.reduces.len()), (3, 2, 0));
    let hosts: Vec<&str> = a.maps.iter().filter_map(|m| m.observed_host.as_deref()).collect();
    assert_eq!(hosts, ["node1", "node3", "node2"]);
    let secs: Vec<f64> = a.maps.iter().map(|m| m.compute_s).collect();
    assert_eq!(secs, [17.043, 14.928, 17.843]);
    // Every container ran inside its job's window (job_1 0–95375 ms, job_2 105204–197256 ms).
    assert!(a.maps.iter().all(|m| m.compute_s < 95.375));
    assert!(b.maps.iter().all(|m| m.compute_s < 197.256 - 105.204));
}

#[test]
fn sls_counts_durations_and_reduces() {
    let text = r#"[{"job.start.ms": "2000", "job.id": "j", "job.count": 2,
        "job.tasks": [{"count": 3, "duration.ms": 1500, "container.host": "/r/n7"},
                      {"container.type": "reduce", "container.start.ms": 10,
                       "container.end.ms": 20}]}]"#;
    let w = parse_sls("x.json", text.as_bytes()).unwrap();
    let ids: Vec<&str> = w.jobs.iter().map(|j| j.id.as_str()).collect();
    assert_eq!(ids, ["j-0", "j-1"]);
    for j in &w.jobs {
        assert_eq!((j.submit_s, j.maps.len(), j.reduces.len()), (2.0, 3, 1));
        assert!(j
            .maps
            .iter()
            .all(|m| m.compute_s == 1.5 && m.observed_host.as_deref() == Some("n7")));
        assert_eq!(j.reduces[0].compute_s, 0.01);
        assert_eq!((j.user.as_str(), j.pool.as_str()), ("unknown", "default"));
    }
}

#[test]
fn sls_topologies() {
    let t = read_sls_topology(&data("nodes.json")).unwrap();
    assert_eq!(t.racks.len(), 5);
    let names: Vec<&str> = t.nodes().map(|(_, n)| n.id.as_str()).collect();
    let want: Vec<String> = (1..=19).map(|i| format!("node{i}")).collect();
    assert_eq!(names, want.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(t.racks[4].nodes.len(), 3); // the trailing `{}` is skipped
    assert!(t.nodes().all(|(_, n)| n.capacity.is_none()));
    let r = read_sls_topology(&data("nodes-with-resources.json")).unwrap();
    let caps: Vec<Option<(f64, f64)>> =
        r.nodes().map(|(_, n)| n.capacity.map(|c| (c.cpu, c.mem_mib))).collect();
    assert_eq!(caps, [Some((6.0, 2048.0)), None, None, Some((12.0, 6144.0))]);
}

#[test]
fn sls_malformed_names_record_and_field() {
    let run = |text: &str| malformed(parse_sls("in.json", text.as_bytes()).unwrap_err());
    let ok = r#"{"job.start.ms": 0, "job.id": "a", "job.tasks": [{"duration.ms": 5}]}"#;
    // Truncated JSON.
    let (file, loc, field, _) = run(&format!("{ok}\n{}", &ok[..30]));
    assert_eq!((file.as_str(), field.as_str()), ("in.json", "JSON"));
    assert!(loc.starts_with("record 2, line 2"), "{loc}");
    // A non-number field.
    let (_, loc, field, _) = run(&format!(
        "{ok}\n{}",
        r#"{"job.start.ms": 0, "job.id": "b", "job.tasks": [{"duration.ms": 5}, {"container.start.ms": 1, "container.end.ms": "soon"}]}"#
    ));
    assert_eq!(
        (loc.as_str(), field.as_str()),
        ("record 2, line 2", "job.tasks[1].container.end.ms")
    );
    // A missing column (required field).
    let (_, loc, field, _) = run(r#"{"job.id": "a"}"#);
    assert_eq!((loc.as_str(), field.as_str()), ("record 1, line 1", "job.start.ms"));
    // A negative value, and a container ending before it starts.
    let (_, _, field, msg) = run(r#"{"job.start.ms": -4}"#);
    assert_eq!(field, "job.start.ms");
    assert!(msg.contains("negative"));
    let (_, _, field, _) = run(
        r#"{"job.start.ms": 0, "job.tasks": [{"container.start.ms": 9, "container.end.ms": 3}]}"#,
    );
    assert_eq!(field, "job.tasks[0].container.end.ms");
    let (_, _, field, _) = run(
        r#"{"job.start.ms": 0, "job.tasks": [{"duration.ms": 5, "container.type": "shuffle"}]}"#,
    );
    assert_eq!(field, "job.tasks[0].container.type");
    let (_, _, field, _) = run(&format!("{ok}\n{ok}"));
    assert_eq!(field, "job.id");
    // Counts that would expand past 1,000,000 tasks.
    let (_, _, field, _) = run(
        r#"{"job.start.ms": 0, "job.count": 1000, "job.tasks": [{"count": 5000, "duration.ms": 5}]}"#,
    );
    assert_eq!(field, "job.count");
    let (_, _, field, _) =
        run(r#"{"job.start.ms": 0, "job.tasks": [{"count": 1e300, "duration.ms": 5}]}"#);
    assert_eq!(field, "job.tasks[0].count");
    // Topology: a node entry with resources but no name.
    let bad = r#"{"rack": "r1", "nodes": [{"node": "a"}, {"memory-mb": 5}]}"#;
    let (_, loc, field, _) =
        malformed(parse_sls_topology("nodes.json", bad.as_bytes()).unwrap_err());
    assert_eq!((loc.as_str(), field.as_str()), ("record 1, line 1", "nodes[1].node"));
}

// ---------------------------------------------------------------- Alibaba

#[test]
fn alibaba_nodes_by_model() {
    let t = read_alibaba_nodes(&data("openb_node_list_all_node.csv")).unwrap();
    assert_eq!(t.node_count(), 1523);
    let per: BTreeMap<&str, usize> =
        t.racks.iter().map(|r| (r.id.as_str(), r.nodes.len())).collect();
    let want = BTreeMap::from([
        ("G2", 549),
        ("T4", 404),
        ("cpu", 310),
        ("P100", 134),
        ("V100M16", 55),
        ("G3", 39),
        ("V100M32", 30),
        ("A10", 2),
    ]);
    assert_eq!(per, want);
    let gpus: f64 = t.nodes().filter_map(|(_, n)| n.capacity).map(|c| c.gpu).sum();
    assert_eq!(gpus, 6212.0);
    let n0 = t.nodes().find(|(_, n)| n.id == "openb-node-0000").unwrap().1;
    let c = n0.capacity.unwrap();
    assert_eq!((c.cpu, c.mem_mib, c.gpu), (32.0, 262_144.0, 0.0));
}

#[test]
fn alibaba_pods() {
    let opts = AlibabaOptions::default();
    let w = read_alibaba(
        &data("openb_node_list_all_node.csv"),
        &data("openb_pod_list_default.csv"),
        &opts,
    )
    .unwrap();
    assert_eq!(w.jobs.len(), 8152);
    assert_eq!(w.maps(), 8152);
    assert_eq!(w.topology.as_ref().map(Topology::node_count), Some(1523));
    let count = |f: fn(&placer_datasets::JobSpec) -> String| {
        let mut m: BTreeMap<String, usize> = BTreeMap::new();
        for j in &w.jobs {
            *m.entry(f(j)).or_default() += 1;
        }
        m
    };
    let s = |v: &[(&str, usize)]| v.iter().map(|(k, n)| (k.to_string(), *n)).collect();
    assert_eq!(
        count(|j| j.pool.clone()),
        s(&[("LS", 4647), ("BE", 3398), ("Burstable", 100), ("Guaranteed", 7)])
    );
    assert_eq!(
        count(|j| j.class.clone().unwrap()),
        s(&[("Running", 5193), ("Failed", 1870), ("Pending", 897), ("Succeeded", 192)])
    );
    // GPUs per pod: num_gpu × gpu_milli / 1000 = io × 8 (the largest node has 8 GPUs).
    let whole = count(|j| {
        let g = j.maps[0].demand.unwrap().io * 8.0;
        if g == 0.0 {
            "0".into()
        } else if g <= 1.0 {
            "≤1".into()
        } else {
            format!("{g}")
        }
    });
    assert_eq!(whole, s(&[("0", 1088), ("≤1", 6989), ("2", 16), ("4", 15), ("8", 44)]));
    // pod-0000: 12000 mCPU, 16384 MiB, 1 × 1000 mGPU, created 0, scheduled 0, deleted 12537496.
    let p = w.jobs.iter().find(|j| j.id == "openb-pod-0000").unwrap();
    let d = p.maps[0].demand.unwrap();
    assert_eq!((d.cpu, d.mem, d.io), (12.0 / 128.0, 16_384.0 / 1_048_576.0, 1.0 / 8.0));
    assert_eq!((p.submit_s, p.maps[0].compute_s), (0.0, 12_537_496.0));
    // Pending pod-0061: never scheduled; its lifetime 10001403 − 10001278.
    let q = w.jobs.iter().find(|j| j.id == "openb-pod-0061").unwrap();
    assert_eq!(q.maps[0].compute_s, 125.0);
    assert!(w.jobs.windows(2).all(|p| p[0].submit_s <= p[1].submit_s));
    let skip = AlibabaOptions { skip_pending: true };
    let w = read_alibaba(
        &data("openb_node_list_all_node.csv"),
        &data("openb_pod_list_default.csv"),
        &skip,
    )
    .unwrap();
    assert_eq!(w.jobs.len(), 8152 - 897);
}

#[test]
fn alibaba_malformed_names_line_and_column() {
    let nodes = "sn,cpu_milli,memory_mib,gpu,model\nn1,32000,1024,2,T4\n";
    let t = parse_alibaba_nodes("nodes.csv", nodes.as_bytes()).unwrap();
    let head = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";
    let ok = "p0,1000,512,1,500,,LS,Running,0,10,2\n";
    let run = |text: String| {
        malformed(
            parse_alibaba_pods("pods.csv", text.as_bytes(), &t, &AlibabaOptions::default())
                .unwrap_err(),
        )
    };
    let cases = [
        ("p1,lots,512,1,500,,LS,Running,0,10,2\n", "line 3", "cpu_milli", "not a non-negative"),
        ("p1,1000,512,1,500,,LS,Running,0\n", "line 3", "deletion_time", "missing column"),
        ("p1,1000,-512,1,500,,LS,Running,0,10,2\n", "line 3", "memory_mib", "negative"),
        ("p1,1000,512,1,500,,LS,Running,0,1,2\n", "line 3", "deletion_time", "before"),
        ("p1,1000,512,1,500,\"x\",LS,Running,0,10,2\n", "line 3", "gpu_spec", "quoted"),
        ("p0,1000,512,1,500,,LS,Running,0,10,2\n", "line 3", "name", "duplicate"),
    ];
    for (bad, loc, field, msg) in cases {
        let (file, l, f, m) = run(format!("{head}{ok}{bad}"));
        assert_eq!((file.as_str(), l.as_str(), f.as_str()), ("pods.csv", loc, field), "{m}");
        assert!(m.contains(msg), "{m}");
    }
    // A column missing from the header.
    let (_, l, f, _) = run(format!("{}\n{ok}", head.trim_end().replace(",qos", "")));
    assert_eq!((l.as_str(), f.as_str()), ("line 1 (header)", "qos"));
    // A pod needing GPUs on a CPU-only cluster.
    let cpu_only =
        parse_alibaba_nodes("n.csv", b"sn,cpu_milli,memory_mib,gpu,model\nc,1,1,0,\n").unwrap();
    let e = parse_alibaba_pods(
        "pods.csv",
        format!("{head}{ok}").as_bytes(),
        &cpu_only,
        &AlibabaOptions::default(),
    );
    assert_eq!(malformed(e.unwrap_err()).2, "num_gpu");
    let (_, l, f, _) = malformed(
        parse_alibaba_nodes("nodes.csv", b"sn,cpu_milli,memory_mib,gpu,model\nn1,x,1,1,T4\n")
            .unwrap_err(),
    );
    assert_eq!((l.as_str(), f.as_str()), ("line 2", "cpu_milli"));
}

// ---------------------------------------------------------------- no panics

fn all_readers(bytes: &[u8]) {
    let t = Topology::uniform(12, 4);
    let _ = parse_swim("f", bytes, &SwimOptions::new(t.clone(), 1));
    let _ = parse_rumen("f", bytes, &RumenOptions::default());
    let _ = parse_rumen_topology("f", bytes);
    let _ = parse_sls("f", bytes);
    let _ = parse_sls_topology("f", bytes);
    let _ = parse_alibaba_nodes("f", bytes);
    let mut gpu = t;
    gpu.racks[0].nodes[0].capacity =
        Some(placer_datasets::Capacity { cpu: 8.0, mem_mib: 1024.0, gpu: 1.0 });
    let _ = parse_alibaba_pods("f", bytes, &gpu, &AlibabaOptions::default());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn no_reader_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        all_readers(&bytes);
    }

    #[test]
    fn no_reader_panics_on_near_valid_text(
        text in r#"([0-9a-z\-\.:,\t\n{}\[\]" ]|job\.start\.ms|mapTasks|attempts|submitTime|jobID|-1|\r){0,200}"#
    ) {
        all_readers(text.as_bytes());
    }

    #[test]
    fn no_reader_panics_on_mutated_traces(cut in 0usize..1548, byte in any::<u8>()) {
        // One byte of real inputs overwritten.
        for name in ["inputsls.json", "nodes-with-resources.json", "FB-2009_samples_24_times_1hr_0_first50jobs.tsv"] {
            let mut b = std::fs::read(data(name)).unwrap();
            let i = cut % b.len();
            b[i] = byte;
            all_readers(&b);
        }
    }
}
