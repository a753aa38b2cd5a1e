//! The v1 placement answer (docs/wire-schema.md, "The answer"): assignments with a cost
//! breakdown, preemptions, why the rest waits, per-pool and per-job state, and stats
//! (lsap-sched §3.2: the assignment φ and its cost sum Csum(φ), eq. 2).

use crate::ids::{JobId, NodeId, PoolId, TaskId};
use crate::request::TaskKind;
use crate::state::StarvationState;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The answer to one snapshot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PlaceResponse {
    /// Always 1.
    pub schema_version: u32,
    /// Pending tasks to start now, each on a node with a free slot of the task's kind. Ordered
    /// maps first, then reduces, each in the order of `pending`.
    pub assignments: Vec<Assignment>,
    /// Running tasks to kill (empty for the locality policies).
    pub preemptions: Vec<Preemption>,
    /// Why the unassigned pending tasks wait: one entry per (job, kind, reason) with a count, or
    /// one per task when the caller asked to explain (`?explain=true`, `--explain`).
    pub waiting: Vec<Waiting>,
    /// Per pool: fair share, running tasks and demand.
    pub pools: Vec<PoolReport>,
    /// Per job: fair share, running tasks and demand.
    pub jobs: Vec<JobReport>,
    /// Totals.
    pub stats: Stats,
}

/// One placement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Assignment {
    /// The pending task.
    pub task: TaskId,
    /// The node whose free slot it takes.
    pub node: NodeId,
    /// How close the task is to its input on that node.
    pub locality: Locality,
    /// The task's cost on that node.
    pub cost: CostBreakdown,
}

/// Data locality of a placement (lsap-sched §3.1; FAIR §3). For a map: `node` if a replica is
/// on the node, `rack` if one is in its rack, else `remote`; `none` if the task has no
/// replicas. For a reduce the same test applies to all of its shuffle sources at once (`node`
/// only if every source is the node itself, `rack` if every source is in its rack).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Locality {
    /// Input on the node itself.
    Node,
    /// Input in the node's rack.
    Rack,
    /// Input in another rack.
    Remote,
    /// No input location (no preference).
    None,
}

/// A placement's cost in seconds of data transfer (lsap eq. 1, scaled by α) and fairness cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CostBreakdown {
    /// `locality + fairness − aging`.
    pub total: f64,
    /// Data-locality cost: α · transfer seconds (map input, or reduce shuffle input).
    pub locality: f64,
    /// Fairness cost FC ∈ [0, β] (lsap-fair-sched §3.3); 0 for the other policies.
    pub fairness: f64,
    /// `lsap_fair`'s ageing credit β · wait / `policy.aging_s` of a long-pending task; omitted
    /// when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub aging: f64,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// A running task to kill so that a starved pool gets its share.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Preemption {
    /// The running task.
    pub task: TaskId,
    /// Its node.
    pub node: NodeId,
    /// Why: the starved pool's min share or fair share.
    pub reason: PreemptionReason,
    /// The pool the slot is freed for.
    pub for_pool: PoolId,
}

/// Which timeout made a pool preempt (Hadoop Fair Scheduler design doc §3.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum PreemptionReason {
    /// Below min(min share, demand) for longer than `min_share_timeout_s`.
    MinShare,
    /// Below half of min(fair share, demand) for longer than `fair_share_timeout_s`.
    FairShare,
}

/// Why pending tasks are not placed this epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum WaitReason {
    /// The cluster has no free slot of the task's kind at all (empty cluster, all busy).
    NoFreeSlots,
    /// There were free slots of the kind, but fewer than pending tasks; other tasks got them
    /// (they were cheaper, or earlier in the greedy order). Under the multi-resource policies
    /// (`ras`, `drf`, `lsap_ras`): the nodes' room went to other tasks.
    SlotsTaken,
    /// The job is beyond its pool's or user's running-job limit (design doc §3.4): not
    /// runnable this epoch.
    JobLimit,
    /// Delay scheduling skipped the job: no free slot was local enough for its locality level
    /// yet (FAIR Alg. 1).
    WaitingForLocality,
    /// Copy-compute splitting admission (FAIR §5.2): every node with a free reducer slot
    /// already runs `max_computing` copy-phase reducers of this job.
    ReducerLimit,
    /// Intermediate-space admission (FAIR §5.4): a map slot was left free, but the map's
    /// `output_bytes` fit the free `resources.disk` of no node with a free map slot (after
    /// this answer's placements there), or the answer dropped it from a node it would
    /// overflow.
    Disk,
    /// Multi-resource admission (`drf`): the task's demand exceeds some resource of every
    /// node even with the node empty, so no node can ever run it as the cluster stands.
    NoNodeFits,
    /// The task's job is a gang (`jobs[].gang`): fewer than `min_member` of its tasks could
    /// run together in this answer, so none of its pending tasks was started.
    GangIncomplete,
    /// The task's job requires a topology domain (`jobs[].topology`, `required`) and no
    /// domain of its level had room for it (together with the job's running tasks) in this
    /// answer.
    NoDomainFits,
}

/// Pending tasks that wait, per (job, kind, reason); or one task with `?explain=true`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Waiting {
    /// The job.
    pub job: JobId,
    /// The task, when explained per task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskId>,
    /// Map or reduce.
    pub kind: TaskKind,
    /// How many tasks (1 when per task).
    pub tasks: u64,
    /// Why they wait.
    pub reason: WaitReason,
}

/// A count per slot kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SlotCounts {
    /// Map slots or tasks.
    pub map: f64,
    /// Reduce slots or tasks.
    pub reduce: f64,
}

/// A pool's state this epoch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PoolReport {
    /// The pool.
    pub id: PoolId,
    /// Fair share in slots (fractional): weighted water-filling of the cluster's slots of each
    /// kind with min shares and demands (FAIR App. A). Omitted only if a solver did not
    /// compute it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fair_share: Option<SlotCounts>,
    /// Tasks running before this epoch's placement.
    pub running: SlotCounts,
    /// Running + pending of its runnable jobs (running tasks of jobs beyond a running-job
    /// limit still count as running, not as demand).
    pub demand: SlotCounts,
    /// Running after this answer: `running` + assigned − preempted, to compare with
    /// `fair_share`.
    pub running_after: SlotCounts,
    /// The starvation clocks after this epoch; send them back as `pools[].starvation`.
    pub starvation: StarvationState,
}

/// A job's state this epoch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JobReport {
    /// The job.
    pub id: JobId,
    /// Fair share in slots (fractional): its pool's share split by water-filling with
    /// priority weights 2^level (`fair` pools) or in priority-then-submit order (`fifo` pools).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fair_share: Option<SlotCounts>,
    /// Tasks running before this epoch's placement.
    pub running: SlotCounts,
    /// Running + pending (pending only while runnable).
    pub demand: SlotCounts,
    /// False when the job is beyond its pool's or user's running-job limit (design doc §3.4):
    /// its demand is then its running tasks only and none of its tasks is placed.
    pub runnable: bool,
    /// What the policies echo for the job (`delay`, `shuffle_watcher`, …) and what they
    /// report per job (`utility`), by key: send the echoed keys back in the job of the next
    /// snapshot. A key the snapshot had and the policy did not update is echoed unchanged.
    /// Each key's meaning is documented with the policy that owns it.
    #[serde(flatten)]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub state: BTreeMap<String, Value>,
}

/// How the answer was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// An exact solver proved the objective minimal.
    Optimal,
    /// A greedy policy: valid, not necessarily minimal.
    Heuristic,
    /// An exact solver stopped at a time limit with a valid, possibly non-minimal answer.
    TimeLimited,
}

/// Totals of one epoch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Stats {
    /// Pending tasks in the snapshot (maps + reduces).
    pub pending: u64,
    /// Free slots before placement (map + reduce).
    pub free_slots: u64,
    /// Free map slots before placement.
    pub free_map_slots: u64,
    /// Free reduce slots before placement.
    pub free_reduce_slots: u64,
    /// Tasks assigned.
    pub assigned: u64,
    /// Assigned maps with a replica on their node (goodness of data locality, lsap §3.1).
    pub node_local: u64,
    /// Assigned maps with a replica in their node's rack but not on it.
    pub rack_local: u64,
    /// Assigned maps with no replica in their node's rack.
    pub remote: u64,
    /// Assigned maps without replicas (no preference; counted in none of the three above).
    pub no_preference: u64,
    /// Σ locality cost of the assignments, in seconds × α.
    pub locality_cost: f64,
    /// Fairness distance D of the map slots after this answer (lsap-fair-sched eqs. 10–11 in
    /// placer's definition): the mean over active pools (map demand > 0, weight > 0) of
    /// |s_i − w_i| / w_i, where s_i is pool i's share of the running maps (running + assigned
    /// − preempted) and w_i its weight normalised over the active pools. 0 when no map runs.
    pub fairness_distance: f64,
    /// Running tasks to preempt (length of `preemptions`).
    pub preempted: u64,
    /// The total the solver minimised (Σ assignment `cost.total`), in the units of
    /// `placer export-matrix`. Greedy policies report the same sum for their placement.
    pub objective: f64,
    /// `optimal`, `heuristic` or `time_limited`.
    pub status: Status,
    /// Wall time of the solve in milliseconds, measured by the caller (the solver is pure).
    pub solve_ms: f64,
    /// Totals a policy reports beyond these (`min_utility` under `ras` and `lsap_ras`), by
    /// key; each is documented with its policy.
    #[serde(flatten)]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub extra: BTreeMap<String, Value>,
}
