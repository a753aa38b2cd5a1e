//! The memory a parsed snapshot holds (bounded memory for kept state: a session keeps a
//! snapshot across epochs, lsap-sched's "instant system state", Guo et al. §3.2, and the server
//! counts it against its memory budget).

use crate::request::{Job, Node, PendingTask, PlaceRequest, Pool, RunningTask};
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
        let users: usize = self.users.iter().map(|u| u.id.0.capacity()).sum::<usize>()
            + self.users.capacity() * size_of::<crate::User>();
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
