//! The v1 snapshot the simulator hands to `placer_solver::place` each epoch (the v1 wire schema of
//! `models/`; `sim/README.md`; lsap-sched §3.2's "instant system state"; ShuffleWatcher,
//! Ahmad et al., §3's inputs): the fixed cluster and policy, every pool with its echoed
//! starvation clocks, every arrived unfinished job with its echoed delay and SAMP state, the
//! running tasks, and the pending tasks under `SimConfig::pending_bound`.
//!
//! ShuffleWatcher's inputs, as a master would send them:
//! - `racks[].uplink_mbps`: `SimConfig::uplink_mbps` (unset without a rack limit).
//! - `racks[].cross_rack_traffic_mbps` (NetSat, §3.1): the bytes that crossed the rack's
//!   boundary since the previous snapshot, out of it and into it counted apart and the larger
//!   taken, over the time since that snapshot, in Mbit/s: every cross-rack flow (shuffle and
//!   remote map input) integrated at its actual rate (`traffic.rs`). Filled only when the
//!   cluster has more than one rack. A snapshot at the same instant as the previous one (no
//!   interval to divide by) repeats the previous reading; the first interval starts at 0 s.
//!   Example: a lone 1 GB read at 100 Mbit/s from rack r1 into r0 starting at 0 s, snapshots
//!   at 30 s and 60 s: both racks read 100 Mbit/s at 60 s (375 MB over 30 s), r0 in, r1 out.
//!   With `SimConfig::netsat_measure` = `Offered` the flows' offered rates are integrated
//!   instead of their actual ones (`traffic.rs`).
//! - `jobs[].shuffle_input_ratio` (§3.1: "initializes this ratio to be 1.0 and dynamically
//!   updates the value as the Map phase of a job progresses"): Σ output bytes / Σ input bytes
//!   of the job's completed maps, 1.0 while no completed map has read any input. Maps whose
//!   output was evicted (FAIR §5.4) no longer count.
//! - `jobs[].maps_total`, `maps_done`, `reduces_total`: the job's real counts (the snapshot's
//!   pending tasks are only a bounded subset).
//! - `jobs[].shuffle_watcher`: the previous answer's, echoed like `delay`.
//! - `users`: every user id of the workload (sorted, no weight) when its jobs name users, so
//!   that the ShuffleWatcher policies, which take users as the fairness unit, know each job's;
//!   a user of `SimConfig::users` comes with its running-job limit.
//! - `pools`: a pool named in `SimConfig::pools` takes its settings from there (an allocation
//!   file's, `placer whatif --allocations`).
//!
//! RAS's and DRF's inputs (`resources.rs` for the units):
//! - `nodes[].resources` = {cpu, mem, io}, each node's capacity in the demands' units, and
//!   `pending[].demand` / `running[].demand` = the task's `Demand`, when the workload has
//!   demands; but a reduce demands nothing while it copies (running and not computing, or
//!   pending while its job still has maps to finish): RAS Table 2's shuffle phase costs next
//!   to nothing, and the engine holds a reduce's demand only from its compute start. Under a
//!   multi-resource policy the nodes have `map_slots = reduce_slots = 0`.
//! - `jobs[].goal_s` = submit + `deadline_s` when the job has a deadline (RAS §3.2's goal,
//!   absolute); `jobs[].mean_map_s` = the mean run time (start to end) of the job's completed
//!   maps, absent until one has completed (RAS §3.2's Job Status Updater).
//!
//! Node order: a fresh random permutation each epoch unless `SimConfig::node_order` is
//! `Fixed` (see [`crate::NodeOrder`]): the order heartbeats arrive in.
//!
//! Pending bound (documented on [`crate::PendingBound`]): per job and kind at most B tasks, B =
//! the cluster's free slots of that kind (`FreeSlots`) or all its slots of that kind
//! (`Capacity`). Maps: first a greedy matching in task order — a task is taken while one of its
//! replica nodes has a free map slot not yet claimed by an earlier task of the job (so a job
//! with 6,000 maps on 2,400 free slots offers tasks that fit the free slots node-locally, not
//! just the first 2,400 with a replica on some free node) — then, the same way, those with a
//! replica in a rack with an unclaimed free map slot, then the others in task order (on a
//! heartbeat that offers one slot, the job shows its node-local task if it has one, else a
//! rack-local one, as Hadoop 0.20's task search did). Reduces: task order. An uncapped run
//! (a multi-resource policy) bounds by the cluster's room for the job's tasks instead, a node's
//! free room standing for its free map slots (`resources.rs`). The selection scans the job's
//! pending set without allocating strings, so a snapshot costs O(active jobs + Σ pending scanned) integer
//! work but only O(offered + running) strings, written into the previous snapshot's entries
//! (their ids, replica lists and shuffle sources keep their allocations). `All` offers every
//! pending task. Under a policy that plans a job from all of its input when it first sees the
//! job (ShuffleWatcher's SAMP, `Policy::plans_from_all_maps`), a job with no echoed SAMP state
//! lists every pending map, whatever the bound.

use super::ids;
use crate::cluster::SimCluster;
use crate::config::{NodeOrder, PendingBound, SimConfig};
use crate::traffic::{NetSatMeasure, TrafficMeter};
use crate::workload_index::WorkloadIndex;
use crate::world::World;
use placer_datasets::Workload;
use placer_models::{
    Amounts, Cluster, Gang, Job, JobState, Network, Node, NodeId, PendingTask, PlaceRequest, Pool,
    Rack, Resources, RunningTask, ShuffleSource, StarvationState, TaskKind, User, UserId,
};
use placer_solver::PolicyOf;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeSet;

/// Each rack's measured cross-rack traffic between two snapshots (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct RackWindow {
    /// When the previous reading was taken, s.
    at_s: f64,
    /// Per rack, the bytes out and in up to `at_s`.
    bytes: Vec<(f64, f64)>,
    /// Per rack, the previous reading, Mbit/s.
    mbps: Vec<f64>,
}

impl RackWindow {
    /// No reading yet, for `racks` racks: the first interval starts at 0 s.
    pub fn new(racks: usize) -> Self {
        Self { at_s: 0.0, bytes: vec![(0.0, 0.0); racks], mbps: vec![0.0; racks] }
    }

    /// The reading at `now`, Mbit/s per rack: max(out, in) bytes since the previous reading ·
    /// 8 / 10⁶ / the seconds since; the previous reading again when no time has passed.
    /// O(racks).
    pub fn read(&mut self, meter: &TrafficMeter, now: f64, measure: NetSatMeasure) -> &[f64] {
        let dt = now - self.at_s;
        if dt > 0.0 {
            for (r, (seen, mbps)) in self.bytes.iter_mut().zip(&mut self.mbps).enumerate() {
                let (out, into) = meter.rack_measure(r, now, measure);
                let moved = (out - seen.0).max(into - seen.1).max(0.0);
                *mbps = moved * 8.0 / 1e6 / dt;
                *seen = (out, into);
            }
            self.at_s = now;
        }
        &self.mbps
    }
}

/// ShuffleWatcher §3.1's ShuffleInputRatio of a job whose completed maps read `input` bytes
/// and wrote `output`: `output / input`, or 1.0 (the paper's initial value) while `input` is 0.
/// Example: one completed map of 64 MB in and 128 MB out → 2.0.
pub(crate) fn shuffle_input_ratio(input: u128, output: u128) -> f64 {
    if input == 0 {
        1.0
    } else {
        output as f64 / input as f64
    }
}

/// The workload's users, sorted, when its jobs name any (`users` of every snapshot), each
/// with its entry of `limits` (`SimConfig::users`) if it has one.
fn workload_users(workload: &Workload, limits: &[User]) -> Vec<User> {
    let ids: BTreeSet<&str> =
        workload.jobs.iter().map(|j| j.user.as_str()).filter(|u| !u.is_empty()).collect();
    ids.into_iter()
        .map(|id| match limits.iter().find(|u| u.id.as_str() == id) {
            Some(user) => user.clone(),
            None => User { id: UserId(id.to_owned()), max_running_jobs: None, weight: None },
        })
        .collect()
}

/// The v1 `cluster` block of `cluster` (node `i` is `n{i}` in rack `r{rack}`): each rack's
/// uplink for ShuffleWatcher's NetSat; each node's slots, or none under a multi-resource
/// policy, and its capacity when the workload has demands (`resources.rs`). With heartbeat
/// offers each node also carries its configured slots (`configured_map_slots`,
/// `configured_reduce_slots`): a heartbeat's snapshot sends the other nodes with no free
/// slot, and the shares and ShuffleWatcher's rack room must still see the whole cluster.
/// O(nodes).
fn wire_cluster(cfg: &SimConfig, cluster: &SimCluster, workload: &Workload) -> Cluster {
    let demands = crate::resources::has_demands(workload);
    let uncapped = cluster.uncapped;
    let beats = cfg.heartbeats().is_some() && !uncapped;
    Cluster {
        racks: (0..cluster.nodes_of_rack.len())
            .map(|r| Rack { uplink_mbps: cfg.uplink_mbps, ..Rack::new(ids::rack(r)) })
            .collect(),
        nodes: (0..cluster.len())
            .map(|i| Node {
                id: ids::node(i),
                rack: ids::rack(cluster.rack_of[i]),
                map_slots: if uncapped { 0 } else { cluster.map_slots[i] },
                reduce_slots: if uncapped { 0 } else { cluster.reduce_slots[i] },
                configured_map_slots: beats.then_some(cluster.map_slots[i]),
                configured_reduce_slots: beats.then_some(cluster.reduce_slots[i]),
                resources: demands
                    .then(|| Resources::of(crate::resources::amounts(cluster.capacity[i]))),
                ..Node::default()
            })
            .collect(),
        network: Network {
            rack_mbps: cfg.rack_mbps,
            // An uncontended cross-rack read is capped by the rack uplink too.
            cross_rack_mbps: cfg
                .uplink_mbps
                .map_or(cfg.cross_rack_mbps, |up| up.min(cfg.cross_rack_mbps)),
            rack_pairs: Vec::new(),
        },
    }
}

/// The parts of every snapshot that do not change: cluster, policy, pools (without clocks).
pub(crate) fn base_request(
    cfg: &SimConfig,
    cluster: &SimCluster,
    ix: &WorkloadIndex,
    workload: &Workload,
) -> PlaceRequest {
    PlaceRequest {
        cluster: wire_cluster(cfg, cluster, workload),
        pools: ix
            .pools
            .iter()
            .enumerate()
            .map(|(i, p)| match cfg.pools.iter().find(|o| o.id.as_str() == p.name) {
                Some(o) => Pool {
                    id: ids::pool(i),
                    min_share_timeout_s: o.min_share_timeout_s.or(cfg.min_share_timeout_s),
                    fair_share_timeout_s: o.fair_share_timeout_s.or(cfg.fair_share_timeout_s),
                    starvation: None,
                    ..o.clone()
                },
                None => Pool {
                    id: ids::pool(i),
                    weight: p.weight,
                    min_map_share: p.min_map_share,
                    min_reduce_share: p.min_reduce_share,
                    min_share_timeout_s: cfg.min_share_timeout_s,
                    fair_share_timeout_s: cfg.fair_share_timeout_s,
                    ..Pool::default()
                },
            })
            .collect(),
        users: workload_users(workload, &cfg.users),
        policy: cfg.policy.clone(),
        ..PlaceRequest::default()
    }
}

/// What the solver's answers hand back for the next snapshot, as a master echoes it to the
/// stateless service: per pool the starvation clocks, per job the delay-scheduling and SAMP
/// (ShuffleWatcher Fig. 4) state.
#[derive(Clone, Debug)]
pub(crate) struct Echo {
    pub starvation: Vec<Option<StarvationState>>,
    /// Per job, the fields its policy echoes (`jobs[].delay`, `jobs[].shuffle_watcher`, …).
    pub state: Vec<JobState>,
}

impl Echo {
    /// Nothing echoed yet, for `pools` pools and `jobs` jobs.
    pub fn new(pools: usize, jobs: usize) -> Self {
        Self { starvation: vec![None; pools], state: vec![JobState::default(); jobs] }
    }
}

/// The snapshot the Master builds at each offer and what it keeps between offers.
pub(crate) struct Snapshot {
    /// The snapshot itself, rewritten in place at every offer.
    pub req: PlaceRequest,
    /// Snapshot entries kept for reuse.
    pub(super) spare: Spare,
    /// Free map slots per rack in the snapshot being built.
    rack_free: Vec<u32>,
    /// Per kind, the pending tasks per job a heartbeat's snapshot carries.
    beat_bound: [u64; 2],
    /// The racks' measured cross-rack traffic as the last snapshot reported it.
    pub(super) rack_window: RackWindow,
    /// Draws each epoch's node order ([`crate::NodeOrder::Shuffled`]).
    pub(super) order_rng: ChaCha8Rng,
    /// Every node's id, in index order (written once).
    pub(super) node_ids: Vec<NodeId>,
    /// The last epoch snapshot showed slots held by setup or cleanup tasks.
    holds_shown: bool,
}

impl Snapshot {
    /// Before the first offer on `w`'s cluster: the parts of every snapshot that do not change.
    pub fn new(w: &World<'_>) -> Self {
        Self {
            req: base_request(w.cfg, &w.cluster, &w.ix, w.workload),
            spare: Spare::default(),
            rack_free: Vec::new(),
            beat_bound: [u64::MAX; 2],
            rack_window: RackWindow::new(w.cluster.nodes_of_rack.len()),
            // A stream of its own, so that the replica draws of the same seed do not change.
            order_rng: ChaCha8Rng::seed_from_u64(w.cfg.seed ^ 0x6865_6172_7462_6561),
            node_ids: (0..w.cluster.len()).map(ids::node).collect(),
            holds_shown: false,
        }
    }
}

impl Snapshot {
    /// Refreshes `self.req` from the state; returns the number of pending tasks offered.
    /// On a heartbeat (`offer`: the node and its free slots per kind) only that node shows
    /// free slots: every node's slots are set to its running tasks, plus the offered ones on
    /// the heartbeating node; `None` at an epoch (every free slot is offered).
    pub(crate) fn fill(
        &mut self,
        w: &World<'_>,
        offer: Option<(usize, [u32; 2])>,
        echo: &Echo,
    ) -> usize {
        let mut req = std::mem::take(&mut self.req);
        req.now_s = w.now;
        match offer {
            Some((beating, offer)) => {
                // Heartbeat snapshots keep the topology's order: node i is `n{i}`.
                // A setup or cleanup task's slot is neither a running task nor free.
                for (i, node) in req.cluster.nodes.iter_mut().enumerate() {
                    let extra = if i == beating { offer } else { [0, 0] };
                    let held = w.job_task_slots_on(i);
                    node.map_slots = w.used[i][0] - held[0] + extra[0];
                    node.reduce_slots = w.used[i][1] - held[1] + extra[1];
                }
            }
            None if w.cfg.node_order == NodeOrder::Shuffled => {
                req.cluster.nodes.shuffle(&mut self.order_rng);
            }
            None => {}
        }
        if offer.is_none() && !w.cluster.uncapped && (self.holds_shown || w.job_task_slots()) {
            // At an epoch a node shows the slots its setup and cleanup tasks leave it.
            for node in &mut req.cluster.nodes {
                if let Some(n) = ids::read_node(node.id.as_str(), w.cluster.len()) {
                    let held = w.job_task_slots_on(n);
                    node.map_slots = w.cluster.map_slots[n] - held[0];
                    node.reduce_slots = w.cluster.reduce_slots[n] - held[1];
                }
            }
            self.holds_shown = w.job_task_slots();
        }
        if w.disks.limited() {
            for node in &mut req.cluster.nodes {
                if let Some(n) = ids::read_node(node.id.as_str(), w.cluster.len()) {
                    let disk = w.disks.free(n);
                    node.resources.get_or_insert_with(Resources::default).disk = disk;
                }
            }
        }
        for (pool, clocks) in req.pools.iter_mut().zip(&echo.starvation) {
            pool.starvation = *clocks;
        }
        if req.cluster.racks.len() > 1 {
            let mbps = self.rack_window.read(&w.net.meter, w.now, w.cfg.netsat_measure);
            for (rack, &m) in req.cluster.racks.iter_mut().zip(mbps) {
                rack.cross_rack_traffic_mbps = Some(m);
            }
        }
        let mut chosen: Vec<usize> = Vec::new();
        let mut quotas = Quotas::new(w);
        self.count_rack_free(w, offer);
        self.heartbeat_bound(w, offer);
        let mut spare = std::mem::take(&mut self.spare);
        let mut parts = ShuffleParts::default();
        let plans =
            w.cfg.policy.algorithm.policy().and_then(|p| p.plans_from_all_maps(&w.cfg.policy));
        let (mut nj, mut np) = (0, 0);
        for &j in &w.active_jobs {
            let slot = reuse(&mut req.jobs, nj, &mut spare.jobs);
            fill_job(w, echo, j, slot);
            nj += 1;
            for kind in [TaskKind::Map, TaskKind::Reduce] {
                // A job SAMP has not planned yet shows SAMP all of its input.
                let all = kind == TaskKind::Map
                    && plans.is_some_and(|key| echo.state[j].get(key).is_none());
                self.choose(w, j, kind, offer, all, &mut chosen, &mut quotas);
                for &t in &chosen {
                    let slot = reuse(&mut req.pending, np, &mut spare.pending);
                    fill_pending(w, &self.node_ids, t, slot, &mut parts);
                    np += 1;
                }
            }
        }
        spare.jobs.extend(req.jobs.drain(nj..));
        spare.pending.extend(req.pending.drain(np..));
        let offered = np;
        let mut nr = 0;
        for &t in &w.running {
            let slot = reuse(&mut req.running, nr, &mut spare.running);
            fill_running(w, &self.node_ids, t, slot);
            nr += 1;
        }
        spare.running.extend(req.running.drain(nr..));
        self.spare = spare;
        self.req = req;
        offered
    }

    /// On a heartbeat, `self.beat_bound`: per kind `max(4, ⌈2 · S / J⌉)`, S the cluster's
    /// slots of the kind and J the active jobs with pending tasks of it (see
    /// [`crate::PendingBound::Capacity`]).
    fn heartbeat_bound(&mut self, w: &World<'_>, offer: Option<(usize, [u32; 2])>) {
        if offer.is_none() {
            return;
        }
        let slots = [w.cluster.total_map_slots, w.cluster.total_reduce_slots];
        for (k, total) in slots.into_iter().enumerate() {
            let jobs = w.active_jobs.iter().filter(|&&j| !w.jobs[j].pending[k].is_empty()).count();
            self.beat_bound[k] = (2 * total).div_ceil(jobs.max(1) as u64).max(4);
        }
    }

    /// Rack `r`'s unclaimed free map slots in `quota` (scratch valid when its stamp is `stamp`).
    fn rack_left<'q>(&self, quota: &'q mut [(u64, u32)], r: usize, stamp: u64) -> &'q mut u32 {
        let (at, left) = &mut quota[r];
        if *at != stamp {
            *at = stamp;
            *left = self.rack_free[r];
        }
        left
    }

    /// `self.rack_free`: the free (offered) map slots per rack.
    pub(super) fn count_rack_free(&mut self, w: &World<'_>, offer: Option<(usize, [u32; 2])>) {
        let mut free = std::mem::take(&mut self.rack_free);
        free.clear();
        free.resize(w.cluster.nodes_of_rack.len(), 0);
        match offer {
            Some((n, offer)) => free[w.cluster.rack_of[n]] = offer[0],
            // Uncapped: no rack quota (`resources.rs`).
            None if w.cluster.uncapped => free.fill(u32::MAX),
            None => {
                for (n, &r) in w.cluster.rack_of.iter().enumerate() {
                    free[r] += w.cluster.map_slots[n].saturating_sub(w.used[n][0]);
                }
            }
        }
        self.rack_free = free;
    }

    /// The pending tasks of job `j` and `kind` to offer (`offer` as in `fill_snapshot`; `all`:
    /// every one, whatever the bound), into `out`, with `quotas` as scratch.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn choose(
        &self,
        w: &World<'_>,
        j: usize,
        kind: TaskKind,
        offer: Option<(usize, [u32; 2])>,
        all: bool,
        out: &mut Vec<usize>,
        quotas: &mut Quotas,
    ) {
        out.clear();
        if kind == TaskKind::Map && w.disks.suspended.contains(&j) {
            return;
        }
        if kind == TaskKind::Map {
            // A gang waiting to start shows all of its maps, or none while they cannot reach
            // its `min_member`.
            match gang_of(w, j) {
                GangShown::Waiting(_) => {
                    out.extend(w.jobs[j].pending[0].iter().copied());
                    return;
                }
                GangShown::Held => return,
                GangShown::No => {}
            }
        }
        let pending = &w.jobs[j].pending[kind.slot()];
        let total = match kind {
            TaskKind::Map => w.cluster.total_map_slots,
            TaskKind::Reduce => w.cluster.total_reduce_slots,
        };
        let offered = match offer {
            Some((_, offer)) => u64::from(offer[kind.slot()]),
            None => w.free_slots()[kind.slot()],
        };
        let bound = match w.cfg.pending_bound.resolve(w.cfg.policy.algorithm) {
            PendingBound::All | PendingBound::Auto => u64::MAX,
            // Slots do not bound an uncapped run: the cluster's room for the job's tasks does.
            _ if w.cluster.uncapped => w.resources.bound(j, kind),
            PendingBound::Capacity if offer.is_some() => total.min(self.beat_bound[kind.slot()]),
            PendingBound::Capacity => total,
            PendingBound::FreeSlots => offered,
        };
        let bound = if all { usize::MAX } else { usize::try_from(bound).unwrap_or(usize::MAX) };
        if bound >= pending.len() {
            out.extend(pending.iter().copied());
            return;
        }
        if kind == TaskKind::Map {
            // Greedy matching in task order, as a heartbeat scheduler looks for a task (Hadoop
            // 0.20's findNewMapTask: node-local, then rack-local, then any): first every task
            // one of whose replica nodes still has a free map slot no earlier task of this job
            // has claimed, then every task one of whose replica racks still has one, then the
            // others, in task order.
            quotas.stamp += 1;
            let Quotas { node: quota, rack: rack_quota, stamp } = quotas;
            let free_on = |n: usize| match offer {
                Some((beating, offer)) if beating == n => offer[0],
                Some(_) => 0,
                None if w.cluster.uncapped => {
                    w.resources.room_for(n, w.cluster.capacity[n], j, TaskKind::Map)
                }
                None => w.cluster.map_slots[n].saturating_sub(w.used[n][0]),
            };
            let mut taken = vec![false; pending.len()];
            for (i, &t) in pending.iter().enumerate() {
                if out.len() == bound {
                    break;
                }
                for &n in w.ix.replicas(t) {
                    let n = n as usize;
                    let (at, left) = &mut quota[n];
                    if *at != *stamp {
                        *at = *stamp;
                        *left = free_on(n);
                    }
                    if *left > 0 {
                        *left -= 1;
                        let left = self.rack_left(rack_quota, w.cluster.rack_of[n], *stamp);
                        *left = left.saturating_sub(1);
                        out.push(t);
                        taken[i] = true;
                        break;
                    }
                }
            }
            for (i, &t) in pending.iter().enumerate() {
                if out.len() == bound {
                    break;
                }
                if taken[i] {
                    continue;
                }
                for &n in w.ix.replicas(t) {
                    let left = self.rack_left(rack_quota, w.cluster.rack_of[n as usize], *stamp);
                    if *left > 0 {
                        *left -= 1;
                        out.push(t);
                        taken[i] = true;
                        break;
                    }
                }
            }
            for (i, &t) in pending.iter().enumerate() {
                if out.len() == bound {
                    break;
                }
                if !taken[i] {
                    out.push(t);
                }
            }
            out.sort_unstable();
        } else {
            out.extend(pending.iter().copied().take(bound));
        }
    }
}

/// How job `j`'s gang shows in a snapshot (`jobs[].gang`, all-or-nothing: KEP-4671's
/// PodGroup, Volcano's `minMember`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum GangShown {
    /// Not a gang, a gang that has started (its tasks are admitted), or a policy that cannot
    /// honour gangs (which sees the job as an ordinary one).
    No,
    /// A gang waiting to start: every pending map is offered, with its `gang`.
    Waiting(Gang),
    /// A gang waiting to start whose pending maps cannot reach `min_member` (its setup is not
    /// done, its maps are held for disk space): nothing of it is offered.
    Held,
}

/// Job `j`'s [`GangShown`]. A gang has started once one of its maps has run or runs: from then
/// on its remaining tasks are ordinary ones. The simulator's gangs are map tasks (the
/// workloads' gangs have no reduces). O(1) but for the policy lookup.
pub(super) fn gang_of(w: &World<'_>, j: usize) -> GangShown {
    let Some(gang) = w.workload.jobs[j].gang else { return GangShown::No };
    if !w.cfg.policy.algorithm.policy().is_some_and(|p| p.gangs()) {
        return GangShown::No;
    }
    let run = &w.jobs[j];
    let pending = run.pending[0].len();
    if run.maps_done > 0 || pending < w.ix.jobs[j].maps {
        return GangShown::No;
    }
    if w.disks.suspended.contains(&j) || pending < gang.min_member as usize {
        return GangShown::Held;
    }
    GangShown::Waiting(gang)
}

/// Job `j`'s snapshot entry, written into `slot` (its strings reused).
pub(super) fn fill_job(w: &World<'_>, echo: &Echo, j: usize, slot: &mut Job) {
    let spec = &w.ix.jobs[j];
    let run = &w.jobs[j];
    let user = &w.workload.jobs[j].user;
    let (input, output) = run.maps_io_done;
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let mut id = std::mem::take(&mut slot.id);
    ids::write_job(j, &mut id.0);
    let mut pool = std::mem::take(&mut slot.pool);
    ids::write_pool(spec.pool, &mut pool.0);
    let user = (!user.is_empty()).then(|| {
        let mut id = slot.user.take().unwrap_or_default();
        id.0.clone_from(user);
        id
    });
    *slot = Job {
        id,
        pool,
        submit_s: spec.submit_s,
        user,
        shuffle_input_ratio: Some(shuffle_input_ratio(input, output)),
        maps_total: Some(count(spec.maps)),
        maps_done: Some(count(run.maps_done.min(spec.maps))),
        reduces_total: Some(count(spec.reduces)),
        state: echo.state[j].clone(),
        goal_s: spec.goal_s,
        mean_map_s: run.mean_map_s(),
        gang: match gang_of(w, j) {
            GangShown::Waiting(gang) => Some(gang),
            GangShown::No | GangShown::Held => None,
        },
        topology: w.workload.jobs[j]
            .topology
            .filter(|_| w.cfg.policy.algorithm.policy().is_some_and(|p| p.gangs())),
        ..Job::default()
    };
}

/// Pending task `t`'s snapshot entry, written into `slot` (its strings and lists reused).
/// A reduce's shuffle sources are its known bytes per source node (`known_shuffle_into`),
/// those of 0 bytes left out; `parts` keeps the last split, which the next reduce of the
/// same job and size shares.
pub(super) fn fill_pending(
    w: &World<'_>,
    nodes: &[NodeId],
    t: usize,
    slot: &mut PendingTask,
    parts: &mut ShuffleParts,
) {
    let task = &w.ix.tasks[t];
    let j = task.job as usize;
    let mut id = std::mem::take(&mut slot.id);
    ids::write_task(&w.ix, t, &mut id.0);
    let mut job = std::mem::take(&mut slot.job);
    ids::write_job(j, &mut job.0);
    let mut replicas = std::mem::take(&mut slot.replicas);
    replicas.clear();
    let mut shuffle = std::mem::take(&mut slot.shuffle);
    let (mut input_bytes, mut output_bytes) = (0, 0);
    match task.kind {
        TaskKind::Map => {
            input_bytes = task.bytes;
            if w.disks.limited() {
                output_bytes = task.output_bytes;
            }
            for &n in w.ix.replicas(t) {
                replicas.push(nodes[n as usize].as_str());
            }
            shuffle.clear();
        }
        TaskKind::Reduce => {
            if parts.key != Some((j, task.bytes)) {
                parts.key = Some((j, task.bytes));
                w.known_shuffle_into(t, &mut parts.split);
            }
            let mut k = 0;
            for &(n, bytes) in parts.split.iter().filter(|&&(_, b)| b > 0) {
                match shuffle.get_mut(k) {
                    Some(s) => {
                        s.node.0.clone_from(&nodes[n].0);
                        s.bytes = bytes;
                    }
                    None => shuffle.push(ShuffleSource { node: nodes[n].clone(), bytes }),
                }
                k += 1;
            }
            shuffle.truncate(k);
        }
    }
    *slot = PendingTask {
        id,
        job,
        kind: task.kind,
        input_bytes,
        output_bytes,
        replicas,
        shuffle,
        pending_since_s: Some(w.tasks[t].pending_since_s),
        demand: task.demand.map(|d| {
            // A reduce of a job still in its map phase starts by copying, which consumes
            // next to nothing (RAS Table 2's shuffle column; Alg. 1 line 26 switches it).
            let maps_left = w.jobs[j].maps_done < w.ix.jobs[j].maps;
            if task.kind == TaskKind::Reduce && maps_left {
                Amounts::new()
            } else {
                crate::resources::amounts(d)
            }
        }),
    };
}

/// Running task `t`'s snapshot entry, written into `slot` (its strings reused).
pub(super) fn fill_running(w: &World<'_>, nodes: &[NodeId], t: usize, slot: &mut RunningTask) {
    let task = &w.ix.tasks[t];
    let run = &w.tasks[t];
    let mut id = std::mem::take(&mut slot.id);
    ids::write_task(&w.ix, t, &mut id.0);
    let mut job = std::mem::take(&mut slot.job);
    ids::write_job(task.job as usize, &mut job.0);
    let mut node = std::mem::take(&mut slot.node);
    node.0.clone_from(&nodes[run.node].0);
    *slot = RunningTask {
        id,
        job,
        kind: task.kind,
        node,
        started_s: Some(run.started_s),
        phase: None,
        demand: task.demand.map(|d| {
            // A reduce consumes its demand only while it computes (`World::start`).
            if task.kind == TaskKind::Reduce && !run.computing {
                Amounts::new()
            } else {
                crate::resources::amounts(d)
            }
        }),
    };
}

/// The scratch of `choose`: per node and per rack, (stamp, unclaimed free map slots), valid
/// when its stamp is `stamp` (bumping it clears every entry in O(1)).
pub(super) struct Quotas {
    node: Vec<(u64, u32)>,
    rack: Vec<(u64, u32)>,
    stamp: u64,
}

impl Quotas {
    /// Cleared scratch for `w`'s cluster.
    pub(super) fn new(w: &World<'_>) -> Self {
        Self {
            node: vec![(0, 0); w.cluster.len()],
            rack: vec![(0, 0); w.cluster.nodes_of_rack.len()],
            stamp: 0,
        }
    }
}

/// Snapshot entries the last snapshot did not need, kept with their allocations for the next
/// (a snapshot rewrites its entries in place rather than allocating each id and list anew).
#[derive(Debug, Default)]
pub(crate) struct Spare {
    pub(super) jobs: Vec<Job>,
    pub(super) pending: Vec<PendingTask>,
    pub(super) running: Vec<RunningTask>,
}

/// The last reduce's split of known shuffle bytes per source node, keyed by (job, bytes):
/// within one snapshot the reduces of a job with equal bytes have equal splits.
#[derive(Debug, Default)]
pub(super) struct ShuffleParts {
    key: Option<(usize, u64)>,
    split: Vec<(usize, u64)>,
}

/// Entry `i` of `list` to overwrite: the existing one, else a spare one, else a new one.
/// `i` ≤ `list.len()`. O(1).
fn reuse<'l, T: Default>(list: &'l mut Vec<T>, i: usize, spare: &mut Vec<T>) -> &'l mut T {
    if i == list.len() {
        list.push(spare.pop().unwrap_or_default());
    }
    &mut list[i]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Offers;
    use crate::engine::Engine;
    use placer_datasets::Workload;
    use placer_models::{Algorithm, RackId};
    use placer_solver::echo::reported;
    use placer_solver::shuffle::{RackReduces, ShuffleWatcherState};
    use placer_testkit::workload::{job, map, reduce, topology};
    use std::sync::Mutex;

    /// An epoch snapshot of `engine`'s state into its master's `snapshot.req`.
    fn fill(engine: &mut Engine<'_>) {
        let master = &mut engine.master;
        master.snapshot.fill(&engine.world, None, &master.echo);
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    /// Epoch offers every `epoch_s`, reduces after every map, no start-up overhead, no job
    /// setup or cleanup task.
    fn config(epoch_s: f64) -> SimConfig {
        SimConfig {
            audit: true,
            offers: Offers::Epochs,
            slowstart: 1.0,
            task_overhead_s: 0.0,
            job_setup_s: 0.0,
            job_cleanup_s: 0.0,
            epoch_s,
            ..SimConfig::with_algorithm(Algorithm::Lsap)
        }
    }

    /// Every snapshot of a run, in order.
    fn snapshots(workload: &Workload, cfg: &SimConfig) -> Vec<PlaceRequest> {
        let seen = Mutex::new(Vec::new());
        let record = |r: &PlaceRequest| seen.lock().unwrap().push(r.clone());
        let mut engine = Engine::new(workload, cfg).unwrap();
        engine.master.on_snapshot = Some(&record);
        engine.run().unwrap();
        seen.into_inner().unwrap()
    }

    fn traffic(req: &PlaceRequest) -> Vec<Option<f64>> {
        req.cluster.racks.iter().map(|r| r.cross_rack_traffic_mbps).collect()
    }

    #[test]
    fn sw_3_1_netsat_measures_a_cross_rack_read_over_each_interval() {
        // Rack r0: n0 with 3 map slots; rack r1: n1 (no slots) holds the data. Epochs every
        // 10 s, uplinks of 500 Mbit/s. Job a (0 s): one map reading 1 GB from n1, no compute:
        // it starts at 0 on n0 and reads at min(1000, 100, 500) = 100 Mbit/s = 12.5 MB/s, so
        // it moves bytes during [0, 80 s]. Jobs b (30 s) and c (100 s): one node-local map of
        // no input and 1000 s each, so that snapshots are taken at 30 and 100 s.
        // 0 s: no interval yet: 0. 30 s: 375 MB crossed in 30 s: 100 Mbit/s, out of r1 and
        // into r0. 100 s: 625 MB (30..80 s) over 70 s: 5000 / 70 = 71.43 Mbit/s.
        let w = Workload {
            jobs: vec![
                job("a", "default", 0.0, vec![map(1_000_000_000, &["n1"], 0.0, 0)], vec![]),
                job("b", "default", 30.0, vec![map(0, &["n0"], 1000.0, 0)], vec![]),
                job("c", "default", 100.0, vec![map(0, &["n0"], 1000.0, 0)], vec![]),
            ],
            topology: Some(topology(&[&[("n0", 3, 0)], &[("n1", 0, 0)]])),
            ..Workload::default()
        };
        let cfg = SimConfig { uplink_mbps: Some(500.0), ..config(10.0) };
        let seen = snapshots(&w, &cfg);
        let times: Vec<f64> = seen.iter().map(|r| r.now_s).collect();
        assert_eq!(times, [0.0, 30.0, 100.0]);
        assert_eq!(traffic(&seen[0]), [Some(0.0), Some(0.0)]);
        let at30 = traffic(&seen[1]);
        assert!(close(at30[0].unwrap(), 100.0) && close(at30[1].unwrap(), 100.0), "{at30:?}");
        let at100 = traffic(&seen[2]);
        assert!(close(at100[0].unwrap(), 5000.0 / 70.0), "{at100:?}");
        assert!(close(at100[1].unwrap(), 5000.0 / 70.0), "{at100:?}");
        for req in &seen {
            assert!(req.cluster.racks.iter().all(|r| r.uplink_mbps == Some(500.0)));
        }
        // Without a rack limit: no uplink in the snapshot, the same measurement.
        let seen = snapshots(&w, &config(10.0));
        assert!(seen[1].cluster.racks.iter().all(|r| r.uplink_mbps.is_none()));
        assert!(close(traffic(&seen[1])[0].unwrap(), 100.0));
    }

    #[test]
    fn sw_3_1_netsat_counts_out_and_in_apart_and_takes_the_larger() {
        // Three racks: r0 = n0 (3 map slots), r1 = n1 and r2 = n2 hold the data. Job a (0 s)
        // reads 1 GB from n1 and 1 GB from n2 into n0: each its own pair link at 12.5 MB/s
        // (no rack limit), 80 s. A snapshot at 20 s (job b): r0 received 2 × 250 MB, sent
        // nothing: 200 Mbit/s; r1 and r2 each sent 250 MB: 100 Mbit/s.
        let w = Workload {
            jobs: vec![
                job(
                    "a",
                    "default",
                    0.0,
                    vec![map(1_000_000_000, &["n1"], 0.0, 0), map(1_000_000_000, &["n2"], 0.0, 0)],
                    vec![],
                ),
                job("b", "default", 20.0, vec![map(0, &["n0"], 1.0, 0)], vec![]),
            ],
            topology: Some(topology(&[&[("n0", 3, 0)], &[("n1", 0, 0)], &[("n2", 0, 0)]])),
            ..Workload::default()
        };
        let seen = snapshots(&w, &config(10.0));
        assert_eq!(seen[1].now_s, 20.0);
        let m: Vec<f64> = traffic(&seen[1]).into_iter().map(Option::unwrap).collect();
        assert!(close(m[0], 200.0) && close(m[1], 100.0) && close(m[2], 100.0), "{m:?}");
    }

    #[test]
    fn one_rack_has_no_cross_rack_traffic_to_report() {
        let w = Workload {
            jobs: vec![job("a", "default", 0.0, vec![map(0, &["n0"], 1.0, 0)], vec![])],
            topology: Some(topology(&[&[("n0", 1, 0)]])),
            ..Workload::default()
        };
        let seen = snapshots(&w, &config(3.0));
        assert_eq!(traffic(&seen[0]), [None]);
    }

    #[test]
    fn sw_3_1_shuffle_input_ratio_after_a_map_completes() {
        // ShuffleWatcher §3.1: the ratio starts at 1.0 and follows the Map phase. One node, one
        // map and one reduce slot, epochs every 3 s. Maps (node-local, disk 100 MB/s, no
        // compute): m0 reads 100 MB and writes 250 MB, m1 reads 100 MB and writes nothing;
        // one reduce. 0 s: m0 runs, ratio 1.0, 0 of 2 maps done. m0 ends at 1 s; 3 s: ratio
        // 250 / 100 = 2.5, 1 done, m1 starts and ends at 4 s; 6 s (the reduce, released by
        // slowstart 1): (250 + 0) / (100 + 100) = 1.25, 2 done. Totals are the job's real
        // counts: 2 maps, 1 reduce (the reduce is not pending before 6 s).
        let w = Workload {
            jobs: vec![job(
                "a",
                "default",
                0.0,
                vec![
                    map(100_000_000, &["n0"], 0.0, 250_000_000),
                    map(100_000_000, &["n0"], 0.0, 0),
                ],
                vec![reduce(250_000_000, 1.0)],
            )],
            topology: Some(topology(&[&[("n0", 1, 1)]])),
            ..Workload::default()
        };
        let seen = snapshots(&w, &config(3.0));
        let got: Vec<(f64, f64, u32)> = seen
            .iter()
            .map(|r| {
                let j = &r.jobs[0];
                assert_eq!((j.maps_total, j.reduces_total), (Some(2), Some(1)));
                (r.now_s, j.shuffle_input_ratio.unwrap(), j.maps_done.unwrap())
            })
            .collect();
        assert_eq!(got, [(0.0, 1.0, 0), (3.0, 2.5, 1), (6.0, 1.25, 2)]);
    }

    #[test]
    fn ras_3_2_jobs_carry_their_goal_and_observed_mean_map_length() {
        // One node, one map slot, epochs every 3 s, no overhead. Job a (submitted at 5,
        // deadline 95: goal 100) has maps of 4 s and 2 s: m0 runs 6–10; tick 9 has no free
        // slot (no snapshot); at tick 12 m1 starts with mean_map_s = 4. Job b, without a
        // deadline, has no goal.
        let mut a = job("a", "default", 5.0, vec![map(0, &["n0"], 4.0, 0)], vec![]);
        a.maps.push(map(0, &["n0"], 2.0, 0));
        a.deadline_s = Some(95.0);
        let w = Workload {
            jobs: vec![a, job("b", "default", 0.0, vec![map(0, &["n0"], 1.0, 0)], vec![])],
            topology: Some(topology(&[&[("n0", 1, 0)]])),
            ..Workload::default()
        };
        let seen = snapshots(&w, &config(3.0));
        type Goals = Vec<(Option<f64>, Option<f64>)>;
        let got: Vec<(f64, Goals)> = seen
            .iter()
            .map(|r| (r.now_s, r.jobs.iter().map(|j| (j.goal_s, j.mean_map_s)).collect()))
            .collect();
        assert_eq!(
            got,
            [
                (0.0, vec![(None, None)]),
                (6.0, vec![(Some(100.0), None)]),
                (12.0, vec![(Some(100.0), Some(4.0))])
            ]
        );
    }

    #[test]
    fn demands_go_out_with_capacities_and_multi_resource_policies_get_uncapped_nodes() {
        // One node of 2 map slots (capacity 1 each: the topology states none); two maps of
        // (cpu 0.5, mem 0.25, io 0.75) and one reduce of (0.25, 0.5, 0.125).
        let mut w = Workload {
            jobs: vec![job(
                "a",
                "default",
                0.0,
                vec![map(0, &["n0"], 10.0, 0); 2],
                vec![reduce(1, 1.0)],
            )],
            topology: Some(topology(&[&[("n0", 2, 1)]])),
            ..Workload::default()
        };
        for m in &mut w.jobs[0].maps {
            m.demand = Some(placer_datasets::Demand { cpu: 0.5, mem: 0.25, io: 0.75 });
        }
        w.jobs[0].reduces[0].demand =
            Some(placer_datasets::Demand { cpu: 0.25, mem: 0.5, io: 0.125 });
        let amounts = |c: f64, m: f64, i: f64| crate::resources::amounts([c, m, i]);
        // lsap keeps the slots: both maps run at 0 (overcommitting io, which contention
        // slows), the node lists its resources, the tasks their demands.
        let seen = snapshots(&w, &config(3.0));
        let node = &seen[0].cluster.nodes[0];
        assert_eq!((node.map_slots, node.reduce_slots), (2, 1));
        assert_eq!(node.resources.as_ref().unwrap().amounts, amounts(1.0, 1.0, 1.0));
        assert_eq!(seen[0].pending.len(), 2);
        assert!(seen[0].pending.iter().all(|p| p.demand == Some(amounts(0.5, 0.25, 0.75))));
        // The reduce, pending once both maps are done, carries its own demand.
        let last = seen.last().unwrap();
        assert_eq!(last.pending[0].demand, Some(amounts(0.25, 0.5, 0.125)));
        // ras: no slot cap, one map at a time (io 0.75), the running map carries its demand;
        // the bound offers ⌊1 / 0.75⌋ = 1 map of the two.
        let policy = placer_models::Policy { algorithm: Algorithm::Ras, ..Default::default() };
        let ras = SimConfig { policy, ..config(3.0) };
        let seen = snapshots(&w, &ras);
        let node = &seen[0].cluster.nodes[0];
        assert_eq!((node.map_slots, node.reduce_slots), (0, 0));
        assert_eq!(seen[0].pending.len(), 1);
        let second = seen.iter().find(|r| !r.running.is_empty()).unwrap();
        assert_eq!(second.running[0].demand, Some(amounts(0.5, 0.25, 0.75)));
    }

    #[test]
    fn shuffle_input_ratio_is_one_until_some_input_was_read() {
        assert_eq!(shuffle_input_ratio(0, 0), 1.0);
        assert_eq!(shuffle_input_ratio(0, 7), 1.0);
        assert_eq!(shuffle_input_ratio(64, 128), 2.0);
        assert_eq!(shuffle_input_ratio(4, 0), 0.0);
    }

    #[test]
    fn users_are_listed_sorted_once_each() {
        let mut jobs = vec![
            job("a", "default", 0.0, vec![map(0, &["n0"], 1.0, 0)], vec![]),
            job("b", "default", 0.0, vec![map(0, &["n0"], 1.0, 0)], vec![]),
            job("c", "default", 0.0, vec![map(0, &["n0"], 1.0, 0)], vec![]),
        ];
        jobs[0].user = "zoe".to_owned();
        jobs[1].user = "ann".to_owned();
        jobs[2].user = "zoe".to_owned();
        let mut w = Workload { jobs, ..Workload::default() };
        let ids: Vec<String> = workload_users(&w, &[]).into_iter().map(|u| u.id.0).collect();
        assert_eq!(ids, ["ann", "zoe"]);
        assert!(workload_users(&w, &[]).iter().all(|u| u.weight.is_none()));
        for j in &mut w.jobs {
            j.user.clear();
        }
        assert!(workload_users(&w, &[]).is_empty());
    }

    #[test]
    fn sw_fig_4_samp_state_is_echoed_like_delay() {
        // The previous answer's jobs[].shuffle_watcher goes back verbatim in the next
        // snapshot's job; an answer without it clears it (as for `delay`).
        let w = Workload {
            jobs: vec![job("a", "default", 0.0, vec![map(0, &["n0"], 1.0, 0)], vec![])],
            topology: Some(topology(&[&[("n0", 1, 0)], &[("n1", 1, 0)]])),
            ..Workload::default()
        };
        let cfg = config(3.0);
        let mut engine = Engine::new(&w, &cfg).unwrap();
        engine.world.active_jobs.insert(0);
        let state = ShuffleWatcherState {
            preferred_map_racks: vec![RackId("r1".to_owned())],
            tentative_reduces_per_rack: vec![RackReduces {
                rack: RackId("r1".to_owned()),
                reduces: 2,
            }],
        };
        fill(&mut engine);
        let options = placer_solver::PlaceOptions::default();
        let mut answer = placer_solver::place(&engine.master.snapshot.req, &options).unwrap();
        assert_eq!(reported::<ShuffleWatcherState>(&answer.jobs[0]), None);
        let key = "shuffle_watcher".to_owned();
        answer.jobs[0].state.insert(key.clone(), serde_json::to_value(&state).unwrap());
        engine.master.apply(&mut engine.world, &answer, None).unwrap();
        fill(&mut engine);
        let echoed = |engine: &Engine<'_>| {
            let raw = engine.master.snapshot.req.jobs[0].state.get("shuffle_watcher")?;
            serde_json::from_str::<ShuffleWatcherState>(raw.get()).ok()
        };
        assert_eq!(echoed(&engine), Some(state));
        answer.jobs[0].state.remove(&key);
        engine.master.apply(&mut engine.world, &answer, None).unwrap();
        fill(&mut engine);
        assert_eq!(echoed(&engine), None);
    }
}
