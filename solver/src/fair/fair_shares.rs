//! Fair shares of a snapshot, per slot kind (FAIR, Zaharia et al., §3.1 and App. A; Hadoop Fair
//! Scheduler design doc §4.4–4.6): pools share the cluster's slots by weighted water-filling
//! with min shares and demands; jobs share their pool's share, by water-filling with priority
//! weights 2^level (`fair` pools) or in priority-then-submit order (`fifo` pools). A demand is
//! running + pending tasks of the kind (0 for a job beyond its running-job limit); the capacity
//! is every slot of the kind, busy or free (reducers: `max_reducers` under CPAC).
//! O((pools + jobs) log(pools + jobs)) per kind.

use crate::fair::job_limits::fifo_cmp;
use crate::fair::schedulable::Schedulable;
use crate::fair::water_filling::fair_shares;
use crate::index::Indexed;
use placer_models::{PoolMode, Priority, TaskKind};

/// Shares in slots (fractional), `[map, reduce]` per pool and per job, in snapshot order.
#[derive(Clone, Debug, PartialEq)]
pub struct FairShares {
    /// Per pool.
    pub pool: Vec<[f64; 2]>,
    /// Per job.
    pub job: Vec<[f64; 2]>,
}

/// A priority's weight inside its pool: 2^level, level −2 (very_low) … 2 (very_high).
pub fn priority_weight(p: Priority) -> f64 {
    match p {
        Priority::VeryLow => 0.25,
        Priority::Low => 0.5,
        Priority::Normal => 1.0,
        Priority::High => 2.0,
        Priority::VeryHigh => 4.0,
    }
}

/// Computes every pool's and job's share of both slot kinds, in slots (fractional). Per kind,
/// with capacity C = every slot of the kind: pool shares = water-filling ([`fair_shares`])
/// over the pools (weight, min share, demand = Σ its runnable jobs' running + pending) into
/// C; inside a `fair` pool, job shares = water-filling over its jobs (weight 2^priority
/// level, no min share, demand) into the pool's share; a `fifo` pool hands its share out in
/// FIFO order, each job up to its demand.
///
/// # Complexity
/// O(nodes + (pools + jobs) log(pools + jobs)) time per kind (one water-filling per level,
/// one sort per `fifo` pool); O(pools + jobs) space.
///
/// # Errors
/// None: weights, min shares and slot counts are validated upstream; a share is never
/// negative and never above the demand.
///
/// # Examples
/// Hand-derived (FAIR App. A's water-filling at both levels): 4 map slots; pool p (weight 1)
/// runs job a, pool q (weight 3) jobs b (normal priority, weight 1) and c (high, weight 2);
/// each job has 2 pending maps. Pools: the water level r = 1 gives p min(2, 1 · 1) = 1 and q
/// min(4, 3 · 1) = 3, all 4 slots. Inside q: r = 1 gives b min(2, 1) = 1, c min(2, 2) = 2.
/// No reduce slots: every reduce share is 0.
/// ```
/// use placer_solver::{fair::fair_shares, Indexed};
/// let req = placer_models::parse_request(br#"{"schema_version": 1,
///   "cluster": {"racks": [{"id": "r"}], "nodes": [{"id": "n", "rack": "r", "map_slots": 4}]},
///   "pools": [{"id": "p"}, {"id": "q", "weight": 3}],
///   "jobs": [{"id": "a", "pool": "p"}, {"id": "b", "pool": "q"},
///            {"id": "c", "pool": "q", "priority": "high"}],
///   "pending": [{"id": "a0", "job": "a", "kind": "map"}, {"id": "a1", "job": "a", "kind": "map"},
///               {"id": "b0", "job": "b", "kind": "map"}, {"id": "b1", "job": "b", "kind": "map"},
///               {"id": "c0", "job": "c", "kind": "map"}, {"id": "c1", "job": "c", "kind": "map"}]
/// }"#).unwrap();
/// placer_models::validate(&req).unwrap();
/// let shares = fair_shares::compute(&Indexed::new(&req));
/// assert_eq!(shares.pool, vec![[1.0, 0.0], [3.0, 0.0]]);
/// assert_eq!(shares.job, vec![[1.0, 0.0], [1.0, 0.0], [2.0, 0.0]]);
/// ```
pub fn compute(ix: &Indexed<'_>) -> FairShares {
    let req = ix.req;
    let mut pool = vec![[0.0; 2]; req.pools.len()];
    let mut job = vec![[0.0; 2]; req.jobs.len()];
    let mut jobs_of_pool: Vec<Vec<usize>> = vec![Vec::new(); req.pools.len()];
    for (j, &p) in ix.job_pool.iter().enumerate() {
        jobs_of_pool[p as usize].push(j);
    }
    for (k, kind) in TaskKind::ALL.into_iter().enumerate() {
        let capacity: f64 =
            req.cluster.nodes.iter().map(|n| f64::from(n.configured_slots(kind))).sum();
        // A job beyond its running-job limit declares demand 0 (design doc §4.7).
        let demand = |j: usize| {
            if ix.runnable[j] {
                f64::from(ix.job_running[k][j] + ix.job_pending[k][j])
            } else {
                0.0
            }
        };
        let pools: Vec<Schedulable> = req
            .pools
            .iter()
            .enumerate()
            .map(|(p, spec)| Schedulable {
                weight: spec.weight,
                min_share: match kind {
                    placer_models::TaskKind::Map => spec.min_map_share,
                    placer_models::TaskKind::Reduce => spec.min_reduce_share,
                },
                demand: jobs_of_pool[p].iter().map(|&j| demand(j)).sum(),
            })
            .collect();
        for (p, share) in fair_shares(&pools, capacity).into_iter().enumerate() {
            pool[p][k] = share;
            let members = &jobs_of_pool[p];
            match req.pools[p].mode {
                PoolMode::Fair => {
                    let jobs: Vec<Schedulable> = members
                        .iter()
                        .map(|&j| Schedulable {
                            weight: priority_weight(req.jobs[j].priority),
                            min_share: 0.0,
                            demand: demand(j),
                        })
                        .collect();
                    for (m, s) in fair_shares(&jobs, share).into_iter().enumerate() {
                        job[members[m]][k] = s;
                    }
                }
                PoolMode::Fifo => {
                    let mut order = members.clone();
                    order.sort_by(|&a, &b| fifo_cmp(&req.jobs[a], a, &req.jobs[b], b));
                    let mut left = share;
                    for j in order {
                        let s = demand(j).min(left);
                        job[j][k] = s;
                        left -= s;
                    }
                }
            }
        }
    }
    FairShares { pool, job }
}
