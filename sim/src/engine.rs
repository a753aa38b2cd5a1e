//! The event loop (discrete-event simulation on simulated time; the slot and heartbeat model
//! of FAIR, Zaharia et al. §2): it pops the World's next event and dispatches it, to the World
//! (job arrivals, flow ends, task ends, copy polls) or, at an epoch tick or a node's
//! heartbeat, to the Master with the offer as a parameter. `sim/README.md` draws the three
//! parts.
//!
//! **Offers** ([`crate::Offers`], `world/offers.rs`): at epochs (every `epoch_s` one snapshot
//! offers every free slot: the batch policies) or on per-node heartbeats (each node on its own
//! seeded phase, one map and one reduce per heartbeat as Hadoop 0.20 gave, or all free slots
//! with `assign_multiple`: the heartbeat schedulers).
//!
//! Epochs fall on the grid k · `epoch_s`. A tick with no pending task schedules no further
//! tick; the next arrival or ready reduce schedules the next grid point, so idle stretches
//! cost nothing. A tick whose pending tasks have no free slot of their kind skips the solver
//! (its answer would be empty) unless the policy may preempt. O(log events) per event for the
//! queue; the World and the Master document their own costs.

use crate::config::SimConfig;
use crate::error::SimError;
use crate::master::Master;
use crate::queue::EventKind;
use crate::report::{SimReport, StopReason};
use crate::world::{Phase, World};
use placer_datasets::Workload;
use std::time::Instant;

/// One run: the World and its Master.
pub(crate) struct Engine<'a> {
    pub world: World<'a>,
    pub master: Master<'a>,
}

impl<'a> Engine<'a> {
    /// Indexes the workload and cluster; schedules the arrivals.
    pub fn new(workload: &'a Workload, cfg: &'a SimConfig) -> Result<Self, SimError> {
        let world = World::new(workload, cfg)?;
        let master = Master::new(&world);
        Ok(Self { world, master })
    }

    /// Runs to the end and reports.
    pub fn run(mut self) -> Result<SimReport, SimError> {
        let wall = Instant::now();
        let mut stop = StopReason::Completed;
        while let Some(ev) = self.world.queue.pop() {
            if ev.time() < self.world.now {
                return Err(SimError::Invariant {
                    time_s: self.world.now,
                    message: format!(
                        "an event at {} s comes after {} s",
                        ev.time(),
                        self.world.now
                    ),
                });
            }
            if self.world.cfg.max_time_s.is_some_and(|limit| ev.time() > limit) {
                stop = StopReason::TimeLimit;
                break;
            }
            self.world.now = ev.time();
            // Stale flow and task ends do not count.
            let counted = match ev.kind {
                EventKind::Arrival(j) => {
                    self.world.arrive(j);
                    true
                }
                EventKind::JobReady(j) => {
                    self.world.job_task_ended(j, false);
                    true
                }
                EventKind::JobCleaned(j) => {
                    self.world.job_task_ended(j, true);
                    true
                }
                EventKind::FetchPoll(j) => {
                    self.world.fetch_poll(j);
                    true
                }
                EventKind::FlowDone { flow, version } => {
                    match self.world.net.finish(
                        flow,
                        version,
                        self.world.now,
                        &mut self.world.queue,
                    ) {
                        Some(end) => {
                            self.world.flow_done(end);
                            true
                        }
                        None => false,
                    }
                }
                EventKind::TaskDone { task, version } => {
                    let t = &self.world.tasks[task];
                    let current = t.version == version && t.phase == Phase::Running;
                    if current {
                        self.world.task_done(task)?;
                    }
                    current
                }
                EventKind::Tick(tick) => {
                    if !self.tick(tick)? {
                        self.world.metrics.stalling_tick();
                        stop = StopReason::Stalled;
                        break;
                    }
                    true
                }
                EventKind::Heartbeat(n) => {
                    if !self.heartbeat(n)? {
                        self.world.metrics.stalling_tick();
                        stop = StopReason::Stalled;
                        break;
                    }
                    true
                }
            };
            if counted {
                self.world.metrics.event(self.world.now);
            }
        }
        // Heartbeats stop when no node could take a pending task: unfinished jobs then can
        // never finish.
        if stop == StopReason::Completed
            && (!self.world.active_jobs.is_empty() || self.world.arrivals_left > 0)
        {
            stop = StopReason::Stalled;
        }
        if self.world.cfg.audit {
            self.world.audit_end(stop)?;
        }
        let wall_s = wall.elapsed().as_secs_f64();
        let series = self.world.net.meter.series(self.world.now);
        Ok(self.world.metrics.report(
            stop,
            wall_s,
            series,
            self.world.cfg,
            self.world.workload,
            &self.world.ix,
            &self.world.cluster,
        ))
    }

    /// One epoch tick, then the fragmentation measured after its placement
    /// (`fragmentation.rs`); false when the run has stalled.
    fn tick(&mut self, tick: u64) -> Result<bool, SimError> {
        let going = self.place_at_tick(tick)?;
        self.world.measure_fragmentation();
        Ok(going)
    }

    /// One epoch tick's placement; false when the run has stalled.
    fn place_at_tick(&mut self, tick: u64) -> Result<bool, SimError> {
        self.world.tick_scheduled = false;
        self.world.metrics.tick();
        let launched = self.world.launch_job_tasks_at_epoch();
        if self.world.pending == [0, 0] {
            if self.world.job_tasks_waiting() > 0 {
                // Setup or cleanup tasks wait for a slot: a stall if none can ever free up.
                if !self.world.progressing(launched) {
                    self.world.stall += 1;
                    if self.world.stall >= self.world.cfg.stall_epochs {
                        return Ok(false);
                    }
                }
                self.next_tick(tick);
            }
            return Ok(true);
        }
        let room = if self.world.cluster.uncapped {
            !self.world.idle
        } else {
            let free = self.world.free_slots();
            (self.world.pending[0] > 0 && free[0] > 0) || (self.world.pending[1] > 0 && free[1] > 0)
        };
        let mut assigned = launched;
        if room || self.world.cfg.may_preempt() {
            assigned += self.master.solve(&mut self.world, None)?;
        }
        if !self.world.progressing(assigned) {
            self.world.stall += 1;
            if self.world.stall >= self.world.cfg.stall_epochs {
                return Ok(false);
            }
        }
        if self.world.pending != [0, 0] || self.world.job_tasks_waiting() > 0 {
            self.next_tick(tick);
        }
        Ok(true)
    }

    /// Schedules the epoch after `tick`.
    fn next_tick(&mut self, tick: u64) {
        let next = tick + 1;
        self.world.queue.push(next as f64 * self.world.cfg.epoch_s, EventKind::Tick(next));
        self.world.tick_scheduled = true;
    }

    /// Node `n`'s heartbeat; false when the run has stalled.
    fn heartbeat(&mut self, n: usize) -> Result<bool, SimError> {
        // The node's status first: what ended since its last heartbeat takes effect.
        self.world.report(n)?;
        let Some(offer) = self.world.heartbeat_offer(n) else { return Ok(true) };
        let mut assigned = 0;
        // A waiting setup or cleanup task takes the heartbeat before the scheduler is asked.
        if self.world.launch_job_task(n) {
            assigned = 1;
        } else if offer != [0, 0] || self.world.cfg.may_preempt() {
            assigned = self.master.solve(&mut self.world, Some((n, offer)))?;
        }
        let w = &mut self.world;
        if w.metrics.fragmentation.window_due(w.now, w.cfg.epoch_s) {
            w.measure_fragmentation();
        }
        if !w.progressing(assigned) {
            w.stall += 1;
            let limit = u64::from(w.cfg.stall_epochs) * w.cluster.len() as u64;
            if u64::from(w.stall) >= limit {
                return Ok(false);
            }
        }
        w.heartbeat_done(n);
        Ok(true)
    }
}
