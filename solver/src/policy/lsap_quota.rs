//! `lsap_quota`, placer's default: lsap-sched's exact locality assignment (Guo, Fox, Zhou §3.2)
//! with fair shares as hard capacities on the pool and job arcs of Quincy's network, the
//! fairness distance of lsap-fair-sched §4.4 as the measure of "fair", FAIR's delay levels
//! (Alg. 1) as arc surcharges, and work conservation (FAIR §3.3: idle slots go to whoever can
//! use them).
//!
//! Per slot kind, with F = min(eligible tasks, free slots) placements to make:
//! 1. **Pool counts.** The fairness distance D of the answer depends only on how many tasks
//!    each pool runs after it. With R = Σ running over the weighted active pools plus the T
//!    units they receive, D·|A| = Σ_p |r_p + c_p − R·w_p| / (R·w_p): separable and convex in
//!    each c_p ∈ [0, u_p] (u_p = the pool's eligible tasks). The T cheapest unit marginals
//!    (at most three distinct per pool: −1/(R·w_p) below the share, one crossing unit,
//!    +1/(R·w_p) above) are taken; with λ the marginal of the T-th unit, every pool must
//!    receive the units below λ (`must`) and may receive those at λ (`flex`): exactly the set
//!    of D-optimal counts. T is chosen among the feasible totals (weight-0 pools take the
//!    rest) for the least D, ties to the larger T; with at most one weighted active pool D is
//!    0 for every split, so all pools share one flex group. This is FAIR App. A's weighted
//!    water-filling on this epoch's total, in whole tasks and capped by demand.
//! 2. **Locality.** Among the D-optimal answers, the least total transfer time (lsap-sched's
//!    cost, in the same integer units as `lsap`).
//! 3. **Jobs and delay levels**, among answers of equal locality cost (cluster matrices are
//!    full of such ties: every node-local slot costs 0). Inside a pool a job's units within
//!    ⌈its fair share⌉ − running (the design doc's water-filling, [`crate::fair::fair_shares`]) are
//!    free and each unit beyond costs one surcharge; a placement more remote than the job's
//!    delay level (0 node-local, 1 rack-local, 2 any: FAIR Alg. 1's level at the start of the
//!    epoch from the echoed `jobs[].delay` and the wait since its last skip, against T1 and
//!    T1 + T2; 2 for jobs of starved pools) costs one more. Locality costs are scaled by
//!    2 · tasks + 1 so the surcharges never outweigh a locality difference.
//! 4. The network S → pool (`must`) | S → flex group → pool (`flex`) → job → task → replica
//!    nodes / rack / cluster → nodes → T is solved exactly by
//!    [`structured::solve`](crate::flow::structured::solve).
//!
//! Steps 1–4 take the cost model as a parameter ([`place_under_quotas`]): `lsap_shuffle`
//! runs them on its shuffle-aware model ([`crate::shuffle::cost`]) with per-task credits and
//! no delay levels.
//!
//! Why pools are hard and jobs and levels soft: the goals are that D never exceed `fair`'s,
//! that locality never exceed `lsap_fair`'s, and that idle slots be filled (FAIR §3.3). A hard
//! job cap or a hard delay restriction can leave a slot idle or force a more remote placement
//! than `lsap_fair` (which knows neither) would make; the lexicographic order keeps all three
//! promises and still applies both wherever locality is indifferent. After the answer a job
//! that launched maps gets the level of its least local launch and wait 0; one that launched
//! none waits on (`skipped_at_s = now_s`).
//!
//! Guarantees (property-tested in `tests/fair_properties.rs`): the pool counts are D-optimal among all
//! work-conserving answers, so D never exceeds `fair`'s (which places as many tasks); among
//! the D-optimal answers the one chosen is the most local. `lsap_fair` can be more local only
//! by being less fair (its FC is a per-task price, not a constraint); whenever its pool counts
//! are D-optimal too, it is never more local than `lsap_quota`.
//!
//! lsap_quota never preempts: it reaches the shares through the free slots of every epoch, and
//! a victim would lower a pool's running count after the answer, so D's promise would depend
//! on the victims. Starved pools still skip the delay wait. Reduces under copy-compute
//! splitting caps keep `lsap`'s capped flow (no quotas). Intermediate space (FAIR §5.4,
//! [`crate::fair::disk`]): a map that no node with a free slot could hold is not placeable (no
//! unit of its pool's counts), refused (task, node) pairs are left out of the network, and
//! the pipeline then holds the answer to each node's space; only the pairwise part is exact.
//! Cost: O(pools log pools · |feasible totals|) for the counts, plus the structured solve.
//!
//! Gangs and topology domains ([`crate::gang`]): the heuristic on `auto` and `flow`, the MIP on
//! `mip`, on free slots less those held for gangs that have waited past
//! `gang_reserve_after_s` ([`crate::gang::reservation`]: FAIR §3.2's timeout, answered by
//! holding a domain's freed slots rather than killing tasks).

use super::{Epoch, Placement, Policy};
use crate::cost::LocalityCost;
use crate::delay_scheduling::{self, DelayState};
use crate::echo::Field;
use crate::error::SolveError;
use crate::exact::{self, Objective, Problem, Quotas};
use crate::fair::disk;
use crate::fair::fair_shares::FairShares;
use crate::fair::starvation::Starvation;
use crate::fairness::fairness_distance;
use crate::index::Indexed;
use crate::settings::{Declared, Knobs};
use placer_models::{Locality, SolverEngine, Status, TaskKind};

/// The D-optimal pool counts of one kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShareBox {
    /// Units each pool must receive.
    pub must: Vec<u64>,
    /// Units each pool may receive beyond `must` (weight-0 pools: all their eligible tasks).
    pub flex: Vec<u64>,
    /// Each pool's flex group: 0 for the weighted active pools, 1 for the others (all pools
    /// share group 0 when at most one is weighted: D is then 0 whatever the split).
    pub group: Vec<usize>,
    /// Units through each flex group (beyond the `must` units).
    pub groups: [u64; 2],
}

/// A pool's marginal D cost segments: (marginal, units).
fn segments(r: f64, u: u64, rw: f64) -> [(f64, u64); 3] {
    let x = rw - r;
    let below = if x <= 0.0 { 0 } else { (x.floor() as u64).min(u) };
    let crossing = u64::from(below < u && x > 0.0 && x.fract() > 0.0);
    let frac = x - x.floor();
    [(-1.0 / rw, below), ((1.0 - 2.0 * frac) / rw, crossing), (1.0 / rw, u - below - crossing)]
}

/// The box for `total` units over the weighted pools: (must, flex, D·|A| of its greedy fill).
fn box_for(
    weight: &[f64],
    running: &[u64],
    placeable: &[u64],
    active: &[bool],
    total: u64,
) -> (Vec<u64>, Vec<u64>, f64) {
    let pools = weight.len();
    let weighted = |p: usize| active[p] && weight[p] > 0.0;
    let sum_w: f64 = (0..pools).filter(|&p| weighted(p)).map(|p| weight[p]).sum();
    let r_total: u64 = (0..pools).filter(|&p| weighted(p)).map(|p| running[p]).sum();
    let big_r = (r_total + total) as f64;
    let mut must = vec![0u64; pools];
    let mut flex = vec![0u64; pools];
    if total == 0 || big_r <= 0.0 {
        let counts: Vec<f64> = running.iter().map(|&r| r as f64).collect();
        return (must, flex, fairness_distance(weight, &counts, active));
    }
    let mut segs: Vec<(f64, usize, u64)> = Vec::new();
    for p in (0..pools).filter(|&p| weighted(p)) {
        let rw = big_r * weight[p] / sum_w;
        for (m, n) in segments(running[p] as f64, placeable[p], rw) {
            if n > 0 {
                segs.push((m, p, n));
            }
        }
    }
    segs.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    // λ: the marginal of the total-th unit.
    let mut left = total;
    let mut lambda = f64::INFINITY;
    for &(m, _, n) in &segs {
        if left <= n {
            lambda = m;
            break;
        }
        left -= n;
    }
    let tol = 1e-12 * lambda.abs().max(1.0 / big_r);
    for &(m, p, n) in &segs {
        if m < lambda - tol {
            must[p] += n;
        } else if m <= lambda + tol {
            flex[p] += n;
        }
    }
    // Units at λ that the total needs all of are not a choice.
    if must.iter().sum::<u64>() + flex.iter().sum::<u64>() == total {
        for p in 0..pools {
            must[p] += std::mem::take(&mut flex[p]);
        }
    }
    // D of one fill of the box (all fills have the same D).
    let mut counts: Vec<f64> = running.iter().map(|&r| r as f64).collect();
    let mut extra = total - must.iter().sum::<u64>();
    for p in 0..pools {
        let f = flex[p].min(extra);
        extra -= f;
        counts[p] += (must[p] + f) as f64;
    }
    (must, flex, fairness_distance(weight, &counts, active))
}

/// The D-optimal counts for `slots` free slots (see the module docs, step 1), in tasks: with
/// R = Σ running over the weighted active pools + the T units they receive, the counts c_p ∈
/// [0, `placeable`_p] minimise D · |A| = Σ_p |r_p + c_p − R · w_p| / (R · w_p) (the fairness
/// distance of lsap-fair-sched §4.4 after the answer), with T the least-D feasible total
/// (ties to the larger) and weight-0 pools taking the rest; every pool receives its `must`
/// units and up to its `flex` ones, exactly the D-optimal set.
///
/// # Complexity
/// O(|feasible totals| · pools log pools) time (one sort of the ≤ 3 marginal segments per
/// pool for each total T), O(pools) space.
///
/// # Errors
/// None: a pool without weight, activity or placeable tasks simply gets no `must` units.
///
/// # Examples
/// Hand-derived: weights 1 : 1, running 6 and 2, 4 free slots, 10 placeable tasks each.
/// R = 6 + 2 + 4 = 12, so each pool's share is R · w = 6: pool 0 is at it (each more unit
/// adds +1/6 to D · |A|), pool 1 is 4 below (each unit −1/6). D = 0 only with all 4 to
/// pool 1, so it must take them all and nothing is left to choose.
/// ```
/// use placer_solver::policy::share_box;
/// let b = share_box(&[1.0, 1.0], &[6, 2], &[10, 10], &[true, true], 4);
/// assert_eq!(b.must, vec![0, 4]);
/// assert_eq!(b.flex, vec![0, 0]);
/// assert_eq!(b.groups, [0, 0]);
/// ```
pub fn share_box(
    weight: &[f64],
    running: &[u64],
    placeable: &[u64],
    active: &[bool],
    slots: u64,
) -> ShareBox {
    let pools = weight.len();
    let weighted = |p: usize| active[p] && weight[p] > 0.0;
    let total: u64 = placeable.iter().sum::<u64>().min(slots);
    let cap_w: u64 = (0..pools).filter(|&p| weighted(p)).map(|p| placeable[p]).sum();
    let cap_0 = placeable.iter().sum::<u64>() - cap_w;
    let (low, high) = (total.saturating_sub(cap_0), total.min(cap_w));
    let mut best: Option<(f64, u64, Vec<u64>, Vec<u64>)> = None;
    for t in (low..=high).rev() {
        let (must, flex, d) = box_for(weight, running, placeable, active, t);
        if best.as_ref().is_none_or(|b| d < b.0 - 1e-12) {
            best = Some((d, t, must, flex));
        }
    }
    if (0..pools).filter(|&p| weighted(p)).count() <= 1 {
        return ShareBox {
            must: vec![0; pools],
            flex: placeable.to_vec(),
            group: vec![0; pools],
            groups: [total, 0],
        };
    }
    let (_, weighted_total, must, mut flex) =
        best.unwrap_or((0.0, 0, vec![0; pools], vec![0; pools]));
    for p in (0..pools).filter(|&p| !weighted(p)) {
        flex[p] = placeable[p];
    }
    let group = (0..pools).map(|p| usize::from(!weighted(p))).collect();
    let groups = [weighted_total - must.iter().sum::<u64>(), total - weighted_total];
    ShareBox { must, flex, group, groups }
}

/// FAIR Alg. 1's level of every job at the start of the epoch (2 for jobs of starved pools),
/// and its state with the wait since the last skip added.
fn delay_levels(ix: &Indexed<'_>, starvation: &Starvation) -> (Vec<u8>, Vec<DelayState>) {
    delay_scheduling::start(ix.req)
        .into_iter()
        .enumerate()
        .map(|(j, d)| {
            let starved = starvation.starved_before(0, ix.job_pool[j] as usize);
            let level = if starved { 2 } else { delay_scheduling::level(&d.state, d.t1, d.t2) };
            (level, d.state)
        })
        .unzip()
}

/// The quotas of one kind (module docs, step 1): the D-optimal pool counts of [`share_box`]
/// for the kind's free slots and placeable tasks, and each job's units within its share,
/// ⌈fair share⌉ − running (tasks).
///
/// # Complexity
/// O(jobs + eligible tasks + nodes) plus [`share_box`].
///
/// # Errors
/// None.
///
/// # Examples
/// Two pools of weight 1, one job each, 2 free map slots and 2 pending maps per job: R = 2,
/// each pool's share is 1, so each must receive exactly one unit and nothing is left to choose.
/// ```
/// use placer_models::TaskKind;
/// use placer_solver::{fair::fair_shares, Indexed, policy::quotas};
/// let req = placer_models::parse_request(br#"{"schema_version": 1,
///   "cluster": {"racks": [{"id": "r"}], "nodes": [{"id": "n", "rack": "r", "map_slots": 2}]},
///   "pools": [{"id": "a"}, {"id": "b"}],
///   "jobs": [{"id": "ja", "pool": "a"}, {"id": "jb", "pool": "b"}],
///   "pending": [{"id": "a0", "job": "ja", "kind": "map"},
///               {"id": "a1", "job": "ja", "kind": "map"},
///               {"id": "b0", "job": "jb", "kind": "map"},
///               {"id": "b1", "job": "jb", "kind": "map"}]}"#)
///   .unwrap();
/// let ix = Indexed::new(&req);
/// let q = quotas(&ix, &fair_shares::compute(&ix), TaskKind::Map);
/// assert_eq!((q.must, q.groups), (vec![1, 1], [0, 0]));
/// assert_eq!(q.job_share, vec![1, 1]);
/// ```
pub fn quotas(ix: &Indexed<'_>, shares: &FairShares, kind: TaskKind) -> Quotas {
    quotas_of(ix, shares, kind, &ix.eligible_of_kind[kind.slot()])
}

/// [`quotas`] with `eligible` (pending positions of tasks of `kind`) as the kind's eligible
/// tasks: the gang placement ([`crate::gang`]) leaves out the tasks of gangs that cannot
/// start.
///
/// # Complexity
/// As [`quotas`].
///
/// # Errors
/// None.
///
/// # Examples
/// [`quotas`]' example with job `jb`'s tasks left out: pool b has nothing placeable, so pool a
/// may take both slots (one weighted active pool with placeable tasks: all flex).
/// ```
/// use placer_models::TaskKind;
/// use placer_solver::{fair::fair_shares, Indexed, policy::lsap_quota::quotas_of};
/// let req = placer_models::parse_request(br#"{"schema_version": 1,
///   "cluster": {"racks": [{"id": "r"}], "nodes": [{"id": "n", "rack": "r", "map_slots": 2}]},
///   "pools": [{"id": "a"}, {"id": "b"}],
///   "jobs": [{"id": "ja", "pool": "a"}, {"id": "jb", "pool": "b"}],
///   "pending": [{"id": "a0", "job": "ja", "kind": "map"},
///               {"id": "a1", "job": "ja", "kind": "map"},
///               {"id": "b0", "job": "jb", "kind": "map"},
///               {"id": "b1", "job": "jb", "kind": "map"}]}"#)
///   .unwrap();
/// let ix = Indexed::new(&req);
/// let q = quotas_of(&ix, &fair_shares::compute(&ix), TaskKind::Map, &[0, 1]);
/// assert_eq!(q.must.iter().sum::<u64>() + q.groups.iter().sum::<u64>(), 2);
/// assert_eq!(q.flex[1].0 + q.must[1], 0);
/// ```
pub fn quotas_of(
    ix: &Indexed<'_>,
    shares: &FairShares,
    kind: TaskKind,
    eligible: &[usize],
) -> Quotas {
    let req = ix.req;
    let k = kind.slot();
    let pools = req.pools.len();
    let mut running = vec![0u64; pools];
    let mut pending = vec![0u64; pools];
    let mut placeable = vec![0u64; pools];
    for (j, &p) in ix.job_pool.iter().enumerate() {
        running[p as usize] += u64::from(ix.job_running[k][j]);
        pending[p as usize] += u64::from(ix.job_demand_pending(k, j));
    }
    // A map that no node with a free slot has the intermediate space for cannot be placed
    // (FAIR §5.4): it is no unit of its pool's quota.
    let fits = disk::fits_somewhere(ix, kind);
    for &t in eligible.iter().filter(|&&t| fits(t)) {
        placeable[ix.job_pool[ix.pending_job[t] as usize] as usize] += 1;
    }
    let active: Vec<bool> = (0..pools).map(|p| running[p] + pending[p] > 0).collect();
    let weight: Vec<f64> = req.pools.iter().map(|p| p.weight).collect();
    let slots = ix.free_slots(kind);
    let b = share_box(&weight, &running, &placeable, &active, slots);
    let flex = b.flex.iter().copied().zip(b.group.iter().copied()).collect();
    let job_share = (0..req.jobs.len())
        .map(|j| {
            let share = shares.job[j][k].ceil() as u64;
            share.saturating_sub(u64::from(ix.job_running[k][j]))
        })
        .collect();
    Quotas { groups: b.groups, must: b.must, flex, job_pool: ix.job_pool.clone(), job_share }
}

/// `auto` and `flow` (the structured flow) and, in builds with the `mip` feature, `mip`.
#[cfg(feature = "mip")]
pub const QUOTA_ENGINES: &[SolverEngine] =
    &[SolverEngine::Auto, SolverEngine::Flow, SolverEngine::Mip];
/// `auto` and `flow` (the structured flow); this build has no MIP.
#[cfg(not(feature = "mip"))]
pub const QUOTA_ENGINES: &[SolverEngine] = crate::exact::FLOW_ONLY;

/// placer's default: D-optimal pool counts, then locality, then job shares and delay levels.
#[derive(Clone, Copy, Debug, Default)]
pub struct LsapQuota;

impl Policy for LsapQuota {
    fn name(&self) -> &'static str {
        "lsap_quota"
    }

    fn settings(&self) -> &'static [&'static dyn Declared] {
        &[
            &Knobs::<crate::delay_scheduling::Heartbeat>::OF,
            &Knobs::<crate::delay_scheduling::DelayWaits>::OF,
            &Knobs::<crate::gang::GangReserve>::OF,
        ]
    }

    fn job_fields(&self) -> &'static [&'static dyn crate::echo::Declared] {
        &[&Field::<crate::delay_scheduling::DelayState>::OF]
    }

    /// The quota network has no dense form; `mip` ([`crate::mip::quota_mip`]) solves the
    /// epoch with gangs and topology domains exactly, in builds with the `mip` feature.
    fn engines(&self) -> &'static [SolverEngine] {
        QUOTA_ENGINES
    }

    /// Gangs and topology domains: the heuristic of [`crate::gang::heuristic`] on `auto` and
    /// `flow`, the MIP on `mip`.
    fn gangs(&self) -> bool {
        true
    }

    /// Slices: planned whole by the heuristic, exact in the MIP.
    fn slices(&self) -> bool {
        true
    }

    fn place(&self, epoch: &Epoch<'_, '_>) -> Result<Placement, SolveError> {
        place(epoch, true)
    }
}

/// Places every kind of `epoch` under lsap_quota's capacities (module docs, steps 1–4) with
/// the cost model `model` instead of the epoch's: per kind, the pools receive the D-optimal
/// counts of [`quotas`] (hard), and among those answers the flow minimises Σ over placed
/// tasks t of (`model`.cost(t, node) + `offsets`\[t\]) in seconds × α (`offsets` by pending
/// position, any sign; empty = none), then the job-share and delay-level surcharges (maps
/// more remote than their job's `levels` entry, 0 node-local, 1 rack-local, 2 any; `None` =
/// no delay levels). `lsap_quota` passes the epoch's locality model, its delay levels and no
/// offsets; `lsap_shuffle` its shuffle-aware model and credits. Returns the node of each
/// pending task (by position) or `None`, and `optimal`, or `time_limited` when
/// `epoch.cancel` cut a solve ([`exact::solve()`] under [`exact::Control::cancel`]: the flow's partial answer
/// completed greedily within the same capacities).
///
/// # Complexity
/// Per kind, [`quotas`] plus [`exact::solve()`] on the structured flow.
///
/// # Errors
/// What [`exact::solve()`] refuses: a dense engine ([`SolveError::UnsupportedEngine`]),
/// costs beyond the exact integer range ([`SolveError::CostOverflow`]).
///
/// # Examples
/// One free map slot and one pool: a node-local map and a remote one. With the locality model
/// the local map wins; an offset of −20 s on the remote one (a credit larger than its 10.7 s
/// transfer) gives it the slot.
/// ```
/// use placer_solver::{LocalityCost, fair::fair_shares, Indexed, policy::Epoch};
/// use placer_solver::{policy::place_under_quotas, fair::starvation::Starvation};
/// let req = placer_models::parse_request(br#"{"schema_version": 1,
///   "cluster": {"racks": [{"id": "r1"}, {"id": "r2"}],
///     "nodes": [{"id": "n1", "rack": "r1", "map_slots": 1}, {"id": "n2", "rack": "r2"}]},
///   "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}],
///   "pending": [
///     {"id": "local", "job": "j", "kind": "map", "input_bytes": 134217728, "replicas": ["n1"]},
///     {"id": "remote", "job": "j", "kind": "map", "input_bytes": 134217728,
///      "replicas": ["n2"]}]}"#)
///   .unwrap();
/// let ix = Indexed::new(&req);
/// let model = LocalityCost::new(&ix);
/// let shares = fair_shares::compute(&ix);
/// let starvation = Starvation::new(&ix, &shares);
/// let epoch = Epoch { ix: &ix, model: &model, shares: &shares, starvation: &starvation,
///                     engine: placer_models::SolverEngine::Auto, cancel: None, warm: None };
/// let optimal = placer_models::Status::Optimal;
/// assert_eq!(place_under_quotas(&epoch, &model, None, &[]).unwrap(), (vec![Some(0), None], optimal));
/// let credit = [0.0, -20.0];
/// assert_eq!(place_under_quotas(&epoch, &model, None, &credit).unwrap(), (vec![None, Some(0)], optimal));
/// ```
pub fn place_under_quotas(
    epoch: &Epoch<'_, '_>,
    model: &LocalityCost<'_, '_>,
    levels: Option<&[u8]>,
    offsets: &[f64],
) -> Result<(Vec<Option<u32>>, Status), SolveError> {
    let ix = epoch.ix;
    let mut node_of_task = vec![None; ix.req.pending.len()];
    let mut status = Status::Optimal;
    for kind in TaskKind::ALL {
        let q = quotas(ix, epoch.shares, kind);
        // Delay levels apply to maps; reduces ignore locality levels (level 2: any).
        let task_levels: Vec<u8> = (0..ix.req.pending.len())
            .map(|t| match levels {
                Some(l) if kind == TaskKind::Map => {
                    l.get(ix.pending_job[t] as usize).copied().unwrap_or(2)
                }
                _ => 2,
            })
            .collect();
        let objective = Objective::Quota { quotas: &q, levels: &task_levels, offsets };
        let solved = exact::solve(
            Problem { ix, model, kind, engine: epoch.engine, objective },
            epoch.control(),
            &mut node_of_task,
        )?;
        if solved == Status::TimeLimited {
            status = solved;
        }
    }
    Ok((node_of_task, status))
}

/// Places every kind by `lsap_quota` on the structured flow; with `gangs` false, as if no job
/// had a gang or a topology rule (the baseline `lsap_quota_no_gang`).
pub(crate) fn place(epoch: &Epoch<'_, '_>, gangs: bool) -> Result<Placement, SolveError> {
    let (ix, model) = (epoch.ix, epoch.model);
    let (levels, mut delay) = delay_levels(ix, epoch.starvation);
    let constrained = gangs && ix.req.jobs.iter().any(|j| j.gang.is_some() || j.topology.is_some());
    let (node_of_task, status, reasons) = if constrained || epoch.engine == SolverEngine::Mip {
        let mut problem = crate::gang::GangProblem::new(ix, model, epoch.shares, Some(&levels))?;
        if constrained {
            let knob: crate::gang::GangReserve = crate::settings::read(&ix.req.policy);
            crate::gang::reservation::reserve(&mut problem, knob);
        }
        let answer = if epoch.engine == SolverEngine::Mip {
            exact_gangs(&problem)?
        } else {
            crate::gang::heuristic::place_with(&problem, epoch.cancel)
        };
        (answer.node_of_task, answer.status, answer.reason)
    } else {
        let (node_of_task, status) = place_under_quotas(epoch, model, Some(&levels), &[])?;
        (node_of_task, status, Vec::new())
    };
    // Delay state after the epoch (maps only).
    let mut launched: Vec<Option<u8>> = vec![None; ix.req.jobs.len()];
    for &t in &ix.eligible_of_kind[TaskKind::Map.slot()] {
        let j = ix.pending_job[t] as usize;
        if let Some(n) = node_of_task[t] {
            let class = match model.locality(t, n) {
                Locality::Node | Locality::None => 0,
                Locality::Rack => 1,
                Locality::Remote => 2,
            };
            launched[j] = Some(launched[j].map_or(class, |c| c.max(class)));
        }
    }
    let waiting = |j: usize| ix.job_demand_pending(0, j) > 0;
    for (j, d) in delay.iter_mut().enumerate() {
        match launched[j] {
            Some(class) => {
                d.level = class;
                d.wait_s = 0.0;
            }
            None if waiting(j) => d.skipped_at_s = Some(ix.req.now_s),
            None => {}
        }
    }
    let mut placement = Placement::new(node_of_task, status);
    placement.task_reason = reasons;
    placement.set_jobs(&delay.into_iter().map(Some).collect::<Vec<_>>());
    Ok(placement)
}

/// The gang MIP ([`crate::mip::quota_mip`]) under the served node budget.
#[cfg(feature = "mip")]
fn exact_gangs(
    problem: &crate::gang::GangProblem<'_>,
) -> Result<crate::gang::heuristic::GangAnswer, SolveError> {
    let limits = crate::mip::MipLimits {
        max_nodes: Some(crate::policy::ras::MIP_NODE_BUDGET),
        ..crate::mip::MipLimits::default()
    };
    crate::mip::quota_mip::solve(problem, limits)
}

/// No MIP in this build (the pipeline refuses `mip` before this is reached).
#[cfg(not(feature = "mip"))]
fn exact_gangs(
    _: &crate::gang::GangProblem<'_>,
) -> Result<crate::gang::heuristic::GangAnswer, SolveError> {
    Err(SolveError::UnsupportedEngine {
        path: "policy.solver".to_owned(),
        engine: "mip",
        available: "auto, flow".to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_equal_pools_split_the_free_slots_to_reach_their_shares() {
        // Weights 1:1, running 6 and 2, 4 free slots, plenty pending: R = 12, shares 6 and 6;
        // pool 1 must take all 4 (marginal −1/6 each), pool 0 none (+1/6 each).
        let b = share_box(&[1.0, 1.0], &[6, 2], &[10, 10], &[true, true], 4);
        assert_eq!(b.must, vec![0, 4]);
        assert_eq!(b.flex, vec![0, 0]);
        assert_eq!(b.groups, [0, 0]);
    }

    #[test]
    fn a_tie_leaves_the_choice_to_locality() {
        // Weights 1:1, running 5 and 5, 1 free slot: R = 11, either pool is as fair.
        let b = share_box(&[1.0, 1.0], &[5, 5], &[3, 3], &[true, true], 1);
        assert_eq!(b.must, vec![0, 0]);
        assert_eq!(b.flex, vec![1, 1]);
    }

    #[test]
    fn demand_caps_and_weight_zero_pools_take_the_rest() {
        // Weights 1:3:0, running 0, pending 1 / 2 / 5, 6 slots: the weighted pools take all 3
        // they can (D is least with both at their demand), the weight-0 pool the other 3.
        let b = share_box(&[1.0, 3.0, 0.0], &[0, 0, 0], &[1, 2, 5], &[true; 3], 6);
        assert_eq!(b.must, vec![1, 2, 0]);
        assert_eq!(b.flex, vec![0, 0, 5]);
        assert_eq!(b.groups, [0, 3]);
    }
}
