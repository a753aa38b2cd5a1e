//! A maximum matching of the equality graph after column reduction (Hopcroft & Karp, "An n^5/2
//! algorithm for maximum matchings in bipartite graphs", SIAM J. Comput. 2(4), 1973): rows and
//! columns joined where a row attains its column's minimum. Every such pair has reduced cost 0,
//! so any matching of it is a valid start for JV's later phases; a maximum one leaves the
//! fewest rows to them. On placer's cluster matrices (zero cost on a replica's slots, which
//! several rows share) JV's own rule — each column to the first row at its minimum, a row
//! keeping one — left 708 of 1,000 rows free where this leaves 24.

const NONE: usize = usize::MAX;

/// The equality graph in CSR form: row i's columns are `adj[start[i]..start[i + 1]]`.
pub(crate) struct EqualityGraph {
    /// Offset of each row's columns in `adj` (`rows + 1` entries).
    pub start: Vec<usize>,
    /// Column indices.
    pub adj: Vec<u32>,
}

/// A maximum matching of `g` (`rows` rows, `cols` columns): the column of each row and the row
/// of each column, `usize::MAX` when unmatched. Deterministic: greedy in row and adjacency
/// order, then Hopcroft–Karp phases (BFS layers from the free rows, then depth-first
/// augmentation along them, rows in order).
///
/// # Complexity
/// O(E · √V) time for E edges and V = rows + cols vertices; O(V) memory besides the graph.
pub(crate) fn max_matching(
    g: &EqualityGraph,
    rows: usize,
    cols: usize,
) -> (Vec<usize>, Vec<usize>) {
    let mut col_of = vec![NONE; rows];
    let mut row_of = vec![NONE; cols];
    let edges = |i: usize| &g.adj[g.start[i]..g.start[i + 1]];
    for (i, c) in col_of.iter_mut().enumerate() {
        if let Some(&j) = edges(i).iter().find(|&&j| row_of[j as usize] == NONE) {
            *c = j as usize;
            row_of[j as usize] = i;
        }
    }
    let mut dist = vec![NONE; rows];
    let mut next = vec![0usize; rows];
    let mut queue: Vec<usize> = Vec::with_capacity(rows);
    let mut stack: Vec<usize> = Vec::new();
    let mut via: Vec<usize> = Vec::new();
    loop {
        // BFS layers from every free row; `found` once a free column is reachable.
        queue.clear();
        for (i, d) in dist.iter_mut().enumerate() {
            if col_of[i] == NONE {
                *d = 0;
                queue.push(i);
            } else {
                *d = NONE;
            }
        }
        let mut found = false;
        let mut head = 0;
        while head < queue.len() {
            let i = queue[head];
            head += 1;
            for &j in edges(i) {
                let owner = row_of[j as usize];
                if owner == NONE {
                    found = true;
                } else if dist[owner] == NONE {
                    dist[owner] = dist[i] + 1;
                    queue.push(owner);
                }
            }
        }
        if !found {
            return (col_of, row_of);
        }
        // Depth-first augmentation along the layers, one vertex-disjoint path per free row.
        for (i, n) in next.iter_mut().enumerate() {
            *n = g.start[i];
        }
        for root in 0..rows {
            if col_of[root] != NONE || dist[root] != 0 {
                continue;
            }
            stack.clear();
            via.clear();
            stack.push(root);
            while let Some(&i) = stack.last() {
                if next[i] == g.start[i + 1] {
                    // A dead end: no shortest augmenting path through this row in this phase.
                    dist[i] = NONE;
                    stack.pop();
                    via.pop();
                    continue;
                }
                let j = g.adj[next[i]] as usize;
                next[i] += 1;
                let owner = row_of[j];
                if owner == NONE {
                    // Augment: each row on the stack takes the column it went through next.
                    let mut take = j;
                    for (k, &r) in stack.iter().enumerate().rev() {
                        col_of[r] = take;
                        row_of[take] = r;
                        if k > 0 {
                            take = via[k - 1];
                        }
                    }
                    break;
                }
                if dist[owner] != NONE && dist[owner] == dist[i] + 1 {
                    stack.push(owner);
                    via.push(j);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(rows: &[&[u32]]) -> EqualityGraph {
        let mut start = vec![0];
        let mut adj = Vec::new();
        for r in rows {
            adj.extend_from_slice(r);
            start.push(adj.len());
        }
        EqualityGraph { start, adj }
    }

    #[test]
    fn augments_past_the_greedy_start() {
        // Greedy gives row 0 column 0 and leaves row 1 (only column 0) free; the augmenting
        // path row 1 → col 0 → row 0 → col 1 matches both (Hopcroft & Karp §2).
        let g = graph(&[&[0, 1], &[0]]);
        let (col_of, row_of) = max_matching(&g, 2, 2);
        assert_eq!(col_of, vec![1, 0]);
        assert_eq!(row_of, vec![1, 0]);
    }

    #[test]
    fn matches_as_many_as_brute_force() {
        // Every 3 × 3 bipartite graph (2⁹ edge sets): the size agrees with exhaustive search.
        for mask in 0u32..512 {
            let rows: Vec<Vec<u32>> =
                (0..3).map(|i| (0..3).filter(|j| mask >> (3 * i + j) & 1 == 1).collect()).collect();
            let refs: Vec<&[u32]> = rows.iter().map(Vec::as_slice).collect();
            let (col_of, row_of) = max_matching(&graph(&refs), 3, 3);
            let size = col_of.iter().filter(|&&j| j != NONE).count();
            for (i, &j) in col_of.iter().enumerate() {
                if j != NONE {
                    assert!(rows[i].contains(&(j as u32)) && row_of[j] == i);
                }
            }
            let perms = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
            let best = (0u32..8)
                .flat_map(|keep| perms.iter().map(move |p| (keep, p)))
                .filter(|(keep, p)| {
                    (0..3).all(|i| keep >> i & 1 == 0 || rows[i].contains(&(p[i] as u32)))
                })
                .map(|(keep, _)| keep.count_ones() as usize)
                .max()
                .unwrap_or(0);
            assert_eq!(size, best, "mask {mask:#b}");
        }
    }
}
