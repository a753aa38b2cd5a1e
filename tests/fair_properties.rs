//! Property tests for the fair-sharing family (docs/architecture.md, "Style"): on random small
//! multi-pool snapshots with reduces, running-job limits, copy-compute caps (FAIR §5.2) and
//! starvation clocks, every algorithm's placement is valid (no slot or CPAC cap oversubscribed,
//! only runnable jobs placed, every pending task either placed or waiting), preemptions never take
//! a pool below its fair share (design doc §3.3), the greedy policies are work-conserving on
//! maps, and the exact policies equal a brute-force oracle: `lsap` on capped reduces and
//! `lsap_fair` on its FC + DLC − ageing matrix (lsap §3.3). With intermediate space (FAIR
//! §5.4) no answer overflows a node's disk, and `lsap` equals brute force where only the
//! pairwise part can bind.

use ndarray::Array2;
use placer_models::{PlaceRequest, PlaceResponse, Resources, TaskKind, WaitReason};
use placer_solver::lsap::brute;
use placer_solver::policy::{aging_credits, fairness_costs};
use placer_solver::Indexed;
use placer_solver::LocalityCost;
use placer_solver::{place, PlaceOptions};
use placer_testkit::{Job, Map, Node, Pool, Reduce, Running, Snapshot};
use proptest::prelude::*;
use serde_json::json;
use std::collections::HashMap;

/// Every registered policy's wire name.
fn algorithms() -> impl Iterator<Item = &'static str> {
    placer_solver::registry::REGISTRY.iter().map(|(_, p)| p.name())
}

/// Node: (rack, map slots, reduce slots, CPAC (max_reducers, max_computing)?, busy maps,
/// busy reduces).
type NodeGen = (usize, u32, u32, Option<(u32, u32)>, u32, u32);

pub(crate) fn snapshot() -> impl Strategy<Value = PlaceRequest> {
    let node = (
        0usize..2,
        0u32..=2,
        0u32..=2,
        proptest::option::of((0u32..=3, 0u32..=2)),
        0u32..=2,
        0u32..=2,
    );
    let pool = (
        0u32..=3,
        0u32..=2,
        proptest::option::of(0u32..=50),
        proptest::option::of(0u32..=50),
        0u32..=100,
        proptest::option::of(1u32..=2),
    );
    let job = (0usize..3, 0usize..5, 0u32..=50, 0usize..2);
    (
        proptest::collection::vec(node, 1..=5),
        proptest::collection::vec(pool, 1..=3),
        proptest::collection::vec(job, 1..=4),
        proptest::collection::vec(
            (0usize..4, 1u64..=256, proptest::collection::btree_set(0usize..5, 0..=2)),
            0..=6,
        ),
        proptest::collection::vec(
            (0usize..4, proptest::collection::vec((0usize..5, 1u64..=64), 0..=2)),
            0..=4,
        ),
        proptest::collection::vec((0usize..4, 0u32..=100, any::<bool>()), 0..=10),
        any::<bool>(),
    )
        .prop_map(|(nodes, pools, jobs, maps, reduces, busy_jobs, user_limit)| {
            build(&nodes, &pools, &jobs, &maps, &reduces, &busy_jobs, user_limit)
        })
}

#[allow(clippy::type_complexity)]
fn build(
    nodes: &[NodeGen],
    pools: &[(u32, u32, Option<u32>, Option<u32>, u32, Option<u32>)],
    jobs: &[(usize, usize, u32, usize)],
    maps: &[(usize, u64, std::collections::BTreeSet<usize>)],
    reduces: &[(usize, Vec<(usize, u64)>)],
    busy_jobs: &[(usize, u32, bool)],
    user_limit: bool,
) -> PlaceRequest {
    let n = nodes.len();
    let priorities = ["very_low", "low", "normal", "high", "very_high"];
    let mut s = Snapshot::new()
        .now_s(100.0)
        .rack("r0")
        .rack("r1")
        .network(1000.0, 100.0)
        .algorithm("lsap")
        .policy("beta", 10.0)
        .policy("aging_s", 50.0);
    for (i, &(w, m, min_t, fair_t, clock, max_jobs)) in pools.iter().enumerate() {
        let mut p = Pool::new(&format!("p{i}"))
            .weight(f64::from(w))
            .min_map_share(f64::from(m))
            .min_reduce_share(f64::from(m / 2))
            .set(
                "starvation",
                json!({"map": {"at_min_share_s": clock, "at_half_fair_share_s": clock},
                       "reduce": {"at_min_share_s": clock}}),
            );
        if let Some(t) = min_t {
            p = p.min_share_timeout_s(f64::from(t));
        }
        if let Some(t) = fair_t {
            p = p.fair_share_timeout_s(f64::from(t));
        }
        if let Some(m) = max_jobs {
            p = p.max_running_jobs(m);
        }
        s = s.pool(p);
    }
    for (i, &(p, prio, submit, user)) in jobs.iter().enumerate() {
        s = s.job(
            Job::new(&format!("j{i}"))
                .pool(&format!("p{}", p % pools.len()))
                .priority(priorities[prio])
                .submit_s(f64::from(submit))
                .user(&format!("u{user}"))
                .set("delay", json!({"level": (i % 3), "wait_s": submit, "skipped_at_s": 90.0})),
        );
    }
    let job = |k: usize| format!("j{}", k % jobs.len());
    let mut busy = busy_jobs.iter().cycle();
    for (i, &(rack, ms, rs, cpac, bm, br)) in nodes.iter().enumerate() {
        let id = format!("n{i}");
        let mut node = Node::new(&id).rack(&format!("r{rack}")).map_slots(ms).reduce_slots(rs);
        let mut reducers = rs;
        if let Some((max_reducers, max_computing)) = cpac {
            node = node.max_reducers(max_reducers).max_computing(max_computing);
            reducers = max_reducers;
        }
        s = s.node(node);
        for b in 0..bm.min(ms) {
            let &(j, started, _) = busy.next().unwrap_or(&(0, 0, false));
            s = s.running(
                Running::map(&format!("m{i}-{b}"))
                    .job(&job(j))
                    .node(&id)
                    .started_s(f64::from(started)),
            );
        }
        for b in 0..br.min(reducers) {
            let &(j, started, copy) = busy.next().unwrap_or(&(0, 0, true));
            s = s.running(
                Running::reduce(&format!("r{i}-{b}"))
                    .job(&job(j))
                    .node(&id)
                    .started_s(f64::from(started))
                    .phase(if copy { "copy" } else { "compute" }),
            );
        }
    }
    for (i, (j, mib, replicas)) in maps.iter().enumerate() {
        let r: Vec<String> = replicas.iter().filter(|&&k| k < n).map(|k| format!("n{k}")).collect();
        let r: Vec<&str> = r.iter().map(String::as_str).collect();
        s = s.map(
            Map::new(&format!("t{i}"))
                .job(&job(*j))
                .input_bytes(mib << 20)
                .replicas(&r)
                .pending_since_s((i * 17 % 100) as f64),
        );
    }
    for (i, (j, sources)) in reduces.iter().enumerate() {
        let reduce = Reduce::new(&format!("s{i}")).job(&job(*j));
        s = s.reduce(
            sources
                .iter()
                .fold(reduce, |r, &(k, mib)| r.shuffle(&format!("n{}", k % n), mib << 20)),
        );
    }
    if user_limit {
        s = s.user("u0", 1);
    }
    s.build().expect("snapshot parses")
}

/// Whether the answer `r` to `req` leaves some map running in a pool of positive weight (the
/// pools `fairness_distance` measures over).
fn weighted_pools_run(req: &PlaceRequest, r: &PlaceResponse) -> bool {
    r.pools.iter().any(|p| {
        p.running_after.map > 0.0 && req.pools.iter().any(|q| q.id == p.id && q.weight > 0.0)
    })
}

fn with_algorithm(req: &PlaceRequest, algorithm: &str) -> PlaceRequest {
    let mut r = req.clone();
    r.policy.algorithm = serde_json::from_value(json!(algorithm)).unwrap();
    // The shuffle-aware algorithms make users the fairness unit: a listed `users` must name
    // every job's user (an unlisted one is `unknown_reference`).
    if algorithm.contains("shuffle") && !r.users.is_empty() {
        for job in &req.jobs {
            if let Some(u) = &job.user {
                if r.users.iter().all(|x| x.id != *u) {
                    r.users.push(placer_models::User {
                        id: u.clone(),
                        max_running_jobs: None,
                        weight: None,
                    });
                }
            }
        }
    }
    r
}

/// Checks every invariant of one answer; returns nothing, panics with a message otherwise.
pub(crate) fn check_valid(
    req: &PlaceRequest,
    r: &PlaceResponse,
    algorithm: &str,
) -> Result<(), TestCaseError> {
    let ix = Indexed::new(req);
    let node_at: HashMap<&str, usize> =
        req.cluster.nodes.iter().enumerate().map(|(i, n)| (n.id.as_str(), i)).collect();
    let task_at: HashMap<&str, usize> =
        req.pending.iter().enumerate().map(|(i, t)| (t.id.as_str(), i)).collect();
    let job_at: HashMap<&str, usize> =
        req.jobs.iter().enumerate().map(|(i, j)| (j.id.as_str(), i)).collect();
    let mut free = ix.free.clone();
    let mut copies: HashMap<(u32, u32), u32> = HashMap::new();
    let mut seen = std::collections::HashSet::new();
    let mut maps_placed = 0;
    for a in &r.assignments {
        let t = *task_at.get(a.task.as_str()).expect("pending task");
        prop_assert!(seen.insert(t), "{}: {} placed twice", algorithm, a.task);
        let n = node_at[a.node.as_str()];
        let task = &req.pending[t];
        let k = usize::from(task.kind == TaskKind::Reduce);
        prop_assert!(free[k][n] > 0, "{}: {} oversubscribed", algorithm, a.node);
        free[k][n] -= 1;
        let j = job_at[task.job.as_str()];
        prop_assert!(ix.runnable[j], "{}: job {} is beyond its limit", algorithm, task.job);
        if task.kind == TaskKind::Reduce {
            let c = copies.entry((j as u32, n as u32)).or_insert(0);
            *c += 1;
            prop_assert!(
                *c <= ix.copy_room(j as u32, n as u32),
                "{}: CPAC cap on {}",
                algorithm,
                a.node
            );
        } else {
            maps_placed += 1;
        }
    }
    let waiting: u64 = r.waiting.iter().map(|w| w.tasks).sum();
    prop_assert_eq!(waiting as usize + r.assignments.len(), req.pending.len());
    // Work conservation holds while no node refuses map outputs (FAIR §5.4): see
    // `no_answer_overflows_a_nodes_disk` for what holds with `disk`.
    if !ix.has_disk()
        && ["fifo", "fair", "dl_sched", "lsap", "lsap_quota", "lsap_shuffle"].contains(&algorithm)
    {
        let slots: u64 = ix.free[0].iter().map(|&f| u64::from(f)).sum();
        prop_assert_eq!(
            maps_placed as u64,
            slots.min(ix.eligible_of_kind[0].len() as u64),
            "{} work-conserving",
            algorithm
        );
    }
    let mut victims = std::collections::HashSet::new();
    for p in &r.preemptions {
        prop_assert!(victims.insert(p.task.clone()), "preempted twice");
        prop_assert!(req.running.iter().any(|t| t.id == p.task && t.node == p.node));
    }
    if !r.preemptions.is_empty() {
        let preempts =
            placer_solver::registry::by_name(algorithm).is_some_and(|(_, p)| p.preempts());
        prop_assert!(preempts, "{} does not preempt", algorithm);
        for pool in &r.pools {
            let share = pool.fair_share.unwrap();
            let hit = |kind: TaskKind| {
                r.preemptions.iter().any(|p| {
                    let t = req.running.iter().find(|t| t.id == p.task).unwrap();
                    let j = &req.jobs[job_at[t.job.as_str()]];
                    t.kind == kind && j.pool == pool.id
                })
            };
            if hit(TaskKind::Map) {
                prop_assert!(pool.running_after.map >= share.map - 1e-9, "map below fair share");
            }
            if hit(TaskKind::Reduce) {
                prop_assert!(
                    pool.running_after.reduce >= share.reduce - 1e-9,
                    "reduce below fair share"
                );
            }
        }
    }
    Ok(())
}

/// Enumerates every capped assignment of the eligible reduces.
struct CappedBrute<'i, 'a> {
    ix: &'i Indexed<'a>,
    model: LocalityCost<'i, 'a>,
    tasks: Vec<usize>,
    free: Vec<u32>,
    used: HashMap<(u32, u32), u32>,
    best: (usize, f64),
}

impl CappedBrute<'_, '_> {
    fn go(&mut self, i: usize, placed: usize, cost: f64) {
        if i == self.tasks.len() {
            if placed > self.best.0 || (placed == self.best.0 && cost < self.best.1) {
                self.best = (placed, cost);
            }
            return;
        }
        self.go(i + 1, placed, cost);
        let t = self.tasks[i];
        let j = self.ix.pending_job[t];
        for n in 0..self.free.len() {
            let key = (j, n as u32);
            let u = self.used.get(&key).copied().unwrap_or(0);
            if self.free[n] == 0 || u >= self.ix.copy_room(j, n as u32) {
                continue;
            }
            self.free[n] -= 1;
            self.used.insert(key, u + 1);
            let c = self.model.cost(t, n as u32);
            self.go(i + 1, placed + 1, cost + c);
            self.used.insert(key, u);
            self.free[n] += 1;
        }
    }
}

/// The best (most placed, then cheapest) assignment of the eligible reduces under free reducer
/// slots and CPAC caps, by enumeration.
fn brute_capped_reduces(req: &PlaceRequest) -> (usize, f64) {
    let ix = Indexed::new(req);
    let mut b = CappedBrute {
        ix: &ix,
        model: LocalityCost::new(&ix),
        tasks: ix.eligible_of_kind[1].clone(),
        free: ix.free[1].clone(),
        used: HashMap::new(),
        best: (0, 0.0),
    };
    b.go(0, 0, 0.0);
    b.best
}

/// [`snapshot`] with intermediate space (FAIR §5.4): each node's `resources.disk` is unset
/// (unlimited) or 0–300 MB, each pending map writes 0–200 MB.
fn disk_snapshot() -> impl Strategy<Value = PlaceRequest> {
    snapshot().prop_flat_map(|req| {
        let nodes = req.cluster.nodes.len();
        let tasks = req.pending.len();
        (
            Just(req),
            proptest::collection::vec(proptest::option::of(0u64..=300), nodes),
            proptest::collection::vec(0u64..=200, tasks),
        )
            .prop_map(|(mut req, disks, outputs)| {
                for (node, disk) in req.cluster.nodes.iter_mut().zip(disks) {
                    if let Some(mb) = disk {
                        node.resources =
                            Some(Resources { disk: Some(mb * 1_000_000), ..Resources::default() });
                    }
                }
                for (task, mb) in req.pending.iter_mut().zip(outputs) {
                    if task.kind == TaskKind::Map {
                        task.output_bytes = mb * 1_000_000;
                    }
                }
                req
            })
    })
}

/// Checks an answer against every node's intermediate space (FAIR §5.4): the outputs of the
/// maps placed on a node fit its `disk`, and a map waits with reason `disk` exactly when a
/// map slot is left free and no node with one has room for its output.
fn check_disk(req: &PlaceRequest, r: &PlaceResponse, at: &str) -> Result<(), TestCaseError> {
    let ix = Indexed::new(req);
    let node_at: HashMap<&str, usize> =
        req.cluster.nodes.iter().enumerate().map(|(i, n)| (n.id.as_str(), i)).collect();
    let task_of: HashMap<&str, &placer_models::PendingTask> =
        req.pending.iter().map(|t| (t.id.as_str(), t)).collect();
    let mut left: Vec<Option<u64>> = req.cluster.nodes.iter().map(|n| n.disk()).collect();
    let mut free = ix.free[0].clone();
    for a in &r.assignments {
        let task = task_of[a.task.as_str()];
        if task.kind != TaskKind::Map {
            continue;
        }
        let n = node_at[a.node.as_str()];
        free[n] -= 1;
        if let Some(d) = &mut left[n] {
            prop_assert!(
                task.output_bytes <= *d,
                "{}: {} overflows {}'s disk ({} > {} left)",
                at,
                a.task,
                a.node,
                task.output_bytes,
                d
            );
            *d -= task.output_bytes;
        }
    }
    let room = |out: u64| (0..free.len()).any(|n| free[n] > 0 && left[n].is_none_or(|d| out <= d));
    let slot_left = free.iter().any(|&f| f > 0);
    for w in &r.waiting {
        let task = task_of[w.task.as_ref().expect("explained").as_str()];
        if task.kind == TaskKind::Map {
            let for_disk = slot_left && !room(task.output_bytes);
            let job_ok =
                req.jobs.iter().position(|j| j.id == task.job).is_some_and(|j| ix.runnable[j]);
            prop_assert_eq!(
                w.reason == WaitReason::Disk,
                job_ok && for_disk,
                "{}: {} waits for {:?}",
                at,
                task.id,
                w.reason
            );
        }
    }
    Ok(())
}

/// Enumerates every placement of the eligible maps on the free map slots that fits every
/// node's intermediate space.
struct DiskBrute<'i, 'a> {
    ix: &'i Indexed<'a>,
    model: LocalityCost<'i, 'a>,
    tasks: Vec<usize>,
    free: Vec<u32>,
    left: Vec<Option<u64>>,
    best: (usize, f64),
}

impl DiskBrute<'_, '_> {
    fn go(&mut self, i: usize, placed: usize, cost: f64) {
        if i == self.tasks.len() {
            if placed > self.best.0 || (placed == self.best.0 && cost < self.best.1) {
                self.best = (placed, cost);
            }
            return;
        }
        self.go(i + 1, placed, cost);
        let t = self.tasks[i];
        let out = self.ix.output(t);
        for n in 0..self.free.len() {
            if self.free[n] == 0 || self.left[n].is_some_and(|d| out > d) {
                continue;
            }
            let before = self.left[n];
            self.free[n] -= 1;
            self.left[n] = before.map(|d| d - out);
            let c = self.model.cost(t, n as u32);
            self.go(i + 1, placed + 1, cost + c);
            self.left[n] = before;
            self.free[n] += 1;
        }
    }
}

/// The best (most placed, then cheapest) placement of the eligible maps on the free map slots
/// under every node's intermediate space, by enumeration.
fn brute_disk_maps(req: &PlaceRequest) -> (usize, f64) {
    let ix = Indexed::new(req);
    let mut b = DiskBrute {
        ix: &ix,
        model: LocalityCost::new(&ix),
        tasks: ix.eligible_of_kind[0].clone(),
        free: ix.free[0].clone(),
        left: ix.disk.clone(),
        best: (0, 0.0),
    };
    b.go(0, 0, 0.0);
    b.best
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// FAIR §5.4: on random snapshots with intermediate space, no algorithm on any engine it
    /// accepts overflows a node's disk, every answer is otherwise valid (slots, CPAC caps, job
    /// limits) and deterministic, and `disk` is given exactly to the maps that wait for space.
    /// The heartbeat policies track the space themselves: the pipeline's pass finds nothing
    /// to move in their placements.
    #[test]
    fn no_answer_overflows_a_nodes_disk(req in disk_snapshot()) {
        let ix = Indexed::new(&req);
        let model = LocalityCost::new(&ix);
        let shares = placer_solver::fair::fair_shares::compute(&ix);
        let starvation = placer_solver::fair::starvation::Starvation::new(&ix, &shares);
        for (_, policy) in placer_solver::registry::REGISTRY {
            if policy.heartbeat() {
                let epoch = placer_solver::policy::Epoch {
                    ix: &ix,
                    model: &model,
                    shares: &shares,
                    starvation: &starvation,
                    engine: placer_models::SolverEngine::Auto,
                    cancel: None,
                    warm: None,
                };
                let mut placement = policy.place(&epoch).unwrap();
                let settled = placer_solver::fair::disk::settle(&ix, &model, &mut placement.node_of_task);
                prop_assert!(!settled.changed(), "{} overflows before the pass", policy.name());
            }
            for engine in policy.engines() {
                let mut req = with_algorithm(&req, policy.name());
                req.policy.solver = *engine;
                let at = format!("{}/{}", policy.name(), engine.name());
                let r = place(&req, &PlaceOptions { explain: true, ..PlaceOptions::default() }).expect("places");
                check_valid(&req, &r, policy.name())?;
                check_disk(&req, &r, &at)?;
                let again = place(&req, &PlaceOptions { explain: true, ..PlaceOptions::default() }).unwrap();
                prop_assert_eq!(serde_json::to_string(&r).unwrap(), serde_json::to_string(&again).unwrap());
            }
        }
    }

    /// The exact policies are exact for the pairwise part of FAIR §5.4: with at most one free
    /// map slot per node (so no two maps share a node's space), `lsap` on every engine places
    /// as many maps as the best placement under every node's disk, at its least cost.
    #[test]
    fn lsap_with_disk_equals_brute_force_one_slot_per_node(req in disk_snapshot()) {
        let mut req = with_algorithm(&req, "lsap");
        for node in &mut req.cluster.nodes {
            let busy = req.running.iter()
                .filter(|t| t.node == node.id && t.kind == TaskKind::Map)
                .count() as u32;
            node.map_slots = node.map_slots.min(busy + 1);
        }
        let (count, best) = brute_disk_maps(&req);
        for engine in placer_solver::registry::by_name("lsap").unwrap().1.engines() {
            req.policy.solver = *engine;
            let r = place(&req, &PlaceOptions::default()).unwrap();
            let maps: Vec<_> = r.assignments.iter()
                .filter(|a| req.pending.iter().any(|t| t.id == a.task && t.kind == TaskKind::Map))
                .collect();
            let cost: f64 = maps.iter().map(|a| a.cost.total).sum();
            prop_assert_eq!(maps.len(), count, "{}", engine.name());
            prop_assert!((cost - best).abs() <= 1e-6 * (1.0 + best.abs()),
                "{}: {} vs brute {}", engine.name(), cost, best);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn every_fair_family_placement_is_valid(req in snapshot()) {
        for algorithm in algorithms() {
            let r = place(&with_algorithm(&req, algorithm), &PlaceOptions::default()).expect("places");
            check_valid(&req, &r, algorithm)?;
            let again = place(&with_algorithm(&req, algorithm), &PlaceOptions::default()).unwrap();
            prop_assert_eq!(serde_json::to_string(&r).unwrap(), serde_json::to_string(&again).unwrap());
        }
    }

    #[test]
    fn lsap_on_capped_reduces_equals_brute_force(req in snapshot()) {
        let r = place(&with_algorithm(&req, "lsap"), &PlaceOptions::default()).unwrap();
        let reduces: Vec<_> = r.assignments.iter()
            .filter(|a| req.pending.iter().any(|t| t.id == a.task && t.kind == TaskKind::Reduce))
            .collect();
        let cost: f64 = reduces.iter().map(|a| a.cost.total).sum();
        let (count, best) = brute_capped_reduces(&req);
        prop_assert_eq!(reduces.len(), count);
        prop_assert!((cost - best).abs() <= 1e-6 * (1.0 + best.abs()), "{} vs brute {}", cost, best);
    }

    #[test]
    fn lsap_fair_maps_equal_brute_force_on_fc_plus_dlc(req in snapshot()) {
        let req = with_algorithm(&req, "lsap_fair");
        let ix = Indexed::new(&req);
        let model = LocalityCost::new(&ix);
        let (fc, _) = fairness_costs(&ix);
        let aging = aging_credits(&ix);
        prop_assert!(fc.iter().all(|&f| (0.0..=placer_solver::settings::read::<placer_solver::policy::lsap_fair::FairnessCost>(&req.policy).beta + 1e-12).contains(&f)), "FC in [0, β]");
        let rows = ix.eligible_of_kind[0].clone();
        let cols: Vec<u32> = (0..req.cluster.nodes.len() as u32)
            .flat_map(|n| std::iter::repeat_n(n, ix.free[0][n as usize] as usize))
            .collect();
        let m = Array2::from_shape_fn((rows.len(), cols.len()), |(i, j)| {
            let t = rows[i];
            fc[t] - aging[t] + model.cost(t, cols[j])
        });
        let oracle = if rows.is_empty() || cols.is_empty() { 0.0 } else {
            brute::solve(m.view()).unwrap().objective
        };
        let r = place(&req, &PlaceOptions::default()).unwrap();
        let got: f64 = r.assignments.iter()
            .filter(|a| req.pending.iter().any(|t| t.id == a.task && t.kind == TaskKind::Map))
            .map(|a| a.cost.total)
            .sum();
        prop_assert!((got - oracle).abs() <= 1e-6 * (1.0 + oracle.abs()), "{} vs brute {}", got, oracle);
    }

    /// lsap_quota's promises (its module docs): D never above `fair`'s (nor any other
    /// work-conserving answer's), and no answer at least as fair is more local on maps. The
    /// others run without preemption (`fair` and `lsap_fair` preempt for starved pools, which
    /// lowers a pool's running count for this epoch; lsap_quota never preempts), so the
    /// comparison is between placements. An answer that leaves every pool of positive weight
    /// with nothing running has D = 0 by the definition's convention (`fairness_distance`:
    /// nothing runs in them), not by being fair: a fifo answer that gave both free slots to a
    /// pool of weight 0 while two pools of weight 3 waited is no fairer answer to be as local
    /// as, so the locality comparison skips it.
    #[test]
    fn lsap_quota_is_the_most_local_of_the_fairest(req in snapshot()) {
        let mut calm = req.clone();
        for p in &mut calm.pools {
            p.min_share_timeout_s = None;
            p.fair_share_timeout_s = None;
        }
        let run = |a: &str| place(&with_algorithm(&calm, a), &PlaceOptions::default()).unwrap();
        let map_locality = |r: &PlaceResponse| -> f64 {
            r.assignments.iter()
                .filter(|a| req.pending.iter().any(|t| t.id == a.task && t.kind == TaskKind::Map))
                .map(|a| a.cost.locality)
                .sum()
        };
        let quota = run("lsap_quota");
        let (d, l) = (quota.stats.fairness_distance, map_locality(&quota));
        for other in ["fair", "fifo", "dl_sched", "lsap", "lsap_fair"] {
            let r = run(other);
            prop_assert!(d <= r.stats.fairness_distance + 1e-9,
                "D {} above {}'s {}", d, other, r.stats.fairness_distance);
            if r.stats.fairness_distance <= d + 1e-12 && weighted_pools_run(&calm, &r) {
                let lo = map_locality(&r);
                prop_assert!(l <= lo + 1e-6 * (1.0 + lo), "locality {} above {}'s {}", l, other, lo);
            }
        }
    }
}
