//! The overload guard (DESIGN.md §Errors: 503 with Retry-After): a counter of snapshots in
//! flight, taken before the body is read and released when the solve ends (RAII), so at most
//! `max_in_flight` bodies sit in memory and at most that many solves occupy the blocking pool.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// A shared counter with a ceiling; clones share the count.
#[derive(Clone, Debug)]
pub(crate) struct InFlight {
    count: Arc<AtomicUsize>,
    max: usize,
}

impl InFlight {
    /// A counter at 0 that admits at most `max` holders at once.
    pub(crate) fn new(max: usize) -> Self {
        Self { count: Arc::new(AtomicUsize::new(0)), max }
    }

    /// The ceiling.
    pub(crate) fn max(&self) -> usize {
        self.max
    }

    /// Holders right now.
    pub(crate) fn current(&self) -> usize {
        self.count.load(Ordering::Acquire)
    }

    /// Takes a slot, or `None` when `max` are taken. Never blocks.
    pub(crate) fn try_acquire(&self) -> Option<InFlightGuard> {
        self.count
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n < self.max).then_some(n + 1))
            .ok()
            .map(|_| {
                crate::metrics::in_flight_changed(1);
                InFlightGuard { count: Arc::clone(&self.count) }
            })
    }
}

/// One slot; released on drop, also when a solve panics or the client goes away.
#[derive(Debug)]
pub(crate) struct InFlightGuard {
    count: Arc<AtomicUsize>,
}

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        self.count.fetch_sub(1, Ordering::AcqRel);
        crate::metrics::in_flight_changed(-1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admits_up_to_max_and_releases_on_drop() {
        let limit = InFlight::new(2);
        let a = limit.try_acquire();
        let b = limit.try_acquire();
        assert!(a.is_some() && b.is_some());
        assert!(limit.try_acquire().is_none());
        assert_eq!(limit.current(), 2);
        drop(a);
        assert_eq!(limit.current(), 1);
        assert!(limit.try_acquire().is_some());
        drop(b);
        assert_eq!(limit.current(), 0);
    }

    #[test]
    fn zero_admits_nothing() {
        assert!(InFlight::new(0).try_acquire().is_none());
    }
}
