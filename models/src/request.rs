//! The v1 snapshot (`POST /place` body): cluster, pools, jobs, pending and running tasks
//! (DESIGN.md §Wire schema v1; the task/slot model of lsap-sched §3.1 and FAIR §2).
//!
//! Units: times in seconds (`now_s`, `submit_s`, `started_s`), sizes in bytes, bandwidths in
//! Mbit/s (10⁶ bit/s). Optional fields default as documented on each field. Unknown fields are
//! ignored, so that a master may echo per-policy state written by a newer build.

use crate::ids::{JobId, NodeId, PoolId, RackId, TaskId};
use crate::policy::Policy;
use serde::{Deserialize, Serialize};

/// One scheduling epoch's snapshot of the cluster.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlaceRequest {
    /// Must be 1.
    pub schema_version: u64,
    /// The master's clock at the snapshot, in seconds (≥ 0); default 0.
    #[serde(default)]
    pub now_s: f64,
    /// Racks, nodes and network.
    pub cluster: Cluster,
    /// Pools; default none.
    #[serde(default)]
    pub pools: Vec<Pool>,
    /// Jobs; each names a pool. Default none.
    #[serde(default)]
    pub jobs: Vec<Job>,
    /// Tasks waiting for a slot; default none.
    #[serde(default)]
    pub pending: Vec<PendingTask>,
    /// Tasks holding a slot now; default none.
    #[serde(default)]
    pub running: Vec<RunningTask>,
    /// The algorithm and engine; default `lsap` on `auto`.
    #[serde(default)]
    pub policy: Policy,
}

/// The physical cluster.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Cluster {
    /// Racks; default none.
    #[serde(default)]
    pub racks: Vec<Rack>,
    /// Nodes, each in one rack; default none (an empty cluster is valid).
    #[serde(default)]
    pub nodes: Vec<Node>,
    /// Bandwidths; default 1000 Mbit/s in a rack, 100 Mbit/s across racks.
    #[serde(default)]
    pub network: Network,
}

/// A rack.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rack {
    /// Unique, non-empty.
    pub id: RackId,
}

/// A worker node with map and reduce slots (Hadoop 1 TaskTracker).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// Unique, non-empty.
    pub id: NodeId,
    /// The node's rack; must be listed in `cluster.racks`.
    pub rack: RackId,
    /// Map slots (≥ 0). Free map slots = `map_slots` − running map tasks here.
    #[serde(default)]
    pub map_slots: u32,
    /// Reduce slots (≥ 0).
    #[serde(default)]
    pub reduce_slots: u32,
    /// Multi-resource capacity (RAS); optional, unused by the locality policies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Resources>,
}

/// A node's capacity per resource, in normalised units (1.0 = one node's worth). All ≥ 0.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Resources {
    /// CPU.
    #[serde(default)]
    pub cpu: f64,
    /// Memory.
    #[serde(default)]
    pub mem: f64,
    /// Disk/network IO.
    #[serde(default)]
    pub io: f64,
}

/// Available bandwidths in Mbit/s (all > 0, finite).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Network {
    /// Between two nodes of the same rack; default 1000.
    #[serde(default = "default_rack_mbps")]
    pub rack_mbps: f64,
    /// Between nodes of different racks; default 100.
    #[serde(default = "default_cross_rack_mbps")]
    pub cross_rack_mbps: f64,
    /// Per rack-pair overrides. A pair applies to data read from a node of `from` by a node of
    /// `to`; when only the reverse pair is listed it applies both ways. `from == to` overrides
    /// `rack_mbps` inside that rack. Default none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rack_pairs: Vec<RackPair>,
}

fn default_rack_mbps() -> f64 {
    1000.0
}

fn default_cross_rack_mbps() -> f64 {
    100.0
}

impl Default for Network {
    fn default() -> Self {
        Self {
            rack_mbps: default_rack_mbps(),
            cross_rack_mbps: default_cross_rack_mbps(),
            rack_pairs: Vec::new(),
        }
    }
}

/// A bandwidth override between two racks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RackPair {
    /// The rack the data is read from.
    pub from: RackId,
    /// The rack of the reading node.
    pub to: RackId,
    /// Bandwidth in Mbit/s (> 0).
    pub mbps: f64,
}

/// How a pool divides its share among its jobs (Hadoop Fair Scheduler design doc §4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PoolMode {
    /// Jobs share the pool's slots fairly.
    #[default]
    Fair,
    /// Jobs run in submit order.
    Fifo,
}

/// A pool (fair scheduler): weight and min shares.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pool {
    /// Unique, non-empty.
    pub id: PoolId,
    /// Weight (≥ 0, finite); default 1.
    #[serde(default = "default_weight")]
    pub weight: f64,
    /// Guaranteed map slots (≥ 0, finite); default 0.
    #[serde(default)]
    pub min_map_share: f64,
    /// Guaranteed reduce slots (≥ 0, finite); default 0.
    #[serde(default)]
    pub min_reduce_share: f64,
    /// `fair` (default) or `fifo`.
    #[serde(default)]
    pub mode: PoolMode,
}

fn default_weight() -> f64 {
    1.0
}

/// A job's priority; acts as a weight 2^level inside its pool (level −2 … 2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// Level −2.
    VeryLow,
    /// Level −1.
    Low,
    /// Level 0 (default).
    #[default]
    Normal,
    /// Level 1.
    High,
    /// Level 2.
    VeryHigh,
}

/// A job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// Unique, non-empty.
    pub id: JobId,
    /// The job's pool; must be listed in `pools`.
    pub pool: PoolId,
    /// Submit time in seconds (≥ 0); default 0.
    #[serde(default)]
    pub submit_s: f64,
    /// Priority; default `normal`.
    #[serde(default)]
    pub priority: Priority,
}

/// Map or reduce.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskKind {
    /// Reads one input block; placed on map slots.
    Map,
    /// Pulls intermediate data from map outputs; placed on reduce slots.
    Reduce,
}

impl TaskKind {
    /// `map` or `reduce`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Map => "map",
            Self::Reduce => "reduce",
        }
    }
}

/// A task waiting for a slot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PendingTask {
    /// Unique among pending and running tasks, non-empty.
    pub id: TaskId,
    /// The task's job; must be listed in `jobs`.
    pub job: JobId,
    /// `map` or `reduce`.
    pub kind: TaskKind,
    /// Map input size in bytes; default 0. Maps only.
    #[serde(default)]
    pub input_bytes: u64,
    /// Nodes holding a replica of the map's input block, distinct; default none (no locality
    /// preference: the task costs 0 everywhere). Maps only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replicas: Vec<NodeId>,
    /// Where a reduce's shuffle input lives; default none. Reduces only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shuffle: Vec<ShuffleSource>,
}

/// Bytes a reduce must pull from one node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShuffleSource {
    /// The source node.
    pub node: NodeId,
    /// Bytes to pull from it.
    pub bytes: u64,
}

/// A task holding a slot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunningTask {
    /// Unique among pending and running tasks, non-empty.
    pub id: TaskId,
    /// The task's job; must be listed in `jobs`.
    pub job: JobId,
    /// `map` or `reduce`: which slot kind it holds.
    pub kind: TaskKind,
    /// Where it runs.
    pub node: NodeId,
    /// When it started, in seconds (≥ 0); optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_s: Option<f64>,
}
