//! Cancellation of a solve in progress (docs/operations/serving.md, "Deadlines and the
//! anytime answer"). The solver reads no clock: the caller owns the deadline and flips this token;
//! the solver polls it at bounded intervals and then answers with the best valid placement it has,
//! marked `time_limited`. For tests, [`Cancel::after_polls`] is a deterministic trigger: it
//! reports cancelled from its n-th poll on, so a cut lands at the same point on every run.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// The shared state of a token and its clones.
#[derive(Debug, Default)]
struct Inner {
    /// Set by [`Cancel::cancel`] (or by the poll budget running out).
    flag: AtomicBool,
    /// Polls so far ([`Cancel::is_cancelled`] calls), counted only under a poll budget.
    polls: AtomicU64,
    /// [`Cancel::after_polls`]'s budget: polls answered `false` before the first `true`.
    budget: Option<u64>,
}

/// A shared flag; clones share it. Cheap to poll (one relaxed atomic load, plus one atomic
/// increment under [`Cancel::after_polls`]).
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<Inner>);

impl Cancel {
    /// A token not yet cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// A deterministic token for tests and budgets: polls 0 … n − 1 answer `false`, every
    /// poll from the n-th on answers `true` (`after_polls(0)`: cancelled before the first
    /// poll). [`Cancel::cancel`] still cancels it at once.
    ///
    /// # Complexity
    /// O(1).
    ///
    /// # Errors
    /// None.
    ///
    /// # Examples
    /// ```
    /// use placer_solver::Cancel;
    /// let token = Cancel::after_polls(2);
    /// assert_eq!([0; 4].map(|_| token.is_cancelled()), [false, false, true, true]);
    /// assert!(Cancel::after_polls(0).is_cancelled());
    /// ```
    pub fn after_polls(n: u64) -> Self {
        Self(Arc::new(Inner { budget: Some(n), ..Inner::default() }))
    }

    /// Asks every solve holding a clone to stop as soon as it can.
    pub fn cancel(&self) {
        self.0.flag.store(true, Ordering::Relaxed);
    }

    /// Whether [`Cancel::cancel`] was called on any clone (or, under
    /// [`Cancel::after_polls`], whether this poll is beyond the budget; each call is a poll).
    pub fn is_cancelled(&self) -> bool {
        if self.0.flag.load(Ordering::Relaxed) {
            return true;
        }
        let Some(budget) = self.0.budget else { return false };
        if self.0.polls.fetch_add(1, Ordering::Relaxed) >= budget {
            self.0.flag.store(true, Ordering::Relaxed);
            return true;
        }
        false
    }
}

/// Polls an optional token: `false` without one.
#[inline]
pub(crate) fn is_cut(cancel: Option<&Cancel>) -> bool {
    cancel.is_some_and(Cancel::is_cancelled)
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

    #[test]
    fn a_poll_budget_cuts_at_the_nth_poll_and_stays_cut() {
        let a = Cancel::after_polls(3);
        let b = a.clone();
        assert!(!a.is_cancelled());
        assert!(!b.is_cancelled(), "clones share the count");
        assert!(!a.is_cancelled());
        assert!(b.is_cancelled());
        assert!(a.is_cancelled());
        let c = Cancel::after_polls(100);
        c.cancel();
        assert!(c.is_cancelled(), "cancel() wins over the budget");
        assert!(!Cancel::new().is_cancelled() && !is_cut(None));
    }
}
