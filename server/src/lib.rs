//! placer's HTTP service (DESIGN.md §Wire schema v1, §Errors): an actix-web 4 app serving
//! `POST /place` and `GET /healthz`, with JSON errors, a body limit (413) and an overload limit
//! (503). A library: `placer serve` calls [`run`]; tests mount [`app`] in process.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! placer_server::run(placer_server::ServerConfig::default()).await
//! # }
//! ```

mod app;
mod body;
mod config;
mod error;
mod in_flight;
mod live_config;
mod openapi;
mod pipeline;
mod routes;
mod state;

pub use app::{app, configure, run};
pub use config::{default_max_in_flight, ServerConfig, DEFAULT_ADDR, DEFAULT_BODY_LIMIT_BYTES};
pub use error::ServerError;
pub use live_config::LiveConfig;
pub use openapi::{
    document as openapi_document, ErrorCodeDoc, DOCS_PATH, ERROR_CODES, OPENAPI_PATH,
};
pub use state::{AppState, SolveFn};
