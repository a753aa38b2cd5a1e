//! Deadlines on the serving side (docs/operations/serving.md, "Deadlines and the anytime answer"):
//! `?deadline_ms=` wins over `policy.deadline_ms`, which wins over the server's `deadline_ms`; at
//! the deadline the server cancels the request's token and the answer arrives. A stand-in solver
//! spins until it sees the cancellation (no timing is asserted), then places with the real solver.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use actix_web::http::StatusCode;
use actix_web::test::{self, TestRequest};
use placer_models::{PlaceRequest, PlaceResponse};
use placer_server::{app, AppState, ServerConfig};
use placer_solver::{PlaceOptions, SolveError};
use serde_json::Value;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const SNAPSHOT: &[u8] = include_bytes!("../../examples/snapshot.json");

/// Cancellations the stand-in has seen.
static SAW_CANCEL: AtomicUsize = AtomicUsize::new(0);

/// Spins until the request's token is cancelled (at most 60 s, so a broken deadline fails the
/// test instead of hanging it), then answers with the real solver.
fn until_cancelled(req: &PlaceRequest, opts: &PlaceOptions) -> Result<PlaceResponse, SolveError> {
    let cancel = opts.cancel.clone().expect("the server passes a cancel token");
    let give_up = Instant::now() + Duration::from_secs(60);
    while !cancel.is_cancelled() {
        assert!(Instant::now() < give_up, "never cancelled");
        std::thread::sleep(Duration::from_millis(1));
    }
    SAW_CANCEL.fetch_add(1, Ordering::SeqCst);
    placer_solver::place(req, &PlaceOptions { explain: opts.explain, cancel: None, warm: None })
}

fn with_policy_deadline(ms: u64) -> Vec<u8> {
    let mut snapshot: Value = serde_json::from_slice(SNAPSHOT).unwrap();
    snapshot["policy"]["deadline_ms"] = ms.into();
    serde_json::to_vec(&snapshot).unwrap()
}

/// The three sources, one after the other; each answer arrives after the stand-in saw the
/// cancel. (A source that did not arm a timer would hang the stand-in until it gives up.)
#[actix_web::test]
async fn each_deadline_source_cancels_the_solve_and_the_answer_arrives() {
    let config = ServerConfig { deadline_ms: Some(20), ..ServerConfig::default() };
    let with_default =
        test::init_service(app(AppState::with_solver(&config, until_cancelled))).await;
    let no_default = ServerConfig::default();
    let app_no_default =
        test::init_service(app(AppState::with_solver(&no_default, until_cancelled))).await;
    let requests = [
        // ?deadline_ms= with no other deadline
        (&app_no_default, "/place?deadline_ms=10", SNAPSHOT.to_vec()),
        // policy.deadline_ms with no other deadline
        (&app_no_default, "/place", with_policy_deadline(10)),
        // the server default
        (&with_default, "/place", SNAPSHOT.to_vec()),
        // the query wins over a policy deadline of an hour
        (&app_no_default, "/place?deadline_ms=5", with_policy_deadline(3_600_000)),
    ];
    for (i, (service, uri, body)) in requests.into_iter().enumerate() {
        let req = TestRequest::post().uri(uri).set_payload(body).to_request();
        let resp = test::call_service(service, req).await;
        assert_eq!(resp.status(), StatusCode::OK, "case {i}");
        let json: Value = serde_json::from_slice(&test::read_body(resp).await).unwrap();
        assert_eq!(json["schema_version"], 1, "case {i}");
        assert_eq!(SAW_CANCEL.load(Ordering::SeqCst), i + 1, "case {i}");
    }
}

#[actix_web::test]
async fn an_invalid_deadline_query_is_400_at_its_path() {
    let app = test::init_service(app(AppState::new(&ServerConfig::default()))).await;
    for uri in ["/place?deadline_ms=soon", "/place?deadline_ms=-5"] {
        let req = TestRequest::post().uri(uri).set_payload(SNAPSHOT).to_request();
        let resp = test::call_service(&app, req).await;
        assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
        let json: Value = serde_json::from_slice(&test::read_body(resp).await).unwrap();
        assert_eq!(json["error"]["code"], "invalid_query");
        assert_eq!(json["error"]["path"], "?deadline_ms");
    }
}
