//! RAS's performance model (Polo et al. §3.3, eqs. 1–3, Fig. 2): a job's utility for the map
//! and reduce slots a placement gives it, and the concurrency its completion-time goal
//! requires (§3.2's Job Completion Time Estimator).
//!
//! Counts (all tasks, dimensionless):
//! - s_alloc: the job's maps running or placed this epoch; s_pend: its maps still to run
//!   (pending or running); s_req: the maps it needs at once to meet its goal;
//! - r_alloc: its reduces running or placed; r_pend: its reduces still to run.
//!
//! Where the paper's formulas divide by zero, placer reads them by their limits:
//! - u_M = −∞ at s_alloc = 0 < s_req ("at least one slot must be allocated");
//! - u_M = 1 once s_alloc ≥ s_pend (every remaining map runs), also when s_pend = s_req;
//! - u_R = −1 at r_alloc = 0 < r_pend (the paper gives its range as [−1, 0]), 0 once
//!   r_alloc ≥ r_pend or with no reduce left, and 0 with no map left to pair it with is not
//!   special-cased.

/// RAS eq. 2, the utility of `alloc` map slots for a job that requires `req` and has `pend`
/// maps to run:
/// u_M = (alloc − req) / (pend − req) when alloc ≥ req, else ln(alloc) / ln(req) − 1;
/// capped at 1, −∞ at alloc = 0 < req (module docs). `req` is clamped to [1, pend].
///
/// # Complexity
/// O(1).
///
/// # Errors
/// None: every count gives a value in [−∞, 1].
///
/// # Examples
/// RAS Fig. 2 (s_req = 20, s_pend = 35): 0 at 20 slots, 1 at 35, ln 10 / ln 20 − 1 at 10.
/// ```
/// use placer_solver::ras::utility::map_utility;
/// assert_eq!(map_utility(20, 20, 35), 0.0);
/// assert_eq!(map_utility(35, 20, 35), 1.0);
/// assert!((map_utility(10, 20, 35) - (10f64.ln() / 20f64.ln() - 1.0)).abs() < 1e-15);
/// assert_eq!(map_utility(0, 20, 35), f64::NEG_INFINITY);
/// ```
pub fn map_utility(alloc: u32, req: u32, pend: u32) -> f64 {
    if alloc >= pend {
        return 1.0;
    }
    let req = req.clamp(1, pend);
    if alloc >= req {
        (f64::from(alloc - req) / f64::from(pend - req)).min(1.0)
    } else if alloc == 0 {
        f64::NEG_INFINITY
    } else {
        f64::from(alloc).ln() / f64::from(req).ln() - 1.0
    }
}

/// RAS eq. 3, the utility of `alloc` reduce slots for a job with `pend` reduces to run:
/// u_R = ln(alloc) / ln(pend) − 1, in [−1, 0] (module docs for the limits).
///
/// # Complexity
/// O(1).
///
/// # Errors
/// None.
///
/// # Examples
/// RAS Fig. 2 (r_pend = 10): −1 with none (and with one: ln 1 = 0), 0 with all ten.
/// ```
/// use placer_solver::ras::utility::reduce_utility;
/// assert_eq!(reduce_utility(0, 10), -1.0);
/// assert_eq!(reduce_utility(1, 10), -1.0);
/// assert!((reduce_utility(5, 10) - (5f64.ln() / 10f64.ln() - 1.0)).abs() < 1e-15);
/// assert_eq!(reduce_utility(10, 10), 0.0);
/// assert_eq!(reduce_utility(0, 0), 0.0);
/// ```
pub fn reduce_utility(alloc: u32, pend: u32) -> f64 {
    if alloc >= pend {
        0.0
    } else if alloc == 0 {
        -1.0
    } else {
        f64::from(alloc).ln() / f64::from(pend).ln() - 1.0
    }
}

/// A job's demand in RAS's terms: maps required at once, maps and reduces still to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Need {
    /// s_req.
    pub s_req: u32,
    /// s_pend.
    pub s_pend: u32,
    /// r_pend.
    pub r_pend: u32,
}

impl Need {
    /// RAS eq. 1 capped at 1: u = min(u_M(s_alloc) + u_R(r_alloc), 1).
    ///
    /// # Complexity
    /// O(1).
    ///
    /// # Errors
    /// None.
    ///
    /// # Examples
    /// RAS Fig. 2's job (s_req = 20, s_pend = 35, r_pend = 10) at 27 maps and all reduces:
    /// (27 − 20) / 15; at 35 maps and one reduce: 1 − 1 = 0.
    /// ```
    /// use placer_solver::ras::utility::Need;
    /// let fig2 = Need { s_req: 20, s_pend: 35, r_pend: 10 };
    /// assert!((fig2.utility(27, 10) - 7.0 / 15.0).abs() < 1e-15);
    /// assert_eq!(fig2.utility(35, 1), 0.0);
    /// ```
    pub fn utility(&self, s_alloc: u32, r_alloc: u32) -> f64 {
        (map_utility(s_alloc, self.s_req, self.s_pend) + reduce_utility(r_alloc, self.r_pend))
            .min(1.0)
    }
}

/// The maps a job needs at once to meet its goal as RAS eq. 2 reads it (§3.2, after Polo et
/// al.'s estimator \[6\]): s_req = ⌈`remaining` · `mean_map_s` / (`goal_s` − `now_s`)⌉, clamped
/// to [1, `s_pend`] (`s_pend` ≥ 1; 0 gives 0). placer's policies use it for jobs without a
/// goal (1) and jobs the goal plan cannot model; jobs with goals get their share in the plan
/// ([`super::plan`]).
/// - No goal: 1 (RAS Exp. 1's "highly relaxed" goals);
/// - a goal at or before `now_s`: `s_pend` (already missed: everything at once);
/// - no observed task length yet: 1.
///
/// Units: seconds; counts.
///
/// # Complexity
/// O(1).
///
/// # Errors
/// None.
///
/// # Examples
/// RAS Table 1's J4 (Select, 25 GB = 400 maps of 64 MiB) at its submission (350 s) with
/// Exp. 2's goal (1,100 s), if its maps took 55 s: ⌈400 · 55 / 750⌉ = 30 maps at once.
/// ```
/// use placer_solver::ras::utility::required_maps;
/// assert_eq!(required_maps(400, 400, Some(55.0), Some(1100.0), 350.0), 30);
/// assert_eq!(required_maps(400, 400, Some(55.0), None, 350.0), 1);
/// assert_eq!(required_maps(400, 400, Some(55.0), Some(300.0), 350.0), 400);
/// ```
pub fn required_maps(
    remaining: u32,
    s_pend: u32,
    mean_map_s: Option<f64>,
    goal_s: Option<f64>,
    now_s: f64,
) -> u32 {
    if s_pend == 0 {
        return 0;
    }
    let Some(goal) = goal_s else { return 1 };
    let left = goal - now_s;
    if left <= 0.0 {
        return s_pend;
    }
    let Some(mean) = mean_map_s else { return 1 };
    let need = (f64::from(remaining) * mean / left).ceil();
    if need >= f64::from(s_pend) {
        s_pend
    } else {
        (need as u32).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RAS Fig. 2's surface: monotone in both counts, 0 on the s_req line with all reduces,
    /// never above 1.
    #[test]
    fn fig2_shape() {
        let fig2 = Need { s_req: 20, s_pend: 35, r_pend: 10 };
        assert_eq!(fig2.utility(20, 10), 0.0);
        assert_eq!(fig2.utility(35, 10), 1.0);
        assert_eq!(fig2.utility(40, 10), 1.0);
        for r in 0..=10 {
            for s in 1..=35 {
                let u = fig2.utility(s, r);
                assert!(u <= 1.0);
                assert!(fig2.utility(s + 1, r) >= u, "maps at {s}, {r}");
                assert!(fig2.utility(s, r + 1) >= u, "reduces at {s}, {r}");
            }
        }
        // Below s_req the map term is logarithmic: halfway in log scale is −0.5.
        let half = (20f64).sqrt();
        assert!((half.ln() / 20f64.ln() - 1.0 + 0.5).abs() < 1e-15);
        assert!((fig2.utility(1, 10) + 1.0).abs() < 1e-15);
    }

    /// s_pend = s_req: the linear part has no width; all maps = 1.
    #[test]
    fn req_equal_to_pend() {
        assert_eq!(map_utility(5, 5, 5), 1.0);
        assert!((map_utility(4, 5, 5) - (4f64.ln() / 5f64.ln() - 1.0)).abs() < 1e-15);
        assert_eq!(map_utility(0, 0, 0), 1.0);
    }
}
