//! `placer whatif` as a user runs it (docs/simulator.md): the SLS
//! two-job trace shipped with the datasets replayed to hand-checked completion times, the
//! output files, a sharded sweep merged by `placer whatif summarize`, and clear errors.

use crate::cli::placer;
use std::path::{Path, PathBuf};
use std::process::Output;

/// A shipped trace's path, as an argument.
fn data(name: &str) -> String {
    placer_testkit::data(name).display().to_string()
}

fn fresh(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn sls(out: &Path, extra: &[&str]) -> Output {
    let (trace, nodes) = (data("inputsls.json"), data("nodes.json"));
    let out = out.display().to_string();
    let mut args =
        vec!["whatif", "--trace", &trace, "--format", "sls", "--topology", &nodes, "--out", &out];
    args.extend_from_slice(extra);
    placer(&args)
}

/// Rows of a CSV file without quoted fields, as maps from header to value.
fn rows(path: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    lines
        .map(|l| {
            header.iter().map(|h| h.to_string()).zip(l.split(',').map(str::to_owned)).collect()
        })
        .collect()
}

#[test]
fn sls_inputsls_two_jobs_finish_at_hand_checked_times() {
    // inputsls.json (Hadoop SLS test resource): job_1 submitted at 0 s with maps of
    // 23.707 − 6.664 = 17.043, 21.593 − 6.665 = 14.928 and 86.613 − 68.770 = 17.843 s; job_2
    // at 105.204 s with maps of 22.163 and 19.589 s; no input bytes, 19 nodes with 4 map
    // slots. Epochs tick every 3 s from 0: job_1's maps all start at 0 and it ends at 17.843;
    // job_2's first epoch is ⌈105.204 / 3⌉ · 3 = 108, so it ends at 108 + 22.163 = 130.163
    // (response 24.959). Every policy gives the same times: nothing competes. (Epoch offers, no
    // task start-up overhead and no job setup or cleanup task: the model these times are
    // derived in.)
    let out = fresh("whatif_sls");
    let o = sls(
        &out,
        &[
            "--policies",
            "fifo,fair,lsap,lsap_quota",
            "--heartbeat",
            "epoch",
            "--task-overhead-s",
            "0",
            "--job-setup-s",
            "0",
            "--job-cleanup-s",
            "0",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for policy in ["fifo", "fair", "lsap", "lsap_quota"] {
        let jobs = rows(&out.join(format!("jobs/policy={policy}/part-0.csv")));
        assert_eq!(jobs.len(), 2);
        let finish: Vec<f64> = jobs.iter().map(|r| r["finish_s"].parse().unwrap()).collect();
        assert!((finish[0] - 17.843).abs() < 1e-9, "{policy}: {finish:?}");
        assert!((finish[1] - 130.163).abs() < 1e-9, "{policy}: {finish:?}");
        let response: f64 = jobs[1]["response_s"].parse().unwrap();
        assert!((response - 24.959).abs() < 1e-9);
    }
    // The summary on stdout and in summary.csv, one row per policy in the order asked.
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.lines().next().unwrap().starts_with("policy"));
    let summary = rows(&out.join("summary.csv"));
    let names: Vec<&str> = summary.iter().map(|r| r["policy"].as_str()).collect();
    assert_eq!(names, ["fifo", "fair", "lsap", "lsap_quota"]);
    assert_eq!(summary[0]["jobs"], "2");
    assert_eq!(summary[0]["makespan_s"].parse::<f64>().unwrap(), 130.163);
}

/// The SLS replay at epochs without task overheads under `policies` with the flags `extra`:
/// nothing competes, so every policy finishes the two jobs at the hand-checked 17.843 and
/// 130.163 s.
fn hand_checked_times(dir: &str, policies: &[&str], extra: &[&str]) {
    let out = fresh(dir);
    let list = policies.join(",");
    let mut args = vec!["--policies", &list, "--heartbeat", "epoch", "--task-overhead-s", "0"];
    args.extend(["--job-setup-s", "0", "--job-cleanup-s", "0"]);
    args.extend_from_slice(extra);
    let o = sls(&out, &args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for policy in policies {
        let jobs = rows(&out.join(format!("jobs/policy={policy}/part-0.csv")));
        let finish: Vec<f64> = jobs.iter().map(|r| r["finish_s"].parse().unwrap()).collect();
        assert_eq!(finish.len(), 2, "{policy}");
        assert!((finish[0] - 17.843).abs() < 1e-9, "{policy}: {finish:?}");
        assert!((finish[1] - 130.163).abs() < 1e-9, "{policy}: {finish:?}");
    }
}

#[test]
fn sls_jobs_made_gangs_start_whole_and_those_that_cannot_fit_are_skipped() {
    // The hand-checked SLS run above with `--gangs max_maps=3,level=node` and 2 map slots per
    // node: job_1 (3 maps) is larger than a node's 2 slots, so it is skipped and stays an
    // ordinary job; job_2 (2 maps) becomes a gang of 2 required on one node. Nothing competes:
    // the times are those above (job_1 17.843 s, job_2 starts at the tick of 108 s, 130.163 s),
    // job_2 starts whole in one rack, and no required gang waits after an epoch's placement, so
    // no slot is stranded.
    let out = fresh("whatif_sls_gangs");
    let o = sls(
        &out,
        &[
            "--policies",
            "lsap_quota,kueue_best_fit",
            "--heartbeat",
            "epoch",
            "--task-overhead-s",
            "0",
            "--job-setup-s",
            "0",
            "--job-cleanup-s",
            "0",
            "--map-slots",
            "2",
            "--gangs",
            "max_maps=3,level=node",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains(
            "gangs: 1 of the 2 jobs with 2–3 maps made gangs (node, required); 1 skipped, \
             larger than the largest node's 2 map slots"
        ),
        "{stderr}"
    );
    for policy in ["lsap_quota", "kueue_best_fit"] {
        let jobs = rows(&out.join(format!("jobs/policy={policy}/part-0.csv")));
        let gang: Vec<&str> = jobs.iter().map(|r| r["gang"].as_str()).collect();
        assert_eq!(gang, ["", "2"], "{policy}");
        assert_eq!(jobs[1]["class"], "gang-required");
        let finish: Vec<f64> = jobs.iter().map(|r| r["finish_s"].parse().unwrap()).collect();
        assert!((finish[0] - 17.843).abs() < 1e-9 && (finish[1] - 130.163).abs() < 1e-9);
        assert_eq!(
            (jobs[1]["start_s"].as_str(), jobs[1]["maps_started_s"].as_str()),
            ("108.0", "108.0")
        );
    }
    let by_class = rows(&out.join("by_class.csv"));
    let got: Vec<(&str, &str, &str, &str, &str)> = by_class
        .iter()
        .map(|r| {
            let g = |k: &str| r[k].as_str();
            (g("policy"), g("class"), g("jobs"), g("gangs_started_whole"), g("gangs_in_one_rack"))
        })
        .collect();
    assert_eq!(
        got,
        [
            ("lsap_quota", "gang-required", "1", "1", "1"),
            ("lsap_quota", "none", "1", "", ""),
            ("kueue_best_fit", "gang-required", "1", "1", "1"),
            ("kueue_best_fit", "none", "1", "", ""),
        ]
    );
    for row in rows(&out.join("summary.csv")) {
        assert_eq!(row["stranded_slot_fraction"], "0.0");
        assert_eq!(row["stranded_slots_while_waiting"], "0.0");
    }
    let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    assert!(manifest.contains("\"by_class.csv\""), "{manifest}");
    // A workload is no trace: --gangs needs --trace.
    let x = fresh("whatif_gangs_workload").display().to_string();
    let o = placer(&["whatif", "--workload", "gang-mix", "--gangs", "max_maps=4", "--out", &x]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--gangs"), "{o:?}");
}
#[test]
fn warm_start_keeps_the_hand_checked_times() {
    // `--warm-start`: each epoch's flow starts from the labels the previous one left;
    // placements stay least-cost.
    hand_checked_times("whatif_sls_warm", &["lsap", "lsap_quota", "lsap_fair"], &["--warm-start"]);
}

#[test]
fn sessions_keep_the_hand_checked_times() {
    // `--sessions`: each epoch is a delta against the master's session, validated by
    // difference; under every exact policy, and with warm starts too.
    let policies = ["lsap", "lsap_quota", "lsap_fair", "drf"];
    hand_checked_times("whatif_sls_sessions", &policies, &["--sessions", "--warm-start"]);
}

fn mumak(out: &Path, extra: &[&str]) -> Output {
    let (trace, topology) = (data("19-jobs.trace.json.gz"), data("19-jobs.topology.json.gz"));
    let out = out.display().to_string();
    let mut args = vec![
        "whatif",
        "--trace",
        &trace,
        "--format",
        "rumen",
        "--topology",
        &topology,
        "--out",
        &out,
    ];
    args.extend_from_slice(extra);
    placer(&args)
}

#[test]
fn whatif_writes_every_table_plot_and_the_manifest() {
    // The Mumak 19-job Rumen trace on its own 1,545-host topology: 7,067 of its 8,573 maps
    // have replicas, so the locality shares are defined.
    let out = fresh("whatif_files");
    let o = mumak(&out, &["--policies", "dl_sched,lsap"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let header = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert!(header.starts_with(
        "policy,jobs,node_local,rack_local,remote,mean_response_s,p95_response_s,makespan_s,\
         cross_rack_gb,fairness_distance,mean_solve_ms"
    ));
    for row in rows(&out.join("summary.csv")) {
        assert_eq!(row["jobs"], "19");
        assert_eq!(row["map_tasks"], "8573");
        let sum: f64 = ["node_local", "rack_local", "remote"]
            .iter()
            .map(|c| row[*c].parse::<f64>().unwrap())
            .sum();
        assert!((sum - 1.0).abs() < 1e-9, "locality fractions sum to {sum}");
        // Cross-rack traffic is remote map input plus cross-rack shuffle; Rumen tasks have no
        // resource demands, so the utilisation cells are empty.
        let gb = |c: &str| row[c].parse::<f64>().unwrap();
        let split = gb("remote_map_gb") + gb("cross_rack_shuffle_gb");
        assert!(gb("cross_rack_shuffle_gb") > 0.0, "{row:?}");
        assert!((split - gb("cross_rack_gb")).abs() <= 1e-9 * gb("cross_rack_gb"), "{row:?}");
        assert_eq!(row["cpu_utilisation"], "");
    }
    for policy in ["dl_sched", "lsap"] {
        for f in [
            format!("jobs/policy={policy}/part-0.csv"),
            format!("jobs/policy={policy}/part-0.parquet"),
            format!("epochs/policy={policy}/part-0.csv"),
            format!("epochs/policy={policy}/part-0.parquet"),
            format!("racks/policy={policy}/part-0.csv"),
            format!("racks/policy={policy}/part-0.parquet"),
            format!("jobruntime/policy={policy}/jobruntime.csv"),
        ] {
            assert!(out.join(&f).is_file(), "{f} missing");
        }
        // Per-rack cross-rack traffic adds up to the epochs' cross-rack bytes, out and in.
        let total = |file: &str, column: &str| -> f64 {
            rows(&out.join(format!("{file}/policy={policy}/part-0.csv")))
                .iter()
                .map(|r| r[column].parse::<f64>().unwrap())
                .sum()
        };
        let cross = total("epochs", "bytes_cross_rack");
        assert!(cross > 0.0, "{policy}: the Mumak replay moves data across racks");
        for column in ["bytes_out", "bytes_in"] {
            let sum = total("racks", column);
            assert!((sum - cross).abs() <= 1e-9 * cross, "{policy} {column}: {sum} vs {cross}");
        }
    }
    // ShuffleWatcher Figs. 1 and 10: the network's measured cross-rack Mbit/s per minute; over
    // the run it adds up to the cross-rack bytes of the summary. The Mumak jobs are no Table
    // 1 benchmarks: no traffic_by_class.csv.
    let summary = rows(&out.join("summary.csv"));
    let series = rows(&out.join("cross_rack_timeseries.csv"));
    for (policy, row) in ["dl_sched", "lsap"].iter().zip(&summary) {
        let mine: Vec<_> = series.iter().filter(|r| r["policy"] == *policy).collect();
        assert!(!mine.is_empty(), "{policy}");
        let bytes: f64 = mine
            .iter()
            .map(|r| r["cross_rack_total_mbps"].parse::<f64>().unwrap() * 60.0 * 1e6 / 8.0)
            .sum();
        let gb = row["cross_rack_gb"].parse::<f64>().unwrap();
        assert!((bytes / 1e9 - gb).abs() <= 1e-6 * gb, "{policy}: {bytes} B vs {gb} GB");
        assert_eq!(mine[1]["t_s"], "60.0");
    }
    assert!(!out.join("traffic_by_class.csv").exists());
    for plot in ["locality", "response_cdf", "cross_rack", "cross_rack_timeseries", "fairness"] {
        for ext in ["svg", "png"] {
            let p = out.join(format!("{plot}.{ext}"));
            assert!(std::fs::metadata(&p).map(|m| m.len() > 0).unwrap_or(false), "{p:?}");
        }
    }
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["shard"], "0/1");
    assert_eq!(manifest["policies"], serde_json::json!(["dl_sched", "lsap"]));
    assert!(manifest["config_sha256"].as_str().unwrap().starts_with("sha256:"));
    let runtime =
        std::fs::read_to_string(out.join("jobruntime/policy=lsap/jobruntime.csv")).unwrap();
    assert!(runtime
        .starts_with("JobID,real_start_time,real_end_time,simulate_start_time,simulate_end_time"));
}

#[test]
fn sharded_sweep_merges_in_run_order() {
    // 2 policies × alpha ∈ {1, 10} = 4 runs in the order (alpha 1: fifo, lsap), (alpha 10:
    // fifo, lsap); shard 0/2 runs 0 and 2, shard 1/2 runs 1 and 3.
    let out = fresh("whatif_sweep");
    std::fs::create_dir_all(&out).unwrap();
    let sweep = out.join("sweep.toml");
    std::fs::write(&sweep, "alpha = [1, 10]\n").unwrap();
    let sweep = sweep.display().to_string();
    for shard in ["1/2", "0/2"] {
        let o = sls(&out, &["--policies", "fifo,lsap", "--sweep", &sweep, "--shard", shard]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    assert!(out.join("jobs/policy=lsap/alpha=10/part-0.parquet").is_file());
    let o = placer(&["whatif", "summarize", &out.display().to_string()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let names: Vec<String> =
        rows(&out.join("summary.csv")).iter().map(|r| r["policy"].clone()).collect();
    assert_eq!(names, ["fifo/alpha=1", "lsap/alpha=1", "fifo/alpha=10", "lsap/alpha=10"]);
    // A missing shard is named.
    std::fs::remove_dir_all(out.join("shards/1-of-2")).unwrap();
    let o = placer(&["whatif", "summarize", &out.display().to_string()]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("1/2"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn bad_whatif_input_is_a_clear_error() {
    let out = fresh("whatif_bad");
    std::fs::create_dir_all(&out).unwrap();
    let sweep = out.join("typo.toml");
    std::fs::write(&sweep, "alhpa = [1]\n").unwrap();
    let o = sls(&out, &["--sweep", &sweep.display().to_string()]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("alhpa"));
    // A malformed trace names the file and the record.
    let bad = out.join("bad.json");
    std::fs::write(&bad, "{\"job.id\": \"j\", \"job.start.ms\": \"soon\"}").unwrap();
    let o = placer(&[
        "whatif",
        "--trace",
        &bad.display().to_string(),
        "--format",
        "sls",
        "--out",
        &out.display().to_string(),
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad.json"), "{err}");
    let o = placer(&["whatif", "--format", "sls"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--trace"));
}

#[test]
fn swim_pools_by_size_bin() {
    // The first 50 FB-2009 jobs on 20 nodes, one pool per FAIR Table 2 size bin: every job's
    // pool is `bin0` … `bin8`, and a bad value of the flag is refused with the choices.
    let out = fresh("whatif_swim_pools");
    let (trace, dir) =
        (data("FB-2009_samples_24_times_1hr_0_first50jobs.tsv"), out.display().to_string());
    let args = [
        "whatif",
        "--trace",
        &trace,
        "--format",
        "swim",
        "--nodes",
        "20",
        "--rack-size",
        "5",
        "--policies",
        "fair",
        "--swim-pools",
        "size-bin",
        "--out",
        &dir,
    ];
    let o = placer(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let jobs = rows(&out.join("jobs/policy=fair/part-0.csv"));
    assert_eq!(jobs.len(), 50);
    assert!(jobs.iter().all(|j| j["pool"].starts_with("bin")), "{:?}", jobs[0]);
    let mut bad = args;
    bad[12] = "round-robin:0";
    let o = placer(&bad);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("round-robin:N"));
}

#[test]
fn simulator_flags_and_sweep_keys_of_the_new_settings() {
    // The SLS two-job trace under every heartbeat mode, slowstart 1, no start-up overhead and
    // a victim choice: the flags parse and the runs finish; a sweep over the new keys
    // partitions by them.
    let out = fresh("whatif_sim_flags");
    for heartbeat in ["epoch", "node", "node-multiple"] {
        let o = sls(
            &out,
            &[
                "--policies",
                "fifo,lsap",
                "--heartbeat",
                heartbeat,
                "--slowstart",
                "1",
                "--task-overhead-s",
                "0",
                "--intermediate-gb",
                "10",
                "--victim",
                "least-progress",
            ],
        );
        assert!(o.status.success(), "{heartbeat}: {}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(rows(&out.join("summary.csv")).len(), 2);
    }
    std::fs::create_dir_all(&out).unwrap();
    let sweep = out.join("sweep.toml");
    std::fs::write(&sweep, "map_slots = [1, 4]\nheartbeat = [0, 2]\nslowstart = [0.5]\n").unwrap();
    let o = sls(&out, &["--policies", "fifo", "--sweep", &sweep.display().to_string()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let names: Vec<String> =
        rows(&out.join("summary.csv")).iter().map(|r| r["policy"].clone()).collect();
    assert_eq!(
        names,
        [
            "fifo/map_slots=1/slowstart=0.5/heartbeat=0",
            "fifo/map_slots=1/slowstart=0.5/heartbeat=2",
            "fifo/map_slots=4/slowstart=0.5/heartbeat=0",
            "fifo/map_slots=4/slowstart=0.5/heartbeat=2"
        ]
    );
    // Bad values: a clap error (exit 2) for an unknown mode, the simulator's field for an
    // out-of-range slowstart, the key and index for a bad sweep value.
    let o = sls(&out, &["--heartbeat", "sometimes"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("node-multiple"));
    let o = sls(&out, &["--slowstart", "1.5"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("slowstart"));
    std::fs::write(&sweep, "map_slots = [2.5]\n").unwrap();
    let o = sls(&out, &["--sweep", &sweep.display().to_string()]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("map_slots[0]"));
}

#[test]
fn workload_presets_run_the_papers_experiments() {
    // FAIR Table 3's experiment, shrunk: 30 three-map jobs on the Small Private Cluster (100
    // nodes, 4 racks, 6 map slots), fifo against delay scheduling with the preset's T1 = T2 =
    // 15 s. Delay scheduling is the more node-local (Table 3's direction).
    let out = fresh("whatif_workload");
    let dir = out.display().to_string();
    let o = placer(&[
        "whatif",
        "--workload",
        "fair-small-jobs:maps=3,jobs=30",
        "--policies",
        "fifo,delay",
        "--out",
        &dir,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let header = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert!(header.lines().next().unwrap().ends_with(
        "cross_rack_shuffle_gb,remote_map_gb,peak_intermediate_gb,cpu_utilisation,\
         mem_utilisation,io_utilisation,steady_throughput_jobs_per_h,steady_mean_turnaround_s,\
         goals,goals_met,steady_map_slot_utilisation,steady_jobs_in_system,\
         steady_pools_with_two_jobs,steady_cross_rack_use,steady_cross_rack_saturated_share,\
         steady_arrivals_jobs_per_h,stranded_slot_fraction,stranded_slots_while_waiting"
    ));
    let summary = rows(&out.join("summary.csv"));
    assert_eq!(summary.len(), 2);
    for row in &summary {
        assert_eq!(row["jobs"], "30");
        assert_eq!(row["jobs_finished"], "30");
        assert_eq!(row["map_tasks"], "90");
        assert_eq!(row["cross_rack_shuffle_gb"], "0.0", "map-only jobs shuffle nothing");
        assert_eq!(row["cross_rack_gb"], row["remote_map_gb"]);
    }
    let node_local = |i: usize| summary[i]["node_local"].parse::<f64>().unwrap();
    assert!(node_local(1) > node_local(0), "delay {} vs fifo {}", node_local(1), node_local(0));
    // Generated jobs have no real finish times: no validation.csv, no validation line.
    assert!(!out.join("validation.csv").exists());
    assert!(!String::from_utf8_lossy(&o.stdout).contains("validation:"));
    let jobs = rows(&out.join("jobs/policy=delay/part-0.csv"));
    assert_eq!(jobs.len(), 30);
    assert!(jobs.iter().all(|j| j["observed_response_s"].is_empty()));
    assert!(jobs.iter().all(|j| j["class"] == "3-map" && j["maps"] == "3"));
    // A flag overrides the preset: 1 map slot per node.
    let o = placer(&[
        "whatif",
        "--workload",
        "fair-small-jobs:maps=3,jobs=30",
        "--map-slots",
        "1",
        "--nodes",
        "8",
        "--policies",
        "fifo",
        "--out",
        &dir,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let row = &rows(&out.join("summary.csv"))[0];
    // 90 maps on 8 slots take more than one wave: the makespan grows past one map's time.
    assert!(row["makespan_s"].parse::<f64>().unwrap() > 30.0, "{row:?}");
}

#[test]
fn bad_workloads_are_usage_errors_naming_what_is_known() {
    let out = fresh("whatif_workload_bad").display().to_string();
    let run = |extra: &[&str]| {
        let mut args = vec!["whatif", "--out", &out];
        args.extend_from_slice(extra);
        let o = placer(&args);
        (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let (code, err) = run(&["--workload", "fair-tiny"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("fair-tiny") && err.contains("fair-bm, fair-small-jobs"), "{err}");
    let (code, err) = run(&["--workload", "fair-small-jobs:mapz=3"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("`mapz`") && err.contains("maps, jobs"), "{err}");
    let (code, err) = run(&["--workload", "ras:experiment=3"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("`experiment`") && err.contains("one of 1, 2"), "{err}");
    // Exactly one of --trace and --workload.
    let (code, err) = run(&[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--trace") && err.contains("--workload"), "{err}");
    let trace = data("inputsls.json");
    let (code, err) = run(&["--workload", "ras", "--trace", &trace, "--format", "sls"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("cannot be used with"), "{err}");
    // A cluster the generator cannot build is named.
    let (code, err) = run(&["--workload", "fair-small-jobs:jobs=3", "--nodes", "30"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("--nodes 30"), "{err}");
}

#[test]
fn sw_shuffle_watcher_workload_reports_table_3_by_class_and_the_steady_state() {
    // ShuffleWatcher's mix, shrunk (2 users × 3 jobs, inputs × 0.001) on its 10 racks of 10
    // with 500 Mbit/s uplinks: traffic_by_class.csv has Table 3's rows per policy, every job
    // in one of them and the cross-rack total the sum of its parts; summary.csv ends with the
    // steady-state columns; the rate over time is written and plotted.
    let out = fresh("whatif_sw_classes");
    let dir = out.display().to_string();
    let o = placer(&[
        "whatif",
        "--workload",
        "shuffle-watcher:users=2,jobs_per_user=3,input_scale=0.001",
        "--policies",
        "fair,lsap_quota",
        "--sw-mechanisms",
        "nass,sarp",
        "--saturation-threshold",
        "0.75",
        "--out",
        &dir,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let by_class = rows(&out.join("traffic_by_class.csv"));
    let header = std::fs::read_to_string(out.join("traffic_by_class.csv")).unwrap();
    assert!(header.starts_with(
        "policy,class,jobs,total_shuffle_gb,cross_rack_shuffle_gb,remote_map_gb,\
         total_cross_rack_gb\n"
    ));
    let summary = rows(&out.join("summary.csv"));
    for (policy, row) in ["fair", "lsap_quota"].iter().zip(&summary) {
        let mine: Vec<_> = by_class.iter().filter(|r| r["policy"] == *policy).collect();
        let classes: Vec<&str> = mine.iter().map(|r| r["class"].as_str()).collect();
        assert_eq!(classes, ["heavy", "medium", "light"], "every job is a Table 1 benchmark");
        let jobs: u64 = mine.iter().map(|r| r["jobs"].parse::<u64>().unwrap()).sum();
        assert_eq!(jobs, 6);
        let f =
            |r: &std::collections::BTreeMap<String, String>, c: &str| r[c].parse::<f64>().unwrap();
        let mut cross = 0.0;
        for r in &mine {
            let parts = f(r, "cross_rack_shuffle_gb") + f(r, "remote_map_gb");
            assert!((f(r, "total_cross_rack_gb") - parts).abs() < 1e-12, "{r:?}");
            assert!(f(r, "cross_rack_shuffle_gb") <= f(r, "total_shuffle_gb") + 1e-12, "{r:?}");
            cross += f(r, "total_cross_rack_gb");
        }
        let total = f(row, "cross_rack_gb");
        assert!((cross - total).abs() <= 1e-9 * total.max(1.0), "{policy}: {cross} vs {total}");
        assert!(f(row, "steady_throughput_jobs_per_h") > 0.0, "{row:?}");
        assert!(f(row, "steady_mean_turnaround_s") > 0.0, "{row:?}");
        // The load of the steady state: shares in [0, 1], someone in the system, and no
        // throughput above the arrivals.
        for share in ["steady_map_slot_utilisation", "steady_cross_rack_use"] {
            assert!((0.0..=1.0).contains(&f(row, share)), "{share}: {row:?}");
        }
        assert!(f(row, "steady_jobs_in_system") > 0.0, "{row:?}");
        let arrivals = f(row, "steady_arrivals_jobs_per_h");
        assert!(f(row, "steady_throughput_jobs_per_h") <= arrivals + 1e-9, "{row:?}");
    }
    let text = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert!(text.lines().next().unwrap().ends_with(
        "steady_throughput_jobs_per_h,steady_mean_turnaround_s,goals,goals_met,\
         steady_map_slot_utilisation,steady_jobs_in_system,steady_pools_with_two_jobs,\
         steady_cross_rack_use,steady_cross_rack_saturated_share,steady_arrivals_jobs_per_h,\
         stranded_slot_fraction,stranded_slots_while_waiting"
    ));
    assert!(out.join("cross_rack_timeseries.csv").is_file());
    assert!(out.join("cross_rack_timeseries.svg").is_file());
    let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    assert!(manifest.contains("\"traffic_by_class.csv\""), "{manifest}");
}

#[test]
fn sw_flags_out_of_their_domain_are_usage_errors_naming_the_flag() {
    // ShuffleWatcher's knobs: clap's usage error (exit 2) naming the flag; good values run.
    let out = fresh("whatif_sw_flags");
    let o = sls(
        &out,
        &[
            "--policies",
            "fair",
            "--sw-mechanisms",
            "none",
            "--saturation-threshold",
            "1",
            "--map-completion-threshold",
            "0",
            "--starvation-window-s",
            "30",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for (flag, value, says) in [
        ("--sw-mechanisms", "nass,delay", "delay"),
        ("--sw-mechanisms", "samp,samp", "twice"),
        ("--saturation-threshold", "0", "(0, 1]"),
        ("--saturation-threshold", "1.2", "(0, 1]"),
        ("--map-completion-threshold", "1.5", "[0, 1]"),
        ("--map-completion-threshold", "often", "not a number"),
        ("--starvation-window-s", "0", "> 0"),
        ("--starvation-window-s", "inf", "finite"),
    ] {
        let o = sls(&out, &[flag, value]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{flag} {value}: {err}");
        assert!(err.contains(flag) && err.contains(says), "{flag} {value}: {err}");
    }
}

#[test]
fn loss_model_flags_run_and_out_of_their_domain_are_usage_errors_naming_the_flag() {
    // A network that loses goodput (--goodput, --copiers, --netsat-measure) on ShuffleWatcher's
    // shrunk mix: the runs finish every job; `--goodput none` is the loss-free run to the digit;
    // a bad value is clap's usage error (exit 2) naming the flag.
    let run = |name: &str, extra: &[&str]| {
        let out = fresh(name);
        let dir = out.display().to_string();
        let mut args = vec![
            "whatif",
            "--workload",
            "shuffle-watcher:users=2,jobs_per_user=3,input_scale=0.001",
            "--policies",
            "fair,shuffle_watcher",
            "--network",
            "max-min",
            "--out",
            &dir,
        ];
        args.extend_from_slice(extra);
        let o = placer(&args);
        assert!(o.status.success(), "{extra:?}: {}", String::from_utf8_lossy(&o.stderr));
        rows(&out.join("summary.csv"))
    };
    let results = |rows: &[std::collections::BTreeMap<String, String>]| {
        let keep = ["policy", "mean_response_s", "makespan_s", "cross_rack_gb", "events"];
        rows.iter().map(|r| keep.map(|k| r[k].clone())).collect::<Vec<_>>()
    };
    let plain = run("whatif_loss_plain", &[]);
    assert_eq!(results(&plain), results(&run("whatif_loss_none", &["--goodput", "none"])));
    let lossy = run(
        "whatif_loss_incast",
        &[
            "--goodput",
            "incast:n0=2,beta=0.5,floor=0.2",
            "--copiers",
            "2",
            "--netsat-measure",
            "offered",
        ],
    );
    for r in &lossy {
        assert_eq!(r["jobs_finished"], "6", "{r:?}");
    }
    let out = fresh("whatif_loss_bad");
    for (flag, value, says) in [
        ("--goodput", "tcp", "unknown model"),
        ("--goodput", "incast:floor=0", "goodput.floor"),
        ("--goodput", "incast:n0=0", "goodput.n0"),
        ("--goodput", "incast:gamma=1", "unknown key"),
        ("--copiers", "0", "≥ 1"),
        ("--netsat-measure", "demand", "offered"),
    ] {
        let o = sls(&out, &[flag, value]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{flag} {value}: {err}");
        assert!(err.contains(flag) && err.contains(says), "{flag} {value}: {err}");
    }
}

/// A one-node Alibaba cluster (3 CPUs, 3,000 MiB, no GPU) and four pods of 1 CPU, 500 MiB,
/// 10 s each, all created at 0, written under `dir`: (node list, pod list).
fn alibaba_one_node(dir: &Path) -> (String, String) {
    std::fs::create_dir_all(dir).unwrap();
    let nodes = dir.join("nodes.csv");
    std::fs::write(&nodes, "sn,cpu_milli,memory_mib,gpu,model\nn0,3000,3000,0,\n").unwrap();
    let pods = dir.join("pods.csv");
    let mut text = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,\
                    creation_time,deletion_time,scheduled_time\n"
        .to_owned();
    for i in 0..4 {
        text.push_str(&format!("p{i},1000,500,0,0,,LS,Succeeded,0,10,0\n"));
    }
    std::fs::write(&pods, text).unwrap();
    (nodes.display().to_string(), pods.display().to_string())
}

#[test]
fn ras_3_1_resources_not_slots_bound_a_node_under_ras_drf_and_lsap_ras() {
    // RAS §3.1's job slots: one node with 1 map slot (--map-slots 1) whose resources hold three
    // of the pods (each 1/3 of its CPUs and 1/6 of its memory; alibaba.rs scales demands to the
    // largest node, here the only one). Epochs every 3 s, no start-up overhead. ras, drf and
    // lsap_ras run p0–p2 at once, 0–10 s, and p3 at the next epoch after, 12–22 s (no job
    // setup or cleanup task); fair (the
    // same epochs) one pod per map slot: 0–10, 12–22, 24–34, 36–46. Mean response: (10 · 3 +
    // 22) / 4 = 13 s against (10 + 22 + 34 + 46) / 4 = 28 s. CPU use of the multi-resource
    // runs: (3 · 10 + 10) pod-seconds of 1/3 over 22 s = 40 / 66.
    let out = fresh("whatif_ras_one_node");
    let (nodes, pods) = alibaba_one_node(&out.join("trace"));
    let dir = out.display().to_string();
    let o = placer(&[
        "whatif",
        "--trace",
        &pods,
        "--format",
        "alibaba",
        "--topology",
        &nodes,
        "--map-slots",
        "1",
        "--heartbeat",
        "epoch",
        "--task-overhead-s",
        "0",
        "--job-setup-s",
        "0",
        "--job-cleanup-s",
        "0",
        "--policies",
        "ras,drf,lsap_ras,fair",
        "--out",
        &dir,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary = rows(&out.join("summary.csv"));
    let names: Vec<&str> = summary.iter().map(|r| r["policy"].as_str()).collect();
    assert_eq!(names, ["ras", "drf", "lsap_ras", "fair"]);
    let num = |r: &std::collections::BTreeMap<String, String>, k: &str| -> f64 {
        r[k].parse().unwrap_or_else(|e| panic!("{k} = {:?}: {e}", r[k]))
    };
    for row in &summary[..3] {
        assert_eq!(num(row, "makespan_s"), 22.0, "{row:?}");
        assert_eq!(num(row, "mean_response_s"), 13.0, "{row:?}");
        assert!((num(row, "cpu_utilisation") - 40.0 / 66.0).abs() < 1e-9, "{row:?}");
        // No deadlines in the trace: no goals.
        assert_eq!((row["goals"].as_str(), row["goals_met"].as_str()), ("0", "0"));
    }
    assert_eq!(num(&summary[3], "makespan_s"), 46.0);
    assert_eq!(num(&summary[3], "mean_response_s"), 28.0);
    let jobs = rows(&out.join("jobs/policy=ras/part-0.csv"));
    let finish: Vec<f64> = jobs.iter().map(|j| j["finish_s"].parse().unwrap()).collect();
    assert_eq!(finish, [10.0, 10.0, 10.0, 22.0]);
    assert!(jobs.iter().all(|j| j["goal_s"].is_empty() && j["goal_met"].is_empty()));
    // These policies place at epochs: per-node heartbeats are refused, naming the flag's field.
    let o = placer(&[
        "whatif",
        "--trace",
        &pods,
        "--format",
        "alibaba",
        "--topology",
        &nodes,
        "--heartbeat",
        "node",
        "--policies",
        "ras",
        "--out",
        &dir,
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("offers"), "{o:?}");
}

#[test]
fn ras_table_1_goals_of_experiment_2_in_the_outputs() {
    // RAS Table 1's completion-time goals (Experiment 2), shrunk to 4 GiB blocks so that the
    // run is short: every job has its goal, absolute (J1 3,000 s … J9 4,250 s), the per-job
    // table says whether it finished by then, and the summary counts them. Experiment 1 has
    // none.
    let out = fresh("whatif_ras_goals");
    let dir = out.display().to_string();
    let o = placer(&[
        "whatif",
        "--workload",
        "ras:goals=tight,block_mib=4096",
        "--policies",
        "ras,fair",
        "--out",
        &dir,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let goals = [3000.0, 850.0, 1250.0, 1100.0, 950.0, 2600.0, 6000.0, 3400.0, 4250.0];
    let summary = rows(&out.join("summary.csv"));
    for (policy, row) in ["ras", "fair"].iter().zip(&summary) {
        let jobs = rows(&out.join(format!("jobs/policy={policy}/part-0.csv")));
        let ids: Vec<&str> = jobs.iter().map(|j| j["id"].as_str()).collect();
        assert_eq!(ids, ["J1", "J2", "J3", "J4", "J5", "J6", "J7", "J8", "J9"]);
        let mut met = 0;
        for (j, goal) in jobs.iter().zip(goals) {
            assert_eq!(j["goal_s"].parse::<f64>().unwrap(), goal, "{policy}: {j:?}");
            let finish: f64 = j["finish_s"].parse().unwrap();
            let expect = if finish <= goal { "true" } else { "false" };
            assert_eq!(j["goal_met"], expect, "{policy}: {j:?}");
            met += usize::from(finish <= goal);
        }
        assert_eq!(row["goals"], "9");
        assert_eq!(row["goals_met"], met.to_string());
    }
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.lines().next().unwrap().ends_with("goals met"), "{stdout}");
    let o =
        placer(&["whatif", "--workload", "ras:block_mib=4096", "--policies", "ras", "--out", &dir]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let row = &rows(&out.join("summary.csv"))[0];
    assert_eq!((row["goals"].as_str(), row["goals_met"].as_str()), ("0", "0"));
    let jobs = rows(&out.join("jobs/policy=ras/part-0.csv"));
    assert!(jobs.iter().all(|j| j["goal_s"].is_empty() && j["goal_met"].is_empty()));
}

#[test]
fn allocations_file_queues_apply_to_the_trace_jobs() {
    // inputsls.json's jobs are in sls_queue_1 and sls_queue_2. With the hadoop-sls sample file
    // (weights, 1-slot min shares, 2 s min-share timeouts) nothing competes: every run
    // completes. A file limiting sls_queue_2 to 0 running apps leaves job_2 waiting: the run
    // stalls with one job finished.
    let sample = data("sls-sample-fair-scheduler.xml");
    let out = fresh("whatif_allocations");
    let o = sls(&out, &["--policies", "fair,lsap_quota", "--allocations", &sample]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for row in rows(&out.join("summary.csv")) {
        assert_eq!((row["stop"].as_str(), row["jobs_finished"].as_str()), ("completed", "2"));
    }

    let dir = fresh("whatif_allocations_limit");
    std::fs::create_dir_all(&dir).unwrap();
    let limit = dir.join("limit.xml");
    let text = "<allocations>\n  <queue name=\"sls_queue_2\">\n    \
                <maxRunningApps>0</maxRunningApps>\n  </queue>\n</allocations>\n";
    std::fs::write(&limit, text).unwrap();
    let out = dir.join("out");
    let o = sls(&out, &["--policies", "fair", "--allocations", &limit.display().to_string()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary = rows(&out.join("summary.csv"));
    assert_eq!(
        (summary[0]["stop"].as_str(), summary[0]["jobs_finished"].as_str()),
        ("stalled", "1")
    );

    // An invalid file is an error naming the element and its line.
    std::fs::write(&limit, text.replace(">0<", ">none<")).unwrap();
    let o = sls(&dir.join("bad"), &["--allocations", &limit.display().to_string()]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("line 3: <maxRunningApps>"), "{err}");
}

/// `placer whatif ARGS` with `env` set and every variable `--shard auto` reads removed first
/// (the tests may themselves run inside an array job).
fn placer_in_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_placer"));
    for name in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_MIN",
        "SLURM_ARRAY_TASK_MAX",
        "SLURM_ARRAY_TASK_COUNT",
        "SLURM_ARRAY_TASK_STEP",
        "JOB_COMPLETION_INDEX",
        "PLACER_SHARD_COUNT",
    ] {
        cmd.env_remove(name);
    }
    cmd.args(args).envs(env.iter().copied()).output().unwrap()
}

#[test]
fn shard_auto_from_slurm_and_kubernetes_merges_like_fixed_shards() {
    // 2 policies × alpha ∈ {1, 10} = 4 runs. Slurm `--array=1-2` (MIN 1, COUNT 2): task 1 is
    // shard 0/2, task 2 shard 1/2; an Indexed Job of 2 completions: indexes 0 and 1. Either
    // merges to the same rows as a sweep with --shard i/2 given by hand.
    let root = fresh("whatif_shard_auto");
    std::fs::create_dir_all(&root).unwrap();
    let sweep = root.join("sweep.toml");
    std::fs::write(&sweep, "alpha = [1, 10]\n").unwrap();
    let sweep = sweep.display().to_string();
    let (trace, nodes) = (data("inputsls.json"), data("nodes.json"));
    let run = |out: &Path, shard: &str, env: &[(&str, &str)]| {
        let out = out.display().to_string();
        let args = [
            "whatif",
            "--trace",
            &trace,
            "--format",
            "sls",
            "--topology",
            &nodes,
            "--policies",
            "fifo,lsap",
            "--sweep",
            &sweep,
            "--shard",
            shard,
            "--out",
            &out,
        ];
        placer_in_env(&args, env)
    };
    let summary = |out: &Path| -> Vec<Vec<String>> {
        let o = placer(&["whatif", "summarize", &out.display().to_string()]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        // Every column but wall-clock times (`*_ms`, `wall*`).
        rows(&out.join("summary.csv"))
            .into_iter()
            .map(|r| {
                let result = |k: &String| !k.ends_with("_ms") && !k.contains("wall");
                r.into_iter().filter(|(k, _)| result(k)).map(|(_, v)| v).collect()
            })
            .collect()
    };
    let fixed = root.join("fixed");
    for shard in ["0/2", "1/2"] {
        let o = run(&fixed, shard, &[]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let slurm = root.join("slurm");
    for id in ["1", "2"] {
        let env = [
            ("SLURM_ARRAY_TASK_ID", id),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "2"),
            ("SLURM_ARRAY_TASK_STEP", "1"),
        ];
        let o = run(&slurm, "auto", &env);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let k8s = root.join("k8s");
    for index in ["0", "1"] {
        let env = [("JOB_COMPLETION_INDEX", index), ("PLACER_SHARD_COUNT", "2")];
        let o = run(&k8s, "auto", &env);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    assert!(slurm.join("shards/0-of-2/manifest.json").is_file());
    assert!(slurm.join("shards/1-of-2/manifest.json").is_file());
    let expected = summary(&fixed);
    assert_eq!(expected.len(), 4);
    assert_eq!(summary(&slurm), expected);
    assert_eq!(summary(&k8s), expected);
    // Inconsistent or missing variables: exit 1 with the variable named, nothing written.
    let bad = root.join("bad");
    for (env, named) in [
        (vec![], "neither"),
        (vec![("JOB_COMPLETION_INDEX", "0")], "PLACER_SHARD_COUNT"),
        (vec![("JOB_COMPLETION_INDEX", "2"), ("PLACER_SHARD_COUNT", "2")], "not below"),
        (
            vec![
                ("SLURM_ARRAY_TASK_ID", "7"),
                ("SLURM_ARRAY_TASK_MIN", "1"),
                ("SLURM_ARRAY_TASK_MAX", "7"),
                ("SLURM_ARRAY_TASK_COUNT", "3"),
            ],
            "regular range",
        ),
        (vec![("SLURM_ARRAY_TASK_ID", "1")], "SLURM_ARRAY_TASK_MIN"),
    ] {
        let o = run(&bad, "auto", &env);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{env:?}: {err}");
        assert!(err.contains(named) && err.contains("--shard auto"), "{env:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    assert!(!bad.exists());
}

/// The shipped Google 2011-format sample (`scripts/google-sample`).
fn google_sample() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/traces/google-sample")
        .display()
        .to_string()
}

#[test]
fn google_sample_replays_under_every_policy() {
    // The sample's 60 jobs all have a scheduled task; 298 of its 304 tasks were ever scheduled
    // (counted with awk over task_events: distinct job,index with an event of type 1), so
    // every policy replays 60 jobs of 298 maps, none with replicas.
    let out = fresh("whatif_google");
    let all = "fifo,fair,delay,dl_sched,lsap,lsap_fair,lsap_quota,shuffle_watcher,\
               shuffle_watcher_relaxed,lsap_shuffle,ras,lsap_ras,drf";
    let dir = out.display().to_string();
    let sample = google_sample();
    let o = placer(&[
        "whatif",
        "--trace",
        &sample,
        "--format",
        "google",
        "--policies",
        all,
        "--out",
        &dir,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary = rows(&out.join("summary.csv"));
    let names: Vec<&str> = summary.iter().map(|r| r["policy"].as_str()).collect();
    assert_eq!(names, all.split(',').collect::<Vec<_>>());
    for row in &summary {
        assert_eq!(row["jobs"], "60", "{row:?}");
        let policy = &row["policy"];
        let jobs = rows(&out.join(format!("jobs/policy={policy}/part-0.csv")));
        assert_eq!(jobs.len(), 60);
        let maps: u64 = jobs.iter().map(|j| j["maps"].parse::<u64>().unwrap()).sum();
        assert_eq!(maps, 298, "{policy}");
        let local: u64 = jobs
            .iter()
            .flat_map(|j| ["maps_node_local", "maps_rack_local", "maps_remote"].map(|c| &j[c]))
            .map(|v| v.parse::<u64>().unwrap())
            .sum();
        assert_eq!(local, 0, "{policy}: no replicas, no locality");
    }
    // The multi-resource policies pack by the requests: the CPU columns are filled.
    for row in summary.iter().filter(|r| ["ras", "lsap_ras", "drf"].contains(&r["policy"].as_str()))
    {
        let cpu: f64 = row["cpu_utilisation"].parse().unwrap();
        assert!(cpu > 0.0 && cpu <= 1.0, "{row:?}");
    }
    // --topology does not apply: the machines come from the trace.
    let o = placer(&[
        "whatif",
        "--trace",
        &sample,
        "--format",
        "google",
        "--topology",
        &sample,
        "--out",
        &dir,
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("machine_events"));
}

#[test]
fn the_array_job_examples_use_shard_auto_consistently() {
    // examples/k8s: the Indexed Job's PLACER_SHARD_COUNT is its completions, and it runs
    // `--shard auto`; examples/slurm: the array script runs `--shard auto` and the submit
    // script chains the merge with afterok on the array.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let job = std::fs::read_to_string(root.join("k8s/sweep-job.yaml")).unwrap();
    // The manifest without its comment lines.
    let job: String = job
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    let value_after = |text: &str, key: &str| -> String {
        let at = text.find(key).unwrap_or_else(|| panic!("{key} missing"));
        let rest = text[at + key.len()..].trim_start();
        rest.split(|c: char| c.is_whitespace()).next().unwrap().trim_matches('"').to_owned()
    };
    assert_eq!(value_after(&job, "completionMode:"), "Indexed");
    let completions = value_after(&job, "completions:");
    let count_at = job.find("name: PLACER_SHARD_COUNT").unwrap();
    assert_eq!(value_after(&job[count_at..], "value:"), completions);
    assert!(job.contains("- --shard\n            - auto\n"), "{job}");
    let summarize = std::fs::read_to_string(root.join("k8s/summarize-job.yaml")).unwrap();
    assert!(summarize.contains("[placer, whatif, summarize, /data/out]"));
    let sbatch = std::fs::read_to_string(root.join("slurm/sweep.sbatch")).unwrap();
    assert!(sbatch.contains("--shard auto"));
    let submit = std::fs::read_to_string(root.join("slurm/submit.sh")).unwrap();
    assert!(submit.contains("--dependency=\"afterok:$array\""));
    assert!(submit.contains("--array=\"0-$((SHARDS - 1))\""));
}
