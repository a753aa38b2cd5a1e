//! The sessions' part of the OpenAPI document (OpenAPI 3.1; docs/wire-schema.md, "Sessions"):
//! the three operations and their bodies, nested under `/v1/sessions` by `crate::openapi`.
//! Documentation only: [`super::delta`] reads the delta and [`super`] writes the answers.
#![allow(dead_code)] // the structs and functions only carry the schema and path attributes

use crate::openapi::ErrorResponse;
use placer_models::{
    Job, Network, Node, PendingTask, PlaceRequest, PlaceResponse, Policy, Pool, Rack, RunningTask,
    User,
};
use utoipa::{OpenApi, ToSchema};

/// A new session: its id, epoch 0, and the answer to its snapshot.
#[derive(ToSchema)]
pub(crate) struct SessionCreated {
    /// The session's id: 32 hex digits (128 random bits), opaque.
    session: String,
    /// Always 0: the epoch the first delta names as `base_epoch`.
    epoch: u64,
    /// The answer `POST /place` gives on the snapshot, byte for byte but `stats.solve_ms`.
    answer: PlaceResponse,
}

/// The answer after a delta.
#[derive(ToSchema)]
pub(crate) struct SessionAnswer {
    /// The session's new epoch, `base_epoch` + 1: the next delta's `base_epoch`.
    epoch: u64,
    /// The answer `POST /place` gives on the equivalent full snapshot, byte for byte but
    /// `stats.solve_ms`. Its placements are not applied to the session: the master reports
    /// them (as running tasks, removed pending ones) in its next delta.
    answer: PlaceResponse,
}

/// What changed since the session's epoch `base_epoch`. Unknown keys are refused (400
/// `invalid_field`).
#[derive(ToSchema)]
#[schema(as = SessionDelta)]
pub(crate) struct SessionDeltaDoc {
    /// The session's current epoch (from its creation or its last delta); another value is a
    /// 409 `session_stale`.
    base_epoch: u64,
    /// The changes, all optional; none re-solves the same snapshot.
    changes: Option<Changes>,
}

/// The changes, applied in this order: `remove`, then `upsert`, then `now_s`, `policy` and
/// `network`.
#[derive(ToSchema)]
#[schema(as = SessionChanges)]
pub(crate) struct Changes {
    /// The snapshot's new `now_s`.
    now_s: Option<f64>,
    /// The snapshot's new `policy`, replacing the whole object (omitted keys take their
    /// defaults, as in a full snapshot).
    policy: Option<Policy>,
    /// The snapshot's new `cluster.network`, replacing the whole object.
    network: Option<Network>,
    /// Full v1 objects by kind: an id the snapshot holds is replaced in place, a new id is
    /// appended after the others.
    upsert: Option<Upsert>,
    /// Ids by kind, removed from the snapshot; an id it does not hold is ignored.
    remove: Option<Remove>,
}

/// Full v1 objects by kind, each with its `id`.
#[derive(ToSchema)]
#[schema(as = SessionUpsert)]
pub(crate) struct Upsert {
    /// `cluster.racks[]`.
    racks: Option<Vec<Rack>>,
    /// `cluster.nodes[]`.
    nodes: Option<Vec<Node>>,
    /// `pools[]`.
    pools: Option<Vec<Pool>>,
    /// `users[]`.
    users: Option<Vec<User>>,
    /// `jobs[]`.
    jobs: Option<Vec<Job>>,
    /// `running[]`.
    running: Option<Vec<RunningTask>>,
    /// `pending[]`.
    pending: Option<Vec<PendingTask>>,
}

/// Ids by kind.
#[derive(ToSchema)]
#[schema(as = SessionRemove)]
pub(crate) struct Remove {
    /// Ids of `cluster.racks[]`.
    racks: Option<Vec<String>>,
    /// Ids of `cluster.nodes[]`.
    nodes: Option<Vec<String>>,
    /// Ids of `pools[]`.
    pools: Option<Vec<String>>,
    /// Ids of `users[]`.
    users: Option<Vec<String>>,
    /// Ids of `jobs[]`.
    jobs: Option<Vec<String>>,
    /// Ids of `running[]`.
    running: Option<Vec<String>>,
    /// Ids of `pending[]`.
    pending: Option<Vec<String>>,
}

/// Open a session with a full snapshot.
///
/// The body is a full v1 snapshot, answered exactly as `POST /place` answers it (same limits,
/// admission, deadline, query parameters and errors); the server then keeps it as a session at
/// epoch 0, so that later epochs send only what changed. With `?incremental=true` the session
/// also keeps the exact engine's state (`lsap`, `lsap_fair`) and re-solves each epoch from it:
/// the same cost and placement count as `POST /place`, but where placements tie in cost it may
/// pick another one, and the state takes memory. Sessions are soft state: bounded in
/// number (`--sessions-max`) and bytes (half of `--max-memory`), dropped after
/// `--session-idle-s` unused, the least recently used evicted when full, all lost on restart.
#[utoipa::path(
    post,
    path = "",
    tag = "sessions",
    operation_id = "create_session",
    params(
        ("explain" = Option<bool>, Query, description = "As for `POST /place`."),
        ("deadline_ms" = Option<u64>, Query, description = "As for `POST /place`."),
        ("incremental" = Option<bool>, Query,
         description = "Keep the exact engine's state across epochs (default false)."),
    ),
    request_body(content = PlaceRequest, content_type = "application/json",
                 description = "The full snapshot of the first epoch."),
    responses(
        (status = 201, description = "The session and its first answer.", body = SessionCreated,
         content_type = "application/json"),
        (status = 400, description = "Not a valid v1 snapshot, or a bad query or request.",
         body = ErrorResponse, content_type = "application/json"),
        (status = 408, description = "Headers or body too slow.",
         body = ErrorResponse, content_type = "application/json"),
        (status = 413, description = "The body, decompressed, exceeds `--body-limit`, or its \
                                      estimated memory the whole `--max-memory`.",
         body = ErrorResponse, content_type = "application/json"),
        (status = 415, description = "Unsupported `Content-Encoding`.",
         body = ErrorResponse, content_type = "application/json"),
        (status = 422, description = "A valid snapshot that cannot be solved as asked.",
         body = ErrorResponse, content_type = "application/json"),
        (status = 500, description = "A bug in placer.",
         body = ErrorResponse, content_type = "application/json"),
        (status = 503, description = "Overloaded, shutting down, or sessions disabled \
                                      (`--sessions-max 0`): retry after the `Retry-After` \
                                      seconds.",
         body = ErrorResponse, content_type = "application/json",
         headers(("Retry-After" = u32, description = "Seconds to wait before retrying."))),
    )
)]
fn create() {}

/// Place the next epoch of a session from what changed.
///
/// The server applies `changes` to the session's snapshot and answers it as `POST /place`
/// answers the equivalent full snapshot, byte for byte but `stats.solve_ms` (an incremental
/// session, `?incremental=true` at creation, may place differently where placements tie in
/// cost); only a successful answer moves the session to the next epoch. A delta that makes the snapshot invalid gets the error the full
/// snapshot would get (its path in the full snapshot, or in the delta for the delta's own
/// shape) and leaves the session at its epoch.
#[utoipa::path(
    post,
    path = "/{session}/place",
    tag = "sessions",
    operation_id = "session_place",
    params(
        ("session" = String, Path, description = "The id `POST /v1/sessions` returned."),
        ("explain" = Option<bool>, Query, description = "As for `POST /place`."),
        ("deadline_ms" = Option<u64>, Query, description = "As for `POST /place`."),
    ),
    request_body(content = SessionDeltaDoc, content_type = "application/json",
                 description = "The epoch it is relative to and what changed.",
                 example = json!({"base_epoch": 0, "changes": {"now_s": 12.0,
                     "remove": {"pending": ["m1"]},
                     "upsert": {"running": [{"id": "m1", "job": "j1", "kind": "map",
                                             "node": "n1", "started_s": 10.0}]}}})),
    responses(
        (status = 200, description = "The session's next epoch and its answer.",
         body = SessionAnswer, content_type = "application/json"),
        (status = 400, description = "A bad delta, or an edited snapshot that is not valid.",
         body = ErrorResponse, content_type = "application/json"),
        (status = 408, description = "Headers or body too slow.",
         body = ErrorResponse, content_type = "application/json"),
        (status = 409, description = "The session is unknown, expired, evicted or deleted \
                                      (path `session`), or not at `base_epoch` (path \
                                      `base_epoch`): send the full snapshot to \
                                      `POST /v1/sessions`.",
         body = ErrorResponse, content_type = "application/json"),
        (status = 413, description = "The body, decompressed, exceeds `--body-limit`, or the \
                                      estimated memory of the edited snapshot the whole \
                                      `--max-memory`.",
         body = ErrorResponse, content_type = "application/json"),
        (status = 415, description = "Unsupported `Content-Encoding`.",
         body = ErrorResponse, content_type = "application/json"),
        (status = 431, description = "Too many or too large headers.",
         body = ErrorResponse, content_type = "application/json"),
        (status = 422, description = "A valid edited snapshot that cannot be solved as asked.",
         body = ErrorResponse, content_type = "application/json"),
        (status = 500, description = "A bug in placer.",
         body = ErrorResponse, content_type = "application/json"),
        (status = 503, description = "Overloaded or shutting down: retry after the \
                                      `Retry-After` seconds.",
         body = ErrorResponse, content_type = "application/json",
         headers(("Retry-After" = u32, description = "Seconds to wait before retrying."))),
    )
)]
fn session_place() {}

/// End a session and give its memory back.
#[utoipa::path(
    delete,
    path = "/{session}",
    tag = "sessions",
    operation_id = "delete_session",
    params(("session" = String, Path, description = "The id `POST /v1/sessions` returned.")),
    responses(
        (status = 204, description = "Deleted."),
        (status = 404, description = "No such session (unknown, expired, evicted or deleted).",
         body = ErrorResponse, content_type = "application/json"),
    )
)]
fn delete() {}

/// The sessions' operations and schemas, nested under `/v1/sessions`.
#[derive(OpenApi)]
#[openapi(
    paths(create, session_place, delete),
    components(schemas(SessionCreated, SessionAnswer, SessionDeltaDoc, Changes, Upsert, Remove))
)]
pub(crate) struct SessionsApi;
