//! Per-request observation (docs/operations/observability.md, "Metrics" and "Logs"): one
//! middleware around the whole app that gives each request an id (echoed as `X-Request-Id` on every
//! response, errors included), counts it in `placer_http_requests_total` by matched route and
//! status, and writes one log event with what the pipeline learnt about the solve.

use crate::error::ServerError;
use crate::logging::SolveLog;
use crate::metrics;
use crate::request_id::{self, RequestId};
use actix_web::body::{BodySize, BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage};
use std::time::Instant;

/// The `route` label and log field of requests that matched no route.
pub const OTHER_ROUTE: &str = "other";

/// The middleware, for `App::wrap(actix_web::middleware::from_fn(observe))`. Puts the
/// [`RequestId`] and a fresh [`SolveLog`] in the request's extensions for handlers to use.
///
/// # Errors
/// None of its own; an error of the inner service (not a handler's: those are responses by
/// then) is counted, logged and passed on.
pub async fn observe(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let started = Instant::now();
    let id = RequestId::from_header(req.headers().get(request_id::HEADER));
    let log = SolveLog::default();
    req.extensions_mut().insert(id.clone());
    req.extensions_mut().insert(log.clone());
    let method = req.method().clone();
    let path = req.path().to_owned();
    let mut res = match next.call(req).await {
        Ok(res) => res.map_into_boxed_body(),
        Err(e) => {
            // Only a middleware inside this one fails this way (handlers' errors arrive as
            // responses); the request is gone, so the dispatcher answers without the id.
            let status = e.as_response_error().status_code().as_u16();
            metrics::request(OTHER_ROUTE, status);
            let (request_id, method) = (id.as_str(), method.as_str());
            tracing::error!(request_id, method, path, status, error = %e, "request");
            return Err(e);
        }
    };
    res.headers_mut().insert(request_id::HEADER, id.header_value());

    let route = res.request().match_pattern().unwrap_or_else(|| OTHER_ROUTE.to_owned());
    let status = res.status().as_u16();
    metrics::request(&route, status);

    let facts = log.facts();
    let resp_bytes = match res.response().body().size() {
        BodySize::Sized(n) => Some(n),
        BodySize::None => Some(0),
        BodySize::Stream => None,
    };
    let error = res.response().error().map(|e| match e.as_error::<ServerError>() {
        Some(server) => server.code().to_owned(),
        None => e.to_string(),
    });
    let duration_ms = started.elapsed().as_secs_f64() * 1e3;
    macro_rules! event {
        ($level:ident) => {
            tracing::$level!(
                request_id = id.as_str(),
                method = method.as_str(),
                route = route.as_str(),
                path = path.as_str(),
                status,
                duration_ms,
                req_bytes = facts.snapshot_bytes,
                resp_bytes,
                algorithm = facts.algorithm,
                engine = facts.engine,
                nodes = facts.nodes,
                pending = facts.pending,
                free_slots = facts.free_slots,
                assigned = facts.assigned,
                solve_ms = facts.solve_ms,
                outcome = facts.outcome,
                error = error.as_deref(),
                "request"
            )
        };
    }
    if status >= 500 {
        event!(error);
    } else {
        event!(info);
    }
    Ok(res)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::logging::{subscriber, Capture, LogFormat};
    use crate::{app, AppState, ServerConfig};
    use actix_web::test::{call_service, init_service, read_body, TestRequest};

    #[actix_web::test]
    async fn every_response_carries_a_request_id_and_one_json_log_line() {
        let out = Capture::default();
        let _guard =
            tracing::subscriber::set_default(subscriber(LogFormat::Json, "info", out.clone()));
        let svc = init_service(app(AppState::new(&ServerConfig::default()))).await;

        // An incoming valid id is echoed, also on a 404.
        let req = TestRequest::get()
            .uri("/nowhere")
            .insert_header(("X-Request-Id", "abc-1"))
            .to_request();
        let res = call_service(&svc, req).await;
        assert_eq!(res.status(), 404);
        assert_eq!(res.headers().get("x-request-id").unwrap(), "abc-1");

        // An invalid one is replaced; a 400 carries the new id.
        let req = TestRequest::post()
            .uri("/place")
            .insert_header(("X-Request-Id", "bad id!"))
            .set_payload("{")
            .to_request();
        let res = call_service(&svc, req).await;
        assert_eq!(res.status(), 400);
        let fresh = res.headers().get("x-request-id").unwrap().to_str().unwrap().to_owned();
        assert_eq!(fresh.len(), 32);

        // A solved snapshot logs its algorithm, sizes and outcome.
        let body = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/snapshot.json"))
            .unwrap();
        let req = TestRequest::post().uri("/place").set_payload(body.clone()).to_request();
        let res = call_service(&svc, req).await;
        assert_eq!(res.status(), 200);
        assert!(res.headers().contains_key("x-request-id"));
        let answer: serde_json::Value = serde_json::from_slice(&read_body(res).await).unwrap();

        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .filter(|v: &serde_json::Value| v["message"] == "request")
            .collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert_eq!(lines[0]["request_id"], "abc-1");
        assert_eq!(lines[0]["route"], OTHER_ROUTE);
        assert_eq!(lines[0]["status"], 404);
        assert_eq!(lines[0]["error"], "not_found");
        assert_eq!(lines[1]["request_id"], fresh.as_str());
        assert_eq!(lines[1]["error"], "malformed_json");
        let solved = &lines[2];
        assert_eq!(solved["route"], "/place");
        assert_eq!(solved["method"], "POST");
        assert_eq!(solved["status"], 200);
        assert_eq!(solved["req_bytes"], body.len());
        assert_eq!(solved["algorithm"], "lsap");
        assert_eq!(solved["pending"], answer["stats"]["pending"]);
        assert_eq!(solved["free_slots"], answer["stats"]["free_slots"]);
        assert_eq!(solved["outcome"], answer["stats"]["status"]);
        assert!(solved["solve_ms"].as_f64().is_some());
    }
}
