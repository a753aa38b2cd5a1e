//! The server loop of `placer serve` (docs/operations/serving.md: admission, HTTP errors,
//! lifecycle). Built from actix-web's own parts the way `actix_web::HttpServer` builds it, plus
//! what that type does not expose: an `Expect: 100-continue` gate ([`crate::expect`]) and a
//! connection wrapper that turns the HTTP layer's bodiless errors into JSON
//! ([`crate::http_errors`]), over TLS when a certificate is configured ([`crate::tls`]).
//!
//! Lifecycle: SIGTERM or SIGINT marks the state as draining (`/readyz` → 503, `Expect:
//! 100-continue` → 503, connections close after their next response), stops accepting
//! connections, and lets requests on open connections finish for up to `shutdown_grace_ms`;
//! then [`run`] returns `Ok`. A second signal ends the process at once, with status 128 + the
//! signal's number (143 for SIGTERM, 130 for SIGINT), abandoning the solves still running.
//!
//! At start the process raises its open-files limit to the hard limit (each connection is a
//! file descriptor; the common soft default of 1,024 lets slow clients crowd out the others)
//! and logs the value.

use crate::app::app;
use crate::config::ServerConfig;
use crate::config_file::CommandLine;
use crate::expect;
use crate::http_errors::JsonErrorIo;
use crate::reload::{self, Reloader};
use crate::state::AppState;
use crate::tls;
use actix_http::error::DispatchError;
use actix_http::{Extensions, HttpService};
use actix_server::{Server, ServerHandle};
use actix_service::{fn_service, map_config, IntoServiceFactory, ServiceFactoryExt};
use actix_web::dev::AppConfig;
use std::future::poll_fn;
use std::io;
use std::net::{SocketAddr, TcpListener};
use std::task::Poll;
use std::time::Duration;
use tokio::net::TcpStream;

/// Binds `config.addr` and serves until SIGTERM/SIGINT, then drains (see the module docs).
/// Prints `placer listening on http://ADDR` (`https://` under TLS) to stderr once bound (the
/// actual port if `addr` asked for port 0). Must run inside an actix runtime
/// (`actix_web::rt::System`).
///
/// # Errors
/// Binding or signal registration failed, or the event log cannot be opened.
pub async fn run(config: ServerConfig) -> io::Result<()> {
    raise_open_files_limit();
    let state = AppState::try_new(&config)?;
    let scheme = scheme(&config);
    run_with(config, state, |addr| eprintln!("placer listening on {scheme}://{addr}")).await
}

/// `https` under TLS, else `http` (scripts read the `placer listening on http://` line).
fn scheme(config: &ServerConfig) -> &'static str {
    if config.tls.is_some() {
        "https"
    } else {
        "http"
    }
}

/// [`run`], also reloading `config.config_path` and the files it names (allocations, TLS
/// certificate and key, tokens) on SIGHUP and when one changes ([`crate::reload`]), over the
/// command line `cli`, whose given flags keep winning.
///
/// # Errors
/// Binding or signal registration failed, or the event log cannot be opened.
pub async fn run_reloading(config: ServerConfig, cli: CommandLine) -> io::Result<()> {
    raise_open_files_limit();
    let state = AppState::try_new(&config)?;
    let live = state.live_config().clone();
    let named_files = [
        &config.allocations,
        &config.tls_cert,
        &config.tls_key,
        &config.tokens,
        &config.k8s_rack_map,
    ];
    match (config.config_path.clone(), named_files.iter().any(|f| f.is_some())) {
        (Some(path), _) => reload::spawn(Reloader::new(path, cli, live)),
        (None, true) => reload::spawn(Reloader::without_config_file(cli, live)),
        (None, false) => {}
    }
    let scheme = scheme(&config);
    run_with(config, state, |addr| eprintln!("placer listening on {scheme}://{addr}")).await
}

/// [`run`] with a given state (e.g. a stand-in solver or a live configuration), calling
/// `on_bound` with the bound address before serving.
///
/// # Errors
/// Binding or signal registration failed.
pub async fn run_with(
    config: ServerConfig,
    state: AppState,
    on_bound: impl FnOnce(SocketAddr),
) -> io::Result<()> {
    let listener = TcpListener::bind(&config.addr)?;
    let addr = listener.local_addr()?;
    if let Some(warning) =
        crate::tls::exposure_warning(addr, config.tls.is_some(), config.auth_tokens.is_some())
    {
        tracing::warn!(%addr, "{warning}");
    }
    let signals = StopSignals::register()?;
    let header_timeout = Duration::from_millis(config.header_timeout_ms);
    let factory_state = state.clone();
    let mut builder =
        Server::build().disable_signals().shutdown_timeout(config.shutdown_grace_ms.div_ceil(1000));
    if let Some(workers) = config.workers {
        builder = builder.workers(workers);
    }
    let server = builder
        .listen("placer", listener, move || {
            let state = factory_state.clone();
            let app = app(state.clone())
                .into_factory()
                .map_err(|err| err.error_response())
                .map_init_err(|()| ());
            let http = HttpService::build()
                .client_request_timeout(header_timeout)
                // As `HttpServer`: after an early error (e.g. 413 while the client still
                // uploads), linger so the client reads the answer instead of a reset.
                .client_disconnect_timeout(Duration::from_secs(1))
                .expect(fn_service(expect::service(state.clone())))
                .on_connect_ext(|io: &JsonErrorIo<tls::Conn>, data: &mut Extensions| {
                    if io.get_ref().has_client_cert() {
                        data.insert(tls::ClientCert);
                    }
                })
                .h1(map_config(app, |()| AppConfig::default()));
            fn_service(move |io: TcpStream| {
                // The certificate in force when the connection is accepted.
                let tls = state.live_config().get().tls.clone();
                async move {
                    let peer = io.peer_addr().ok();
                    // Small JSON answers: send them at once.
                    io.set_nodelay(true).map_err(DispatchError::Io)?;
                    let io = tls::accept(io, tls.as_ref(), header_timeout)
                        .await
                        .map_err(DispatchError::Io)?;
                    Ok::<_, DispatchError>((JsonErrorIo::new(io), peer))
                }
            })
            .and_then(http)
        })?
        .run();
    on_bound(addr);
    actix_web::rt::spawn(drain_on_signal(signals, state, server.handle()));
    server.await
}

/// Waits for SIGTERM/SIGINT, drains, and on a second signal ends the process at once: stopping
/// the server alone would still wait for the solves running on the blocking pool, which the
/// runtime joins before the process can exit.
async fn drain_on_signal(mut signals: StopSignals, state: AppState, handle: ServerHandle) {
    signals.recv().await;
    eprintln!("placer: stop signal received, draining in-flight requests");
    state.start_draining();
    actix_web::rt::spawn(async move { handle.stop(true).await });
    let signal = signals.recv().await;
    eprintln!("placer: second stop signal, stopping now");
    std::process::exit(128 + signal);
}

/// Raises the soft limit on open files to the hard limit and logs both (at `warn` when it
/// cannot be raised). Each connection holds a descriptor.
fn raise_open_files_limit() {
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => {
            tracing::info!(open_files = limit, "open-files limit raised to the hard limit")
        }
        Err(e) => tracing::warn!(error = %e, "could not raise the open-files limit"),
    }
}

/// SIGTERM and SIGINT, registered before the server announces its address so that no signal
/// sent after the announcement hits the default (killing) action.
struct StopSignals {
    #[cfg(unix)]
    term: tokio::signal::unix::Signal,
    #[cfg(unix)]
    int: tokio::signal::unix::Signal,
}

impl StopSignals {
    #[cfg(unix)]
    fn register() -> io::Result<Self> {
        use tokio::signal::unix::{signal, SignalKind};
        Ok(Self { term: signal(SignalKind::terminate())?, int: signal(SignalKind::interrupt())? })
    }

    #[cfg(not(unix))]
    fn register() -> io::Result<Self> {
        Ok(Self {})
    }

    /// The next stop signal's number (15 for SIGTERM, 2 for SIGINT).
    #[cfg(unix)]
    async fn recv(&mut self) -> i32 {
        poll_fn(|cx| {
            if self.term.poll_recv(cx).is_ready() {
                Poll::Ready(15)
            } else if self.int.poll_recv(cx).is_ready() {
                Poll::Ready(2)
            } else {
                Poll::Pending
            }
        })
        .await
    }

    #[cfg(not(unix))]
    async fn recv(&mut self) -> i32 {
        if tokio::signal::ctrl_c().await.is_err() {
            poll_fn(|_| Poll::<()>::Pending).await;
        }
        2
    }
}
