//! The deadline of `placer place` (docs/operations/serving.md, "Deadlines and the anytime
//! answer"): the snapshot's `policy.deadline_ms`, honoured offline as `POST /place` honours it. The
//! clock starts once the file is read; at the deadline a timer thread calls [`Cancel::cancel`] on
//! the token the solver polls, and the answer is the best valid placement found, `stats.status:
//! time_limited`. A solve that ends first stops the timer.

use placer_solver::Cancel;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

/// A running deadline timer; dropping it stops the timer (the solve is over).
#[derive(Debug)]
pub(crate) struct Armed {
    /// Dropped to wake the timer thread before its deadline.
    _stop: Sender<()>,
}

/// Cancels `cancel` `ms` milliseconds after `start`, unless the returned guard is dropped
/// first. A deadline already past cancels at once, on this thread.
///
/// # Complexity
/// One thread, asleep until the deadline or the guard's drop.
///
/// # Errors
/// None: if no thread can be started, the deadline is enforced at once (the solve then
/// answers its greedy placement, `time_limited`), never ignored.
pub(crate) fn arm(cancel: &Cancel, start: Instant, ms: u64) -> Armed {
    let (stop, stopped) = mpsc::channel::<()>();
    let at = start.checked_add(Duration::from_millis(ms));
    let left = at.map(|at| at.saturating_duration_since(Instant::now()));
    match left {
        Some(left) if left.is_zero() => cancel.cancel(),
        // Too far to represent: never reached.
        None => {}
        Some(left) => {
            let token = cancel.clone();
            let spawned =
                std::thread::Builder::new().name("placer-deadline".to_owned()).spawn(move || {
                    if let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(left) {
                        token.cancel();
                    }
                });
            if spawned.is_err() {
                cancel.cancel();
            }
        }
    }
    Armed { _stop: stop }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_past_deadline_cancels_at_once() {
        let token = Cancel::new();
        let start =
            Instant::now().checked_sub(Duration::from_millis(5)).unwrap_or_else(Instant::now);
        let _armed = arm(&token, start, 0);
        assert!(token.is_cancelled());
    }

    #[test]
    fn the_timer_cancels_at_the_deadline_and_not_before() {
        let token = Cancel::new();
        let _armed = arm(&token, Instant::now(), 50);
        assert!(!token.is_cancelled(), "cancelled before the deadline");
        std::thread::sleep(Duration::from_millis(500));
        assert!(token.is_cancelled(), "not cancelled 450 ms after the deadline");
    }

    #[test]
    fn a_solve_that_ends_first_stops_the_timer() {
        let token = Cancel::new();
        drop(arm(&token, Instant::now(), 30));
        std::thread::sleep(Duration::from_millis(200));
        assert!(!token.is_cancelled(), "cancelled after the guard was dropped");
    }
}
