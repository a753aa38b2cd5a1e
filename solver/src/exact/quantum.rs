//! The integer cost quantum (docs/architecture.md, "Style": integer costs inside solvers). Locality
//! costs are seconds (lsap-sched eq. 1); exact engines compare scaled integers so that ties are
//! exact and sums never round. The quantum is 1 ns (scale 10⁹ per second) unless the largest cost
//! of the epoch would then overflow the engine's bound, in which case the scale shrinks to fit.
//!
//! Rounding moves each entry by at most half a quantum, so the integer optimum is within
//! n · quantum of the f64 optimum: at 1 ns and 5,000 tasks, 5 µs absolute.
//!
//! Per-task offsets (lsap-fair-sched's FC − ageing, any sign) are [`shifted`] to ≥ 0 first:
//! every optimal assignment places the same number of tasks, so subtracting the smallest
//! offset from all of them changes no decision and keeps integer costs non-negative.

use crate::error::SolveError;
use crate::lsap::i64_entry_limit;

/// Scale from seconds to integer cost units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quantum {
    /// Integer units per second of cost.
    pub per_second: f64,
}

impl Quantum {
    /// Units per second when nothing overflows: 1 ns resolution.
    pub const DEFAULT_PER_SECOND: f64 = 1e9;

    /// The finest quantum ≤ 1 ns under which `max_cost` fits a rows × cols engine.
    pub fn for_matrix(max_cost: f64, rows: usize, cols: usize) -> Result<Self, SolveError> {
        if !max_cost.is_finite() {
            return Err(SolveError::CostOverflow {
                path: "cluster.network".to_owned(),
                message: "a locality cost is infinite (bandwidth too small for the bytes)".into(),
            });
        }
        let limit = i64_entry_limit(rows, cols) as f64;
        let per_second = if max_cost * Self::DEFAULT_PER_SECOND <= limit {
            Self::DEFAULT_PER_SECOND
        } else {
            // Half the exact ratio, so that rounding can never push an entry past the limit.
            0.5 * limit / max_cost
        };
        Ok(Self { per_second })
    }

    /// A cost in seconds as integer units (rounded to nearest).
    #[inline]
    pub fn to_units(self, seconds: f64) -> i64 {
        (seconds * self.per_second).round() as i64
    }
}

/// `offset(t)` for each of `tasks`, minus their minimum (so all ≥ 0): every optimal assignment
/// places the same number of tasks, so the shift changes no decision. O(tasks).
pub fn shifted(tasks: &[usize], offset: impl Fn(usize) -> f64) -> Vec<f64> {
    let raw: Vec<f64> = tasks.iter().map(|&t| offset(t)).collect();
    let low = raw.iter().copied().fold(f64::INFINITY, f64::min);
    raw.iter().map(|&o| o - low).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nanosecond_quantum_for_cluster_costs() {
        let q = Quantum::for_matrix(21.47, 5000, 5000).unwrap();
        assert_eq!(q.per_second, 1e9);
        assert_eq!(q.to_units(10.737_418_24), 10_737_418_240);
    }

    #[test]
    fn offsets_shift_to_a_zero_minimum() {
        // lsap_fair: FC − ageing of three tasks, 2.5, −1 and 0.5 s → 3.5, 0 and 1.5 s.
        assert_eq!(shifted(&[0, 1, 2], |t| [2.5, -1.0, 0.5][t]), vec![3.5, 0.0, 1.5]);
    }

    #[test]
    fn shrinks_for_huge_costs_and_rejects_infinite() {
        let q = Quantum::for_matrix(1e12, 10, 10).unwrap();
        assert!(q.per_second < 1e9);
        assert!(q.to_units(1e12) <= i64_entry_limit(10, 10));
        assert!(Quantum::for_matrix(f64::INFINITY, 1, 1).is_err());
    }
}
