//! The last answers, kept for the dashboard and `GET /v1/epochs` (HFS design doc §3.8: a web
//! page of pools and jobs; docs/operations/serving.md, "Limits per route"): a bounded
//! in-memory ring of epoch records, newest last, numbered in the order they enter. Bounded by count
//! (`--epochs`) and by bytes (`--epochs-max-bytes`, each record counted at its JSON size); the
//! newest record is always kept, so the extender's fair-share rule reads the latest answer whatever
//! its size. Each record is a bounded digest of one answer, not the answer
//! ([`crate::epoch_record`]).

pub use crate::epoch_record::EpochRecord;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

/// Records kept when none is configured.
pub const DEFAULT_EPOCHS_KEPT: usize = 120;

/// Bytes of records kept when none is configured: 64 MiB.
pub const DEFAULT_EPOCHS_MAX_BYTES: u64 = 64 << 20;

/// The ring. Clones share it.
#[derive(Clone, Debug)]
pub struct Epochs {
    ring: Arc<Mutex<Ring>>,
    capacity: usize,
    max_bytes: u64,
}

#[derive(Debug, Default)]
struct Ring {
    /// The records, oldest first, each with its JSON size in bytes.
    kept: VecDeque<(Arc<EpochRecord>, u64)>,
    /// The sum of the kept records' sizes.
    bytes: u64,
    /// The `seq` of the last record pushed (0 before the first).
    last_seq: u64,
}

/// A page of records: the kept records with `since < seq < before`, the newest of them, at
/// most `limit` and, beyond the first, at most `max_bytes` of JSON; oldest first.
#[derive(Clone, Debug, Default)]
pub struct Page {
    /// The records.
    pub records: Vec<Arc<EpochRecord>>,
    /// Records in the range left out (older than the page's first): ask again with `before`
    /// set to the first record's `seq` for them.
    pub omitted: u64,
    /// The records' JSON size in all.
    pub bytes: u64,
}

impl Default for Epochs {
    fn default() -> Self {
        Self::new(DEFAULT_EPOCHS_KEPT)
    }
}

/// Bytes of `record` as JSON (what it weighs in the ring and on the wire).
///
/// # Complexity
/// O(record): one serialization into a counter, nothing allocated.
pub fn json_size(record: &EpochRecord) -> u64 {
    struct Count(u64);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len() as u64;
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Serializing plain data into a counter cannot fail.
    serde_json::to_writer(&mut count, record).map_or(0, |()| count.0)
}

impl Epochs {
    /// A ring keeping the last `capacity` records (0 keeps none), at most
    /// [`DEFAULT_EPOCHS_MAX_BYTES`] of them.
    pub fn new(capacity: usize) -> Self {
        Self::bounded(capacity, DEFAULT_EPOCHS_MAX_BYTES)
    }

    /// A ring keeping the last `capacity` records and, beyond the newest, at most `max_bytes`
    /// of them (JSON size).
    pub fn bounded(capacity: usize, max_bytes: u64) -> Self {
        let ring = Ring { kept: VecDeque::with_capacity(capacity.min(1024)), ..Ring::default() };
        Self { ring: Arc::new(Mutex::new(ring)), capacity, max_bytes }
    }

    /// How many records the ring keeps at most.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// How many bytes of records the ring keeps at most (beyond the newest).
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// Bytes of the records kept now.
    pub fn bytes(&self) -> u64 {
        self.lock().bytes
    }

    /// Numbers `record` (`seq` = the previous record's + 1, from 1) and appends it, dropping
    /// the oldest beyond the capacity or the byte bound; returns it as kept.
    ///
    /// # Complexity
    /// O(record) to size it, O(1) amortised in the ring.
    pub fn push(&self, mut record: EpochRecord) -> Arc<EpochRecord> {
        let size = if self.capacity > 0 { json_size(&record) } else { 0 };
        let mut ring = self.lock();
        ring.last_seq += 1;
        record.seq = ring.last_seq;
        let record = Arc::new(record);
        if self.capacity > 0 {
            while ring.kept.len() >= self.capacity
                || (!ring.kept.is_empty() && ring.bytes.saturating_add(size) > self.max_bytes)
            {
                let Some((_, old)) = ring.kept.pop_front() else { break };
                ring.bytes -= old;
            }
            ring.kept.push_back((Arc::clone(&record), size));
            ring.bytes += size;
        }
        record
    }

    /// The newest record, if any. O(1).
    pub fn latest(&self) -> Option<Arc<EpochRecord>> {
        self.lock().kept.back().map(|(r, _)| Arc::clone(r))
    }

    /// All kept records, oldest first. O(kept).
    pub fn all(&self) -> Vec<Arc<EpochRecord>> {
        self.lock().kept.iter().map(|(r, _)| Arc::clone(r)).collect()
    }

    /// The kept records with `seq > since`, oldest first, at most the newest `limit` of them.
    /// O(kept).
    pub fn since(&self, since: u64, limit: usize) -> Vec<Arc<EpochRecord>> {
        self.page(since, u64::MAX, limit, u64::MAX).records
    }

    /// A [`Page`]: the newest kept records with `since < seq < before`, at most `limit`, and
    /// beyond the first at most `max_bytes` of JSON.
    ///
    /// # Complexity
    /// O(kept).
    pub fn page(&self, since: u64, before: u64, limit: usize, max_bytes: u64) -> Page {
        let ring = self.lock();
        let in_range = |r: &&(Arc<EpochRecord>, u64)| r.0.seq > since && r.0.seq < before;
        let matching = ring.kept.iter().filter(in_range).count();
        let mut records = Vec::new();
        let mut bytes = 0u64;
        for (record, size) in ring.kept.iter().rev().filter(in_range) {
            let over = !records.is_empty() && bytes.saturating_add(*size) > max_bytes;
            if records.len() >= limit || over {
                break;
            }
            bytes = bytes.saturating_add(*size);
            records.push(Arc::clone(record));
        }
        records.reverse();
        Page { omitted: (matching - records.len()) as u64, records, bytes }
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

    /// A record whose ids make it large.
    fn record_of(bytes: usize) -> EpochRecord {
        EpochRecord { request_id: "x".repeat(bytes), ..EpochRecord::default() }
    }

    /// 120 posts of a snapshot with long ids once kept 627 MB: the ring counted records, not
    /// bytes. Now it drops the oldest past the byte bound, and always keeps the newest.
    #[test]
    fn the_ring_is_bounded_in_bytes_and_keeps_the_newest() {
        let one = json_size(&record_of(1000));
        assert!(one > 1000 && one < 2000, "{one}");
        let ring = Epochs::bounded(120, 3 * one);
        for _ in 0..120 {
            ring.push(record_of(1000));
        }
        assert_eq!(seqs(&ring.all()), [118, 119, 120]);
        assert_eq!(ring.bytes(), 3 * one);
        // One record larger than the whole bound is still kept, alone.
        ring.push(record_of(10_000));
        assert_eq!(seqs(&ring.all()), [121]);
        ring.push(record_of(1000));
        assert_eq!(seqs(&ring.all()), [122]);
        assert_eq!(ring.bytes(), one);
    }

    #[test]
    fn pages_are_bounded_in_bytes_and_walk_back_with_before() {
        let one = json_size(&record_of(100));
        let ring = Epochs::bounded(10, u64::MAX);
        for _ in 0..7 {
            ring.push(record_of(100));
        }
        let page = ring.page(0, u64::MAX, usize::MAX, 2 * one);
        assert_eq!((seqs(&page.records), page.omitted), (vec![6, 7], 5));
        let page = ring.page(0, 6, usize::MAX, 2 * one);
        assert_eq!((seqs(&page.records), page.omitted), (vec![4, 5], 3));
        let page = ring.page(2, 4, usize::MAX, 2 * one);
        assert_eq!((seqs(&page.records), page.omitted), (vec![3], 0));
        // A record larger than the page bound still makes a page of one.
        let page = ring.page(0, u64::MAX, usize::MAX, 1);
        assert_eq!((seqs(&page.records), page.omitted), (vec![7], 6));
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
