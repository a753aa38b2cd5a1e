//! Admission control for every route that does work (docs/operations/serving.md, "Limits per
//! route";
//! 503 with Retry-After): a request's memory is counted against one process-wide budget from its
//! first body byte to its last answer byte, and its work takes one of `max_in_flight` permits.
//!
//! - While its body arrives (and while a gzip body inflates), a request holds a [`Hold`] that
//!   grows with the bytes it keeps. Growing never waits: when the budget cannot take the bytes,
//!   the request is refused at once (503), so bodies in transit never push the process past
//!   `max_memory_bytes`.
//! - Once its body is complete, the request asks for a [`Permit`] weighted by its route's
//!   memory model (the body included; [`MemoryModel`]), bringing its hold along: only the part
//!   of the weight it does not hold yet is waited for. It runs at once when fewer than
//!   `max_in_flight` permits are held, the held bytes plus its own fit `max_memory_bytes`, and
//!   nobody is queued ahead of it; otherwise it waits in a bounded FIFO queue for at most
//!   `queue_wait`. The one exception to FIFO: a tiny request may pass a head that waits for
//!   memory while a core is idle. A full queue or an expired wait is a 503; a weight larger than
//!   the whole budget can never run and is refused at once (413).

use crate::error::ServerError;
use crate::metrics;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tokio::sync::oneshot;

/// Estimated peak memory, in bytes, of solving a snapshot whose (decoded) body is `body_len`
/// bytes: the solver's measured bound, [`placer_solver::peak_estimate_bytes`]
/// (`PEAK_BYTES_PER_BODY_BYTE` × body, the body included).
///
/// # Complexity
/// O(1).
pub fn estimate_solve_bytes(body_len: usize) -> u64 {
    u64::try_from(placer_solver::peak_estimate_bytes(body_len)).unwrap_or(u64::MAX)
}

/// A route's measured memory model: the peak bytes one request holds, as a function of its
/// decoded body (docs/operations/serving.md, "Limits per route", gives each route's figures
/// and how they were measured).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MemoryModel {
    /// `POST /place`: [`estimate_solve_bytes`].
    Solve,
    /// A body parsed into a JSON tree (the scheduler extender): `per_body_byte` × body +
    /// `per_object` × its objects + `per_element` × its elements and members + `fixed`. A tree
    /// weighs by its shape as much as by its length: an object is a B-tree node of several
    /// hundred bytes whatever its size, so `{"a":0},` repeated weighs about 80 times its text.
    /// [`MemoryModel::weigh`] counts the shape; from a length alone ([`MemoryModel::estimate`])
    /// only the first term is known, a lower bound.
    JsonTree {
        /// Peak bytes per decoded body byte, the body included.
        per_body_byte: u64,
        /// Bytes per JSON object.
        per_object: u64,
        /// Bytes per array element or object member (per `,` and per container).
        per_element: u64,
        /// Bytes independent of the body.
        fixed: u64,
    },
    /// A body-less request holding at most this many bytes (`GET /v1/epochs`: one page).
    Fixed(u64),
    /// A session's delta (`POST /v1/sessions/{id}/place`): [`estimate_solve_bytes`] of the
    /// stored snapshot's `stored` bytes plus the delta's body, since the whole snapshot is
    /// rebuilt as JSON and solved (the stored snapshot itself is held by its session).
    SessionSolve {
        /// The stored snapshot's JSON bytes.
        stored: u64,
    },
}

impl MemoryModel {
    /// The peak bytes of a request whose decoded body is `body_len` bytes (saturating).
    ///
    /// # Complexity
    /// O(1).
    pub(crate) fn estimate(self, body_len: usize) -> u64 {
        let len = u64::try_from(body_len).unwrap_or(u64::MAX);
        match self {
            MemoryModel::Solve => estimate_solve_bytes(body_len),
            MemoryModel::JsonTree { per_body_byte, fixed, .. } => {
                len.saturating_mul(per_body_byte).saturating_add(fixed)
            }
            MemoryModel::Fixed(bytes) => bytes,
            MemoryModel::SessionSolve { stored } => {
                let stored = usize::try_from(stored).unwrap_or(usize::MAX);
                estimate_solve_bytes(body_len.saturating_add(stored))
            }
        }
    }

    /// The peak bytes of a request whose decoded body is `body`: [`MemoryModel::estimate`],
    /// plus, for a JSON tree, its shape's terms ([`JsonShape::of`]).
    ///
    /// # Complexity
    /// O(body) for a JSON tree (one pass over the bytes), O(1) otherwise.
    pub(crate) fn weigh(self, body: &[u8]) -> u64 {
        let base = self.estimate(body.len());
        match self {
            MemoryModel::JsonTree { per_object, per_element, .. } => {
                let shape = JsonShape::of(body);
                let elements = shape.commas.saturating_add(shape.containers);
                base.saturating_add(shape.objects.saturating_mul(per_object))
                    .saturating_add(elements.saturating_mul(per_element))
            }
            MemoryModel::Solve | MemoryModel::Fixed(_) | MemoryModel::SessionSolve { .. } => base,
        }
    }

    /// The factor quoted in messages: peak bytes per body byte (0 for a fixed model).
    pub(crate) fn per_body_byte(self) -> u64 {
        match self {
            MemoryModel::Solve | MemoryModel::SessionSolve { .. } => {
                placer_solver::PEAK_BYTES_PER_BODY_BYTE as u64
            }
            MemoryModel::JsonTree { per_body_byte, .. } => per_body_byte,
            MemoryModel::Fixed(_) => 0,
        }
    }
}

/// What a JSON text holds, counted outside its strings: objects (`{`), containers (`{` and
/// `[`) and commas (one per element or member after the first).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct JsonShape {
    /// `{` outside strings.
    pub objects: u64,
    /// `{` and `[` outside strings.
    pub containers: u64,
    /// `,` outside strings.
    pub commas: u64,
}

impl JsonShape {
    /// Counts `text`'s shape in one pass (strings and their escapes skipped; the text need not
    /// be valid JSON: a malformed body is counted as far as it goes, then refused by the
    /// parser).
    ///
    /// # Complexity
    /// O(text).
    pub(crate) fn of(text: &[u8]) -> Self {
        let mut shape = JsonShape::default();
        let (mut in_string, mut escaped) = (false, false);
        for &b in text {
            if in_string {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == b'"' {
                    in_string = false;
                }
                continue;
            }
            match b {
                b'"' => in_string = true,
                b'{' => {
                    shape.objects += 1;
                    shape.containers += 1;
                }
                b'[' => shape.containers += 1,
                b',' => shape.commas += 1,
                _ => {}
            }
        }
        shape
    }
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
    /// A hold could not grow: the budget is in use by other requests now (growing never
    /// waits, see the module docs).
    BudgetInUse {
        /// Bytes the request asked to hold in all.
        wanted: u64,
        /// Bytes held by every request now.
        in_use: u64,
        /// `max_memory_bytes`.
        budget: u64,
    },
}

impl Refusal {
    /// The error to answer with: 413 `over_memory_budget` when waiting cannot help (the factor
    /// of the route's [`MemoryModel`] quoted), else 503 `overloaded` with `Retry-After`.
    pub(crate) fn into_error(self, model: MemoryModel) -> ServerError {
        match self {
            Refusal::OverBudget { weight, budget } => ServerError::OverMemoryBudget {
                estimate: weight,
                per_body_byte: model.per_body_byte(),
                budget,
            },
            Refusal::Closed => ServerError::Overloaded { reason: "admission is closed".to_owned() },
            Refusal::QueueFull { queue_len } => ServerError::Overloaded {
                reason: format!("the admission queue is full ({queue_len} waiting)"),
            },
            Refusal::TimedOut { waited_ms } => ServerError::Overloaded {
                reason: format!("no solve slot came free within {waited_ms} ms"),
            },
            Refusal::BudgetInUse { wanted, in_use, budget } => ServerError::Overloaded {
                reason: format!(
                    "the memory budget is in use ({in_use} of {budget} bytes held; this \
                     request needs {wanted})"
                ),
            },
        }
    }
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
        metrics::memory_held(self.bytes);
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

/// Bytes a request keeps before it asks for a permit: its body as it arrives and inflates
/// (see the module docs). Growing never waits; the bytes are given back on drop. Takes no
/// permit slot: a slow client holds only the bytes it has sent.
#[derive(Debug)]
pub(crate) struct Hold {
    admission: Admission,
    bytes: u64,
    budget: u64,
}

impl Admission {
    /// An empty hold under the budget `max_memory_bytes`.
    pub(crate) fn hold(&self, max_memory_bytes: u64) -> Hold {
        Hold { admission: self.clone(), bytes: 0, budget: max_memory_bytes }
    }

    /// A permit for a request whose whole weight is `weight` while it keeps `hold`: only the
    /// part of the weight not held yet is admitted (and waited for); the hold must stay alive
    /// as long as the permit.
    ///
    /// # Errors
    /// As [`Admission::acquire`]; `OverBudget` names the whole weight.
    pub(crate) async fn acquire_beside(
        &self,
        hold: &Hold,
        weight: u64,
        limits: Limits,
    ) -> Result<Permit, Refusal> {
        if weight > limits.max_memory_bytes {
            return Err(Refusal::OverBudget { weight, budget: limits.max_memory_bytes });
        }
        self.acquire(weight.saturating_sub(hold.bytes()), limits).await
    }

    /// Bytes held by every permit and hold now (stored sessions included).
    pub(crate) fn bytes_in_use(&self) -> u64 {
        self.lock().bytes
    }

    fn release_bytes(&self, bytes: u64) {
        if bytes == 0 {
            return;
        }
        let mut inner = self.lock();
        inner.bytes = inner.bytes.saturating_sub(bytes);
        let granted = inner.admit_waiters();
        inner.publish();
        drop(inner);
        self.send(granted);
    }
}

impl Hold {
    /// Bytes held now.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Holds `bytes` in all (nothing changes when it holds that much already), if the budget
    /// takes them now.
    ///
    /// # Errors
    /// [`Refusal::OverBudget`] when `bytes` alone exceed the budget, [`Refusal::BudgetInUse`]
    /// when other requests' bytes leave no room now.
    ///
    /// # Complexity
    /// O(1) under the admission lock.
    pub(crate) fn grow_to(&mut self, bytes: u64) -> Result<(), Refusal> {
        if bytes <= self.bytes {
            return Ok(());
        }
        if bytes > self.budget {
            return Err(Refusal::OverBudget { weight: bytes, budget: self.budget });
        }
        let extra = bytes - self.bytes;
        let mut inner = self.admission.lock();
        if inner.bytes.saturating_add(extra) > self.budget {
            return Err(Refusal::BudgetInUse {
                wanted: bytes,
                in_use: inner.bytes,
                budget: self.budget,
            });
        }
        inner.bytes += extra;
        metrics::memory_held(inner.bytes);
        drop(inner);
        self.bytes = bytes;
        Ok(())
    }

    /// Holds only `bytes` from now on (nothing changes when it holds less).
    pub(crate) fn shrink_to(&mut self, bytes: u64) {
        if bytes < self.bytes {
            let freed = self.bytes - bytes;
            self.bytes = bytes;
            self.admission.release_bytes(freed);
        }
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        self.admission.release_bytes(self.bytes);
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
        let factor = placer_solver::PEAK_BYTES_PER_BODY_BYTE as u64;
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

    #[test]
    fn route_models_estimate_from_the_body() {
        let solve = MemoryModel::Solve;
        assert_eq!(solve.estimate(1000), estimate_solve_bytes(1000));
        let ext = MemoryModel::JsonTree {
            per_body_byte: 9,
            per_object: 1000,
            per_element: 10,
            fixed: 100,
        };
        assert_eq!((ext.estimate(0), ext.estimate(10)), (100, 190));
        assert_eq!(ext.estimate(usize::MAX), u64::MAX);
        // `{"a":[1,2]}`: 11 bytes, 1 object, 2 containers, 1 comma.
        assert_eq!(ext.weigh(br#"{"a":[1,2]}"#), 100 + 99 + 1000 + 30);
        assert_eq!(MemoryModel::Fixed(7).estimate(1 << 30), 7);
    }

    #[test]
    fn json_shapes_skip_strings_and_escapes() {
        let shape = JsonShape::of(br#"{"k,{[":"v\",{","a":[{},[],1]}"#);
        assert_eq!(shape, JsonShape { objects: 2, containers: 4, commas: 3 });
        assert_eq!(JsonShape::of(b""), JsonShape::default());
    }

    #[actix_web::test]
    async fn a_hold_grows_within_the_budget_and_never_waits() {
        let adm = Admission::default();
        let l = limits(4, 100, 10);
        let _held = adm.acquire(60, l).await.unwrap();
        let mut hold = adm.hold(100);
        hold.grow_to(30).unwrap();
        assert_eq!(adm.bytes_in_use(), 90);
        // 60 + 41 > 100: refused at once, the hold keeps what it had.
        assert_eq!(
            hold.grow_to(41).unwrap_err(),
            Refusal::BudgetInUse { wanted: 41, in_use: 90, budget: 100 }
        );
        assert_eq!(hold.bytes(), 30);
        assert_eq!(
            hold.grow_to(101).unwrap_err(),
            Refusal::OverBudget { weight: 101, budget: 100 }
        );
        hold.shrink_to(10);
        assert_eq!(adm.bytes_in_use(), 70);
        drop(hold);
        assert_eq!(adm.bytes_in_use(), 60);
    }

    #[actix_web::test]
    async fn a_permit_beside_a_hold_waits_only_for_the_rest() {
        let adm = Admission::default();
        let l = limits(4, 100, 10);
        let mut hold = adm.hold(100);
        hold.grow_to(50).unwrap();
        // Weight 90 with 50 held: 40 more, which fits.
        let permit = adm.acquire_beside(&hold, 90, l).await.unwrap();
        assert_eq!(adm.bytes_in_use(), 90);
        assert_eq!(
            adm.acquire_beside(&hold, 101, l).await.unwrap_err(),
            Refusal::OverBudget { weight: 101, budget: 100 }
        );
        drop(permit);
        drop(hold);
        assert_eq!((adm.bytes_in_use(), adm.running()), (0, 0));
    }

    #[actix_web::test]
    async fn freed_hold_bytes_admit_a_waiter() {
        let adm = Admission::default();
        let l = limits(4, 100, 10);
        let mut hold = adm.hold(100);
        hold.grow_to(70).unwrap();
        let mut waiting = Box::pin(adm.acquire(50, l));
        assert!(poll_once(&mut waiting).await.is_none());
        drop(hold);
        assert!(poll_once(&mut waiting).await.expect("admitted").is_ok());
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
