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
use crate::flow::incremental::{IncrementalFlow, JobHandle, TaskHandle};
use crate::flow::structured::{self, Quotas, Slots, TaskArcs};
use crate::index::Indexed;
use crate::matrix::MAX_DENSE_CELLS;
use placer_models::{Status, TaskKind};
use std::cell::RefCell;
use std::hash::{Hash, Hasher};

/// Solves `kind` on the structured network under `objective`, writing each placed task's node
/// (by pending position) into `node_of_task`; polls `control.cancel` once per augmentation or
/// phase and returns true when it stopped on it (the placement is then the flow's feasible
/// part). With `control.warm`, when no map needs explicit disk-admission arcs, the flow the
/// store kept for `kind` is repaired ([`KeptFlow`]: the same nodes, front and cost unit, else
/// built anew from this epoch's tasks on a layout the previous epoch had too) and kept again.
/// Under [`Objective::Quota`] the kept flow carries lsap_quota's front (pools and jobs by id,
/// their units set each epoch) and its own cost unit ([`kept_units`]: a scale ≥ 2 · tasks + 1
/// that stays while the tasks do not double, so the order locality first, then surcharges,
/// holds as in the cold solve); the answer places as many tasks at the same locality cost
/// and number of surcharges as a cold solve (exactly while both quanta are 1 ns; beyond,
/// within their rounding). Otherwise, or when the flow is cut, the network is solved from
/// the labels the store holds for `kind` (rescaled to this epoch's cost unit), which it
/// leaves there.
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
    let disk = DiskAdmission::new(ix, kind, tasks)?;

    // Task i's arcs with costs in `per_second` units × `scale`.
    let arcs_in = |i: usize, per_second: f64, scale: i64| {
        let to_units = |seconds: f64| (seconds * per_second).round() as i64 * scale;
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
    let arcs_of = |i: usize| arcs_in(i, quantum.per_second, scale);
    // Labels in units per second of this epoch's integer costs.
    let units_per_second = quantum.per_second * scale as f64;
    // Every map admitted by the rack and cluster arcs: the flow kept from the last epoch is
    // repaired instead of solved again.
    if let Some(w) = control.warm.filter(|_| !disk.explicit(ix, tasks)) {
        let fingerprint = KeptFlow::fingerprint(ix, quotas.is_some());
        let kept = w.take_flow(kind);
        // Under quotas the kept flow's own units while they still rank locality first and
        // fit (the cold scale 2 · tasks + 1 moves with every task that comes or goes).
        let (per_second, scale) = match quotas {
            Some(_) => {
                let had = kept.as_ref().map(|k| (k.per_second, k.scale));
                kept_units(had, scale, max_cost)
            }
            None => (quantum.per_second, 1),
        };
        let units_per_second = per_second * scale as f64;
        let repeats = w.layout_repeats(kind, fingerprint, units_per_second);
        let kept =
            kept.filter(|k| k.fingerprint == fingerprint && k.units_per_second == units_per_second);
        // A new flow is built only on a layout the previous epoch had too (see
        // `WarmStart::layout_repeats`); otherwise this epoch is solved cold, with the labels.
        let kept = kept.or_else(|| {
            repeats.then(|| {
                let filling = free.iter().map(|&f| f as usize).sum::<usize>() <= tasks.len();
                let (node_rack, racks) = (&ix.node_rack, ix.racks());
                let mut flow = if filling {
                    IncrementalFlow::filling_slots(node_rack, racks)
                } else {
                    IncrementalFlow::new(node_rack, racks)
                };
                if quotas.is_some() {
                    flow = flow.with_quotas();
                }
                Box::new(KeptFlow::new(fingerprint, (per_second, scale), flow))
            })
        });
        if let Some(mut kept) = kept {
            let arcs_kept = |i: usize| arcs_in(i, per_second, scale);
            let edit = Edit { tasks, free, quotas, cancel: control.cancel };
            if let Some(nodes) = kept.update(ix, edit, &arcs_kept) {
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

/// The kept flow's cost units under quotas, (units per second, scale): `had` (the kept
/// flow's) while its scale is at least `needed` (2 · tasks + 1: the unit surcharges never
/// outweigh a locality difference) and `max_cost` seconds × both stay within 2⁶¹ (the
/// incremental engine sums arc costs in i128); else the scale rounded up to a power of two
/// and 1 ns, halved until it fits. Both move only when the tasks double or the largest cost
/// outgrows them, so the flow is kept across epochs whose task count changes.
///
/// Complexity: O(log max_cost).
fn kept_units(had: Option<(f64, i64)>, needed: i64, max_cost: f64) -> (f64, i64) {
    let limit = (1u64 << 61) as f64;
    let fits = |per_second: f64, scale: i64| max_cost * per_second * scale as f64 <= limit;
    if let Some((per_second, scale)) = had.filter(|&(p, s)| s >= needed && fits(p, s)) {
        return (per_second, scale);
    }
    let scale = i64::try_from((needed.max(1) as u64).next_power_of_two()).unwrap_or(i64::MAX);
    let mut per_second = Quantum::DEFAULT_PER_SECOND;
    while !fits(per_second, scale) && per_second > f64::MIN_POSITIVE {
        per_second /= 2.0;
    }
    (per_second, scale)
}

/// One epoch's change for [`KeptFlow::update`].
struct Edit<'e, 'q> {
    /// Pending positions of the kind's eligible tasks.
    tasks: &'e [usize],
    /// Free slots per node.
    free: &'e [u32],
    /// lsap_quota's front, when the objective has one.
    quotas: Option<&'q Quotas>,
    cancel: Option<&'e Cancel>,
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
/// and a task whose arcs changed (its row, its offset, under quotas its delay-level
/// surcharges or its job) is replaced; every node's free slots are set; under quotas the
/// groups', every pool's and every job's units are set first (pools and jobs by id; a job no
/// longer pending, or moved to another pool, is removed once its tasks are); then
/// [`IncrementalFlow::reoptimize`]. The arcs compared are exactly those a cold
/// solve would build, offsets shifted by the epoch's smallest: the answer's cost equals the
/// cold solve's in integer units. A shift of the smallest offset changes every task's arcs
/// and so replaces every task (correct, as slow as a rebuild); under `lsap` (no offsets) and
/// whenever the task with the smallest offset stays, a shift is no change.
#[derive(Debug)]
pub(crate) struct KeptFlow {
    /// [`Self::fingerprint`] of the cluster it was built for.
    fingerprint: u64,
    /// The integer cost units per second of its arcs (`per_second` × `scale`).
    units_per_second: f64,
    /// The quantum of its arcs' locality costs, units per second.
    per_second: f64,
    /// The factor on locality costs (under quotas ≥ 2 · tasks + 1, else 1).
    scale: i64,
    flow: IncrementalFlow,
    /// Under quotas: the handle of each pool id (by first sight; pools stay).
    pool_handles: foldhash::HashMap<String, u32>,
    /// Under quotas: the handle of each job id and its pool's handle.
    job_handles: foldhash::HashMap<String, (u32, u32)>,
    /// Per job handle: its id (`None`: vacant) and the epoch that last saw it.
    job_ids: Vec<(Option<String>, u64)>,
    /// Pools handled so far.
    pools: u32,
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
    fn new(fingerprint: u64, (per_second, scale): (f64, i64), flow: IncrementalFlow) -> Self {
        Self {
            fingerprint,
            units_per_second: per_second * scale as f64,
            per_second,
            scale,
            flow,
            pool_handles: foldhash::HashMap::default(),
            job_handles: foldhash::HashMap::default(),
            job_ids: Vec::new(),
            pools: 0,
            handles: foldhash::HashMap::default(),
            ids: Vec::new(),
            seen: Vec::new(),
            epoch: 0,
        }
    }

    /// A hash of the cluster's node ids and racks in order, and of whether the flow has
    /// lsap_quota's front (a kept flow is reused only on the same nodes and front). O(nodes).
    fn fingerprint(ix: &Indexed<'_>, quota: bool) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        quota.hash(&mut h);
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
        let jobs: usize = self
            .job_ids
            .iter()
            .map(|j| j.0.as_ref().map_or(0, |id| 2 * id.capacity() + 80) + 32)
            .sum();
        let pools: usize = self.pool_handles.keys().map(|id| id.capacity() + 40).sum();
        self.flow.heap_bytes() + ids + self.seen.capacity() * 8 + jobs + pools
    }

    /// Sets lsap_quota's front from `q` (pools and jobs by id) and gives each job's handle
    /// (by job position). O(pools + jobs).
    ///
    /// Units are capped at the kind's task count (as the cold engine caps them), so that no
    /// capacity costs searches for units no task can use.
    fn set_front(&mut self, ix: &Indexed<'_>, q: &Quotas, tasks: usize) -> Vec<u32> {
        let cap = |x: u64| x.min(tasks as u64);
        self.flow.set_groups(q.groups.map(cap));
        let req = ix.req;
        let mut pool_of = Vec::with_capacity(req.pools.len());
        let mut seen = vec![false; self.pools as usize];
        for (p, pool) in req.pools.iter().enumerate() {
            let h = match self.pool_handles.get(pool.id.as_str()) {
                Some(&h) => h,
                None => {
                    self.pool_handles.insert(pool.id.as_str().to_owned(), self.pools);
                    seen.push(false);
                    self.pools += 1;
                    self.pools - 1
                }
            };
            seen[h as usize] = true;
            let (must, (flex, group)) = (cap(q.must[p]), q.flex[p]);
            let flex = cap(flex);
            self.flow.set_pool(h, must, flex, group);
            pool_of.push(h);
        }
        for h in (0..self.pools).filter(|&h| !seen[h as usize]) {
            self.flow.set_pool(h, 0, 0, 0);
        }
        let mut job_of = Vec::with_capacity(req.jobs.len());
        for (j, job) in req.jobs.iter().enumerate() {
            let pool = pool_of[q.job_pool[j] as usize];
            let share = cap(q.job_share[j]);
            let h = match self.job_handles.get(job.id.as_str()).copied() {
                Some((h, p)) if p == pool && self.job_ids[h as usize].1 != self.epoch => {
                    self.flow.set_job_share(JobHandle(h), share);
                    h
                }
                _ => {
                    // New, or moved to another pool (the old handle goes once its tasks
                    // have), or a duplicate id (its own handle).
                    let h = self.flow.add_job(pool, share).0;
                    if self.job_ids.len() <= h as usize {
                        self.job_ids.resize(h as usize + 1, (None, 0));
                    }
                    self.job_ids[h as usize].0 = Some(job.id.as_str().to_owned());
                    self.job_handles.insert(job.id.as_str().to_owned(), (h, pool));
                    h
                }
            };
            self.job_ids[h as usize].1 = self.epoch;
            job_of.push(h);
        }
        job_of
    }

    /// Removes the jobs this epoch did not see (their tasks gone). O(job handles).
    fn retire_jobs(&mut self) {
        for h in 0..self.job_ids.len() {
            let (id, seen) = &self.job_ids[h];
            if id.is_none() || *seen == self.epoch {
                continue;
            }
            if self.flow.remove_job(JobHandle(h as u32)) {
                if let Some(id) = self.job_ids[h].0.take() {
                    if self.job_handles.get(id.as_str()).is_some_and(|&(k, _)| k == h as u32) {
                        self.job_handles.remove(&id);
                    }
                }
            }
        }
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
        edit: Edit<'_, '_>,
        arcs_of: &impl Fn(usize) -> TaskArcs,
    ) -> Option<Vec<Option<u32>>> {
        let Edit { tasks, free, quotas, cancel } = edit;
        self.epoch += 1;
        let job_of = quotas.map(|q| self.set_front(ix, q, tasks.len()));
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
            let arcs = arcs_of(i);
            let job = job_of.as_ref().map_or(0, |h| h[arcs.job as usize]);
            let arcs = TaskArcs { job, ..arcs };
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
        self.retire_jobs();
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
    /// lsap_quota's objective through the kept flow: over epochs whose pending maps come and
    /// go by id, whose jobs come and go (one moves to the other pool), whose running maps
    /// move (so the pools' D-optimal counts, the job shares and the task count, hence the
    /// cold scale 2 · tasks + 1, change every epoch) and whose delay levels change, each warm
    /// solve places as many maps as a cold solve, at the same locality cost (lsap-sched eq. 1)
    /// and the same number of unit surcharges (jobs beyond their share, placements more remote
    /// than the job's level: lsap_quota step 3), within the same pool quotas.
    #[test]
    fn kept_flow_under_quotas_costs_what_cold_solves_cost() {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        let warm = crate::WarmStart::new();
        let mut alive: Vec<u32> = (0..14).collect();
        let mut fresh = 14u32;
        let mut kept_epochs = 0;
        for epoch in 0..12u32 {
            for _ in 0..1 + next(3) {
                alive.remove(next(alive.len() as u64) as usize);
                alive.push(fresh);
                fresh += 1;
            }
            let nodes: Vec<String> = (0..8)
                .map(|n| {
                    format!(
                        r#"{{"id": "n{n}", "rack": "r{}", "map_slots": {}}}"#,
                        n / 4,
                        1 + (n + epoch) % 3
                    )
                })
                .collect();
            // Jobs j0..j3; j3 only from epoch 4 on; j2 moves from pool a to pool b at 6.
            let jobs: Vec<u32> = (0..4).filter(|&j| j < 3 || epoch >= 4).collect();
            let pool_of = |j: u32| match j {
                0 => "a",
                2 if epoch < 6 => "a",
                _ => "b",
            };
            let job_list: Vec<String> = jobs
                .iter()
                .map(|&j| format!(r#"{{"id": "j{j}", "pool": "{}"}}"#, pool_of(j)))
                .collect();
            let running: Vec<String> = (0..next(6))
                .map(|i| {
                    format!(
                        r#"{{"id": "run{i}", "job": "j{}", "kind": "map", "node": "n{}"}}"#,
                        next(3),
                        next(8)
                    )
                })
                .collect();
            let pending: Vec<String> = alive
                .iter()
                .map(|&k| {
                    let (a, b) = (k % 4, (k * 3 + 1) % 4);
                    let job = jobs[(k as usize) % jobs.len()];
                    format!(
                        r#"{{"id": "m{k}", "job": "j{job}", "kind": "map", "input_bytes": {},
                            "replicas": ["n{a}", "n{b}"]}}"#,
                        64_000_000 * (1 + u64::from(k % 3))
                    )
                })
                .collect();
            let body = format!(
                r#"{{"schema_version": 1,
                  "cluster": {{"racks": [{{"id": "r0"}}, {{"id": "r1"}}], "nodes": [{}]}},
                  "pools": [{{"id": "a", "weight": 2.0}}, {{"id": "b"}}], "jobs": [{}],
                  "running": [{}], "pending": [{}]}}"#,
                nodes.join(","),
                job_list.join(","),
                running.join(","),
                pending.join(",")
            );
            let req = placer_models::parse_request(body.as_bytes()).expect("parses");
            placer_models::validate(&req).expect("valid");
            let ix = Indexed::new(&req);
            let model = LocalityCost::new(&ix);
            let shares = crate::fair::fair_shares::compute(&ix);
            let q = crate::policy::quotas(&ix, &shares, TaskKind::Map);
            // Delay levels by job, moving with the epoch.
            let levels: Vec<u8> = (0..req.pending.len())
                .map(|t| ((ix.pending_job[t] as u32 + epoch) % 3) as u8)
                .collect();
            let objective = Objective::Quota { quotas: &q, levels: &levels, offsets: &[] };
            let run = |w: Option<&crate::WarmStart>| {
                let mut at = vec![None; req.pending.len()];
                let control = Control { cancel: None, warm: w };
                let cut =
                    solve(&ix, &model, TaskKind::Map, objective, &mut at, control).expect("solves");
                assert!(!cut);
                let mut used = vec![0u32; ix.node_rack.len()];
                let mut per_job = vec![0u64; req.jobs.len()];
                let mut per_pool = vec![0u64; req.pools.len()];
                let (mut cost, mut late) = (0.0, 0u64);
                for (t, n) in at.iter().enumerate() {
                    let Some(n) = *n else { continue };
                    used[n as usize] += 1;
                    assert!(used[n as usize] <= ix.free[0][n as usize], "epoch {epoch}");
                    cost += model.cost(t, n);
                    let j = ix.pending_job[t] as usize;
                    per_job[j] += 1;
                    per_pool[q.job_pool[j] as usize] += 1;
                    let rack = ix.node_rack[n as usize];
                    let class = if ix.replicas[t].contains(&n) {
                        0
                    } else if ix.replicas[t].iter().any(|&r| ix.node_rack[r as usize] == rack) {
                        1
                    } else {
                        2
                    };
                    late += u64::from(class > levels[t]);
                }
                for (p, &c) in per_pool.iter().enumerate() {
                    let (flex, _) = q.flex[p];
                    assert!(c >= q.must[p] && c <= q.must[p] + flex, "epoch {epoch}: pool {p}");
                }
                let beyond: u64 =
                    per_job.iter().zip(&q.job_share).map(|(&c, &s)| c.saturating_sub(s)).sum();
                (at.iter().flatten().count(), cost, beyond + late)
            };
            let (cold, warmed) = (run(None), run(Some(&warm)));
            assert_eq!(cold.0, warmed.0, "epoch {epoch}");
            assert!((cold.1 - warmed.1).abs() <= 1e-6, "epoch {epoch}: {cold:?} {warmed:?}");
            assert_eq!(cold.2, warmed.2, "epoch {epoch}: {cold:?} {warmed:?}");
            let store = warm.take_flow(TaskKind::Map);
            kept_epochs += u32::from(store.is_some());
            if let Some(kept) = store {
                warm.put_flow(TaskKind::Map, kept);
            }
        }
        // From the second epoch on (the layout seen twice) the flow is kept.
        assert_eq!(kept_epochs, 11);
    }
}
