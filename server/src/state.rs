//! What every request handler shares (DESIGN.md §Errors: limits behind 413 and 503): the body
//! limit, the in-flight counter, and the solve function. The service keeps no placement state:
//! per-job state travels in the snapshot (DESIGN.md §Wire schema v1).

use crate::config::ServerConfig;
use crate::in_flight::InFlight;
use crate::live_config::LiveConfig;
use placer_models::{PlaceRequest, PlaceResponse};
use placer_solver::{PlaceOptions, SolveError};

/// The epoch function the service calls; [`placer_solver::place`] in production, a stand-in in
/// tests (e.g. one that panics, to check the 500 path).
pub type SolveFn = fn(&PlaceRequest, &PlaceOptions) -> Result<PlaceResponse, SolveError>;

/// Shared handler state. Clones share one in-flight counter, so build it once and clone it into
/// every worker.
#[derive(Clone, Debug)]
pub struct AppState {
    pub(crate) live: LiveConfig,
    pub(crate) in_flight: InFlight,
    pub(crate) solve: SolveFn,
}

impl AppState {
    /// State for `config` that solves with [`placer_solver::place`].
    pub fn new(config: &ServerConfig) -> Self {
        Self::with_solver(config, placer_solver::place)
    }

    /// State for `config` that solves with `solve` instead.
    pub fn with_solver(config: &ServerConfig, solve: SolveFn) -> Self {
        Self {
            live: LiveConfig::new(config.clone()),
            in_flight: InFlight::new(config.max_in_flight),
            solve,
        }
    }

    /// The settings in force, which a config reload replaces.
    pub fn live(&self) -> &LiveConfig {
        &self.live
    }

    /// Snapshots being read or solved right now.
    pub fn in_flight(&self) -> usize {
        self.in_flight.current()
    }
}
