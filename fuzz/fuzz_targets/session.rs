//! Fuzz target `session` (docs/wire-schema.md, "Sessions": a delta is untrusted input, and a
//! session answers as `POST /place` answers the equivalent full snapshot): the input is a
//! snapshot followed by deltas, separated by NUL bytes. The snapshot is parsed and solved with a
//! kept solver state (`PlaceOptions::warm`); each delta is parsed
//! (`placer_models::parse_delta`), applied in place (`PlaceRequest::apply_changes`) and solved
//! with the same state. A delta whose snapshot fails is undone, and the snapshot must then equal
//! what it was. Validation by difference (`placer_models::Revalidator`) must give what
//! validation in full gives: the same resolved references, or the same error. An answer must hold the invariants of the `place` target and equal a cold
//! solve of the same snapshot in status, counts and objective (to 1 ns per placement: the
//! exact engines' integer quantum).
#![no_main]

mod checks;

use checks::{check, too_big};
use libfuzzer_sys::fuzz_target;
use placer_models::{PlaceResponse, Revalidator};
use placer_solver::{PlaceOptions, WarmStart};

fuzz_target!(|data: &[u8]| {
    let mut parts = data.split(|&b| b == 0);
    let Some(Ok(mut request)) = parts.next().map(placer_models::parse_request) else {
        return;
    };
    if too_big(&request) {
        return;
    }
    let warm = PlaceOptions { warm: Some(WarmStart::new()), ..PlaceOptions::default() };
    let _ = placer_solver::place(&request, &warm);
    let mut checker = Revalidator::new();
    let _ = checker.revalidate(&request, None);
    for part in parts.take(8) {
        let Ok(delta) = placer_models::parse_delta(part) else { continue };
        let before = request.clone();
        let undo = request.apply_changes(delta.changes.0);
        let by_difference = checker.revalidate(&request, Some(&undo));
        match (placer_models::validate_resolved(&request), by_difference) {
            (Ok(full), Ok(checked)) => assert!(checked.resolved_for(&request) == Some(full)),
            (Err(full), Err(got)) => assert!(got == full, "{got:?} by difference, {full:?} in full"),
            (full, got) => panic!("in full {full:?}, by difference {got:?}"),
        }
        if too_big(&request) {
            request.undo(undo);
            checker.invalidate();
            assert!(request == before, "undo gives the snapshot back");
            continue;
        }
        match placer_solver::place(&request, &warm) {
            Ok(kept) => {
                check(&request, &kept, request.policy.algorithm);
                if let Ok(cold) = placer_solver::place(&request, &PlaceOptions::default()) {
                    same_optimum(&kept, &cold, request.policy.algorithm.name());
                }
            }
            Err(_) => {
                request.undo(undo);
                checker.invalidate();
                assert!(request == before, "undo gives the snapshot back");
            }
        }
    }
});

/// The kept-state answer and the cold one: same status and placement count, objectives within
/// 1 ns per placement (relative to their size).
fn same_optimum(kept: &PlaceResponse, cold: &PlaceResponse, name: &str) {
    assert_eq!(kept.stats.status, cold.stats.status, "{name}: status");
    assert_eq!(kept.assignments.len(), cold.assignments.len(), "{name}: placements");
    let (a, b) = (kept.stats.objective, cold.stats.objective);
    let slack = 1e-9 * (kept.assignments.len() as f64 + 1.0) + 1e-9 * a.abs().max(b.abs());
    assert!((a - b).abs() <= slack, "{name}: objective {a} kept, {b} cold");
}
