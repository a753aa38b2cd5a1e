//! A snapshot's kind as the structured network's arcs (docs/architecture.md, "The exact engines":
//! Quincy/Firmament's task → replica nodes / rack aggregators / cluster aggregator → nodes on
//! lsap-sched's eq. 1 costs): each task's [`crate::cost::SparseRow`] in integer units, its
//! shifted offset, and under `lsap_quota` the delay-level surcharges, then
//! [`crate::flow::structured::solve`].
//!
//! Maps that some free node's intermediate space refuses (FAIR §5.4, [`crate::fair::disk`]) get
//! explicit arcs to the nodes that admit them instead of rack and cluster arcs.
//!
//! Units: seconds × the [`Quantum`]; under `lsap_quota` also × (2 · tasks + 1), so that the
//! unit surcharges (at most two per placed task: one for a job beyond its share, one for a
//! placement more remote than the task's delay level) decide only among placements of equal
//! locality cost (lexicographic: locality first).

use super::quantum::{shifted, Quantum};
use super::solve::{Control, Objective};
use crate::cancel::Cancel;
use crate::cost::{LocalityCost, SparseRow};
use crate::error::SolveError;
use crate::flow::incremental::{IncrementalFlow, TaskHandle};
use crate::flow::structured::{self, Slots, TaskArcs};
use crate::index::Indexed;
use crate::matrix::MAX_DENSE_CELLS;
use placer_models::{Status, TaskKind};
use std::cell::RefCell;
use std::hash::{Hash, Hasher};

/// Solves `kind` on the structured network under `objective`, writing each placed task's node
/// (by pending position) into `node_of_task`; polls `control.cancel` once per augmentation or
/// phase and returns true when it stopped on it (the placement is then the flow's feasible
/// part). With `control.warm` under [`Objective::Locality`] or [`Objective::Offset`], when no
/// map needs explicit disk-admission arcs, the flow the store kept for `kind` is repaired
/// ([`KeptFlow`]: the same nodes and cost unit, else built anew from this epoch's tasks) and
/// kept again; under quotas the flow starts from the labels the store holds for `kind`
/// (rescaled to this epoch's cost unit) and leaves its own there.
///
/// Each task's row is made when needed (once for the largest cost, which sizes the quantum,
/// then for its arcs) and never held for all tasks at once: the network, when the zero-cost
/// seeds do not settle the kind alone, is the only structure of size Σ replicas (bounded
/// memory).
///
/// # Complexity
/// O(Σ replicas + listed racks) to build the arcs, plus [`structured::solve_with`].
///
/// # Errors
/// [`SolveError::CostOverflow`] when a cost is infinite or beyond the exact range.
pub fn solve(
    ix: &Indexed<'_>,
    model: &LocalityCost<'_, '_>,
    kind: TaskKind,
    objective: Objective<'_>,
    node_of_task: &mut [Option<u32>],
    control: Control<'_>,
) -> Result<bool, SolveError> {
    let tasks = &ix.eligible_of_kind[kind.slot()];
    let free = &ix.free[kind.slot()];
    if tasks.is_empty() || free.iter().all(|&f| f == 0) {
        return Ok(false);
    }
    let slots = Slots { node_rack: &ix.node_rack, free, racks: ix.racks() };
    let (quotas, levels) = match objective {
        Objective::Quota { quotas, levels, .. } => (Some(quotas), Some(levels)),
        Objective::Locality | Objective::Offset(_) => (None, None),
    };
    let offsets = shifted(tasks, |t| match objective {
        Objective::Offset(o) => o[t],
        Objective::Quota { offsets, .. } => offsets.get(t).copied().unwrap_or(0.0),
        Objective::Locality => 0.0,
    });
    let rows = Rows { ix, model, last: RefCell::new(None) };
    let max_base = tasks.iter().map(|&t| rows.sparse_row(t).base).fold(0.0, f64::max);
    let max_cost = max_base + offsets.iter().copied().fold(0.0, f64::max);
    // lsap_quota: locality first, then the unit surcharges (at most 2 per placed task).
    let scale: i64 = if quotas.is_some() { 2 * tasks.len() as i64 + 1 } else { 1 };
    let vertices = structured::vertex_count(slots, tasks.len(), quotas);
    let quantum = Quantum::for_matrix(max_cost * scale as f64, vertices, 0)?;
    let to_units = |seconds: f64| quantum.to_units(seconds) * scale;
    let disk = DiskAdmission::new(ix, kind, tasks)?;

    let arcs_of = |i: usize| {
        let (t, offset) = (tasks[i], offsets[i]);
        let row = rows.sparse_row(t);
        // lsap_quota's surcharge on arcs beyond the task's delay level.
        let late = |class: u8| i64::from(levels.is_some_and(|l| class > l[t]));
        let holds = |q: u32| ix.replicas[t].iter().any(|&r| ix.node_rack[r as usize] == q);
        let arcs = TaskArcs {
            offset: to_units(offset),
            on_node: row.on_node.into_iter().map(|(n, c)| (n, to_units(c))).collect(),
            racks: row
                .racks
                .into_iter()
                .map(|(q, c)| (q, to_units(c) + late(if holds(q) { 1 } else { 2 })))
                .collect(),
            base: Some(to_units(row.base) + late(2)),
            job: ix.pending_job[t],
        };
        disk.admit(ix, t, arcs)
    };
    // Labels in units per second of this epoch's integer costs.
    let units_per_second = quantum.per_second * scale as f64;
    // Locality or offsets alone, every map admitted by the rack and cluster arcs: the flow
    // kept from the last epoch is repaired instead of solved again.
    if let Some(w) = control.warm.filter(|_| quotas.is_none() && !disk.explicit(ix, tasks)) {
        let fingerprint = KeptFlow::fingerprint(ix);
        let repeats = w.layout_repeats(kind, fingerprint, units_per_second);
        let kept = w
            .take_flow(kind)
            .filter(|k| k.fingerprint == fingerprint && k.units_per_second == units_per_second);
        // A new flow is built only on a layout the previous epoch had too (see
        // `WarmStart::layout_repeats`); otherwise this epoch is solved cold, with the labels.
        let kept = kept.or_else(|| {
            repeats.then(|| {
                let filling = free.iter().map(|&f| f as usize).sum::<usize>() <= tasks.len();
                let (node_rack, racks) = (&ix.node_rack, ix.racks());
                let flow = if filling {
                    IncrementalFlow::filling_slots(node_rack, racks)
                } else {
                    IncrementalFlow::new(node_rack, racks)
                };
                Box::new(KeptFlow::new(fingerprint, units_per_second, flow))
            })
        });
        if let Some(mut kept) = kept {
            if let Some(nodes) = kept.update(ix, tasks, free, &arcs_of, control.cancel) {
                for (&t, node) in tasks.iter().zip(nodes) {
                    if node.is_some() {
                        node_of_task[t] = node;
                    }
                }
                w.put_flow(kind, kept);
                return Ok(false);
            }
        }
        // Cut (or a duplicate id): the state is dropped and the cold path answers.
    }
    let mut labels = control.warm.map(|w| {
        w.take(kind, units_per_second).unwrap_or_else(|| structured::Potentials::zeros(slots))
    });
    let solution = structured::solve_warm(
        slots,
        tasks.len(),
        arcs_of,
        quotas,
        control.cancel,
        labels.as_mut(),
    );
    if let (Some(w), Some(labels)) = (control.warm, labels) {
        w.put(kind, units_per_second, labels);
    }
    for (&t, node) in tasks.iter().zip(solution.node_of_task) {
        if node.is_some() {
            node_of_task[t] = node;
        }
    }
    Ok(solution.status == Status::TimeLimited)
}

/// The tasks' sparse rows, each reduce's reused by the next reduce with the same shuffle
/// sources: without rack terms a reduce's row depends on its sources alone
/// ([`LocalityCost::row`]), and a job's reduces read the same map outputs, so a job of 1,200
/// reduces reading from 600 nodes costs one row instead of 1,200.
struct Rows<'r, 'a, 'b> {
    ix: &'r Indexed<'a>,
    model: &'r LocalityCost<'a, 'b>,
    /// The last reduce's position and row.
    last: RefCell<Option<(usize, SparseRow)>>,
}

impl Rows<'_, '_, '_> {
    /// [`LocalityCost::sparse_row`] of pending task `t`.
    ///
    /// Complexity: O(1) when the last reduce's row is reused and its sources are stored as
    /// one ([`crate::csr::SharedLists::shared`]), O(shuffle sources) when they are equal, else
    /// [`LocalityCost::sparse_row`]'s.
    fn sparse_row(&self, t: usize) -> SparseRow {
        let reduce = |t: usize| {
            self.ix.req.pending[t].kind == TaskKind::Reduce && self.model.terms(t).is_none()
        };
        if !reduce(t) {
            return self.model.sparse_row(t);
        }
        let mut last = self.last.borrow_mut();
        if let Some((u, row)) = last.as_ref() {
            if self.ix.shuffle.shared(*u, t) || self.ix.shuffle[*u] == self.ix.shuffle[t] {
                return row.clone();
            }
        }
        let row = self.model.sparse_row(t);
        *last = Some((t, row.clone()));
        row
    }
}

/// The incremental engine's state for one task kind, kept across epochs in a
/// [`crate::WarmStart`] (Firmament's incremental solving, Gog et al., OSDI 2016, §5): the flow
/// of [`IncrementalFlow`] and which pending task id each of its tasks is.
///
/// Each epoch's tasks are diffed against it by id: vanished ids are removed, new ones added,
/// and a task whose arcs changed (its row or its offset) is replaced; every node's free slots
/// are set; then [`IncrementalFlow::reoptimize`]. The arcs compared are exactly those a cold
/// solve would build, offsets shifted by the epoch's smallest: the answer's cost equals the
/// cold solve's in integer units. A shift of the smallest offset changes every task's arcs
/// and so replaces every task (correct, as slow as a rebuild); under `lsap` (no offsets) and
/// whenever the task with the smallest offset stays, a shift is no change.
#[derive(Debug)]
pub(crate) struct KeptFlow {
    /// [`Self::fingerprint`] of the cluster it was built for.
    fingerprint: u64,
    /// The integer cost units per second of its arcs.
    units_per_second: f64,
    flow: IncrementalFlow,
    /// Handle of each pending task id (looked up, never iterated).
    handles: foldhash::HashMap<String, TaskHandle>,
    /// Id of each handle (`None`: vacant).
    ids: Vec<Option<String>>,
    /// Per handle: the epoch that last saw it.
    seen: Vec<u64>,
    epoch: u64,
}

impl KeptFlow {
    /// A state around an empty `flow` (built from this epoch's tasks by the first update).
    fn new(fingerprint: u64, units_per_second: f64, flow: IncrementalFlow) -> Self {
        Self {
            fingerprint,
            units_per_second,
            flow,
            handles: foldhash::HashMap::default(),
            ids: Vec::new(),
            seen: Vec::new(),
            epoch: 0,
        }
    }

    /// A hash of the cluster's node ids and racks in order (a kept flow is reused only on the
    /// same nodes). O(nodes).
    fn fingerprint(ix: &Indexed<'_>) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        ix.racks().hash(&mut h);
        for (node, rack) in ix.req.cluster.nodes.iter().zip(&ix.node_rack) {
            node.id.as_str().hash(&mut h);
            rack.hash(&mut h);
        }
        h.finish()
    }

    /// An estimate of the heap memory held, in bytes.
    pub(crate) fn heap_bytes(&self) -> usize {
        let ids: usize = self.ids.iter().flatten().map(|id| 2 * id.capacity() + 80).sum();
        self.flow.heap_bytes() + ids + self.seen.capacity() * 8
    }

    /// Diffs `tasks` (pending positions; `arcs_of(i)` the arcs of `tasks[i]`) and `free`
    /// against the kept flow, reoptimizes, and gives each task's node; `None` when cut by
    /// `cancel` or when two pending tasks share an id (the state is then to be dropped).
    ///
    /// Complexity: O(Σ arcs + nodes) to diff, plus [`IncrementalFlow::reoptimize`] on the
    /// change, plus O(tasks + nodes) for the placement.
    fn update(
        &mut self,
        ix: &Indexed<'_>,
        tasks: &[usize],
        free: &[u32],
        arcs_of: &impl Fn(usize) -> TaskArcs,
        cancel: Option<&Cancel>,
    ) -> Option<Vec<Option<u32>>> {
        self.epoch += 1;
        let id = |t: usize| ix.req.pending[t].id.as_str();
        // Vanished ids first, so that their handles are reused.
        for &t in tasks {
            if let Some(&h) = self.handles.get(id(t)) {
                if self.seen[h.0 as usize] == self.epoch {
                    return None;
                }
                self.seen[h.0 as usize] = self.epoch;
            }
        }
        for h in 0..self.ids.len() {
            if self.ids[h].is_some() && self.seen[h] != self.epoch {
                self.flow.remove_task(TaskHandle(h as u32));
                if let Some(gone) = self.ids[h].take() {
                    self.handles.remove(&gone);
                }
            }
        }
        let mut handle_of = Vec::with_capacity(tasks.len());
        for (i, &t) in tasks.iter().enumerate() {
            let arcs = TaskArcs { job: 0, ..arcs_of(i) };
            let h = match self.handles.get(id(t)).copied() {
                Some(h) if self.flow.arcs(h) == Some(&arcs) => h,
                Some(h) => {
                    self.flow.remove_task(h);
                    self.ids[h.0 as usize] = None;
                    self.add(id(t), arcs)
                }
                None => self.add(id(t), arcs),
            };
            handle_of.push(h);
        }
        for (n, &f) in free.iter().enumerate() {
            self.flow.set_free(n as u32, f);
        }
        if !self.flow.reoptimize(cancel) {
            return None;
        }
        let at = self.flow.placement();
        Some(handle_of.iter().map(|h| at.get(h.0 as usize).copied().flatten()).collect())
    }

    /// Adds a task of pending id `id`.
    fn add(&mut self, id: &str, arcs: TaskArcs) -> TaskHandle {
        let h = self.flow.add_task(arcs);
        let k = h.0 as usize;
        if self.ids.len() <= k {
            self.ids.resize(k + 1, None);
            self.seen.resize(k + 1, 0);
        }
        self.ids[k] = Some(id.to_owned());
        self.seen[k] = self.epoch;
        self.handles.insert(id.to_owned(), h);
        h
    }
}

/// Intermediate-space admission, pairwise ([`crate::fair::disk`], FAIR §5.4): a map that some node
/// with a free slot refuses (its output exceeds the node's `disk`) gets, instead of its rack
/// and cluster arcs, one explicit arc to every node with a free slot that admits it, at the
/// cost of its cheapest path there in the aggregated arcs (so every admitted pair costs what
/// it did, and refused pairs have no path). Other tasks keep their arcs.
struct DiskAdmission {
    /// Nodes with a free slot, when some task is refused by one; else empty.
    open: Vec<u32>,
    /// The smallest `disk` among them: maps whose output fits it are admitted everywhere.
    tightest: Option<u64>,
}

impl DiskAdmission {
    /// The open nodes and their tightest disk, for maps of `kind` (reduces: none).
    ///
    /// Complexity: O(tasks + nodes).
    ///
    /// # Errors
    /// [`SolveError::ProblemTooLarge`] when the explicit arcs would exceed
    /// [`MAX_DENSE_CELLS`].
    fn new(ix: &Indexed<'_>, kind: TaskKind, tasks: &[usize]) -> Result<Self, SolveError> {
        let none = Self { open: Vec::new(), tightest: None };
        if kind != TaskKind::Map || !ix.has_disk() {
            return Ok(none);
        }
        let free = &ix.free[kind.slot()];
        let open: Vec<u32> = (0..free.len() as u32).filter(|&n| free[n as usize] > 0).collect();
        let Some(tightest) = open.iter().filter_map(|&n| ix.disk[n as usize]).min() else {
            return Ok(none);
        };
        let refused = tasks.iter().filter(|&&t| ix.output(t) > tightest).count() as u64;
        if refused.saturating_mul(open.len() as u64) > MAX_DENSE_CELLS {
            return Err(SolveError::ProblemTooLarge {
                path: "pending".to_owned(),
                message: format!(
                    "maps refused by some node's disk need more than {MAX_DENSE_CELLS} explicit \
                     task-node arcs"
                ),
            });
        }
        Ok(Self { open, tightest: Some(tightest) })
    }

    /// Whether some task of `tasks` gets explicit arcs (some open node refuses it).
    ///
    /// Complexity: O(tasks).
    fn explicit(&self, ix: &Indexed<'_>, tasks: &[usize]) -> bool {
        self.tightest.is_some_and(|tightest| tasks.iter().any(|&t| ix.output(t) > tightest))
    }

    /// Task `t`'s arcs under admission: unchanged unless some open node refuses it.
    ///
    /// Complexity: O(1) for an admitted map, O(nodes · (replicas + listed racks)) for a
    /// refused one.
    fn admit(&self, ix: &Indexed<'_>, t: usize, mut a: TaskArcs) -> TaskArcs {
        let Some(tightest) = self.tightest else { return a };
        if ix.output(t) <= tightest {
            return a;
        }
        let cost = |n: u32| {
            let rack = ix.node_rack[n as usize];
            let on_node = a.on_node.iter().find(|&&(m, _)| m == n).map(|&(_, c)| c);
            let on_rack = a.racks.iter().find(|&&(q, _)| q == rack).map(|&(_, c)| c);
            [on_node, on_rack, a.base].into_iter().flatten().min()
        };
        let on_node: Vec<(u32, i64)> = self
            .open
            .iter()
            .filter(|&&n| ix.disk_admits(t, n))
            .filter_map(|&n| cost(n).map(|c| (n, c)))
            .collect();
        a.on_node = on_node;
        a.racks = Vec::new();
        a.base = None;
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reduces a, a, b, a (a and b reading from different nodes): each reused row is the
    /// model's own, and b's is not a's.
    #[test]
    fn reduces_with_the_same_sources_reuse_the_row_and_only_they_do() {
        let src = |from: &str| {
            format!(r#"[{{"node": "{from}", "bytes": 100000000}}, {{"node": "n3", "bytes": 5}}]"#)
        };
        let reduce = |id: &str, from: &str| {
            format!(r#"{{"id": "{id}", "job": "j", "kind": "reduce", "shuffle": {}}}"#, src(from))
        };
        let body = format!(
            r#"{{"schema_version": 1,
              "cluster": {{"racks": [{{"id": "r1"}}, {{"id": "r2"}}],
                "nodes": [{{"id": "n1", "rack": "r1"}}, {{"id": "n2", "rack": "r1"}},
                          {{"id": "n3", "rack": "r2"}}]}},
              "pools": [{{"id": "p"}}], "jobs": [{{"id": "j", "pool": "p"}}],
              "pending": [{}, {}, {}, {}]}}"#,
            reduce("a1", "n1"),
            reduce("a2", "n1"),
            reduce("b", "n2"),
            reduce("a3", "n1")
        );
        let req = placer_models::parse_request(body.as_bytes()).expect("parses");
        placer_models::validate(&req).expect("valid");
        let ix = Indexed::new(&req);
        let model = LocalityCost::new(&ix);
        let rows = Rows { ix: &ix, model: &model, last: RefCell::new(None) };
        for t in 0..4 {
            assert_eq!(rows.sparse_row(t), model.sparse_row(t), "task {t}");
        }
        assert_ne!(model.sparse_row(0), model.sparse_row(2));
    }

    /// Warm epochs through the kept incremental flow (Firmament's incremental solving): over
    /// epochs whose pending maps come and go by id and whose running maps move, each warm
    /// solve places as many maps at the same total locality cost (lsap-sched eq. 1) as a cold
    /// solve of the same snapshot, and the store reports the memory it holds.
    #[test]
    fn kept_flow_epochs_cost_what_cold_solves_cost() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        let warm = crate::WarmStart::new();
        let mut alive: Vec<u32> = (0..10).collect();
        let mut fresh = 10u32;
        for epoch in 0..8 {
            // Churn: two maps leave, two arrive.
            for _ in 0..2 {
                alive.remove(next(alive.len() as u64) as usize);
                alive.push(fresh);
                fresh += 1;
            }
            let nodes: Vec<String> = (0..6)
                .map(|n| {
                    format!(
                        r#"{{"id": "n{n}", "rack": "r{}", "map_slots": {}}}"#,
                        n / 3,
                        1 + (n + epoch) % 2
                    )
                })
                .collect();
            let running: Vec<String> = (0..next(4))
                .map(|i| {
                    format!(
                        r#"{{"id": "run{i}", "job": "j", "kind": "map", "node": "n{}"}}"#,
                        next(6)
                    )
                })
                .collect();
            let pending: Vec<String> = alive
                .iter()
                .map(|&k| {
                    // Each map's replicas are fixed by its id (as a block's are).
                    let (a, b) = (k % 6, (k * 7 + 1) % 6);
                    format!(
                        r#"{{"id": "m{k}", "job": "j", "kind": "map", "input_bytes": {},
                            "replicas": ["n{a}", "n{b}"]}}"#,
                        64_000_000 * (1 + u64::from(k % 3))
                    )
                })
                .collect();
            let body = format!(
                r#"{{"schema_version": 1,
                  "cluster": {{"racks": [{{"id": "r0"}}, {{"id": "r1"}}], "nodes": [{}]}},
                  "pools": [{{"id": "p"}}], "jobs": [{{"id": "j", "pool": "p"}}],
                  "running": [{}], "pending": [{}]}}"#,
                nodes.join(","),
                running.join(","),
                pending.join(",")
            );
            let req = placer_models::parse_request(body.as_bytes()).expect("parses");
            placer_models::validate(&req).expect("valid");
            let ix = Indexed::new(&req);
            let model = LocalityCost::new(&ix);
            let run = |w: Option<&crate::WarmStart>| {
                let mut at = vec![None; req.pending.len()];
                let control = Control { cancel: None, warm: w };
                let cut = solve(&ix, &model, TaskKind::Map, Objective::Locality, &mut at, control)
                    .expect("solves");
                assert!(!cut);
                let mut used = vec![0u32; ix.node_rack.len()];
                let mut cost = 0.0;
                for (t, n) in at.iter().enumerate() {
                    if let Some(n) = *n {
                        used[n as usize] += 1;
                        assert!(used[n as usize] <= ix.free[0][n as usize], "epoch {epoch}");
                        cost += model.cost(t, n);
                    }
                }
                (at.iter().flatten().count(), cost)
            };
            let (cold, warmed) = (run(None), run(Some(&warm)));
            assert_eq!(cold.0, warmed.0, "epoch {epoch}");
            assert!((cold.1 - warmed.1).abs() <= 1e-6, "epoch {epoch}: {cold:?} {warmed:?}");
            assert!(warm.heap_bytes() > 0);
        }
    }
}
