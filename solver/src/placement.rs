//! What a policy decides for one epoch (DESIGN.md §The epoch pipeline, step 5): the node of
//! each pending task or `None`, with what the policy knows about its choice. A [`Placement`]
//! is data, not an answer: `answer` turns it into the response (step 6).

use placer_models::{DelayState, ShuffleWatcherState, Status, WaitReason};

/// The node chosen for each pending task (by position in `pending`), or `None` to wait, with
/// what the policy knows about its choice.
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    /// One entry per pending task.
    pub node_of_task: Vec<Option<u32>>,
    /// `optimal` for exact policies, `heuristic` for greedy ones.
    pub status: Status,
    /// Fairness cost FC of each pending task (`lsap_fair`); empty = 0 for all.
    pub fairness: Vec<f64>,
    /// Ageing credit of each pending task (`lsap_fair`); empty = 0 for all.
    pub aging: Vec<f64>,
    /// Per job and kind (`[map, reduce]`), why its unplaced tasks wait when the policy knows
    /// better than "slots taken" (delay scheduling, CPAC); empty = no such knowledge.
    pub job_reason: Vec<[Option<WaitReason>; 2]>,
    /// Per pending task, why it waits when that is known task by task (intermediate space,
    /// set by the pipeline's [`crate::fair::disk::settle`]; `drf`'s multi-resource reasons); wins
    /// over `job_reason` and over the cluster's slot count. Empty = none.
    pub task_reason: Vec<Option<WaitReason>>,
    /// The updated delay-scheduling state per job (`delay` only).
    pub delay: Option<Vec<DelayState>>,
    /// SAMP's decision per job (the ShuffleWatcher policies and `lsap_shuffle`): `None` =
    /// echo each job's `jobs[].shuffle_watcher` unchanged.
    pub shuffle_watcher: Option<Vec<Option<ShuffleWatcherState>>>,
    /// RAS's utility per job after this placement (`ras`, `lsap_ras`): `None` = not
    /// computed; per job `None` = nothing left to run, `Some(-inf)` = −∞.
    pub utility: Option<Vec<Option<f64>>>,
}

impl Placement {
    /// A placement without costs beyond locality or per-job reasons.
    pub fn new(node_of_task: Vec<Option<u32>>, status: Status) -> Self {
        Self {
            node_of_task,
            status,
            fairness: Vec::new(),
            aging: Vec::new(),
            job_reason: Vec::new(),
            task_reason: Vec::new(),
            delay: None,
            shuffle_watcher: None,
            utility: None,
        }
    }
}
