//! The event queue of the discrete-event engine (DESIGN.md §What-if simulator): a binary
//! min-heap on (time, rank, sequence number). Times compare with `f64::total_cmp`; at equal
//! times, job arrivals, flow ends and task ends (rank 0) come before epoch ticks and node
//! heartbeats (rank 1), so that a tick sees everything that happened at its instant; remaining ties go in push
//! order (the sequence number), which makes every run deterministic. Stale events (a task or
//! flow rescheduled or killed since) are not removed but recognised on pop by their version
//! (lazy invalidation). O(log n) per push and pop.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// What happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EventKind {
    /// Job `0` is submitted.
    Arrival(usize),
    /// Flow `flow` finishes its transfer, if its version is still `version`.
    FlowDone {
        /// Flow slot.
        flow: usize,
        /// The flow's version when this was scheduled.
        version: u32,
    },
    /// Task `task` finishes, if its version is still `version`.
    TaskDone {
        /// Global task index.
        task: usize,
        /// The task's version when this was scheduled.
        version: u32,
    },
    /// Epoch tick number `0` (at time `0 × epoch_s`).
    Tick(u64),
    /// Node `0` heartbeats ([`crate::Offers::Heartbeats`]).
    Heartbeat(usize),
    /// Job `0`'s set-up is done: its tasks may run.
    JobReady(usize),
    /// Job `0`'s clean-up is done: it has finished.
    JobCleaned(usize),
    /// Job `0`'s copying reduces poll for finished maps.
    FetchPoll(usize),
}

impl EventKind {
    fn rank(self) -> u8 {
        match self {
            Self::Tick(_) | Self::Heartbeat(_) => 1,
            _ => 0,
        }
    }
}

/// An event at a simulated time.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Event {
    /// Simulated time, s.
    pub time: f64,
    /// rank · 2⁶³ + sequence number: the tie-break after the time, in one comparison.
    order: u64,
    /// What happens.
    pub kind: EventKind,
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Event {}

impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Event {
    /// Reversed, so that `BinaryHeap` (a max-heap) pops the earliest event first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.time.total_cmp(&self.time).then(other.order.cmp(&self.order))
    }
}

/// The queue.
#[derive(Debug, Default)]
pub(crate) struct EventQueue {
    heap: BinaryHeap<Event>,
    next_seq: u64,
}

impl EventQueue {
    /// Schedules `kind` at `time`.
    pub fn push(&mut self, time: f64, kind: EventKind) {
        let seq = self.next_seq;
        self.next_seq += 1;
        // Fewer than 2⁶³ pushes: the sequence number never reaches the rank bit.
        let order = (u64::from(kind.rank()) << 63) | seq;
        self.heap.push(Event { time, order, kind });
    }

    /// The earliest event.
    pub fn pop(&mut self) -> Option<Event> {
        self.heap.pop()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_then_rank_then_push_order() {
        let mut q = EventQueue::default();
        q.push(3.0, EventKind::Tick(1));
        q.push(3.0, EventKind::TaskDone { task: 7, version: 0 });
        q.push(1.0, EventKind::Arrival(2));
        q.push(3.0, EventKind::Arrival(0));
        let order: Vec<EventKind> = std::iter::from_fn(|| q.pop()).map(|e| e.kind).collect();
        assert_eq!(
            order,
            [
                EventKind::Arrival(2),
                EventKind::TaskDone { task: 7, version: 0 },
                EventKind::Arrival(0),
                EventKind::Tick(1),
            ]
        );
    }
}
