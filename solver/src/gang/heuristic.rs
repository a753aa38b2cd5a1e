//! The fast path for gangs and topology domains under `lsap_quota` (the structured flow of
//! lsap-sched §3.2 with Quincy's aggregators, restricted per job): pick one domain per
//! topology job, place every kind on the flow under the pools' quotas with each job's arcs
//! kept to (or priced outside) its domain, and drop any gang the flow left below
//! `min_member`, solving again without it. Kueue and Volcano place one workload at a time;
//! this keeps the flow joint over all jobs and only the domain choice and the gang repair
//! greedy.
//!
//! 1. **Domains.** Topology jobs in snapshot order; each takes, among its allowed domains
//!    ([`super::problem::Rule::allowed`]), the one ranked highest by: room for its need (a
//!    gang's `min_member` − running, else 1 task) from the free slots not yet reserved (in
//!    whole slices for a job with slices); room
//!    for all its pending tasks; its maps' replicas in the domain (locality); the least room
//!    left over (best fit, Kueue's default); the lowest index. It reserves the slots it can use
//!    there, so that two jobs that both fit only one at a time do not pick the same domain. A
//!    required gang that no domain has room for waits (`no_domain_fits`).
//! 2. **Flow.** Per kind, [`crate::flow::structured::solve_with`] under the quotas of the
//!    problem ([`GangProblem::quotas`], kept when gangs are dropped); a required job's task has
//!    arcs to the free nodes of its domain only, a preferred one's arcs outside its domain cost
//!    its penalty more. Reduces beyond their job's copy room on a node with copy-compute caps
//!    (FAIR §5.2) are taken back.
//! 3. **Gangs.** Slices are trimmed to whole ones first ([`super::enforce::trim_slices`]).
//!    A gang placed below `min_member` is first boosted: the flow is solved again
//!    with every other task dearer than any path of the gang's, so that, among the answers
//!    that place as many tasks, the gang's tasks come first within the quotas. A boosted gang
//!    still short is dropped (`gang_incomplete`) and steps 1–2 run again without it; each gang
//!    is boosted and dropped at most once. The quotas stay those of the problem, so
//!    the units a dropped gang's pool leaves are not handed to other pools in this epoch (the
//!    MIP, on the same quotas, has the same limit; a gang that cannot start at all on capacity
//!    grounds is [`GangProblem::blocked`] and holds no units from the start).
//! 4. **Moves.** For each topology job in turn (at most 24 moves an epoch), its 4 best-ranked
//!    domains on the free slots (step 1's key without reservations) are tried in its place,
//!    steps 2–3 run with the other domains fixed, and a move is kept when the answer scores
//!    better ([`GangProblem::score`]).

use super::problem::GangProblem;
use crate::cancel::Cancel;
use crate::flow::structured::{self, Slots, TaskArcs};
use placer_models::{Status, WaitReason};

/// The answer of [`place`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GangAnswer {
    /// The node of each pending task (by position), or `None`.
    pub node_of_task: Vec<Option<u32>>,
    /// Per pending position: why a task of a dropped gang or a full required domain waits.
    pub reason: Vec<Option<WaitReason>>,
    /// `heuristic` (`optimal` from the MIP).
    pub status: Status,
}

/// Places `p` by the heuristic (module docs): every gang at least `min_member` or not at all,
/// every required domain kept.
///
/// # Complexity
/// At most (gangs + 1) rounds, each O(topology jobs · allowed domains · domain nodes) for the
/// domains plus two [`structured::solve_with`] solves (a required task lists its domain's free
/// nodes); step 4 repeats steps 2–3 up to 4 times per topology job.
///
/// # Errors
/// None: a task that cannot be placed waits.
///
/// # Examples
/// Two racks of two one-slot nodes, a gang of 3 that requires one rack: no rack has room, so
/// no task starts and all three wait with `no_domain_fits`.
/// ```
/// use placer_solver::{Indexed, LocalityCost, fair::fair_shares, gang};
/// let req = placer_models::parse_request(br#"{"schema_version": 1,
///   "cluster": {"racks": [{"id": "r1"}, {"id": "r2"}], "nodes": [
///     {"id": "a", "rack": "r1", "map_slots": 1}, {"id": "b", "rack": "r1", "map_slots": 1},
///     {"id": "c", "rack": "r2", "map_slots": 1}, {"id": "d", "rack": "r2", "map_slots": 1}]},
///   "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p", "gang": {"min_member": 3},
///     "topology": {"level": "rack", "mode": "required"}}],
///   "pending": [{"id": "t0", "job": "j", "kind": "map"}, {"id": "t1", "job": "j", "kind": "map"},
///               {"id": "t2", "job": "j", "kind": "map"}]}"#).unwrap();
/// let ix = Indexed::new(&req);
/// let model = LocalityCost::new(&ix);
/// let shares = fair_shares::compute(&ix);
/// let p = gang::GangProblem::new(&ix, &model, &shares, None).unwrap();
/// let answer = gang::heuristic::place(&p);
/// assert_eq!(answer.node_of_task, vec![None; 3]);
/// assert_eq!(answer.reason, vec![Some(placer_models::WaitReason::NoDomainFits); 3]);
/// ```
pub fn place(p: &GangProblem<'_>) -> GangAnswer {
    place_with(p, None)
}

/// [`place`] under a deadline: each flow polls `cancel` ([`structured::solve_with`]); once it
/// is cut, the flows answer with what they have (every capacity and quota respected), gangs are
/// still dropped until none is short, step 4 is skipped, and the answer is `time_limited`.
///
/// # Complexity
/// As [`place`], less what the cut saves.
///
/// # Errors
/// None, as [`place`].
pub fn place_with(p: &GangProblem<'_>, cancel: Option<&Cancel>) -> GangAnswer {
    let mut cut = false;
    // Steps 1–3: domains with reservations, the flow, drops; domains chosen again after a drop.
    let mut dropped = p.blocked.clone();
    let mut boosted = p.first.clone();
    let (mut chosen, mut node_of_task) = loop {
        let chosen = choose_domains(p, &mut dropped);
        let mut node_of_task = flow(p, &dropped, &chosen, &boosted, cancel, &mut cut);
        super::enforce::trim_slices(p.ix, &p.jobs, &p.domains, &mut node_of_task, None);
        if !repair(p, &node_of_task, &mut dropped, &mut boosted) {
            break (chosen, node_of_task);
        }
    };
    // Step 4: one job's domain at a time moved to another of its best candidates.
    let mut moves = 0;
    if let (false, Ok(mut best)) = (cut, p.score(&node_of_task)) {
        let pending = pending_per_job(p);
        for j in 0..p.jobs.len() {
            let Some(topology) = &p.jobs[j].topology else { continue };
            if p.blocked[j].is_some() {
                continue;
            }
            let ranked = rank(p, j, topology, &p.free, &pending);
            for &d in ranked.iter().take(CANDIDATES) {
                if chosen[j] == Some(d) || moves >= MAX_MOVES || cut {
                    continue;
                }
                moves += 1;
                let mut other = chosen.clone();
                other[j] = Some(d);
                let (at, gone) = with_choice(p, &other, cancel, &mut cut);
                if cut {
                    break;
                }
                if let Ok(score) = p.score(&at) {
                    if score.placed > best.placed
                        || (score.placed == best.placed && score.cost < best.cost)
                    {
                        (best, chosen, node_of_task, dropped) = (score, other, at, gone);
                    }
                }
            }
        }
    }
    let reason = reasons(p, &dropped, &chosen, &node_of_task);
    let status = if cut { Status::TimeLimited } else { Status::Heuristic };
    GangAnswer { node_of_task, reason, status }
}

/// Domains step 4 tries per topology job besides its own (the best ranked on the free slots).
const CANDIDATES: usize = 4;

/// The most moves step 4 tries in one epoch (each is up to gangs + 1 solves of both kinds), so
/// that a snapshot with many topology jobs costs a bounded number of solves.
const MAX_MOVES: usize = 24;

/// The gangs `node_of_task` starts below `min_member`.
fn short_gangs(p: &GangProblem<'_>, node_of_task: &[Option<u32>]) -> Vec<usize> {
    let ix = p.ix;
    let mut placed = vec![0u64; p.jobs.len()];
    for (t, n) in node_of_task.iter().enumerate() {
        if n.is_some() {
            placed[ix.pending_job[t] as usize] += 1;
        }
    }
    (0..p.jobs.len())
        .filter(|&j| {
            let rule = &p.jobs[j];
            placed[j] > 0
                && rule.gang.is_some_and(|m| placed[j] + u64::from(rule.running) < u64::from(m))
        })
        .collect()
}

/// Steps 2–3 with the domains fixed to `chosen`: the placement and the jobs dropped.
fn with_choice(
    p: &GangProblem<'_>,
    chosen: &[Option<u32>],
    cancel: Option<&Cancel>,
    cut: &mut bool,
) -> (Vec<Option<u32>>, Vec<Option<WaitReason>>) {
    let mut dropped = p.blocked.clone();
    for (j, rule) in p.jobs.iter().enumerate() {
        if rule.topology.as_ref().is_some_and(|t| t.required) && chosen[j].is_none() {
            dropped[j] = dropped[j].or(Some(WaitReason::NoDomainFits));
        }
    }
    let mut boosted = p.first.clone();
    loop {
        let mut node_of_task = flow(p, &dropped, chosen, &boosted, cancel, cut);
        super::enforce::trim_slices(p.ix, &p.jobs, &p.domains, &mut node_of_task, None);
        if !repair(p, &node_of_task, &mut dropped, &mut boosted) {
            return (node_of_task, dropped);
        }
    }
}

/// Step 3 after one flow: whether another is needed. A gang short for the first time is
/// boosted (its tasks go first in the next flow: every other task's arcs cost more than any
/// path of its); a boosted gang still short is dropped (`gang_incomplete`).
fn repair(
    p: &GangProblem<'_>,
    node_of_task: &[Option<u32>],
    dropped: &mut [Option<WaitReason>],
    boosted: &mut [bool],
) -> bool {
    let short = short_gangs(p, node_of_task);
    if short.is_empty() {
        return false;
    }
    let fresh: Vec<usize> = short.iter().copied().filter(|&j| !boosted[j]).collect();
    if !fresh.is_empty() && p.boost().is_some() {
        for j in fresh {
            boosted[j] = true;
        }
        return true;
    }
    for j in short {
        dropped[j] = Some(WaitReason::GangIncomplete);
        boosted[j] = false;
    }
    true
}

/// Each job's eligible pending tasks per kind.
fn pending_per_job(p: &GangProblem<'_>) -> Vec<[u64; 2]> {
    let mut pending = vec![[0u64; 2]; p.jobs.len()];
    for (k, tasks) in p.tasks.iter().enumerate() {
        for &t in tasks {
            pending[p.ix.pending_job[t] as usize][k] += 1;
        }
    }
    pending
}

/// Job `j`'s allowed domains, best first by step 1's key on the slots `left`, with whether
/// the best has room for its need.
fn rank(
    p: &GangProblem<'_>,
    j: usize,
    topology: &super::problem::Rule,
    left: &[Vec<u32>; 2],
    pending: &[[u64; 2]],
) -> Vec<u32> {
    ranked(p, j, topology, left, pending).into_iter().map(|(_, d)| d).collect()
}

/// [`rank`] with each domain's "room for the need".
fn ranked(
    p: &GangProblem<'_>,
    j: usize,
    topology: &super::problem::Rule,
    left: &[Vec<u32>; 2],
    pending: &[[u64; 2]],
) -> Vec<(bool, u32)> {
    let ix = p.ix;
    let rule = &p.jobs[j];
    let need = match rule.gang {
        Some(m) => u64::from(m).saturating_sub(u64::from(rule.running)).max(1),
        None => 1,
    };
    let all = pending[j][0] + pending[j][1];
    let nodes = &p.domains[topology.level].nodes;
    // The domain of each of the job's maps' replicas.
    let mut replicas: std::collections::BTreeMap<u32, u64> = Default::default();
    for &t in p.tasks[0].iter().filter(|&&t| ix.pending_job[t] as usize == j) {
        let held: std::collections::BTreeSet<u32> =
            ix.replicas[t].iter().filter_map(|&r| p.domain(topology, r)).collect();
        for d in held {
            *replicas.entry(d).or_default() += 1;
        }
    }
    let mut keyed: Vec<_> = topology
        .allowed
        .iter()
        .map(|&d| {
            let room: [u64; 2] = [0, 1]
                .map(|k| nodes[d as usize].iter().map(|&n| u64::from(left[k][n as usize])).sum());
            let mut fit = (0..2).map(|k| room[k].min(pending[j][k])).sum::<u64>();
            if let Some((level, size)) = rule.slice {
                let whole =
                    super::problem::slice_room(left, &p.domains[level], &nodes[d as usize], size);
                fit = fit.min(whole);
            }
            let spare = room[0] + room[1] - fit;
            let local = replicas.get(&d).copied().unwrap_or(0);
            ((fit >= need, fit >= all, local, std::cmp::Reverse(spare), std::cmp::Reverse(d)), d)
        })
        .collect();
    keyed.sort_by_key(|k| std::cmp::Reverse(k.0));
    keyed.into_iter().map(|(key, d)| (key.0, d)).collect()
}

/// Step 1 (module docs): the domain of each topology job not dropped; drops required gangs
/// that no domain has room for.
fn choose_domains(p: &GangProblem<'_>, dropped: &mut [Option<WaitReason>]) -> Vec<Option<u32>> {
    let mut left: [Vec<u32>; 2] = p.free.clone();
    let pending = pending_per_job(p);
    let mut chosen = vec![None; p.jobs.len()];
    // The gangs that go first ([`GangProblem::first`]) choose first.
    let order =
        (0..p.jobs.len()).filter(|&j| p.first[j]).chain((0..p.jobs.len()).filter(|&j| !p.first[j]));
    for j in order {
        let rule = &p.jobs[j];
        let Some(topology) = &rule.topology else { continue };
        if dropped[j].is_some() {
            continue;
        }
        let Some(&(fits, d)) = ranked(p, j, topology, &left, &pending).first() else { continue };
        if !fits && topology.required {
            dropped[j] = Some(WaitReason::NoDomainFits);
            continue;
        }
        chosen[j] = Some(d);
        let nodes = &p.domains[topology.level].nodes[d as usize];
        for (k, left) in left.iter_mut().enumerate() {
            let mut want = pending[j][k];
            for &n in nodes {
                let take = want.min(u64::from(left[n as usize]));
                left[n as usize] -= take as u32;
                want -= take;
            }
        }
    }
    chosen
}

/// Step 2 (module docs): both kinds on the flow, the dropped jobs' tasks left out.
fn flow(
    p: &GangProblem<'_>,
    dropped: &[Option<WaitReason>],
    chosen: &[Option<u32>],
    boosted: &[bool],
    cancel: Option<&Cancel>,
    cut: &mut bool,
) -> Vec<Option<u32>> {
    let ix = p.ix;
    let mut node_of_task = vec![None; ix.req.pending.len()];
    for (k, all) in p.tasks.iter().enumerate() {
        let tasks: Vec<usize> = all
            .iter()
            .copied()
            .filter(|&t| dropped[ix.pending_job[t] as usize].is_none())
            .collect();
        if tasks.is_empty() {
            continue;
        }
        let quotas = &p.quotas[k];
        let free = &p.free[k];
        let slots = Slots { node_rack: &ix.node_rack, free, racks: ix.racks() };
        let boost = if boosted.contains(&true) { p.boost().unwrap_or(0) } else { 0 };
        let plans = slice_plans(p, &tasks, chosen, free);
        let arcs_of = |i: usize| {
            let a = arcs(p, tasks[i], chosen, free, &plans);
            let later = !boosted[ix.pending_job[tasks[i]] as usize];
            if later {
                TaskArcs { offset: a.offset + boost, ..a }
            } else {
                a
            }
        };
        let solution = structured::solve_with(slots, tasks.len(), arcs_of, Some(quotas), cancel);
        *cut |= solution.status == Status::TimeLimited;
        // Copy-compute splitting (FAIR §5.2): reduces beyond their job's copy room on a node
        // with caps wait (the flow has no per-(job, node) arcs).
        let mut copying: std::collections::BTreeMap<(u32, u32), u32> = Default::default();
        for (&t, n) in tasks.iter().zip(solution.node_of_task) {
            let capped = k == 1 && n.is_some_and(|n| ix.copy_limit[n as usize].is_some());
            if let (true, Some(n)) = (capped, n) {
                let j = ix.pending_job[t];
                let used = copying.entry((j, n)).or_insert(0);
                if *used >= ix.copy_room(j, n) {
                    continue;
                }
                *used += 1;
            }
            node_of_task[t] = n;
        }
    }
    node_of_task
}

/// Task `t`'s arcs for the flow: as [`GangProblem::arcs`] without a topology rule; with one,
/// explicit arcs at their true cost to the free nodes of the chosen domain, and every other arc
/// dropped (`required`) or dearer by the penalty (`preferred`).
fn arcs(
    p: &GangProblem<'_>,
    t: usize,
    chosen: &[Option<u32>],
    free: &[u32],
    plans: &std::collections::BTreeMap<usize, Vec<u32>>,
) -> TaskArcs {
    let j = p.ix.pending_job[t] as usize;
    let Some(a) = p.arcs[t].clone() else { return TaskArcs::default() };
    if let Some(nodes) = plans.get(&j) {
        let on_node = nodes
            .iter()
            .filter(|&&n| free[n as usize] > 0)
            .filter_map(|&n| p.cost(t, n).map(|c| (n, c - a.offset)))
            .collect();
        return TaskArcs { on_node, racks: Vec::new(), base: None, ..a };
    }
    let Some(topology) = &p.jobs[j].topology else { return a };
    let inside: Vec<(u32, i64)> = match chosen[j] {
        Some(d) => p.domains[topology.level].nodes[d as usize]
            .iter()
            .filter(|&&n| free[n as usize] > 0)
            .filter_map(|&n| p.cost(t, n).map(|c| (n, c - a.offset)))
            .collect(),
        None => Vec::new(),
    };
    if topology.required {
        return TaskArcs { on_node: inside, racks: Vec::new(), base: None, ..a };
    }
    let pay = topology.penalty;
    let mut on_node: Vec<(u32, i64)> = a
        .on_node
        .iter()
        .filter(|(n, _)| !inside.iter().any(|(m, _)| m == n))
        .map(|&(n, c)| (n, c + pay))
        .collect();
    on_node.extend(inside);
    TaskArcs {
        on_node,
        racks: a.racks.iter().map(|&(q, c)| (q, c + pay)).collect(),
        base: a.base.map(|c| c + pay),
        ..a
    }
}

/// Where each job with slices among `tasks` (one kind, free slots `free`) may go this flow:
/// whole slices planned on the slice domains inside its chosen domain (anywhere when it has
/// none), the freest domains first (lowest index on ties), as many slices as its tasks of the
/// kind fill, on the freest nodes of each domain that hold them. The flow then fills the plan
/// and [`super::enforce::trim_slices`] takes back what it left in part.
///
/// Complexity: O(tasks + Σ planned jobs' candidate nodes · log nodes).
fn slice_plans(
    p: &GangProblem<'_>,
    tasks: &[usize],
    chosen: &[Option<u32>],
    free: &[u32],
) -> std::collections::BTreeMap<usize, Vec<u32>> {
    let mut pending: std::collections::BTreeMap<usize, u64> = Default::default();
    for &t in tasks {
        let j = p.ix.pending_job[t] as usize;
        if p.jobs[j].slice.is_some() {
            *pending.entry(j).or_default() += 1;
        }
    }
    let every: Vec<u32> =
        if pending.is_empty() { Vec::new() } else { (0..free.len() as u32).collect() };
    pending
        .into_iter()
        .filter_map(|(j, count)| {
            let (level, size) = p.jobs[j].slice?;
            let size = u64::from(size.max(1));
            let within = match (&p.jobs[j].topology, chosen[j]) {
                (Some(r), Some(d)) => &p.domains[r.level].nodes[d as usize],
                _ => &every,
            };
            let mut by_domain: std::collections::BTreeMap<u32, (u64, Vec<u32>)> =
                Default::default();
            for &n in within {
                if let Some(Some(d)) = p.domains[level].of_node.get(n as usize) {
                    let e = by_domain.entry(*d).or_default();
                    e.0 += u64::from(free[n as usize]);
                    e.1.push(n);
                }
            }
            let mut domains: Vec<(u64, u32, Vec<u32>)> =
                by_domain.into_iter().map(|(d, (f, nodes))| (f, d, nodes)).collect();
            domains.sort_by_key(|&(f, d, _)| (std::cmp::Reverse(f), d));
            let mut slices = count / size;
            let mut plan = Vec::new();
            for (f, _, mut nodes) in domains {
                let take = (f / size).min(slices);
                if take == 0 {
                    continue;
                }
                slices -= take;
                nodes.sort_by_key(|&n| (std::cmp::Reverse(free[n as usize]), n));
                let mut room = 0;
                for n in nodes {
                    if room >= take * size {
                        break;
                    }
                    room += u64::from(free[n as usize]);
                    plan.push(n);
                }
            }
            plan.sort_unstable();
            Some((j, plan))
        })
        .collect()
}

/// Per pending task: the dropped job's reason, or `no_domain_fits` for an unplaced task of a
/// required job whose domain has no free slot of its kind left.
fn reasons(
    p: &GangProblem<'_>,
    dropped: &[Option<WaitReason>],
    chosen: &[Option<u32>],
    node_of_task: &[Option<u32>],
) -> Vec<Option<WaitReason>> {
    let ix = p.ix;
    let mut left: [Vec<u32>; 2] = p.free.clone();
    for (t, n) in node_of_task.iter().enumerate() {
        if let Some(n) = n {
            let k = ix.req.pending[t].kind.slot();
            left[k][*n as usize] = left[k][*n as usize].saturating_sub(1);
        }
    }
    (0..ix.req.pending.len())
        .map(|t| {
            if node_of_task[t].is_some() {
                return None;
            }
            let j = ix.pending_job[t] as usize;
            if dropped[j].is_some() {
                return dropped[j];
            }
            let topology = p.jobs[j].topology.as_ref().filter(|r| r.required)?;
            let d = chosen[j]?;
            let k = ix.req.pending[t].kind.slot();
            let full = p.domains[topology.level].nodes[d as usize]
                .iter()
                .all(|&n| left[k][n as usize] == 0);
            full.then_some(WaitReason::NoDomainFits)
        })
        .collect()
}
