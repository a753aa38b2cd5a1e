//! The zero-cost seed of the structured flow (DESIGN.md §The epoch pipeline, step 5): a
//! maximum matching of tasks to free slots over zero-cost pairs only (node-local maps,
//! lsap-sched §3.1's "data local" assignments), by augmenting paths (Kuhn's algorithm in
//! phases, iterative, with per-phase visited marks). A flow of cost 0 is optimal for its value,
//! so successive shortest paths may start from it; it removes every zero-cost augmentation
//! from the shortest-path phase, where each would re-explore the whole zero-cost component.
//!
//! Slots are unit vertices: node n contributes min(free(n), tasks with a zero pair on n)
//! slots. O(phases · Σ pairs · slots per node); phases are few in practice.

/// A maximum matching of tasks to free slots over zero-cost pairs: `pairs[i]` lists the nodes
/// where task i costs 0, `capacity(n)` is node n's free slots, and node n takes at most
/// `capacity(n)` tasks. Returns the node matched to each task, or `None`; the number matched
/// (a count of tasks) is the largest possible.
///
/// # Complexity
/// Time O(phases · Σ pairs · slots per node), phases few in practice; space
/// O(Σ pairs · slots per node + tasks) for the slot vertices and their adjacency, with
/// slots per node = min(capacity(n), tasks with a zero pair on n).
///
/// # Errors
/// None: a task without a pair, or outmatched for every node it has, is `None`.
///
/// # Examples
/// lsap-sched's Fig. 1: T1's block is on nodes A (0) and B (1), T2's only on A, one idle
/// slot on each. The greedy pass gives T1 A (dl-sched's choice); the augmenting path
/// T2 → A → T1 → B moves T1 to B, so both tasks are node-local.
/// ```
/// use placer_solver::flow::zero_matching::max_matching;
/// assert_eq!(max_matching(&[vec![0, 1], vec![0]], |_| 1), vec![Some(1), Some(0)]);
/// ```
pub fn max_matching(pairs: &[Vec<u32>], capacity: impl Fn(u32) -> u32) -> Vec<Option<u32>> {
    // Slot vertices per node, created on demand up to min(capacity, demand).
    let mut demand: std::collections::BTreeMap<u32, u32> = std::collections::BTreeMap::new();
    for p in pairs {
        for &n in p {
            *demand.entry(n).or_insert(0) += 1;
        }
    }
    let mut first_slot: std::collections::HashMap<u32, (usize, usize)> =
        std::collections::HashMap::new();
    let mut slot_node: Vec<u32> = Vec::new();
    for (&n, &d) in &demand {
        let k = capacity(n).min(d) as usize;
        first_slot.insert(n, (slot_node.len(), k));
        slot_node.extend(std::iter::repeat_n(n, k));
    }
    let slots_of = |i: usize| -> Vec<usize> {
        pairs[i].iter().filter_map(|n| first_slot.get(n)).flat_map(|&(s, k)| s..s + k).collect()
    };
    let adjacency: Vec<Vec<usize>> = (0..pairs.len()).map(slots_of).collect();
    let mut owner: Vec<Option<usize>> = vec![None; slot_node.len()];
    let mut slot_of: Vec<Option<usize>> = vec![None; pairs.len()];
    let mut visited = vec![false; slot_node.len()];

    // Cheap greedy pass first: any free slot among a task's pairs.
    for (i, adj) in adjacency.iter().enumerate() {
        if let Some(&s) = adj.iter().find(|&&s| owner[s].is_none()) {
            owner[s] = Some(i);
            slot_of[i] = Some(s);
        }
    }
    loop {
        visited.fill(false);
        let mut progress = false;
        for root in 0..pairs.len() {
            if slot_of[root].is_some() || adjacency[root].is_empty() {
                continue;
            }
            // Stack of (task, next adjacency index); via[j] = the slot leading to stack[j + 1].
            let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
            let mut via: Vec<usize> = Vec::new();
            while let Some(&mut (t, ref mut next)) = stack.last_mut() {
                let Some(&s) = adjacency[t].get(*next) else {
                    stack.pop();
                    via.pop();
                    continue;
                };
                *next += 1;
                if visited[s] {
                    continue;
                }
                visited[s] = true;
                match owner[s] {
                    Some(u) => {
                        via.push(s);
                        stack.push((u, 0));
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

    #[test]
    fn augmenting_path_moves_a_greedy_choice() {
        // Task 0 can use n0 or n1, task 1 only n0; one slot each. Greedy gives task 0 → n0;
        // the augmenting path moves it to n1 so task 1 gets n0.
        let m = max_matching(&[vec![0, 1], vec![0]], |_| 1);
        assert_eq!(m, [Some(1), Some(0)]);
    }

    #[test]
    fn capacities_and_unmatchable_tasks() {
        // n0 has 2 slots: tasks 0, 1, 2 all want only n0 → two matched.
        let m = max_matching(&[vec![0], vec![0], vec![0], vec![]], |_| 2);
        assert_eq!(m.iter().flatten().count(), 2);
        assert_eq!(m[3], None);
    }
}
