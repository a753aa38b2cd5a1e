//! placer's v1 wire schema (docs/wire-schema.md): the snapshot a cluster master sends once
//! per scheduling epoch (lsap-sched, Guo et al., §3.2 "instant system state") and the placement
//! placer answers with. Serde types and validation only; all logic lives in `placer-solver`.

mod delta;
mod error;
mod fast_read;
mod footprint;
mod ids;
mod name_index;
mod parse;
mod policy;
mod replicas;
mod request;
mod response;
mod revalidate;
mod state;
mod validate;

pub use delta::{parse_delta, Changes, Delta, ObjectOnly, Remove, Taken, Undo, Upsert};
pub use error::ModelError;
pub use ids::{BlockId, JobId, NodeId, PoolId, RackId, TaskId, UserId};
pub use parse::parse_request;
pub use policy::{Algorithm, Given, Policy, SolverEngine};
pub use replicas::Replicas;
pub use request::{
    Amounts, Cluster, Gang, Job, JobProfile, Network, Node, PendingTask, PlaceRequest, Pool,
    PoolMode, Priority, Rack, RackPair, ReducePhase, Resources, RunningTask, ShuffleSource,
    TaskKind, Topology, TopologyLevel, TopologyMode, TopologySlice, User,
    DEFAULT_TOPOLOGY_PENALTY_S,
};
pub use response::{
    Assignment, CostBreakdown, JobReport, Locality, PlaceResponse, PoolReport, Preemption,
    PreemptionReason, SlotCounts, Stats, Status, WaitReason, Waiting,
};
pub use revalidate::{Checked, Revalidator};
pub use state::{JobState, StarvationClock, StarvationState};
pub use validate::{fraction, non_negative, positive, validate, validate_resolved, Resolved};

/// The only wire schema version this build speaks.
pub const SCHEMA_VERSION: u32 = 1;
