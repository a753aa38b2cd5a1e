//! `GET /metrics` through the whole app (docs/operations/observability.md, "Metrics"; Prometheus
//! text format 0.0.4). One test in its own binary: the recorder is process-wide, so nothing else
//! may record meanwhile.

#![allow(clippy::unwrap_used, clippy::panic)]

use actix_web::test::{call_service, init_service, read_body, TestRequest};
use placer_models::{PlaceRequest, PlaceResponse};
use placer_server::config_file::CommandLine;
use placer_server::reload::Reloader;
use placer_server::{app, metrics, AppState, LiveConfig, ServerConfig};
use placer_solver::{PlaceOptions, SolveError};
use serde_json::Value;

fn example() -> Vec<u8> {
    std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/snapshot.json")).unwrap()
}

/// The value of the sample `series` (name with labels, exactly as rendered), or `None`.
fn sample(page: &str, series: &str) -> Option<f64> {
    page.lines().find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

fn panicking(_: &PlaceRequest, _: &PlaceOptions) -> Result<PlaceResponse, SolveError> {
    panic!("a bug")
}

#[actix_web::test]
async fn metrics_page_counts_what_the_answers_said() {
    let svc = init_service(app(AppState::new(&ServerConfig::default()))).await;

    // Two answers of the example snapshot.
    let body = example();
    let mut answer = Value::Null;
    for _ in 0..2 {
        let req = TestRequest::post().uri("/place").set_payload(body.clone()).to_request();
        let res = call_service(&svc, req).await;
        assert_eq!(res.status(), 200);
        answer = serde_json::from_slice(&read_body(res).await).unwrap();
    }
    let req = TestRequest::get().uri("/no/such/path").to_request();
    assert_eq!(call_service(&svc, req).await.status(), 404);

    let res = call_service(&svc, TestRequest::get().uri("/metrics").to_request()).await;
    assert_eq!(res.status(), 200);
    let ct = res.headers().get("content-type").unwrap().to_str().unwrap().to_owned();
    assert!(ct.starts_with("text/plain; version=0.0.4"), "{ct}");
    let page = String::from_utf8(read_body(res).await.to_vec()).unwrap();

    // Requests by matched route and status; unknown paths are "other".
    let place = r#"placer_http_requests_total{route="/place",status="200"}"#;
    assert_eq!(sample(&page, place), Some(2.0), "{page}");
    let other = r#"placer_http_requests_total{route="other",status="404"}"#;
    assert_eq!(sample(&page, other), Some(1.0));

    // Placed maps by locality equal the answers' stats (twice the same answer).
    let stats = &answer["stats"];
    for (label, field) in [
        ("node_local", "node_local"),
        ("rack_local", "rack_local"),
        ("remote", "remote"),
        ("none", "no_preference"),
    ] {
        let series = format!(r#"placer_tasks_placed_total{{kind="map",locality="{label}"}}"#);
        let want = 2.0 * stats[field].as_f64().unwrap();
        assert_eq!(sample(&page, &series).unwrap_or(0.0), want, "{series}");
    }
    let placed: f64 = page
        .lines()
        .filter(|l| l.starts_with("placer_tasks_placed_total{"))
        .map(|l| l.rsplit_once(' ').unwrap().1.parse::<f64>().unwrap())
        .sum();
    assert_eq!(placed, 2.0 * stats["assigned"].as_f64().unwrap());

    // One solve-time observation per answer, under the snapshot's algorithm and engine.
    let count = r#"placer_solve_seconds_count{algorithm="lsap",engine="auto"}"#;
    assert_eq!(sample(&page, count), Some(2.0));
    let inf = r#"placer_solve_seconds_bucket{algorithm="lsap",engine="auto",le="+Inf"}"#;
    assert_eq!(sample(&page, inf), Some(2.0));
    assert_eq!(sample(&page, "placer_snapshot_bytes_count"), Some(2.0));
    assert_eq!(sample(&page, "placer_snapshot_bytes_sum"), Some(2.0 * body.len() as f64));

    // The last answer's pools.
    let pools = answer["pools"].as_array().unwrap();
    assert!(!pools.is_empty());
    assert_eq!(sample(&page, "placer_last_answer_pools"), Some(pools.len() as f64));
    for p in pools {
        let id = p["id"].as_str().unwrap();
        for kind in ["map", "reduce"] {
            let labels = format!(r#"{{pool="{id}",kind="{kind}"}}"#);
            let running = sample(&page, &format!("placer_pool_running{labels}"));
            assert_eq!(running, p["running"][kind].as_f64(), "{id} {kind}");
            let demand = sample(&page, &format!("placer_pool_demand{labels}"));
            assert_eq!(demand, p["demand"][kind].as_f64());
            let share = sample(&page, &format!("placer_pool_fair_share{labels}"));
            assert_eq!(share, p["fair_share"][kind].as_f64());
        }
    }
    assert_eq!(sample(&page, "placer_solves_in_flight"), Some(0.0));
    assert_eq!(sample(&page, "placer_panics_total"), Some(0.0));
    assert_eq!(sample(&page, "placer_overloaded_total"), Some(0.0));

    // 503s and panics are counted.
    let refusing = ServerConfig { max_in_flight: 0, ..ServerConfig::default() };
    let svc = init_service(app(AppState::new(&refusing))).await;
    let req = TestRequest::post().uri("/place").set_payload(body.clone()).to_request();
    assert_eq!(call_service(&svc, req).await.status(), 503);
    let svc = init_service(app(AppState::with_solver(&ServerConfig::default(), panicking))).await;
    let req = TestRequest::post().uri("/place").set_payload(body.clone()).to_request();
    assert_eq!(call_service(&svc, req).await.status(), 500);
    let page = metrics::render();
    assert_eq!(sample(&page, "placer_overloaded_total"), Some(1.0));
    assert_eq!(sample(&page, "placer_panics_total"), Some(1.0));
    let refused = r#"placer_http_requests_total{route="/place",status="503"}"#;
    assert_eq!(sample(&page, refused), Some(1.0));

    // Config reloads: one good, one rejected; the generation counts applied configs.
    let file = std::env::temp_dir().join(format!("placer-metrics-{}.toml", std::process::id()));
    std::fs::write(&file, "body_limit = 1000\n").unwrap();
    let live = LiveConfig::new(ServerConfig::default());
    let mut reloader = Reloader::new(file.clone(), CommandLine::default(), live.clone());
    assert_eq!(sample(&metrics::render(), "placer_config_generation"), Some(1.0));
    reloader.reload_once();
    std::fs::write(&file, "body_limit = 0\n").unwrap();
    reloader.reload_once();
    let _ = std::fs::remove_file(&file);
    assert_eq!(live.get().body_limit_bytes, 1000);
    let page = metrics::render();
    assert_eq!(sample(&page, r#"placer_config_reloads_total{result="ok"}"#), Some(1.0));
    assert_eq!(sample(&page, r#"placer_config_reloads_total{result="error"}"#), Some(1.0));
    assert_eq!(sample(&page, "placer_config_generation"), Some(2.0));
    assert!(sample(&page, "placer_config_last_reload_timestamp_seconds").is_some_and(|t| t > 0.0));

    // Sessions: the gauges follow the store (0 before, 1 and its bytes while held, 0 after).
    let page = metrics::render();
    assert_eq!(sample(&page, "placer_sessions"), Some(0.0));
    let svc = init_service(app(AppState::new(&ServerConfig::default()))).await;
    let req = TestRequest::post().uri("/v1/sessions").set_payload(body.clone()).to_request();
    let res = call_service(&svc, req).await;
    assert_eq!(res.status(), 201);
    let created: Value = serde_json::from_slice(&read_body(res).await).unwrap();
    let page = metrics::render();
    assert_eq!(sample(&page, "placer_sessions"), Some(1.0));
    let bytes = sample(&page, "placer_session_bytes").unwrap();
    assert!(bytes > body.len() as f64, "{bytes}");
    let id = created["session"].as_str().unwrap();
    // Two empty deltas: the first validates in full (no state yet), the second by difference.
    for epoch in 0..2 {
        let req = TestRequest::post()
            .uri(&format!("/v1/sessions/{id}/place"))
            .set_payload(format!(r#"{{"base_epoch": {epoch}}}"#))
            .to_request();
        assert_eq!(call_service(&svc, req).await.status(), 200);
    }
    let page = metrics::render();
    let deltas =
        |v: &str| sample(&page, &format!(r#"placer_session_deltas_total{{validation="{v}"}}"#));
    assert_eq!((deltas("full"), deltas("by_difference")), (Some(1.0), Some(1.0)));
    let req = TestRequest::delete().uri(&format!("/v1/sessions/{id}")).to_request();
    assert_eq!(call_service(&svc, req).await.status(), 204);
    let page = metrics::render();
    assert_eq!(sample(&page, "placer_sessions"), Some(0.0));
    assert_eq!(sample(&page, "placer_session_bytes"), Some(0.0));
}
