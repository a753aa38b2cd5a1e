//! The structured flow engine as a dense LSAP solver (lsap-sched §3.2's matrix form, Guo, Fox,
//! Zhou): every column becomes a node of one free slot in a rack of its own, every row a task
//! whose `on_node` arcs are its allowed entries, with no rack or cluster arc. So the engine that
//! serves `/place` runs the same conformance suite and property tests as the dense engines.
//!
//! Costs are shifted to be ≥ 0 without changing any decision: when rows ≤ columns every row is
//! matched, so each row is shifted by its own minimum; otherwise every column is matched, so
//! each column is. The objective is summed on the original matrix.

use super::structured::{self, Slots, TaskArcs};
use crate::error::SolveError;
use crate::lsap::{check_i64, DenseSolver, LsapSolution};
use ndarray::ArrayView2;

/// [`structured::solve`] behind the [`DenseSolver`] interface.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowOnDense;

impl DenseSolver for FlowOnDense {
    /// An optimal rectangular assignment of `costs` (rows × columns, `i64::MAX` forbidden) by
    /// the structured min-cost flow: minimise Σ c(i, φ(i)) over complete matchings of the
    /// smaller side.
    ///
    /// # Complexity
    /// Time O(F · E log V) with F = min(rows, cols) and E = the allowed entries; memory O(E).
    ///
    /// # Errors
    /// [`SolveError::CostOverflow`] for entries beyond the exact range,
    /// [`SolveError::Infeasible`] when the smaller side cannot be matched entirely.
    ///
    /// # Examples
    /// lsap-sched's Fig. 1: T1's block is on nodes A and B, T2's only on A, one idle slot on
    /// each; dl-sched's T1 → A forces T2 remote (cost 1), the optimum T1 → B, T2 → A costs 0.
    /// ```
    /// use ndarray::arr2;
    /// use placer_solver::flow::dense_adapter::FlowOnDense;
    /// use placer_solver::lsap::DenseSolver;
    /// let s = FlowOnDense.solve_i64(arr2(&[[0, 0], [0, 1]]).view()).unwrap();
    /// assert_eq!(s.objective, 0);
    /// assert_eq!(s.row_to_col, vec![Some(1), Some(0)]);
    /// ```
    fn solve_i64(&self, costs: ArrayView2<'_, i64>) -> Result<LsapSolution<i64>, SolveError> {
        check_i64(costs)?;
        let (rows, cols) = costs.dim();
        let allowed = |i: usize, j: usize| costs[[i, j]] != i64::MAX;
        // Per-row or per-column minimum over allowed entries (0 where none is allowed).
        let low = |it: &mut dyn Iterator<Item = i64>| it.filter(|&c| c != i64::MAX).min();
        let row_low: Vec<i64> = (0..rows)
            .map(|i| if rows <= cols { low(&mut (0..cols).map(|j| costs[[i, j]])) } else { None })
            .map(|m| m.unwrap_or(0))
            .collect();
        let col_low: Vec<i64> = (0..cols)
            .map(|j| if rows > cols { low(&mut (0..rows).map(|i| costs[[i, j]])) } else { None })
            .map(|m| m.unwrap_or(0))
            .collect();
        let tasks: Vec<TaskArcs> = (0..rows)
            .map(|i| TaskArcs {
                on_node: (0..cols)
                    .filter(|&j| allowed(i, j))
                    .map(|j| (j as u32, costs[[i, j]] - row_low[i] - col_low[j]))
                    .collect(),
                ..TaskArcs::default()
            })
            .collect();
        // Shifted entries reach twice the entry limit; a path visits each vertex once.
        let vertices = (2 * cols + rows + 3) as i128;
        let widest = tasks.iter().flat_map(|t| &t.on_node).map(|&(_, c)| c).max().unwrap_or(0);
        if i128::from(widest) * vertices >= 1i128 << 62 {
            return Err(SolveError::CostOverflow {
                path: "$".to_owned(),
                message: format!("a shifted entry of {widest} overflows a {rows}x{cols} network"),
            });
        }
        let node_rack: Vec<u32> = (0..cols as u32).collect();
        let free = vec![1u32; cols];
        let slots = Slots { node_rack: &node_rack, free: &free, racks: cols };
        let solution = structured::solve(slots, &tasks, None);
        let row_to_col: Vec<Option<usize>> =
            solution.node_of_task.iter().map(|n| n.map(|n| n as usize)).collect();
        let matched = row_to_col.iter().filter(|c| c.is_some()).count();
        if matched < rows.min(cols) {
            return Err(SolveError::Infeasible {
                message: format!(
                    "only {matched} of the {} {} can be matched without a forbidden pair",
                    rows.min(cols),
                    if rows <= cols { "rows" } else { "columns" }
                ),
            });
        }
        Ok(LsapSolution::from_rows(costs, row_to_col))
    }
}
