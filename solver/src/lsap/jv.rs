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
//! 1. Column reduction, square only: `v[j] = min_i c[i][j]`; then, where JV offers each column
//!    to its first cheapest row (a row keeping one), a maximum matching of the equality graph
//!    (row i, column j where `c[i][j] = v[j]`; Hopcroft–Karp, `super::equality`), which on
//!    ties matches many more rows; then reduction transfer: a matched row at the minimum of
//!    exactly one column moves its slack to that column's potential
//!    (`v[j] −= min_{k≠j} c[i][k] − v[k]`). Rectangular problems skip all three (a column
//!    reduction would give unassigned columns unequal potentials) and start at v = 0 with every
//!    row free.
//! 2. Augmenting row reduction, two passes: a free row takes the column of its smallest
//!    `c[i][j] − v[j]` (u1) and lowers that column's potential to the second smallest (u2),
//!    evicting the previous owner, who bids at once; on a tie it takes a free column at u1 if
//!    there is one, else evicts the owner of the second column, who bids in the next pass. Each
//!    bid is one row scan; bids are capped (4·(r + c) in all) so price wars on near-ties stay
//!    cheap, and a bid that cannot lower a potential (f64 rounding, the i64 floor of −2⁶⁰)
//!    leaves its row to phase 3.
//! 3. Shortest augmenting paths: for each row still free, Dijkstra over reduced costs on the
//!    dense rows (no heap), with JV's sets of columns: finished, ready (at the current minimum
//!    distance, not yet scanned) and the rest. When no column is ready, one pass moves every
//!    column at the new minimum distance to ready at once, and a free one among them ends the
//!    search (JV's tie rule, decisive on cluster matrices). Scanning a ready column relaxes its
//!    row; a column that reaches the current minimum becomes ready at once (a free one ends the
//!    search), so a plateau of ties costs one row scan per column on it and no minimum search.
//!    Scans read the row in column order (contiguous and vectorised; a finished column's
//!    working potential is −inf so that nothing relaxes it again) until half of the
//!    columns are finished; the search then packs the unfinished ones (index, distance,
//!    potential, predecessor, in column order) and scans only them. Finished columns then move
//!    their potentials by `d[j] − d_sink` and the path is flipped.
//!
//! Example: `[[1, 2], [1, 5]]` — column reduction gives v = (1, 2); the equality graph joins row
//! 0 to both columns and row 1 to column 0, so the maximum matching is row 0 → column 1, row 1
//! → column 0, and reduction transfer lowers `v[0]` by row 1's slack 5 − 2 = 3 to −2: optimal
//! (1 + 2 = 3), no phase 2 or 3 needed.
//!
//! Complexity: O(r · c) for phases 1–2 (bounded bids), O(r · c) per search in phase 3 (each
//! column is finished once and its row scanned once, over at most c columns), so O(r² · c) in
//! the worst case, much less on random and cluster matrices where phases 1–2 place most rows
//! (5,000² cluster matrix: 522 of 5,000 rows reach phase 3). Memory: about fifteen O(r + c)
//! vectors besides the matrix, plus a transposed copy for a tall one.
//! Forbidden entries (+inf / `i64::MAX`) are never assigned; a row or (square) column with no
//! allowed entry, or a search that reaches no free column, is [`SolveError::Infeasible`].

use super::equality::{self, EqualityGraph};
use super::{check_f64, check_i64, Cost, DenseSolver, LsapSolution};
use crate::cancel::{is_cut, Cancel};
use crate::error::SolveError;
use ndarray::ArrayView2;
use std::convert::identity;

const NONE: usize = usize::MAX;

/// Columns kept per row in the equality graph of column reduction: enough for the replicas'
/// slots of a cluster matrix, and O(r) memory when a row ties with every column.
const MAX_EQUALITY_DEGREE: usize = 64;

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
}

impl JvCost for i64 {
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
    /// An optimal rectangular assignment of an i64 matrix (rows × columns, `i64::MAX`
    /// forbidden) by Jonker–Volgenant shortest augmenting paths: minimise Σᵢ c(i, φ(i)) over
    /// the complete matchings φ of the smaller side, in the entries' units (placer's locality
    /// costs: seconds scaled to integer quanta, 1 ns by default, see the exact layer's `quantum`).
    ///
    /// # Complexity
    /// Time O(r · c) for column and row reduction plus O(r · c) per row left to the
    /// shortest-path phase, so O(min(r, c)² · max(r, c)) in the worst case (far less on
    /// random and cluster matrices). Memory O(r + c) working vectors besides the matrix, plus
    /// a transposed copy of r · c entries when r > c (or when `costs` is not row-major).
    ///
    /// # Errors
    /// [`SolveError::CostOverflow`] for an entry beyond [`super::i64_entry_limit`],
    /// [`SolveError::Infeasible`] when the smaller side cannot be matched entirely without a
    /// forbidden pair.
    ///
    /// # Examples
    /// lsap-sched's Fig. 1: T1's block is on nodes A and B, T2's only on A, one idle slot on
    /// each (rows T1, T2; columns A, B). dl-sched's greedy T1 → A forces T2 remote (cost 1);
    /// the optimum T1 → B, T2 → A costs 0.
    /// ```
    /// use ndarray::arr2;
    /// use placer_solver::lsap::jv::Jv;
    /// use placer_solver::lsap::DenseSolver;
    /// let s = Jv.solve_i64(arr2(&[[0, 0], [0, 1]]).view()).unwrap();
    /// assert_eq!(s.objective, 0);
    /// assert_eq!(s.row_to_col, vec![Some(1), Some(0)]);
    /// ```
    fn solve_i64(&self, costs: ArrayView2<'_, i64>) -> Result<LsapSolution<i64>, SolveError> {
        check_i64(costs)?;
        solve(costs)
    }

    /// [`Jv::solve_i64`], polling `cancel` before each row's shortest augmenting path: when it
    /// reports cancelled, the rows matched so far keep their columns (a valid partial
    /// assignment, one row per column) and the others are `None`, `status: time_limited`.
    fn solve_i64_cancellable(
        &self,
        costs: ArrayView2<'_, i64>,
        cancel: Option<&Cancel>,
    ) -> Result<LsapSolution<i64>, SolveError> {
        check_i64(costs)?;
        let (mut solution, cut) = solve_cancellable(costs, cancel)?;
        if cut {
            solution.status = placer_models::Status::TimeLimited;
        }
        Ok(solution)
    }
}

/// An optimal rectangular assignment of an f64 matrix (rows × columns, `+inf` forbidden) by
/// Jonker–Volgenant shortest augmenting paths: minimise Σᵢ c(i, φ(i)) over the complete
/// matchings φ of the smaller side, in the entries' units (seconds of transfer time for the
/// matrices of `placer export-matrix`; `placer lsap` solves `.lsap` files with it).
///
/// # Complexity
/// Time O(r · c) for column and row reduction plus O(r · c) per row left to the shortest-path
/// phase, so O(min(r, c)² · max(r, c)) in the worst case (far less on random and cluster
/// matrices). Memory O(r + c) working vectors besides the matrix, plus a transposed copy of
/// r · c entries when r > c (or when `costs` is not row-major).
///
/// # Errors
/// [`SolveError::InvalidCost`] for a NaN or −inf entry, [`SolveError::Infeasible`] when the
/// smaller side cannot be matched entirely without a forbidden pair.
///
/// # Examples
/// lsap-sched's Fig. 1: T1's block is on nodes A and B, T2's only on A, one idle slot on each
/// (rows T1, T2; columns A, B). dl-sched's greedy T1 → A forces T2 remote (cost 1); the
/// optimum T1 → B, T2 → A costs 0.
/// ```
/// use ndarray::arr2;
/// use placer_solver::lsap::jv::solve_f64;
/// let s = solve_f64(arr2(&[[0.0, 0.0], [0.0, 1.0]]).view()).unwrap();
/// assert_eq!(s.objective, 0.0);
/// assert_eq!(s.row_to_col, vec![Some(1), Some(0)]);
/// ```
pub fn solve_f64(costs: ArrayView2<'_, f64>) -> Result<LsapSolution<f64>, SolveError> {
    check_f64(costs)?;
    solve(costs)
}

/// Minimises any matrix whose entries were checked by the caller.
pub(crate) fn solve<C: JvCost>(costs: ArrayView2<'_, C>) -> Result<LsapSolution<C>, SolveError> {
    solve_cancellable(costs, None).map(|(solution, _)| solution)
}

/// [`solve`], polling `cancel` once per augmenting row; true when it stopped on it (the
/// solution is then a valid partial assignment).
fn solve_cancellable<C: JvCost>(
    costs: ArrayView2<'_, C>,
    cancel: Option<&Cancel>,
) -> Result<(LsapSolution<C>, bool), SolveError> {
    let (rows, cols) = costs.dim();
    if rows == 0 || cols == 0 {
        return Ok((LsapSolution::from_rows(costs, vec![None; rows]), false));
    }
    let matched = |x: usize| (x != NONE).then_some(x);
    if rows <= cols {
        let standard = costs.as_standard_layout();
        let flat = standard.as_slice().ok_or_else(layout_bug)?;
        let (duals, cut) = wide_cancellable(flat, rows, cols, cancel)?;
        Ok((LsapSolution::from_rows(costs, duals.col4row.into_iter().map(matched).collect()), cut))
    } else {
        let transposed = costs.reversed_axes();
        let standard = transposed.as_standard_layout();
        let flat = standard.as_slice().ok_or_else(layout_bug)?;
        let (duals, cut) = wide_cancellable(flat, cols, rows, cancel)?;
        let mut row_to_col = vec![None; rows];
        for (j, &i) in duals.col4row.iter().enumerate() {
            if let Some(i) = matched(i) {
                row_to_col[i] = Some(j);
            }
        }
        Ok((LsapSolution::from_rows(costs, row_to_col), cut))
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
#[cfg(test)]
pub(crate) fn wide<C: JvCost>(a: &[C], nr: usize, nc: usize) -> Result<Wide<C>, SolveError> {
    wide_cancellable(a, nr, nc, None).map(|(s, _)| s)
}

/// Solves r ≤ c on a row-major slice of r · c entries, polling `cancel` before each free
/// row's augmentation; true when it stopped on it (rows still free then have `col4row` =
/// `NONE`).
fn wide_cancellable<C: JvCost>(
    a: &[C],
    nr: usize,
    nc: usize,
    cancel: Option<&Cancel>,
) -> Result<(Wide<C>, bool), SolveError> {
    debug_assert!(nr <= nc && a.len() == nr * nc);
    let mut s = Wide { col4row: vec![NONE; nr], row4col: vec![NONE; nc], v: vec![C::ZERO; nc] };
    let free = if nr == nc { column_reduction(a, nc, &mut s)? } else { (0..nr).collect() };
    let (free, cut) = augmenting_row_reduction(a, nc, &mut s, free, cancel)?;
    if cut {
        return Ok((s, true));
    }
    let cut = augment(a, nc, &mut s, &free, cancel)?;
    Ok((s, cut))
}

#[inline(always)]
fn row_of<C>(a: &[C], nc: usize, i: usize) -> &[C] {
    &a[i * nc..(i + 1) * nc]
}

/// Phase 1 (square): column reduction, a maximum matching of the equality graph and reduction
/// transfer; returns the free rows.
fn column_reduction<C: JvCost>(
    a: &[C],
    n: usize,
    s: &mut Wide<C>,
) -> Result<Vec<usize>, SolveError> {
    // v[j] = min_i c[i][j] (first row on ties), row-major so the matrix streams once; `tied`
    // marks a column whose minimum is shared by several rows (branch-free, so it vectorises).
    let mut argmin = vec![NONE; n];
    let mut tied = vec![0usize; n];
    s.v.fill(C::INF);
    for (i, r) in a.chunks_exact(n).enumerate() {
        for (((&x, m), am), t) in
            r.iter().zip(s.v.iter_mut()).zip(argmin.iter_mut()).zip(tied.iter_mut())
        {
            let lt = x < *m;
            *t = if lt { 0 } else { *t | usize::from(x == *m) };
            *am = if lt { i } else { *am };
            *m = if lt { x } else { *m };
        }
    }
    if let Some(j) = argmin.iter().position(|&i| i == NONE) {
        return Err(infeasible(format!("column {j} has only forbidden entries")));
    }
    // Match rows to columns where they attain the column minimum, as many as possible (JV
    // offers each column to its first cheapest row only, which on ties — the zero costs of a
    // replica's slots, shared by several rows — leaves most rows free; [`equality`]).
    let mut start = Vec::with_capacity(n + 1);
    let mut adj: Vec<u32> = Vec::new();
    let mut degree = vec![0usize; n];
    start.push(0);
    if tied.iter().all(|&t| t == 0) {
        // Every column's minimum is at its argmin row alone: the graph is read from argmin
        // (each row's columns in column order), without a second pass over the matrix.
        for &i in &argmin {
            degree[i] += 1;
        }
        for &d in &degree {
            start.push(start[start.len() - 1] + d.min(MAX_EQUALITY_DEGREE));
        }
        adj.resize(start[n], 0);
        let mut fill = start[..n].to_vec();
        for (j, &i) in argmin.iter().enumerate() {
            if fill[i] < start[i + 1] {
                adj[fill[i]] = j as u32;
                fill[i] += 1;
            }
        }
    } else {
        for (r, d) in a.chunks_exact(n).zip(degree.iter_mut()) {
            for (j, (&x, &vj)) in r.iter().zip(&s.v).enumerate() {
                if x == vj {
                    *d += 1;
                    if *d <= MAX_EQUALITY_DEGREE {
                        adj.push(j as u32);
                    }
                }
            }
            start.push(adj.len());
        }
    }
    let (col4row, row4col) = equality::max_matching(&EqualityGraph { start, adj }, n, n);
    s.col4row = col4row;
    s.row4col = row4col;
    // Reduction transfer: c[i][j1] − v[j1] = 0 for the column of row i; lower v[j1] by the
    // row's second smallest reduced cost so that u[i] carries it (0, so skipped, for a row at
    // the minimum of two columns or more).
    let mut free = Vec::new();
    for (i, &count) in degree.iter().enumerate() {
        let j1 = s.col4row[i];
        if j1 == NONE {
            free.push(i);
        } else if count == 1 {
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
    }
    Ok(free)
}

/// Phase 2: two passes of augmenting row reduction; returns the rows still free, and true
/// when `cancel` (polled once per row) stopped it.
fn augmenting_row_reduction<C: JvCost>(
    a: &[C],
    nc: usize,
    s: &mut Wide<C>,
    mut free: Vec<usize>,
    cancel: Option<&Cancel>,
) -> Result<(Vec<usize>, bool), SolveError> {
    let nr = s.col4row.len();
    let mut budget = 4 * (nr + nc);
    for _pass in 0..2 {
        let list = std::mem::take(&mut free);
        let mut queue = list.iter().copied();
        let mut pending = None;
        while let Some(i) = pending.take().or_else(|| queue.next()) {
            // Between rows the matching is consistent (an evicted row is `pending`, free).
            if is_cut(cancel) {
                return Ok((free, true));
            }
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
    Ok((free, false))
}

/// The smallest and second smallest `c[i][j] − v[j]` of a row, u1 ≤ u2 (`INF` when missing),
/// the column j1 of u1 and, on a tie u1 = u2, the column j2 of u2 (`NONE` otherwise, and j1
/// `NONE` when every entry is forbidden). Among the columns tied at u1 (in column order t1, t2,
/// …) j1 is the first free one, else t1, and j2 is t2: the choices of a scan in column order
/// that keeps the first minimum and moves to a free column on a tie.
///
/// Four lanes keep their own smallest (first position on ties) and second smallest values
/// without branches, so that the loop vectorises; the rare tie at the minimum re-reads the row
/// from t1 on.
#[inline]
fn two_smallest<C: JvCost>(r: &[C], v: &[C], row4col: &[usize]) -> (C, usize, C, usize) {
    let mut m1 = [C::INF; 4];
    let mut m2 = [C::INF; 4];
    let mut at = [NONE; 4];
    let mut rc = r.chunks_exact(4);
    let mut vc = v.chunks_exact(4);
    let mut base = 0;
    for (rr, vv) in (&mut rc).zip(&mut vc) {
        for k in 0..4 {
            let h = C::minus(rr[k], vv[k]);
            let lt = h < m1[k];
            let hi = if lt { m1[k] } else { h };
            m2[k] = if hi < m2[k] { hi } else { m2[k] };
            at[k] = if lt { base + k } else { at[k] };
            m1[k] = if lt { h } else { m1[k] };
        }
        base += 4;
    }
    for (k, (&x, &vj)) in rc.remainder().iter().zip(vc.remainder()).enumerate() {
        let h = C::minus(x, vj);
        if h < m1[k] {
            m2[k] = m1[k];
            m1[k] = h;
            at[k] = base + k;
        } else if h < m2[k] {
            m2[k] = h;
        }
    }
    // u1 and its first column over the lanes; u2: the lanes' second values and the other
    // lanes' first ones.
    let (mut u1, mut t1, mut lane) = (C::INF, NONE, 0);
    for k in 0..4 {
        if m1[k] < u1 || (m1[k] == u1 && at[k] < t1) {
            (u1, t1, lane) = (m1[k], at[k], k);
        }
    }
    if t1 == NONE {
        return (C::INF, NONE, C::INF, NONE);
    }
    let mut u2 = m2[lane];
    for k in 0..4 {
        if k != lane && m1[k] < u2 {
            u2 = m1[k];
        }
        if m2[k] < u2 {
            u2 = m2[k];
        }
    }
    if u1 < u2 || row4col[t1] == NONE {
        return (u1, t1, u2, NONE);
    }
    // Tied at u1 and t1 taken: the first free column at u1 if any, and t2.
    let mut t2 = NONE;
    for (j, (&x, &vj)) in r.iter().zip(v).enumerate().skip(t1 + 1) {
        if C::minus(x, vj) == u1 {
            if row4col[j] == NONE {
                return (u1, j, u2, NONE);
            }
            if t2 == NONE {
                t2 = j;
            }
        }
    }
    (u1, t1, u2, t2)
}

/// Pushes the start of every block of four columns holding one at distance `level` onto
/// `hits` (the remainder block always).
fn blocks_at<C: JvCost>(d: &[C], level: C, hits: &mut Vec<usize>) {
    let mut base = 0;
    let mut chunks = d.chunks_exact(4);
    for c in &mut chunks {
        // Branch-free test of four lanes, so that the loop vectorises.
        if (c[0] == level) | (c[1] == level) | (c[2] == level) | (c[3] == level) {
            hits.push(base);
        }
        base += 4;
    }
    if !chunks.remainder().is_empty() {
        hits.push(base);
    }
}

/// Moves the columns at distance `level` in the blocks starting at `hits` to `ready`, marking
/// them finished (d = `INF`, working potential [`JvCost::DONE`]); returns the first free one,
/// which ends the search (JV's "all columns at the minimum distance; a free one ends the
/// search"), or `NONE`.
fn take_hits<C: JvCost>(
    d: &mut [C],
    vw: &mut [C],
    level: C,
    row4col: &[usize],
    hits: &[usize],
    ready: &mut Vec<usize>,
) -> usize {
    let n = d.len();
    for &base in hits {
        for j in base..(base + 4).min(n) {
            if d[j] == level {
                if row4col[j] == NONE {
                    return j;
                }
                d[j] = C::INF;
                vw[j] = C::DONE;
                ready.push(j);
            }
        }
    }
    NONE
}

/// Lane-wise minimum of a slice (4 lanes so that the loop vectorises).
#[inline(always)]
fn lanes_min<C: JvCost>(lanes: [C; 4]) -> C {
    let mut m = lanes[0];
    for &x in &lanes[1..] {
        if x < m {
            m = x;
        }
    }
    m
}

/// Relaxes every column through row i: `d[j] = min(d[j], c[i][j] − w[j] − h)`, `pred[j] = i`
/// where lowered (4 lanes so that the loop vectorises; a finished column's working potential is
/// [`JvCost::DONE`], so nothing relaxes it). Position p holds the column whose cost is
/// `cost(keys[p])`: the row itself and [`identity`] for a contiguous scan (`keys = c[i]`), the
/// packed columns and a gather from the row for [`Packed::relax`]. Pushes the start of every
/// block of four positions holding one now at `level` onto `hits`; returns the minimum of the
/// other positions' d.
#[allow(clippy::too_many_arguments)]
fn relax<C: JvCost, K: Copy>(
    d: &mut [C],
    pred: &mut [usize],
    keys: &[K],
    cost: impl Fn(K) -> C,
    w: &[C],
    h: C,
    i: usize,
    level: C,
    hits: &mut Vec<usize>,
) -> C {
    let mut lanes = [C::INF; 4];
    let mut dc = d.chunks_exact_mut(4);
    let mut pc = pred.chunks_exact_mut(4);
    let mut kc = keys.chunks_exact(4);
    let mut wc = w.chunks_exact(4);
    let mut base = 0;
    for (((dd, pp), kk), ww) in (&mut dc).zip(&mut pc).zip(&mut kc).zip(&mut wc) {
        let mut hit = false;
        for k in 0..4 {
            let v2 = C::minus_done(cost(kk[k]), ww[k], h);
            let better = v2 < dd[k];
            let nd = if better { v2 } else { dd[k] };
            dd[k] = nd;
            pp[k] = if better { i } else { pp[k] };
            let at = nd == level;
            hit |= at;
            let m = if at { C::INF } else { nd };
            lanes[k] = if m < lanes[k] { m } else { lanes[k] };
        }
        if hit {
            hits.push(base);
        }
        base += 4;
    }
    let (dr, pr) = (dc.into_remainder(), pc.into_remainder());
    let mut hit = false;
    for (((dj, pj), &key), &wj) in
        dr.iter_mut().zip(pr.iter_mut()).zip(kc.remainder()).zip(wc.remainder())
    {
        let v2 = C::minus_done(cost(key), wj, h);
        if v2 < *dj {
            *dj = v2;
            *pj = i;
        }
        if *dj == level {
            hit = true;
        } else if *dj < lanes[0] {
            lanes[0] = *dj;
        }
    }
    if hit {
        hits.push(base);
    }
    lanes_min(lanes)
}

/// The unfinished columns of a search packed together (JV's "todo" list): their indices,
/// distances, working potentials and predecessors, so that a scan reads only them.
struct Packed<C> {
    col: Vec<usize>,
    d: Vec<C>,
    w: Vec<C>,
    pred: Vec<usize>,
    dead: usize,
}

/// A search packs its unfinished columns once at most 1 / `PACK_WHEN` of them are left: from
/// then on a scan costs O(unfinished) instead of O(c), at the price of a gather from the row.
const PACK_WHEN: usize = 2;

impl<C: JvCost> Packed<C> {
    fn new() -> Self {
        Self { col: Vec::new(), d: Vec::new(), w: Vec::new(), pred: Vec::new(), dead: 0 }
    }

    /// Packs the columns whose working potential is not [`JvCost::DONE`].
    fn fill(&mut self, d: &[C], w: &[C], pred: &[usize]) {
        self.col.clear();
        self.d.clear();
        self.w.clear();
        self.pred.clear();
        self.dead = 0;
        for (j, ((&dj, &wj), &pj)) in d.iter().zip(w).zip(pred).enumerate() {
            if wj != C::DONE {
                self.col.push(j);
                self.d.push(dj);
                self.w.push(wj);
                self.pred.push(pj);
            }
        }
    }

    /// [`relax`] over the packed columns (`hits` holds packed positions).
    fn relax(&mut self, ri: &[C], h: C, i: usize, level: C, hits: &mut Vec<usize>) -> C {
        let n = self.col.len();
        let (col, d, w, pred) =
            (&self.col[..n], &mut self.d[..n], &self.w[..n], &mut self.pred[..n]);
        relax(d, pred, col, |j| ri[j], w, h, i, level, hits)
    }

    /// [`take_hits`] on packed positions: finished columns get their predecessor back and
    /// become dead entries (working potential [`JvCost::DONE`], d = `INF`) until the pack is
    /// compacted (in column order, so that scans read the row forwards).
    fn take_hits(
        &mut self,
        level: C,
        row4col: &[usize],
        hits: &[usize],
        ready: &mut Vec<usize>,
        pred: &mut [usize],
    ) -> usize {
        for &base in hits {
            for p in base..(base + 4).min(self.col.len()) {
                if self.d[p] == level {
                    let j = self.col[p];
                    pred[j] = self.pred[p];
                    if row4col[j] == NONE {
                        return j;
                    }
                    ready.push(j);
                    self.d[p] = C::INF;
                    self.w[p] = C::DONE;
                    self.dead += 1;
                }
            }
        }
        if self.dead * 4 > self.col.len() {
            let mut out = 0;
            for p in 0..self.col.len() {
                if self.w[p] != C::DONE {
                    self.col[out] = self.col[p];
                    self.d[out] = self.d[p];
                    self.w[out] = self.w[p];
                    self.pred[out] = self.pred[p];
                    out += 1;
                }
            }
            self.col.truncate(out);
            self.d.truncate(out);
            self.w.truncate(out);
            self.pred.truncate(out);
            self.dead = 0;
        }
        NONE
    }
}

/// Phase 3: one Dijkstra shortest augmenting path per free row.
fn augment<C: JvCost>(
    a: &[C],
    nc: usize,
    s: &mut Wide<C>,
    free: &[usize],
    cancel: Option<&Cancel>,
) -> Result<bool, SolveError> {
    let mut d = vec![C::INF; nc];
    let mut pred = vec![NONE; nc];
    let mut vw = vec![C::ZERO; nc];
    let mut done: Vec<(usize, C)> = Vec::new();
    let mut ready: Vec<usize> = Vec::new();
    let mut hits: Vec<usize> = Vec::new();
    let mut pack = Packed::new();
    for &f in free {
        if is_cut(cancel) {
            return Ok(true);
        }
        vw.copy_from_slice(&s.v);
        done.clear();
        ready.clear();
        hits.clear();
        d.fill(C::INF);
        // No column is at level DONE: the first scan finds no hits.
        let mut next = relax(
            &mut d,
            &mut pred,
            row_of(a, nc, f),
            identity,
            &vw,
            C::ZERO,
            f,
            C::DONE,
            &mut hits,
        );
        let mut level = C::DONE;
        let mut head = 0;
        let mut finished = 0;
        let mut packed = false;
        let sink = loop {
            if head == ready.len() {
                // Every column at the current level is scanned: the next level is the minimum
                // of the unfinished columns' distances.
                if next.is_forbidden() {
                    return Err(infeasible(format!(
                        "row {f} cannot be matched without a forbidden pair"
                    )));
                }
                level = next;
                ready.clear();
                head = 0;
                hits.clear();
                let jfree = if packed {
                    blocks_at(&pack.d, level, &mut hits);
                    pack.take_hits(level, &s.row4col, &hits, &mut ready, &mut pred)
                } else {
                    blocks_at(&d, level, &mut hits);
                    take_hits(&mut d, &mut vw, level, &s.row4col, &hits, &mut ready)
                };
                if jfree != NONE {
                    break jfree;
                }
                finished += ready.len();
            }
            let j = ready[head];
            head += 1;
            done.push((j, level));
            let i = s.row4col[j];
            let ri = row_of(a, nc, i);
            let h = ri[j] - s.v[j] - level;
            hits.clear();
            if !packed && (nc - finished) * PACK_WHEN <= nc {
                pack.fill(&d, &vw, &pred);
                packed = true;
            }
            let before = ready.len();
            let jfree = if packed {
                next = pack.relax(ri, h, i, level, &mut hits);
                pack.take_hits(level, &s.row4col, &hits, &mut ready, &mut pred)
            } else {
                next = relax(&mut d, &mut pred, ri, identity, &vw, h, i, level, &mut hits);
                take_hits(&mut d, &mut vw, level, &s.row4col, &hits, &mut ready)
            };
            if jfree != NONE {
                break jfree;
            }
            finished += ready.len() - before;
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
    Ok(false)
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
        let flat: Vec<i64> = m.iter().copied().collect();
        let (r, c) = m.dim();
        check_certificate(m, &wide(&flat, r, c)?)
    }

    /// [`certify`] for phase 3 alone: every row free, v = 0 (a valid start for any shape), so
    /// every row goes through a shortest-path search (plateaus, levels and packing included).
    fn certify_phase3(m: &Array2<i64>) -> Result<i64, SolveError> {
        let flat: Vec<i64> = m.iter().copied().collect();
        let (r, c) = m.dim();
        let mut w = Wide { col4row: vec![NONE; r], row4col: vec![NONE; c], v: vec![0; c] };
        augment(&flat, c, &mut w, &(0..r).collect::<Vec<_>>(), None)?;
        check_certificate(m, &w)
    }

    fn check_certificate(m: &Array2<i64>, w: &Wide<i64>) -> Result<i64, SolveError> {
        let (r, c) = m.dim();
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

    /// The column-order scan [`two_smallest`] stands for: keeps the first minimum, moves to a
    /// free column on a tie at the minimum.
    fn two_smallest_scan(r: &[i64], v: &[i64], row4col: &[usize]) -> (i64, usize, i64, usize) {
        let (mut u1, mut j1, mut u2, mut j2) = (i64::MAX, NONE, i64::MAX, NONE);
        for (j, (&x, &vj)) in r.iter().zip(v).enumerate() {
            let h = i64::minus(x, vj);
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

    fn wide_matrix(max_r: usize, max_c: usize, values: i64) -> impl Strategy<Value = Array2<i64>> {
        (1..=max_r, 1..=max_c).prop_flat_map(move |(a, b)| {
            let (r, c) = (a.min(b), a.max(b));
            proptest::collection::vec(prop_oneof![6 => -values..values, 1 => Just(X)], r * c)
                .prop_map(move |v| Array2::from_shape_vec((r, c), v).unwrap())
        })
    }

    /// Tie-heavy matrices 30–80 columns wide with entries in 0..3 (and a few forbidden).
    fn tie_heavy(square: bool) -> impl Strategy<Value = Array2<i64>> {
        (30..=80usize, 0..=50usize).prop_flat_map(move |(c, cut)| {
            let r = if square { c } else { c - cut * (c - 1) / 50 };
            proptest::collection::vec(prop_oneof![30 => 0i64..3, 1 => Just(X)], r * c)
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

        /// Tie-heavy matrices 30–80 wide with entries in 0..3, square (column reduction and row
        /// reduction first) and rectangular: certified and equal to the Kuhn–Munkres reference,
        /// in i64 and f64.
        #[test]
        fn plateaus_match_reference(m in tie_heavy(true), w in tie_heavy(false)) {
            for m in [m, w] {
                let reference = Hungarian.solve_i64(m.view()).map(|s| s.objective).ok();
                prop_assert_eq!(certify(&m).ok(), reference);
                let f = solve_f64(to_f64(&m).view()).map(|s| s.objective).ok();
                prop_assert_eq!(f, reference.map(|o| o as f64));
            }
        }

        /// Phase 3 alone on the same tie-heavy matrices (every row searches from v = 0, so the
        /// late searches cross plateaus holding most columns and pack them): certified and
        /// equal to the reference.
        #[test]
        fn phase3_alone_on_plateaus(m in tie_heavy(true), w in tie_heavy(false)) {
            for m in [m, w] {
                let reference = Hungarian.solve_i64(m.view()).map(|s| s.objective).ok();
                prop_assert_eq!(certify_phase3(&m).ok(), reference);
            }
        }

        /// The lane-parallel two smallest of a row agree with the column-order scan on
        /// everything augmenting row reduction reads: u1, j1, u2, and j2 on a tie whose j1 is
        /// taken (rows of 1–23 entries in 0..4 with forbidden ones, so ties are the rule).
        #[test]
        fn two_smallest_equals_the_scan(
            row in proptest::collection::vec((prop_oneof![8 => 0i64..4, 1 => Just(X)], -2i64..2, any::<bool>()), 1..24)
        ) {
            let r: Vec<i64> = row.iter().map(|e| e.0).collect();
            let v: Vec<i64> = row.iter().map(|e| e.1).collect();
            let row4col: Vec<usize> = row.iter().map(|e| if e.2 { 0 } else { NONE }).collect();
            let (u1, j1, u2, j2) = two_smallest(&r, &v, &row4col);
            let (s1, k1, s2, k2) = two_smallest_scan(&r, &v, &row4col);
            prop_assert_eq!((u1, j1, u2), (s1, k1, s2));
            if u1 == u2 && j1 != NONE && row4col[j1] != NONE {
                prop_assert_eq!(j2, k2);
            }
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

    /// Three rows share three zero columns (a plateau), the other columns cost 1 except one
    /// 2. Any three rows take columns 0–2 at 0 and two others take columns 3 and 4; cheapest:
    /// c[a][3] + c[b][4] = 1 + 1 with a ≠ 4 (row 4 pays 2 for column 3), so the optimum is 2.
    /// Phase 3 alone from v = 0: rows 0–2 take free columns 0–2 at level 0; row 3 finds
    /// columns 0–2 at level 0, all taken, scans their rows (no hit) and takes the free column
    /// 3 at level 1 (v[0..3] = −1); row 4 then sees (1, 1, 1, 2, 1) and takes the free column 4.
    #[test]
    fn plateau_then_next_level_hand_derived() {
        let m = arr2(&[
            [0, 0, 0, 1, 1],
            [0, 0, 0, 1, 1],
            [0, 0, 0, 1, 1],
            [0, 0, 0, 1, 1],
            [0, 0, 0, 2, 1],
        ]);
        assert_eq!(certify(&m).unwrap(), 2);
        assert_eq!(certify_phase3(&m).unwrap(), 2);
        let flat: Vec<i64> = m.iter().copied().collect();
        let mut w = Wide { col4row: vec![NONE; 5], row4col: vec![NONE; 5], v: vec![0; 5] };
        augment(&flat, 5, &mut w, &[0, 1, 2, 3, 4], None).unwrap();
        assert_eq!(w.col4row, vec![0, 1, 2, 3, 4]);
        assert_eq!(w.v, vec![-1, -1, -1, 0, 0]);
        let s = solve_f64(to_f64(&m).view()).unwrap();
        assert_eq!(s.objective, 2.0);
    }

    /// A cluster-like matrix (the shape of `placer export-matrix`): 240 tasks × 240 slots on
    /// 60 nodes of 4 slots in 6 racks; a task costs 0 on its 3 replica nodes, its in-rack
    /// cost on the other nodes of their racks and its cross-rack cost elsewhere, with only 4
    /// task classes, so rows and columns tie in thousands of places. Certified (phases 1–3,
    /// packing included) and equal to the Kuhn–Munkres reference, square and with 30 tasks
    /// fewer.
    #[test]
    fn cluster_like_plateaus_match_reference() {
        let (nodes, slots, racks) = (60usize, 4usize, 6usize);
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |k: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % k as u64) as usize
        };
        let tasks: Vec<([usize; 3], i64)> = (0..nodes * slots)
            .map(|_| ([next(nodes), next(nodes), next(nodes)], [1, 2, 4, 8][next(4)]))
            .collect();
        let rack = |node: usize| node * racks / nodes;
        let m = Array2::from_shape_fn((tasks.len(), nodes * slots), |(t, col)| {
            let (replicas, bytes) = tasks[t];
            let node = col / slots;
            if replicas.contains(&node) {
                0
            } else if replicas.iter().any(|&r| rack(r) == rack(node)) {
                bytes
            } else {
                10 * bytes
            }
        });
        for rows in [m.nrows(), m.nrows() - 30] {
            let m = Array2::from_shape_fn((rows, m.ncols()), |(i, j)| m[[i, j]]);
            let reference = Hungarian.solve_i64(m.view()).unwrap().objective;
            assert_eq!(certify(&m).unwrap(), reference);
            assert_eq!(certify_phase3(&m).unwrap(), reference);
            assert_eq!(solve_f64(to_f64(&m).view()).unwrap().objective, reference as f64);
        }
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
