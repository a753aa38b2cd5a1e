//! dl-sched, the greedy data-locality baseline of the lsap paper (Guo, Fox, Zhou §3.1), which is
//! how Hadoop's default scheduler treats a heartbeat: "for each idle slot ... firstly it searches
//! for a task whose input data are located on that slave node. If the search fails, it
//! subsequently searches for a task whose input data are located on the same rack ... If the
//! search fails again, it [assigns another] task."
//!
//! placer's order, fixed so the baseline is deterministic:
//! - slots: rounds of heartbeats; in round k every node with more than k free slots offers one
//!   slot, nodes in `cluster.nodes` order (one task per heartbeat, as Hadoop 0.20's schedulers
//!   launched; offering all of a node's slots at once instead lowers dl-sched's node locality on
//!   the paper's Fig. 3 setup from about 83% to about 77%, see BENCHMARKS.md);
//! - tasks: the queue is `pending` in snapshot order; "first" means earliest in it;
//! - per map slot: the first unplaced map with a replica on the node, else the first with a
//!   replica in the node's rack, else the first unplaced map at all (the paper's "randomly"
//!   made deterministic; maps without replicas are only taken here);
//! - per reduce slot: the first unplaced reduce (Hadoop places reduces without locality).
//!
//! Complexity: O(nodes + Σ replicas + tasks): per-node and per-rack task queues whose cursors
//! only move forward past tasks already placed, and heartbeat rounds that drop nodes whose
//! slots are all offered.

use super::Placement;
use crate::index::{kind_slot, Indexed};
use placer_models::{Status, TaskKind};

/// A queue of pending positions with a cursor that skips placed tasks.
#[derive(Clone, Debug, Default)]
struct Queue {
    tasks: Vec<usize>,
    next: usize,
}

impl Queue {
    fn first_unplaced(&mut self, placed: &[bool]) -> Option<usize> {
        while let Some(&t) = self.tasks.get(self.next) {
            if !placed[t] {
                return Some(t);
            }
            self.next += 1;
        }
        None
    }
}

/// Places maps and reduces greedily in the order documented above.
pub fn place(ix: &Indexed<'_>) -> Placement {
    let pending = ix.req.pending.len();
    let nodes = ix.req.cluster.nodes.len();
    let mut node_of_task = vec![None; pending];
    let mut placed = vec![false; pending];

    let maps = &ix.pending_of_kind[kind_slot(TaskKind::Map)];
    let mut by_node = vec![Queue::default(); nodes];
    let mut by_rack = vec![Queue::default(); ix.racks()];
    for &t in maps {
        let mut racks_seen: Vec<u32> = Vec::new();
        for &r in &ix.replicas[t] {
            by_node[r as usize].tasks.push(t);
            let rack = ix.node_rack[r as usize];
            if !racks_seen.contains(&rack) {
                racks_seen.push(rack);
                by_rack[rack as usize].tasks.push(t);
            }
        }
    }
    let mut any_map = Queue { tasks: maps.clone(), next: 0 };
    heartbeat_rounds(&ix.free[kind_slot(TaskKind::Map)], |n| {
        let rack = ix.node_rack[n] as usize;
        let pick = by_node[n]
            .first_unplaced(&placed)
            .or_else(|| by_rack[rack].first_unplaced(&placed))
            .or_else(|| any_map.first_unplaced(&placed));
        let Some(t) = pick else { return false };
        placed[t] = true;
        node_of_task[t] = Some(n as u32);
        true
    });

    let mut any_reduce =
        Queue { tasks: ix.pending_of_kind[kind_slot(TaskKind::Reduce)].clone(), next: 0 };
    heartbeat_rounds(&ix.free[kind_slot(TaskKind::Reduce)], |n| {
        let Some(t) = any_reduce.first_unplaced(&placed) else { return false };
        placed[t] = true;
        node_of_task[t] = Some(n as u32);
        true
    });
    Placement { node_of_task, status: Status::Heuristic }
}

/// Offers free slots in rounds of heartbeats: round k visits, in node order, every node with
/// more than k free slots, until `offer` returns false (no task left). O(offers + nodes), so
/// a node with billions of free slots costs nothing extra.
fn heartbeat_rounds(free: &[u32], mut offer: impl FnMut(usize) -> bool) {
    let mut active: Vec<usize> = (0..free.len()).filter(|&n| free[n] > 0).collect();
    let mut round = 0;
    while !active.is_empty() {
        for &n in &active {
            if !offer(n) {
                return;
            }
        }
        round += 1;
        active.retain(|&n| free[n] > round);
    }
}
