//! `drf`: Dominant Resource Fairness (Ghodsi et al., "Dominant Resource Fairness: Fair
//! Allocation of Multiple Resource Types", NSDI 2011) as the YARN FairScheduler's
//! `DominantResourceFairnessPolicy` orders its queues and applications: the next task goes to
//! the pool, and inside it to the job, with the lowest dominant share ÷ weight, packed into
//! the nodes' multi-resource room (`crate::room`).
//!
//! Definitions (amounts in the nodes' own units, per resource):
//! - Resources and totals are the room's ([`Room::of`]): the cluster's total of resource r is
//!   T_r = Σ over nodes of its capacity; a node that lists no `resources` has none of any
//!   (a task with a non-zero demand never fits there), and slot caps are the room's.
//! - A schedulable's usage (a pool's, and inside a pool each job's): U_r = Σ demands of its
//!   running tasks (of every job, runnable or not) plus those placed so far in this answer.
//! - Its dominant share: s = max over resources with T_r > 0 of U_r / T_r (resources with
//!   T_r = 0 are ignored; s = 0 without resources).
//!
//! Order (YARN's comparator: needy first; then dominant share ÷ weight; then start time; then
//! name), recomputed for the pool and the job that just placed a task:
//! - **Pools**: needy pools first, the least min-share ratio first; the others by s ÷
//!   `weight` (weight 0: +∞, served last); ties by the earliest `submit_s` among the pool's
//!   jobs that have tasks to place at the start of the epoch, then by pool id. *Needy* is
//!   placer's reading of YARN's `minResources` (a resource vector) for min shares counted in
//!   tasks of one kind: with n_k = the pool's running + placed tasks of kind k and m_k =
//!   min(its `min_map_share` or `min_reduce_share`, its running + placeable pending tasks of
//!   kind k), a pool is needy when n_k < m_k for some kind, and its min-share ratio is the
//!   least n_k / max(m_k, 1) over those kinds (the Fair Scheduler's ratio,
//!   [`crate::fair::fair_order`]).
//! - **Jobs** inside a `fair` pool: s ÷ 2^priority level (the priority weight of
//!   [`crate::fair::fair_shares`]), then `submit_s`, then job id; inside a `fifo` pool: priority,
//!   then `submit_s`, then job id. Jobs have no min share.
//!
//! Placement loop (progressive filling, DRF §4 / Algorithm 1):
//! - A job's tasks are tried in a fixed order: its maps, then its reduces, each kind in
//!   `pending` order, only those of runnable jobs ([`Indexed::eligible_of_kind`]).
//! - Repeatedly, the lowest pool's lowest job places its next task on the best node that
//!   fits it — room for its demand and a slot of its kind ([`Room::fits`]); for a map,
//!   intermediate space for its output ([`crate::fair::disk::Space`]); for a reduce, CPAC's
//!   copy-phase limit ([`crate::fair::cpac`]). Best = node-local (a replica on the node), then
//!   rack-local (a replica in the node's rack), then any node, ties to the lowest node index;
//!   a reduce or a map without replicas takes the lowest-index node that fits. The task's
//!   demand is added to its job's and its pool's usage ([`Room::take`]).
//! - A job whose next task fits no node now is skipped for the rest of the epoch (room only
//!   shrinks within an epoch; YARN's head-of-line request): its tasks wait with
//!   `slots_taken`, or `no_free_slots` when no node had a slot of the kind at all.
//! - A task whose demand exceeds every node even empty ([`Room::fits_empty`] false for all
//!   nodes) is never a job's next task and does not hold its job back: it waits with
//!   `no_node_fits`.
//! - Tasks without a demand (no `demand`, no profile) take a slot only; on nodes without a
//!   slot cap they all fit.
//!
//! Gangs and topology domains (`jobs[].gang`, `jobs[].topology`): [`crate::gang::rounds`]
//! runs this loop in rounds, each with some gangs left out and each topology job kept to the
//! nodes of one domain chosen by best fit on the room ([`crate::gang::best_fit`]); a gang the
//! loop started below `min_member` is left out of the next round (`gang_incomplete`). Within a
//! round the order above is untouched.
//!
//! What it reports: `stats.status` is `heuristic`; the pools' and jobs' `fair_share` stay the
//! pipeline's slot water-filling (DRF adds nothing to the wire but `no_node_fits`); no
//! preemption. Differences from YARN: one batch per epoch rather than one container per node
//! heartbeat, and shares are compared by their dominant component only (YARN breaks ties on
//! the next-largest share).
//!
//! Example (DRF §4): one node with ⟨9 CPU, 18 GB⟩; user A's tasks demand ⟨1 CPU, 4 GB⟩, B's
//! ⟨3 CPU, 1 GB⟩. A (tie at 0, by name) takes a task (s_A = 4/18), then B (s_B = 3/9), A
//! (8/18), B (6/9), A (12/18); at 2/3 each, A's next task needs a 10th CPU and B's too:
//! A runs 3 tasks, B 2, both with dominant share 2/3, as in the paper.
//!
//! # Complexity
//! With P pools, J jobs, N nodes, R resources and `placed` tasks placed: O((P + J + placed)
//! · (log P + log J)) heap operations, O((J + placed) · N · R) for the node searches (each
//! attempt scans the nodes at most three times), O(pending · C · R) for `no_node_fits` with C
//! the distinct capacity vectors, plus O(size of the snapshot) to set up.

use super::{Epoch, Placement, Policy};
use crate::error::SolveError;
use crate::fair::cpac::Copies;
use crate::fair::disk::Space;
use crate::fair::fair_shares::priority_weight;
use crate::gang::Scope;
use crate::index::Indexed;
use crate::room::Room;
use placer_models::{PoolMode, Status, TaskKind, WaitReason};
use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeSet, BinaryHeap};

/// Dominant Resource Fairness.
#[derive(Clone, Copy, Debug, Default)]
pub struct Drf;

impl Policy for Drf {
    fn name(&self) -> &'static str {
        "drf"
    }

    fn multi_resource(&self) -> bool {
        true
    }

    /// Gangs and topology domains through [`crate::gang::rounds`]: each round is DRF's loop
    /// with the left-out jobs' tasks taken out and a domain's job kept to its nodes.
    fn gangs(&self) -> bool {
        true
    }

    fn place(&self, epoch: &Epoch<'_, '_>) -> Result<Placement, SolveError> {
        crate::gang::rounds::place(epoch.ix, |scope| Ok(place_scoped(epoch.ix, scope)))
    }
}

/// Where a pool or a job stands in DRF's order; the smaller is served first.
#[derive(Clone, Copy, Debug)]
struct Key {
    /// Below its min share (pools only).
    needy: bool,
    /// The min-share ratio when needy, else the dominant share ÷ weight (for jobs of a `fifo`
    /// pool, minus the priority weight).
    share: f64,
    /// Earliest submit time.
    submit: f64,
    /// Rank of the id in string order (ids are unique).
    rank: u32,
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .needy
            .cmp(&self.needy)
            .then(self.share.total_cmp(&other.share))
            .then(self.submit.total_cmp(&other.submit))
            .then(self.rank.cmp(&other.rank))
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Key {}

/// A min-heap of schedulables (pools or jobs) by [`Key`].
type Queue = BinaryHeap<Reverse<(Key, u32)>>;

/// Usage per (schedulable, resource), row-major, in the nodes' units.
struct Usage {
    amounts: Vec<f64>,
    r: usize,
}

impl Usage {
    fn new(count: usize, r: usize) -> Self {
        Self { amounts: vec![0.0; count * r], r }
    }

    fn add(&mut self, i: usize, d: &[f64]) {
        for (u, &x) in self.amounts[i * self.r..(i + 1) * self.r].iter_mut().zip(d) {
            *u += x;
        }
    }

    /// max over resources with a positive total of usage / total; 0 without any.
    fn dominant(&self, i: usize, totals: &[f64]) -> f64 {
        self.amounts[i * self.r..(i + 1) * self.r]
            .iter()
            .zip(totals)
            .filter(|&(_, &t)| t > 0.0)
            .map(|(&u, &t)| u / t)
            .fold(0.0, f64::max)
    }
}

/// s ÷ w, +∞ for a zero weight.
fn per_weight(share: f64, weight: f64) -> f64 {
    if weight > 0.0 {
        share / weight
    } else {
        f64::INFINITY
    }
}

/// Each id's rank in string order.
fn ranks<'s>(ids: impl Iterator<Item = &'s str>) -> Vec<u32> {
    let ids: Vec<&str> = ids.collect();
    let mut order: Vec<usize> = (0..ids.len()).collect();
    order.sort_by(|&a, &b| ids[a].cmp(ids[b]));
    let mut rank = vec![0; ids.len()];
    for (r, i) in order.into_iter().enumerate() {
        rank[i] = r as u32;
    }
    rank
}

/// Places one epoch by DRF: the order, the loop and the wait reasons of the module docs.
///
/// # Complexity
/// O((P + J + placed) · (log P + log J) + (J + placed) · N · R + pending · C · R) plus the
/// snapshot's size (symbols as in the module docs).
///
/// # Errors
/// None: a task not placed is data (`task_reason`).
pub fn place(ix: &Indexed<'_>) -> Placement {
    place_scoped(ix, &Scope::open(ix.req.jobs.len()))
}

/// [`place`] within a gang round's `scope` ([`crate::gang::rounds`]): a job left out has no
/// task to try (its tasks wait, their reason the rounds' own), and a job kept to a domain
/// fits only the domain's nodes. DRF's order is unchanged: the scope only removes choices.
///
/// # Complexity
/// As [`place`].
///
/// # Errors
/// None, as [`place`].
pub fn place_scoped(ix: &Indexed<'_>, scope: &Scope) -> Placement {
    let req = ix.req;
    let mut room = Room::of(ix);
    let totals = room.totals();
    let r = room.resources();
    let (nodes, jobs, pools) = (room.nodes(), req.jobs.len(), req.pools.len());

    // Tasks no node could hold even empty: they wait with `no_node_fits` (checked on one node
    // per distinct capacity vector).
    let mut seen = BTreeSet::new();
    let shapes: Vec<usize> = (0..nodes)
        .filter(|&n| {
            seen.insert(
                room.capacity[n * r..(n + 1) * r].iter().map(|c| c.to_bits()).collect::<Vec<_>>(),
            )
        })
        .collect();
    let never_fits: Vec<bool> = (0..req.pending.len())
        .map(|t| nodes > 0 && !shapes.iter().any(|&n| room.fits_empty(n, room.demand_of(t))))
        .collect();
    let no_slots: [bool; 2] = [0, 1].map(|k| room.slots_left.iter().all(|s| s[k] == 0));

    // Each job's tasks to try, maps then reduces, in pending order.
    let mut tasks_of: Vec<Vec<usize>> = vec![Vec::new(); jobs];
    for kind in TaskKind::ALL {
        for &t in &ix.eligible_of_kind[kind.slot()] {
            let j = ix.pending_job[t] as usize;
            if !never_fits[t] && scope.takes(j) {
                tasks_of[j].push(t);
            }
        }
    }

    // Usage, tasks per kind and demand per kind.
    let mut job_use = Usage::new(jobs, r);
    let mut pool_use = Usage::new(pools, r);
    for i in 0..req.running.len() {
        let j = ix.running_job[i] as usize;
        job_use.add(j, room.running_demand_of(i));
        pool_use.add(ix.job_pool[j] as usize, room.running_demand_of(i));
    }
    let mut pool_tasks = vec![[0u32; 2]; pools];
    let mut pool_demand = vec![[0u32; 2]; pools];
    for (j, tasks) in tasks_of.iter().enumerate() {
        let p = ix.job_pool[j] as usize;
        for k in 0..2 {
            pool_tasks[p][k] += ix.job_running[k][j];
            pool_demand[p][k] += ix.job_running[k][j];
        }
        for &t in tasks {
            pool_demand[p][req.pending[t].kind.slot()] += 1;
        }
    }
    let mut pool_submit = vec![f64::INFINITY; pools];
    for j in (0..jobs).filter(|&j| !tasks_of[j].is_empty()) {
        let p = ix.job_pool[j] as usize;
        pool_submit[p] = pool_submit[p].min(req.jobs[j].submit_s);
    }
    let pool_rank = ranks(req.pools.iter().map(|p| p.id.as_str()));
    let job_rank = ranks(req.jobs.iter().map(|j| j.id.as_str()));

    let pool_key = |p: usize, pool_use: &Usage, pool_tasks: &[[u32; 2]]| {
        let pool = &req.pools[p];
        let mut needy = false;
        let mut ratio = f64::INFINITY;
        for (k, min_share) in [pool.min_map_share, pool.min_reduce_share].into_iter().enumerate() {
            let m = min_share.min(f64::from(pool_demand[p][k]));
            let n = f64::from(pool_tasks[p][k]);
            if n < m {
                needy = true;
                ratio = ratio.min(n / m.max(1.0));
            }
        }
        let share =
            if needy { ratio } else { per_weight(pool_use.dominant(p, &totals), pool.weight) };
        Key { needy, share, submit: pool_submit[p], rank: pool_rank[p] }
    };
    let job_key = |j: usize, job_use: &Usage| {
        let job = &req.jobs[j];
        let weight = priority_weight(job.priority);
        let share = match req.pools[ix.job_pool[j] as usize].mode {
            PoolMode::Fair => per_weight(job_use.dominant(j, &totals), weight),
            PoolMode::Fifo => -weight,
        };
        Key { needy: false, share, submit: job.submit_s, rank: job_rank[j] }
    };

    let mut in_pool: Vec<Queue> = vec![Queue::new(); pools];
    for j in (0..jobs).filter(|&j| !tasks_of[j].is_empty()) {
        in_pool[ix.job_pool[j] as usize].push(Reverse((job_key(j, &job_use), j as u32)));
    }
    let mut queue: Queue = (0..pools)
        .filter(|&p| !in_pool[p].is_empty())
        .map(|p| Reverse((pool_key(p, &pool_use, &pool_tasks), p as u32)))
        .collect();

    let mut rack_nodes: Vec<Vec<u32>> = vec![Vec::new(); ix.racks()];
    for n in 0..nodes {
        if let Some(list) = rack_nodes.get_mut(ix.node_rack[n] as usize) {
            list.push(n as u32);
        }
    }
    let mut space = Space::new(ix);
    let mut copies = Copies::default();
    let mut next = vec![0usize; jobs];
    let mut node_of_task: Vec<Option<u32>> = vec![None; req.pending.len()];
    let mut d = vec![0.0; r];

    while let Some(Reverse((_, p))) = queue.pop() {
        let p = p as usize;
        while let Some(Reverse((_, j))) = in_pool[p].pop() {
            let Some(&t) = tasks_of[j as usize].get(next[j as usize]) else { continue };
            let kind = req.pending[t].kind;
            d.copy_from_slice(room.demand_of(t));
            let fits = |n: u32| {
                scope.allows(j as usize, n)
                    && room.fits(n as usize, kind, &d)
                    && match kind {
                        TaskKind::Map => space.fits(ix, t, n),
                        TaskKind::Reduce => copies.room(ix, j, n) > 0,
                    }
            };
            let Some(n) = best_node(ix, &rack_nodes, t, nodes, fits) else {
                // Skipped for the rest of the epoch: room only shrinks.
                continue;
            };
            room.take(n as usize, kind, &d);
            match kind {
                TaskKind::Map => space.take(ix, t, n),
                TaskKind::Reduce => copies.launch(j, n),
            }
            node_of_task[t] = Some(n);
            let ju = j as usize;
            next[ju] += 1;
            job_use.add(ju, &d);
            pool_use.add(p, &d);
            pool_tasks[p][kind.slot()] += 1;
            if next[ju] < tasks_of[ju].len() {
                in_pool[p].push(Reverse((job_key(ju, &job_use), j)));
            }
            break;
        }
        if !in_pool[p].is_empty() {
            queue.push(Reverse((pool_key(p, &pool_use, &pool_tasks), p as u32)));
        }
    }

    let mut task_reason = vec![None; req.pending.len()];
    for kind in TaskKind::ALL {
        for &t in &ix.eligible_of_kind[kind.slot()] {
            if node_of_task[t].is_none() {
                task_reason[t] = Some(if never_fits[t] {
                    WaitReason::NoNodeFits
                } else if no_slots[kind.slot()] {
                    WaitReason::NoFreeSlots
                } else {
                    WaitReason::SlotsTaken
                });
            }
        }
    }
    let mut placement = Placement::new(node_of_task, Status::Heuristic);
    placement.task_reason = task_reason;
    placement
}

/// The best node for pending task `t` among those that `fit`: the lowest-index replica node,
/// else the lowest-index node in a replica's rack, else the lowest-index node. O(nodes)
/// calls of `fits` at most three times over.
fn best_node(
    ix: &Indexed<'_>,
    rack_nodes: &[Vec<u32>],
    t: usize,
    nodes: usize,
    fits: impl Fn(u32) -> bool,
) -> Option<u32> {
    let replicas = &ix.replicas[t];
    if let Some(n) = replicas.iter().copied().filter(|&n| fits(n)).min() {
        return Some(n);
    }
    let mut racks: Vec<u32> = replicas.iter().map(|&n| ix.node_rack[n as usize]).collect();
    racks.sort_unstable();
    racks.dedup();
    let rack_local = racks
        .iter()
        .filter_map(|&rack| rack_nodes.get(rack as usize)?.iter().copied().find(|&n| fits(n)))
        .min();
    rack_local.or_else(|| (0..nodes as u32).find(|&n| fits(n)))
}
