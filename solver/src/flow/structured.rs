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
//! pushed first (a flow of cost 0 is optimal for its value), then [`MinCostFlow::solve`] augments along shortest paths with
//! early-terminating Dijkstra. Memory O(tasks · (replicas + listed racks) + nodes + racks).
//! Time O(F · E log V) in the worst case for the F units left after the greedy seed.

use super::ssp::MinCostFlow;
use super::zero_matching::max_matching;
use crate::cost::{LocalityCost, SparseRow};
use crate::error::SolveError;
use crate::index::{kind_slot, Indexed};
use crate::policy::lsap::shifted;
use crate::quantum::Quantum;
use placer_models::TaskKind;

/// Where each task's units went.
enum Out {
    Node(u32),
    Rack(u32),
    Cluster,
}

/// Solves one kind on the structured network, writing each placed task's node into
/// `node_of_task`. `offset(t)` (seconds, any sign) is added to every placement of task t.
pub fn solve(
    ix: &Indexed<'_>,
    model: &LocalityCost<'_, '_>,
    kind: TaskKind,
    offset: &dyn Fn(usize) -> f64,
    node_of_task: &mut [Option<u32>],
) -> Result<(), SolveError> {
    let k = kind_slot(kind);
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

    // Vertices: S, T, cluster, racks, nodes, tasks.
    let racks = ix.racks();
    let (s, t_sink, cluster) = (0usize, 1usize, 2usize);
    let rack_v = |q: u32| 3 + q as usize;
    let mut node_v = vec![usize::MAX; free.len()];
    for (i, &n) in nodes.iter().enumerate() {
        node_v[n as usize] = 3 + racks + i;
    }
    let task_v0 = 3 + racks + nodes.len();
    let vertices = task_v0 + tasks.len();
    let quantum = Quantum::for_matrix(max_cost, vertices, 0)?;
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

    let mut task_arcs: Vec<Vec<(usize, Out)>> = Vec::with_capacity(tasks.len());
    let mut zero_pairs: Vec<Vec<u32>> = vec![Vec::new(); tasks.len()];
    let mut source_arcs = Vec::with_capacity(tasks.len());
    for (i, row) in rows.iter().enumerate() {
        let v = task_v0 + i;
        let o = quantum.to_units(offsets[i]);
        let source_arc = g.add_arc(s, v, 1, o);
        source_arcs.push(source_arc);
        let mut out = Vec::with_capacity(row.on_node.len() + row.racks.len() + 1);
        for &(n, c) in &row.on_node {
            if node_v[n as usize] != usize::MAX {
                let units = quantum.to_units(c);
                let a = g.add_arc(v, node_v[n as usize], 1, units);
                if o == 0 && units == 0 {
                    zero_pairs[i].push(n);
                }
                out.push((a, Out::Node(n)));
            }
        }
        for &(q, c) in &row.racks {
            if rack_has_node[q as usize] {
                out.push((g.add_arc(v, rack_v(q), 1, quantum.to_units(c)), Out::Rack(q)));
            }
        }
        let a = g.add_arc(v, cluster, 1, quantum.to_units(row.base));
        out.push((a, Out::Cluster));
        task_arcs.push(out);
    }
    // Seed 1: a maximum matching over zero-cost node-local pairs.
    let seeded =
        max_matching(&zero_pairs, |n| free[n as usize].min(u32::try_from(cap).unwrap_or(u32::MAX)));
    for (i, node) in seeded.iter().enumerate() {
        let Some(n) = *node else { continue };
        let Some(&(a, _)) =
            task_arcs[i].iter().find(|(_, to)| matches!(to, Out::Node(m) if *m == n))
        else {
            continue;
        };
        g.push(source_arcs[i], 1);
        g.push(a, 1);
        g.push(node_arc[n as usize], 1);
    }
    // Seed 2: a task that costs 0 on any node (no preference) takes any slot left.
    for (i, row) in rows.iter().enumerate() {
        let source_arc = source_arcs[i];
        let o = quantum.to_units(offsets[i]);
        let base = quantum.to_units(row.base);
        let Some(&(a, _)) = task_arcs[i].last() else { continue };
        if o == 0 && base == 0 && g.residual(source_arc) > 0 {
            while anywhere < nodes.len() && g.residual(node_arc[nodes[anywhere] as usize]) == 0 {
                anywhere += 1;
            }
            if let Some(&n) = nodes.get(anywhere) {
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
    // Direction: every augmentation ends at a free slot and starts at an unplaced task. When
    // unplaced tasks outnumber the slots left, search from the slots (on the reversed
    // network): the search then meets the many unplaced tasks through the aggregators' heaps
    // instead of re-walking the zero-cost matching from every one of them.
    let unplaced = source_arcs.iter().filter(|&&a| g.residual(a) > 0).count() as i64;
    let slots_left: i64 = nodes.iter().map(|&n| g.residual(node_arc[n as usize])).sum();
    if unplaced > slots_left {
        g.reverse();
        g.solve(t_sink, s);
    } else {
        g.solve(s, t_sink);
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
