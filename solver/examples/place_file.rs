//! The structured engine's time on a snapshot file (a near-linear exact engine):
//! parses FILE once, then times `place` (validate, index, costs, network, solve; what
//! `placer place` reports as `solve_ms`) REPEATS times under each algorithm given, printing
//! the best time, the objective and the placement counts.
//! `cargo run --release -p placer-solver --no-default-features --example place_file -- FILE
//! [REPEATS] [ALGORITHM...]`
#![allow(clippy::unwrap_used, clippy::expect_used)]
use placer_models::Algorithm;
use placer_solver::{place, PlaceOptions};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let file = args.get(1).expect("usage: place_file FILE [REPEATS] [ALGORITHM...]");
    let repeats: usize = args.get(2).map_or(3, |r| r.parse().expect("REPEATS"));
    let mut req = placer_models::parse_request(&std::fs::read(file).expect("read")).expect("parse");
    let algorithms: Vec<String> =
        if args.len() > 3 { args[3..].to_vec() } else { vec!["lsap".to_owned()] };
    for name in algorithms {
        req.policy.algorithm =
            serde_json::from_value::<Algorithm>(serde_json::json!(name)).expect("algorithm");
        let mut best = f64::INFINITY;
        let mut stats = None;
        for _ in 0..repeats {
            let start = Instant::now();
            let response = place(&req, &PlaceOptions::default()).expect("place");
            best = best.min(start.elapsed().as_secs_f64() * 1e3);
            stats = Some(response.stats);
        }
        let s = stats.expect("one run");
        println!(
            "{name}: best of {repeats} {best:.1} ms, objective {:.9}, assigned {}, node-local {}, \
             rack-local {}, remote {}, status {:?}",
            s.objective, s.assigned, s.node_local, s.rack_local, s.remote, s.status
        );
    }
}
