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

/// The minimum over every complete assignment; the first one found wins ties.
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
