//! The anytime answer of an exact solve cut short (docs/operations/serving.md,
//! "Deadlines and the anytime answer"). When the caller's [`crate::Cancel`] stops an engine, what
//! it has matched so far is a valid partial placement (the structured flow: its zero-cost
//! node-local seeds plus every augmentation done; dense JV: the rows already matched); this
//! completes it greedily in dl-sched's manner (Guo, Fox, Zhou §4): a first pass puts each task
//! on a node holding its data if one has a free slot, a second each task left on its cheapest
//! node with a free slot, honouring every hard constraint the exact problem has: the free
//! slots, `lsap_quota`'s pool capacities, copy-compute caps (FAIR §5.2) and pairwise
//! intermediate-space admission (FAIR §5.4). Tasks go in order of their offset (lsap-fair's
//! FC − ageing, `lsap_shuffle`'s credits; lowest first), then queue order.
//!
//! Why this and not the greedy policy run from scratch: the partial solution is already
//! optimal for the units it placed (every augmentation is along a shortest path), and the
//! greedy fill only adds tasks to it, so the answer is never worse than the cut flow and
//! places as many tasks as greedy would, under the same constraints the exact policy obeys.

use super::solve::Objective;
use crate::cost::LocalityCost;
use crate::flow::structured::Quotas;
use crate::index::Indexed;
use placer_models::TaskKind;
use std::collections::HashMap;

/// What may still be added: free slots per node, pool capacities, copy room.
struct Room<'q> {
    slots: Vec<u32>,
    quotas: Option<&'q Quotas>,
    pool_used: Vec<u64>,
    group_excess: [u64; 2],
    copies: HashMap<(u32, u32), u32>,
}

impl Room<'_> {
    /// Whether pool `p` may take one more unit: within `must + flex`, and its units beyond
    /// `must` within its flex group's capacity.
    fn pool_admits(&self, p: usize) -> bool {
        let Some(q) = self.quotas else { return true };
        let used = self.pool_used[p] + 1;
        let (must, (flex, group)) = (q.must[p], q.flex[p]);
        used <= must || (used <= must + flex && self.group_excess[group] < q.groups[group])
    }

    fn take(&mut self, ix: &Indexed<'_>, t: usize, n: u32) {
        self.slots[n as usize] = self.slots[n as usize].saturating_sub(1);
        let j = ix.pending_job[t];
        if let Some(q) = self.quotas {
            let p = q.job_pool[j as usize] as usize;
            self.pool_used[p] += 1;
            if self.pool_used[p] > q.must[p] {
                self.group_excess[q.flex[p].1] += 1;
            }
        }
        *self.copies.entry((j, n)).or_insert(0) += 1;
    }
}

/// Completes `node_of_task` for `kind` greedily (module docs): every eligible task of the kind
/// still unplaced goes, in order of its offset then queue order, first to a node holding its
/// data, then (second pass) to its cheapest node (by `model`), among the nodes with a free
/// slot left that the constraints admit, if any.
///
/// # Complexity
/// O(tasks · (replicas + listed racks) + nodes) time when no node refuses a task, plus a scan
/// of a rack's nodes per refused candidate (disk, copy-compute caps); O(nodes + tasks) space.
///
/// # Errors
/// None: a task no node admits stays unplaced.
pub(crate) fn complete(
    ix: &Indexed<'_>,
    model: &LocalityCost<'_, '_>,
    kind: TaskKind,
    objective: Objective<'_>,
    node_of_task: &mut [Option<u32>],
) {
    let k = kind.slot();
    let tasks = &ix.eligible_of_kind[k];
    let quotas = match objective {
        Objective::Quota { quotas, .. } => Some(quotas),
        Objective::Locality | Objective::Offset(_) => None,
    };
    let pools = quotas.map_or(0, |q| q.must.len());
    let mut room = Room {
        slots: ix.free[k].clone(),
        quotas,
        pool_used: vec![0; pools],
        group_excess: [0; 2],
        copies: HashMap::new(),
    };
    for &t in tasks {
        if let Some(n) = node_of_task[t] {
            room.take(ix, t, n);
        }
    }
    let offset = |t: usize| match objective {
        Objective::Offset(o) => o.get(t).copied().unwrap_or(0.0),
        Objective::Quota { offsets, .. } => offsets.get(t).copied().unwrap_or(0.0),
        Objective::Locality => 0.0,
    };
    let mut order: Vec<usize> =
        tasks.iter().copied().filter(|&t| node_of_task[t].is_none()).collect();
    order.sort_by(|&a, &b| offset(a).total_cmp(&offset(b)));
    // Nodes with free slots, per rack and overall, each with a cursor past the full ones.
    let open: Vec<u32> =
        (0..ix.free[k].len() as u32).filter(|&n| ix.free[k][n as usize] > 0).collect();
    let mut by_rack: Vec<Vec<u32>> = vec![Vec::new(); ix.racks()];
    for &n in &open {
        by_rack[ix.node_rack[n as usize] as usize].push(n);
    }
    let mut rack_cursor = vec![0usize; ix.racks()];
    let mut any_cursor = 0usize;
    let cpac = kind == TaskKind::Reduce && ix.has_cpac();
    let disk = kind == TaskKind::Map && ix.has_disk();
    let mut nodes = Open {
        all: &open,
        by_rack: &by_rack,
        rack_cursor: &mut rack_cursor,
        any_cursor: &mut any_cursor,
    };
    // dl-sched's two passes: data-local placements first, then the rest anywhere.
    for data_local in [true, false] {
        for &t in &order {
            if node_of_task[t].is_none() {
                place_one(
                    ix,
                    model,
                    t,
                    data_local,
                    &mut room,
                    &mut nodes,
                    (disk, cpac),
                    node_of_task,
                );
            }
        }
    }
}

/// Nodes with free slots, per rack and overall, each with a cursor past the full ones.
struct Open<'o> {
    all: &'o [u32],
    by_rack: &'o [Vec<u32>],
    rack_cursor: &'o mut [usize],
    any_cursor: &'o mut usize,
}

/// Places task `t` on its cheapest admitted node with room (only a node holding its data when
/// `data_local`), if any.
#[allow(clippy::too_many_arguments)]
fn place_one(
    ix: &Indexed<'_>,
    model: &LocalityCost<'_, '_>,
    t: usize,
    data_local: bool,
    room: &mut Room<'_>,
    open: &mut Open<'_>,
    (disk, cpac): (bool, bool),
    node_of_task: &mut [Option<u32>],
) {
    let j = ix.pending_job[t];
    if let Some(q) = room.quotas {
        if !room.pool_admits(q.job_pool[j as usize] as usize) {
            return;
        }
    }
    let admits = |room: &Room<'_>, n: u32| {
        room.slots[n as usize] > 0
            && (!disk || ix.disk_admits(t, n))
            && (!cpac || room.copies.get(&(j, n)).copied().unwrap_or(0) < ix.copy_room(j, n))
    };
    let first = |nodes: &[u32], cursor: &mut usize, room: &Room<'_>| {
        while *cursor < nodes.len() && room.slots[nodes[*cursor] as usize] == 0 {
            *cursor += 1;
        }
        nodes[*cursor..].iter().copied().find(|&n| admits(room, n))
    };
    let row = model.sparse_row(t);
    let mut best: Option<(f64, u32)> = None;
    let mut offer = |cost: f64, n: Option<u32>| {
        if let Some(n) = n {
            if best.is_none_or(|(c, _)| cost < c) {
                best = Some((cost, n));
            }
        }
    };
    for &(n, c) in &row.on_node {
        offer(c, admits(room, n).then_some(n));
    }
    if !data_local {
        for &(q, c) in &row.racks {
            let q = q as usize;
            offer(c, first(&open.by_rack[q], &mut open.rack_cursor[q], room));
        }
        offer(row.base, first(open.all, open.any_cursor, room));
    }
    if let Some((_, n)) = best {
        node_of_task[t] = Some(n);
        room.take(ix, t, n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::{solve, Control, Problem};
    use crate::Cancel;
    use placer_models::{SolverEngine, Status};

    /// 3 racks × 3 nodes with 2 map slots each; 24 maps of 64 MB with a replica on one of n0–n2
    /// and one on n3 or n4, drawn by a fixed LCG: more maps than slots, and at most 10
    /// node-local slots, so both engines augment beyond the zero-cost seed.
    fn contested() -> placer_models::PlaceRequest {
        let mut seed = 7u64;
        let mut next = |m: u64| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % m
        };
        let nodes: Vec<String> = (0..9)
            .map(|n| format!(r#"{{"id": "n{n}", "rack": "r{}", "map_slots": 2}}"#, n / 3))
            .collect();
        let maps: Vec<String> = (0..24)
            .map(|t| {
                let (a, b) = (next(3), 3 + next(2));
                format!(
                    r#"{{"id": "m{t}", "job": "j", "kind": "map", "input_bytes": 64000000,
                        "replicas": ["n{a}", "n{b}"]}}"#
                )
            })
            .collect();
        let body = format!(
            r#"{{"schema_version": 1, "cluster": {{"racks": [{{"id": "r0"}}, {{"id": "r1"}}, {{"id": "r2"}}],
                "nodes": [{}]}}, "pools": [{{"id": "p"}}], "jobs": [{{"id": "j", "pool": "p"}}],
                "pending": [{}]}}"#,
            nodes.join(","),
            maps.join(",")
        );
        placer_models::parse_request(body.as_bytes()).unwrap()
    }

    /// Every cut point of both engines: a valid placement (no node beyond its free slots, every
    /// slot filled since maps outnumber slots), `time_limited` with a cost ≥ the optimum until
    /// the engine finishes, then the optimum itself; some cut lands mid-solve (the engine
    /// polls, not just the front door).
    #[test]
    fn every_cut_point_of_flow_and_jv_is_valid() {
        let req = contested();
        placer_models::validate(&req).unwrap();
        let ix = Indexed::new(&req);
        let model = LocalityCost::new(&ix);
        let cost = |placed: &[Option<u32>]| -> f64 {
            placed.iter().enumerate().filter_map(|(t, n)| n.map(|n| model.cost(t, n))).sum()
        };
        for engine in [SolverEngine::Flow, SolverEngine::Jv] {
            let mut optimum = vec![None; req.pending.len()];
            let solve = |placed: &mut [Option<u32>], cancel: Option<&Cancel>| {
                let objective = Objective::Locality;
                solve(
                    Problem { ix: &ix, model: &model, kind: TaskKind::Map, engine, objective },
                    Control { cancel, warm: None },
                    placed,
                )
                .unwrap()
            };
            assert_eq!(solve(&mut optimum, None), Status::Optimal);
            let mut mid_solve = 0;
            for polls in 0..200 {
                let mut placed = vec![None; req.pending.len()];
                let status = solve(&mut placed, Some(&Cancel::after_polls(polls)));
                let mut used = [0u32; 9];
                for n in placed.iter().flatten() {
                    used[*n as usize] += 1;
                }
                assert!(used.iter().all(|&u| u == 2), "{engine:?} cut at {polls}: {used:?}");
                if status == Status::Optimal {
                    assert_eq!(placed, optimum, "{engine:?} uncut at {polls}");
                    break;
                }
                assert!(cost(&placed) >= cost(&optimum) - 1e-9, "{engine:?} at {polls}");
                mid_solve += usize::from(polls > 0);
            }
            assert!(mid_solve > 0, "{engine:?} never cut mid-solve");
        }
    }
}
