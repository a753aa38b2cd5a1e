//! The event queue of the discrete-event engine (`sim/README.md`): a 4-ary
//! min-heap on (time, rank, sequence number). Times compare with `f64::total_cmp`; at equal
//! times, job arrivals, flow ends and task ends (rank 0) come before epoch ticks and node
//! heartbeats (rank 1), so that a tick sees everything that happened at its instant; remaining ties go in push
//! order (the sequence number), which makes every run deterministic. Stale events (a task or
//! flow rescheduled or killed since) are not removed but recognised on pop by their version
//! (lazy invalidation). O(log n) per push and pop.

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

impl Event {
    /// Whether `self` comes before `other`: earlier, else lower rank, else pushed first.
    #[inline]
    fn before(&self, other: &Self) -> bool {
        (self.key, self.order) < (other.key, other.order)
    }
}

/// The queue: a 4-ary min-heap on (time, rank, sequence number). Against a binary heap it has
/// half the levels, and a pop's sift-down compares a level's four children, which sit side by
/// side in memory. Keys are unique (the sequence number), so the pop order is the one any heap
/// gives.
#[derive(Debug, Default)]
pub(crate) struct EventQueue {
    heap: Vec<Event>,
    next_seq: u64,
}

/// Children per heap entry.
const ARITY: usize = 4;

impl EventQueue {
    /// Schedules `kind` at `time`. O(log₄ n).
    pub fn push(&mut self, time: f64, kind: EventKind) {
        let seq = self.next_seq;
        self.next_seq += 1;
        // Fewer than 2⁶³ pushes: the sequence number never reaches the rank bit.
        let order = (u64::from(kind.rank()) << 63) | seq;
        let event = Event { key: time_key(time), order, kind };
        let mut i = self.heap.len();
        self.heap.push(event);
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if !event.before(&self.heap[parent]) {
                break;
            }
            self.heap[i] = self.heap[parent];
            i = parent;
        }
        self.heap[i] = event;
    }

    /// The earliest event. O(4 log₄ n).
    pub fn pop(&mut self) -> Option<Event> {
        let last = self.heap.pop()?;
        let Some(&first) = self.heap.first() else { return Some(last) };
        // `last` sinks from the root into the hole the earliest event leaves.
        let n = self.heap.len();
        let mut i = 0;
        loop {
            let child = ARITY * i + 1;
            if child >= n {
                break;
            }
            let mut least = child;
            for c in child + 1..(child + ARITY).min(n) {
                if self.heap[c].before(&self.heap[least]) {
                    least = c;
                }
            }
            if !self.heap[least].before(&last) {
                break;
            }
            self.heap[i] = self.heap[least];
            i = least;
        }
        self.heap[i] = last;
        Some(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Any interleaving of pushes and pops gives the events in (time, rank, push order),
        /// as a sorted list of the pending ones does.
        #[test]
        fn pops_in_time_rank_push_order(
            ops in proptest::collection::vec((0u8..8, 0u8..4, proptest::bool::ANY), 0..300),
        ) {
            let mut q = EventQueue::default();
            let mut pending: Vec<(u8, u8, usize)> = Vec::new();
            for (seq, (time, what, pop)) in ops.into_iter().enumerate() {
                if pop {
                    let want = pending
                        .iter()
                        .enumerate()
                        .min_by_key(|(_, &(t, rank, s))| (t, rank, s))
                        .map(|(i, _)| i)
                        .map(|i| pending.remove(i));
                    let got = q.pop().map(|e| match e.kind {
                        EventKind::Tick(s) => (e.time(), s as usize),
                        EventKind::Arrival(s) => (e.time(), s),
                        other => panic!("pushed no {other:?}"),
                    });
                    proptest::prop_assert_eq!(got, want.map(|(t, _, s)| (f64::from(t), s)));
                } else {
                    // Odd `what`: a tick (rank 1) at that time, else an arrival (rank 0).
                    let rank = what % 2;
                    let kind = if rank == 1 { EventKind::Tick(seq as u64) } else { EventKind::Arrival(seq) };
                    q.push(f64::from(time), kind);
                    pending.push((time, rank, seq));
                }
            }
        }
    }

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
