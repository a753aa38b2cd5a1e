//! lsap-sched (Guo, Fox, Zhou §3.2, Algorithm "lsap-sched"): one exact assignment per slot kind
//! per epoch, minimising Σ C(i, φ(i)) over pending tasks × free slots, on the rectangular
//! matrix as it is (no padding). Maps cost their input read (eq. 1), reduces their shuffle.
//! When tasks outnumber slots every slot is filled with the cheapest set of tasks; when slots
//! outnumber tasks every task is placed. Only tasks of runnable jobs take part
//! ([`crate::fair::job_limits`]); reduces under copy-compute caps are solved as a capped flow
//! (`crate::exact::capped`). Every engine is accepted: the problem has a dense form.

use super::{Candidates, Epoch, Placement, Policy};
use crate::error::SolveError;
use crate::exact::{self, Objective, Problem};
use placer_models::{Status, TaskKind};

/// lsap-sched.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lsap;

impl Policy for Lsap {
    fn name(&self) -> &'static str {
        "lsap"
    }

    fn candidates(&self) -> Candidates {
        // On the Mumak trace with 2 slots per node, the free slots alone showed lsap 222 of a
        // 3,204-map job's maps and cost it 11 GB more cross-rack traffic.
        Candidates::Capacity
    }

    /// Places every kind optimally with `epoch.engine`.
    ///
    /// # Complexity
    /// That of [`exact::solve()`] per kind.
    ///
    /// # Errors
    /// As [`exact::solve()`].
    ///
    /// # Examples
    /// lsap-sched's Fig. 1 through the whole pipeline: T1's block on A and B, T2's only on A,
    /// one idle slot on each; both tasks are placed node-local (T1 → B, T2 → A).
    /// ```
    /// let req = placer_models::parse_request(br#"{"schema_version": 1, "cluster": {"racks": [{"id": "r"}],
    ///   "nodes": [{"id": "A", "rack": "r", "map_slots": 1}, {"id": "B", "rack": "r", "map_slots": 1}]},
    ///   "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}],
    ///   "pending": [{"id": "T1", "job": "j", "kind": "map", "input_bytes": 1000000, "replicas": ["A", "B"]},
    ///               {"id": "T2", "job": "j", "kind": "map", "input_bytes": 1000000, "replicas": ["A"]}],
    ///   "policy": {"algorithm": "lsap"}}"#).unwrap();
    /// let answer = placer_solver::place(&req, &Default::default()).unwrap();
    /// let to: Vec<_> = answer.assignments.iter().map(|a| (a.task.as_str(), a.node.as_str())).collect();
    /// assert_eq!(to, [("T1", "B"), ("T2", "A")]);
    /// assert_eq!(answer.stats.node_local, 2);
    /// ```
    fn place(&self, epoch: &Epoch<'_, '_>) -> Result<Placement, SolveError> {
        let mut node_of_task = vec![None; epoch.ix.req.pending.len()];
        let mut status = Status::Optimal;
        for kind in TaskKind::ALL {
            let solved = exact::solve(
                Problem {
                    ix: epoch.ix,
                    model: epoch.model,
                    kind,
                    engine: epoch.engine,
                    objective: Objective::Locality,
                },
                epoch.control(),
                &mut node_of_task,
            )?;
            if solved == Status::TimeLimited {
                status = solved;
            }
        }
        Ok(Placement::new(node_of_task, status))
    }
}
