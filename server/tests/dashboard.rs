//! The dashboard's data path in process (docs/operations/observability.md; HFS design doc §3.8,
//! §5): answers to `POST /place` become records of `GET /v1/epochs` whose counts are the answers'
//! own, `?since=`/`?limit=` page through them, the record validates against the OpenAPI document,
//! `GET /` serves the page from the binary, and `--event-log` writes the same records as lines.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use actix_web::http::header;
use actix_web::test::{self, TestRequest};
use placer_server::event_log;
use placer_server::{app, openapi_document, AppState, ServerConfig};
use serde_json::{json, Value};
use std::path::PathBuf;

const SNAPSHOT: &str = include_str!("../../examples/snapshot.json");

/// A `fair` snapshot where pool `prod` has been below its min share of 2 maps for 90 s (timeout
/// 10 s) while `adhoc` runs on all 4 map slots: the answer preempts adhoc tasks for prod.
fn starved() -> Value {
    json!({
        "schema_version": 1,
        "now_s": 100.0,
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
            {"id": "j1-m-1", "job": "j1", "kind": "map", "replicas": ["n1"]},
            {"id": "j1-m-2", "job": "j1", "kind": "map", "replicas": ["n2"]}],
        "running": [
            {"id": "j2-m-0", "job": "j2", "kind": "map", "node": "n1", "started_s": 50.0},
            {"id": "j2-m-1", "job": "j2", "kind": "map", "node": "n1", "started_s": 60.0},
            {"id": "j2-m-2", "job": "j2", "kind": "map", "node": "n2", "started_s": 70.0},
            {"id": "j2-m-3", "job": "j2", "kind": "map", "node": "n2", "started_s": 80.0}],
        "policy": {"algorithm": "fair"}
    })
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("placer-dash-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// POSTs `$body` to `/place` with the request id `$id`; the answer as JSON.
macro_rules! post {
    ($srv:expr, $id:expr, $body:expr) => {{
        let req = TestRequest::post()
            .uri("/place")
            .insert_header(("x-request-id", $id))
            .set_payload($body.to_string())
            .to_request();
        let res = test::call_service(&$srv, req).await;
        assert_eq!(res.status(), 200);
        let answer: Value = serde_json::from_slice(&test::read_body(res).await).unwrap();
        answer
    }};
}

async fn get_json(
    srv: &impl actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse,
        Error = actix_web::Error,
    >,
    uri: &str,
) -> (u16, Value) {
    let res = test::call_service(srv, TestRequest::get().uri(uri).to_request()).await;
    let status = res.status().as_u16();
    (status, serde_json::from_slice(&test::read_body(res).await).unwrap())
}

/// The counts of `record` against the `answer` it digests.
fn assert_digest_of(record: &Value, answer: &Value) {
    assert_eq!(record["pools"], answer["pools"], "pools are the answer's");
    assert_eq!(record["stats"], answer["stats"]);
    assert_eq!(record["solve_ms"], answer["stats"]["solve_ms"]);
    let placed: u64 = ["map", "reduce"]
        .iter()
        .flat_map(|k| ["node", "rack", "remote", "none"].map(|l| &record["placed"][k][l]))
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(placed, answer["assignments"].as_array().unwrap().len() as u64);
    let waiting: u64 =
        answer["waiting"].as_array().unwrap().iter().map(|w| w["tasks"].as_u64().unwrap()).sum();
    let total = &record["waiting_total"];
    assert_eq!(total["map"].as_u64().unwrap() + total["reduce"].as_u64().unwrap(), waiting);
    for job in record["jobs"].as_array().unwrap() {
        for w in answer["waiting"].as_array().unwrap().iter().filter(|w| w["job"] == job["job"]) {
            let listed = job["reasons"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["kind"] == w["kind"] && c["reason"] == w["reason"])
                .unwrap_or_else(|| panic!("{w} not in {job}"));
            assert!(listed["tasks"].as_u64() >= w["tasks"].as_u64());
        }
    }
    let preempted = answer["preemptions"].as_array().unwrap();
    assert_eq!(record["preemptions"].as_array().unwrap().len(), preempted.len());
}

#[actix_web::test]
async fn answers_become_epoch_records_and_pages() {
    let dir = scratch("api");
    let config =
        ServerConfig { epochs_kept: 3, event_log: Some(dir.clone()), ..ServerConfig::default() };
    let srv = test::init_service(app(AppState::try_new(&config).unwrap())).await;

    let first = post!(srv, "req-lsap", SNAPSHOT);
    let second = post!(srv, "req-fair", starved());
    assert!(!second["preemptions"].as_array().unwrap().is_empty(), "{second}");

    let (status, page) = get_json(&srv, "/v1/epochs").await;
    assert_eq!(status, 200);
    assert_eq!((page["capacity"].as_u64(), page["last_seq"].as_u64()), (Some(3), Some(2)));
    let epochs = page["epochs"].as_array().unwrap();
    assert_eq!(epochs.len(), 2);
    assert_eq!((epochs[0]["seq"].as_u64(), epochs[1]["seq"].as_u64()), (Some(1), Some(2)));
    assert_eq!(epochs[0]["request_id"], "req-lsap");
    assert_eq!(epochs[0]["algorithm"], "lsap");
    assert_eq!(epochs[1]["algorithm"], "fair");
    assert_digest_of(&epochs[0], &first);
    assert_digest_of(&epochs[1], &second);

    // The example's pools keep their snapshot settings.
    let settings = &epochs[0]["pool_settings"];
    assert_eq!(
        settings[0],
        json!({"id": "prod", "weight": 2.0, "min_map_share": 2.0,
        "min_reduce_share": 1.0, "mode": "fair"})
    );
    assert_eq!((&settings[1]["id"], &settings[1]["mode"]), (&json!("adhoc"), &json!("fifo")));

    // The preemptions name their victims: adhoc's job j2 loses slots to prod by min share.
    for p in epochs[1]["preemptions"].as_array().unwrap() {
        assert_eq!((&p["victim_job"], &p["victim_pool"]), (&json!("j2"), &json!("adhoc")));
        assert_eq!((&p["for_pool"], &p["reason"]), (&json!("prod"), &json!("min_share")));
    }

    // Paging.
    let (_, page) = get_json(&srv, "/v1/epochs?since=1").await;
    assert_eq!(page["epochs"].as_array().unwrap().len(), 1);
    assert_eq!(page["epochs"][0]["seq"], 2);
    let (_, page) = get_json(&srv, "/v1/epochs?limit=1").await;
    assert_eq!(page["epochs"][0]["seq"], 2);
    let (_, page) = get_json(&srv, "/v1/epochs?since=2").await;
    assert_eq!(page["epochs"], json!([]));
    let (status, err) = get_json(&srv, "/v1/epochs?since=x").await;
    assert_eq!((status, &err["error"]["code"]), (400, &json!("invalid_query")));
    // The ring keeps 3.
    for i in 0..3 {
        post!(srv, format!("more-{i}"), SNAPSHOT);
    }
    let (_, page) = get_json(&srv, "/v1/epochs").await;
    let seqs: Vec<u64> =
        page["epochs"].as_array().unwrap().iter().map(|r| r["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, [3, 4, 5]);

    // The records validate against the documented schema.
    let doc = serde_json::to_value(openapi_document()).unwrap();
    let root = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": "#/components/schemas/EpochsPage",
        "components": doc["components"],
    });
    let validator = jsonschema::validator_for(&root).unwrap();
    let errors: Vec<String> = validator.iter_errors(&page).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert!(doc["paths"]["/v1/epochs"]["get"].is_object());
    assert!(doc["paths"]["/"]["get"].is_object());

    // The event log has all five, as the ring had them.
    let mut logged = Vec::new();
    let skipped = event_log::read(&dir, |r| {
        logged.push((r.seq, r.request_id));
        Ok(())
    })
    .unwrap();
    assert!(skipped.is_empty());
    let ids: Vec<&str> = logged.iter().map(|(_, id)| id.as_str()).collect();
    assert_eq!(ids, ["req-lsap", "req-fair", "more-0", "more-1", "more-2"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[actix_web::test]
async fn the_dashboard_page_is_served_from_the_binary() {
    let srv = test::init_service(app(AppState::new(&ServerConfig::default()))).await;
    let res = test::call_service(&srv, TestRequest::get().uri("/").to_request()).await;
    assert_eq!(res.status(), 200);
    let ct = res.headers().get(header::CONTENT_TYPE).unwrap().to_str().unwrap().to_owned();
    assert!(ct.starts_with("text/html"), "{ct}");
    let body = String::from_utf8(test::read_body(res).await.to_vec()).unwrap();
    assert!(body.contains("<title>placer dashboard</title>"));
    assert!(body.contains("id=\"solve-chart\""));
    assert!(body.contains("v1/epochs?since="), "the script is inlined");
    let res = test::call_service(&srv, TestRequest::post().uri("/").to_request()).await;
    assert_eq!(res.status(), 405);
    let (status, page) = get_json(&srv, "/v1/epochs").await;
    assert_eq!((status, page["last_seq"].as_u64()), (200, Some(0)));
}

#[test]
fn an_event_log_that_cannot_be_opened_stops_the_start() {
    let dir = scratch("blocked");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("file");
    std::fs::write(&file, b"x").unwrap();
    let config = ServerConfig { event_log: Some(file.join("sub")), ..ServerConfig::default() };
    let err = AppState::try_new(&config).unwrap_err();
    assert!(err.to_string().contains("event log"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
