//! placer's HTTP service (docs/wire-schema.md, docs/operations/serving.md):
//! an actix-web 4 app serving `POST /place`, `GET /healthz`, `GET /readyz` and `GET /metrics`,
//! with JSON errors (the HTTP layer's own included), a body limit (413), admission by count and
//! memory with a bounded queue (503), gzip bodies, per-request deadlines, request ids and
//! structured logs, a config file reloaded while running, a draining shutdown, and optional TLS,
//! client certificates and bearer tokens ([`tls`], [`auth`]). A library:
//! `placer serve` calls [`run_reloading`]; tests mount [`app`] in process or call [`run_with`].
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! placer_server::run(placer_server::ServerConfig::default()).await
//! # }
//! ```

mod admission;
pub mod allocations;
mod app;
pub mod auth;
mod body;
mod config;
pub mod config_file;
mod dashboard;
mod deadline;
pub mod epoch_record;
pub mod epochs;
mod error;
pub mod event_log;
mod expect;
#[doc(hidden)]
pub mod fuzzing;
mod http_errors;
mod intake;
mod k8s;
mod live_config;
pub mod logging;
pub mod metrics;
mod observe;
mod openapi;
pub mod operator_file;
mod pipeline;
mod policy_defaults;
mod query;
pub mod reload;
pub mod request_id;
mod routes;
mod serve;
mod sessions;
mod state;
pub mod tls;

pub use admission::estimate_solve_bytes;
pub use app::{app, configure};
pub use config::{
    default_max_in_flight, default_max_memory_bytes, ServerConfig, DEFAULT_ADDR,
    DEFAULT_BODY_LIMIT_BYTES, DEFAULT_BODY_TIMEOUT_MS, DEFAULT_HEADER_TIMEOUT_MS,
    DEFAULT_K8S_RACK_LABEL, DEFAULT_QUEUE_LEN, DEFAULT_QUEUE_WAIT_MS, DEFAULT_SESSIONS_MAX,
    DEFAULT_SESSION_IDLE_S, DEFAULT_SHUTDOWN_GRACE_MS, FALLBACK_MAX_MEMORY_BYTES,
};
pub use error::ServerError;
pub use k8s::check_label_key as check_k8s_rack_label;
pub use k8s::{parse_rack_file, RackFile};
pub use live_config::LiveConfig;
pub use logging::LogFormat;
pub use observe::observe;
pub use openapi::{
    document as openapi_document, ErrorCodeDoc, DOCS_PATH, ERROR_CODES, OPENAPI_PATH,
};
pub use serve::{run, run_reloading, run_with};
pub use sessions::SESSIONS_PATH;
pub use state::{AppState, SolveFn};
