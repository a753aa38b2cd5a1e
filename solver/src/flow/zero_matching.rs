//! The zero-cost seed of the structured flow (DESIGN.md §The epoch pipeline, step 5): a
//! maximum matching of tasks to free slots over zero-cost pairs only (node-local maps,
//! lsap-sched §3.1's "data local" assignments), by augmenting paths (Kuhn's algorithm in
//! phases, iterative, with per-phase visited marks). A flow of cost 0 is optimal for its value,
//! so successive shortest paths may start from it; it removes every zero-cost augmentation
//! from the shortest-path phase, where each would re-explore the whole zero-cost component.
//!
//! Slots are unit vertices: node n contributes min(free(n), tasks with a zero pair on n)
//! slots. O(phases · Σ pairs · slots per node); phases are few in practice.

use crate::csr::Lists;

/// A maximum matching of tasks to free slots over zero-cost pairs: `pairs[i]` lists the nodes
/// where task i costs 0, `capacity(n)` is node n's free slots, and node n takes at most
/// `capacity(n)` tasks. Returns the node matched to each task, or `None`; the number matched
/// (a count of tasks) is the largest possible.
///
/// # Complexity
/// Time O(phases · Σ pairs · slots per node), phases few in practice; space
/// O(slots + nodes + tasks) beyond `pairs` (each task's slot adjacency is walked, not
/// stored), with slots per node = min(capacity(n), tasks with a zero pair on n).
///
/// # Errors
/// None: a task without a pair, or outmatched for every node it has, is `None`.
///
/// # Examples
/// lsap-sched's Fig. 1: T1's block is on nodes A (0) and B (1), T2's only on A, one idle
/// slot on each. The greedy pass gives T1 A (dl-sched's choice); the augmenting path
/// T2 → A → T1 → B moves T1 to B, so both tasks are node-local.
/// ```
/// use placer_solver::{csr::Lists, flow::zero_matching::max_matching};
/// let pairs: Lists<u32> = [vec![0, 1], vec![0]].into_iter().collect();
/// assert_eq!(max_matching(&pairs, |_| 1), vec![Some(1), Some(0)]);
/// ```
pub fn max_matching(pairs: &Lists<u32>, capacity: impl Fn(u32) -> u32) -> Vec<Option<u32>> {
    // Slot vertices per node, created on demand up to min(capacity, demand): node n's slots
    // are first_slot[n].0 .. + first_slot[n].1. A task's adjacency is walked through its
    // pairs and their slot ranges, never materialised (memory O(slots + nodes), not
    // O(Σ pairs · slots per node)).
    let nodes = pairs.iter().flatten().map(|&n| n as usize + 1).max().unwrap_or(0);
    let mut demand: Vec<u32> = vec![0; nodes];
    for p in pairs.iter() {
        for &n in p {
            demand[n as usize] += 1;
        }
    }
    let mut first_slot: Vec<(usize, usize)> = vec![(0, 0); nodes];
    let mut slot_node: Vec<u32> = Vec::new();
    for (n, &d) in demand.iter().enumerate() {
        if d > 0 {
            let k = capacity(n as u32).min(d) as usize;
            first_slot[n] = (slot_node.len(), k);
            slot_node.extend(std::iter::repeat_n(n as u32, k));
        }
    }
    drop(demand);
    // The next slot of task t from cursor (pair index, slot within that node's range).
    let next_slot = |t: usize, cursor: &mut (usize, usize)| -> Option<usize> {
        let list = &pairs[t];
        while let Some(&n) = list.get(cursor.0) {
            let (start, k) = first_slot[n as usize];
            if cursor.1 < k {
                cursor.1 += 1;
                return Some(start + cursor.1 - 1);
            }
            *cursor = (cursor.0 + 1, 0);
        }
        None
    };
    let mut owner: Vec<Option<usize>> = vec![None; slot_node.len()];
    let mut slot_of: Vec<Option<usize>> = vec![None; pairs.len()];
    let mut visited = vec![false; slot_node.len()];

    // Cheap greedy pass first: any free slot among a task's pairs.
    for (i, slot) in slot_of.iter_mut().enumerate() {
        let mut cursor = (0, 0);
        while let Some(s) = next_slot(i, &mut cursor) {
            if owner[s].is_none() {
                owner[s] = Some(i);
                *slot = Some(s);
                break;
            }
        }
    }
    loop {
        visited.fill(false);
        let mut progress = false;
        for root in 0..pairs.len() {
            if slot_of[root].is_some() || pairs[root].is_empty() {
                continue;
            }
            // Stack of (task, adjacency cursor); via[j] = the slot leading to stack[j + 1].
            let mut stack: Vec<(usize, (usize, usize))> = vec![(root, (0, 0))];
            let mut via: Vec<usize> = Vec::new();
            while let Some(&mut (t, ref mut cursor)) = stack.last_mut() {
                let Some(s) = next_slot(t, cursor) else {
                    stack.pop();
                    via.pop();
                    continue;
                };
                if visited[s] {
                    continue;
                }
                visited[s] = true;
                match owner[s] {
                    Some(u) => {
                        via.push(s);
                        stack.push((u, (0, 0)));
                    }
                    None => {
                        // Augment: the last task takes s, each earlier one the slot it led by.
                        let mut take = s;
                        for j in (0..stack.len()).rev() {
                            let task = stack[j].0;
                            owner[take] = Some(task);
                            slot_of[task] = Some(take);
                            if j > 0 {
                                take = via[j - 1];
                            }
                        }
                        progress = true;
                        break;
                    }
                }
            }
        }
        if !progress {
            break;
        }
    }
    slot_of.iter().map(|s| s.map(|s| slot_node[s])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lists(pairs: &[&[u32]]) -> Lists<u32> {
        pairs.iter().map(|p| p.iter().copied()).collect()
    }

    #[test]
    fn augmenting_path_moves_a_greedy_choice() {
        // Task 0 can use n0 or n1, task 1 only n0; one slot each. Greedy gives task 0 → n0;
        // the augmenting path moves it to n1 so task 1 gets n0.
        let m = max_matching(&lists(&[&[0, 1], &[0]]), |_| 1);
        assert_eq!(m, [Some(1), Some(0)]);
    }

    #[test]
    fn capacities_and_unmatchable_tasks() {
        // n0 has 2 slots: tasks 0, 1, 2 all want only n0 → two matched.
        let m = max_matching(&lists(&[&[0], &[0], &[0], &[]]), |_| 2);
        assert_eq!(m.iter().flatten().count(), 2);
        assert_eq!(m[3], None);
    }
}
