//! Kueue TAS's `BestFit` domain choice (Kueue KEP-2724, "Computing the assignment") on the
//! nodes' multi-resource room (`crate::room`, RAS §3.1's job slots made of resources): one
//! topology domain per job for the multi-resource policies' gang rounds
//! ([`super::rounds`]), a gang's need being KEP-4671's `minCount` (Volcano's `minMember`).
//!
//! Per topology job, in snapshot order, among its allowed domains
//! ([`super::problem::Rule::allowed`]): `fit`(d) = how many of its eligible pending tasks
//! (maps, then reduces, each in pending order) a first-fit packing puts on d's nodes (node
//! order; demands and slots as [`Room::fits`] decides; intermediate space and copy-compute caps
//! are left to the policy); `spare`(d) = Σ over d's nodes and the resources r with a cluster
//! total T_r > 0 of (room left after the packing) / T_r (dimensionless). The domain ranked
//! highest by (fit ≥ need, fit ≥ all its tasks, its maps with a replica in d, least spare
//! (best fit), lowest index) wins, where need = `min_member` − running tasks (at least 1; 1
//! without a gang). The packing is first taken from the room left by the jobs chosen before
//! (reservations, so that two gangs that fit only one at a time do not pick the same domain);
//! when no domain fits the need there, from the whole free room (the policy then decides which
//! of the two starts). No domain fits the need even so: a `required` job waits
//! (`no_domain_fits`); a `preferred` one is left free. A required job is kept to its domain's
//! nodes; a preferred one only when the domain fits all its tasks (else it may spill).

use super::problem::{JobRule, Rule};
use super::{Domains, Scope};
use crate::index::Indexed;
use crate::room::Room;
use placer_models::{TaskKind, WaitReason};

/// The scope of one round: `dropped` (per job; required jobs that no domain fits are added to
/// it) and the domain of each topology job (module docs). `tasks` holds each job's eligible
/// pending tasks, maps then reduces, in pending order.
///
/// # Complexity
/// O(Σ over topology jobs of (allowed domains' nodes + domains · tasks) · resources) when the
/// job's tasks share a demand (the packing's cursor then skips each full node once); at worst
/// O(tasks · domain nodes · resources) per domain.
///
/// # Errors
/// None.
///
/// # Examples
/// Two racks, each node with 2 CPUs; rack r0 has one node, r1 two: a rack-required gang of 3
/// one-CPU maps fits r1 only (r0 fits 2), so it is kept to r1's nodes.
/// ```
/// use placer_solver::{gang::{best_fit::choose, problem::rules}, Indexed, Room};
/// let req = placer_models::parse_request(br#"{"schema_version": 1,
///   "cluster": {"racks": [{"id": "r0"}, {"id": "r1"}], "nodes": [
///     {"id": "a", "rack": "r0", "resources": {"cpu": 2}},
///     {"id": "b", "rack": "r1", "resources": {"cpu": 2}},
///     {"id": "c", "rack": "r1", "resources": {"cpu": 2}}]},
///   "pools": [{"id": "p"}], "jobs": [{"id": "g", "pool": "p", "gang": {"min_member": 3},
///     "topology": {"level": "rack", "mode": "required"}, "profile": {"map": {"cpu": 1}}}],
///   "pending": [{"id": "t0", "job": "g", "kind": "map"}, {"id": "t1", "job": "g", "kind": "map"},
///               {"id": "t2", "job": "g", "kind": "map"}]}"#).unwrap();
/// let ix = Indexed::new(&req);
/// let (jobs, domains) = rules(&ix, |_| 0);
/// let tasks = vec![vec![0, 1, 2]];
/// let scope = choose(&ix, &Room::of(&ix), &jobs, &domains, &tasks, &mut vec![None]);
/// assert_eq!(scope.domain, vec![Some(1)]);
/// assert_eq!(scope.nodes, vec![Some(vec![false, true, true])]);
/// ```
pub fn choose(
    ix: &Indexed<'_>,
    room: &Room,
    jobs: &[JobRule],
    domains: &[Domains; 3],
    tasks: &[Vec<usize>],
    dropped: &mut [Option<WaitReason>],
) -> Scope {
    let mut scope = Scope::open(jobs.len());
    let totals = room.totals();
    let mut left = room.clone();
    let mut whole = room.clone();
    for (j, rule) in jobs.iter().enumerate() {
        let Some(topology) = &rule.topology else { continue };
        if dropped[j].is_some() {
            continue;
        }
        let need = match rule.gang {
            Some(m) => u64::from(m).saturating_sub(u64::from(rule.running)).max(1),
            None => 1,
        };
        let all = tasks[j].len() as u64;
        let nodes = &domains[topology.level].nodes;
        let mut best = rank(ix, &mut left, &totals, nodes, topology, &tasks[j], need, all);
        if best.is_none_or(|b| b.fit < need) {
            best = rank(ix, &mut whole, &totals, nodes, topology, &tasks[j], need, all)
                .filter(|b| b.fit >= need);
        }
        let Some(best) = best.filter(|b| b.fit >= need) else {
            if topology.required {
                dropped[j] = Some(WaitReason::NoDomainFits);
            }
            continue;
        };
        let members = &nodes[best.domain as usize];
        pack(ix, &mut left, members, &tasks[j], &mut Vec::new());
        scope.domain[j] = Some(best.domain);
        if topology.required || best.fit >= all {
            let mut mask = vec![false; room.nodes()];
            for &n in members {
                mask[n as usize] = true;
            }
            scope.nodes[j] = Some(mask);
        }
    }
    scope.dropped = dropped.to_vec();
    scope
}

/// A domain's standing for one job.
#[derive(Clone, Copy, Debug)]
struct Ranked {
    domain: u32,
    fit: u64,
    local: u64,
    spare: f64,
}

/// The best of `topology`'s allowed domains for tasks `tasks` on `room` (module docs' key),
/// `room` left as it was.
#[allow(clippy::too_many_arguments)]
fn rank(
    ix: &Indexed<'_>,
    room: &mut Room,
    totals: &[f64],
    nodes: &[Vec<u32>],
    topology: &Rule,
    tasks: &[usize],
    need: u64,
    all: u64,
) -> Option<Ranked> {
    let r = room.resources();
    let mut best: Option<Ranked> = None;
    let mut log = Vec::new();
    for &d in &topology.allowed {
        let members = &nodes[d as usize];
        log.clear();
        let fit = pack(ix, room, members, tasks, &mut log);
        let spare: f64 = members
            .iter()
            .map(|&n| {
                (0..r)
                    .filter(|&k| totals[k] > 0.0)
                    .map(|k| room.headroom(n as usize, k).max(0.0) / totals[k])
                    .sum::<f64>()
            })
            .sum();
        for &(n, t) in &log {
            let d = room.demand_of(t).to_vec();
            room.give(n as usize, ix.req.pending[t].kind, &d);
        }
        let local = tasks
            .iter()
            .filter(|&&t| {
                ix.req.pending[t].kind == TaskKind::Map
                    && ix.replicas[t].iter().any(|&n| members.contains(&n))
            })
            .count() as u64;
        let here = Ranked { domain: d, fit, local, spare };
        let better = match best {
            None => true,
            Some(b) => {
                let key = |x: &Ranked| (x.fit >= need, x.fit >= all, x.local);
                key(&here).cmp(&key(&b)).then(b.spare.total_cmp(&here.spare)).is_gt()
            }
        };
        if better {
            best = Some(here);
        }
    }
    best
}

/// First-fit of `tasks` on `members` (in order), taking their room; returns how many fit and
/// logs each (node, task) taken. Tasks with the demand and kind of the one before resume from
/// the node where it went (the nodes before it had no room for that demand, and room only
/// shrinks).
fn pack(
    ix: &Indexed<'_>,
    room: &mut Room,
    members: &[u32],
    tasks: &[usize],
    log: &mut Vec<(u32, usize)>,
) -> u64 {
    let mut placed = 0;
    let mut from = 0;
    let mut prev: Option<usize> = None;
    for &t in tasks {
        let kind = ix.req.pending[t].kind;
        let d = room.demand_of(t).to_vec();
        let same = prev.is_some_and(|p| ix.req.pending[p].kind == kind && room.demand_of(p) == d);
        if !same {
            from = 0;
        }
        prev = Some(t);
        while from < members.len() && !room.fits(members[from] as usize, kind, &d) {
            from += 1;
        }
        let Some(&n) = members.get(from) else { continue };
        room.take(n as usize, kind, &d);
        log.push((n, t));
        placed += 1;
    }
    placed
}
