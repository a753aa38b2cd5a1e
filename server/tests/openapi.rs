//! The OpenAPI document against what the service really reads and writes (OpenAPI 3.1.0,
//! JSON Schema 2020-12; docs/operations/observability.md, "OpenAPI"): real answers to the example
//! snapshots under every algorithm validate against the `PlaceResponse` schema, the examples
//! against `PlaceRequest`, every error code is listed with the status the server sends, defaults
//! are the `impl Default` ones, and Swagger UI is served from the binary.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use actix_web::body::MessageBody;
use actix_web::http::header;
use actix_web::http::StatusCode;
use actix_web::test::{self, TestRequest};
use actix_web::ResponseError;
use placer_models::{ModelError, PlaceRequest, Policy};
use placer_server::{app, openapi_document, AppState, ServerConfig, ServerError, ERROR_CODES};
use placer_solver::{PlaceOptions, SolveError};
use serde_json::{json, Value};

const SNAPSHOT: &str = include_str!("../../examples/snapshot.json");
const RAS_SNAPSHOT: &str = include_str!("../../examples/ras_snapshot.json");

/// Every algorithm this build implements, from the registry (the schema's enum may list more).
fn algorithms() -> Vec<&'static str> {
    placer_solver::registry::REGISTRY.iter().map(|(_, p)| p.name()).collect()
}

fn doc() -> Value {
    serde_json::to_value(openapi_document()).unwrap()
}

fn schema<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc.pointer(&format!("/components/schemas/{name}"))
        .unwrap_or_else(|| panic!("no schema {name}"))
}

/// A JSON Schema validator for one component, the document's components alongside so that
/// `#/components/schemas/...` references resolve.
fn validator(doc: &Value, name: &str) -> jsonschema::Validator {
    let root = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": format!("#/components/schemas/{name}"),
        "components": doc["components"],
    });
    jsonschema::validator_for(&root).unwrap()
}

fn assert_valid(v: &jsonschema::Validator, instance: &Value, what: &str) {
    let errors: Vec<String> =
        v.iter_errors(instance).map(|e| format!("{} at {}", e, e.instance_path())).collect();
    assert!(errors.is_empty(), "{what}: {errors:#?}\n{instance}");
}

fn required(schema: &Value) -> Vec<&str> {
    schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

#[test]
fn the_document_is_openapi_3_1_with_every_route() {
    let doc = doc();
    assert_eq!(doc["openapi"], "3.1.0");
    for (path, method) in [
        ("/place", "post"),
        ("/healthz", "get"),
        ("/readyz", "get"),
        ("/metrics", "get"),
        ("/openapi.json", "get"),
        ("/docs", "get"),
        ("/docs/", "get"),
        ("/v1/epochs", "get"),
        ("/", "get"),
        ("/k8s/v1/filter", "post"),
        ("/k8s/v1/prioritize", "post"),
        ("/v1/sessions", "post"),
        ("/v1/sessions/{session}/place", "post"),
        ("/v1/sessions/{session}", "delete"),
    ] {
        assert!(doc["paths"][path][method].is_object(), "{method} {path} missing");
    }
    let params: Vec<&str> = doc["paths"]["/place"]["post"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(params, ["explain", "deadline_ms"]);
    assert!(
        doc["paths"]["/metrics"]["get"]["responses"]["200"]["content"]["text/plain"].is_object()
    );
    let examples =
        &doc["paths"]["/place"]["post"]["requestBody"]["content"]["application/json"]["examples"];
    for (name, file) in [("locality", SNAPSHOT), ("resources", RAS_SNAPSHOT)] {
        let want: Value = serde_json::from_str(file).unwrap();
        assert_eq!(examples[name]["value"], want, "example {name}");
    }
    let retry = &doc["paths"]["/place"]["post"]["responses"]["503"]["headers"]["Retry-After"];
    assert!(retry.is_object(), "503 documents Retry-After");
}

/// Real answers (the solver on the checked-in examples, every algorithm, explained or not)
/// validate against `PlaceResponse`: what serde emits is what the document says.
#[test]
fn real_answers_to_the_examples_validate_against_place_response() {
    let doc = doc();
    let response = validator(&doc, "PlaceResponse");
    let mut checked = 0;
    for example in [SNAPSHOT, RAS_SNAPSHOT] {
        let base: Value = serde_json::from_str(example).unwrap();
        for algorithm in algorithms() {
            for explain in [false, true] {
                let mut body = base.clone();
                body["policy"]["algorithm"] = json!(algorithm);
                let req: PlaceRequest = serde_json::from_value(body).unwrap();
                let opts = PlaceOptions { explain, ..PlaceOptions::default() };
                match placer_solver::place(&req, &opts) {
                    Ok(answer) => {
                        let answer = serde_json::to_value(&answer).unwrap();
                        assert_valid(&response, &answer, algorithm);
                        checked += 1;
                    }
                    // An algorithm this build lacks is a documented 422, not an answer.
                    Err(e @ SolveError::UnsupportedAlgorithm { .. }) => {
                        assert_eq!(ServerError::from(e).status_code().as_u16(), 422);
                    }
                    Err(e) => panic!("{algorithm}: {e}"),
                }
            }
        }
    }
    assert!(checked >= 2 * algorithms().len(), "only {checked} answers checked");
}

/// The RAS extensions of the answer: `jobs[].utility` and `stats.min_utility` are optional and
/// nullable (`null` = −∞), as serde writes them.
#[test]
fn utilities_are_optional_and_nullable() {
    let doc = doc();
    for (name, field) in [("JobReport", "utility"), ("Stats", "min_utility")] {
        let s = schema(&doc, name);
        assert!(!required(s).contains(&field), "{name}.{field} must not be required");
        let types = &s["properties"][field]["type"];
        assert_eq!(types, &json!(["number", "null"]), "{name}.{field}");
    }
    let response = validator(&doc, "Stats");
    let ras: Value = serde_json::from_str(RAS_SNAPSHOT).unwrap();
    let req: PlaceRequest = serde_json::from_value(ras).unwrap();
    let mut stats =
        serde_json::to_value(placer_solver::place(&req, &PlaceOptions::default()).unwrap().stats)
            .unwrap();
    stats["min_utility"] = Value::Null;
    assert_valid(&response, &stats, "min_utility null");
    stats.as_object_mut().unwrap().remove("min_utility");
    assert_valid(&response, &stats, "min_utility omitted");
}

/// What serde accepts: the examples and the smallest snapshot validate against `PlaceRequest`;
/// one without `cluster` (which serde refuses) does not.
#[test]
fn what_serde_accepts_validates_against_place_request() {
    let doc = doc();
    let request = validator(&doc, "PlaceRequest");
    for example in [SNAPSHOT, RAS_SNAPSHOT] {
        let body: Value = serde_json::from_str(example).unwrap();
        serde_json::from_value::<PlaceRequest>(body.clone()).unwrap();
        assert_valid(&request, &body, "example");
    }
    let minimal = json!({"schema_version": 1, "cluster": {}});
    serde_json::from_value::<PlaceRequest>(minimal.clone()).unwrap();
    assert_valid(&request, &minimal, "minimal");
    let no_cluster = json!({"schema_version": 1});
    assert!(serde_json::from_value::<PlaceRequest>(no_cluster.clone()).is_err());
    assert!(!request.is_valid(&no_cluster));
    // The serialized default request is accepted by both.
    let default = serde_json::to_value(PlaceRequest::default()).unwrap();
    assert_valid(&request, &default, "PlaceRequest::default()");
}

/// Fields with `#[serde(default)]` or `skip_serializing_if` are not required; ids and kinds are.
#[test]
fn required_fields_are_exactly_those_serde_needs() {
    let doc = doc();
    for (name, want) in [
        ("PlaceRequest", vec!["schema_version", "cluster"]),
        ("Cluster", vec![]),
        ("Node", vec!["id", "rack"]),
        ("Rack", vec!["id"]),
        ("Pool", vec!["id"]),
        ("Job", vec!["id", "pool"]),
        ("PendingTask", vec!["id", "job", "kind"]),
        ("RunningTask", vec!["id", "job", "kind", "node"]),
        ("Policy", vec![]),
        ("Network", vec![]),
        ("Resources", vec![]),
        ("Waiting", vec!["job", "kind", "tasks", "reason"]),
        ("CostBreakdown", vec!["total", "locality", "fairness"]),
        ("Gang", vec!["min_member"]),
        ("Topology", vec!["level", "mode"]),
    ] {
        let mut got = required(schema(&doc, name));
        got.sort_unstable();
        let mut want = want;
        want.sort_unstable();
        assert_eq!(got, want, "required fields of {name}");
    }
}

/// The documented defaults are `Policy::default()`'s (lsap_quota, α 1, β 10, heartbeat 3 s, …)
/// and the network's 1000 / 100 Mbit/s.
#[test]
fn defaults_are_the_impl_default_ones() {
    let doc = doc();
    let policy = schema(&doc, "Policy");
    let default = serde_json::to_value(Policy::default()).unwrap();
    for (field, value) in default.as_object().unwrap() {
        assert_eq!(&policy["properties"][field]["default"], value, "policy.{field}");
    }
    assert_eq!(policy["properties"]["algorithm"]["default"], "lsap_quota");
    assert_eq!(policy["properties"]["beta"]["default"], 10.0);
    // Every knob some registered policy reads is a property of `Policy` with its group's
    // default, and says which policies read it.
    for group in placer_solver::registry::settings() {
        for (key, default) in group.defaults() {
            let prop = &policy["properties"][&key];
            assert!(prop.is_object(), "policy.{key} missing from the schema");
            if !default.is_null() {
                assert_eq!(prop["default"], default, "policy.{key}");
            }
            let readers = placer_solver::registry::readers_of_setting(&key);
            assert!(!readers.is_empty(), "policy.{key}");
            let says = prop["description"].as_str().unwrap_or_default();
            assert!(readers.iter().all(|r| says.contains(r)), "policy.{key}: {says}");
        }
    }
    // Every per-job field: a property of `JobReport`, and of `Job` when echoed.
    for field in placer_solver::registry::job_fields() {
        assert!(
            schema(&doc, "JobReport")["properties"][field.key()].is_object(),
            "{}",
            field.key()
        );
        assert_eq!(
            schema(&doc, "Job")["properties"][field.key()].is_object(),
            field.echoed(),
            "{}",
            field.key()
        );
    }
    let network = schema(&doc, "Network");
    assert_eq!(network["properties"]["rack_mbps"]["default"], 1000.0);
    assert_eq!(network["properties"]["cross_rack_mbps"]["default"], 100.0);
    assert_eq!(schema(&doc, "Pool")["properties"]["weight"]["default"], 1.0);
}

/// Gangs and topology domains are in the document: the job and node fields, the levels and
/// modes, the penalty's default, slices, and the two waiting reasons.
#[test]
fn gang_and_topology_fields_are_documented() {
    let doc = doc();
    let job = &schema(&doc, "Job")["properties"];
    assert!(job["gang"].is_object() && job["topology"].is_object(), "{job}");
    assert!(schema(&doc, "Node")["properties"]["block"].is_object());
    assert_eq!(schema(&doc, "Topology")["properties"]["penalty_s"]["default"], 60.0);
    assert!(schema(&doc, "Topology")["properties"]["slice"].is_object());
    let slice = &schema(&doc, "TopologySlice")["properties"];
    assert!(slice["level"].is_object() && slice["size"].is_object(), "{slice}");
    let names = |name: &str| -> Vec<String> {
        serde_json::to_string(schema(&doc, name)).unwrap().split('"').map(str::to_owned).collect()
    };
    for level in ["node", "rack", "block"] {
        assert!(names("TopologyLevel").iter().any(|n| n == level), "{level}");
    }
    for mode in ["required", "preferred"] {
        assert!(names("TopologyMode").iter().any(|n| n == mode), "{mode}");
    }
    for reason in ["gang_incomplete", "no_domain_fits"] {
        assert!(names("WaitReason").iter().any(|n| n == reason), "{reason}");
    }
}

/// Every field carries its `///` description.
#[test]
fn every_property_is_described() {
    let doc = doc();
    let mut missing = Vec::new();
    for (name, s) in doc["components"]["schemas"].as_object().unwrap() {
        for (field, p) in s["properties"].as_object().into_iter().flatten() {
            let described = p.get("description").is_some()
                || p["allOf"]
                    .as_array()
                    .is_some_and(|a| a.iter().any(|x| x["description"].is_string()))
                || p["oneOf"]
                    .as_array()
                    .is_some_and(|a| a.iter().any(|x| x["description"].is_string()));
            if !described {
                missing.push(format!("{name}.{field}"));
            }
        }
    }
    assert!(missing.is_empty(), "undescribed: {missing:?}");
}

/// `nodes[].resources`: a free-form map of resource → number beside the reserved integer
/// `disk` (`#[serde(flatten)]`).
#[test]
fn resources_are_free_form_with_disk_reserved() {
    let doc = doc();
    let resources = schema(&doc, "Resources");
    assert_eq!(resources["additionalProperties"]["type"], "number");
    assert!(resources["properties"]["disk"]["type"]
        .as_array()
        .unwrap()
        .contains(&json!("integer")));
    let v = validator(&doc, "Resources");
    assert!(v.is_valid(&json!({"cpu": 8, "mem": 16384.5, "disk": 1000})));
    assert!(!v.is_valid(&json!({"cpu": "eight"})));
}

/// Each error the code can raise is in the document's list with the status it is sent with.
/// (The HTTP layer's own codes — `bad_request`, `uri_too_long`, `headers_too_large`,
/// `http_version_not_supported` — are listed by hand from `http_errors.rs`.)
#[test]
fn every_error_code_is_listed_with_its_status() {
    let model = |e: ModelError| ServerError::Model(e);
    let p = || "p".to_owned();
    let samples = [
        model(ModelError::MalformedJson { path: p(), message: p() }),
        model(ModelError::InvalidField { path: p(), message: p() }),
        model(ModelError::UnsupportedSchemaVersion { path: p(), found: 2, supported: 1 }),
        model(ModelError::EmptyId { path: p() }),
        model(ModelError::DuplicateId { path: p(), id: p(), first: p() }),
        model(ModelError::UnknownReference { path: p(), entity: "rack", id: p() }),
        model(ModelError::InvalidNumber { path: p(), message: p() }),
        model(ModelError::SlotsOversubscribed { path: p(), node: p(), kind: "map", slots: 1 }),
        model(ModelError::Inconsistent { path: p(), message: p() }),
        ServerError::Solve(SolveError::Invalid(ModelError::EmptyId { path: p() })),
        ServerError::Solve(SolveError::UnsupportedAlgorithm {
            path: p(),
            algorithm: "x",
            available: p(),
        }),
        ServerError::Solve(SolveError::UnsupportedEngine {
            path: p(),
            engine: "x",
            available: p(),
        }),
        ServerError::Solve(SolveError::UnsupportedFeature { path: p(), message: p() }),
        ServerError::Solve(SolveError::Infeasible { message: p() }),
        ServerError::Solve(SolveError::InvalidCost { path: p(), message: p() }),
        ServerError::Solve(SolveError::ProblemTooLarge { path: p(), message: p() }),
        ServerError::Solve(SolveError::EngineFailed { path: p(), message: p() }),
        ServerError::Solve(SolveError::CostOverflow { path: p(), message: p() }),
        ServerError::PayloadTooLarge { limit: 1 },
        ServerError::OverMemoryBudget { estimate: 2, per_body_byte: 2, budget: 1 },
        ServerError::RequestTimeout { timeout_ms: 1 },
        ServerError::UnsupportedEncoding { encoding: p() },
        ServerError::InvalidQuery { param: "?explain", message: p() },
        ServerError::Overloaded { reason: p() },
        ServerError::Draining,
        ServerError::Payload { message: p() },
        ServerError::NotFound { method: p(), path: p() },
        ServerError::MethodNotAllowed { method: p(), path: p(), allowed: "GET" },
        ServerError::Internal { message: p() },
        ServerError::ExtenderJson { message: p() },
        ServerError::ExtenderArgs { path: p(), message: p() },
        ServerError::Unauthorized { denial: placer_server::auth::Denial::Missing },
        ServerError::Forbidden { scope: "read", method: p(), path: p() },
        ServerError::SessionStale { path: "base_epoch", message: p() },
        ServerError::SessionNotFound { session: p() },
    ];
    for e in &samples {
        let listed = ERROR_CODES.iter().find(|c| c.code == e.code());
        let listed = listed.unwrap_or_else(|| panic!("{} is not in ERROR_CODES", e.code()));
        assert_eq!(listed.status, e.status_code().as_u16(), "status of {}", e.code());
    }
    let doc = doc();
    let codes = &doc["components"]["schemas"]["ErrorCode"]["enum"];
    assert_eq!(codes.as_array().unwrap().len(), ERROR_CODES.len());
    // The listed codes are unique.
    let mut names: Vec<&str> = ERROR_CODES.iter().map(|c| c.code).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), ERROR_CODES.len());
}

/// Error bodies the server really sends validate against `ErrorResponse`.
#[actix_web::test]
async fn real_error_bodies_validate_against_error_response() {
    let doc = doc();
    let v = validator(&doc, "ErrorResponse");
    let srv = test::init_service(app(AppState::new(&ServerConfig::default()))).await;
    for (req, status) in [
        (TestRequest::post().uri("/place").set_payload("{"), 400),
        (TestRequest::post().uri("/place?explain=maybe").set_payload("{}"), 400),
        (TestRequest::get().uri("/place"), 405),
        (TestRequest::get().uri("/nowhere"), 404),
        (TestRequest::get().uri("/docs/nowhere.js"), 404),
        (TestRequest::post().uri("/openapi.json"), 405),
        (TestRequest::post().uri("/k8s/v1/filter").set_payload("{"), 400),
        (TestRequest::post().uri("/k8s/v1/prioritize").set_payload(r#"{"Pod": 1}"#), 400),
        (TestRequest::get().uri("/k8s/v1/prioritize"), 405),
    ] {
        let res = test::call_service(&srv, req.to_request()).await;
        assert_eq!(res.status().as_u16(), status);
        let body: Value = test::read_body_json(res).await;
        assert_valid(&v, &body, "error body");
        let code = body["error"]["code"].as_str().unwrap();
        let listed = ERROR_CODES.iter().find(|c| c.code == code).unwrap();
        assert_eq!(listed.status, status, "status of {code}");
    }
}

/// `GET /openapi.json` serves the document; `/docs` redirects to the offline Swagger UI, whose
/// page and every asset it links load from the binary.
#[actix_web::test]
async fn the_document_and_swagger_ui_are_served_offline() {
    let srv = test::init_service(app(AppState::new(&ServerConfig::default()))).await;

    let res = test::call_service(&srv, TestRequest::get().uri("/openapi.json").to_request()).await;
    assert_eq!(res.status(), StatusCode::OK);
    let served: Value = test::read_body_json(res).await;
    assert_eq!(served, doc());

    let res = test::call_service(&srv, TestRequest::get().uri("/docs").to_request()).await;
    assert_eq!(res.status(), StatusCode::PERMANENT_REDIRECT);
    assert_eq!(res.headers().get(header::LOCATION).unwrap(), "/docs/");

    let res = test::call_service(&srv, TestRequest::get().uri("/docs/").to_request()).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res
        .headers()
        .get(header::CONTENT_TYPE)
        .unwrap()
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    let html = String::from_utf8(res.into_body().try_into_bytes().unwrap().to_vec()).unwrap();
    assert!(html.contains("swagger-ui"), "{html}");

    // Every local asset the page links: `href="./x"` and `src="./x"`.
    let assets: Vec<&str> = html
        .split(['"', '\''])
        .filter_map(|s| s.strip_prefix("./"))
        .filter(|s| !s.is_empty())
        .collect();
    assert!(assets.iter().any(|a| a.ends_with(".css")), "{assets:?}");
    assert!(assets.iter().any(|a| a.ends_with(".js")), "{assets:?}");
    for asset in &assets {
        let uri = format!("/docs/{asset}");
        let res = test::call_service(&srv, TestRequest::get().uri(&uri).to_request()).await;
        assert_eq!(res.status(), StatusCode::OK, "{uri}");
        let body = res.into_body().try_into_bytes().unwrap();
        assert!(!body.is_empty(), "{uri} is empty");
    }
    // The initializer points the UI at this server's document.
    let res = test::call_service(
        &srv,
        TestRequest::get().uri("/docs/swagger-initializer.js").to_request(),
    )
    .await;
    assert_eq!(res.status(), StatusCode::OK);
    let js = String::from_utf8(res.into_body().try_into_bytes().unwrap().to_vec()).unwrap();
    assert!(js.contains("/openapi.json"), "{js}");
}
