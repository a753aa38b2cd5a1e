//! Ids to positions for validation (docs/wire-schema.md, "Errors": unknown and duplicate ids):
//! the names copied into one arena and an open-addressing table of (hash tag, position), so that
//! resolving a reference reads a compact table and arena rather than a map of pointers into
//! strings scattered over the heap (10⁵ node ids resolved 10⁶ times per snapshot).

use std::hash::BuildHasher;

/// An index of distinct names by position. Lookups compare 32 bits of hash before any name.
pub(crate) struct NameIndex {
    /// Every name, concatenated in position order.
    arena: String,
    /// End of each name in `arena`.
    ends: Vec<u32>,
    /// Slots: hash tag in the high 32 bits, position + 1 in the low 32 (0 = empty).
    slots: Vec<u64>,
    /// `slots.len() - 1` (a power of two minus one).
    mask: usize,
    /// The seeded hasher.
    state: foldhash::fast::RandomState,
}

impl NameIndex {
    /// An empty index with room for `n` names (at most half the slots used).
    pub(crate) fn with_capacity(n: usize) -> Self {
        let slots = (2 * n).next_power_of_two().max(8);
        Self {
            arena: String::new(),
            ends: Vec::with_capacity(n),
            slots: vec![0; slots],
            mask: slots - 1,
            state: foldhash::fast::RandomState::default(),
        }
    }

    /// Number of names.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are none.
    pub(crate) fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The name at `p`.
    fn name(&self, p: usize) -> &str {
        let start = if p == 0 { 0 } else { self.ends[p - 1] as usize };
        self.arena.get(start..self.ends[p] as usize).unwrap_or_default()
    }

    /// Where `name`'s probe ends: `Ok(position)` if it is indexed, `Err(slot)` the empty slot
    /// it would take.
    #[inline]
    fn probe(&self, name: &str, hash: u64) -> Result<usize, usize> {
        let tag = hash >> 32;
        let mut at = (hash as usize) & self.mask;
        loop {
            let slot = self.slots[at];
            if slot == 0 {
                return Err(at);
            }
            if slot >> 32 == tag {
                let p = (slot as u32 - 1) as usize;
                if self.name(p) == name {
                    return Ok(p);
                }
            }
            at = (at + 1) & self.mask;
        }
    }

    /// Appends `name` at the next position, or returns the position it has already. Names
    /// beyond 4 GiB in all, or beyond 2³² − 1 of them, are refused as `Err(None)`.
    pub(crate) fn insert(&mut self, name: &str) -> Result<usize, Option<usize>> {
        let p = self.ends.len();
        let end = u32::try_from(self.arena.len() + name.len()).map_err(|_| None)?;
        let entry = u32::try_from(p + 1).map_err(|_| None)?;
        if 2 * (p + 1) > self.slots.len() {
            self.grow();
        }
        let hash = self.state.hash_one(name);
        let slot = match self.probe(name, hash) {
            Ok(first) => return Err(Some(first)),
            Err(slot) => slot,
        };
        self.arena.push_str(name);
        self.ends.push(end);
        self.slots[slot] = ((hash >> 32) << 32) | u64::from(entry);
        Ok(p)
    }

    /// Doubles the slots and places every name again.
    fn grow(&mut self) {
        let slots = self.slots.len() * 2;
        self.slots = vec![0; slots];
        self.mask = slots - 1;
        for p in 0..self.ends.len() {
            let hash = self.state.hash_one(self.name(p));
            let mut at = (hash as usize) & self.mask;
            while self.slots[at] != 0 {
                at = (at + 1) & self.mask;
            }
            self.slots[at] = ((hash >> 32) << 32) | (p as u64 + 1);
        }
    }

    /// The position of `name`, if indexed.
    #[inline]
    pub(crate) fn get(&self, name: &str) -> Option<usize> {
        self.probe(name, self.state.hash_one(name)).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_in_insertion_order_and_duplicates_found() {
        let mut ix = NameIndex::with_capacity(2);
        // More names than the capacity asked for: the table grows.
        let names: Vec<String> = (0..100).map(|k| format!("n{k}")).collect();
        for (k, name) in names.iter().enumerate() {
            assert_eq!(ix.insert(name), Ok(k));
        }
        assert_eq!(ix.insert("n42"), Err(Some(42)));
        assert_eq!(ix.insert(""), Ok(100));
        assert_eq!(ix.len(), 101);
        for (k, name) in names.iter().enumerate() {
            assert_eq!(ix.get(name), Some(k));
        }
        assert_eq!(ix.get(""), Some(100));
        assert_eq!(ix.get("n100"), None);
        assert_eq!(ix.get("n4"), Some(4));
        assert!(NameIndex::with_capacity(0).is_empty());
    }
}
