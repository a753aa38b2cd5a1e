//! The memory a parsed snapshot holds (bounded memory for kept state: a session keeps a
//! snapshot across epochs, lsap-sched's "instant system state", Guo et al. §3.2, and the server
//! counts it against its memory budget).

use crate::delta::{Changes, Undo};
use crate::request::{Job, Node, PendingTask, PlaceRequest, Pool, Rack, RunningTask, User};
use std::mem::size_of;

/// Bytes counted per map entry beyond its key and value (a B-tree node's share).
const PER_ENTRY: usize = 48;

/// Bytes counted for a policy's settings and anything else of fixed size per snapshot.
const FIXED: usize = 4096;

impl PlaceRequest {
    /// An estimate of the heap and inline bytes this snapshot holds: every element's size, the
    /// capacity of every string and list, and a fixed share per map entry (amounts, echoed job
    /// state) and per snapshot (the policy).
    ///
    /// # Complexity
    /// O(elements + replicas + shuffle sources): one pass, arithmetic only.
    ///
    /// # Errors
    /// None: saturates at `usize::MAX`.
    ///
    /// # Examples
    /// ```
    /// let req = placer_models::parse_request(br#"{"schema_version": 1, "cluster": {
    ///   "racks": [{"id": "r"}], "nodes": [{"id": "A", "rack": "r", "map_slots": 1}]}}"#).unwrap();
    /// let bytes = req.heap_bytes();
    /// assert!(bytes > std::mem::size_of::<placer_models::Node>());
    /// ```
    pub fn heap_bytes(&self) -> usize {
        let racks: usize = self.cluster.racks.iter().map(|r| r.id.0.capacity()).sum::<usize>()
            + self.cluster.racks.capacity() * size_of::<crate::Rack>();
        let nodes: usize = self.cluster.nodes.iter().map(node_bytes).sum::<usize>()
            + self.cluster.nodes.capacity() * size_of::<Node>();
        let pools: usize = self.pools.iter().map(pool_bytes).sum::<usize>()
            + self.pools.capacity() * size_of::<Pool>();
        let users: usize = self.users.iter().map(user_bytes).sum::<usize>()
            + self.users.capacity() * size_of::<User>();
        let jobs: usize = self.jobs.iter().map(job_bytes).sum::<usize>()
            + self.jobs.capacity() * size_of::<Job>();
        let pending: usize = self.pending.iter().map(pending_bytes).sum::<usize>()
            + self.pending.capacity() * size_of::<PendingTask>();
        let running: usize = self.running.iter().map(running_bytes).sum::<usize>()
            + self.running.capacity() * size_of::<RunningTask>();
        let pairs = self
            .cluster
            .network
            .rack_pairs
            .iter()
            .map(|p| size_of::<crate::RackPair>() + p.from.0.capacity() + p.to.0.capacity());
        [racks, nodes, pools, users, jobs, pending, running, pairs.sum(), FIXED]
            .into_iter()
            .fold(size_of::<PlaceRequest>(), usize::saturating_add)
    }
}

impl Changes {
    /// An estimate of the bytes the objects this delta upserts hold, as
    /// [`PlaceRequest::heap_bytes`] counts them: what applying it adds to a snapshot's estimate
    /// before what it takes away ([`Undo::heap_bytes`]).
    ///
    /// # Complexity
    /// O(upserted objects and their lists).
    pub fn heap_bytes(&self) -> usize {
        let u = &self.upsert.0;
        let lists = [
            u.racks.iter().map(rack_bytes).sum::<usize>() + u.racks.len() * size_of::<Rack>(),
            u.nodes.iter().map(node_bytes).sum::<usize>() + u.nodes.len() * size_of::<Node>(),
            u.pools.iter().map(pool_bytes).sum::<usize>() + u.pools.len() * size_of::<Pool>(),
            u.users.iter().map(user_bytes).sum::<usize>() + u.users.len() * size_of::<User>(),
            u.jobs.iter().map(job_bytes).sum::<usize>() + u.jobs.len() * size_of::<Job>(),
            u.running.iter().map(running_bytes).sum::<usize>()
                + u.running.len() * size_of::<RunningTask>(),
            u.pending.iter().map(pending_bytes).sum::<usize>()
                + u.pending.len() * size_of::<PendingTask>(),
        ];
        lists.into_iter().fold(0, usize::saturating_add)
    }
}

impl Undo {
    /// An estimate of the bytes of what the delta took out of the snapshot (removed objects and
    /// the previous versions of those it replaced in place), as [`PlaceRequest::heap_bytes`]
    /// counts them. A snapshot's estimate after a delta is its estimate before, plus
    /// [`Changes::heap_bytes`], minus this (list capacities aside).
    ///
    /// # Complexity
    /// O(removed and replaced objects).
    pub fn heap_bytes(&self) -> usize {
        let lists = [
            self.racks.bytes(|r| rack_bytes(r) + size_of::<Rack>()),
            self.nodes.bytes(|n| node_bytes(n) + size_of::<Node>()),
            self.pools.bytes(|p| pool_bytes(p) + size_of::<Pool>()),
            self.users.bytes(|u| user_bytes(u) + size_of::<User>()),
            self.jobs.bytes(|j| job_bytes(j) + size_of::<Job>()),
            self.running.bytes(|t| running_bytes(t) + size_of::<RunningTask>()),
            self.pending.bytes(|t| pending_bytes(t) + size_of::<PendingTask>()),
        ];
        lists.into_iter().fold(0, usize::saturating_add)
    }
}

fn rack_bytes(r: &Rack) -> usize {
    r.id.0.capacity()
}

fn user_bytes(u: &User) -> usize {
    u.id.0.capacity()
}

fn amounts_bytes(a: &crate::Amounts) -> usize {
    a.keys().map(|k| k.capacity() + size_of::<f64>() + PER_ENTRY).sum()
}

fn node_bytes(n: &Node) -> usize {
    n.id.0.capacity() + n.rack.0.capacity() + if n.resources.is_some() { PER_ENTRY * 4 } else { 0 }
}

fn pool_bytes(p: &Pool) -> usize {
    p.id.0.capacity() + if p.starvation.is_some() { PER_ENTRY * 4 } else { 0 }
}

fn job_bytes(j: &Job) -> usize {
    let state: usize = j.state.iter().map(|(k, v)| k.len() + v.get().len() + PER_ENTRY).sum();
    j.id.0.capacity()
        + j.pool.0.capacity()
        + j.user.as_ref().map_or(0, |u| u.0.capacity())
        + if j.profile.is_some() { PER_ENTRY * 4 } else { 0 }
        + state
}

fn pending_bytes(t: &PendingTask) -> usize {
    let replicas: usize = t.replicas.iter().map(|r| r.len() + size_of::<u32>()).sum();
    let shuffle: usize = t.shuffle.iter().map(|s| s.node.0.capacity()).sum::<usize>()
        + t.shuffle.capacity() * size_of::<crate::ShuffleSource>();
    t.id.0.capacity()
        + t.job.0.capacity()
        + replicas
        + shuffle
        + t.demand.as_ref().map_or(0, amounts_bytes)
}

fn running_bytes(t: &RunningTask) -> usize {
    t.id.0.capacity()
        + t.job.0.capacity()
        + t.node.0.capacity()
        + t.demand.as_ref().map_or(0, amounts_bytes)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use crate::{parse_delta, parse_request};
    use serde_json::json;

    fn task(id: &str, replicas: &[&str]) -> serde_json::Value {
        json!({"id": id, "job": "j", "kind": "map", "input_bytes": 1, "replicas": replicas})
    }

    /// Before + what a delta upserts − what it took out = after, but for the lists' spare
    /// capacity (counted by the walk, not by the per-delta terms).
    #[test]
    fn a_delta_moves_the_estimate_by_its_objects() {
        let pending: Vec<_> =
            (0..40).map(|i| task(&format!("task-{i}"), &["node-a", "node-b"])).collect();
        let body = json!({"schema_version": 1, "cluster": {}, "pending": pending});
        let mut req = parse_request(&serde_json::to_vec(&body).unwrap()).unwrap();
        req.pending.shrink_to_fit();
        let before = req.heap_bytes();
        let delta = json!({"base_epoch": 0, "changes": {
            "remove": {"pending": ["task-3", "task-7", "task-30"]},
            "upsert": {"pending": [task("task-5", &["node-c"]), task("new-1", &["a", "b", "c"])]}}});
        let changes = parse_delta(&serde_json::to_vec(&delta).unwrap()).unwrap().changes.0;
        let added = changes.heap_bytes();
        let undo = req.apply_changes(changes);
        let estimate = before + added - undo.heap_bytes();
        // The list keeps its capacity of 40 slots; the terms count 38 elements.
        let spare = (req.pending.capacity() - req.pending.len() + 2)
            * std::mem::size_of::<crate::PendingTask>();
        let walked = req.heap_bytes();
        assert!(estimate.abs_diff(walked) <= spare, "{estimate} vs {walked} (spare {spare})");
        assert!(added > 0 && undo.heap_bytes() > 0);
    }
}
