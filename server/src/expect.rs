//! Refusing before the body (RFC 9110 §10.1.1 `Expect: 100-continue`; docs/operations/
//! serving.md, "Admission and limits"): the
//! checks that need only the request head — an unknown `Content-Encoding`, a `Content-Length`
//! over the body limit or whose route estimate exceeds the memory budget, and (for `Expect`
//! only) a draining server or a closed or full admission queue. Every route that takes a body
//! runs them first ([`crate::intake`]); the HTTP layer runs them on a request carrying `Expect:
//! 100-continue` before it would send `100 Continue`, so a client never uploads a body that is
//! going to be refused.

use crate::admission::MemoryModel;
use crate::body::{self, Encoding};
use crate::config::ServerConfig;
use crate::error::ServerError;
use crate::state::{limits, AppState};
use actix_http::{HttpMessage, Request};
use actix_web::http::header::HeaderMap;
use actix_web::http::Method;
use std::future::{ready, Ready};

/// The head-only checks of a request whose route's memory model is `model`; Ok returns the
/// body's encoding.
///
/// A draining server still serves requests that reach it on open connections (they were sent
/// before the client could know); it closes each connection after its response.
///
/// # Errors
/// `UnsupportedEncoding` (415), `PayloadTooLarge` or `OverMemoryBudget` (413).
pub(crate) fn check_head(
    config: &ServerConfig,
    headers: &HeaderMap,
    model: MemoryModel,
) -> Result<Encoding, ServerError> {
    let encoding = body::encoding(headers)?;
    body::check_content_length(headers, config.body_limit_bytes)?;
    // A gzip body's length says little about its decoded size: checked after decoding.
    if let (Encoding::Identity, Some(len)) = (encoding, body::declared_length(headers)) {
        let estimate = model.estimate(usize::try_from(len).unwrap_or(usize::MAX));
        if estimate > config.max_memory_bytes {
            return Err(ServerError::OverMemoryBudget {
                estimate,
                per_body_byte: model.per_body_byte(),
                budget: config.max_memory_bytes,
            });
        }
    }
    Ok(encoding)
}

/// The `Expect: 100-continue` decision for `req`: the head checks of a route that takes a body
/// (`/place`, the extender verbs), plus refusing while draining (the body is not sent yet:
/// better sent to another instance) and when admission is closed (`max_in_flight` 0) or its
/// queue is full. Other routes pass.
///
/// # Errors
/// The [`ServerError`] the request would get anyway.
pub(crate) fn check_expect(state: &AppState, req: &Request) -> Result<(), ServerError> {
    let model = match crate::intake::post_model(req.path()) {
        Some(model) if req.method() == Method::POST => model,
        _ => return Ok(()),
    };
    if state.is_draining() {
        return Err(ServerError::Draining);
    }
    let config = state.config.get();
    check_head(&config, req.headers(), model)?;
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
/// the error is the response. The bearer token is checked first, on every route
/// ([`crate::auth`]): an unauthenticated client never uploads its body.
pub(crate) fn service(
    state: AppState,
) -> impl Fn(Request) -> Ready<Result<Request, actix_web::Error>> + Clone {
    move |req| {
        let tokens = state.config.get().auth_tokens.clone();
        let client_cert = req.conn_data::<crate::tls::ClientCert>().is_some();
        let checked = crate::auth::authorize(
            tokens.as_ref(),
            req.method(),
            req.path(),
            req.headers(),
            client_cert,
        )
        .and_then(|()| check_expect(&state, &req));
        ready(checked.map(|()| req).map_err(actix_web::Error::from))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    fn expect_place(content_length: usize) -> Request {
        TestRequest::post()
            .uri("/place")
            .insert_header(("expect", "100-continue"))
            .insert_header(("content-length", content_length.to_string()))
            .to_request()
    }

    #[test]
    fn expect_is_refused_for_what_would_be_refused_anyway() {
        let config = ServerConfig {
            body_limit_bytes: 100,
            max_memory_bytes: 600,
            ..ServerConfig::default()
        };
        let state = AppState::new(&config);
        assert!(check_expect(&state, &expect_place(40)).is_ok());
        assert_eq!(
            check_expect(&state, &expect_place(101)).unwrap_err().code(),
            "payload_too_large"
        );
        assert_eq!(
            check_expect(&state, &expect_place(60)).unwrap_err().code(),
            "over_memory_budget"
        );
        // Other routes are left to the app.
        let other =
            TestRequest::post().uri("/nope").insert_header(("content-length", "999")).to_request();
        assert!(check_expect(&state, &other).is_ok());
        state.start_draining();
        assert_eq!(check_expect(&state, &expect_place(40)).unwrap_err().code(), "draining");
    }

    #[test]
    fn expect_is_refused_when_admission_is_closed() {
        let state = AppState::new(&ServerConfig { max_in_flight: 0, ..ServerConfig::default() });
        assert_eq!(check_expect(&state, &expect_place(40)).unwrap_err().code(), "overloaded");
    }
}
