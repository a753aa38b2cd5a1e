//! A request's deadline (docs/operations/serving.md, "Deadlines and the anytime answer"):
//! `?deadline_ms=` wins over the snapshot's `policy.deadline_ms`, which wins over the server's
//! `deadline_ms`. The clock starts when the body has been read (queue wait and parsing count
//! against it). A timer on the request's HTTP worker calls [`Cancel::cancel`] a little before the
//! deadline; the solver, which reads no clock, then answers with its best valid placement, `status:
//! time_limited`.
//!
//! The cut comes early by a reserve for what follows it: completing the placement greedily,
//! building and serializing the answer, writing it. That tail grows with the snapshot (measured
//! about 90–100 ms for a 13.4 MB, 40,000-node snapshot on 2 cores: BENCHMARKS.md, "Through the
//! service: is the deadline met?"), so the reserve is 1 ms per 100 KB of body
//! ([`RESERVE_BYTES_PER_MS`]), at most half the deadline.
//!
//! Cost per request: one tokio timer entry (a hashed timing wheel, O(1) insert and cancel),
//! removed as soon as the solve ends.

use placer_solver::Cancel;
use std::time::{Duration, Instant};

/// Body bytes per millisecond of reserve before the deadline (see the module docs).
pub(crate) const RESERVE_BYTES_PER_MS: usize = 100_000;
use tokio::runtime::Handle;
use tokio::task::JoinHandle;

/// Everything needed to start a request's deadline timer once its policy is known.
#[derive(Debug)]
pub(crate) struct Deadline {
    query_ms: Option<u64>,
    default_ms: Option<u64>,
    body_read_at: Instant,
    reserve: Duration,
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
            reserve: Duration::ZERO,
            cancel: Cancel::new(),
            runtime: Handle::try_current().ok(),
        }
    }

    /// Cuts the solve early by a reserve for a body of `body_len` bytes: 1 ms per
    /// [`RESERVE_BYTES_PER_MS`] bytes, at most half the deadline (see the module docs).
    pub(crate) fn reserving_for(mut self, body_len: usize) -> Self {
        self.reserve = Duration::from_millis((body_len / RESERVE_BYTES_PER_MS) as u64);
        self
    }

    /// When the solve is cut for a deadline of `ms`: the deadline less the reserve, the
    /// reserve being at most half of `ms`. `None` when too far to represent.
    pub(crate) fn cut_at(&self, ms: u64) -> Option<Instant> {
        let deadline = Duration::from_millis(ms);
        let reserve = self.reserve.min(deadline / 2);
        self.body_read_at.checked_add(deadline - reserve)
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
        let at = self.cut_at(ms);
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
    fn the_cut_comes_early_by_the_reserve_at_most_half_the_deadline() {
        let now = Instant::now();
        let ms = Duration::from_millis;
        // 13.4 MB → 134 ms of reserve: a 1 s deadline cuts at 866 ms, a 250 ms one at 125 ms.
        let d = Deadline::new(None, None, now).reserving_for(13_400_000);
        assert_eq!(d.cut_at(1000), Some(now + ms(866)));
        assert_eq!(d.cut_at(250), Some(now + ms(125)));
        // A tiny body keeps the whole deadline.
        let d = Deadline::new(None, None, now).reserving_for(1_700);
        assert_eq!(d.cut_at(50), Some(now + ms(50)));
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
