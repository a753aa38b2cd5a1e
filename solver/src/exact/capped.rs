//! Reduces under copy-compute splitting (FAIR §5.2, CPAC) carry per-(job, node) caps a dense
//! LSAP cannot express; they are solved exactly as a min-cost max-flow instead: source → task
//! (1) → node, or → (job, node) (cap: the job's copy room there) → node, → sink (cap: free
//! reducer slots). Without binding caps its optimum equals the dense LSAP's. Under
//! `lsap_quota` the source feeds the tasks through their pools instead: source → pool (cap:
//! `must`) and source → flex group (cap: its units) → pool (cap: `flex`), so no pool receives
//! more than its D-optimal range (the structured network's hard front; its soft job-share and
//! delay-level surcharges have no place here and are left out).

use super::quantum::{shifted, Quantum};
use crate::cancel::Cancel;
use crate::cost::LocalityCost;
use crate::error::SolveError;
use crate::flow::structured::Quotas;
use crate::flow::{FlowBuilder, Network};
use crate::index::Indexed;
use crate::matrix::MAX_DENSE_CELLS;
use placer_models::TaskKind;
use std::collections::HashMap;

/// Places the runnable pending reduces under CPAC caps; `offsets` (seconds by pending
/// position, any sign) are added to every placement of their task; `quotas` (lsap_quota's)
/// bound the units each pool and flex group receives. Polls `cancel` once per
/// augmenting path; returns true when it stopped on it (the flow so far is then written).
///
/// # Complexity
/// O(T · nodes) arcs, O(T · E log V) time.
///
/// # Errors
/// [`SolveError::ProblemTooLarge`] beyond [`MAX_DENSE_CELLS`] arcs,
/// [`SolveError::CostOverflow`] for costs beyond the exact range.
pub fn solve(
    ix: &Indexed<'_>,
    model: &LocalityCost<'_, '_>,
    offsets: Option<&[f64]>,
    quotas: Option<&Quotas>,
    node_of_task: &mut [Option<u32>],
    cancel: Option<&Cancel>,
) -> Result<bool, SolveError> {
    let tasks = &ix.eligible_of_kind[TaskKind::Reduce.slot()];
    let free = &ix.free[TaskKind::Reduce.slot()];
    let nodes: Vec<u32> = (0..free.len() as u32).filter(|&n| free[n as usize] > 0).collect();
    if tasks.is_empty() || nodes.is_empty() {
        return Ok(false);
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
    let offsets = shifted(tasks, |t| offsets.map_or(0.0, |o| o[t]));
    let max_cost = rows.iter().map(|r| r.max()).fold(0.0, f64::max)
        + offsets.iter().copied().fold(0.0, f64::max);
    let quantum = Quantum::for_matrix(max_cost, tasks.len(), nodes.len())?;

    let (source, sink) = (0, 1);
    // Laid out in two passes from one description: vertices and arcs in the same order both
    // times, so the second pass's arc ids are the ones read after the solve.
    let describe = |g: &mut FlowBuilder| {
        let node_vertex: Vec<usize> = nodes
            .iter()
            .map(|&n| {
                let v = g.add_vertex();
                g.add_arc(v, sink, i64::from(free[n as usize]), 0);
                v
            })
            .collect();
        // lsap_quota: each task is fed through its pool, within must + flex and its group's units.
        let pool_vertex: Option<Vec<usize>> = quotas.map(|q| {
            let groups = q.groups.map(|units| {
                let v = g.add_vertex();
                g.add_arc(source, v, i64::try_from(units).unwrap_or(i64::MAX), 0);
                v
            });
            q.must
                .iter()
                .zip(&q.flex)
                .map(|(&must, &(flex, group))| {
                    let v = g.add_vertex();
                    g.add_arc(source, v, i64::try_from(must).unwrap_or(i64::MAX), 0);
                    g.add_arc(groups[group], v, i64::try_from(flex).unwrap_or(i64::MAX), 0);
                    v
                })
                .collect()
        });
        // (job, node position) → vertex capped by the job's copy room on that node.
        let mut capped: HashMap<(u32, usize), usize> = HashMap::new();
        let mut task_arcs: Vec<Vec<(usize, u32)>> = Vec::with_capacity(tasks.len());
        for (i, &t) in tasks.iter().enumerate() {
            let v = g.add_vertex();
            let j = ix.pending_job[t];
            let feed = match (&pool_vertex, quotas) {
                (Some(pools), Some(q)) => q
                    .job_pool
                    .get(j as usize)
                    .and_then(|&p| pools.get(p as usize))
                    .copied()
                    .unwrap_or(source),
                _ => source,
            };
            g.add_arc(feed, v, 1, 0);
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
                        let c = g.add_vertex();
                        g.add_arc(c, node_vertex[pos], i64::from(room), 0);
                        c
                    })
                };
                let cost = quantum.to_units(rows[i].at(n, ix.node_rack[n as usize]) + o);
                out.push((g.add_arc(v, to, 1, cost), n));
            }
            task_arcs.push(out);
        }
        task_arcs
    };
    let Some((mut g, task_arcs)) = Network::build(2, describe) else {
        // Unreachable: `describe` adds the same vertices and arcs on both passes.
        return Ok(false);
    };
    g.set_cancel(cancel.cloned());
    g.solve(source, sink);
    for (i, &t) in tasks.iter().enumerate() {
        if let Some(&(_, n)) = task_arcs[i].iter().find(|&&(a, _)| g.flow(a) > 0) {
            node_of_task[t] = Some(n);
        }
    }
    Ok(g.was_cut())
}
