//! `pending[].replicas` (docs/wire-schema.md) held compactly: one string arena per list
//! and an end offset per name, instead of one heap `String` per replica. On the wire it is the
//! same JSON array of node ids; in memory a replica costs its name's bytes plus 4, where a
//! `Vec<NodeId>` costs 24 plus an allocation (≥ 32 bytes with glibc) — the bulk of a
//! snapshot with 10⁵ maps × 100 replicas (bounded memory).

use crate::ids::NodeId;
use serde::de::{self, SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// The node ids of a map's input replicas, in wire order: a string arena and the end offset
/// of each name in it. Iterates as `&str`. At most 4 GiB of names in one list (offsets are
/// `u32`; a body limit keeps real lists far below; a longer list fails to deserialize).
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Replicas {
    /// Every name, concatenated.
    names: String,
    /// End of each name in `names` (name k is `names[ends[k-1]..ends[k]]`).
    ends: Vec<u32>,
}

impl Replicas {
    /// No replicas.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of replicas.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The `k`-th name, or `None` beyond the end. O(1).
    pub fn get(&self, k: usize) -> Option<&str> {
        let end = *self.ends.get(k)? as usize;
        let start = if k == 0 { 0 } else { self.ends[k - 1] as usize };
        self.names.get(start..end)
    }

    /// The names in order.
    pub fn iter(&self) -> Iter<'_> {
        Iter { list: self, front: 0, back: self.len() }
    }

    /// Appends a name. A name that would take the arena past 4 GiB is dropped (see the type's
    /// limit; deserialization refuses such lists instead).
    pub fn push(&mut self, name: &str) {
        if let Ok(end) = u32::try_from(self.names.len() + name.len()) {
            self.names.push_str(name);
            self.ends.push(end);
        }
    }

    /// Whether `name` is listed. O(replicas).
    pub fn contains(&self, name: &str) -> bool {
        self.iter().any(|n| n == name)
    }

    /// Removes every name.
    pub fn clear(&mut self) {
        self.names.clear();
        self.ends.clear();
    }

    /// The names as owned ids (allocates one `String` per replica).
    pub fn to_ids(&self) -> Vec<NodeId> {
        self.iter().map(NodeId::from).collect()
    }

    /// The list of `names`, allocated at its exact size; `None` past 4 GiB of names (as
    /// deserialization refuses them).
    pub(crate) fn from_names(names: &[&str]) -> Option<Self> {
        let total: usize = names.iter().map(|n| n.len()).sum();
        u32::try_from(total).ok()?;
        let mut list =
            Self { names: String::with_capacity(total), ends: Vec::with_capacity(names.len()) };
        for name in names {
            list.names.push_str(name);
            list.ends.push(list.names.len() as u32);
        }
        Some(list)
    }

    /// Heap bytes held: the arena and the offsets (capacity, not length).
    pub fn heap_bytes(&self) -> usize {
        self.names.capacity() + self.ends.capacity() * std::mem::size_of::<u32>()
    }
}

/// Iterator over [`Replicas`], yielding `&str`.
#[derive(Clone, Debug)]
pub struct Iter<'a> {
    list: &'a Replicas,
    front: usize,
    back: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.front >= self.back {
            return None;
        }
        self.front += 1;
        self.list.get(self.front - 1)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back - self.front;
        (n, Some(n))
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.front >= self.back {
            return None;
        }
        self.back -= 1;
        self.list.get(self.back)
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a Replicas {
    type Item = &'a str;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl fmt::Debug for Replicas {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> FromIterator<&'a str> for Replicas {
    fn from_iter<I: IntoIterator<Item = &'a str>>(iter: I) -> Self {
        let mut list = Self::new();
        for name in iter {
            list.push(name);
        }
        list
    }
}

impl FromIterator<NodeId> for Replicas {
    fn from_iter<I: IntoIterator<Item = NodeId>>(iter: I) -> Self {
        let mut list = Self::new();
        for name in iter {
            list.push(name.as_str());
        }
        list
    }
}

impl<'a> FromIterator<&'a NodeId> for Replicas {
    fn from_iter<I: IntoIterator<Item = &'a NodeId>>(iter: I) -> Self {
        iter.into_iter().map(NodeId::as_str).collect()
    }
}

impl FromIterator<String> for Replicas {
    fn from_iter<I: IntoIterator<Item = String>>(iter: I) -> Self {
        let mut list = Self::new();
        for name in iter {
            list.push(&name);
        }
        list
    }
}

impl From<Vec<NodeId>> for Replicas {
    fn from(ids: Vec<NodeId>) -> Self {
        ids.into_iter().collect()
    }
}

impl<const N: usize> From<[&str; N]> for Replicas {
    fn from(names: [&str; N]) -> Self {
        names.into_iter().collect()
    }
}

impl From<Vec<&str>> for Replicas {
    fn from(names: Vec<&str>) -> Self {
        names.into_iter().collect()
    }
}

impl Serialize for Replicas {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.len()))?;
        for name in self {
            seq.serialize_element(name)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for Replicas {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_seq(ListVisitor)
    }
}

/// Visits the JSON array, appending each string to the arena without a `String` per name.
struct ListVisitor;

impl<'de> Visitor<'de> for ListVisitor {
    type Value = Replicas;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of node ids")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Replicas, A::Error> {
        // Read into this thread's scratch list, then copy it out at its exact size: two
        // allocations per list instead of one per doubling of each vector plus two to shrink.
        let scratch = SCRATCH.with_borrow_mut(std::mem::take);
        let mut scratch = Scratch(scratch);
        scratch.0.clear();
        while seq.next_element_seed(Append(&mut scratch.0))?.is_some() {}
        Ok(Replicas { names: scratch.0.names.as_str().to_owned(), ends: scratch.0.ends.to_vec() })
    }
}

thread_local! {
    /// The list being read on this thread (empty when no list is being read); its capacity is
    /// kept from one list to the next.
    static SCRATCH: std::cell::RefCell<Replicas> = std::cell::RefCell::new(Replicas::new());
}

/// A scratch list lent out of [`SCRATCH`], given back when dropped (also when reading fails),
/// unless it grew beyond [`SCRATCH_KEPT`] bytes: a thread keeps no more than that.
struct Scratch(Replicas);

/// The most heap a thread's scratch list keeps between lists, in bytes.
const SCRATCH_KEPT: usize = 64 << 10;

impl Drop for Scratch {
    fn drop(&mut self) {
        let list = std::mem::take(&mut self.0);
        if list.heap_bytes() <= SCRATCH_KEPT {
            SCRATCH.with_borrow_mut(|s| *s = list);
        }
    }
}

/// One array element, appended to the list as it is read.
struct Append<'l>(&'l mut Replicas);

impl<'de> de::DeserializeSeed<'de> for Append<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for Append<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a node id (string)")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<(), E> {
        let end = u32::try_from(self.0.names.len() + name.len())
            .map_err(|_| E::custom("replica names exceed 4 GiB in one list"))?;
        self.0.names.push_str(name);
        self.0.ends.push(end);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_format_is_a_json_array_of_ids() {
        // docs/wire-schema.md: "replicas": ["A", "B"].
        let list: Replicas = serde_json::from_str(r#"["A", "n\u00e9", "B"]"#).unwrap();
        assert_eq!(list.len(), 3);
        assert_eq!(list.iter().collect::<Vec<_>>(), ["A", "né", "B"]);
        assert_eq!(list.iter().rev().collect::<Vec<_>>(), ["B", "né", "A"]);
        assert_eq!(serde_json::to_string(&list).unwrap(), r#"["A","né","B"]"#);
        assert!(list.contains("B") && !list.contains("C"));
        assert_eq!(list.get(3), None);
        assert_eq!(list, Replicas::from(["A", "né", "B"]));
        assert_eq!(format!("{list:?}"), r#"["A", "né", "B"]"#);
    }

    #[test]
    fn refuses_what_is_not_a_list_of_strings() {
        assert!(serde_json::from_str::<Replicas>(r#"["A", 1]"#).is_err());
        assert!(serde_json::from_str::<Replicas>(r#""A""#).is_err());
    }

    #[test]
    fn a_replica_costs_its_bytes_plus_four() {
        // 100 four-byte names as parsed: 400 bytes of names and 400 of offsets, not 100
        // Strings (24 bytes each plus an allocation).
        let names: Vec<String> = (0..100).map(|k| format!("n{k:03}")).collect();
        let list: Replicas = serde_json::from_str(&serde_json::to_string(&names).unwrap()).unwrap();
        assert_eq!(list.len(), 100);
        assert_eq!(list.heap_bytes(), 800);
    }
}
