//! Fuzz target `place` (docs/wire-schema.md, "Errors": a snapshot is untrusted input and
//! every malformed one is a 4xx, never a panic): bytes → `placer_models::parse_request` →
//! `placer_solver::place` under every algorithm of the registry in turn; the parse must equal
//! serde_json's (the fast reader is checked against it). An answer must hold
//! only finite numbers (JSON has no NaN/inf: serde_json would write `null`), assign each pending
//! task at most once, to a listed node, and never more tasks of a kind to a node than it has
//! free slots of that kind.
#![no_main]

mod checks;

use checks::{check, too_big};
use libfuzzer_sys::fuzz_target;
use placer_solver::{registry::REGISTRY, PlaceOptions};

fuzz_target!(|data: &[u8]| {
    // The fast reader must agree with serde_json's deserializers on every body: the same
    // snapshot, or both refuse it.
    let parsed = placer_models::parse_request(data);
    let by_serde = serde_json::from_slice::<placer_models::PlaceRequest>(data);
    match (&parsed, &by_serde) {
        (Ok(a), Ok(b)) => assert!(a == b, "the fast reader and serde_json differ"),
        (Err(_), Err(_)) => {}
        (a, b) => panic!("parse_request {:?}, serde_json {:?}", a.is_ok(), b.is_ok()),
    }
    let Ok(request) = parsed else {
        return;
    };
    if too_big(&request) {
        return;
    }
    // `?explain=true` on every other input, so that both answer shapes are covered.
    let opts = PlaceOptions { explain: data.len() % 2 == 1, ..PlaceOptions::default() };
    let mut request = request;
    for &(algorithm, _) in REGISTRY {
        request.policy.algorithm = algorithm;
        if let Ok(response) = placer_solver::place(&request, &opts) {
            check(&request, &response, algorithm);
        }
    }
});
