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
//!   made deterministic; maps without replicas are only taken here), each among the maps whose
//!   output fits the node's intermediate space left (FAIR §5.4, [`crate::fair::disk`]); a node that
//!   holds none of them declines;
//! - per reduce slot: the first unplaced reduce (Hadoop places reduces without locality) whose
//!   job may start another copy-phase reducer on the node (FAIR §5.2 CPAC, [`crate::fair::cpac`]);
//! - only tasks of runnable jobs ([`crate::fair::job_limits`]) are placed.
//!
//! Complexity: O(nodes + Σ replicas + tasks): per-node and per-rack task queues whose cursors
//! only move forward past tasks already placed, and heartbeat rounds that drop nodes whose
//! slots are all offered.

use super::{Candidates, Epoch, Placement, Policy};
use crate::error::SolveError;
use crate::fair::cpac::Copies;
use crate::fair::disk::Space;
use crate::fair::queue::{heartbeat_rounds, Offer, Queue};
use crate::index::Indexed;
use placer_models::{Status, TaskKind};

/// The lsap paper's greedy data-locality baseline.
#[derive(Clone, Copy, Debug, Default)]
pub struct DlSched;

impl Policy for DlSched {
    fn name(&self) -> &'static str {
        "dl_sched"
    }

    fn heartbeat(&self) -> bool {
        true
    }

    fn candidates(&self) -> Candidates {
        Candidates::FreeSlots
    }

    fn place(&self, epoch: &Epoch<'_, '_>) -> Result<Placement, SolveError> {
        Ok(place(epoch.ix))
    }
}

/// Places maps and reduces greedily in the order documented above: each offered map slot
/// on node n takes the first unplaced map with a replica on n, else in n's rack, else any;
/// each reduce slot the first unplaced reduce its job's CPAC room admits. No cost is
/// minimised; the answer's locality cost (seconds, lsap-sched eq. 1) is whatever the order
/// yields, so the status is `heuristic`.
///
/// # Complexity
/// O(nodes + Σ replicas + tasks) time and space (cursors over per-node, per-rack and global
/// queues that only move forward).
///
/// # Errors
/// None: a task not placed is data.
///
/// # Examples
/// lsap-sched's Fig. 1(b): nodes A and B with one idle map slot each; T1's block is on A and
/// B, T2's only on A. A is offered first and takes T1 (node-local); B then takes T2, which
/// reads its 125 MB block from A in the same rack: 125 · 10⁶ · 8 / (10⁶ · 1,000 Mbit/s) =
/// 1 s, the objective. (lsap-sched places both node-local at cost 0, Fig. 1(c).)
/// ```
/// let req = placer_models::parse_request(br#"{"schema_version": 1, "cluster": {
///     "racks": [{"id": "r"}],
///     "nodes": [{"id": "A", "rack": "r", "map_slots": 1},
///               {"id": "B", "rack": "r", "map_slots": 1}]},
///   "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}],
///   "pending": [
///     {"id": "T1", "job": "j", "kind": "map", "input_bytes": 125000000, "replicas": ["A", "B"]},
///     {"id": "T2", "job": "j", "kind": "map", "input_bytes": 125000000, "replicas": ["A"]}],
///   "policy": {"algorithm": "dl_sched"}}"#).unwrap();
/// let answer = placer_solver::place(&req, &Default::default()).unwrap();
/// let to: Vec<_> =
///     answer.assignments.iter().map(|a| (a.task.as_str(), a.node.as_str())).collect();
/// assert_eq!(to, [("T1", "A"), ("T2", "B")]);
/// assert_eq!((answer.stats.node_local, answer.stats.rack_local), (1, 1));
/// assert_eq!(answer.stats.objective, 1.0);
/// ```
pub fn place(ix: &Indexed<'_>) -> Placement {
    let pending = ix.req.pending.len();
    let nodes = ix.req.cluster.nodes.len();
    let mut node_of_task = vec![None; pending];
    let mut placed = vec![false; pending];

    let maps = &ix.eligible_of_kind[TaskKind::Map.slot()];
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
    let mut any_map = Queue::new(maps.clone());
    let mut space = Space::new(ix);
    heartbeat_rounds(&ix.free[TaskKind::Map.slot()], |n| {
        if any_map.first_unplaced(&placed).is_none() {
            return Offer::Done;
        }
        let rack = ix.node_rack[n] as usize;
        // FAIR §5.4: only maps whose output fits the node's intermediate space left.
        let fits = |t: usize| space.fits(ix, t, n as u32);
        let pick = by_node[n]
            .first_unplaced_where(&placed, fits)
            .or_else(|| by_rack[rack].first_unplaced_where(&placed, fits))
            .or_else(|| any_map.first_unplaced_where(&placed, fits));
        let Some(t) = pick else { return Offer::Declined };
        placed[t] = true;
        space.take(ix, t, n as u32);
        node_of_task[t] = Some(n as u32);
        Offer::Taken
    });

    let mut copies = Copies::default();
    let mut any_reduce = Queue::new(ix.eligible_of_kind[TaskKind::Reduce.slot()].clone());
    heartbeat_rounds(&ix.free[TaskKind::Reduce.slot()], |n| {
        // Hadoop places reduces without locality; CPAC caps a job's copy-phase reducers.
        if any_reduce.first_unplaced(&placed).is_none() {
            return Offer::Done;
        }
        let fits = |t: usize| copies.room(ix, ix.pending_job[t], n as u32) > 0;
        let Some(t) = any_reduce.first_unplaced_where(&placed, fits) else {
            return Offer::Declined;
        };
        placed[t] = true;
        copies.launch(ix.pending_job[t], n as u32);
        node_of_task[t] = Some(n as u32);
        Offer::Taken
    });
    Placement::new(node_of_task, Status::Heuristic)
}
