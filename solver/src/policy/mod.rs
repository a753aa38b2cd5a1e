//! Placement policies (DESIGN.md §The epoch pipeline, step 5): each maps an indexed snapshot to
//! a node for some pending tasks. A [`Placement`] is data, not an answer: `answer` turns it into
//! the response.

pub mod dl_sched;
pub mod lsap;

use placer_models::Status;

/// The node chosen for each pending task (by position in `pending`), or `None` to wait.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    /// One entry per pending task.
    pub node_of_task: Vec<Option<u32>>,
    /// `optimal` for exact policies, `heuristic` for greedy ones.
    pub status: Status,
}
