//! Every number of an answer finite (issue 16): snapshots whose costs overflow f64 get the
//! same `422 cost_overflow`, naming the field at fault, under every algorithm and engine; no
//! `200` answer carries a `null` (serde's rendering of NaN and ±∞) where a number belongs.
//! Cases derived by hand; a property test over extreme values for the rest.

use placer_models::{parse_request, validate, PlaceRequest, SolverEngine};
use placer_solver::exact::engines::check_engine;
use placer_solver::{place, registry, PlaceOptions, SolveError};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Every (algorithm, engine) this build runs.
fn runs() -> Vec<(&'static str, SolverEngine)> {
    let engines =
        [SolverEngine::Auto, SolverEngine::Jv, SolverEngine::Hungarian, SolverEngine::Mip];
    let mut out = Vec::new();
    for (_, policy) in registry::REGISTRY {
        for e in engines {
            if check_engine(policy.engines(), e).is_ok() {
                out.push((policy.name(), e));
            }
        }
    }
    out
}

/// Racks r1 = {n1, n2}, r2 = {n3}, two map and two reduce slots each; one pool, one job
/// submitted at 0, `now_s` 1,000. `extra` is merged into the snapshot (network, policy, tasks).
fn snapshot(network: Value, policy: Value, pending: Value) -> PlaceRequest {
    let body = json!({"schema_version": 1, "now_s": 1000,
        "cluster": {"racks": [{"id": "r1"}, {"id": "r2"}], "network": network,
            "nodes": [{"id": "n1", "rack": "r1", "map_slots": 2, "reduce_slots": 2},
                      {"id": "n2", "rack": "r1", "map_slots": 2, "reduce_slots": 2},
                      {"id": "n3", "rack": "r2", "map_slots": 2, "reduce_slots": 2}]},
        "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p", "submit_s": 0}],
        "pending": pending, "policy": policy});
    let req = parse_request(body.to_string().as_bytes()).unwrap();
    validate(&req).unwrap();
    req
}

/// The paths at which a `null` is part of the schema: RAS's −∞ utility.
fn allowed_null(path: &str) -> bool {
    path == "stats.min_utility" || path.ends_with(".utility")
}

/// Every `null` in `v`, by path.
fn nulls(v: &Value, path: &str, out: &mut Vec<String>) {
    match v {
        Value::Null if !allowed_null(path) => out.push(path.to_owned()),
        Value::Array(a) => {
            a.iter().enumerate().for_each(|(i, x)| nulls(x, &format!("{path}[{i}]"), out))
        }
        Value::Object(o) => o.iter().for_each(|(k, x)| {
            let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
            nulls(x, &p, out)
        }),
        _ => {}
    }
}

/// Places `req` under `algorithm` and `engine`; a `200` must hold no `null`.
fn run(req: &PlaceRequest, algorithm: &str, engine: SolverEngine) -> Result<(), SolveError> {
    let mut req = req.clone();
    req.policy.algorithm = registry::by_name(algorithm).unwrap().0;
    req.policy.solver = engine;
    let resp = place(&req, &PlaceOptions::default())?;
    let mut found = Vec::new();
    nulls(&serde_json::to_value(&resp).unwrap(), "", &mut found);
    assert!(found.is_empty(), "{algorithm}/{engine:?}: null at {found:?}");
    Ok(())
}

fn map(id: &str, bytes: u64) -> Value {
    json!({"id": id, "job": "j", "kind": "map", "input_bytes": bytes, "replicas": ["n1"]})
}

/// Issue 16's cases: a 100 MB block on n1 read elsewhere through a link of 5·10⁻³²⁴ Mbit/s
/// costs 10⁸ · 8 / (10⁶ · 5·10⁻³²⁴) = ∞; α = 10³⁰⁸ on 10¹⁸ B gives 8·10³²⁰ = ∞ before any
/// bandwidth; two maps of 1.5·10³⁰⁸ s each (800 Mbit at 5.3·10⁻³⁰⁶ Mbit/s) are finite alone and
/// ∞ together; a reduce pulling from n1 and n3 over a tiny cross-rack link.
#[test]
fn overflowing_locality_costs_are_the_same_422_under_every_algorithm() {
    let cases = [
        (
            "cross",
            json!({"cross_rack_mbps": 5e-324}),
            json!([map("m", 100_000_000)]),
            "cluster.network.cross_rack_mbps",
        ),
        (
            "rack",
            json!({"rack_mbps": 5e-324}),
            json!([map("m", 100_000_000)]),
            "cluster.network.rack_mbps",
        ),
        (
            "pair",
            json!({"rack_pairs": [{"from": "r1", "to": "r2", "mbps": 5e-324}]}),
            json!([map("m", 100_000_000)]),
            "cluster.network.rack_pairs[0].mbps",
        ),
        (
            "sum",
            json!({"cross_rack_mbps": 5.3e-306}),
            json!([map("m1", 100_000_000), map("m2", 100_000_000)]),
            "cluster.network.cross_rack_mbps",
        ),
        (
            "reduce",
            json!({"cross_rack_mbps": 5e-324}),
            json!([{"id": "r", "job": "j", "kind": "reduce",
                 "shuffle": [{"node": "n1", "bytes": 1000}, {"node": "n3", "bytes": 1000}]}]),
            "cluster.network.cross_rack_mbps",
        ),
    ];
    for (name, network, pending, path) in cases {
        let req = snapshot(network, json!({}), pending);
        for (algorithm, engine) in runs() {
            let err = run(&req, algorithm, engine).expect_err(name);
            assert_eq!(
                (err.code(), err.path()),
                ("cost_overflow", path),
                "{name}/{algorithm}/{engine:?}"
            );
        }
    }
    let req =
        snapshot(json!({}), json!({"alpha": 1e308}), json!([map("m", 1_000_000_000_000_000_000)]));
    for (algorithm, engine) in runs() {
        let err = run(&req, algorithm, engine).expect_err("alpha");
        assert_eq!((err.code(), err.path()), ("cost_overflow", "policy.alpha"), "{algorithm}");
    }
}

/// lsap_fair's ageing credit β · wait / `aging_s` over 1,000 s of waiting: β = 10³⁰⁸ gives
/// 10³⁰⁸ · 1,000 / 300 = ∞, `aging_s` = 5·10⁻³²⁴ gives 10 · 1,000 / 5·10⁻³²⁴ = ∞. lsap_fair
/// refuses with the field at fault; algorithms that never read β answer, with finite numbers.
#[test]
fn overflowing_fairness_terms_are_refused_by_the_policies_that_use_them() {
    for (policy, path) in
        [(json!({"beta": 1e308}), "policy.beta"), (json!({"aging_s": 5e-324}), "policy.aging_s")]
    {
        let req = snapshot(json!({}), policy, json!([map("m", 100_000_000)]));
        for (algorithm, engine) in runs() {
            match run(&req, algorithm, engine) {
                Ok(()) => assert_ne!(algorithm, "lsap_fair", "{path}"),
                Err(e) => assert_eq!((e.code(), e.path()), ("cost_overflow", path), "{algorithm}"),
            }
        }
    }
}

/// A snapshot's knobs drawn from extreme values.
fn extreme() -> impl Strategy<Value = (PlaceRequest, bool)> {
    let tiny = prop::sample::select(vec![5e-324, 1e-300, 1e-10, 1.0, 100.0, 1e308]);
    let bytes = prop::sample::select(vec![0u64, 1, 5_000_000, 1 << 63, u64::MAX]);
    (
        (tiny.clone(), tiny.clone(), prop::sample::select(vec![0.0, 1.0, 1e308])),
        (prop::sample::select(vec![0.0, 10.0, 1e308]), prop::sample::select(vec![5e-324, 300.0])),
        prop::collection::vec((any::<bool>(), bytes.clone(), bytes, 0usize..3), 1..=4),
    )
        .prop_map(|((rack, cross, alpha), (beta, aging_s), tasks)| {
            let nodes = ["n1", "n2", "n3"];
            let pending: Vec<Value> = tasks
                .iter()
                .enumerate()
                .map(|(i, &(is_map, a, b, n))| {
                    if is_map {
                        json!({"id": format!("t{i}"), "job": "j", "kind": "map", "input_bytes": a,
                               "replicas": [nodes[n]]})
                    } else {
                        json!({"id": format!("t{i}"), "job": "j", "kind": "reduce", "shuffle": [
                            {"node": nodes[n], "bytes": a}, {"node": nodes[(n + 1) % 3], "bytes": b}]})
                    }
                })
                .collect();
            let fair = beta == 1e308 || aging_s == 5e-324;
            let req = snapshot(
                json!({"rack_mbps": rack, "cross_rack_mbps": cross}),
                json!({"alpha": alpha, "beta": beta, "aging_s": aging_s}),
                Value::Array(pending),
            );
            (req, fair)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// No `200` holds a `null`; every refusal is `cost_overflow`; a refusal for a locality
    /// field (a bandwidth or α) is the same under every algorithm and engine.
    #[test]
    fn no_answer_holds_a_non_finite_number((req, _fair) in extreme()) {
        let outcomes: Vec<_> = runs().into_iter().map(|(a, e)| (a, e, run(&req, a, e))).collect();
        let locality = |p: &str| p.starts_with("cluster.") || p == "policy.alpha" || p == "pending";
        let mut first: Option<String> = None;
        for (algorithm, engine, outcome) in &outcomes {
            if let Err(e) = outcome {
                prop_assert_eq!(e.code(), "cost_overflow", "{}/{:?}: {}", algorithm, engine, e);
                if locality(e.path()) {
                    first.get_or_insert_with(|| e.path().to_owned());
                }
            }
        }
        if let Some(path) = first {
            for (algorithm, engine, outcome) in &outcomes {
                let got = outcome.as_ref().err().map(|e| e.path().to_owned());
                prop_assert_eq!(got.as_deref(), Some(path.as_str()), "{}/{:?}", algorithm, engine);
            }
        }
    }
}
