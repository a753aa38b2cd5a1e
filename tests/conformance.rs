//! One conformance suite for every exact assignment engine (docs/architecture.md, "Style"): each
//! named case is solved by placer's structured min-cost flow (the engine that serves `/place`,
//! through its dense-matrix adapter), placer's JV (i64 and f64), pathfinding's Kuhn–Munkres and the
//! brute-force oracle, and must give the known optimum. Cases come from the lsap paper (Guo,
//! Fox, Zhou: Fig. 1, Fig. 2), from textbook matrices derived by hand in the comments, and
//! from the published test suites of scipy (`test_linear_sum_assignment`), pathfinding
//! (`tests/kuhn_munkres.rs`, maximisations negated) and lap (`test_lap.py`, Balas and Toth's
//! 8 × 8 matrix); their optima were checked by exhaustive search as well.

use ndarray::{arr2, Array2};
use placer_solver::flow::dense_adapter::FlowOnDense;
use placer_solver::lsap::{brute::Brute, hungarian::Hungarian, jv, jv::Jv, DenseSolver};
use placer_solver::SolveError;

const X: i64 = i64::MAX;

struct Case {
    name: &'static str,
    costs: Array2<i64>,
    /// `Some(optimum)`, or `None` when no complete assignment exists.
    optimum: Option<i64>,
}

fn cases() -> Vec<Case> {
    vec![
        // lsap Fig. 1: T1's block on A and B, T2's only on A, one idle slot on each. Placing T1
        // on A (dl-sched's choice) forces T2 remote (cost 1); the optimum T1→B, T2→A costs 0.
        Case { name: "lsap_fig1", costs: arr2(&[[0, 0], [0, 1]]), optimum: Some(0) },
        // lsap Fig. 2(a), |T| < |IS|: rows t1 = (1, 4, 0), tT = (0, 2, 3): t1→s3, tT→s1 = 0.
        Case { name: "lsap_fig2a_wide", costs: arr2(&[[1, 4, 0], [0, 2, 3]]), optimum: Some(0) },
        // lsap Fig. 2(b), |T| > |IS| (two slots): rows (2,1), (0,0), (5,2), (3,5). Best two rows
        // are t1→s2 (1) and t2→s1 (0) = 1; every other choice costs ≥ 2.
        Case {
            name: "lsap_fig2b_tall",
            costs: arr2(&[[2, 1], [0, 0], [5, 2], [3, 5]]),
            optimum: Some(1),
        },
        // 3×3: r0→c1 (1) + r1→c0 (2) + r2→c2 (2) = 5; the diagonal-ish 4+0+2 = 6 loses.
        Case {
            name: "textbook_3x3",
            costs: arr2(&[[4, 1, 3], [2, 0, 5], [3, 2, 2]]),
            optimum: Some(5),
        },
        // Forbidden pairs force the anti-diagonal: 1 + 2 = 3.
        Case { name: "forbidden_antidiagonal", costs: arr2(&[[X, 1], [2, X]]), optimum: Some(3) },
        // Row 0 has no allowed column.
        Case { name: "infeasible_empty_row", costs: arr2(&[[X, X], [1, 2]]), optimum: None },
        // Both rows can only use column 0.
        Case { name: "infeasible_shared_column", costs: arr2(&[[1, X], [2, X]]), optimum: None },
        // Tall and infeasible: the only column allowed for anyone is 0, but two columns exist
        // and every column must be matched.
        Case { name: "infeasible_tall", costs: arr2(&[[1, X], [2, X], [3, X]]), optimum: None },
        // Negative costs: −5 + −5.
        Case { name: "negative", costs: arr2(&[[-5, 0], [0, -5]]), optimum: Some(-10) },
        // All ties: any permutation, total 0.
        Case { name: "all_ties_5x5", costs: Array2::zeros((5, 5)), optimum: Some(0) },
        // One row, the cheapest of four columns.
        Case { name: "single_row", costs: arr2(&[[7, 3, 9, 3]]), optimum: Some(3) },
        // Empty problems.
        Case { name: "no_rows", costs: Array2::zeros((0, 3)), optimum: Some(0) },
        Case { name: "no_cols", costs: Array2::zeros((3, 0)), optimum: Some(0) },
        // A row whose cheapest column is wanted by everyone: 3 rows on column 0 at 1, else 10,
        // 10, 10: one takes column 0, the rest 10 each = 21.
        Case {
            name: "contended_column",
            costs: arr2(&[[1, 10, 10], [1, 10, 10], [1, 10, 10]]),
            optimum: Some(21),
        },
        // scipy: square, 150 + 400 + 300.
        Case {
            name: "scipy_square_400",
            costs: arr2(&[[400, 150, 400], [400, 450, 600], [300, 225, 300]]),
            optimum: Some(850),
        },
        // scipy: its rectangular variant, 150 + 2 + 300.
        Case {
            name: "scipy_rectangular_400",
            costs: arr2(&[[400, 150, 400, 1], [400, 450, 600, 2], [300, 225, 300, 3]]),
            optimum: Some(452),
        },
        // scipy: square, 10 + 1 + 7.
        Case {
            name: "scipy_square_10",
            costs: arr2(&[[10, 10, 8], [9, 8, 1], [9, 7, 4]]),
            optimum: Some(18),
        },
        // scipy: its rectangular variant, 10 + 1 + 4.
        Case {
            name: "scipy_rectangular_10",
            costs: arr2(&[[10, 10, 8, 11], [9, 8, 1, 1], [9, 7, 4, 10]]),
            optimum: Some(15),
        },
        // scipy: square with positive infinities (forbidden), 10 + 1 + 7.
        Case {
            name: "scipy_square_infinities",
            costs: arr2(&[[10, X, X], [X, X, 1], [X, 7, X]]),
            optimum: Some(18),
        },
        // scipy: n = 2, m = 0.
        Case { name: "scipy_2x0", costs: Array2::zeros((2, 0)), optimum: Some(0) },
        // pathfinding (tryalgo): maximise [[1]] = 1.
        Case { name: "pathfinding_tryalgo_1x1", costs: arr2(&[[-1]]), optimum: Some(-1) },
        // pathfinding (tryalgo): maximise [[1, 2], [1, 1]] = 2 + 1.
        Case {
            name: "pathfinding_tryalgo_2x2",
            costs: arr2(&[[-1, -2], [-1, -1]]),
            optimum: Some(-3),
        },
        // pathfinding (tryalgo): maximise [[-1, -2, -3], [-6, -5, -4], [-1, -1, -1]] = −6.
        Case {
            name: "pathfinding_tryalgo_negative",
            costs: arr2(&[[1, 2, 3], [6, 5, 4], [1, 1, 1]]),
            optimum: Some(6),
        },
        // pathfinding (tryalgo): maximise [[1, 2, 3], [6, 5, 4], [1, 1, 1]] = 3 + 6 + 1.
        Case {
            name: "pathfinding_tryalgo_3x3",
            costs: arr2(&[[-1, -2, -3], [-6, -5, -4], [-1, -1, -1]]),
            optimum: Some(-10),
        },
        // pathfinding (tryalgo, Project Euler 345's example): maximise = 3315.
        Case {
            name: "pathfinding_tryalgo_5x5",
            costs: arr2(&[
                [-7, -53, -183, -439, -863],
                [-497, -383, -563, -79, -973],
                [-287, -63, -343, -169, -583],
                [-627, -343, -773, -959, -943],
                [-767, -473, -103, -699, -303],
            ]),
            optimum: Some(-3315),
        },
        // pathfinding: cranes, minimise = 275.
        Case {
            name: "pathfinding_cranes",
            costs: arr2(&[
                [90, 75, 75, 80],
                [35, 85, 55, 65],
                [125, 95, 90, 105],
                [45, 110, 95, 115],
            ]),
            optimum: Some(275),
        },
        // pathfinding: murray, minimise = 10.
        Case {
            name: "pathfinding_murray",
            costs: arr2(&[[1, 2, 3], [2, 4, 6], [3, 6, 9]]),
            optimum: Some(10),
        },
        // pathfinding: hungarian, minimise = 140.
        Case {
            name: "pathfinding_hungarian",
            costs: arr2(&[[82, 83, 69, 92], [77, 37, 49, 92], [11, 69, 5, 86], [8, 9, 98, 23]]),
            optimum: Some(140),
        },
        // pathfinding: non_square 4 × 5, maximise = 376.
        Case {
            name: "pathfinding_non_square",
            costs: arr2(&[
                [-62, -78, -50, -101, -82],
                [-71, -84, -61, -73, -59],
                [-87, -92, -111, -71, -81],
                [-48, -64, -87, -77, -80],
            ]),
            optimum: Some(-376),
        },
        // lap: Balas and Toth's 8 × 8 (1000 on the diagonal), optimum 17.
        Case { name: "lap_balas_toth_8x8", costs: balas_toth(8, 8), optimum: Some(17) },
        // lap: its top-left 3 × 3, optimum 8 (2 + 1 + 5).
        Case { name: "lap_balas_toth_3x3", costs: balas_toth(3, 3), optimum: Some(8) },
        // lap: its top-left 2 × 4 (lap's `extend_cost`; solved natively here), 2 + 1.
        Case { name: "lap_balas_toth_2x4", costs: balas_toth(2, 4), optimum: Some(3) },
        // The 2 × 4 transposed: 4 × 2, every column matched, 2 + 1 again.
        Case {
            name: "lap_balas_toth_4x2",
            costs: balas_toth(2, 4).reversed_axes(),
            optimum: Some(3),
        },
    ]
}

/// lap's `test_lap.py` matrix (Balas and Toth, 1985), its top-left rows × cols.
fn balas_toth(rows: usize, cols: usize) -> Array2<i64> {
    const L: i64 = 1000;
    let full = arr2(&[
        [L, 2, 11, 10, 8, 7, 6, 5],
        [6, L, 1, 8, 8, 4, 6, 7],
        [5, 12, L, 11, 8, 12, 3, 11],
        [11, 9, 10, L, 1, 9, 8, 10],
        [11, 11, 9, 4, L, 2, 10, 9],
        [12, 8, 5, 2, 11, L, 11, 9],
        [10, 11, 12, 10, 9, 12, L, 3],
        [10, 10, 10, 10, 6, 3, 1, L],
    ]);
    Array2::from_shape_fn((rows, cols), |(i, j)| full[[i, j]])
}

type Engine = (&'static str, fn(&Array2<i64>) -> Result<(Vec<Option<usize>>, f64), SolveError>);

fn engines() -> Vec<Engine> {
    vec![
        ("flow", |m| FlowOnDense.solve_i64(m.view()).map(|s| (s.row_to_col, s.objective as f64))),
        ("jv_i64", |m| Jv.solve_i64(m.view()).map(|s| (s.row_to_col, s.objective as f64))),
        ("jv_f64", |m| {
            let f = m.mapv(|x| if x == X { f64::INFINITY } else { x as f64 });
            jv::solve_f64(f.view()).map(|s| (s.row_to_col, s.objective))
        }),
        ("hungarian", |m| {
            Hungarian.solve_i64(m.view()).map(|s| (s.row_to_col, s.objective as f64))
        }),
        ("brute", |m| Brute.solve_i64(m.view()).map(|s| (s.row_to_col, s.objective as f64))),
    ]
}

/// Checks that an assignment is complete on the smaller side, uses distinct columns, avoids
/// forbidden pairs, and sums to the objective.
fn check_valid(m: &Array2<i64>, rows: &[Option<usize>], objective: f64) -> Result<(), String> {
    let (r, c) = m.dim();
    if rows.len() != r {
        return Err(format!("{} rows answered for {r}", rows.len()));
    }
    let mut used = vec![false; c];
    let mut sum = 0i64;
    for (i, j) in rows.iter().enumerate() {
        if let Some(j) = *j {
            if used[j] {
                return Err(format!("column {j} used twice"));
            }
            used[j] = true;
            if m[[i, j]] == X {
                return Err(format!("forbidden pair [{i}][{j}] used"));
            }
            sum += m[[i, j]];
        }
    }
    let matched = rows.iter().filter(|j| j.is_some()).count();
    if matched != r.min(c) {
        return Err(format!("{matched} matched, expected {}", r.min(c)));
    }
    if sum as f64 != objective {
        return Err(format!("objective {objective} but pairs sum to {sum}"));
    }
    Ok(())
}

#[test]
fn every_engine_meets_every_case() {
    let mut failures = Vec::new();
    for case in cases() {
        for (engine, solve) in engines() {
            match (solve(&case.costs), case.optimum) {
                (Ok((rows, objective)), Some(expected)) => {
                    if objective != expected as f64 {
                        failures.push(format!("{}/{engine}: {objective} ≠ {expected}", case.name));
                    }
                    if let Err(e) = check_valid(&case.costs, &rows, objective) {
                        failures.push(format!("{}/{engine}: {e}", case.name));
                    }
                }
                (Err(SolveError::Infeasible { .. }), None) => {}
                (got, expected) => failures
                    .push(format!("{}/{engine}: got {got:?}, expected {expected:?}", case.name)),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn f64_engine_rejects_nan_and_negative_infinity() {
    for bad in [f64::NAN, f64::NEG_INFINITY] {
        let m = arr2(&[[1.0, bad], [0.0, 2.0]]);
        let err = jv::solve_f64(m.view()).unwrap_err();
        assert_eq!(err.code(), "invalid_cost");
        assert_eq!(err.path(), "[0][1]");
    }
}

#[test]
fn i64_engines_reject_entries_beyond_the_exact_range() {
    let m = arr2(&[[i64::MAX - 1, 0], [0, 0]]);
    for (name, solve) in engines().into_iter().filter(|(n, _)| *n != "brute" && *n != "jv_f64") {
        let err = solve(&m).unwrap_err();
        assert_eq!(err.code(), "cost_overflow", "{name}");
    }
}

#[test]
fn kuhn_munkres_reference_refuses_large_matrices() {
    let m = Array2::<i64>::zeros((2049, 2048));
    let err = Hungarian.solve_i64(m.view()).unwrap_err();
    assert_eq!(err.code(), "problem_too_large");
}
