//! The extender's part of the OpenAPI document (OpenAPI 3.1; `k8s.io/kube-scheduler/extender/v1`
//! types.go): the two operations and the wire types with their Go field names, nested under
//! `/k8s/v1` by `crate::openapi`. Documentation only: [`super::args`] reads the body and
//! [`super::wire`] writes the answers.
#![allow(dead_code)] // the structs and functions only carry the schema and path attributes

use crate::openapi::ErrorResponse;
use std::collections::BTreeMap;
use utoipa::{OpenApi, ToSchema};

/// `ExtenderArgs`: the pod being scheduled and its candidate nodes. Keys are matched as Go's
/// encoding/json matches untagged fields: case-insensitively (`pod` fills `Pod`); unknown keys
/// are ignored; `null` is absent. Exactly one of `Nodes` and `NodeNames` is sent by
/// kube-scheduler (`Nodes` wins if both are).
#[derive(ToSchema)]
pub(crate) struct ExtenderArgs {
    /// The pod (a `v1.Pod`). Read: `metadata.name`, `metadata.namespace`, annotations
    /// `placer.io/replicas` (comma-separated node names holding its input block),
    /// `placer.io/input-bytes` (the block's size, a quantity; default 128Mi when replicas are
    /// named) and `placer.io/pool` (else the namespace); `spec.containers[]`,
    /// `spec.initContainers[]` (`restartPolicy: Always` = sidecar) `resources.requests` cpu and
    /// memory, and `spec.overhead`.
    #[schema(rename = "Pod", value_type = Object)]
    pod: (),
    /// The candidate nodes (a `v1.NodeList`) when the extender is not `nodeCacheCapable`.
    /// Read per item: `metadata.name`, `metadata.labels` (the rack label) and
    /// `status.allocatable` cpu and memory.
    #[schema(rename = "Nodes", value_type = Option<Object>)]
    nodes: (),
    /// The candidate node names when the extender is `nodeCacheCapable`.
    #[schema(rename = "NodeNames", value_type = Option<Vec<String>>)]
    node_names: (),
}

/// `ExtenderFilterResult`: the nodes that pass, and why the others fail. Every key is written.
#[derive(ToSchema)]
pub(crate) struct ExtenderFilterResult {
    /// `Nodes` mode: the `NodeList` as sent, with only the passing items, unchanged; else null.
    #[schema(rename = "Nodes", value_type = Option<Object>)]
    nodes: (),
    /// `NodeNames` mode: the passing names; else null.
    #[schema(rename = "NodeNames")]
    node_names: Option<Vec<String>>,
    /// Failed nodes that preemption could help: always empty (placer has no such reason).
    #[schema(rename = "FailedNodes")]
    failed_nodes: BTreeMap<String, String>,
    /// Failed nodes that preemption cannot help, with the reason: the pod's cpu or memory
    /// request exceeds the node's allocatable ("Insufficient cpu: ..."), or its pool is at its
    /// fair share in the latest answered `POST /place` epoch ("pool P is at or over its fair
    /// share: ...").
    #[schema(rename = "FailedAndUnresolvableNodes")]
    failed_and_unresolvable_nodes: BTreeMap<String, String>,
    /// Always empty: a failed call is an HTTP error instead.
    #[schema(rename = "Error")]
    error: String,
}

/// One entry of `HostPriorityList`.
#[derive(ToSchema)]
pub(crate) struct HostPriority {
    /// The node.
    #[schema(rename = "Host")]
    host: String,
    /// round(10 · (1 − cost / worst)), 0..=10, higher is better: the pod's locality cost on the
    /// node (placer's bandwidth-aware cost, in seconds) against its cost on a rack without
    /// replicas; 10 for every node when that is 0.
    #[schema(rename = "Score", minimum = 0, maximum = 10)]
    score: i64,
}

/// Filter the candidate nodes for a pod.
///
/// kube-scheduler's extender `filterVerb` (`urlPrefix` + `/filter`). Nodes whose allocatable
/// cpu or memory cannot hold the pod's effective request fail (`Nodes` mode), and every node
/// fails while the pod's pool is held at its fair share by the latest answered epoch.
#[utoipa::path(
    post,
    path = "/filter",
    tag = "kubernetes",
    operation_id = "k8s_filter",
    request_body(content = ExtenderArgs, content_type = "application/json", examples(
        ("nodes" = (summary = "Node objects (README, \"Kubernetes scheduler extender\")",
                    value = json!({"Pod": {"metadata": {"name": "m-0", "namespace": "etl", "annotations": {
                        "placer.io/replicas": "n1", "placer.io/input-bytes": "128Mi"}},
                        "spec": {"containers": [{"name": "map",
                            "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}]}},
                    "Nodes": {"apiVersion": "v1", "kind": "NodeList", "items": [
                        {"metadata": {"name": "n1",
                            "labels": {"topology.kubernetes.io/rack": "r1"}},
                         "status": {"allocatable": {"cpu": "4", "memory": "16Gi"}}},
                        {"metadata": {"name": "n2",
                            "labels": {"topology.kubernetes.io/rack": "r1"}},
                         "status": {"allocatable": {"cpu": "250m", "memory": "16Gi"}}},
                        {"metadata": {"name": "n3",
                            "labels": {"topology.kubernetes.io/rack": "r2"}},
                         "status": {"allocatable": {"cpu": "4", "memory": "16Gi"}}}]}}))),
        ("node_names" = (summary = "Names only (`nodeCacheCapable: true`)",
                         value = json!({"Pod": {"metadata": {"name": "m-1", "namespace": "etl", "annotations": {
                        "placer.io/replicas": "n2,n3"}}},
                        "NodeNames": ["n1", "n2", "n3"]}))),
    )),
    responses(
        (status = 200, description = "The passing nodes and the reasons of the others.",
         body = ExtenderFilterResult, content_type = "application/json"),
        (status = 400, description = "Not an `ExtenderArgs` body.", body = ErrorResponse,
         content_type = "application/json"),
        (status = 408, description = "The body did not arrive within `--body-timeout-ms`.",
         body = ErrorResponse, content_type = "application/json"),
        (status = 413, description = "The (decompressed) body exceeds `--body-limit`, or the \
                                      call's estimated memory the whole `--max-memory`.",
         body = ErrorResponse, content_type = "application/json"),
        (status = 415, description = "A `Content-Encoding` other than `gzip` or `identity`.",
         body = ErrorResponse, content_type = "application/json"),
        (status = 503, description = "Overloaded (no permit or memory within the queue wait), \
                                      shutting down, or past the server's `--deadline-ms`: \
                                      retry after the `Retry-After` seconds.",
         body = ErrorResponse, content_type = "application/json",
         headers(("Retry-After" = u32, description = "Seconds to wait before retrying."))),
    )
)]
fn filter() {}

/// Score the candidate nodes for a pod by data locality.
///
/// kube-scheduler's extender `prioritizeVerb` (`urlPrefix` + `/prioritize`). Each node gets
/// 0..10 from placer's bandwidth-aware locality cost of reading the pod's input block there.
#[utoipa::path(
    post,
    path = "/prioritize",
    tag = "kubernetes",
    operation_id = "k8s_prioritize",
    request_body(content = ExtenderArgs, content_type = "application/json", examples(
        ("nodes" = (summary = "Node objects (README, \"Kubernetes scheduler extender\")",
                    value = json!({"Pod": {"metadata": {"name": "m-0", "namespace": "etl", "annotations": {
                        "placer.io/replicas": "n1", "placer.io/input-bytes": "128Mi"}},
                        "spec": {"containers": [{"name": "map",
                            "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}]}},
                    "Nodes": {"apiVersion": "v1", "kind": "NodeList", "items": [
                        {"metadata": {"name": "n1",
                            "labels": {"topology.kubernetes.io/rack": "r1"}},
                         "status": {"allocatable": {"cpu": "4", "memory": "16Gi"}}},
                        {"metadata": {"name": "n2",
                            "labels": {"topology.kubernetes.io/rack": "r1"}},
                         "status": {"allocatable": {"cpu": "250m", "memory": "16Gi"}}},
                        {"metadata": {"name": "n3",
                            "labels": {"topology.kubernetes.io/rack": "r2"}},
                         "status": {"allocatable": {"cpu": "4", "memory": "16Gi"}}}]}}))),
        ("node_names" = (summary = "Names only (`nodeCacheCapable: true`)",
                         value = json!({"Pod": {"metadata": {"name": "m-1", "namespace": "etl", "annotations": {
                        "placer.io/replicas": "n2,n3"}}},
                        "NodeNames": ["n1", "n2", "n3"]}))),
    )),
    responses(
        (status = 200, description = "`HostPriorityList`: a score per candidate, in the order \
                                      sent.",
         body = Vec<HostPriority>, content_type = "application/json"),
        (status = 400, description = "Not an `ExtenderArgs` body.", body = ErrorResponse,
         content_type = "application/json"),
        (status = 408, description = "The body did not arrive within `--body-timeout-ms`.",
         body = ErrorResponse, content_type = "application/json"),
        (status = 413, description = "The (decompressed) body exceeds `--body-limit`, or the \
                                      call's estimated memory the whole `--max-memory`.",
         body = ErrorResponse, content_type = "application/json"),
        (status = 415, description = "A `Content-Encoding` other than `gzip` or `identity`.",
         body = ErrorResponse, content_type = "application/json"),
        (status = 503, description = "Overloaded (no permit or memory within the queue wait), \
                                      shutting down, or past the server's `--deadline-ms`: \
                                      retry after the `Retry-After` seconds.",
         body = ErrorResponse, content_type = "application/json",
         headers(("Retry-After" = u32, description = "Seconds to wait before retrying."))),
    )
)]
fn prioritize() {}

/// The extender's operations and schemas, nested under `/k8s/v1`.
#[derive(OpenApi)]
#[openapi(
    paths(filter, prioritize),
    components(schemas(ExtenderArgs, ExtenderFilterResult, HostPriority))
)]
pub(crate) struct ExtenderApi;
