//! The one error type of `placer-server` (docs/wire-schema.md, "Errors"): every failure of a
//! request becomes `{"error": {"code", "path", "message"}}` with `Content-Type: application/json`
//! and the status the design assigns — 400 malformed/invalid, 401/403 no or insufficient bearer
//! token (docs/operations/configuration.md, "TLS and tokens"), 408 too slow, 413 too large, 415
//! unknown `Content-Encoding`, 422 unsolvable as asked, 503 overloaded or draining (with
//! `Retry-After`), 500 only for a bug. [`error_json`] is the same shape for errors raised below the
//! app.

use actix_web::http::header::{self, ContentType};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use placer_models::ModelError;
use placer_solver::SolveError;
use serde::Serialize;

/// Why a request got no placement.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The body is not a v1 snapshot: malformed JSON or a shape error (400).
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The solver rejected the snapshot: invalid input (400) or not solvable as asked (422).
    #[error(transparent)]
    Solve(#[from] SolveError),
    /// The body exceeds the configured limit (413).
    #[error("request body exceeds the limit of {limit} bytes")]
    PayloadTooLarge {
        /// The configured `body_limit_bytes`.
        limit: usize,
    },
    /// The estimated memory of solving this snapshot alone exceeds `max_memory_bytes` (413):
    /// it could never be admitted, retrying does not help.
    #[error(
        "the request's estimated peak memory ({estimate} bytes: {per_body_byte} × its decoded \
         body, the body included) exceeds the server's memory budget of {budget} bytes"
    )]
    OverMemoryBudget {
        /// The estimate for this request.
        estimate: u64,
        /// The route's measured factor: peak bytes per decoded body byte.
        per_body_byte: u64,
        /// The configured `max_memory_bytes`.
        budget: u64,
    },
    /// The body did not arrive within `body_timeout_ms` (408).
    #[error("the request body did not arrive within {timeout_ms} ms")]
    RequestTimeout {
        /// The configured `body_timeout_ms`.
        timeout_ms: u64,
    },
    /// `Content-Encoding` other than `gzip` or `identity` (415).
    #[error("unsupported Content-Encoding {encoding:?}; supported: gzip, identity")]
    UnsupportedEncoding {
        /// The header's value.
        encoding: String,
    },
    /// The body could not be read from the connection, or its gzip stream is corrupt (400).
    #[error("could not read the request body: {message}")]
    Payload {
        /// The transport's description.
        message: String,
    },
    /// A query parameter is not understood, e.g. `?explain=maybe` (400).
    #[error("invalid query parameter {param}: {message}")]
    InvalidQuery {
        /// The error path: `?explain`, `?deadline_ms`.
        param: &'static str,
        /// What is wrong.
        message: String,
    },
    /// No solve slot within the admission limits (503, `Retry-After: 1`).
    #[error("server overloaded: {reason}; retry later")]
    Overloaded {
        /// Which limit: queue full, wait expired, memory budget in use, or admission closed.
        reason: String,
    },
    /// A scheduler-extender call passed the server's `deadline_ms` before its answer was ready
    /// (503, `Retry-After: 1`).
    #[error(
        "the call passed the server's deadline of {deadline_ms} ms before its answer was ready"
    )]
    DeadlineExceeded {
        /// The deadline in force, ms (0 when the handler was dropped without one).
        deadline_ms: u64,
    },
    /// The server is shutting down: `/readyz`, and `Expect: 100-continue` requests whose body
    /// is better sent elsewhere (503, `Retry-After: 1`).
    #[error("server is shutting down; retry on another instance")]
    Draining,
    /// No route for this path (404).
    #[error("no route for {method} {path}; routes: POST /place, GET /healthz, GET /readyz, GET /metrics, GET /openapi.json, GET /docs, GET /, GET /v1/epochs, POST /v1/sessions, POST /v1/sessions/ID/place, DELETE /v1/sessions/ID, POST /k8s/v1/filter, POST /k8s/v1/prioritize")]
    NotFound {
        /// The request method.
        method: String,
        /// The request path.
        path: String,
    },
    /// The route exists but not for this method (405, with `Allow`).
    #[error("method {method} not allowed on {path}; allowed: {allowed}")]
    MethodNotAllowed {
        /// The request method.
        method: String,
        /// The request path.
        path: String,
        /// The methods the route accepts, for the `Allow` header.
        allowed: &'static str,
    },
    /// The config file is unreadable or invalid (`placer serve --config`; never an HTTP answer:
    /// the server refuses to start, or a reload keeps the previous config).
    #[error("{file}: {}{message}", config_location(.key.as_ref(), .line.as_ref()))]
    Config {
        /// The file as given.
        file: String,
        /// The offending key as a dotted path (`body_limit`, `policy.alpha`), when known.
        key: Option<String>,
        /// Its 1-based line, when known.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// A scheduler-extender body (`/k8s/v1/...`) that is not JSON (400 `malformed_json`).
    #[error("the scheduler-extender body is not JSON: {message}")]
    ExtenderJson {
        /// The parser's description, with line and column.
        message: String,
    },
    /// Well-formed JSON that is not the `ExtenderArgs` kube-scheduler sends: a wrong type, no
    /// `Pod`, neither `Nodes` nor `NodeNames`, a nameless node, a malformed quantity or
    /// `placer.io/input-bytes` annotation (400 `invalid_field`).
    #[error("invalid ExtenderArgs at {path}: {message}")]
    ExtenderArgs {
        /// Where, with the Go field names: `Pod.spec.containers[0].resources.requests["cpu"]`.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// No usable bearer token on a route that needs one, with `--tokens` (401, with
    /// `WWW-Authenticate: Bearer`; RFC 6750 §3). The token is never part of the message.
    #[error("{}", unauthorized_message(.denial))]
    Unauthorized {
        /// Missing or invalid (malformed or unknown).
        denial: crate::auth::Denial,
    },
    /// A known bearer token without the scope the route needs (403, RFC 6750 §3.1
    /// `insufficient_scope`).
    #[error("the token lacks scope `{scope}`, which {method} {path} needs")]
    Forbidden {
        /// The scope needed: `place` or `read`.
        scope: &'static str,
        /// The request method.
        method: String,
        /// The request path.
        path: String,
    },
    /// A session delta the server cannot apply (409): the session is unknown, expired, evicted
    /// or deleted (`path` `session`), or it is not at the delta's `base_epoch` (`path`
    /// `base_epoch`). The master sends its full snapshot again to `POST /v1/sessions`.
    #[error("{message}")]
    SessionStale {
        /// `session` or `base_epoch`.
        path: &'static str,
        /// What the server holds instead.
        message: String,
    },
    /// `DELETE /v1/sessions/{id}` of a session the server does not hold (404 `not_found`).
    #[error("no session {session:?}: unknown, expired, evicted or already deleted")]
    SessionNotFound {
        /// The id asked for.
        session: String,
    },
    /// A bug: the solver panicked or its thread pool failed (500).
    #[error("internal error (a bug in placer): {message}")]
    Internal {
        /// What failed.
        message: String,
    },
}

impl ServerError {
    /// Machine-readable code (`malformed_json`, `payload_too_large`, `overloaded`, ...).
    pub fn code(&self) -> &'static str {
        match self {
            Self::Model(e) => e.code(),
            Self::Solve(e) => e.code(),
            Self::PayloadTooLarge { .. } => "payload_too_large",
            Self::OverMemoryBudget { .. } => "over_memory_budget",
            Self::RequestTimeout { .. } => "request_timeout",
            Self::UnsupportedEncoding { .. } => "unsupported_encoding",
            Self::Payload { .. } => "payload_error",
            Self::InvalidQuery { .. } => "invalid_query",
            Self::Overloaded { .. } => "overloaded",
            Self::Draining => "draining",
            Self::DeadlineExceeded { .. } => "deadline_exceeded",
            Self::NotFound { .. } => "not_found",
            Self::MethodNotAllowed { .. } => "method_not_allowed",
            Self::Config { .. } => "invalid_config",
            Self::Internal { .. } => "internal",
            Self::ExtenderJson { .. } => "malformed_json",
            Self::ExtenderArgs { .. } => "invalid_field",
            Self::Unauthorized { .. } => "unauthorized",
            Self::Forbidden { .. } => "forbidden",
            Self::SessionStale { .. } => "session_stale",
            Self::SessionNotFound { .. } => "not_found",
        }
    }

    /// JSON path of the offending field; `$` when the whole request is at fault.
    pub fn path(&self) -> &str {
        match self {
            Self::Model(e) => e.path(),
            Self::Solve(e) => e.path(),
            Self::InvalidQuery { param, .. } => param,
            Self::ExtenderArgs { path, .. } => path,
            Self::SessionStale { path, .. } => path,
            Self::SessionNotFound { .. } => "session",
            _ => "$",
        }
    }
}

/// `key `K` (line N): ` for a config problem's message; empty when neither is known.
pub(crate) fn config_location(key: Option<&String>, line: Option<&usize>) -> String {
    match (key, line) {
        (Some(k), Some(l)) => format!("key `{k}` (line {l}): "),
        (Some(k), None) => format!("key `{k}`: "),
        (None, Some(l)) => format!("line {l}: "),
        (None, None) => String::new(),
    }
}

/// The message of a 401: what to send, never what was sent.
fn unauthorized_message(denial: &crate::auth::Denial) -> &'static str {
    match denial {
        crate::auth::Denial::Missing => {
            "this route needs a bearer token: send `Authorization: Bearer TOKEN` with a token \
             of the server's token file"
        }
        _ => "the bearer token is malformed or not one of the server's tokens",
    }
}

/// The wire form of an error: `{"error": {...}}`.
#[derive(Serialize)]
struct ErrorBody<'a> {
    error: ErrorDetail<'a>,
}

#[derive(Serialize)]
struct ErrorDetail<'a> {
    code: &'a str,
    path: &'a str,
    message: String,
}

/// The JSON error body `{"error":{"code","path","message"}}` as bytes.
pub(crate) fn error_json(code: &str, path: &str, message: String) -> Vec<u8> {
    let body = ErrorBody { error: ErrorDetail { code, path, message } };
    // Serializing three strings cannot fail; keep a valid JSON body even if it did.
    serde_json::to_vec(&body).unwrap_or_else(|_| {
        br#"{"error":{"code":"internal","path":"$","message":"error serialization failed"}}"#
            .to_vec()
    })
}

impl ResponseError for ServerError {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::Model(_)
            | Self::Payload { .. }
            | Self::InvalidQuery { .. }
            | Self::ExtenderJson { .. }
            | Self::ExtenderArgs { .. } => StatusCode::BAD_REQUEST,
            Self::Solve(e) if e.is_invalid_input() => StatusCode::BAD_REQUEST,
            Self::Solve(_) => StatusCode::UNPROCESSABLE_ENTITY,
            Self::PayloadTooLarge { .. } | Self::OverMemoryBudget { .. } => {
                StatusCode::PAYLOAD_TOO_LARGE
            }
            Self::RequestTimeout { .. } => StatusCode::REQUEST_TIMEOUT,
            Self::UnsupportedEncoding { .. } => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::Overloaded { .. } | Self::Draining | Self::DeadlineExceeded { .. } => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            Self::NotFound { .. } | Self::SessionNotFound { .. } => StatusCode::NOT_FOUND,
            Self::SessionStale { .. } => StatusCode::CONFLICT,
            Self::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            Self::Unauthorized { .. } => StatusCode::UNAUTHORIZED,
            Self::Forbidden { .. } => StatusCode::FORBIDDEN,
            Self::Config { .. } | Self::Internal { .. } => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let bytes = error_json(self.code(), self.path(), self.to_string());
        let mut response = HttpResponse::build(self.status_code());
        response.insert_header(ContentType::json());
        match self {
            Self::Overloaded { .. } | Self::Draining | Self::DeadlineExceeded { .. } => {
                response.insert_header((header::RETRY_AFTER, "1"));
            }
            Self::MethodNotAllowed { allowed, .. } => {
                response.insert_header((header::ALLOW, *allowed));
            }
            // RFC 6750 §3: the challenge, with the error code once a token was sent.
            Self::Unauthorized { denial: crate::auth::Denial::Missing } => {
                response.insert_header((header::WWW_AUTHENTICATE, "Bearer realm=\"placer\""));
            }
            Self::Unauthorized { .. } => {
                let challenge = "Bearer realm=\"placer\", error=\"invalid_token\"";
                response.insert_header((header::WWW_AUTHENTICATE, challenge));
            }
            Self::Forbidden { scope, .. } => {
                let challenge = format!(
                    "Bearer realm=\"placer\", error=\"insufficient_scope\", scope=\"{scope}\""
                );
                response.insert_header((header::WWW_AUTHENTICATE, challenge));
            }
            _ => {}
        }
        response.body(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solve_errors_split_between_400_and_422() {
        let unsupported = ServerError::Solve(SolveError::UnsupportedAlgorithm {
            path: "policy.algorithm".to_owned(),
            algorithm: "ras",
            available: "lsap".to_owned(),
        });
        assert_eq!(unsupported.status_code(), StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(unsupported.code(), "unsupported_algorithm");
        assert_eq!(unsupported.path(), "policy.algorithm");

        let invalid = ServerError::Solve(SolveError::Invalid(ModelError::EmptyId {
            path: "jobs[0].id".to_owned(),
        }));
        assert_eq!(invalid.status_code(), StatusCode::BAD_REQUEST);
        assert_eq!(invalid.code(), "empty_id");
        assert_eq!(invalid.path(), "jobs[0].id");
    }

    /// The message quotes the factor the estimate really uses (it once said 8 × while the
    /// estimate used 12 ×).
    #[test]
    fn the_over_budget_message_quotes_the_estimates_factor() {
        let factor = placer_solver::PEAK_BYTES_PER_BODY_BYTE as u64;
        let body = 1000;
        let estimate = crate::admission::estimate_solve_bytes(body as usize);
        let e = ServerError::OverMemoryBudget { estimate, per_body_byte: factor, budget: 1 };
        assert_eq!(estimate, factor * body);
        assert!(e.to_string().contains(&format!("{estimate} bytes: {factor} × its decoded body")));
    }

    #[test]
    fn overloaded_carries_retry_after() {
        let response = ServerError::Overloaded { reason: "the admission queue is full".to_owned() }
            .error_response();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        let retry = response.headers().get(header::RETRY_AFTER).map(|v| v.as_bytes());
        assert_eq!(retry, Some(&b"1"[..]));
        let ct = response.headers().get(header::CONTENT_TYPE).map(|v| v.as_bytes());
        assert_eq!(ct, Some(&b"application/json"[..]));
    }
}
