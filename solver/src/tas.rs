//! Kueue's topology-aware scheduling as a greedy per-workload baseline (Kueue KEP-2724
//! "Topology Aware Scheduling", its section "Computing the assignment" and the profiles
//! `BestFit` and `LeastFreeCapacity`; all-or-nothing admission as in Kueue's
//! `waitForPodsReady` / KEP-4671's PodGroup `minCount`): one workload at a time, in queue
//! order, each given a topology domain by the profile and never revisited. The policies
//! `kueue_best_fit` and `kueue_least_free` are this module with one profile each.
//!
//! # The algorithm
//!
//! 1. **Quotas.** Per slot kind, the pools' quotas of `lsap_quota`
//!    ([`crate::policy::lsap_quota::quotas_of`], through [`GangProblem::new`] when some job has
//!    a gang or a topology rule, so that gangs that cannot start at all hold no units): a pool
//!    takes at most its `must` units plus what its flex group has left. Kueue's ClusterQueue
//!    quota (nominal plus borrowing) plays this part; here it is `lsap_quota`'s fair share, so
//!    that the comparison is fair share against fair share.
//! 2. **Queue order.** Jobs by priority, then submit time, then snapshot order
//!    ([`crate::fair::job_limits::fifo_cmp`]): one queue, as Kueue's `BestEffortFIFO` orders a
//!    ClusterQueue (priority, then creation time), a workload that does not fit not blocking
//!    the next. Pools are not interleaved by fair share: their quotas already bound them.
//! 3. **One workload per job**: its eligible pending tasks of both kinds, at most the pool's
//!    quota left per kind (`cap`). A gang needs `need` = `min_member` − running of them;
//!    fewer than `need` under the quota: it waits (`gang_incomplete`).
//! 4. **The domain** (jobs with `topology`), at the job's level among its allowed domains
//!    (those holding all its running tasks; all when none runs). Per domain d: `room`(d) = Σ
//!    over kinds of min(free slots of the kind in d, cap); `state`(d) = its free slots of the
//!    kinds the job places (Kueue's count of the PodSet's pods that fit, uncapped).
//!    - `required`: the count is every capped task, or, when no domain has room for all, the
//!      most any domain has room for (Kueue's partial admission, down to `need`); below
//!      `need` (1 without a gang) it waits (`no_domain_fits`). The domain is, among those with
//!      room for the count, the one with the least `state` (lowest index on ties). Both
//!      profiles agree here: BestFit sorts by free capacity descending and, when the first
//!      domain fits, "optimizes the selection of the last domain" to the one with the least
//!      capacity that still fits; LeastFreeCapacity sorts ascending and takes the first that
//!      fits: the same domain (Kueue's `findLevelWithFitDomains`).
//!    - `preferred`: if some domain has room for every capped task, that domain as above.
//!      Otherwise the tasks are spread, as Kueue's preferred falls back to several domains:
//!      BestFit takes domains by `state` descending, and once one has room for the rest it
//!      takes the one with the least `state` that does (its last-domain optimisation);
//!      LeastFreeCapacity takes them by `state` ascending. A job already running in one domain
//!      fills it first, then spreads the rest. Nodes outside every domain of the level (no
//!      block) come last.
//!    - without `topology`: the whole cluster is the job's one domain.
//! 5. **Nodes.** In each chosen domain, up to its count of tasks, maps first, greedily by
//!    locality as Hadoop's default scheduler ends up (a node's slot to a task whose input it
//!    holds first): one pass in pending order places the maps that find a free slot on a node
//!    of the domain holding a replica of their input, a second those that find one in a rack
//!    holding one, a third the rest on the first node (in node order) with a free slot
//!    (reduces: that pass only); maps only where the node's intermediate space holds their
//!    output (FAIR §5.4), reduces only within copy-compute caps (FAIR §5.2).
//! 6. **All or nothing.** A gang that ends below `min_member` (running counted) is taken back
//!    whole, its slots and quota units returned (`gang_incomplete`). The answer is finally held
//!    to the rules by [`crate::gang::enforce::enforce`] (a guard: it finds nothing to change).
//!
//! # Simplifications against Kueue
//! - Within a domain Kueue's assignment descends the levels below it, in the profile's order,
//!   down to node counts when the lowest level is the hostname; here step 5's per-pod
//!   locality greedy places them (data locality is placer's concern; Kueue knows none). So
//!   the two profiles differ only when a preferred job is spread over several domains.
//! - A preferred job that fits no domain of its level is spread over that level's domains;
//!   Kueue first tries one domain of each higher level (rack, then block).
//! - Maps and reduces of a job are one workload with one domain (Kueue: one PodSet per pod
//!   template, each with its own annotation).
//! - No preemption, and no cohort borrowing beyond `lsap_quota`'s flex units.
//!
//! Complexity: O(jobs log jobs + Σ over jobs of (allowed domains' nodes + placed tasks ·
//! domain nodes · replicas)) time, O(nodes + pending + pools) space per gang job for the undo.

use crate::epoch::Epoch;
use crate::error::SolveError;
use crate::exact::Quotas;
use crate::fair::cpac::Copies;
use crate::fair::disk::Space;
use crate::fair::job_limits::fifo_cmp;
use crate::gang::problem::{rules, Domains, JobRule};
use crate::gang::GangProblem;
use crate::index::Indexed;
use crate::placement::Placement;
use placer_models::{Status, TaskKind, WaitReason};

/// Kueue's TAS profile: the order in which domains are filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// Most free capacity first, the last domain the tightest that holds the rest (Kueue's
    /// default for `required` and `preferred`).
    BestFit,
    /// Least free capacity first (Kueue's `TASProfileLeastFreeCapacity`).
    LeastFreeCapacity,
}

/// What the epoch's rules are: quotas per kind, each job's rule, the domains, the jobs that
/// cannot start at all.
struct Rules {
    quotas: [Quotas; 2],
    jobs: Vec<JobRule>,
    domains: [Domains; 3],
    blocked: Vec<Option<WaitReason>>,
}

impl Rules {
    fn of(epoch: &Epoch<'_, '_>) -> Result<Self, SolveError> {
        let ix = epoch.ix;
        if ix.req.jobs.iter().any(|j| j.gang.is_some() || j.topology.is_some()) {
            let p = GangProblem::new(ix, epoch.model, epoch.shares, None)?;
            return Ok(Self {
                quotas: p.quotas.clone(),
                jobs: p.jobs.clone(),
                domains: p.domains.clone(),
                blocked: p.blocked.clone(),
            });
        }
        let (jobs, domains) = rules(ix, |_| 0);
        Ok(Self {
            quotas: TaskKind::ALL.map(|kind| crate::policy::quotas(ix, epoch.shares, kind)),
            blocked: vec![None; jobs.len()],
            jobs,
            domains,
        })
    }
}

/// The mutable state of the greedy: free slots, quota units used, space, copies.
#[derive(Clone)]
struct State {
    left: [Vec<u32>; 2],
    used: [Vec<u64>; 2],
    groups: [[u64; 2]; 2],
    space: Space,
    copies: Copies,
}

impl State {
    /// Units pool `p` may still receive of kind `k` under `q`.
    fn quota_room(&self, q: &Quotas, k: usize, p: usize) -> u64 {
        let used = self.used[k][p];
        let must = q.must[p];
        let (flex, g) = q.flex[p];
        let flex_left = flex.saturating_sub(used.saturating_sub(must));
        must.saturating_sub(used) + flex_left.min(self.groups[k][g])
    }

    /// Takes one unit of kind `k` for pool `p`.
    fn take_unit(&mut self, q: &Quotas, k: usize, p: usize) {
        if self.used[k][p] >= q.must[p] {
            let g = q.flex[p].1;
            self.groups[k][g] = self.groups[k][g].saturating_sub(1);
        }
        self.used[k][p] += 1;
    }
}

/// One domain's free slots per kind.
fn free_in(left: &[Vec<u32>; 2], nodes: &[u32]) -> [u64; 2] {
    [0, 1].map(|k| nodes.iter().map(|&n| u64::from(left[k][n as usize])).sum())
}

/// Places one epoch as Kueue's TAS would with `profile` (module docs).
///
/// # Complexity
/// See the module docs.
///
/// # Errors
/// [`SolveError::CostOverflow`] from [`GangProblem::new`] when some job has a gang or a
/// topology rule and a cost is beyond the exact range (as under `lsap_quota`).
///
/// # Examples
/// A rack-required gang of 3 on racks with 3 and 4 free one-slot nodes takes the tight rack
/// r1 under either profile (module docs, step 4).
/// ```
/// use placer_solver::{tas, fair::{fair_shares, starvation::Starvation}, Indexed, LocalityCost};
/// use placer_solver::policy::Epoch;
/// let nodes: Vec<String> = (0..8).map(|n| format!(r#"{{"id": "n{n}", "rack": "r{}",
///     "map_slots": 1}}"#, 1 + n / 4)).collect();
/// let req = placer_models::parse_request(format!(r#"{{"schema_version": 1,
///   "cluster": {{"racks": [{{"id": "r1"}}, {{"id": "r2"}}], "nodes": [{}]}},
///   "pools": [{{"id": "p"}}], "jobs": [{{"id": "busy", "pool": "p"}},
///     {{"id": "g", "pool": "p", "gang": {{"min_member": 3}},
///       "topology": {{"level": "rack", "mode": "required"}}}}],
///   "running": [{{"id": "x", "job": "busy", "kind": "map", "node": "n0"}}],
///   "pending": [{{"id": "t0", "job": "g", "kind": "map"}}, {{"id": "t1", "job": "g", "kind": "map"}},
///               {{"id": "t2", "job": "g", "kind": "map"}}]}}"#, nodes.join(",")).as_bytes()).unwrap();
/// let ix = Indexed::new(&req);
/// let model = LocalityCost::new(&ix);
/// let shares = fair_shares::compute(&ix);
/// let starvation = Starvation::new(&ix, &shares);
/// let epoch = Epoch { ix: &ix, model: &model, shares: &shares, starvation: &starvation,
///                     engine: placer_models::SolverEngine::Auto, cancel: None, warm: None };
/// for profile in [tas::Profile::BestFit, tas::Profile::LeastFreeCapacity] {
///     let p = tas::place(&epoch, profile).unwrap();
///     assert_eq!(p.node_of_task, vec![Some(1), Some(2), Some(3)]);
/// }
/// ```
pub fn place(epoch: &Epoch<'_, '_>, profile: Profile) -> Result<Placement, SolveError> {
    let ix = epoch.ix;
    let req = ix.req;
    let rules = Rules::of(epoch)?;
    let jobs = req.jobs.len();
    let mut tasks_of: Vec<[Vec<usize>; 2]> = vec![[Vec::new(), Vec::new()]; jobs];
    for (k, tasks) in ix.eligible_of_kind.iter().enumerate() {
        for &t in tasks {
            tasks_of[ix.pending_job[t] as usize][k].push(t);
        }
    }
    let mut order: Vec<usize> = (0..jobs).collect();
    order.sort_by(|&a, &b| fifo_cmp(&req.jobs[a], a, &req.jobs[b], b));
    let mut state = State {
        left: ix.free.clone(),
        used: [vec![0; req.pools.len()], vec![0; req.pools.len()]],
        groups: [rules.quotas[0].groups, rules.quotas[1].groups],
        space: Space::new(ix),
        copies: Copies::default(),
    };
    let mut node_of_task: Vec<Option<u32>> = vec![None; req.pending.len()];
    let mut reason: Vec<Option<WaitReason>> = vec![None; req.pending.len()];
    let all_nodes: Vec<u32> = (0..ix.node_rack.len() as u32).collect();
    for j in order {
        let tasks = &tasks_of[j];
        if tasks[0].is_empty() && tasks[1].is_empty() {
            continue;
        }
        let mark = |why: WaitReason, reason: &mut Vec<Option<WaitReason>>| {
            for &t in tasks.iter().flatten() {
                reason[t] = Some(why);
            }
        };
        if let Some(why) = rules.blocked[j] {
            mark(why, &mut reason);
            continue;
        }
        let rule = &rules.jobs[j];
        let pool = ix.job_pool[j] as usize;
        let cap: [u64; 2] = [0, 1]
            .map(|k| (tasks[k].len() as u64).min(state.quota_room(&rules.quotas[k], k, pool)));
        let total = cap[0] + cap[1];
        let need = rule.gang.map_or(0, |m| u64::from(m).saturating_sub(u64::from(rule.running)));
        if total < need {
            mark(WaitReason::GangIncomplete, &mut reason);
            continue;
        }
        if total == 0 {
            continue;
        }
        let groups = match &rule.topology {
            None => vec![(all_nodes.clone(), total)],
            Some(topology) => {
                let doms = &rules.domains[topology.level];
                let room = |d: u32| -> (u64, u64) {
                    let free = free_in(&state.left, &doms.nodes[d as usize]);
                    let room = (0..2).map(|k| free[k].min(cap[k])).sum();
                    let spare = (0..2).filter(|&k| cap[k] > 0).map(|k| free[k]).sum();
                    (room, spare)
                };
                let candidates: Vec<(u32, u64, u64)> = topology
                    .allowed
                    .iter()
                    .map(|&d| {
                        let (r, s) = room(d);
                        (d, r, s)
                    })
                    .collect();
                let most = candidates.iter().map(|c| c.1).max().unwrap_or(0);
                let nodes_of = |d: u32| doms.nodes[d as usize].clone();
                if topology.required {
                    let count = total.min(most);
                    if count < need.max(1) {
                        mark(WaitReason::NoDomainFits, &mut reason);
                        continue;
                    }
                    let Some(d) = tightest(&candidates, count) else { continue };
                    vec![(nodes_of(d), count)]
                } else if let Some(d) = tightest(&candidates, total) {
                    vec![(nodes_of(d), total)]
                } else {
                    // Spread (module docs, step 4): a job running in one domain fills it first.
                    let mut out = Vec::new();
                    let mut rest = total;
                    let mut pool_of: Vec<(u32, u64, u64)> = (0..doms.nodes.len() as u32)
                        .map(|d| {
                            let (r, s) = room(d);
                            (d, r, s)
                        })
                        .collect();
                    if rule.running > 0 {
                        if let [own] = topology.allowed[..] {
                            let r = pool_of[own as usize].1.min(rest);
                            out.push((nodes_of(own), r));
                            rest -= r;
                            pool_of.retain(|c| c.0 != own);
                        }
                    }
                    for (d, c) in spread(profile, pool_of, rest) {
                        out.push((nodes_of(d), c));
                        rest -= c;
                    }
                    let outside: Vec<u32> = all_nodes
                        .iter()
                        .copied()
                        .filter(|&n| doms.of_node.get(n as usize).copied().flatten().is_none())
                        .collect();
                    if rest > 0 && !outside.is_empty() {
                        out.push((outside, rest));
                    }
                    out
                }
            }
        };
        let saved = (need > 0).then(|| state.clone());
        let mut placed = 0u64;
        let mut placed_kind = [0u64; 2];
        for (nodes, count) in &groups {
            placed += fill(
                ix,
                &mut state,
                &mut node_of_task,
                j,
                tasks,
                nodes,
                *count,
                cap,
                &mut placed_kind,
            );
            let full = free_in(&state.left, nodes);
            if rule.topology.as_ref().is_some_and(|t| t.required) {
                for k in 0..2 {
                    for &t in &tasks[k] {
                        if node_of_task[t].is_none() && full[k] == 0 {
                            reason[t] = Some(WaitReason::NoDomainFits);
                        }
                    }
                }
            }
        }
        for (k, &units) in placed_kind.iter().enumerate() {
            for _ in 0..units {
                state.take_unit(&rules.quotas[k], k, pool);
            }
        }
        if let Some(saved) = saved {
            if placed < need {
                state = saved;
                for &t in tasks.iter().flatten() {
                    node_of_task[t] = None;
                }
                mark(WaitReason::GangIncomplete, &mut reason);
            }
        }
    }
    crate::gang::enforce::enforce(ix, &mut node_of_task, &mut reason);
    let mut placement = Placement::new(node_of_task, Status::Heuristic);
    placement.task_reason = reason;
    Ok(placement)
}

/// The domain with the least `state` among `candidates` (domain, room, state) with room for
/// `count`, lowest index on ties: the choice of both profiles for one domain (module docs).
fn tightest(candidates: &[(u32, u64, u64)], count: u64) -> Option<u32> {
    candidates.iter().filter(|c| c.1 >= count).min_by_key(|c| (c.2, c.0)).map(|c| c.0)
}

/// Spreads `rest` tasks over `candidates` (domain, room, state) in the profile's order (module
/// docs, step 4): the domains and their counts, in the order taken.
fn spread(
    profile: Profile,
    mut candidates: Vec<(u32, u64, u64)>,
    mut rest: u64,
) -> Vec<(u32, u64)> {
    candidates.retain(|c| c.1 > 0);
    match profile {
        Profile::BestFit => candidates.sort_by_key(|c| (std::cmp::Reverse(c.2), c.0)),
        Profile::LeastFreeCapacity => candidates.sort_by_key(|c| (c.2, c.0)),
    }
    let mut out = Vec::new();
    while rest > 0 && !candidates.is_empty() {
        let mut i = 0;
        if profile == Profile::BestFit {
            // The last domain: the tightest that holds the rest, when one does.
            if let Some(d) = tightest(&candidates, rest) {
                i = candidates.iter().position(|c| c.0 == d).unwrap_or(0);
            }
        }
        let (d, room, _) = candidates.remove(i);
        let c = room.min(rest);
        out.push((d, c));
        rest -= c;
    }
    out
}

/// Places up to `count` of job `j`'s tasks (at most `cap` per kind over the whole job, counted
/// in `placed_kind`) on `nodes` by locality (module docs, step 5). Returns how many it placed.
#[allow(clippy::too_many_arguments)]
fn fill(
    ix: &Indexed<'_>,
    state: &mut State,
    node_of_task: &mut [Option<u32>],
    j: usize,
    tasks: &[Vec<usize>; 2],
    nodes: &[u32],
    count: u64,
    cap: [u64; 2],
    placed_kind: &mut [u64; 2],
) -> u64 {
    let mut placed = 0u64;
    let mut free = free_in(&state.left, nodes);
    // Membership of the domain's nodes (every node for a job without topology).
    let whole = nodes.len() == ix.node_rack.len();
    let mut member = Vec::new();
    if !whole {
        member = vec![false; ix.node_rack.len()];
        for &n in nodes {
            member[n as usize] = true;
        }
    }
    let inside = |n: u32| whole || member[n as usize];
    for kind in TaskKind::ALL {
        let k = kind.slot();
        // Node-local placements first, then rack-local, then any (reduces: any).
        let levels = if kind == TaskKind::Map { 0..3 } else { 2..3 };
        for level in levels {
            for &t in &tasks[k] {
                if placed >= count || placed_kind[k] >= cap[k] || free[k] == 0 {
                    break;
                }
                let replicas = &ix.replicas[t];
                if node_of_task[t].is_some() || (level < 2 && replicas.is_empty()) {
                    continue;
                }
                let open = |n: u32, s: &State| {
                    s.left[k][n as usize] > 0
                        && match kind {
                            TaskKind::Map => s.space.fits(ix, t, n),
                            TaskKind::Reduce => s.copies.room(ix, j as u32, n) > 0,
                        }
                };
                let at = match level {
                    0 => replicas.iter().copied().find(|&r| inside(r) && open(r, state)),
                    1 => nodes.iter().copied().find(|&n| {
                        let rack = ix.node_rack[n as usize];
                        replicas.iter().any(|&r| ix.node_rack[r as usize] == rack) && open(n, state)
                    }),
                    _ => nodes.iter().copied().find(|&n| open(n, state)),
                };
                let Some(n) = at else { continue };
                state.left[k][n as usize] -= 1;
                match kind {
                    TaskKind::Map => state.space.take(ix, t, n),
                    TaskKind::Reduce => state.copies.launch(j as u32, n),
                }
                node_of_task[t] = Some(n);
                placed += 1;
                placed_kind[k] += 1;
                free[k] -= 1;
            }
        }
    }
    placed
}
