//! The registry (DESIGN.md §The epoch pipeline: "one registry maps `Algorithm` to its policy:
//! the only place that lists them"). Every caller that needs "all policies" or "the policy of
//! this algorithm" asks here: the pipeline, the simulator, the server's error message, the
//! tests and the benches.

use super::{
    delay, dl_sched, drf, fair, fifo, lsap, lsap_fair, lsap_quota, lsap_ras, lsap_shuffle, ras,
    shuffle_watcher, shuffle_watcher_relaxed, Policy,
};
use crate::error::SolveError;
use placer_models::Algorithm;

/// Every algorithm this build implements, with its policy, in the order they are listed to
/// users. An `Algorithm` absent here parses but is answered `422 unsupported_algorithm`.
pub static REGISTRY: &[(Algorithm, &dyn Policy)] = &[
    (Algorithm::Fifo, &fifo::Fifo),
    (Algorithm::Fair, &fair::Fair),
    (Algorithm::Delay, &delay::Delay),
    (Algorithm::DlSched, &dl_sched::DlSched),
    (Algorithm::Lsap, &lsap::Lsap),
    (Algorithm::LsapFair, &lsap_fair::LsapFair),
    (Algorithm::LsapQuota, &lsap_quota::LsapQuota),
    (Algorithm::ShuffleWatcher, &shuffle_watcher::ShuffleWatcher),
    (Algorithm::ShuffleWatcherRelaxed, &shuffle_watcher_relaxed::ShuffleWatcherRelaxed),
    (Algorithm::LsapShuffle, &lsap_shuffle::LsapShuffle),
    (Algorithm::Ras, &ras::Ras),
    (Algorithm::LsapRas, &lsap_ras::LsapRas),
    (Algorithm::Drf, &drf::Drf),
];

/// `Algorithm::policy()`: the policy of an algorithm, if this build implements it.
pub trait PolicyOf {
    /// The registered policy, or `None`.
    fn policy(self) -> Option<&'static dyn Policy>;
}

impl PolicyOf for Algorithm {
    fn policy(self) -> Option<&'static dyn Policy> {
        REGISTRY.iter().find(|(a, _)| *a == self).map(|&(_, p)| p)
    }
}

/// The registered algorithms' wire names, comma-separated (for error messages and `--help`).
pub fn available() -> String {
    REGISTRY.iter().map(|(_, p)| p.name()).collect::<Vec<_>>().join(", ")
}

/// The registered algorithm whose wire name is `name`.
pub fn by_name(name: &str) -> Option<(Algorithm, &'static dyn Policy)> {
    REGISTRY.iter().find(|(_, p)| p.name() == name).copied()
}

/// The policy of `algorithm`.
///
/// # Errors
/// [`SolveError::UnsupportedAlgorithm`] (path `policy.algorithm`) when this build does not
/// implement it, listing the ones it does.
pub fn lookup(algorithm: Algorithm) -> Result<&'static dyn Policy, SolveError> {
    algorithm.policy().ok_or_else(|| SolveError::UnsupportedAlgorithm {
        path: "policy.algorithm".to_owned(),
        algorithm: algorithm.name(),
        available: available(),
    })
}
