//! What every request handler shares (DESIGN.md §Errors: limits behind 413 and 503; issue 16:
//! admission, draining): the live settings, the admission queue, the draining flag and the solve
//! function. The service keeps no placement state: per-job state travels in the snapshot
//! (DESIGN.md §Wire schema v1).

use crate::admission::{Admission, Limits};
use crate::config::ServerConfig;
use crate::epochs::Epochs;
use crate::live_config::LiveConfig;
use placer_models::{PlaceRequest, PlaceResponse};
use placer_solver::{PlaceOptions, SolveError};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The epoch function the service calls; [`placer_solver::place`] in production, a stand-in in
/// tests (e.g. one that panics, to check the 500 path).
pub type SolveFn = fn(&PlaceRequest, &PlaceOptions) -> Result<PlaceResponse, SolveError>;

/// Shared handler state. Clones share the settings, the admission queue and the draining flag,
/// so build it once and clone it into every worker.
#[derive(Clone, Debug)]
pub struct AppState {
    pub(crate) config: LiveConfig,
    pub(crate) admission: Admission,
    draining: Arc<AtomicBool>,
    pub(crate) solve: SolveFn,
    /// The last answered epochs (the dashboard's data).
    pub(crate) epochs: Epochs,
    /// Node racks learned by the scheduler extender.
    pub(crate) k8s_racks: crate::k8s::RackMap,
}

impl AppState {
    /// State for `config` that solves with [`placer_solver::place`].
    pub fn new(config: &ServerConfig) -> Self {
        Self::with_solver(config, placer_solver::place)
    }

    /// State for `config` that solves with `solve` instead.
    pub fn with_solver(config: &ServerConfig, solve: SolveFn) -> Self {
        Self::with_live_config(LiveConfig::new(config.clone()), solve)
    }

    /// State reading its settings from `config` at the start of every request (a reload that
    /// replaces it applies to the next request).
    pub fn with_live_config(config: LiveConfig, solve: SolveFn) -> Self {
        Self {
            config,
            admission: Admission::default(),
            draining: Arc::new(AtomicBool::new(false)),
            solve,
            epochs: Epochs::default(),
            k8s_racks: crate::k8s::RackMap::default(),
        }
    }

    /// The live settings this state reads.
    pub fn live_config(&self) -> &LiveConfig {
        &self.config
    }

    /// The ring of the last answered epochs.
    pub fn epochs(&self) -> &Epochs {
        &self.epochs
    }

    /// Solves running right now (admitted, not finished).
    pub fn in_flight(&self) -> usize {
        self.admission.running()
    }

    /// Requests waiting for a solve slot right now.
    pub fn queued(&self) -> usize {
        self.admission.queued()
    }

    /// Marks the server as shutting down: `/readyz` and `Expect: 100-continue` requests get 503
    /// `draining`, and connections close after their next response.
    pub fn start_draining(&self) {
        self.draining.store(true, Ordering::Release);
    }

    /// Whether [`AppState::start_draining`] was called.
    pub fn is_draining(&self) -> bool {
        self.draining.load(Ordering::Acquire)
    }
}

/// The admission limits of `config`.
pub(crate) fn limits(config: &ServerConfig) -> Limits {
    Limits {
        max_in_flight: config.max_in_flight,
        max_memory_bytes: config.max_memory_bytes,
        queue_len: config.queue_len,
        queue_wait: Duration::from_millis(config.queue_wait_ms),
    }
}
