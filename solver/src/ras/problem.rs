//! One control cycle of RAS (Polo et al. §3.4) as data: the jobs' needs (s_req, s_pend,
//! r_pend), what already runs, the nodes' room, and the pending tasks grouped into classes of
//! equal (job, kind, demand). A placement is a count per (class, node): eqs. 4–6 and
//! Algorithm 1 speak of counts P_j,tt, not of tasks, and so do the heuristic, the MIP
//! reference and the brute-force oracle, which all answer a [`Counts`] for the same
//! [`RasProblem`].

use super::plan::{required_now, GoalJob};
use super::utility::{required_maps, Need};
use crate::index::Indexed;
use crate::room::Room;
use placer_models::TaskKind;
use std::collections::HashMap;

/// Pending tasks of one job and kind with one demand vector.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskClass {
    /// The job (index in `jobs`).
    pub job: u32,
    /// Map or reduce.
    pub kind: TaskKind,
    /// Demand per resource of each task (the room's resource order).
    pub demand: Vec<f64>,
    /// Each task's map output in bytes when some node limits its intermediate space
    /// (`resources.disk`, FAIR §5.4), else 0.
    pub output: u64,
    /// The tasks (positions in `pending`), in snapshot order.
    pub tasks: Vec<usize>,
    /// The nodes its tasks may use (a mask by node index; a gang round's topology domain,
    /// [`crate::gang::Scope`]), `None` for any node.
    pub allowed: Option<Vec<bool>>,
}

impl TaskClass {
    /// Whether its tasks may go to node `n`.
    pub fn allows(&self, n: usize) -> bool {
        self.allowed.as_ref().is_none_or(|mask| mask.get(n).copied().unwrap_or(false))
    }
}

/// RAS's problem for one epoch.
#[derive(Clone, Debug, PartialEq)]
pub struct RasProblem {
    /// Room per node after the running tasks.
    pub room: Room,
    /// Eligible pending tasks (runnable jobs) by (job, kind, demand), in order of first
    /// appearance in `pending`.
    pub classes: Vec<TaskClass>,
    /// Per job: s_req, s_pend, r_pend (running and pending tasks, or the master's counts).
    pub needs: Vec<Need>,
    /// Per job, tasks running per kind (`[map, reduce]`): s_alloc and r_alloc before this
    /// epoch's placement.
    pub running: Vec<[u32; 2]>,
    /// Per job, whether it has a utility: it still has a map or reduce to run.
    pub active: Vec<bool>,
    /// Per job, its place in arrival order (submit time, then snapshot order): the
    /// tie-break of every choice between jobs.
    pub arrival: Vec<u32>,
    /// Per node, its free intermediate space in bytes (`None`: unlimited): the maps placed
    /// there must fit it with their `output` (FAIR §5.4, as under every policy).
    pub disk: Vec<Option<u64>>,
    /// Per node, how many copy-phase reducers one job may have there (FAIR §5.2 CPAC;
    /// `None`: no limit), and per (job, node) how many it has.
    pub copy_limit: Vec<Option<u32>>,
    /// Copy-phase reducers running per (job, node), on CPAC nodes.
    pub copying: HashMap<(u32, u32), u32>,
}

/// How many tasks of each class go to each node: `x[class][node]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Row per class, column per node.
    pub x: Vec<Vec<u32>>,
}

impl Counts {
    /// No task placed.
    pub fn zero(classes: usize, nodes: usize) -> Self {
        Self { x: vec![vec![0; nodes]; classes] }
    }
}

impl RasProblem {
    /// The problem of a validated, indexed snapshot.
    ///
    /// s_pend = the job's maps running or pending in the snapshot, at least
    /// `maps_total − maps_done` when the master gives them; r_pend = its reduces running or
    /// pending; s_req from the goal plan for jobs with a goal ([`super::plan`]), else eq. 2
    /// ([`required_maps`]: 1 without a goal).
    ///
    /// # Complexity
    /// O((nodes + pending + running) · resources).
    pub fn of(ix: &Indexed<'_>) -> Self {
        let req = ix.req;
        let room = Room::of(ix);
        let jobs = req.jobs.len();
        let running: Vec<[u32; 2]> =
            (0..jobs).map(|j| [ix.job_running[0][j], ix.job_running[1][j]]).collect();
        let mut needs = Vec::with_capacity(jobs);
        let mut active = Vec::with_capacity(jobs);
        for (j, job) in req.jobs.iter().enumerate() {
            let seen_maps = ix.job_running[0][j] + ix.job_pending[0][j];
            let seen_reduces = ix.job_running[1][j] + ix.job_pending[1][j];
            let left_maps = match job.maps_total {
                Some(total) => total.saturating_sub(job.maps_done.unwrap_or(0)),
                None => seen_maps,
            };
            let s_pend = seen_maps.max(left_maps);
            let r_pend = seen_reduces;
            let s_req = required_maps(s_pend, s_pend, job.mean_map_s, job.goal_s, req.now_s);
            needs.push(Need { s_req, s_pend, r_pend });
            active.push(ix.runnable[j] && s_pend + r_pend > 0);
        }
        let mut classes: Vec<TaskClass> = Vec::new();
        let mut at: HashMap<(u32, TaskKind, Vec<u64>, u64), usize> = HashMap::new();
        let disk = ix.has_disk();
        for kind in TaskKind::ALL {
            for &t in &ix.eligible_of_kind[kind.slot()] {
                let job = ix.pending_job[t];
                let demand = room.demand_of(t);
                let output = if disk { ix.output(t) } else { 0 };
                let key = (job, kind, demand.iter().map(|d| d.to_bits()).collect(), output);
                let c = *at.entry(key).or_insert_with(|| {
                    classes.push(TaskClass {
                        job,
                        kind,
                        demand: demand.to_vec(),
                        output,
                        tasks: Vec::new(),
                        allowed: None,
                    });
                    classes.len() - 1
                });
                classes[c].tasks.push(t);
            }
        }
        let mut by_submit: Vec<usize> = (0..jobs).collect();
        by_submit.sort_by(|&a, &b| {
            req.jobs[a].submit_s.total_cmp(&req.jobs[b].submit_s).then(a.cmp(&b))
        });
        let mut arrival = vec![0; jobs];
        for (i, &j) in by_submit.iter().enumerate() {
            arrival[j] = i as u32;
        }
        goal_plan(ix, &room, &active, &arrival, &mut needs);
        Self {
            room,
            classes,
            needs,
            running,
            active,
            arrival,
            disk: ix.disk.clone(),
            copy_limit: ix.copy_limit.clone(),
            copying: ix.copying.clone(),
        }
    }

    /// Narrows the problem to a gang round's `scope` ([`crate::gang::rounds`]): the classes of
    /// the jobs left out go, and they have no utility to raise (`active` false: a gang that
    /// cannot start this epoch does not hold RAS's least utility down); the classes of a job
    /// kept to a domain may use its nodes only.
    ///
    /// # Complexity
    /// O(classes · nodes) at most (one mask copied per kept class).
    ///
    /// # Errors
    /// None.
    ///
    /// # Examples
    /// ```
    /// use placer_solver::{gang::Scope, ras::RasProblem, Indexed};
    /// let req = placer_models::parse_request(br#"{"schema_version": 1,
    ///   "cluster": {"racks": [{"id": "r"}], "nodes": [{"id": "a", "rack": "r", "resources": {"cpu": 4}},
    ///     {"id": "b", "rack": "r", "resources": {"cpu": 4}}]},
    ///   "pools": [{"id": "p"}], "jobs": [{"id": "x", "pool": "p"}, {"id": "y", "pool": "p"}],
    ///   "pending": [{"id": "t0", "job": "x", "kind": "map"}, {"id": "t1", "job": "y", "kind": "map"}]}"#)
    ///   .unwrap();
    /// let mut p = RasProblem::of(&Indexed::new(&req));
    /// let mut scope = Scope::open(2);
    /// scope.nodes[0] = Some(vec![false, true]);
    /// scope.dropped[1] = Some(placer_models::WaitReason::GangIncomplete);
    /// p.scope(&scope);
    /// assert_eq!(p.classes.len(), 1);
    /// assert!(!p.classes[0].allows(0) && p.classes[0].allows(1));
    /// assert_eq!(p.active, vec![true, false]);
    /// ```
    pub fn scope(&mut self, scope: &crate::gang::Scope) {
        self.classes.retain(|c| scope.takes(c.job as usize));
        for class in &mut self.classes {
            class.allowed = scope.nodes.get(class.job as usize).cloned().flatten();
        }
        for (j, active) in self.active.iter_mut().enumerate() {
            *active &= scope.takes(j);
        }
    }

    /// How many more copy-phase reducers job `j` may start on node `n` (CPAC; `u32::MAX`
    /// without).
    pub fn copy_room(&self, j: u32, n: usize) -> u32 {
        match self.copy_limit[n] {
            None => u32::MAX,
            Some(limit) => {
                limit.saturating_sub(self.copying.get(&(j, n as u32)).copied().unwrap_or(0))
            }
        }
    }

    /// Per job: s_alloc and r_alloc after `counts` (running + placed).
    pub fn allocated(&self, counts: &Counts) -> Vec<[u32; 2]> {
        let mut alloc = self.running.clone();
        for (class, row) in self.classes.iter().zip(&counts.x) {
            let placed: u32 = row.iter().sum();
            alloc[class.job as usize][class.kind.slot()] += placed;
        }
        alloc
    }

    /// Per job, its utility after `counts` (RAS eq. 1 capped at 1; −∞ possible), `None` for a
    /// job with nothing to run.
    pub fn utilities(&self, counts: &Counts) -> Vec<Option<f64>> {
        self.allocated(counts)
            .iter()
            .enumerate()
            .map(|(j, a)| self.active[j].then(|| self.needs[j].utility(a[0], a[1])))
            .collect()
    }

    /// RAS eq. 4's objective: the least utility of the active jobs (`None` when none is).
    pub fn min_utility(&self, counts: &Counts) -> Option<f64> {
        self.utilities(counts).into_iter().flatten().min_by(|a, b| a.total_cmp(b))
    }

    /// RAS eq. 5 read as a score to maximise: the used share of every (node, resource) with
    /// capacity, summed (Σ used / Ω; dimensionless), after `counts`.
    pub fn packing(&self, counts: &Counts) -> f64 {
        let r = self.room.resources();
        let mut used = self.room.used.clone();
        for (class, row) in self.classes.iter().zip(&counts.x) {
            for (n, &k) in row.iter().enumerate() {
                for (u, d) in used[n * r..(n + 1) * r].iter_mut().zip(&class.demand) {
                    *u += f64::from(k) * d;
                }
            }
        }
        used.iter().zip(&self.room.capacity).filter(|(_, &c)| c > 0.0).map(|(u, c)| u / c).sum()
    }

    /// Whether `counts` respects every node's room and slots (eq. 6), its intermediate space
    /// and CPAC's reducer limit, places no more tasks of a class than it has, and none on a
    /// node its class may not use ([`TaskClass::allows`]).
    pub fn feasible(&self, counts: &Counts) -> bool {
        let mut room = self.room.clone();
        let nodes = room.nodes();
        let mut output = vec![0u128; nodes];
        let mut copies: HashMap<(u32, usize), u64> = HashMap::new();
        for (class, row) in self.classes.iter().zip(&counts.x) {
            for (n, &k) in row.iter().enumerate() {
                output[n] += u128::from(class.output) * u128::from(k);
                if class.kind == TaskKind::Reduce {
                    *copies.entry((class.job, n)).or_default() += u64::from(k);
                }
            }
        }
        if (0..nodes).any(|n| self.disk[n].is_some_and(|d| output[n] > u128::from(d))) {
            return false;
        }
        if copies.iter().any(|(&(j, n), &k)| k > u64::from(self.copy_room(j, n))) {
            return false;
        }
        for (class, row) in self.classes.iter().zip(&counts.x) {
            if row.iter().map(|&k| k as usize).sum::<usize>() > class.tasks.len() {
                return false;
            }
            for (n, &k) in row.iter().enumerate() {
                if k > 0 && !class.allows(n) {
                    return false;
                }
                for _ in 0..k {
                    if !room.fits(n, class.kind, &class.demand) {
                        return false;
                    }
                    room.take(n, class.kind, &class.demand);
                }
            }
        }
        true
    }
}

/// placer's s_req for the active jobs with a goal ([`super::plan`]): their share now in the
/// plan that serves the goals earliest first, in place of eq. 2's even spread. A job's
/// concurrency C_j counts its maps (the demand of a pending map, else of a running one) that
/// fit each empty node, at most s_pend per node and the node's map slots when they cap it; its
/// map length is `mean_map_s`, else the longest its running maps have run so far (a lower
/// bound; `running[].started_s`), else 0. A job whose maps fit no node keeps eq. 2's s_req.
///
/// # Complexity
/// O((nodes + pending + running) · resources) to gather, then [`required_now`].
fn goal_plan(ix: &Indexed<'_>, room: &Room, active: &[bool], arrival: &[u32], needs: &mut [Need]) {
    let req = ix.req;
    let jobs = req.jobs.len();
    let r = room.resources();
    let mut demand: Vec<Option<&[f64]>> = vec![None; jobs];
    let mut elapsed: Vec<Option<f64>> = vec![None; jobs];
    for (t, task) in req.pending.iter().enumerate() {
        let j = ix.pending_job[t] as usize;
        if task.kind == TaskKind::Map && j < jobs && demand[j].is_none() {
            demand[j] = Some(room.demand_of(t));
        }
    }
    for (i, task) in req.running.iter().enumerate() {
        let j = ix.running_job[i] as usize;
        if task.kind != TaskKind::Map || j >= jobs {
            continue;
        }
        if demand[j].is_none() {
            demand[j] = Some(room.running_demand_of(i));
        }
        if let Some(s) = task.started_s {
            let e = (req.now_s - s).max(0.0);
            elapsed[j] = Some(elapsed[j].map_or(e, |x: f64| x.max(e)));
        }
    }
    let mut planned: Vec<usize> = Vec::new();
    let mut goal_jobs: Vec<GoalJob> = Vec::new();
    for (j, job) in req.jobs.iter().enumerate() {
        let (Some(goal_s), Some(d)) = (job.goal_s, demand[j]) else { continue };
        let s_pend = needs[j].s_pend;
        if !active[j] || s_pend == 0 {
            continue;
        }
        let mut concurrency = 0.0;
        for (n, node) in req.cluster.nodes.iter().enumerate() {
            let slots = node.slots(TaskKind::Map);
            let mut fit = if slots == 0 && !node.has_capacities() { 0 } else { s_pend };
            if slots > 0 {
                fit = fit.min(slots);
            }
            for (k, &x) in d.iter().enumerate().take(r) {
                if x > 0.0 {
                    let cap = room.capacity[n * r + k];
                    let f = (cap / x + 1e-9).floor().max(0.0);
                    fit = fit.min(if f >= f64::from(u32::MAX) { u32::MAX } else { f as u32 });
                }
            }
            concurrency += f64::from(fit);
        }
        if concurrency <= 0.0 {
            continue;
        }
        let map_s = job.mean_map_s.or(elapsed[j]).unwrap_or(0.0);
        planned.push(j);
        goal_jobs.push(GoalJob { goal_s, s_pend, concurrency, map_s, rank: arrival[j] });
    }
    for (&j, s_req) in planned.iter().zip(required_now(&goal_jobs, req.now_s)) {
        needs[j].s_req = s_req;
    }
}
