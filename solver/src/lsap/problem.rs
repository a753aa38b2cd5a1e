//! The dense rectangular assignment problem every dense engine solves (lsap-sched §3.2, Guo, Fox,
//! Zhou): the cost types (scaled i64 or raw f64, `+inf` / `i64::MAX` forbidden), the solution,
//! the engine interface, and the input checks that keep every engine's sums exact.

use crate::error::SolveError;
use ndarray::ArrayView2;
use placer_models::Status;
use std::fmt::Debug;
use std::ops::{Add, Sub};

/// A cost type an engine can minimise: i64 (placer's scaled integer costs) or f64 (the `lsap`
/// CLI's raw matrices).
pub trait Cost:
    Copy + PartialOrd + Add<Output = Self> + Sub<Output = Self> + Debug + Send + Sync + 'static
{
    /// Zero.
    const ZERO: Self;
    /// The forbidden marker and "unreachable" distance: `+inf` / `i64::MAX`.
    const INF: Self;
    /// True for the forbidden marker.
    fn is_forbidden(self) -> bool;
    /// The value as f64 (for reporting).
    fn to_f64(self) -> f64;
}

impl Cost for i64 {
    const ZERO: Self = 0;
    const INF: Self = i64::MAX;
    #[inline]
    fn is_forbidden(self) -> bool {
        self == i64::MAX
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}

impl Cost for f64 {
    const ZERO: Self = 0.0;
    const INF: Self = f64::INFINITY;
    #[inline]
    fn is_forbidden(self) -> bool {
        self == f64::INFINITY
    }
    fn to_f64(self) -> f64 {
        self
    }
}

/// An optimal rectangular assignment.
#[derive(Clone, Debug, PartialEq)]
pub struct LsapSolution<C> {
    /// The column of each row (`None` for the rows left out when rows > columns).
    pub row_to_col: Vec<Option<usize>>,
    /// Σ cost of the assigned pairs.
    pub objective: C,
    /// Always `optimal` for these exact engines.
    pub status: Status,
}

impl<C: Cost> LsapSolution<C> {
    /// Builds the solution from the row → column map, summing the objective.
    pub(crate) fn from_rows(costs: ArrayView2<'_, C>, row_to_col: Vec<Option<usize>>) -> Self {
        let mut objective = C::ZERO;
        for (i, j) in row_to_col.iter().enumerate() {
            if let Some(j) = *j {
                objective = objective + costs[[i, j]];
            }
        }
        Self { row_to_col, objective, status: Status::Optimal }
    }
}

/// An exact engine for dense matrices.
pub trait DenseSolver {
    /// Minimises over a dense matrix (any shape, forbidden pairs allowed).
    fn solve_i64(&self, costs: ArrayView2<'_, i64>) -> Result<LsapSolution<i64>, SolveError>;

    /// [`DenseSolver::solve_i64`] that may stop early when `cancel` reports cancelled, with a
    /// valid partial assignment and `status: time_limited`. By default the engine does not
    /// poll (it runs to the end; the exact layer polls before starting it).
    ///
    /// # Errors
    /// As [`DenseSolver::solve_i64`].
    fn solve_i64_cancellable(
        &self,
        costs: ArrayView2<'_, i64>,
        cancel: Option<&crate::cancel::Cancel>,
    ) -> Result<LsapSolution<i64>, SolveError> {
        let _ = cancel;
        self.solve_i64(costs)
    }
}

/// The largest |entry| (over allowed entries) an i64 matrix may hold so that no engine's
/// intermediate sums overflow: potentials stay within (rows + cols + 1) · max.
pub fn i64_entry_limit(rows: usize, cols: usize) -> i64 {
    let n = (rows + cols + 2) as i64;
    (1i64 << 61) / n.max(1)
}

/// Checks an i64 matrix against [`i64_entry_limit`].
pub(crate) fn check_i64(costs: ArrayView2<'_, i64>) -> Result<(), SolveError> {
    let (r, c) = costs.dim();
    let limit = i64_entry_limit(r, c);
    // As in [`check_f64`]: a branch-free pass first, the index search only on a bad matrix.
    if let Some(flat) = costs.as_slice_memory_order() {
        let bad = |v: i64| (v != i64::MAX) & ((v > limit) | (v < -limit));
        if !flat.iter().fold(false, |acc, &v| acc | bad(v)) {
            return Ok(());
        }
    }
    for ((i, j), &v) in costs.indexed_iter() {
        if !v.is_forbidden() && (v > limit || v < -limit) {
            return Err(SolveError::CostOverflow {
                path: format!("[{i}][{j}]"),
                message: format!("|{v}| exceeds {limit} for a {r}x{c} matrix"),
            });
        }
    }
    Ok(())
}

/// Checks an f64 matrix: NaN and −inf are rejected, +inf is the forbidden marker.
pub fn check_f64(costs: ArrayView2<'_, f64>) -> Result<(), SolveError> {
    // A branch-free pass over a contiguous matrix (vectorised) finds no bad entry in the common
    // case; only a bad matrix is searched by index.
    if let Some(flat) = costs.as_slice_memory_order() {
        if !flat.iter().fold(false, |bad, &v| bad | v.is_nan() | (v == f64::NEG_INFINITY)) {
            return Ok(());
        }
    }
    for ((i, j), &v) in costs.indexed_iter() {
        if v.is_nan() || v == f64::NEG_INFINITY {
            return Err(SolveError::InvalidCost {
                path: format!("[{i}][{j}]"),
                message: format!("{v} is not a cost (+inf marks a forbidden pair)"),
            });
        }
    }
    Ok(())
}
