//! RAS's utility (Polo et al. §3.3, eqs. 1–3) as a ladder of "at least k more tasks" steps:
//! the exact linear form, over binary indicators, of a non-concave function of an integer
//! count, which the MIP reference ([`super::ras_mip`]) needs because u_M is logarithmic below
//! s_req, linear above it and −∞ at zero.

use crate::ras::utility::{map_utility, reduce_utility};
use crate::ras::RasProblem;

/// One job's utility of one kind (u_M or u_R; dimensionless) over the tasks of that kind this
/// epoch may place: u(running + k) = `base` + Σ_{i ≤ k} `steps[i − 1]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Ladder {
    /// u at the running count, with −∞ replaced by the ladders' floor.
    pub base: f64,
    /// `steps[k − 1]` = u(running + k) − u(running + k − 1), k = 1..=placeable; ≥ 0 (u is
    /// non-decreasing), not necessarily non-increasing (u is not concave).
    pub steps: Vec<f64>,
}

/// Every active job's map and reduce ladders, and the finite floor that stands for −∞.
#[derive(Clone, Debug, PartialEq)]
pub struct Ladders {
    /// Per job: `[map, reduce]` (empty ladders with base 0 for inactive jobs).
    pub of_job: Vec<[Ladder; 2]>,
    /// F = −(M_M + M_R) − 1, where M_M and M_R bound |u_M| and |u_R| over the finite values
    /// the ladders take. Every finite u_j = u_M + u_R is ≥ −(M_M + M_R) > F, while a job whose
    /// u_M is −∞ scores F + u_R ≤ F in the MIP: the floor keeps −∞ below every finite utility.
    pub floor: f64,
}

impl Ladders {
    /// The ladders of `problem` when job j may be placed up to `placeable[j][kind]` more tasks
    /// of each kind.
    ///
    /// # Complexity
    /// O(jobs + Σ placeable).
    ///
    /// # Errors
    /// None.
    ///
    /// # Examples
    /// A job with s_req = 2, s_pend = 3 and nothing running: u_M = −∞, ln 1 / ln 2 − 1 = −1,
    /// 0, 1 at 0..=3 maps; M_M = 1, M_R = 0 (no reduce), so F = −2.
    /// ```
    /// use placer_solver::mip::ladder::Ladders;
    /// use placer_solver::ras::utility::Need;
    /// use placer_solver::ras::RasProblem;
    /// # use placer_solver::Room;
    /// # let room = Room { names: vec![], capacity: vec![], used: vec![], slots_left: vec![],
    /// #     demand: vec![], running: vec![] };
    /// let problem = RasProblem { room, classes: vec![],
    ///     needs: vec![Need { s_req: 2, s_pend: 3, r_pend: 0 }], running: vec![[0, 0]],
    ///     active: vec![true], arrival: vec![0], disk: vec![], copy_limit: vec![],
    ///     copying: Default::default() };
    /// let l = Ladders::of(&problem, &[[3, 0]]);
    /// assert_eq!(l.floor, -2.0);
    /// assert_eq!(l.of_job[0][0].base, -2.0);
    /// assert_eq!(l.of_job[0][0].steps, [1.0, 1.0, 1.0]);
    /// ```
    pub fn of(problem: &RasProblem, placeable: &[[u32; 2]]) -> Self {
        // u at running + k for k = 0..=placeable, per job and kind (−∞ kept for now).
        let values: Vec<[Vec<f64>; 2]> = (0..problem.needs.len())
            .map(|j| {
                if !problem.active[j] {
                    return [Vec::new(), Vec::new()];
                }
                let need = problem.needs[j];
                let [maps, reduces] = problem.running[j];
                let [more_maps, more_reduces] = placeable[j];
                [
                    (0..=more_maps)
                        .map(|k| map_utility(maps + k, need.s_req, need.s_pend))
                        .collect(),
                    (0..=more_reduces).map(|k| reduce_utility(reduces + k, need.r_pend)).collect(),
                ]
            })
            .collect();
        let bound = |kind: usize| {
            values
                .iter()
                .flat_map(|v| v[kind].iter())
                .filter(|u| u.is_finite())
                .fold(0.0_f64, |m, u| m.max(u.abs()))
        };
        let floor = -(bound(0) + bound(1)) - 1.0;
        let ladder = |v: &[f64]| {
            let at = |k: usize| if v[k].is_finite() { v[k] } else { floor };
            match v.len() {
                0 => Ladder { base: 0.0, steps: Vec::new() },
                len => Ladder { base: at(0), steps: (1..len).map(|k| at(k) - at(k - 1)).collect() },
            }
        };
        let of_job = values.iter().map(|[m, r]| [ladder(m), ladder(r)]).collect();
        Self { of_job, floor }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ras::utility::Need;
    use crate::room::Room;

    fn problem(needs: Vec<Need>, running: Vec<[u32; 2]>) -> RasProblem {
        let room = Room {
            names: vec![],
            capacity: vec![],
            used: vec![],
            slots_left: vec![],
            demand: vec![],
            running: vec![],
        };
        let active = needs.iter().map(|n| n.s_pend + n.r_pend > 0).collect();
        let arrival = (0..needs.len() as u32).collect();
        RasProblem {
            room,
            classes: vec![],
            needs,
            running,
            active,
            arrival,
            disk: vec![],
            copy_limit: vec![],
            copying: Default::default(),
        }
    }

    /// RAS Fig. 2's job (s_req = 20, s_pend = 35, r_pend = 10) with 18 maps and one reduce
    /// running: climbing the ladder k steps gives u(18 + k) exactly, and the map steps grow at
    /// s_req (the log part's slope is below the linear part's): u is not concave.
    #[test]
    fn ras_fig2_ladder_climbs_the_utility_exactly() {
        let fig2 = Need { s_req: 20, s_pend: 35, r_pend: 10 };
        let p = problem(vec![fig2], vec![[18, 1]]);
        let l = Ladders::of(&p, &[[17, 9]]);
        let [maps, reduces] = &l.of_job[0];
        let mut u = maps.base;
        for (k, step) in maps.steps.iter().enumerate() {
            u += step;
            assert!((u - map_utility(19 + k as u32, 20, 35)).abs() < 1e-12, "{k}");
        }
        assert!((u - 1.0).abs() < 1e-12);
        assert!(maps.steps[2] > maps.steps[1], "1/15 after s_req > ln(20/19)/ln 20 before");
        let top: f64 = reduces.base + reduces.steps.iter().sum::<f64>();
        assert!(top.abs() < 1e-12);
        // Nothing infinite: the floor is below every value anyway.
        assert!(l.floor < -2.0);
    }

    /// −∞ (no map running or placed while s_req ≥ 1) becomes the floor, strictly below the
    /// least finite u_M + u_R of every job.
    #[test]
    fn minus_infinity_becomes_a_floor_below_every_finite_utility() {
        let a = Need { s_req: 3, s_pend: 3, r_pend: 2 };
        let b = Need { s_req: 1, s_pend: 1, r_pend: 0 };
        let p = problem(vec![a, b], vec![[0, 0], [0, 0]]);
        let l = Ladders::of(&p, &[[3, 2], [1, 0]]);
        assert_eq!(l.of_job[0][0].base, l.floor);
        assert_eq!(l.of_job[1][0].base, l.floor);
        let least_finite = map_utility(1, 3, 3) + reduce_utility(0, 2);
        assert!(l.floor + 0.0 < least_finite);
        assert_eq!(l.floor, -(1.0 + 1.0) - 1.0);
    }

    /// An inactive job has empty ladders; no placeable task leaves the base alone.
    #[test]
    fn inactive_and_unplaceable_jobs() {
        let p = problem(
            vec![Need { s_req: 0, s_pend: 0, r_pend: 0 }, Need { s_req: 1, s_pend: 2, r_pend: 0 }],
            vec![[0, 0], [1, 0]],
        );
        let l = Ladders::of(&p, &[[0, 0], [0, 0]]);
        assert_eq!(l.of_job[0][0], Ladder { base: 0.0, steps: vec![] });
        assert_eq!(l.of_job[1][0], Ladder { base: 0.0, steps: vec![] });
        assert_eq!(l.of_job[1][1], Ladder { base: 0.0, steps: vec![] });
    }
}
