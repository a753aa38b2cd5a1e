//! Fuzz target `lsap_reader` (README.md, "CLI", the `.lsap` file; lsap-sched §3.2):
//! bytes in the `.lsap` layout (little-endian u64 rows, u64 cols, then rows × cols f64
//! row-major, `+inf` forbidden) decoded as `placer lsap` decodes them, then solved by
//! `placer_solver::lsap::jv::solve_f64`, minimised and (negated, as `--maximize` does)
//! maximised. The CLI's reader (`src/lsap_file.rs`) lives in the binary and reads a path, so
//! this target repeats its byte layout and length check and fuzzes the solver behind it.
//!
//! Checked: no panic; an answer is a matching (distinct columns, every row of the smaller
//! side matched, no forbidden pair) whose reported objective is its cost sum; on matrices of
//! at most 6 × 6 with moderate entries its objective equals the brute-force optimum, and
//! `Infeasible` agrees with the brute force too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ndarray::Array2;
use placer_solver::lsap::{brute, jv};

/// Largest matrix solved here (cells): the solver is O(n³); bigger ones only slow the fuzzer.
const MAX_CELLS: u64 = 64 * 64;
/// The brute-force oracle's side limit (6! = 720 assignments).
const ORACLE_SIDE: usize = 6;
/// Entries up to this magnitude are compared with the oracle (sums stay exact enough).
const ORACLE_MAGNITUDE: f64 = 1e9;

fuzz_target!(|data: &[u8]| {
    let Some(m) = decode(data) else {
        return;
    };
    solve_and_check(&m);
    let negated = m.mapv(|x| if x == f64::INFINITY { x } else { -x });
    solve_and_check(&negated);
});

/// The `.lsap` layout with `placer lsap`'s checks: exactly 16 + 8 · rows · cols bytes.
fn decode(data: &[u8]) -> Option<Array2<f64>> {
    let word = |k: usize| -> Option<u64> {
        let b: [u8; 8] = data.get(8 * k..8 * k + 8)?.try_into().ok()?;
        Some(u64::from_le_bytes(b))
    };
    let (rows, cols) = (word(0)?, word(1)?);
    // Each side is capped too, which `placer lsap`'s reader does not do: a 16-byte file that
    // declares 2^40 rows × 0 columns passes its length check and `jv::solve_f64` then
    // allocates one answer entry per row and aborts (fuzz/regressions/lsap_reader/).
    if rows > MAX_CELLS || cols > MAX_CELLS {
        return None;
    }
    let cells = rows.checked_mul(cols).filter(|&c| c <= MAX_CELLS)?;
    if data.len() as u64 != 16 + 8 * cells {
        return None;
    }
    let values: Vec<f64> = data[16..]
        .chunks_exact(8)
        .map(|c| {
            let mut b = [0u8; 8];
            b.copy_from_slice(c);
            f64::from_le_bytes(b)
        })
        .collect();
    Array2::from_shape_vec((usize::try_from(rows).ok()?, usize::try_from(cols).ok()?), values).ok()
}

fn solve_and_check(m: &Array2<f64>) {
    let (rows, cols) = m.dim();
    let got = jv::solve_f64(m.view());
    let small = rows <= ORACLE_SIDE && cols <= ORACLE_SIDE;
    let moderate = m.iter().all(|&x| x == f64::INFINITY || x.abs() <= ORACLE_MAGNITUDE);
    let Ok(solution) = got else {
        if small && moderate {
            if let Err(e) = &got {
                let oracle = brute::solve(m.view());
                assert!(oracle.is_err(), "jv failed ({e}) where brute force solves {m:?}");
            }
        }
        return;
    };
    assert_eq!(solution.row_to_col.len(), rows, "one entry per row");
    let mut used = vec![false; cols];
    let mut sum = 0.0;
    let mut matched = 0;
    for (i, j) in solution.row_to_col.iter().enumerate() {
        let Some(j) = *j else { continue };
        assert!(j < cols, "row {i} matched to column {j} of {cols}");
        assert!(!used[j], "column {j} matched twice");
        used[j] = true;
        assert!(m[[i, j]] != f64::INFINITY, "forbidden pair ({i}, {j}) used");
        sum += m[[i, j]];
        matched += 1;
    }
    assert_eq!(matched, rows.min(cols), "the smaller side is matched entirely");
    if moderate {
        let tol = 1e-6 * (1.0 + sum.abs());
        assert!(
            (solution.objective - sum).abs() <= tol,
            "objective {} is not the cost sum {sum}",
            solution.objective
        );
        if small {
            match brute::solve(m.view()) {
                Ok(best) => assert!(
                    (solution.objective - best.objective).abs() <= tol,
                    "jv {} vs brute force {} on {m:?}",
                    solution.objective,
                    best.objective
                ),
                Err(e) => panic!("brute force fails ({e}) where jv answers on {m:?}"),
            }
        }
    }
}
