//! The HTTP surface (docs/wire-schema.md; docs/operations/serving.md): `POST /place`,
//! `GET /healthz`, `GET /readyz`, the dashboard's routes ([`crate::dashboard`]), and JSON
//! 404/405 answers for everything else. Handlers stay
//! thin: limits and I/O here, the work in [`crate::pipeline`] on the blocking pool.

use crate::admission::MemoryModel;
use crate::deadline::Deadline;
use crate::error::ServerError;
use crate::expect::check_room;
use crate::intake::{admit, CancelOnDrop};
use crate::logging::SolveLog;
use crate::query::PlaceQuery;
use crate::request_id::RequestId;
use crate::state::AppState;
use crate::{metrics, pipeline};
use actix_web::http::header::ContentType;
use actix_web::{web, HttpMessage, HttpRequest, HttpResponse, Route};
use placer_solver::PlaceOptions;

/// Registers the routes, the shared state and the JSON 404 on `cfg`.
pub(crate) fn register(cfg: &mut web::ServiceConfig, state: AppState) {
    cfg.app_data(web::Data::new(state))
        .service(
            web::resource("/place")
                .route(web::post().to(place))
                .default_service(method_not_allowed("POST")),
        )
        .service(
            web::resource("/healthz")
                .route(web::get().to(healthz))
                .default_service(method_not_allowed("GET")),
        )
        .service(
            web::resource("/readyz")
                .route(web::get().to(readyz))
                .default_service(method_not_allowed("GET")),
        )
        .service(
            web::resource("/metrics")
                .route(web::get().to(metrics_page))
                .default_service(method_not_allowed("GET")),
        )
        .configure(crate::dashboard::register)
        .configure(crate::sessions::register)
        .configure(crate::k8s::register)
        .configure(crate::openapi::register)
        .default_service(web::to(not_found));
}

/// `POST /place`: one epoch. Any Content-Type is accepted (`curl -d` sends a form type).
/// Order: the intake ([`crate::intake::admit`]: head checks, the body within the body timeout
/// and the memory budget, a permit) → solve on the blocking pool under the request's deadline.
/// A dropped handler cancels the solve, which then ends at its next poll ([`CancelOnDrop`]).
async fn place(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ServerError> {
    let config = state.config.get();
    let log = req.extensions().get::<SolveLog>().cloned().unwrap_or_default();
    let request_id = req.extensions().get::<RequestId>().map(|id| id.as_str().to_owned());
    let recording = state.recording(log, request_id.unwrap_or_default());
    let query = PlaceQuery::parse(req.query_string())?;
    let admitted = admit(&req, payload.into_inner(), &state, &config, MemoryModel::Solve).await?;
    let deadline = Deadline::new(query.deadline_ms, config.deadline_ms, admitted.body_read_at)
        .reserving_for(admitted.bytes.len());
    let gone = CancelOnDrop::new(deadline.cancel());
    // The service is stateless: no warm start across requests.
    let opts = PlaceOptions { explain: query.explain, cancel: Some(deadline.cancel()), warm: None };
    let solve = state.solve;
    // The permit and the hold move into the closure: they stay taken until the solve really
    // ends, even if the client disconnects and this future is dropped.
    let body = web::block(move || {
        let crate::intake::Admitted { bytes, hold, permit, .. } = admitted;
        let _held = (hold, permit);
        let allocations = config.fair_allocations.as_ref().map(|a| &*a.0);
        let defaults = config.policy_defaults.as_ref();
        pipeline::answer(bytes, &opts, solve, &deadline, defaults, allocations, &recording)
    })
    .await
    .map_err(|e| ServerError::Internal { message: format!("solver thread failed: {e}") })??;
    gone.disarm();
    Ok(HttpResponse::Ok().insert_header(ContentType::json()).body(body))
}

/// `GET /healthz`: 200 `{"status":"ok"}` while the process serves (liveness).
async fn healthz() -> HttpResponse {
    HttpResponse::Ok().insert_header(ContentType::json()).body(r#"{"status":"ok"}"#)
}

/// `GET /readyz`: 200 `{"status":"ready"}` while new snapshots would be admitted or queued;
/// 503 `draining` after SIGTERM, 503 `overloaded` while every solve slot is taken and the
/// admission queue is full (a snapshot arriving now would be refused).
async fn readyz(state: web::Data<AppState>) -> Result<HttpResponse, ServerError> {
    let config = state.config.get();
    if state.is_draining() {
        return Err(ServerError::Draining);
    }
    check_room(&state, &config)?;
    Ok(HttpResponse::Ok().insert_header(ContentType::json()).body(r#"{"status":"ready"}"#))
}

/// `GET /metrics`: the Prometheus text page.
async fn metrics_page() -> HttpResponse {
    HttpResponse::Ok().content_type(metrics::CONTENT_TYPE).body(metrics::render())
}

/// Any unknown path: 404 `not_found`.
async fn not_found(req: HttpRequest) -> Result<HttpResponse, ServerError> {
    Err(ServerError::NotFound { method: req.method().to_string(), path: req.path().to_owned() })
}

/// A known path with the wrong method: 405 `method_not_allowed` with `Allow: allowed`.
pub(crate) fn method_not_allowed(allowed: &'static str) -> Route {
    web::to(move |req: HttpRequest| async move {
        Err::<HttpResponse, _>(ServerError::MethodNotAllowed {
            method: req.method().to_string(),
            path: req.path().to_owned(),
            allowed,
        })
    })
}
