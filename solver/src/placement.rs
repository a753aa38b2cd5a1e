//! What a policy decides for one epoch (docs/architecture.md, "The epoch pipeline"): the node of
//! each pending task or `None`, with what the policy knows about its choice. A [`Placement`]
//! is data, not an answer: `answer` turns it into the response (step 6).

use crate::echo::{values, JobField};
use placer_models::{Status, WaitReason};
use serde_json::Value;

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
    /// The per-job fields the policy decided ([`crate::echo`]), by wire key: under a key
    /// listed here each job's value is the one given (`None` = the key is omitted for that
    /// job); a key not listed is echoed from the snapshot.
    pub job_state: Vec<(&'static str, Vec<Option<Value>>)>,
    /// Totals the policy reports beyond the common ones (`min_utility`), by wire key.
    pub stats: Vec<(&'static str, Value)>,
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
            job_state: Vec::new(),
            stats: Vec::new(),
        }
    }

    /// Sets every job's value of the field `T` (`None` = omitted for that job).
    pub fn set_jobs<T: JobField>(&mut self, per_job: &[Option<T>]) {
        self.job_state.retain(|(k, _)| *k != T::KEY);
        self.job_state.push((T::KEY, values(per_job)));
    }
}
