//! The one way a request that does work gets in (docs/operations/serving.md, "Limits per
//! route"; RFC 9110 §15.6.4 503 with Retry-After): the head checks, the body under the size limit,
//! the body timeout and the memory budget, then a permit weighted by the route's measured memory
//! model. `POST /place`, the sessions' `POST`s, both scheduler-extender verbs and `GET /v1/epochs`
//! come through here, and so must any later route that parses, solves or serializes more than a
//! few bytes.

use crate::admission::{Hold, MemoryModel, Permit};
use crate::body::{read_body, BodyLimits};
use crate::config::ServerConfig;
use crate::error::ServerError;
use crate::expect::check_head;
use crate::state::{limits, AppState};
use actix_web::dev::Payload;
use actix_web::web::Bytes;
use actix_web::HttpRequest;
use placer_solver::Cancel;
use std::time::{Duration, Instant};

/// The extender's memory model (docs/operations/serving.md, "Limits per route", gives the release
/// build's measured peaks it covers): 24 bytes per body byte (a `NodeNames` body of short
/// names, whose candidates each carry a few vectors, a hash entry and a score, peaked at 18.3
/// times its body in `prioritize`), 800 bytes per object (a `serde_json` map is a B-tree node
/// of 11 slots; 500,000 minimal `Node` objects peaked at 45 times their body), 64 bytes per
/// element (a `Value` of 32 bytes in a vector that may have doubled), and 1 MiB.
pub(crate) const EXTENDER_MODEL: MemoryModel =
    MemoryModel::JsonTree { per_body_byte: 24, per_object: 800, per_element: 64, fixed: 1 << 20 };

/// The memory model of a `POST` to `path`, `None` for a path that takes no body.
pub(crate) fn post_model(path: &str) -> Option<MemoryModel> {
    match path {
        "/place" | crate::sessions::SESSIONS_PATH => Some(MemoryModel::Solve),
        // A delta: its body alone here, a lower bound; the handler adds the stored snapshot.
        _ if crate::sessions::is_delta_path(path) => Some(MemoryModel::Solve),
        crate::k8s::FILTER_PATH | crate::k8s::PRIORITIZE_PATH => Some(EXTENDER_MODEL),
        _ => None,
    }
}

/// A request let in: its decoded body and the memory and permit it holds. Keep it (move it
/// into the blocking work) until the answer is serialized; dropping it gives everything back.
#[derive(Debug)]
pub(crate) struct Admitted {
    /// The decoded body.
    pub bytes: Bytes,
    /// When the body was complete: the request's deadline counts from here.
    pub body_read_at: Instant,
    /// The bytes held for the body.
    pub hold: Hold,
    /// The permit for the rest of the route's estimate.
    pub permit: Permit,
}

/// Checks the head, reads the body, and waits for a permit for `model`'s estimate of it.
///
/// # Errors
/// 415/413 from the head, 408/413/400 while reading, 503 `overloaded` (with `Retry-After`)
/// when the budget cannot hold the body or no permit comes in time, 413 `over_memory_budget`
/// when the estimate alone exceeds the budget.
///
/// # Complexity
/// O(body) plus the wait in the admission queue.
pub(crate) async fn admit(
    req: &HttpRequest,
    payload: Payload,
    state: &AppState,
    config: &ServerConfig,
    model: MemoryModel,
) -> Result<Admitted, ServerError> {
    let encoding = check_head(config, req.headers(), model)?;
    let body_limits = BodyLimits {
        limit: config.body_limit_bytes,
        timeout: Duration::from_millis(config.body_timeout_ms),
    };
    let hold = state.admission.hold(config.max_memory_bytes);
    let (bytes, hold) = read_body(req, payload, body_limits, encoding, hold, model).await?;
    let body_read_at = Instant::now();
    let weight = model.weigh(&bytes);
    let permit = state
        .admission
        .acquire_beside(&hold, weight, limits(config))
        .await
        .map_err(|r| r.into_error(model))?;
    Ok(Admitted { bytes, body_read_at, hold, permit })
}

/// A permit for a body-less request holding at most `bytes` (a page of `GET /v1/epochs`).
///
/// # Errors
/// As [`admit`], without the body's.
pub(crate) async fn admit_fixed(
    state: &AppState,
    config: &ServerConfig,
    bytes: u64,
) -> Result<Permit, ServerError> {
    let model = MemoryModel::Fixed(bytes);
    state
        .admission
        .acquire(model.estimate(0), limits(config))
        .await
        .map_err(|r| r.into_error(model))
}

/// Cancels a request's work when its handler is dropped before the answer is ready (actix
/// drops the handler's future when it tears the connection down), so the solve or the
/// extender call stops at its next poll of the token and gives its permit back. A client that
/// only closes its socket is not seen until the answer is written (docs/operations/serving.md,
/// "Admission and limits").
#[derive(Debug)]
pub(crate) struct CancelOnDrop(Option<Cancel>);

impl CancelOnDrop {
    /// Watches `cancel`.
    pub(crate) fn new(cancel: Cancel) -> Self {
        Self(Some(cancel))
    }

    /// The answer is ready: dropping no longer cancels.
    pub(crate) fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(cancel) = self.0.take() {
            cancel.cancel();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_body_route_has_a_model() {
        assert_eq!(post_model("/place"), Some(MemoryModel::Solve));
        assert_eq!(post_model(crate::k8s::FILTER_PATH), Some(EXTENDER_MODEL));
        assert_eq!(post_model(crate::k8s::PRIORITIZE_PATH), Some(EXTENDER_MODEL));
        assert_eq!(post_model("/healthz"), None);
        assert_eq!(post_model("/v1/sessions"), Some(MemoryModel::Solve));
        assert_eq!(post_model("/v1/sessions/ab12/place"), Some(MemoryModel::Solve));
        assert_eq!(post_model("/v1/sessions/ab12"), None);
    }

    #[test]
    fn a_dropped_guard_cancels_a_disarmed_one_does_not() {
        let token = Cancel::new();
        drop(CancelOnDrop::new(token.clone()));
        assert!(token.is_cancelled());
        let token = Cancel::new();
        CancelOnDrop::new(token.clone()).disarm();
        assert!(!token.is_cancelled());
    }
}
