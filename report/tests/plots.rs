//! `placer whatif`'s plots (docs/simulator.md, "Outputs"): the ten files exist and are well
//! formed for small hand-made reports, the output is deterministic, and the edge cases (no
//! reports, no finished jobs, no epochs, zeros, NaN) draw without error.

use placer_models::Algorithm;
use placer_report::plots::write_plots;
use placer_sim::{
    EpochMetrics, JobMetrics, SimReport, StopReason, Summary, TrafficSeries, WallTiming,
};
use std::path::{Path, PathBuf};

const PNG_SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
const STEMS: [&str; 5] =
    ["locality", "response_cdf", "cross_rack", "cross_rack_timeseries", "fairness"];

fn job(k: usize, submit_s: f64, response_s: Option<f64>) -> JobMetrics {
    JobMetrics {
        id: format!("j{k}"),
        class: None,
        pool: format!("u{}", k % 3),
        submit_s,
        finish_s: response_s.map(|r| submit_s + r),
        response_s,
        ideal_s: 10.0,
        slowdown: response_s.map(|r| r / 10.0),
        maps: 4,
        reduces: 1,
        maps_node_local: 3,
        maps_rack_local: 1,
        maps_remote: 0,
        maps_no_preference: 0,
        task_runs: 5,
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

fn epoch(time_s: f64, fairness_distance: f64, bytes_cross_rack: f64) -> EpochMetrics {
    EpochMetrics {
        time_s,
        pending: 10,
        offered: 10,
        running: 4,
        free_map_slots: 2,
        free_reduce_slots: 1,
        assigned: 2,
        node_local: 1,
        rack_local: 1,
        remote: 0,
        preempted: 0,
        fairness_distance,
        bytes_in_rack: 1e8,
        bytes_cross_rack,
        racks: Vec::new(),
    }
}

fn summary(jobs: &[JobMetrics], epochs: &[EpochMetrics], locality: [f64; 3]) -> Summary {
    let cross: f64 = epochs.iter().map(|e| e.bytes_cross_rack).filter(|b| b.is_finite()).sum();
    Summary {
        jobs: jobs.len(),
        jobs_finished: jobs.iter().filter(|j| j.finish_s.is_some()).count(),
        map_tasks: 4 * jobs.len(),
        node_local: locality[0],
        rack_local: locality[1],
        remote: locality[2],
        mean_response_s: 0.0,
        p95_response_s: 0.0,
        mean_slowdown: 0.0,
        makespan_s: 0.0,
        throughput_jobs_per_h: 0.0,
        in_rack_gb: 0.0,
        cross_rack_gb: cross / 1e9 + 0.5,
        local_read_gb: 0.0,
        cross_rack_shuffle_gb: 0.0,
        remote_map_gb: 0.0,
        peak_intermediate_gb: 0.0,
        utilisation: None,
        fairness_distance: 0.1,
        map_slot_utilisation: 0.5,
        reduce_slot_utilisation: 0.5,
        stranded_slot_fraction: 0.0,
        stranded_slots_while_waiting: 0.0,
        task_runs: 5 * jobs.len(),
        preemptions: 0,
        events: 100,
        epochs: epochs.len(),
        ticks: epochs.len() as u64,
        end_time_s: epochs.last().map_or(0.0, |e| e.time_s + 30.0),
        steady_throughput_jobs_per_h: 0.0,
        steady_mean_turnaround_s: 0.0,
        steady_load: placer_sim::SteadyLoad::default(),
        goals: 0,
        goals_met: 0,
    }
}

/// A report named `name` with jobs of response times 5 s · `scale`^k and 60 epochs.
fn report(name: &str, algorithm: Algorithm, scale: f64, locality: [f64; 3]) -> SimReport {
    let jobs: Vec<JobMetrics> =
        (0..12).map(|k| job(k, 30.0 * k as f64, Some(5.0 * scale.powi(k as i32)))).collect();
    let epochs: Vec<EpochMetrics> = (0..60)
        .map(|k| epoch(3.0 * k as f64, 0.05 * (k % 7) as f64 * scale, 2e8 * scale))
        .collect();
    let summary = summary(&jobs, &epochs, locality);
    SimReport {
        name: name.to_owned(),
        algorithm,
        stop: StopReason::Completed,
        jobs,
        epochs,
        summary,
        cross_rack_series: series(9, 4e8 * scale),
        timing: WallTiming::default(),
    }
}

/// `buckets` minutes of cross-rack traffic rising and falling around `peak` bytes a minute,
/// half of it shuffle.
fn series(buckets: usize, peak: f64) -> TrafficSeries {
    let total: Vec<f64> = (0..buckets).map(|k| peak * ((k % 5) as f64 + 1.0) / 5.0).collect();
    TrafficSeries {
        bucket_s: 60.0,
        shuffle_bytes: total.iter().map(|b| b / 2.0).collect(),
        total_bytes: total,
    }
}

fn three_policies() -> Vec<SimReport> {
    vec![
        report("dl_sched", Algorithm::DlSched, 1.6, [0.82, 0.15, 0.03]),
        report("lsap", Algorithm::Lsap, 1.4, [0.95, 0.05, 0.0]),
        report("fair", Algorithm::Fair, 1.8, [0.6, 0.3, 0.1]),
    ]
}

fn expected_paths(dir: &Path) -> Vec<PathBuf> {
    STEMS
        .iter()
        .flat_map(|s| [dir.join(format!("{s}.svg")), dir.join(format!("{s}.png"))])
        .collect()
}

fn assert_well_formed(paths: &[PathBuf], dir: &Path) {
    assert_eq!(paths, expected_paths(dir).as_slice());
    for path in paths {
        let bytes = std::fs::read(path).unwrap_or_default();
        assert!(!bytes.is_empty(), "{} is empty", path.display());
        if path.extension().is_some_and(|e| e == "png") {
            assert_eq!(bytes[..8], PNG_SIGNATURE, "{}", path.display());
        } else {
            let svg = String::from_utf8_lossy(&bytes);
            assert!(svg.starts_with("<svg"), "{}", path.display());
            assert!(svg.trim_end().ends_with("</svg>"), "{}", path.display());
        }
    }
}

#[test]
fn three_policies_give_ten_well_formed_files_naming_every_policy() {
    let reports = three_policies();
    let refs: Vec<&SimReport> = reports.iter().collect();
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let paths = write_plots(&refs, dir.path()).unwrap_or_else(|e| panic!("{e}"));
    assert_well_formed(&paths, dir.path());
    for stem in STEMS {
        let svg =
            std::fs::read_to_string(dir.path().join(format!("{stem}.svg"))).unwrap_or_default();
        for name in ["dl_sched", "lsap", "fair"] {
            assert!(svg.contains(name), "{stem}.svg lacks {name}");
        }
    }
}

#[test]
fn same_reports_give_the_same_svg_bytes() {
    let reports = three_policies();
    let refs: Vec<&SimReport> = reports.iter().collect();
    let (a, b) = (tempfile::tempdir(), tempfile::tempdir());
    let (a, b) = (a.unwrap_or_else(|e| panic!("{e}")), b.unwrap_or_else(|e| panic!("{e}")));
    write_plots(&refs, a.path()).unwrap_or_else(|e| panic!("{e}"));
    write_plots(&refs, b.path()).unwrap_or_else(|e| panic!("{e}"));
    for stem in STEMS {
        for ext in ["svg", "png"] {
            let file = format!("{stem}.{ext}");
            let (x, y) = (std::fs::read(a.path().join(&file)), std::fs::read(b.path().join(&file)));
            assert_eq!(x.ok(), y.ok(), "{file} differs between runs");
        }
    }
}

#[test]
fn no_reports_still_draw_ten_files() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("nested/out");
    let paths = write_plots(&[], &out).unwrap_or_else(|e| panic!("{e}"));
    assert_well_formed(&paths, &out);
    let svg = std::fs::read_to_string(out.join("fairness.svg")).unwrap_or_default();
    assert!(svg.contains("no reports"));
}

#[test]
fn no_epochs_no_finished_jobs_zeros_and_nan_draw_without_error() {
    let mut no_epochs = report("no_epochs", Algorithm::Lsap, 1.5, [1.0, 0.0, 0.0]);
    no_epochs.epochs.clear();
    no_epochs.summary.end_time_s = 0.0;
    let mut unfinished = report("unfinished", Algorithm::Fifo, 1.5, [0.0, 0.0, 0.0]);
    for j in &mut unfinished.jobs {
        j.finish_s = None;
        j.response_s = None;
    }
    unfinished.summary.map_tasks = 0;
    let mut zeros = report("zeros", Algorithm::Delay, 1.0, [0.0, 0.0, 0.0]);
    for j in &mut zeros.jobs {
        j.response_s = Some(0.0);
    }
    for e in &mut zeros.epochs {
        e.fairness_distance = 0.0;
        e.bytes_cross_rack = 0.0;
    }
    zeros.summary.cross_rack_gb = 0.0;
    let mut nan = report("nan", Algorithm::LsapQuota, 1.5, [f64::NAN, f64::NAN, f64::INFINITY]);
    nan.jobs[0].response_s = Some(f64::NAN);
    nan.jobs[1].response_s = Some(f64::INFINITY);
    nan.epochs[3].fairness_distance = f64::NAN;
    nan.epochs[4].bytes_cross_rack = f64::NAN;
    nan.epochs[5].time_s = f64::NAN;
    nan.summary.cross_rack_gb = f64::NAN;
    nan.summary.fairness_distance = f64::NAN;
    nan.summary.end_time_s = f64::INFINITY;
    nan.cross_rack_series.shuffle_bytes[2] = f64::NAN;
    nan.cross_rack_series.total_bytes[3] = f64::INFINITY;
    no_epochs.cross_rack_series = TrafficSeries::default();
    zeros.cross_rack_series = series(4, 0.0);
    unfinished.cross_rack_series.bucket_s = 0.0;

    let cases: Vec<Vec<&SimReport>> = vec![
        vec![&no_epochs],
        vec![&unfinished],
        vec![&zeros],
        vec![&nan],
        vec![&no_epochs, &unfinished, &zeros, &nan],
    ];
    for (k, reports) in cases.iter().enumerate() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let paths = write_plots(reports, dir.path()).unwrap_or_else(|e| panic!("case {k}: {e}"));
        assert_well_formed(&paths, dir.path());
    }
}

#[test]
fn thousands_of_epochs_and_jobs_keep_the_svg_small() {
    let mut big = report("lsap_quota", Algorithm::LsapQuota, 1.0, [0.9, 0.1, 0.0]);
    big.epochs = (0..20_000).map(|k| epoch(3.0 * k as f64, (k % 13) as f64 / 13.0, 1e7)).collect();
    big.jobs = (0..20_000).map(|k| job(k, k as f64, Some(1.0 + (k % 997) as f64))).collect();
    big.summary = summary(&big.jobs, &big.epochs, [0.9, 0.1, 0.0]);
    big.cross_rack_series = series(1_000, 1e9);
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let paths = write_plots(&[&big], dir.path()).unwrap_or_else(|e| panic!("{e}"));
    assert_well_formed(&paths, dir.path());
    for path in paths.iter().filter(|p| p.extension().is_some_and(|e| e == "svg")) {
        let len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        assert!(len < 200_000, "{} is {len} bytes", path.display());
    }
}

#[test]
fn an_unwritable_directory_is_an_io_error() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, b"x").unwrap_or_else(|e| panic!("{e}"));
    let err = write_plots(&[], &file).err();
    assert!(matches!(err, Some(placer_report::ReportError::Io { .. })), "{err:?}");
}
