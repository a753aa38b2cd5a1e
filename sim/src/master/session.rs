//! The master's in-process session (docs/wire-schema.md, "Sessions"; lsap-sched §3.2's
//! "instant system state", held from one epoch to the next as Firmament, Gog et al., OSDI
//! 2016, §5, keeps its flow network): at an epoch the master sends what changed since its last
//! epoch, as a `POST /v1/sessions/{id}/place` delta would carry it, and the kept snapshot is
//! edited by [`PlaceRequest::apply_changes`], validated by difference
//! ([`placer_models::Revalidator`]) and solved by [`placer_solver::place_checked`]: the same
//! pieces the server's sessions use, without HTTP.
//!
//! What a delta holds, per epoch (`Snapshot::fill`'s snapshot is what the session holds after
//! it, as a set: under `SimConfig::audit` the Master checks it at every epoch with
//! [`same_snapshot`], which the simulator's property test runs with sessions on):
//! - `now_s`;
//! - the nodes whose slots or free disk changed (setup and cleanup holds, intermediate-data
//!   budgets), the racks whose measured cross-rack traffic changed, the pools whose echoed
//!   starvation clocks changed, the active jobs whose entry changed (progress, echoed state)
//!   and the jobs that left;
//! - the pending tasks offered this epoch that the session does not hold, or holds with other
//!   contents (a reduce whose known shuffle bytes grew, a task pending again since another
//!   time), and the held ones no longer offered;
//! - the running tasks that started, those whose contents changed (a reduce that began to
//!   compute now holds its demand), and those that ended.
//!
//! The nodes are reordered in place each epoch under [`crate::NodeOrder::Shuffled`], with the
//! same draws as the full snapshot, and the revalidator follows the permutation
//! ([`placer_models::Revalidator::nodes_reordered`]).
//!
//! Order: a held entry keeps its position and a new one is appended, so the session's lists
//! are in the order entries arrived, where the full snapshot lists them by job. The exact
//! policies break ties by list order, so a replay with sessions can differ from one without
//! from the first tie decided otherwise; each epoch is still solved optimally over the same
//! set (docs/simulator.md, "Sessions").
//!
//! Heartbeat offers (one node's free slots) keep the full snapshot: every node's shown slots
//! change with each heartbeat, which a session would carry as node changes, validated in full.
//!
//! Complexity per epoch: O(active jobs + Σ pending scanned + offered reduces' shuffle sources
//! + running + nodes) integer work, and strings only for what changed; the solver then
//!   validates O(change) and indexes the snapshot.

use super::ids;
use super::snapshot::{fill_job, fill_pending, fill_running, Echo, ShuffleParts, Snapshot};
use crate::config::NodeOrder;
use crate::world::World;
use placer_models::{
    Changes, Job, ObjectOnly, PlaceRequest, Remove, Resources, Revalidator, RunningTask, TaskKind,
    Upsert,
};
use placer_solver::PolicyOf;
use rand::seq::SliceRandom;

/// What the master keeps besides the snapshot itself: where each task and job sits in it, and
/// the revalidator of its last epoch.
#[derive(Debug)]
pub(crate) struct Session {
    /// Validation by difference of the kept snapshot.
    pub revalidator: Revalidator,
    /// The simulator's index of each entry of the kept `pending`, `running` and `jobs`.
    pending: Positions,
    running: Positions,
    jobs: Positions,
    /// Whether the positions describe the kept snapshot (false after a whole snapshot
    /// replaced it: they are then read again from its ids).
    synced: bool,
    /// Per task, the epoch stamp when it was last offered.
    offered: Vec<u32>,
    /// Per task, the epoch stamp when it was last seen running.
    ran: Vec<u32>,
    /// Per job, the epoch stamp when it was last active.
    job_seen: Vec<u32>,
    /// Per pending reduce held, what its entry was written from: its job's known-shuffle
    /// version × 2 + whether the job had maps left (which empties its demand).
    reduce_from: Vec<u64>,
    /// The current epoch's stamp.
    stamp: u32,
}

/// A list's entries as simulator indices, in list order, and each index's position.
#[derive(Debug)]
struct Positions {
    ids: Vec<usize>,
    /// Per simulator index, its position in the list (`NONE`: not in it).
    at: Vec<u32>,
}

/// Not held.
const NONE: u32 = u32::MAX;

impl Positions {
    fn new(n: usize) -> Self {
        Self { ids: Vec::new(), at: vec![NONE; n] }
    }

    /// The position of index `x`, if the list holds it.
    fn of(&self, x: usize) -> Option<usize> {
        let at = self.at[x];
        (at != NONE).then_some(at as usize)
    }

    /// Reads the list again: `ids` are its entries' indices (`None`: not one of the
    /// simulator's, never the case for what the master wrote).
    fn read(&mut self, ids: impl Iterator<Item = Option<usize>>) {
        for &x in &self.ids {
            self.at[x] = NONE;
        }
        self.ids.clear();
        for x in ids.flatten() {
            self.at[x] = self.ids.len() as u32;
            self.ids.push(x);
        }
    }

    /// Follows [`PlaceRequest::apply_changes`]: the entries `keep` refuses are removed, the
    /// rest keep their order, and `appended` follow. O(list + appended).
    fn edit(&mut self, keep: impl Fn(usize) -> bool, appended: &[usize]) {
        let mut ids = std::mem::take(&mut self.ids);
        ids.retain(|&x| {
            let k = keep(x);
            if !k {
                self.at[x] = NONE;
            }
            k
        });
        ids.extend_from_slice(appended);
        for (i, &x) in ids.iter().enumerate() {
            self.at[x] = i as u32;
        }
        self.ids = ids;
    }
}

impl Session {
    /// An empty session for `tasks` tasks and `jobs` jobs: its first delta carries everything.
    pub fn new(tasks: usize, jobs: usize) -> Self {
        Self {
            revalidator: Revalidator::new(),
            pending: Positions::new(tasks),
            running: Positions::new(tasks),
            jobs: Positions::new(jobs),
            synced: true,
            offered: vec![0; tasks],
            ran: vec![0; tasks],
            job_seen: vec![0; jobs],
            reduce_from: vec![0; tasks],
            stamp: 0,
        }
    }

    /// A whole snapshot replaced the kept one: the next delta reads its positions again and
    /// is validated in full.
    pub fn replaced(&mut self) {
        self.revalidator.invalidate();
        self.synced = false;
    }

    /// Reads where every task and job of `req` sits, when a whole snapshot replaced it.
    fn sync(&mut self, w: &World<'_>, req: &PlaceRequest) {
        if self.synced {
            return;
        }
        self.pending.read(req.pending.iter().map(|t| ids::read_task(&w.ix, t.id.as_str())));
        self.running.read(req.running.iter().map(|t| ids::read_task(&w.ix, t.id.as_str())));
        self.jobs.read(req.jobs.iter().map(|j| ids::read_job(j.id.as_str(), w.jobs.len())));
        self.synced = true;
    }
}

impl Snapshot {
    /// The changes since the session's last epoch, at an epoch that offers every free slot
    /// (see the module docs), applied to the kept snapshot `self.req`; returns the undo record
    /// for the revalidator and the number of pending tasks offered.
    pub(crate) fn fill_delta(
        &mut self,
        w: &World<'_>,
        echo: &Echo,
        session: &mut Session,
    ) -> (placer_models::Undo, usize) {
        session.stamp = session.stamp.wrapping_add(1).max(1);
        let stamp = session.stamp;
        let mut req = std::mem::take(&mut self.req);
        if w.cfg.node_order == NodeOrder::Shuffled {
            req.cluster.nodes.shuffle(&mut self.order_rng);
            session.revalidator.nodes_reordered(&req);
        }
        let mut up = Upsert::default();
        let mut rm = Remove::default();

        // Nodes: the slots their setup and cleanup tasks leave them, their free disk.
        if !w.cluster.uncapped {
            for node in &req.cluster.nodes {
                let Some(n) = ids::read_node(node.id.as_str(), w.cluster.len()) else { continue };
                let held = w.job_task_slots_on(n);
                let slots = [w.cluster.map_slots[n] - held[0], w.cluster.reduce_slots[n] - held[1]];
                let disk = w.disks.free(n);
                let shown_disk = node.resources.as_ref().and_then(|r| r.disk);
                if [node.map_slots, node.reduce_slots] != slots || shown_disk != disk {
                    let mut node = node.clone();
                    (node.map_slots, node.reduce_slots) = (slots[0], slots[1]);
                    if w.disks.limited() {
                        node.resources.get_or_insert_with(Resources::default).disk = disk;
                    }
                    up.nodes.push(node);
                }
            }
        } else if w.disks.limited() {
            for node in &req.cluster.nodes {
                let Some(n) = ids::read_node(node.id.as_str(), w.cluster.len()) else { continue };
                let disk = w.disks.free(n);
                if node.resources.as_ref().and_then(|r| r.disk) != disk {
                    let mut node = node.clone();
                    node.resources.get_or_insert_with(Resources::default).disk = disk;
                    up.nodes.push(node);
                }
            }
        }
        // Pools: the echoed starvation clocks.
        for (pool, clocks) in req.pools.iter().zip(&echo.starvation) {
            if pool.starvation != *clocks {
                up.pools.push(placer_models::Pool { starvation: *clocks, ..pool.clone() });
            }
        }
        // Racks: the measured cross-rack traffic.
        if req.cluster.racks.len() > 1 {
            let mbps = self.rack_window.read(&w.net.meter, w.now, w.cfg.netsat_measure);
            for (rack, &m) in req.cluster.racks.iter().zip(mbps) {
                if rack.cross_rack_traffic_mbps.map(f64::to_bits) != Some(m.to_bits()) {
                    let mut rack = rack.clone();
                    rack.cross_rack_traffic_mbps = Some(m);
                    up.racks.push(rack);
                }
            }
        }

        // Jobs and pending tasks, in the full snapshot's order.
        session.sync(w, &req);
        let (mut new_jobs, mut new_pending, mut new_running) = (Vec::new(), Vec::new(), Vec::new());
        let mut chosen: Vec<usize> = Vec::new();
        let mut quotas = super::snapshot::Quotas::new(w);
        self.count_rack_free(w, None);
        let mut parts = ShuffleParts::default();
        let plans =
            w.cfg.policy.algorithm.policy().and_then(|p| p.plans_from_all_maps(&w.cfg.policy));
        let mut scratch_job = Job::default();
        let mut offered = 0;
        for &j in &w.active_jobs {
            session.job_seen[j] = stamp;
            fill_job(w, echo, j, &mut scratch_job);
            let held = session.jobs.of(j).and_then(|at| req.jobs.get(at));
            if held.is_none() {
                new_jobs.push(j);
            }
            if held != Some(&scratch_job) {
                let spare = self.spare.jobs.pop().unwrap_or_default();
                up.jobs.push(std::mem::replace(&mut scratch_job, spare));
            }
            for kind in [TaskKind::Map, TaskKind::Reduce] {
                let all = kind == TaskKind::Map
                    && plans.is_some_and(|key| echo.state[j].get(key).is_none());
                self.choose(w, j, kind, None, all, &mut chosen, &mut quotas);
                offered += chosen.len();
                for &t in &chosen {
                    session.offered[t] = stamp;
                    let held = session.pending.of(t).and_then(|at| req.pending.get(at));
                    if held.is_none() {
                        new_pending.push(t);
                    }
                    let same = match (held, kind) {
                        (None, _) => false,
                        // A held map changes only by going pending again at another time.
                        (Some(h), TaskKind::Map) => {
                            h.pending_since_s == Some(w.tasks[t].pending_since_s)
                        }
                        // A held reduce also by its job's known shuffle bytes and maps left.
                        (Some(h), TaskKind::Reduce) => {
                            h.pending_since_s == Some(w.tasks[t].pending_since_s)
                                && session.reduce_from[t] == reduce_from(w, j)
                        }
                    };
                    if !same {
                        let mut entry = self.spare.pending.pop().unwrap_or_default();
                        fill_pending(w, &self.node_ids, t, &mut entry, &mut parts);
                        up.pending.push(entry);
                        if kind == TaskKind::Reduce {
                            session.reduce_from[t] = reduce_from(w, j);
                        }
                    }
                }
            }
        }
        for (&t, held) in session.pending.ids.iter().zip(&req.pending) {
            if session.offered[t] != stamp {
                rm.pending.push(held.id.as_str().to_owned());
            }
        }
        for (&j, held) in session.jobs.ids.iter().zip(&req.jobs) {
            if session.job_seen[j] != stamp {
                rm.jobs.push(held.id.as_str().to_owned());
            }
        }

        // Running tasks.
        let mut scratch_run = RunningTask::default();
        for &t in &w.running {
            session.ran[t] = stamp;
            let held = session.running.of(t).and_then(|at| req.running.get(at));
            if held.is_none() {
                new_running.push(t);
            }
            let run = &w.tasks[t];
            let same = held.is_some_and(|h| {
                h.started_s == Some(run.started_s)
                    && ids::read_node(h.node.as_str(), w.cluster.len()) == Some(run.node)
                    && (w.ix.tasks[t].kind == TaskKind::Map || {
                        fill_running(w, &self.node_ids, t, &mut scratch_run);
                        h.demand == scratch_run.demand
                    })
            });
            if !same {
                let mut entry = self.spare.running.pop().unwrap_or_default();
                fill_running(w, &self.node_ids, t, &mut entry);
                up.running.push(entry);
            }
        }
        for (&t, held) in session.running.ids.iter().zip(&req.running) {
            if session.ran[t] != stamp {
                rm.running.push(held.id.as_str().to_owned());
            }
        }
        let Session { pending, running, jobs, offered: was_offered, ran, job_seen, .. } = session;
        pending.edit(|t| was_offered[t] == stamp, &new_pending);
        running.edit(|t| ran[t] == stamp, &new_running);
        jobs.edit(|j| job_seen[j] == stamp, &new_jobs);
        let changes = Changes {
            now_s: Some(w.now),
            upsert: ObjectOnly(up),
            remove: ObjectOnly(rm),
            ..Changes::default()
        };
        let undo = req.apply_changes(changes);
        self.req = req;
        (undo, offered)
    }
}

impl Snapshot {
    /// Keeps what the last delta took out of the session's snapshot as spare entries for the
    /// next (their strings and lists reused), at most as many as the snapshot holds.
    pub(crate) fn recycle(&mut self, undo: placer_models::Undo) {
        let taken = undo.into_taken();
        let (spare, req) = (&mut self.spare, &self.req);
        spare.pending.extend(taken.pending);
        spare.pending.truncate(req.pending.len());
        spare.running.extend(taken.running);
        spare.running.truncate(req.running.len());
        spare.jobs.extend(taken.jobs);
        spare.jobs.truncate(req.jobs.len());
    }
}

/// What a pending reduce of job `j` is written from besides its own fields (see
/// `Session::reduce_from`).
fn reduce_from(w: &World<'_>, j: usize) -> u64 {
    let maps_left = w.jobs[j].maps_done < w.ix.jobs[j].maps;
    w.known_shuffle_version(j) * 2 + u64::from(maps_left)
}

/// Whether the session's snapshot `held` equals the whole snapshot `full` of the same epoch:
/// equal but for the order of jobs, pending and running tasks (see the module docs); else what
/// differs. O(snapshot log snapshot); only under `SimConfig::audit`.
pub(crate) fn same_snapshot(held: &PlaceRequest, full: &PlaceRequest) -> Result<(), String> {
    fn sorted<T: Clone>(list: &[T], key: impl Fn(&T) -> &str) -> Vec<T> {
        let mut v = list.to_vec();
        v.sort_by(|a, b| key(a).cmp(key(b)));
        v
    }
    let canonical = |r: &PlaceRequest| PlaceRequest {
        jobs: sorted(&r.jobs, |j| j.id.as_str()),
        pending: sorted(&r.pending, |t| t.id.as_str()),
        running: sorted(&r.running, |t| t.id.as_str()),
        ..r.clone()
    };
    let (a, b) = (canonical(held), canonical(full));
    if a == b {
        return Ok(());
    }
    let what = if a.cluster != b.cluster {
        "cluster"
    } else if a.pools != b.pools {
        "pools"
    } else if a.jobs != b.jobs {
        "jobs"
    } else if a.pending != b.pending {
        "pending"
    } else if a.running != b.running {
        "running"
    } else {
        "now_s, users or policy"
    };
    Err(format!("the session's snapshot differs from the whole snapshot in {what}"))
}
