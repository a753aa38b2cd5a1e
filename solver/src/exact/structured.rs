//! A snapshot's kind as the structured network's arcs (DESIGN.md §The epoch pipeline, step 5:
//! Quincy/Firmament's task → replica nodes / rack aggregators / cluster aggregator → nodes on
//! lsap-sched's eq. 1 costs): each task's [`crate::cost::SparseRow`] in integer units, its
//! shifted offset, and under `lsap_quota` the delay-level surcharges, then
//! [`crate::flow::structured::solve`].
//!
//! Units: seconds × the [`Quantum`]; under `lsap_quota` also × (2 · tasks + 1), so that the
//! unit surcharges (at most two per placed task: one for a job beyond its share, one for a
//! placement more remote than the task's delay level) decide only among placements of equal
//! locality cost (lexicographic: locality first).

use super::quantum::{shifted, Quantum};
use super::solve::Objective;
use crate::cost::LocalityCost;
use crate::error::SolveError;
use crate::flow::structured::{self, Slots, TaskArcs};
use crate::index::Indexed;
use placer_models::TaskKind;

/// Solves `kind` on the structured network under `objective`, writing each placed task's node
/// (by pending position) into `node_of_task`.
///
/// # Complexity
/// O(Σ replicas + listed racks) to build the arcs, plus [`structured::solve`].
///
/// # Errors
/// [`SolveError::CostOverflow`] when a cost is infinite or beyond the exact range.
pub fn solve(
    ix: &Indexed<'_>,
    model: &LocalityCost<'_, '_>,
    kind: TaskKind,
    objective: Objective<'_>,
    node_of_task: &mut [Option<u32>],
) -> Result<(), SolveError> {
    let tasks = &ix.eligible_of_kind[kind.slot()];
    let free = &ix.free[kind.slot()];
    if tasks.is_empty() || free.iter().all(|&f| f == 0) {
        return Ok(());
    }
    let slots = Slots { node_rack: &ix.node_rack, free, racks: ix.racks() };
    let (quotas, levels) = match objective {
        Objective::Quota { quotas, levels } => (Some(quotas), Some(levels)),
        Objective::Locality | Objective::Offset(_) => (None, None),
    };
    let offsets = shifted(tasks, |t| match objective {
        Objective::Offset(o) => o[t],
        Objective::Locality | Objective::Quota { .. } => 0.0,
    });
    let rows: Vec<_> = tasks.iter().map(|&t| model.sparse_row(t)).collect();
    let max_cost = rows.iter().map(|r| r.base).fold(0.0, f64::max)
        + offsets.iter().copied().fold(0.0, f64::max);
    // lsap_quota: locality first, then the unit surcharges (at most 2 per placed task).
    let scale: i64 = if quotas.is_some() { 2 * tasks.len() as i64 + 1 } else { 1 };
    let vertices = structured::vertex_count(slots, tasks.len(), quotas);
    let quantum = Quantum::for_matrix(max_cost * scale as f64, vertices, 0)?;
    let to_units = |seconds: f64| quantum.to_units(seconds) * scale;

    let arcs: Vec<TaskArcs> = rows
        .into_iter()
        .zip(tasks)
        .zip(&offsets)
        .map(|((row, &t), &offset)| {
            // lsap_quota's surcharge on arcs beyond the task's delay level.
            let late = |class: u8| i64::from(levels.is_some_and(|l| class > l[t]));
            let holds = |q: u32| ix.replicas[t].iter().any(|&r| ix.node_rack[r as usize] == q);
            TaskArcs {
                offset: to_units(offset),
                on_node: row.on_node.into_iter().map(|(n, c)| (n, to_units(c))).collect(),
                racks: row
                    .racks
                    .into_iter()
                    .map(|(q, c)| (q, to_units(c) + late(if holds(q) { 1 } else { 2 })))
                    .collect(),
                base: Some(to_units(row.base) + late(2)),
                job: ix.pending_job[t],
            }
        })
        .collect();
    let solution = structured::solve(slots, &arcs, quotas);
    for (&t, node) in tasks.iter().zip(solution.node_of_task) {
        if node.is_some() {
            node_of_task[t] = node;
        }
    }
    Ok(())
}
