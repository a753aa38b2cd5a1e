//! Step 6 of the epoch pipeline (DESIGN.md §The epoch pipeline): a [`Placement`] becomes the v1
//! response: assignments with locality and cost (lsap-sched eq. 1–2), why the rest waits,
//! per-pool and per-job counts, and stats. O(pending + running + pools + jobs).

use crate::cost::LocalityCost;
use crate::fair_shares;
use crate::index::{kind_slot, Indexed, KINDS};
use crate::policy::Placement;
use crate::PlaceOptions;
use placer_models::{
    Assignment, CostBreakdown, JobReport, Locality, PlaceResponse, PoolReport, SlotCounts, Stats,
    TaskKind, WaitReason, Waiting, SCHEMA_VERSION,
};
use std::collections::HashMap;

/// Builds the response. Assignments and waiting entries come maps first, then reduces, each in
/// `pending` order; pools and jobs in snapshot order.
pub fn build(
    ix: &Indexed<'_>,
    model: &LocalityCost<'_, '_>,
    placement: &Placement,
    opts: &PlaceOptions,
) -> PlaceResponse {
    let req = ix.req;
    let mut assignments = Vec::new();
    let mut waiting: Vec<Waiting> = Vec::new();
    let mut waiting_at: HashMap<(u32, TaskKind, WaitReason), usize> = HashMap::new();
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
        objective: 0.0,
        status: placement.status,
        solve_ms: 0.0,
    };
    stats.free_slots = stats.free_map_slots + stats.free_reduce_slots;

    for kind in KINDS {
        let reason =
            if ix.free_slots(kind) == 0 { WaitReason::NoFreeSlots } else { WaitReason::SlotsTaken };
        for &t in &ix.pending_of_kind[kind_slot(kind)] {
            let task = &req.pending[t];
            match placement.node_of_task[t] {
                Some(n) => {
                    let locality_cost = model.cost(t, n);
                    let locality = model.locality(t, n);
                    if kind == TaskKind::Map {
                        match locality {
                            Locality::Node => stats.node_local += 1,
                            Locality::Rack => stats.rack_local += 1,
                            Locality::Remote => stats.remote += 1,
                            Locality::None => stats.no_preference += 1,
                        }
                    }
                    stats.assigned += 1;
                    stats.locality_cost += locality_cost;
                    stats.objective += locality_cost;
                    assignments.push(Assignment {
                        task: task.id.clone(),
                        node: req.cluster.nodes[n as usize].id.clone(),
                        locality,
                        cost: CostBreakdown {
                            total: locality_cost,
                            locality: locality_cost,
                            fairness: 0.0,
                        },
                    });
                }
                None if opts.explain => waiting.push(Waiting {
                    job: task.job.clone(),
                    task: Some(task.id.clone()),
                    kind,
                    tasks: 1,
                    reason,
                }),
                None => {
                    let key = (ix.pending_job[t], kind, reason);
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
            }
        }
    }

    let (pools, jobs) = reports(ix);
    PlaceResponse {
        schema_version: SCHEMA_VERSION,
        assignments,
        preemptions: Vec::new(),
        waiting,
        pools,
        jobs,
        stats,
    }
}

/// Running, demand (running + pending) and fair share per pool and per job.
fn reports(ix: &Indexed<'_>) -> (Vec<PoolReport>, Vec<JobReport>) {
    let req = ix.req;
    let shares = fair_shares::compute(ix);
    let counts = |c: &[Vec<u32>; 2], j: usize| SlotCounts {
        map: f64::from(c[0][j]),
        reduce: f64::from(c[1][j]),
    };
    let add = |a: SlotCounts, b: SlotCounts| SlotCounts {
        map: a.map + b.map,
        reduce: a.reduce + b.reduce,
    };
    let slots = |s: [f64; 2]| SlotCounts { map: s[0], reduce: s[1] };
    let mut pool_running = vec![SlotCounts::default(); req.pools.len()];
    let mut pool_demand = vec![SlotCounts::default(); req.pools.len()];
    let jobs = req
        .jobs
        .iter()
        .enumerate()
        .map(|(j, job)| {
            let p = ix.job_pool[j] as usize;
            let running = counts(&ix.job_running, j);
            let demand = add(running, counts(&ix.job_pending, j));
            pool_running[p] = add(pool_running[p], running);
            pool_demand[p] = add(pool_demand[p], demand);
            JobReport {
                id: job.id.clone(),
                fair_share: Some(slots(shares.job[j])),
                running,
                demand,
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
        })
        .collect();
    (pools, jobs)
}
