//! What every request handler shares (docs/operations/serving.md, "Admission and limits": limits
//! behind 413 and 503, admission, draining): the live settings, the admission queue, the draining
//! flag, the solve function and the sessions. `POST /place` keeps no placement state: per-job state
//! travels in the snapshot (docs/wire-schema.md); sessions keep a snapshot as soft state.

use crate::admission::{Admission, Limits};
use crate::config::ServerConfig;
use crate::epochs::Epochs;
use crate::event_log::EventLog;
use crate::live_config::LiveConfig;
use crate::logging::SolveLog;
use crate::pipeline::Recording;
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
    /// The event log (`--event-log`), if any.
    pub(crate) event_log: Option<EventLog>,
    /// Node racks learned by the scheduler extender.
    pub(crate) k8s_racks: crate::k8s::RackMap,
    /// The sessions' snapshots (`/v1/sessions`), soft state.
    pub(crate) sessions: crate::sessions::Store,
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
    /// replaces it applies to the next request). The ring's size and the event log are taken
    /// from `config` now; an event log directory that cannot be opened is logged at `warn`,
    /// counted, and retried at each answer (use [`AppState::try_new`] to refuse to start).
    pub fn with_live_config(config: LiveConfig, solve: SolveFn) -> Self {
        let settings = config.get();
        let event_log = settings.event_log.as_ref().map(|dir| {
            EventLog::open(dir, settings.event_log_max_bytes, settings.event_log_keep)
                .unwrap_or_else(|e| {
                    crate::metrics::event_log_error();
                    tracing::warn!(error = %e, dir = %dir.display(), "event log: cannot open");
                    EventLog::unopened(dir, settings.event_log_max_bytes, settings.event_log_keep)
                })
        });
        Self {
            config,
            admission: Admission::default(),
            draining: Arc::new(AtomicBool::new(false)),
            solve,
            epochs: Epochs::bounded(settings.epochs_kept, settings.epochs_max_bytes),
            event_log,
            k8s_racks: crate::k8s::RackMap::default(),
            sessions: crate::sessions::Store::default(),
        }
    }

    /// [`AppState::new`], but an event log directory that cannot be created or opened is an
    /// error (what `placer serve` uses).
    ///
    /// # Errors
    /// `config.event_log` is set and its `events.jsonl` cannot be opened for appending.
    pub fn try_new(config: &ServerConfig) -> std::io::Result<Self> {
        if let Some(dir) = &config.event_log {
            EventLog::open(dir, config.event_log_max_bytes, config.event_log_keep).map_err(
                |e| std::io::Error::new(e.kind(), format!("event log {}: {e}", dir.display())),
            )?;
        }
        Ok(Self::new(config))
    }

    /// Where the facts of the request `request_id` go: `log` for its log line, the ring and the
    /// event log for its answer.
    pub(crate) fn recording(&self, log: SolveLog, request_id: String) -> Recording {
        let (epochs, event_log) = (self.epochs.clone(), self.event_log.clone());
        Recording { log, epochs, event_log, request_id }
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

    /// Bytes held in the memory ledger right now: the requests' bodies and permits, and every
    /// stored session's snapshot.
    pub fn memory_held(&self) -> u64 {
        self.admission.bytes_in_use()
    }

    /// Sessions kept right now (`/v1/sessions`).
    pub fn sessions(&self) -> usize {
        self.sessions.len()
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
