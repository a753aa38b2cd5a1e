//! From RAS's counts to tasks (Polo et al. §3.5, the Task Scheduler: "providing a task of the
//! appropriate type from the appropriate job to the given TaskTracker"): which of a class's
//! pending tasks start on the nodes its counts name. Maps go node-local first, then
//! rack-local, then anywhere, each pass in node order and then in pending order; reduces in
//! pending order. RAS itself is locality-blind; this only picks among equivalent tasks.

use super::problem::{Counts, RasProblem};
use crate::index::Indexed;
use placer_models::WaitReason;

/// The node of each pending task under `counts` (`None` = waits).
///
/// # Complexity
/// O(pending + Σ replicas of the counted classes + classes · nodes): a cursor per rack (and
/// one for the anywhere pass) skips each empty node once.
///
/// # Errors
/// None.
pub fn tasks_of(ix: &Indexed<'_>, problem: &RasProblem, counts: &Counts) -> Vec<Option<u32>> {
    let mut node_of = vec![None; ix.req.pending.len()];
    let racks = ix.racks();
    for (class, row) in problem.classes.iter().zip(&counts.x) {
        let mut left: Vec<u32> = row.clone();
        let mut todo: u32 = left.iter().sum();
        if todo == 0 {
            continue;
        }
        // Per rack, its nodes with tasks of the class to take, and a cursor past the empty
        // ones: each node is skipped once (amortised O(nodes) per class, not per task).
        let mut in_rack: Vec<Vec<usize>> = vec![Vec::new(); racks];
        for (n, &k) in left.iter().enumerate() {
            if k > 0 {
                if let Some(r) = in_rack.get_mut(ix.node_rack[n] as usize) {
                    r.push(n);
                }
            }
        }
        let mut cursor = vec![0usize; racks];
        // Node-local, then rack-local.
        for pass in 0..2 {
            for &t in &class.tasks {
                if todo == 0 || node_of[t].is_some() {
                    continue;
                }
                let chosen = if pass == 0 {
                    ix.replicas[t].iter().map(|&n| n as usize).find(|&n| left[n] > 0)
                } else {
                    ix.replicas[t].iter().find_map(|&n| {
                        let r = ix.node_rack[n as usize] as usize;
                        let nodes = in_rack.get(r)?;
                        while cursor[r] < nodes.len() && left[nodes[cursor[r]]] == 0 {
                            cursor[r] += 1;
                        }
                        nodes.get(cursor[r]).copied()
                    })
                };
                if let Some(n) = chosen {
                    left[n] -= 1;
                    todo -= 1;
                    node_of[t] = Some(n as u32);
                }
            }
        }
        // Anywhere.
        let mut n = 0;
        for &t in &class.tasks {
            if todo == 0 {
                break;
            }
            if node_of[t].is_some() {
                continue;
            }
            while n < left.len() && left[n] == 0 {
                n += 1;
            }
            if n == left.len() {
                break;
            }
            left[n] -= 1;
            todo -= 1;
            node_of[t] = Some(n as u32);
        }
    }
    node_of
}

/// Why each eligible task left unplaced waits: `no_node_fits` when its demand exceeds every
/// node's capacity even with nothing running there, else the nodes' room went to other tasks
/// (`slots_taken`). Other tasks get `None` (the answer's own reasons apply).
///
/// # Complexity
/// O(pending + classes · nodes · resources).
pub fn reasons(problem: &RasProblem, node_of_task: &[Option<u32>]) -> Vec<Option<WaitReason>> {
    let mut reason = vec![None; node_of_task.len()];
    let nodes = problem.room.nodes();
    for class in &problem.classes {
        if class.tasks.iter().all(|&t| node_of_task[t].is_some()) {
            continue;
        }
        let why = if (0..nodes).any(|n| problem.room.fits_empty(n, &class.demand)) {
            WaitReason::SlotsTaken
        } else {
            WaitReason::NoNodeFits
        };
        for &t in &class.tasks {
            if node_of_task[t].is_none() {
                reason[t] = Some(why);
            }
        }
    }
    reason
}
