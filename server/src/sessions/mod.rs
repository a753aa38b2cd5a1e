//! Sessions on the wire (docs/wire-schema.md, "Sessions"; docs/operations/serving.md,
//! "Sessions"): a cluster master sends its full snapshot once (`POST /v1/sessions`), then only
//! what changed each epoch (`POST /v1/sessions/{id}/place` with `base_epoch` and `changes`),
//! and ends with `DELETE /v1/sessions/{id}`. The server keeps the parsed snapshot, what
//! validates the next delta by difference, and with `?incremental=true` the exact engine's
//! state across epochs ([`store`]); a delta is parsed alone ([`placer_models::parse_delta`]),
//! applied to the kept snapshot in place ([`placer_models::PlaceRequest::apply_changes`]) and
//! answered by the same path as `POST /place` ([`crate::pipeline::answer_request`]), so the
//! answer after a delta is the one `POST /place` gives on the equivalent full snapshot, byte
//! for byte (an incremental session's may place differently where placements tie in cost). A delta whose snapshot does
//! not validate or solve is undone, and the session stays at its epoch. The `POST`s come in
//! through the same intake as `POST /place` ([`crate::intake`]: body limit and timeout, memory
//! budget, admission) and run under the same deadline; the observing middleware counts them by
//! route.

pub(crate) mod openapi;
mod store;

pub(crate) use store::Store;

use crate::admission::MemoryModel;
use crate::deadline::Deadline;
use crate::error::ServerError;
use crate::intake::{admit, Admitted, CancelOnDrop};
use crate::logging::SolveLog;
use crate::pipeline::{self, Context};
use crate::query::PlaceQuery;
use crate::request_id::RequestId;
use crate::routes::method_not_allowed;
use crate::state::AppState;
use actix_web::http::header::ContentType;
use actix_web::web::{self, Bytes};
use actix_web::{HttpMessage, HttpRequest, HttpResponse};
use placer_solver::{PlaceOptions, WarmStart};
use store::{Kept, StoreLimits};

/// Where sessions are created.
pub const SESSIONS_PATH: &str = "/v1/sessions";

/// Whether `path` is a session's delta route, `/v1/sessions/{id}/place`.
pub(crate) fn is_delta_path(path: &str) -> bool {
    path.strip_prefix("/v1/sessions/")
        .and_then(|rest| rest.strip_suffix("/place"))
        .is_some_and(|id| !id.is_empty() && !id.contains('/'))
}

/// Registers the three routes on `cfg` (the shared state is registered by `crate::routes`).
pub(crate) fn register(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource(SESSIONS_PATH)
            .route(web::post().to(create))
            .default_service(method_not_allowed("POST")),
    )
    .service(
        web::resource("/v1/sessions/{session}")
            .route(web::delete().to(delete))
            .default_service(method_not_allowed("DELETE")),
    )
    .service(
        web::resource("/v1/sessions/{session}/place")
            .route(web::post().to(place))
            .default_service(method_not_allowed("POST")),
    );
}

/// `POST /v1/sessions`: answers the full snapshot as `POST /place` does, then keeps it, parsed,
/// as a new session at epoch 0, with the exact engine's state when `?incremental=true`.
/// `201 {"session", "epoch": 0, "answer"}`.
async fn create(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ServerError> {
    let config = state.config.get();
    let limits = StoreLimits::of(&config);
    Store::check_enabled(&limits)?;
    let query = PlaceQuery::parse(req.query_string())?;
    let admitted = admit(&req, payload.into_inner(), &state, &config, MemoryModel::Solve).await?;
    let reserve = admitted.bytes.len();
    let work = |body: Bytes, context: &Context<'_>| {
        let mut request = placer_models::parse_request(&body)?;
        let body_len = body.len();
        drop(body);
        let answer = pipeline::answer_request(&mut request, body_len, context, None)?;
        Ok((request, answer))
    };
    let warm = query.incremental.then(WarmStart::new);
    let (request, answer) =
        solve(&req, &state, admitted, query, reserve, warm.clone(), work).await?;
    let id = state.sessions.insert(Kept::new(request, warm), &state.admission, &limits)?;
    let head = format!(r#"{{"session":"{id}","epoch":0,"answer":"#);
    Ok(HttpResponse::Created().insert_header(ContentType::json()).body(wrap(&head, &answer)))
}

/// `POST /v1/sessions/{id}/place`: applies the delta's changes to the session's snapshot,
/// answers it as `POST /place` does, and only then moves the session to the next epoch; on an
/// error the changes are undone and the session stays where it was. `200 {"epoch", "answer"}`.
async fn place(
    req: HttpRequest,
    payload: web::Payload,
    id: web::Path<String>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ServerError> {
    let config = state.config.get();
    let limits = StoreLimits::of(&config);
    let id = id.into_inner();
    let query = PlaceQuery::parse(req.query_string())?;
    // The epoch is checked when the body is read; the session must exist before the body is
    // admitted (its size sizes the admission).
    let stored = state.sessions.weight(&id, &limits)?;
    let model = MemoryModel::SessionSolve { stored };
    let admitted = admit(&req, payload.into_inner(), &state, &config, model).await?;
    let reserve = admitted.bytes.len().saturating_add(usize::try_from(stored).unwrap_or(0));
    let sessions = state.sessions.clone();
    let session = id.clone();
    let work = move |body: Bytes, context: &Context<'_>| {
        let delta = placer_models::parse_delta(&body)?;
        let base_epoch = delta.base_epoch;
        let (mut kept, _) = sessions.checkout(&session, base_epoch, &limits)?;
        let (bytes_before, added) = (kept.request_bytes, delta.changes.0.heap_bytes());
        let undo = kept.request.apply_changes(delta.changes.0);
        kept.request_bytes = bytes_before.saturating_add(added).saturating_sub(undo.heap_bytes());
        // Validated by difference when the snapshot is solved as sent; an invalid one goes the
        // way of `POST /place`, which gives its error. With policy defaults or allocations the
        // state is forgotten: it must describe the epoch before the delta it next checks.
        let as_sent = context.policy_defaults.is_none() && context.allocations.is_none();
        if !as_sent {
            kept.revalidator.invalidate();
        }
        let checked =
            as_sent.then(|| kept.revalidator.revalidate(&kept.request, Some(&undo)).ok()).flatten();
        let opts = PlaceOptions { warm: kept.warm.clone(), ..context.opts.clone() };
        let context = Context { opts: &opts, ..*context };
        let by_difference = checked.is_some() && kept.revalidator.was_by_difference();
        match pipeline::answer_request(&mut kept.request, body.len(), &context, checked) {
            Ok(answer) => {
                crate::metrics::session_delta(by_difference);
                let epoch = sessions.checkin(&session, base_epoch, kept, true, &limits)?;
                Ok((epoch, answer))
            }
            Err(e) => {
                kept.request.undo(undo);
                kept.revalidator.invalidate();
                kept.request_bytes = bytes_before;
                sessions.checkin(&session, base_epoch, kept, false, &limits)?;
                Err(e)
            }
        }
    };
    let (epoch, answer) = solve(&req, &state, admitted, query, reserve, None, work).await?;
    let head = format!(r#"{{"epoch":{epoch},"answer":"#);
    Ok(HttpResponse::Ok().insert_header(ContentType::json()).body(wrap(&head, &answer)))
}

/// `DELETE /v1/sessions/{id}`: 204, its memory given back; 404 `not_found` if not held.
async fn delete(
    id: web::Path<String>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ServerError> {
    let id = id.into_inner();
    if state.sessions.remove(&id) {
        Ok(HttpResponse::NoContent().finish())
    } else {
        Err(ServerError::SessionNotFound { session: id })
    }
}

/// `head` + `answer` + `}`.
fn wrap(head: &str, answer: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(head.len() + answer.len() + 1);
    out.extend_from_slice(head.as_bytes());
    out.extend_from_slice(answer);
    out.push(b'}');
    out
}

/// Runs `work` on the admitted body with the context of `POST /place` (policy defaults,
/// allocations, the epoch recorded; `warm` as the solve's warm start, which `work` may replace), on the blocking pool
/// under the request's deadline (its serialization reserve for `reserve` bytes); the body's
/// memory and the permit stay taken until the work ends.
async fn solve<T, F>(
    req: &HttpRequest,
    state: &AppState,
    admitted: Admitted,
    query: PlaceQuery,
    reserve: usize,
    warm: Option<WarmStart>,
    work: F,
) -> Result<T, ServerError>
where
    T: Send + 'static,
    F: FnOnce(Bytes, &Context<'_>) -> Result<T, ServerError> + Send + 'static,
{
    let config = state.config.get();
    let log = req.extensions().get::<SolveLog>().cloned().unwrap_or_default();
    let request_id = req.extensions().get::<RequestId>().map(|id| id.as_str().to_owned());
    let recording = state.recording(log, request_id.unwrap_or_default());
    let deadline = Deadline::new(query.deadline_ms, config.deadline_ms, admitted.body_read_at)
        .reserving_for(reserve);
    let gone = CancelOnDrop::new(deadline.cancel());
    let opts = PlaceOptions { explain: query.explain, cancel: Some(deadline.cancel()), warm };
    let solve = state.solve;
    let out = web::block(move || {
        let Admitted { bytes, hold, permit, .. } = admitted;
        let _held = (hold, permit);
        let context = Context {
            opts: &opts,
            solve,
            deadline: &deadline,
            policy_defaults: config.policy_defaults.as_ref(),
            allocations: config.fair_allocations.as_ref().map(|a| &*a.0),
            recording: &recording,
        };
        work(bytes, &context)
    })
    .await
    .map_err(|e| ServerError::Internal { message: format!("solver thread failed: {e}") })??;
    gone.disarm();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delta_paths_are_recognised() {
        assert!(is_delta_path("/v1/sessions/ab/place"));
        assert!(!is_delta_path("/v1/sessions//place"));
        assert!(!is_delta_path("/v1/sessions/a/b/place"));
        assert!(!is_delta_path("/v1/sessions/ab"));
        assert!(!is_delta_path("/place"));
    }
}
