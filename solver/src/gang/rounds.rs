//! Gangs and topology domains around a multi-resource policy (`drf`, `ras`, `lsap_ras`):
//! all-or-nothing placement as KEP-4671's PodGroup `minCount` and Volcano's `minMember`,
//! domains as Kueue's topology-aware scheduling. The policy itself keeps deciding which tasks
//! go first (DRF's dominant-share order, RAS's utility and goal plan, `lsap_ras`'s exact
//! placement of RAS's counts); this only narrows what it may use, in rounds:
//!
//! 1. **Left out from the start**: a gang whose eligible pending and running tasks are fewer
//!    than `min_member` (`gang_incomplete`); a required job whose running tasks span several
//!    domains of its level, or a node in none (`no_domain_fits`).
//! 2. **Domains** ([`super::best_fit::choose`]): each topology job gets one domain by best fit
//!    on the free multi-resource room; a required job that no domain fits is left out
//!    (`no_domain_fits`); a required job, and a preferred one whose domain fits all its
//!    tasks, is kept to its domain's nodes ([`Scope`]).
//! 3. **The policy** places the round under that scope.
//! 4. **Repair**: a gang the policy started below `min_member` (placed + running, both kinds)
//!    is left out (`gang_incomplete`) and steps 2–4 run again. One gang per round, the one
//!    furthest from its `min_member` (the later in snapshot order on ties), so that two gangs
//!    the policy interleaved do not both lose their turn; after [`ONE_AT_A_TIME`] rounds every
//!    short gang of a round goes at once. Each gang is left out at most once, so there are at
//!    most gangs + 1 rounds.
//! 5. **The last word**: [`super::enforce::enforce`] holds the answer to both rules (it finds
//!    nothing to change: the scope keeps required domains and step 4 leaves no gang short);
//!    unplaced tasks of a left-out job say why; an unplaced task of a required job that no
//!    node of its domain has room for now says `no_domain_fits`.
//!
//! Without a gang or a topology rule in the snapshot the policy runs once, unscoped: its
//! answer is the one it gave before.

use super::best_fit;
use super::problem::{rules, JobRule};
use super::Scope;
use crate::error::SolveError;
use crate::index::Indexed;
use crate::placement::Placement;
use crate::room::Room;
use placer_models::{Status, WaitReason};

/// Rounds that leave out one short gang each before every short gang of a round goes at once
/// (a bound on the policy runs of an epoch with many gangs).
pub const ONE_AT_A_TIME: usize = 8;

/// Places an epoch by `run` (the policy under a [`Scope`]) in the rounds of the module docs:
/// no gang below `min_member`, every required job in one domain of its level with its running
/// tasks, and the policy's own order inside those limits.
///
/// # Complexity
/// At most gangs + 1 calls of `run`, each after [`best_fit::choose`]; then O(pending · R +
/// unplaced required tasks · domain nodes · R) for the reasons (R resources), and
/// [`super::enforce::enforce`].
///
/// # Errors
/// What `run` returns.
///
/// # Examples
/// A gang of 3 on two nodes that hold one task each: whatever the policy, it waits whole.
/// ```
/// use placer_solver::{gang::rounds, Indexed, Placement};
/// use placer_models::{Status, WaitReason};
/// let req = placer_models::parse_request(br#"{"schema_version": 1,
///   "cluster": {"racks": [{"id": "r"}], "nodes": [
///     {"id": "a", "rack": "r", "resources": {"cpu": 1}},
///     {"id": "b", "rack": "r", "resources": {"cpu": 1}}]},
///   "pools": [{"id": "p"}], "jobs": [{"id": "g", "pool": "p", "gang": {"min_member": 3},
///     "profile": {"map": {"cpu": 1}}}],
///   "pending": [{"id": "t0", "job": "g", "kind": "map"}, {"id": "t1", "job": "g", "kind": "map"},
///               {"id": "t2", "job": "g", "kind": "map"}]}"#).unwrap();
/// let ix = Indexed::new(&req);
/// // A policy that fills both nodes with the gang's first two tasks when it may.
/// let answer = rounds::place(&ix, |scope| {
///     let at = if scope.takes(0) { vec![Some(0), Some(1), None] } else { vec![None; 3] };
///     Ok(Placement::new(at, Status::Heuristic))
/// }).unwrap();
/// assert_eq!(answer.node_of_task, vec![None; 3]);
/// assert_eq!(answer.task_reason, vec![Some(WaitReason::GangIncomplete); 3]);
/// ```
pub fn place(
    ix: &Indexed<'_>,
    run: impl FnMut(&Scope) -> Result<Placement, SolveError>,
) -> Result<Placement, SolveError> {
    rounds(ix, run).map(|r| r.placement)
}

/// What [`rounds`] did.
#[derive(Clone, Debug)]
pub struct Rounds {
    /// The answer ([`place`]'s).
    pub placement: Placement,
    /// Times the policy ran.
    pub runs: usize,
    /// Whether the last word ([`super::enforce::enforce`]) took a placement back: never, when
    /// the scope and the repair did their part (the tests hold them to it).
    pub taken_back: bool,
}

/// [`place`], saying how many rounds it took and whether the last word had anything to do.
///
/// # Complexity
/// As [`place`].
///
/// # Errors
/// What `run` returns.
///
/// # Examples
/// [`place`]'s example takes two runs: the gang is left out after the first.
/// ```
/// use placer_solver::{gang::rounds, Indexed, Placement};
/// let req = placer_models::parse_request(br#"{"schema_version": 1,
///   "cluster": {"racks": [{"id": "r"}], "nodes": [
///     {"id": "a", "rack": "r", "resources": {"cpu": 1}},
///     {"id": "b", "rack": "r", "resources": {"cpu": 1}}]},
///   "pools": [{"id": "p"}], "jobs": [{"id": "g", "pool": "p", "gang": {"min_member": 3},
///     "profile": {"map": {"cpu": 1}}}],
///   "pending": [{"id": "t0", "job": "g", "kind": "map"}, {"id": "t1", "job": "g", "kind": "map"},
///               {"id": "t2", "job": "g", "kind": "map"}]}"#).unwrap();
/// let ix = Indexed::new(&req);
/// let r = rounds::rounds(&ix, |scope| {
///     let at = if scope.takes(0) { vec![Some(0), Some(1), None] } else { vec![None; 3] };
///     Ok(Placement::new(at, placer_models::Status::Heuristic))
/// }).unwrap();
/// assert_eq!((r.runs, r.taken_back), (2, false));
/// ```
pub fn rounds(
    ix: &Indexed<'_>,
    mut run: impl FnMut(&Scope) -> Result<Placement, SolveError>,
) -> Result<Rounds, SolveError> {
    let req = ix.req;
    if req.jobs.iter().all(|j| j.gang.is_none() && j.topology.is_none()) {
        let placement = run(&Scope::open(req.jobs.len()))?;
        return Ok(Rounds { placement, runs: 1, taken_back: false });
    }
    let (jobs, domains) = rules(ix, |_| 0);
    let room = Room::of(ix);
    let mut tasks: Vec<Vec<usize>> = vec![Vec::new(); jobs.len()];
    for kind_tasks in &ix.eligible_of_kind {
        for &t in kind_tasks {
            tasks[ix.pending_job[t] as usize].push(t);
        }
    }
    let mut dropped = left_out(&jobs, &tasks);
    let mut round = 0;
    loop {
        round += 1;
        let scope = best_fit::choose(ix, &room, &jobs, &domains, &tasks, &mut dropped);
        let mut placement = run(&scope)?;
        // A job already left out that the policy placed anyway is for `enforce` to take back.
        let short: Vec<(usize, u64)> = short_gangs(ix, &jobs, &placement.node_of_task)
            .into_iter()
            .filter(|&(j, _)| dropped[j].is_none())
            .collect();
        if short.is_empty() {
            let taken_back = finish(ix, &jobs, &domains, &room, &scope, &mut placement);
            return Ok(Rounds { placement, runs: round, taken_back });
        }
        let worst = short.iter().copied().max_by_key(|&(j, gap)| (gap, j)).map(|(j, _)| j);
        let leave: Vec<usize> = if round < ONE_AT_A_TIME {
            worst.into_iter().collect()
        } else {
            short.iter().map(|&(j, _)| j).collect()
        };
        for j in leave {
            dropped[j] = Some(WaitReason::GangIncomplete);
        }
    }
}

/// Step 1: the jobs that cannot start whatever the others do.
fn left_out(jobs: &[JobRule], tasks: &[Vec<usize>]) -> Vec<Option<WaitReason>> {
    jobs.iter()
        .zip(tasks)
        .map(|(rule, tasks)| {
            let have = tasks.len() as u64 + u64::from(rule.running);
            if rule.gang.is_some_and(|m| have < u64::from(m)) {
                Some(WaitReason::GangIncomplete)
            } else if rule.topology.as_ref().is_some_and(|t| t.required && t.allowed.is_empty()) {
                Some(WaitReason::NoDomainFits)
            } else {
                None
            }
        })
        .collect()
}

/// The gangs `node_of_task` starts below `min_member`, with how far below.
fn short_gangs(
    ix: &Indexed<'_>,
    jobs: &[JobRule],
    node_of_task: &[Option<u32>],
) -> Vec<(usize, u64)> {
    let mut placed = vec![0u64; jobs.len()];
    for (t, n) in node_of_task.iter().enumerate() {
        if n.is_some() {
            placed[ix.pending_job[t] as usize] += 1;
        }
    }
    jobs.iter()
        .enumerate()
        .filter_map(|(j, rule)| {
            let have = placed[j] + u64::from(rule.running);
            let m = u64::from(rule.gang?);
            (placed[j] > 0 && have < m).then(|| (j, m - have))
        })
        .collect()
}

/// Step 5 (module docs); whether the last word took a placement back.
fn finish(
    ix: &Indexed<'_>,
    jobs: &[JobRule],
    domains: &[super::Domains; 3],
    room: &Room,
    scope: &Scope,
    placement: &mut Placement,
) -> bool {
    let pending = ix.req.pending.len();
    placement.task_reason.resize(pending, None);
    let mut after = room.clone();
    for (t, n) in placement.node_of_task.iter().enumerate() {
        if let Some(n) = *n {
            let d = after.demand_of(t).to_vec();
            after.take(n as usize, ix.req.pending[t].kind, &d);
        }
    }
    for kind_tasks in &ix.eligible_of_kind {
        for &t in kind_tasks {
            if placement.node_of_task[t].is_some() {
                continue;
            }
            let j = ix.pending_job[t] as usize;
            if let Some(why) = scope.dropped[j] {
                placement.task_reason[t] = Some(why);
                continue;
            }
            let (Some(topology), Some(d)) = (&jobs[j].topology, scope.domain[j]) else {
                continue;
            };
            if !topology.required || placement.task_reason[t] == Some(WaitReason::NoNodeFits) {
                continue;
            }
            let kind = ix.req.pending[t].kind;
            let demand = after.demand_of(t);
            let members = &domains[topology.level].nodes[d as usize];
            if !members.iter().any(|&n| after.fits(n as usize, kind, demand)) {
                placement.task_reason[t] = Some(WaitReason::NoDomainFits);
            }
        }
    }
    let changed =
        super::enforce::enforce(ix, &mut placement.node_of_task, &mut placement.task_reason);
    if changed && placement.status == Status::Optimal {
        placement.status = Status::Heuristic;
    }
    changed
}
