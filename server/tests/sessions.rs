//! Sessions end to end (docs/wire-schema.md, "Sessions"; docs/operations/serving.md,
//! "Sessions"): create → delta → delete; `409 session_stale` for an unknown id, a wrong
//! `base_epoch`, after delete and after eviction; a bad delta gets the full snapshot's error and
//! leaves the session at its epoch; a stored session holds its bytes in the memory ledger and
//! gives them back on delete. Each answer is compared with `POST /place` on the equivalent full
//! snapshot, built here from the delta's rules (remove, upsert in place or appended, then the
//! scalars).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use actix_web::test::{self, TestRequest};
use placer_server::{app, AppState, ServerConfig};
use serde_json::{json, Value};

const SNAPSHOT: &[u8] = include_bytes!("../../examples/snapshot.json");

/// The app under test.
trait Svc:
    actix_web::dev::Service<
    actix_http::Request,
    Response = actix_web::dev::ServiceResponse,
    Error = actix_web::Error,
>
{
}

impl<S> Svc for S where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse,
        Error = actix_web::Error,
    >
{
}

/// Status and JSON body (`null` for an empty one).
async fn call(svc: &impl Svc, req: TestRequest) -> (u16, Value) {
    let resp = test::call_service(svc, req.to_request()).await;
    let status = resp.status().as_u16();
    let body = test::read_body(resp).await;
    let json = if body.is_empty() { Value::Null } else { serde_json::from_slice(&body).unwrap() };
    (status, json)
}

/// An answer without `stats.solve_ms`, the one field that differs between two solves.
fn timeless(mut answer: Value) -> Value {
    answer["stats"].as_object_mut().unwrap().remove("solve_ms");
    answer
}

/// `POST /place` on `snapshot`: status and answer (without `solve_ms` when 200).
async fn place(svc: &impl Svc, snapshot: &Value) -> (u16, Value) {
    let (status, body) = call(svc, TestRequest::post().uri("/place").set_json(snapshot)).await;
    (status, if status == 200 { timeless(body) } else { body })
}

async fn delta(svc: &impl Svc, id: &str, body: Value) -> (u16, Value) {
    let uri = format!("/v1/sessions/{id}/place");
    call(svc, TestRequest::post().uri(&uri).set_json(body)).await
}

async fn create(svc: &impl Svc) -> String {
    let (status, body) =
        call(svc, TestRequest::post().uri("/v1/sessions").set_payload(SNAPSHOT)).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["epoch"], 0);
    body["session"].as_str().unwrap().to_owned()
}

fn example() -> Value {
    serde_json::from_slice(SNAPSHOT).unwrap()
}

fn assert_error(body: &Value, code: &str, path: &str) {
    assert_eq!(body["error"]["code"], code, "{body}");
    assert_eq!(body["error"]["path"], path, "{body}");
    assert!(body["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{body}");
}

#[actix_web::test]
async fn create_delta_delete_round_trip() {
    let svc = test::init_service(app(AppState::new(&ServerConfig::default()))).await;
    let (status, created) =
        call(&svc, TestRequest::post().uri("/v1/sessions").set_payload(SNAPSHOT)).await;
    assert_eq!(status, 201, "{created}");
    let id = created["session"].as_str().unwrap().to_owned();
    assert!(id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
    assert_eq!(created["epoch"], 0);
    let mut full = example();
    assert_eq!(timeless(created["answer"].clone()), place(&svc, &full).await.1);

    // Epoch 1: j1-m-0 started on n1, a new map arrives, the clock moves, the policy changes.
    let new_map = json!({"id": "j2-m-2", "job": "j2", "kind": "map", "input_bytes": 1000,
                         "replicas": ["n4"]});
    let started = json!({"id": "j1-m-0", "job": "j1", "kind": "map", "node": "n1",
                         "started_s": 1200.0});
    let (status, answer) = delta(
        &svc,
        &id,
        json!({"base_epoch": 0, "changes": {
            "now_s": 1210.0, "policy": {"algorithm": "lsap_fair"},
            "remove": {"pending": ["j1-m-0"]},
            "upsert": {"pending": [new_map], "running": [started]}}}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["epoch"], 1);
    full["now_s"] = json!(1210.0);
    full["policy"] = json!({"algorithm": "lsap_fair"});
    full["pending"].as_array_mut().unwrap().remove(0);
    full["pending"].as_array_mut().unwrap().push(new_map);
    full["running"].as_array_mut().unwrap().push(started);
    assert_eq!(timeless(answer["answer"].clone()), place(&svc, &full).await.1);

    // Epoch 2: an upsert of an id held replaces it in place; an empty delta re-solves.
    let bigger = json!({"id": "j1-m-1", "job": "j1", "kind": "map", "input_bytes": 5,
                        "replicas": ["n2"]});
    let (status, answer) =
        delta(&svc, &id, json!({"base_epoch": 1, "changes": {"upsert": {"pending": [bigger]}}}))
            .await;
    assert_eq!(status, 200, "{answer}");
    full["pending"][0] = bigger;
    assert_eq!(timeless(answer["answer"].clone()), place(&svc, &full).await.1);
    let (status, answer) = delta(&svc, &id, json!({"base_epoch": 2})).await;
    assert_eq!((status, answer["epoch"].clone()), (200, json!(3)));
    assert_eq!(timeless(answer["answer"].clone()), place(&svc, &full).await.1);

    let uri = format!("/v1/sessions/{id}");
    let (status, body) = call(&svc, TestRequest::delete().uri(&uri)).await;
    assert_eq!((status, body), (204, Value::Null));
    let (status, body) = call(&svc, TestRequest::delete().uri(&uri)).await;
    assert_eq!(status, 404);
    assert_error(&body, "not_found", "session");
    let (status, body) = delta(&svc, &id, json!({"base_epoch": 3})).await;
    assert_eq!(status, 409);
    assert_error(&body, "session_stale", "session");
}

/// `text` with the number after `"solve_ms":` replaced by 0.
fn zero_solve_ms(text: &str) -> String {
    let key = "\"solve_ms\":";
    let at = text.find(key).unwrap() + key.len();
    let end = at + text[at..].find([',', '}']).unwrap();
    format!("{}0{}", &text[..at], &text[end..])
}

/// The bytes of a session answer are those of `POST /place` on the equivalent full snapshot,
/// but `stats.solve_ms`: the answer is embedded as it was serialized.
#[actix_web::test]
async fn session_answers_are_byte_identical_to_place() {
    let svc = test::init_service(app(AppState::new(&ServerConfig::default()))).await;
    let raw = |req: TestRequest| {
        let svc = &svc;
        async move {
            let resp = test::call_service(svc, req.to_request()).await;
            String::from_utf8(test::read_body(resp).await.to_vec()).unwrap()
        }
    };
    let created = raw(TestRequest::post().uri("/v1/sessions").set_payload(SNAPSHOT)).await;
    let id =
        serde_json::from_str::<Value>(&created).unwrap()["session"].as_str().unwrap().to_owned();
    let head = format!(r#"{{"session":"{id}","epoch":0,"answer":"#);
    let answer = created.strip_prefix(&head).and_then(|a| a.strip_suffix('}')).unwrap();
    let placed = raw(TestRequest::post().uri("/place").set_payload(SNAPSHOT)).await;
    assert_eq!(zero_solve_ms(answer), zero_solve_ms(&placed));

    let body =
        json!({"base_epoch": 0, "changes": {"now_s": 1500.0, "remove": {"running": ["j2-m-9"]}}});
    let uri = format!("/v1/sessions/{id}/place");
    let next = raw(TestRequest::post().uri(&uri).set_json(body)).await;
    let answer =
        next.strip_prefix(r#"{"epoch":1,"answer":"#).and_then(|a| a.strip_suffix('}')).unwrap();
    let mut full = example();
    full["now_s"] = json!(1500.0);
    full["running"].as_array_mut().unwrap().remove(1);
    let placed = raw(TestRequest::post().uri("/place").set_json(&full)).await;
    assert_eq!(zero_solve_ms(answer), zero_solve_ms(&placed));
}

#[actix_web::test]
async fn stale_deltas_get_409_and_leave_the_session_usable() {
    let svc = test::init_service(app(AppState::new(&ServerConfig::default()))).await;
    let (status, body) = delta(&svc, "0123456789abcdef", json!({"base_epoch": 0})).await;
    assert_eq!(status, 409);
    assert_error(&body, "session_stale", "session");

    let id = create(&svc).await;
    for wrong in [1, 7] {
        let (status, body) = delta(&svc, &id, json!({"base_epoch": wrong})).await;
        assert_eq!(status, 409);
        assert_error(&body, "session_stale", "base_epoch");
    }
    let (status, body) = delta(&svc, &id, json!({"base_epoch": 0})).await;
    assert_eq!((status, body["epoch"].clone()), (200, json!(1)), "{body}");
    // Epoch 0 is gone once 1 is answered.
    let (status, body) = delta(&svc, &id, json!({"base_epoch": 0})).await;
    assert_eq!(status, 409);
    assert_error(&body, "session_stale", "base_epoch");
}

#[actix_web::test]
async fn the_least_recently_used_session_is_evicted_when_full() {
    let config = ServerConfig { sessions_max: 1, ..ServerConfig::default() };
    let state = AppState::new(&config);
    let svc = test::init_service(app(state.clone())).await;
    let first = create(&svc).await;
    let second = create(&svc).await;
    assert_eq!(state.sessions(), 1);
    let (status, body) = delta(&svc, &first, json!({"base_epoch": 0})).await;
    assert_eq!(status, 409);
    assert_error(&body, "session_stale", "session");
    let (status, body) = delta(&svc, &second, json!({"base_epoch": 0})).await;
    assert_eq!(status, 200, "{body}");
}

#[actix_web::test]
async fn sessions_max_zero_disables_sessions() {
    let config = ServerConfig { sessions_max: 0, ..ServerConfig::default() };
    let svc = test::init_service(app(AppState::new(&config))).await;
    let (status, body) =
        call(&svc, TestRequest::post().uri("/v1/sessions").set_payload(SNAPSHOT)).await;
    assert_eq!(status, 503);
    assert_error(&body, "overloaded", "$");
}

#[actix_web::test]
async fn a_bad_delta_gets_the_full_snapshots_error_and_changes_nothing() {
    let svc = test::init_service(app(AppState::new(&ServerConfig::default()))).await;
    let id = create(&svc).await;
    // A pending task of a job the snapshot lacks: the full snapshot's 400, with its path there.
    let orphan = json!({"id": "x-m-0", "job": "nope", "kind": "map"});
    let (status, body) =
        delta(&svc, &id, json!({"base_epoch": 0, "changes": {"upsert": {"pending": [orphan]}}}))
            .await;
    let mut full = example();
    full["pending"].as_array_mut().unwrap().push(orphan);
    let (place_status, expected) = place(&svc, &full).await;
    assert_eq!((status, place_status), (400, 400), "{body}");
    assert_eq!(body["error"]["code"], "unknown_reference");
    assert_eq!(body["error"], expected["error"]);
    // A task on a node that does not exist, by removing the node: same rule.
    let (status, body) =
        delta(&svc, &id, json!({"base_epoch": 0, "changes": {"remove": {"nodes": ["n1"]}}})).await;
    assert_eq!(status, 400, "{body}");
    // The delta's own shape: its path in the delta.
    let (status, body) = delta(
        &svc,
        &id,
        json!({"base_epoch": 0, "changes": {"upsert": {"jobs": [{"pool": "prod"}]}}}),
    )
    .await;
    assert_eq!(status, 400);
    assert_error(&body, "invalid_field", "changes.upsert.jobs[0]");
    assert!(body["error"]["message"].as_str().unwrap().contains("missing field `id`"), "{body}");
    let (status, body) = delta(&svc, &id, json!({"base_epoch": 0, "changes": {"now": 1}})).await;
    assert_eq!(status, 400);
    assert_error(&body, "invalid_field", "changes.now");
    let (status, body) =
        call(&svc, TestRequest::post().uri(&format!("/v1/sessions/{id}/place")).set_payload("{"))
            .await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["code"], "malformed_json");
    // Still at epoch 0, with the original snapshot.
    let (status, body) = delta(&svc, &id, json!({"base_epoch": 0})).await;
    assert_eq!((status, body["epoch"].clone()), (200, json!(1)), "{body}");
    assert_eq!(timeless(body["answer"].clone()), place(&svc, &example()).await.1);
}

#[actix_web::test]
async fn a_session_holds_its_bytes_in_the_ledger_until_deleted() {
    let state = AppState::new(&ServerConfig::default());
    let svc = test::init_service(app(state.clone())).await;
    assert_eq!(state.memory_held(), 0);
    let id = create(&svc).await;
    // The parsed snapshot's estimated bytes (more than its text) plus 256 for its id and record.
    let held = state.memory_held();
    assert!(held > SNAPSHOT.len() as u64 + 256, "{held}");
    let (status, _) =
        delta(&svc, &id, json!({"base_epoch": 0, "changes": {"now_s": 1300.0}})).await;
    assert_eq!(status, 200);
    assert!(state.memory_held() > 256);
    let (status, _) = call(&svc, TestRequest::delete().uri(&format!("/v1/sessions/{id}"))).await;
    assert_eq!(status, 204);
    assert_eq!(state.memory_held(), 0);
}

#[actix_web::test]
async fn other_methods_get_405_with_allow() {
    let svc = test::init_service(app(AppState::new(&ServerConfig::default()))).await;
    for (req, allow) in [
        (TestRequest::get().uri("/v1/sessions"), "POST"),
        (TestRequest::get().uri("/v1/sessions/abc"), "DELETE"),
        (TestRequest::get().uri("/v1/sessions/abc/place"), "POST"),
    ] {
        let resp = test::call_service(&svc, req.to_request()).await;
        assert_eq!(resp.status().as_u16(), 405);
        assert_eq!(resp.headers().get("allow").unwrap(), allow);
    }
}

/// The shipped example delta (docs/wire-schema.md, "Sessions") against the shipped snapshot:
/// epoch 1 answers as `POST /place` on the equivalent full snapshot. One map slot is free, on
/// n1 (`j1-m-9` ended; `j1-m-0` took the other): `j1-m-1`, whose block is on n1, takes it at no
/// cost, the new `j2-m-2` (blocks in rack r2) waits, and the reduce takes n1's reduce slot.
#[actix_web::test]
async fn the_example_delta_answers_its_next_epoch() {
    let svc = test::init_service(app(AppState::new(&ServerConfig::default()))).await;
    let id = create(&svc).await;
    let text =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/session_delta.json"))
            .unwrap();
    let body: Value = serde_json::from_slice(&text).unwrap();
    let (status, got) = delta(&svc, &id, body.clone()).await;
    assert_eq!((status, got["epoch"].clone()), (200, json!(1)), "{got}");
    let changes = &body["changes"];
    let mut full = example();
    full["now_s"] = changes["now_s"].clone();
    for key in ["pending", "running"] {
        let gone: Vec<Value> = changes["remove"][key].as_array().unwrap().clone();
        let list = full[key].as_array_mut().unwrap();
        list.retain(|t| !gone.contains(&t["id"]));
        list.extend(changes["upsert"][key].as_array().unwrap().iter().cloned());
    }
    let (status, expected) = place(&svc, &full).await;
    assert_eq!(status, 200);
    assert_eq!(timeless(got["answer"].clone()), expected);
    let placed: Vec<(&str, &str)> = expected["assignments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["task"].as_str().unwrap(), a["node"].as_str().unwrap()))
        .collect();
    assert_eq!(placed, [("j1-m-1", "n1"), ("j1-r-0", "n1")], "{expected}");
}

/// `?incremental=true`: the session keeps the exact engine's state; its answers have the cost
/// and counts of `POST /place` on the equivalent full snapshot (the example delta's epoch has a
/// single optimum, so here the placements are the same too), and the state is held in the
/// memory ledger beside the snapshot.
#[actix_web::test]
async fn an_incremental_session_answers_with_the_same_optimum() {
    let state = AppState::new(&ServerConfig::default());
    let svc = test::init_service(app(state.clone())).await;
    let plain = create(&svc).await;
    let held_plain = state.memory_held();
    let req = TestRequest::post().uri("/v1/sessions?incremental=true").set_payload(SNAPSHOT);
    let (status, created) = call(&svc, req).await;
    assert_eq!(status, 201, "{created}");
    let id = created["session"].as_str().unwrap().to_owned();
    assert!(state.memory_held() > 2 * held_plain, "the engine state is counted");
    let text =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/session_delta.json"))
            .unwrap();
    let body: Value = serde_json::from_slice(&text).unwrap();
    let (_, from_plain) = delta(&svc, &plain, body.clone()).await;
    let (status, got) = delta(&svc, &id, body).await;
    assert_eq!((status, got["epoch"].clone()), (200, json!(1)), "{got}");
    assert_eq!(timeless(got["answer"].clone()), timeless(from_plain["answer"].clone()));
    let (status, body) = call(&svc, TestRequest::post().uri("/v1/sessions?incremental=yes")).await;
    assert_eq!(status, 400);
    assert_error(&body, "invalid_query", "?incremental");
}

/// Policy defaults switched on and off while a session lives (a config reload): the deltas
/// answered with defaults are validated in full, and the first one after them starts validation
/// by difference afresh, so every epoch still answers as `POST /place` on its full snapshot. (A
/// state left from before the defaults would still hold `j1-m-0`, removed meanwhile, at the
/// head of the pending tasks, and give every later task its predecessor's replicas.)
#[actix_web::test]
async fn validation_by_difference_survives_policy_defaults_coming_and_going() {
    let state = AppState::new(&ServerConfig::default());
    let svc = test::init_service(app(state.clone())).await;
    let id = create(&svc).await;
    let mut full = example();
    let defaults = json!({"alpha": 2.0}).as_object().unwrap().clone();
    let map = |id: &str, node: &str| json!({"id": id, "job": "j1", "kind": "map", "input_bytes": 1_000_000, "replicas": [node]});
    let steps = [
        (None, vec![], vec![map("x0", "n2")]),
        (Some(defaults), vec!["j1-m-0"], vec![]),
        (None, vec![], vec![map("x1", "n4")]),
        (None, vec!["x0"], vec![map("x2", "n1")]),
    ];
    for (epoch, (policy_defaults, gone, new)) in steps.into_iter().enumerate() {
        state.live_config().replace(ServerConfig { policy_defaults, ..ServerConfig::default() });
        let body = json!({"base_epoch": epoch, "changes": {
            "remove": {"pending": gone}, "upsert": {"pending": new}}});
        let (status, got) = delta(&svc, &id, body).await;
        assert_eq!(status, 200, "{got}");
        let list = full["pending"].as_array_mut().unwrap();
        list.retain(|t| !gone.iter().any(|g| t["id"] == *g));
        list.extend(new);
        let (_, expected) = place(&svc, &full).await;
        assert_eq!(timeless(got["answer"].clone()), expected, "epoch {}", epoch + 1);
    }
}
