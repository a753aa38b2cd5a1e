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
//! anything is pending, for a policy that may preempt; or a free slot of any kind while a
//! setup or cleanup task waits, `job_tasks.rs`), or an end to report (`reports.rs`): it is
//! woken when a task of a kind becomes pending while none was, when one of its slots is
//! freed, and when one of its tasks ends with the report left to its next heartbeat. Each heartbeat costs a
//! snapshot, O(active jobs + offered + running + nodes). One row of the epoch table covers
//! each `epoch_s` window of heartbeats (`metrics.rs`). The World owns the beats and the event
//! loop hands a heartbeat's offer to the Master as a parameter (`sim/README.md`).

use crate::queue::{EventKind, EventQueue};
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

/// What a heartbeat decision reads of the World: the nodes' slots and busy slots, the
/// pending tasks per kind, whether the policy may preempt.
pub(crate) struct SlotView<'w> {
    pub map_slots: &'w [u32],
    pub reduce_slots: &'w [u32],
    pub used: &'w [[u32; 2]],
    pub pending: [usize; 2],
    pub may_preempt: bool,
    /// Setup and cleanup tasks waiting for a slot of either kind (`job_tasks.rs`).
    pub job_tasks_waiting: usize,
}

impl SlotView<'_> {
    /// Whether node `n` has a use for a heartbeat.
    fn wants_beat(&self, n: usize) -> bool {
        let slots = [self.map_slots[n], self.reduce_slots[n]];
        (0..2).any(|k| self.pending[k] > 0 && self.used[n][k] < slots[k])
            || (self.pending != [0, 0] && self.may_preempt)
            || (self.job_tasks_waiting > 0 && (0..2).any(|k| self.used[n][k] < slots[k]))
    }
}

impl Beats {
    fn schedule(&mut self, n: usize, at: f64, queue: &mut EventQueue) {
        if !self.scheduled[n] {
            self.scheduled[n] = true;
            queue.push(at, EventKind::Heartbeat(n));
        }
    }

    /// A kind has pending tasks again: every node that can use a heartbeat gets its next one.
    pub fn wake_all(&mut self, view: &SlotView<'_>, now: f64, queue: &mut EventQueue) {
        let times: Vec<(usize, f64)> = (0..self.scheduled.len())
            .filter(|&n| !self.scheduled[n] && view.wants_beat(n))
            .map(|n| (n, self.next(n, now)))
            .collect();
        for (n, at) in times {
            self.schedule(n, at, queue);
        }
    }

    /// A slot of a kind with `pending` tasks was freed on node `n`.
    pub fn slot_freed(&mut self, n: usize, pending: usize, now: f64, queue: &mut EventQueue) {
        if pending > 0 && !self.scheduled[n] {
            let at = self.next(n, now);
            self.schedule(n, at, queue);
        }
    }

    /// Node `n` has an end to report (`reports.rs`): its next heartbeat, whatever it offers.
    pub fn report_due(&mut self, n: usize, now: f64, queue: &mut EventQueue) {
        if !self.scheduled[n] {
            let at = self.next(n, now);
            self.schedule(n, at, queue);
        }
    }

    /// Node `n` heartbeats: the free slots per kind it offers (one of each kind at most, or
    /// all with `assign_multiple`, and none of a kind with nothing pending); `None` when it
    /// has no use for the heartbeat.
    pub fn offer(&mut self, view: &SlotView<'_>, n: usize) -> Option<[u32; 2]> {
        self.scheduled[n] = false;
        if !view.wants_beat(n) {
            return None;
        }
        let slots = [view.map_slots[n], view.reduce_slots[n]];
        let mut offer = [0u32; 2];
        for k in 0..2 {
            let free = slots[k] - view.used[n][k];
            offer[k] = if view.pending[k] == 0 {
                0
            } else if self.multiple {
                free
            } else {
                free.min(1)
            };
        }
        Some(offer)
    }

    /// After node `n`'s heartbeat was answered: its next one, a period later, if it still has
    /// a use for it.
    pub fn answered(&mut self, view: &SlotView<'_>, n: usize, now: f64, queue: &mut EventQueue) {
        if view.wants_beat(n) {
            self.schedule(n, now + self.period, queue);
        }
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
