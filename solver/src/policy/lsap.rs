//! lsap-sched (Guo, Fox, Zhou §3.2, Algorithm "lsap-sched"): one exact assignment per slot kind
//! per epoch, minimising Σ C(i, φ(i)) over pending tasks × free slots, on the rectangular
//! matrix as it is (no padding). Maps cost their input read (eq. 1), reduces their shuffle.
//! When tasks outnumber slots every slot is filled with the cheapest set of tasks; when slots
//! outnumber tasks every task is placed. Only tasks of runnable jobs take part
//! ([`crate::job_limits`]).
//!
//! [`solve_kind`] also serves `lsap_fair`, whose cost adds a per-task term (fairness cost minus
//! ageing credit): C(i, j) = o_i + DLC(i, N(j)). Because every optimal assignment places
//! exactly min(rows, cols) tasks, subtracting min_i o_i from all rows changes no decision; the
//! shifted offsets are ≥ 0 so integer costs stay non-negative.
//!
//! Reduces on a cluster with copy-compute splitting (FAIR §5.2) carry per-(job, node) caps a
//! dense LSAP cannot express; they are solved exactly as a min-cost max-flow instead: source →
//! task (1) → node, or → (job, node) (cap: the job's copy room there) → node, → sink (cap:
//! free reducer slots). Without binding caps its optimum equals the dense LSAP's.
//!
//! Cost: O(T · S) to fill each kind's matrix plus the engine's solve; memory O(T · S) i64.
//! The CPAC flow: O(T · nodes) arcs, O(T · E log V) time.

use super::Placement;
use crate::cost::LocalityCost;
use crate::error::SolveError;
use crate::flow::{ssp::MinCostFlow, structured};
use crate::index::Indexed;
use crate::lsap::{hungarian::Hungarian, jv::Jv, DenseSolver};
use crate::matrix::{CostMatrix, MAX_DENSE_CELLS};
use crate::quantum::Quantum;
use placer_models::{SolverEngine, Status, TaskKind};
use std::collections::HashMap;

/// The dense engine for `engine` (`jv` or `hungarian`); `None` for the structured flow.
pub fn dense_engine(engine: SolverEngine) -> Option<&'static dyn DenseSolver> {
    match engine {
        SolverEngine::Jv => Some(&Jv),
        SolverEngine::Hungarian => Some(&Hungarian),
        SolverEngine::Auto | SolverEngine::Flow => None,
    }
}

/// Places every kind optimally with `engine`.
pub fn place(
    ix: &Indexed<'_>,
    model: &LocalityCost<'_, '_>,
    engine: SolverEngine,
) -> Result<Placement, SolveError> {
    let mut node_of_task = vec![None; ix.req.pending.len()];
    for kind in TaskKind::ALL {
        solve_kind(ix, model, kind, engine, &|_| 0.0, &mut node_of_task)?;
    }
    Ok(Placement::new(node_of_task, Status::Optimal))
}

/// Solves one kind exactly with per-task cost offsets (seconds, any sign), writing the chosen
/// node of each placed task into `node_of_task`.
pub fn solve_kind(
    ix: &Indexed<'_>,
    model: &LocalityCost<'_, '_>,
    kind: TaskKind,
    engine: SolverEngine,
    offset: &dyn Fn(usize) -> f64,
    node_of_task: &mut [Option<u32>],
) -> Result<(), SolveError> {
    if kind == TaskKind::Reduce && ix.has_cpac() {
        return solve_capped_reduces(ix, model, offset, node_of_task);
    }
    let Some(solver) = dense_engine(engine) else {
        return structured::solve(ix, model, kind, offset, None, node_of_task);
    };
    let problem = CostMatrix::new(ix, model, kind, true)?;
    let (rows, cols) = problem.dim();
    if rows == 0 || cols == 0 {
        return Ok(());
    }
    let offsets = shifted(&problem.tasks, offset);
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

/// Offsets of `tasks` minus their minimum (all ≥ 0): every optimal assignment places the
/// same number of tasks, so the shift changes no decision.
pub(crate) fn shifted(tasks: &[usize], offset: &dyn Fn(usize) -> f64) -> Vec<f64> {
    let raw: Vec<f64> = tasks.iter().map(|&t| offset(t)).collect();
    let low = raw.iter().copied().fold(f64::INFINITY, f64::min);
    raw.iter().map(|&o| o - low).collect()
}

/// Reduces under CPAC caps, as a min-cost max-flow (see the module docs).
fn solve_capped_reduces(
    ix: &Indexed<'_>,
    model: &LocalityCost<'_, '_>,
    offset: &dyn Fn(usize) -> f64,
    node_of_task: &mut [Option<u32>],
) -> Result<(), SolveError> {
    let tasks = &ix.eligible_of_kind[TaskKind::Reduce.slot()];
    let free = &ix.free[TaskKind::Reduce.slot()];
    let nodes: Vec<u32> = (0..free.len() as u32).filter(|&n| free[n as usize] > 0).collect();
    if tasks.is_empty() || nodes.is_empty() {
        return Ok(());
    }
    let arcs = (tasks.len() as u64).saturating_mul(nodes.len() as u64);
    if arcs > MAX_DENSE_CELLS {
        return Err(SolveError::ProblemTooLarge {
            path: "pending".to_owned(),
            message: format!(
                "{} reduce tasks × {} nodes = {arcs} arcs under copy-compute caps; the limit is \
                 {MAX_DENSE_CELLS}",
                tasks.len(),
                nodes.len()
            ),
        });
    }
    let rows: Vec<_> = tasks.iter().map(|&t| model.row(t)).collect();
    let offsets = shifted(tasks, offset);
    let max_cost = rows.iter().map(|r| r.max()).fold(0.0, f64::max)
        + offsets.iter().copied().fold(0.0, f64::max);
    let quantum = Quantum::for_matrix(max_cost, tasks.len(), nodes.len())?;

    let (source, sink) = (0, 1);
    let mut g = MinCostFlow::new(2);
    let node_vertex: Vec<usize> = nodes
        .iter()
        .map(|&n| {
            let v = g.add_node();
            g.add_arc(v, sink, i64::from(free[n as usize]), 0);
            v
        })
        .collect();
    // (job, node position) → vertex capped by the job's copy room on that node.
    let mut capped: HashMap<(u32, usize), usize> = HashMap::new();
    let mut task_arcs: Vec<Vec<(usize, u32)>> = Vec::with_capacity(tasks.len());
    for (i, &t) in tasks.iter().enumerate() {
        let v = g.add_node();
        g.add_arc(source, v, 1, 0);
        let j = ix.pending_job[t];
        let o = offsets[i];
        let mut out = Vec::with_capacity(nodes.len());
        for (pos, &n) in nodes.iter().enumerate() {
            let room = ix.copy_room(j, n);
            if room == 0 {
                continue;
            }
            let to = if room == u32::MAX {
                node_vertex[pos]
            } else {
                *capped.entry((j, pos)).or_insert_with(|| {
                    let c = g.add_node();
                    g.add_arc(c, node_vertex[pos], i64::from(room), 0);
                    c
                })
            };
            let cost = quantum.to_units(rows[i].at(n, ix.node_rack[n as usize]) + o);
            out.push((g.add_arc(v, to, 1, cost), n));
        }
        task_arcs.push(out);
    }
    g.solve(source, sink);
    for (i, &t) in tasks.iter().enumerate() {
        if let Some(&(_, n)) = task_arcs[i].iter().find(|&&(a, _)| g.flow(a) > 0) {
            node_of_task[t] = Some(n);
        }
    }
    Ok(())
}
