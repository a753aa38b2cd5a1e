//! NASS, Network-Aware Shuffle Scheduling (Ahmad et al. §3.1, Fig. 3): the heartbeat scheduler
//! under `shuffle_watcher` and `shuffle_watcher_relaxed`. Each free slot is offered as a node
//! on rack r reports (Hadoop 1's TaskTrackers, in rounds over the nodes as in
//! [`crate::fair::heartbeat`]); the fairness policy selects a user (line 1) and NASS picks one of the
//! user's tasks in Fig. 3's order:
//! - a map slot: (4) a map of a job whose PreferredMapRacks hold r (SAMP): its map local to
//!   the node, else to the rack, else one SAMP chose to read remotely (no replica on any of
//!   the job's preferred racks: "such Map tasks are covered in SAMP's PreferredMapRacks",
//!   §3.1; a map whose block is on another preferred rack is left for that rack), (5) a local
//!   map of any job (node-local first, then rack-local), (6) any map;
//! - a reduce slot on a saturated rack (NetSat): (7) a reduce of a Shuffle-light job, (8) of a
//!   Shuffle-heavy job whose PreferredReducesPerRack[r] is not met (SARP), (9) any reduce;
//! - a reduce slot otherwise: (13) a Shuffle-heavy job's with SARP's preference at r not met,
//!   (14) any Shuffle-heavy job's, (15) any reduce.
//!
//! Options (`policy.shuffle_watcher`, all off by default: Fig. 3 as printed): `hold_maps`
//! skips a Shuffle-heavy job with preferred racks in lines 5–6 on other racks (§3.2's
//! "restriction" of its maps), `hold_reduces` skips a Shuffle-heavy job's reduce on a rack
//! whose SARP target is met, `idle_when_saturated` leaves a saturated rack's reduce slots to
//! light reduces or idle (§3.3), and `fair_within_user` orders a user's jobs by fewest running
//! tasks instead of by arrival.
//!
//! Within a category the jobs go by arrival (submit time, then snapshot order), and the
//! starvation windows (§3.4) come first: the categories are walked for the user's jobs of its
//! earliest window, then the next. Since every walk ends with "any map" / "any reduce", a
//! user with a task for the slot always gets it (NASS keeps fairness, §3.1).
//!
//! Slots are typed as in Hadoop 1.0 (4 map + 2 reduce per node in §4.2), so a map slot takes
//! a map and a reduce slot a reduce; Fig. 3's map-versus-reduce precedence then orders the
//! reduces of a user by how much they load the network. Fairness is the Fair Scheduler's per
//! slot kind: pools by need ([`crate::fair::fair_order::fair_cmp`]: below min share first, then
//! running / weight), and inside a pool its users by running / `users[].weight` (§3.1 line 1;
//! a job without a user is its own, §5.4).
//!
//! `shuffle_watcher_relaxed` (SW-relaxed, §5.2) relaxes fairness as delay scheduling does
//! (FAIR Alg. 1): a map of categories 5–6 more remote than its job's delay level allows is
//! not launched, the job waits (`jobs[].delay` as under `delay`), and the next job, then the
//! next user, is asked. A map of category 4 follows SAMP's preference and is always allowed.
//!
//! Reduces obey CPAC ([`crate::fair::cpac`]) and maps the intermediate space ([`crate::fair::disk`]) as
//! under `fair`.
//!
//! Complexity: O(offers · (pools log pools + users log users + jobs of the selected user ·
//! categories)) plus the amortised task queues, O(Σ replicas).

use crate::fair::cpac::Copies;
use crate::fair::disk::Space;
use crate::fair::fair_order::{fair_cmp, Standing};
use crate::fair::heartbeat::{allowed_level, delay_start, finish, Class, MapQueues};
use crate::fair::queue::{heartbeat_rounds, Offer, Queue};
use crate::fair::starvation::Starvation;
use crate::index::Indexed;
use crate::placement::Placement;
use crate::shuffle::{ShuffleClass, ShuffleView};
use placer_models::{TaskKind, WaitReason};
use std::collections::HashMap;

/// Places one epoch with NASS on the Fair Scheduler's fairness (`relaxed` = false) or on
/// delay scheduling's relaxed fairness (`relaxed` = true); see the module docs.
///
/// # Complexity
/// O(offers · (pools log pools + groups log groups + jobs of the asked group · 6)) plus
/// O(pending + Σ replicas) for the queues; O(pending + jobs + groups) space.
///
/// # Errors
/// None: a task not placed is data.
///
/// # Examples
/// Fig. 3, lines 7–9: a saturated rack (450 of 500 Mbit/s) offers one reduce slot to a user with
/// a Shuffle-heavy job (ratio 1.5) submitted first and a Shuffle-light one (ratio 0.01): the
/// light job's reduce goes first. Unsaturated, lines 13–15 prefer the heavy job's.
/// ```
/// let snapshot = |traffic: f64| format!(r#"{{"schema_version": 1, "cluster": {{
///   "racks": [{{"id": "r", "uplink_mbps": 500, "cross_rack_traffic_mbps": {traffic}}}],
///   "nodes": [{{"id": "n", "rack": "r", "reduce_slots": 1}}]}},
///   "pools": [{{"id": "p"}}],
///   "jobs": [{{"id": "heavy", "pool": "p", "user": "u", "submit_s": 1, "shuffle_input_ratio": 1.5}},
///            {{"id": "light", "pool": "p", "user": "u", "submit_s": 2, "shuffle_input_ratio": 0.01}}],
///   "pending": [{{"id": "h-r", "job": "heavy", "kind": "reduce"}},
///               {{"id": "l-r", "job": "light", "kind": "reduce"}}],
///   "policy": {{"algorithm": "shuffle_watcher"}}}}"#);
/// let opts = placer_solver::PlaceOptions::default();
/// let place = |traffic| {
///     let req = placer_models::parse_request(snapshot(traffic).as_bytes()).unwrap();
///     placer_solver::place(&req, &opts).unwrap().assignments[0].task.to_string()
/// };
/// assert_eq!(place(450.0), "l-r");
/// assert_eq!(place(100.0), "h-r");
/// ```
pub fn place(ix: &Indexed<'_>, starvation: &Starvation, relaxed: bool) -> Placement {
    let req = ix.req;
    let view = ShuffleView::new(ix);
    let jobs = req.jobs.len();
    let pools = req.pools.len();
    let now = req.now_s;
    let mut node_of_task = vec![None; req.pending.len()];
    let mut placed = vec![false; req.pending.len()];
    let mut job_reason = vec![[None; 2]; jobs];
    let (mut delay, t1, t2) = delay_start(ix);
    let mut skipped = vec![false; jobs];

    // Fairness groups: (pool, user) pairs, in order of first appearance.
    let mut group_index: HashMap<(u32, u32), usize> = HashMap::new();
    let mut group_pool: Vec<usize> = Vec::new();
    let mut group_user: Vec<usize> = Vec::new();
    let group_of_job: Vec<usize> = (0..jobs)
        .map(|j| {
            let key = (ix.job_pool[j], view.user[j]);
            *group_index.entry(key).or_insert_with(|| {
                group_pool.push(key.0 as usize);
                group_user.push(key.1 as usize);
                group_pool.len() - 1
            })
        })
        .collect();
    let groups = group_pool.len();
    // Each group's jobs by (window, submit time, snapshot order).
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); groups];
    let mut by_arrival: Vec<usize> = (0..jobs).collect();
    by_arrival.sort_by(|&a, &b| {
        view.window[a]
            .cmp(&view.window[b])
            .then(req.jobs[a].submit_s.total_cmp(&req.jobs[b].submit_s))
            .then(a.cmp(&b))
    });
    for &j in &by_arrival {
        members[group_of_job[j]].push(j);
    }
    let mut pool_groups: Vec<Vec<usize>> = vec![Vec::new(); pools];
    for g in 0..groups {
        pool_groups[group_pool[g]].push(g);
    }

    for (k, kind) in TaskKind::ALL.into_iter().enumerate() {
        let tasks = &ix.eligible_of_kind[k];
        if tasks.is_empty() {
            continue;
        }
        let mut remaining = vec![0u32; jobs];
        let mut group_remaining = vec![0u32; groups];
        let mut pool_remaining = vec![0u32; pools];
        for &t in tasks {
            let j = ix.pending_job[t] as usize;
            remaining[j] += 1;
            group_remaining[group_of_job[j]] += 1;
            pool_remaining[ix.job_pool[j] as usize] += 1;
        }
        let mut left = tasks.len();
        let mut group_running = vec![0.0; groups];
        let mut group_demand = vec![0.0; groups];
        for (j, &g) in group_of_job.iter().enumerate() {
            group_running[g] += f64::from(ix.job_running[k][j]);
            group_demand[g] += f64::from(ix.job_running[k][j] + ix.job_demand_pending(k, j));
        }
        let mut pool_running = starvation.running[k].clone();
        let mut pool_demand = vec![0.0; pools];
        for g in 0..groups {
            pool_demand[group_pool[g]] += group_demand[g];
        }
        let pool_standing = |p: usize, running: &[f64]| {
            Standing::of_pool(&req.pools[p], k, running[p], pool_demand[p])
        };
        let group_standing = |g: usize, running: &[f64]| Standing {
            running: running[g],
            min_share: 0.0,
            demand: group_demand[g],
            weight: view.user_weight[group_user[g]],
        };
        let starved: Vec<bool> = (0..pools).map(|p| starvation.starved_before(k, p)).collect();
        // Each group's share of the kind's slots: capacity × weight / Σ weights of the groups
        // with demand (the "slots for the user" of §3.3's reduce enabling).
        let capacity: f64 =
            req.cluster.nodes.iter().map(|n| f64::from(n.configured_slots(kind))).sum();
        let active_weight: f64 = (0..groups)
            .filter(|&g| group_demand[g] > 0.0)
            .map(|g| view.user_weight[group_user[g]])
            .sum();
        let reduce_share: Vec<f64> = (0..groups)
            .map(|g| {
                if active_weight > 0.0 {
                    capacity * view.user_weight[group_user[g]] / active_weight
                } else {
                    0.0
                }
            })
            .collect();

        let mut maps = (kind == TaskKind::Map).then(|| MapQueues::new(ix, tasks));
        // Per job, the maps with no replica on any of its preferred racks: those SAMP chose to
        // read remotely (Fig. 3 line 4, §3.2).
        let mut orphans: Vec<Queue> = vec![Queue::default(); jobs];
        if kind == TaskKind::Map {
            for &t in tasks {
                let j = ix.pending_job[t] as usize;
                let preferred = &view.map_racks[j];
                if preferred.iter().any(|&p| p)
                    && !ix.replicas[t].iter().any(|&n| preferred[ix.node_rack[n as usize] as usize])
                {
                    orphans[j].tasks.push(t);
                }
            }
        }
        let mut reduces: Vec<Queue> = vec![Queue::default(); jobs];
        if kind == TaskKind::Reduce {
            for &t in tasks {
                reduces[ix.pending_job[t] as usize].tasks.push(t);
            }
        }
        let mut copies = Copies::default();
        let mut space = Space::new(ix);
        let mut placed_on: HashMap<(usize, u32), u32> = HashMap::new();
        // Each job's running tasks of this kind, with this epoch's placements.
        let mut job_running: Vec<u32> = (0..jobs).map(|j| ix.job_running[k][j]).collect();

        heartbeat_rounds(&ix.free[k], |n| {
            if left == 0 {
                return Offer::Done;
            }
            let node = n as u32;
            let rack = ix.node_rack[n];
            let mut ps: Vec<usize> = (0..pools).filter(|&p| pool_remaining[p] > 0).collect();
            ps.sort_by(|&a, &b| {
                fair_cmp(&pool_standing(a, &pool_running), &pool_standing(b, &pool_running))
                    .then(a.cmp(&b))
            });
            for p in ps {
                let mut gs: Vec<usize> =
                    pool_groups[p].iter().copied().filter(|&g| group_remaining[g] > 0).collect();
                gs.sort_by(|&a, &b| {
                    fair_cmp(&group_standing(a, &group_running), &group_standing(b, &group_running))
                        .then(a.cmp(&b))
                });
                for g in gs {
                    let mut live: Vec<usize> =
                        members[g].iter().copied().filter(|&j| remaining[j] > 0).collect();
                    if view.mechanisms.fair_within_user {
                        // Stable: inside a window, fewest running first, then by arrival.
                        live.sort_by_key(|&j| (view.window[j], job_running[j]));
                    }
                    let pick = match maps.as_mut() {
                        Some(q) => {
                            let fits = |t: usize| space.fits(ix, t, node);
                            let o = &mut orphans;
                            pick_map(&view, q, o, &live, node, rack, &placed, fits, |j, class| {
                                if !relaxed || starved[ix.job_pool[j] as usize] {
                                    return true;
                                }
                                match allowed_level(&delay[j], class, t1[j], t2[j]) {
                                    Some(_) => true,
                                    None => {
                                        skipped[j] = true;
                                        false
                                    }
                                }
                            })
                        }
                        None => {
                            let room = |j: usize| {
                                let ok = copies.room(ix, j as u32, node) > 0;
                                if !ok {
                                    job_reason[j][k] = Some(WaitReason::ReducerLimit);
                                }
                                ok
                            };
                            // §3.3: a job's reduces are enabled once its map phase is complete
                            // or while its user has unoccupied reduce slots.
                            let unoccupied = group_running[g] < reduce_share[g];
                            let at = Offered { rack, unoccupied };
                            pick_reduce(&view, &mut reduces, &live, at, &placed, &placed_on, room)
                        }
                    };
                    let Some((t, class)) = pick else { continue };
                    let j = ix.pending_job[t] as usize;
                    placed[t] = true;
                    node_of_task[t] = Some(node);
                    remaining[j] -= 1;
                    job_running[j] += 1;
                    group_remaining[g] -= 1;
                    pool_remaining[p] -= 1;
                    left -= 1;
                    group_running[g] += 1.0;
                    pool_running[p] += 1.0;
                    if kind == TaskKind::Map {
                        delay[j].level = match class {
                            Class::Node => 0,
                            Class::Rack => 1,
                            Class::Remote => 2,
                        };
                        delay[j].wait_s = 0.0;
                        skipped[j] = false;
                        space.take(ix, t, node);
                    } else {
                        copies.launch(j as u32, node);
                        *placed_on.entry((j, rack)).or_insert(0) += 1;
                    }
                    return Offer::Taken;
                }
            }
            Offer::Declined
        });
    }

    let delay = relaxed.then_some((now, delay));
    let mut placement = finish(node_of_task, job_reason, &skipped, delay);
    placement.set_jobs(&view.state);
    placement
}

/// Fig. 3's map categories (4, 5, 6) for one user's live jobs `live` (in window-then-arrival
/// order) on node `node` of rack `rack`: the task and its locality class. `allow(j, class)`
/// is the relaxed-fairness test for categories 5–6 (always true under SW-fair).
#[allow(clippy::too_many_arguments)]
fn pick_map(
    view: &ShuffleView,
    q: &mut MapQueues,
    orphans: &mut [Queue],
    live: &[usize],
    node: u32,
    rack: u32,
    placed: &[bool],
    fits: impl Fn(usize) -> bool + Copy,
    mut allow: impl FnMut(usize, Class) -> bool,
) -> Option<(usize, Class)> {
    for window in windows(view, live) {
        // (4) SAMP's preferred racks: a map local to the node or rack, else one SAMP chose to
        // read remotely (no replica on any of the job's preferred racks).
        for &j in window {
            if view.prefers_map_rack(j, rack) {
                match q.closest(j as u32, node, rack, placed, fits) {
                    Some((t, class)) if class != Class::Remote => return Some((t, class)),
                    Some(_) => {
                        if let Some(t) = orphans[j].first_unplaced_where(placed, fits) {
                            return Some((t, Class::Remote));
                        }
                    }
                    None => {}
                }
            }
        }
        // Held maps (`hold_maps`): a heavy job with preferred racks runs its maps only there.
        let free = |j: usize| !view.holds_maps_off(j, rack);
        // (5) local maps: node-local of any job, then rack-local.
        for wanted in [Class::Node, Class::Rack] {
            for &j in window.iter().filter(|&&j| free(j)) {
                if let Some((t, class)) = q.closest(j as u32, node, rack, placed, fits) {
                    if class == wanted && allow(j, class) {
                        return Some((t, class));
                    }
                }
            }
        }
        // (6) any map.
        for &j in window.iter().filter(|&&j| free(j)) {
            if let Some((t, class)) = q.closest(j as u32, node, rack, placed, fits) {
                if class == Class::Remote && allow(j, class) {
                    return Some((t, class));
                }
            }
        }
    }
    None
}

/// A reduce slot as NASS sees it: the rack it is on, and whether the asked user runs fewer
/// reduces than its share ("unoccupied slots for the user", §3.3).
#[derive(Clone, Copy, Debug)]
struct Offered {
    rack: u32,
    unoccupied: bool,
}

/// Fig. 3's reduce categories for one user's live jobs: lines 7–9 when NASS runs and the rack
/// is saturated, else lines 13–15. On a saturated rack a job still in its map phase (not
/// Shuffle-light) is enabled only while its user has unoccupied reduce slots and, with SARP,
/// while the rack's PreferredReducesPerRack is not met: its shuffle is delayed or elongated
/// rather than started against a saturated uplink (§3.1, §3.3).
fn pick_reduce(
    view: &ShuffleView,
    reduces: &mut [Queue],
    live: &[usize],
    at: Offered,
    placed: &[bool],
    placed_on: &HashMap<(usize, u32), u32>,
    mut room: impl FnMut(usize) -> bool,
) -> Option<(usize, Class)> {
    let rack = at.rack;
    let saturated = view.mechanisms.nass && view.netsat.at(rack);
    let heavy = |j: usize| view.class[j] == ShuffleClass::Heavy;
    let preferred =
        |j: usize| view.wants_reduce_on(j, rack, placed_on.get(&(j, rack)).copied().unwrap_or(0));
    let wants = |j: usize| heavy(j) && preferred(j);
    let light = |j: usize| view.class[j] == ShuffleClass::Light;
    let any = |_: usize| true;
    let enabled = |j: usize| {
        !saturated
            || light(j)
            || view.map_phase_done[j]
            || (at.unoccupied && (!view.mechanisms.sarp || preferred(j)))
    };
    let never = |_: usize| false;
    let order: [&dyn Fn(usize) -> bool; 3] = match (saturated, view.mechanisms.idle_when_saturated)
    {
        // §3.3's option: a saturated rack's reduce slots take light reduces or stay idle.
        (true, true) => [&light, &never, &never],
        (true, false) => [&light, &wants, &any],
        (false, _) => [&wants, &heavy, &any],
    };
    // Held reduces (`hold_reduces`): a heavy job with SARP targets only where one is not met.
    let held = |j: usize| {
        view.mechanisms.hold_reduces && heavy(j) && view.has_reduce_targets(j) && !preferred(j)
    };
    for window in windows(view, live) {
        for category in order {
            for &j in window {
                if category(j) && !held(j) && enabled(j) && room(j) {
                    if let Some(t) = reduces[j].first_unplaced(placed) {
                        return Some((t, Class::Node));
                    }
                }
            }
        }
    }
    None
}

/// `live` split into runs of equal starvation window (it is sorted by window).
fn windows<'a>(view: &'a ShuffleView, live: &'a [usize]) -> impl Iterator<Item = &'a [usize]> {
    live.chunk_by(move |&a, &b| view.window[a] == view.window[b])
}
