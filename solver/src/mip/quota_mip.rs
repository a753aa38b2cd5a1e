//! `lsap_quota` with gangs and topology domains solved exactly as a mixed-integer program by
//! HiGHS through `good_lp` (`policy.solver: mip`): lsap-sched's locality assignment (Guo, Fox,
//! Zhou §3.2) under `lsap_quota`'s pool quotas, with KEP-4671's all-or-nothing gangs and
//! Kueue's topology domains as binary indicators. The reference the heuristic
//! ([`crate::gang::heuristic`]) is measured against; the problem and its score are
//! [`crate::gang::GangProblem`]'s.
//!
//! # Formulation
//!
//! Variables (both kinds in one model):
//! - x_{t,n} ∈ {0, 1}: eligible task t on node n, for n with a free slot of t's kind (and, for
//!   a `required` job, n in one of its allowed domains); none for a
//!   [`GangProblem::blocked`] job's tasks;
//! - f_{p,k} ∈ [0, flex_p]: pool p's units of kind k beyond its `must`; s_{j,k} ≥ 0: job j's
//!   units of kind k beyond its share;
//! - y_j ∈ {0, 1} for each gang or topology job: j starts; z_{j,d} ∈ {0, 1} for each allowed
//!   domain d of a topology job: j's domain; w_{t,n} ≥ 0 for a `preferred` job's x_{t,n}: t
//!   placed outside j's domain.
//!
//! Constraints:
//! - Σ_n x_{t,n} ≤ y_j (≤ 1 for a job without y): each task at most once, and only if j
//!   starts;
//! - Σ_{t of kind k} x_{t,n} ≤ free_k(n);
//! - quotas per kind: Σ_{t of p} x ≤ must_p + f_{p,k}, Σ_{p in group g} f_{p,k} ≤ groups\[g\];
//!   s_{j,k} ≥ Σ_{t of j, kind k} x − share_{j,k};
//! - intermediate space (FAIR §5.4): Σ_{maps t} output_t · x_{t,n} ≤ disk_n on a node with a
//!   `disk`, and no x_{t,n} for a map whose output alone exceeds it;
//! - copy-compute splitting (FAIR §5.2): Σ_{reduces t of j} x_{t,n} ≤ j's copy room on a
//!   node with caps;
//! - slices (Kueue TAS's `podset-slice-size`): Σ_{t of j, n in d} x_{t,n} = size_j · q_{j,d},
//!   q_{j,d} ≥ 0 integer, per domain d of j's slice level, and no x_{t,n} on a node in none;
//! - gangs: Σ_{t of j} Σ_n x_{t,n} + running_j ≥ `min_member` · y_j;
//! - domains: Σ_d z_{j,d} = y_j; `required`: x_{t,n} ≤ z_{j,d(n)}; `preferred`: w_{t,n} ≥
//!   x_{t,n} − z_{j,d(n)} (w_{t,n} = x_{t,n} when n is in no allowed domain).
//!
//! Objective, lexicographic in two solves: (1) maximise Σ x (the flow's maximum); (2) with
//! Σ x ≥ that count, minimise Σ c(t, n) x_{t,n} + Σ s_{j,k} + Σ penalty_j · w_{t,n}, the costs
//! in [`GangProblem`]'s integer units. Every coefficient is an integer, so HiGHS's absolute gap
//! of 0.5 makes the answer optimal. HiGHS runs single-threaded with a fixed seed.

use super::ras_mip::MipLimits;
use crate::error::SolveError;
use crate::gang::heuristic::GangAnswer;
use crate::gang::GangProblem;
use good_lp::solvers::highs::{highs, HighsProblem};
use good_lp::{variable, Expression, ProblemVariables, Solution, SolutionStatus, SolverModel};
use good_lp::{ResolutionError, Variable};
use placer_models::Status;

/// The most variables the gang MIP builds (x, w, y, z, f and s together); above it,
/// `422 problem_too_large` at `policy.solver`.
pub const MAX_GANG_VARIABLES: usize = 50_000;

/// The model's variables.
struct Vars {
    /// (task, node, x, w) for every placement variable.
    x: Vec<(usize, u32, Variable, Option<Variable>)>,
    /// y per job (gang or topology jobs).
    y: Vec<Option<Variable>>,
    /// (domain, z) per topology job.
    z: Vec<Vec<(u32, Variable)>>,
    /// f per kind and pool.
    f: [Vec<Variable>; 2],
    /// s per kind and job.
    s: [Vec<Variable>; 2],
    /// q per (job with slices, slice domain its pairs reach): whole slices placed there.
    q: Vec<((usize, u32), Variable)>,
}

/// Solves `p` exactly (module docs): the node of each pending task, `optimal` or
/// `time_limited`, and the blocked jobs' reasons.
///
/// # Complexity
/// A model of O(Σ_t candidate nodes + jobs · domains + pools) variables; HiGHS's branch and
/// bound is exponential in the worst case (hence [`MAX_GANG_VARIABLES`] and `limits`).
///
/// # Errors
/// [`SolveError::ProblemTooLarge`] at `policy.solver` above [`MAX_GANG_VARIABLES`];
/// [`SolveError::EngineFailed`] when HiGHS fails without a limit to blame.
///
/// # Examples
/// Two one-slot nodes in two racks and a gang of 2 that requires one rack: it cannot start,
/// and a plain job's task takes a slot.
/// ```
/// use placer_solver::{Indexed, LocalityCost, fair::fair_shares, gang, mip};
/// let req = placer_models::parse_request(br#"{"schema_version": 1,
///   "cluster": {"racks": [{"id": "r1"}, {"id": "r2"}], "nodes": [
///     {"id": "a", "rack": "r1", "map_slots": 1}, {"id": "b", "rack": "r2", "map_slots": 1}]},
///   "pools": [{"id": "p"}], "jobs": [{"id": "g", "pool": "p", "gang": {"min_member": 2},
///     "topology": {"level": "rack", "mode": "required"}}, {"id": "j", "pool": "p"}],
///   "pending": [{"id": "g0", "job": "g", "kind": "map"}, {"id": "g1", "job": "g", "kind": "map"},
///               {"id": "t", "job": "j", "kind": "map"}]}"#).unwrap();
/// let ix = Indexed::new(&req);
/// let model = LocalityCost::new(&ix);
/// let shares = fair_shares::compute(&ix);
/// let p = gang::GangProblem::new(&ix, &model, &shares, None).unwrap();
/// let answer = mip::quota_mip::solve(&p, mip::MipLimits::default()).unwrap();
/// assert_eq!(answer.node_of_task[..2], [None, None]);
/// assert!(answer.node_of_task[2].is_some());
/// assert_eq!(answer.status, placer_models::Status::Optimal);
/// ```
pub fn solve(p: &GangProblem<'_>, limits: MipLimits) -> Result<GangAnswer, SolveError> {
    let ix = p.ix;
    let pending = ix.req.pending.len();
    let mut reason = vec![None; pending];
    for (t, r) in reason.iter_mut().enumerate() {
        *r = p.blocked[ix.pending_job[t] as usize];
    }
    // Candidate (task, node) pairs.
    let mut pairs: Vec<(usize, u32)> = Vec::new();
    for (k, tasks) in p.tasks.iter().enumerate() {
        for &t in tasks {
            let j = ix.pending_job[t] as usize;
            if p.blocked[j].is_some() {
                continue;
            }
            let rule = p.jobs[j].topology.as_ref();
            for n in 0..ix.node_rack.len() as u32 {
                if p.free[k][n as usize] == 0 || !ix.disk_admits(t, n) {
                    continue;
                }
                if let Some(r) = rule.filter(|r| r.required) {
                    if !p.domain(r, n).is_some_and(|d| r.allowed.contains(&d)) {
                        continue;
                    }
                }
                if p.jobs[j].slice.is_some() && slice_of(p, t, n).is_none() {
                    continue;
                }
                pairs.push((t, n));
            }
        }
    }
    let domains: usize =
        p.jobs.iter().filter_map(|j| j.topology.as_ref()).map(|r| r.allowed.len()).sum();
    let size = 2 * pairs.len() + 3 * p.jobs.len() + domains + p.quotas[0].must.len() * 2;
    if size > MAX_GANG_VARIABLES {
        return Err(SolveError::ProblemTooLarge {
            path: "policy.solver".to_owned(),
            message: format!(
                "the gang MIP needs about {size} variables ({} task-node pairs), over its limit \
                 of {MAX_GANG_VARIABLES}",
                pairs.len()
            ),
        });
    }
    if pairs.is_empty() {
        return Ok(GangAnswer {
            node_of_task: vec![None; pending],
            reason,
            status: Status::Optimal,
        });
    }
    let first = run(p, &pairs, None, limits).map_err(|e| failed(&e))?;
    let count = first.0.iter().flatten().count() as f64;
    let (node_of_task, limited) = match run(p, &pairs, Some(count), limits) {
        Ok((at, limited)) => (at, limited || first.1),
        Err(_) if limits.time_limit_s.is_some() || limits.max_nodes.is_some() => (first.0, true),
        Err(e) => return Err(failed(&e)),
    };
    let status = if limited { Status::TimeLimited } else { Status::Optimal };
    Ok(GangAnswer { node_of_task, reason, status })
}

/// One solve: maximise the placements (`count` = `None`), or minimise the cost with at least
/// `count` placements. The node of each task and whether a limit cut it.
fn run(
    p: &GangProblem<'_>,
    pairs: &[(usize, u32)],
    count: Option<f64>,
    limits: MipLimits,
) -> Result<(Vec<Option<u32>>, bool), ResolutionError> {
    let ix = p.ix;
    let mut vars = ProblemVariables::new();
    let jobs = p.jobs.len();
    let y: Vec<Option<Variable>> = (0..jobs)
        .map(|j| {
            let rule = &p.jobs[j];
            let domains = rule.topology.as_ref().is_some_and(|r| !r.allowed.is_empty());
            (p.blocked[j].is_none() && (rule.gang.is_some() || domains))
                .then(|| vars.add(variable().binary()))
        })
        .collect();
    let z: Vec<Vec<(u32, Variable)>> = (0..jobs)
        .map(|j| match (&p.jobs[j].topology, y[j]) {
            (Some(r), Some(_)) => {
                r.allowed.iter().map(|&d| (d, vars.add(variable().binary()))).collect()
            }
            _ => Vec::new(),
        })
        .collect();
    let x: Vec<(usize, u32, Variable, Option<Variable>)> = pairs
        .iter()
        .map(|&(t, n)| {
            let j = ix.pending_job[t] as usize;
            let preferred = p.jobs[j].topology.as_ref().is_some_and(|r| !r.required);
            let w = preferred.then(|| vars.add(variable().min(0.0)));
            (t, n, vars.add(variable().binary()), w)
        })
        .collect();
    let f = [0, 1].map(|k| {
        p.quotas[k]
            .flex
            .iter()
            .map(|&(flex, _)| vars.add(variable().min(0.0).max(flex as f64)))
            .collect::<Vec<_>>()
    });
    let s = [0, 1].map(|_| (0..jobs).map(|_| vars.add(variable().min(0.0))).collect::<Vec<_>>());
    let slices: std::collections::BTreeSet<(usize, u32)> =
        pairs.iter().filter_map(|&(t, n)| slice_of(p, t, n)).collect();
    let q = slices.into_iter().map(|key| (key, vars.add(variable().integer().min(0.0)))).collect();
    let v = Vars { x, y, z, f, s, q };

    let mut placed = Expression::from(0.0);
    let mut cost = Expression::from(0.0);
    for &(t, n, x, w) in &v.x {
        placed += x;
        cost.add_mul(p.cost(t, n).unwrap_or(0) as f64, x);
        if let Some(w) = w {
            let j = ix.pending_job[t] as usize;
            let penalty = p.jobs[j].topology.as_ref().map_or(0, |r| r.penalty);
            cost.add_mul(penalty as f64, w);
        }
    }
    for k in 0..2 {
        for &s in &v.s[k] {
            cost += s;
        }
    }
    let mut lp: HighsProblem = match count {
        None => vars.maximise(placed.clone()).using(highs),
        Some(_) => vars.minimise(cost).using(highs),
    };
    lp = lp
        .set_threads(1)
        .set_option("random_seed", 0)
        .set_option("mip_rel_gap", 0.0)
        .set_option("mip_abs_gap", 0.5);
    if let Some(secs) = limits.time_limit_s {
        lp = lp.set_time_limit((secs / 2.0).max(0.0));
    }
    if let Some(nodes) = limits.max_nodes {
        lp = lp.set_option("mip_max_nodes", i32::try_from(nodes).unwrap_or(i32::MAX));
    }
    if let Some(count) = count {
        lp.add_constraint(placed.geq(count - 0.5));
    }
    constrain(p, &v, &mut lp);
    let solution = lp.solve()?;
    let limited = matches!(solution.status(), SolutionStatus::TimeLimit);
    let mut at = vec![None; ix.req.pending.len()];
    for &(t, n, x, _) in &v.x {
        if solution.value(x) > 0.5 {
            at[t] = Some(n);
        }
    }
    Ok((at, limited))
}

/// The rows of the module docs.
fn constrain(p: &GangProblem<'_>, v: &Vars, lp: &mut HighsProblem) {
    let ix = p.ix;
    let jobs = p.jobs.len();
    let nodes = ix.node_rack.len();
    let mut of_task: std::collections::BTreeMap<usize, Expression> = Default::default();
    let mut on_node: Vec<[Expression; 2]> = (0..nodes).map(|_| [0.0.into(), 0.0.into()]).collect();
    let mut of_job: Vec<[Expression; 2]> = (0..jobs).map(|_| [0.0.into(), 0.0.into()]).collect();
    for &(t, n, x, w) in &v.x {
        let k = ix.req.pending[t].kind.slot();
        let j = ix.pending_job[t] as usize;
        *of_task.entry(t).or_insert_with(|| 0.0.into()) += x;
        on_node[n as usize][k] += x;
        of_job[j][k] += x;
        let rule = p.jobs[j].topology.as_ref();
        let z =
            rule.and_then(|r| p.domain(r, n)).and_then(|d| v.z[j].iter().find(|(e, _)| *e == d));
        match (rule, z) {
            (Some(r), Some(&(_, z))) if r.required => {
                lp.add_constraint(Expression::from(x).leq(z));
            }
            (Some(_), Some(&(_, z))) => {
                if let Some(w) = w {
                    lp.add_constraint(Expression::from(w).geq(Expression::from(x) - z));
                }
            }
            (_, None) => {
                if let Some(w) = w {
                    lp.add_constraint(Expression::from(w).geq(x));
                }
            }
            _ => {}
        }
    }
    // Slices: the placements of a job in each slice domain are q whole slices.
    let mut in_slice: std::collections::BTreeMap<(usize, u32), Expression> = Default::default();
    for &(t, n, x, _) in &v.x {
        if let Some(key) = slice_of(p, t, n) {
            *in_slice.entry(key).or_insert_with(|| 0.0.into()) += x;
        }
    }
    for &((j, d), q) in &v.q {
        let size = p.jobs[j].slice.map_or(1, |(_, size)| size);
        if let Some(sum) = in_slice.remove(&(j, d)) {
            lp.add_constraint(sum.eq(Expression::from(q) * f64::from(size)));
        }
    }
    for (&t, sum) in &of_task {
        let j = ix.pending_job[t] as usize;
        match v.y[j] {
            Some(y) => lp.add_constraint(sum.clone().leq(y)),
            None => lp.add_constraint(sum.clone().leq(1.0)),
        };
    }
    // Intermediate space (FAIR §5.4): the maps placed on a node fit its `disk`.
    if ix.has_disk() {
        let mut written: Vec<Expression> = (0..nodes).map(|_| 0.0.into()).collect();
        for &(t, n, x, _) in &v.x {
            let output = ix.output(t);
            if output > 0 && ix.disk[n as usize].is_some() {
                written[n as usize].add_mul(output as f64, x);
            }
        }
        for (n, e) in written.into_iter().enumerate() {
            if let Some(disk) = ix.disk[n] {
                lp.add_constraint(e.leq(disk as f64));
            }
        }
    }
    // Copy-compute splitting (FAIR §5.2): a job's reduces placed on a node with caps fit its
    // copy room there.
    let mut copying: std::collections::BTreeMap<(u32, u32), Expression> = Default::default();
    for &(t, n, x, _) in &v.x {
        if ix.req.pending[t].kind == placer_models::TaskKind::Reduce
            && ix.copy_limit[n as usize].is_some()
        {
            *copying.entry((ix.pending_job[t], n)).or_insert_with(|| 0.0.into()) += x;
        }
    }
    for ((j, n), e) in copying {
        lp.add_constraint(e.leq(f64::from(ix.copy_room(j, n))));
    }
    for (n, kinds) in on_node.into_iter().enumerate() {
        for (k, e) in kinds.into_iter().enumerate() {
            if p.free[k][n] > 0 {
                lp.add_constraint(e.leq(f64::from(p.free[k][n])));
            }
        }
    }
    for (k, q) in p.quotas.iter().enumerate() {
        let mut pool: Vec<Expression> = (0..q.must.len()).map(|_| 0.0.into()).collect();
        for (j, placed) in of_job.iter().enumerate() {
            pool[q.job_pool[j] as usize] += placed[k].clone();
            lp.add_constraint(
                Expression::from(v.s[k][j]).geq(placed[k].clone() - q.job_share[j] as f64),
            );
        }
        let mut group: [Expression; 2] = [0.0.into(), 0.0.into()];
        for (p_, e) in pool.into_iter().enumerate() {
            lp.add_constraint(e.leq(Expression::from(v.f[k][p_]) + q.must[p_] as f64));
            group[q.flex[p_].1] += v.f[k][p_];
        }
        for (g, e) in group.into_iter().enumerate() {
            lp.add_constraint(e.leq(q.groups[g] as f64));
        }
    }
    for (j, (rule, placed)) in p.jobs.iter().zip(&of_job).enumerate() {
        let Some(y) = v.y[j] else { continue };
        if let Some(m) = rule.gang {
            let sum = placed[0].clone() + placed[1].clone() + f64::from(rule.running);
            lp.add_constraint(sum.geq(Expression::from(y) * f64::from(m)));
        }
        if !v.z[j].is_empty() {
            let mut sum = Expression::from(0.0);
            for &(_, z) in &v.z[j] {
                sum += z;
            }
            lp.add_constraint(sum.eq(y));
        }
    }
}

/// HiGHS's failure as an error at `policy.solver`.
fn failed(e: &ResolutionError) -> SolveError {
    SolveError::EngineFailed { path: "policy.solver".to_owned(), message: e.to_string() }
}

/// The (job, slice domain) of task `t` on node `n` when t's job has slices; `None` without
/// slices or on a node outside every domain of the slice level.
fn slice_of(p: &GangProblem<'_>, t: usize, n: u32) -> Option<(usize, u32)> {
    let j = p.ix.pending_job[t] as usize;
    let (level, _) = p.jobs[j].slice?;
    p.domains[level].of_node.get(n as usize).copied().flatten().map(|d| (j, d))
}
