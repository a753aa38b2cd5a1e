//! The zero-cost seed of the structured flow (docs/architecture.md, "The exact engines"): a
//! maximum matching of tasks to free slots over zero-cost pairs only (node-local maps,
//! lsap-sched §3.1's "data local" assignments), by augmenting paths (Kuhn's algorithm in
//! phases, iterative, with per-phase visited marks). A flow of cost 0 is optimal for its value,
//! so successive shortest paths may start from it; it removes every zero-cost augmentation
//! from the shortest-path search, where each would re-explore the whole zero-cost component.
//!
//! The searches start from the nodes with room, not from the unmatched tasks: with more tasks
//! than slots, what the unmatched tasks reach is most of the graph, while what the free slots
//! reach is small (at 100,000 nodes, the last phase, which proves the matching
//! maximum, walks only that part). Nodes are vertices with a capacity, not one per slot.

use crate::csr::Lists;

/// A maximum matching of tasks to free slots over zero-cost pairs: `pairs[i]` lists the nodes
/// where task i costs 0, `capacity(n)` is node n's free slots, and node n takes at most
/// `capacity(n)` tasks. Returns the node matched to each task, or `None`; the number matched
/// (a count of tasks) is the largest possible.
///
/// # Complexity
/// Time O(Σ pairs) for the greedy pass and the reverse adjacency, plus O(Σ pairs) per phase
/// in the worst case (in practice only what the nodes with room reach); phases are few in
/// practice. Space O(Σ pairs + nodes + tasks) beyond `pairs`.
///
/// # Errors
/// None: a task without a pair, or outmatched for every node it has, is `None`.
///
/// # Examples
/// lsap-sched's Fig. 1: T1's block is on nodes A (0) and B (1), T2's only on A, one idle
/// slot on each. The greedy pass gives T1 A (dl-sched's choice); the search from B (room
/// left) finds T1, then A's other task T2, unmatched: T1 moves to B and T2 takes A, so both
/// tasks are node-local (the unit test `lsap_sched_fig1_moves_t1_to_b`):
/// ```text
/// pairs = [[0, 1], [0]], capacity 1 each  →  [Some(1), Some(0)]
/// ```
pub fn max_matching(pairs: &Lists<u32>, capacity: impl Fn(u32) -> u32) -> Vec<Option<u32>> {
    let nodes = pairs.iter().flatten().map(|&n| n as usize + 1).max().unwrap_or(0);
    // The tasks with a pair on each node (the reverse adjacency), as compressed rows.
    let mut start = vec![0u32; nodes + 1];
    for p in pairs.iter() {
        for &n in p {
            start[n as usize + 1] += 1;
        }
    }
    for n in 0..nodes {
        start[n + 1] += start[n];
    }
    let mut at: Vec<u32> = start[..nodes].to_vec();
    let mut tasks_of = vec![0u32; start[nodes] as usize];
    for (t, p) in pairs.iter().enumerate() {
        for &n in p {
            tasks_of[at[n as usize] as usize] = t as u32;
            at[n as usize] += 1;
        }
    }
    drop(at);
    let mut room: Vec<u32> = (0..nodes as u32).map(&capacity).collect();
    let mut node_of = vec![NONE; pairs.len()];

    // Cheap greedy pass first: the first of a task's nodes with room.
    for (t, node) in node_of.iter_mut().enumerate() {
        if let Some(&n) = pairs[t].iter().find(|&&n| room[n as usize] > 0) {
            room[n as usize] -= 1;
            *node = n;
        }
    }
    // Phases of depth-first searches from the smaller side left: the nodes' room, or the
    // unmatched tasks that have a pair.
    let room_left: u64 = room
        .iter()
        .zip(start.windows(2))
        .filter(|(_, w)| w[1] > w[0])
        .map(|(&r, _)| u64::from(r))
        .sum();
    let unmatched =
        (0..pairs.len()).filter(|&t| node_of[t] == NONE && !pairs[t].is_empty()).count() as u64;
    let mut search = Search {
        seen_node: vec![0; nodes],
        seen_task: vec![0; pairs.len()],
        stamp: 0,
        stack: Vec::new(),
        via: Vec::new(),
        frames: Vec::new(),
    };
    loop {
        search.stamp += 1;
        let progress = if room_left <= unmatched {
            search.phase_from_nodes(&start, &tasks_of, &mut room, &mut node_of)
        } else {
            search.phase_from_tasks(pairs, &start, &tasks_of, &mut room, &mut node_of)
        };
        if !progress {
            break;
        }
    }
    node_of.into_iter().map(|n| (n != NONE).then_some(n)).collect()
}

/// No node (in `node_of`).
const NONE: u32 = u32::MAX;

/// One phase's search state for [`max_matching`]: per-phase marks and the path.
struct Search {
    seen_node: Vec<u32>,
    seen_task: Vec<u32>,
    stamp: u32,
    /// Frames (vertex, cursor into its list).
    stack: Vec<(u32, u32)>,
    /// The task leading from frame j to frame j + 1.
    via: Vec<u32>,
    /// [`Search::phase_from_tasks`]'s frames.
    frames: Vec<(u32, u32, u32)>,
}

impl Search {
    /// One phase from every node with room, backwards: a task with a pair on the node, then
    /// the node holding that task, … until an unmatched task; true if it augmented.
    /// O(Σ pairs) at most.
    fn phase_from_nodes(
        &mut self,
        start: &[u32],
        tasks_of: &[u32],
        room: &mut [u32],
        node_of: &mut [u32],
    ) -> bool {
        let mut progress = false;
        for root in 0..room.len() {
            if room[root] == 0 || self.seen_node[root] == self.stamp {
                continue;
            }
            self.seen_node[root] = self.stamp;
            self.stack.clear();
            self.via.clear();
            self.stack.push((root as u32, start[root]));
            while let Some(&mut (n, ref mut cursor)) = self.stack.last_mut() {
                if *cursor == start[n as usize + 1] {
                    self.stack.pop();
                    self.via.pop();
                    continue;
                }
                let t = tasks_of[*cursor as usize];
                *cursor += 1;
                if self.seen_task[t as usize] == self.stamp {
                    continue;
                }
                self.seen_task[t as usize] = self.stamp;
                match node_of[t as usize] {
                    NONE => {
                        // t takes the last node, each task on the path the node of the frame
                        // before it; the root gives one unit of room.
                        node_of[t as usize] = n;
                        for (j, &u) in self.via.iter().enumerate() {
                            node_of[u as usize] = self.stack[j].0;
                        }
                        room[root] -= 1;
                        progress = true;
                        break;
                    }
                    m if m != n && self.seen_node[m as usize] != self.stamp => {
                        self.seen_node[m as usize] = self.stamp;
                        self.via.push(t);
                        self.stack.push((m, start[m as usize]));
                    }
                    _ => {}
                }
            }
        }
        progress
    }

    /// One phase from every unmatched task: a node of its pairs with room, else each task
    /// that node holds, moved to a node of its own pairs, …; true if it augmented.
    /// O(Σ pairs) at most (a node's holders are found among the tasks with a pair on it).
    fn phase_from_tasks(
        &mut self,
        pairs: &Lists<u32>,
        start: &[u32],
        tasks_of: &[u32],
        room: &mut [u32],
        node_of: &mut [u32],
    ) -> bool {
        let mut progress = false;
        for root in 0..pairs.len() {
            if node_of[root] != NONE || pairs[root].is_empty() {
                continue;
            }
            // Frames (task, index of the pair being tried, position among that node's
            // tasks, or `NONE` before the node is entered).
            self.frames.clear();
            self.frames.push((root as u32, 0, NONE));
            while let Some(&mut (t, ref mut i, ref mut h)) = self.frames.last_mut() {
                let list = &pairs[t as usize];
                let Some(&n) = list.get(*i as usize) else {
                    self.frames.pop();
                    continue;
                };
                if *h == NONE {
                    if self.seen_node[n as usize] == self.stamp || node_of[t as usize] == n {
                        *i += 1;
                        continue;
                    }
                    self.seen_node[n as usize] = self.stamp;
                    if room[n as usize] > 0 {
                        // Each task on the path moves to the pair it is trying.
                        room[n as usize] -= 1;
                        for &(u, j, _) in &self.frames {
                            node_of[u as usize] = pairs[u as usize][j as usize];
                        }
                        progress = true;
                        break;
                    }
                    *h = start[n as usize];
                }
                if *h == start[n as usize + 1] {
                    *i += 1;
                    *h = NONE;
                    continue;
                }
                let u = tasks_of[*h as usize];
                *h += 1;
                if node_of[u as usize] == n && self.seen_task[u as usize] != self.stamp {
                    self.seen_task[u as usize] = self.stamp;
                    self.frames.push((u, 0, NONE));
                }
            }
        }
        progress
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lsap_sched_fig1_moves_t1_to_b() {
        let pairs: Lists<u32> = [vec![0, 1], vec![0]].into_iter().collect();
        assert_eq!(max_matching(&pairs, |_| 1), vec![Some(1), Some(0)]);
    }

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

    /// Oracle: a plain augmenting-path matching over one vertex per slot (no phases, no
    /// greedy pass, searches from the tasks only), for the matched count.
    fn oracle(pairs: &[Vec<u32>], caps: &[u32]) -> usize {
        let slots: Vec<u32> = (0..caps.len() as u32)
            .flat_map(|n| std::iter::repeat_n(n, caps[n as usize] as usize))
            .collect();
        let mut owner = vec![usize::MAX; slots.len()];
        fn augment(
            t: usize,
            pairs: &[Vec<u32>],
            slots: &[u32],
            owner: &mut [usize],
            seen: &mut [bool],
        ) -> bool {
            for s in 0..slots.len() {
                if !seen[s] && pairs[t].contains(&slots[s]) {
                    seen[s] = true;
                    if owner[s] == usize::MAX || augment(owner[s], pairs, slots, owner, seen) {
                        owner[s] = t;
                        return true;
                    }
                }
            }
            false
        }
        (0..pairs.len())
            .filter(|&t| augment(t, pairs, &slots, &mut owner, &mut vec![false; slots.len()]))
            .count()
    }

    proptest::proptest! {
        /// Both search directions (room left ≤ unmatched tasks, and the other way) give a
        /// valid matching as large as the oracle's.
        #[test]
        fn matches_as_many_as_the_oracle(
            pairs in proptest::collection::vec(proptest::collection::vec(0u32..6, 0..4), 0..14),
            caps in proptest::collection::vec(0u32..4, 6),
        ) {
            let lists: Lists<u32> = pairs.iter().map(|p| p.iter().copied()).collect();
            let m = max_matching(&lists, |n| caps[n as usize]);
            let mut load = [0u32; 6];
            for (t, n) in m.iter().enumerate() {
                if let Some(n) = *n {
                    proptest::prop_assert!(pairs[t].contains(&n));
                    load[n as usize] += 1;
                }
            }
            for n in 0..6 {
                proptest::prop_assert!(load[n] <= caps[n]);
            }
            proptest::prop_assert_eq!(m.iter().flatten().count(), oracle(&pairs, &caps));
        }
    }
}
