//! The sessions the server keeps (docs/operations/serving.md, "Sessions"): each one snapshot's
//! JSON text and its epoch, soft state bounded in count (`--sessions-max`), in bytes (half of
//! `--max-memory`, every stored session holding its bytes in the admission ledger,
//! [`crate::admission`]) and in idle time (`--session-idle-s`), the least recently used evicted
//! first when full, all lost on restart.

use crate::admission::{Admission, Hold, MemoryModel};
use crate::config::ServerConfig;
use crate::error::ServerError;
use actix_web::web::Bytes;
use ring::rand::{SecureRandom, SystemRandom};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// Bytes counted per session beside its snapshot's JSON: its id, its map entry and its record.
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

#[derive(Debug)]
struct Session {
    epoch: u64,
    snapshot: Bytes,
    /// The session's bytes in the admission ledger: its snapshot plus
    /// [`SESSION_OVERHEAD_BYTES`]; given back on drop (delete, eviction, expiry).
    hold: Hold,
    used_at: Instant,
    used: u64,
}

impl Session {
    fn weight(&self) -> u64 {
        self.hold.bytes()
    }
}

/// The ledger weight of a session whose snapshot is `len` bytes.
fn weight_of(len: usize) -> u64 {
    u64::try_from(len).unwrap_or(u64::MAX).saturating_add(SESSION_OVERHEAD_BYTES)
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

impl Store {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
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

    /// The epoch and snapshot of session `id`, marked as used.
    ///
    /// # Errors
    /// 409 `session_stale` (path `session`) when it is not held.
    ///
    /// # Complexity
    /// O(sessions) (the expiry sweep).
    pub(crate) fn get(&self, id: &str, limits: &StoreLimits) -> Result<(u64, Bytes), ServerError> {
        let mut inner = self.lock();
        inner.expire(Instant::now(), limits.idle);
        inner.clock += 1;
        let clock = inner.clock;
        let session = inner.sessions.get_mut(id).ok_or_else(|| unknown(id))?;
        session.used_at = Instant::now();
        session.used = clock;
        Ok((session.epoch, session.snapshot.clone()))
    }

    /// Stores `snapshot` as a new session at epoch 0 and returns its id. Makes room first:
    /// expired sessions go, then the least recently used while the count, the sessions' bytes
    /// or the ledger leave no room.
    ///
    /// # Errors
    /// 503 `overloaded` when sessions are disabled or the ledger cannot take the snapshot even
    /// with every other session evicted.
    ///
    /// # Complexity
    /// O(sessions) per eviction.
    pub(crate) fn insert(
        &self,
        snapshot: Bytes,
        admission: &Admission,
        limits: &StoreLimits,
    ) -> Result<String, ServerError> {
        Self::check_enabled(limits)?;
        let weight = weight_of(snapshot.len());
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
        let session = Session { epoch: 0, snapshot, hold, used_at: Instant::now(), used };
        inner.sessions.insert(id.clone(), session);
        Ok(id)
    }

    /// Moves session `id` from `base_epoch` to the next epoch with `snapshot`; returns the new
    /// epoch. The session is unchanged on error.
    ///
    /// # Errors
    /// 409 `session_stale` when the session is gone or moved on meanwhile; 503 `overloaded`
    /// when the ledger cannot take the new snapshot even with every other session evicted.
    ///
    /// # Complexity
    /// O(sessions) per eviction.
    pub(crate) fn replace(
        &self,
        id: &str,
        base_epoch: u64,
        snapshot: Bytes,
        limits: &StoreLimits,
    ) -> Result<u64, ServerError> {
        let mut inner = self.lock();
        inner.expire(Instant::now(), limits.idle);
        let Some(mut session) = inner.sessions.remove(id) else {
            return Err(unknown(id));
        };
        if session.epoch != base_epoch {
            let epoch = session.epoch;
            inner.sessions.insert(id.to_owned(), session);
            return Err(wrong_epoch(base_epoch, epoch));
        }
        let old = session.weight();
        let weight = weight_of(snapshot.len());
        inner.bytes = inner.bytes.saturating_sub(old);
        if weight > old {
            // Room for the growth: the others may be evicted, this one is out of the map.
            while inner.bytes.saturating_add(weight) > limits.max_bytes && inner.evict_lru(None) {}
            loop {
                match session.hold.grow_to(weight) {
                    Ok(()) => break,
                    Err(_) if inner.evict_lru(None) => {}
                    Err(refusal) => {
                        inner.bytes = inner.bytes.saturating_add(old);
                        inner.sessions.insert(id.to_owned(), session);
                        return Err(refusal.into_error(MemoryModel::Fixed(weight)));
                    }
                }
            }
            if inner.bytes.saturating_add(weight) > limits.max_bytes {
                session.hold.shrink_to(old);
                inner.bytes = inner.bytes.saturating_add(old);
                inner.sessions.insert(id.to_owned(), session);
                return Err(too_large(weight, limits));
            }
        }
        session.snapshot = snapshot;
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

    #[test]
    fn a_stored_session_holds_its_bytes_until_removed() {
        let (store, adm) = (Store::default(), Admission::default());
        let id = store.insert(Bytes::from_static(b"{}"), &adm, &limits(4, 1 << 20)).unwrap();
        assert_eq!(id.len(), 32);
        assert_eq!(adm.bytes_in_use(), 2 + SESSION_OVERHEAD_BYTES);
        assert!(store.remove(&id));
        assert!(!store.remove(&id));
        assert_eq!(adm.bytes_in_use(), 0);
    }

    #[test]
    fn the_least_recently_used_goes_first_when_full() {
        let (store, adm) = (Store::default(), Admission::default());
        let l = limits(2, 1 << 20);
        let a = store.insert(Bytes::from_static(b"a"), &adm, &l).unwrap();
        let b = store.insert(Bytes::from_static(b"b"), &adm, &l).unwrap();
        store.get(&a, &l).unwrap();
        let c = store.insert(Bytes::from_static(b"c"), &adm, &l).unwrap();
        assert!(store.get(&b, &l).is_err(), "b was the least recently used");
        assert!(store.get(&a, &l).is_ok() && store.get(&c, &l).is_ok());
        assert_eq!(adm.bytes_in_use(), 2 * (1 + SESSION_OVERHEAD_BYTES));
    }

    #[test]
    fn replace_moves_the_epoch_and_the_bytes() {
        let (store, adm) = (Store::default(), Admission::default());
        let l = limits(2, 1 << 20);
        let id = store.insert(Bytes::from_static(b"ab"), &adm, &l).unwrap();
        assert_eq!(store.replace(&id, 0, Bytes::from_static(b"abcd"), &l).unwrap(), 1);
        assert_eq!(adm.bytes_in_use(), 4 + SESSION_OVERHEAD_BYTES);
        let err = store.replace(&id, 0, Bytes::from_static(b"x"), &l).unwrap_err();
        assert_eq!((err.code(), err.path()), ("session_stale", "base_epoch"));
        assert_eq!(store.get(&id, &l).unwrap(), (1, Bytes::from_static(b"abcd")));
        assert_eq!(store.replace(&id, 1, Bytes::from_static(b"x"), &l).unwrap(), 2);
        assert_eq!(adm.bytes_in_use(), 1 + SESSION_OVERHEAD_BYTES);
    }

    #[test]
    fn sessions_hold_at_most_half_the_budget() {
        let (store, adm) = (Store::default(), Admission::default());
        // Budget 1200: sessions hold at most 600, two of 257 + 256 bytes do not fit together.
        let l = limits(8, 1200);
        let a = store.insert(Bytes::from(vec![b' '; 257]), &adm, &l).unwrap();
        let b = store.insert(Bytes::from(vec![b' '; 257]), &adm, &l).unwrap();
        assert!(store.get(&a, &l).is_err());
        assert!(store.get(&b, &l).is_ok());
        assert_eq!(store.len(), 1);
        let err = store.insert(Bytes::from(vec![b' '; 600]), &adm, &l).unwrap_err();
        assert_eq!(err.code(), "overloaded");
    }
}
