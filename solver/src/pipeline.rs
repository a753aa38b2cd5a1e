//! The epoch pipeline (docs/architecture.md, "The epoch pipeline"): validate → index → fair shares
//! → policy → intermediate-space admission (FAIR §5.4) → answer, the one function the service,
//! the CLI and the simulator call. Pure: no I/O, no clock (`now_s` comes in the snapshot,
//! `stats.solve_ms` is filled by the caller).

use crate::answer::{self, Outcome, PlaceOptions};
use crate::cost::LocalityCost;
use crate::error::SolveError;
use crate::exact::engines::check_engine;
use crate::fair::disk;
use crate::fair::fair_shares;
use crate::fair::preemption;
use crate::fair::starvation::Starvation;
use crate::finite;
use crate::index::Indexed;
use crate::matrix::CostMatrix;
use crate::policy::{registry, Epoch, Placement};
use ndarray::Array2;
use placer_models::{Checked, PlaceRequest, PlaceResponse, Resolved, Status, TaskKind, WaitReason};

/// One epoch: validate and index the snapshot (with running-job limits and CPAC admission),
/// compute fair shares and starvation, place with the registered policy of
/// `policy.algorithm`, hold every map to its node's intermediate space ([`disk::settle`],
/// FAIR §5.4), plan preemptions for starved pools when the policy preempts, answer.
///
/// # Complexity
/// O(size of the snapshot) around the policy's own cost (see each policy's file).
///
/// # Errors
/// [`SolveError::Invalid`] for a snapshot that fails validation,
/// [`SolveError::UnsupportedAlgorithm`] for an algorithm this build does not implement,
/// [`SolveError::UnsupportedEngine`] for a `policy.solver` the policy does not accept (or
/// `mip` in a build without the `mip` feature),
/// [`SolveError::CostOverflow`] when a cost any placement could make, or a total of the
/// answer, or the pools' weight sum, is beyond f64 (`finite`; the same under every
/// algorithm), or from the exact
/// engines; [`SolveError::ProblemTooLarge`] from the exact engines.
///
/// # Examples
/// lsap-sched's Fig. 1 (Guo, Fox, Zhou): nodes A and B with one idle map slot each; T1's
/// block is on A and B, T2's only on A. dl-sched, offering A first, gives it T1 and T2 must
/// read remotely; lsap-sched places both node-local.
/// ```
/// use placer_models::Algorithm;
/// let mut req = placer_models::parse_request(br#"{"schema_version": 1,
///   "cluster": {"racks": [{"id": "r"}], "network": {"rack_mbps": 1000},
///     "nodes": [{"id": "A", "rack": "r", "map_slots": 1}, {"id": "B", "rack": "r", "map_slots": 1}]},
///   "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}],
///   "pending": [{"id": "T1", "job": "j", "kind": "map", "input_bytes": 125000000, "replicas": ["A", "B"]},
///               {"id": "T2", "job": "j", "kind": "map", "input_bytes": 125000000, "replicas": ["A"]}]}"#).unwrap();
/// let opts = placer_solver::PlaceOptions::default();
/// req.policy.algorithm = placer_solver::registry::by_name("dl_sched").unwrap().0;
/// let greedy = placer_solver::place(&req, &opts).unwrap();
/// assert_eq!((greedy.stats.node_local, greedy.stats.rack_local), (1, 1));
/// assert_eq!(greedy.stats.objective, 1.0); // 125 MB · 8 / 1,000 Mbit/s = 1 s
/// req.policy.algorithm = placer_solver::registry::by_name("lsap").unwrap().0;
/// let exact = placer_solver::place(&req, &opts).unwrap();
/// assert_eq!((exact.stats.node_local, exact.stats.objective), (2, 0.0));
/// ```
pub fn place(req: &PlaceRequest, opts: &PlaceOptions) -> Result<PlaceResponse, SolveError> {
    place_resolved(req, None, opts)
}

/// [`place`] on a snapshot a [`placer_models::Revalidator`] checked (a session's, after a
/// delta validated by difference): its references are not resolved again. A `checked` of
/// another shape than `req` (another snapshot's) is ignored and `req` validated in full.
///
/// # Complexity
/// As [`place`] without the validation's O(snapshot) hashing.
///
/// # Errors
/// As [`place`].
///
/// # Examples
/// lsap-sched's Fig. 1 as in [`place`], checked first:
/// ```
/// let req = placer_models::parse_request(br#"{"schema_version": 1,
///   "cluster": {"racks": [{"id": "r"}],
///     "nodes": [{"id": "A", "rack": "r", "map_slots": 1}, {"id": "B", "rack": "r", "map_slots": 1}]},
///   "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}],
///   "pending": [{"id": "T1", "job": "j", "kind": "map", "input_bytes": 125000000, "replicas": ["A", "B"]},
///               {"id": "T2", "job": "j", "kind": "map", "input_bytes": 125000000, "replicas": ["A"]}]}"#).unwrap();
/// let checked = placer_models::Revalidator::new().revalidate(&req, None).unwrap();
/// let opts = placer_solver::PlaceOptions::default();
/// let answer = placer_solver::place_checked(&req, checked, &opts).unwrap();
/// assert_eq!(answer, placer_solver::place(&req, &opts).unwrap());
/// ```
pub fn place_checked(
    req: &PlaceRequest,
    checked: Checked,
    opts: &PlaceOptions,
) -> Result<PlaceResponse, SolveError> {
    place_resolved(req, checked.resolved_for(req), opts)
}

/// [`place`] with `resolved`, when given, as `req`'s validated references.
fn place_resolved(
    req: &PlaceRequest,
    resolved: Option<Resolved>,
    opts: &PlaceOptions,
) -> Result<PlaceResponse, SolveError> {
    registry::check_settings(&req.policy)?;
    let resolved = match resolved {
        Some(resolved) => resolved,
        None => placer_models::validate_resolved(req)?,
    };
    registry::check_job_fields(req)?;
    let policy = registry::lookup(req.policy.algorithm)?;
    let engine = req.policy.solver;
    check_engine(policy.engines(), engine)?;
    crate::policy_trait::check_gangs(policy, req)?;
    finite::check_weights(req)?;
    let scaled = finite::relative_weights(req);
    let req = scaled.as_ref().unwrap_or(req);
    let ix = Indexed::with_resolved(req, resolved);
    let model = LocalityCost::new(&ix);
    finite::check_costs(&ix, &model)?;
    let shares = fair_shares::compute(&ix);
    let starvation = Starvation::new(&ix, &shares);
    let cancel = opts.cancel.as_ref();
    let warm = opts.warm.as_ref();
    let epoch = Epoch {
        ix: &ix,
        model: &model,
        shares: &shares,
        starvation: &starvation,
        engine,
        cancel,
        warm,
    };
    let mut placement = policy.place(&epoch)?;
    admit_disk(&ix, &model, &mut placement);
    // A gang-blind baseline's answer is left as it is: starting part of a gang is its point.
    if !policy.gang_blind()
        && crate::gang::enforce::enforce(
            &ix,
            &mut placement.node_of_task,
            &mut placement.task_reason,
        )
        && placement.status == Status::Optimal
    {
        placement.status = Status::Heuristic;
    }
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
    let response = answer::build(&ix, &model, &outcome, opts);
    finite::check_answer(req, &response)?;
    Ok(response)
}

/// Intermediate-space admission after the policy (FAIR §5.4, [`disk::settle`]): maps that
/// would overflow their node's `resources.disk` move to a node that holds them or wait; an
/// exact answer changed that way is `heuristic`; maps that wait for space say `disk`, unless
/// the policy knew that no node can ever hold them (`no_node_fits`, `drf`).
fn admit_disk(ix: &Indexed<'_>, model: &LocalityCost<'_, '_>, placement: &mut Placement) {
    let settled = disk::settle(ix, model, &mut placement.node_of_task);
    if settled.changed() && placement.status == Status::Optimal {
        placement.status = Status::Heuristic;
    }
    if settled.waits.contains(&true) {
        let reasons = &mut placement.task_reason;
        reasons.resize(settled.waits.len(), None);
        for (reason, &waits) in reasons.iter_mut().zip(&settled.waits) {
            if waits && *reason != Some(WaitReason::NoNodeFits) {
                *reason = Some(WaitReason::Disk);
            }
        }
    }
}

/// lsap-sched's dense cost matrix of one kind (pending tasks × free slots in node order), in
/// seconds × α: what `placer export-matrix` writes for a dense solver to check against.
///
/// # Complexity
/// O(tasks · free slots) time and memory.
///
/// # Errors
/// [`SolveError::Invalid`] for a snapshot that fails validation,
/// [`SolveError::ProblemTooLarge`] beyond `crate::matrix::MAX_DENSE_CELLS` entries,
/// [`SolveError::CostOverflow`] for costs beyond f64 ([`finite::check_costs`]).
pub fn cost_matrix(req: &PlaceRequest, kind: TaskKind) -> Result<Array2<f64>, SolveError> {
    registry::check_settings(&req.policy)?;
    let resolved = placer_models::validate_resolved(req)?;
    let ix = Indexed::with_resolved(req, resolved);
    let model = LocalityCost::new(&ix);
    finite::check_costs(&ix, &model)?;
    Ok(CostMatrix::new(&ix, &model, kind, false)?.dense(|c| c))
}
