//! Deadlines with an anytime answer (docs/operations/serving.md, "Deadlines and the anytime
//! answer"): the time of one `place` without a token, with a token never cancelled (the cost of
//! polling) and with a token cancelled before the start (the greedy completion alone), best of 3,
//! on a synthetic snapshot of 20 racks × 25 nodes (4 map slots each) and 6,000 maps of 128 MB with
//! two random replicas. `cargo run --release -p placer-solver --no-default-features --example
//! deadline`
#![allow(clippy::unwrap_used, clippy::expect_used)]
use placer_solver::{place, registry, Cancel, PlaceOptions};
use std::time::Instant;

/// Prints one line per (algorithm, engine, token).
fn main() {
    let mut seed = 11u64;
    let mut next = |m: u64| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) % m
    };
    let (racks, per_rack, tasks) = (20, 25, 6000);
    let nodes: Vec<String> = (0..racks * per_rack)
        .map(|n| {
            format!(
                r#"{{"id": "n{n}", "rack": "r{}", "map_slots": 4, "reduce_slots": 2}}"#,
                n / per_rack
            )
        })
        .collect();
    let rack_list: Vec<String> = (0..racks).map(|r| format!(r#"{{"id": "r{r}"}}"#)).collect();
    let jobs: Vec<String> =
        (0..40).map(|j| format!(r#"{{"id": "j{j}", "pool": "p{}"}}"#, j % 4)).collect();
    let pools: Vec<String> = (0..4).map(|p| format!(r#"{{"id": "p{p}"}}"#)).collect();
    let maps: Vec<String> = (0..tasks)
        .map(|t| {
            let n = racks * per_rack;
            let a = next(n as u64);
            let b = (a + 1 + next(n as u64 - 1)) % n as u64;
            format!(r#"{{"id": "m{t}", "job": "j{}", "kind": "map", "input_bytes": 128000000, "replicas": ["n{a}", "n{b}"]}}"#, t % 40)
        })
        .collect();
    let body = format!(
        r#"{{"schema_version": 1, "cluster": {{"racks": [{}], "nodes": [{}]}}, "pools": [{}], "jobs": [{}], "pending": [{}]}}"#,
        rack_list.join(","),
        nodes.join(","),
        pools.join(","),
        jobs.join(","),
        maps.join(",")
    );
    let mut req = placer_models::parse_request(body.as_bytes()).unwrap();
    for (algorithm, engine) in [("lsap", "auto"), ("lsap", "jv"), ("lsap_quota", "auto")] {
        req.policy.algorithm = registry::by_name(algorithm).unwrap().0;
        req.policy.solver = serde_json::from_str(&format!("\"{engine}\"")).unwrap();
        for (label, cancel) in [
            ("none", None),
            ("never", Some(Cancel::new())),
            ("cancelled", Some(Cancel::after_polls(0))),
        ] {
            let mut best = f64::MAX;
            let mut out = None;
            for _ in 0..3 {
                let t0 = Instant::now();
                let r = place(
                    &req,
                    &PlaceOptions { explain: false, cancel: cancel.clone(), warm: None },
                );
                best = best.min(t0.elapsed().as_secs_f64() * 1e3);
                out = Some(r);
            }
            match out.unwrap() {
                Ok(r) => println!(
                    "{algorithm}/{engine}/{label}: {best:.1} ms, {:?}, assigned {}, objective {:.1}",
                    r.stats.status, r.stats.assigned, r.stats.objective
                ),
                Err(e) => println!("{algorithm}/{engine}/{label}: error {e}"),
            }
        }
    }
}
