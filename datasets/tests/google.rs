//! The Google 2011 cluster-trace reader on a hand-written fixture: machines, jobs and tasks
//! with every event kind, the counts, durations, failed attempts and demands derived by hand
//! from the module's rules; both file layouts, gzip, and malformed records named by file,
//! line and column.

use placer_datasets::google::{parse_google, read_google};
use placer_datasets::DatasetError;
use std::io::Write;

/// 4 machines: m1 and m2 on platform pA, m3 on pB (its UPDATE raises its CPUs to 0.5), m2
/// removed later (kept), m4 without a capacity (left out).
const MACHINES: &str = "\
0,1,0,pA,0.5,0.25
0,2,0,pA,1,1
0,3,0,pB,0.25,0.5
0,4,0,pC,,
100000000,3,2,pB,0.5,
200000000,2,1,,,
";

/// Jobs 10 (alice, class 1), 11 (bob, class 2), 12 (alice, class 0, submitted at 700 s).
const JOBS: &str = "\
600000000,,10,0,alice,1,n1,l1
600000000,,11,0,bob,2,n2,l2
700000000,,12,0,alice,0,n3,l3
";

/// Times in µs; columns: time, missing, job, index, machine, type, user, class, priority,
/// cpu, mem, disk, different-machines.
const TASKS: &str = "\
600000000,,10,0,,0,alice,1,0,0.1,0.05,0.001,0
600000000,,10,1,,0,alice,1,0,0.2,0.1,0.001,0
600000000,,11,0,,0,bob,2,0,0.05,0.02,0,0
600000000,,11,1,,0,bob,2,0,0.05,0.02,0,0
601000000,,10,0,1,1,alice,1,0,,,,
601000000,,10,1,2,1,alice,1,0,,,,
602000000,,11,1,3,1,bob,2,0,,,,
605000000,,10,1,2,3,alice,1,0,,,,
606000000,,10,1,1,1,alice,1,0,,,,
609000000,,10,1,1,2,alice,1,0,,,,
610000000,,10,1,2,1,alice,1,0,,,,
611000000,,10,0,1,4,alice,1,0,,,,
620000000,,10,1,2,8,alice,1,0,0.3,,,
620000000,,14,0,,0,carol,0,0,0.1,0.1,,
630000000,,14,0,,5,carol,0,0,,,,
640000000,,10,1,2,4,alice,1,0,,,,
650000000,,11,0,,5,bob,2,0,,,,
650000000,,13,0,,0,dave,0,0,0.5,0.5,,
652000000,,11,1,3,5,bob,2,0,,,,
655000000,,13,0,1,1,dave,0,0,,,,
665000000,,13,0,1,4,dave,0,0,,,,
700000000,,12,0,,0,alice,0,0,0.25,0.25,,
700000000,,12,1,,0,alice,0,0,0.25,0.25,,
701000000,,12,1,2,1,alice,0,0,,,,
705000000,,12,0,3,1,alice,0,0,,,,
760000000,,12,1,2,4,alice,0,0,,,,
9223372036854775807,,12,0,3,4,alice,0,0,,,,
";

fn one(name: &str, text: &str) -> Vec<(String, Vec<u8>)> {
    vec![(name.to_string(), text.as_bytes().to_vec())]
}

#[test]
fn google_fixture_hand_derived() {
    let w = parse_google(&one("m", MACHINES), &one("j", JOBS), &one("t", TASKS)).unwrap();
    // Machines: racks pA [m1, m2], pB [m3]; m4 has no capacity.
    let t = w.topology.as_ref().unwrap();
    let racks: Vec<(&str, Vec<&str>)> = t
        .racks
        .iter()
        .map(|r| (r.id.as_str(), r.nodes.iter().map(|n| n.id.as_str()).collect()))
        .collect();
    assert_eq!(racks, [("pA", vec!["m1", "m2"]), ("pB", vec!["m3"])]);
    let caps: Vec<(f64, f64)> =
        t.nodes().map(|(_, n)| n.capacity.unwrap()).map(|c| (c.cpu, c.mem_mib)).collect();
    assert_eq!(caps, [(0.5, 0.25), (1.0, 1.0), (0.5, 0.5)]);
    // Jobs: 14 never ran (left out); 13 has no job event (submit = its task's SUBMIT, pool
    // default). Sorted by submit: 10 (600 s), 11 (600 s), 13 (650 s), 12 (700 s).
    let ids: Vec<&str> = w.jobs.iter().map(|j| j.id.as_str()).collect();
    assert_eq!(ids, ["10", "11", "13", "12"]);
    let submits: Vec<f64> = w.jobs.iter().map(|j| j.submit_s).collect();
    assert_eq!(submits, [600.0, 600.0, 650.0, 700.0]);
    let pools: Vec<&str> = w.jobs.iter().map(|j| j.pool.as_str()).collect();
    assert_eq!(pools, ["alice", "bob", "default", "alice"]);
    let classes: Vec<Option<&str>> = w.jobs.iter().map(|j| j.class.as_deref()).collect();
    assert_eq!(classes, [Some("class1"), Some("class2"), None, Some("class0")]);
    assert_eq!(w.maps(), 6);
    assert_eq!(w.reduces(), 0);
    // (compute_s, failed attempts, cpu, mem) per task, in task-index order:
    // 10/0: 601 → 611 FINISH = 10 s. 10/1: FAIL after 4 s, EVICT after 3 s, then 610 → 640
    // = 30 s; its UPDATE_RUNNING raised cpu to 0.3. 11/0 never scheduled (left out); 11/1
    // killed after 50 s. 13/0: 10 s. 12/0 still running at the trace's end (760 s, the
    // event at 2^63 − 1 is after it): 760 − 705 = 55 s; 12/1: 59 s. Demands are fractions
    // of the largest machine (1, 1).
    let got: Vec<(f64, Vec<f64>, f64, f64)> = w
        .jobs
        .iter()
        .flat_map(|j| &j.maps)
        .map(|m| {
            let d = m.demand.unwrap();
            assert_eq!(d.io, 0.0);
            assert!(m.replicas.is_empty() && m.input_bytes == 0);
            (m.compute_s, m.failed_attempts_s.clone(), d.cpu, d.mem)
        })
        .collect();
    assert_eq!(
        got,
        [
            (10.0, vec![], 0.1, 0.05),
            (30.0, vec![4.0, 3.0], 0.3, 0.1),
            (50.0, vec![], 0.05, 0.02),
            (10.0, vec![], 0.5, 0.5),
            (55.0, vec![], 0.25, 0.25),
            (59.0, vec![], 0.25, 0.25),
        ]
    );
}

#[test]
fn google_demands_are_fractions_of_the_largest_machine() {
    // The largest machine has 0.5 CPUs and 0.25 memory: a request of 0.1 CPU, 0.05 memory is
    // 0.2 and 0.2 of it.
    let machines = "0,1,0,p,0.5,0.25\n0,2,0,p,0.25,0.125\n";
    let tasks =
        "0,,1,0,,0,u,0,0,0.1,0.05,,\n1000000,,1,0,1,1,u,0,0,,,,\n3000000,,1,0,1,4,u,0,0,,,,\n";
    let w = parse_google(&one("m", machines), &[], &one("t", tasks)).unwrap();
    let d = w.jobs[0].maps[0].demand.unwrap();
    assert_eq!((d.cpu, d.mem), (0.2, 0.2));
    assert_eq!(w.jobs[0].maps[0].compute_s, 2.0);
    assert_eq!((w.jobs[0].user.as_str(), w.jobs[0].pool.as_str()), ("unknown", "default"));
}

fn malformed(e: DatasetError) -> (String, String, String) {
    match e {
        DatasetError::Malformed { file, location, field, .. } => (file, location, field),
        other => panic!("expected Malformed, got {other:?}"),
    }
}

#[test]
fn google_malformed_records_name_file_line_and_column() {
    let m = one("m.csv", MACHINES);
    let cases = [
        ("0,,1,0,,0,u,0,0,0.1,0.1,,\n5,,1\n", "line 2", "task index"),
        ("0,,x,0,,0,u,0,0,,,,\n", "line 1", "job ID"),
        ("0,,1,0,,9,u,0,0,,,,\n", "line 1", "event type"),
        ("-5,,1,0,,0,u,0,0,,,,\n", "line 1", "time"),
        ("0,,1,0,,0,u,0,0,-0.1,,,\n", "line 1", "CPU request"),
        ("0,,1,0,,0,u,0,0,0.1,NaN,,\n", "line 1", "memory request"),
    ];
    for (tasks, line, field) in cases {
        let e = parse_google(&m, &[], &one("t.csv", tasks)).unwrap_err();
        assert_eq!(malformed(e), ("t.csv".into(), line.into(), field.into()), "{tasks}");
    }
    let e = parse_google(&one("m.csv", "0,1,0,p,,\n"), &[], &one("t.csv", "")).unwrap_err();
    assert_eq!(malformed(e).2, "CPUs");
    let e = parse_google(&one("m.csv", "0,1,7,p,1,1\n"), &[], &one("t.csv", "")).unwrap_err();
    assert_eq!(malformed(e), ("m.csv".into(), "line 1".into(), "event type".into()));
    let e = parse_google(&m, &one("j.csv", "0,,1\n"), &one("t.csv", "")).unwrap_err();
    assert_eq!(malformed(e), ("j.csv".into(), "line 1".into(), "event type".into()));
}

#[test]
fn google_reads_both_layouts_and_gzip() {
    let root = std::env::temp_dir().join(format!("placer-google-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    // Google's layout: one folder per table, the task events split over two parts, one of
    // them gzipped.
    let nested = root.join("nested");
    for table in ["machine_events", "job_events", "task_events"] {
        std::fs::create_dir_all(nested.join(table)).unwrap();
    }
    std::fs::write(nested.join("machine_events/part-00000-of-00001.csv"), MACHINES).unwrap();
    std::fs::write(nested.join("job_events/part-00000-of-00001.csv"), JOBS).unwrap();
    let lines: Vec<&str> = TASKS.lines().collect();
    let (a, b) = lines.split_at(12);
    std::fs::write(nested.join("task_events/part-00000-of-00002.csv"), a.join("\n") + "\n")
        .unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all((b.join("\n") + "\n").as_bytes()).unwrap();
    std::fs::write(nested.join("task_events/part-00001-of-00002.csv.gz"), gz.finish().unwrap())
        .unwrap();
    // Flat: the table name as prefix; no job_events (pools fall back to default).
    let flat = root.join("flat");
    std::fs::create_dir_all(&flat).unwrap();
    std::fs::write(flat.join("machine_events-part-00000-of-00001.csv"), MACHINES).unwrap();
    std::fs::write(flat.join("task_events-part-00000-of-00001.csv"), TASKS).unwrap();
    let expected = parse_google(&one("m", MACHINES), &one("j", JOBS), &one("t", TASKS)).unwrap();
    let w = read_google(&nested).unwrap();
    assert_eq!(w.jobs, expected.jobs);
    assert_eq!(w.topology, expected.topology);
    let f = read_google(&flat).unwrap();
    assert_eq!(f.maps(), 6);
    assert!(f.jobs.iter().all(|j| j.pool == "default"));
    // A folder without task events is named.
    let empty = root.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::write(empty.join("machine_events.csv"), MACHINES).unwrap();
    let e = read_google(&empty).unwrap_err().to_string();
    assert!(e.contains("no task_events files"), "{e}");
    let _ = std::fs::remove_dir_all(&root);
}
