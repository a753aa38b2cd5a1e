//! Admission end to end (docs/operations/serving.md, "Admission and limits"): with one solve slot
//! busy and no queue, the next snapshot gets `503 overloaded` with `Retry-After`, and `/readyz`
//! reports not ready; once the slot frees, both recover. The busy solve is a stand-in that waits
//! for the test to release it (no timing is asserted).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use actix_web::http::StatusCode;
use actix_web::test::{self, TestRequest};
use placer_models::{PlaceRequest, PlaceResponse};
use placer_server::{app, AppState, ServerConfig};
use placer_solver::{PlaceOptions, SolveError};
use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

const SNAPSHOT: &[u8] = include_bytes!("../../examples/snapshot.json");

static RELEASE: AtomicBool = AtomicBool::new(false);

fn held_until_released(
    req: &PlaceRequest,
    opts: &PlaceOptions,
) -> Result<PlaceResponse, SolveError> {
    while !RELEASE.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(1));
    }
    placer_solver::place(req, opts)
}

async fn status_and_code(
    app: &impl actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse,
        Error = actix_web::Error,
    >,
    req: TestRequest,
) -> (StatusCode, Option<String>, Value) {
    let resp = test::call_service(app, req.to_request()).await;
    let status = resp.status();
    let retry = resp.headers().get("retry-after").map(|v| v.to_str().unwrap().to_owned());
    let json = serde_json::from_slice(&test::read_body(resp).await).unwrap_or(Value::Null);
    (status, retry, json)
}

#[actix_web::test]
async fn a_busy_slot_with_no_queue_is_503_and_not_ready() {
    let config = ServerConfig { max_in_flight: 1, queue_len: 0, ..ServerConfig::default() };
    let state = AppState::with_solver(&config, held_until_released);
    let app = std::rc::Rc::new(test::init_service(app(state.clone())).await);
    let busy = {
        let app = std::rc::Rc::clone(&app);
        actix_web::rt::spawn(async move {
            let req = TestRequest::post().uri("/place").set_payload(SNAPSHOT).to_request();
            test::call_service(&*app, req).await.status()
        })
    };
    while state.in_flight() == 0 {
        actix_web::rt::time::sleep(Duration::from_millis(1)).await;
    }
    let (status, retry, json) =
        status_and_code(&*app, TestRequest::post().uri("/place").set_payload(SNAPSHOT)).await;
    assert_eq!((status, retry.as_deref()), (StatusCode::SERVICE_UNAVAILABLE, Some("1")));
    assert_eq!(json["error"]["code"], "overloaded");
    let (status, _, json) = status_and_code(&*app, TestRequest::get().uri("/readyz")).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(json["error"]["code"], "overloaded");

    RELEASE.store(true, Ordering::SeqCst);
    assert_eq!(busy.await.unwrap(), StatusCode::OK);
    let (status, _, json) = status_and_code(&*app, TestRequest::get().uri("/readyz")).await;
    assert_eq!((status, json), (StatusCode::OK, serde_json::json!({"status": "ready"})));
    let (status, _, _) =
        status_and_code(&*app, TestRequest::post().uri("/place").set_payload(SNAPSHOT)).await;
    assert_eq!(status, StatusCode::OK);
}

#[actix_web::test]
async fn draining_is_not_ready_but_still_answers_and_closes() {
    let state = AppState::new(&ServerConfig::default());
    let app = test::init_service(app(state.clone())).await;
    let (status, _, _) = status_and_code(&app, TestRequest::get().uri("/readyz")).await;
    assert_eq!(status, StatusCode::OK);
    state.start_draining();
    let (status, retry, json) = status_and_code(&app, TestRequest::get().uri("/readyz")).await;
    assert_eq!((status, retry.as_deref()), (StatusCode::SERVICE_UNAVAILABLE, Some("1")));
    assert_eq!(json["error"]["code"], "draining");
    // A snapshot that reaches a draining server on an open connection is still answered, and
    // the connection closes after it.
    let req = TestRequest::post().uri("/place").set_payload(SNAPSHOT).to_request();
    let resp = test::call_service(&app, req).await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(resp.response().head().connection_type(), actix_http::ConnectionType::Close);
    // Liveness is unaffected.
    let (status, _, _) = status_and_code(&app, TestRequest::get().uri("/healthz")).await;
    assert_eq!(status, StatusCode::OK);
}
