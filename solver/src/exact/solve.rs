//! The front door's one call (docs/architecture.md, "The exact engines"): place the runnable
//! pending tasks of one kind on that kind's free slots, exactly, with the engine asked for.
//! lsap-sched (Guo, Fox, Zhou §3.2) minimises Σ C(i, φ(i)) over the rectangular task × slot
//! matrix as it is (no padding); lsap-fair-sched (§3.3) adds a per-task term; `lsap_quota`
//! puts pool and job capacities in front. When tasks outnumber slots every slot is filled with
//! the cheapest set of tasks; when slots outnumber tasks every task is placed.

use super::engines::EngineChoice;
use super::{anytime, capped, dense, structured};
use crate::cancel::{is_cut, Cancel};
use crate::cost::LocalityCost;
use crate::error::SolveError;
use crate::flow::structured::Quotas;
use crate::index::Indexed;
use crate::warm::WarmStart;
use placer_models::{SolverEngine, Status, TaskKind};

/// What one kind's exact assignment minimises.
#[derive(Clone, Copy, Debug)]
pub enum Objective<'q> {
    /// lsap-sched: the locality cost alone, C(i, j) = DLC(i, N(j)) (seconds × α).
    Locality,
    /// lsap-fair-sched: C(i, j) = o_i + DLC(i, N(j)) with o indexed by pending position
    /// (seconds, any sign: FC − ageing).
    Offset(&'q [f64]),
    /// `lsap_quota`: the locality cost under the pools' and jobs' capacities, then one unit of
    /// surcharge per job unit beyond its share and per placement more remote than the task's
    /// delay level (`levels`, by pending position: 0 node-local, 1 rack-local, 2 any).
    /// `lsap_shuffle` adds per-task offsets (`offsets`, seconds by pending position, any sign;
    /// empty = none) to the cost, as [`Objective::Offset`] does.
    Quota {
        /// The pool and job capacities.
        quotas: &'q Quotas,
        /// Delay level per pending task.
        levels: &'q [u8],
        /// Offset per pending task (empty: 0 for all).
        offsets: &'q [f64],
    },
}

/// One exact assignment: `kind`'s runnable pending tasks of the indexed snapshot `ix` on that
/// kind's free slots, minimising `objective` over `model`'s locality costs with `engine`.
#[derive(Clone, Copy, Debug)]
pub struct Problem<'p> {
    /// The validated snapshot with every reference resolved.
    pub ix: &'p Indexed<'p>,
    /// The locality cost of every pending task on every node (lsap-sched eq. 1).
    pub model: &'p LocalityCost<'p, 'p>,
    /// The slot kind placed.
    pub kind: TaskKind,
    /// `policy.solver`.
    pub engine: SolverEngine,
    /// What the assignment minimises.
    pub objective: Objective<'p>,
}

/// What a caller hands the exact layer besides the problem: the deadline's token and the
/// store of labels kept across epochs. No `Default`: a caller states both, so that neither is
/// dropped by accident (a policy passes its epoch's, [`crate::Epoch::control`]).
#[derive(Clone, Copy, Debug)]
pub struct Control<'c> {
    /// The deadline (docs/operations/serving.md, "Deadlines and the anytime answer"): the engines
    /// poll it at bounded intervals (the structured flow once per augmenting path, phase or
    /// blocking-flow push, dense JV once per augmenting row, the capped reduces' flow once per
    /// augmenting path; Kuhn–Munkres, a reference engine, does not poll), and a token already
    /// cancelled skips the engine. When cut, the engine's partial placement (valid: every capacity
    /// respected) is completed greedily under the same hard constraints (the exact layer's
    /// `anytime` module): the answer is `time_limited`; otherwise `optimal`. `None`: run to the
    /// end.
    pub cancel: Option<&'c Cancel>,
    /// State kept across epochs (warm starts): under `lsap` and `lsap_fair` the structured
    /// flow of the previous solve of the kind, repaired for this epoch's change
    /// ([`crate::flow::incremental`]); under quotas the labels its previous solve left
    /// ([`crate::flow::structured::solve_warm`]). The placement is still a least-cost one. The
    /// dense and capped engines ignore it. `None`: a cold start.
    pub warm: Option<&'c WarmStart>,
}

impl Control<'_> {
    /// No deadline and no warm start: a solve run to the end from scratch.
    pub const NONE: Control<'static> = Control { cancel: None, warm: None };
}

/// The exact front door: places `problem`'s tasks optimally under its objective with its
/// engine, under `control`'s deadline and warm start, writing the chosen node of each placed
/// task (by pending position) into `node_of_task`; answers `optimal`, or `time_limited` when
/// `control.cancel` cut the engine (see [`Control::cancel`]).
///
/// Maps are admitted pairwise by intermediate space (FAIR §5.4, [`crate::fair::disk`]): a map is
/// never placed on a free node whose `disk` is below its `output_bytes`, and the answer is
/// the most placements, then the least cost, over the admitted pairs, on every engine (the
/// cumulative part, several maps on one node, is the pipeline's [`crate::fair::disk::settle`]).
///
/// Reduces under copy-compute caps (FAIR §5.2) go to `capped::solve` whatever the engine
/// (their per-(job, node) caps have no dense form; a quota objective keeps its locality part,
/// its offsets and its pool capacities there, not its soft job-share and level surcharges). Otherwise `auto`/`flow` run the structured network
/// (`structured::solve`) and `jv`/`hungarian` the dense matrix (`dense::solve`).
///
/// # Complexity
/// That of the engine: the structured flow O(F · E log V) worst case on a network linear in
/// the snapshot; the dense engines O(T · S) memory and O(T² · S) time for T tasks, S slots;
/// plus O(1) per poll and, after a cut, the greedy completion's
/// O(tasks · (replicas + listed racks) + nodes).
///
/// # Errors
/// [`SolveError::UnsupportedEngine`] for a dense engine with a quota objective,
/// [`SolveError::ProblemTooLarge`] for a dense problem over the size limit,
/// [`SolveError::CostOverflow`] for costs beyond the exact integer range; when
/// `control.cancel` is already cancelled, only the engine/objective mismatch: the greedy
/// completion needs no quantum nor matrix.
///
/// # Examples
/// lsap-sched's Fig. 1: T1's block is on nodes A and B, T2's only on A, one idle map slot on
/// each. dl-sched's greedy T1 → A forces T2 to read remotely; the exact answer is T1 → B,
/// T2 → A, both node-local.
/// ```
/// use placer_solver::{LocalityCost, exact, Indexed};
/// use placer_models::{SolverEngine, Status, TaskKind};
/// let req = placer_models::parse_request(br#"{"schema_version": 1, "cluster": {"racks": [{"id": "r"}],
///   "nodes": [{"id": "A", "rack": "r", "map_slots": 1}, {"id": "B", "rack": "r", "map_slots": 1}]},
///   "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}],
///   "pending": [{"id": "T1", "job": "j", "kind": "map", "input_bytes": 1000000, "replicas": ["A", "B"]},
///               {"id": "T2", "job": "j", "kind": "map", "input_bytes": 1000000, "replicas": ["A"]}]}"#).unwrap();
/// let ix = Indexed::new(&req);
/// let model = LocalityCost::new(&ix);
/// let mut node_of_task = vec![None; 2];
/// for engine in [SolverEngine::Flow, SolverEngine::Jv, SolverEngine::Hungarian] {
///     let problem = exact::Problem { ix: &ix, model: &model, kind: TaskKind::Map, engine,
///                                    objective: exact::Objective::Locality };
///     let status = exact::solve(problem, exact::Control::NONE, &mut node_of_task).unwrap();
///     assert_eq!(status, Status::Optimal);
///     assert_eq!(node_of_task, vec![Some(1), Some(0)]); // T1 → B, T2 → A
/// }
/// ```
/// The same with a token cancelled before the start: the greedy completion gives T1 (first
/// in the queue) its replica A and T2 the other slot, `time_limited`; without a cut the
/// answer is the optimum, T1 → B, T2 → A.
/// ```
/// use placer_solver::{LocalityCost, exact, Indexed, Cancel};
/// use placer_models::{SolverEngine, Status, TaskKind};
/// let req = placer_models::parse_request(br#"{"schema_version": 1, "cluster": {"racks": [{"id": "r"}],
///   "nodes": [{"id": "A", "rack": "r", "map_slots": 1}, {"id": "B", "rack": "r", "map_slots": 1}]},
///   "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}],
///   "pending": [{"id": "T1", "job": "j", "kind": "map", "input_bytes": 1000000, "replicas": ["A", "B"]},
///               {"id": "T2", "job": "j", "kind": "map", "input_bytes": 1000000, "replicas": ["A"]}]}"#).unwrap();
/// let ix = Indexed::new(&req);
/// let model = LocalityCost::new(&ix);
/// for engine in [SolverEngine::Flow, SolverEngine::Jv] {
///     let problem = exact::Problem { ix: &ix, model: &model, kind: TaskKind::Map, engine,
///                                    objective: exact::Objective::Locality };
///     let mut node_of_task = vec![None; 2];
///     let cut = Cancel::after_polls(0);
///     let control = exact::Control { cancel: Some(&cut), warm: None };
///     let status = exact::solve(problem, control, &mut node_of_task).unwrap();
///     assert_eq!(status, Status::TimeLimited);
///     assert_eq!(node_of_task, vec![Some(0), Some(1)]); // greedy: T1 → A, T2 → B
///     let mut node_of_task = vec![None; 2];
///     let running = Cancel::new();
///     let control = exact::Control { cancel: Some(&running), warm: None };
///     let status = exact::solve(problem, control, &mut node_of_task).unwrap();
///     assert_eq!((status, node_of_task), (Status::Optimal, vec![Some(1), Some(0)]));
/// }
/// ```
/// And twice from one store of labels: both solves place T1 → B and T2 → A.
/// ```
/// use placer_models::{SolverEngine, Status, TaskKind};
/// use placer_solver::exact::{self, Control, Objective, Problem};
/// use placer_solver::{LocalityCost, Indexed, WarmStart};
/// let req = placer_models::parse_request(br#"{"schema_version": 1,
///   "cluster": {"racks": [{"id": "r"}], "nodes": [{"id": "A", "rack": "r", "map_slots": 1},
///                                              {"id": "B", "rack": "r", "map_slots": 1}]},
///   "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}],
///   "pending": [
///     {"id": "T1", "job": "j", "kind": "map", "input_bytes": 64000000, "replicas": ["A", "B"]},
///     {"id": "T2", "job": "j", "kind": "map", "input_bytes": 64000000, "replicas": ["A"]}]}"#)
///     .unwrap();
/// let ix = Indexed::new(&req);
/// let model = LocalityCost::new(&ix);
/// let warm = WarmStart::new();
/// for _ in 0..2 {
///     let mut node_of_task = vec![None; 2];
///     let problem = Problem { ix: &ix, model: &model, kind: TaskKind::Map,
///                             engine: SolverEngine::Auto, objective: Objective::Locality };
///     let control = Control { cancel: None, warm: Some(&warm) };
///     let status = exact::solve(problem, control, &mut node_of_task).unwrap();
///     assert_eq!((node_of_task, status), (vec![Some(1), Some(0)], Status::Optimal));
/// }
/// ```
pub fn solve(
    problem: Problem<'_>,
    control: Control<'_>,
    node_of_task: &mut [Option<u32>],
) -> Result<Status, SolveError> {
    let Problem { ix, model, kind, engine, objective } = problem;
    let cancel = control.cancel;
    let choice = EngineChoice::of(engine);
    let capped = kind == TaskKind::Reduce && ix.has_cpac();
    if let (false, EngineChoice::Dense(_), Objective::Quota { .. }) = (capped, choice, objective) {
        return Err(SolveError::UnsupportedEngine {
            path: "policy.solver".to_owned(),
            engine: engine.name(),
            available: super::engines::engine_list(super::FLOW_ONLY),
        });
    }
    let cut = is_cut(cancel)
        || if capped {
            let offsets = match objective {
                Objective::Offset(o) => Some(o),
                Objective::Quota { offsets, .. } if !offsets.is_empty() => Some(offsets),
                Objective::Locality | Objective::Quota { .. } => None,
            };
            let quotas = match objective {
                Objective::Quota { quotas, .. } => Some(quotas),
                Objective::Locality | Objective::Offset(_) => None,
            };
            capped::solve(ix, model, offsets, quotas, node_of_task, cancel)?
        } else {
            match (choice, objective) {
                (EngineChoice::Flow, _) => {
                    structured::solve(ix, model, kind, objective, node_of_task, control)?
                }
                (EngineChoice::Dense(solver), Objective::Offset(o)) => {
                    dense::solve(ix, model, kind, solver, Some(o), node_of_task, cancel)?
                }
                (EngineChoice::Dense(solver), _) => {
                    dense::solve(ix, model, kind, solver, None, node_of_task, cancel)?
                }
            }
        };
    if !cut {
        return Ok(Status::Optimal);
    }
    anytime::complete(ix, model, kind, objective, node_of_task);
    Ok(Status::TimeLimited)
}
