//! placer's structured exact placement (DESIGN.md §The epoch pipeline, step 5; the network of
//! Quincy and Firmament applied to lsap-sched's cost, Guo, Fox, Zhou eq. 1): instead of the
//! dense task × slot matrix, one min-cost flow over a network linear in the snapshot:
//!
//! ```text
//! S ─(1, o_t)→ task ─(1, on_node cost)→ node ─(free slots, 0)→ T
//!                   ─(1, rack cost)───→ rack q ─(∞, 0)→ nodes of q
//!                   ─(1, base)────────→ cluster ─(∞, 0)→ every rack
//! ```
//!
//! where a task's [`SparseRow`] gives the exact cost on the nodes holding its data, on the
//! racks where it is cheaper than its largest per-rack cost (`base`), and `base` everywhere
//! else; o_t ≥ 0 is a per-task offset (`lsap_fair`'s FC − ageing, shifted). Every path from a
//! task to a node costs at least the true cost of that pair, and the true cost is the cheapest
//! path, so a minimum-cost maximum flow is an optimal rectangular assignment: the same
//! objective as the dense LSAP on `placer export-matrix`, without padding.
//!
//! Solve: a maximum matching over zero-cost node-local pairs and the no-preference tasks are
//! pushed first (a flow of cost 0 is optimal for its value), then
//! [`MinCostFlow::solve_fixed_sink`] finishes in primal–dual phases (one Dijkstra, then a
//! blocking flow on zero reduced-cost arcs to every slot — or, reversed, every task — that
//! the fuller side must fill), falling back to plain successive shortest paths if a phase
//! ends with that side not full. Memory O(tasks · (replicas + listed racks) + nodes + racks).
//! Time O(F · E log V) in the worst case for the F units left after the greedy seed.

use super::ssp::MinCostFlow;
use super::zero_matching::max_matching;
use crate::cost::{LocalityCost, SparseRow};
use crate::error::SolveError;
use crate::index::Indexed;
use crate::policy::lsap::shifted;
use crate::quantum::Quantum;
use placer_models::TaskKind;

/// lsap_quota's arcs between the source and the jobs.
struct Front {
    /// Per pool: S → pool.
    must: Vec<usize>,
    /// Per pool: (S → its group, group → pool).
    flex: Vec<Option<(usize, usize)>>,
    /// Per job: (its pool, pool → job within the share).
    share: Vec<(usize, Option<usize>)>,
}

impl Front {
    /// Adds the arcs; `at` = (S, first pool vertex, first job vertex, first group vertex).
    fn build(
        g: &mut MinCostFlow,
        q: &Quotas,
        ix: &Indexed<'_>,
        cap: i64,
        at: (usize, usize, usize, usize),
    ) -> Self {
        let (s, pool_v0, job_v0, group_v0) = at;
        let units = |x: u64| i64::try_from(x).unwrap_or(i64::MAX).min(cap);
        let groups = [0, 1].map(|x| g.add_arc(s, group_v0 + x, units(q.groups[x]), 0));
        let mut must = Vec::with_capacity(q.must.len());
        let mut flex = Vec::with_capacity(q.must.len());
        for (p, (&m, &(f, group))) in q.must.iter().zip(&q.flex).enumerate() {
            must.push(g.add_arc(s, pool_v0 + p, units(m), 0));
            flex.push(
                (f > 0).then(|| {
                    (groups[group], g.add_arc(group_v0 + group, pool_v0 + p, units(f), 0))
                }),
            );
        }
        let share = (0..ix.req.jobs.len())
            .map(|j| {
                let p = ix.job_pool[j] as usize;
                let within = units(q.job_share[j]);
                let arc = (within > 0).then(|| g.add_arc(pool_v0 + p, job_v0 + j, within, 0));
                g.add_arc(pool_v0 + p, job_v0 + j, cap, 1);
                (p, arc)
            })
            .collect();
        Self { must, flex, share }
    }

    /// Pushes one unit from S to job `j` at cost 0 if the quotas have room; false otherwise.
    fn enter(&self, g: &mut MinCostFlow, j: usize) -> bool {
        let (p, share) = self.share[j];
        let Some(share) = share.filter(|&a| g.residual(a) > 0) else { return false };
        if g.residual(self.must[p]) > 0 {
            g.push(self.must[p], 1);
        } else if let Some((group, arc)) =
            self.flex[p].filter(|&(group, arc)| g.residual(group) > 0 && g.residual(arc) > 0)
        {
            g.push(group, 1);
            g.push(arc, 1);
        } else {
            return false;
        }
        g.push(share, 1);
        true
    }
}

/// Where each task's units went.
enum Out {
    Node(u32),
    Rack(u32),
    Cluster,
}

/// What stands between the source and the tasks for `lsap_quota` (see
/// [`crate::policy::lsap_quota`]): S → pool (its `must` units), S → flex group g (`groups[g]`
/// units) → pool (its `flex` units), pool → job (`job_share` units free, any more at a
/// surcharge), job → task; and a surcharge on every arc more remote than the task's delay
/// level allows (0: node-local only, 1: up to rack-local, 2: any). Surcharges are one unit
/// each and locality costs are scaled by 2 · tasks + 1, so they decide only among placements
/// of equal locality cost (lexicographic: locality first).
#[derive(Clone, Debug)]
pub struct Quotas {
    /// Per pool: units it must receive.
    pub must: Vec<u64>,
    /// Per pool: (units it may receive beyond `must`, its flex group 0 or 1).
    pub flex: Vec<(u64, usize)>,
    /// Units through each flex group.
    pub groups: [u64; 2],
    /// Per job: units within its fair share.
    pub job_share: Vec<u64>,
    /// Per pending task (by position in `pending`): its delay level.
    pub level: Vec<u8>,
}

/// Solves one kind on the structured network, writing each placed task's node into
/// `node_of_task`. `offset(t)` (seconds, any sign) is added to every placement of task t;
/// `quotas` (lsap_quota) puts pools and jobs between the source and the tasks.
pub fn solve(
    ix: &Indexed<'_>,
    model: &LocalityCost<'_, '_>,
    kind: TaskKind,
    offset: &dyn Fn(usize) -> f64,
    quotas: Option<&Quotas>,
    node_of_task: &mut [Option<u32>],
) -> Result<(), SolveError> {
    let k = kind.slot();
    let tasks = &ix.eligible_of_kind[k];
    let free = &ix.free[k];
    let cap = tasks.len() as i64;
    let nodes: Vec<u32> = (0..free.len() as u32).filter(|&n| free[n as usize] > 0).collect();
    if tasks.is_empty() || nodes.is_empty() {
        return Ok(());
    }
    let rows: Vec<SparseRow> = tasks.iter().map(|&t| model.sparse_row(t)).collect();
    let offsets = shifted(tasks, offset);
    let max_cost = rows.iter().map(|r| r.base).fold(0.0, f64::max)
        + offsets.iter().copied().fold(0.0, f64::max);
    // lsap_quota: locality first, then the unit surcharges (at most 2 per placed task).
    let scale: i64 = if quotas.is_some() { 2 * cap + 1 } else { 1 };

    // Vertices: S, T, cluster, racks, nodes, tasks.
    let racks = ix.racks();
    let (s, t_sink, cluster) = (0usize, 1usize, 2usize);
    let rack_v = |q: u32| 3 + q as usize;
    let mut node_v = vec![usize::MAX; free.len()];
    for (i, &n) in nodes.iter().enumerate() {
        node_v[n as usize] = 3 + racks + i;
    }
    let task_v0 = 3 + racks + nodes.len();
    // lsap_quota's pools, jobs and two flex groups follow the tasks.
    let pool_v0 = task_v0 + tasks.len();
    let job_v0 = pool_v0 + ix.req.pools.len();
    let group_v0 = job_v0 + ix.req.jobs.len();
    let vertices = if quotas.is_some() { group_v0 + 2 } else { pool_v0 };
    let quantum = Quantum::for_matrix(max_cost * scale as f64, vertices, 0)?;
    let to_units = |seconds: f64| quantum.to_units(seconds) * scale;
    let mut g = MinCostFlow::new(vertices);

    let mut rack_has_node = vec![false; racks];
    let mut node_arc = vec![usize::MAX; free.len()];
    let mut rack_node_arc = vec![usize::MAX; free.len()];
    let mut rack_node_arcs: Vec<Vec<(usize, u32)>> = vec![Vec::new(); racks];
    for &n in &nodes {
        let q = ix.node_rack[n as usize];
        rack_has_node[q as usize] = true;
        node_arc[n as usize] =
            g.add_arc(node_v[n as usize], t_sink, i64::from(free[n as usize]).min(cap), 0);
        let a = g.add_arc(rack_v(q), node_v[n as usize], cap, 0);
        rack_node_arc[n as usize] = a;
        rack_node_arcs[q as usize].push((a, n));
    }
    let mut cluster_rack_arc = vec![usize::MAX; racks];
    let mut cluster_rack_arcs: Vec<(usize, u32)> = Vec::new();
    for q in 0..racks as u32 {
        if rack_has_node[q as usize] {
            let a = g.add_arc(cluster, rack_v(q), cap, 0);
            cluster_rack_arc[q as usize] = a;
            cluster_rack_arcs.push((a, q));
        }
    }
    // Cursor over nodes with room, for seeding tasks that cost 0 anywhere.
    let mut anywhere = 0usize;

    let front = quotas.map(|q| Front::build(&mut g, q, ix, cap, (s, pool_v0, job_v0, group_v0)));
    let mut task_arcs: Vec<Vec<(usize, Out)>> = Vec::with_capacity(tasks.len());
    let mut zero_pairs: Vec<Vec<u32>> = vec![Vec::new(); tasks.len()];
    let mut source_arcs = Vec::with_capacity(tasks.len());
    for (i, row) in rows.iter().enumerate() {
        let v = task_v0 + i;
        let o = to_units(offsets[i]);
        let t = tasks[i];
        let from = match quotas {
            Some(_) => job_v0 + ix.pending_job[t] as usize,
            None => s,
        };
        let source_arc = g.add_arc(from, v, 1, o);
        source_arcs.push(source_arc);
        // lsap_quota's surcharge on arcs beyond the task's delay level.
        let late = |class: u8| match quotas {
            Some(q) if class > q.level[t] => 1,
            _ => 0,
        };
        let mut out = Vec::with_capacity(row.on_node.len() + row.racks.len() + 1);
        for &(n, c) in &row.on_node {
            if node_v[n as usize] != usize::MAX {
                let units = to_units(c);
                let a = g.add_arc(v, node_v[n as usize], 1, units);
                if o == 0 && units == 0 {
                    zero_pairs[i].push(n);
                }
                out.push((a, Out::Node(n)));
            }
        }
        for &(q, c) in &row.racks {
            if rack_has_node[q as usize] {
                let holds = ix.replicas[t].iter().any(|&r| ix.node_rack[r as usize] == q);
                let units = to_units(c) + late(if holds { 1 } else { 2 });
                out.push((g.add_arc(v, rack_v(q), 1, units), Out::Rack(q)));
            }
        }
        let a = g.add_arc(v, cluster, 1, to_units(row.base) + late(2));
        out.push((a, Out::Cluster));
        task_arcs.push(out);
    }
    // Seed 1: a maximum matching over zero-cost node-local pairs.
    let seeded =
        max_matching(&zero_pairs, |n| free[n as usize].min(u32::try_from(cap).unwrap_or(u32::MAX)));
    let enter = |g: &mut MinCostFlow, i: usize| match &front {
        Some(f) => f.enter(g, ix.pending_job[tasks[i]] as usize),
        None => true,
    };
    for (i, node) in seeded.iter().enumerate() {
        let Some(n) = *node else { continue };
        let Some(&(a, _)) =
            task_arcs[i].iter().find(|(_, to)| matches!(to, Out::Node(m) if *m == n))
        else {
            continue;
        };
        if !enter(&mut g, i) {
            continue;
        }
        g.push(source_arcs[i], 1);
        g.push(a, 1);
        g.push(node_arc[n as usize], 1);
    }
    // Seed 2: a task that costs 0 on any node (no preference) takes any slot left.
    for (i, row) in rows.iter().enumerate() {
        let source_arc = source_arcs[i];
        let o = to_units(offsets[i]);
        let base = to_units(row.base);
        let Some(&(a, _)) = task_arcs[i].last() else { continue };
        if o == 0 && base == 0 && g.residual(source_arc) > 0 {
            while anywhere < nodes.len() && g.residual(node_arc[nodes[anywhere] as usize]) == 0 {
                anywhere += 1;
            }
            if let Some(&n) = nodes.get(anywhere) {
                if !enter(&mut g, i) {
                    continue;
                }
                let q = ix.node_rack[n as usize] as usize;
                for arc in [
                    source_arc,
                    a,
                    cluster_rack_arc[q],
                    rack_node_arc[n as usize],
                    node_arc[n as usize],
                ] {
                    g.push(arc, 1);
                }
            }
        }
    }
    // Direction: the side with less room left fills completely (every task reaches every
    // node; lsap_quota's pool and group capacities only bound the source side), so search
    // from the other side with the full side as the fixed sink: from S when the tasks the
    // source can still send cover the free slots, else on the reversed network from T.
    let supply: i64 = g.residual_out(s);
    let slots_left: i64 = nodes.iter().map(|&n| g.residual(node_arc[n as usize])).sum();
    if supply >= slots_left {
        g.solve_fixed_sink(s, t_sink);
    } else {
        g.reverse();
        g.solve_fixed_sink(t_sink, s);
    }

    // Decompose: nodes each rack sends flow to, racks the cluster sends flow to.
    let mut supply: Vec<Vec<u32>> = vec![Vec::new(); racks];
    for (q, arcs) in rack_node_arcs.iter().enumerate() {
        for &(a, n) in arcs {
            for _ in 0..g.flow(a) {
                supply[q].push(n);
            }
        }
    }
    let mut via_cluster: Vec<u32> = Vec::new();
    for &(a, q) in &cluster_rack_arcs {
        for _ in 0..g.flow(a) {
            via_cluster.push(q);
        }
    }
    let mut cluster_tasks = Vec::new();
    for (i, out) in task_arcs.iter().enumerate() {
        let Some((_, to)) = out.iter().find(|(a, _)| g.flow(*a) > 0) else { continue };
        let t = tasks[i];
        match *to {
            Out::Node(n) => node_of_task[t] = Some(n),
            Out::Rack(q) => node_of_task[t] = supply[q as usize].pop(),
            Out::Cluster => cluster_tasks.push(t),
        }
    }
    for t in cluster_tasks {
        if let Some(q) = via_cluster.pop() {
            node_of_task[t] = supply[q as usize].pop();
        }
    }
    Ok(())
}
