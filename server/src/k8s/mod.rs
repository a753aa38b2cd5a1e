//! A Kubernetes scheduler extender (issue 17 item 5; `k8s.io/kube-scheduler/extender/v1`,
//! the HTTP extender of kube-scheduler's `KubeSchedulerConfiguration.extenders`):
//! `POST /k8s/v1/filter` and `POST /k8s/v1/prioritize`, both taking `ExtenderArgs` and
//! answering `ExtenderFilterResult` and `HostPriorityList` with the Go field names as keys.
//!
//! A pod declares its input with annotations (`placer.io/replicas`, `placer.io/input-bytes`)
//! and its pool with `placer.io/pool` (else its namespace); node racks come from a node label
//! (`--k8s-rack-label`, default `topology.kubernetes.io/rack`). `filter` removes nodes whose
//! allocatable cannot hold the pod and, while the pod's pool is held at its fair share by the
//! latest `POST /place` answer, every node; `prioritize` scores nodes 0..10 by placer's
//! locality cost. Malformed bodies get placer's JSON errors (400). Handlers stay thin: the
//! decoding and the rules live in this module's files, run on the blocking pool.

mod args;
mod filter;
mod go_json;
mod node;
pub(crate) mod openapi;
mod pod;
mod prioritize;
pub(crate) mod quantity;
mod racks;
mod wire;

pub use node::check_label_key;
pub use racks::RackMap;

use crate::body::read_body;
use crate::error::ServerError;
use crate::expect::check_head;
use crate::state::AppState;
use actix_web::http::header::ContentType;
use actix_web::{web, HttpRequest, HttpResponse, Route};
use std::time::Duration;

/// The `filter` verb's path (`urlPrefix` + `/` + `filterVerb`).
pub const FILTER_PATH: &str = "/k8s/v1/filter";
/// The `prioritize` verb's path (`urlPrefix` + `/` + `prioritizeVerb`).
pub const PRIORITIZE_PATH: &str = "/k8s/v1/prioritize";

/// Registers both verbs on `cfg` (the shared state is registered by `crate::routes`).
pub(crate) fn register(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource(FILTER_PATH).route(web::post().to(filter_route)).default_service(post_only()),
    )
    .service(
        web::resource(PRIORITIZE_PATH)
            .route(web::post().to(prioritize_route))
            .default_service(post_only()),
    );
}

/// Which verb a request asks for.
#[derive(Clone, Copy)]
pub(crate) enum Verb {
    Filter,
    Prioritize,
}

async fn filter_route(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ServerError> {
    answer(req, payload, state, Verb::Filter).await
}

async fn prioritize_route(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ServerError> {
    answer(req, payload, state, Verb::Prioritize).await
}

/// Reads the body under the server's limits (size, time, gzip), then decodes and answers on
/// the blocking pool (a `Nodes` body of 5,000 full Node objects is tens of megabytes).
async fn answer(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
    verb: Verb,
) -> Result<HttpResponse, ServerError> {
    let config = state.config.get();
    let encoding = check_head(&config, req.headers())?;
    let timeout = Duration::from_millis(config.body_timeout_ms);
    let bytes =
        read_body(&req, payload.into_inner(), config.body_limit_bytes, timeout, encoding).await?;
    let racks = state.k8s_racks.clone();
    let latest = state.epochs().latest();
    let body = web::block(move || {
        respond(&bytes, &config.k8s_rack_label, &racks, latest.as_deref(), verb)
    })
    .await
    .map_err(|e| ServerError::Internal { message: format!("extender thread failed: {e}") })??;
    Ok(HttpResponse::Ok().insert_header(ContentType::json()).body(body))
}

/// The answer's JSON bytes for one call.
///
/// # Errors
/// 400 `malformed_json` or `invalid_field` for a body that is not `ExtenderArgs`.
pub(crate) fn respond(
    bytes: &[u8],
    rack_label: &str,
    racks: &RackMap,
    latest: Option<&crate::epochs::EpochRecord>,
    verb: Verb,
) -> Result<Vec<u8>, ServerError> {
    let body = args::parse_body(bytes)?;
    let args = args::read_args(&body, rack_label)?;
    if let args::Candidates::Nodes { nodes, .. } = &args.candidates {
        racks.learn(rack_label, nodes.iter().map(|n| (n.name, n.rack)));
    }
    let json = match verb {
        Verb::Filter => serde_json::to_vec(&filter::filter(&args, latest)),
        Verb::Prioritize => serde_json::to_vec(&prioritize::prioritize(&args, racks, rack_label)?),
    };
    json.map_err(|e| ServerError::Internal { message: format!("extender answer: {e}") })
}

/// Another method than POST: 405 with `Allow: POST`.
fn post_only() -> Route {
    web::to(|req: HttpRequest| async move {
        Err::<HttpResponse, _>(ServerError::MethodNotAllowed {
            method: req.method().to_string(),
            path: req.path().to_owned(),
            allowed: "POST",
        })
    })
}
