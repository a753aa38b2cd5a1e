//! The brute-force oracle for small assignment problems (lsap-sched §3.2, eq. 3 evaluated over
//! every assignment φ): tries every injective map of the smaller side into the larger one.
//! O(c!/(c−r)!) time; meant for r, c ≤ 8 in tests.

use super::{Cost, DenseSolver, LsapSolution};
use crate::error::SolveError;
use ndarray::ArrayView2;

/// The exhaustive engine (stateless).
#[derive(Clone, Copy, Debug, Default)]
pub struct Brute;

impl DenseSolver for Brute {
    fn solve_i64(&self, costs: ArrayView2<'_, i64>) -> Result<LsapSolution<i64>, SolveError> {
        solve(costs)
    }
}

/// The minimum of Σ c(i, φ(i)) (lsap-sched eq. 2, in the matrix's own units) over every
/// complete assignment φ of the smaller side into the larger one that avoids forbidden
/// entries (`+inf` / `i64::MAX`); ties go to the first found (the smaller side's choices in
/// lexicographic order).
///
/// # Complexity
/// Time O(c! / (c − r)! · r) for r = min(rows, cols), c = max(rows, cols): every injective
/// map is tried, so keep r, c ≤ 8. Space O(r + c) besides the answer.
///
/// # Errors
/// [`SolveError::Infeasible`] when every complete assignment uses a forbidden pair.
///
/// # Examples
/// lsap-sched's Fig. 2(b), more tasks than idle slots, its first four rows without the elided
/// columns and without the padding: t1 = (2, 1), t2 = (0, 0), t3 = (5, 2), t4 = (3, 5) over
/// slots s1, s2. Of the 12 ways to fill both slots the least is t1 → s2 (1) with t2 → s1
/// (0), total 1. lsap-sched's Fig. 1 (T1's block on A and B, T2's only on A; a remote read
/// costs 1) comes out T1 → B, T2 → A, total 0.
/// ```
/// use ndarray::arr2;
/// use placer_solver::lsap::brute;
/// let fig_2b = brute::solve(arr2(&[[2.0, 1.0], [0.0, 0.0], [5.0, 2.0], [3.0, 5.0]]).view());
/// let fig_2b = fig_2b.unwrap();
/// assert_eq!(fig_2b.row_to_col, vec![Some(1), Some(0), None, None]);
/// assert_eq!(fig_2b.objective, 1.0);
/// let fig_1 = brute::solve(arr2(&[[0, 0], [0, 1]]).view()).unwrap();
/// assert_eq!((fig_1.row_to_col, fig_1.objective), (vec![Some(1), Some(0)], 0));
/// ```
pub fn solve<C: Cost>(costs: ArrayView2<'_, C>) -> Result<LsapSolution<C>, SolveError> {
    let (rows, cols) = costs.dim();
    let tall = rows > cols;
    let m = if tall { costs.reversed_axes() } else { costs };
    let (r, c) = m.dim();
    let mut best: Option<(C, Vec<usize>)> = None;
    let mut current = Vec::with_capacity(r);
    let mut used = vec![false; c];
    search(&m, 0, C::ZERO, &mut current, &mut used, &mut best);
    let Some((_, picks)) = best else {
        return Err(SolveError::Infeasible {
            message: "every assignment uses a forbidden pair".into(),
        });
    };
    let mut row_to_col = vec![None; rows];
    for (i, &j) in picks.iter().enumerate() {
        if tall {
            row_to_col[j] = Some(i);
        } else {
            row_to_col[i] = Some(j);
        }
    }
    Ok(LsapSolution::from_rows(costs, row_to_col))
}

fn search<C: Cost>(
    m: &ArrayView2<'_, C>,
    i: usize,
    sum: C,
    current: &mut Vec<usize>,
    used: &mut [bool],
    best: &mut Option<(C, Vec<usize>)>,
) {
    let (r, c) = m.dim();
    if i == r {
        if best.as_ref().is_none_or(|(b, _)| sum < *b) {
            *best = Some((sum, current.clone()));
        }
        return;
    }
    for j in 0..c {
        let x = m[[i, j]];
        if used[j] || x.is_forbidden() {
            continue;
        }
        used[j] = true;
        current.push(j);
        search(m, i + 1, sum + x, current, used, best);
        current.pop();
        used[j] = false;
    }
}
