//! What changed in a cluster since the last epoch (docs/wire-schema.md, "Sessions"; the
//! incremental rounds of Firmament, Gog et al., OSDI 2016, §5, on lsap-sched's "instant system
//! state", Guo et al. §3.2): a session's delta `{"base_epoch", "changes": {now_s?, policy?,
//! network?, upsert?, remove?}}`, typed, and how it edits a held snapshot in place.
//!
//! Changes apply as remove, then upsert, then `now_s`, `policy` and `cluster.network`. An
//! upserted object whose id the snapshot holds replaces it in place; a new id is appended, in
//! the delta's order; a removed id not held is ignored. So the edited snapshot is the
//! equivalent full snapshot a master would send: the original order, new ids last. Every edit
//! is recorded in an [`Undo`], so that a delta whose result does not validate leaves the held
//! snapshot as it was.

use crate::error::ModelError;
use crate::request::{
    Job, Network, Node, PendingTask, PlaceRequest, Pool, Rack, RunningTask, User,
};
use crate::Policy;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;

/// `T` read from a JSON object only: serde's derived structs also take an array of their
/// fields in order, which the delta's schema does not allow.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ObjectOnly<T>(pub T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ObjectOnly<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Object<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Object<T> {
            type Value = T;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(serde::de::value::MapAccessDeserializer::new(map))
            }
        }
        deserializer.deserialize_map(Object(PhantomData)).map(ObjectOnly)
    }
}

/// The body of `POST /v1/sessions/{id}/place`. Unknown keys are refused (a misspelt kind would
/// otherwise change nothing, silently).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Delta {
    /// The epoch the delta is relative to: the session's current one.
    pub base_epoch: u64,
    /// What changed; none: the same snapshot again.
    #[serde(default)]
    pub changes: ObjectOnly<Changes>,
}

/// What changed since `base_epoch`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Changes {
    /// The new `now_s`.
    #[serde(default)]
    pub now_s: Option<f64>,
    /// The new `policy`, replacing the whole object.
    #[serde(default)]
    pub policy: Option<Policy>,
    /// The new `cluster.network`, replacing the whole object.
    #[serde(default)]
    pub network: Option<ObjectOnly<Network>>,
    /// Full objects by kind: an id held is replaced in place, a new one appended.
    #[serde(default)]
    pub upsert: ObjectOnly<Upsert>,
    /// Ids by kind; an id not held is ignored.
    #[serde(default)]
    pub remove: ObjectOnly<Remove>,
}

/// Upserted objects by kind (racks and nodes go to `cluster`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Upsert {
    /// Racks.
    #[serde(default)]
    pub racks: Vec<Rack>,
    /// Nodes.
    #[serde(default)]
    pub nodes: Vec<Node>,
    /// Pools.
    #[serde(default)]
    pub pools: Vec<Pool>,
    /// Users.
    #[serde(default)]
    pub users: Vec<User>,
    /// Jobs.
    #[serde(default)]
    pub jobs: Vec<Job>,
    /// Running tasks.
    #[serde(default)]
    pub running: Vec<RunningTask>,
    /// Pending tasks.
    #[serde(default)]
    pub pending: Vec<PendingTask>,
}

/// Removed ids by kind.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Remove {
    /// Rack ids.
    #[serde(default)]
    pub racks: Vec<String>,
    /// Node ids.
    #[serde(default)]
    pub nodes: Vec<String>,
    /// Pool ids.
    #[serde(default)]
    pub pools: Vec<String>,
    /// User ids.
    #[serde(default)]
    pub users: Vec<String>,
    /// Job ids.
    #[serde(default)]
    pub jobs: Vec<String>,
    /// Running task ids.
    #[serde(default)]
    pub running: Vec<String>,
    /// Pending task ids.
    #[serde(default)]
    pub pending: Vec<String>,
}

impl Changes {
    /// Whether the delta changes nothing.
    pub fn is_empty(&self) -> bool {
        let (u, r) = (&self.upsert.0, &self.remove.0);
        self.now_s.is_none()
            && self.policy.is_none()
            && self.network.is_none()
            && u.racks.is_empty()
            && u.nodes.is_empty()
            && u.pools.is_empty()
            && u.users.is_empty()
            && u.jobs.is_empty()
            && u.running.is_empty()
            && u.pending.is_empty()
            && r.racks.is_empty()
            && r.nodes.is_empty()
            && r.pools.is_empty()
            && r.users.is_empty()
            && r.jobs.is_empty()
            && r.running.is_empty()
            && r.pending.is_empty()
    }
}

/// Parses a delta body, with the JSON path of a shape error (`changes.upsert.nodes[0].rack`).
///
/// # Errors
/// [`ModelError::MalformedJson`] or [`ModelError::InvalidField`], as a snapshot's.
///
/// # Complexity
/// O(body).
///
/// # Examples
/// ```
/// let body = br#"{"base_epoch": 3, "changes": {"now_s": 12.5,
///   "remove": {"pending": ["t1"]},
///   "upsert": {"nodes": [{"id": "n9", "rack": "r1", "map_slots": 2}]}}}"#;
/// let delta = placer_models::parse_delta(body).unwrap();
/// assert_eq!(delta.base_epoch, 3);
/// assert_eq!(delta.changes.0.now_s, Some(12.5));
/// assert_eq!(delta.changes.0.upsert.0.nodes[0].map_slots, 2);
/// let err = placer_models::parse_delta(br#"{"base_epoch": 0, "changes": {"upsert": {"node": []}}}"#);
/// assert_eq!(err.unwrap_err().path(), "changes.upsert.node");
/// ```
pub fn parse_delta(body: &[u8]) -> Result<Delta, ModelError> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let ObjectOnly(delta) =
        serde_path_to_error::deserialize(&mut de).map_err(crate::parse::path_error)?;
    de.end()
        .map_err(|e| ModelError::MalformedJson { path: "$".to_owned(), message: e.to_string() })?;
    Ok(delta)
}

/// An object located by its string id.
pub(crate) trait Keyed {
    fn key(&self) -> &str;
}

macro_rules! keyed {
    ($($t:ty),*) => {$(
        impl Keyed for $t {
            fn key(&self) -> &str {
                self.id.as_str()
            }
        }
    )*};
}
keyed!(Rack, Node, Pool, User, Job, RunningTask, PendingTask);

/// How to take one list's edits back.
#[derive(Debug)]
pub(crate) struct ListUndo<T> {
    /// (position before the edit, element) of each removed element, ascending.
    pub(crate) removed: Vec<(usize, T)>,
    /// The list's length after the removals (appended elements are past it).
    pub(crate) kept: usize,
    /// (position after the removals, previous element) of each element replaced in place, in
    /// edit order.
    pub(crate) replaced: Vec<(usize, T)>,
}

impl<T> Default for ListUndo<T> {
    fn default() -> Self {
        Self { removed: Vec::new(), kept: 0, replaced: Vec::new() }
    }
}

impl<T> ListUndo<T> {
    /// Σ `bytes` over the removed and replaced elements.
    pub(crate) fn bytes(&self, bytes: impl Fn(&T) -> usize) -> usize {
        self.removed.iter().chain(&self.replaced).map(|(_, e)| bytes(e)).sum()
    }
}

impl<T: Keyed> ListUndo<T> {
    /// Removes `remove`'s ids from `list`, then upserts `upsert` by id; returns how to undo it.
    ///
    /// Complexity: O(list + remove + upsert) expected when anything changes, O(1) otherwise.
    fn edit(list: &mut Vec<T>, remove: &[String], upsert: Vec<T>) -> Self {
        let mut undo = Self { kept: list.len(), ..Self::default() };
        if !remove.is_empty() {
            let gone: foldhash::HashSet<&str> = remove.iter().map(String::as_str).collect();
            // One pass that keeps the order of what stays and hands out what goes, each with
            // its position before the edit.
            let (mut at, mut positions) = (0usize, Vec::new());
            let removed: Vec<T> = list
                .extract_if(.., |e| {
                    let hit = gone.contains(e.key());
                    if hit {
                        positions.push(at);
                    }
                    at += 1;
                    hit
                })
                .collect();
            undo.removed = positions.into_iter().zip(removed).collect();
            undo.kept = list.len();
        }
        if upsert.is_empty() {
            return undo;
        }
        // Positions of the upserted ids the list holds: one pass over the list, one hash per
        // element, an allocation per id found only.
        let wanted: foldhash::HashSet<&str> = upsert.iter().map(Keyed::key).collect();
        let mut at: HashMap<String, usize, foldhash::fast::RandomState> =
            HashMap::with_capacity_and_hasher(upsert.len(), Default::default());
        for (i, e) in list.iter().enumerate() {
            if wanted.contains(e.key()) {
                at.entry(e.key().to_owned()).or_insert(i);
            }
        }
        drop(wanted);
        for item in upsert {
            match at.get(item.key()) {
                Some(&j) => {
                    let old = std::mem::replace(&mut list[j], item);
                    if j < undo.kept {
                        undo.replaced.push((j, old));
                    }
                }
                None => {
                    at.insert(item.key().to_owned(), list.len());
                    list.push(item);
                }
            }
        }
        undo
    }

    /// Puts `list` back as it was before [`ListUndo::edit`].
    ///
    /// Complexity: O(list) when something was removed, else O(changes).
    fn restore(self, list: &mut Vec<T>) {
        for (j, old) in self.replaced.into_iter().rev() {
            list[j] = old;
        }
        list.truncate(self.kept);
        if self.removed.is_empty() {
            return;
        }
        let kept = std::mem::take(list);
        list.reserve(kept.len() + self.removed.len());
        let mut kept = kept.into_iter();
        for (i, e) in self.removed {
            while list.len() < i {
                match kept.next() {
                    Some(k) => list.push(k),
                    None => break,
                }
            }
            list.push(e);
        }
        list.extend(kept);
    }
}

/// How to take a whole delta back ([`PlaceRequest::apply_changes`]).
#[derive(Debug, Default)]
pub struct Undo {
    pub(crate) racks: ListUndo<Rack>,
    pub(crate) nodes: ListUndo<Node>,
    pub(crate) pools: ListUndo<Pool>,
    pub(crate) users: ListUndo<User>,
    pub(crate) jobs: ListUndo<Job>,
    pub(crate) running: ListUndo<RunningTask>,
    pub(crate) pending: ListUndo<PendingTask>,
    pub(crate) now_s: Option<f64>,
    pub(crate) policy: Option<Policy>,
    pub(crate) network: Option<Network>,
}

/// The jobs and tasks a delta took out of a snapshot ([`Undo::into_taken`]).
#[derive(Debug, Default)]
pub struct Taken {
    /// Jobs removed or replaced.
    pub jobs: Vec<Job>,
    /// Pending tasks removed or replaced.
    pub pending: Vec<PendingTask>,
    /// Running tasks removed or replaced.
    pub running: Vec<RunningTask>,
}

impl Undo {
    /// The jobs and tasks the delta removed and the previous versions of those it replaced,
    /// once the delta is kept: a caller that writes its entries in place reuses their
    /// allocations (strings, replica and shuffle lists) for the next delta.
    ///
    /// # Complexity
    /// O(taken).
    pub fn into_taken(self) -> Taken {
        fn entries<T>(l: ListUndo<T>) -> Vec<T> {
            l.removed.into_iter().chain(l.replaced).map(|(_, e)| e).collect()
        }
        Taken {
            jobs: entries(self.jobs),
            pending: entries(self.pending),
            running: entries(self.running),
        }
    }
}

impl PlaceRequest {
    /// Applies `changes` in place: remove, then upsert (racks and nodes in `cluster`, the other
    /// kinds at the top level), then `now_s`, `policy` and `cluster.network`. Arrays keep their
    /// order, new ids appended in the delta's order. Nothing is checked: validate the result as
    /// a snapshot, and [`PlaceRequest::undo`] it if it fails.
    ///
    /// # Complexity
    /// O(n + changes) expected for each kind the delta touches (one pass to remove, one hash
    /// per element to locate upserted ids), O(1) for a kind it does not.
    ///
    /// # Errors
    /// None.
    ///
    /// # Examples
    /// lsap-sched's Fig. 1 cluster, A and B: a delta removes B and adds C; undo gives back the
    /// snapshot as it was.
    /// ```
    /// use placer_models::{parse_delta, parse_request};
    /// let mut req = parse_request(br#"{"schema_version": 1, "cluster": {"racks": [{"id": "r"}],
    ///   "nodes": [{"id": "A", "rack": "r", "map_slots": 1}, {"id": "B", "rack": "r", "map_slots": 1}]}}"#).unwrap();
    /// let before = req.clone();
    /// let delta = parse_delta(br#"{"base_epoch": 0, "changes": {"remove": {"nodes": ["B"]},
    ///   "upsert": {"nodes": [{"id": "C", "rack": "r", "map_slots": 2}, {"id": "A", "rack": "r"}]}}}"#).unwrap();
    /// let undo = req.apply_changes(delta.changes.0);
    /// let ids: Vec<&str> = req.cluster.nodes.iter().map(|n| n.id.as_str()).collect();
    /// assert_eq!(ids, ["A", "C"]);
    /// assert_eq!(req.cluster.nodes[0].map_slots, 0);
    /// req.undo(undo);
    /// assert_eq!(req, before);
    /// ```
    pub fn apply_changes(&mut self, changes: Changes) -> Undo {
        let Changes { now_s, policy, network, upsert, remove } = changes;
        let (up, rm) = (upsert.0, remove.0);
        let mut undo = Undo {
            racks: ListUndo::edit(&mut self.cluster.racks, &rm.racks, up.racks),
            nodes: ListUndo::edit(&mut self.cluster.nodes, &rm.nodes, up.nodes),
            pools: ListUndo::edit(&mut self.pools, &rm.pools, up.pools),
            users: ListUndo::edit(&mut self.users, &rm.users, up.users),
            jobs: ListUndo::edit(&mut self.jobs, &rm.jobs, up.jobs),
            running: ListUndo::edit(&mut self.running, &rm.running, up.running),
            pending: ListUndo::edit(&mut self.pending, &rm.pending, up.pending),
            ..Undo::default()
        };
        if let Some(now_s) = now_s {
            undo.now_s = Some(std::mem::replace(&mut self.now_s, now_s));
        }
        if let Some(policy) = policy {
            undo.policy = Some(std::mem::replace(&mut self.policy, policy));
        }
        if let Some(ObjectOnly(network)) = network {
            undo.network = Some(std::mem::replace(&mut self.cluster.network, network));
        }
        undo
    }

    /// Takes back the changes that returned `undo`: the snapshot is again equal to what it was.
    ///
    /// # Complexity
    /// O(n) for each kind that lost an element, O(changes) otherwise.
    pub fn undo(&mut self, undo: Undo) {
        let Undo { racks, nodes, pools, users, jobs, running, pending, now_s, policy, network } =
            undo;
        if let Some(network) = network {
            self.cluster.network = network;
        }
        if let Some(policy) = policy {
            self.policy = policy;
        }
        if let Some(now_s) = now_s {
            self.now_s = now_s;
        }
        pending.restore(&mut self.pending);
        running.restore(&mut self.running);
        jobs.restore(&mut self.jobs);
        users.restore(&mut self.users);
        pools.restore(&mut self.pools);
        nodes.restore(&mut self.cluster.nodes);
        racks.restore(&mut self.cluster.racks);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::parse_request;
    use serde_json::{json, Value};

    fn applied(snapshot: &Value, delta: &Value) -> (PlaceRequest, PlaceRequest) {
        let original = parse_request(&serde_json::to_vec(snapshot).unwrap()).unwrap();
        let mut req = original.clone();
        let delta = parse_delta(&serde_json::to_vec(delta).unwrap()).unwrap();
        let undo = req.apply_changes(delta.changes.0);
        let edited = req.clone();
        req.undo(undo);
        assert_eq!(req, original, "undo gives the snapshot back");
        (original, edited)
    }

    fn pending_ids(req: &PlaceRequest) -> Vec<&str> {
        req.pending.iter().map(|t| t.id.as_str()).collect()
    }

    fn task(id: &str, bytes: u64) -> Value {
        json!({"id": id, "job": "j", "kind": "map", "input_bytes": bytes})
    }

    /// Remove b (and an id not held), upsert c (in place), d and b (appended, in order).
    #[test]
    fn remove_then_upsert_keeps_order_and_appends_new_ids() {
        let snapshot = json!({"schema_version": 1, "cluster": {"racks": [{"id": "r"}]},
            "pending": [task("a", 1), task("b", 2), task("c", 3)]});
        let delta = json!({"base_epoch": 0, "changes": {
            "remove": {"pending": ["b", "zz"]},
            "upsert": {"pending": [task("c", 30), task("d", 4), task("b", 20)],
                       "nodes": [{"id": "n", "rack": "r"}]},
            "now_s": 5, "network": {"rack_mbps": 10}}});
        let (_, out) = applied(&snapshot, &delta);
        assert_eq!(pending_ids(&out), ["a", "c", "d", "b"]);
        assert_eq!(out.pending[1].input_bytes, 30);
        assert_eq!(out.pending[3].input_bytes, 20);
        assert_eq!(out.cluster.nodes.len(), 1);
        assert_eq!(out.cluster.network.rack_mbps, 10.0);
        assert_eq!(out.now_s, 5.0);
    }

    /// The same id upserted twice in one delta: the second replaces the first.
    #[test]
    fn a_repeated_upsert_keeps_the_last() {
        let snapshot = json!({"schema_version": 1, "cluster": {}, "pending": [task("a", 1)]});
        let delta = json!({"base_epoch": 0, "changes": {"upsert": {"pending":
            [task("a", 2), task("a", 3), task("x", 1), task("x", 9)]}}});
        let (_, out) = applied(&snapshot, &delta);
        assert_eq!(pending_ids(&out), ["a", "x"]);
        assert_eq!((out.pending[0].input_bytes, out.pending[1].input_bytes), (3, 9));
    }

    /// Removals at the front, middle and end, with replacements and appends, all undone.
    #[test]
    fn undo_restores_every_position() {
        let ids = ["a", "b", "c", "d", "e", "f"];
        let snapshot = json!({"schema_version": 1, "cluster": {},
            "pending": ids.iter().map(|i| task(i, 1)).collect::<Vec<_>>()});
        let delta = json!({"base_epoch": 0, "changes": {
            "remove": {"pending": ["a", "c", "f"]},
            "upsert": {"pending": [task("e", 7), task("g", 1), task("b", 5)]},
            "policy": {"algorithm": "fifo"}}});
        let (original, out) = applied(&snapshot, &delta);
        assert_eq!(pending_ids(&out), ["b", "d", "e", "g"]);
        assert_ne!(out.policy, original.policy);
    }

    #[test]
    fn an_empty_delta_changes_nothing() {
        let snapshot = json!({"schema_version": 1, "cluster": {}, "jobs": [{"id": "j", "pool": "p"}],
            "policy": {"algorithm": "lsap", "alpha": 2}});
        let (original, out) = applied(&snapshot, &json!({"base_epoch": 3}));
        assert_eq!(out, original);
        assert!(Changes::default().is_empty());
    }

    #[test]
    fn shape_errors_name_their_path_in_the_delta() {
        for (body, code, path) in [
            (&br#"[0]"#[..], "invalid_field", "$"),
            (br#"{"changes":{}}"#, "invalid_field", "$"),
            (br#"{"base_epoch":0,"changes":[null,null]}"#, "invalid_field", "changes"),
            (br#"{"base_epoch":0,"changes":{"remove":[[]]}}"#, "invalid_field", "changes.remove"),
            (br#"{"base_epoch":0,"changes":{"policy":[1]}}"#, "invalid_field", "changes.policy"),
            (br#"{"base_epoch":0,"changes":{"now_s":"1"}}"#, "invalid_field", "changes.now_s"),
            (br#"{"base_epoch":0,"changes":{"network":3}}"#, "invalid_field", "changes.network"),
            (br#"{"base_epoch":0,"changes":{"network":[1]}}"#, "invalid_field", "changes.network"),
            (br#"{"base_epoch":0,"changes":{"upsert":{"node":[]}}}"#, "invalid_field", "changes.upsert.node"),
            (
                br#"{"base_epoch":0,"changes":{"upsert":{"jobs":[{"id":"j","pool":"p"},{"pool":"p"}]}}}"#,
                "invalid_field",
                "changes.upsert.jobs[1]",
            ),
            (
                br#"{"base_epoch":0,"changes":{"upsert":{"nodes":[{"id":"n","rack":"r","map_slots":-1}]}}}"#,
                "invalid_field",
                "changes.upsert.nodes[0].map_slots",
            ),
            (br#"{"base_epoch":0"#, "malformed_json", "$"),
        ] {
            let err = parse_delta(body).unwrap_err();
            assert_eq!((err.code(), err.path()), (code, path), "{err}");
        }
    }
}
