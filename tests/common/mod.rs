//! Shared builders for the cross-crate tests: small v1 snapshots written as JSON, the way a
//! cluster master would send them (DESIGN.md §Wire schema v1).
#![allow(dead_code, clippy::expect_used)]

use placer_models::PlaceRequest;
use serde_json::{json, Value};

/// A node spec: (id, rack, map_slots, reduce_slots).
pub type NodeSpec<'a> = (&'a str, &'a str, u32, u32);

/// Builds a snapshot from racks, nodes, pending tasks and running tasks (JSON values), with
/// one pool `p` and jobs `j1`, `j2`, `bg`, and the given algorithm.
pub fn snapshot(
    racks: &[&str],
    nodes: &[NodeSpec<'_>],
    pending: Vec<Value>,
    running: Vec<Value>,
    algorithm: &str,
) -> Value {
    json!({
        "schema_version": 1,
        "now_s": 0.0,
        "cluster": {
            "racks": racks.iter().map(|r| json!({"id": r})).collect::<Vec<_>>(),
            "nodes": nodes.iter().map(|(id, rack, m, r)| json!({
                "id": id, "rack": rack, "map_slots": m, "reduce_slots": r
            })).collect::<Vec<_>>(),
            "network": {"rack_mbps": 1000.0, "cross_rack_mbps": 100.0}
        },
        "pools": [{"id": "p"}],
        "jobs": [{"id": "j1", "pool": "p"}, {"id": "j2", "pool": "p"}, {"id": "bg", "pool": "p"}],
        "pending": pending,
        "running": running,
        "policy": {"algorithm": algorithm}
    })
}

/// A pending map task of job j1.
pub fn map(id: &str, bytes: u64, replicas: &[&str]) -> Value {
    json!({"id": id, "job": "j1", "kind": "map", "input_bytes": bytes, "replicas": replicas})
}

/// A running map task of job bg.
pub fn busy(id: &str, node: &str) -> Value {
    json!({"id": id, "job": "bg", "kind": "map", "node": node, "started_s": 0.0})
}

/// Parses a JSON value as a request (panics on a builder bug).
pub fn request(v: &Value) -> PlaceRequest {
    serde_json::from_value(v.clone()).expect("test snapshot parses")
}

/// 128 MiB, the default HDFS block of the seeds' era.
pub const BLOCK: u64 = 128 << 20;
