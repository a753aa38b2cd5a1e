//! Cancellation of a solve in progress (DESIGN.md §Service endpoints: deadlines with an anytime
//! answer). The solver reads no clock: the caller owns the deadline and flips this token; the
//! solver polls it at bounded intervals and then answers with the best valid placement it has,
//! marked `time_limited`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A shared flag; clones share it. Cheap to poll (one relaxed atomic load).
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// A token not yet cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks every solve holding a clone to stop as soon as it can.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether [`Cancel::cancel`] was called on any clone.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

impl PartialEq for Cancel {
    /// Two tokens are equal when they are the same flag.
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Cancel {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_flag() {
        let a = Cancel::new();
        let b = a.clone();
        assert!(!b.is_cancelled());
        a.cancel();
        assert!(b.is_cancelled());
        assert_eq!(a, b);
        assert_ne!(a, Cancel::new());
    }
}
