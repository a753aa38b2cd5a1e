//! Starvation handling for gangs, after FAIR §3.2's timeouts (Zaharia et al.: a job that has
//! not reached its share when a timeout expires gets slots back), by waiting rather than
//! killing: a gang that has waited too long holds the slots that free up in one domain until
//! it fits there.
//!
//! # Why reserve, and not preempt
//!
//! A gang needs `min_member` − running slots at once, in one domain when its topology is
//! `required`. MapReduce tasks refill every slot as it frees, so under any placement a gang of a
//! whole rack starts only when that rack drains by chance, which on a busy cluster may be never.
//! FAIR answers a starved job with two of three remedies: wait for tasks to finish, or kill
//! tasks of other pools' jobs once a timeout expires. placer answers placements and has no way
//! to kill a running task, and killing wastes the work done (FAIR kills "the most recently
//! launched tasks" to limit that). So placer waits, and makes the wait end: from the timeout on,
//! the slots that free up in the gang's domain are kept free for it. The domain drains as its
//! tasks finish (within one task length, FAIR's "every minute, we can reassign every slot"),
//! nothing is killed, and what the hold costs (idle slots while the domain drains) shows in the
//! simulator's utilisation.
//!
//! # The rule, per epoch (stateless: everything comes from the snapshot)
//!
//! A gang job j is **starving** when it has not started (running < `min_member`), its eligible
//! pending tasks could make it whole, `now_s − submit_s ≥ gang_reserve_after_s`, it runs below
//! its fair share of a kind it has pending (FAIR's condition; `FairShares::job`), and its pool
//! can start it within the pool's fair share (running + need ≤ ⌈share⌉ over the gang's kinds:
//! FAIR never takes another pool below its share for a starved one).
//! Starving gangs are served oldest first (submit time, then snapshot order); each takes one
//! domain among those it may use (its `required` level's allowed domains; for `preferred` those
//! first, then the whole cluster; without topology the whole cluster), on nodes no earlier
//! reservation holds:
//! - a domain whose configured slots (of the kinds it has pending) can hold its need at all;
//! - among them, one whose free slots hold the need now, if any: the gang **goes first** this
//!   epoch ([`GangProblem::first`]);
//! - else the one with the most free slots for it (ties: the lowest index), and in it the
//!   fewest nodes that can hold the need, most free first (ties: the lowest index): their free
//!   slots of the gang's kinds are **held** ([`GangProblem::free`] set to 0), for no task of any
//!   job this epoch. Held slots only grow there from epoch to epoch, so the same domain stays
//!   the one with the most free slots and the choice is stable without state. At most
//!   `gang_reserve_max` gangs hold slots at once (default 1, the oldest: EASY backfilling's
//!   single reservation at the head of the queue); the younger ones wait their turn, and every
//!   other job fills the slots no hold covers.
//!
//! A gang that no domain can ever hold is not served (it waits with `no_domain_fits`).

use super::GangProblem;
use crate::settings::Settings;
use placer_models::{ModelError, TaskKind, WaitReason};
use serde::{Deserialize, Serialize};

/// The knob of starvation handling for gangs (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(default)]
pub struct GangReserve {
    /// Seconds a gang waits (from its job's `submit_s` to `now_s`) before the slots that free
    /// up in one domain are held for it, while its job runs below its fair share (FAIR §3.2's
    /// timeout); finite, ≥ 0. Default 60. A value longer than any wait turns reservations off.
    pub gang_reserve_after_s: f64,
    /// How many starving gangs may hold slots at once (the oldest first); 0 turns holding off
    /// (a starving gang that fits still goes first). Default 1, as EASY backfilling reserves
    /// for the job at the head of the queue only: every hold idles slots while its domain
    /// drains, and on the `gang-mix` workload a second hold cost the MapReduce jobs more
    /// response time than it saved the gangs in wait (BENCHMARKS.md, "Gangs over time").
    pub gang_reserve_max: u32,
}

impl Default for GangReserve {
    fn default() -> Self {
        Self { gang_reserve_after_s: 60.0, gang_reserve_max: 1 }
    }
}

impl Settings for GangReserve {
    const NAME: &'static str = "gang reservation";
    fn check(&self) -> Result<(), ModelError> {
        let t = self.gang_reserve_after_s;
        if t.is_finite() && t >= 0.0 {
            Ok(())
        } else {
            Err(ModelError::InvalidNumber {
                path: "policy.gang_reserve_after_s".to_owned(),
                message: format!("must be finite seconds ≥ 0, got {t}"),
            })
        }
    }
}

/// Slots of some nodes, `[free, configured][kind]`.
type Room = [[u64; 2]; 2];

/// One starving gang's reservation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reservation {
    /// The gang's job (index).
    pub job: u32,
    /// The nodes held for it (the fewest that hold its need once drained), or, when it fits,
    /// the fewest whose free slots hold it now; no later reservation takes them.
    pub nodes: Vec<u32>,
    /// Whether it fits now (it goes first) rather than holding the nodes' free slots.
    pub fits: bool,
}

/// Serves the starving gangs of `p` (module docs): sets [`GangProblem::first`] for those that
/// fit now and lowers [`GangProblem::free`] on the nodes held for the oldest
/// `knobs.gang_reserve_max` of the others.
///
/// # Complexity
/// O(jobs log jobs + pending + nodes) plus, per starving gang, O(its allowed domains), and per
/// gang served, O(d log d) for its domain of d nodes.
///
/// # Errors
/// None.
///
/// # Examples
/// Two racks of two one-slot nodes, two pools of weight 1. A rack-required gang of 2 (pool q,
/// submitted at 0 s) waits at 100 s, past the 60 s default, while job `m` (pool p) runs on a, c
/// and d; b is free. Fair shares: 2 slots each pool, and `g` runs none of its 2. The gang
/// cannot start anywhere now, so rack r0 (one free slot, the most) is held: b's slot is kept
/// from `m`'s pending map.
/// ```
/// use placer_solver::{fair::fair_shares, gang::{self, reservation}, Indexed, LocalityCost};
/// let req = placer_models::parse_request(br#"{"schema_version": 1, "now_s": 100,
///   "cluster": {"racks": [{"id": "r0"}, {"id": "r1"}], "nodes": [
///     {"id": "a", "rack": "r0", "map_slots": 1}, {"id": "b", "rack": "r0", "map_slots": 1},
///     {"id": "c", "rack": "r1", "map_slots": 1}, {"id": "d", "rack": "r1", "map_slots": 1}]},
///   "pools": [{"id": "p"}, {"id": "q"}],
///   "jobs": [{"id": "g", "pool": "q", "gang": {"min_member": 2},
///             "topology": {"level": "rack", "mode": "required"}},
///            {"id": "m", "pool": "p", "submit_s": 50}],
///   "running": [{"id": "x", "job": "m", "kind": "map", "node": "a"},
///               {"id": "y", "job": "m", "kind": "map", "node": "c"},
///               {"id": "z", "job": "m", "kind": "map", "node": "d"}],
///   "pending": [{"id": "g0", "job": "g", "kind": "map"}, {"id": "g1", "job": "g", "kind": "map"},
///               {"id": "m0", "job": "m", "kind": "map"}]}"#).unwrap();
/// let ix = Indexed::new(&req);
/// let (model, shares) = (LocalityCost::new(&ix), fair_shares::compute(&ix));
/// let mut p = gang::GangProblem::new(&ix, &model, &shares, None).unwrap();
/// let held = reservation::reserve(&mut p, reservation::GangReserve::default());
/// assert_eq!(held, vec![reservation::Reservation { job: 0, nodes: vec![0, 1], fits: false }]);
/// assert_eq!(p.free[0], vec![0, 0, 0, 0]);
/// ```
pub fn reserve(p: &mut GangProblem<'_>, knobs: GangReserve) -> Vec<Reservation> {
    let (after_s, max_holds) = (knobs.gang_reserve_after_s, knobs.gang_reserve_max);
    let mut holds = 0u32;
    let ix = p.ix;
    let req = ix.req;
    let mut pending = vec![[0u64; 2]; p.jobs.len()];
    for (k, tasks) in p.tasks.iter().enumerate() {
        for &t in tasks {
            pending[ix.pending_job[t] as usize][k] += 1;
        }
    }
    // Running tasks per pool and kind.
    let mut pool_running = vec![[0u64; 2]; p.shares.pool.len()];
    for j in 0..p.jobs.len() {
        if let Some(r) = pool_running.get_mut(ix.job_pool[j] as usize) {
            for (k, r) in r.iter_mut().enumerate() {
                *r += u64::from(ix.job_running[k][j]);
            }
        }
    }
    let mut starving: Vec<(usize, u64)> = (0..p.jobs.len())
        .filter_map(|j| {
            let rule = &p.jobs[j];
            let need = u64::from(rule.gang?).checked_sub(u64::from(rule.running))?;
            let waited = req.now_s - req.jobs[j].submit_s;
            let below_share = (0..2)
                .any(|k| pending[j][k] > 0 && f64::from(ix.job_running[k][j]) < p.shares.job[j][k]);
            // Its pool can start it within the pool's fair share (FAIR never brings another
            // pool below its share).
            let pool = ix.job_pool[j] as usize;
            let (used, share) =
                (0..2).filter(|&k| pending[j][k] > 0).fold((0, 0.0), |(u, s), k| {
                    (u + pool_running.get(pool).map_or(0, |r| r[k]), s + p.shares.pool[pool][k])
                });
            let in_share = (used + need) as f64 <= share.ceil();
            let whole = pending[j][0] + pending[j][1] >= need;
            let open = p.blocked[j] != Some(WaitReason::GangIncomplete);
            (need > 0 && whole && open && waited >= after_s && below_share && in_share)
                .then_some((j, need))
        })
        .collect();
    if starving.is_empty() {
        return Vec::new();
    }
    starving.sort_by(|a, b| req.jobs[a.0].submit_s.total_cmp(&req.jobs[b.0].submit_s));
    let configured: [Vec<u64>; 2] = [TaskKind::Map, TaskKind::Reduce].map(|kind| {
        req.cluster.nodes.iter().map(|n| u64::from(n.configured_slots(kind))).collect()
    });
    let free: [Vec<u64>; 2] = [0, 1].map(|k| p.free[k].iter().map(|&f| u64::from(f)).collect());
    // Free and configured slots ([free, configured][kind]) on the nodes no reservation took:
    // the whole cluster's, and per domain of each level the jobs name.
    let mut total: Room = [[0; 2]; 2];
    let mut sums: [Vec<Room>; 3] = Default::default();
    for (level, sum) in sums.iter_mut().enumerate() {
        *sum = vec![[[0; 2]; 2]; p.domains[level].nodes.len()];
    }
    let take_out = |n: usize, sign: i8, total: &mut Room, sums: &mut [Vec<Room>; 3]| {
        let at = [[free[0][n], free[1][n]], [configured[0][n], configured[1][n]]];
        let add = |s: &mut Room| {
            for (w, row) in s.iter_mut().enumerate() {
                for (k, v) in row.iter_mut().enumerate() {
                    *v = if sign > 0 { *v + at[w][k] } else { v.saturating_sub(at[w][k]) };
                }
            }
        };
        add(total);
        for (level, sum) in sums.iter_mut().enumerate() {
            if let Some(Some(d)) = p.domains[level].of_node.get(n) {
                add(&mut sum[*d as usize]);
            }
        }
    };
    for n in 0..ix.node_rack.len() {
        take_out(n, 1, &mut total, &mut sums);
    }
    let mut held = vec![false; ix.node_rack.len()];
    let mut out = Vec::new();
    for (j, need) in starving {
        let want = pending[j];
        // Slots of the gang's kinds (capped per kind by what it has pending): 0 free, 1 configured.
        let room = |s: &Room, w: usize| (0..2).map(|k| s[w][k].min(want[k])).sum::<u64>();
        // Candidate domains: (level and domain, or None for the whole cluster; their sums).
        let mut cands: Vec<(Option<(usize, u32)>, Room)> = Vec::new();
        match &p.jobs[j].topology {
            Some(rule) => {
                let level = rule.level;
                cands.extend(
                    rule.allowed.iter().map(|&d| (Some((level, d)), sums[level][d as usize])),
                );
                if !rule.required {
                    cands.push((None, total));
                }
            }
            None => cands.push((None, total)),
        }
        cands.retain(|c| room(&c.1, 1) >= need);
        // The first domain that fits now, else the first with the most free slots.
        let pick = cands.iter().position(|c| room(&c.1, 0) >= need).map(|i| (i, true));
        let pick = pick.or_else(|| {
            let most = cands.iter().map(|c| room(&c.1, 0)).max()?;
            cands.iter().position(|c| room(&c.1, 0) == most).map(|i| (i, false))
        });
        let Some((i, fits)) = pick else { continue };
        if !fits && holds >= max_holds {
            continue;
        }
        holds += u32::from(!fits);
        // The fewest of its nodes that hold the need (now when it fits, else once drained),
        // most free first.
        let mut nodes: Vec<u32> = match cands[i].0 {
            Some((level, d)) => p.domains[level].nodes[d as usize].clone(),
            None => (0..ix.node_rack.len() as u32).collect(),
        };
        nodes.retain(|&n| !held[n as usize]);
        let gang_free = |n: u32| (0..2).map(|k| free[k][n as usize].min(want[k])).sum::<u64>();
        nodes.sort_by_key(|&n| (std::cmp::Reverse(gang_free(n)), n));
        let per = if fits { &free } else { &configured };
        let (mut sum, mut take) = ([0u64; 2], 0);
        while take < nodes.len() && (0..2).map(|k| sum[k].min(want[k])).sum::<u64>() < need {
            for (k, s) in sum.iter_mut().enumerate() {
                *s += per[k][nodes[take] as usize];
            }
            take += 1;
        }
        nodes.truncate(take);
        nodes.sort_unstable();
        for &n in &nodes {
            held[n as usize] = true;
            take_out(n as usize, -1, &mut total, &mut sums);
            if !fits {
                for k in (0..2).filter(|&k| want[k] > 0) {
                    p.free[k][n as usize] = 0;
                }
            }
        }
        if fits {
            p.first[j] = true;
        }
        out.push(Reservation { job: j as u32, nodes, fits });
    }
    out
}
