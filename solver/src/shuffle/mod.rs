//! ShuffleWatcher's per-epoch knowledge (Ahmad et al. §3): NetSat's saturation flags
//! ([`netsat`]), the jobs' Shuffle classes ([`class`]), SAMP's preferred map racks and
//! tentative reduces ([`samp`](mod@samp)), SARP's preferred reduces per rack ([`sarp`]), the users that
//! are the fairness unit and the starvation windows (§3.4). Computed once per epoch from the
//! snapshot and the echoed SAMP state, and shared by `shuffle_watcher`,
//! `shuffle_watcher_relaxed` and `lsap_shuffle`, which prices them ([`cost`]).
//!
//! Users: a job's `jobs[].user`, else the job alone (per-job fairness, §5.4's one job per
//! user). A user's weight is `users[].weight`, else 1.
//!
//! Starvation windows (§3.4): a job's window is ⌊submit_s / starvation_window_s⌋; a user's jobs
//! of an earlier window go before those of a later one, whatever NASS, SAMP and SARP prefer.

pub mod class;
pub mod cost;
pub(crate) mod nass;
pub mod netsat;
pub mod samp;
pub mod sarp;
pub mod settings;
pub mod state;

pub use class::ShuffleClass;
pub use netsat::NetSat;
pub use settings::{ShuffleKnobs, SwMechanisms};
pub use state::{RackReduces, ShuffleWatcherState};

use crate::error::SolveError;
use crate::index::Indexed;
use placer_models::{RackId, TaskKind};
use samp::{estimate, samp, MapInput, SampPlan};
use std::collections::HashMap;

/// The knob groups the ShuffleWatcher policies (`shuffle_watcher`, `shuffle_watcher_relaxed`,
/// `lsap_shuffle`) read: the heartbeat and delay scheduling's waits (NASS's relaxed categories,
/// `lsap_shuffle`'s delay levels) and ShuffleWatcher's own.
pub(crate) static SETTINGS: &[&dyn crate::settings::Declared] = &[
    &crate::settings::Knobs::<crate::delay_scheduling::Heartbeat>::OF,
    &crate::settings::Knobs::<crate::delay_scheduling::DelayWaits>::OF,
    &crate::settings::Knobs::<ShuffleKnobs>::OF,
];

/// The per-job fields the ShuffleWatcher policies echo: delay scheduling's state and SAMP's
/// decision.
pub(crate) static JOB_FIELDS: &[&dyn crate::echo::Declared] = &[
    &crate::echo::Field::<crate::delay_scheduling::DelayState>::OF,
    &crate::echo::Field::<ShuffleWatcherState>::OF,
];

/// The most racks × (jobs + replicas of the maps of jobs SAMP still has to decide) one epoch
/// of the shuffle-aware policies may cost: the view keeps a value per (job, rack), and SAMP
/// evaluates each undecided job's rack sets over every rack ([`ShuffleView::check_size`]).
pub const MAX_SHUFFLE_WORK: u64 = 1 << 22;

/// ShuffleWatcher's view of one epoch.
#[derive(Clone, Debug)]
pub struct ShuffleView {
    /// Which mechanisms run (`policy.shuffle_watcher`).
    pub mechanisms: SwMechanisms,
    /// The snapshot's ShuffleWatcher knobs.
    pub knobs: ShuffleKnobs,
    /// NetSat.
    pub netsat: NetSat,
    /// Shuffle class per job.
    pub class: Vec<ShuffleClass>,
    /// ShuffleInputRatio per job.
    pub ratio: Vec<f64>,
    /// Fairness unit (user) per job, dense from 0 in order of first appearance.
    pub user: Vec<u32>,
    /// Weight per user.
    pub user_weight: Vec<f64>,
    /// Starvation window per job.
    pub window: Vec<u64>,
    /// PreferredMapRacks per job as bools per rack (all false without SAMP).
    pub map_racks: Vec<Vec<bool>>,
    /// PreferredReducesPerRack per job (SARP; all 0 without SARP).
    pub reduce_target: Vec<Vec<f64>>,
    /// The job's reduces running per rack before this epoch.
    pub reduces_on: Vec<Vec<u32>>,
    /// Maps completed per job (`jobs[].maps_done`, else 0).
    pub maps_done: Vec<u32>,
    /// Maps in all per job (`jobs[].maps_total`, else done + running + pending).
    pub maps_total: Vec<u32>,
    /// Reduces in all per job, SARP's NumReduces (`jobs[].reduces_total`, else running +
    /// pending).
    pub reduces_total: Vec<u32>,
    /// Whether the job's map phase is complete (`maps_done ≥ maps_total`; without the fields:
    /// no map running or pending in the snapshot).
    pub map_phase_done: Vec<bool>,
    /// SAMP's decision per job to return (`None`: not decided, e.g. no map seen yet).
    pub state: Vec<Option<ShuffleWatcherState>>,
}

impl ShuffleView {
    /// Refuses a snapshot whose view would cost more than [`MAX_SHUFFLE_WORK`]: racks ×
    /// (jobs + Σ replicas of the pending maps of jobs without an echoed SAMP decision). The
    /// view holds dense per-(job, rack) values, so without this bound a small snapshot with
    /// many racks and jobs could ask for gigabytes.
    ///
    /// # Complexity
    /// O(jobs + pending).
    ///
    /// # Errors
    /// [`SolveError::ProblemTooLarge`] at `cluster.racks` when the bound is exceeded.
    pub fn check_size(ix: &Indexed<'_>) -> Result<(), SolveError> {
        let req = ix.req;
        let undecided: u64 = req
            .pending
            .iter()
            .enumerate()
            .filter(|(t, task)| {
                task.kind == TaskKind::Map
                    && req.jobs[ix.pending_job[*t] as usize]
                        .state
                        .get(<ShuffleWatcherState as crate::echo::JobField>::KEY)
                        .is_none()
            })
            .map(|(t, _)| ix.replicas[t].len() as u64)
            .sum();
        let racks = ix.racks() as u64;
        let work = racks.saturating_mul((req.jobs.len() as u64).saturating_add(undecided));
        if work > MAX_SHUFFLE_WORK {
            return Err(SolveError::ProblemTooLarge {
                path: "cluster.racks".to_owned(),
                message: format!(
                    "{racks} racks × ({} jobs + {undecided} replicas of maps SAMP has yet to \
                     place) = {work} exceeds the shuffle-aware policies' limit of \
                     {MAX_SHUFFLE_WORK}",
                    req.jobs.len()
                ),
            });
        }
        Ok(())
    }

    /// Builds the view: NetSat, classes, users, windows, SAMP (the echoed decision, else decided
    /// now in job order from the job's pending maps: the paper runs it at submission), SARP.
    ///
    /// # Complexity
    /// O(snapshot + jobs deciding SAMP · racks · (racks + Σ their replicas)).
    ///
    /// # Errors
    /// None: references are validated; unknown ones are skipped.
    ///
    /// # Examples
    /// Two jobs of Fig. 5 (every block on both racks) arriving together: SAMP sends job 1's
    /// maps to r1 and job 2's to r2, and the answer returns the decision for the master to echo.
    /// ```
    /// use placer_solver::{Indexed, shuffle::ShuffleView};
    /// let text = r#"{"schema_version": 1, "cluster": {"racks": [{"id": "r1"}, {"id": "r2"}],
    ///   "nodes": [{"id": "a", "rack": "r1", "map_slots": 1}, {"id": "b", "rack": "r2", "map_slots": 1}]},
    ///   "pools": [{"id": "p"}], "jobs": [{"id": "j1", "pool": "p"}, {"id": "j2", "pool": "p"}],
    ///   "pending": [{"id": "m1", "job": "j1", "kind": "map", "input_bytes": 64, "replicas": ["a", "b"]},
    ///               {"id": "m2", "job": "j2", "kind": "map", "input_bytes": 64, "replicas": ["a", "b"]}],
    ///   "policy": {"algorithm": "shuffle_watcher"}}"#;
    /// let req = placer_models::parse_request(text.as_bytes()).unwrap();
    /// let view = ShuffleView::new(&Indexed::new(&req));
    /// assert_eq!(view.map_racks, vec![vec![true, false], vec![false, true]]);
    /// let echo = view.state[1].as_ref().unwrap();
    /// assert_eq!(echo.preferred_map_racks[0].as_str(), "r2");
    /// ```
    pub fn new(ix: &Indexed<'_>) -> Self {
        let req = ix.req;
        let knobs: ShuffleKnobs = crate::settings::read(&req.policy);
        let policy = &knobs;
        let mechanisms = knobs.shuffle_watcher;
        let jobs = req.jobs.len();
        let racks = ix.racks();
        let rack_index: HashMap<&str, u32> =
            req.cluster.racks.iter().enumerate().map(|(i, r)| (r.id.as_str(), i as u32)).collect();
        let class = req.jobs.iter().map(|j| ShuffleClass::of_job(j, policy.shuffle_light_ratio));
        let ratio: Vec<f64> = req.jobs.iter().map(class::ratio).collect();

        // Users: listed ones first (their weights), then unlisted names, then lone jobs.
        let mut user_of: HashMap<&str, u32> = HashMap::new();
        let mut user_weight: Vec<f64> = Vec::new();
        for u in &req.users {
            user_of.entry(u.id.as_str()).or_insert_with(|| {
                user_weight.push(u.weight.unwrap_or(1.0));
                (user_weight.len() - 1) as u32
            });
        }
        let user: Vec<u32> = req
            .jobs
            .iter()
            .map(|j| {
                let mut fresh = || {
                    user_weight.push(1.0);
                    (user_weight.len() - 1) as u32
                };
                match &j.user {
                    Some(u) => *user_of.entry(u.as_str()).or_insert_with(fresh),
                    None => fresh(),
                }
            })
            .collect();
        let window: Vec<u64> = req
            .jobs
            .iter()
            .map(|j| (j.submit_s / policy.starvation_window_s).floor().max(0.0) as u64)
            .collect();

        // Per-job maps, intermediate data per rack, reduces running per rack.
        let mut maps: Vec<Vec<MapInput>> = vec![Vec::new(); jobs];
        let mut intermediate = vec![vec![0.0; racks]; jobs];
        for (t, task) in req.pending.iter().enumerate() {
            let j = ix.pending_job[t] as usize;
            match task.kind {
                TaskKind::Map => {
                    let mut rs: Vec<u32> =
                        ix.replicas[t].iter().map(|&n| ix.node_rack[n as usize]).collect();
                    rs.sort_unstable();
                    rs.dedup();
                    maps[j].push(MapInput { bytes: task.input_bytes as f64, racks: rs });
                }
                TaskKind::Reduce => {
                    for &(n, b) in &ix.shuffle[t] {
                        intermediate[j][ix.node_rack[n as usize] as usize] += b as f64;
                    }
                }
            }
        }
        let node_index: HashMap<&str, usize> =
            req.cluster.nodes.iter().enumerate().map(|(i, n)| (n.id.as_str(), i)).collect();
        let mut reduces_on = vec![vec![0u32; racks]; jobs];
        for (t, task) in req.running.iter().enumerate() {
            if task.kind == TaskKind::Reduce {
                let j = ix.running_job[t] as usize;
                if let Some(&n) = node_index.get(task.node.as_str()) {
                    reduces_on[j][ix.node_rack[n] as usize] += 1;
                }
            }
        }
        let maps_done: Vec<u32> = req.jobs.iter().map(|j| j.maps_done.unwrap_or(0)).collect();
        let maps_total: Vec<u32> = (0..jobs)
            .map(|j| {
                let listed = ix.job_running[0][j].saturating_add(ix.job_pending[0][j]);
                req.jobs[j].maps_total.unwrap_or(maps_done[j].saturating_add(listed))
            })
            .collect();
        let reduces_total: Vec<u32> = (0..jobs)
            .map(|j| {
                let listed = ix.job_running[1][j].saturating_add(ix.job_pending[1][j]);
                req.jobs[j].reduces_total.unwrap_or(listed)
            })
            .collect();

        // SAMP: echoed decisions count first for the tie-break, then new ones in job order.
        // Reduce slots per rack: how many reduces SARP could put on each (SAMP's estimate).
        // None without the cap (`reduce_slot_cap` off).
        let mut rack_reduce_slots = vec![0u32; racks];
        for (node, &r) in req.cluster.nodes.iter().zip(&ix.node_rack) {
            if let Some(s) = rack_reduce_slots.get_mut(r as usize) {
                *s = s.saturating_add(node.configured_slots(TaskKind::Reduce));
            }
        }
        if !mechanisms.reduce_slot_cap {
            rack_reduce_slots.clear();
        }
        let mut preferred_by = vec![0u32; racks];
        let echoed: Vec<Option<(Vec<u32>, Vec<u32>)>> = req
            .jobs
            .iter()
            .enumerate()
            .map(|(j, _)| {
                let sw: ShuffleWatcherState = crate::echo::read(req, j)?;
                let pref: Vec<u32> = sw
                    .preferred_map_racks
                    .iter()
                    .filter_map(|r| rack_index.get(r.as_str()).copied())
                    .collect();
                let mut tentative = vec![0u32; racks];
                for rr in &sw.tentative_reduces_per_rack {
                    if let Some(&r) = rack_index.get(rr.rack.as_str()) {
                        tentative[r as usize] = tentative[r as usize].saturating_add(rr.reduces);
                    }
                }
                Some((pref, tentative))
            })
            .collect();
        for (pref, _) in echoed.iter().flatten() {
            for &r in pref {
                preferred_by[r as usize] += 1;
            }
        }
        let mut plans: Vec<Option<SampPlan>> = vec![None; jobs];
        for j in 0..jobs {
            if let Some((pref, tentative)) = &echoed[j] {
                plans[j] = Some(SampPlan {
                    preferred: pref.clone(),
                    tentative: tentative.clone(),
                    traffic_bytes: 0.0,
                });
            } else if !maps[j].is_empty() {
                let plan = if mechanisms.samp {
                    samp(
                        &maps[j],
                        racks,
                        &rack_reduce_slots,
                        ratio[j],
                        reduces_total[j],
                        &preferred_by,
                    )
                } else {
                    // Without SAMP the maps spread over every rack holding their input.
                    let all: Vec<bool> = (0..racks).map(|_| true).collect();
                    let (_, _, shares) =
                        estimate(&maps[j], &all, ratio[j], reduces_total[j], &rack_reduce_slots);
                    SampPlan {
                        preferred: Vec::new(),
                        tentative: samp::apportion(reduces_total[j], &shares),
                        traffic_bytes: 0.0,
                    }
                };
                for &r in &plan.preferred {
                    preferred_by[r as usize] += 1;
                }
                plans[j] = Some(plan);
            }
        }
        let map_racks: Vec<Vec<bool>> = plans
            .iter()
            .map(|p| {
                let mut v = vec![false; racks];
                if mechanisms.samp {
                    for &r in p.iter().flat_map(|p| &p.preferred) {
                        v[r as usize] = true;
                    }
                }
                v
            })
            .collect();
        let reduce_target: Vec<Vec<f64>> = (0..jobs)
            .map(|j| {
                if !mechanisms.sarp {
                    return vec![0.0; racks];
                }
                let total = maps_total[j];
                let done =
                    if total == 0 { 1.0 } else { f64::from(maps_done[j]) / f64::from(total) };
                let tentative = plans[j].as_ref().map(|p| p.tentative.as_slice()).unwrap_or(&[]);
                sarp::preferred_reduces(
                    &intermediate[j],
                    reduces_total[j],
                    done,
                    policy.map_completion_threshold,
                    tentative,
                )
            })
            .collect();
        let map_phase_done = (0..jobs).map(|j| maps_done[j] >= maps_total[j]).collect();
        let state = plans
            .iter()
            .map(|p| {
                let p = p.as_ref().filter(|_| mechanisms.samp)?;
                Some(ShuffleWatcherState {
                    preferred_map_racks: p.preferred.iter().map(|&r| rack_id(ix, r)).collect(),
                    tentative_reduces_per_rack: p
                        .tentative
                        .iter()
                        .enumerate()
                        .filter(|&(_, &n)| n > 0)
                        .map(|(r, &n)| RackReduces { rack: rack_id(ix, r as u32), reduces: n })
                        .collect(),
                })
            })
            .collect();
        Self {
            mechanisms,
            knobs,
            netsat: NetSat::new(ix),
            class: class.collect(),
            ratio,
            user,
            user_weight,
            window,
            map_racks,
            reduce_target,
            reduces_on,
            maps_done,
            maps_total,
            reduces_total,
            map_phase_done,
            state,
        }
    }

    /// Whether job `j`'s maps prefer rack `rack` (SAMP).
    pub fn prefers_map_rack(&self, j: usize, rack: u32) -> bool {
        self.map_racks[j].get(rack as usize).copied().unwrap_or(false)
    }

    /// Whether `hold_maps` holds job `j`'s maps to SAMP's racks: the job is Shuffle-heavy (the
    /// shuffle SAMP localises is theirs) and SAMP gave it preferred racks.
    pub fn holds_maps(&self, j: usize) -> bool {
        self.mechanisms.hold_maps
            && self.class[j] == ShuffleClass::Heavy
            && self.map_racks[j].iter().any(|&p| p)
    }

    /// Whether `hold_maps` keeps job `j`'s maps off rack `rack` ([`ShuffleView::holds_maps`]
    /// and `rack` is not one of SAMP's).
    pub fn holds_maps_off(&self, j: usize, rack: u32) -> bool {
        self.holds_maps(j) && !self.prefers_map_rack(j, rack)
    }

    /// Whether SARP gave job `j` any reduce target (its targets sum above 0).
    pub fn has_reduce_targets(&self, j: usize) -> bool {
        self.reduce_target[j].iter().any(|&t| t > 0.0)
    }

    /// Whether job `j` wants more reduces on rack `rack` than the `extra` placed there this
    /// epoch plus those running (SARP's PreferredReducesPerRack\[r\] "not met").
    pub fn wants_reduce_on(&self, j: usize, rack: u32, extra: u32) -> bool {
        let r = rack as usize;
        let have = self.reduces_on[j].get(r).copied().unwrap_or(0) + extra;
        self.reduce_target[j].get(r).is_some_and(|&want| f64::from(have) < want)
    }
}

fn rack_id(ix: &Indexed<'_>, r: u32) -> RackId {
    ix.req.cluster.racks[r as usize].id.clone()
}
