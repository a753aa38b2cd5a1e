//! The last answers, kept for the dashboard and `GET /v1/epochs` (issue 17 item 1; HFS design
//! doc §3.8: a web page of pools and jobs): a bounded in-memory ring of epoch records, newest
//! last, numbered in the order they enter. Bounded by count (`--epochs`); each record is a
//! bounded digest of one answer, not the answer ([`crate::epoch_record`]).

pub use crate::epoch_record::EpochRecord;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

/// Records kept when none is configured.
pub const DEFAULT_EPOCHS_KEPT: usize = 120;

/// The ring. Clones share it.
#[derive(Clone, Debug)]
pub struct Epochs {
    ring: Arc<Mutex<Ring>>,
    capacity: usize,
}

#[derive(Debug, Default)]
struct Ring {
    kept: VecDeque<Arc<EpochRecord>>,
    /// The `seq` of the last record pushed (0 before the first).
    last_seq: u64,
}

impl Default for Epochs {
    fn default() -> Self {
        Self::new(DEFAULT_EPOCHS_KEPT)
    }
}

impl Epochs {
    /// A ring keeping the last `capacity` records (0 keeps none).
    pub fn new(capacity: usize) -> Self {
        let ring = Ring { kept: VecDeque::with_capacity(capacity.min(1024)), last_seq: 0 };
        Self { ring: Arc::new(Mutex::new(ring)), capacity }
    }

    /// How many records the ring keeps at most.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Numbers `record` (`seq` = the previous record's + 1, from 1) and appends it, dropping
    /// the oldest beyond the capacity; returns it as kept. O(1).
    pub fn push(&self, mut record: EpochRecord) -> Arc<EpochRecord> {
        let mut ring = self.lock();
        ring.last_seq += 1;
        record.seq = ring.last_seq;
        let record = Arc::new(record);
        if self.capacity > 0 {
            while ring.kept.len() >= self.capacity {
                ring.kept.pop_front();
            }
            ring.kept.push_back(Arc::clone(&record));
        }
        record
    }

    /// The newest record, if any. O(1).
    pub fn latest(&self) -> Option<Arc<EpochRecord>> {
        self.lock().kept.back().cloned()
    }

    /// All kept records, oldest first. O(kept).
    pub fn all(&self) -> Vec<Arc<EpochRecord>> {
        self.lock().kept.iter().cloned().collect()
    }

    /// The kept records with `seq > since`, oldest first, at most the newest `limit` of them.
    /// O(kept).
    pub fn since(&self, since: u64, limit: usize) -> Vec<Arc<EpochRecord>> {
        let ring = self.lock();
        let newer = ring.kept.iter().filter(|r| r.seq > since);
        let skip = newer.clone().count().saturating_sub(limit);
        newer.skip(skip).cloned().collect()
    }

    /// The `seq` of the last record pushed (0 before the first), kept or not.
    pub fn last_seq(&self) -> u64 {
        self.lock().last_seq
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Ring> {
        self.ring.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seqs(records: &[Arc<EpochRecord>]) -> Vec<u64> {
        records.iter().map(|r| r.seq).collect()
    }

    #[test]
    fn the_ring_keeps_the_newest_capacity_records() {
        let ring = Epochs::new(2);
        for _ in 0..3 {
            ring.push(EpochRecord::default());
        }
        assert_eq!(seqs(&ring.all()), [2, 3]);
        assert_eq!(ring.latest().map(|r| r.seq), Some(3));
        assert_eq!(ring.last_seq(), 3);
        let none = Epochs::new(0);
        // Numbered even when not kept (the event log still gets it).
        assert_eq!(none.push(EpochRecord::default()).seq, 1);
        assert!(none.latest().is_none());
        assert!(none.all().is_empty());
    }

    #[test]
    fn since_and_limit_select_the_newest() {
        let ring = Epochs::new(5);
        for _ in 0..7 {
            ring.push(EpochRecord::default());
        }
        assert_eq!(seqs(&ring.since(0, usize::MAX)), [3, 4, 5, 6, 7]);
        assert_eq!(seqs(&ring.since(5, usize::MAX)), [6, 7]);
        assert_eq!(seqs(&ring.since(0, 2)), [6, 7]);
        assert_eq!(seqs(&ring.since(4, 1)), [7]);
        assert!(ring.since(7, 10).is_empty());
        assert!(ring.since(0, 0).is_empty());
    }
}
