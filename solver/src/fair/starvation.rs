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

use crate::fair::fair_shares::FairShares;
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
    /// Reads the snapshot's clocks and computes the targets from the fair shares, per pool p
    /// and kind k, in slots: min target min(m, d) and fair target min(f, d), with demand d =
    /// running plus pending tasks of p's runnable jobs; also the running count r before
    /// placement, the clocks (seconds; a missing one reads as `now_s`) and the two timeouts.
    ///
    /// # Complexity
    /// O(pools + jobs) time and space.
    ///
    /// # Errors
    /// None: a missing clock or timeout is data (the clock reads `now_s`, the pool never
    /// starves for that share).
    ///
    /// # Examples
    /// Design doc §3.3 / FAIR §3.2: two map slots, both held by pool a's job; pool b has min
    /// share 1 and one pending map, so fair shares are 1 and 1 and b's targets are
    /// min(1, 1) = 1. b has been below both since 80 s; at 100 s that is 20 s, past both
    /// timeouts (5 s and 10 s): with no slot free it is starved for its min share (0 < 1) and
    /// for its fair share (0 < 1 / 2).
    /// ```
    /// use placer_solver::{fair::fair_shares, Indexed, fair::starvation::Starvation};
    /// let req = placer_models::parse_request(br#"{"schema_version": 1, "now_s": 100,
    ///   "cluster": {"racks": [{"id": "r"}],
    ///     "nodes": [{"id": "n", "rack": "r", "map_slots": 2}]},
    ///   "pools": [{"id": "a"}, {"id": "b", "min_map_share": 1, "min_share_timeout_s": 5,
    ///     "fair_share_timeout_s": 10,
    ///     "starvation": {"map": {"at_min_share_s": 80, "at_half_fair_share_s": 80}}}],
    ///   "jobs": [{"id": "ja", "pool": "a"}, {"id": "jb", "pool": "b"}],
    ///   "running": [{"id": "a0", "job": "ja", "kind": "map", "node": "n", "started_s": 10},
    ///               {"id": "a1", "job": "ja", "kind": "map", "node": "n", "started_s": 20}],
    ///   "pending": [{"id": "b0", "job": "jb", "kind": "map"}]}"#).unwrap();
    /// placer_models::validate(&req).unwrap();
    /// let ix = Indexed::new(&req);
    /// let shares = fair_shares::compute(&ix);
    /// let starvation = Starvation::new(&ix, &shares);
    /// let (map, a, b) = (0, 0, 1);
    /// assert_eq!(starvation.running[map], vec![2.0, 0.0]);
    /// assert_eq!((starvation.min_target(map, b), starvation.fair_target(map, b)), (1.0, 1.0));
    /// assert!(starvation.min_share_overdue(map, b, 0.0));
    /// assert!(starvation.fair_share_overdue(map, b, 0.0));
    /// assert!(starvation.starved_before(map, b) && !starvation.starved_before(map, a));
    /// ```
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

    /// min(m, d) of pool `p`, kind `k`, in slots. O(1); see [`Starvation::new`]'s example.
    pub fn min_target(&self, k: usize, p: usize) -> f64 {
        self.min_target[k][p]
    }

    /// min(f, d) of pool `p`, kind `k`, in slots. O(1); see [`Starvation::new`]'s example.
    pub fn fair_target(&self, k: usize, p: usize) -> f64 {
        self.fair_target[k][p]
    }

    /// Below min share with `running` tasks and past the min-share timeout:
    /// `running` < min(m, d) and `now_s` − `at_min_share_s` > `min_share_timeout_s` (seconds;
    /// never without a timeout).
    ///
    /// # Complexity
    /// O(1).
    ///
    /// # Errors
    /// None: a predicate.
    ///
    /// # Examples
    /// The snapshot of [`Starvation::new`]'s example (pool b: min share 1, demand 1, fair
    /// share 1, timeouts 5 s and 10 s, both clocks at 80 s, now 100 s).
    /// With 0 running it is overdue (100 − 80 = 20 s > 5 s); once it runs 1 = min(1, 1) it is
    /// not. Pool a has no timeout, so it never is.
    /// ```
    /// # use placer_solver::{fair::fair_shares, Indexed, fair::starvation::Starvation};
    /// # let req = placer_models::parse_request(br#"{"schema_version": 1, "now_s": 100,
    /// #   "cluster": {"racks": [{"id": "r"}],
    /// #     "nodes": [{"id": "n", "rack": "r", "map_slots": 2}]},
    /// #   "pools": [{"id": "a"}, {"id": "b", "min_map_share": 1, "min_share_timeout_s": 5,
    /// #     "fair_share_timeout_s": 10,
    /// #     "starvation": {"map": {"at_min_share_s": 80, "at_half_fair_share_s": 80}}}],
    /// #   "jobs": [{"id": "ja", "pool": "a"}, {"id": "jb", "pool": "b"}],
    /// #   "running": [{"id": "a0", "job": "ja", "kind": "map", "node": "n", "started_s": 10},
    /// #               {"id": "a1", "job": "ja", "kind": "map", "node": "n", "started_s": 20}],
    /// #   "pending": [{"id": "b0", "job": "jb", "kind": "map"}]}"#).unwrap();
    /// # placer_models::validate(&req).unwrap();
    /// # let ix = Indexed::new(&req);
    /// # let shares = fair_shares::compute(&ix);
    /// # let starvation = Starvation::new(&ix, &shares);
    /// # let (map, a, b) = (0, 0, 1);
    /// assert!(starvation.min_share_overdue(map, b, 0.0));
    /// assert!(!starvation.min_share_overdue(map, b, 1.0));
    /// assert!(!starvation.min_share_overdue(map, a, 0.0));
    /// ```
    pub fn min_share_overdue(&self, k: usize, p: usize, running: f64) -> bool {
        running < self.min_target[k][p]
            && self.min_timeout[p].is_some_and(|t| self.now - self.last_min[k][p] > t)
    }

    /// Below half its fair share with `running` tasks and past the fair-share timeout:
    /// `running` < min(f, d) / 2 and `now_s` − `at_half_fair_share_s` > `fair_share_timeout_s`
    /// (seconds; never without a timeout).
    ///
    /// # Complexity
    /// O(1).
    ///
    /// # Errors
    /// None: a predicate.
    ///
    /// # Examples
    /// The snapshot of [`Starvation::new`]'s example (pool b: min share 1, demand 1, fair
    /// share 1, timeouts 5 s and 10 s, both clocks at 80 s, now 100 s).
    /// Half of min(1, 1) is 0.5: with 0 running it is overdue (20 s > 10 s), with 0.5 not.
    /// ```
    /// # use placer_solver::{fair::fair_shares, Indexed, fair::starvation::Starvation};
    /// # let req = placer_models::parse_request(br#"{"schema_version": 1, "now_s": 100,
    /// #   "cluster": {"racks": [{"id": "r"}],
    /// #     "nodes": [{"id": "n", "rack": "r", "map_slots": 2}]},
    /// #   "pools": [{"id": "a"}, {"id": "b", "min_map_share": 1, "min_share_timeout_s": 5,
    /// #     "fair_share_timeout_s": 10,
    /// #     "starvation": {"map": {"at_min_share_s": 80, "at_half_fair_share_s": 80}}}],
    /// #   "jobs": [{"id": "ja", "pool": "a"}, {"id": "jb", "pool": "b"}],
    /// #   "running": [{"id": "a0", "job": "ja", "kind": "map", "node": "n", "started_s": 10},
    /// #               {"id": "a1", "job": "ja", "kind": "map", "node": "n", "started_s": 20}],
    /// #   "pending": [{"id": "b0", "job": "jb", "kind": "map"}]}"#).unwrap();
    /// # placer_models::validate(&req).unwrap();
    /// # let ix = Indexed::new(&req);
    /// # let shares = fair_shares::compute(&ix);
    /// # let starvation = Starvation::new(&ix, &shares);
    /// # let (map, a, b) = (0, 0, 1);
    /// assert!(starvation.fair_share_overdue(map, b, 0.0));
    /// assert!(!starvation.fair_share_overdue(map, b, 0.5));
    /// # let _ = a;
    /// ```
    pub fn fair_share_overdue(&self, k: usize, p: usize, running: f64) -> bool {
        running < self.fair_target[k][p] / 2.0
            && self.fair_timeout[p].is_some_and(|t| self.now - self.last_half[k][p] > t)
    }

    /// Starved past a preemption timeout before this epoch's placement: such a pool's jobs
    /// skip delay scheduling's wait (FAIR §4.2 with §3.2's timeouts). Either overdue
    /// predicate at the running count before placement. O(1), infallible; see
    /// [`Starvation::new`]'s example.
    pub fn starved_before(&self, k: usize, p: usize) -> bool {
        let r = self.running[k][p];
        self.min_share_overdue(k, p, r) || self.fair_share_overdue(k, p, r)
    }

    /// The clocks after this epoch, given each pool's running tasks after placement (`[map,
    /// reduce]` per pool): a clock moves to `now_s` when the pool is at or above that target
    /// after placement, else it keeps its last value.
    ///
    /// # Complexity
    /// O(pools) time and space.
    ///
    /// # Errors
    /// None.
    ///
    /// # Examples
    /// The snapshot of [`Starvation::new`]'s example (pool b: min share 1, demand 1, fair
    /// share 1, timeouts 5 s and 10 s, both clocks at 80 s, now 100 s).
    /// If this epoch places b's map, both of b's clocks move to 100 s; if not, they stay at
    /// 80 s for the master to echo.
    /// ```
    /// # use placer_solver::{fair::fair_shares, Indexed, fair::starvation::Starvation};
    /// # let req = placer_models::parse_request(br#"{"schema_version": 1, "now_s": 100,
    /// #   "cluster": {"racks": [{"id": "r"}],
    /// #     "nodes": [{"id": "n", "rack": "r", "map_slots": 2}]},
    /// #   "pools": [{"id": "a"}, {"id": "b", "min_map_share": 1, "min_share_timeout_s": 5,
    /// #     "fair_share_timeout_s": 10,
    /// #     "starvation": {"map": {"at_min_share_s": 80, "at_half_fair_share_s": 80}}}],
    /// #   "jobs": [{"id": "ja", "pool": "a"}, {"id": "jb", "pool": "b"}],
    /// #   "running": [{"id": "a0", "job": "ja", "kind": "map", "node": "n", "started_s": 10},
    /// #               {"id": "a1", "job": "ja", "kind": "map", "node": "n", "started_s": 20}],
    /// #   "pending": [{"id": "b0", "job": "jb", "kind": "map"}]}"#).unwrap();
    /// # placer_models::validate(&req).unwrap();
    /// # let ix = Indexed::new(&req);
    /// # let shares = fair_shares::compute(&ix);
    /// # let starvation = Starvation::new(&ix, &shares);
    /// # let (map, a, b) = (0, 0, 1);
    /// let placed = starvation.clocks_after(&[[2.0, 0.0], [1.0, 0.0]]);
    /// assert_eq!(placed[b].map.at_min_share_s, Some(100.0));
    /// assert_eq!(placed[b].map.at_half_fair_share_s, Some(100.0));
    /// let waiting = starvation.clocks_after(&[[2.0, 0.0], [0.0, 0.0]]);
    /// assert_eq!(waiting[b].map.at_min_share_s, Some(80.0));
    /// assert_eq!(waiting[a].map.at_min_share_s, Some(100.0));
    /// ```
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
