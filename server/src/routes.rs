//! The HTTP surface (DESIGN.md §Wire schema v1, §Errors): `POST /place`, `GET /healthz`, and
//! JSON 404/405 answers for everything else. Handlers stay thin: limits and I/O here, the work
//! in [`crate::pipeline`] on the blocking pool.

use crate::body::{check_content_length, read_limited};
use crate::error::ServerError;
use crate::pipeline;
use crate::state::AppState;
use actix_web::http::header::ContentType;
use actix_web::{web, HttpRequest, HttpResponse, Route};
use placer_solver::PlaceOptions;
use serde::Deserialize;

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
        .configure(crate::openapi::register)
        .default_service(web::to(not_found));
}

/// Query parameters of `POST /place`.
#[derive(Debug, Default, Deserialize)]
struct PlaceQuery {
    /// `?explain=true`: list waiting tasks one by one.
    #[serde(default)]
    explain: bool,
}

/// `POST /place`: one epoch. Any Content-Type is accepted (`curl -d` sends a form type).
async fn place(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ServerError> {
    let query = web::Query::<PlaceQuery>::from_query(req.query_string())
        .map_err(|e| ServerError::InvalidQuery { message: e.to_string() })?;
    let opts = PlaceOptions { explain: query.explain, ..PlaceOptions::default() };
    let limit = state.body_limit_bytes;
    check_content_length(&req, limit)?;
    let guard = state
        .in_flight
        .try_acquire()
        .ok_or(ServerError::Overloaded { max_in_flight: state.in_flight.max() })?;
    let bytes = read_limited(&req, payload.into_inner(), limit).await?;
    let solve = state.solve;
    // The guard moves into the closure: the slot stays taken until the solve really ends, even
    // if the client disconnects and this future is dropped.
    let body = web::block(move || {
        let _guard = guard;
        pipeline::answer(&bytes, &opts, solve)
    })
    .await
    .map_err(|e| ServerError::Internal { message: format!("solver thread failed: {e}") })??;
    Ok(HttpResponse::Ok().insert_header(ContentType::json()).body(body))
}

/// `GET /healthz`: 200 `{"status":"ok"}` while the process serves.
async fn healthz() -> HttpResponse {
    HttpResponse::Ok().insert_header(ContentType::json()).body(r#"{"status":"ok"}"#)
}

/// Any unknown path: 404 `not_found`.
async fn not_found(req: HttpRequest) -> Result<HttpResponse, ServerError> {
    Err(ServerError::NotFound { method: req.method().to_string(), path: req.path().to_owned() })
}

/// A known path with the wrong method: 405 `method_not_allowed` with `Allow: allowed`.
fn method_not_allowed(allowed: &'static str) -> Route {
    web::to(move |req: HttpRequest| async move {
        Err::<HttpResponse, _>(ServerError::MethodNotAllowed {
            method: req.method().to_string(),
            path: req.path().to_owned(),
            allowed,
        })
    })
}
