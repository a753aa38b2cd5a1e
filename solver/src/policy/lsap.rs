//! lsap-sched (Guo, Fox, Zhou §3.2, Algorithm "lsap-sched"): one exact assignment per slot kind
//! per epoch, minimising Σ C(i, φ(i)) over pending tasks × free slots, on the rectangular
//! matrix as it is (no padding). Maps cost their input read (eq. 1), reduces their shuffle.
//! When tasks outnumber slots every slot is filled with the cheapest set of tasks; when slots
//! outnumber tasks every task is placed.
//!
//! Cost: O(T · S) to fill each kind's matrix plus the engine's solve; memory O(T · S) i64.

use super::Placement;
use crate::cost::LocalityCost;
use crate::error::SolveError;
use crate::index::{Indexed, KINDS};
use crate::lsap::{hungarian::Hungarian, jv::Jv, DenseSolver};
use crate::matrix::CostMatrix;
use crate::quantum::Quantum;
use placer_models::{SolverEngine, Status};

/// The dense engine for `engine` (`auto` → JV).
pub fn dense_engine(engine: SolverEngine) -> Result<&'static dyn DenseSolver, SolveError> {
    match engine {
        SolverEngine::Auto | SolverEngine::Jv => Ok(&Jv),
        SolverEngine::Hungarian => Ok(&Hungarian),
        SolverEngine::Flow => Err(SolveError::UnsupportedEngine {
            path: "policy.solver".to_owned(),
            engine: "flow",
            available: "auto, jv, hungarian",
        }),
    }
}

/// Places every kind optimally with `engine`.
pub fn place(
    ix: &Indexed<'_>,
    model: &LocalityCost<'_, '_>,
    engine: SolverEngine,
) -> Result<Placement, SolveError> {
    let solver = dense_engine(engine)?;
    let mut node_of_task = vec![None; ix.req.pending.len()];
    for kind in KINDS {
        let problem = CostMatrix::new(ix, model, kind, true)?;
        let (rows, cols) = problem.dim();
        if rows == 0 || cols == 0 {
            continue;
        }
        let quantum = Quantum::for_matrix(problem.max_cost(), rows, cols)?;
        let costs = problem.dense(|c| quantum.to_units(c));
        let solution = solver.solve_i64(costs.view())?;
        for (row, col) in solution.row_to_col.iter().enumerate() {
            if let Some(col) = *col {
                node_of_task[problem.tasks[row]] = Some(problem.slot_nodes[col]);
            }
        }
    }
    Ok(Placement { node_of_task, status: Status::Optimal })
}
