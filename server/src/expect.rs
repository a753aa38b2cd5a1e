//! Refusing before the body (issue 16 §1; RFC 9110 §10.1.1 `Expect: 100-continue`): the checks
//! that need only the request head — draining, an unknown `Content-Encoding`, a `Content-Length`
//! over the body limit or whose solve estimate exceeds the memory budget, and (for `Expect`
//! only) a closed or full admission queue. The `/place` handler runs them first; the HTTP layer
//! runs them on a request carrying `Expect: 100-continue` before it would send `100 Continue`,
//! so a client never uploads a body that is going to be refused.

use crate::admission::estimate_solve_bytes;
use crate::body::{self, Encoding};
use crate::config::ServerConfig;
use crate::error::ServerError;
use crate::state::{limits, AppState};
use actix_http::{HttpMessage, Request};
use actix_web::http::header::HeaderMap;
use actix_web::http::Method;
use std::future::{ready, Ready};

/// The head-only checks of a `POST /place`; Ok returns the body's encoding.
///
/// # Errors
/// `Draining` (503), `UnsupportedEncoding` (415), `PayloadTooLarge` or `OverMemoryBudget` (413).
pub(crate) fn check_head(
    state: &AppState,
    config: &ServerConfig,
    headers: &HeaderMap,
) -> Result<Encoding, ServerError> {
    if state.is_draining() {
        return Err(ServerError::Draining);
    }
    let encoding = body::encoding(headers)?;
    body::check_content_length(headers, config.body_limit_bytes)?;
    // A gzip body's length says little about its decoded size: checked after decoding.
    if let (Encoding::Identity, Some(len)) = (encoding, body::declared_length(headers)) {
        let estimate = estimate_solve_bytes(usize::try_from(len).unwrap_or(usize::MAX));
        if estimate > config.max_memory_bytes {
            return Err(ServerError::OverMemoryBudget {
                estimate,
                budget: config.max_memory_bytes,
            });
        }
    }
    Ok(encoding)
}

/// The `Expect: 100-continue` decision for `req`: the head checks of `/place`, plus refusing
/// when admission is closed (`max_in_flight` 0) or its queue is full. Other routes pass.
///
/// # Errors
/// The [`ServerError`] the request would get anyway.
pub(crate) fn check_expect(state: &AppState, req: &Request) -> Result<(), ServerError> {
    if req.path() != "/place" || req.method() != Method::POST {
        return Ok(());
    }
    let config = state.config.get();
    check_head(state, &config, req.headers())?;
    check_room(state, &config)
}

/// Refuses when a request arriving now would find no solve slot and no room in the queue.
///
/// # Errors
/// `Overloaded` (503).
pub(crate) fn check_room(state: &AppState, config: &ServerConfig) -> Result<(), ServerError> {
    if config.max_in_flight == 0 {
        return Err(ServerError::Overloaded { reason: "admission is closed".to_owned() });
    }
    if state.admission.would_refuse(&limits(config)) {
        return Err(ServerError::Overloaded {
            reason: format!("the admission queue is full ({} waiting)", config.queue_len),
        });
    }
    Ok(())
}

/// The expect service of the HTTP layer: the request goes on (and `100 Continue` is sent) or
/// the error is the response.
pub(crate) fn service(
    state: AppState,
) -> impl Fn(Request) -> Ready<Result<Request, actix_web::Error>> + Clone {
    move |req| ready(check_expect(&state, &req).map(|()| req).map_err(actix_web::Error::from))
}
