//! Many short lists in two flat arrays, compressed sparse rows (Saad, *Iterative Methods for
//! Sparse Linear Systems* §3.4: CSR's row pointers and column indices): the index's replica
//! nodes per pending task, one allocation for all of them instead of one `Vec` per task
//! (bounded memory: 10⁵ maps × 100 replicas).

use std::ops::Index;

/// Lists of `T`, list `i` at `items[starts[i]..starts[i + 1]]`. Indexing gives a slice, so
/// `lists[i]` reads like `Vec<Vec<T>>`'s. Memory: `size_of::<T>()` per item plus 4 bytes
/// per list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lists<T> {
    starts: Vec<u32>,
    items: Vec<T>,
}

impl<T> Default for Lists<T> {
    fn default() -> Self {
        Self { starts: vec![0], items: Vec::new() }
    }
}

impl<T> Lists<T> {
    /// No lists, room for `lists` lists and `items` items.
    pub fn with_capacity(lists: usize, items: usize) -> Self {
        let mut starts = Vec::with_capacity(lists + 1);
        starts.push(0);
        Self { starts, items: Vec::with_capacity(items) }
    }

    /// Appends a list. Items beyond 2³² − 1 in all are dropped (a snapshot under any body
    /// limit has far fewer).
    pub fn push(&mut self, list: impl IntoIterator<Item = T>) {
        for item in list {
            if self.items.len() >= u32::MAX as usize {
                break;
            }
            self.items.push(item);
        }
        self.starts.push(self.items.len() as u32);
    }

    /// Number of lists.
    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// Whether there is no list.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// List `i`, or `None` beyond the last. O(1).
    pub fn get(&self, i: usize) -> Option<&[T]> {
        let (&a, &b) = (self.starts.get(i)?, self.starts.get(i + 1)?);
        self.items.get(a as usize..b as usize)
    }

    /// Every list in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[T]> + '_ {
        self.starts.windows(2).map(|w| &self.items[w[0] as usize..w[1] as usize])
    }

    /// Items in all lists.
    pub fn total(&self) -> usize {
        self.items.len()
    }
}

impl<T> Index<usize> for Lists<T> {
    type Output = [T];

    /// List `i`. Panics beyond the last list, as `Vec` indexing does.
    fn index(&self, i: usize) -> &[T] {
        &self.items[self.starts[i] as usize..self.starts[i + 1] as usize]
    }
}

impl<T, L: IntoIterator<Item = T>> FromIterator<L> for Lists<T> {
    fn from_iter<I: IntoIterator<Item = L>>(iter: I) -> Self {
        let mut lists = Self::default();
        for list in iter {
            lists.push(list);
        }
        lists
    }
}

/// Lists of `T` where a list may repeat an earlier one without a copy: list `i` is
/// `items[spans[i].0..spans[i].1]`. The index's shuffle sources per pending task use it:
/// the reduces of one job usually read the same bytes from the same nodes, and a list of
/// hundreds of sources is then stored once. Memory: `size_of::<T>()` per stored item plus 8
/// bytes per list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SharedLists<T> {
    spans: Vec<(u32, u32)>,
    items: Vec<T>,
}

impl<T> SharedLists<T> {
    /// No lists, room for `lists` lists.
    pub fn with_capacity(lists: usize) -> Self {
        Self { spans: Vec::with_capacity(lists), items: Vec::new() }
    }

    /// Appends the list that `fill` appends to the item array (it must only append). A list
    /// that would take the items beyond 2³² − 1 in all is stored empty (a snapshot under any
    /// body limit has far fewer).
    pub fn push_with(&mut self, fill: impl FnOnce(&mut Vec<T>)) {
        let start = self.items.len();
        fill(&mut self.items);
        if self.items.len() > u32::MAX as usize {
            self.items.truncate(start);
        }
        self.spans.push((start as u32, self.items.len() as u32));
    }

    /// Appends a list equal to list `i`, sharing its items (an empty list when there is no
    /// list `i`). O(1).
    pub fn repeat(&mut self, i: usize) {
        let span = self.spans.get(i).copied().unwrap_or((0, 0));
        self.spans.push(span);
    }

    /// Whether lists `i` and `j` are stored as one (then they are equal; equal lists stored
    /// apart give false). O(1).
    pub fn shared(&self, i: usize, j: usize) -> bool {
        matches!((self.spans.get(i), self.spans.get(j)), (Some(a), Some(b)) if a == b)
    }

    /// Number of lists.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether there is no list.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// List `i`, or `None` beyond the last. O(1).
    pub fn get(&self, i: usize) -> Option<&[T]> {
        let &(a, b) = self.spans.get(i)?;
        self.items.get(a as usize..b as usize)
    }
}

impl<T> Index<usize> for SharedLists<T> {
    type Output = [T];

    /// List `i`. Panics beyond the last list, as `Vec` indexing does.
    fn index(&self, i: usize) -> &[T] {
        let (a, b) = self.spans[i];
        &self.items[a as usize..b as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_like_a_vec_of_vecs() {
        // lsap-sched's Fig. 1: T1's replicas on A (0) and B (1), T2's on A, a reduce none.
        let lists: Lists<u32> = [vec![0, 1], vec![0], vec![]].into_iter().collect();
        assert_eq!(lists.len(), 3);
        assert_eq!(&lists[0], &[0, 1]);
        assert_eq!(&lists[1], &[0]);
        assert!(lists[2].is_empty());
        assert_eq!(lists.get(3), None);
        assert_eq!(lists.total(), 3);
        assert_eq!(lists.iter().map(<[u32]>::len).collect::<Vec<_>>(), [2, 1, 0]);
    }

    #[test]
    fn shared_lists_repeat_without_a_copy() {
        // Two reduces of one job reading 3 and 5 bytes from nodes 0 and 2, then a map (none).
        let mut lists: SharedLists<(u32, u64)> = SharedLists::with_capacity(3);
        lists.push_with(|items| items.extend([(0, 3), (2, 5)]));
        lists.push_with(|_| {});
        lists.repeat(0);
        assert_eq!(lists.len(), 3);
        assert_eq!(&lists[2], &[(0, 3), (2, 5)]);
        assert!(lists.shared(0, 2));
        assert!(!lists.shared(1, 2));
        assert!(lists[1].is_empty());
        assert_eq!(lists.get(3), None);
        assert_eq!(lists.items.len(), 2);
    }
}
