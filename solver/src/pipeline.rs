//! The epoch pipeline (DESIGN.md §The epoch pipeline): validate → index → fair shares →
//! policy → answer, the one function the service, the CLI and the simulator call. Pure: no
//! I/O, no clock (`now_s` comes in the snapshot, `stats.solve_ms` is filled by the caller).

use crate::answer::{self, Outcome, PlaceOptions};
use crate::cost::LocalityCost;
use crate::error::SolveError;
use crate::exact::engines::engine_list;
use crate::fair_shares;
use crate::index::Indexed;
use crate::matrix::CostMatrix;
use crate::policy::{registry, Epoch};
use crate::preemption;
use crate::starvation::Starvation;
use ndarray::Array2;
use placer_models::{PlaceRequest, PlaceResponse, TaskKind};

/// One epoch: validate and index the snapshot (with running-job limits and CPAC admission),
/// compute fair shares and starvation, place with the registered policy of
/// `policy.algorithm`, plan preemptions for starved pools when the policy preempts, answer.
///
/// # Complexity
/// O(size of the snapshot) around the policy's own cost (see each policy's file).
///
/// # Errors
/// [`SolveError::Invalid`] for a snapshot that fails validation,
/// [`SolveError::UnsupportedAlgorithm`] for an algorithm this build does not implement,
/// [`SolveError::UnsupportedEngine`] for a `policy.solver` the policy does not accept,
/// [`SolveError::CostOverflow`] / [`SolveError::ProblemTooLarge`] from the exact engines.
///
/// # Examples
/// FAIR Fig. 3's water-filling, through the answer's fair shares: pools of weight 1 and 1
/// with demands 2 and 10 on 8 map slots share them 2 and 6 (the small pool's unused share goes
/// to the other).
/// ```
/// let req = placer_models::parse_request(br#"{"schema_version": 1, "cluster": {"racks": [{"id": "r"}],
///   "nodes": [{"id": "n", "rack": "r", "map_slots": 8}]},
///   "pools": [{"id": "a"}, {"id": "b"}],
///   "jobs": [{"id": "ja", "pool": "a"}, {"id": "jb", "pool": "b"}],
///   "pending": [{"id": "a0", "job": "ja", "kind": "map"}, {"id": "a1", "job": "ja", "kind": "map"},
///     {"id": "b0", "job": "jb", "kind": "map"}, {"id": "b1", "job": "jb", "kind": "map"}, {"id": "b2", "job": "jb", "kind": "map"},
///     {"id": "b3", "job": "jb", "kind": "map"}, {"id": "b4", "job": "jb", "kind": "map"}, {"id": "b5", "job": "jb", "kind": "map"},
///     {"id": "b6", "job": "jb", "kind": "map"}, {"id": "b7", "job": "jb", "kind": "map"}, {"id": "b8", "job": "jb", "kind": "map"},
///     {"id": "b9", "job": "jb", "kind": "map"}]}"#).unwrap();
/// let answer = placer_solver::place(&req, &Default::default()).unwrap();
/// let shares: Vec<f64> = answer.pools.iter().map(|p| p.fair_share.unwrap().map).collect();
/// assert_eq!(shares, [2.0, 6.0]);
/// assert_eq!(answer.stats.assigned, 8);
/// ```
pub fn place(req: &PlaceRequest, opts: &PlaceOptions) -> Result<PlaceResponse, SolveError> {
    placer_models::validate(req)?;
    let policy = registry::lookup(req.policy.algorithm)?;
    let engine = req.policy.solver;
    if !policy.engines().contains(&engine) {
        return Err(SolveError::UnsupportedEngine {
            path: "policy.solver".to_owned(),
            engine: engine.name(),
            available: engine_list(policy.engines()),
        });
    }
    let ix = Indexed::new(req);
    let model = LocalityCost::new(&ix);
    let shares = fair_shares::compute(&ix);
    let starvation = Starvation::new(&ix, &shares);
    let epoch = Epoch { ix: &ix, model: &model, shares: &shares, starvation: &starvation, engine };
    let placement = policy.place(&epoch)?;
    let running_after = answer::running_after_placement(&ix, &placement);
    let victims = if policy.preempts() {
        preemption::plan(&ix, &shares, &starvation, &running_after)
    } else {
        Vec::new()
    };
    let outcome = Outcome {
        placement: &placement,
        victims: &victims,
        shares: &shares,
        clocks: starvation.clocks_after(&running_after),
        running_after: &running_after,
    };
    Ok(answer::build(&ix, &model, &outcome, opts))
}

/// lsap-sched's dense cost matrix of one kind (pending tasks × free slots in node order), in
/// seconds × α: what `placer export-matrix` writes for a dense solver to check against.
///
/// # Complexity
/// O(tasks · free slots) time and memory.
///
/// # Errors
/// [`SolveError::Invalid`] for a snapshot that fails validation,
/// [`SolveError::ProblemTooLarge`] beyond [`crate::matrix::MAX_DENSE_CELLS`] entries.
pub fn cost_matrix(req: &PlaceRequest, kind: TaskKind) -> Result<Array2<f64>, SolveError> {
    placer_models::validate(req)?;
    let ix = Indexed::new(req);
    let model = LocalityCost::new(&ix);
    Ok(CostMatrix::new(&ix, &model, kind, false)?.dense(|c| c))
}
