//! Step 6 of the epoch pipeline (docs/architecture.md, "The epoch pipeline"): a [`Placement`] and
//! its preemptions become the v1 response: assignments with locality and cost (lsap-sched eqs.
//! 1–2, lsap-fair-sched eq. 7), preemptions (design doc §3.3), why the rest waits, per-pool and
//! per-job state to echo (FAIR Alg. 1, design doc §4.5), and stats with the fairness distance
//! (lsap-fair-sched eqs. 10–11). O(pending + running + pools + jobs).

use crate::cost::LocalityCost;
use crate::fair::fair_shares::FairShares;
use crate::fair::preemption::Victim;
use crate::fairness::fairness_distance;
use crate::index::Indexed;
use crate::policy::Placement;
use placer_models::{
    Assignment, CostBreakdown, JobReport, Locality, PlaceResponse, PoolReport, Preemption,
    SlotCounts, StarvationState, Stats, TaskKind, WaitReason, Waiting, SCHEMA_VERSION,
};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// Caller-side options of one `place` call that are not part of the snapshot.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlaceOptions {
    /// List waiting tasks one by one instead of aggregated per (job, kind, reason).
    pub explain: bool,
    /// Set by the caller when the answer is due (e.g. the service's deadline): the exact
    /// engines stop and the answer is the best valid placement found, `status: time_limited`.
    /// `None` = run to the end.
    pub cancel: Option<crate::cancel::Cancel>,
    /// A store of the structured flow's labels across calls (warm starts): when given,
    /// `lsap`, `lsap_quota` and `lsap_fair` start each solve on the structured flow engine
    /// (`policy.solver` `auto` or `flow`; the dense engines and the capped reduces' flow ignore
    /// it) from the labels the previous call left and leave theirs. The placement is a
    /// least-cost one either way (it may be another of equal cost). `None` (the service):
    /// every call starts cold.
    pub warm: Option<crate::warm::WarmStart>,
}

/// What the pipeline decided this epoch, ready to be written out.
#[derive(Debug)]
pub struct Outcome<'a> {
    /// The policy's placement.
    pub placement: &'a Placement,
    /// Running tasks to kill.
    pub victims: &'a [Victim],
    /// Fair shares per pool and job.
    pub shares: &'a FairShares,
    /// Starvation clocks after this epoch, per pool.
    pub clocks: Vec<StarvationState>,
    /// Running tasks per pool after the placement, before preemptions
    /// ([`running_after_placement`]).
    pub running_after: &'a [[f64; 2]],
}

/// Builds the response. Assignments and waiting entries come maps first, then reduces, each in
/// `pending` order; preemptions maps first, then reduces, in the order chosen; pools and jobs
/// in snapshot order.
pub fn build(
    ix: &Indexed<'_>,
    model: &LocalityCost<'_, '_>,
    outcome: &Outcome<'_>,
    opts: &PlaceOptions,
) -> PlaceResponse {
    let req = ix.req;
    let placement = outcome.placement;
    let mut assignments = Vec::new();
    let mut waiting: Vec<Waiting> = Vec::new();
    let mut waiting_at: HashMap<(u32, TaskKind, WaitReason), usize> = HashMap::new();
    // The last reduce's cost row, reused by the next reduce with the same sources.
    let mut reduce_row = None;
    let mut stats = Stats {
        pending: req.pending.len() as u64,
        free_slots: 0,
        free_map_slots: ix.free_slots(TaskKind::Map),
        free_reduce_slots: ix.free_slots(TaskKind::Reduce),
        assigned: 0,
        node_local: 0,
        rack_local: 0,
        remote: 0,
        no_preference: 0,
        locality_cost: 0.0,
        fairness_distance: 0.0,
        preempted: outcome.victims.len() as u64,
        objective: 0.0,
        status: placement.status,
        solve_ms: 0.0,
        extra: placement.stats.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect(),
    };
    stats.free_slots = stats.free_map_slots + stats.free_reduce_slots;
    let per_task = |v: &[f64], t: usize| v.get(t).copied().unwrap_or(0.0);

    for kind in TaskKind::ALL {
        let k = kind.slot();
        let no_slots = ix.free_slots(kind) == 0;
        for &t in &ix.pending_of_kind[k] {
            let task = &req.pending[t];
            let j = ix.pending_job[t] as usize;
            let Some(n) = placement.node_of_task[t] else {
                // A per-task reason is the policy's (or the pipeline's) own knowledge: it wins
                // over the slot count, which a multi-resource policy's uncapped nodes
                // (`map_slots` 0 with capacities) do not reflect.
                let task_reason = placement.task_reason.get(t).copied().flatten();
                let reason = if !ix.runnable[j] {
                    WaitReason::JobLimit
                } else if let Some(reason) = task_reason {
                    reason
                } else if no_slots {
                    WaitReason::NoFreeSlots
                } else {
                    placement.job_reason.get(j).and_then(|r| r[k]).unwrap_or(WaitReason::SlotsTaken)
                };
                if opts.explain {
                    waiting.push(Waiting {
                        job: task.job.clone(),
                        task: Some(task.id.clone()),
                        kind,
                        tasks: 1,
                        reason,
                    });
                } else {
                    let key = (j as u32, kind, reason);
                    match waiting_at.get(&key) {
                        Some(&w) => waiting[w].tasks += 1,
                        None => {
                            waiting_at.insert(key, waiting.len());
                            waiting.push(Waiting {
                                job: task.job.clone(),
                                task: None,
                                kind,
                                tasks: 1,
                                reason,
                            });
                        }
                    }
                }
                continue;
            };
            let locality_cost = model.cost_memo(t, n, &mut reduce_row);
            let locality = model.locality(t, n);
            if kind == TaskKind::Map {
                match locality {
                    Locality::Node => stats.node_local += 1,
                    Locality::Rack => stats.rack_local += 1,
                    Locality::Remote => stats.remote += 1,
                    Locality::None => stats.no_preference += 1,
                }
            }
            let fairness = per_task(&placement.fairness, t);
            let aging = per_task(&placement.aging, t);
            let total = locality_cost + fairness - aging;
            stats.assigned += 1;
            stats.locality_cost += locality_cost;
            stats.objective += total;
            assignments.push(Assignment {
                task: task.id.clone(),
                node: req.cluster.nodes[n as usize].id.clone(),
                locality,
                cost: CostBreakdown { total, locality: locality_cost, fairness, aging },
            });
        }
    }

    let preemptions = outcome
        .victims
        .iter()
        .map(|v| {
            let task = &req.running[v.running];
            Preemption {
                task: task.id.clone(),
                node: task.node.clone(),
                reason: v.reason,
                for_pool: req.pools[v.for_pool].id.clone(),
            }
        })
        .collect();

    let (pools, jobs) = reports(ix, outcome);
    let weights: Vec<f64> = req.pools.iter().map(|p| p.weight).collect();
    let running_maps: Vec<f64> = pools.iter().map(|p| p.running_after.map).collect();
    let active: Vec<bool> =
        pools.iter().map(|p| p.running_after.map > 0.0 || p.demand.map > p.running.map).collect();
    stats.fairness_distance = fairness_distance(&weights, &running_maps, &active);
    PlaceResponse {
        schema_version: SCHEMA_VERSION,
        assignments,
        preemptions,
        waiting,
        pools,
        jobs,
        stats,
    }
}

/// Running tasks of each pool after the placement, before preemptions: `[map, reduce]`.
pub fn running_after_placement(ix: &Indexed<'_>, placement: &Placement) -> Vec<[f64; 2]> {
    let mut after = vec![[0.0; 2]; ix.req.pools.len()];
    for (j, &p) in ix.job_pool.iter().enumerate() {
        for (k, a) in after[p as usize].iter_mut().enumerate() {
            *a += f64::from(ix.job_running[k][j]);
        }
    }
    for (t, node) in placement.node_of_task.iter().enumerate() {
        if node.is_some() {
            let p = ix.job_pool[ix.pending_job[t] as usize] as usize;
            after[p][ix.req.pending[t].kind.slot()] += 1.0;
        }
    }
    after
}

/// Per pool and per job: running, demand, fair share, running after the answer, echoed state.
fn reports(ix: &Indexed<'_>, outcome: &Outcome<'_>) -> (Vec<PoolReport>, Vec<JobReport>) {
    let req = ix.req;
    let shares = outcome.shares;
    let counts = |c: [u32; 2]| SlotCounts { map: f64::from(c[0]), reduce: f64::from(c[1]) };
    let add = |a: SlotCounts, b: SlotCounts| SlotCounts {
        map: a.map + b.map,
        reduce: a.reduce + b.reduce,
    };
    // `+ 0.0` turns a −0.0 left by water-filling's subtractions into 0.0 on the wire.
    let slots = |s: [f64; 2]| SlotCounts { map: s[0] + 0.0, reduce: s[1] + 0.0 };

    let mut after = outcome.running_after.to_vec();
    for v in outcome.victims {
        let p = ix.job_pool[ix.running_job[v.running] as usize] as usize;
        after[p][req.running[v.running].kind.slot()] -= 1.0;
    }

    let mut pool_running = vec![SlotCounts::default(); req.pools.len()];
    let mut pool_demand = vec![SlotCounts::default(); req.pools.len()];
    let echoed: Vec<&'static str> =
        crate::registry::job_fields().iter().filter(|f| f.echoed()).map(|f| f.key()).collect();
    let jobs = req
        .jobs
        .iter()
        .enumerate()
        .map(|(j, job)| {
            let p = ix.job_pool[j] as usize;
            let running = counts([ix.job_running[0][j], ix.job_running[1][j]]);
            let demand =
                add(running, counts([ix.job_demand_pending(0, j), ix.job_demand_pending(1, j)]));
            pool_running[p] = add(pool_running[p], running);
            pool_demand[p] = add(pool_demand[p], demand);
            JobReport {
                id: job.id.clone(),
                fair_share: Some(slots(shares.job[j])),
                running,
                demand,
                runnable: ix.runnable[j],
                state: job_state(job, j, &outcome.placement.job_state, &echoed),
            }
        })
        .collect();
    let pools = req
        .pools
        .iter()
        .enumerate()
        .map(|(p, pool)| PoolReport {
            id: pool.id.clone(),
            fair_share: Some(slots(shares.pool[p])),
            running: pool_running[p],
            demand: pool_demand[p],
            running_after: after.get(p).map_or_else(SlotCounts::default, |&a| slots(a)),
            starvation: outcome.clocks.get(p).copied().unwrap_or_default(),
        })
        .collect();
    (pools, jobs)
}

/// Job `j`'s per-job fields in the answer: each echoed key of the snapshot (`echoed`, the
/// keys registered policies echo), then the keys the policy decided (`decided`), which replace
/// them. O(keys + bytes of the echoed values).
fn job_state(
    job: &placer_models::Job,
    j: usize,
    decided: &[(&'static str, Vec<Option<Value>>)],
    echoed: &[&'static str],
) -> BTreeMap<String, Value> {
    let mut state = BTreeMap::new();
    for &key in echoed {
        if let Some(v) = job.state.get(key).and_then(|raw| serde_json::from_str(raw.get()).ok()) {
            state.insert(key.to_owned(), v);
        }
    }
    for (key, per_job) in decided {
        match per_job.get(j).cloned().flatten() {
            Some(v) => state.insert((*key).to_owned(), v),
            None => state.remove(*key),
        };
    }
    state
}
