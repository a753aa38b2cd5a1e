//! A v1 snapshot built field by field, the way a cluster master sends it
//! (docs/wire-schema.md), in the style of Kubernetes' scheduler test wrappers
//! (`st.MakeNode().Name("n1").Capacity(..).Obj()`).
//!
//! Every builder writes only the fields a test sets, under their wire names, so a snapshot's
//! JSON holds what the test says and the schema's defaults do the rest. Setters are named after
//! the wire fields; [`Node::set`] and its siblings write any other field (per-policy state such
//! as `delay` or `starvation`, or a value of the wrong shape for a validation test).

use placer_models::{parse_request, ModelError, PlaceRequest};
use serde_json::{json, Map as Object, Value};

/// 128 MiB, the default HDFS block of the seeds' era, in bytes.
pub const BLOCK: u64 = 128 << 20;

/// Parses a snapshot's JSON as `placer place` and `POST /place` do
/// ([`placer_models::parse_request`]: shape errors with their path, no reference checks).
pub fn parse(snapshot: &Value) -> Result<PlaceRequest, ModelError> {
    parse_request(snapshot.to_string().as_bytes())
}

/// A builder of one wire object (`cluster.nodes[]`, `pools[]`, …): its fields by name, the
/// generic setter and the JSON.
macro_rules! wire_object {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq)]
        #[must_use]
        pub struct $name(Object<String, Value>);

        impl $name {
            /// Sets the field `key` to `value`, for fields without a setter of their own.
            pub fn set(mut self, key: &str, value: impl Into<Value>) -> Self {
                self.0.insert(key.to_owned(), value.into());
                self
            }

            /// The object as it goes on the wire.
            pub fn json(&self) -> Value {
                Value::Object(self.0.clone())
            }

            fn with_id(id: &str) -> Self {
                Self(Object::new()).set("id", id)
            }
        }
    };
}

/// Setters named after the wire fields they write.
macro_rules! setters {
    ($($(#[$doc:meta])* $field:ident: $ty:ty;)*) => {
        $(
            $(#[$doc])*
            pub fn $field(self, value: $ty) -> Self {
                self.set(stringify!($field), value)
            }
        )*
    };
}

wire_object! {
    /// A node (`cluster.nodes[]`): `Node::new("n1").rack("r1").map_slots(4).reduce_slots(2)`.
    Node
}

impl Node {
    /// A node with only its id.
    pub fn new(id: &str) -> Self {
        Self::with_id(id)
    }

    setters! {
        /// The node's rack id.
        rack: &str;
        /// Map slots (absent: 0).
        map_slots: u32;
        /// Reduce slots (absent: 0).
        reduce_slots: u32;
        /// Copy-compute splitting: reducers admitted per node (FAIR §5.2).
        max_reducers: u32;
        /// Copy-compute splitting: reducers computing at once per node (FAIR §5.2).
        max_computing: u32;
    }
}

wire_object! {
    /// A pool (`pools[]`): `Pool::new("prod").weight(2.0).min_map_share(10.0)`.
    Pool
}

impl Pool {
    /// A pool with only its id (weight 1, no min share, fair mode).
    pub fn new(id: &str) -> Self {
        Self::with_id(id)
    }

    setters! {
        /// Fair-share weight.
        weight: f64;
        /// Guaranteed map slots.
        min_map_share: f64;
        /// Guaranteed reduce slots.
        min_reduce_share: f64;
        /// How jobs inside the pool share it: `"fair"` or `"fifo"`.
        mode: &str;
        /// Seconds below the min share before the pool preempts.
        min_share_timeout_s: f64;
        /// Seconds below half its fair share before the pool preempts.
        fair_share_timeout_s: f64;
        /// Running-job limit of the pool.
        max_running_jobs: u32;
    }
}

wire_object! {
    /// A job (`jobs[]`): `Job::new("j1").pool("prod").submit_s(100.0)`.
    Job
}

impl Job {
    /// A job with only its id.
    pub fn new(id: &str) -> Self {
        Self::with_id(id)
    }

    setters! {
        /// The job's pool id.
        pool: &str;
        /// Submit time on the snapshot's clock, in seconds.
        submit_s: f64;
        /// `"very_low"`, `"low"`, `"normal"`, `"high"` or `"very_high"`.
        priority: &str;
        /// The job's user id (per-user running-job limits).
        user: &str;
        /// The job's own delay-scheduling node-locality wait T1, in seconds.
        locality_delay_node_s: f64;
        /// The job's own delay-scheduling rack-locality wait T2, in seconds.
        locality_delay_rack_s: f64;
    }
}

wire_object! {
    /// A pending map task (`pending[]`, kind `map`):
    /// `Map::new("j1-m-0").job("j1").input_bytes(BLOCK).replicas(&["n3"])`.
    Map
}

impl Map {
    /// A pending map task with only its id.
    pub fn new(id: &str) -> Self {
        Self::with_id(id).set("kind", "map")
    }

    setters! {
        /// The task's job id.
        job: &str;
        /// Bytes of input (one block, usually).
        input_bytes: u64;
        /// The nodes holding a replica of the input.
        replicas: &[&str];
        /// When the task became pending, on the snapshot's clock (lsap_fair's ageing).
        pending_since_s: f64;
    }
}

wire_object! {
    /// A pending reduce task (`pending[]`, kind `reduce`):
    /// `Reduce::new("j1-r-0").job("j1").shuffle("n3", 1 << 20)`.
    Reduce
}

impl Reduce {
    /// A pending reduce task with only its id.
    pub fn new(id: &str) -> Self {
        Self::with_id(id).set("kind", "reduce")
    }

    setters! {
        /// The task's job id.
        job: &str;
        /// When the task became pending, on the snapshot's clock.
        pending_since_s: f64;
    }

    /// Adds a shuffle source: `bytes` of map output on `node`.
    pub fn shuffle(mut self, node: &str, bytes: u64) -> Self {
        let source = json!({"node": node, "bytes": bytes});
        match self.0.get_mut("shuffle") {
            Some(Value::Array(sources)) => sources.push(source),
            _ => self = self.set("shuffle", vec![source]),
        }
        self
    }
}

wire_object! {
    /// A running task (`running[]`): `Running::map("j1-m-1").job("j1").node("n4").started_s(1190.0)`.
    Running
}

impl Running {
    /// A running map task with only its id.
    pub fn map(id: &str) -> Self {
        Self::with_id(id).set("kind", "map")
    }

    /// A running reduce task with only its id.
    pub fn reduce(id: &str) -> Self {
        Self::with_id(id).set("kind", "reduce")
    }

    setters! {
        /// The task's job id.
        job: &str;
        /// The node whose slot it holds.
        node: &str;
        /// Start time on the snapshot's clock, in seconds.
        started_s: f64;
        /// A reduce's phase: `"copy"` or `"compute"` (copy-compute splitting, FAIR §5.2).
        phase: &str;
    }
}

/// A whole snapshot: cluster, pools, jobs, pending and running tasks, users and policy, each
/// in the order added. [`Snapshot::json`] is the body a master would send;
/// [`Snapshot::build`] parses it into the request the solver takes.
#[derive(Clone, Debug, Default, PartialEq)]
#[must_use]
pub struct Snapshot {
    now_s: f64,
    racks: Vec<Value>,
    nodes: Vec<Value>,
    network: Option<Object<String, Value>>,
    pools: Vec<Value>,
    jobs: Vec<Value>,
    pending: Vec<Value>,
    running: Vec<Value>,
    users: Vec<Value>,
    policy: Object<String, Value>,
}

impl Snapshot {
    /// An empty v1 snapshot at time 0: no racks, nodes, pools, jobs or tasks, the default
    /// network and policy.
    pub fn new() -> Self {
        Self::default()
    }

    /// The master's clock, in seconds.
    pub fn now_s(mut self, now_s: f64) -> Self {
        self.now_s = now_s;
        self
    }

    /// Adds a rack.
    pub fn rack(mut self, id: &str) -> Self {
        self.racks.push(json!({"id": id}));
        self
    }

    /// Adds a node.
    pub fn node(mut self, node: Node) -> Self {
        self.nodes.push(Value::Object(node.0));
        self
    }

    /// Adds nodes, in order.
    pub fn nodes(self, nodes: impl IntoIterator<Item = Node>) -> Self {
        nodes.into_iter().fold(self, Self::node)
    }

    /// States the network: in-rack and cross-rack bandwidth in Mbit/s.
    pub fn network(mut self, rack_mbps: f64, cross_rack_mbps: f64) -> Self {
        let network = self.network.get_or_insert_with(Object::new);
        network.insert("rack_mbps".to_owned(), Value::from(rack_mbps));
        network.insert("cross_rack_mbps".to_owned(), Value::from(cross_rack_mbps));
        self
    }

    /// Adds a rack-pair bandwidth override, in Mbit/s.
    pub fn rack_pair(mut self, from: &str, to: &str, mbps: f64) -> Self {
        let pair = json!({"from": from, "to": to, "mbps": mbps});
        let network = self.network.get_or_insert_with(Object::new);
        match network.get_mut("rack_pairs") {
            Some(Value::Array(pairs)) => pairs.push(pair),
            _ => {
                network.insert("rack_pairs".to_owned(), Value::Array(vec![pair]));
            }
        }
        self
    }

    /// Adds a pool.
    pub fn pool(mut self, pool: Pool) -> Self {
        self.pools.push(Value::Object(pool.0));
        self
    }

    /// Adds a job.
    pub fn job(mut self, job: Job) -> Self {
        self.jobs.push(Value::Object(job.0));
        self
    }

    /// Adds a pending map task.
    pub fn map(mut self, map: Map) -> Self {
        self.pending.push(Value::Object(map.0));
        self
    }

    /// Adds pending map tasks, in order.
    pub fn maps(self, maps: impl IntoIterator<Item = Map>) -> Self {
        maps.into_iter().fold(self, Self::map)
    }

    /// Adds a pending reduce task.
    pub fn reduce(mut self, reduce: Reduce) -> Self {
        self.pending.push(Value::Object(reduce.0));
        self
    }

    /// Adds a running task.
    pub fn running(mut self, task: Running) -> Self {
        self.running.push(Value::Object(task.0));
        self
    }

    /// Adds a user with a running-job limit (`users[]`).
    pub fn user(mut self, id: &str, max_running_jobs: u32) -> Self {
        self.users.push(json!({"id": id, "max_running_jobs": max_running_jobs}));
        self
    }

    /// The placement algorithm (`policy.algorithm`): `"lsap"`, `"fair"`, `"delay"`, …
    pub fn algorithm(self, algorithm: &str) -> Self {
        self.policy("algorithm", algorithm)
    }

    /// The exact engine (`policy.solver`): `"auto"`, `"flow"`, `"jv"`, `"hungarian"`, …
    pub fn solver(self, solver: &str) -> Self {
        self.policy("solver", solver)
    }

    /// Sets any other policy field (`alpha`, `beta`, `aging_s`, `heartbeat_s`, …).
    pub fn policy(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.policy.insert(key.to_owned(), value.into());
        self
    }

    /// The snapshot as a master sends it. `users`, `cluster.network` and `policy` appear only
    /// when something was set in them.
    pub fn json(&self) -> Value {
        let mut cluster = Object::new();
        cluster.insert("racks".to_owned(), Value::Array(self.racks.clone()));
        cluster.insert("nodes".to_owned(), Value::Array(self.nodes.clone()));
        if let Some(network) = &self.network {
            cluster.insert("network".to_owned(), Value::Object(network.clone()));
        }
        let mut snapshot = Object::new();
        snapshot.insert("schema_version".to_owned(), Value::from(placer_models::SCHEMA_VERSION));
        snapshot.insert("now_s".to_owned(), Value::from(self.now_s));
        snapshot.insert("cluster".to_owned(), Value::Object(cluster));
        snapshot.insert("pools".to_owned(), Value::Array(self.pools.clone()));
        snapshot.insert("jobs".to_owned(), Value::Array(self.jobs.clone()));
        snapshot.insert("pending".to_owned(), Value::Array(self.pending.clone()));
        snapshot.insert("running".to_owned(), Value::Array(self.running.clone()));
        if !self.users.is_empty() {
            snapshot.insert("users".to_owned(), Value::Array(self.users.clone()));
        }
        if !self.policy.is_empty() {
            snapshot.insert("policy".to_owned(), Value::Object(self.policy.clone()));
        }
        Value::Object(snapshot)
    }

    /// The request the solver takes, parsed from [`Snapshot::json`] with [`parse`]. Fails only
    /// on a field set to a value of the wrong shape.
    pub fn build(&self) -> Result<PlaceRequest, ModelError> {
        parse(&self.json())
    }
}
