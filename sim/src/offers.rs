//! How free slots reach the policy (FAIR, Zaharia et al. §2: "tasks are assigned in response
//! to heartbeats (status messages) received from the slaves every few seconds"; lsap-sched
//! §3.2 solves one epoch over every idle slot instead). With [`crate::Offers::Heartbeats`]
//! every node heartbeats every `policy.heartbeat_s` on its own phase, drawn uniformly in
//! [0, `heartbeat_s`) from the run's seed, and its snapshot offers only its own free slots:
//! one map and one reduce at most (Hadoop 0.20's JobTracker gave one task of each kind per
//! heartbeat), or all of them with `assign_multiple`. A slot freed between two heartbeats
//! waits for the next one: that idle time is part of the model.
//!
//! A node heartbeats only while it has a free slot of a kind with pending tasks (or while
//! anything is pending, for a policy that may preempt): it is woken when a task of a kind
//! becomes pending while none was, and when one of its slots is freed. Each heartbeat costs a
//! snapshot, O(active jobs + offered + running + nodes). One row of the epoch table covers
//! each `epoch_s` window of heartbeats (`metrics.rs`).

use crate::engine::Engine;
use crate::queue::EventKind;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Every node's phase and whether its next heartbeat is scheduled.
#[derive(Clone, Debug)]
pub(crate) struct Beats {
    phase: Vec<f64>,
    period: f64,
    multiple: bool,
    scheduled: Vec<bool>,
}

impl Beats {
    /// `nodes` phases in [0, `period`) from `seed` (a stream of its own).
    pub fn new(nodes: usize, period: f64, multiple: bool, seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x7068_6173_6573_0001);
        Self {
            phase: (0..nodes).map(|_| rng.random::<f64>() * period).collect(),
            period,
            multiple,
            scheduled: vec![false; nodes],
        }
    }

    /// The first heartbeat of node `n` at or after `now`.
    fn next(&self, n: usize, now: f64) -> f64 {
        let phase = self.phase[n];
        let k = ((now - phase) / self.period).ceil().max(0.0);
        let at = phase + k * self.period;
        if at < now {
            at + self.period
        } else {
            at
        }
    }
}

impl Engine<'_> {
    /// Whether node `n` has a use for a heartbeat.
    fn wants_beat(&self, n: usize) -> bool {
        let slots = [self.cluster.map_slots[n], self.cluster.reduce_slots[n]];
        (0..2).any(|k| self.pending[k] > 0 && self.used[n][k] < slots[k])
            || (self.pending != [0, 0] && self.cfg.may_preempt())
    }

    fn schedule_beat(&mut self, n: usize, at: f64) {
        if let Some(b) = &mut self.beats {
            if !b.scheduled[n] {
                b.scheduled[n] = true;
                self.queue.push(at, EventKind::Heartbeat(n));
            }
        }
    }

    /// A kind has pending tasks again: the epoch tick, or every node that can use a heartbeat.
    pub(crate) fn wake_all(&mut self) {
        let Some(b) = &self.beats else {
            self.offer_soon();
            return;
        };
        let times: Vec<(usize, f64)> = (0..self.cluster.len())
            .filter(|&n| !b.scheduled[n] && self.wants_beat(n))
            .map(|n| (n, b.next(n, self.now)))
            .collect();
        for (n, at) in times {
            self.schedule_beat(n, at);
        }
    }

    /// A slot of `kind` on node `n` was freed.
    pub(crate) fn slot_freed(&mut self, n: usize, kind: usize) {
        if let Some(b) = &self.beats {
            if self.pending[kind] > 0 && !b.scheduled[n] {
                let at = b.next(n, self.now);
                self.schedule_beat(n, at);
            }
        }
    }

    /// Node `n`'s heartbeat; false when the run has stalled.
    pub(crate) fn heartbeat(&mut self, n: usize) -> Result<bool, crate::SimError> {
        let Some(b) = &mut self.beats else { return Ok(true) };
        b.scheduled[n] = false;
        let (period, multiple) = (b.period, b.multiple);
        self.metrics.tick();
        if !self.wants_beat(n) {
            return Ok(true);
        }
        let slots = [self.cluster.map_slots[n], self.cluster.reduce_slots[n]];
        let mut offer = [0u32; 2];
        for k in 0..2 {
            let free = slots[k] - self.used[n][k];
            offer[k] = if self.pending[k] == 0 {
                0
            } else if multiple {
                free
            } else {
                free.min(1)
            };
        }
        let mut assigned = 0;
        if offer != [0, 0] || self.cfg.may_preempt() {
            assigned = self.solve(Some((n, offer)))?;
        }
        self.offer = None;
        if !self.progressing(assigned) {
            self.stall += 1;
            let limit = u64::from(self.cfg.stall_epochs) * self.cluster.len() as u64;
            if u64::from(self.stall) >= limit {
                return Ok(false);
            }
        }
        if self.wants_beat(n) {
            self.schedule_beat(n, self.now + period);
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_in_the_period_and_next_beats() {
        let b = Beats::new(50, 3.0, false, 7);
        assert!(b.phase.iter().all(|&p| (0.0..3.0).contains(&p)));
        let p = b.phase[0];
        assert_eq!(b.next(0, 0.0), p);
        assert_eq!(b.next(0, p), p);
        assert!((b.next(0, p + 0.001) - (p + 3.0)).abs() < 1e-9);
        assert!((b.next(0, p + 30.0) - (p + 30.0)).abs() < 1e-9);
        // Seeded: the same seed draws the same phases.
        assert_eq!(Beats::new(50, 3.0, false, 7).phase, b.phase);
    }
}
