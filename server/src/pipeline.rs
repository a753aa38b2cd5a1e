//! The CPU-heavy half of `POST /place` (DESIGN.md §Wire schema v1; §Style: thin handlers):
//! parse the snapshot → `solver::place` (which validates) → time it into `stats.solve_ms` →
//! serialize. Runs on the blocking pool, never on the async executor; a panic becomes
//! `500 internal` instead of taking the worker down.

use crate::deadline::Deadline;
use crate::error::ServerError;
use crate::logging::SolveLog;
use crate::state::SolveFn;
use crate::{metrics, policy_defaults};
use placer_datasets::FairAllocations;
use placer_solver::PlaceOptions;
use serde_json::{Map, Value};
use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

/// Answers one snapshot with the response JSON bytes, or the error to send. Takes the body by
/// value and drops it once parsed, so that it does not sit beside the solve's memory. Keys of
/// `policy_defaults` fill the snapshot's omitted `policy` keys ([`policy_defaults::apply`]);
/// then `allocations` fills its undefined pools and users
/// ([`placer_datasets::FairAllocations::fill`]). The deadline timer starts once the snapshot's `policy.deadline_ms` is known. Records the
/// body size, the solve and the answer in [`metrics`] and `log`. A panic anywhere inside (a
/// bug) is caught, counted and returned as [`ServerError::Internal`].
pub(crate) fn answer(
    bytes: impl AsRef<[u8]>,
    opts: &PlaceOptions,
    solve: SolveFn,
    deadline: &Deadline,
    policy_defaults: Option<&Map<String, Value>>,
    allocations: Option<&FairAllocations>,
    log: &SolveLog,
) -> Result<Vec<u8>, ServerError> {
    catch_unwind(AssertUnwindSafe(move || {
        answer_unguarded(bytes, opts, solve, deadline, policy_defaults, allocations, log)
    }))
    .unwrap_or_else(|payload| {
        metrics::panic_caught();
        Err(ServerError::Internal { message: format!("panic: {}", panic_message(&*payload)) })
    })
}

fn answer_unguarded(
    bytes: impl AsRef<[u8]>,
    opts: &PlaceOptions,
    solve: SolveFn,
    deadline: &Deadline,
    policy_defaults: Option<&Map<String, Value>>,
    allocations: Option<&FairAllocations>,
    log: &SolveLog,
) -> Result<Vec<u8>, ServerError> {
    let body = bytes.as_ref();
    metrics::snapshot_bytes(body.len());
    log.body(body.len());
    let mut request = placer_models::parse_request(body)?;
    if let Some(defaults) = policy_defaults {
        policy_defaults::apply(body, &mut request, defaults)?;
    }
    if let Some(allocations) = allocations {
        allocations.fill(&mut request);
    }
    // The body is not needed past parsing: give its memory back before the solve.
    drop(bytes);
    let _timer = deadline.arm(request.policy.deadline_ms);
    log.request(&request);
    let started = Instant::now();
    let mut response = solve(&request, opts)?;
    let seconds = started.elapsed().as_secs_f64();
    response.stats.solve_ms = seconds * 1e3;
    metrics::answered(&request.policy, &response, seconds);
    log.response(&response);
    serde_json::to_vec(&response)
        .map_err(|e| ServerError::Internal { message: format!("serializing the response: {e}") })
}

/// The text of a panic payload (`panic!("...")` carries a `&str` or a `String`).
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("non-string panic payload")
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;
    use placer_models::{PlaceRequest, PlaceResponse};
    use placer_solver::SolveError;

    fn panicking(_: &PlaceRequest, _: &PlaceOptions) -> Result<PlaceResponse, SolveError> {
        panic!("boom")
    }

    fn no_deadline() -> Deadline {
        Deadline::new(None, None, std::time::Instant::now())
    }

    #[test]
    fn malformed_json_is_a_model_error() {
        let err = answer(
            b"{",
            &PlaceOptions::default(),
            placer_solver::place,
            &no_deadline(),
            None,
            None,
            &SolveLog::default(),
        )
        .unwrap_err();
        assert_eq!(err.code(), "malformed_json");
    }

    #[test]
    fn a_panicking_solver_becomes_internal() {
        let body = br#"{"schema_version":1,"cluster":{}}"#;
        let err = answer(
            body,
            &PlaceOptions::default(),
            panicking,
            &no_deadline(),
            None,
            None,
            &SolveLog::default(),
        )
        .unwrap_err();
        assert_eq!(err.code(), "internal");
        assert!(err.to_string().contains("boom"));
    }
}
