//! In-process API tests of `placer-server` (docs/wire-schema.md, "Errors"): status codes,
//! JSON error bodies with code and path, the body limit, and that the service keeps serving
//! after bad requests. The app is mounted with `actix_web::test::init_service`, no socket.

use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceResponse};
use actix_web::http::header::{self, HeaderMap};
use actix_web::http::StatusCode;
use actix_web::test::{self, TestRequest};
use placer_models::{PlaceRequest, PlaceResponse};
use placer_server::{app, AppState, ServerConfig};
use placer_solver::{PlaceOptions, SolveError};
use placer_testkit::{Job, Map, Node, Pool, Running, Snapshot, BLOCK};
use serde_json::{json, Value};

/// Two racks, three nodes, one running map on n1; two pending maps, each node-local on a node
/// with a free map slot (n1: 2 slots − 1 running; n3: 2 free). lsap places both node-locally at
/// cost 0.
fn small_snapshot() -> Value {
    Snapshot::new()
        .now_s(10.0)
        .rack("r1")
        .rack("r2")
        .node(Node::new("n1").rack("r1").map_slots(2).reduce_slots(1))
        .node(Node::new("n2").rack("r1").map_slots(0).reduce_slots(1))
        .node(Node::new("n3").rack("r2").map_slots(2).reduce_slots(1))
        .network(1000.0, 100.0)
        .pool(Pool::new("prod").weight(1.0))
        .job(Job::new("j1").pool("prod").submit_s(0.0))
        .map(Map::new("j1-m-0").job("j1").input_bytes(BLOCK).replicas(&["n1"]))
        .map(Map::new("j1-m-1").job("j1").input_bytes(BLOCK).replicas(&["n3"]))
        .running(Running::map("j1-m-9").job("j1").node("n1").started_s(5.0))
        .algorithm("lsap")
        .solver("auto")
        .json()
}

fn config() -> ServerConfig {
    ServerConfig { max_in_flight: 4, ..ServerConfig::default() }
}

fn post_place(body: impl Into<actix_web::web::Bytes>) -> TestRequest {
    TestRequest::post().uri("/place").set_payload(body)
}

fn post_json(body: &Value) -> TestRequest {
    post_place(serde_json::to_vec(body).unwrap())
}

/// A reply: status, headers, and the body parsed as JSON (`Value::Null` if it is not JSON).
struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    json: Value,
}

impl Reply {
    fn error_code(&self) -> &str {
        self.json["error"]["code"].as_str().unwrap_or("<no error.code>")
    }

    fn error_path(&self) -> &str {
        self.json["error"]["path"].as_str().unwrap_or("<no error.path>")
    }

    fn is_json(&self) -> bool {
        self.headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok())
            == Some("application/json")
    }

    /// Asserts the error shape of docs/wire-schema.md, "Errors": status, JSON content type, code,
    /// message, path.
    fn assert_error(&self, status: StatusCode, code: &str) {
        assert_eq!(self.status, status, "body: {}", self.json);
        assert!(self.is_json(), "error without application/json: {:?}", self.headers);
        assert_eq!(self.error_code(), code, "body: {}", self.json);
        assert!(self.json["error"]["message"].as_str().is_some_and(|m| !m.is_empty()));
        assert!(self.json["error"]["path"].is_string());
    }
}

async fn call<S, R, B>(app: &S, req: R) -> Reply
where
    S: Service<R, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let resp = test::call_service(app, req).await;
    let status = resp.status();
    let headers = resp.headers().clone();
    let bytes = test::read_body(resp).await;
    let json = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    Reply { status, headers, json }
}

fn assert_placed(reply: &Reply) {
    assert_eq!(reply.status, StatusCode::OK, "body: {}", reply.json);
    assert!(reply.is_json());
    assert_eq!(reply.json["schema_version"], 1);
    assert!(reply.json["assignments"].is_array());
    assert!(reply.json["stats"]["status"].is_string());
    assert!(reply.json["stats"]["solve_ms"].as_f64().is_some_and(|ms| ms >= 0.0));
}

#[actix_web::test]
async fn healthz_is_ok() {
    let app = test::init_service(app(AppState::new(&config()))).await;
    let reply = call(&app, TestRequest::get().uri("/healthz").to_request()).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert!(reply.is_json());
    assert_eq!(reply.json, json!({"status": "ok"}));
}

/// Needs the real `placer_solver::place`.
#[actix_web::test]
async fn valid_small_snapshot_is_placed_node_locally() {
    let app = test::init_service(app(AppState::new(&config()))).await;
    let reply = call(&app, post_json(&small_snapshot()).to_request()).await;
    assert_placed(&reply);
    let mut placed: Vec<(String, String, String)> = reply.json["assignments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let s = |k: &str| a[k].as_str().unwrap_or_default().to_owned();
            (s("task"), s("node"), s("locality"))
        })
        .collect();
    placed.sort();
    let want = |t: &str, n: &str| (t.to_owned(), n.to_owned(), "node".to_owned());
    assert_eq!(placed, vec![want("j1-m-0", "n1"), want("j1-m-1", "n3")]);
    assert_eq!(reply.json["stats"]["status"], "optimal");
    assert_eq!(reply.json["stats"]["assigned"], 2);
}

/// `curl -d @snapshot.json` sends `application/x-www-form-urlencoded`: still a snapshot.
/// Needs the real `placer_solver::place`.
#[actix_web::test]
async fn any_content_type_is_accepted() {
    let app = test::init_service(app(AppState::new(&config()))).await;
    let req = post_json(&small_snapshot())
        .insert_header((header::CONTENT_TYPE, "application/x-www-form-urlencoded"))
        .to_request();
    assert_placed(&call(&app, req).await);
}

/// `?explain=true` lists waiting tasks one by one: three pending maps, one free map slot.
/// Needs the real `placer_solver::place`.
#[actix_web::test]
async fn explain_lists_waiting_tasks_one_by_one() {
    let mut snapshot = small_snapshot();
    snapshot["cluster"]["nodes"][2]["map_slots"] = json!(0);
    snapshot["pending"].as_array_mut().unwrap().push(json!(
        {"id": "j1-m-2", "job": "j1", "kind": "map", "input_bytes": 1024, "replicas": ["n2"]}
    ));
    let app = test::init_service(app(AppState::new(&config()))).await;
    let req = post_json(&snapshot).uri("/place?explain=true").to_request();
    let reply = call(&app, req).await;
    assert_placed(&reply);
    let waiting = reply.json["waiting"].as_array().unwrap();
    assert_eq!(waiting.len(), 2, "body: {}", reply.json);
    for w in waiting {
        assert!(w["task"].is_string(), "{w}");
        assert_eq!(w["tasks"], 1);
    }
}

#[actix_web::test]
async fn bad_explain_value_is_400_json() {
    let app = test::init_service(app(AppState::new(&config()))).await;
    let req = post_json(&small_snapshot()).uri("/place?explain=maybe").to_request();
    call(&app, req).await.assert_error(StatusCode::BAD_REQUEST, "invalid_query");
}

#[actix_web::test]
async fn malformed_json_is_400() {
    let app = test::init_service(app(AppState::new(&config()))).await;
    let reply = call(&app, post_place(r#"{"schema_version": 1, "cluster": {"#).to_request()).await;
    reply.assert_error(StatusCode::BAD_REQUEST, "malformed_json");
}

#[actix_web::test]
async fn empty_body_is_400_malformed_json() {
    let app = test::init_service(app(AppState::new(&config()))).await;
    let reply = call(&app, TestRequest::post().uri("/place").to_request()).await;
    reply.assert_error(StatusCode::BAD_REQUEST, "malformed_json");
}

#[actix_web::test]
async fn unknown_algorithm_is_400_at_policy_algorithm() {
    let mut snapshot = small_snapshot();
    snapshot["policy"]["algorithm"] = json!("magic");
    let app = test::init_service(app(AppState::new(&config()))).await;
    let reply = call(&app, post_json(&snapshot).to_request()).await;
    reply.assert_error(StatusCode::BAD_REQUEST, "invalid_field");
    assert_eq!(reply.error_path(), "policy.algorithm");
}

/// Needs `placer_solver::place` to validate (the stub does not).
#[actix_web::test]
async fn unknown_replica_node_is_400_unknown_reference() {
    let mut snapshot = small_snapshot();
    snapshot["pending"][0]["replicas"] = json!(["n404"]);
    let app = test::init_service(app(AppState::new(&config()))).await;
    let reply = call(&app, post_json(&snapshot).to_request()).await;
    reply.assert_error(StatusCode::BAD_REQUEST, "unknown_reference");
    assert_eq!(reply.error_path(), "pending[0].replicas[0]");
}

/// Needs `placer_solver::place` to validate (the stub does not).
#[actix_web::test]
async fn schema_version_2_is_400() {
    let mut snapshot = small_snapshot();
    snapshot["schema_version"] = json!(2);
    let app = test::init_service(app(AppState::new(&config()))).await;
    let reply = call(&app, post_json(&snapshot).to_request()).await;
    reply.assert_error(StatusCode::BAD_REQUEST, "unsupported_schema_version");
    assert_eq!(reply.error_path(), "schema_version");
}

/// Needs the real `placer_solver::place`: `ras` runs Algorithm 1 or the MIP, not a dense
/// assignment engine.
#[actix_web::test]
async fn ras_on_a_dense_engine_is_422_unsupported_solver() {
    let mut snapshot = small_snapshot();
    snapshot["policy"]["algorithm"] = json!("ras");
    snapshot["policy"]["solver"] = json!("jv");
    let app = test::init_service(app(AppState::new(&config()))).await;
    let reply = call(&app, post_json(&snapshot).to_request()).await;
    reply.assert_error(StatusCode::UNPROCESSABLE_ENTITY, "unsupported_solver");
    assert_eq!(reply.error_path(), "policy.solver");
}

#[actix_web::test]
async fn body_over_the_limit_is_413_json() {
    let tiny = ServerConfig { body_limit_bytes: 64, ..config() };
    let app = test::init_service(app(AppState::new(&tiny))).await;
    let reply = call(&app, post_json(&small_snapshot()).to_request()).await;
    reply.assert_error(StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large");
    assert_eq!(reply.error_path(), "$");
    // A body within the limit still reaches the parser.
    let reply = call(&app, post_place("{").to_request()).await;
    reply.assert_error(StatusCode::BAD_REQUEST, "malformed_json");
}

#[actix_web::test]
async fn no_capacity_is_503_with_retry_after() {
    let closed = ServerConfig { max_in_flight: 0, ..config() };
    let app = test::init_service(app(AppState::new(&closed))).await;
    let reply = call(&app, post_json(&small_snapshot()).to_request()).await;
    reply.assert_error(StatusCode::SERVICE_UNAVAILABLE, "overloaded");
    assert_eq!(reply.headers.get(header::RETRY_AFTER).and_then(|v| v.to_str().ok()), Some("1"));
}

fn panicking_solver(_: &PlaceRequest, _: &PlaceOptions) -> Result<PlaceResponse, SolveError> {
    panic!("deliberate test panic")
}

#[actix_web::test]
async fn a_solver_panic_is_500_internal_and_the_server_keeps_serving() {
    let state = AppState::with_solver(&config(), panicking_solver);
    let app = test::init_service(app(state.clone())).await;
    for _ in 0..3 {
        let reply = call(&app, post_json(&small_snapshot()).to_request()).await;
        reply.assert_error(StatusCode::INTERNAL_SERVER_ERROR, "internal");
    }
    assert_eq!(state.in_flight(), 0, "a panicking solve must release its slot");
    let reply = call(&app, TestRequest::get().uri("/healthz").to_request()).await;
    assert_eq!(reply.status, StatusCode::OK);
}

/// Needs the real `placer_solver::place`.
#[actix_web::test]
async fn good_request_after_bad_ones_is_200() {
    let state = AppState::new(&ServerConfig { max_in_flight: 1, ..config() });
    let app = test::init_service(app(state.clone())).await;
    let mut unknown_node = small_snapshot();
    unknown_node["pending"][0]["replicas"] = json!(["n404"]);
    let bad: Vec<Vec<u8>> = vec![
        b"{".to_vec(),
        b"null".to_vec(),
        b"\xff\xfe".to_vec(),
        br#"{"schema_version":1,"cluster":{},"policy":{"algorithm":"magic"}}"#.to_vec(),
        serde_json::to_vec(&unknown_node).unwrap(),
    ];
    for body in bad {
        let reply = call(&app, post_place(body).to_request()).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "body: {}", reply.json);
        assert!(reply.is_json());
    }
    // Every rejected request released its in-flight slot (max_in_flight is 1).
    assert_eq!(state.in_flight(), 0);
    assert_placed(&call(&app, post_json(&small_snapshot()).to_request()).await);
}

#[actix_web::test]
async fn unknown_route_is_404_json() {
    let app = test::init_service(app(AppState::new(&config()))).await;
    let reply = call(&app, TestRequest::get().uri("/nope").to_request()).await;
    reply.assert_error(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(reply.error_path(), "$");
}

#[actix_web::test]
async fn wrong_method_is_405_json_with_allow() {
    let app = test::init_service(app(AppState::new(&config()))).await;
    let reply = call(&app, TestRequest::get().uri("/place").to_request()).await;
    reply.assert_error(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed");
    assert_eq!(reply.headers.get(header::ALLOW).and_then(|v| v.to_str().ok()), Some("POST"));
    let reply = call(&app, TestRequest::post().uri("/healthz").to_request()).await;
    reply.assert_error(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed");
}

/// The service is stateless: a master echoes `jobs[].delay` from one answer into the next
/// snapshot (FAIR Alg. 1 over HTTP). Epoch 1 (t = 10): j1's only map is off-rack for the one
/// free slot (n1) → skipped, `{level 0, wait 0, skipped_at 10}`. Epoch 2 (t = 40) with the
/// echoed state: wait = 30 ≥ T1 + T2 = 2 · 1.5 · 3 s = 9 s → it launches, level 2.
#[actix_web::test]
async fn delay_state_round_trips_through_the_master() {
    let mut snapshot = small_snapshot();
    snapshot["policy"] = json!({"algorithm": "delay"});
    snapshot["cluster"]["nodes"][2]["map_slots"] = json!(0);
    snapshot["pending"] = json!([{"id": "j1-m-5", "job": "j1", "kind": "map",
                                  "input_bytes": 134217728, "replicas": ["n3"]}]);
    let app = test::init_service(app(AppState::new(&config()))).await;
    let reply = call(&app, post_json(&snapshot).to_request()).await;
    assert_placed(&reply);
    assert_eq!(reply.json["assignments"], json!([]));
    assert_eq!(reply.json["waiting"][0]["reason"], "waiting_for_locality");
    let state = reply.json["jobs"][0]["delay"].clone();
    assert_eq!(state, json!({"level": 0, "wait_s": 0.0, "skipped_at_s": 10.0}));

    snapshot["now_s"] = json!(40.0);
    snapshot["jobs"][0]["delay"] = state;
    let reply = call(&app, post_json(&snapshot).to_request()).await;
    assert_placed(&reply);
    assert_eq!(reply.json["assignments"][0]["node"], "n1");
    assert_eq!(reply.json["assignments"][0]["locality"], "remote");
    assert_eq!(reply.json["jobs"][0]["delay"], json!({"level": 2, "wait_s": 0.0}));
}

/// New fields are validated like the old ones: 400 with the path of the field.
#[actix_web::test]
async fn fair_sharing_fields_are_validated_with_paths() {
    let app = test::init_service(app(AppState::new(&config()))).await;
    let cases = [
        ("/jobs/0/delay", json!({"level": 3}), "jobs[0].delay.level"),
        ("/pools/0/min_share_timeout_s", json!(-1.0), "pools[0].min_share_timeout_s"),
        ("/policy/heartbeat_s", json!(0.0), "policy.heartbeat_s"),
        ("/policy/beta", json!(-2.0), "policy.beta"),
        ("/running/0/phase", json!("copy"), "running[0].phase"),
        ("/pending/0/pending_since_s", json!(-5.0), "pending[0].pending_since_s"),
    ];
    for (pointer, value, path) in cases {
        let mut snapshot = small_snapshot();
        let (parent, key) = pointer.rsplit_once('/').unwrap();
        let obj = snapshot.pointer_mut(parent).unwrap().as_object_mut().unwrap();
        obj.insert(key.to_owned(), value);
        let reply = call(&app, post_json(&snapshot).to_request()).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{path}: {}", reply.json);
        assert_eq!(reply.error_path(), path);
    }
}
