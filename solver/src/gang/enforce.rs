//! The last word on gangs and required domains (KEP-4671's all-or-nothing rule, Kueue's
//! `podset-required-topology`): after the pipeline's intermediate-space admission (FAIR §5.4,
//! which may move a map or make it wait), an answer is held to both rules again, so that no
//! path through the pipeline starts a gang below `min_member` or leaves a required domain.

use super::problem::{rules, Domains, JobRule};
use crate::index::Indexed;
use placer_models::WaitReason;

/// Holds `node_of_task` (by pending position) to the jobs' rules: a required job's placements
/// outside the allowed domain that holds most of them are taken back (`no_domain_fits`), then
/// the parts of slices ([`trim_slices`]), then a gang placed below `min_member` (running tasks
/// counted) loses all its placements (`gang_incomplete`). Returns whether anything changed; `reason` (by pending position, grown
/// as needed) gets the reasons of the tasks taken back.
///
/// # Complexity
/// O(pending + jobs + nodes · log nodes + running tasks).
///
/// # Errors
/// None.
///
/// # Examples
/// A gang of 2 with one task placed and none running loses it:
/// ```
/// use placer_solver::{gang::enforce::enforce, Indexed};
/// let req = placer_models::parse_request(br#"{"schema_version": 1,
///   "cluster": {"racks": [{"id": "r"}], "nodes": [{"id": "a", "rack": "r", "map_slots": 1}]},
///   "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p", "gang": {"min_member": 2}}],
///   "pending": [{"id": "t0", "job": "j", "kind": "map"}, {"id": "t1", "job": "j", "kind": "map"}]}"#)
///   .unwrap();
/// let ix = Indexed::new(&req);
/// let (mut at, mut why) = (vec![Some(0), None], Vec::new());
/// assert!(enforce(&ix, &mut at, &mut why));
/// assert_eq!(at, vec![None, None]);
/// assert_eq!(why[0], Some(placer_models::WaitReason::GangIncomplete));
/// ```
pub fn enforce(
    ix: &Indexed<'_>,
    node_of_task: &mut [Option<u32>],
    reason: &mut Vec<Option<WaitReason>>,
) -> bool {
    if ix.req.jobs.iter().all(|j| j.gang.is_none() && j.topology.is_none()) {
        return false;
    }
    let (jobs, domains) = rules(ix, |_| 0);
    reason.resize(node_of_task.len(), None);
    let mut changed = false;
    let take_back = |t: usize, why: WaitReason, at: &mut [Option<u32>], r: &mut [Option<_>]| {
        at[t] = None;
        r[t] = Some(why);
    };
    // Required domains: keep the allowed domain that holds most placements (lowest on ties).
    for (j, rule) in jobs.iter().enumerate() {
        let Some(topology) = rule.topology.as_ref().filter(|t| t.required) else { continue };
        let of_node = &domains[topology.level].of_node;
        let domain_of = |n: u32| of_node.get(n as usize).copied().flatten();
        let mut count: std::collections::BTreeMap<u32, u64> = Default::default();
        for (t, n) in node_of_task.iter().enumerate() {
            if let (Some(n), true) = (n, ix.pending_job[t] as usize == j) {
                if let Some(d) = domain_of(*n).filter(|d| topology.allowed.contains(d)) {
                    *count.entry(d).or_default() += 1;
                }
            }
        }
        let keep = count.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0))).map(|(&d, _)| d);
        for t in 0..node_of_task.len() {
            if let (Some(n), true) = (node_of_task[t], ix.pending_job[t] as usize == j) {
                if domain_of(n) != keep || keep.is_none() {
                    take_back(t, WaitReason::NoDomainFits, node_of_task, reason);
                    changed = true;
                }
            }
        }
    }
    changed |= trim_slices(ix, &jobs, &domains, node_of_task, Some(reason));
    let mut placed = vec![0u64; jobs.len()];
    for (t, n) in node_of_task.iter().enumerate() {
        if n.is_some() {
            placed[ix.pending_job[t] as usize] += 1;
        }
    }
    for t in 0..node_of_task.len() {
        let j = ix.pending_job[t] as usize;
        let rule = &jobs[j];
        let short = rule.gang.is_some_and(|m| placed[j] + u64::from(rule.running) < u64::from(m));
        if short && placed[j] > 0 {
            if node_of_task[t].is_some() {
                take_back(t, WaitReason::GangIncomplete, node_of_task, reason);
                changed = true;
            } else if reason[t].is_none() {
                reason[t] = Some(WaitReason::GangIncomplete);
            }
        }
    }
    changed
}

/// Takes back what breaks a job's slices (Kueue TAS's `podset-slice-size`): its placements on
/// nodes outside every domain of the slice level, and in each such domain the last (by pending
/// position) `count mod size` of them, so that every domain keeps whole slices. The tasks taken
/// back wait with `no_domain_fits` when `reason` is given. Returns whether anything changed.
///
/// # Complexity
/// O(pending + jobs) plus O(log domains) per placement of a job with slices.
///
/// # Errors
/// None.
///
/// # Examples
/// Slices of 2 per node: 3 tasks on one node keep 2.
/// ```
/// use placer_solver::{gang::{enforce::trim_slices, problem::rules}, Indexed};
/// let req = placer_models::parse_request(br#"{"schema_version": 1,
///   "cluster": {"racks": [{"id": "r"}], "nodes": [{"id": "a", "rack": "r", "map_slots": 3}]},
///   "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p", "topology": {"level": "rack",
///     "mode": "required", "slice": {"level": "node", "size": 2}}}],
///   "pending": [{"id": "t0", "job": "j", "kind": "map"}, {"id": "t1", "job": "j", "kind": "map"},
///               {"id": "t2", "job": "j", "kind": "map"}]}"#).unwrap();
/// let ix = Indexed::new(&req);
/// let (jobs, domains) = rules(&ix, |_| 0);
/// let mut at = vec![Some(0), Some(0), Some(0)];
/// assert!(trim_slices(&ix, &jobs, &domains, &mut at, None));
/// assert_eq!(at, vec![Some(0), Some(0), None]);
/// ```
pub fn trim_slices(
    ix: &Indexed<'_>,
    jobs: &[JobRule],
    domains: &[Domains; 3],
    node_of_task: &mut [Option<u32>],
    mut reason: Option<&mut Vec<Option<WaitReason>>>,
) -> bool {
    if jobs.iter().all(|r| r.slice.is_none()) {
        return false;
    }
    let domain_of = |t: usize, n: u32| -> Option<(usize, Option<u32>)> {
        let (level, _) = jobs.get(*ix.pending_job.get(t)? as usize)?.slice?;
        Some((level, domains[level].of_node.get(n as usize).copied().flatten()))
    };
    let mut count: std::collections::BTreeMap<(u32, u32), u64> = Default::default();
    for (t, n) in node_of_task.iter().enumerate() {
        if let Some((_, Some(d))) = n.and_then(|n| domain_of(t, n)) {
            *count.entry((ix.pending_job[t], d)).or_default() += 1;
        }
    }
    // Per (job, domain): how many of its last placements go.
    let mut excess: std::collections::BTreeMap<(u32, u32), u64> = count
        .into_iter()
        .filter_map(|((j, d), c)| {
            let size = u64::from(jobs[j as usize].slice?.1.max(1));
            (c % size > 0).then_some(((j, d), c % size))
        })
        .collect();
    let mut changed = false;
    for t in (0..node_of_task.len()).rev() {
        let Some(n) = node_of_task[t] else { continue };
        let drop = match domain_of(t, n) {
            None => false,
            Some((_, None)) => true,
            Some((_, Some(d))) => match excess.get_mut(&(ix.pending_job[t], d)) {
                Some(left) if *left > 0 => {
                    *left -= 1;
                    true
                }
                _ => false,
            },
        };
        if drop {
            node_of_task[t] = None;
            if let Some(r) = reason.as_deref_mut() {
                if r.len() <= t {
                    r.resize(t + 1, None);
                }
                r[t] = Some(WaitReason::NoDomainFits);
            }
            changed = true;
        }
    }
    changed
}
