//! `placer serve --allocations` in process (docs/operations/allocation-files.md): the YARN
//! fair-scheduler allocation file fills the pools a snapshot does not define, and a changed file is
//! hot-reloaded (HFS design doc §3.8) — an invalid one is rejected and the old allocations stay.

#![allow(clippy::unwrap_used, clippy::panic)]

use actix_web::test::{call_service, init_service, read_body, TestRequest};
use placer_server::config_file::{self, CommandLine};
use placer_server::reload::{ReloadOutcome, Reloader};
use placer_server::{app, AppState, LiveConfig, ServerConfig};
use serde_json::{json, Value};
use std::path::PathBuf;

/// The hadoop-sls sample allocation file (weights 0.25, 0.25, 0.5; min 1 slot each).
fn sample() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../datasets/tests/data/sls-sample-fair-scheduler.xml"
    );
    std::fs::read_to_string(path).unwrap()
}

/// A file in the temp dir, removed on drop.
struct TempFile(PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// 3 nodes × 4 map slots; job j1 in `sls_queue_1` and j3 in `sls_queue_3`, 20 maps each; no
/// pools: the allocation file must supply them.
fn snapshot() -> Vec<u8> {
    let nodes: Vec<Value> =
        (0..3).map(|i| json!({"id": format!("n{i}"), "rack": "r0", "map_slots": 4})).collect();
    let mut pending = Vec::new();
    for job in ["j1", "j3"] {
        for t in 0..20 {
            pending.push(json!({"id": format!("{job}-m-{t}"), "job": job, "kind": "map"}));
        }
    }
    json!({
        "schema_version": 1,
        "cluster": {"racks": [{"id": "r0"}], "nodes": nodes},
        "jobs": [
            {"id": "j1", "pool": "sls_queue_1", "user": "jenkins"},
            {"id": "j3", "pool": "sls_queue_3", "user": "jenkins"},
        ],
        "pending": pending,
    })
    .to_string()
    .into_bytes()
}

/// Each answered pool's id and map fair share.
fn shares(answer: &Value) -> Vec<(String, f64)> {
    answer["pools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let share = p["fair_share"]["map"].as_f64().unwrap();
            (p["id"].as_str().unwrap().to_owned(), (share * 1e6).round() / 1e6)
        })
        .collect()
}

fn pairs(v: &[(&str, f64)]) -> Vec<(String, f64)> {
    v.iter().map(|(id, s)| ((*id).to_owned(), *s)).collect()
}

#[actix_web::test]
async fn serve_fills_pools_from_the_file_and_hot_reloads_it() {
    let file =
        TempFile(std::env::temp_dir().join(format!("placer-alloc-{}.xml", std::process::id())));
    std::fs::write(&file.0, sample()).unwrap();
    let cli = CommandLine {
        config: ServerConfig { allocations: Some(file.0.clone()), ..ServerConfig::default() },
        given: ["allocations".to_owned()].into(),
    };
    let live = LiveConfig::new(config_file::from_command_line(&cli).unwrap());
    let mut reloader = Reloader::without_config_file(cli, live.clone());
    let svc =
        init_service(app(AppState::with_live_config(live.clone(), placer_solver::place))).await;
    let ask = || TestRequest::post().uri("/place").set_payload(snapshot()).to_request();

    // 12 map slots, demands 20 and 20: weights 0.25 : 0.5 give 4 and 8 (queue 2 is idle).
    let res = call_service(&svc, ask()).await;
    assert_eq!(res.status(), 200);
    let answer: Value = serde_json::from_slice(&read_body(res).await).unwrap();
    let before = pairs(&[("sls_queue_1", 4.0), ("sls_queue_2", 0.0), ("sls_queue_3", 8.0)]);
    assert_eq!(shares(&answer), before);

    // The operator gives queue 1 weight 0.5 (and the file's length changes): equal shares.
    let edited = sample().replacen("<weight>0.25</weight>", "<weight>0.50</weight>", 1);
    std::fs::write(&file.0, edited).unwrap();
    let outcome = reloader.poll().unwrap();
    assert_eq!(
        outcome,
        ReloadOutcome::Applied { changed: vec!["allocations"], restart_needed: vec![] }
    );
    assert_eq!(reloader.poll(), None);
    let answer: Value =
        serde_json::from_slice(&read_body(call_service(&svc, ask()).await).await).unwrap();
    let after = pairs(&[("sls_queue_1", 6.0), ("sls_queue_2", 0.0), ("sls_queue_3", 6.0)]);
    assert_eq!(shares(&answer), after);

    // An invalid file is rejected, naming the element and line; the last good one stays.
    std::fs::write(&file.0, sample().replace("<weight>0.5</weight>", "<weight>half</weight>"))
        .unwrap();
    let ReloadOutcome::Rejected(why) = reloader.poll().unwrap() else { panic!("applied") };
    assert!(why.contains("<weight>") && why.contains("line 46"), "{why}");
    assert_eq!(reloader.generation(), 2);
    let answer: Value =
        serde_json::from_slice(&read_body(call_service(&svc, ask()).await).await).unwrap();
    assert_eq!(shares(&answer), after);
}

#[test]
fn a_config_file_names_the_allocations_relative_to_itself() {
    let dir = std::env::temp_dir().join(format!("placer-alloc-dir-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("fair-scheduler.xml"), sample()).unwrap();
    std::fs::write(dir.join("placer.toml"), "allocations = \"fair-scheduler.xml\"\n").unwrap();
    let config = config_file::load(&dir.join("placer.toml"), &CommandLine::default()).unwrap();
    assert_eq!(config.allocations, Some(dir.join("fair-scheduler.xml")));
    let pools = config.fair_allocations.unwrap().0.pools(&|_| false, &[], [0.0, 0.0]);
    assert_eq!(pools.len(), 3);

    // An invalid file stops the start, naming file, element and line.
    std::fs::write(dir.join("fair-scheduler.xml"), "<allocations>\n<queue/>\n</allocations>")
        .unwrap();
    let err = config_file::load(&dir.join("placer.toml"), &CommandLine::default()).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("fair-scheduler.xml: key `<queue>` (line 2)"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
