//! Exact rectangular linear sum assignment (lsap-sched §3.2, "LSAP"): given an r × c cost matrix,
//! match every row to a distinct column when r ≤ c (every column to a distinct row when r > c)
//! at minimum total cost. Rectangular problems are solved as they are: no dummy rows or columns
//! (lsap-sched's Fig. 2 padding is exactly what placer avoids). Forbidden pairs are `+inf`
//! (f64) or `i64::MAX`; when no complete matching avoids them the answer is
//! [`crate::SolveError::Infeasible`], never a panic.
//!
//! Engines: [`jv`] (placer's shortest augmenting path, the working one), [`hungarian`]
//! (`pathfinding::kuhn_munkres`, a reference) and [`brute`] (exhaustive, the test oracle).

pub mod brute;
mod equality;
pub mod hungarian;
pub mod jv;
mod problem;

pub(crate) use problem::check_i64;
pub use problem::{check_f64, i64_entry_limit, Cost, DenseSolver, LsapSolution};
