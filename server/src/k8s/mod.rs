//! A Kubernetes scheduler extender (docs/operations/kubernetes-extender.md;
//! `k8s.io/kube-scheduler/extender/v1`, the HTTP extender of kube-scheduler's
//! `KubeSchedulerConfiguration.extenders`): `POST /k8s/v1/filter` and `POST /k8s/v1/prioritize`,
//! both taking `ExtenderArgs` and answering `ExtenderFilterResult` and `HostPriorityList` with the
//! Go field names as keys.
//!
//! A pod declares its input with annotations (`placer.io/replicas`, `placer.io/input-bytes`)
//! and its pool with `placer.io/pool` (else its namespace); node racks come from a node label
//! (`--k8s-rack-label`, default `topology.kubernetes.io/rack`) or from a node → rack map file
//! (`--k8s-rack-map`, which wins; the only source in `NodeNames` mode besides racks learned
//! from earlier `Nodes` calls). `filter` removes nodes whose
//! allocatable cannot hold the pod and, while the pod's pool is held at its fair share by the
//! latest `POST /place` answer, every node; `prioritize` scores nodes 0..10 by placer's
//! locality cost. Malformed bodies get placer's JSON errors (400). Handlers stay thin: the
//! decoding and the rules live in this module's files, run on the blocking pool.
//!
//! Both verbs come in through the same intake as `POST /place` ([`crate::intake`]): the body
//! limit and timeout, gzip inflated under the memory budget, and a permit weighted by the
//! extender's measured memory model. Their work is linear in the body, and it stops between
//! its steps (parse, read, answer) when its handler was dropped or the server's `deadline_ms` has
//! passed (503 `deadline_exceeded`).

mod args;
mod filter;
mod go_json;
mod node;
pub(crate) mod openapi;
mod pod;
mod prioritize;
pub(crate) mod quantity;
mod rack_file;
mod racks;
mod wire;

pub use node::check_label_key;
pub use rack_file::{load as load_rack_file, parse as parse_rack_file, RackFile};
pub use racks::RackMap;

use crate::deadline::Deadline;
use crate::error::ServerError;
use crate::intake::{admit, Admitted, CancelOnDrop, EXTENDER_MODEL};
use crate::state::AppState;
use actix_web::http::header::ContentType;
use actix_web::{web, HttpRequest, HttpResponse, Route};
use placer_solver::Cancel;

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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verb {
    /// `filter`.
    Filter,
    /// `prioritize`.
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

/// Takes the request in ([`crate::intake::admit`]), then decodes and answers on the blocking
/// pool (a `Nodes` body of 5,000 full Node objects is tens of megabytes) under the server's
/// deadline, cancelled if its handler is dropped.
async fn answer(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
    verb: Verb,
) -> Result<HttpResponse, ServerError> {
    let config = state.config.get();
    let admitted = admit(&req, payload.into_inner(), &state, &config, EXTENDER_MODEL).await?;
    let deadline = Deadline::new(None, config.deadline_ms, admitted.body_read_at);
    let gone = CancelOnDrop::new(deadline.cancel());
    let racks = state.k8s_racks.with_file(config.k8s_rack_file.clone());
    let latest = state.epochs().latest();
    let body = web::block(move || {
        let Admitted { bytes, hold, permit, .. } = admitted;
        let _held = (hold, permit);
        let _timer = deadline.arm(None);
        let cancel = deadline.cancel();
        let deadline_ms = deadline.effective_ms(None).unwrap_or(0);
        let stop = || stopped(&cancel, deadline_ms);
        respond(&bytes, &config.k8s_rack_label, &racks, latest.as_deref(), verb, &stop)
    })
    .await
    .map_err(|e| ServerError::Internal { message: format!("extender thread failed: {e}") })??;
    gone.disarm();
    Ok(HttpResponse::Ok().insert_header(ContentType::json()).body(body))
}

/// `Err(DeadlineExceeded)` once `cancel` is set (the deadline passed or the handler was
/// dropped).
fn stopped(cancel: &Cancel, deadline_ms: u64) -> Result<(), ServerError> {
    if cancel.is_cancelled() {
        Err(ServerError::DeadlineExceeded { deadline_ms })
    } else {
        Ok(())
    }
}

/// The answer's JSON bytes for one call. `stop` is asked between the steps; its error ends
/// the call. The answer is at most about twice the body plus 64 KiB ([`filter::filter`]'s
/// reason budget is the body's length, at least [`filter::MIN_REASON_BUDGET`]).
///
/// # Complexity
/// O(body) expected.
///
/// # Errors
/// 400 `malformed_json` or `invalid_field` for a body that is not `ExtenderArgs`; `stop`'s.
pub(crate) fn respond(
    bytes: &[u8],
    rack_label: &str,
    racks: &RackMap,
    latest: Option<&crate::epochs::EpochRecord>,
    verb: Verb,
    stop: &dyn Fn() -> Result<(), ServerError>,
) -> Result<Vec<u8>, ServerError> {
    let body = args::parse_body(bytes)?;
    stop()?;
    let args = args::read_args(&body, rack_label)?;
    stop()?;
    if let args::Candidates::Nodes { nodes, .. } = &args.candidates {
        racks.learn(rack_label, nodes.iter().map(|n| (n.name, n.rack)));
    }
    let json = match verb {
        Verb::Filter => {
            let budget = bytes.len().max(filter::MIN_REASON_BUDGET);
            serde_json::to_vec(&filter::filter(&args, latest, budget))
        }
        Verb::Prioritize => {
            let scores = prioritize::prioritize(&args, racks, rack_label)?;
            stop()?;
            serde_json::to_vec(&scores)
        }
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
