//! A narrow entry point for fuzzing the Kubernetes scheduler extender's input (docs/testing.md,
//! "Fuzzing"; the body is `ExtenderArgs` of `k8s.io/kube-scheduler/extender/v1`, its
//! quantities those of the Kubernetes `resource.Quantity` docs). Not part of the service's API:
//! `fuzz/fuzz_targets/extender.rs` calls it. It adds no logic: a call is what the extender's
//! routes do once the body is read, the same decoding and the same answers (`k8s::respond`),
//! with the error reduced to its HTTP status, code and path.

use crate::epochs::EpochRecord;
use crate::k8s::{self, RackMap};
use actix_web::ResponseError;

pub use crate::k8s::quantity::Quantity;

/// Which verb to answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExtenderVerb {
    /// `POST /k8s/v1/filter`.
    Filter,
    /// `POST /k8s/v1/prioritize`.
    Prioritize,
}

/// A refused call, as the route would answer it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The HTTP status.
    pub status: u16,
    /// `error.code`.
    pub code: &'static str,
    /// `error.path`.
    pub path: String,
    /// `error.message`.
    pub message: String,
}

/// One extender as a process holds it: the racks it has learned from earlier `Nodes` calls
/// and the rack label (the default, `topology.kubernetes.io/rack`).
#[derive(Debug, Default)]
pub struct Extender {
    racks: RackMap,
}

impl Extender {
    /// An extender that has learned no racks yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The answer's JSON bytes to body `bytes` (already read and decoded), knowing `latest`
    /// as the latest answered epoch of `POST /place`.
    ///
    /// # Errors
    /// The route's error, as a [`Refusal`].
    pub fn call(
        &self,
        bytes: &[u8],
        verb: ExtenderVerb,
        latest: Option<&EpochRecord>,
    ) -> Result<Vec<u8>, Refusal> {
        let verb = match verb {
            ExtenderVerb::Filter => k8s::Verb::Filter,
            ExtenderVerb::Prioritize => k8s::Verb::Prioritize,
        };
        let go_on = || Ok(());
        let label = crate::DEFAULT_K8S_RACK_LABEL;
        k8s::respond(bytes, label, &self.racks, latest, verb, &go_on).map_err(|e| Refusal {
            status: e.status_code().as_u16(),
            code: e.code(),
            path: e.path().to_owned(),
            message: e.to_string(),
        })
    }
}
