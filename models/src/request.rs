//! The v1 snapshot (`POST /place` body): cluster, pools, jobs, pending and running tasks
//! (docs/wire-schema.md; the task/slot model of lsap-sched §3.1 and FAIR §2).
//!
//! Units: times in seconds (`now_s`, `submit_s`, `started_s`), sizes in bytes, bandwidths in
//! Mbit/s (10⁶ bit/s). Optional fields default as documented on each field. Unknown fields are
//! ignored, so that a master may echo per-policy state written by a newer build.

use crate::ids::{BlockId, JobId, NodeId, PoolId, RackId, TaskId, UserId};
use crate::policy::Policy;
use crate::replicas::Replicas;
use crate::state::{JobState, StarvationState};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One scheduling epoch's snapshot of the cluster. `Default` is an empty v1 snapshot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PlaceRequest {
    /// Must be 1.
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 1))]
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
    /// Users with a running-job limit (Hadoop Fair Scheduler design doc §3.4); default none.
    /// A job's user is `jobs[].user`; users not listed here are limited only by
    /// `policy.user_max_running_jobs`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub users: Vec<User>,
    /// The algorithm and engine; default `lsap` on `auto`.
    #[serde(default)]
    pub policy: Policy,
}

impl Default for PlaceRequest {
    fn default() -> Self {
        Self {
            schema_version: u64::from(crate::SCHEMA_VERSION),
            now_s: 0.0,
            cluster: Cluster::default(),
            pools: Vec::new(),
            jobs: Vec::new(),
            pending: Vec::new(),
            running: Vec::new(),
            users: Vec::new(),
            policy: Policy::default(),
        }
    }
}

/// The physical cluster.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(default))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Rack {
    /// Unique, non-empty.
    pub id: RackId,
    /// Capacity of the rack's link to the core (its uplink, and its downlink), Mbit/s (> 0):
    /// the "cross-rack bandwidth available" that ShuffleWatcher's NetSat compares measured
    /// traffic against (§3.1; §4.1: 500 Mbit/s per sub-cluster). Optional; unset = the rack's
    /// node count × `cluster.network.cross_rack_mbps` (every node at its bisection bandwidth).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uplink_mbps: Option<f64>,
    /// Cross-rack traffic through the rack's uplink or downlink as the master measured it over
    /// its last interval (shuffle, remote map reads and reduce output writes: ShuffleWatcher
    /// §3.1's NetSat input), Mbit/s (≥ 0), the larger of the two directions. Optional; unset =
    /// 0 (not saturated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross_rack_traffic_mbps: Option<f64>,
}

impl Rack {
    /// A rack with no ShuffleWatcher measurements.
    pub fn new(id: impl Into<RackId>) -> Self {
        Self { id: id.into(), uplink_mbps: None, cross_rack_traffic_mbps: None }
    }
}

/// A worker node with map and reduce slots (Hadoop 1 TaskTracker).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
    /// Multi-resource capacities (RAS, DRF) and free intermediate space (`resources.disk`,
    /// FAIR §5.4); optional. The locality policies read only `disk`. Under the
    /// multi-resource policies a node with capacities hosts any mix of tasks that fits them;
    /// its `map_slots` / `reduce_slots` still cap it when non-zero, and 0 there means "no slot
    /// cap", since RAS makes its job slots from resources (§3.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Resources>,
    /// Copy-compute splitting (FAIR §5.2, CPAC): how many reducers may run on the node at all,
    /// copying or computing. When set it replaces `reduce_slots` as the node's reducer
    /// capacity (free reduce slots = `max_reducers` − running reduces); the paper sets it
    /// "several times higher" than the compute slots. Optional; unset = no CPAC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_reducers: Option<u32>,
    /// CPAC: how many reducers may compute at once (FAIR §5.2 `maxComputing`), and so how many
    /// copy-phase reducers one job may have on this node. Default `reduce_slots`. When either
    /// CPAC field is set, a reduce is placed on the node only while its job has fewer than
    /// `max_computing` copy-phase reducers there (new reducers start copying).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_computing: Option<u32>,
    /// The node's map slots as configured, when `map_slots` carries only part of them. A master
    /// that answers one node's heartbeat (Hadoop 1's TaskTrackers, FAIR §2) offers that node's
    /// free slots alone: every other node goes out with `map_slots` = its running maps, and this
    /// field says what the node really has. Capacities count it (the pools' fair shares,
    /// ShuffleWatcher's reduce room per rack and slots per user); placement counts
    /// `map_slots`. Optional; unset = `map_slots`. Must be ≥ `map_slots`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configured_map_slots: Option<u32>,
    /// The reduce slots as configured, as `configured_map_slots` for maps. Under CPAC
    /// (`max_reducers`) the reducer capacity is `max_reducers` whatever this says. Must be ≥
    /// `reduce_slots`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configured_reduce_slots: Option<u32>,
    /// The node's block (a group of racks under one spine switch), the third topology level
    /// of `jobs[].topology` (`level: block`). Optional, non-empty; a node without one is in
    /// no block, so a job that requires a block domain is never placed on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<BlockId>,
}

impl Node {
    /// The node's free space for map outputs in bytes (`resources.disk`), or `None`:
    /// unlimited.
    pub fn disk(&self) -> Option<u64> {
        self.resources.as_ref().and_then(|r| r.disk)
    }

    /// Whether the node lists any packing resource (`resources` other than `disk`).
    pub fn has_capacities(&self) -> bool {
        self.resources.as_ref().is_some_and(|r| !r.amounts.is_empty())
    }

    /// Whether copy-compute splitting admission applies on this node.
    pub fn cpac(&self) -> bool {
        self.max_reducers.is_some() || self.max_computing.is_some()
    }

    /// Reducers the node may hold: `max_reducers` under CPAC, else `reduce_slots`.
    pub fn reducer_capacity(&self) -> u32 {
        self.max_reducers.unwrap_or(self.reduce_slots)
    }

    /// Slots of a kind: `map_slots`, or [`Node::reducer_capacity`].
    pub fn slots(&self, kind: TaskKind) -> u32 {
        match kind {
            TaskKind::Map => self.map_slots,
            TaskKind::Reduce => self.reducer_capacity(),
        }
    }

    /// Slots of a kind as configured (what capacities and shares count): the configured
    /// count when the master sent one, else [`Node::slots`]. Example: a node of 4 map slots
    /// running 1 map, sent as `map_slots: 1, configured_map_slots: 4` on another node's
    /// heartbeat, has 0 free map slots and a capacity of 4.
    pub fn configured_slots(&self, kind: TaskKind) -> u32 {
        match kind {
            TaskKind::Map => self.configured_map_slots.unwrap_or(self.map_slots),
            TaskKind::Reduce => {
                self.max_reducers.or(self.configured_reduce_slots).unwrap_or(self.reduce_slots)
            }
        }
    }
}

/// Amounts per resource name (RAS §3.1's Ω and Γ, DRF's demand vectors): free-form names
/// (`cpu`, `mem`, `io`, `gpu`, …) mapped to finite amounts ≥ 0 in the node's own units. A
/// sorted map, so that every iteration over it is deterministic.
pub type Amounts = BTreeMap<String, f64>;

/// A node's capacities (RAS Ω_tt, DRF) and its free intermediate space.
///
/// Every name but `disk` is a resource the multi-resource policies (`ras`, `drf`,
/// `lsap_ras`) pack tasks into: a node hosts any mix of tasks whose summed demands fit its
/// amounts (RAS's job slots). A resource a node does not list is one it has none of. The
/// locality policies ignore them. `disk` keeps its older meaning and is not a packing
/// resource.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Resources {
    /// Free space for map outputs (intermediate data) in bytes, an integer ≥ 0 (FAIR §5.4:
    /// "the node will refuse to admit tasks that are expected to overflow its disk"). A map
    /// is placed on the node only while the `output_bytes` of the maps placed there in this
    /// answer fit in it. Optional; unset = unlimited. Reserved: not a packing resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk: Option<u64>,
    /// Every other name: the node's capacity of that resource (finite, ≥ 0).
    #[serde(flatten)]
    #[cfg_attr(feature = "openapi", schema(value_type = BTreeMap<String, f64>))]
    pub amounts: Amounts,
}

impl Resources {
    /// Capacities only, no `disk`.
    pub fn of(amounts: impl IntoIterator<Item = (String, f64)>) -> Self {
        Self { disk: None, amounts: amounts.into_iter().collect() }
    }
}

/// A job's per-task demand in each phase (RAS Table 2), in the nodes' units. A phase left
/// out demands nothing.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JobProfile {
    /// A map task's demand.
    #[serde(default, skip_serializing_if = "Amounts::is_empty")]
    #[cfg_attr(feature = "openapi", schema(value_type = BTreeMap<String, f64>))]
    pub map: Amounts,
    /// A reduce task's demand while it shuffles (copies map outputs): while the job's map
    /// phase is not over, and under copy-compute splitting while `phase` is `copy`.
    #[serde(default, skip_serializing_if = "Amounts::is_empty")]
    #[cfg_attr(feature = "openapi", schema(value_type = BTreeMap<String, f64>))]
    pub shuffle: Amounts,
    /// A reduce task's demand once the map phase is over (RAS Alg. 1 line 27's switch).
    #[serde(default, skip_serializing_if = "Amounts::is_empty")]
    #[cfg_attr(feature = "openapi", schema(value_type = BTreeMap<String, f64>))]
    pub reduce: Amounts,
}

/// Available bandwidths in Mbit/s (all > 0, finite).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(default))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Pool {
    /// Unique, non-empty.
    pub id: PoolId,
    /// Weight (≥ 0, finite); default 1.
    #[serde(default = "default_weight")]
    #[cfg_attr(feature = "openapi", schema(default = 1.0))]
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
    /// Min-share preemption timeout in seconds (design doc §3.3, FAIR §3.2 `Tmin`): a pool
    /// below min(min share, demand) of a kind for longer than this kills tasks of
    /// over-scheduled pools. Optional; unset = never preempts for its min share.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_share_timeout_s: Option<f64>,
    /// Fair-share preemption timeout in seconds (design doc §3.3, `Tfair`): a pool below half
    /// of min(fair share, demand) for longer than this preempts up to its fair share.
    /// Optional; unset = never preempts for its fair share.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fair_share_timeout_s: Option<f64>,
    /// Running-job limit of the pool (design doc §3.4); optional, unset = unlimited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_running_jobs: Option<u32>,
    /// Starvation clock echoed from the previous answer's `pools[].starvation` (the service is
    /// stateless). Omitted = the pool was last satisfied at `now_s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starvation: Option<StarvationState>,
}

fn default_weight() -> f64 {
    1.0
}

impl Default for Pool {
    /// Weight 1, no min shares, `fair` mode, no timeouts or limits.
    fn default() -> Self {
        Self {
            id: PoolId::default(),
            weight: default_weight(),
            min_map_share: 0.0,
            min_reduce_share: 0.0,
            mode: PoolMode::Fair,
            min_share_timeout_s: None,
            fair_share_timeout_s: None,
            max_running_jobs: None,
            starvation: None,
        }
    }
}

/// A job's priority; acts as a weight 2^level inside its pool (level −2 … 2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
    /// The submitting user, for per-user running-job limits; optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<UserId>,
    /// This job's node-locality wait T1 in seconds, overriding `policy.locality_delay_node_s`
    /// (IO-rate biasing, FAIR §4.3: lower waits for CPU-bound jobs). Optional, ≥ 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locality_delay_node_s: Option<f64>,
    /// This job's rack-locality wait T2 in seconds, overriding `policy.locality_delay_rack_s`.
    /// Optional, ≥ 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locality_delay_rack_s: Option<f64>,
    /// ShuffleInputRatio (ShuffleWatcher §3.1): the job's shuffle bytes over its map input
    /// bytes (finite, ≥ 0). The master starts it at 1.0 and updates it as maps complete (map
    /// output so far / map input so far), or the user gives it. Optional; unset = 1.0. Above
    /// 1.0 the job is Shuffle-heavy; at most `policy.shuffle_light_ratio` it is Shuffle-light.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shuffle_input_ratio: Option<f64>,
    /// How many map tasks the job has in all (≥ `maps_done`). Optional; unset = its maps in
    /// this snapshot (done + running + pending). SARP's "fraction of Maps completed" (§3.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maps_total: Option<u32>,
    /// How many of its maps have completed. Optional; unset = 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maps_done: Option<u32>,
    /// How many reduce tasks the job has in all, including those not pending yet (SARP's
    /// NumReduces, §3.3). Optional; unset = its reduces in this snapshot (running + pending).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reduces_total: Option<u32>,
    /// Per-task resource demands per phase (RAS Table 2); `pending[].demand` and
    /// `running[].demand` override it task by task. Optional; unset = the job's tasks demand
    /// nothing and only slots (if any) limit them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<JobProfile>,
    /// Completion-time goal, absolute, in the snapshot's clock (s, like `now_s`; RAS §3.2's
    /// T_goal). Optional; unset = no goal (RAS Exp. 1's "highly relaxed" goal: s_req = 1).
    /// The jobs with goals are planned earliest goal first (placer's goal plan, which departs
    /// from RAS eq. 2's even spread); a goal at or before `now_s` is already missed, and such a
    /// job uses only what the others can spare.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal_s: Option<f64>,
    /// The observed mean length of the job's map tasks, s (> 0, finite; RAS §3.2's Job Status
    /// Updater). With `goal_s` it gives the job's work, maps remaining · `mean_map_s`, in
    /// placer's goal plan (the share of the cluster the job needs now, s_req), where maps
    /// remaining = `maps_total` − `maps_done` when the master gives them, else the job's
    /// pending and running maps in the snapshot. Optional; unset = the longest the job's
    /// running maps have run (`running[].started_s`), else 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_map_s: Option<f64>,
    /// All-or-nothing placement (KEP-4671's PodGroup, Volcano's `minMember`): the job runs
    /// only with at least `min_member` of its tasks running together, counting those already
    /// running; an answer never starts some of its pending tasks while fewer would run. Its
    /// tasks not started for this wait with reason `gang_incomplete`. Optional; unset = no
    /// gang. Honoured by `lsap_quota`, `drf`, `ras`, `lsap_ras` and the Kueue baselines
    /// (`kueue_best_fit`, `kueue_least_free`); ignored by `lsap_quota_no_gang`; 422
    /// `unsupported_feature` under the others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gang: Option<Gang>,
    /// Keep the job's tasks inside one topology domain (a node, a rack or a block): Kueue's
    /// `podset-required-topology` / `podset-preferred-topology`. Optional; unset = anywhere.
    /// Honoured by `lsap_quota`, `drf`, `ras`, `lsap_ras` and the Kueue baselines
    /// (`kueue_best_fit`, `kueue_least_free`); ignored by `lsap_quota_no_gang`; 422
    /// `unsupported_feature` under the others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology: Option<Topology>,
    /// What the policies echo for this job (`delay`, `shuffle_watcher`, …): the previous
    /// answer's `jobs[]` keys of those names, sent back verbatim. Each key is read and checked
    /// by the policy that owns it; omitted = that policy's initial state.
    #[serde(flatten)]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub state: JobState,
}

impl<'de> Deserialize<'de> for Job {
    /// One pass over the object: the fields above parsed in place (a wrong type has its path,
    /// `jobs[3].submit_s`), every other key kept as its JSON text in [`Job::state`].
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::{Error, MapAccess, Visitor};
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Job;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a job object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Job, A::Error> {
                fn once<T, E: Error>(
                    slot: &mut Option<T>,
                    v: T,
                    key: &'static str,
                ) -> Result<(), E> {
                    match slot.replace(v) {
                        None => Ok(()),
                        Some(_) => Err(E::duplicate_field(key)),
                    }
                }
                let (mut id, mut pool, mut submit_s, mut priority) = (None, None, None, None);
                let mut job = Job::default();
                // An `Option` field given twice, or given `null` then again, is a duplicate.
                let mut seen = [false; 12];
                macro_rules! optional {
                    ($i:expr, $field:ident, $key:literal) => {{
                        if std::mem::replace(&mut seen[$i], true) {
                            return Err(A::Error::duplicate_field($key));
                        }
                        job.$field = map.next_value()?;
                    }};
                }
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    match &*key {
                        "id" => once(&mut id, map.next_value()?, "id")?,
                        "pool" => once(&mut pool, map.next_value()?, "pool")?,
                        "submit_s" => once(&mut submit_s, map.next_value()?, "submit_s")?,
                        "priority" => once(&mut priority, map.next_value()?, "priority")?,
                        "user" => optional!(0, user, "user"),
                        "locality_delay_node_s" => {
                            optional!(1, locality_delay_node_s, "locality_delay_node_s")
                        }
                        "locality_delay_rack_s" => {
                            optional!(2, locality_delay_rack_s, "locality_delay_rack_s")
                        }
                        "shuffle_input_ratio" => {
                            optional!(3, shuffle_input_ratio, "shuffle_input_ratio")
                        }
                        "maps_total" => optional!(4, maps_total, "maps_total"),
                        "maps_done" => optional!(5, maps_done, "maps_done"),
                        "reduces_total" => optional!(6, reduces_total, "reduces_total"),
                        "profile" => optional!(7, profile, "profile"),
                        "goal_s" => optional!(8, goal_s, "goal_s"),
                        "mean_map_s" => optional!(9, mean_map_s, "mean_map_s"),
                        "gang" => optional!(10, gang, "gang"),
                        "topology" => optional!(11, topology, "topology"),
                        other => {
                            let raw: Box<serde_json::value::RawValue> = map.next_value()?;
                            if !job.state.insert_new(other.to_owned(), raw) {
                                return Err(A::Error::custom(format_args!(
                                    "duplicate field `{other}`"
                                )));
                            }
                        }
                    }
                }
                job.id = id.ok_or_else(|| A::Error::missing_field("id"))?;
                job.pool = pool.ok_or_else(|| A::Error::missing_field("pool"))?;
                job.submit_s = submit_s.unwrap_or_default();
                job.priority = priority.unwrap_or_default();
                Ok(job)
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

/// A job's gang: how many of its tasks must run together (KEP-4671 `minCount`, Volcano
/// `minMember`, Kueue's all-or-nothing admission).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Gang {
    /// Tasks (≥ 1, at most the job's pending + running tasks in the snapshot) that must run at
    /// once, counting the job's running tasks of both kinds. While fewer would run, none of its
    /// pending tasks is started.
    #[cfg_attr(feature = "openapi", schema(minimum = 1))]
    pub min_member: u32,
}

/// A topology level: the kind of domain a job is kept inside.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum TopologyLevel {
    /// One node.
    Node,
    /// One rack (`nodes[].rack`).
    Rack,
    /// One block (`nodes[].block`; nodes without one are in no block).
    Block,
}

impl TopologyLevel {
    /// `node`, `rack` or `block`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Node => "node",
            Self::Rack => "rack",
            Self::Block => "block",
        }
    }
}

/// Whether a topology domain binds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum TopologyMode {
    /// Every task placed in this answer goes to the chosen domain, which also holds every
    /// running task of the job; tasks that cannot wait with reason `no_domain_fits`.
    Required,
    /// Tasks may go outside the chosen domain at `penalty_s` each.
    Preferred,
}

/// Default [`Topology::penalty_s`]: 60 s per task outside the domain, above the 21.5 s a
/// 256 MiB block takes to cross racks at the default 100 Mbit/s, so that a preferred domain
/// outweighs a remote read of ordinary blocks.
pub const DEFAULT_TOPOLOGY_PENALTY_S: f64 = 60.0;

/// Keep a job inside one topology domain (Kueue Topology Aware Scheduling, Volcano HyperNode).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Topology {
    /// `node`, `rack` or `block`.
    pub level: TopologyLevel,
    /// `required` or `preferred`.
    pub mode: TopologyMode,
    /// Under `preferred`: the cost of each task placed outside the chosen domain, in seconds
    /// (finite, ≥ 0; added to its locality cost, which is seconds × α). Optional; unset = 60.
    /// Ignored under `required`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(default = 60.0))]
    pub penalty_s: Option<f64>,
    /// Slices (Kueue TAS's `podset-slice-required-topology` and `podset-slice-size`): the tasks
    /// placed in one answer come in whole slices of `size`, each inside one domain of `level`
    /// (at or below the job's `level`): in every domain of the slice level the job places a
    /// multiple of `size` tasks, whatever `mode` says. Optional; unset = no slices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slice: Option<TopologySlice>,
}

/// A job's slices ([`Topology::slice`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TopologySlice {
    /// The level each slice is kept inside: `node`, `rack` or `block`, at or below the job's.
    pub level: TopologyLevel,
    /// Tasks per slice (≥ 1).
    pub size: u32,
}

impl Topology {
    /// [`Topology::penalty_s`] or its default, seconds.
    pub fn penalty(&self) -> f64 {
        self.penalty_s.unwrap_or(DEFAULT_TOPOLOGY_PENALTY_S)
    }
}

/// A user with a running-job limit (Hadoop Fair Scheduler design doc §3.4).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct User {
    /// Unique, non-empty; matched against `jobs[].user`.
    pub id: UserId,
    /// How many of the user's jobs may run at once; optional, unset =
    /// `policy.user_max_running_jobs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_running_jobs: Option<u32>,
    /// The user's weight when users are the fairness unit (the ShuffleWatcher policies, §3.1
    /// line 1); finite, > 0. Optional; unset = 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
}

/// Map or reduce (`Default`: map, for struct-update syntax only; the wire field is required).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum TaskKind {
    /// Reads one input block; placed on map slots.
    #[default]
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

    /// Both kinds in per-kind array order: `[map, reduce]`.
    pub const ALL: [TaskKind; 2] = [TaskKind::Map, TaskKind::Reduce];

    /// This kind's position in per-kind arrays (`[map, reduce]`): 0 for maps, 1 for reduces.
    #[inline]
    pub fn slot(self) -> usize {
        match self {
            Self::Map => 0,
            Self::Reduce => 1,
        }
    }
}

/// A task waiting for a slot.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
    /// The map's expected output (intermediate data) in bytes, an integer ≥ 0; default 0.
    /// Maps only. It must fit in the free `resources.disk` of the node the map is placed on,
    /// together with the outputs of the other maps placed there in this answer (FAIR §5.4).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub output_bytes: u64,
    /// Nodes holding a replica of the map's input block, distinct; default none (no locality
    /// preference: the task costs 0 everywhere). Maps only. Held compactly ([`Replicas`]).
    #[serde(default, skip_serializing_if = "Replicas::is_empty")]
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
    pub replicas: Replicas,
    /// Where a reduce's shuffle input lives; default none. Reduces only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shuffle: Vec<ShuffleSource>,
    /// When the task became pending, in seconds (≥ 0); default the job's `submit_s`. Its wait
    /// `now_s − pending_since_s` ages it under `lsap_fair` so that no task starves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_since_s: Option<f64>,
    /// This task's resource demand, overriding its job's `profile` (same names and units as
    /// `nodes[].resources`). Optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<BTreeMap<String, f64>>))]
    pub demand: Option<Amounts>,
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

/// Bytes a reduce must pull from one node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ShuffleSource {
    /// The source node.
    pub node: NodeId,
    /// Bytes to pull from it.
    pub bytes: u64,
}

/// A task holding a slot.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RunningTask {
    /// Unique among pending and running tasks, non-empty.
    pub id: TaskId,
    /// The task's job; must be listed in `jobs`.
    pub job: JobId,
    /// `map` or `reduce`: which slot kind it holds.
    pub kind: TaskKind,
    /// Where it runs.
    pub node: NodeId,
    /// When it started, in seconds (≥ 0); optional. Preemption kills the most recently
    /// started tasks first; a task without a start time counts as started at `now_s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_s: Option<f64>,
    /// A reduce's phase under copy-compute splitting (FAIR §5.2); default `copy`. Reduces only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<ReducePhase>,
    /// What the task consumes on its node, overriding its job's `profile` for its phase.
    /// Optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<BTreeMap<String, f64>>))]
    pub demand: Option<Amounts>,
}

/// The phase of a running reducer (FAIR §5.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ReducePhase {
    /// Fetching and merging map outputs (network-bound).
    #[default]
    Copy,
    /// Running the user's reduce function (admitted by `max_computing`).
    Compute,
}
