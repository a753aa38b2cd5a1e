//! The heartbeat mechanism shared by Hadoop's schedulers: `fifo` (Hadoop's default
//! `JobQueueTaskScheduler`), `fair` (the Hadoop Fair Scheduler, design doc §4.4) and `delay`
//! (fair sharing with delay scheduling, FAIR Alg. 1); each policy is its own file and picks a
//! [`Mode`] here. Free slots are offered one per heartbeat in rounds over the nodes (see
//! [`heartbeat_rounds`]); each offer goes to the first job in the policy's order that takes it:
//! - `fifo`: jobs by priority, then submit time, then snapshot order (pools ignored);
//! - `fair`/`delay`: pools by [`fair_cmp`] (needy below min share first, then running/weight),
//!   then inside a pool its jobs by the pool's mode (`fair`: running / 2^priority; `fifo`:
//!   priority, then submit time), recomputed after every launch;
//! - `fifo`/`fair`: the head-of-line job launches its closest map for the node: node-local (or
//!   without a preference), else rack-local, else its first remaining; `delay`: Alg. 1, below.
//!
//! Delay scheduling (FAIR Alg. 1, literally) follows [`crate::delay_scheduling`]: its levels,
//! waits and echoed state, applied offer by offer; a job not allowed the map it is offered is
//! skipped and the next job is asked. With one heartbeat per epoch this is Alg. 1 step for
//! step. Jobs of a pool starved
//! past a preemption timeout skip the wait (their level becomes that of what they launch); a
//! map without replicas counts as node-local. Reduces ignore locality (as Hadoop's did) but
//! obey CPAC ([`crate::fair::cpac`]). A map is offered a slot only while its output fits the node's
//! intermediate space left ([`crate::fair::disk`], FAIR §5.4): the classes above are over the maps
//! that fit, and a job none of whose maps fit is not asked.
//!
//! Complexity: O(offers · (pools log pools + jobs log jobs)) for the orders plus amortised
//! O(Σ replicas) for the task queues.

use super::queue::{heartbeat_rounds, Offer, Queue};
use crate::delay_scheduling::{self, DelayState};
use crate::fair::cpac::Copies;
use crate::fair::disk::Space;
use crate::fair::fair_order::{fair_cmp, Standing};
use crate::fair::fair_shares::priority_weight;
use crate::fair::job_limits::fifo_cmp;
use crate::fair::starvation::Starvation;
use crate::index::Indexed;
use crate::placement::Placement;
use placer_models::{PoolMode, Status, TaskKind, WaitReason};
use std::collections::HashMap;

/// Which heartbeat scheduler (the order in which jobs are asked, and whether they wait for
/// locality).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Hadoop's FIFO scheduler.
    Fifo,
    /// The Fair Scheduler without delay.
    Fair,
    /// The Fair Scheduler with delay scheduling (FAIR Alg. 1).
    Delay,
}

/// A map's locality class for one offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    Node,
    Rack,
    Remote,
}

/// Per-job map queues for one epoch.
pub(crate) struct MapQueues {
    by_node: HashMap<(u32, u32), Queue>,
    by_rack: HashMap<(u32, u32), Queue>,
    anywhere: Vec<Queue>,
    no_preference: Vec<Queue>,
}

impl MapQueues {
    pub(crate) fn new(ix: &Indexed<'_>, tasks: &[usize]) -> Self {
        let jobs = ix.req.jobs.len();
        let mut q = Self {
            by_node: HashMap::new(),
            by_rack: HashMap::new(),
            anywhere: vec![Queue::default(); jobs],
            no_preference: vec![Queue::default(); jobs],
        };
        for &t in tasks {
            let j = ix.pending_job[t];
            q.anywhere[j as usize].tasks.push(t);
            if ix.replicas[t].is_empty() {
                q.no_preference[j as usize].tasks.push(t);
            }
            let mut racks: Vec<u32> = Vec::new();
            for &r in &ix.replicas[t] {
                q.by_node.entry((j, r)).or_default().tasks.push(t);
                let rack = ix.node_rack[r as usize];
                if !racks.contains(&rack) {
                    racks.push(rack);
                    q.by_rack.entry((j, rack)).or_default().tasks.push(t);
                }
            }
        }
        q
    }

    /// Job `j`'s closest unplaced map for node `n` of rack `rack` among those that `fit` the
    /// node's intermediate space, with its class.
    pub(crate) fn closest(
        &mut self,
        j: u32,
        n: u32,
        rack: u32,
        placed: &[bool],
        fits: impl Fn(usize) -> bool,
    ) -> Option<(usize, Class)> {
        let first = |q: Option<&mut Queue>| q.and_then(|q| q.first_unplaced_where(placed, &fits));
        if let Some(t) = first(self.by_node.get_mut(&(j, n))) {
            return Some((t, Class::Node));
        }
        if let Some(t) = first(self.no_preference.get_mut(j as usize)) {
            return Some((t, Class::Node));
        }
        if let Some(t) = first(self.by_rack.get_mut(&(j, rack))) {
            return Some((t, Class::Rack));
        }
        first(self.anywhere.get_mut(j as usize)).map(|t| (t, Class::Remote))
    }
}

/// FAIR Alg. 1's test for job state `d` offered a map of locality `class`: the level it
/// launches at, or `None` to skip ([`crate::delay_scheduling::allowed_level`]).
pub(crate) fn allowed_level(d: &DelayState, class: Class, t1: f64, t2: f64) -> Option<u8> {
    let offered = match class {
        Class::Node => 0,
        Class::Rack => 1,
        Class::Remote => 2,
    };
    delay_scheduling::allowed_level(d, offered, t1, t2)
}

/// The delay state of every job at the start of an epoch and each job's T1 and T2
/// ([`delay_scheduling::start`]).
pub(crate) fn delay_start(ix: &Indexed<'_>) -> (Vec<DelayState>, Vec<f64>, Vec<f64>) {
    let start = delay_scheduling::start(ix.req);
    (
        start.iter().map(|d| d.state).collect(),
        start.iter().map(|d| d.t1).collect(),
        start.iter().map(|d| d.t2).collect(),
    )
}

/// A heartbeat scheduler's [`Placement`]: jobs it skipped for locality wait with
/// `waiting_for_locality`; with `delay = Some((now_s, state))` the delay state is returned
/// (`skipped_at_s = now_s` for the skipped jobs).
pub(crate) fn finish(
    node_of_task: Vec<Option<u32>>,
    mut job_reason: Vec<[Option<WaitReason>; 2]>,
    skipped: &[bool],
    delay: Option<(f64, Vec<DelayState>)>,
) -> Placement {
    for (reason, &s) in job_reason.iter_mut().zip(skipped) {
        if s {
            reason[0] = Some(WaitReason::WaitingForLocality);
        }
    }
    let mut placement = Placement::new(node_of_task, Status::Heuristic);
    placement.job_reason = job_reason;
    if let Some((now, d)) = delay {
        placement.set_jobs(&delay_scheduling::end(now, d, skipped));
    }
    placement
}

/// Places maps and reduces with the heartbeat scheduler `mode`: free slots offered one per
/// heartbeat in rounds over the nodes, each to the first job in the mode's order that takes
/// it (see the module docs).
///
/// # Complexity
/// O(offers · (pools log pools + jobs log jobs)) time for the orders plus amortised
/// O(Σ replicas) for the task queues; O(pending + jobs + Σ replicas) space.
///
/// # Errors
/// None: a task not placed is data (`job_reason`, the echoed delay state).
///
/// # Examples
/// FAIR Alg. 1, two heartbeats: node n1 (rack r1) has a free slot; job j's only map has its
/// block on n2 in rack r2. With the default T1 = T2 = 1.5 × 3 s, at level 0 and wait 0 the job
/// is skipped (`j.skipped = true`); ten seconds later its wait (10 s ≥ T1 + T2 = 9 s) lets it
/// launch the map off-rack, at level 2.
/// ```
/// let snapshot = |now: f64, delay: &str| format!(r#"{{"schema_version": 1, "now_s": {now},
///   "cluster": {{"racks": [{{"id": "r1"}}, {{"id": "r2"}}],
///     "nodes": [{{"id": "n1", "rack": "r1", "map_slots": 1}}, {{"id": "n2", "rack": "r2"}}]}},
///   "pools": [{{"id": "p"}}], "jobs": [{{"id": "j", "pool": "p"{delay}}}],
///   "pending": [{{"id": "j-m-0", "job": "j", "kind": "map", "input_bytes": 1000, "replicas": ["n2"]}}],
///   "policy": {{"algorithm": "delay"}}}}"#);
/// let opts = placer_solver::PlaceOptions::default();
/// let req = placer_models::parse_request(snapshot(100.0, "").as_bytes()).unwrap();
/// let first = placer_solver::place(&req, &opts).unwrap();
/// assert!(first.assignments.is_empty());
/// use placer_solver::{delay_scheduling::DelayState, echo::reported};
/// let state: DelayState = reported(&first.jobs[0]).unwrap();
/// assert_eq!((state.level, state.wait_s, state.skipped_at_s), (0, 0.0, Some(100.0)));
/// // The master echoes the state; the next heartbeat comes 10 s later.
/// let echo = r#", "delay": {"level": 0, "wait_s": 0.0, "skipped_at_s": 100.0}"#;
/// let req = placer_models::parse_request(snapshot(110.0, echo).as_bytes()).unwrap();
/// let second = placer_solver::place(&req, &opts).unwrap();
/// assert_eq!(second.assignments[0].node.as_str(), "n1");
/// assert_eq!(reported::<DelayState>(&second.jobs[0]).unwrap().level, 2);
/// ```
pub fn place(ix: &Indexed<'_>, starvation: &Starvation, mode: Mode) -> Placement {
    let req = ix.req;
    let jobs = req.jobs.len();
    let pools = req.pools.len();
    let now = req.now_s;
    let mut node_of_task = vec![None; req.pending.len()];
    let mut placed = vec![false; req.pending.len()];
    let mut job_reason = vec![[None; 2]; jobs];

    // FAIR Alg. 1 state: the wait accrued since the last epoch's skip is added first.
    let (mut delay, t1, t2) = delay_start(ix);
    let mut skipped = vec![false; jobs];

    let mut fifo: Vec<usize> = (0..jobs).collect();
    fifo.sort_by(|&a, &b| fifo_cmp(&req.jobs[a], a, &req.jobs[b], b));
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); pools];
    for &j in &fifo {
        members[ix.job_pool[j] as usize].push(j);
    }

    for (k, kind) in TaskKind::ALL.into_iter().enumerate() {
        let tasks = &ix.eligible_of_kind[k];
        if tasks.is_empty() {
            continue;
        }
        let mut remaining = vec![0u32; jobs];
        let mut pool_remaining = vec![0u32; pools];
        for &t in tasks {
            let j = ix.pending_job[t] as usize;
            remaining[j] += 1;
            pool_remaining[ix.job_pool[j] as usize] += 1;
        }
        let mut left = tasks.len();
        let mut job_running: Vec<f64> = ix.job_running[k].iter().map(|&r| f64::from(r)).collect();
        let job_demand: Vec<f64> =
            (0..jobs).map(|j| job_running[j] + f64::from(ix.job_demand_pending(k, j))).collect();
        let mut pool_running = starvation.running[k].clone();
        let mut pool_demand = vec![0.0; pools];
        for j in 0..jobs {
            pool_demand[ix.job_pool[j] as usize] += job_demand[j];
        }
        let pool_standing = |p: usize, running: &[f64]| {
            Standing::of_pool(&req.pools[p], k, running[p], pool_demand[p])
        };
        let job_standing = |j: usize, running: &[f64]| Standing {
            running: running[j],
            min_share: 0.0,
            demand: job_demand[j],
            weight: priority_weight(req.jobs[j].priority),
        };
        let starved: Vec<bool> = (0..pools).map(|p| starvation.starved_before(k, p)).collect();

        let mut maps = (kind == TaskKind::Map).then(|| MapQueues::new(ix, tasks));
        let mut reduces: Vec<Queue> = vec![Queue::default(); jobs];
        if kind == TaskKind::Reduce {
            for &t in tasks {
                reduces[ix.pending_job[t] as usize].tasks.push(t);
            }
        }
        let mut copies = Copies::default();
        let mut space = Space::new(ix);

        heartbeat_rounds(&ix.free[k], |n| {
            if left == 0 {
                return Offer::Done;
            }
            let node = n as u32;
            let rack = ix.node_rack[n];
            // The order in which jobs are asked for this slot.
            let order: Vec<usize> = match mode {
                Mode::Fifo => fifo.iter().copied().filter(|&j| remaining[j] > 0).collect(),
                Mode::Fair | Mode::Delay => {
                    let mut ps: Vec<usize> =
                        (0..pools).filter(|&p| pool_remaining[p] > 0).collect();
                    ps.sort_by(|&a, &b| {
                        fair_cmp(&pool_standing(a, &pool_running), &pool_standing(b, &pool_running))
                            .then(a.cmp(&b))
                    });
                    let mut order = Vec::new();
                    for p in ps {
                        let mut js: Vec<usize> =
                            members[p].iter().copied().filter(|&j| remaining[j] > 0).collect();
                        if req.pools[p].mode == PoolMode::Fair {
                            js.sort_by(|&a, &b| {
                                fair_cmp(
                                    &job_standing(a, &job_running),
                                    &job_standing(b, &job_running),
                                )
                                .then(req.jobs[a].submit_s.total_cmp(&req.jobs[b].submit_s))
                                .then(a.cmp(&b))
                            });
                        }
                        order.extend(js);
                    }
                    order
                }
            };
            for j in order {
                let ju = j as u32;
                let pick = match maps.as_mut() {
                    Some(q) => {
                        let fits = |t: usize| space.fits(ix, t, node);
                        let Some((t, class)) = q.closest(ju, node, rack, &placed, fits) else {
                            continue;
                        };
                        if mode != Mode::Delay || starved[ix.job_pool[j] as usize] {
                            delay[j].level = match class {
                                Class::Node => 0,
                                Class::Rack => 1,
                                Class::Remote => 2,
                            };
                            Some(t)
                        } else {
                            let d = &mut delay[j];
                            match allowed_level(d, class, t1[j], t2[j]) {
                                Some(level) => {
                                    d.level = level;
                                    Some(t)
                                }
                                None => {
                                    skipped[j] = true;
                                    None
                                }
                            }
                        }
                    }
                    None => {
                        if copies.room(ix, ju, node) == 0 {
                            job_reason[j][k] = Some(WaitReason::ReducerLimit);
                            None
                        } else {
                            reduces[j].first_unplaced(&placed)
                        }
                    }
                };
                let Some(t) = pick else { continue };
                placed[t] = true;
                node_of_task[t] = Some(node);
                remaining[j] -= 1;
                let p = ix.job_pool[j] as usize;
                pool_remaining[p] -= 1;
                left -= 1;
                job_running[j] += 1.0;
                pool_running[p] += 1.0;
                if kind == TaskKind::Map {
                    delay[j].wait_s = 0.0;
                    skipped[j] = false;
                    space.take(ix, t, node);
                } else {
                    copies.launch(ju, node);
                }
                return Offer::Taken;
            }
            Offer::Declined
        });
    }

    let delay = (mode == Mode::Delay).then_some((now, delay));
    finish(node_of_task, job_reason, &skipped, delay)
}
