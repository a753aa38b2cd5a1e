//! placer's test fixtures: v1 snapshots (docs/wire-schema.md) built with a fluent builder,
//! and workloads for the what-if simulator (docs/simulator.md), shared by the tests of
//! every crate instead of a copy of the fixtures in each.
//!
//! ```
//! use placer_testkit::{Job, Map, Node, Pool, Snapshot, BLOCK};
//!
//! let snapshot = Snapshot::new()
//!     .rack("r1")
//!     .node(Node::new("n1").rack("r1").map_slots(4).reduce_slots(2))
//!     .node(Node::new("n3").rack("r1").map_slots(4))
//!     .pool(Pool::new("prod").weight(2.0))
//!     .job(Job::new("j1").pool("prod"))
//!     .map(Map::new("j1-m-0").job("j1").input_bytes(BLOCK).replicas(&["n3"]))
//!     .algorithm("lsap");
//! assert_eq!(snapshot.json()["pending"][0]["replicas"], serde_json::json!(["n3"]));
//! let request = snapshot.build()?;
//! assert_eq!((request.cluster.nodes.len(), request.pending.len()), (2, 1));
//! # Ok::<(), placer_models::ModelError>(())
//! ```

pub mod browser;
mod snapshot;
pub mod workload;

pub use snapshot::{parse, Job, Map, Node, Pool, Reduce, Running, Snapshot, BLOCK};

use std::path::PathBuf;

/// The path of a shipped trace or topology in `datasets/tests/data` (its README names the
/// source and licence of each file).
pub fn data(name: &str) -> PathBuf {
    [env!("CARGO_MANIFEST_DIR"), "..", "datasets", "tests", "data", name].iter().collect()
}
