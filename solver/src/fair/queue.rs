//! A forward-only task queue shared by the greedy heartbeat policies (lsap-sched §3.1 dl-sched;
//! FAIR Alg. 1): tasks in snapshot order with a cursor that skips tasks already placed, so
//! that finding the first unplaced task is amortised O(1).

/// Pending task positions with a cursor.
#[derive(Clone, Debug, Default)]
pub struct Queue {
    /// Task positions in `pending`, in snapshot order.
    pub tasks: Vec<usize>,
    next: usize,
}

impl Queue {
    /// A queue over `tasks`.
    pub fn new(tasks: Vec<usize>) -> Self {
        Self { tasks, next: 0 }
    }

    /// The first task not yet placed, if any.
    pub fn first_unplaced(&mut self, placed: &[bool]) -> Option<usize> {
        while let Some(&t) = self.tasks.get(self.next) {
            if !placed[t] {
                return Some(t);
            }
            self.next += 1;
        }
        None
    }

    /// The first unplaced task that satisfies `fits`, without skipping the unplaced ones that
    /// do not (they may fit another slot). O(unplaced tasks scanned).
    pub fn first_unplaced_where(
        &mut self,
        placed: &[bool],
        mut fits: impl FnMut(usize) -> bool,
    ) -> Option<usize> {
        self.first_unplaced(placed)?;
        self.tasks[self.next..].iter().copied().find(|&t| !placed[t] && fits(t))
    }
}

/// Offers free slots in rounds of heartbeats: round k visits, in node order, every node with
/// more than k free slots and still accepting, until `offer` returns [`Offer::Done`] (nothing
/// left to place). A node that declines ([`Offer::Declined`]) is not offered again this epoch:
/// its next heartbeat is the next epoch. O(offers + nodes), so a node with billions of free
/// slots costs nothing extra.
pub fn heartbeat_rounds(free: &[u32], mut offer: impl FnMut(usize) -> Offer) {
    let mut active: Vec<usize> = (0..free.len()).filter(|&n| free[n] > 0).collect();
    let mut round = 0;
    while !active.is_empty() {
        let mut declined = Vec::new();
        for &n in &active {
            match offer(n) {
                Offer::Taken => {}
                Offer::Declined => declined.push(n),
                Offer::Done => return,
            }
        }
        round += 1;
        active.retain(|&n| free[n] > round && declined.binary_search(&n).is_err());
    }
}

/// What happened to one offered slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// A task took the slot.
    Taken,
    /// No task wanted the slot; stop offering this node.
    Declined,
    /// No task is left to place: stop.
    Done,
}
