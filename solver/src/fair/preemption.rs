//! Min-share and fair-share preemption (Hadoop Fair Scheduler design doc §3.3 and §4.5; FAIR
//! §3.2). After this epoch's placement, per slot kind, a pool starved past a timeout (see
//! [`crate::fair::starvation`]) asks for
//! - ⌈min(m, d) − r⌉ tasks when starved for its min share,
//! - ⌈min(f, d) − r⌉ tasks when starved for its fair share (it starves below *half* its fair
//!   share but preempts up to the whole of it),
//!
//! the larger of the two (design doc: `tasksToPreempt`), where r counts running and
//! just-assigned tasks. Victims: "the most recently launched tasks from over-scheduled pools"
//! (`started_s` latest first; no start time = `now_s`; ties: later in `running` first), taken
//! only from pools that are not starved and run more than their fair share, and only while the
//! victim's pool keeps at least its fair share ("we never bring a job below its fair share").
//! Starved pools are served in snapshot order. The freed slots are filled next epoch.
//! O(running log running) per kind.

use crate::fair::fair_shares::FairShares;
use crate::fair::starvation::Starvation;
use crate::index::Indexed;
use placer_models::PreemptionReason;

/// One running task to kill.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Victim {
    /// Position in `running`.
    pub running: usize,
    /// Why.
    pub reason: PreemptionReason,
    /// The starved pool the slot is for.
    pub for_pool: usize,
}

/// Victims for every starved pool, given pools' running tasks after placement (`[map,
/// reduce]` per pool). Maps first, then reduces; each in the order chosen. A pool p starved
/// for kind k asks for max(⌈min(m, d) − r⌉, ⌈min(f, d) − r⌉) tasks (each term only when
/// overdue, in tasks); victims are the latest-started running tasks of pools that are not
/// starved and run above their fair share, while each such pool stays at or above it.
///
/// # Complexity
/// O(pools + running · (starved pools + log running)) time per kind (filtering and sorting
/// the candidates); O(pools + running) space.
///
/// # Errors
/// None: a starved pool that finds no victim is data (it asks again next epoch).
///
/// # Examples
/// Design doc §3.3 (FAIR §3.2's `Tmin`): both map slots are held by pool a's job, started at
/// 10 s and 20 s; pool b has min share 1, one pending map and has been below it since 80 s,
/// past its 5 s timeout at 100 s. `fair` cannot place b's map (no slot is free), so b asks
/// for ⌈1 − 0⌉ = 1 task and a (2 running, fair share 1) gives up its most recently launched
/// one, keeping its share. The slot is filled next epoch.
/// ```
/// use placer_models::PreemptionReason;
/// let req = placer_models::parse_request(br#"{"schema_version": 1, "now_s": 100,
///   "cluster": {"racks": [{"id": "r"}],
///     "nodes": [{"id": "n", "rack": "r", "map_slots": 2}]},
///   "pools": [{"id": "a"}, {"id": "b", "min_map_share": 1, "min_share_timeout_s": 5,
///     "starvation": {"map": {"at_min_share_s": 80}}}],
///   "jobs": [{"id": "ja", "pool": "a"}, {"id": "jb", "pool": "b"}],
///   "running": [{"id": "a0", "job": "ja", "kind": "map", "node": "n", "started_s": 10},
///               {"id": "a1", "job": "ja", "kind": "map", "node": "n", "started_s": 20}],
///   "pending": [{"id": "b0", "job": "jb", "kind": "map"}],
///   "policy": {"algorithm": "fair"}}"#).unwrap();
/// let answer = placer_solver::place(&req, &Default::default()).unwrap();
/// assert!(answer.assignments.is_empty());
/// assert_eq!(answer.preemptions.len(), 1);
/// let victim = &answer.preemptions[0];
/// assert_eq!((victim.task.as_str(), victim.node.as_str()), ("a1", "n"));
/// assert_eq!((victim.reason, victim.for_pool.as_str()), (PreemptionReason::MinShare, "b"));
/// ```
pub fn plan(
    ix: &Indexed<'_>,
    shares: &FairShares,
    starvation: &Starvation,
    running_after: &[[f64; 2]],
) -> Vec<Victim> {
    let req = ix.req;
    let mut victims = Vec::new();
    for k in 0..2 {
        let mut starved: Vec<(usize, u64, PreemptionReason)> = Vec::new();
        for (p, after) in running_after.iter().enumerate() {
            let r = after[k];
            let need = |target: f64| (target - r).ceil().max(0.0) as u64;
            let by_min = if starvation.min_share_overdue(k, p, r) {
                need(starvation.min_target(k, p))
            } else {
                0
            };
            let by_fair = if starvation.fair_share_overdue(k, p, r) {
                need(starvation.fair_target(k, p))
            } else {
                0
            };
            if by_min > 0 && by_min >= by_fair {
                starved.push((p, by_min, PreemptionReason::MinShare));
            } else if by_fair > 0 {
                starved.push((p, by_fair, PreemptionReason::FairShare));
            }
        }
        if starved.is_empty() {
            continue;
        }
        let is_starved = |p: usize| starved.iter().any(|s| s.0 == p);
        let mut count: Vec<f64> = running_after.iter().map(|a| a[k]).collect();
        let mut candidates: Vec<usize> = (0..req.running.len())
            .filter(|&t| {
                let task = &req.running[t];
                let p = ix.job_pool[ix.running_job[t] as usize] as usize;
                task.kind.slot() == k && !is_starved(p) && count[p] > shares.pool[p][k]
            })
            .collect();
        let started = |t: usize| req.running[t].started_s.unwrap_or(req.now_s);
        candidates.sort_by(|&a, &b| started(b).total_cmp(&started(a)).then(b.cmp(&a)));
        let mut next = candidates.into_iter();
        'pools: for (p, need, reason) in starved {
            for _ in 0..need {
                let victim = next.by_ref().find(|&t| {
                    let q = ix.job_pool[ix.running_job[t] as usize] as usize;
                    count[q] - 1.0 >= shares.pool[q][k]
                });
                let Some(t) = victim else { break 'pools };
                count[ix.job_pool[ix.running_job[t] as usize] as usize] -= 1.0;
                victims.push(Victim { running: t, reason, for_pool: p });
            }
        }
    }
    victims
}
