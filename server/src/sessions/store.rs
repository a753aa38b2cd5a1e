//! The sessions the server keeps (docs/operations/serving.md, "Sessions"): each one parsed
//! snapshot, the solver state kept across its epochs, and its epoch, soft state bounded in count
//! (`--sessions-max`), in bytes (half of `--max-memory`, every stored session holding its
//! estimated bytes in the admission ledger, [`crate::admission`]) and in idle time
//! (`--session-idle-s`), the least recently used evicted first when full, all lost on restart.
//!
//! A delta checks its session's state out ([`Store::checkout`]), edits and solves it outside
//! the store's lock, and checks it back in ([`Store::checkin`]), moved to the next epoch or, on
//! error, unchanged. While it is out, another delta for that session is stale: the one in
//! flight moves the epoch on.

use crate::admission::{Admission, Hold, MemoryModel};
use crate::config::ServerConfig;
use crate::error::ServerError;
use placer_models::{PlaceRequest, Revalidator};
use placer_solver::WarmStart;
use ring::rand::{SecureRandom, SystemRandom};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// Bytes counted per session beside its snapshot: its id, its map entry and its record.
pub(crate) const SESSION_OVERHEAD_BYTES: u64 = 256;

/// The bounds of the store, read from the live configuration per request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StoreLimits {
    /// Most sessions kept (`--sessions-max`); 0 disables sessions.
    pub max_sessions: usize,
    /// A session unused this long is dropped (`--session-idle-s`); `None` never.
    pub idle: Option<Duration>,
    /// Most bytes all sessions hold together: half of `--max-memory`.
    pub max_bytes: u64,
    /// `--max-memory`, the ledger's budget.
    pub budget: u64,
}

impl StoreLimits {
    /// The bounds of `config`.
    pub(crate) fn of(config: &ServerConfig) -> Self {
        Self {
            max_sessions: config.sessions_max,
            idle: (config.session_idle_s > 0).then_some(Duration::from_secs(config.session_idle_s)),
            max_bytes: config.max_memory_bytes / 2,
            budget: config.max_memory_bytes,
        }
    }
}

/// The shared store; clones share it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Store(Arc<Mutex<Inner>>);

#[derive(Debug, Default)]
struct Inner {
    sessions: HashMap<String, Session>,
    /// Ticks at each use: the least recently used session has the smallest `used`.
    clock: u64,
    /// Bytes held by all sessions.
    bytes: u64,
}

/// What a session keeps across epochs: the snapshot as its master sent it, edited by every
/// delta since, and the solver's state (the incremental engine's network, flow and labels).
#[derive(Debug)]
pub(crate) struct Kept {
    /// The equivalent full snapshot of the session's epoch.
    pub request: PlaceRequest,
    /// The estimate of `request`'s bytes ([`PlaceRequest::heap_bytes`] when created, then
    /// moved by each delta's [`placer_models::Changes::heap_bytes`] and
    /// [`placer_models::Undo::heap_bytes`]: O(change) per delta, not O(snapshot)).
    pub request_bytes: usize,
    /// The exact engine's state across epochs (`?incremental=true`), passed to every solve of
    /// the session; `None`: each epoch is solved as `POST /place` solves it.
    pub warm: Option<WarmStart>,
    /// What validates the next delta by difference.
    pub revalidator: Revalidator,
}

impl Kept {
    /// A new session's state: `request` as its master sent it, and `warm` after its first solve.
    ///
    /// Complexity: O(snapshot) ([`PlaceRequest::heap_bytes`]).
    pub(crate) fn new(request: PlaceRequest, warm: Option<WarmStart>) -> Self {
        Self { request_bytes: request.heap_bytes(), request, warm, revalidator: Revalidator::new() }
    }

    /// The bytes the session holds in the ledger: the snapshot's and the solver state's
    /// estimates, plus [`SESSION_OVERHEAD_BYTES`].
    ///
    /// Complexity: O(1) beside [`WarmStart::heap_bytes`].
    pub(crate) fn weight(&self) -> u64 {
        let bytes = self
            .request_bytes
            .saturating_add(self.warm.as_ref().map_or(0, WarmStart::heap_bytes))
            .saturating_add(self.revalidator.heap_bytes());
        u64::try_from(bytes).unwrap_or(u64::MAX).saturating_add(SESSION_OVERHEAD_BYTES)
    }
}

#[derive(Debug)]
struct Session {
    epoch: u64,
    /// `None` while a delta has it checked out.
    kept: Option<Box<Kept>>,
    /// The session's bytes in the admission ledger ([`Kept::weight`]); given back on drop
    /// (delete, eviction, expiry).
    hold: Hold,
    used_at: Instant,
    used: u64,
}

impl Session {
    fn weight(&self) -> u64 {
        self.hold.bytes()
    }
}

/// The 409 for a session the store does not hold.
fn unknown(id: &str) -> ServerError {
    ServerError::SessionStale {
        path: "session",
        message: format!(
            "no session {id:?}: unknown, expired, evicted or deleted; send the full snapshot \
             to POST /v1/sessions"
        ),
    }
}

/// The 409 for a delta against another epoch than the session's.
pub(crate) fn wrong_epoch(base_epoch: u64, epoch: u64) -> ServerError {
    ServerError::SessionStale {
        path: "base_epoch",
        message: format!(
            "base_epoch {base_epoch} is not the session's epoch {epoch}; send the full snapshot \
             to POST /v1/sessions"
        ),
    }
}

/// The store's lock: the session gauges follow its count and bytes when it is released.
struct Locked<'a>(MutexGuard<'a, Inner>);

impl std::ops::Deref for Locked<'_> {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

impl std::ops::DerefMut for Locked<'_> {
    fn deref_mut(&mut self) -> &mut Inner {
        &mut self.0
    }
}

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        crate::metrics::sessions(self.0.sessions.len(), self.0.bytes);
    }
}

impl Store {
    fn lock(&self) -> Locked<'_> {
        Locked(self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Refuses at once when sessions are disabled (`--sessions-max 0`).
    ///
    /// # Errors
    /// 503 `overloaded`.
    pub(crate) fn check_enabled(limits: &StoreLimits) -> Result<(), ServerError> {
        if limits.max_sessions == 0 {
            return Err(ServerError::Overloaded {
                reason: "sessions are disabled (--sessions-max 0)".to_owned(),
            });
        }
        Ok(())
    }

    /// Takes session `id`'s state out for a delta against `base_epoch`, marking it used;
    /// returns the state and the bytes its session holds in the ledger.
    ///
    /// # Errors
    /// 409 `session_stale`: path `session` when it is not held, `base_epoch` when the session
    /// is at another epoch or a delta is being answered on it.
    ///
    /// # Complexity
    /// O(sessions) (the expiry sweep).
    pub(crate) fn checkout(
        &self,
        id: &str,
        base_epoch: u64,
        limits: &StoreLimits,
    ) -> Result<(Box<Kept>, u64), ServerError> {
        let mut inner = self.lock();
        inner.expire(Instant::now(), limits.idle);
        inner.clock += 1;
        let clock = inner.clock;
        let session = inner.sessions.get_mut(id).ok_or_else(|| unknown(id))?;
        session.used_at = Instant::now();
        session.used = clock;
        if session.epoch != base_epoch {
            return Err(wrong_epoch(base_epoch, session.epoch));
        }
        let weight = session.weight();
        let kept = session.kept.take().ok_or_else(|| busy(base_epoch))?;
        Ok((kept, weight))
    }

    /// The bytes session `id` holds in the ledger (what sizes a delta's admission).
    ///
    /// # Errors
    /// 409 `session_stale` (path `session`) when it is not held.
    ///
    /// # Complexity
    /// O(sessions) (the expiry sweep).
    pub(crate) fn weight(&self, id: &str, limits: &StoreLimits) -> Result<u64, ServerError> {
        let mut inner = self.lock();
        inner.expire(Instant::now(), limits.idle);
        inner.sessions.get(id).map(Session::weight).ok_or_else(|| unknown(id))
    }

    /// The epoch of session `id`, for tests.
    #[cfg(test)]
    fn epoch(&self, id: &str) -> Option<u64> {
        self.lock().sessions.get(id).map(|s| s.epoch)
    }

    /// Stores `kept` as a new session at epoch 0 and returns its id. Makes room first:
    /// expired sessions go, then the least recently used while the count, the sessions' bytes
    /// or the ledger leave no room.
    ///
    /// # Errors
    /// 503 `overloaded` when sessions are disabled or the ledger cannot take the snapshot even
    /// with every other session evicted.
    ///
    /// # Complexity
    /// O(sessions) per eviction, and [`Kept::weight`].
    pub(crate) fn insert(
        &self,
        kept: Kept,
        admission: &Admission,
        limits: &StoreLimits,
    ) -> Result<String, ServerError> {
        Self::check_enabled(limits)?;
        let weight = kept.weight();
        let mut inner = self.lock();
        inner.expire(Instant::now(), limits.idle);
        while inner.sessions.len() >= limits.max_sessions && inner.evict_lru(None) {}
        let hold = inner.hold(admission, weight, limits, None)?;
        let id = loop {
            let id = new_id();
            if !inner.sessions.contains_key(&id) {
                break id;
            }
        };
        inner.clock += 1;
        let used = inner.clock;
        inner.bytes = inner.bytes.saturating_add(weight);
        let kept = Some(Box::new(kept));
        let session = Session { epoch: 0, kept, hold, used_at: Instant::now(), used };
        inner.sessions.insert(id.clone(), session);
        Ok(id)
    }

    /// Gives session `id` its state back after a delta against `base_epoch`: moved to the next
    /// epoch when `advance` (its ledger hold resized to `kept`'s weight), else unchanged.
    /// Returns the session's epoch.
    ///
    /// # Errors
    /// 409 `session_stale` when the session was evicted, expired or deleted meanwhile (the state
    /// is dropped); 503 `overloaded` when the ledger cannot take the grown state even with every
    /// other session evicted (the session is dropped: its state is no longer the one its hold
    /// counts).
    ///
    /// # Complexity
    /// O(sessions) per eviction, and [`Kept::weight`] when `advance`.
    pub(crate) fn checkin(
        &self,
        id: &str,
        base_epoch: u64,
        kept: Box<Kept>,
        advance: bool,
        limits: &StoreLimits,
    ) -> Result<u64, ServerError> {
        let weight = if advance { kept.weight() } else { 0 };
        let mut inner = self.lock();
        inner.expire(Instant::now(), limits.idle);
        let Some(mut session) = inner.sessions.remove(id) else {
            return Err(unknown(id));
        };
        if session.epoch != base_epoch || session.kept.is_some() {
            // Deleted and created again under the same id cannot happen (ids are random); keep
            // whatever the store holds.
            let epoch = session.epoch;
            inner.sessions.insert(id.to_owned(), session);
            return Err(wrong_epoch(base_epoch, epoch));
        }
        if !advance {
            session.kept = Some(kept);
            inner.sessions.insert(id.to_owned(), session);
            return Ok(base_epoch);
        }
        let old = session.weight();
        inner.bytes = inner.bytes.saturating_sub(old);
        if weight > old {
            // Room for the growth: the others may be evicted, this one is out of the map.
            while inner.bytes.saturating_add(weight) > limits.max_bytes && inner.evict_lru(None) {}
            let grown = loop {
                match session.hold.grow_to(weight) {
                    Ok(()) => break Ok(()),
                    Err(_) if inner.evict_lru(None) => {}
                    Err(refusal) => break Err(refusal.into_error(MemoryModel::Fixed(weight))),
                }
            };
            grown?;
            if inner.bytes.saturating_add(weight) > limits.max_bytes {
                return Err(too_large(weight, limits));
            }
        }
        session.kept = Some(kept);
        session.hold.shrink_to(weight);
        session.epoch += 1;
        inner.clock += 1;
        session.used = inner.clock;
        session.used_at = Instant::now();
        inner.bytes = inner.bytes.saturating_add(weight);
        let epoch = session.epoch;
        inner.sessions.insert(id.to_owned(), session);
        Ok(epoch)
    }

    /// Drops session `id`; whether it was held.
    pub(crate) fn remove(&self, id: &str) -> bool {
        let mut inner = self.lock();
        let removed = inner.sessions.remove(id);
        if let Some(session) = &removed {
            inner.bytes = inner.bytes.saturating_sub(session.weight());
        }
        removed.is_some()
    }

    /// Sessions held now.
    pub(crate) fn len(&self) -> usize {
        self.lock().sessions.len()
    }
}

/// The 409 for a delta while another one on the same session is being answered.
fn busy(base_epoch: u64) -> ServerError {
    ServerError::SessionStale {
        path: "base_epoch",
        message: format!(
            "another delta against epoch {base_epoch} is being answered; wait for its answer, \
             or send the full snapshot to POST /v1/sessions"
        ),
    }
}

/// The 503 for a snapshot larger than all sessions may hold together.
fn too_large(weight: u64, limits: &StoreLimits) -> ServerError {
    ServerError::Overloaded {
        reason: format!(
            "a session of {weight} bytes exceeds the {} bytes sessions may hold (half of \
             --max-memory)",
            limits.max_bytes
        ),
    }
}

impl Inner {
    /// Drops the sessions unused for `idle` or longer.
    fn expire(&mut self, now: Instant, idle: Option<Duration>) {
        let Some(idle) = idle else { return };
        let mut freed = 0u64;
        self.sessions.retain(|_, s| {
            let keep = now.saturating_duration_since(s.used_at) < idle;
            if !keep {
                freed = freed.saturating_add(s.weight());
            }
            keep
        });
        self.bytes = self.bytes.saturating_sub(freed);
    }

    /// Drops the least recently used session; whether there was one.
    fn evict_lru(&mut self, keep: Option<&str>) -> bool {
        let victim = self
            .sessions
            .iter()
            .filter(|(id, _)| Some(id.as_str()) != keep)
            .min_by_key(|(_, s)| s.used)
            .map(|(id, _)| id.clone());
        let Some(victim) = victim else { return false };
        if let Some(session) = self.sessions.remove(&victim) {
            self.bytes = self.bytes.saturating_sub(session.weight());
        }
        true
    }

    /// A hold of `weight` bytes in the ledger, evicting the least recently used sessions (but
    /// `keep`) while the sessions' bytes or the ledger leave no room.
    fn hold(
        &mut self,
        admission: &Admission,
        weight: u64,
        limits: &StoreLimits,
        keep: Option<&str>,
    ) -> Result<Hold, ServerError> {
        if weight > limits.max_bytes {
            return Err(too_large(weight, limits));
        }
        while self.bytes.saturating_add(weight) > limits.max_bytes && self.evict_lru(keep) {}
        let mut hold = admission.hold(limits.budget);
        loop {
            match hold.grow_to(weight) {
                Ok(()) => return Ok(hold),
                Err(_) if self.evict_lru(keep) => {}
                Err(refusal) => return Err(refusal.into_error(MemoryModel::Fixed(weight))),
            }
        }
    }
}

/// A fresh session id: 128 random bits from the system's generator, in hex.
fn new_id() -> String {
    let mut bytes = [0u8; 16];
    if SystemRandom::new().fill(&mut bytes).is_err() {
        // The system generator failed (it does not on Linux): a hash keyed per process of the
        // time, still unique per call through the store's collision check.
        use std::hash::{BuildHasher, Hasher};
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        bytes[..8].copy_from_slice(&hasher.finish().to_le_bytes());
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn limits(max_sessions: usize, budget: u64) -> StoreLimits {
        StoreLimits { max_sessions, idle: None, max_bytes: budget / 2, budget }
    }

    /// A session state of `pending` pending tasks (its weight grows with them).
    fn kept(pending: usize) -> Kept {
        let mut request = PlaceRequest::default();
        for i in 0..pending {
            request.pending.push(placer_models::PendingTask {
                id: format!("t{i}").into(),
                ..placer_models::PendingTask::default()
            });
        }
        Kept::new(request, None)
    }

    #[test]
    fn a_stored_session_holds_its_bytes_until_removed() {
        let (store, adm) = (Store::default(), Admission::default());
        let state = kept(2);
        let weight = state.weight();
        assert!(weight > SESSION_OVERHEAD_BYTES);
        let id = store.insert(state, &adm, &limits(4, 1 << 20)).unwrap();
        assert_eq!(id.len(), 32);
        assert_eq!(adm.bytes_in_use(), weight);
        assert!(store.remove(&id));
        assert!(!store.remove(&id));
        assert_eq!(adm.bytes_in_use(), 0);
    }

    #[test]
    fn the_least_recently_used_goes_first_when_full() {
        let (store, adm) = (Store::default(), Admission::default());
        let l = limits(2, 1 << 20);
        let a = store.insert(kept(0), &adm, &l).unwrap();
        let b = store.insert(kept(0), &adm, &l).unwrap();
        let (state, _) = store.checkout(&a, 0, &l).unwrap();
        store.checkin(&a, 0, state, false, &l).unwrap();
        let c = store.insert(kept(0), &adm, &l).unwrap();
        assert!(store.checkout(&b, 0, &l).is_err(), "b was the least recently used");
        assert!(store.epoch(&a).is_some() && store.epoch(&c).is_some());
        assert_eq!(adm.bytes_in_use(), 2 * kept(0).weight());
    }

    #[test]
    fn checkin_moves_the_epoch_and_the_bytes() {
        let (store, adm) = (Store::default(), Admission::default());
        let l = limits(2, 1 << 20);
        let id = store.insert(kept(1), &adm, &l).unwrap();
        let (state, weight) = store.checkout(&id, 0, &l).unwrap();
        assert_eq!(weight, kept(1).weight());
        // While it is out, another delta is stale.
        let err = store.checkout(&id, 0, &l).unwrap_err();
        assert_eq!((err.code(), err.path()), ("session_stale", "base_epoch"));
        let mut state = state;
        *state = kept(40);
        let grown = state.weight();
        assert_eq!(store.checkin(&id, 0, state, true, &l).unwrap(), 1);
        assert_eq!(adm.bytes_in_use(), grown);
        let err = store.checkout(&id, 0, &l).unwrap_err();
        assert_eq!((err.code(), err.path()), ("session_stale", "base_epoch"));
        // A failed delta gives the state back at the same epoch.
        let (state, _) = store.checkout(&id, 1, &l).unwrap();
        assert_eq!(store.checkin(&id, 1, state, false, &l).unwrap(), 1);
        assert_eq!(store.epoch(&id), Some(1));
        assert_eq!(adm.bytes_in_use(), grown);
        // Deleted while out: the check-in is stale.
        let (state, _) = store.checkout(&id, 1, &l).unwrap();
        assert!(store.remove(&id));
        let err = store.checkin(&id, 1, state, true, &l).unwrap_err();
        assert_eq!((err.code(), err.path()), ("session_stale", "session"));
        assert_eq!(adm.bytes_in_use(), 0);
    }

    #[test]
    fn sessions_hold_at_most_half_the_budget() {
        let (store, adm) = (Store::default(), Admission::default());
        let one = kept(4).weight();
        // Sessions hold at most 1.5 sessions' worth: two do not fit together.
        let l = limits(8, 3 * one);
        let a = store.insert(kept(4), &adm, &l).unwrap();
        let b = store.insert(kept(4), &adm, &l).unwrap();
        assert!(store.epoch(&a).is_none());
        assert!(store.epoch(&b).is_some());
        assert_eq!(store.len(), 1);
        let err = store.insert(kept(400), &adm, &l).unwrap_err();
        assert_eq!(err.code(), "overloaded");
    }
}
