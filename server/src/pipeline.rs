//! The CPU-heavy half of `POST /place` (docs/wire-schema.md; docs/architecture.md, "Style":
//! thin handlers): parse the snapshot → `solver::place` (which validates) → time it into
//! `stats.solve_ms` → record the epoch (the ring behind the dashboard, and the event log) →
//! serialize.
//! Runs on the blocking pool, never on the async executor; a panic becomes `500 internal`
//! instead of taking the worker down.

use crate::deadline::Deadline;
use crate::epoch_record::EpochRecord;
use crate::epochs::Epochs;
use crate::error::ServerError;
use crate::event_log::EventLog;
use crate::logging::SolveLog;
use crate::state::SolveFn;
use crate::{metrics, policy_defaults};
use placer_datasets::FairAllocations;
use placer_solver::PlaceOptions;
use serde_json::{Map, Value};
use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Instant, SystemTime};

/// Where one request's facts go: its log line, and, once answered, the ring of the last epochs
/// and (when configured) the event log, under the request's id.
#[derive(Clone, Debug, Default)]
pub(crate) struct Recording {
    /// The facts for the request's log line.
    pub log: SolveLog,
    /// The ring (`GET /v1/epochs`, the dashboard).
    pub epochs: Epochs,
    /// The event log (`--event-log`), if any.
    pub event_log: Option<EventLog>,
    /// The request's id (`X-Request-Id`).
    pub request_id: String,
}

/// Answers one snapshot with the response JSON bytes, or the error to send. Takes the body by
/// value and drops it once parsed, so that it does not sit beside the solve's memory. Keys of
/// `policy_defaults` fill the snapshot's omitted `policy` keys ([`policy_defaults::apply`]);
/// then `allocations` fills its undefined pools and users
/// ([`placer_datasets::FairAllocations::fill`]). The deadline timer starts once the snapshot's
/// `policy.deadline_ms` is known. Records the body size, the solve and the answer in
/// [`metrics`] and `recording.log`, and the answered epoch in `recording` ([`record`]). A panic
/// anywhere inside (a bug) is caught, counted and returned as [`ServerError::Internal`].
pub(crate) fn answer(
    bytes: impl AsRef<[u8]>,
    opts: &PlaceOptions,
    solve: SolveFn,
    deadline: &Deadline,
    policy_defaults: Option<&Map<String, Value>>,
    allocations: Option<&FairAllocations>,
    recording: &Recording,
) -> Result<Vec<u8>, ServerError> {
    catch_unwind(AssertUnwindSafe(move || {
        answer_unguarded(bytes, opts, solve, deadline, policy_defaults, allocations, recording)
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
    recording: &Recording,
) -> Result<Vec<u8>, ServerError> {
    let log = &recording.log;
    let body = bytes.as_ref();
    metrics::snapshot_bytes(body.len());
    log.body(body.len());
    let mut request = placer_models::parse_request(body)?;
    if let Some(defaults) = policy_defaults {
        policy_defaults::apply(&mut request, defaults)?;
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
    record(recording, &request, &response);
    serde_json::to_vec(&response)
        .map_err(|e| ServerError::Internal { message: format!("serializing the response: {e}") })
}

/// Digests the answered epoch ([`EpochRecord::digest`]), pushes it into the ring and appends it
/// to the event log. A failed write is counted (`placer_event_log_errors_total`) and logged at
/// `warn`; it never fails the answer. With `--epochs 0` and no event log nothing is digested.
///
/// # Complexity
/// The digest's O(pending + running + |answer|), one `write` for the log line.
pub(crate) fn record(
    recording: &Recording,
    request: &placer_models::PlaceRequest,
    response: &placer_models::PlaceResponse,
) {
    if recording.epochs.capacity() == 0 && recording.event_log.is_none() {
        return;
    }
    let digest = EpochRecord::digest(request, response, &recording.request_id, SystemTime::now());
    let record = recording.epochs.push(digest);
    if let Some(event_log) = &recording.event_log {
        if let Err(e) = event_log.append(&record) {
            metrics::event_log_error();
            tracing::warn!(
                error = %e,
                dir = %event_log.dir().display(),
                seq = record.seq,
                "event log: line not written"
            );
        }
    }
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
            &Recording::default(),
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
            &Recording::default(),
        )
        .unwrap_err();
        assert_eq!(err.code(), "internal");
        assert!(err.to_string().contains("boom"));
    }

    #[test]
    fn an_answer_is_recorded_even_when_the_event_log_fails() {
        let blocked = std::env::temp_dir().join(format!("placer-pipeline-{}", std::process::id()));
        std::fs::write(&blocked, b"a file where the log directory should be").unwrap();
        let recording = Recording {
            log: SolveLog::default(),
            epochs: Epochs::new(4),
            event_log: Some(EventLog::unopened(&blocked.join("log"), 1 << 20, 1)),
            request_id: "abc".to_owned(),
        };
        let body = include_bytes!("../../examples/snapshot.json");
        let answer = answer(
            &body[..],
            &PlaceOptions::default(),
            placer_solver::place,
            &no_deadline(),
            None,
            None,
            &recording,
        );
        assert!(answer.is_ok());
        let kept = recording.epochs.all();
        assert_eq!(kept.len(), 1);
        assert_eq!((kept[0].seq, kept[0].request_id.as_str()), (1, "abc"));
        std::fs::remove_file(&blocked).unwrap();
    }
}
