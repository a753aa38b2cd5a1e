//! Starvation of pools, for preemption and for delay scheduling (Hadoop Fair Scheduler design
//! doc §3.3 and §4.5; FAIR §3.2 `Tmin`, `Tfair`). Per pool and slot kind, with r = running
//! tasks, d = demand (running + pending of runnable jobs), m = min share, f = fair share:
//! - below min share ⇔ r < min(m, d); starved for it once `now_s − at_min_share_s` >
//!   `min_share_timeout_s`;
//! - below half fair share ⇔ r < min(f, d) / 2; starved once `now_s − at_half_fair_share_s` >
//!   `fair_share_timeout_s`.
//!
//! The clocks hold the last time the pool was *not* below; the master echoes them
//! (`pools[].starvation`), a missing clock reads as `now_s`. The clocks returned are measured
//! after this epoch's placement (and preemptions do not count: the freed slots are filled next
//! epoch). O(pools + jobs) per kind.

use crate::fair_shares::FairShares;
use crate::index::Indexed;
use placer_models::{StarvationClock, StarvationState};

/// Starvation inputs of every pool, per kind (`[map, reduce]`).
#[derive(Clone, Debug)]
pub struct Starvation {
    now: f64,
    /// min(m, d) per kind and pool.
    min_target: [Vec<f64>; 2],
    /// min(f, d) per kind and pool.
    fair_target: [Vec<f64>; 2],
    /// Running tasks before placement, per kind and pool.
    pub running: [Vec<f64>; 2],
    last_min: [Vec<f64>; 2],
    last_half: [Vec<f64>; 2],
    min_timeout: Vec<Option<f64>>,
    fair_timeout: Vec<Option<f64>>,
}

impl Starvation {
    /// Reads the snapshot's clocks and computes the targets from the fair shares.
    pub fn new(ix: &Indexed<'_>, shares: &FairShares) -> Self {
        let req = ix.req;
        let pools = req.pools.len();
        let mut running = [vec![0.0; pools], vec![0.0; pools]];
        let mut demand = [vec![0.0; pools], vec![0.0; pools]];
        for j in 0..req.jobs.len() {
            let p = ix.job_pool[j] as usize;
            for k in 0..2 {
                let r = f64::from(ix.job_running[k][j]);
                running[k][p] += r;
                if ix.runnable[j] {
                    demand[k][p] += r + f64::from(ix.job_pending[k][j]);
                }
            }
        }
        let min_share = |p: usize, k: usize| {
            if k == 0 {
                req.pools[p].min_map_share
            } else {
                req.pools[p].min_reduce_share
            }
        };
        let per_kind = |f: &dyn Fn(usize, usize) -> f64| -> [Vec<f64>; 2] {
            [0, 1].map(|k| (0..pools).map(|p| f(p, k)).collect())
        };
        let clock = |p: usize, k: usize, min: bool| {
            let c = req.pools[p].starvation.map(|s| if k == 0 { s.map } else { s.reduce });
            let t = c.and_then(|c| if min { c.at_min_share_s } else { c.at_half_fair_share_s });
            t.unwrap_or(req.now_s)
        };
        Self {
            now: req.now_s,
            min_target: per_kind(&|p, k| min_share(p, k).min(demand[k][p])),
            fair_target: per_kind(&|p, k| shares.pool[p][k].min(demand[k][p])),
            running,
            last_min: per_kind(&|p, k| clock(p, k, true)),
            last_half: per_kind(&|p, k| clock(p, k, false)),
            min_timeout: req.pools.iter().map(|p| p.min_share_timeout_s).collect(),
            fair_timeout: req.pools.iter().map(|p| p.fair_share_timeout_s).collect(),
        }
    }

    /// min(m, d) of pool `p`, kind `k`.
    pub fn min_target(&self, k: usize, p: usize) -> f64 {
        self.min_target[k][p]
    }

    /// min(f, d) of pool `p`, kind `k`.
    pub fn fair_target(&self, k: usize, p: usize) -> f64 {
        self.fair_target[k][p]
    }

    /// Below min share with `running` tasks and past the min-share timeout.
    pub fn min_share_overdue(&self, k: usize, p: usize, running: f64) -> bool {
        running < self.min_target[k][p]
            && self.min_timeout[p].is_some_and(|t| self.now - self.last_min[k][p] > t)
    }

    /// Below half its fair share with `running` tasks and past the fair-share timeout.
    pub fn fair_share_overdue(&self, k: usize, p: usize, running: f64) -> bool {
        running < self.fair_target[k][p] / 2.0
            && self.fair_timeout[p].is_some_and(|t| self.now - self.last_half[k][p] > t)
    }

    /// Starved past a preemption timeout before this epoch's placement: such a pool's jobs
    /// skip delay scheduling's wait (FAIR §4.2 with §3.2's timeouts).
    pub fn starved_before(&self, k: usize, p: usize) -> bool {
        let r = self.running[k][p];
        self.min_share_overdue(k, p, r) || self.fair_share_overdue(k, p, r)
    }

    /// The clocks after this epoch, given each pool's running tasks after placement.
    pub fn clocks_after(&self, running_after: &[[f64; 2]]) -> Vec<StarvationState> {
        (0..running_after.len())
            .map(|p| {
                let [map, reduce] = [0, 1].map(|k| {
                    let r = running_after[p][k];
                    let at_min =
                        if r >= self.min_target[k][p] { self.now } else { self.last_min[k][p] };
                    let at_half = if r >= self.fair_target[k][p] / 2.0 {
                        self.now
                    } else {
                        self.last_half[k][p]
                    };
                    StarvationClock {
                        at_min_share_s: Some(at_min),
                        at_half_fair_share_s: Some(at_half),
                    }
                });
                StarvationState { map, reduce }
            })
            .collect()
    }
}
