//! The Fair Scheduler's ordering of pools and jobs (Hadoop Fair Scheduler design doc §4.4,
//! `FairShareComparator`): "pools below their min share \[go\] ahead of pools above their min
//! share ... ordered by how far they are below it as a percentage of the share", the rest by
//! running tasks / weight, smallest first. FAIR Alg. 1's "sort jobs by distance below min and
//! fair share" is this order.
//!
//! With r = running, m = min share, d = demand, w = weight (all in slots of one kind):
//! needy ⇔ r < min(m, d); needy ones first, by r / max(min(m, d), 1); the others by r / w
//! (w = 0 → +∞: a zero-weight pool is served last). Ties are broken by the caller (snapshot
//! order for pools; submit time, then snapshot order for jobs). O(1) per comparison.

use std::cmp::Ordering;

/// Where a pool or job stands this instant, in slots of one kind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Standing {
    /// Running tasks, including those placed earlier this epoch.
    pub running: f64,
    /// Min share (0 for jobs).
    pub min_share: f64,
    /// Running + pending (0 pending when not runnable).
    pub demand: f64,
    /// Weight (≥ 0).
    pub weight: f64,
}

impl Standing {
    /// A pool's standing for slots of kind `k` (0 map, 1 reduce): its min share of that kind
    /// and its weight, with `running` and `demand` as given.
    pub fn of_pool(pool: &placer_models::Pool, k: usize, running: f64, demand: f64) -> Self {
        let min_share = if k == 0 { pool.min_map_share } else { pool.min_reduce_share };
        Self { running, min_share, demand, weight: pool.weight }
    }

    /// Below min(min share, demand).
    pub fn needy(&self) -> bool {
        self.running < self.min_share.min(self.demand)
    }

    /// r / max(min(m, d), 1).
    fn min_share_ratio(&self) -> f64 {
        self.running / self.min_share.min(self.demand).max(1.0)
    }

    /// r / w, +∞ for a zero weight.
    fn weight_ratio(&self) -> f64 {
        if self.weight > 0.0 {
            self.running / self.weight
        } else {
            f64::INFINITY
        }
    }
}

/// `Less` when `a` should be served before `b` (design doc §4.4), `Equal` on a tie.
pub fn fair_cmp(a: &Standing, b: &Standing) -> Ordering {
    match (a.needy(), b.needy()) {
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (true, true) => a.min_share_ratio().total_cmp(&b.min_share_ratio()),
        (false, false) => a.weight_ratio().total_cmp(&b.weight_ratio()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(running: f64, min_share: f64, demand: f64, weight: f64) -> Standing {
        Standing { running, min_share, demand, weight }
    }

    #[test]
    fn design_doc_4_4_needy_pools_first_by_percentage_of_min_share() {
        // 2 of 10 min share (20%) is served before 1 of 4 (25%), both before a pool at its
        // min share that runs nothing per weight.
        let a = s(2.0, 10.0, 50.0, 1.0);
        let b = s(1.0, 4.0, 50.0, 1.0);
        let c = s(0.0, 0.0, 50.0, 1.0);
        assert_eq!(fair_cmp(&a, &b), Ordering::Less);
        assert_eq!(fair_cmp(&b, &c), Ordering::Less);
    }

    #[test]
    fn design_doc_4_4_weights_running_over_weight() {
        // Weight 2 with 3 running (1.5 per weight) goes before weight 1 with 2 running.
        assert_eq!(fair_cmp(&s(3.0, 0.0, 9.0, 2.0), &s(2.0, 0.0, 9.0, 1.0)), Ordering::Less);
        // A zero-weight pool is served last.
        assert_eq!(fair_cmp(&s(0.0, 0.0, 9.0, 0.0), &s(50.0, 0.0, 90.0, 1.0)), Ordering::Greater);
    }

    #[test]
    fn demand_below_min_share_is_not_needy_once_met() {
        // Min share 10 but demand 3, running 3: not needy.
        assert!(!s(3.0, 10.0, 3.0, 1.0).needy());
        assert!(s(2.0, 10.0, 3.0, 1.0).needy());
    }
}
