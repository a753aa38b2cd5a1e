//! `fifo_per_pool`: the Hadoop Capacity Scheduler's shape (Hadoop Fair Scheduler design doc
//! §2 names it as the other multi-queue scheduler of Hadoop 0.20): one FIFO queue per pool,
//! each with a capacity, and a free slot goes to the queue furthest below its capacity.
//!
//! placer's reading, per slot kind:
//! - capacity: pool p's share of the kind's configured slots S by weight,
//!   c_p = S · w_p / Σ_q w_q (`pools[].weight`; the Capacity Scheduler's `capacity` percent);
//! - offers: heartbeat rounds over the free slots, as the other heartbeat schedulers
//!   (`super::queue::heartbeat_rounds`);
//! - per offer on node n: pools in order of (running + placed) / c_p, least first (a pool of
//!   weight 0 last, ties by pool order), skipping a pool at its maximum capacity; inside the
//!   pool its jobs in FIFO order (`crate::job_limits::fifo_cmp`: priority, submit time,
//!   snapshot order); the first job with a task for n takes its closest one: a map node-local
//!   to n, else rack-local, else any (no delay: the Capacity Scheduler of 0.20 had none), a
//!   reduce the first whose job may start another copy-phase reducer on n
//!   (`crate::cpac`);
//! - its one knob, `max_capacity_factor` ([`CapacityLimit`]): a pool never runs more than this
//!   multiple of its capacity (the Capacity Scheduler's `maximum-capacity`); unset = a pool
//!   takes any slot the others leave idle.
//!
//! Complexity: O(offers · (pools log pools + jobs)) plus amortised O(Σ replicas) for the task
//! queues.

use super::{Candidates, Epoch, Placement, Policy};
use crate::error::SolveError;
use crate::fair::cpac::Copies;
use crate::fair::disk::Space;
use crate::fair::heartbeat::{Class, MapQueues};
use crate::fair::job_limits::fifo_cmp;
use crate::fair::queue::{heartbeat_rounds, Offer, Queue};
use crate::index::Indexed;
use crate::settings::{Declared, Knobs, Settings};
use placer_models::{ModelError, Status, TaskKind};
use serde::{Deserialize, Serialize};

/// `fifo_per_pool`'s knob.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(default)]
pub struct CapacityLimit {
    /// The most a pool runs of a slot kind, as a multiple of its capacity (its weight's share
    /// of the kind's slots); ≥ 1. Unset (the default) = no limit: a pool takes any slot the
    /// others leave idle.
    pub max_capacity_factor: Option<f64>,
}

impl Settings for CapacityLimit {
    const NAME: &'static str = "capacity limit";
    fn check(&self) -> Result<(), ModelError> {
        match self.max_capacity_factor {
            Some(f) if !(f.is_finite() && f >= 1.0) => Err(ModelError::InvalidNumber {
                path: "policy.max_capacity_factor".to_owned(),
                message: format!("must be a finite multiple ≥ 1 of the capacity, got {f}"),
            }),
            _ => Ok(()),
        }
    }
}

/// The Capacity Scheduler's shape: a FIFO queue per pool, slots to the pool furthest below
/// its capacity.
#[derive(Clone, Copy, Debug, Default)]
pub struct FifoPerPool;

impl Policy for FifoPerPool {
    fn name(&self) -> &'static str {
        "fifo_per_pool"
    }

    fn settings(&self) -> &'static [&'static dyn Declared] {
        &[&Knobs::<CapacityLimit>::OF]
    }

    fn heartbeat(&self) -> bool {
        true
    }

    fn candidates(&self) -> Candidates {
        Candidates::FreeSlots
    }

    fn place(&self, epoch: &Epoch<'_, '_>) -> Result<Placement, SolveError> {
        Ok(place(epoch.ix))
    }
}

/// Places maps and reduces as the module docs say.
///
/// # Complexity
/// O(offers · (pools log pools + jobs)) time plus amortised O(Σ replicas); O(pending + jobs
/// + Σ replicas) space.
///
/// # Errors
/// None: a task not placed is data.
///
/// # Examples
/// Two pools of equal weight on 4 map slots have a capacity of 2 each. Pool `a` has nothing
/// to run and `b` has 3 maps: `b` takes all 3 slots it can use (the Capacity Scheduler's
/// elasticity); with `max_capacity_factor` 1 it stops at its capacity, 2.
/// ```
/// let snapshot = |limit: &str| format!(r#"{{"schema_version": 1, "cluster": {{
///     "racks": [{{"id": "r"}}],
///     "nodes": [{{"id": "n1", "rack": "r", "map_slots": 2}},
///               {{"id": "n2", "rack": "r", "map_slots": 2}}]}},
///   "pools": [{{"id": "a"}}, {{"id": "b"}}],
///   "jobs": [{{"id": "ja", "pool": "a"}}, {{"id": "jb", "pool": "b"}}],
///   "pending": [{{"id": "b1", "job": "jb", "kind": "map"}},
///               {{"id": "b2", "job": "jb", "kind": "map"}},
///               {{"id": "b3", "job": "jb", "kind": "map"}}],
///   "policy": {{"algorithm": "fifo_per_pool"{limit}}}}}"#);
/// let placed = |limit: &str| {
///     let req = placer_models::parse_request(snapshot(limit).as_bytes()).unwrap();
///     placer_solver::place(&req, &Default::default()).unwrap().assignments.len()
/// };
/// assert_eq!(placed(""), 3);
/// assert_eq!(placed(r#", "max_capacity_factor": 1"#), 2);
/// ```
pub fn place(ix: &Indexed<'_>) -> Placement {
    let req = ix.req;
    let limit: CapacityLimit = crate::settings::read(&req.policy);
    let pools = req.pools.len();
    let mut node_of_task = vec![None; req.pending.len()];
    let mut placed = vec![false; req.pending.len()];
    // Each pool's jobs in FIFO order.
    let mut pool_jobs: Vec<Vec<u32>> = vec![Vec::new(); pools];
    let mut order: Vec<usize> = (0..req.jobs.len()).collect();
    order.sort_by(|&a, &b| fifo_cmp(&req.jobs[a], a, &req.jobs[b], b));
    for j in order {
        pool_jobs[ix.job_pool[j] as usize].push(j as u32);
    }
    let total_weight: f64 = req.pools.iter().map(|p| p.weight).sum();
    let mut space = Space::new(ix);
    let mut copies = Copies::default();
    for kind in TaskKind::ALL {
        let k = kind.slot();
        let tasks = &ix.eligible_of_kind[k];
        if tasks.is_empty() {
            continue;
        }
        let slots: f64 =
            req.cluster.nodes.iter().map(|n| f64::from(n.configured_slots(kind))).sum();
        let capacity: Vec<f64> = req
            .pools
            .iter()
            .map(|p| if total_weight > 0.0 { slots * p.weight / total_weight } else { 0.0 })
            .collect();
        let mut running = vec![0.0f64; pools];
        for (j, &p) in ix.job_pool.iter().enumerate() {
            running[p as usize] += f64::from(ix.job_running[k][j]);
        }
        let mut remaining = vec![0u32; req.jobs.len()];
        for &t in tasks {
            remaining[ix.pending_job[t] as usize] += 1;
        }
        let mut maps = (kind == TaskKind::Map).then(|| MapQueues::new(ix, tasks));
        let mut reduces: Vec<Queue> = vec![Queue::default(); req.jobs.len()];
        if kind == TaskKind::Reduce {
            for &t in tasks {
                reduces[ix.pending_job[t] as usize].tasks.push(t);
            }
        }
        let mut left = tasks.len();
        heartbeat_rounds(&ix.free[k], |n| {
            if left == 0 {
                return Offer::Done;
            }
            let rack = ix.node_rack[n];
            let mut by_load: Vec<usize> = (0..pools)
                .filter(|&p| limit.max_capacity_factor.is_none_or(|f| running[p] < f * capacity[p]))
                .collect();
            let load = |p: usize| {
                if capacity[p] > 0.0 {
                    running[p] / capacity[p]
                } else {
                    f64::INFINITY
                }
            };
            by_load.sort_by(|&a, &b| load(a).total_cmp(&load(b)).then(a.cmp(&b)));
            for p in by_load {
                for &j in &pool_jobs[p] {
                    if remaining[j as usize] == 0 {
                        continue;
                    }
                    let pick = match &mut maps {
                        Some(q) => {
                            let fits = |t: usize| space.fits(ix, t, n as u32);
                            q.closest(j, n as u32, rack, &placed, fits)
                                .map(|(t, _): (usize, Class)| t)
                        }
                        None => {
                            let room = copies.room(ix, j, n as u32) > 0;
                            room.then(|| reduces[j as usize].first_unplaced(&placed)).flatten()
                        }
                    };
                    let Some(t) = pick else { continue };
                    placed[t] = true;
                    node_of_task[t] = Some(n as u32);
                    if kind == TaskKind::Map {
                        space.take(ix, t, n as u32);
                    } else {
                        copies.launch(j, n as u32);
                    }
                    remaining[j as usize] -= 1;
                    running[p] += 1.0;
                    left -= 1;
                    return Offer::Taken;
                }
            }
            Offer::Declined
        });
    }
    Placement::new(node_of_task, Status::Heuristic)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use placer_models::parse_request;

    fn assigned(body: &str) -> Vec<(String, String)> {
        let req = parse_request(body.as_bytes()).unwrap();
        let answer = crate::place(&req, &Default::default()).unwrap();
        answer.assignments.iter().map(|a| (a.task.to_string(), a.node.to_string())).collect()
    }

    /// Capacity order, by hand: weights 3 and 1 on 4 map slots give capacities 3 and 1. Pool
    /// `a` runs 2, `b` none; n2 offers its 2 free slots. First offer: b at 0 / 1 < a at 2 / 3,
    /// so b's head job takes one; second: a at 2 / 3 < b at 1 / 1, so a takes one, although
    /// b has more pending. FIFO inside a pool: the high-priority job jb2 goes before jb1.
    #[test]
    fn capacity_scheduler_serves_the_pool_furthest_below_capacity() {
        let got = assigned(
            r#"{"schema_version": 1, "cluster": {"racks": [{"id": "r"}],
                "nodes": [{"id": "n1", "rack": "r", "map_slots": 2},
                          {"id": "n2", "rack": "r", "map_slots": 2}]},
              "pools": [{"id": "a", "weight": 3}, {"id": "b", "weight": 1}],
              "jobs": [{"id": "ja", "pool": "a"}, {"id": "jb1", "pool": "b"},
                       {"id": "jb2", "pool": "b", "priority": "high", "submit_s": 5}],
              "running": [{"id": "r1", "job": "ja", "kind": "map", "node": "n1"},
                          {"id": "r2", "job": "ja", "kind": "map", "node": "n1"}],
              "pending": [{"id": "a1", "job": "ja", "kind": "map"},
                          {"id": "b1", "job": "jb1", "kind": "map"},
                          {"id": "b2", "job": "jb2", "kind": "map"}],
              "policy": {"algorithm": "fifo_per_pool"}}"#,
        );
        assert_eq!(got, [("a1".into(), "n2".into()), ("b2".into(), "n2".into())]);
    }

    /// The head job takes its node-local map for the offered node first (no delay).
    #[test]
    fn the_head_job_takes_its_closest_map() {
        let got = assigned(
            r#"{"schema_version": 1, "cluster": {"racks": [{"id": "r1"}, {"id": "r2"}],
                "nodes": [{"id": "n1", "rack": "r1", "map_slots": 1},
                          {"id": "n2", "rack": "r2", "map_slots": 1}]},
              "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}],
              "pending": [{"id": "m1", "job": "j", "kind": "map", "replicas": ["n2"]},
                          {"id": "m2", "job": "j", "kind": "map", "replicas": ["n1"]}],
              "policy": {"algorithm": "fifo_per_pool"}}"#,
        );
        assert_eq!(got, [("m1".into(), "n2".into()), ("m2".into(), "n1".into())]);
    }

    /// The knob's domain: a multiple ≥ 1 of the capacity.
    #[test]
    fn max_capacity_factor_below_one_is_refused_with_its_path() {
        let mut policy = placer_models::Policy::default();
        policy.set("max_capacity_factor", 0.5);
        let e = crate::registry::check_settings(&policy).unwrap_err();
        assert_eq!(e.path(), "policy.max_capacity_factor");
    }
}
