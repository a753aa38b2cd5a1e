//! A request's deadline (issue 16 §3; DESIGN.md §Service endpoints): `?deadline_ms=` wins over
//! the snapshot's `policy.deadline_ms`, which wins over the server's `deadline_ms`. The clock
//! starts when the body has been read (queue wait and parsing count against it). At the
//! deadline a timer on the request's HTTP worker calls [`Cancel::cancel`]; the solver, which
//! reads no clock, then answers with its best valid placement, `status: time_limited`.
//!
//! Cost per request: one tokio timer entry (a hashed timing wheel, O(1) insert and cancel),
//! removed as soon as the solve ends.

use placer_solver::Cancel;
use std::time::{Duration, Instant};
use tokio::runtime::Handle;
use tokio::task::JoinHandle;

/// Everything needed to start a request's deadline timer once its policy is known.
#[derive(Debug)]
pub(crate) struct Deadline {
    query_ms: Option<u64>,
    default_ms: Option<u64>,
    body_read_at: Instant,
    cancel: Cancel,
    runtime: Option<Handle>,
}

impl Deadline {
    /// A deadline whose clock started at `body_read_at`. Call on the HTTP worker (inside a
    /// tokio runtime); outside one, deadlines in the future never fire.
    pub(crate) fn new(
        query_ms: Option<u64>,
        default_ms: Option<u64>,
        body_read_at: Instant,
    ) -> Self {
        Self {
            query_ms,
            default_ms,
            body_read_at,
            cancel: Cancel::new(),
            runtime: Handle::try_current().ok(),
        }
    }

    /// The token the solver polls (put it in `PlaceOptions.cancel`).
    pub(crate) fn cancel(&self) -> Cancel {
        self.cancel.clone()
    }

    /// The deadline in force for a snapshot whose `policy.deadline_ms` is `policy_ms`:
    /// query > policy > server default.
    pub(crate) fn effective_ms(&self, policy_ms: Option<u64>) -> Option<u64> {
        self.query_ms.or(policy_ms).or(self.default_ms)
    }

    /// Starts the timer for the effective deadline; dropping the returned guard stops it.
    /// A deadline already past cancels at once. Callable from any thread.
    pub(crate) fn arm(&self, policy_ms: Option<u64>) -> Armed {
        let Some(ms) = self.effective_ms(policy_ms) else { return Armed(None) };
        let at = self.body_read_at.checked_add(Duration::from_millis(ms));
        let now = Instant::now();
        match (at, &self.runtime) {
            (Some(at), _) if at <= now => {
                self.cancel.cancel();
                Armed(None)
            }
            (Some(at), Some(runtime)) => {
                let cancel = self.cancel.clone();
                let at = tokio::time::Instant::from_std(at);
                Armed(Some(runtime.spawn(async move {
                    tokio::time::sleep_until(at).await;
                    cancel.cancel();
                })))
            }
            // Too far to represent, or no runtime: never fires.
            _ => Armed(None),
        }
    }
}

/// A running deadline timer; stopped on drop.
#[derive(Debug)]
pub(crate) struct Armed(Option<JoinHandle<()>>);

impl Drop for Armed {
    fn drop(&mut self) {
        if let Some(timer) = self.0.take() {
            timer.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_wins_then_the_policy_then_the_default() {
        let now = Instant::now();
        assert_eq!(Deadline::new(Some(1), Some(3), now).effective_ms(Some(2)), Some(1));
        assert_eq!(Deadline::new(None, Some(3), now).effective_ms(Some(2)), Some(2));
        assert_eq!(Deadline::new(None, Some(3), now).effective_ms(None), Some(3));
        assert_eq!(Deadline::new(None, None, now).effective_ms(None), None);
    }

    #[test]
    fn a_deadline_already_past_cancels_at_once() {
        let d = Deadline::new(Some(0), None, Instant::now());
        let _armed = d.arm(None);
        assert!(d.cancel().is_cancelled());
    }

    #[test]
    fn no_deadline_never_cancels() {
        let d = Deadline::new(None, None, Instant::now());
        let _armed = d.arm(None);
        assert!(!d.cancel().is_cancelled());
    }

    #[actix_web::test]
    async fn the_timer_fires_on_the_runtime() {
        let d = Deadline::new(Some(1), None, Instant::now());
        let armed = d.arm(None);
        let cancel = d.cancel();
        while !cancel.is_cancelled() {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        drop(armed);
    }
}
