//! Admission control for solves (issue 16 §1 "admission that holds"; DESIGN.md §Errors: 503 with
//! Retry-After): a request whose body is fully read asks for a permit weighted by its estimated
//! peak memory. It runs at once when fewer than `max_in_flight` solves run, their estimates plus
//! its own fit `max_memory_bytes`, and nobody is queued ahead of it; otherwise it waits in a
//! bounded FIFO queue for at most `queue_wait`. The one exception to FIFO: a tiny request may
//! pass a head that waits for memory while a core is idle. A full queue or an expired wait is a 503; an
//! estimate larger than the whole budget can never run and is refused at once.

use crate::metrics;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tokio::sync::oneshot;

/// Estimated peak memory, in bytes, of solving a snapshot whose (decoded) body is `body_len`
/// bytes: the solver's measured bound, [`placer_solver::memory::peak_estimate_bytes`]
/// (`PEAK_BYTES_PER_BODY_BYTE` × body, the body included).
///
/// # Complexity
/// O(1).
pub fn estimate_solve_bytes(body_len: usize) -> u64 {
    u64::try_from(placer_solver::memory::peak_estimate_bytes(body_len)).unwrap_or(u64::MAX)
}

/// The limits one admission decision uses (read from the live configuration per request).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    /// Most permits held at once; 0 refuses everything.
    pub max_in_flight: usize,
    /// Budget for the sum of the held permits' weights.
    pub max_memory_bytes: u64,
    /// Most requests waiting.
    pub queue_len: usize,
    /// Longest wait.
    pub queue_wait: Duration,
}

/// Why a request was not admitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// `max_in_flight` is 0: the server admits nothing.
    Closed,
    /// The weight alone exceeds the whole memory budget; waiting cannot help.
    OverBudget {
        /// The request's weight.
        weight: u64,
        /// `max_memory_bytes`.
        budget: u64,
    },
    /// `queue_len` requests are already waiting.
    QueueFull {
        /// `queue_len`.
        queue_len: usize,
    },
    /// No slot came free within `queue_wait`.
    TimedOut {
        /// `queue_wait` in ms.
        waited_ms: u64,
    },
}

/// The shared admission state; clones share it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Admission(Arc<Mutex<Inner>>);

#[derive(Debug, Default)]
struct Inner {
    running: usize,
    bytes: u64,
    queue: VecDeque<Waiter>,
    next_id: u64,
    /// The limits of the latest request, used to admit waiters when a permit is released.
    limits: Option<Limits>,
}

#[derive(Debug)]
struct Waiter {
    id: u64,
    weight: u64,
    grant: oneshot::Sender<Permit>,
}

impl Inner {
    fn fits(&self, weight: u64, limits: &Limits) -> bool {
        self.running < limits.max_in_flight
            && self.bytes.saturating_add(weight) <= limits.max_memory_bytes
    }

    /// Whether a tiny request (weight ≤ budget / [`TINY_FRACTION`]) may pass the waiting head:
    /// the head waits for memory only (a solve slot is free besides the one left for it), and
    /// the tiny one fits. Tiny solves end fast and hold a negligible share of the budget, so the
    /// head is not starved, and a core is never left idle while tiny snapshots wait behind a
    /// large one.
    fn may_pass_head(&self, weight: u64, limits: &Limits) -> bool {
        weight <= limits.max_memory_bytes / TINY_FRACTION
            && self.running.saturating_add(1) < limits.max_in_flight
            && self.bytes.saturating_add(weight) <= limits.max_memory_bytes
    }

    /// Pops the waiters that may run now: the head and those after it in FIFO order while they
    /// fit; then, if the head still waits for memory, the tiny waiters behind it that
    /// [`Inner::may_pass_head`]. A large waiter is never overtaken by another large one.
    fn admit_waiters(&mut self) -> Vec<(oneshot::Sender<Permit>, u64)> {
        let Some(limits) = self.limits else { return Vec::new() };
        let mut granted = Vec::new();
        while let Some(head) = self.queue.front() {
            if !self.fits(head.weight, &limits) {
                break;
            }
            let Some(w) = self.queue.pop_front() else { break };
            self.running += 1;
            self.bytes += w.weight;
            granted.push((w.grant, w.weight));
        }
        let mut i = 1;
        while i < self.queue.len() {
            if self.may_pass_head(self.queue[i].weight, &limits) {
                if let Some(w) = self.queue.remove(i) {
                    self.running += 1;
                    self.bytes += w.weight;
                    granted.push((w.grant, w.weight));
                }
            } else {
                i += 1;
            }
        }
        granted
    }

    /// The gauges `placer_solves_in_flight` and `placer_admission_queue` (under the lock, so
    /// they never go back in time).
    fn publish(&self) {
        metrics::in_flight(self.running);
        metrics::queue_len(self.queue.len());
    }
}

/// A request is tiny when its weight is at most 1/1024 of the memory budget (with a 12 GiB
/// budget: bodies up to 1.5 MB); tiny requests may pass a head that waits for memory.
const TINY_FRACTION: u64 = 1024;

impl Admission {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn permit(&self, weight: u64) -> Permit {
        Permit { admission: self.clone(), weight }
    }

    /// Hands permits to admitted waiters (outside the lock: a waiter that left drops its permit,
    /// which releases it again).
    fn send(&self, granted: Vec<(oneshot::Sender<Permit>, u64)>) {
        for (grant, weight) in granted {
            // A receiver that is gone returns the permit, whose drop releases it.
            let _ = grant.send(self.permit(weight));
        }
    }

    /// A permit of `weight` bytes under `limits`: at once if it fits and nobody waits, else
    /// after waiting in FIFO order for at most `limits.queue_wait`.
    ///
    /// # Errors
    /// [`Refusal`]: closed, over budget, queue full or timed out.
    ///
    /// # Complexity
    /// O(1) amortised per call plus O(queue) to leave the queue on timeout.
    pub(crate) async fn acquire(&self, weight: u64, limits: Limits) -> Result<Permit, Refusal> {
        let (id, mut receiver) = match self.enqueue(weight, limits)? {
            Enqueued::Admitted(permit) => return Ok(permit),
            Enqueued::Waiting { id, receiver } => (id, receiver),
        };
        let leave = LeaveOnDrop { admission: self, id };
        match tokio::time::timeout(limits.queue_wait, &mut receiver).await {
            Ok(Ok(permit)) => Ok(permit),
            // The sender is dropped only after `leave` removed us; treat as a timeout.
            Ok(Err(_)) | Err(_) => {
                drop(leave);
                // Granted between the timer firing and leaving the queue: take it.
                receiver.try_recv().map_err(|_| Refusal::TimedOut {
                    waited_ms: u64::try_from(limits.queue_wait.as_millis()).unwrap_or(u64::MAX),
                })
            }
        }
    }

    fn enqueue(&self, weight: u64, limits: Limits) -> Result<Enqueued, Refusal> {
        if limits.max_in_flight == 0 {
            return Err(Refusal::Closed);
        }
        if weight > limits.max_memory_bytes {
            return Err(Refusal::OverBudget { weight, budget: limits.max_memory_bytes });
        }
        let mut inner = self.lock();
        inner.limits = Some(limits);
        // Limits may have grown since the last release (a reload): admit whoever fits now.
        let granted = inner.admit_waiters();
        let admit_now = (inner.queue.is_empty() && inner.fits(weight, &limits))
            || (!inner.queue.is_empty() && inner.may_pass_head(weight, &limits));
        let outcome = if admit_now {
            inner.running += 1;
            inner.bytes += weight;
            Ok(Enqueued::Admitted(self.permit(weight)))
        } else if inner.queue.len() >= limits.queue_len {
            Err(Refusal::QueueFull { queue_len: limits.queue_len })
        } else {
            let id = inner.next_id;
            inner.next_id += 1;
            let (grant, receiver) = oneshot::channel();
            inner.queue.push_back(Waiter { id, weight, grant });
            Ok(Enqueued::Waiting { id, receiver })
        };
        inner.publish();
        drop(inner);
        self.send(granted);
        outcome
    }

    fn release(&self, weight: u64) {
        let mut inner = self.lock();
        inner.running = inner.running.saturating_sub(1);
        inner.bytes = inner.bytes.saturating_sub(weight);
        let granted = inner.admit_waiters();
        inner.publish();
        drop(inner);
        self.send(granted);
    }

    /// Permits held now.
    pub(crate) fn running(&self) -> usize {
        self.lock().running
    }

    /// Requests waiting now.
    pub(crate) fn queued(&self) -> usize {
        self.lock().queue.len()
    }

    /// Whether a request arriving now would be refused for lack of room: every solve slot is
    /// taken (or others already wait) and the queue holds `limits.queue_len` requests. Memory
    /// is not considered (the weight is not known yet).
    pub(crate) fn would_refuse(&self, limits: &Limits) -> bool {
        let inner = self.lock();
        let slot_free = inner.queue.is_empty() && inner.running < limits.max_in_flight;
        limits.max_in_flight == 0 || (!slot_free && inner.queue.len() >= limits.queue_len)
    }
}

enum Enqueued {
    Admitted(Permit),
    Waiting { id: u64, receiver: oneshot::Receiver<Permit> },
}

/// Removes a waiter from the queue when its request gives up (timeout, client gone).
struct LeaveOnDrop<'a> {
    admission: &'a Admission,
    id: u64,
}

impl Drop for LeaveOnDrop<'_> {
    fn drop(&mut self) {
        let mut inner = self.admission.lock();
        inner.queue.retain(|w| w.id != self.id);
        // The head may have been the one blocking the others.
        let granted = inner.admit_waiters();
        inner.publish();
        drop(inner);
        self.admission.send(granted);
    }
}

/// A running solve's share of the limits; released on drop, also when the solve panics or the
/// client goes away.
#[derive(Debug)]
pub(crate) struct Permit {
    admission: Admission,
    weight: u64,
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.admission.release(self.weight);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn limits(max_in_flight: usize, max_memory_bytes: u64, queue_len: usize) -> Limits {
        Limits { max_in_flight, max_memory_bytes, queue_len, queue_wait: Duration::from_secs(60) }
    }

    /// Polls `fut` once without waiting (a `Pending` future comes back unfinished).
    async fn poll_once<F: std::future::Future + Unpin>(fut: &mut F) -> Option<F::Output> {
        std::future::poll_fn(|cx| {
            std::task::Poll::Ready(match std::pin::Pin::new(&mut *fut).poll(cx) {
                std::task::Poll::Ready(v) => Some(v),
                std::task::Poll::Pending => None,
            })
        })
        .await
    }

    #[test]
    fn the_estimate_is_the_solvers_measured_bound() {
        let factor = placer_solver::memory::PEAK_BYTES_PER_BODY_BYTE as u64;
        assert_eq!(estimate_solve_bytes(1000), 1000 * factor);
        assert_eq!(estimate_solve_bytes(usize::MAX), u64::MAX);
    }

    #[actix_web::test]
    async fn admits_up_to_the_count_and_releases_on_drop() {
        let adm = Admission::default();
        let l = limits(2, 1 << 30, 0);
        assert!(!adm.would_refuse(&l), "a free slot is ready even with no queue");
        let a = adm.acquire(1, l).await.unwrap();
        let _b = adm.acquire(1, l).await.unwrap();
        assert_eq!(adm.running(), 2);
        assert!(adm.would_refuse(&l));
        // queue_len 0: the third is refused without waiting.
        assert_eq!(adm.acquire(1, l).await.unwrap_err(), Refusal::QueueFull { queue_len: 0 });
        drop(a);
        assert_eq!(adm.running(), 1);
        assert!(adm.acquire(1, l).await.is_ok());
    }

    #[actix_web::test]
    async fn weights_share_the_memory_budget() {
        let adm = Admission::default();
        let l = limits(8, 100, 0);
        let big = adm.acquire(70, l).await.unwrap();
        // 70 + 40 > 100 even though cores are free.
        assert!(matches!(adm.acquire(40, l).await, Err(Refusal::QueueFull { .. })));
        let _small = adm.acquire(30, l).await.unwrap();
        drop(big);
        assert!(adm.acquire(40, l).await.is_ok());
    }

    #[actix_web::test]
    async fn a_weight_over_the_whole_budget_is_refused_at_once() {
        let adm = Admission::default();
        let refusal = adm.acquire(101, limits(8, 100, 10)).await.unwrap_err();
        assert_eq!(refusal, Refusal::OverBudget { weight: 101, budget: 100 });
        assert_eq!(adm.queued(), 0);
    }

    #[actix_web::test]
    async fn zero_in_flight_admits_nothing() {
        let adm = Admission::default();
        assert_eq!(adm.acquire(0, limits(0, 100, 10)).await.unwrap_err(), Refusal::Closed);
    }

    #[actix_web::test]
    async fn waiters_are_admitted_in_fifo_order() {
        let adm = Admission::default();
        let l = limits(1, 1 << 30, 10);
        let first = adm.acquire(1, l).await.unwrap();
        let mut second = Box::pin(adm.acquire(5, l));
        let mut third = Box::pin(adm.acquire(1, l));
        assert!(poll_once(&mut second).await.is_none());
        assert!(poll_once(&mut third).await.is_none());
        assert_eq!(adm.queued(), 2);
        assert!(adm.would_refuse(&limits(1, 1 << 30, 2)));
        assert!(!adm.would_refuse(&limits(1, 1 << 30, 3)));
        drop(first);
        // The slot goes to the head of the queue, not to the later (lighter) one.
        assert!(poll_once(&mut third).await.is_none());
        let second = poll_once(&mut second).await.expect("head admitted").unwrap();
        assert_eq!(second.weight, 5);
        drop(second);
        assert!(poll_once(&mut third).await.expect("admitted").is_ok());
        assert_eq!((adm.running(), adm.queued()), (0, 0));
    }

    #[actix_web::test]
    async fn a_newcomer_does_not_overtake_the_queue() {
        let adm = Admission::default();
        let l = limits(2, 100, 10);
        let _a = adm.acquire(60, l).await.unwrap();
        let mut big = Box::pin(adm.acquire(60, l));
        assert!(poll_once(&mut big).await.is_none());
        // A core is free and 10 fits the budget, but `big` waits ahead of it.
        let mut small = Box::pin(adm.acquire(10, l));
        assert!(poll_once(&mut small).await.is_none());
        assert_eq!(adm.queued(), 2);
    }

    #[actix_web::test]
    async fn a_tiny_snapshot_passes_a_head_waiting_for_memory_while_a_core_is_idle() {
        let adm = Admission::default();
        let l = limits(3, 1 << 20, 10);
        let held = adm.acquire(600_000, l).await.unwrap();
        let mut big = Box::pin(adm.acquire(600_000, l));
        assert!(poll_once(&mut big).await.is_none(), "waits for memory");
        // 1,024 ≤ 2^20 / 1024: tiny, and a slot is free besides the one left for `big`.
        let tiny = adm.acquire(1024, l).await.expect("tiny runs at once");
        // Now only the slot kept for `big` is free: the next tiny one waits.
        let mut tiny2 = Box::pin(adm.acquire(1024, l));
        assert!(poll_once(&mut tiny2).await.is_none());
        // One byte over the tiny bound never passes.
        drop(tiny);
        let mut small = Box::pin(adm.acquire(1025, l));
        assert!(poll_once(&mut tiny2).await.expect("passed when the tiny one ended").is_ok());
        assert!(poll_once(&mut small).await.is_none());
        drop(held);
        assert!(poll_once(&mut big).await.expect("head admitted").is_ok());
    }

    #[actix_web::test]
    async fn queue_full_is_refused() {
        let adm = Admission::default();
        let l = limits(1, 1 << 30, 1);
        let _held = adm.acquire(1, l).await.unwrap();
        let mut waiting = Box::pin(adm.acquire(1, l));
        assert!(poll_once(&mut waiting).await.is_none());
        assert_eq!(adm.acquire(1, l).await.unwrap_err(), Refusal::QueueFull { queue_len: 1 });
    }

    #[actix_web::test]
    async fn an_expired_wait_is_refused_and_leaves_the_queue() {
        let adm = Admission::default();
        let l = Limits { queue_wait: Duration::from_millis(1), ..limits(1, 1 << 30, 4) };
        let held = adm.acquire(1, l).await.unwrap();
        assert_eq!(adm.acquire(1, l).await.unwrap_err(), Refusal::TimedOut { waited_ms: 1 });
        assert_eq!(adm.queued(), 0);
        drop(held);
        assert_eq!(adm.running(), 0);
    }

    #[actix_web::test]
    async fn a_waiter_that_goes_away_leaves_the_queue_and_unblocks_others() {
        let adm = Admission::default();
        let l = limits(2, 100, 4);
        let _a = adm.acquire(50, l).await.unwrap();
        let mut blocked = Box::pin(adm.acquire(80, l));
        assert!(poll_once(&mut blocked).await.is_none());
        let mut behind = Box::pin(adm.acquire(10, l));
        assert!(poll_once(&mut behind).await.is_none());
        drop(blocked);
        // The client of the head went away: the next one fits and is admitted.
        assert!(poll_once(&mut behind).await.expect("admitted").is_ok());
        assert_eq!(adm.queued(), 0);
    }
}
