//! `lsap_ras`: placer's multi-resource policy beyond RAS (Polo et al., Middleware 2011,
//! Algorithm 1; lsap-sched's exact locality, Guo et al.). RAS decides how many tasks of each
//! job start and how much of each node's resources they use; it is blind to data locality.
//! `lsap_ras` keeps RAS's decision and then places the tasks exactly: tasks with the same kind
//! and the same demand vector are interchangeable for the resources, so within each such group
//! one min-cost flow ([`crate::flow::structured`]) puts exactly RAS's count of each job's
//! tasks on nodes with exactly RAS's room for the group, at the least total locality cost.
//!
//! Every job's utility (eqs. 1–3) and every node's packing (eqs. 5–6) are therefore RAS's, and
//! among the placements that keep them the locality cost is minimal. `stats.status` is
//! `heuristic` under `solver: auto` (Algorithm 1's counts; the multi-dimensional knapsack
//! behind them is NP-hard) and `optimal` under `solver: mip`, where the counts are the MIP's
//! max-min-utility, max-packing optimum: the least utility and the packing are then optimal,
//! and the locality cost is the least among placements with those counts (not over every
//! count vector that ties on the first two).

use super::ras::counts_by_deadline;
use super::{Epoch, Placement, Policy};
use crate::cancel::is_cut;
use crate::echo::Field;
use crate::error::SolveError;
use crate::exact::Quantum;
use crate::flow::structured::{self, Quotas, Slots, TaskArcs};
use crate::ras::{realise, Counts, RasProblem};
use placer_models::{SolverEngine, Status, TaskKind};
use std::collections::BTreeMap;

/// RAS's counts, placed by exact locality.
#[derive(Clone, Copy, Debug, Default)]
pub struct LsapRas;

impl Policy for LsapRas {
    fn name(&self) -> &'static str {
        "lsap_ras"
    }

    fn stats_fields(&self) -> &'static [(&'static str, &'static str)] {
        crate::ras::report::STATS_FIELDS
    }

    fn job_fields(&self) -> &'static [&'static dyn crate::echo::Declared] {
        &[&Field::<crate::ras::report::JobUtility>::OF]
    }

    fn multi_resource(&self) -> bool {
        true
    }

    fn engines(&self) -> &'static [SolverEngine] {
        super::ras::RAS_ENGINES
    }

    /// Gangs and topology domains through [`crate::gang::rounds`], as `ras`; the flows keep a
    /// domain's tasks on the domain's nodes.
    fn gangs(&self) -> bool {
        true
    }

    fn place(&self, epoch: &Epoch<'_, '_>) -> Result<Placement, SolveError> {
        crate::gang::rounds::place(epoch.ix, |scope| {
            let (problem, active) = super::ras::scoped_problem(epoch.ix, scope);
            let (counts, status) = counts_by_deadline(&problem, epoch)?;
            let (node_of_task, cut) = by_locality(epoch, &problem, &counts)?;
            let status = if cut { Status::TimeLimited } else { status };
            let mut placement = Placement::new(node_of_task, status);
            placement.task_reason = realise::reasons(&problem, &placement.node_of_task);
            super::ras::report(&mut placement, problem, active, &counts);
            Ok(placement)
        })
    }
}

/// A pending task's locality cost on node `n` from its sparse row (seconds): the least of its
/// arc to `n`, its arc to `n`'s rack and its base.
fn cost_on(ix: &crate::index::Indexed<'_>, row: &crate::cost::SparseRow, n: u32) -> f64 {
    let rack = ix.node_rack[n as usize];
    let on_node = row.on_node.iter().find(|&&(m, _)| m == n).map(|&(_, c)| c);
    let on_rack = row.racks.iter().find(|&&(q, _)| q == rack).map(|&(_, c)| c);
    [on_node, on_rack].into_iter().flatten().fold(row.base, f64::min)
}

/// A task's class in its group, replicas, input bytes and shuffle sources: tasks alike in
/// all four cost the same on every node.
type Alike<'a> = (u32, &'a [u32], u64, &'a [(u32, u64)]);

/// Places `counts` at the least locality cost: per group of classes with equal (kind,
/// demand, map output), a min-cost flow from the group's tasks to its nodes, node n taking Σ of the
/// group's counts on n, each class (job) exactly its count.
///
/// Deadline (`epoch.cancel`): polled before each group and inside its flow; a group cut short
/// (and every later one) keeps RAS's own realisation, valid by construction, and the second
/// value is true.
///
/// # Complexity
/// Per group, [`structured::solve`] on its tasks and nodes; O(pending + Σ replicas) to build.
///
/// # Errors
/// [`SolveError::CostOverflow`] when a cost is beyond the exact integer range.
fn by_locality(
    epoch: &Epoch<'_, '_>,
    problem: &RasProblem,
    counts: &Counts,
) -> Result<(Vec<Option<u32>>, bool), SolveError> {
    let ix = epoch.ix;
    // Under CPAC a job's reduces must stay within each node's copy-phase limit, which a
    // regrouping across jobs could break: reduces then keep RAS's own nodes.
    let mut node_of_task = realise::tasks_of(ix, problem, counts);
    let cpac = ix.has_cpac();
    // Groups (kind, demand, map output) in a fixed order: deterministic. Equal map outputs
    // keep every node's intermediate space as RAS used it.
    let mut groups: BTreeMap<(TaskKind, Vec<u64>, u64), Vec<usize>> = BTreeMap::new();
    for (c, class) in problem.classes.iter().enumerate() {
        if counts.x[c].iter().any(|&k| k > 0) && !(cpac && class.kind == TaskKind::Reduce) {
            let key =
                (class.kind, class.demand.iter().map(|d| d.to_bits()).collect(), class.output);
            groups.entry(key).or_default().push(c);
        }
    }
    let nodes = problem.room.nodes();
    let mut cut = false;
    for classes in groups.values() {
        if cut || is_cut(epoch.cancel) {
            cut = true;
            continue;
        }
        let mut free = vec![0u32; nodes];
        for &c in classes {
            for (f, &k) in free.iter_mut().zip(&counts.x[c]) {
                *f += k;
            }
        }
        let tasks: Vec<(usize, u32)> = classes
            .iter()
            .enumerate()
            .flat_map(|(q, &c)| problem.classes[c].tasks.iter().map(move |&t| (t, q as u32)))
            .collect();
        let rows: Vec<_> = tasks.iter().map(|&(t, _)| epoch.model.sparse_row(t)).collect();
        let max_cost = rows.iter().map(|r| r.base).fold(0.0, f64::max);
        let slots = Slots { node_rack: &ix.node_rack, free: &free, racks: ix.racks() };
        let sizes: Vec<u64> =
            classes.iter().map(|&c| counts.x[c].iter().map(|&k| u64::from(k)).sum()).collect();
        // Each class is its own pool and job, both capped at its count.
        let quotas = Quotas {
            must: sizes.clone(),
            flex: vec![(0, 0); classes.len()],
            groups: [0, 0],
            job_pool: (0..classes.len() as u32).collect(),
            job_share: sizes,
        };
        let vertices = structured::vertex_count(slots, tasks.len(), Some(&quotas));
        let quantum = Quantum::for_matrix(max_cost, vertices, 0)?;
        let arcs: Vec<TaskArcs> = rows
            .into_iter()
            .zip(&tasks)
            .map(|(row, &(_, q))| {
                let class = &problem.classes[classes[q as usize]];
                let units = |c: f64| quantum.to_units(c);
                match &class.allowed {
                    // Kept to a domain: explicit arcs to its nodes with room in the group.
                    Some(_) => TaskArcs {
                        offset: 0,
                        on_node: (0..nodes)
                            .filter(|&n| free[n] > 0 && class.allows(n))
                            .map(|n| (n as u32, units(cost_on(ix, &row, n as u32))))
                            .collect(),
                        racks: Vec::new(),
                        base: None,
                        job: q,
                    },
                    None => TaskArcs {
                        offset: 0,
                        on_node: row.on_node.iter().map(|&(n, c)| (n, units(c))).collect(),
                        racks: row.racks.iter().map(|&(r, c)| (r, units(c))).collect(),
                        base: Some(units(row.base)),
                        job: q,
                    },
                }
            })
            .collect();
        let solution = structured::solve_cancellable(slots, &arcs, Some(&quotas), epoch.cancel);
        if solution.status == Status::TimeLimited {
            cut = true;
            continue;
        }
        // RAS's counts are a feasible answer of this flow, so it places them all; should it
        // not, the group keeps RAS's own realisation.
        let total: u64 = free.iter().map(|&k| u64::from(k)).sum();
        if solution.node_of_task.iter().flatten().count() as u64 != total {
            continue;
        }
        // Tasks of one class with the same data cost the same everywhere: among them the
        // earlier task gets the lower node (a stable tie-break that keeps the optimum).
        let mut alike: BTreeMap<Alike<'_>, (Vec<usize>, Vec<u32>)> = BTreeMap::new();
        for (&(t, q), node) in tasks.iter().zip(solution.node_of_task) {
            node_of_task[t] = None;
            if let Some(n) = node {
                let key =
                    (q, &ix.replicas[t][..], ix.req.pending[t].input_bytes, &ix.shuffle[t][..]);
                let entry = alike.entry(key).or_default();
                entry.0.push(t);
                entry.1.push(n);
            }
        }
        for (ts, mut ns) in alike.into_values() {
            ns.sort_unstable();
            for (t, n) in ts.into_iter().zip(ns) {
                node_of_task[t] = Some(n);
            }
        }
    }
    Ok((node_of_task, cut))
}
