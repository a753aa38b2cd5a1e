//! The scheduler extender end to end (docs/operations/kubernetes-extender.md;
//! `k8s.io/kube-scheduler/extender/v1` types.go): `ExtenderArgs` bodies as kube-scheduler sends
//! them — a whole Pod and whole Node objects from `tests/k8s/*.json`, full of fields placer ignores
//! — in `Nodes` and `NodeNames` modes, answers with the Go field names, scores and filter reasons
//! derived by hand, and malformed bodies answered 400 with placer's JSON error.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
// `EpochRecord` grows fields of its own: the tests set only `pools`.
#![allow(clippy::field_reassign_with_default)]

use actix_web::http::header;
use actix_web::test::{self, TestRequest};
use placer_models::{PoolReport, SlotCounts, StarvationState};
use placer_server::epochs::EpochRecord;
use placer_server::{app, AppState, ServerConfig};
use serde_json::{json, Value};

const POD: &str = include_str!("k8s/pod.json");
const NODE: &str = include_str!("k8s/node.json");
const SCHEDULER_CONFIG: &str = include_str!("../../examples/kube-scheduler-config.yaml");

fn pod() -> Value {
    serde_json::from_str(POD).unwrap()
}

/// The node template named `name` in rack `rack` (`None`: without the rack label).
fn node(name: &str, rack: Option<&str>) -> Value {
    let mut n: Value = serde_json::from_str(&NODE.replace("NAME", name)).unwrap();
    let labels = n["metadata"]["labels"].as_object_mut().unwrap();
    match rack {
        Some(rack) => labels["topology.kubernetes.io/rack"] = json!(rack),
        None => {
            labels.remove("topology.kubernetes.io/rack");
        }
    }
    n
}

/// Racks r1 = {n1, n2}, r2 = {n3, n4}; n2 has 1500m cpu allocatable, n4 2Gi memory.
fn cluster() -> Vec<Value> {
    let mut n2 = node("n2", Some("r1"));
    n2["status"]["allocatable"]["cpu"] = json!("1500m");
    let mut n4 = node("n4", Some("r2"));
    n4["status"]["allocatable"]["memory"] = json!("2Gi");
    vec![node("n1", Some("r1")), n2, node("n3", Some("r2")), n4]
}

/// `ExtenderArgs` in `Nodes` mode, as Go encodes it: the list's empty TypeMeta omitted.
fn nodes_args(pod: Value, nodes: Vec<Value>) -> Value {
    json!({"Pod": pod, "Nodes": {"metadata": {}, "items": nodes}, "NodeNames": null})
}

fn names_args(pod: Value, names: &[&str]) -> Value {
    json!({"Pod": pod, "Nodes": null, "NodeNames": names})
}

struct Service {
    state: AppState,
}

impl Service {
    fn new() -> Self {
        Self::with(ServerConfig::default())
    }

    fn with(config: ServerConfig) -> Self {
        Self { state: AppState::new(&config) }
    }

    /// POSTs `body` to `path`: (status, content type, JSON).
    async fn post(&self, path: &str, body: impl Into<Vec<u8>>) -> (u16, String, Value) {
        let srv = test::init_service(app(self.state.clone())).await;
        let req = TestRequest::post()
            .uri(path)
            .insert_header((header::CONTENT_TYPE, "application/json"))
            .set_payload(body.into())
            .to_request();
        let res = test::call_service(&srv, req).await;
        let status = res.status().as_u16();
        let ct = res.headers().get(header::CONTENT_TYPE).unwrap().to_str().unwrap().to_owned();
        let bytes = test::read_body(res).await;
        let json = serde_json::from_slice(&bytes)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&bytes)));
        (status, ct, json)
    }

    async fn ok(&self, verb: &str, args: &Value) -> Value {
        let (status, ct, json) =
            self.post(&format!("/k8s/v1/{verb}"), serde_json::to_vec(args).unwrap()).await;
        assert_eq!((status, ct.as_str()), (200, "application/json"), "{json}");
        json
    }

    /// Scores by host, in answer order.
    async fn scores(&self, args: &Value) -> Vec<(String, i64)> {
        let list = self.ok("prioritize", args).await;
        list.as_array()
            .unwrap()
            .iter()
            .map(|hp| {
                assert_eq!(hp.as_object().unwrap().len(), 2, "{hp}");
                (hp["Host"].as_str().unwrap().to_owned(), hp["Score"].as_i64().unwrap())
            })
            .collect()
    }
}

fn pairs(scores: &[(&str, i64)]) -> Vec<(String, i64)> {
    scores.iter().map(|(h, s)| ((*h).to_owned(), *s)).collect()
}

/// The pod reads 128 MiB with its replica on n1. Costs (lsap-sched eq. 1, 1000 Mbit/s in a
/// rack, 100 across): n1 0 s; n2 134,217,728 · 8 / 10⁹ = 1.074 s; n3, n4 (and any node of a
/// rack without replicas) 10.737 s. Scores round(10 · (1 − c / 10.737)): 10, 9, 0, 0.
#[actix_web::test]
async fn prioritize_in_nodes_mode_scores_by_locality_cost() {
    let svc = Service::new();
    let scores = svc.scores(&nodes_args(pod(), cluster())).await;
    assert_eq!(scores, pairs(&[("n1", 10), ("n2", 9), ("n3", 0), ("n4", 0)]));

    // Replicas on n1 and n3: both node-local, n2 and n4 rack-local.
    let mut two = pod();
    two["metadata"]["annotations"]["placer.io/replicas"] = json!("n3, n1");
    let scores = svc.scores(&nodes_args(two, cluster())).await;
    assert_eq!(scores, pairs(&[("n1", 10), ("n2", 9), ("n3", 10), ("n4", 9)]));

    // No annotations: no locality preference, every node 10.
    let mut plain = pod();
    plain["metadata"]["annotations"] = json!({});
    let scores = svc.scores(&nodes_args(plain, cluster())).await;
    assert!(scores.iter().all(|(_, s)| *s == 10), "{scores:?}");
}

/// kube-scheduler offers only nodes that passed its own filters: here not n1, the replica
/// holder. Its rack is known from an earlier `Nodes` call, so n2 (its rack) is the best
/// candidate: costs 1.074, 10.737, 10.737 → 9, 0, 0. A fresh server has never seen n1: its
/// rack is its own, every candidate costs 10.737 s, all score 0.
#[actix_web::test]
async fn racks_of_absent_replica_nodes_are_learned_from_earlier_calls() {
    let without_n1: Vec<Value> = cluster().into_iter().skip(1).collect();
    let fresh = Service::new();
    let scores = fresh.scores(&nodes_args(pod(), without_n1.clone())).await;
    assert_eq!(scores, pairs(&[("n2", 0), ("n3", 0), ("n4", 0)]));

    let svc = Service::new();
    svc.ok("filter", &nodes_args(pod(), cluster())).await;
    let scores = svc.scores(&nodes_args(pod(), without_n1)).await;
    assert_eq!(scores, pairs(&[("n2", 9), ("n3", 0), ("n4", 0)]));
}

/// `nodeCacheCapable: true`: names only. Unknown racks are racks of their own: n1 (replica)
/// 0 s, n2 and n3 10.737 s → 10, 0, 0. Once a `Nodes` call showed the racks, n2 is
/// rack-local again: 10, 9, 0.
#[actix_web::test]
async fn prioritize_in_node_names_mode() {
    let svc = Service::new();
    let args = names_args(pod(), &["n1", "n2", "n3"]);
    assert_eq!(svc.scores(&args).await, pairs(&[("n1", 10), ("n2", 0), ("n3", 0)]));
    svc.ok("prioritize", &nodes_args(pod(), cluster())).await;
    assert_eq!(svc.scores(&args).await, pairs(&[("n1", 10), ("n2", 9), ("n3", 0)]));
}

/// `--k8s-rack-map`: a fresh server in `NodeNames` mode knows the racks from the file (n1
/// replica, n2 in its rack r1, n3 in r2): 10, 9, 0. In `Nodes` mode the file wins over the
/// labels: it puts n3 in r1 (its label says r2), so n3 scores 9 and n4 (labelled r2, not in
/// the file) 0.
#[actix_web::test]
async fn a_rack_map_file_gives_node_names_their_racks_and_wins_over_labels() {
    let map = placer_server::parse_rack_file("n1 r1\nn2 r1\nn3 r2\n").unwrap();
    let config = ServerConfig { k8s_rack_file: Some(map), ..ServerConfig::default() };
    let svc = Service::with(config);
    let args = names_args(pod(), &["n1", "n2", "n3"]);
    assert_eq!(svc.scores(&args).await, pairs(&[("n1", 10), ("n2", 9), ("n3", 0)]));
    let map = placer_server::parse_rack_file("n3 r1\n").unwrap();
    let svc = Service::with(ServerConfig { k8s_rack_file: Some(map), ..ServerConfig::default() });
    let scores = svc.scores(&nodes_args(pod(), cluster())).await;
    assert_eq!(scores, pairs(&[("n1", 10), ("n2", 9), ("n3", 9), ("n4", 0)]));
}

/// The rack map is reloaded with the config: n2 moves from r2 to r1 (n1's rack) and scores 9
/// instead of 0 after the reload; a broken map is rejected, naming its line, and the one in
/// force stays.
#[actix_web::test]
async fn the_rack_map_is_reloaded_with_the_config() {
    use placer_server::config_file::{self, CommandLine};
    use placer_server::reload::{ReloadOutcome, Reloader};
    let dir = std::env::temp_dir().join(format!("placer-rack-map-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (config_path, map_path) = (dir.join("placer.toml"), dir.join("racks.txt"));
    std::fs::write(&config_path, "k8s_rack_map = \"racks.txt\"\n").unwrap();
    std::fs::write(&map_path, "n1 r1\nn2 r2\n").unwrap();
    let config = config_file::load(&config_path, &CommandLine::default()).unwrap();
    assert_eq!(config.k8s_rack_map.as_deref(), Some(map_path.as_path()));
    let svc = Service::with(config);
    let mut reloader =
        Reloader::new(config_path.clone(), CommandLine::default(), svc.state.live_config().clone());
    let args = names_args(pod(), &["n1", "n2", "n3"]);
    assert_eq!(svc.scores(&args).await, pairs(&[("n1", 10), ("n2", 0), ("n3", 0)]));
    std::fs::write(&map_path, "n1 r1\nn2 r1\n").unwrap();
    assert_eq!(
        reloader.reload_once(),
        ReloadOutcome::Applied { changed: vec!["k8s_rack_map"], restart_needed: vec![] }
    );
    assert_eq!(svc.scores(&args).await, pairs(&[("n1", 10), ("n2", 9), ("n3", 0)]));
    std::fs::write(&map_path, "n1 r1\nn2\n").unwrap();
    let ReloadOutcome::Rejected(why) = reloader.reload_once() else { panic!("accepted") };
    assert!(why.contains("racks.txt") && why.contains("2"), "{why}");
    assert_eq!(svc.scores(&args).await, pairs(&[("n1", 10), ("n2", 9), ("n3", 0)]));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The pod requests max(1500m + 500m, 1 init) = 2000m cpu and max(3Gi + 1Gi, 512Mi) = 4Gi
/// memory (component-helpers PodRequests). n2 allocates 1500m cpu, n4 2Gi memory: both fail,
/// unresolvable, with the numbers; n1 and n3 pass, echoed unchanged.
#[actix_web::test]
async fn filter_in_nodes_mode_checks_allocatable() {
    let svc = Service::new();
    let nodes = cluster();
    let result = svc.ok("filter", &nodes_args(pod(), nodes.clone())).await;
    let keys: Vec<&str> = result.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["Error", "FailedAndUnresolvableNodes", "FailedNodes", "NodeNames", "Nodes"]);
    assert_eq!(result["Error"], "");
    assert_eq!(result["NodeNames"], Value::Null);
    assert_eq!(result["FailedNodes"], json!({}));
    assert_eq!(result["Nodes"]["items"], json!([nodes[0], nodes[2]]));
    assert_eq!(result["Nodes"]["metadata"], json!({}));
    let failed = &result["FailedAndUnresolvableNodes"];
    assert_eq!(failed.as_object().unwrap().len(), 2);
    assert_eq!(
        failed["n2"],
        "Insufficient cpu: the pod requests 2000m, the node's allocatable is 1500m"
    );
    assert_eq!(
        failed["n4"],
        "Insufficient memory: the pod requests 4294967296 bytes, the node's allocatable is \
         2147483648 bytes"
    );
}

/// A kept node is echoed with the value of every number it was sent with, also a number no
/// `f64` holds exactly: the fuzzer's `"staAtus": 999990001864712049423024128` came back 1 ulp off
/// when the body was read with a float parser that is not correctly rounded.
#[actix_web::test]
async fn kept_nodes_echo_their_numbers_exactly() {
    let svc = Service::new();
    let body = br#"{"Pod":{"spec":{}},"Nodes":{"items":[{"metadata":{"name":"a"},"staAtus":999990001864712049423024128,"x":0.1e-310}]}}"#;
    let (status, _, result) = svc.post("/k8s/v1/filter", body.to_vec()).await;
    assert_eq!(status, 200, "{result}");
    let item = &result["Nodes"]["items"][0];
    assert_eq!(
        item["staAtus"].as_f64().unwrap().to_bits(),
        999990001864712049423024128_f64.to_bits()
    );
    assert_eq!(item["x"].as_f64().unwrap().to_bits(), 0.1e-310_f64.to_bits());
}

fn pool(id: &str, fair: f64, running_after: f64, demand: f64) -> PoolReport {
    let map = |map| SlotCounts { map, reduce: 0.0 };
    PoolReport {
        id: id.into(),
        fair_share: Some(map(fair)),
        running: map(running_after),
        demand: map(demand),
        running_after: map(running_after),
        starvation: StarvationState::default(),
    }
}

/// The latest `/place` answer held pool `etl` at its fair share (6 running ≥ 6, demand 20):
/// every node fails, with the pool's reason, in both modes. A pod of pool `gold` (below its
/// share) passes; so does every pod once a later epoch puts `etl` below its share.
#[actix_web::test]
async fn filter_holds_a_pool_at_its_fair_share() {
    let svc = Service::new();
    let mut record = EpochRecord::default();
    record.pools = vec![pool("etl", 6.0, 6.0, 20.0), pool("gold", 6.0, 2.0, 20.0)];
    svc.state.epochs().push(record);

    let result = svc.ok("filter", &names_args(pod(), &["n1", "n3"])).await;
    assert_eq!(result["NodeNames"], json!([]));
    assert_eq!(result["Nodes"], Value::Null);
    let why = "pool etl is at or over its fair share: 6 map tasks running ≥ fair share 6 \
               (demand 20) in the latest answered epoch";
    assert_eq!(result["FailedAndUnresolvableNodes"], json!({"n1": why, "n3": why}));

    let result = svc.ok("filter", &nodes_args(pod(), cluster())).await;
    assert_eq!(result["Nodes"]["items"], json!([]));
    let failed = &result["FailedAndUnresolvableNodes"];
    assert_eq!(failed["n1"], why);
    assert!(failed["n2"].as_str().unwrap().starts_with("Insufficient cpu"));
    assert!(failed["n2"].as_str().unwrap().ends_with(why));

    let mut gold = pod();
    gold["metadata"]["annotations"]["placer.io/pool"] = json!("gold");
    let result = svc.ok("filter", &names_args(gold, &["n1", "n3"])).await;
    assert_eq!(result["NodeNames"], json!(["n1", "n3"]));
    assert_eq!(result["FailedAndUnresolvableNodes"], json!({}));

    let mut later = EpochRecord::default();
    later.pools = vec![pool("etl", 6.0, 5.0, 20.0)];
    svc.state.epochs().push(later);
    let result = svc.ok("filter", &names_args(pod(), &["n1", "n3"])).await;
    assert_eq!(result["NodeNames"], json!(["n1", "n3"]));
}

/// The filter answer is bounded by the request: 200,000 short names all held back by the
/// pool's fair share once made an answer 12–14 times the request (a 130-byte reason per
/// name). Now the reasons stop at the request's size; every name is still filtered out, and
/// the first ones carry the reason.
#[actix_web::test]
async fn the_filter_answer_is_at_most_about_twice_the_request() {
    let svc = Service::new();
    let mut record = EpochRecord::default();
    record.pools = vec![pool("etl", 6.0, 6.0, 20.0)];
    svc.state.epochs().push(record);
    let names: Vec<String> = (0..200_000).map(|i| format!("n{i}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let request = serde_json::to_vec(&names_args(pod(), &names)).unwrap();
    let (status, _, answer) = svc.post("/k8s/v1/filter", request.clone()).await;
    assert_eq!(status, 200);
    let out = serde_json::to_vec(&answer).unwrap().len();
    assert!(out <= 2 * request.len() + (64 << 10), "{out} bytes out for {} in", request.len());
    assert_eq!(answer["NodeNames"], json!([]));
    let failed = answer["FailedAndUnresolvableNodes"].as_object().unwrap();
    assert!(!failed.is_empty() && failed.len() < names.len(), "{}", failed.len());
    assert!(failed["n0"].as_str().unwrap().starts_with("pool etl is at or over"));
}

/// Go's encoding/json matches untagged fields case-insensitively: `pod`, `NODENAMES`.
#[actix_web::test]
async fn keys_match_case_insensitively_like_go() {
    let svc = Service::new();
    let args = json!({"pod": pod(), "NODENAMES": ["n1", "n2"]});
    assert_eq!(svc.scores(&args).await, pairs(&[("n1", 10), ("n2", 0)]));
    let args = json!({"POD": pod(), "nodes": {"Items": cluster()}});
    let result = svc.ok("filter", &args).await;
    assert_eq!(result["Nodes"]["items"].as_array().unwrap().len(), 2);
}

/// Odd but well-formed names never break the one-task snapshot: a candidate named like
/// placer's phantom node, replicas that are no candidate, repeated candidates.
#[actix_web::test]
async fn odd_names_are_scored_not_refused() {
    let svc = Service::new();
    let mut p = pod();
    p["metadata"]["annotations"]["placer.io/replicas"] = json!("n1, gone, ,n1");
    let args = names_args(p, &["n1", "placer,elsewhere", "n1", "node:n1"]);
    let scores = svc.scores(&args).await;
    assert_eq!(scores, pairs(&[("n1", 10), ("placer,elsewhere", 0), ("n1", 10), ("node:n1", 0)]));
}

/// `--k8s-rack-label`: racks from another label. Under `example.com/rack` no node has one, so
/// each is its own rack: n1 10, the rest 0.
#[actix_web::test]
async fn the_rack_label_is_configurable() {
    let config =
        ServerConfig { k8s_rack_label: "example.com/rack".to_owned(), ..ServerConfig::default() };
    let svc = Service::with(config);
    let scores = svc.scores(&nodes_args(pod(), cluster())).await;
    assert_eq!(scores, pairs(&[("n1", 10), ("n2", 0), ("n3", 0), ("n4", 0)]));
    let mut relabelled = cluster();
    for (n, rack) in relabelled.iter_mut().zip(["a", "a", "a", "b"]) {
        n["metadata"]["labels"]["example.com/rack"] = json!(rack);
    }
    let scores = svc.scores(&nodes_args(pod(), relabelled)).await;
    assert_eq!(scores, pairs(&[("n1", 10), ("n2", 9), ("n3", 9), ("n4", 0)]));
}

/// Malformed bodies: 400 with `{"error": {code, path, message}}`, for both verbs.
#[actix_web::test]
async fn malformed_bodies_are_400_json_errors() {
    let svc = Service::new();
    let mut bad_quantity = pod();
    bad_quantity["spec"]["containers"][1]["resources"]["requests"]["memory"] = json!("1 Gi");
    let mut bad_bytes = pod();
    bad_bytes["metadata"]["annotations"]["placer.io/input-bytes"] = json!("-3");
    let mut bad_node = node("n9", Some("r1"));
    bad_node["metadata"]["labels"] = json!(["r1"]);
    let cases: Vec<(Vec<u8>, &str, &str)> = vec![
        (b"not json".to_vec(), "malformed_json", "$"),
        (br#"{"Pod": {}, "NodeNames": ["n1"]"#.to_vec(), "malformed_json", "$"),
        (b"[]".to_vec(), "invalid_field", "$"),
        (br#"{"NodeNames": ["n1"]}"#.to_vec(), "invalid_field", "Pod"),
        (br#"{"Pod": 5, "NodeNames": ["n1"]}"#.to_vec(), "invalid_field", "Pod"),
        (br#"{"Pod": {}}"#.to_vec(), "invalid_field", "$"),
        (br#"{"Pod": {}, "NodeNames": "n1"}"#.to_vec(), "invalid_field", "NodeNames"),
        (br#"{"Pod": {}, "NodeNames": [1]}"#.to_vec(), "invalid_field", "NodeNames[0]"),
        (
            br#"{"Pod": {"metadata": []}, "NodeNames": []}"#.to_vec(),
            "invalid_field",
            "Pod.metadata",
        ),
        (
            br#"{"Pod": {}, "Nodes": {"items": [{}]}}"#.to_vec(),
            "invalid_field",
            "Nodes.items[0].metadata.name",
        ),
        (
            serde_json::to_vec(&names_args(bad_quantity, &["n1"])).unwrap(),
            "invalid_field",
            r#"Pod.spec.containers[1].resources.requests["memory"]"#,
        ),
        (
            serde_json::to_vec(&names_args(bad_bytes, &["n1"])).unwrap(),
            "invalid_field",
            r#"Pod.metadata.annotations["placer.io/input-bytes"]"#,
        ),
        (
            serde_json::to_vec(&nodes_args(pod(), vec![bad_node])).unwrap(),
            "invalid_field",
            "Nodes.items[0].metadata.labels",
        ),
    ];
    for verb in ["filter", "prioritize"] {
        for (body, code, path) in &cases {
            let (status, ct, json) = svc.post(&format!("/k8s/v1/{verb}"), body.clone()).await;
            let what = String::from_utf8_lossy(body);
            assert_eq!((status, ct.as_str()), (400, "application/json"), "{what}: {json}");
            assert_eq!(json["error"]["code"], *code, "{what}: {json}");
            assert_eq!(json["error"]["path"], *path, "{what}: {json}");
            assert!(json["error"]["message"].as_str().unwrap().len() > 10, "{json}");
        }
    }
    let srv = test::init_service(app(svc.state.clone())).await;
    let res = test::call_service(&srv, TestRequest::get().uri("/k8s/v1/filter").to_request()).await;
    assert_eq!(res.status().as_u16(), 405);
    assert_eq!(res.headers().get(header::ALLOW).unwrap(), "POST");
}

/// The value of `key: value` on the first line of `text` that defines `key` (indentation and
/// list dashes aside, quotes removed).
fn yaml_value<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|line| {
        let line = line.trim_start().trim_start_matches("- ");
        let rest = line.strip_prefix(key)?.strip_prefix(':')?;
        Some(rest.trim().trim_matches('"'))
    })
}

/// examples/kube-scheduler-config.yaml: a KubeSchedulerConfiguration v1 whose extender stanza
/// has every field placer needs, and whose URLs (urlPrefix + "/" + verb) are placer's routes.
#[actix_web::test]
async fn the_example_kube_scheduler_configuration_points_at_the_routes() {
    let text = SCHEDULER_CONFIG;
    assert!(!text.contains('\t'), "YAML forbids tabs");
    assert_eq!(yaml_value(text, "apiVersion"), Some("kubescheduler.config.k8s.io/v1"));
    assert_eq!(yaml_value(text, "kind"), Some("KubeSchedulerConfiguration"));
    assert_eq!(yaml_value(text, "percentageOfNodesToScore"), Some("100"));
    assert!(text.lines().any(|l| l == "extenders:"), "a top-level extenders list");
    let weight: i64 = yaml_value(text, "weight").unwrap().parse().unwrap();
    assert!(weight > 0, "kube-scheduler requires a positive extender weight");
    assert_eq!(yaml_value(text, "nodeCacheCapable"), Some("false"));
    assert_eq!(yaml_value(text, "ignorable"), Some("true"));
    let prefix = yaml_value(text, "urlPrefix").unwrap();
    let path = prefix.split_once("://").unwrap().1.split_once('/').unwrap().1;
    let svc = Service::new();
    for verb in ["filterVerb", "prioritizeVerb"] {
        let route = format!("/{path}/{}", yaml_value(text, verb).unwrap());
        let body = serde_json::to_vec(&nodes_args(pod(), cluster())).unwrap();
        let (status, _, json) = svc.post(&route, body).await;
        assert_eq!(status, 200, "{route}: {json}");
    }
}

/// Real answers validate against the OpenAPI document's schemas (what serde writes is what
/// the document says), and the example bodies against `ExtenderArgs`.
#[actix_web::test]
async fn answers_validate_against_the_openapi_document() {
    let doc = serde_json::to_value(placer_server::openapi_document()).unwrap();
    let validator = |schema: Value| {
        let root = json!({"$schema": "https://json-schema.org/draft/2020-12/schema",
                          "components": doc["components"], "allOf": [schema]});
        jsonschema::validator_for(&root).unwrap()
    };
    let reference = |name: &str| json!({"$ref": format!("#/components/schemas/{name}")});
    let filter_result = validator(reference("ExtenderFilterResult"));
    let priorities = validator(json!({"type": "array", "items": reference("HostPriority")}));
    let args = validator(reference("ExtenderArgs"));
    let svc = Service::new();
    for body in [nodes_args(pod(), cluster()), names_args(pod(), &["n1", "n2"])] {
        assert!(args.is_valid(&body));
        let result = svc.ok("filter", &body).await;
        assert!(filter_result.is_valid(&result), "{result}");
        let list = svc.ok("prioritize", &body).await;
        assert!(priorities.is_valid(&list), "{list}");
    }
    assert!(!priorities.is_valid(&json!([{"Host": "n1", "Score": 11}])));
    for path in ["/k8s/v1/filter", "/k8s/v1/prioritize"] {
        assert!(doc["paths"][path]["post"].is_object(), "{path}");
    }
}

/// The curl example of docs/operations/kubernetes-extender.md, byte for byte: n1 holds the block,
/// n2 shares its rack.
#[actix_web::test]
async fn the_readme_example() {
    let body = r#"{
  "Pod": {"metadata": {"name": "m-0", "namespace": "etl",
          "annotations": {"placer.io/replicas": "n1", "placer.io/input-bytes": "128Mi"}}},
  "Nodes": {"items": [
    {"metadata": {"name": "n1", "labels": {"topology.kubernetes.io/rack": "r1"}}},
    {"metadata": {"name": "n2", "labels": {"topology.kubernetes.io/rack": "r1"}}},
    {"metadata": {"name": "n3", "labels": {"topology.kubernetes.io/rack": "r2"}}}]}}"#;
    let srv = test::init_service(app(Service::new().state)).await;
    // curl -d sends a form content type: accepted like any other.
    let req = TestRequest::post()
        .uri("/k8s/v1/prioritize")
        .insert_header((header::CONTENT_TYPE, "application/x-www-form-urlencoded"))
        .set_payload(body)
        .to_request();
    let res = test::call_service(&srv, req).await;
    assert_eq!(res.status().as_u16(), 200);
    let bytes = test::read_body(res).await;
    assert_eq!(
        std::str::from_utf8(&bytes).unwrap(),
        r#"[{"Host":"n1","Score":10},{"Host":"n2","Score":9},{"Host":"n3","Score":0}]"#
    );
}
