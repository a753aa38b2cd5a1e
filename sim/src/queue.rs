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
    /// The simulated time (s) as an integer of the same order as `f64::total_cmp`
    /// ([`time_key`]): a heap comparison is then two integer comparisons.
    key: u64,
    /// rank · 2⁶³ + sequence number: the tie-break after the time, in one comparison.
    order: u64,
    /// What happens.
    pub kind: EventKind,
}

impl Event {
    /// Simulated time, s.
    pub fn time(&self) -> f64 {
        time_of(self.key)
    }
}

/// `t`'s bits mapped so that unsigned order is `f64::total_cmp`'s: a negative number's bits
/// are all flipped (larger magnitude, smaller key), a positive one's sign bit set.
fn time_key(t: f64) -> u64 {
    let bits = t.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

/// The inverse of [`time_key`].
fn time_of(key: u64) -> f64 {
    f64::from_bits(if key >> 63 == 1 { key & !(1 << 63) } else { !key })
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
        (other.key, other.order).cmp(&(self.key, self.order))
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
        self.heap.push(Event { key: time_key(time), order, kind });
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
    fn time_keys_order_as_total_cmp_and_round_trip() {
        let times = [
            f64::NEG_INFINITY,
            -1e300,
            -2.5,
            -0.0,
            0.0,
            f64::MIN_POSITIVE,
            1.0,
            86_400.125,
            f64::MAX,
            f64::INFINITY,
        ];
        for (i, &a) in times.iter().enumerate() {
            assert_eq!(time_of(time_key(a)).to_bits(), a.to_bits());
            for &b in &times[i..] {
                assert_eq!(time_key(a).cmp(&time_key(b)), a.total_cmp(&b), "{a} vs {b}");
            }
        }
        let nan = f64::NAN;
        assert_eq!(time_key(nan).cmp(&time_key(f64::INFINITY)), nan.total_cmp(&f64::INFINITY));
    }

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
