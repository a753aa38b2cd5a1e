//! The actix-web app (DESIGN.md §Service endpoints): placer's routes on an app or scope, the
//! whole app for tests, and the server loop `placer serve` runs.

use crate::config_file::CommandLine;
use crate::reload::{self, Reloader};
use crate::{metrics, observe, routes, AppState, ServerConfig};
use actix_web::body::BoxBody;
use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::middleware::from_fn;
use actix_web::{web, App, HttpServer};

/// Registers placer's routes, `state` and the JSON 404 on an actix-web app or scope, e.g.
/// `App::new().configure(|c| configure(c, state))`. Wrap the app in
/// `actix_web::middleware::from_fn(placer_server::observe)` for request ids, request metrics
/// and the request log, as [`app`] does.
pub fn configure(cfg: &mut web::ServiceConfig, state: AppState) {
    routes::register(cfg, state);
}

/// The whole app for `state`, ready for `HttpServer::new` or `actix_web::test::init_service`.
pub fn app(
    state: AppState,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<BoxBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    metrics::install();
    App::new().wrap(from_fn(observe::observe)).configure(|cfg| configure(cfg, state))
}

/// Binds `config.addr` and serves until the process is told to stop (SIGINT/SIGTERM). Prints
/// `placer listening on http://ADDR` to stderr once bound (the actual port if `addr` asked for
/// port 0). Must run inside an actix runtime (`#[actix_web::main]`).
pub async fn run(config: ServerConfig) -> std::io::Result<()> {
    serve(config, None).await
}

/// [`run`], also reloading `config.config_path` (if set) on SIGHUP and when the file changes,
/// over the command line `cli` (whose given flags keep winning).
pub async fn run_reloading(config: ServerConfig, cli: CommandLine) -> std::io::Result<()> {
    serve(config, Some(cli)).await
}

async fn serve(config: ServerConfig, cli: Option<CommandLine>) -> std::io::Result<()> {
    let state = AppState::new(&config);
    if let (Some(path), Some(cli)) = (config.config_path.clone(), cli) {
        reload::spawn(Reloader::new(path, cli, state.live().clone()));
    }
    let mut server = HttpServer::new(move || app(state.clone()));
    if let Some(workers) = config.workers {
        server = server.workers(workers);
    }
    let server = server.bind(&config.addr)?;
    for addr in server.addrs() {
        eprintln!("placer listening on http://{addr}");
    }
    server.run().await
}
