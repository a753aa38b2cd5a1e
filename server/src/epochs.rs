//! The last answers, kept for the dashboard and `GET /v1/epochs` (issue 17 item 1; HFS design
//! doc §3.8: a web page of pools and jobs): a bounded in-memory ring of epoch records, newest
//! last. Bounded by count (`--epochs`); each record is a digest of one answer, not the answer.

use placer_models::PoolReport;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

/// Records kept when none is configured.
pub const DEFAULT_EPOCHS_KEPT: usize = 120;

/// What the service remembers of one answered epoch.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EpochRecord {
    /// Per pool: fair share, running and demand, as answered.
    pub pools: Vec<PoolReport>,
}

/// The ring. Clones share it.
#[derive(Clone, Debug)]
pub struct Epochs {
    kept: Arc<Mutex<VecDeque<Arc<EpochRecord>>>>,
    capacity: usize,
}

impl Default for Epochs {
    fn default() -> Self {
        Self::new(DEFAULT_EPOCHS_KEPT)
    }
}

impl Epochs {
    /// A ring keeping the last `capacity` records (0 keeps none).
    pub fn new(capacity: usize) -> Self {
        Self { kept: Arc::new(Mutex::new(VecDeque::with_capacity(capacity.min(1024)))), capacity }
    }

    /// Appends `record`, dropping the oldest beyond the capacity. O(1).
    pub fn push(&self, record: EpochRecord) {
        if self.capacity == 0 {
            return;
        }
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        while kept.len() >= self.capacity {
            kept.pop_front();
        }
        kept.push_back(Arc::new(record));
    }

    /// The newest record, if any. O(1).
    pub fn latest(&self) -> Option<Arc<EpochRecord>> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner).back().cloned()
    }

    /// All kept records, oldest first. O(kept).
    pub fn all(&self) -> Vec<Arc<EpochRecord>> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner).iter().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_keeps_the_newest_capacity_records() {
        let ring = Epochs::new(2);
        for _ in 0..3 {
            ring.push(EpochRecord::default());
        }
        assert_eq!(ring.all().len(), 2);
        assert!(ring.latest().is_some());
        let none = Epochs::new(0);
        none.push(EpochRecord::default());
        assert!(none.latest().is_none());
    }
}
