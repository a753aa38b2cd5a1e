//! placer's HTTP service (DESIGN.md §Wire schema v1, §Errors, §Service endpoints): an
//! actix-web 4 app serving `POST /place`, `GET /healthz` and `GET /metrics`, with JSON errors,
//! a body limit (413), an overload limit (503), request ids and structured logs, and a config
//! file reloaded while running. A library: `placer serve` calls [`run`]; tests mount [`app`]
//! in process.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! placer_server::run(placer_server::ServerConfig::default()).await
//! # }
//! ```

mod app;
mod body;
mod config;
pub mod config_file;
mod error;
mod in_flight;
mod live_config;
pub mod logging;
pub mod metrics;
mod observe;
mod pipeline;
mod policy_defaults;
pub mod reload;
pub mod request_id;
mod routes;
mod state;

pub use app::{app, configure, run, run_reloading};
pub use config::{default_max_in_flight, ServerConfig, DEFAULT_ADDR, DEFAULT_BODY_LIMIT_BYTES};
pub use error::ServerError;
pub use live_config::LiveConfig;
pub use logging::LogFormat;
pub use observe::observe;
pub use state::{AppState, SolveFn};
