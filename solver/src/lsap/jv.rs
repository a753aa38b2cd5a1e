//! placer's dense rectangular LSAP engine: shortest augmenting paths with dual potentials
//! (Jonker & Volgenant 1987, in the rectangular form of Crouse 2016), the engine behind
//! lsap-sched's per-epoch LSAP (Guo, Fox, Zhou §3.2).
//!
//! For r ≤ c (a wide matrix is solved as it is, a tall one through its transpose): potentials
//! u (rows) and v ≤ 0 (columns) keep every reduced cost `c[i][j] − u[i] − v[j] ≥ 0`, with
//! equality on assigned pairs and v = 0 on unassigned columns, which proves optimality.
//! Initialisation: each row takes its cheapest column when that column is still free (a
//! greedy pass that is dual-feasible with u = row minimum, v = 0), which places most tasks of a
//! cluster matrix at once. Every remaining row then runs one Dijkstra over reduced costs,
//! preferring a free column among equally short ones, and augments.
//!
//! Complexity: O(r · c) for the greedy pass plus O(c · |rows scanned|) per augmentation,
//! O(r² · c) worst case; memory O(r + c) besides the matrix. Forbidden entries are skipped;
//! when a Dijkstra reaches no free column the problem is infeasible.

use super::{check_f64, check_i64, Cost, DenseSolver, LsapSolution};
use crate::error::SolveError;
use ndarray::{ArrayView2, Axis};

const NONE: usize = usize::MAX;

/// The JV engine (stateless).
#[derive(Clone, Copy, Debug, Default)]
pub struct Jv;

impl DenseSolver for Jv {
    fn solve_i64(&self, costs: ArrayView2<'_, i64>) -> Result<LsapSolution<i64>, SolveError> {
        check_i64(costs)?;
        solve(costs)
    }
}

/// Minimises an f64 matrix (+inf forbidden; NaN and −inf rejected).
pub fn solve_f64(costs: ArrayView2<'_, f64>) -> Result<LsapSolution<f64>, SolveError> {
    check_f64(costs)?;
    solve(costs)
}

/// Minimises any matrix whose entries were checked by the caller.
pub(crate) fn solve<C: Cost>(costs: ArrayView2<'_, C>) -> Result<LsapSolution<C>, SolveError> {
    let (rows, cols) = costs.dim();
    if rows == 0 || cols == 0 {
        return Ok(LsapSolution::from_rows(costs, vec![None; rows]));
    }
    if rows <= cols {
        let standard = costs.as_standard_layout();
        let col4row = wide(standard.view())?;
        Ok(LsapSolution::from_rows(costs, col4row.into_iter().map(Some).collect()))
    } else {
        let transposed = costs.reversed_axes();
        let standard = transposed.as_standard_layout();
        let row4col = wide(standard.view())?;
        let mut row_to_col = vec![None; rows];
        for (j, &i) in row4col.iter().enumerate() {
            row_to_col[i] = Some(j);
        }
        Ok(LsapSolution::from_rows(costs, row_to_col))
    }
}

/// Solves r ≤ c on a standard-layout matrix; returns the column of every row.
fn wide<C: Cost>(c: ArrayView2<'_, C>) -> Result<Vec<usize>, SolveError> {
    let (nr, nc) = c.dim();
    let row = |i: usize| c.index_axis(Axis(0), i);
    let mut u = vec![C::ZERO; nr];
    let mut v = vec![C::ZERO; nc];
    let mut col4row = vec![NONE; nr];
    let mut row4col = vec![NONE; nc];

    // Greedy pass: u[i] = row minimum, v = 0 is dual-feasible; a row whose cheapest column is
    // still free takes it (complementary slackness holds for it).
    for i in 0..nr {
        let r = row(i);
        let mut best = C::INF;
        let mut best_j = NONE;
        for (j, &x) in r.iter().enumerate() {
            if x.is_forbidden() {
                continue;
            }
            if best_j == NONE
                || x < best
                || (x == best && row4col[best_j] != NONE && row4col[j] == NONE)
            {
                best = x;
                best_j = j;
            }
        }
        if best_j == NONE {
            return Err(SolveError::Infeasible {
                message: format!("row {i} has only forbidden entries"),
            });
        }
        u[i] = best;
        if row4col[best_j] == NONE {
            row4col[best_j] = i;
            col4row[i] = best_j;
        }
    }

    let mut shortest = vec![C::INF; nc];
    let mut path = vec![NONE; nc];
    let mut remaining: Vec<usize> = Vec::with_capacity(nc);
    let mut scanned_rows: Vec<usize> = Vec::new();
    let mut scanned_cols: Vec<usize> = Vec::new();

    for cur in 0..nr {
        if col4row[cur] != NONE {
            continue;
        }
        shortest.fill(C::INF);
        remaining.clear();
        remaining.extend((0..nc).rev());
        scanned_rows.clear();
        scanned_cols.clear();

        let mut min_val = C::ZERO;
        let mut i = cur;
        let sink = loop {
            scanned_rows.push(i);
            let ri = row(i);
            let ui = u[i];
            let mut lowest = C::INF;
            let mut index = NONE;
            for (it, &j) in remaining.iter().enumerate() {
                let x = ri[j];
                if !x.is_forbidden() {
                    let reduced = min_val + x - ui - v[j];
                    if reduced < shortest[j] {
                        path[j] = i;
                        shortest[j] = reduced;
                    }
                }
                let s = shortest[j];
                if s < lowest || (s == lowest && !s.is_forbidden() && row4col[j] == NONE) {
                    lowest = s;
                    index = it;
                }
            }
            if index == NONE || lowest.is_forbidden() {
                return Err(SolveError::Infeasible {
                    message: format!("row {cur} cannot be matched without a forbidden pair"),
                });
            }
            min_val = lowest;
            let j = remaining.swap_remove(index);
            scanned_cols.push(j);
            if row4col[j] == NONE {
                break j;
            }
            i = row4col[j];
        };

        // Dual update keeps reduced costs ≥ 0 and 0 along the new matching.
        u[cur] = u[cur] + min_val;
        for &i in &scanned_rows[1..] {
            u[i] = u[i] + min_val - shortest[col4row[i]];
        }
        for &j in &scanned_cols {
            v[j] = v[j] - (min_val - shortest[j]);
        }

        // Augment along the alternating path back to `cur`.
        let mut j = sink;
        loop {
            let i = path[j];
            row4col[j] = i;
            let previous = std::mem::replace(&mut col4row[i], j);
            if i == cur {
                break;
            }
            j = previous;
        }
    }
    Ok(col4row)
}
