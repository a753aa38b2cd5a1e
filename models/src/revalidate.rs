//! Validation by difference for a session's snapshot (docs/wire-schema.md, "Sessions"; the
//! incremental rounds of Firmament, Gog et al., OSDI 2016, §5, on lsap-sched's "instant system
//! state", Guo et al. §3.2): the snapshot of the last epoch was valid, so after a delta only
//! what it changed needs checking, and the references it resolved ([`Resolved`]) need only be
//! edited where the lists were.
//!
//! The fast path takes deltas that touch `now_s`, jobs, pending and running tasks (what a
//! master's epochs change), and nodes, pools and racks replaced in place under their ids (a
//! node's slots or capacities in its rack with the same resource names, a pool's settings or
//! starvation clocks, a rack's measured traffic); a node list reordered is followed
//! ([`Revalidator::nodes_reordered`]). One that adds or removes racks, nodes or pools, moves a
//! node to another rack, or touches users, the network or the policy is validated in full. It claims a snapshot valid only when [`validate_resolved`]
//! would: the changed jobs and tasks are validated by [`validate_resolved`] itself, inside a
//! small snapshot that holds them and what they reference; what a change can break elsewhere
//! (a task id used twice, a removed job still referenced, a node given more running tasks than
//! slots) is counted. On any doubt, and for every invalid snapshot, the whole snapshot is
//! validated again, so the error is always the one [`validate_resolved`] gives.

use crate::delta::{ListUndo, Undo};
use crate::error::ModelError;
use crate::request::{
    Cluster, Job, Node, PendingTask, PlaceRequest, Pool, Rack, RunningTask, TaskKind,
};
use crate::validate::{validate_resolved, Resolved};
use foldhash::{HashMap, HashSet};
use std::collections::BTreeSet;
use std::hash::BuildHasher;

/// A snapshot's references resolved by a validation of that very snapshot, with the lengths
/// of its lists: what lets a solver skip validating it again. Only this crate makes one
/// ([`Revalidator::revalidate`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    resolved: Resolved,
    shape: [usize; 7],
}

impl Checked {
    /// The resolved references, when `req` has the shape of the snapshot they were resolved
    /// for (the same number of racks, nodes, pools, users, jobs, pending and running tasks);
    /// `None` otherwise (validate it then).
    ///
    /// # Complexity
    /// O(1).
    pub fn resolved_for(self, req: &PlaceRequest) -> Option<Resolved> {
        (self.shape == shape(req)).then_some(self.resolved)
    }
}

fn shape(req: &PlaceRequest) -> [usize; 7] {
    [
        req.cluster.racks.len(),
        req.cluster.nodes.len(),
        req.pools.len(),
        req.users.len(),
        req.jobs.len(),
        req.pending.len(),
        req.running.len(),
    ]
}

/// What a session keeps to validate its next delta by difference; empty until its first
/// validation.
#[derive(Clone, Debug, Default)]
pub struct Revalidator {
    state: Option<State>,
    /// Whether the last [`Revalidator::revalidate`] took the fast path.
    by_difference: bool,
}

/// The last valid snapshot's resolved references and the counts a delta can break.
#[derive(Clone, Debug)]
struct State {
    resolved: Resolved,
    /// Where each pending task's replicas and shuffle sources start in `resolved` (one more
    /// entry than tasks).
    replica_start: Vec<u32>,
    shuffle_start: Vec<u32>,
    /// Node and job positions by the hash of their id (checked against the id on use).
    node_at: HashMap<u64, u32>,
    job_at: HashMap<u64, u32>,
    /// How many task ids (pending and running) have each hash.
    task_ids: HashMap<u64, u32>,
    /// Pending and running tasks of each job, by the hash of its id.
    job_refs: HashMap<u64, u32>,
    /// Running tasks per node and kind.
    used: Vec<[u32; 2]>,
    /// Every resource name some node has.
    resources: BTreeSet<String>,
    /// The lengths of the lists of the snapshot it describes ([`shape`]): a delta recorded
    /// against another snapshot is not taken by difference.
    shape: [usize; 7],
}

/// The one hasher of ids (seeded once per process: equal ids, equal hashes).
fn hash(id: &str) -> u64 {
    static STATE: std::sync::OnceLock<foldhash::quality::RandomState> = std::sync::OnceLock::new();
    STATE.get_or_init(Default::default).hash_one(id)
}

impl Revalidator {
    /// An empty one: the next [`Revalidator::revalidate`] validates in full.
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets the state: the next [`Revalidator::revalidate`] validates in full (after a
    /// delta was undone, say).
    pub fn invalidate(&mut self) {
        self.state = None;
    }

    /// Follows a reordering of the nodes of the snapshot it last validated (`req` is that
    /// snapshot with `cluster.nodes` permuted, nothing else changed), so that the next delta is
    /// still validated by difference: the nodes are found again by id and every resolved node
    /// reference is renumbered. A simulated master reorders its nodes each epoch, as
    /// heartbeats arrive in no fixed order. Forgets the state when `req` is not such a
    /// permutation.
    ///
    /// # Complexity
    /// O(nodes) hashes plus O(resolved references) integer moves; no string is validated.
    ///
    /// # Examples
    /// ```
    /// use placer_models::{parse_request, validate_resolved, Revalidator};
    /// let mut req = parse_request(br#"{"schema_version": 1, "cluster": {"racks": [{"id": "r"}],
    ///   "nodes": [{"id": "A", "rack": "r", "map_slots": 1}, {"id": "B", "rack": "r", "map_slots": 1}]},
    ///   "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}],
    ///   "pending": [{"id": "T1", "job": "j", "kind": "map", "replicas": ["A"]}]}"#).unwrap();
    /// let mut checker = Revalidator::new();
    /// checker.revalidate(&req, None).unwrap();
    /// req.cluster.nodes.reverse();
    /// checker.nodes_reordered(&req);
    /// let checked = checker.revalidate(&req, Some(&req.clone().apply_changes(Default::default()))).unwrap();
    /// assert!(checker.was_by_difference());
    /// assert_eq!(checked.resolved_for(&req), Some(validate_resolved(&req).unwrap()));
    /// ```
    pub fn nodes_reordered(&mut self, req: &PlaceRequest) {
        if let Some(state) = self.state.as_mut() {
            if state.nodes_reordered(req).is_none() {
                self.state = None;
            }
        }
    }

    /// Whether the last [`Revalidator::revalidate`] validated by difference (else in full).
    pub fn was_by_difference(&self) -> bool {
        self.by_difference
    }

    /// An estimate of the bytes it holds.
    ///
    /// Complexity: O(1).
    pub fn heap_bytes(&self) -> usize {
        let Some(s) = &self.state else { return 0 };
        let r = &s.resolved;
        let u32s = r.node_rack.capacity()
            + r.job_pool.capacity()
            + r.pending_job.capacity()
            + r.replica_nodes.capacity()
            + r.shuffle_nodes.capacity()
            + r.running_job.capacity()
            + r.running_node.capacity()
            + s.replica_start.capacity()
            + s.shuffle_start.capacity()
            + 2 * s.used.capacity();
        let entries = s.node_at.capacity()
            + s.job_at.capacity()
            + s.task_ids.capacity()
            + s.job_refs.capacity();
        4 * u32s + 16 * entries + s.resources.iter().map(|n| n.len() + 48).sum::<usize>()
    }

    /// Validates `req`: by difference when `undo` records the delta that made it from the
    /// last snapshot this revalidator saw valid, in full otherwise (`undo` `None`, no state yet,
    /// or a delta the fast path does not take). Returns the references resolved, as
    /// [`validate_resolved`] would; on error the state is forgotten.
    ///
    /// # Complexity
    /// By difference: O(change + what it references) for the checks, plus one pass over the
    /// resolved references (integers) to edit them as the lists were edited. In full:
    /// [`validate_resolved`]'s O(snapshot), plus O(snapshot) to count.
    ///
    /// # Errors
    /// The first violation of `req`, as [`validate_resolved`] gives it.
    ///
    /// # Examples
    /// lsap-sched's Fig. 1 cluster: a delta adds task T3 on B; then one names an unknown job.
    /// ```
    /// use placer_models::{parse_delta, parse_request, validate_resolved, Revalidator};
    /// let mut req = parse_request(br#"{"schema_version": 1, "cluster": {"racks": [{"id": "r"}],
    ///   "nodes": [{"id": "A", "rack": "r", "map_slots": 1}, {"id": "B", "rack": "r", "map_slots": 1}]},
    ///   "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}],
    ///   "pending": [{"id": "T1", "job": "j", "kind": "map", "replicas": ["A", "B"]}]}"#).unwrap();
    /// let mut checker = Revalidator::new();
    /// checker.revalidate(&req, None).unwrap();
    /// let delta = parse_delta(br#"{"base_epoch": 0, "changes": {"upsert": {"pending": [
    ///   {"id": "T3", "job": "j", "kind": "map", "replicas": ["B"]}]}}}"#).unwrap();
    /// let undo = req.apply_changes(delta.changes.0);
    /// let checked = checker.revalidate(&req, Some(&undo)).unwrap();
    /// assert_eq!(checked.resolved_for(&req), Some(validate_resolved(&req).unwrap()));
    /// let bad = parse_delta(br#"{"base_epoch": 1, "changes": {"upsert": {"pending": [
    ///   {"id": "T4", "job": "nope", "kind": "map"}]}}}"#).unwrap();
    /// let undo = req.apply_changes(bad.changes.0);
    /// let err = checker.revalidate(&req, Some(&undo)).unwrap_err();
    /// assert_eq!((err.code(), err.path()), ("unknown_reference", "pending[2].job"));
    /// ```
    pub fn revalidate(
        &mut self,
        req: &PlaceRequest,
        undo: Option<&Undo>,
    ) -> Result<Checked, ModelError> {
        if let (Some(undo), Some(state)) = (undo, self.state.as_mut()) {
            if let Some(resolved) = state.by_difference(req, undo) {
                self.by_difference = true;
                return Ok(Checked { resolved, shape: shape(req) });
            }
        }
        self.by_difference = false;
        self.state = None;
        let resolved = validate_resolved(req)?;
        self.state = Some(State::new(req, resolved.clone()));
        Ok(Checked { resolved, shape: shape(req) })
    }
}

/// Prefix offsets of list lengths (one more entry than lists).
fn starts(lens: impl Iterator<Item = usize>) -> Vec<u32> {
    let mut out = vec![0u32];
    let mut at = 0u32;
    for n in lens {
        at = at.saturating_add(u32::try_from(n).unwrap_or(u32::MAX));
        out.push(at);
    }
    out
}

impl State {
    /// The counts of a snapshot `resolved` validated in full.
    fn new(req: &PlaceRequest, resolved: Resolved) -> Self {
        let node_at =
            req.cluster.nodes.iter().enumerate().map(|(i, n)| (hash(n.id.as_str()), i as u32));
        let job_at = req.jobs.iter().enumerate().map(|(i, j)| (hash(j.id.as_str()), i as u32));
        let mut task_ids = HashMap::default();
        let mut job_refs = HashMap::default();
        let ids = req.pending.iter().map(|t| (&t.id, &t.job));
        for (id, job) in ids.chain(req.running.iter().map(|t| (&t.id, &t.job))) {
            *task_ids.entry(hash(id.as_str())).or_insert(0u32) += 1;
            *job_refs.entry(hash(job.as_str())).or_insert(0u32) += 1;
        }
        let mut used = vec![[0u32; 2]; req.cluster.nodes.len()];
        for (t, &n) in req.running.iter().zip(&resolved.running_node) {
            used[n as usize][usize::from(t.kind == TaskKind::Reduce)] += 1;
        }
        let resources = req
            .cluster
            .nodes
            .iter()
            .filter_map(|n| n.resources.as_ref())
            .flat_map(|r| r.amounts.keys().cloned())
            .collect();
        Self {
            shape: shape(req),
            replica_start: starts(req.pending.iter().map(|t| t.replicas.len())),
            shuffle_start: starts(req.pending.iter().map(|t| t.shuffle.len())),
            resolved,
            node_at: node_at.collect(),
            job_at: job_at.collect(),
            task_ids,
            job_refs,
            used,
            resources,
        }
    }

    /// Renumbers the state's nodes to `req`'s order ([`Revalidator::nodes_reordered`]);
    /// `None` when `req`'s nodes are not a permutation of those it describes.
    fn nodes_reordered(&mut self, req: &PlaceRequest) -> Option<()> {
        let nodes = &req.cluster.nodes;
        if nodes.len() != self.shape[1] {
            return None;
        }
        // new_of[old position] = new position.
        let mut new_of = vec![u32::MAX; nodes.len()];
        for (i, n) in nodes.iter().enumerate() {
            let &old = self.node_at.get(&hash(n.id.as_str()))?;
            let slot = new_of.get_mut(old as usize)?;
            if *slot != u32::MAX {
                return None;
            }
            *slot = i as u32;
        }
        let r = &mut self.resolved;
        let mut node_rack = vec![0u32; nodes.len()];
        let mut used = vec![[0u32; 2]; nodes.len()];
        for (old, &new) in new_of.iter().enumerate() {
            node_rack[new as usize] = r.node_rack[old];
            used[new as usize] = self.used[old];
        }
        r.node_rack = node_rack;
        self.used = used;
        for n in r.replica_nodes.iter_mut().chain(&mut r.shuffle_nodes).chain(&mut r.running_node) {
            *n = new_of[*n as usize];
        }
        for at in self.node_at.values_mut() {
            *at = new_of[*at as usize];
        }
        Some(())
    }

    /// The position of node `id` in `req`, if it holds it.
    fn node(&self, req: &PlaceRequest, id: &str) -> Option<u32> {
        let &n = self.node_at.get(&hash(id))?;
        (req.cluster.nodes.get(n as usize)?.id.as_str() == id).then_some(n)
    }

    /// The position of job `id` in `req`, if it holds it.
    fn job(&self, req: &PlaceRequest, id: &str) -> Option<u32> {
        let &j = self.job_at.get(&hash(id))?;
        (req.jobs.get(j as usize)?.id.as_str() == id).then_some(j)
    }

    /// `req` validated by difference from the last valid snapshot, which `undo` turns it back
    /// into; `None` when it cannot be told valid this way (then validate it in full). On
    /// `Some` the state describes `req`; on `None` it is no longer usable.
    fn by_difference(&mut self, req: &PlaceRequest, undo: &Undo) -> Option<Resolved> {
        // The lists as they were before the delta must be those this state describes.
        let before = [
            undo.racks.before(),
            undo.nodes.before(),
            undo.pools.before(),
            undo.users.before(),
            undo.jobs.before(),
            undo.pending.before(),
            undo.running.before(),
        ];
        if before != self.shape {
            return None;
        }
        let fixed = undo.policy.is_none()
            && undo.network.is_none()
            && racks_measured_in_place(req, undo)
            && undo.users.untouched(req.users.len());
        if !fixed {
            return None;
        }
        // Nodes and pools edited in place under their ids (a node in its rack, with the same
        // resource names): their own fields are checked with the changed tasks.
        let nodes = replaced_in_place(&undo.nodes, &req.cluster.nodes, |new, old| {
            new.id == old.id && new.rack == old.rack && resource_names_equal(new, old)
        })?;
        let pools = replaced_in_place(&undo.pools, &req.pools, |new, old| new.id == old.id)?;
        let jobs_changed = !undo.jobs.untouched(req.jobs.len());
        if jobs_changed {
            self.job_at =
                req.jobs.iter().enumerate().map(|(i, j)| (hash(j.id.as_str()), i as u32)).collect();
            if self.job_at.len() != req.jobs.len() {
                return None;
            }
        }
        self.count_tasks(req, undo, &nodes)?;
        // A removed job that tasks still name.
        for (_, job) in &undo.jobs.removed {
            let refs = self.job_refs.get(&hash(job.id.as_str())).copied().unwrap_or(0);
            if refs > 0 && self.job(req, job.id.as_str()).is_none() {
                return None;
            }
        }
        self.check_changed(req, undo, &nodes, &pools)?;
        self.edit_resolved(req, undo, jobs_changed)
    }

    /// Moves the task-id, job-reference and slot counts by the tasks the delta took out and put
    /// in; `None` when a task id may now be used twice or a node holds more running tasks than
    /// slots.
    fn count_tasks(&mut self, req: &PlaceRequest, undo: &Undo, nodes: &[u32]) -> Option<()> {
        let mut touched: Vec<u32> = nodes.to_vec();
        let out_pending = undo.pending.removed.iter().chain(&undo.pending.replaced);
        for (_, t) in out_pending {
            forget(&mut self.task_ids, t.id.as_str());
            forget(&mut self.job_refs, t.job.as_str());
        }
        for (i, t) in &undo.running.removed {
            forget(&mut self.task_ids, t.id.as_str());
            forget(&mut self.job_refs, t.job.as_str());
            let n = *self.resolved.running_node.get(*i)? as usize;
            let k = usize::from(t.kind == TaskKind::Reduce);
            self.used[n][k] = self.used[n][k].checked_sub(1)?;
        }
        for (_, t) in &undo.running.replaced {
            forget(&mut self.task_ids, t.id.as_str());
            forget(&mut self.job_refs, t.job.as_str());
            let n = self.node(req, t.node.as_str())? as usize;
            let k = usize::from(t.kind == TaskKind::Reduce);
            self.used[n][k] = self.used[n][k].checked_sub(1)?;
        }
        let pending_in = in_list(&undo.pending, &req.pending);
        for t in pending_in {
            count(&mut self.job_refs, t.job.as_str());
            if count(&mut self.task_ids, t.id.as_str()) > 1 {
                return None;
            }
        }
        for t in in_list(&undo.running, &req.running) {
            count(&mut self.job_refs, t.job.as_str());
            if count(&mut self.task_ids, t.id.as_str()) > 1 {
                return None;
            }
            let n = self.node(req, t.node.as_str())?;
            let k = usize::from(t.kind == TaskKind::Reduce);
            self.used[n as usize][k] += 1;
            touched.push(n);
        }
        for n in touched {
            let node = &req.cluster.nodes[n as usize];
            for (k, kind) in [TaskKind::Map, TaskKind::Reduce].into_iter().enumerate() {
                let slots = node.slots(kind);
                if self.used[n as usize][k] > slots && !(slots == 0 && node.has_capacities()) {
                    return None;
                }
            }
        }
        Some(())
    }

    /// Validates the jobs and tasks the delta put in, with [`validate_resolved`], inside a
    /// snapshot of them and what they reference: their jobs and pools, the users and policy
    /// (a job's user is checked against them), their nodes (in one stand-in rack), and a node
    /// holding every resource name (what demands are checked against).
    fn check_changed(
        &self,
        req: &PlaceRequest,
        undo: &Undo,
        nodes: &[u32],
        pools: &[u32],
    ) -> Option<()> {
        // A gang's `min_member` is checked against its job's tasks in the whole snapshot, which
        // the small snapshot below lacks: with a gang anywhere, the snapshot is validated in
        // full.
        if req.jobs.iter().any(|j| j.gang.is_some()) {
            return None;
        }
        let jobs: Vec<&Job> = in_list(&undo.jobs, &req.jobs).collect();
        let pending: Vec<&PendingTask> = in_list(&undo.pending, &req.pending).collect();
        let running: Vec<&RunningTask> = in_list(&undo.running, &req.running).collect();
        if jobs.is_empty()
            && pending.is_empty()
            && running.is_empty()
            && nodes.is_empty()
            && pools.is_empty()
        {
            return non_negative_now(req);
        }
        let mut job_ix: BTreeSet<u32> = BTreeSet::new();
        let mut node_ix: BTreeSet<u32> = nodes.iter().copied().collect();
        for j in &jobs {
            job_ix.insert(self.job(req, j.id.as_str())?);
        }
        // A reduce's shuffle sources are checked by resolving them (`edit_resolved`): the small
        // snapshot holds reduces without them, which is all `validate_resolved` checks of them
        // but that their nodes exist. A map with sources is invalid whatever they name.
        for t in &pending {
            job_ix.insert(self.job(req, t.job.as_str())?);
            for r in t.replicas.iter() {
                node_ix.insert(self.node(req, r)?);
            }
            if t.kind == TaskKind::Map && !t.shuffle.is_empty() {
                return None;
            }
        }
        for t in &running {
            job_ix.insert(self.job(req, t.job.as_str())?);
            node_ix.insert(self.node(req, t.node.as_str())?);
        }
        let mini_jobs: Vec<Job> = job_ix.iter().map(|&j| req.jobs[j as usize].clone()).collect();
        let mut pool_ids: BTreeSet<&str> = mini_jobs.iter().map(|j| j.pool.as_str()).collect();
        pool_ids.extend(pools.iter().map(|&p| req.pools[p as usize].id.as_str()));
        let pools: Vec<Pool> =
            req.pools.iter().filter(|p| pool_ids.contains(p.id.as_str())).cloned().collect();
        let stand_in = Rack::new("\u{1}rack");
        let mut nodes: Vec<Node> = node_ix
            .iter()
            .map(|&n| Node { rack: stand_in.id.clone(), ..req.cluster.nodes[n as usize].clone() })
            .collect();
        if !self.resources.is_empty() {
            let amounts = self.resources.iter().map(|name| (name.clone(), 0.0)).collect();
            let resources = crate::Resources { amounts, ..Default::default() };
            nodes.push(Node {
                id: "\u{1}resources".into(),
                rack: stand_in.id.clone(),
                resources: Some(resources),
                ..Node::default()
            });
        }
        let mini = PlaceRequest {
            schema_version: req.schema_version,
            now_s: req.now_s,
            cluster: Cluster { racks: vec![stand_in], nodes, network: Default::default() },
            pools,
            jobs: mini_jobs,
            pending: pending
                .into_iter()
                .map(|t| PendingTask {
                    id: t.id.clone(),
                    job: t.job.clone(),
                    kind: t.kind,
                    input_bytes: t.input_bytes,
                    output_bytes: t.output_bytes,
                    replicas: t.replicas.clone(),
                    shuffle: Vec::new(),
                    pending_since_s: t.pending_since_s,
                    demand: t.demand.clone(),
                })
                .collect(),
            running: running.into_iter().cloned().collect(),
            users: req.users.clone(),
            policy: req.policy.clone(),
        };
        validate_resolved(&mini).ok().map(drop)
    }

    /// The resolved references of `req`: those of the last snapshot edited as its lists were
    /// (removed entries dropped, replaced and appended ones resolved), job positions shifted
    /// past removed jobs.
    fn edit_resolved(
        &mut self,
        req: &PlaceRequest,
        undo: &Undo,
        jobs_changed: bool,
    ) -> Option<Resolved> {
        let old = std::mem::take(&mut self.resolved);
        // Old job position → new, past the removed ones.
        let removed_jobs: Vec<usize> = undo.jobs.removed.iter().map(|&(i, _)| i).collect();
        let shift = |j: u32| -> Option<u32> {
            if removed_jobs.is_empty() {
                return Some(j);
            }
            let before = removed_jobs.partition_point(|&r| r < j as usize);
            (removed_jobs.get(before) != Some(&(j as usize))).then(|| j - before as u32)
        };
        let job_pool = if jobs_changed {
            let pools: HashMap<&str, u32> =
                req.pools.iter().enumerate().map(|(i, p)| (p.id.as_str(), i as u32)).collect();
            req.jobs.iter().map(|j| pools.get(j.pool.as_str()).copied()).collect::<Option<_>>()?
        } else {
            old.job_pool
        };
        let mut out = Resolved { node_rack: old.node_rack, job_pool, ..Resolved::default() };

        // Pending: kept entries copied (their job shifted), changed ones resolved.
        let mut last: Option<(usize, usize)> = None;
        let replaced: HashSet<usize> = undo.pending.replaced.iter().map(|&(j, _)| j).collect();
        let mut removed = undo.pending.removed.iter().map(|&(i, _)| i).peekable();
        let old_len = self.replica_start.len() - 1;
        let (mut replica_start, mut shuffle_start) = (vec![0u32], vec![0u32]);
        let mut at = 0usize; // position in the list after removals
        for i in 0..old_len {
            if removed.peek() == Some(&i) {
                removed.next();
                continue;
            }
            if replaced.contains(&at) {
                self.resolve_pending(req, at, &mut out, &mut last)?;
            } else {
                out.pending_job.push(shift(*old.pending_job.get(i)?)?);
                let (r0, r1) = (self.replica_start[i] as usize, self.replica_start[i + 1] as usize);
                out.replica_nodes.extend_from_slice(old.replica_nodes.get(r0..r1)?);
                let (s0, s1) = (self.shuffle_start[i] as usize, self.shuffle_start[i + 1] as usize);
                out.shuffle_nodes.extend_from_slice(old.shuffle_nodes.get(s0..s1)?);
            }
            replica_start.push(out.replica_nodes.len() as u32);
            shuffle_start.push(out.shuffle_nodes.len() as u32);
            at += 1;
        }
        for t in at..req.pending.len() {
            self.resolve_pending(req, t, &mut out, &mut last)?;
            replica_start.push(out.replica_nodes.len() as u32);
            shuffle_start.push(out.shuffle_nodes.len() as u32);
        }

        // Running: the same.
        let replaced: HashSet<usize> = undo.running.replaced.iter().map(|&(j, _)| j).collect();
        let mut removed = undo.running.removed.iter().map(|&(i, _)| i).peekable();
        let mut at = 0usize;
        for i in 0..old.running_job.len() {
            if removed.peek() == Some(&i) {
                removed.next();
                continue;
            }
            if replaced.contains(&at) {
                let t = &req.running[at];
                out.running_job.push(self.job(req, t.job.as_str())?);
                out.running_node.push(self.node(req, t.node.as_str())?);
            } else {
                out.running_job.push(shift(old.running_job[i])?);
                out.running_node.push(*old.running_node.get(i)?);
            }
            at += 1;
        }
        for t in &req.running[at..] {
            out.running_job.push(self.job(req, t.job.as_str())?);
            out.running_node.push(self.node(req, t.node.as_str())?);
        }
        if out.pending_job.len() != req.pending.len() || out.running_job.len() != req.running.len()
        {
            return None;
        }
        self.replica_start = replica_start;
        self.shuffle_start = shuffle_start;
        self.shape = shape(req);
        self.resolved = out.clone();
        Some(out)
    }

    /// Resolves pending task `t` of `req` into `out`. `last` is the last task resolved this way
    /// with shuffle sources and where they start in `out.shuffle_nodes`: the reduces of one
    /// job list the same sources in the same order, so a source named as its k-th is resolved
    /// already (one string comparison, no lookup).
    fn resolve_pending(
        &self,
        req: &PlaceRequest,
        t: usize,
        out: &mut Resolved,
        last: &mut Option<(usize, usize)>,
    ) -> Option<()> {
        let task = req.pending.get(t)?;
        out.pending_job.push(self.job(req, task.job.as_str())?);
        for r in task.replicas.iter() {
            out.replica_nodes.push(self.node(req, r)?);
        }
        let (previous, resolved) = match *last {
            Some((p, at)) => (req.pending.get(p)?.shuffle.as_slice(), at),
            None => (&[][..], 0),
        };
        let at = out.shuffle_nodes.len();
        for (k, s) in task.shuffle.iter().enumerate() {
            let node = s.node.as_str();
            let same = previous.get(k).is_some_and(|p| p.node.as_str() == node);
            match same.then(|| out.shuffle_nodes.get(resolved + k).copied()).flatten() {
                Some(n) => out.shuffle_nodes.push(n),
                None => out.shuffle_nodes.push(self.node(req, node)?),
            }
        }
        if !task.shuffle.is_empty() {
            *last = Some((t, at));
        }
        Some(())
    }
}

/// Whether the delta left the racks as they were but for readings a master measures each epoch:
/// every rack still at its position under its id, those replaced with a valid
/// `uplink_mbps` (> 0) and `cross_rack_traffic_mbps` (≥ 0). A rack's other references (nodes'
/// racks, rack pairs) name ids, which did not change.
fn racks_measured_in_place(req: &PlaceRequest, undo: &Undo) -> bool {
    replaced_in_place(&undo.racks, &req.cluster.racks, |r, old| {
        r.id == old.id
            && r.uplink_mbps.is_none_or(|v| v.is_finite() && v > 0.0)
            && r.cross_rack_traffic_mbps.is_none_or(|v| v.is_finite() && v >= 0.0)
    })
    .is_some()
}

/// The positions of `list`'s elements the delta replaced, when it only replaced elements in
/// place (nothing removed or appended) and each replacement is `same` as what it replaced;
/// `None` otherwise.
fn replaced_in_place<T>(
    undo: &ListUndo<T>,
    list: &[T],
    same: impl Fn(&T, &T) -> bool,
) -> Option<Vec<u32>> {
    if !undo.removed.is_empty() || undo.kept != list.len() {
        return None;
    }
    let mut at: Vec<u32> = Vec::with_capacity(undo.replaced.len());
    for (j, old) in &undo.replaced {
        if !same(list.get(*j)?, old) {
            return None;
        }
        at.push(*j as u32);
    }
    at.sort_unstable();
    at.dedup();
    Some(at)
}

/// Whether two nodes name the same resources (what demands are checked against).
fn resource_names_equal(a: &Node, b: &Node) -> bool {
    fn names(n: &Node) -> impl Iterator<Item = &String> {
        n.resources.iter().flat_map(|r| r.amounts.keys())
    }
    names(a).eq(names(b))
}

/// `now_s` ≥ 0, the one top-level number a fast-path delta may change.
fn non_negative_now(req: &PlaceRequest) -> Option<()> {
    (req.now_s >= 0.0 && req.now_s.is_finite()).then_some(())
}

/// Adds one to `id`'s count; returns the new count.
fn count(counts: &mut HashMap<u64, u32>, id: &str) -> u32 {
    let c = counts.entry(hash(id)).or_insert(0);
    *c += 1;
    *c
}

/// Takes one from `id`'s count (dropping it at 0).
fn forget(counts: &mut HashMap<u64, u32>, id: &str) {
    let h = hash(id);
    if let Some(c) = counts.get_mut(&h) {
        *c -= 1;
        if *c == 0 {
            counts.remove(&h);
        }
    }
}

/// The elements a delta put into `list` (recorded in `undo`): those replaced in place and those
/// appended.
fn in_list<'a, T>(undo: &'a ListUndo<T>, list: &'a [T]) -> impl Iterator<Item = &'a T> + 'a {
    let replaced = undo.replaced.iter().filter_map(move |&(j, _)| list.get(j));
    replaced.chain(list.get(undo.kept..).unwrap_or(&[]))
}

impl<T> ListUndo<T> {
    /// The list's length before the edit.
    pub(crate) fn before(&self) -> usize {
        self.kept + self.removed.len()
    }

    /// Whether the edit left a list (now `len` long) as it was: nothing removed, replaced or
    /// appended.
    pub(crate) fn untouched(&self, len: usize) -> bool {
        self.removed.is_empty() && self.replaced.is_empty() && self.kept == len
    }
}
