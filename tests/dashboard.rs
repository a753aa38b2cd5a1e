//! The live dashboard in headless Chromium (posts a few snapshots, loads the
//! page, checks the rendered values against the answers, and saves a screenshot) and the event
//! log of the same run through `placer events summarize`. The real `placer serve`
//! binary on a free port; the page refreshes on its own (the third epoch is posted after it
//! loaded). Screenshot: `target/screenshots/dashboard.png` (under `$CARGO_TARGET_DIR` if set).

use placer_testkit::browser::Browser;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const SNAPSHOT: &str = include_str!("../examples/snapshot.json");
const WAIT: Duration = Duration::from_secs(20);

/// `placer serve` on a free port, killed on drop.
struct Server {
    child: Child,
    addr: String,
}

impl Server {
    fn start(event_log: &std::path::Path) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_placer"))
            .args(["serve", "--addr", "127.0.0.1:0", "--workers", "1", "--epochs", "50"])
            .arg("--event-log")
            .arg(event_log)
            .stderr(Stdio::piped())
            .spawn()
            .expect("placer serve starts");
        let mut stderr = BufReader::new(child.stderr.take().expect("stderr piped"));
        let mut line = String::new();
        let addr = loop {
            line.clear();
            assert!(stderr.read_line(&mut line).expect("stderr") > 0, "no address line");
            if let Some(addr) = line.trim().strip_prefix("placer listening on http://") {
                break addr.to_owned();
            }
        };
        // Keep reading the log so that the server never blocks on a full pipe.
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        Self { child, addr }
    }

    /// One request on its own connection; the status and the body.
    fn request(&self, method: &str, path: &str, body: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(&self.addr).expect("connect");
        stream.set_read_timeout(Some(WAIT)).expect("timeout");
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).expect("write head");
        stream.write_all(body.as_bytes()).expect("write body");
        let mut reply = String::new();
        stream.read_to_string(&mut reply).expect("read reply");
        let status = reply.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("status");
        let body = reply.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default();
        (status, body)
    }

    fn place(&self, snapshot: &Value) -> Value {
        let (status, body) = self.request("POST", "/place", &snapshot.to_string());
        assert_eq!(status, 200, "{body}");
        serde_json::from_str(&body).expect("JSON answer")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `fair`: pool prod below its min share of 2 maps for 90 s (timeout 10 s) while adhoc's job
/// j2 holds every map slot, so the answer preempts j2's tasks for prod.
fn starved() -> Value {
    json!({
        "schema_version": 1, "now_s": 100.0,
        "cluster": {"racks": [{"id": "r1"}], "nodes": [
            {"id": "n1", "rack": "r1", "map_slots": 2, "reduce_slots": 0},
            {"id": "n2", "rack": "r1", "map_slots": 2, "reduce_slots": 0}]},
        "pools": [
            {"id": "prod", "weight": 1.0, "min_map_share": 2, "min_share_timeout_s": 10,
             "starvation": {"map": {"at_min_share_s": 10.0, "at_half_fair_share_s": 10.0}}},
            {"id": "adhoc", "weight": 1.0}],
        "jobs": [{"id": "j1", "pool": "prod", "submit_s": 5.0},
                 {"id": "j2", "pool": "adhoc", "submit_s": 1.0}],
        "pending": [
            {"id": "j1-m-0", "job": "j1", "kind": "map", "replicas": ["n1"]},
            {"id": "j1-m-1", "job": "j1", "kind": "map", "replicas": ["n2"]}],
        "running": [
            {"id": "j2-m-0", "job": "j2", "kind": "map", "node": "n1", "started_s": 50.0},
            {"id": "j2-m-1", "job": "j2", "kind": "map", "node": "n1", "started_s": 60.0},
            {"id": "j2-m-2", "job": "j2", "kind": "map", "node": "n2", "started_s": 70.0},
            {"id": "j2-m-3", "job": "j2", "kind": "map", "node": "n2", "started_s": 80.0}],
        "policy": {"algorithm": "fair"}
    })
}

/// `delay` (FAIR Alg. 1): rack r1 is full of web's maps, the free map slots are on r2; web's two
/// maps read from r2 and start there, etl's 40 maps read from r1 and wait for locality; web's
/// reduce starts on a free reduce slot in r1.
fn delayed() -> Value {
    let mut pending: Vec<Value> = (0..40)
        .map(|i| json!({"id": format!("etl-m-{i}"), "job": "etl", "kind": "map",
                         "input_bytes": 134_217_728, "replicas": [if i % 2 == 0 { "n1" } else { "n2" }]}))
        .collect();
    pending.push(json!({"id": "web-m-0", "job": "web", "kind": "map", "input_bytes": 1000,
                        "replicas": ["n3"]}));
    pending.push(json!({"id": "web-m-1", "job": "web", "kind": "map", "input_bytes": 1000,
                        "replicas": ["n4"]}));
    pending.push(json!({"id": "web-r-0", "job": "web", "kind": "reduce",
                        "shuffle": [{"node": "n1", "bytes": 1000}]}));
    json!({
        "schema_version": 1, "now_s": 500.0,
        "cluster": {"racks": [{"id": "r1"}, {"id": "r2"}], "nodes": [
            {"id": "n1", "rack": "r1", "map_slots": 2, "reduce_slots": 1},
            {"id": "n2", "rack": "r1", "map_slots": 2, "reduce_slots": 1},
            {"id": "n3", "rack": "r2", "map_slots": 2, "reduce_slots": 0},
            {"id": "n4", "rack": "r2", "map_slots": 2, "reduce_slots": 0}]},
        "pools": [{"id": "prod", "weight": 2.0, "min_map_share": 2, "min_reduce_share": 1},
                  {"id": "adhoc", "weight": 1.0}],
        "jobs": [{"id": "web", "pool": "prod", "submit_s": 10.0},
                 {"id": "etl", "pool": "adhoc", "submit_s": 20.0}],
        "pending": pending,
        "running": [
            {"id": "web-m-8", "job": "web", "kind": "map", "node": "n1"},
            {"id": "web-m-9", "job": "web", "kind": "map", "node": "n1"},
            {"id": "web-m-10", "job": "web", "kind": "map", "node": "n2"},
            {"id": "web-m-11", "job": "web", "kind": "map", "node": "n2"}],
        "policy": {"algorithm": "delay"}
    })
}

/// The page's number format: at most 2 decimals, no trailing zeros (`num` in dashboard.js).
fn num(x: f64) -> String {
    ((x * 100.0).round() / 100.0).to_string()
}

/// The page's waiting line for `job`'s maps, derived from the answer and the snapshot:
/// "N of M maps waiting: reason" (several reasons: "reason n, reason n", most first).
fn waiting_line(answer: &Value, snapshot: &Value, job: &str) -> String {
    let mut reasons: BTreeMap<String, u64> = BTreeMap::new();
    for w in answer["waiting"].as_array().unwrap() {
        if w["job"] == job && w["kind"] == "map" {
            *reasons.entry(w["reason"].as_str().unwrap().to_owned()).or_default() +=
                w["tasks"].as_u64().unwrap();
        }
    }
    let waiting: u64 = reasons.values().sum();
    let pending = snapshot["pending"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["job"] == job && t["kind"] == "map")
        .count();
    let mut sorted: Vec<(String, u64)> = reasons.into_iter().collect();
    sorted.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let why = if sorted.len() == 1 {
        sorted[0].0.clone()
    } else {
        sorted.iter().map(|(r, n)| format!("{r} {n}")).collect::<Vec<_>>().join(", ")
    };
    format!("{waiting} of {pending} maps waiting: {why}")
}

fn screenshot_path() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"));
    target.join("screenshots").join("dashboard.png")
}

#[test]
fn the_dashboard_shows_the_answers_and_refreshes_on_its_own() {
    let log_dir = std::env::temp_dir().join(format!("placer-dashboard-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&log_dir);
    let server = Server::start(&log_dir);
    let base = format!("http://{}/", server.addr);

    let example: Value = serde_json::from_str(SNAPSHOT).unwrap();
    let first = server.place(&example);
    let second = server.place(&starved());
    assert!(!second["preemptions"].as_array().unwrap().is_empty(), "{second}");

    let mut browser = Browser::start().expect("headless Chromium (bash scripts/deps installs it)");
    browser.goto(&base).unwrap();
    browser.wait_text("#last-seq", "2", WAIT).unwrap();

    // Posted after the page loaded: it must appear without a reload.
    let snapshot = delayed();
    let third = server.place(&snapshot);
    assert_eq!(browser.wait_text("#last-seq", "3", WAIT).unwrap(), "3");
    assert_eq!(browser.text("#algorithm").unwrap(), "delay / auto");
    assert_eq!(
        browser.text("#solve-ms").unwrap(),
        format!("{} ms", num(third["stats"]["solve_ms"].as_f64().unwrap()))
    );

    // Pools of the last answer, with the snapshot's weight and min shares.
    for pool in third["pools"].as_array().unwrap() {
        let id = pool["id"].as_str().unwrap();
        let field = |f: &str| format!("#pools tr[data-pool=\"{id}\"] td[data-field=\"{f}\"]");
        let fair = pool["fair_share"]["map"].as_f64().map_or("–".to_owned(), num);
        assert_eq!(browser.text(&field("fair_share_map")).unwrap(), fair, "{id}");
        for (f, v) in [
            ("running_map", &pool["running"]["map"]),
            ("running_after_map", &pool["running_after"]["map"]),
            ("demand_map", &pool["demand"]["map"]),
            ("demand_reduce", &pool["demand"]["reduce"]),
        ] {
            assert_eq!(browser.text(&field(f)).unwrap(), num(v.as_f64().unwrap()), "{id} {f}");
        }
    }
    let prod = |f: &str| format!("#pools tr[data-pool=\"prod\"] td[data-field=\"{f}\"]");
    assert_eq!(browser.text(&prod("weight")).unwrap(), "2");
    assert_eq!(browser.text(&prod("min_share")).unwrap(), "2 / 1");
    let bars = browser.script("return document.querySelectorAll('#pools svg.bar').length;");
    assert_eq!(bars.unwrap(), json!(2 * third["pools"].as_array().unwrap().len()));

    // etl's maps wait for locality: the line is the answer's count of the snapshot's 40.
    let line = waiting_line(&third, &snapshot, "etl");
    assert!(line.ends_with("of 40 maps waiting: waiting_for_locality"), "{line}");
    let etl =
        browser.text("#jobs tr[data-job=\"etl\"][data-kind=\"map\"] td[data-field=\"waiting\"]");
    assert_eq!(etl.unwrap(), line);
    assert_eq!(
        browser.text("#jobs tr[data-job=\"etl\"] td[data-field=\"pool\"]").unwrap(),
        "adhoc"
    );

    // Placements by locality: the last answer's maps, and the sum over the three.
    let localities = [
        ("node", "node_local"),
        ("rack", "rack_local"),
        ("remote", "remote"),
        ("none", "no_preference"),
    ];
    for (scope, answers) in [("last", vec![&third]), ("kept", vec![&first, &second, &third])] {
        for (locality, stat) in localities {
            let want: u64 = answers.iter().map(|a| a["stats"][stat].as_u64().unwrap()).sum();
            let css = format!("#locality tr[data-scope=\"{scope}\"][data-kind=\"map\"] td[data-locality=\"{locality}\"]");
            assert_eq!(browser.text(&css).unwrap(), want.to_string(), "{scope} {locality}");
        }
    }

    // Preemptions of the second epoch: victim, beneficiary pool and rule.
    let rows = browser.texts("#preemptions tr").unwrap();
    assert_eq!(rows.len(), second["preemptions"].as_array().unwrap().len());
    let victims = browser.texts("#preemptions td[data-field=\"victim_job\"]").unwrap();
    assert!(victims.iter().all(|v| v == "j2"), "{victims:?}");
    let pools = browser.texts("#preemptions td[data-field=\"victim_pool\"]").unwrap();
    assert!(pools.iter().all(|v| v == "adhoc"), "{pools:?}");
    let for_pools = browser.texts("#preemptions td[data-field=\"for_pool\"]").unwrap();
    assert!(for_pools.iter().all(|v| v == "prod"), "{for_pools:?}");
    let rules = browser.texts("#preemptions td[data-field=\"rule\"]").unwrap();
    assert_eq!(rules[0], second["preemptions"][0]["reason"].as_str().unwrap());

    // Solve time: one dot per epoch carrying the answer's solve_ms.
    let dots = browser
        .script("return Array.from(document.querySelectorAll('#solve-chart circle')).map(c => [Number(c.dataset.seq), Number(c.dataset.ms)]);")
        .unwrap();
    let want: Vec<(u64, f64)> = [&first, &second, &third]
        .iter()
        .enumerate()
        .map(|(i, a)| (i as u64 + 1, a["stats"]["solve_ms"].as_f64().unwrap()))
        .collect();
    let got: Vec<(u64, f64)> = serde_json::from_value(dots).unwrap();
    assert_eq!(got, want);
    assert!(browser.text("#error").unwrap().is_empty());

    let png = screenshot_path();
    browser.screenshot(&png).unwrap();
    assert_eq!(&std::fs::read(&png).unwrap()[..8], b"\x89PNG\r\n\x1a\n");

    // The event log of the same run, summarized: one row per (epoch, pool), in order.
    drop(browser);
    let out = Command::new(env!("CARGO_BIN_EXE_placer"))
        .args(["events", "summarize"])
        .arg(&log_dir)
        .output()
        .expect("placer events runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let csv = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<Vec<&str>> = csv.lines().skip(1).map(|l| l.split(',').collect()).collect();
    let want_rows: usize =
        [&first, &second, &third].iter().map(|a| a["pools"].as_array().unwrap().len()).sum();
    assert_eq!(rows.len(), want_rows, "{csv}");
    let last = rows.iter().find(|r| r[2] == "3" && r[5] == "prod").expect("epoch 3, prod");
    let prod3 = third["pools"].as_array().unwrap().iter().find(|p| p["id"] == "prod").unwrap();
    assert_eq!(last[4], "delay");
    assert_eq!(last[6], "2");
    assert_eq!(last[12], prod3["demand"]["map"].as_f64().unwrap().to_string());
    drop(server);
    std::fs::remove_dir_all(&log_dir).unwrap();
}
