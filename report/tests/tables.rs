//! `placer whatif`'s tables (docs/simulator.md, "Outputs"): exact headers, row counts, locality
//! shares, CSV escaping, atomic writes, Parquet and manifest round trips, on hand-made reports
//! of two policies.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::{Path, PathBuf};

use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;
use placer_models::Algorithm;
use placer_report::atomic::TEMP_MARKER;
use placer_report::manifest::{read_manifest, write_manifest, Manifest, Shard};
use placer_report::tables::{
    jobs_csv, parse_summary_csv, racks_csv, read_summary_csv, summary_csv, write_run_tables,
    write_summary_csv, SummaryRow, EPOCH_COLUMNS, JOBRUNTIME_COLUMNS, JOB_COLUMNS, RACK_COLUMNS,
    SUMMARY_COLUMNS,
};
use placer_report::tables::{
    read_validation_csv, write_validation_csv, ErrorSummary, VALIDATION_COLUMNS,
};
use placer_sim::{
    EpochMetrics, JobMetrics, RackTraffic, SimReport, StopReason, Summary, TrafficSeries,
    WallTiming,
};

/// The job id that needs CSV quoting.
const NASTY_ID: &str = "j,1 \"big\"";

fn job(id: &str, submit_s: f64, finish_s: Option<f64>, locality: [usize; 4]) -> JobMetrics {
    let ideal_s = 10.0;
    JobMetrics {
        id: id.to_owned(),
        class: if id == NASTY_ID { Some("bin, 3".to_owned()) } else { None },
        pool: "prod".to_owned(),
        submit_s,
        finish_s,
        response_s: finish_s.map(|f| f - submit_s),
        ideal_s,
        slowdown: finish_s.map(|f| (f - submit_s) / ideal_s),
        maps: locality.iter().sum(),
        reduces: 1,
        maps_node_local: locality[0],
        maps_rack_local: locality[1],
        maps_remote: locality[2],
        maps_no_preference: locality[3],
        task_runs: locality.iter().sum::<usize>() + 1,
        preempted: 0,
        observed_response_s: None,
        shuffle_gb: 0.0,
        cross_rack_shuffle_gb: 0.0,
        remote_map_gb: 0.0,
        goal_s: None,
        goal_met: None,
        start_s: None,
        wait_s: None,
        maps_started_s: None,
        map_racks: 0,
        maps_at_start: 0,
        gang: None,
    }
}

fn epoch(time_s: f64, assigned: u64) -> EpochMetrics {
    EpochMetrics {
        time_s,
        pending: 5,
        offered: 5,
        running: 2,
        free_map_slots: 4,
        free_reduce_slots: 2,
        assigned,
        node_local: assigned,
        rack_local: 0,
        remote: 0,
        preempted: 0,
        fairness_distance: 0.25,
        bytes_in_rack: 1.5e8,
        bytes_cross_rack: 0.0,
        racks: Vec::new(),
    }
}

/// A run of 3 jobs (one unfinished) and `epochs` solver calls; `locality` of job 0.
fn report(name: &str, algorithm: Algorithm, locality: [usize; 4]) -> SimReport {
    let mut jobs = vec![
        job(NASTY_ID, 0.0, Some(42.5), locality),
        job("j2", 1.25, Some(30.0), [1, 1, 0, 0]),
        job("j3", 2.0, None, [0, 0, 0, 0]),
    ];
    // The trace says j2 really took 25 s and j3 40 s.
    jobs[1].observed_response_s = Some(25.0);
    jobs[2].observed_response_s = Some(40.0);
    // Goals (RAS §3.2): job 0 missed 40 s (finished at 42.5), j2 met 30 s exactly; j3 has none.
    (jobs[0].goal_s, jobs[0].goal_met) = (Some(40.0), Some(false));
    (jobs[1].goal_s, jobs[1].goal_met) = (Some(30.0), Some(true));
    let epochs = vec![epoch(0.0, 3), epoch(1.0, 2), epoch(2.0, 0)];
    let summary = Summary {
        jobs: 3,
        jobs_finished: 2,
        map_tasks: 0,
        node_local: 0.0,
        rack_local: 0.0,
        remote: 0.0,
        mean_response_s: 35.625,
        p95_response_s: 42.5,
        mean_slowdown: 3.5625,
        makespan_s: 42.5,
        throughput_jobs_per_h: 169.41176470588235,
        in_rack_gb: 0.3,
        cross_rack_gb: 0.1,
        local_read_gb: 1.2,
        cross_rack_shuffle_gb: 0.0625,
        remote_map_gb: 0.0375,
        peak_intermediate_gb: 2.5,
        utilisation: None,
        fairness_distance: 0.25,
        map_slot_utilisation: 0.5,
        reduce_slot_utilisation: 0.125,
        stranded_slot_fraction: 0.25,
        stranded_slots_while_waiting: 3.5,
        task_runs: 9,
        preemptions: 0,
        events: 17,
        epochs: 3,
        ticks: 4,
        end_time_s: 50.0,
        steady_throughput_jobs_per_h: 84.0,
        steady_mean_turnaround_s: 21.25,
        steady_load: placer_sim::SteadyLoad {
            map_slot_utilisation: 0.5,
            jobs_in_system: 1.5,
            pools_with_two_jobs: 0.25,
            cross_rack_use: 0.125,
            cross_rack_saturated_share: 0.0,
            arrivals_jobs_per_h: 90.0,
        },
        goals: 2,
        goals_met: 1,
    };
    SimReport {
        name: name.to_owned(),
        algorithm,
        stop: StopReason::TimeLimit,
        jobs,
        epochs,
        summary,
        cross_rack_series: TrafficSeries::default(),
        timing: WallTiming {
            solve_ms: vec![0.5, 0.25, 0.125],
            mean_solve_ms: 0.2916666666666667,
            max_solve_ms: 0.5,
            total_solve_ms: 0.875,
            snapshot_ms: 0.1,
            wall_s: 0.01,
        },
    }
}

fn two_policies() -> Vec<SimReport> {
    vec![
        report("dl_sched", Algorithm::DlSched, [2, 1, 1, 0]),
        report("lsap", Algorithm::Lsap, [3, 0, 0, 2]),
    ]
}

fn partition(name: &str) -> Vec<(String, String)> {
    vec![("policy".to_owned(), name.to_owned())]
}

/// Writes both runs' tables and the summary under `dir`; returns every file entry.
fn write_all(dir: &Path, reports: &[SimReport]) -> Vec<placer_report::manifest::FileEntry> {
    let mut files = Vec::new();
    for r in reports {
        files.extend(write_run_tables(dir, &partition(&r.name), r).unwrap());
    }
    let rows: Vec<SummaryRow> = reports.iter().map(SummaryRow::from_report).collect();
    files.push(write_summary_csv(dir, &Shard::WHOLE.summary_file(), &rows).unwrap());
    files
}

fn csv_lines(path: &Path) -> Vec<String> {
    fs::read_to_string(path).unwrap().lines().map(str::to_owned).collect()
}

/// All files under `dir`, relative, sorted.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// Every row of a Parquet file as (column, value) pairs.
fn parquet_rows(path: &Path) -> Vec<Vec<(String, Field)>> {
    let reader = SerializedFileReader::new(fs::File::open(path).unwrap()).unwrap();
    reader
        .get_row_iter(None)
        .unwrap()
        .map(|row| row.unwrap().get_column_iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .collect()
}

fn parquet_columns(path: &Path) -> Vec<String> {
    let reader = SerializedFileReader::new(fs::File::open(path).unwrap()).unwrap();
    let schema = reader.metadata().file_metadata().schema_descr_ptr();
    schema.columns().iter().map(|c| c.name().to_owned()).collect()
}

#[test]
fn summary_header_is_the_contract_then_extras() {
    let rows: Vec<SummaryRow> = two_policies().iter().map(SummaryRow::from_report).collect();
    let text = summary_csv(&rows);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with(
        "policy,jobs,node_local,rack_local,remote,mean_response_s,p95_response_s,\
         makespan_s,cross_rack_gb,fairness_distance,mean_solve_ms,"
    ));
    assert_eq!(lines[0], SUMMARY_COLUMNS.join(","));
    assert_eq!(lines.len(), 3);
    // dl_sched: 3 node-local, 2 rack-local, 1 remote map.
    assert!(lines[1].starts_with(
        "dl_sched,3,0.5,0.3333333333333333,0.16666666666666666,35.625,42.5,42.5,0.1,0.25,\
         0.2916666666666667,dl_sched,time_limit,2,6,0.0,"
    ));
    assert!(text.ends_with('\n'));
    // The extras after the contract end with the traffic split, the peak of intermediate
    // data, the resource use (empty: these runs have no demands), the steady state and the
    // goals (2 jobs have one, 1 met it), then the steady state's load and the stranded slots.
    assert!(
        lines[1]
            .ends_with(",0.0625,0.0375,2.5,,,,84.0,21.25,2,1,0.5,1.5,0.25,0.125,0.0,90.0,0.25,3.5"),
        "{}",
        lines[1]
    );
    assert!(lines[0].ends_with(
        ",cross_rack_shuffle_gb,remote_map_gb,peak_intermediate_gb,cpu_utilisation,\
         mem_utilisation,io_utilisation,steady_throughput_jobs_per_h,steady_mean_turnaround_s,\
         goals,goals_met,steady_map_slot_utilisation,steady_jobs_in_system,\
         steady_pools_with_two_jobs,steady_cross_rack_use,steady_cross_rack_saturated_share,\
         steady_arrivals_jobs_per_h,stranded_slot_fraction,stranded_slots_while_waiting"
    ));
    let mut with_use = two_policies().remove(0);
    with_use.summary.utilisation = Some(placer_sim::ResourceUse { cpu: 0.5, mem: 0.25, io: 0.125 });
    let text = summary_csv(&[SummaryRow::from_report(&with_use)]);
    let line = text.lines().nth(1).unwrap().to_owned();
    assert!(line.contains(",0.0625,0.0375,2.5,0.5,0.25,0.125,84.0,21.25,2,1,"), "{line}");
}

#[test]
fn locality_shares_sum_to_one_over_maps_with_replicas() {
    for r in two_policies() {
        let row = SummaryRow::from_report(&r);
        let (n, k, m) = (row.node_local.unwrap(), row.rack_local.unwrap(), row.remote.unwrap());
        assert!((n + k + m - 1.0).abs() < 1e-12, "{}: {n} + {k} + {m}", r.name);
    }
    // lsap: job 0 has 3 node-local + 2 without replicas, job 1 one node- and one rack-local:
    // of the 5 maps with replicas 4 are node-local and 1 rack-local; 2 of all 7 have none.
    let lsap = SummaryRow::from_report(&two_policies()[1]);
    assert_eq!(lsap.map_tasks, 7);
    assert_eq!(lsap.node_local, Some(4.0 / 5.0));
    assert_eq!(lsap.rack_local, Some(1.0 / 5.0));
    assert_eq!(lsap.remote, Some(0.0));
    assert_eq!(lsap.no_preference, Some(2.0 / 7.0));
    // No completed map: undefined, written empty.
    let mut none = report("fifo", Algorithm::Fifo, [0, 0, 0, 0]);
    for j in &mut none.jobs {
        (j.maps_node_local, j.maps_rack_local, j.maps_remote, j.maps_no_preference) = (0, 0, 0, 0);
    }
    let row = SummaryRow::from_report(&none);
    assert_eq!((row.node_local, row.rack_local, row.remote), (None, None, None));
    assert!(summary_csv(&[row]).lines().nth(1).unwrap().starts_with("fifo,3,,,,"));
}

#[test]
fn summary_round_trips_through_the_reader() {
    let dir = tempfile::tempdir().unwrap();
    let mut rows: Vec<SummaryRow> = two_policies().iter().map(SummaryRow::from_report).collect();
    rows[0].policy = "lsap/alpha=0.5, \"odd\"".to_owned();
    rows[1].node_local = None;
    rows[1].mean_slowdown = f64::INFINITY;
    rows[1].wall_s = 1e-9;
    (rows[1].cpu_utilisation, rows[1].mem_utilisation, rows[1].io_utilisation) =
        (Some(0.75), Some(0.5), Some(1.0 / 3.0));
    let entry = write_summary_csv(dir.path(), "summary.csv", &rows).unwrap();
    assert_eq!(entry.rows, Some(2));
    assert_eq!(entry.bytes, fs::metadata(dir.path().join("summary.csv")).unwrap().len());
    let back = read_summary_csv(&dir.path().join("summary.csv")).unwrap();
    assert_eq!(back, rows);
    // Columns are found by name: an unknown leading column does not matter.
    let text = "extra,".to_owned()
        + &summary_csv(&rows).lines().map(|l| l.to_owned() + "\n").collect::<Vec<_>>().join("x,");
    let back = parse_summary_csv(&text, "mixed").unwrap();
    assert_eq!(back, rows);
    assert!(parse_summary_csv("policy,jobs\nx,1\n", "short").is_err());
}

#[test]
fn run_tables_have_exact_headers_row_counts_and_escaping() {
    let dir = tempfile::tempdir().unwrap();
    let reports = two_policies();
    write_all(dir.path(), &reports);
    let expected: Vec<PathBuf> = [
        "epochs/policy=dl_sched/part-0.csv",
        "epochs/policy=dl_sched/part-0.parquet",
        "epochs/policy=lsap/part-0.csv",
        "epochs/policy=lsap/part-0.parquet",
        "jobruntime/policy=dl_sched/jobruntime.csv",
        "jobruntime/policy=lsap/jobruntime.csv",
        "jobs/policy=dl_sched/part-0.csv",
        "jobs/policy=dl_sched/part-0.parquet",
        "jobs/policy=lsap/part-0.csv",
        "jobs/policy=lsap/part-0.parquet",
        "racks/policy=dl_sched/part-0.csv",
        "racks/policy=dl_sched/part-0.parquet",
        "racks/policy=lsap/part-0.csv",
        "racks/policy=lsap/part-0.parquet",
        "summary.csv",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    assert_eq!(walk(dir.path()), expected);

    let jobs = csv_lines(&dir.path().join("jobs/policy=lsap/part-0.csv"));
    assert_eq!(jobs[0], JOB_COLUMNS.join(","));
    assert_eq!(jobs.len(), 1 + 3);
    assert_eq!(
        jobs[1],
        "\"j,1 \"\"big\"\"\",\"bin, 3\",prod,0.0,42.5,42.5,10.0,4.25,5,1,3,0,0,2,6,0,,0.0,0.0,0.0,\
         40.0,false,,,,0,0,"
    );
    assert!(jobs[2].ends_with(",25.0,0.0,0.0,0.0,30.0,true,,,,0,0,"), "{}", jobs[2]);
    // Unfinished job: finish, response and slowdown empty; no class, no goal, no start, no
    // gang: empty.
    assert_eq!(jobs[3], "j3,,prod,2.0,,,10.0,,0,1,0,0,0,0,1,0,40.0,0.0,0.0,0.0,,,,,,0,0,");

    let epochs = csv_lines(&dir.path().join("epochs/policy=lsap/part-0.csv"));
    assert_eq!(epochs[0], EPOCH_COLUMNS.join(","));
    assert_eq!(epochs.len(), 1 + 3);
    assert_eq!(epochs[1], "0,0.0,5,5,2,4,2,3,3,0,0,0,0.25,150000000.0,0.0,0.5");

    let runtime = csv_lines(&dir.path().join("jobruntime/policy=lsap/jobruntime.csv"));
    assert_eq!(
        runtime[0],
        "JobID,real_start_time,real_end_time,simulate_start_time,simulate_end_time"
    );
    assert_eq!(runtime[0], JOBRUNTIME_COLUMNS.join(","));
    // Finished jobs only, by finish time; times in ms.
    // j2's real end: 1.25 + 25 s.
    assert_eq!(runtime[1..], ["j2,1250,26250,1250,30000", "\"j,1 \"\"big\"\"\",0,,0,42500"]);
}

#[test]
fn every_write_is_atomic_and_leaves_no_temp_file() {
    let dir = tempfile::tempdir().unwrap();
    let reports = two_policies();
    // Twice: the second run replaces every file.
    write_all(dir.path(), &reports);
    let files = write_all(dir.path(), &reports);
    let manifest = Manifest::new("abc123", "{}", Shard::WHOLE, vec![], files);
    write_manifest(dir.path(), &Shard::WHOLE.manifest_file(), &manifest).unwrap();
    let all = walk(dir.path());
    assert_eq!(all.len(), 16);
    for p in all {
        assert!(!p.to_string_lossy().contains(TEMP_MARKER), "{}", p.display());
    }
}

#[test]
fn output_is_deterministic() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let fa = write_all(a.path(), &two_policies());
    let fb = write_all(b.path(), &two_policies());
    assert_eq!(fa, fb);
    for f in &fa {
        assert_eq!(
            fs::read(a.path().join(&f.path)).unwrap(),
            fs::read(b.path().join(&f.path)).unwrap()
        );
    }
}

#[test]
fn parquet_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let reports = two_policies();
    write_all(dir.path(), &reports);

    let jobs_path = dir.path().join("jobs/policy=dl_sched/part-0.parquet");
    assert_eq!(parquet_columns(&jobs_path), JOB_COLUMNS);
    let jobs = parquet_rows(&jobs_path);
    assert_eq!(jobs.len(), 3);
    assert_eq!(jobs[0][0], ("id".to_owned(), Field::Str(NASTY_ID.to_owned())));
    assert_eq!(jobs[0][1], ("class".to_owned(), Field::Str("bin, 3".to_owned())));
    assert_eq!(jobs[0][4], ("finish_s".to_owned(), Field::Double(42.5)));
    assert_eq!(jobs[0][10], ("maps_node_local".to_owned(), Field::Long(2)));
    assert_eq!(jobs[2][1], ("class".to_owned(), Field::Null));
    assert_eq!(jobs[2][4], ("finish_s".to_owned(), Field::Null));
    assert_eq!(jobs[2][7], ("slowdown".to_owned(), Field::Null));
    assert_eq!(jobs[0][20], ("goal_s".to_owned(), Field::Double(40.0)));
    assert_eq!(jobs[0][21], ("goal_met".to_owned(), Field::Bool(false)));
    assert_eq!(jobs[1][21], ("goal_met".to_owned(), Field::Bool(true)));
    assert_eq!(jobs[2][21], ("goal_met".to_owned(), Field::Null));

    let epochs_path = dir.path().join("epochs/policy=lsap/part-0.parquet");
    assert_eq!(parquet_columns(&epochs_path), EPOCH_COLUMNS);
    let epochs = parquet_rows(&epochs_path);
    assert_eq!(epochs.len(), 3);
    assert_eq!(epochs[1][0], ("epoch".to_owned(), Field::Long(1)));
    assert_eq!(epochs[1][7], ("assigned".to_owned(), Field::Long(2)));
    assert_eq!(epochs[2][15], ("solve_ms".to_owned(), Field::Double(0.125)));
}

#[test]
fn empty_runs_write_readable_empty_tables() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = report("ras", Algorithm::Ras, [0, 0, 0, 0]);
    r.jobs.clear();
    r.epochs.clear();
    r.timing.solve_ms.clear();
    let files = write_run_tables(dir.path(), &partition("ras"), &r).unwrap();
    assert!(files.iter().all(|f| f.rows == Some(0)));
    for table in ["jobs", "epochs", "racks"] {
        let p = dir.path().join(format!("{table}/policy=ras/part-0.parquet"));
        assert!(parquet_rows(&p).is_empty());
        assert_eq!(csv_lines(&p.with_extension("csv")).len(), 1);
    }
    assert_eq!(jobs_csv(&r), JOB_COLUMNS.join(",") + "\n");
}

#[test]
fn sweep_partitions_nest_in_key_order() {
    let dir = tempfile::tempdir().unwrap();
    let r = report("lsap/alpha=10", Algorithm::Lsap, [1, 0, 0, 0]);
    let keys =
        vec![("policy".to_owned(), "lsap".to_owned()), ("alpha".to_owned(), "10".to_owned())];
    let files = write_run_tables(dir.path(), &keys, &r).unwrap();
    assert_eq!(files[0].path, "jobs/policy=lsap/alpha=10/part-0.csv");
    assert_eq!(files[4].path, "racks/policy=lsap/alpha=10/part-0.csv");
    assert_eq!(files[6].path, "jobruntime/policy=lsap/alpha=10/jobruntime.csv");
}

#[test]
fn manifest_round_trips_and_lists_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let reports = two_policies();
    let files = write_all(dir.path(), &reports);
    let shard: Shard = "1/3".parse().unwrap();
    let config = "{\"seed\": 7}\n";
    let manifest = Manifest::new(
        "v0.1.0-12-gabc1234-dirty",
        config,
        shard,
        reports.iter().map(|r| r.name.clone()).collect(),
        files,
    );
    let written = write_manifest(dir.path(), &shard.manifest_file(), &manifest).unwrap();
    assert_eq!(written.path, "shards/1-of-3/manifest.json");
    let back = read_manifest(&dir.path().join(&written.path)).unwrap();
    assert_eq!(back, manifest);

    assert_eq!(back.shard.to_string(), "1/3");
    assert_eq!(back.policies, ["dl_sched", "lsap"]);
    // `printf '{"seed": 7}\n' | sha256sum`
    assert_eq!(
        back.config_sha256,
        "sha256:e2d3b5417c4b719bdbbaf916c17795b70d9e104a9fe61678806d146a567c774f"
    );
    let rows: Vec<(&str, u64)> = back.rows.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(rows, [("epochs", 6), ("jobruntime", 4), ("jobs", 6), ("racks", 0), ("summary", 2)]);
    assert_eq!(back.files.len(), 15);
    let paths: Vec<&str> = back.files.iter().map(|f| f.path.as_str()).collect();
    let mut sorted = paths.clone();
    sorted.sort_unstable();
    assert_eq!(paths, sorted);
    for f in &back.files {
        assert_eq!(fs::metadata(dir.path().join(&f.path)).unwrap().len(), f.bytes, "{}", f.path);
    }
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join(&written.path)).unwrap()).unwrap();
    assert_eq!(json["shard"], "1/3");
    assert_eq!(json["git_revision"], "v0.1.0-12-gabc1234-dirty");
    assert!(read_manifest(&dir.path().join("summary.csv")).is_err());
}

#[test]
fn racks_table_has_one_row_per_epoch_and_rack_with_traffic() {
    // Epoch 0: rack 0 sent 2e8 B to rack 2 and received 5e7 B from it; epoch 1: no traffic;
    // epoch 2: rack 1 received 1e8 B (from a rack with no row: r3 sent it).
    let mut r = report("lsap", Algorithm::Lsap, [1, 0, 0, 0]);
    let traffic = |rack, bytes_out, bytes_in| RackTraffic { rack, bytes_out, bytes_in };
    r.epochs[0].racks = vec![traffic(0, 2e8, 5e7), traffic(2, 5e7, 2e8)];
    r.epochs[2].racks = vec![traffic(1, 0.0, 1e8), traffic(3, 1e8, 0.0)];
    let csv = racks_csv(&r);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], RACK_COLUMNS.join(","));
    let time = |e: usize| format!("{:?}", r.epochs[e].time_s);
    assert_eq!(lines[1], format!("0,{},r0,200000000.0,50000000.0", time(0)));
    assert_eq!(lines[2], format!("0,{},r2,50000000.0,200000000.0", time(0)));
    assert_eq!(lines[3], format!("2,{},r1,0.0,100000000.0", time(2)));
    assert_eq!(lines[4], format!("2,{},r3,100000000.0,0.0", time(2)));
    assert_eq!(lines.len(), 5);
    let dir = tempfile::tempdir().unwrap();
    let files = write_run_tables(dir.path(), &partition("lsap"), &r).unwrap();
    let racks = files.iter().find(|f| f.path == "racks/policy=lsap/part-0.parquet").unwrap();
    assert_eq!(racks.rows, Some(4));
    assert_eq!(parquet_rows(&dir.path().join(&racks.path)).len(), 4);
}

#[test]
fn validation_compares_real_and_simulated_response_per_job() {
    // Each run: j2 really took 25 s and took 30 − 1.25 = 28.75 s in the simulator: +15%; j3
    // really took 40 s and did not finish: no error. Job 0 has no real time: no row.
    let dir = tempfile::tempdir().unwrap();
    let reports = two_policies();
    let refs: Vec<&SimReport> = reports.iter().collect();
    let entry = write_validation_csv(dir.path(), "validation.csv", &refs).unwrap().unwrap();
    assert_eq!((entry.kind.as_str(), entry.rows), ("validation", Some(4)));
    let lines = csv_lines(&dir.path().join("validation.csv"));
    assert_eq!(lines[0], VALIDATION_COLUMNS.join(","));
    assert_eq!(
        lines[1..],
        [
            "dl_sched,j2,,25.0,28.75,15.0",
            "dl_sched,j3,,40.0,,",
            "lsap,j2,,25.0,28.75,15.0",
            "lsap,j3,,40.0,,"
        ]
    );
    let back = read_validation_csv(&dir.path().join("validation.csv")).unwrap();
    assert_eq!(back.len(), 4);
    assert_eq!((back[0].sim_response_s, back[0].error_pct), (Some(28.75), Some(15.0)));
    assert_eq!((back[1].sim_response_s, back[1].error_pct), (None, None));
    let line = ErrorSummary::of(&reports[1]).unwrap().to_string();
    assert_eq!(
        line,
        "validation: policy lsap: median |error| 15.0%, mean |error| 15.0% over 1 jobs"
    );
    // No real times anywhere: no file, no summary.
    let mut plain = two_policies();
    for j in plain.iter_mut().flat_map(|r| r.jobs.iter_mut()) {
        j.observed_response_s = None;
    }
    let refs: Vec<&SimReport> = plain.iter().collect();
    let other = tempfile::tempdir().unwrap();
    assert_eq!(write_validation_csv(other.path(), "validation.csv", &refs).unwrap(), None);
    assert!(!other.path().join("validation.csv").exists());
    assert_eq!(ErrorSummary::of(&plain[0]), None);
}

#[test]
fn sw_table_3_traffic_split_by_shuffle_class() {
    // ShuffleWatcher Table 3's columns per Shuffle class (Table 1): terasort (heavy) pulled
    // 3 GB, 2 of them across racks, and read 0.5 GB of remote map input; self-join (heavy)
    // 1 GB, 0.25 across, 0.25 remote map; grep (light) only 0.1 GB of remote map input; a job
    // of no Table 1 class ("bin, 3") 0.5 GB of cross-rack shuffle. heavy: 2 jobs, 4 GB total
    // shuffle, 2.25 cross-rack, 0.75 remote map, 3 GB cross-rack in all; medium: none; light:
    // 1 job, 0.1 GB; other: 1 job, 0.5 GB.
    use placer_report::tables::{
        traffic_by_class_csv, traffic_by_class_rows, write_traffic_by_class_csv,
        TRAFFIC_BY_CLASS_COLUMNS,
    };
    let mut r = report("fair", Algorithm::Fair, [1, 0, 0, 0]);
    let traffic = |class: &str, shuffle: f64, cross: f64, remote: f64| {
        let mut j = job("x", 0.0, Some(1.0), [1, 0, 0, 0]);
        j.class = Some(class.to_owned());
        (j.shuffle_gb, j.cross_rack_shuffle_gb, j.remote_map_gb) = (shuffle, cross, remote);
        j
    };
    r.jobs = vec![
        traffic("terasort", 3.0, 2.0, 0.5),
        traffic("grep", 0.0, 0.0, 0.1),
        traffic("self-join", 1.0, 0.25, 0.25),
        traffic("bin, 3", 0.5, 0.5, 0.0),
    ];
    let rows = traffic_by_class_rows(&r);
    let got: Vec<(&str, u64, f64, f64, f64, f64)> = rows
        .iter()
        .map(|c| {
            let (a, b, m, t) = (
                c.total_shuffle_gb,
                c.cross_rack_shuffle_gb,
                c.remote_map_gb,
                c.total_cross_rack_gb,
            );
            (c.class, c.jobs, a, b, m, t)
        })
        .collect();
    assert_eq!(
        got,
        [
            ("heavy", 2, 4.0, 2.25, 0.75, 3.0),
            ("medium", 0, 0.0, 0.0, 0.0, 0.0),
            ("light", 1, 0.0, 0.0, 0.1, 0.1),
            ("other", 1, 0.5, 0.5, 0.0, 0.5),
        ]
    );
    let text = traffic_by_class_csv(&rows);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], TRAFFIC_BY_CLASS_COLUMNS.join(","));
    assert_eq!(
        lines[0],
        "policy,class,jobs,total_shuffle_gb,cross_rack_shuffle_gb,remote_map_gb,total_cross_rack_gb"
    );
    assert_eq!(lines[1], "fair,heavy,2,4.0,2.25,0.75,3.0");
    // Without an `other` job there is no `other` row.
    r.jobs.pop();
    assert_eq!(traffic_by_class_rows(&r).len(), 3);
    // Written only when some job has a Table 1 class.
    let dir = tempfile::tempdir().unwrap();
    let entry = write_traffic_by_class_csv(dir.path(), "traffic_by_class.csv", &[&r]).unwrap();
    assert_eq!(entry.unwrap().rows, Some(3));
    let plain = two_policies();
    let none = write_traffic_by_class_csv(dir.path(), "none.csv", &[&plain[0]]).unwrap();
    assert!(none.is_none() && !dir.path().join("none.csv").exists());
}

#[test]
fn sw_fig_10_timeseries_rows_are_mbit_per_s_per_bucket() {
    // 750 MB of cross-rack shuffle and 150 MB of remote map input in [0, 60 s): 100 and 120
    // Mbit/s; nothing in [60, 120 s); 75 MB of shuffle in [120, 180 s): 10 Mbit/s.
    use placer_report::tables::{cross_rack_timeseries_csv, CROSS_RACK_TIMESERIES_COLUMNS};
    let mut r = report("lsap", Algorithm::Lsap, [1, 0, 0, 0]);
    r.cross_rack_series = TrafficSeries {
        bucket_s: 60.0,
        shuffle_bytes: vec![750e6, 0.0, 75e6],
        total_bytes: vec![900e6, 0.0, 75e6],
    };
    let empty = report("fifo", Algorithm::Fifo, [1, 0, 0, 0]);
    let text = cross_rack_timeseries_csv(&[&r, &empty]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], CROSS_RACK_TIMESERIES_COLUMNS.join(","));
    assert_eq!(lines[0], "policy,t_s,cross_rack_shuffle_mbps,cross_rack_total_mbps");
    assert_eq!(lines[1..], ["lsap,0.0,100.0,120.0", "lsap,60.0,0.0,0.0", "lsap,120.0,10.0,10.0"]);
}

#[test]
fn by_class_rows_give_response_wait_and_gang_starts_per_class() {
    // by_class.rs's example: class gang-required, three gangs submitted at 0, 0 and 10 s,
    // started at 2, 6 and 10 s, finished at 12, 16 and 40 s: mean response (12 + 16 + 30) / 3,
    // waits 2, 6, 0: mean 8 / 3, p90 the 3rd smallest, 6. The second started piecemeal (3 of
    // its 4 maps at its start) across 2 racks, the others whole (all 4) in one rack. A mapreduce job that never
    // started; one job without class.
    use placer_report::tables::{
        by_class_csv, by_class_rows, write_by_class_csv, BY_CLASS_COLUMNS,
    };
    let mut r = report("fair", Algorithm::Fair, [1, 0, 0, 0]);
    let gang = |submit: f64, start: f64, at_start: usize, finish: f64, racks: usize| {
        let mut j = job("g", submit, Some(finish), [1, 0, 0, 0]);
        j.class = Some("gang-required".to_owned());
        (j.start_s, j.wait_s) = (Some(start), Some(start - submit));
        (j.maps_at_start, j.map_racks, j.gang) = (at_start, racks, Some(4));
        j
    };
    let mut idle = job("m", 0.0, None, [0, 0, 0, 0]);
    idle.class = Some("mapreduce".to_owned());
    let mut plain = job("x", 1.0, Some(4.0), [1, 0, 0, 0]);
    (plain.start_s, plain.wait_s) = (Some(1.5), Some(0.5));
    r.jobs = vec![
        gang(0.0, 2.0, 4, 12.0, 1),
        idle,
        gang(0.0, 6.0, 3, 16.0, 2),
        plain,
        gang(10.0, 10.0, 4, 40.0, 1),
    ];
    let rows = by_class_rows(&r);
    let classes: Vec<&str> = rows.iter().map(|c| c.class.as_str()).collect();
    assert_eq!(classes, ["gang-required", "mapreduce", "none"]);
    let g = &rows[0];
    assert_eq!((g.jobs, g.jobs_finished, g.not_started, g.gangs), (3, 3, 0, 3));
    assert_eq!(g.mean_response_s, Some(58.0 / 3.0));
    assert_eq!((g.mean_wait_s, g.p90_wait_s), (Some(8.0 / 3.0), Some(6.0)));
    assert_eq!((g.gangs_started_whole, g.gangs_in_one_rack), (Some(2), Some(2)));
    let text = by_class_csv(&rows);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], BY_CLASS_COLUMNS.join(","));
    assert_eq!(
        lines[0],
        "policy,class,jobs,jobs_finished,mean_response_s,mean_wait_s,p90_wait_s,not_started,\
         gangs,gangs_started_whole,gangs_in_one_rack"
    );
    // Nothing to average for the job that never started; no gang in the class: empty counts.
    assert_eq!(lines[2], "fair,mapreduce,1,0,,,,1,0,,");
    assert_eq!(lines[3], "fair,none,1,1,3.0,0.5,0.5,0,0,,");
    let dir = tempfile::tempdir().unwrap();
    let two = two_policies();
    let entry = write_by_class_csv(dir.path(), "by_class.csv", &[&r, &two[0]]).unwrap();
    assert_eq!(
        (entry.path.as_str(), entry.kind.as_str(), entry.rows),
        ("by_class.csv", "by_class", Some(5))
    );
}
