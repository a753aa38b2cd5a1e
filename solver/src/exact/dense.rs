//! lsap-sched's dense form (Guo, Fox, Zhou §3.2): the task × free-slot cost matrix of one kind
//! ([`CostMatrix`], each node's columns capped at the number of rows), scaled to integer units
//! by the [`Quantum`], with per-task offsets added row by row, solved by a dense engine
//! ([`crate::lsap`]). The rectangular matrix is solved as it is: no padding.

use super::quantum::{shifted, Quantum};
use crate::cost::LocalityCost;
use crate::error::SolveError;
use crate::index::Indexed;
use crate::lsap::DenseSolver;
use crate::matrix::CostMatrix;
use placer_models::TaskKind;

/// Solves `kind` on the dense matrix with `solver`; `offsets` (seconds by pending position,
/// any sign) are added to every entry of their task's row.
///
/// # Complexity
/// O(T · S) time and i64 memory to fill the matrix, plus the engine's solve.
///
/// # Errors
/// [`SolveError::ProblemTooLarge`] beyond [`crate::matrix::MAX_DENSE_CELLS`] entries,
/// [`SolveError::CostOverflow`] for costs beyond the exact range.
pub fn solve(
    ix: &Indexed<'_>,
    model: &LocalityCost<'_, '_>,
    kind: TaskKind,
    solver: &dyn DenseSolver,
    offsets: Option<&[f64]>,
    node_of_task: &mut [Option<u32>],
) -> Result<(), SolveError> {
    let problem = CostMatrix::new(ix, model, kind, true)?;
    let (rows, cols) = problem.dim();
    if rows == 0 || cols == 0 {
        return Ok(());
    }
    let offsets = shifted(&problem.tasks, |t| offsets.map_or(0.0, |o| o[t]));
    let max_offset = offsets.iter().copied().fold(0.0, f64::max);
    let quantum = Quantum::for_matrix(problem.max_cost() + max_offset, rows, cols)?;
    let mut costs = problem.dense(|c| quantum.to_units(c));
    for (mut row, &o) in costs.outer_iter_mut().zip(&offsets) {
        let o = quantum.to_units(o);
        if o != 0 {
            row.mapv_inplace(|c| c + o);
        }
    }
    let solution = solver.solve_i64(costs.view())?;
    for (row, col) in solution.row_to_col.iter().enumerate() {
        if let Some(col) = *col {
            node_of_task[problem.tasks[row]] = Some(problem.slot_nodes[col]);
        }
    }
    Ok(())
}
