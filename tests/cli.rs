//! The CLI contract (README.md, "CLI") run as a user would: `gen snapshot` determinism,
//! `place` against a golden response, `export-matrix` + `lsap` agreeing with `place` (the
//! lsap-sched cost matrix, Guo, Fox, Zhou §3.2), `.lsap` edge cases and error exits.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the `placer` binary built for these tests.
pub(crate) fn placer(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_placer")).args(args).output().expect("placer runs")
}

fn ok_json(args: &[&str]) -> Value {
    let out = placer(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    dir.join(name)
}

fn gen(nodes: &str, tasks: &str, seed: &str, out: &Path) {
    let o = placer(&[
        "gen",
        "snapshot",
        "--nodes",
        nodes,
        "--rack-size",
        "20",
        "--map-slots",
        "4",
        "--idle",
        "0.5",
        "--tasks",
        tasks,
        "--replication",
        "3",
        "--rack-aware",
        "--seed",
        seed,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::write(out, o.stdout).unwrap();
}

#[test]
fn gen_snapshot_same_seed_same_bytes() {
    let (a, b, c) = (scratch("g_a.json"), scratch("g_b.json"), scratch("g_c.json"));
    gen("60", "120", "5", &a);
    gen("60", "120", "5", &b);
    gen("60", "120", "6", &c);
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert_ne!(std::fs::read(&a).unwrap(), std::fs::read(&c).unwrap());
    let v: Value = serde_json::from_slice(&std::fs::read(&a).unwrap()).unwrap();
    assert_eq!(v["cluster"]["nodes"].as_array().unwrap().len(), 60);
    assert_eq!(v["running"].as_array().unwrap().len(), 120, "half of 240 slots busy");
    assert_eq!(v["pending"].as_array().unwrap().len(), 120);
}

/// The shipped example against its golden response (`solve_ms` zeroed: it is a measurement).
/// Set `PLACER_UPDATE_GOLDEN=1` to rewrite the golden file after an intended change.
#[test]
fn example_snapshot_matches_golden() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let example = root.join("examples/snapshot.json");
    let mut got = ok_json(&["place", example.to_str().unwrap()]);
    got["stats"]["solve_ms"] = Value::from(0.0);
    let golden = root.join("tests/golden/example.response.json");
    if std::env::var_os("PLACER_UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, serde_json::to_string_pretty(&got).unwrap() + "\n").unwrap();
    }
    let want: Value = serde_json::from_slice(&std::fs::read(&golden).unwrap()).unwrap();
    assert_eq!(got, want);
}

/// lsap's objective equals the dense optimum of the exported matrix, solved by `placer lsap`
/// (f64 JV) and by the Kuhn–Munkres reference; dl_sched's is no better.
#[test]
fn place_objective_equals_dense_optimum_of_export_matrix() {
    let snap = scratch("x.json");
    let matrix = scratch("x.lsap");
    gen("150", "300", "11", &snap);
    let s = snap.to_str().unwrap();
    // The default (lsap_quota) on one pool has nothing to share: lsap's optimum.
    let lsap = ok_json(&["place", s])["stats"]["objective"].as_f64().unwrap();
    let reference = ok_json(&["place", s, "--algorithm", "lsap", "--solver", "hungarian"])["stats"]
        ["objective"]
        .as_f64()
        .unwrap();
    let greedy =
        ok_json(&["place", s, "--algorithm", "dl_sched"])["stats"]["objective"].as_f64().unwrap();
    let out = placer(&["export-matrix", s, matrix.to_str().unwrap()]);
    assert!(out.status.success());
    let dense = ok_json(&["lsap", matrix.to_str().unwrap()]);
    assert_eq!(dense["rows"], 300);
    assert_eq!(dense["cols"], 300);
    let dense = dense["objective"].as_f64().unwrap();
    assert!((lsap - dense).abs() <= 1e-6 * dense.max(1.0), "{lsap} vs {dense}");
    assert!((lsap - reference).abs() <= 1e-6 * dense.max(1.0), "{lsap} vs {reference}");
    assert!(greedy > lsap, "dl_sched {greedy} vs lsap {lsap}");
}

fn write_lsap(path: &Path, rows: u64, cols: u64, values: &[f64]) {
    let mut b = rows.to_le_bytes().to_vec();
    b.extend_from_slice(&cols.to_le_bytes());
    for v in values {
        b.extend_from_slice(&v.to_le_bytes());
    }
    std::fs::write(path, b).unwrap();
}

/// A 2×3 with a forbidden pair: minimise → r0→c1 (1) + r1→c0 (2) = 3; maximise → r0→c2 (5) +
/// r1→c1 (8) = 13 (r0→c0 is forbidden).
#[test]
fn lsap_file_minimise_and_maximise() {
    let f = scratch("m.lsap");
    write_lsap(&f, 2, 3, &[f64::INFINITY, 1.0, 5.0, 2.0, 8.0, 4.0]);
    let min = ok_json(&["lsap", f.to_str().unwrap()]);
    assert_eq!(min["objective"], 3.0);
    assert_eq!(min["assignment"], serde_json::json!([1, 0]));
    let max = ok_json(&["lsap", f.to_str().unwrap(), "--maximize"]);
    assert_eq!(max["objective"], 13.0);
    assert_eq!(max["assignment"], serde_json::json!([2, 1]));
    // Tall: 3×1, the cheapest row takes the only column, the others get null.
    write_lsap(&f, 3, 1, &[4.0, 2.0, 9.0]);
    let tall = ok_json(&["lsap", f.to_str().unwrap()]);
    assert_eq!(tall["assignment"], serde_json::json!([null, 0, null]));
}

#[test]
fn events_summarize_of_a_missing_directory_writes_nothing_and_exits_1() {
    let dir = scratch("no-such-event-log");
    let _ = std::fs::remove_dir_all(&dir);
    let out = placer(&["events", "summarize", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-event-log"));
}

#[test]
fn lsap_errors_exit_1_with_a_message() {
    let f = scratch("bad.lsap");
    write_lsap(&f, 2, 2, &[1.0, 2.0, 3.0]);
    let out = placer(&["lsap", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs 48 bytes"));
    write_lsap(&f, 2, 2, &[f64::INFINITY, f64::INFINITY, 1.0, 2.0]);
    let out = placer(&["lsap", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("infeasible"));
    // The fuzzer's finding (fuzz/regressions/lsap_reader): 2^40 rows of no columns is 16 bytes
    // long, and used to abort allocating a 2^40-row table.
    write_lsap(&f, 1 << 40, 0, &[]);
    let out = placer(&["lsap", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("has no cells"));
}

#[test]
fn place_rejects_bad_snapshots_with_the_json_error() {
    let f = scratch("bad.json");
    std::fs::write(
        &f,
        br#"{"schema_version":1,"cluster":{"racks":[{"id":"r"}],"nodes":[{"id":"n","rack":"q"}]}}"#,
    )
    .unwrap();
    let out = placer(&["place", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(err["error"]["code"], "unknown_reference");
    assert_eq!(err["error"]["path"], "cluster.nodes[0].rack");
}

/// `placer place` honours `policy.deadline_ms` as `POST /place` does (docs/operations/
/// serving.md, "Deadlines and the anytime answer"): with 1 ms from the moment the file is read,
/// parsing alone outlasts the deadline, so the answer is the greedy completion, `time_limited`,
/// still placing every task a free slot can take; without a deadline the same snapshot answers
/// `optimal`, at no greater cost.
#[test]
fn place_honours_policy_deadline_ms() {
    let (free, cut) = (scratch("deadline_none.json"), scratch("deadline_1ms.json"));
    gen("2000", "4000", "11", &free);
    let mut snapshot: Value = serde_json::from_slice(&std::fs::read(&free).unwrap()).unwrap();
    snapshot["policy"]["deadline_ms"] = Value::from(1);
    std::fs::write(&cut, serde_json::to_vec(&snapshot).unwrap()).unwrap();
    let limited = ok_json(&["place", cut.to_str().unwrap()]);
    let optimal = ok_json(&["place", free.to_str().unwrap()]);
    assert_eq!(limited["stats"]["status"], "time_limited");
    assert_eq!(optimal["stats"]["status"], "optimal");
    let placed = |v: &Value| v["assignments"].as_array().map(Vec::len);
    assert_eq!(placed(&limited), placed(&optimal), "the greedy completion fills the free slots");
    let objective = |v: &Value| v["stats"]["objective"].as_f64().unwrap();
    assert!(objective(&limited) >= objective(&optimal) - 1e-9);
}

#[test]
fn serve_refuses_an_invalid_config_file_naming_the_key_and_line() {
    let cases = [
        (
            "wrong_type.toml",
            "addr = \"127.0.0.1:0\"\nbody_limit = \"big\"\n",
            "key `body_limit` (line 2)",
        ),
        ("unknown.toml", "[policy]\nalhpa = 1\n", "key `policy.alhpa` (line 2): unknown key"),
        ("invalid.toml", "workers = 0\n", "key `workers` (line 1): must be at least 1"),
    ];
    for (name, text, expected) in cases {
        let path = scratch(name);
        std::fs::write(&path, text).unwrap();
        let out = placer(&["serve", "--config", path.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        assert!(stderr.contains(expected), "{name}: {stderr}");
    }
}

#[test]
fn place_with_allocations_takes_the_pools_from_the_file() {
    // A snapshot whose job names sls_queue_3 and lists no pools: invalid alone; with the
    // hadoop-sls sample allocation file its pools are the file's three queues, and the min
    // share of 1 slot shows in the fair share of the only active pool.
    let snapshot = scratch("alloc_snapshot.json");
    let body = serde_json::json!({
        "schema_version": 1,
        "cluster": {"racks": [{"id": "r0"}], "nodes": [{"id": "n0", "rack": "r0", "map_slots": 2}]},
        "jobs": [{"id": "j1", "pool": "sls_queue_3", "user": "jenkins"}],
        "pending": [{"id": "t1", "job": "j1", "kind": "map"}],
    });
    std::fs::write(&snapshot, body.to_string()).unwrap();
    let file = snapshot.display().to_string();
    let alone = placer(&["place", &file]);
    assert!(!alone.status.success());
    assert!(String::from_utf8_lossy(&alone.stderr).contains("jobs[0].pool"));

    let sample = placer_testkit::data("sls-sample-fair-scheduler.xml").display().to_string();
    let answer = ok_json(&["place", &file, "--allocations", &sample]);
    let pools: Vec<&str> =
        answer["pools"].as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap()).collect();
    assert_eq!(pools, ["sls_queue_1", "sls_queue_2", "sls_queue_3"]);
    assert_eq!(answer["pools"][2]["fair_share"]["map"], 1.0);
    assert_eq!(answer["assignments"].as_array().unwrap().len(), 1);
    // The idle pools' shares are 0.0 on the wire, never the −0.0 water-filling can leave.
    for pool in &answer["pools"].as_array().unwrap()[..2] {
        for kind in ["map", "reduce"] {
            let share = pool["fair_share"][kind].as_f64().unwrap();
            assert!(share == 0.0 && share.is_sign_positive(), "{}: {share:?}", pool["id"]);
        }
    }
}
