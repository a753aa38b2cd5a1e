//! The reference engine: `pathfinding::kuhn_munkres_min` (the Hungarian method, O(n³), the
//! algorithm lsap-sched runs after padding to a square, §3.2). For conformance checks only: it
//! needs minutes on 5,000² cluster matrices full of ties, so `auto` never picks it.
//!
//! Rectangular input is handed over as it is when rows ≤ columns, else transposed. Forbidden
//! pairs become a penalty larger than any complete finite assignment, so the optimum uses one
//! only if no complete assignment avoids them; that is then reported as infeasible.

use super::{check_i64, DenseSolver, LsapSolution};
use crate::error::SolveError;
use ndarray::ArrayView2;
use pathfinding::kuhn_munkres::kuhn_munkres_min;
use pathfinding::matrix::Matrix;

/// The largest matrix the reference accepts: 2,048² entries (seconds, not minutes).
pub const MAX_CELLS: usize = 2048 * 2048;

/// The Kuhn–Munkres engine (stateless).
#[derive(Clone, Copy, Debug, Default)]
pub struct Hungarian;

impl DenseSolver for Hungarian {
    /// An optimal rectangular assignment of `costs` (rows × columns, `i64::MAX` forbidden) by
    /// Kuhn–Munkres: minimise Σ c(i, φ(i)) over complete matchings φ of the smaller side into
    /// the larger, in the matrix's own units.
    ///
    /// # Complexity
    /// Time O(r² · c) for r = min(rows, cols) and c = max(rows, cols) (O(n³) when square);
    /// space O(r · c) for the oriented copy of the matrix.
    ///
    /// # Errors
    /// [`SolveError::ProblemTooLarge`] beyond [`MAX_CELLS`] entries,
    /// [`SolveError::CostOverflow`] for entries beyond [`crate::lsap::i64_entry_limit`] or a
    /// forbidden-pair penalty that does not fit in i64,
    /// [`SolveError::Infeasible`] when no complete matching avoids the forbidden pairs.
    ///
    /// # Examples
    /// lsap-sched's Fig. 2(b), more tasks than idle slots (|T| > |IS|), its first four rows
    /// without the elided columns: the 4 × 2 matrix with rows t1 = (2, 1), t2 = (0, 0),
    /// t3 = (5, 2), t4 = (3, 5). The paper pads zero columns to a square; placer solves the
    /// tall matrix as it is. t2 costs 0 on either slot, and the other slot is cheapest with t1
    /// on s2 (1): t1 → s2, t2 → s1, total 1 (t2 → s2 leaves at best 2 on s1); t3 and t4 wait.
    /// ```
    /// use ndarray::arr2;
    /// use placer_solver::lsap::{hungarian::Hungarian, DenseSolver};
    /// let fig_2b = arr2(&[[2, 1], [0, 0], [5, 2], [3, 5]]);
    /// let s = Hungarian.solve_i64(fig_2b.view()).unwrap();
    /// assert_eq!(s.row_to_col, vec![Some(1), Some(0), None, None]);
    /// assert_eq!(s.objective, 1);
    /// ```
    fn solve_i64(&self, costs: ArrayView2<'_, i64>) -> Result<LsapSolution<i64>, SolveError> {
        check_i64(costs)?;
        let (rows, cols) = costs.dim();
        if rows.saturating_mul(cols) > MAX_CELLS {
            return Err(SolveError::ProblemTooLarge {
                path: "policy.solver".to_owned(),
                message: format!(
                    "{rows} x {cols}: the Kuhn-Munkres reference is limited to {MAX_CELLS} \
                     entries (O(n³)); use jv"
                ),
            });
        }
        if rows == 0 || cols == 0 {
            return Ok(LsapSolution::from_rows(costs, vec![None; rows]));
        }
        let tall = rows > cols;
        let oriented = if tall { costs.reversed_axes() } else { costs };
        let (r, c) = oriented.dim();
        let max_abs = oriented
            .iter()
            .filter(|&&x| x != i64::MAX)
            .map(|x| x.unsigned_abs())
            .max()
            .unwrap_or(0);
        // Any complete assignment without a forbidden pair costs at most r·max_abs; one with a
        // forbidden pair at least penalty − (r − 1)·max_abs.
        let penalty = (max_abs as i128) * (2 * r as i128) + 1;
        if penalty * (r as i128 + 1) > i128::from(i64::MAX / 4) {
            return Err(SolveError::CostOverflow {
                path: "$".to_owned(),
                message: "forbidden-pair penalty does not fit in i64".to_owned(),
            });
        }
        let penalty = penalty as i64;
        let values: Vec<i64> =
            oriented.iter().map(|&x| if x == i64::MAX { penalty } else { x }).collect();
        let matrix = Matrix::from_vec(r, c, values).map_err(|e| SolveError::CostOverflow {
            path: "$".to_owned(),
            message: e.to_string(),
        })?;
        let (_, assignment) = kuhn_munkres_min(&matrix);
        if let Some((i, &j)) =
            assignment.iter().enumerate().find(|&(i, &j)| oriented[[i, j]] == i64::MAX)
        {
            return Err(SolveError::Infeasible {
                message: format!("no complete assignment avoids forbidden pairs (e.g. [{i}][{j}])"),
            });
        }
        let mut row_to_col = vec![None; rows];
        for (i, &j) in assignment.iter().enumerate() {
            if tall {
                row_to_col[j] = Some(i);
            } else {
                row_to_col[i] = Some(j);
            }
        }
        Ok(LsapSolution::from_rows(costs, row_to_col))
    }
}
