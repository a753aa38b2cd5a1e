//! Weighted max-min fair shares with min shares and demand caps, computed exactly (FAIR,
//! Zaharia et al., App. A Alg. 2; Hadoop Fair Scheduler design doc §4.6).
//!
//! Each schedulable i gets share_i = min(d_i, max(r · w_i, m_i)) where the water level r
//! (slots per unit weight) solves Σ_i share_i = min(t, Σ_i d_i). Instead of the design doc's 25
//! bisection steps, placer sweeps the breakpoints of f(r) = Σ_i min(d_i, max(r·w_i, m_i)): f is
//! piecewise linear and nondecreasing, with kinks at m_i / w_i and d_i / w_i, so sorting them
//! and walking the segments finds r exactly. O(n log n) for n schedulables.
//!
//! Rules (documented decisions):
//! - Min shares above capacity: when Σ min(m_i, d_i) ≥ t, every schedulable gets its usable min
//!   share scaled down proportionally, min(m_i, d_i) · t / Σ min(m_j, d_j) (design doc §4.6).
//! - Demand below capacity: Σ d_i ≤ t → every schedulable gets its demand.
//! - Zero weight: a schedulable of weight 0 gets its usable min share and nothing of the excess.
//!   If after that slots remain and only zero-weight schedulables still have unmet demand, the
//!   remainder is water-filled among them as if their weights were all 1 (so all-zero weights
//!   mean equal weights, and no slot stays unallocated while someone wants it).
//!
//! - Weights are relative (FAIR §3.1): weights far from 1 (the largest outside [2⁻³², 2³²]) are
//!   first scaled by the power of two that brings the largest into [1, 2). The scaling is exact
//!   and keeps every ratio, so pools of weight 10⁻³⁰⁸ each share like pools of weight 1, where
//!   unscaled their breakpoints d_i / w_i would overflow to ∞.
//!
//! Example (FAIR §3.1, Fig. 3): 100 slots, (m, d) = (50, 46), (10, 18), (25, 28), (15, 16),
//! equal weights → 46, 14, 25, 15.

use crate::fair::schedulable::Schedulable;

/// The fair share of each schedulable, in slots (fractional), in input order:
/// share_i = min(d_i, max(r · w_i, m_i)) with the water level r (slots per unit weight) that
/// makes Σ share_i = min(`total`, Σ d_i), under the rules of the module docs.
///
/// # Complexity
/// O(n log n) time (one sort of the 2n breakpoints), O(n) space.
///
/// # Errors
/// None: negative totals count as 0; weights, min shares and demands are validated upstream.
///
/// # Examples
/// FAIR §3.1, Fig. 3: 100 slots among four pools with (min share, demand) = (50, 46),
/// (10, 18), (25, 28), (15, 16). Pool 1 is filled (its mark is above its demand), the others
/// up to their marks (96 slots so far), and the last 4 go to the emptiest bucket, pool 2.
/// ```
/// use placer_solver::fair::schedulable::Schedulable;
/// use placer_solver::fair::water_filling::fair_shares;
/// let pool = |min_share, demand| Schedulable { weight: 1.0, min_share, demand };
/// let pools = [pool(50.0, 46.0), pool(10.0, 18.0), pool(25.0, 28.0), pool(15.0, 16.0)];
/// assert_eq!(fair_shares(&pools, 100.0), vec![46.0, 14.0, 25.0, 15.0]);
/// ```
pub fn fair_shares(items: &[Schedulable], total: f64) -> Vec<f64> {
    if let Some(scaled) = rescaled(items) {
        return fair_shares(&scaled, total);
    }
    let total = total.max(0.0);
    let usable: f64 = items.iter().map(Schedulable::usable_min).sum();
    if usable >= total {
        if usable <= 0.0 {
            return vec![0.0; items.len()];
        }
        return items.iter().map(|s| s.usable_min() * total / usable).collect();
    }
    let demand: f64 = items.iter().map(|s| s.demand).sum();
    if demand <= total {
        return items.iter().map(|s| s.demand).collect();
    }
    let r = water_level(items, total);
    let mut shares: Vec<f64> = items.iter().map(|s| s.share_at(r)).collect();

    // Zero-weight schedulables share whatever the weighted ones could not use.
    let given: f64 = shares.iter().sum();
    let left = total - given;
    if left > 1e-9 * total.max(1.0) {
        let idle: Vec<usize> = (0..items.len())
            .filter(|&i| items[i].weight <= 0.0 && shares[i] < items[i].demand)
            .collect();
        if !idle.is_empty() {
            let rest: Vec<Schedulable> = idle
                .iter()
                .map(|&i| Schedulable {
                    weight: 1.0,
                    min_share: shares[i],
                    demand: items[i].demand,
                })
                .collect();
            let budget = left + idle.iter().map(|&i| shares[i]).sum::<f64>();
            for (k, s) in fair_shares(&rest, budget).into_iter().enumerate() {
                shares[idle[k]] = s;
            }
        }
    }
    shares
}

/// `items` with their weights scaled by the power of two that brings the largest into [1, 2),
/// when it is outside [2⁻³², 2³²] (module docs); `None` when it is not, or no weight is positive.
/// Exact: a power of two scales every normal and subnormal weight without rounding.
fn rescaled(items: &[Schedulable]) -> Option<Vec<Schedulable>> {
    let largest = items.iter().map(|s| s.weight).fold(0.0, f64::max);
    if !(largest > 0.0 && largest.is_finite())
        || (2f64.powi(-32)..=2f64.powi(32)).contains(&largest)
    {
        return None;
    }
    // −e with 2^e ≤ largest < 2^(e+1), e in [−1074, 1023]; applied in two factors that f64
    // holds (2^1074 does not).
    let shift = -(largest.log2().floor() as i32);
    let (a, b) = (2f64.powi(shift / 2), 2f64.powi(shift - shift / 2));
    Some(items.iter().map(|s| Schedulable { weight: s.weight * a * b, ..*s }).collect())
}

/// The smallest r with f(r) = total, given Σ min(m, d) < total < Σ d. If no r reaches total
/// (only zero-weight schedulables have unmet demand), the level where f stops growing.
fn water_level(items: &[Schedulable], total: f64) -> f64 {
    // Each schedulable with w > 0 and m < d grows linearly (slope w) on [m/w, d/w].
    let mut events: Vec<(f64, f64)> = Vec::with_capacity(2 * items.len());
    let mut f = 0.0;
    for s in items {
        f += s.usable_min();
        if s.weight > 0.0 && s.min_share < s.demand {
            events.push((s.min_share / s.weight, s.weight));
            events.push((s.demand / s.weight, -s.weight));
        }
    }
    events.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
    let (mut r, mut slope) = (0.0, 0.0);
    for (at, delta) in events {
        let reach = f + slope * (at - r);
        if slope > 0.0 && reach >= total {
            return r + (total - f) / slope;
        }
        f = reach;
        r = at;
        slope += delta;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    fn s(weight: f64, min_share: f64, demand: f64) -> Schedulable {
        Schedulable { weight, min_share, demand }
    }

    fn check(items: &[Schedulable], total: f64, expected: &[f64]) {
        let got = fair_shares(items, total);
        assert_eq!(got.len(), expected.len());
        for (g, e) in got.iter().zip(expected) {
            assert_relative_eq!(*g, *e, epsilon = 1e-9, max_relative = 1e-12);
        }
    }

    /// FAIR §3.1 / App. A, Fig. 3: the paper's own worked example.
    #[test]
    fn fair_fig3_worked_example() {
        let pools =
            [s(1.0, 50.0, 46.0), s(1.0, 10.0, 18.0), s(1.0, 25.0, 28.0), s(1.0, 15.0, 16.0)];
        check(&pools, 100.0, &[46.0, 14.0, 25.0, 15.0]);
    }

    /// Hand-derived rows. Each comment derives r and the shares.
    #[test]
    fn hand_derived_table() {
        // Equal weights, no min shares, big demands: r = 100/4 = 25 each.
        check(&[s(1.0, 0.0, 100.0); 4], 100.0, &[25.0; 4]);
        // Weights 2:1:1: r·(2+1+1) = 100 → r = 25 → 50, 25, 25.
        check(
            &[s(2.0, 0.0, 100.0), s(1.0, 0.0, 100.0), s(1.0, 0.0, 100.0)],
            100.0,
            &[50.0, 25.0, 25.0],
        );
        // A low demand is capped and its excess is shared: d = 10 → others r·2 = 90 → 45 each.
        check(
            &[s(1.0, 0.0, 10.0), s(1.0, 0.0, 100.0), s(1.0, 0.0, 100.0)],
            100.0,
            &[10.0, 45.0, 45.0],
        );
        // A min share above the weighted level: m = 60 > r; others r·2 = 40 → 20 each.
        check(
            &[s(1.0, 60.0, 100.0), s(1.0, 0.0, 100.0), s(1.0, 0.0, 100.0)],
            100.0,
            &[60.0, 20.0, 20.0],
        );
        // Fractional: 10 slots over 3 equal pools → 10/3 each.
        check(&[s(1.0, 0.0, 9.0); 3], 10.0, &[10.0 / 3.0; 3]);
        // Fractional weights 1.5 and 0.5 over 7 slots: r·2 = 7 → 5.25 and 1.75.
        check(&[s(1.5, 0.0, 9.0), s(0.5, 0.0, 9.0)], 7.0, &[5.25, 1.75]);
        // Demand below capacity: everyone gets their demand.
        check(&[s(1.0, 5.0, 3.0), s(2.0, 0.0, 4.0)], 100.0, &[3.0, 4.0]);
        // Min shares above capacity: usable mins min(30, 100) = 30 and min(40, 20) = 20 sum to
        // 50 > 40 slots → scaled by 40/50: 24, 16.
        check(&[s(1.0, 30.0, 100.0), s(1.0, 40.0, 20.0)], 40.0, &[24.0, 16.0]);
    }

    #[test]
    fn zero_weights() {
        // A zero-weight pool gets its min share only: 10; the weighted pool takes the rest.
        check(&[s(0.0, 10.0, 50.0), s(1.0, 0.0, 100.0)], 60.0, &[10.0, 50.0]);
        // ... unless the weighted pools are saturated: the rest goes to the zero-weight pool.
        check(&[s(0.0, 10.0, 50.0), s(1.0, 0.0, 20.0)], 60.0, &[40.0, 20.0]);
        // All-zero weights act as equal weights: 30 slots over demands 100, 100 → 15, 15.
        check(&[s(0.0, 0.0, 100.0), s(0.0, 0.0, 100.0)], 30.0, &[15.0, 15.0]);
        // All-zero weights with min shares: mins 10 and 0, then equal water: r = 15 → 15, 15.
        check(&[s(0.0, 10.0, 100.0), s(0.0, 0.0, 100.0)], 30.0, &[15.0, 15.0]);
    }

    /// Found by the extreme-value table of `solver/tests/finite.rs`: two pools of weight
    /// 10⁻³⁰⁸ (or 5·10⁻³²⁴) with demands 5 and 4 over 6 slots got their whole demands (9 > 6
    /// slots) because d / w overflowed to ∞; weights are relative, so they share like 1 : 1.
    #[test]
    fn tiny_and_huge_weights_share_like_their_ratios() {
        assert_eq!(fair_shares(&[s(1.0, 0.0, 5.0), s(1.0, 0.0, 4.0)], 6.0), [3.0, 3.0]);
        for w in [1e-308, 5e-324, 1e-20, 1e20, 1e300, f64::MAX] {
            check(&[s(w, 0.0, 5.0), s(w, 0.0, 4.0)], 6.0, &[3.0, 3.0]);
        }
        // 2 : 1 at 10³⁰⁰ like 2 : 1: r · 3 = 6, so 4 and 2.
        check(&[s(2e300, 0.0, 9.0), s(1e300, 0.0, 9.0)], 6.0, &[4.0, 2.0]);
    }

    #[test]
    fn empty_and_zero_capacity() {
        assert!(fair_shares(&[], 10.0).is_empty());
        check(&[s(1.0, 5.0, 10.0), s(1.0, 0.0, 10.0)], 0.0, &[0.0, 0.0]);
    }
}

#[cfg(test)]
mod equivalence {
    //! The exact sweep equals the Hadoop Fair Scheduler's binary-search form (design doc §4.6,
    //! `computeFairShares`: find r with f(r) = t by doubling then bisecting), run here to
    //! convergence instead of 25 steps.
    use super::*;
    use proptest::prelude::*;

    fn bisection(items: &[Schedulable], total: f64) -> Vec<f64> {
        let usable: f64 = items.iter().map(Schedulable::usable_min).sum();
        if usable >= total {
            return items.iter().map(|s| s.usable_min() * total / usable.max(1e-300)).collect();
        }
        let f = |r: f64| items.iter().map(|s| s.share_at(r)).sum::<f64>();
        let demand: f64 = items.iter().map(|s| s.demand).sum();
        let target = total.min(demand);
        let mut hi = 1.0;
        while f(hi) < target && hi < 1e15 {
            hi *= 2.0;
        }
        let mut lo = 0.0;
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if f(mid) < target {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        items.iter().map(|s| s.share_at(hi)).collect()
    }

    fn schedulable() -> impl Strategy<Value = Schedulable> {
        (1u32..=8, 0u32..=40, 0u32..=60).prop_map(|(w, m, d)| Schedulable {
            weight: f64::from(w) / 2.0,
            min_share: f64::from(m),
            demand: f64::from(d),
        })
    }

    proptest! {
        #[test]
        fn sweep_equals_binary_search(
            items in proptest::collection::vec(schedulable(), 0..8),
            total in 0u32..200,
        ) {
            let total = f64::from(total);
            let exact = fair_shares(&items, total);
            let reference = bisection(&items, total);
            for (e, r) in exact.iter().zip(&reference) {
                prop_assert!((e - r).abs() <= 1e-6 * (1.0 + r.abs()), "{:?} vs {:?}", exact, reference);
            }
            let sum: f64 = exact.iter().sum();
            let demand: f64 = items.iter().map(|s| s.demand).sum();
            prop_assert!((sum - total.min(demand)).abs() <= 1e-6 * (1.0 + total));
            for (s, i) in exact.iter().zip(&items) {
                prop_assert!(*s <= i.demand + 1e-9, "share above demand");
            }
        }
    }
}
