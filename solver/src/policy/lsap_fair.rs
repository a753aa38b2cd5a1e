//! lsap-fair-sched (Guo, Fox, Zhou §3.3, eqs. 4–9 and the "Algorithm skeleton of
//! lsap-fair-sched"), in placer's definitions (docs/policies.md; the paper's formula images
//! were lost). Per slot kind, over the active pools (running or pending tasks of the kind):
//! - w_i = weight_i / Σ active weights; AS = all slots of the kind; rt_i = running tasks;
//!   ut_i = pending tasks of runnable jobs;
//! - sto_i = min(ut_i, max(0, ⌊AS · w_i⌋ − rt_i)) (slots to occupy, eq. 9);
//! - GFC_i = β · rt_i / (AS · w_i) · (1 − w_i) (eq. 6);
//! - FC: the first sto_i of pool i's tasks get GFC_i, data-local candidates first (tasks with
//!   input on a node with a free slot, lines 9–12 and 23–26; each group in snapshot order);
//!   the rest get β · (1 − w_i) (line 22);
//! - C(t, s) = FC_t + DLC(t, N(s)) − A_t, solved exactly as lsap-sched does (line 37).
//!
//! FC ∈ [0, β]: GFC_i < β · (1 − w_i) whenever sto_i > 0 (then rt_i < AS · w_i), so within-quota
//! tasks are cheaper than beyond-quota ones of the same pool. Small α: FC dominates (fairness);
//! large α: DLC dominates (locality) — the staircase of the paper's Fig. 9.
//!
//! Ageing (the paper's last paragraph of §3.3, "FC and DLC can be reduced for the tasks that
//! have been waiting in queue for long time"): A_t = β · (now_s − since_t) / `policy.aging_s`,
//! since_t = `pending_since_s`, else the job's `submit_s`. The credit grows without bound, so a
//! waiting task eventually costs less than any fresh one and is placed: nothing starves.
//!
//! Cost: O(tasks + pools) for FC on top of lsap-sched's solve.

use super::{Epoch, Placement, Policy};
use crate::error::SolveError;
use crate::exact::{self, Objective, Problem};
use crate::index::Indexed;
use crate::settings::{Declared, Knobs, Settings};
use placer_models::{non_negative, positive, ModelError, Status, TaskKind};
use serde::{Deserialize, Serialize};

/// lsap-fair-sched's knobs: the fairness cost's scale and the ageing horizon.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(default)]
pub struct FairnessCost {
    /// Scale β of the fairness cost (lsap-fair-sched §3.3), in the cost's units (seconds of
    /// transfer, like α · DLC); ≥ 0, default 10: a task beyond its pool's quota then costs as
    /// much as reading a 128 MiB block across a 100 Mbit/s rack link.
    pub beta: f64,
    /// Ageing horizon in seconds (> 0); default 300. A task pending for w seconds gets a cost
    /// credit of β · w / `aging_s`, so that after long enough it is cheaper than any fresh
    /// task and cannot starve (lsap-fair-sched §3.3, last paragraph).
    pub aging_s: f64,
}

impl Default for FairnessCost {
    fn default() -> Self {
        Self { beta: 10.0, aging_s: 300.0 }
    }
}

impl Settings for FairnessCost {
    const NAME: &'static str = "fairness cost";
    fn check(&self) -> Result<(), ModelError> {
        non_negative(self.beta, || "policy.beta".to_owned())?;
        positive(self.aging_s, || "policy.aging_s".to_owned())
    }
}

/// The per-pool quantities of one kind (eqs. 4–9).
#[derive(Clone, Debug, PartialEq)]
pub struct PoolQuota {
    /// w_i, normalised over active pools (0 for inactive ones).
    pub w: f64,
    /// sto_i.
    pub sto: u64,
    /// GFC_i (β · (1 − w_i) when AS · w_i = 0).
    pub gfc: f64,
    /// β · (1 − w_i), the cost beyond the quota.
    pub beyond: f64,
}

/// FC of every pending task (0 for tasks of jobs that are not runnable), and the pools'
/// quotas per kind, in the cost's units (seconds, like α · DLC): per kind and active pool i,
/// sto_i = min(ut_i, max(0, ⌊AS · w_i⌋ − rt_i)), GFC_i = β · rt_i / (AS · w_i) · (1 − w_i);
/// the first sto_i of the pool's eligible tasks (data-local candidates first, each group in
/// snapshot order) get GFC_i, the others β · (1 − w_i). So FC ∈ [0, β].
///
/// # Complexity
/// O(nodes + jobs + pools + pending + Σ replicas and shuffle sources of the eligible tasks)
/// time; O(pending + pools) space.
///
/// # Errors
/// None: weights are validated ≥ 0; a pool with no weight among the active ones gets w = 0
/// and its tasks β.
///
/// # Examples
/// Hand-derived: 4 map slots, β = 10. Pool p (weight 1) runs 1 map and has 1 pending; pool q
/// (weight 3) runs 1 and has 3 pending, the last with its block on the node (which has free
/// slots). w = (¼, ¾), AS · w = (1, 3). p is at its quota: sto = 0, its task costs
/// β · (1 − ¼) = 7.5. q may take sto = min(3, 3 − 1) = 2 more: GFC = 10 · ⅓ · ¼ = ⅚ for its
/// data-local task and then its first other one, β · (1 − ¾) = 2.5 beyond. Within quota is
/// cheaper than beyond, and an underserved pool cheaper than a served one.
/// ```
/// use placer_solver::{Indexed, policy::fairness_costs};
/// let req = placer_models::parse_request(br#"{"schema_version": 1,
///   "cluster": {"racks": [{"id": "r"}],
///     "nodes": [{"id": "n", "rack": "r", "map_slots": 4}]},
///   "pools": [{"id": "p"}, {"id": "q", "weight": 3}],
///   "jobs": [{"id": "jp", "pool": "p"}, {"id": "jq", "pool": "q"}],
///   "running": [{"id": "p-run", "job": "jp", "kind": "map", "node": "n"},
///               {"id": "q-run", "job": "jq", "kind": "map", "node": "n"}],
///   "pending": [{"id": "p0", "job": "jp", "kind": "map"},
///     {"id": "q0", "job": "jq", "kind": "map"}, {"id": "q1", "job": "jq", "kind": "map"},
///     {"id": "q2", "job": "jq", "kind": "map", "replicas": ["n"]}],
///   "policy": {"algorithm": "lsap_fair", "beta": 10}}"#).unwrap();
/// placer_models::validate(&req).unwrap();
/// let (fc, quotas) = fairness_costs(&Indexed::new(&req));
/// assert!(fc.iter().all(|&c| (0.0..=10.0).contains(&c)));
/// assert_eq!(fc[0], 7.5); // p0, beyond p's quota
/// assert!((fc[3] - 10.0 / 12.0).abs() < 1e-12); // q2, data-local, within q's quota
/// assert!((fc[1] - 10.0 / 12.0).abs() < 1e-12); // q0, within
/// assert_eq!(fc[2], 2.5); // q1, beyond
/// let q = &quotas[0][1]; // maps, pool q
/// assert_eq!((q.w, q.sto, q.beyond), (0.75, 2, 2.5));
/// assert!(q.gfc < q.beyond);
/// ```
pub fn fairness_costs(ix: &Indexed<'_>) -> (Vec<f64>, [Vec<PoolQuota>; 2]) {
    let req = ix.req;
    let beta = crate::settings::read::<FairnessCost>(&req.policy).beta;
    let pools = req.pools.len();
    let mut fc = vec![0.0; req.pending.len()];
    let quotas = TaskKind::ALL.map(|kind| {
        let k = kind.slot();
        let slots: f64 =
            req.cluster.nodes.iter().map(|n| f64::from(n.configured_slots(kind))).sum();
        let mut rt = vec![0u64; pools];
        let mut ut = vec![0u64; pools];
        for (j, &p) in ix.job_pool.iter().enumerate() {
            rt[p as usize] += u64::from(ix.job_running[k][j]);
            ut[p as usize] += u64::from(ix.job_demand_pending(k, j));
        }
        let active = |p: usize| rt[p] + ut[p] > 0;
        let total_weight: f64 =
            (0..pools).filter(|&p| active(p)).map(|p| req.pools[p].weight).sum();
        let quota: Vec<PoolQuota> = (0..pools)
            .map(|p| {
                let w = if active(p) && total_weight > 0.0 {
                    req.pools[p].weight / total_weight
                } else {
                    0.0
                };
                let fair_slots = slots * w;
                let sto = ((fair_slots.floor() as i64) - rt[p] as i64).max(0) as u64;
                let beyond = beta * (1.0 - w);
                let gfc = if fair_slots > 0.0 {
                    beta * (rt[p] as f64 / fair_slots) * (1.0 - w)
                } else {
                    beyond
                };
                PoolQuota { w, sto: sto.min(ut[p]), gfc, beyond }
            })
            .collect();

        // Data-local candidates: input on a node with a free slot of the kind.
        let free = &ix.free[k];
        let local_candidate = |t: usize| match kind {
            TaskKind::Map => ix.replicas[t].iter().any(|&r| free[r as usize] > 0),
            TaskKind::Reduce => ix.shuffle[t].iter().any(|&(n, _)| free[n as usize] > 0),
        };
        let mut local: Vec<Vec<usize>> = vec![Vec::new(); pools];
        let mut other: Vec<Vec<usize>> = vec![Vec::new(); pools];
        for &t in &ix.eligible_of_kind[k] {
            let p = ix.job_pool[ix.pending_job[t] as usize] as usize;
            if local_candidate(t) { &mut local[p] } else { &mut other[p] }.push(t);
        }
        for p in 0..pools {
            let q = &quota[p];
            let mut left = q.sto as usize;
            for &t in local[p].iter().chain(&other[p]) {
                if left > 0 {
                    fc[t] = q.gfc;
                    left -= 1;
                } else {
                    fc[t] = q.beyond;
                }
            }
        }
        quota
    });
    (fc, quotas)
}

/// The ageing credit A_t of every pending task, in the cost's units (seconds):
/// A_t = β · max(0, now_s − since_t) / `policy.aging_s`, with since_t = `pending_since_s`, else
/// the job's `submit_s`.
///
/// # Complexity
/// O(pending) time and space.
///
/// # Errors
/// None: `aging_s` is validated > 0, so every credit is finite and ≥ 0.
///
/// # Examples
/// Hand-derived: β = 10, `aging_s` = 300 s, now 100 s. A task pending since 40 s has waited
/// 60 s: 10 · 60 / 300 = 2; one without `pending_since_s` counts from its job's submit at
/// 70 s: 10 · 30 / 300 = 1.
/// ```
/// use placer_solver::{Indexed, policy::aging_credits};
/// let req = placer_models::parse_request(br#"{"schema_version": 1, "now_s": 100,
///   "cluster": {"racks": [{"id": "r"}], "nodes": [{"id": "n", "rack": "r", "map_slots": 1}]},
///   "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p", "submit_s": 70}],
///   "pending": [{"id": "old", "job": "j", "kind": "map", "pending_since_s": 40},
///               {"id": "new", "job": "j", "kind": "map"}],
///   "policy": {"algorithm": "lsap_fair", "beta": 10, "aging_s": 300}}"#).unwrap();
/// placer_models::validate(&req).unwrap();
/// assert_eq!(aging_credits(&Indexed::new(&req)), vec![2.0, 1.0]);
/// ```
pub fn aging_credits(ix: &Indexed<'_>) -> Vec<f64> {
    let req = ix.req;
    let FairnessCost { beta, aging_s } = crate::settings::read(&req.policy);
    req.pending
        .iter()
        .enumerate()
        .map(|(t, task)| {
            let since = task.pending_since_s.unwrap_or_else(|| {
                req.jobs.get(ix.pending_job[t] as usize).map_or(0.0, |j| j.submit_s)
            });
            beta * (req.now_s - since).max(0.0) / aging_s
        })
        .collect()
}

/// Checks that FC and the ageing credits are finite and that Σ_t (FC_t + A_t) is too, so
/// that every offset, every shift of them and every total of the answer is finite (no
/// `null` in an answer). O(pending).
///
/// # Errors
/// [`SolveError::CostOverflow`] at `policy.beta` (FC, or β · wait beyond f64) or
/// `policy.aging_s` (β · wait finite, the division by `aging_s` not).
fn check_terms(
    req: &placer_models::PlaceRequest,
    fairness: &[f64],
    aging: &[f64],
) -> Result<(), SolveError> {
    let fail = |path: &str, message: String| {
        Err(SolveError::CostOverflow { path: path.to_owned(), message })
    };
    if let Some(t) = fairness.iter().position(|f| !f.is_finite()) {
        return fail("policy.beta", format!("pending[{t}]: the fairness cost is not finite"));
    }
    if let Some(t) = aging.iter().position(|a| !a.is_finite()) {
        return fail(
            crate::finite::aging_field(req),
            format!("pending[{t}]: the ageing credit is not finite"),
        );
    }
    let fc: f64 = fairness.iter().sum();
    let credit: f64 = aging.iter().sum();
    if !(fc + credit).is_finite() {
        let path = if fc >= credit { "policy.beta" } else { crate::finite::aging_field(req) };
        return fail(path, "the fairness costs and ageing credits sum beyond f64".into());
    }
    Ok(())
}

/// lsap-fair-sched.
#[derive(Clone, Copy, Debug, Default)]
pub struct LsapFair;

impl Policy for LsapFair {
    fn name(&self) -> &'static str {
        "lsap_fair"
    }

    fn settings(&self) -> &'static [&'static dyn Declared] {
        &[&Knobs::<FairnessCost>::OF]
    }

    fn preempts(&self) -> bool {
        true
    }

    /// Places every kind by lsap-fair-sched with `epoch.engine`: C(t, s) = FC_t + DLC(t, N(s))
    /// − A_t (seconds), exact per kind.
    fn place(&self, epoch: &Epoch<'_, '_>) -> Result<Placement, SolveError> {
        let ix = epoch.ix;
        let (fairness, _) = fairness_costs(ix);
        let aging = aging_credits(ix);
        check_terms(ix.req, &fairness, &aging)?;
        let offsets: Vec<f64> = fairness.iter().zip(&aging).map(|(f, a)| f - a).collect();
        let mut node_of_task = vec![None; ix.req.pending.len()];
        let mut status = Status::Optimal;
        for kind in TaskKind::ALL {
            let solved = exact::solve(
                Problem {
                    ix,
                    model: epoch.model,
                    kind,
                    engine: epoch.engine,
                    objective: Objective::Offset(&offsets),
                },
                epoch.control(),
                &mut node_of_task,
            )?;
            if solved == Status::TimeLimited {
                status = solved;
            }
        }
        let mut placement = Placement::new(node_of_task, status);
        placement.fairness = fairness;
        placement.aging = aging;
        Ok(placement)
    }
}
