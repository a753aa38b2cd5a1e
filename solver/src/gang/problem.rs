//! One epoch of `lsap_quota` with gangs and topology domains as a single problem over both
//! slot kinds (lsap-sched's locality cost, Guo, Fox, Zhou §3.2, under `lsap_quota`'s pool
//! quotas; gangs as in KEP-4671's PodGroup `minCount`; domains as Kueue's topology-aware
//! scheduling): what the exact MIP ([`crate::mip::quota_mip`]) and the heuristic
//! ([`super::heuristic`]) both solve, and the one scorer ([`GangProblem::score`]) that checks
//! an answer and prices it, so that the two (and a brute force) are compared on one objective.
//!
//! # The problem
//!
//! A placement maps each eligible pending task t (of kind k) to a node n with a free slot of
//! k, or to none. It is **valid** when: no node takes more tasks of a kind than its free slots;
//! per kind, each pool's count c_p fits its quota (c_p ≤ must_p + flex_p, and the flex units
//! Σ_{p in group g} max(0, c_p − must_p) ≤ groups\[g\]: [`crate::exact::Quotas`]); a gang job j
//! that places any task has placed_j + running_j ≥ `min_member` (both kinds); a job whose
//! topology is `required` places all its tasks in one allowed domain of its level. A job's
//! allowed domains are those holding all of its running tasks (all domains of the level when
//! none runs).
//!
//! Its **score** is (placed, cost), better with more placed, then less cost, where cost (in
//! integer units: the [`crate::exact::Quantum`] of the largest locality cost, times
//! 2 · tasks + 1, as `lsap_quota`'s flow scales them) = Σ over placed tasks of the locality
//! cost c(t, n) plus one unit when the placement is more remote than the task's delay level,
//! plus one unit per job unit beyond its share (per kind), plus, for each `preferred` job,
//! penalty_j × its placed tasks outside the allowed domain that holds most of them (all of them
//! when it has no allowed domain).

use crate::cost::LocalityCost;
use crate::error::SolveError;
use crate::exact::{Quantum, Quotas};
use crate::fair::fair_shares::FairShares;
use crate::flow::structured::TaskArcs;
use crate::index::Indexed;
use placer_models::{TaskKind, TopologyLevel, TopologyMode, WaitReason};

/// The topology domains of one level: the domain of each node and the nodes of each domain.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Domains {
    /// Per node: its domain, `None` when it has none (a node without a block).
    pub of_node: Vec<Option<u32>>,
    /// Per domain: its nodes, in node order.
    pub nodes: Vec<Vec<u32>>,
}

impl Domains {
    /// The domains of `level`: every node its own (`node`), the racks (`rack`), the distinct
    /// `block` ids in order of first appearance (`block`).
    ///
    /// # Complexity
    /// O(nodes) time and memory (O(nodes · log blocks) for blocks).
    ///
    /// # Errors
    /// None.
    ///
    /// # Examples
    /// Nodes in blocks b1, none, b0, b1: blocks are numbered in order of first appearance.
    /// ```
    /// use placer_solver::{gang::Domains, Indexed};
    /// let req = placer_models::parse_request(br#"{"schema_version": 1,
    ///   "cluster": {"racks": [{"id": "r"}], "nodes": [{"id": "a", "rack": "r", "block": "b1"},
    ///     {"id": "b", "rack": "r"}, {"id": "c", "rack": "r", "block": "b0"},
    ///     {"id": "d", "rack": "r", "block": "b1"}]}}"#).unwrap();
    /// let d = Domains::of(&Indexed::new(&req), placer_models::TopologyLevel::Block);
    /// assert_eq!(d.of_node, vec![Some(0), None, Some(1), Some(0)]);
    /// assert_eq!(d.nodes, vec![vec![0, 3], vec![2]]);
    /// ```
    pub fn of(ix: &Indexed<'_>, level: TopologyLevel) -> Self {
        let nodes = ix.node_rack.len();
        let of_node: Vec<Option<u32>> = match level {
            TopologyLevel::Node => (0..nodes as u32).map(Some).collect(),
            TopologyLevel::Rack => ix.node_rack.iter().map(|&r| Some(r)).collect(),
            TopologyLevel::Block => {
                let mut seen: std::collections::BTreeMap<&str, u32> = Default::default();
                ix.req
                    .cluster
                    .nodes
                    .iter()
                    .map(|n| {
                        n.block.as_ref().map(|b| {
                            let next = seen.len() as u32;
                            *seen.entry(b.as_str()).or_insert(next)
                        })
                    })
                    .collect()
            }
        };
        let count = match level {
            TopologyLevel::Rack => ix.racks(),
            _ => of_node.iter().flatten().map(|&d| d as usize + 1).max().unwrap_or(0),
        };
        let mut members = vec![Vec::new(); count];
        for (n, d) in of_node.iter().enumerate() {
            if let Some(d) = d {
                members[*d as usize].push(n as u32);
            }
        }
        Self { of_node, nodes: members }
    }
}

/// A job's topology rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The level (an index into [`GangProblem::domains`]: node 0, rack 1, block 2).
    pub level: usize,
    /// `required` (true) or `preferred`.
    pub required: bool,
    /// Cost units per task outside the chosen domain (`preferred`).
    pub penalty: i64,
    /// The domains that hold every running task of the job (all domains when none runs).
    pub allowed: Vec<u32>,
}

/// What binds one job.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JobRule {
    /// `min_member`, for a gang.
    pub gang: Option<u32>,
    /// Running tasks of both kinds.
    pub running: u32,
    /// The topology rule, if any.
    pub topology: Option<Rule>,
    /// Slices (Kueue TAS's `podset-slice-size`): the level (an index into
    /// [`GangProblem::domains`]) and the size; in every domain of that level the job places a
    /// multiple of the size, and none on a node outside every domain of it.
    pub slice: Option<(usize, u32)>,
}

/// One epoch's problem (module docs).
#[derive(Debug)]
pub struct GangProblem<'p> {
    /// The snapshot.
    pub ix: &'p Indexed<'p>,
    /// Per kind: the eligible pending tasks (positions), in pending order.
    pub tasks: [Vec<usize>; 2],
    /// Per kind: the pool quotas over the tasks of the jobs not [`Self::blocked`].
    pub quotas: [Quotas; 2],
    /// The fair shares the quotas came from.
    pub shares: &'p FairShares,
    /// Per job: why it cannot start this epoch whatever the others do, if so: a gang whose
    /// eligible and running tasks are fewer than `min_member` (`gang_incomplete`), a required
    /// job with no allowed domain, or a required gang that no allowed domain has the free
    /// slots for (`no_domain_fits`). Its tasks are no units of its pool's quota.
    pub blocked: Vec<Option<WaitReason>>,
    /// Per pending position: its arcs in cost units (locality and delay-level surcharge),
    /// `None` for tasks not eligible.
    pub arcs: Vec<Option<TaskArcs>>,
    /// Per job.
    pub jobs: Vec<JobRule>,
    /// Domains per level (node, rack, block), built for the levels some job names.
    pub domains: [Domains; 3],
    /// Cost units per second of locality cost (the quantum's, times 2 · tasks + 1).
    pub units_per_second: f64,
    /// The largest arc cost in units (the largest locality cost plus the largest penalty,
    /// with surcharges).
    pub top: i64,
    /// Vertices of the largest network the heuristic builds (what bounds a path's length).
    pub vertices: usize,
    /// Free slots per kind and node that this epoch may fill: the snapshot's, less those
    /// held for a starving gang ([`super::reservation`]).
    pub free: [Vec<u32>; 2],
    /// Per job: whether its tasks go first (a starving gang whose reservation has room now;
    /// the heuristic boosts it from the first flow and picks its domain before the others').
    pub first: Vec<bool>,
}

/// A placement's score: more placed is better, then less cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Score {
    /// Tasks placed.
    pub placed: u64,
    /// Cost units (module docs).
    pub cost: i64,
}

impl Score {
    /// Whether `self` is at least as good as `other`.
    pub fn at_least(self, other: Score) -> bool {
        self.placed > other.placed || (self.placed == other.placed && self.cost <= other.cost)
    }
}

/// Why a placement is not valid (module docs), for tests and debugging.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Invalid {
    /// A task that is not eligible, or a node without a free slot of its kind.
    Slot(usize),
    /// A pool over its quota (kind slot, pool).
    Quota(usize, usize),
    /// A gang started below `min_member` (job).
    Gang(usize),
    /// A required domain not kept (job).
    Domain(usize),
    /// A slice broken: a slice domain holding a part of one, or a task outside every slice
    /// domain (job).
    Slice(usize),
}

/// The level's index in [`GangProblem::domains`].
pub fn level_index(level: TopologyLevel) -> usize {
    match level {
        TopologyLevel::Node => 0,
        TopologyLevel::Rack => 1,
        TopologyLevel::Block => 2,
    }
}

impl<'p> GangProblem<'p> {
    /// The problem of `ix`: eligible tasks and quotas per kind ([`crate::policy::quotas`]),
    /// arcs priced in one quantum for both kinds, delay levels (by job: 0 node-local, 1
    /// rack-local, 2 any; maps only) as one-unit surcharges, and each job's rule.
    ///
    /// # Complexity
    /// O(Σ replicas + listed racks + jobs + nodes · log nodes + running tasks).
    ///
    /// # Errors
    /// [`SolveError::CostOverflow`] when a cost is infinite or beyond the exact range.
    ///
    /// # Examples
    /// See [`GangProblem::score`].
    pub fn new(
        ix: &'p Indexed<'p>,
        model: &LocalityCost<'_, '_>,
        shares: &'p FairShares,
        levels: Option<&[u8]>,
    ) -> Result<Self, SolveError> {
        let req = ix.req;
        let tasks = [0, 1].map(|k| ix.eligible_of_kind[k].clone());
        let count = tasks[0].len() + tasks[1].len();
        let rows: Vec<(usize, crate::cost::SparseRow)> =
            tasks.iter().flatten().map(|&t| (t, model.sparse_row(t))).collect();
        let penalties = req
            .jobs
            .iter()
            .filter_map(|j| j.topology)
            .filter(|t| t.mode == TopologyMode::Preferred)
            .map(|t| t.penalty())
            .fold(0.0, f64::max);
        let max_cost = rows.iter().map(|(_, r)| r.base).fold(0.0, f64::max) + penalties;
        let scale = 2 * count as i64 + 1;
        let vertices = 4 + ix.racks() + ix.node_rack.len() + count + req.jobs.len() * 2;
        let quantum = Quantum::for_matrix(max_cost * scale as f64, vertices, 0)?;
        let units = |s: f64| quantum.to_units(s) * scale;
        let mut arcs = vec![None; req.pending.len()];
        for (t, row) in rows {
            let j = ix.pending_job[t] as usize;
            let level = match (levels, req.pending[t].kind) {
                (Some(l), TaskKind::Map) => l.get(j).copied().unwrap_or(2),
                _ => 2,
            };
            let late = |class: u8| i64::from(class > level);
            let holds = |q: u32| ix.replicas[t].iter().any(|&r| ix.node_rack[r as usize] == q);
            arcs[t] = Some(TaskArcs {
                offset: 0,
                on_node: row.on_node.into_iter().map(|(n, c)| (n, units(c))).collect(),
                racks: row
                    .racks
                    .into_iter()
                    .map(|(q, c)| (q, units(c) + late(if holds(q) { 1 } else { 2 })))
                    .collect(),
                base: Some(units(row.base) + late(2)),
                job: j as u32,
            });
        }
        let (jobs, domains) = rules(ix, units);
        let blocked = blocked(ix, &tasks, &jobs, &domains);
        let quotas = [TaskKind::Map, TaskKind::Reduce].map(|kind| {
            let open: Vec<usize> = tasks[kind.slot()]
                .iter()
                .copied()
                .filter(|&t| blocked[ix.pending_job[t] as usize].is_none())
                .collect();
            crate::policy::lsap_quota::quotas_of(ix, shares, kind, &open)
        });
        let units_per_second = quantum.per_second * scale as f64;
        let top = units(max_cost) + 2 + req.jobs.len() as i64;
        Ok(Self {
            ix,
            tasks,
            quotas,
            shares,
            blocked,
            arcs,
            jobs,
            domains,
            units_per_second,
            top,
            vertices,
            free: ix.free.clone(),
            first: vec![false; req.jobs.len()],
        })
    }

    /// The offset that puts every other task after a boosted gang's (the heuristic's step 3):
    /// more than any path of one task costs, `None` when the doubled costs could overflow
    /// the flow's sums.
    pub fn boost(&self) -> Option<i64> {
        let boost = self.top.checked_add(1)?;
        let path = boost.checked_mul(2)?;
        path.checked_mul(i64::try_from(self.vertices).ok()?.checked_mul(4)?).map(|_| boost)
    }

    /// Whether some job has a gang or a topology rule.
    pub fn constrained(&self) -> bool {
        self.jobs.iter().any(|j| j.gang.is_some() || j.topology.is_some())
    }

    /// c(t, n) in cost units: the cheapest of t's arcs that reach n (`None`: t not eligible).
    ///
    /// # Complexity
    /// O(replicas + listed racks of t).
    pub fn cost(&self, t: usize, n: u32) -> Option<i64> {
        let a = self.arcs.get(t)?.as_ref()?;
        let rack = self.ix.node_rack[n as usize];
        let on_node = a.on_node.iter().find(|&&(m, _)| m == n).map(|&(_, c)| c);
        let on_rack = a.racks.iter().find(|&&(q, _)| q == rack).map(|&(_, c)| c);
        [on_node, on_rack, a.base].into_iter().flatten().min().map(|c| c + a.offset)
    }

    /// The domain of node `n` at `rule`'s level.
    pub fn domain(&self, rule: &Rule, n: u32) -> Option<u32> {
        self.domains[rule.level].of_node.get(n as usize).copied().flatten()
    }

    /// Checks `node_of_task` (by pending position) and scores it (module docs).
    ///
    /// # Complexity
    /// O(pending + nodes + pools + jobs · domains) plus [`Self::cost`] per placed task.
    ///
    /// # Errors
    /// The first rule broken.
    ///
    /// # Examples
    /// A gang of 2 on two one-slot nodes: one task alone starts it below `min_member`, both
    /// score 2 placed at cost 0 (no data, no delay levels; the job's share is both slots).
    /// ```
    /// use placer_solver::{Indexed, LocalityCost, fair::fair_shares, gang};
    /// let req = placer_models::parse_request(br#"{"schema_version": 1,
    ///   "cluster": {"racks": [{"id": "r"}], "nodes": [{"id": "a", "rack": "r", "map_slots": 1},
    ///                                              {"id": "b", "rack": "r", "map_slots": 1}]},
    ///   "pools": [{"id": "p"}], "jobs": [{"id": "g", "pool": "p", "gang": {"min_member": 2}}],
    ///   "pending": [{"id": "t0", "job": "g", "kind": "map"}, {"id": "t1", "job": "g", "kind": "map"}]}"#)
    ///   .unwrap();
    /// let ix = Indexed::new(&req);
    /// let model = LocalityCost::new(&ix);
    /// let shares = fair_shares::compute(&ix);
    /// let p = gang::GangProblem::new(&ix, &model, &shares, None).unwrap();
    /// assert_eq!(p.score(&[Some(0), None]), Err(gang::Invalid::Gang(0)));
    /// assert_eq!(p.score(&[Some(0), Some(1)]), Ok(gang::Score { placed: 2, cost: 0 }));
    /// ```
    pub fn score(&self, node_of_task: &[Option<u32>]) -> Result<Score, Invalid> {
        let ix = self.ix;
        let jobs = self.jobs.len();
        let mut used = vec![[0u32; 2]; ix.node_rack.len()];
        let mut placed_job = vec![[0u64; 2]; jobs];
        let mut in_domain: Vec<std::collections::BTreeMap<Option<u32>, u64>> =
            vec![Default::default(); jobs];
        let mut score = Score { placed: 0, cost: 0 };
        for (t, n) in node_of_task.iter().enumerate() {
            let Some(n) = *n else { continue };
            let k = ix.req.pending[t].kind.slot();
            let c = self.cost(t, n).ok_or(Invalid::Slot(t))?;
            let u = used.get_mut(n as usize).ok_or(Invalid::Slot(t))?;
            u[k] += 1;
            if u[k] > self.free[k][n as usize] {
                return Err(Invalid::Slot(t));
            }
            let j = ix.pending_job[t] as usize;
            placed_job[j][k] += 1;
            if let Some(rule) = &self.jobs[j].topology {
                *in_domain[j].entry(self.domain(rule, n)).or_default() += 1;
            }
            score.placed += 1;
            score.cost += c;
        }
        for (k, q) in self.quotas.iter().enumerate() {
            let mut pool = vec![0u64; q.must.len()];
            for (j, placed) in placed_job.iter().enumerate() {
                pool[q.job_pool[j] as usize] += placed[k];
                score.cost += placed[k].saturating_sub(q.job_share[j]) as i64;
            }
            let mut group = [0u64; 2];
            for (p, &c) in pool.iter().enumerate() {
                let (flex, g) = q.flex[p];
                if c > q.must[p] + flex {
                    return Err(Invalid::Quota(k, p));
                }
                group[g] += c.saturating_sub(q.must[p]);
            }
            if group[0] > q.groups[0] || group[1] > q.groups[1] {
                return Err(Invalid::Quota(k, usize::MAX));
            }
        }
        if self.jobs.iter().any(|r| r.slice.is_some()) {
            // A placement breaks a slice exactly when trimming it to whole slices takes it back.
            let mut whole = node_of_task.to_vec();
            super::enforce::trim_slices(ix, &self.jobs, &self.domains, &mut whole, None);
            let broken = (0..whole.len())
                .filter(|&t| whole[t] != node_of_task[t])
                .map(|t| ix.pending_job[t] as usize)
                .min();
            if let Some(j) = broken {
                return Err(Invalid::Slice(j));
            }
        }
        for (j, rule) in self.jobs.iter().enumerate() {
            let placed = placed_job[j][0] + placed_job[j][1];
            if placed == 0 {
                continue;
            }
            if rule.gang.is_some_and(|m| placed + u64::from(rule.running) < u64::from(m)) {
                return Err(Invalid::Gang(j));
            }
            let Some(topology) = &rule.topology else { continue };
            let best = in_domain[j]
                .iter()
                .filter(|(d, _)| d.is_some_and(|d| topology.allowed.contains(&d)))
                .map(|(_, &c)| c)
                .max()
                .unwrap_or(0);
            if topology.required {
                if best != placed {
                    return Err(Invalid::Domain(j));
                }
            } else {
                score.cost += topology.penalty * (placed - best) as i64;
            }
        }
        Ok(score)
    }
}

/// [`GangProblem::blocked`] of each job.
///
/// Complexity: O(tasks + jobs + Σ allowed domains' nodes).
fn blocked(
    ix: &Indexed<'_>,
    tasks: &[Vec<usize>; 2],
    jobs: &[JobRule],
    domains: &[Domains; 3],
) -> Vec<Option<WaitReason>> {
    let mut pending = vec![[0u64; 2]; jobs.len()];
    for (k, tasks) in tasks.iter().enumerate() {
        for &t in tasks {
            pending[ix.pending_job[t] as usize][k] += 1;
        }
    }
    jobs.iter()
        .enumerate()
        .map(|(j, rule)| {
            let running = u64::from(rule.running);
            let short = |room: u64| rule.gang.is_some_and(|m| room + running < u64::from(m));
            if short(pending[j][0] + pending[j][1]) {
                return Some(WaitReason::GangIncomplete);
            }
            let topology = rule.topology.as_ref().filter(|t| t.required)?;
            let nodes = &domains[topology.level].nodes;
            let room = |d: u32| -> u64 {
                let fit: u64 = (0..2)
                    .map(|k| {
                        let free: u64 = nodes[d as usize]
                            .iter()
                            .map(|&n| u64::from(ix.free[k][n as usize]))
                            .sum();
                        free.min(pending[j][k])
                    })
                    .sum();
                match rule.slice {
                    Some((level, size)) => {
                        fit.min(slice_room(&ix.free, &domains[level], &nodes[d as usize], size))
                    }
                    None => fit,
                }
            };
            let most = topology.allowed.iter().map(|&d| room(d)).max();
            match most {
                None => Some(WaitReason::NoDomainFits),
                Some(most) if short(most) => Some(WaitReason::NoDomainFits),
                Some(_) => None,
            }
        })
        .collect()
}

/// The free slots `free` (per kind and node) of `nodes` that whole slices of `size` can use:
/// per domain of the slice level, its free slots of both kinds rounded down to a multiple of
/// `size`; nodes in no domain of that level count none.
///
/// Complexity: O(|nodes| · log |nodes|).
pub(crate) fn slice_room(free: &[Vec<u32>; 2], slices: &Domains, nodes: &[u32], size: u32) -> u64 {
    let mut room: std::collections::BTreeMap<u32, u64> = Default::default();
    for &n in nodes {
        if let Some(Some(d)) = slices.of_node.get(n as usize) {
            let f = u64::from(free[0][n as usize]) + u64::from(free[1][n as usize]);
            *room.entry(*d).or_default() += f;
        }
    }
    let size = u64::from(size.max(1));
    room.values().map(|f| f / size * size).sum()
}

/// Each job's rule ([`JobRule`], penalties in cost units by `units(seconds)`) and the domains
/// of the levels the jobs name.
///
/// # Complexity
/// O(jobs + nodes · log nodes + running tasks).
///
/// # Errors
/// None.
///
/// # Examples
/// A rack-required job with a task running in rack r1 may use r1 only.
/// ```
/// use placer_solver::{gang::problem::rules, Indexed};
/// let req = placer_models::parse_request(br#"{"schema_version": 1,
///   "cluster": {"racks": [{"id": "r0"}, {"id": "r1"}], "nodes": [
///     {"id": "a", "rack": "r0", "map_slots": 1}, {"id": "b", "rack": "r1", "map_slots": 1}]},
///   "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p",
///     "topology": {"level": "rack", "mode": "required"}}],
///   "running": [{"id": "x", "job": "j", "kind": "map", "node": "b"}]}"#).unwrap();
/// let (jobs, _) = rules(&Indexed::new(&req), |_| 0);
/// assert_eq!(jobs[0].topology.as_ref().unwrap().allowed, vec![1]);
/// assert_eq!(jobs[0].running, 1);
/// ```
pub fn rules(ix: &Indexed<'_>, units: impl Fn(f64) -> i64) -> (Vec<JobRule>, [Domains; 3]) {
    let req = ix.req;
    let mut domains: [Domains; 3] = Default::default();
    for level in [TopologyLevel::Node, TopologyLevel::Rack, TopologyLevel::Block] {
        let names = |t: placer_models::Topology| {
            t.level == level || t.slice.is_some_and(|slice| slice.level == level)
        };
        if req.jobs.iter().any(|j| j.topology.is_some_and(names)) {
            domains[level_index(level)] = Domains::of(ix, level);
        }
    }
    // The nodes of the running tasks of the jobs with a topology rule.
    let mut running_nodes: Vec<Vec<u32>> = vec![Vec::new(); req.jobs.len()];
    if req.jobs.iter().any(|j| j.topology.is_some()) {
        let at: std::collections::BTreeMap<&str, u32> = req
            .cluster
            .nodes
            .iter()
            .enumerate()
            .map(|(n, node)| (node.id.as_str(), n as u32))
            .collect();
        for (i, &j) in ix.running_job.iter().enumerate() {
            let topology = req.jobs.get(j as usize).and_then(|job| job.topology);
            if let (Some(_), Some(&n)) = (topology, at.get(req.running[i].node.as_str())) {
                running_nodes[j as usize].push(n);
            }
        }
    }
    let jobs = req
        .jobs
        .iter()
        .enumerate()
        .map(|(j, job)| {
            let topology = job.topology.map(|t| {
                let level = level_index(t.level);
                let d = &domains[level];
                let held: Vec<Option<u32>> =
                    running_nodes[j].iter().map(|&n| d.of_node[n as usize]).collect();
                let allowed = match held.first() {
                    None => (0..d.nodes.len() as u32).collect(),
                    Some(&Some(first)) if held.iter().all(|&h| h == Some(first)) => {
                        vec![first]
                    }
                    Some(_) => Vec::new(),
                };
                Rule {
                    level,
                    required: t.mode == TopologyMode::Required,
                    penalty: units(t.penalty()),
                    allowed,
                }
            });
            JobRule {
                gang: job.gang.map(|g| g.min_member),
                running: ix.job_running[0][j] + ix.job_running[1][j],
                topology,
                slice: job.topology.and_then(|t| t.slice).map(|s| (level_index(s.level), s.size)),
            }
        })
        .collect();
    (jobs, domains)
}
