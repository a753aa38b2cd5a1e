//! The Master: what a cluster master (Hadoop 0.20's JobTracker; FAIR, Zaharia et al. §2) does
//! with an offer of free slots. It builds the v1 snapshot of the World (`snapshot.rs`), calls
//! `placer_solver::place` (lsap-sched §3.2: one solve over the instant system state) and
//! applies the answer through the World's interface ([`World::kill`], [`World::start`]):
//! preempted tasks die and return to pending, losing their progress; assigned tasks start;
//! the per-job `delay` and `shuffle_watcher` and per-pool `starvation` state is echoed into
//! the next snapshot, as a master does with the stateless service. An offer (a heartbeating
//! node and its free slots, or every free slot at an epoch) is a parameter of each call.
//! Task, job, node and pool ids are indices inside the simulator; `ids.rs` writes them into
//! the snapshot and reads the answer's back, at the boundary. `sim/README.md` draws
//! where the Master sits. Per solver call O(snapshot) (see `snapshot.rs`).

mod ids;
mod session;
mod snapshot;

pub(crate) use snapshot::{Echo, Snapshot};

use crate::error::SimError;
use crate::metrics::EpochStart;
use crate::world::{Phase, World};
use placer_models::{PlaceRequest, PlaceResponse, TaskKind};
use placer_solver::PlaceOptions;
use std::time::Instant;

/// The master's own state between offers.
pub(crate) struct Master<'a> {
    /// The snapshot being built and what it keeps between offers.
    pub snapshot: Snapshot,
    /// The state the last answers handed back, echoed into the next snapshot.
    pub echo: Echo,
    /// The per-job keys policies echo (`placer_solver::registry::job_fields`).
    pub echoed: Vec<&'static str>,
    /// The structured flow's labels kept from epoch to epoch (`SimConfig::warm_start`).
    pub warm: Option<placer_solver::WarmStart>,
    /// The in-process session epochs are sent to as deltas (`SimConfig::sessions`).
    session: Option<session::Session>,
    /// Under `SimConfig::audit` with sessions: the whole snapshot, built beside the session to
    /// check that the session holds the same.
    shadow: Option<Snapshot>,
    /// Called with every snapshot before it is solved (the crate's tests read them); never
    /// affects the run.
    pub on_snapshot: Option<&'a (dyn Fn(&PlaceRequest) + Sync)>,
}

impl Master<'_> {
    /// The master of `world`'s cluster and workload, before any offer.
    pub fn new(world: &World<'_>) -> Self {
        Self {
            snapshot: Snapshot::new(world),
            echo: Echo::new(world.ix.pools.len(), world.jobs.len()),
            echoed: placer_solver::registry::job_fields()
                .iter()
                .filter(|f| f.echoed())
                .map(|f| f.key())
                .collect(),
            warm: world.cfg.warm_start.then(placer_solver::WarmStart::new),
            session: world
                .cfg
                .sessions
                .then(|| session::Session::new(world.ix.tasks.len(), world.jobs.len())),
            shadow: (world.cfg.sessions && world.cfg.audit).then(|| Snapshot::new(world)),
            on_snapshot: None,
        }
    }

    /// Builds the snapshot (every free slot, or node `offer`'s on its heartbeat), calls the
    /// solver, applies the answer; returns the tasks started.
    pub(crate) fn solve(
        &mut self,
        w: &mut World<'_>,
        offer: Option<(usize, [u32; 2])>,
    ) -> Result<u64, SimError> {
        let before = Instant::now();
        let delta = match (&mut self.session, offer) {
            (Some(session), None) => Some(self.snapshot.fill_delta(w, &self.echo, session)),
            _ => None,
        };
        let offered = match &delta {
            Some((_, offered)) => *offered,
            None => {
                // A whole snapshot replaces what the session held.
                if let Some(session) = &mut self.session {
                    session.replaced();
                }
                self.snapshot.fill(w, offer, &self.echo)
            }
        };
        if let (Some(shadow), Some(_)) = (&mut self.shadow, &delta) {
            shadow.fill(w, None, &self.echo);
            session::same_snapshot(&self.snapshot.req, &shadow.req)
                .map_err(|message| SimError::Invariant { time_s: w.now, message })?;
        }
        if let Some(f) = self.on_snapshot {
            f(&self.snapshot.req);
        }
        let built = Instant::now();
        let options = PlaceOptions { warm: self.warm.clone(), ..PlaceOptions::default() };
        let req = &self.snapshot.req;
        let answer = match (&mut self.session, delta) {
            (Some(session), Some((undo, _))) => {
                let answer = session
                    .revalidator
                    .revalidate(req, Some(&undo))
                    .map_err(placer_solver::SolveError::from)
                    .and_then(|checked| placer_solver::place_checked(req, checked, &options));
                self.snapshot.recycle(undo);
                answer
            }
            _ => placer_solver::place(req, &options),
        }
        .map_err(|source| SimError::Solver { time_s: w.now, source })?;
        let solve_ms = built.elapsed().as_secs_f64() * 1e3;
        let snapshot_ms = built.duration_since(before).as_secs_f64() * 1e3;
        let free = match offer {
            Some((_, f)) => [u64::from(f[0]), u64::from(f[1])],
            None => w.free_slots(),
        };
        let start = EpochStart {
            pending: w.pending[0] + w.pending[1],
            offered,
            running: w.running.len(),
            free,
        };
        self.apply(w, &answer, offer)?;
        w.idle = answer.assignments.is_empty() && answer.preemptions.is_empty();
        let window = w.beats.as_ref().map(|_| w.cfg.epoch_s);
        w.metrics.epoch_solved(w.now, start, &answer, snapshot_ms, solve_ms, window);
        if w.cfg.audit {
            w.audit_slots()?;
        }
        Ok(answer.assignments.len() as u64)
    }

    /// Applies the solver's answer to the snapshot of `offer` (a heartbeat's node and slots,
    /// `None` at an epoch): preemptions, then assignments, then the echoed state.
    pub(crate) fn apply(
        &mut self,
        w: &mut World<'_>,
        answer: &PlaceResponse,
        offer: Option<(usize, [u32; 2])>,
    ) -> Result<(), SimError> {
        let time_s = w.now;
        let bad = |message: String| SimError::InvalidAnswer { time_s, message };
        for p in &answer.preemptions {
            let t = ids::read_task(&w.ix, p.task.as_str())
                .ok_or_else(|| bad(format!("preemption of unknown task {}", p.task)))?;
            if w.tasks[t].phase != Phase::Running {
                return Err(bad(format!("preemption of task {} that is not running", p.task)));
            }
            w.kill(t);
        }
        for a in &answer.assignments {
            let t = ids::read_task(&w.ix, a.task.as_str())
                .ok_or_else(|| bad(format!("assignment of unknown task {}", a.task)))?;
            let n = ids::read_node(a.node.as_str(), w.cluster.len())
                .ok_or_else(|| bad(format!("assignment to unknown node {}", a.node)))?;
            if w.tasks[t].phase != Phase::Pending {
                return Err(bad(format!("assignment of task {} that is not pending", a.task)));
            }
            let kind = w.ix.tasks[t].kind;
            let slots = match kind {
                TaskKind::Map => w.cluster.map_slots[n],
                TaskKind::Reduce => w.cluster.reduce_slots[n],
            };
            // Uncapped nodes have no slots to run out of: the solver's room bounds them.
            if !w.cluster.uncapped && w.used[n][kind.slot()] >= slots {
                return Err(bad(format!(
                    "task {} assigned to node {} without a free slot",
                    a.task, a.node
                )));
            }
            if offer.is_some_and(|(beating, _)| beating != n) {
                return Err(bad(format!(
                    "task {} assigned to node {}, which is not heartbeating",
                    a.task, a.node
                )));
            }
            w.start(t, n);
        }
        for report in &answer.jobs {
            if let Some(j) = ids::read_job(report.id.as_str(), w.jobs.len()) {
                let state = &mut self.echo.state[j];
                for &key in &self.echoed {
                    match report.state.get(key) {
                        Some(v) => state.set(key, v),
                        None => state.remove(key),
                    }
                }
            }
        }
        for report in &answer.pools {
            if let Some(p) = ids::read_pool(report.id.as_str(), self.echo.starvation.len()) {
                self.echo.starvation[p] = Some(report.starvation);
            }
        }
        Ok(())
    }
}
