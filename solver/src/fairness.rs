//! Fairness distance (lsap-fair-sched, Guo, Fox, Zhou §4.4, eqs. 10–11, in placer's
//! definition): D = (1 / |A|) · Σ_{i ∈ A} |s_i − w_i| / w_i over the active
//! pools A (weight > 0 and running or placeable tasks), where s_i = rt_i / Σ rt is pool i's
//! share of the running tasks and w_i = weight_i / Σ_{A} weight. Unitless; 0 is perfectly
//! proportional. D = 0 when nothing runs or no pool is active. O(pools).
//!
//! Example: weights 1 and 3, running 2 and 2 → s = (½, ½), w = (¼, ¾):
//! D = (|½ − ¼| / ¼ + |½ − ¾| / ¾) / 2 = (1 + ⅓) / 2 = ⅔.

/// D for pools with `weight`, `running` tasks and an `active` flag each (one entry per pool
/// in all three): D = (1 / |A|) · Σ_{i ∈ A} |s_i − w_i| / w_i over the active pools of
/// positive weight, s_i = rt_i / Σ_A rt, w_i = weight_i / Σ_A weight. Unitless.
///
/// # Complexity
/// O(pools) time and space.
///
/// # Errors
/// None: D = 0 when no pool is active with a positive weight or nothing runs in them.
///
/// # Examples
/// The module docs' example, derived by hand: weights 1 and 3, running 2 and 2, so
/// s = (½, ½) and w = (¼, ¾): D = (|½ − ¼| / ¼ + |½ − ¾| / ¾) / 2 = (1 + ⅓) / 2 = ⅔.
/// Running 1 and 3 instead is proportional: D = 0.
/// ```
/// use placer_solver::fairness_distance;
/// let d = fairness_distance(&[1.0, 3.0], &[2.0, 2.0], &[true, true]);
/// assert!((d - 2.0 / 3.0).abs() < 1e-12);
/// assert_eq!(fairness_distance(&[1.0, 3.0], &[1.0, 3.0], &[true, true]), 0.0);
/// ```
pub fn fairness_distance(weight: &[f64], running: &[f64], active: &[bool]) -> f64 {
    let pools: Vec<usize> = (0..weight.len()).filter(|&p| active[p] && weight[p] > 0.0).collect();
    let total_weight: f64 = pools.iter().map(|&p| weight[p]).sum();
    let total_running: f64 = pools.iter().map(|&p| running[p]).sum();
    if pools.is_empty() || total_running <= 0.0 {
        return 0.0;
    }
    let sum: f64 = pools
        .iter()
        .map(|&p| {
            let w = weight[p] / total_weight;
            (running[p] / total_running - w).abs() / w
        })
        .sum();
    sum / pools.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn module_doc_example() {
        assert_relative_eq!(
            fairness_distance(&[1.0, 3.0], &[2.0, 2.0], &[true, true]),
            2.0 / 3.0,
            epsilon = 1e-12
        );
    }

    #[test]
    fn proportional_is_zero_and_inactive_or_zero_weight_pools_are_left_out() {
        assert_eq!(fairness_distance(&[1.0, 3.0], &[5.0, 15.0], &[true, true]), 0.0);
        assert_eq!(
            fairness_distance(&[1.0, 3.0, 7.0], &[5.0, 15.0, 0.0], &[true, true, false]),
            0.0
        );
        assert_eq!(fairness_distance(&[1.0, 0.0], &[5.0, 9.0], &[true, true]), 0.0);
        assert_eq!(fairness_distance(&[1.0, 1.0], &[0.0, 0.0], &[true, true]), 0.0);
    }

    #[test]
    fn lsap_fig9_weights_all_in_one_group() {
        // Weights 2^0..2^4 (sum 31), all 30 running tasks in the weight-1 group:
        // s = (1, 0, 0, 0, 0): D = ((1 − 1/31)·31 + 4 · 1) / 5 = (30 + 4) / 5 = 6.8.
        let w = [1.0, 2.0, 4.0, 8.0, 16.0];
        let d = fairness_distance(&w, &[30.0, 0.0, 0.0, 0.0, 0.0], &[true; 5]);
        assert_relative_eq!(d, 6.8, epsilon = 1e-12);
    }
}
