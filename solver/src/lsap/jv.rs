//! placer's dense rectangular LSAP engine: the shortest augmenting path algorithm of Jonker &
//! Volgenant ("A shortest augmenting path algorithm for dense and sparse linear assignment
//! problems", Computing 38, 1987), kept rectangular as in Crouse 2016; the engine behind
//! lsap-sched's per-epoch LSAP (Guo, Fox, Zhou §3.2).
//!
//! For r ≤ c (a wide matrix is solved as it is, a tall one through its transpose) the engine
//! keeps column potentials v and, implicitly, row potentials `u[i] = c[i][x(i)] − v[x(i)]` for
//! the column x(i) of every assigned row, such that every reduced cost `c[i][j] − u[i] − v[j]` is
//! ≥ 0 and 0 on assigned pairs. At the end every row is assigned, and for r < c every unassigned
//! column still has its initial v = 0 while assigned ones only ever went down (v ≤ 0): the
//! rectangular optimality certificate (the dual of "every row once, every column at most once").
//!
//! Phases (JV 1987 §3):
//! 1. Column reduction, square only: `v[j] = min_i c[i][j]`, each column offered to its cheapest
//!    row; then reduction transfer: a row that was offered exactly one column moves its slack to
//!    that column's potential (`v[j] −= min_{k≠j} c[i][k] − v[k]`). Rectangular problems skip
//!    both (a column reduction would give unassigned columns unequal potentials) and start at
//!    v = 0 with every row free.
//! 2. Augmenting row reduction, two passes: a free row takes the column of its smallest
//!    `c[i][j] − v[j]` (u1) and lowers that column's potential to the second smallest (u2),
//!    evicting the previous owner, who bids at once; on a tie it takes a free column at u1 if
//!    there is one, else evicts the owner of the second column, who bids in the next pass. Each
//!    bid is one row scan; bids are capped (4·(r + c) in all) so price wars on near-ties stay
//!    cheap, and a bid that cannot lower a potential (f64 rounding, the i64 floor of −2⁶⁰)
//!    leaves its row to phase 3.
//! 3. Shortest augmenting paths: for each row still free, Dijkstra over reduced costs on the
//!    dense rows (no heap). Every scan relaxes the whole row in column order (contiguous and
//!    vectorised; a finished column's working potential is −inf so that nothing relaxes it
//!    again), then the columns at the new minimum distance are examined together and a free one
//!    among them ends the search (JV's tie rule, decisive on cluster matrices); else the first
//!    one is finished and its row scanned next. Finished columns then move their potentials by
//!    `d[j] − d_sink` and the path is flipped.
//!
//! Example: `[[1, 2], [1, 5]]` — column reduction gives v = (1, 2) with both columns offered to
//! row 0, which keeps column 0. Free row 1 bids for column 0 (u1 = 0, u2 = 3, so v[0] = −2)
//! and evicts row 0, which bids for the free column 1 at once: 2 + 1 = 3, no phase 3 needed.
//!
//! Complexity: O(r · c) for phases 1–2 (bounded bids), O(r² · c) worst case for phase 3, much
//! less on random and on tie-heavy cluster matrices where phases 1–2 place most rows. Memory:
//! a dozen O(r + c) vectors besides the matrix, plus a transposed copy for a tall one.
//! Forbidden entries (+inf / `i64::MAX`) are never assigned; a row or (square) column with no
//! allowed entry, or a search that reaches no free column, is [`SolveError::Infeasible`].

use super::{check_f64, check_i64, Cost, DenseSolver, LsapSolution};
use crate::error::SolveError;
use ndarray::ArrayView2;

const NONE: usize = usize::MAX;

/// Arithmetic the engine needs beyond [`Cost`]: a subtraction that keeps the forbidden marker.
pub(crate) trait JvCost: Cost {
    /// The lowest column potential a row-reduction bid may set (keeps i64 sums in range).
    const FLOOR: Self;
    /// `x − y`, or `INF` when `x` is forbidden (`y` finite).
    fn minus(x: Self, y: Self) -> Self;
    /// The working potential of a column whose distance is final: `minus_done(x, DONE, z)` is
    /// `INF` for every x, so no scan can lower its distance again.
    const DONE: Self;
    /// `x − y − z`, or `INF` when `x` is forbidden or `y` is [`JvCost::DONE`].
    fn minus_done(x: Self, y: Self, z: Self) -> Self;
    /// Relaxes every column through row i: `d[j] = min(d[j], c[i][j] − w[j] − h)`, `pred[j] =
    /// i` where lowered; returns the new minimum of d.
    fn relax(
        d: &mut [Self],
        pred: &mut [usize],
        ri: &[Self],
        w: &[Self],
        h: Self,
        i: usize,
    ) -> Self;
}

impl JvCost for i64 {
    fn relax(
        d: &mut [Self],
        pred: &mut [usize],
        ri: &[Self],
        w: &[Self],
        h: Self,
        i: usize,
    ) -> Self {
        relax_generic(d, pred, ri, w, h, i)
    }
    const FLOOR: Self = -(1i64 << 60);
    const DONE: Self = i64::MIN;
    #[inline(always)]
    fn minus_done(x: Self, y: Self, z: Self) -> Self {
        if x == i64::MAX || y == i64::MIN {
            i64::MAX
        } else {
            x - y - z
        }
    }
    #[inline(always)]
    fn minus(x: Self, y: Self) -> Self {
        if x == i64::MAX {
            i64::MAX
        } else {
            x - y
        }
    }
}

impl JvCost for f64 {
    fn relax(
        d: &mut [Self],
        pred: &mut [usize],
        ri: &[Self],
        w: &[Self],
        h: Self,
        i: usize,
    ) -> Self {
        let n = d.len().min(pred.len()).min(ri.len()).min(w.len());
        let (d, pred, ri, w) = (&mut d[..n], &mut pred[..n], &ri[..n], &w[..n]);
        let mut lanes = [f64::INFINITY; 4];
        let mut dc = d.chunks_exact_mut(4);
        let mut pc = pred.chunks_exact_mut(4);
        let mut xc = ri.chunks_exact(4);
        let mut wc = w.chunks_exact(4);
        for (((dd, pp), xx), ww) in (&mut dc).zip(&mut pc).zip(&mut xc).zip(&mut wc) {
            for k in 0..4 {
                let v2 = xx[k] - ww[k] - h;
                let old = dd[k];
                let better = v2 < old;
                let nd = if better { v2 } else { old };
                dd[k] = nd;
                pp[k] = if better { i } else { pp[k] };
                lanes[k] = if nd < lanes[k] { nd } else { lanes[k] };
            }
        }
        let (dr, pr) = (dc.into_remainder(), pc.into_remainder());
        for (((dj, pj), &x), &wj) in
            dr.iter_mut().zip(pr.iter_mut()).zip(xc.remainder()).zip(wc.remainder())
        {
            let v2 = x - wj - h;
            if v2 < *dj {
                *dj = v2;
                *pj = i;
            }
        }
        lanes_min(lanes, dr)
    }
    const FLOOR: Self = f64::NEG_INFINITY;
    const DONE: Self = f64::NEG_INFINITY;
    #[inline(always)]
    fn minus_done(x: Self, y: Self, z: Self) -> Self {
        // x − (−inf) = +inf for finite and +inf x alike.
        x - y - z
    }
    #[inline(always)]
    fn minus(x: Self, y: Self) -> Self {
        // +inf − finite = +inf.
        x - y
    }
}

/// The JV engine (stateless).
#[derive(Clone, Copy, Debug, Default)]
pub struct Jv;

impl DenseSolver for Jv {
    fn solve_i64(&self, costs: ArrayView2<'_, i64>) -> Result<LsapSolution<i64>, SolveError> {
        check_i64(costs)?;
        solve(costs)
    }
}

/// Minimises an f64 matrix (+inf forbidden; NaN and −inf rejected).
pub fn solve_f64(costs: ArrayView2<'_, f64>) -> Result<LsapSolution<f64>, SolveError> {
    check_f64(costs)?;
    solve(costs)
}

/// Minimises any matrix whose entries were checked by the caller.
pub(crate) fn solve<C: JvCost>(costs: ArrayView2<'_, C>) -> Result<LsapSolution<C>, SolveError> {
    let (rows, cols) = costs.dim();
    if rows == 0 || cols == 0 {
        return Ok(LsapSolution::from_rows(costs, vec![None; rows]));
    }
    if rows <= cols {
        let standard = costs.as_standard_layout();
        let flat = standard.as_slice().ok_or_else(layout_bug)?;
        let duals = wide(flat, rows, cols)?;
        Ok(LsapSolution::from_rows(costs, duals.col4row.into_iter().map(Some).collect()))
    } else {
        let transposed = costs.reversed_axes();
        let standard = transposed.as_standard_layout();
        let flat = standard.as_slice().ok_or_else(layout_bug)?;
        let duals = wide(flat, cols, rows)?;
        let mut row_to_col = vec![None; rows];
        for (j, &i) in duals.col4row.iter().enumerate() {
            row_to_col[i] = Some(j);
        }
        Ok(LsapSolution::from_rows(costs, row_to_col))
    }
}

fn layout_bug() -> SolveError {
    SolveError::Infeasible { message: "internal: matrix not contiguous after relayout".into() }
}

fn infeasible(message: String) -> SolveError {
    SolveError::Infeasible { message }
}

/// The optimal matching of a wide problem and its column potentials (the certificate).
#[derive(Debug)]
pub(crate) struct Wide<C> {
    /// The column of every row.
    pub col4row: Vec<usize>,
    /// The row of every column (`NONE` when unassigned).
    pub row4col: Vec<usize>,
    /// Column potentials; row potentials are `c[i][col4row[i]] − v[col4row[i]]`.
    pub v: Vec<C>,
}

/// Solves r ≤ c on a row-major slice of r · c entries.
pub(crate) fn wide<C: JvCost>(a: &[C], nr: usize, nc: usize) -> Result<Wide<C>, SolveError> {
    debug_assert!(nr <= nc && a.len() == nr * nc);
    let mut s = Wide { col4row: vec![NONE; nr], row4col: vec![NONE; nc], v: vec![C::ZERO; nc] };
    let free = if nr == nc { column_reduction(a, nc, &mut s)? } else { (0..nr).collect() };
    let free = augmenting_row_reduction(a, nc, &mut s, free)?;
    augment(a, nc, &mut s, &free)?;
    Ok(s)
}

#[inline(always)]
fn row_of<C>(a: &[C], nc: usize, i: usize) -> &[C] {
    &a[i * nc..(i + 1) * nc]
}

/// Phase 1 (square): column reduction and reduction transfer; returns the free rows.
fn column_reduction<C: JvCost>(
    a: &[C],
    n: usize,
    s: &mut Wide<C>,
) -> Result<Vec<usize>, SolveError> {
    // v[j] = min_i c[i][j] (first row on ties), row-major so the matrix streams once.
    let mut argmin = vec![NONE; n];
    s.v.fill(C::INF);
    for (i, r) in a.chunks_exact(n).enumerate() {
        for ((&x, m), am) in r.iter().zip(s.v.iter_mut()).zip(argmin.iter_mut()) {
            if x < *m {
                *m = x;
                *am = i;
            }
        }
    }
    if let Some(j) = argmin.iter().position(|&i| i == NONE) {
        return Err(infeasible(format!("column {j} has only forbidden entries")));
    }
    // Offer each column (last first, as JV) to its cheapest row; a row keeps its cheapest offer.
    let mut offers = vec![0u32; n];
    for j in (0..n).rev() {
        let i = argmin[j];
        offers[i] += 1;
        if offers[i] == 1 {
            s.col4row[i] = j;
            s.row4col[j] = i;
        } else if s.v[j] < s.v[s.col4row[i]] {
            let j1 = s.col4row[i];
            s.row4col[j1] = NONE;
            s.col4row[i] = j;
            s.row4col[j] = i;
        }
    }
    // Reduction transfer: c[i][j1] − v[j1] = 0 for the one column of row i; lower v[j1] by the
    // row's second smallest reduced cost so that u[i] carries it.
    let mut free = Vec::new();
    for (i, &count) in offers.iter().enumerate() {
        match count {
            0 => free.push(i),
            1 => {
                let j1 = s.col4row[i];
                let r = row_of(a, n, i);
                let mut mu = C::INF;
                for (&x, &vj) in r[..j1].iter().zip(&s.v[..j1]) {
                    let h = C::minus(x, vj);
                    if h < mu {
                        mu = h;
                    }
                }
                for (&x, &vj) in r[j1 + 1..].iter().zip(&s.v[j1 + 1..]) {
                    let h = C::minus(x, vj);
                    if h < mu {
                        mu = h;
                    }
                }
                if !mu.is_forbidden() {
                    s.v[j1] = s.v[j1] - mu;
                }
            }
            _ => {}
        }
    }
    Ok(free)
}

/// Phase 2: two passes of augmenting row reduction; returns the rows still free.
fn augmenting_row_reduction<C: JvCost>(
    a: &[C],
    nc: usize,
    s: &mut Wide<C>,
    mut free: Vec<usize>,
) -> Result<Vec<usize>, SolveError> {
    let nr = s.col4row.len();
    let mut budget = 4 * (nr + nc);
    for _pass in 0..2 {
        let list = std::mem::take(&mut free);
        let mut queue = list.iter().copied();
        let mut pending = None;
        while let Some(i) = pending.take().or_else(|| queue.next()) {
            if budget == 0 {
                free.push(i);
                continue;
            }
            budget -= 1;
            let (u1, j1, u2, j2) = two_smallest(row_of(a, nc, i), &s.v, &s.row4col);
            if j1 == NONE {
                return Err(infeasible(format!("row {i} has only forbidden entries")));
            }
            let i0 = s.row4col[j1];
            if u2.is_forbidden() {
                // Only one allowed column: take it if free, else leave the row to phase 3.
                if i0 == NONE {
                    s.col4row[i] = j1;
                    s.row4col[j1] = i;
                } else {
                    free.push(i);
                }
                continue;
            }
            if u1 < u2 {
                let lowered = s.v[j1] - (u2 - u1);
                if lowered < s.v[j1] && lowered >= C::FLOOR {
                    s.v[j1] = lowered;
                    s.col4row[i] = j1;
                    s.row4col[j1] = i;
                    if i0 != NONE {
                        s.col4row[i0] = NONE;
                        pending = Some(i0);
                    }
                } else if i0 == NONE {
                    s.col4row[i] = j1;
                    s.row4col[j1] = i;
                } else {
                    free.push(i);
                }
            } else if i0 == NONE {
                s.col4row[i] = j1;
                s.row4col[j1] = i;
            } else {
                // Tie and every column at u1 is taken: evict the owner of the second one.
                let i2 = s.row4col[j2];
                s.col4row[i] = j2;
                s.row4col[j2] = i;
                if i2 != NONE {
                    s.col4row[i2] = NONE;
                    free.push(i2);
                }
            }
        }
    }
    Ok(free)
}

/// The smallest and second smallest `c[i][j] − v[j]` of a row with their columns (`NONE` /
/// `INF` when missing); among columns tied at the smallest a free one is preferred.
#[inline]
fn two_smallest<C: JvCost>(r: &[C], v: &[C], row4col: &[usize]) -> (C, usize, C, usize) {
    let (mut u1, mut j1, mut u2, mut j2) = (C::INF, NONE, C::INF, NONE);
    for (j, (&x, &vj)) in r.iter().zip(v).enumerate() {
        let h = C::minus(x, vj);
        if h < u2 {
            if h < u1 {
                (u2, j2, u1, j1) = (u1, j1, h, j);
            } else if h == u1 && row4col[j] == NONE && row4col[j1] != NONE {
                (u2, j2, j1) = (u1, j1, j);
            } else {
                (u2, j2) = (h, j);
            }
        } else if h == u1 && j1 != NONE && row4col[j] == NONE && row4col[j1] != NONE {
            j1 = j;
        }
    }
    (u1, j1, u2, j2)
}

/// The first column at distance `min` and the first free column at it (`NONE` if none is free):
/// JV's "all columns at the minimum distance; a free one ends the search".
fn find_min<C: JvCost>(d: &[C], min: C, row4col: &[usize]) -> (usize, usize) {
    let mut first = NONE;
    let mut chunks = d.chunks_exact(4);
    let mut base = 0;
    for c in &mut chunks {
        // Branch-free test of four lanes, so that the loop vectorises.
        if (c[0] == min) | (c[1] == min) | (c[2] == min) | (c[3] == min) {
            for (k, &x) in c.iter().enumerate() {
                if x == min {
                    let j = base + k;
                    if first == NONE {
                        first = j;
                    }
                    if row4col[j] == NONE {
                        return (first, j);
                    }
                }
            }
        }
        base += 4;
    }
    for (k, &x) in chunks.remainder().iter().enumerate() {
        if x == min {
            let j = base + k;
            if first == NONE {
                first = j;
            }
            if row4col[j] == NONE {
                return (first, j);
            }
        }
    }
    (first, NONE)
}

/// Lane-wise minimum of a slice (4 lanes so that the loop vectorises).
#[inline(always)]
fn lanes_min<C: JvCost>(lanes: [C; 4], rest: &[C]) -> C {
    let mut m = lanes[0];
    for &x in lanes[1..].iter().chain(rest) {
        if x < m {
            m = x;
        }
    }
    m
}

/// Relaxes every column through row i (`d[j] = min(d[j], c[i][j] − w[j] − h)`, pred = i where
/// lowered) and returns the new minimum of d.
#[inline(always)]
fn relax_generic<C: JvCost>(
    d: &mut [C],
    pred: &mut [usize],
    ri: &[C],
    w: &[C],
    h: C,
    i: usize,
) -> C {
    let mut lanes = [C::INF; 4];
    let mut dc = d.chunks_exact_mut(4);
    let mut pc = pred.chunks_exact_mut(4);
    let mut xc = ri.chunks_exact(4);
    let mut wc = w.chunks_exact(4);
    for (((dd, pp), xx), ww) in (&mut dc).zip(&mut pc).zip(&mut xc).zip(&mut wc) {
        for k in 0..4 {
            let v2 = C::minus_done(xx[k], ww[k], h);
            let better = v2 < dd[k];
            let nd = if better { v2 } else { dd[k] };
            dd[k] = nd;
            pp[k] = if better { i } else { pp[k] };
            lanes[k] = if nd < lanes[k] { nd } else { lanes[k] };
        }
    }
    let (dr, pr) = (dc.into_remainder(), pc.into_remainder());
    for (((dj, pj), &x), &wj) in
        dr.iter_mut().zip(pr.iter_mut()).zip(xc.remainder()).zip(wc.remainder())
    {
        let v2 = C::minus_done(x, wj, h);
        if v2 < *dj {
            *dj = v2;
            *pj = i;
        }
    }
    lanes_min(lanes, dr)
}

/// Phase 3: one Dijkstra shortest augmenting path per free row.
fn augment<C: JvCost>(
    a: &[C],
    nc: usize,
    s: &mut Wide<C>,
    free: &[usize],
) -> Result<(), SolveError> {
    let mut d = vec![C::INF; nc];
    let mut pred = vec![NONE; nc];
    let mut vw = vec![C::ZERO; nc];
    let mut done: Vec<(usize, C)> = Vec::new();
    for &f in free {
        vw.copy_from_slice(&s.v);
        done.clear();
        d.fill(C::INF);
        let mut min = C::relax(&mut d, &mut pred, row_of(a, nc, f), &vw, C::ZERO, f);
        let (sink, level) = loop {
            if min.is_forbidden() {
                return Err(infeasible(format!(
                    "row {f} cannot be matched without a forbidden pair"
                )));
            }
            let (j1, jfree) = find_min(&d, min, &s.row4col);
            if jfree != NONE {
                break (jfree, min);
            }
            done.push((j1, min));
            d[j1] = C::INF;
            vw[j1] = C::DONE;
            let i = s.row4col[j1];
            let ri = row_of(a, nc, i);
            let h = ri[j1] - s.v[j1] - min;
            min = C::relax(&mut d, &mut pred, ri, &vw, h, i);
        };
        for &(j, dj) in &done {
            s.v[j] = s.v[j] + (dj - level);
        }
        let mut j = sink;
        loop {
            let i = pred[j];
            s.row4col[j] = i;
            let previous = std::mem::replace(&mut s.col4row[i], j);
            if i == f {
                break;
            }
            j = previous;
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::lsap::brute;
    use crate::lsap::hungarian::Hungarian;
    use ndarray::{arr2, Array2};
    use proptest::prelude::*;

    const X: i64 = i64::MAX;

    /// Checks the rectangular optimality certificate of a wide i64 solve: a complete matching
    /// of the rows, reduced costs ≥ 0 and 0 on assigned pairs, v ≤ 0 and v = 0 on unassigned
    /// columns. Returns the objective.
    fn certify(m: &Array2<i64>) -> Result<i64, SolveError> {
        let (r, c) = m.dim();
        let flat: Vec<i64> = m.iter().copied().collect();
        let w = wide(&flat, r, c)?;
        let mut sum = 0;
        for (i, &j) in w.col4row.iter().enumerate() {
            assert_eq!(w.row4col[j], i, "row4col/col4row disagree");
            assert_ne!(m[[i, j]], X, "forbidden pair assigned");
            sum += m[[i, j]];
            let u = m[[i, j]] - w.v[j];
            for k in 0..c {
                if m[[i, k]] != X {
                    assert!(m[[i, k]] - u - w.v[k] >= 0, "reduced cost [{i}][{k}] < 0");
                }
            }
        }
        for (j, &i) in w.row4col.iter().enumerate() {
            if r < c {
                assert!(w.v[j] <= 0, "v[{j}] > 0");
                if i == NONE {
                    assert_eq!(w.v[j], 0, "unassigned column {j} has v ≠ 0");
                }
            } else {
                assert_ne!(i, NONE, "square problem left column {j} free");
            }
        }
        Ok(sum)
    }

    fn wide_matrix(max_r: usize, max_c: usize, values: i64) -> impl Strategy<Value = Array2<i64>> {
        (1..=max_r, 1..=max_c).prop_flat_map(move |(a, b)| {
            let (r, c) = (a.min(b), a.max(b));
            proptest::collection::vec(prop_oneof![6 => -values..values, 1 => Just(X)], r * c)
                .prop_map(move |v| Array2::from_shape_vec((r, c), v).unwrap())
        })
    }

    fn to_f64(m: &Array2<i64>) -> Array2<f64> {
        m.mapv(|x| if x == X { f64::INFINITY } else { x as f64 })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        /// Small wide matrices with ties, negative and forbidden entries: the certificate holds
        /// and the objective is the brute-force optimum (or both are infeasible), in i64 and f64,
        /// wide and transposed.
        #[test]
        fn certified_and_equal_to_brute_force(m in wide_matrix(6, 7, 6)) {
            let oracle = brute::solve(m.view()).map(|s| s.objective).ok();
            let got = certify(&m);
            prop_assert_eq!(got.as_ref().ok().copied(), oracle);
            if let Err(e) = got {
                prop_assert_eq!(e.code(), "infeasible");
            }
            let f = solve_f64(to_f64(&m).view()).map(|s| s.objective).ok();
            prop_assert_eq!(f, oracle.map(|o| o as f64));
            let t = Jv.solve_i64(m.t()).map(|s| s.objective).ok();
            prop_assert_eq!(t, oracle);
        }

        /// Medium tie-heavy matrices (few distinct values, as cluster matrices are): certified,
        /// and equal to the Kuhn–Munkres reference.
        #[test]
        fn tie_heavy_matches_reference(m in wide_matrix(40, 60, 3)) {
            let got = certify(&m).ok();
            let reference = Hungarian.solve_i64(m.view()).map(|s| s.objective).ok();
            prop_assert_eq!(got, reference);
            let f = solve_f64(to_f64(&m).view()).map(|s| s.objective).ok();
            prop_assert_eq!(f, reference.map(|o| o as f64));
        }

        /// Wide-range entries: certified and equal to the reference.
        #[test]
        fn wide_range_matches_reference(m in wide_matrix(25, 40, 1_000_000_000)) {
            let got = certify(&m).ok();
            let reference = Hungarian.solve_i64(m.view()).map(|s| s.objective).ok();
            prop_assert_eq!(got, reference);
        }

        /// f64 entries far above their spacing (1e18 + multiples of 256): the row reduction's
        /// rounding guard keeps the solve finite and optimal.
        #[test]
        fn huge_f64_entries_terminate(m in wide_matrix(6, 7, 8)) {
            let oracle = brute::solve(m.view()).map(|s| s.objective).ok();
            let f = m.mapv(|x| if x == X { f64::INFINITY } else { 1e18 + 256.0 * x as f64 });
            let got = solve_f64(f.view()).ok().map(|s| {
                s.row_to_col.iter().enumerate().filter_map(|(i, j)| j.map(|j| m[[i, j]])).sum::<i64>()
            });
            prop_assert_eq!(got, oracle);
        }
    }

    #[test]
    fn module_doc_example() {
        let s = Jv.solve_i64(arr2(&[[1, 2], [1, 5]]).view()).unwrap();
        assert_eq!(s.objective, 3);
        assert_eq!(s.row_to_col, vec![Some(1), Some(0)]);
    }

    #[test]
    fn all_equal_square_and_wide() {
        for (r, c) in [(200, 200), (150, 300)] {
            let m = Array2::from_elem((r, c), 7i64);
            assert_eq!(certify(&m).unwrap(), 7 * r as i64);
        }
    }

    #[test]
    fn forbidden_column_in_a_square_is_infeasible() {
        let m = arr2(&[[1, X, 2], [3, X, 4], [5, X, 6]]);
        assert_eq!(certify(&m).unwrap_err().code(), "infeasible");
    }

    #[test]
    fn rows_sharing_their_only_allowed_column_are_infeasible() {
        let m = arr2(&[[0, X, X, X], [0, X, X, X], [1, 2, 3, 4]]);
        assert_eq!(certify(&m).unwrap_err().code(), "infeasible");
    }

    #[test]
    fn rows_with_one_allowed_column_each() {
        let m = arr2(&[[X, 5, X, X], [X, X, X, -3], [2, 9, 9, 1]]);
        assert_eq!(certify(&m).unwrap(), 5 - 3 + 2);
    }

    /// A uniform random square matrix large enough to exhaust the row-reduction budget; the
    /// certificate proves the result.
    #[test]
    fn random_square_exhausting_the_bid_budget() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % 1_000_000) as i64
        };
        let m = Array2::from_shape_fn((300, 300), |_| next());
        certify(&m).unwrap();
        let w = Array2::from_shape_fn((120, 400), |_| next());
        certify(&w).unwrap();
    }
}
