//! The actix-web app (docs/operations/serving.md): placer's routes on an app or scope, and the
//! whole app for tests and for the server loop ([`crate::run`]).

use crate::{metrics, observe, routes, AppState};
use actix_http::ConnectionType;
use actix_web::body::BoxBody;
use actix_web::dev::{Service, ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::from_fn;
use actix_web::{web, App};

/// Registers placer's routes, `state` and the JSON 404 on an actix-web app or scope, e.g.
/// `App::new().configure(|c| configure(c, state))`. Wrap the app in
/// `actix_web::middleware::from_fn(placer_server::observe)` for request ids, request metrics
/// and the request log, as [`app`] does.
pub fn configure(cfg: &mut web::ServiceConfig, state: AppState) {
    routes::register(cfg, state);
}

/// The whole app for `state`, ready for the server loop or `actix_web::test::init_service`.
/// It closes the connection after the response while the server drains (so clients move to
/// another instance) and after every `HEAD` response (whose announced but absent body would
/// desynchronise the JSON rewriting of HTTP-layer errors, see `http_errors.rs`).
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
    let draining = state.clone();
    App::new()
        .configure(|cfg| configure(cfg, state))
        // Bearer tokens (`--tokens`), before any handler reads a body.
        .wrap(from_fn(crate::auth::middleware))
        .wrap_fn(move |req, srv| {
            let head = req.method() == Method::HEAD;
            let response = srv.call(req);
            let draining = draining.clone();
            async move {
                let mut response = response.await?;
                // Draining is checked once the response is ready: it may have begun meanwhile.
                if head || draining.is_draining() {
                    response.response_mut().head_mut().set_connection_type(ConnectionType::Close);
                }
                Ok(response)
            }
        })
        // Outermost: the request id, the request counters and the log line see the final
        // response.
        .wrap(from_fn(observe::observe))
}
