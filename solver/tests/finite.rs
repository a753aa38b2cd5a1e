//! Every number of an answer finite (docs/operations/serving.md, "Finite numbers"): snapshots whose
//! costs overflow f64 get the same `422 cost_overflow`, naming the field at fault, under every
//! algorithm and engine; no `200` answer carries a `null` (serde's rendering of NaN and ±∞) where a
//! number belongs. Cases derived by hand; a property test over extreme values for the rest.

use placer_models::{parse_request, validate, PlaceRequest, SolverEngine};
use placer_solver::exact::check_engine;
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

/// The cases: a 100 MB block on n1 read elsewhere through a link of 5·10⁻³²⁴ Mbit/s
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

/// Two pools on the 3-node cluster of [`snapshot`] (6 map slots): `p` with job `jp`, `q` with
/// job `jq`, 4 pending maps each (8 > 6: the pools contend), and with `running` one map of
/// `jp` running on n1.
fn two_pools(pools: Value, running: bool) -> PlaceRequest {
    let maps = |job: &str, node: &str| -> Vec<Value> {
        (0..4)
            .map(|i| {
                json!({"id": format!("{job}-m{i}"), "job": job, "kind": "map",
                            "input_bytes": 64_000_000, "replicas": [node]})
            })
            .collect()
    };
    let mut pending = maps("jp", "n1");
    pending.extend(maps("jq", "n3"));
    let body = json!({"schema_version": 1, "now_s": 1000,
    "cluster": {"racks": [{"id": "r1"}, {"id": "r2"}],
        "nodes": [{"id": "n1", "rack": "r1", "map_slots": 2, "reduce_slots": 2},
                  {"id": "n2", "rack": "r1", "map_slots": 2, "reduce_slots": 2},
                  {"id": "n3", "rack": "r2", "map_slots": 2, "reduce_slots": 2}]},
    "pools": pools,
    "jobs": [{"id": "jp", "pool": "p", "submit_s": 0}, {"id": "jq", "pool": "q", "submit_s": 1}],
    "pending": pending,
    "running": if running {
        json!([{"id": "jp-r", "job": "jp", "kind": "map", "node": "n1", "started_s": 990}])
    } else {
        json!([])
    }});
    let req = parse_request(body.to_string().as_bytes()).unwrap();
    validate(&req).unwrap();
    req
}

/// Pool weights whose sum is beyond f64 (two pools of weight 10³⁰⁸: Σ = 2·10³⁰⁸ = ∞, so every
/// normalised weight w_i = weight_i / Σ is 0). The fair-share algorithms used to refuse the
/// answer (its fairness distance divides by w_i) while `lsap_quota`, whose quotas also divide
/// by w_i, placed nothing on the free slots and answered `slots_taken`. Now every algorithm and
/// engine refuses the snapshot the same way, naming the weight that overflows the sum.
#[test]
fn pool_weights_summing_beyond_f64_are_the_same_422_under_every_algorithm() {
    let pools = json!([{"id": "p", "weight": 1e308}, {"id": "q", "weight": 1e308}]);
    let runs = [false, true].into_iter().flat_map(|r| runs().into_iter().map(move |x| (r, x)));
    let wrong: Vec<String> = runs
        .filter_map(|(running, (algorithm, engine))| {
            let req = two_pools(pools.clone(), running);
            match outcome(&req, algorithm, engine) {
                Err(e) if e == "cost_overflow at pools[1].weight" => None,
                Err(e) => Some(format!("{algorithm}/{engine:?} (running {running}): {e}")),
                Ok(v) => Some(format!(
                    "{algorithm}/{engine:?} (running {running}): answered {}",
                    v["stats"]
                )),
            }
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The answer of `req` under `algorithm` and `engine` as JSON without its measurement
/// (`stats.solve_ms`), or the error's code and path.
fn outcome(req: &PlaceRequest, algorithm: &str, engine: SolverEngine) -> Result<Value, String> {
    let mut req = req.clone();
    req.policy.algorithm = registry::by_name(algorithm).unwrap().0;
    req.policy.solver = engine;
    match place(&req, &PlaceOptions::default()) {
        Ok(resp) => {
            let mut v = serde_json::to_value(&resp).unwrap();
            v["stats"]["solve_ms"] = Value::from(0.0);
            Ok(v)
        }
        Err(e) => Err(format!("{} at {}", e.code(), e.path())),
    }
}

/// Extreme but finite pool knobs, each against a reference snapshot that means the same:
/// weights are relative (FAIR §3.1: only their ratios matter), so pools of weight 10⁻³⁰⁸ or
/// 5·10⁻³²⁴ each share like pools of weight 1, and 10³⁰⁰ : 10³⁰⁰ like 1 : 1; a min share of
/// 10³⁰⁸ is capped by the pool's demand (design doc §4.6), like a min share of 5 (its demand).
/// Every algorithm and engine must answer the extreme snapshot exactly as the reference one.
#[test]
fn extreme_pool_knobs_answer_as_their_reference_under_every_algorithm() {
    let pools = |p: Value, q: Value| {
        let mut p = p;
        let mut q = q;
        p["id"] = json!("p");
        q["id"] = json!("q");
        two_pools(json!([p, q]), true)
    };
    let cases = [
        ("tiny", json!({"weight": 1e-308}), json!({"weight": 1e-308}), json!({}), json!({})),
        ("subnormal", json!({"weight": 5e-324}), json!({"weight": 5e-324}), json!({}), json!({})),
        ("huge", json!({"weight": 1e300}), json!({"weight": 1e300}), json!({}), json!({})),
        (
            "huge 2:1",
            json!({"weight": 2e300}),
            json!({"weight": 1e300}),
            json!({"weight": 2}),
            json!({}),
        ),
        (
            "min share",
            json!({"min_map_share": 1e308}),
            json!({}),
            json!({"min_map_share": 5}),
            json!({}),
        ),
        (
            "min shares",
            json!({"min_map_share": 1e308, "min_reduce_share": 1e308}),
            json!({"min_map_share": 1e308}),
            json!({"min_map_share": 5, "min_reduce_share": 0}),
            json!({"min_map_share": 4}),
        ),
    ];
    let mut failures = Vec::new();
    for (name, p, q, ref_p, ref_q) in cases {
        let extreme = pools(p, q);
        let reference = pools(ref_p, ref_q);
        for (algorithm, engine) in runs() {
            let got = outcome(&extreme, algorithm, engine);
            let want = outcome(&reference, algorithm, engine);
            if let Ok(v) = &got {
                let mut found = Vec::new();
                nulls(v, "", &mut found);
                assert!(found.is_empty(), "{name}/{algorithm}/{engine:?}: null at {found:?}");
            }
            // Echoed pool settings differ by design: compare what placer decided.
            let decided = |o: &Result<Value, String>| -> Result<Value, String> {
                o.clone().map(|v| {
                    let pools: Vec<Value> = v["pools"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|p| {
                            // Fair shares to 9 decimals: 10³⁰⁰ is no power of two, so its
                            // water level rounds differently in the last bit.
                            let round = |x: &Value| (x.as_f64().unwrap() * 1e9).round() / 1e9;
                            let share = &p["fair_share"];
                            json!([
                                round(&share["map"]),
                                round(&share["reduce"]),
                                p["running_after"]
                            ])
                        })
                        .collect();
                    json!([v["assignments"], v["waiting"], v["preemptions"], pools])
                })
            };
            let (got, want) = (decided(&got), decided(&want));
            if got != want {
                let show = |o: &Result<Value, String>| match o {
                    Ok(v) => v.to_string(),
                    Err(e) => e.clone(),
                };
                failures.push(format!(
                    "{name}/{algorithm}/{engine:?}:\n  {}\n  reference {}",
                    show(&got),
                    show(&want)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{} differences:\n{}", failures.len(), failures.join("\n"));
}
