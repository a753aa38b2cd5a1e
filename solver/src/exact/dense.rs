//! lsap-sched's dense form (Guo, Fox, Zhou §3.2): the task × free-slot cost matrix of one kind
//! ([`CostMatrix`], each node's columns capped at the number of rows), scaled to integer units
//! by the [`Quantum`], with per-task offsets added row by row, solved by a dense engine
//! ([`crate::lsap`]). The rectangular matrix is solved as it is: no padding. Pairs refused by
//! a node's intermediate space (FAIR §5.4, [`crate::fair::disk`]) carry a penalty larger than any
//! assignment of admitted pairs and are dropped from the answer.

use super::quantum::{shifted, Quantum};
use crate::cancel::Cancel;
use crate::cost::LocalityCost;
use crate::error::SolveError;
use crate::index::Indexed;
use crate::lsap::{i64_entry_limit, DenseSolver};
use crate::matrix::CostMatrix;
use placer_models::{Status, TaskKind};

/// Solves `kind` on the dense matrix with `solver`; `offsets` (seconds by pending position,
/// any sign) are added to every entry of their task's row. Returns true when the engine
/// stopped on `cancel` (its partial assignment is then written).
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
    cancel: Option<&Cancel>,
) -> Result<bool, SolveError> {
    let problem = CostMatrix::new(ix, model, kind, true)?;
    let (rows, cols) = problem.dim();
    if rows == 0 || cols == 0 {
        return Ok(false);
    }
    let offsets = shifted(&problem.tasks, |t| offsets.map_or(0.0, |o| o[t]));
    let max_offset = offsets.iter().copied().fold(0.0, f64::max);
    let admits =
        |row: usize, col: usize| ix.disk_admits(problem.tasks[row], problem.slot_nodes[col]);
    let refuses = kind == TaskKind::Map
        && ix.has_disk()
        && (0..rows).any(|r| (0..cols).any(|c| !admits(r, c)));
    // With refused pairs the largest entry is the penalty, (min(r, c) + 1) × the largest cost.
    let factor = if refuses { rows.min(cols) as f64 + 1.0 } else { 1.0 };
    let quantum = Quantum::for_matrix((problem.max_cost() + max_offset) * factor, rows, cols)?;
    let mut costs = problem.dense(|c| quantum.to_units(c));
    for (mut row, &o) in costs.outer_iter_mut().zip(&offsets) {
        let o = quantum.to_units(o);
        if o != 0 {
            row.mapv_inplace(|c| c + o);
        }
    }
    if refuses {
        penalise(&mut costs, admits)?;
    }
    let solution = solver.solve_i64_cancellable(costs.view(), cancel)?;
    for (row, col) in solution.row_to_col.iter().enumerate() {
        if let Some(col) = *col {
            if !refuses || admits(row, col) {
                node_of_task[problem.tasks[row]] = Some(problem.slot_nodes[col]);
            }
        }
    }
    Ok(solution.status == Status::TimeLimited)
}

/// Intermediate-space admission, pairwise ([`crate::fair::disk`], FAIR §5.4), for the dense engines:
/// every pair `admits` refuses costs P = min(rows, cols) · (largest admitted entry) + 1, more
/// than any assignment of admitted pairs. A dense engine matches the whole smaller side, so
/// its optimum uses as few penalised pairs as possible, i.e. as many admitted pairs as any
/// matching can, at the least cost among those; dropping the penalised pairs then leaves the
/// same answer as a min-cost maximum matching over the admitted pairs (the structured flow's).
///
/// # Errors
/// [`SolveError::CostOverflow`] when P exceeds the engines' entry limit (the quantum is sized
/// for it, so only through rounding).
fn penalise(
    costs: &mut ndarray::Array2<i64>,
    admits: impl Fn(usize, usize) -> bool,
) -> Result<(), SolveError> {
    let (rows, cols) = costs.dim();
    let largest = costs
        .indexed_iter()
        .filter(|&((r, c), _)| admits(r, c))
        .map(|(_, &x)| x)
        .max()
        .unwrap_or(0);
    let penalty = i128::from(largest) * rows.min(cols) as i128 + 1;
    let limit = i128::from(i64_entry_limit(rows, cols));
    if penalty > limit {
        return Err(SolveError::CostOverflow {
            path: "pending".to_owned(),
            message: format!("the penalty on pairs refused by disk, {penalty}, exceeds {limit}"),
        });
    }
    let penalty = penalty as i64;
    for ((r, c), x) in costs.indexed_iter_mut() {
        if !admits(r, c) {
            *x = penalty;
        }
    }
    Ok(())
}
