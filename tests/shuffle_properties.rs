//! Property tests for `lsap_shuffle` (docs/architecture.md, "Style": exact policies against a
//! brute-force oracle), on random small snapshots with several pools, maps and reduces with shuffle
//! sources, running reduces, SARP targets, saturated racks (ShuffleWatcher §3.1's NetSat) and
//! rack-pair overrides:
//! - the shuffle-aware cost model is one objective: its dense row, its sparse (structured) row
//!   and its pairwise cost agree on every (task, node), and every exact engine minimises it
//!   to the optimum of `lsap::brute` on its dense matrix;
//! - `lsap_shuffle`'s answer gives every pool a count in `lsap_quota`'s D-optimal box and, per
//!   kind, is the least priced answer with such counts (by enumeration);
//! - SAMP's plan (§3.2: PreferredMapRacks and the tentative reduces per rack) depends on the
//!   cluster's configured slots, not on which node's heartbeat offers slots, nor on other
//!   jobs' running reduces.

use ndarray::Array2;
use placer_models::{PlaceRequest, SolverEngine, TaskKind};
use placer_solver::exact::{self, Objective};
use placer_solver::lsap::brute;
use placer_solver::policy::quotas;
use placer_solver::shuffle::cost::ShufflePricing;
use placer_solver::shuffle::ShuffleView;
use placer_solver::Indexed;
use placer_solver::{fair::fair_shares, place, PlaceOptions};
use placer_testkit::{Job, Map, Node, Pool, Reduce, Running, Snapshot};
use proptest::prelude::*;
use serde_json::json;
use std::collections::HashMap;

/// Node: (rack, map slots, reduce slots, busy maps, busy reduces).
type NodeGen = (usize, u32, u32, u32, u32);
/// Job: (pool, ratio in tenths or none, maps done, maps not done, reduces total or none).
type JobGen = (usize, Option<u32>, u32, u32, Option<u32>);

/// Everything a random snapshot is made of.
#[derive(Clone, Debug)]
struct Spec {
    /// Per rack: measured cross-rack traffic in Mbit/s, against a 500 Mbit/s uplink.
    traffic: Vec<Option<u32>>,
    nodes: Vec<NodeGen>,
    weights: Vec<u32>,
    jobs: Vec<JobGen>,
    maps: Vec<(usize, u64, Vec<usize>)>,
    reduces: Vec<(usize, Vec<(usize, u64)>)>,
    /// Job of each busy slot, in order.
    busy: Vec<usize>,
    /// A slow override between r0 and r1 (non-uniform bandwidths).
    slow_pair: bool,
    /// The saturation threshold in tenths.
    threshold: u32,
    /// SARP, SAMP, NASS on?
    mechanisms: (bool, bool, bool),
}

fn spec(max_tasks: usize, max_nodes: usize) -> impl Strategy<Value = Spec> {
    let node = (0usize..3, 0u32..=2, 0u32..=2, 0u32..=1, 0u32..=1);
    let job = (
        0usize..3,
        proptest::option::of(0u32..=30),
        0u32..=6,
        0u32..=6,
        proptest::option::of(1u32..=5),
    );
    (
        proptest::collection::vec(proptest::option::of(0u32..=700), 3),
        proptest::collection::vec(node, 1..=max_nodes),
        proptest::collection::vec(0u32..=3, 1..=3),
        proptest::collection::vec(job, 1..=3),
        proptest::collection::vec(
            (0usize..3, 1u64..=256, proptest::collection::vec(0usize..6, 0..=2)),
            0..=max_tasks,
        ),
        proptest::collection::vec(
            (0usize..3, proptest::collection::vec((0usize..6, 1u64..=128), 0..=3)),
            0..=max_tasks.min(4),
        ),
        proptest::collection::vec(0usize..3, 0..=8),
        any::<bool>(),
        5u32..=10,
        (proptest::bool::weighted(0.8), any::<bool>(), proptest::bool::weighted(0.8)),
    )
        .prop_map(
            |(
                traffic,
                nodes,
                weights,
                jobs,
                maps,
                reduces,
                busy,
                slow_pair,
                threshold,
                mechanisms,
            )| {
                Spec {
                    traffic,
                    nodes,
                    weights,
                    jobs,
                    maps,
                    reduces,
                    busy,
                    slow_pair,
                    threshold,
                    mechanisms,
                }
            },
        )
}

fn build(s: &Spec) -> PlaceRequest {
    let n = s.nodes.len();
    let mut snap = Snapshot::new()
        .now_s(100.0)
        .rack("r0")
        .rack("r1")
        .rack("r2")
        .network(1000.0, 100.0)
        .algorithm("lsap_shuffle")
        .policy("saturation_threshold", f64::from(s.threshold) / 10.0)
        .policy(
            "shuffle_watcher",
            json!({"sarp": s.mechanisms.0, "samp": s.mechanisms.1, "nass": s.mechanisms.2}),
        );
    if s.slow_pair {
        snap = snap.rack_pair("r0", "r1", 40.0);
    }
    for (i, &w) in s.weights.iter().enumerate() {
        snap = snap.pool(Pool::new(&format!("p{i}")).weight(f64::from(w)));
    }
    let jobs = s.jobs.len();
    for (i, &(p, ratio, done, left, reduces)) in s.jobs.iter().enumerate() {
        let mut job = Job::new(&format!("j{i}"))
            .pool(&format!("p{}", p % s.weights.len()))
            .submit_s(i as f64)
            .set("maps_done", done)
            .set("maps_total", done + left);
        if let Some(r) = ratio {
            job = job.set("shuffle_input_ratio", f64::from(r) / 10.0);
        }
        if let Some(r) = reduces {
            job = job.set("reduces_total", r);
        }
        snap = snap.job(job);
    }
    let job = |k: usize| format!("j{}", k % jobs);
    let mut busy = s.busy.iter().cycle();
    for (i, &(rack, ms, rs, bm, br)) in s.nodes.iter().enumerate() {
        let id = format!("n{i}");
        snap = snap.node(Node::new(&id).rack(&format!("r{rack}")).map_slots(ms).reduce_slots(rs));
        for b in 0..bm.min(ms) {
            let j = busy.next().copied().unwrap_or(0);
            snap = snap.running(Running::map(&format!("m{i}-{b}")).job(&job(j)).node(&id));
        }
        for b in 0..br.min(rs) {
            let j = busy.next().copied().unwrap_or(0);
            snap = snap.running(Running::reduce(&format!("r{i}-{b}")).job(&job(j)).node(&id));
        }
    }
    for (i, (j, mib, replicas)) in s.maps.iter().enumerate() {
        let mut r: Vec<String> =
            replicas.iter().filter(|&&k| k < n).map(|k| format!("n{k}")).collect();
        r.sort();
        r.dedup();
        let r: Vec<&str> = r.iter().map(String::as_str).collect();
        snap =
            snap.map(Map::new(&format!("t{i}")).job(&job(*j)).input_bytes(mib << 20).replicas(&r));
    }
    for (i, (j, sources)) in s.reduces.iter().enumerate() {
        let reduce = Reduce::new(&format!("s{i}")).job(&job(*j));
        snap = snap.reduce(
            sources
                .iter()
                .fold(reduce, |r, &(k, mib)| r.shuffle(&format!("n{}", k % n), mib << 20)),
        );
    }
    let mut req = snap.build().expect("snapshot parses");
    for (rack, traffic) in req.cluster.racks.iter_mut().zip(&s.traffic) {
        if let Some(mbps) = traffic {
            rack.uplink_mbps = Some(500.0);
            rack.cross_rack_traffic_mbps = Some(f64::from(*mbps));
        }
    }
    placer_models::validate(&req).expect("valid snapshot");
    req
}

fn snapshot(max_tasks: usize, max_nodes: usize) -> impl Strategy<Value = PlaceRequest> {
    spec(max_tasks, max_nodes).prop_map(|s| build(&s))
}

/// Enumerates the placements of one kind's eligible tasks on its free slots with pool counts
/// in `lsap_quota`'s box, for the least Σ (priced cost + offset).
struct QuotaBrute<'p, 'i, 'a> {
    ix: &'i Indexed<'a>,
    pricing: &'p ShufflePricing<'i, 'a>,
    tasks: Vec<usize>,
    free: Vec<u32>,
    count: Vec<u64>,
    q: placer_solver::exact::Quotas,
    best: Option<f64>,
}

impl QuotaBrute<'_, '_, '_> {
    fn in_box(&self) -> bool {
        let mut group = [0u64; 2];
        for (p, &c) in self.count.iter().enumerate() {
            let (flex, g) = self.q.flex[p];
            if c < self.q.must[p] || c > self.q.must[p] + flex {
                return false;
            }
            group[g] += c - self.q.must[p];
        }
        group[0] == self.q.groups[0] && group[1] == self.q.groups[1]
    }

    fn go(&mut self, i: usize, cost: f64) {
        if i == self.tasks.len() {
            if self.in_box() && self.best.is_none_or(|b| cost < b) {
                self.best = Some(cost);
            }
            return;
        }
        self.go(i + 1, cost);
        let t = self.tasks[i];
        let p = self.ix.job_pool[self.ix.pending_job[t] as usize] as usize;
        for n in 0..self.free.len() {
            if self.free[n] == 0 {
                continue;
            }
            self.free[n] -= 1;
            self.count[p] += 1;
            let c = self.pricing.model.cost(t, n as u32) + self.pricing.offsets[t];
            self.go(i + 1, cost + c);
            self.count[p] -= 1;
            self.free[n] += 1;
        }
    }
}

/// The answer's priced objective and pool counts for `kind`.
fn answer_of(
    req: &PlaceRequest,
    pricing: &ShufflePricing<'_, '_>,
    kind: TaskKind,
) -> (f64, Vec<u64>) {
    let r = place(req, &PlaceOptions::default()).expect("places");
    let task_at: HashMap<&str, usize> =
        req.pending.iter().enumerate().map(|(i, t)| (t.id.as_str(), i)).collect();
    let node_at: HashMap<&str, u32> =
        req.cluster.nodes.iter().enumerate().map(|(i, n)| (n.id.as_str(), i as u32)).collect();
    let ix = Indexed::new(req);
    let mut cost = 0.0;
    let mut count = vec![0u64; req.pools.len()];
    for a in &r.assignments {
        let t = task_at[a.task.as_str()];
        if req.pending[t].kind != kind {
            continue;
        }
        cost += pricing.model.cost(t, node_at[a.node.as_str()]) + pricing.offsets[t];
        count[ix.job_pool[ix.pending_job[t] as usize] as usize] += 1;
    }
    (cost, count)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * (1.0 + a.abs().max(b.abs()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The priced model is one objective: for every (task, node) its pairwise cost equals its
    /// dense row's entry and the cheapest path through its sparse row (on_node, else its
    /// rack's listed cost, else base), and the sparse row keeps the flow's invariants (listed
    /// racks below base, a data node no dearer than its rack).
    #[test]
    fn shuffle_cost_rows_agree_with_pairwise_costs(req in snapshot(6, 6)) {
        let ix = Indexed::new(&req);
        let view = ShuffleView::new(&ix);
        let pricing = ShufflePricing::new(&ix, &view).unwrap();
        let model = &pricing.model;
        for t in 0..req.pending.len() {
            let row = model.row(t);
            let sparse = model.sparse_row(t);
            for &(_, c) in &sparse.racks {
                prop_assert!(c < sparse.base);
            }
            for n in 0..req.cluster.nodes.len() as u32 {
                let q = ix.node_rack[n as usize];
                let c = model.cost(t, n);
                prop_assert!(c.is_finite() && c >= 0.0);
                let dense = row.at(n, q);
                prop_assert!(close(c, dense), "row: task {} node {}: {} vs {}", t, n, c, dense);
                let rack = sparse.racks.iter().find(|r| r.0 == q).map_or(sparse.base, |r| r.1);
                let node = sparse.on_node.iter().find(|e| e.0 == n).map(|e| e.1);
                if let Some(x) = node {
                    prop_assert!(x <= rack + 1e-9);
                }
                let path = node.unwrap_or(rack);
                prop_assert!(close(c, path), "sparse: task {} node {}: {} vs {}", t, n, c, path);
            }
        }
    }

    /// Every exact engine minimises the priced objective (cost + offset per task) to the
    /// optimum of the brute-force oracle on its dense matrix: the cost model runs unchanged on
    /// the structured flow, JV and Kuhn–Munkres.
    #[test]
    fn every_engine_equals_brute_force_on_the_priced_matrix(req in snapshot(5, 4)) {
        let ix = Indexed::new(&req);
        let view = ShuffleView::new(&ix);
        let pricing = ShufflePricing::new(&ix, &view).unwrap();
        for kind in TaskKind::ALL {
            let rows = ix.eligible_of_kind[kind.slot()].clone();
            let cols: Vec<u32> = (0..req.cluster.nodes.len() as u32)
                .flat_map(|n| std::iter::repeat_n(n, ix.free[kind.slot()][n as usize] as usize))
                .collect();
            let m = Array2::from_shape_fn((rows.len(), cols.len()), |(i, j)| {
                pricing.model.cost(rows[i], cols[j]) + pricing.offsets[rows[i]]
            });
            let oracle = if rows.is_empty() || cols.is_empty() {
                0.0
            } else {
                brute::solve(m.view()).unwrap().objective
            };
            for engine in [SolverEngine::Flow, SolverEngine::Jv, SolverEngine::Hungarian] {
                let mut node_of_task = vec![None; req.pending.len()];
                let objective = Objective::Offset(&pricing.offsets);
                exact::solve(
                    exact::Problem { ix: &ix, model: &pricing.model, kind, engine, objective },
                    exact::Control::NONE,
                    &mut node_of_task,
                )
                    .unwrap();
                let mut used = vec![0u32; req.cluster.nodes.len()];
                let mut got = 0.0;
                for &t in &rows {
                    if let Some(n) = node_of_task[t] {
                        used[n as usize] += 1;
                        got += pricing.model.cost(t, n) + pricing.offsets[t];
                    }
                }
                for (n, &u) in used.iter().enumerate() {
                    prop_assert!(u <= ix.free[kind.slot()][n]);
                }
                let placed = rows.iter().filter(|&&t| node_of_task[t].is_some()).count();
                prop_assert_eq!(placed, rows.len().min(cols.len()));
                let at = format!("{kind:?}/{}", engine.name());
                prop_assert!(close(got, oracle), "{}: {} vs brute {}", at, got, oracle);
            }
        }
    }

    /// `lsap_shuffle` is exact: per kind, every pool's count lies in `lsap_quota`'s D-optimal
    /// box, and the priced objective is the least over every placement with such counts.
    #[test]
    fn lsap_shuffle_equals_brute_force_under_the_pool_box(req in snapshot(5, 4)) {
        let ix = Indexed::new(&req);
        let view = ShuffleView::new(&ix);
        let pricing = ShufflePricing::new(&ix, &view).unwrap();
        let shares = fair_shares::compute(&ix);
        for kind in TaskKind::ALL {
            let q = quotas(&ix, &shares, kind);
            let mut b = QuotaBrute {
                ix: &ix,
                pricing: &pricing,
                tasks: ix.eligible_of_kind[kind.slot()].clone(),
                free: ix.free[kind.slot()].clone(),
                count: vec![0; req.pools.len()],
                q,
                best: None,
            };
            b.go(0, 0.0);
            let oracle = b.best.expect("the box is feasible");
            let (got, count) = answer_of(&req, &pricing, kind);
            b.count = count;
            prop_assert!(b.in_box(), "{:?}: pool counts {:?} outside the box", kind, b.count);
            prop_assert!(close(got, oracle), "{:?}: {} vs brute {}", kind, got, oracle);
        }
    }

    /// SAMP sizes each rack's reduce room from the configured slots: a heartbeat snapshot
    /// (one node's free slots offered, the others sent with their running tasks as their
    /// slots, `configured_*_slots` set) yields the plan of the full snapshot, whichever node
    /// offers.
    #[test]
    fn samp_plan_does_not_depend_on_the_offering_node(req in snapshot(6, 6)) {
        let full = samp_plans(&with_configured(&req));
        for h in 0..req.cluster.nodes.len() {
            let beat = samp_plans(&heartbeat_of(&req, h));
            prop_assert_eq!(&beat, &full, "node n{} offers", h);
        }
    }

    /// Another job's running reduces take slots but no capacity: SAMP's plans for the other
    /// jobs stay as they were.
    #[test]
    fn samp_plan_does_not_depend_on_other_jobs_running_reduces(
        req in snapshot(6, 6),
        h in 0usize..6,
    ) {
        let h = h % req.cluster.nodes.len();
        let before = samp_plans(&heartbeat_of(&req, h));
        let mut more = req.clone();
        more.jobs.push(placer_models::Job {
            id: placer_models::JobId("other".into()),
            pool: req.pools[0].id.clone(),
            ..placer_models::Job::default()
        });
        let busy = running_per_node(&req);
        for (i, node) in req.cluster.nodes.iter().enumerate() {
            for k in busy[i][1]..node.reduce_slots {
                more.running.push(placer_models::RunningTask {
                    id: placer_models::TaskId(format!("other-r-{i}-{k}")),
                    job: placer_models::JobId("other".into()),
                    kind: TaskKind::Reduce,
                    node: node.id.clone(),
                    ..placer_models::RunningTask::default()
                });
            }
        }
        let after = samp_plans(&heartbeat_of(&more, h));
        prop_assert_eq!(&after[..before.len()], &before[..]);
    }
}

/// Running tasks per node and kind.
fn running_per_node(req: &PlaceRequest) -> Vec<[u32; 2]> {
    let index: HashMap<&str, usize> =
        req.cluster.nodes.iter().enumerate().map(|(i, n)| (n.id.as_str(), i)).collect();
    let mut busy = vec![[0u32; 2]; req.cluster.nodes.len()];
    for t in &req.running {
        busy[index[t.node.as_str()]][t.kind.slot()] += 1;
    }
    busy
}

/// `req` with every node's configured slots set to its slots.
fn with_configured(req: &PlaceRequest) -> PlaceRequest {
    let mut out = req.clone();
    for node in &mut out.cluster.nodes {
        node.configured_map_slots = Some(node.map_slots);
        node.configured_reduce_slots = Some(node.reduce_slots);
    }
    out
}

/// Node `h`'s heartbeat as a Hadoop master sends it: `h` with its slots, every other node with
/// its running tasks as its slots (nothing free there), every node with its configured slots.
fn heartbeat_of(req: &PlaceRequest, h: usize) -> PlaceRequest {
    let busy = running_per_node(req);
    let mut out = with_configured(req);
    for (i, node) in out.cluster.nodes.iter_mut().enumerate() {
        if i != h {
            node.map_slots = busy[i][0];
            node.reduce_slots = busy[i][1];
        }
    }
    placer_models::validate(&out).expect("a heartbeat snapshot is valid");
    out
}

/// Every job's SAMP plan under `shuffle_watcher` with SAMP on and nothing echoed.
fn samp_plans(req: &PlaceRequest) -> Vec<Option<placer_solver::shuffle::ShuffleWatcherState>> {
    let mut req = req.clone();
    req.policy.algorithm = serde_json::from_value(json!("shuffle_watcher")).unwrap();
    req.policy.set("shuffle_watcher", json!({"sarp": true, "samp": true, "nass": true}));
    for job in &mut req.jobs {
        job.state.remove("shuffle_watcher");
    }
    let answer = place(&req, &PlaceOptions::default()).expect("solves");
    answer.jobs.iter().map(placer_solver::echo::reported).collect()
}
