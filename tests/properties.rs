//! Property tests (docs/architecture.md, "Style"): on random small problems every exact engine
//! equals the brute-force optimum (lsap-sched eq. 3), and on random small snapshots every placement
//! is valid, no slot is oversubscribed, lsap's objective is the brute-force optimum of the exported
//! cost matrix, and dl-sched never beats it.

use ndarray::Array2;
use placer_models::{PlaceRequest, TaskKind};
use placer_solver::flow::dense_adapter::FlowOnDense;
use placer_solver::lsap::{brute, hungarian::Hungarian, jv, jv::Jv, DenseSolver};
use placer_solver::{cost_matrix, place, PlaceOptions};
use placer_testkit::{Job, Map, Node, Pool, Running, Snapshot};
use proptest::prelude::*;
use serde_json::json;
use std::collections::HashMap;

const X: i64 = i64::MAX;

fn matrix() -> impl Strategy<Value = Array2<i64>> {
    (1usize..=7, 1usize..=7).prop_flat_map(|(r, c)| {
        proptest::collection::vec(prop_oneof![4 => -20i64..20, 1 => Just(X)], r * c)
            .prop_map(move |v| Array2::from_shape_vec((r, c), v).expect("shape"))
    })
}

fn objective_or_infeasible(r: Result<f64, placer_solver::SolveError>) -> Option<f64> {
    match r {
        Ok(v) => Some(v),
        Err(placer_solver::SolveError::Infeasible { .. }) => None,
        Err(e) => panic!("unexpected error {e}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn exact_engines_equal_brute_force(m in matrix()) {
        let oracle = objective_or_infeasible(brute::solve(m.view()).map(|s| s.objective as f64));
        let f = m.mapv(|x| if x == X { f64::INFINITY } else { x as f64 });
        let results = [
            ("flow", FlowOnDense.solve_i64(m.view()).map(|s| (s.objective as f64, s.row_to_col))),
            ("jv_i64", Jv.solve_i64(m.view()).map(|s| (s.objective as f64, s.row_to_col))),
            ("jv_f64", jv::solve_f64(f.view()).map(|s| (s.objective, s.row_to_col))),
            ("hungarian", Hungarian.solve_i64(m.view()).map(|s| (s.objective as f64, s.row_to_col))),
        ];
        for (name, r) in results {
            let got = objective_or_infeasible(r.clone().map(|(o, _)| o));
            prop_assert_eq!(got, oracle, "{}", name);
            if let Ok((objective, rows)) = r {
                let mut used = vec![false; m.ncols()];
                let mut sum = 0i64;
                for (i, j) in rows.iter().enumerate() {
                    if let Some(j) = *j {
                        prop_assert!(!used[j], "{}: column {} twice", name, j);
                        used[j] = true;
                        prop_assert!(m[[i, j]] != X, "{}: forbidden pair", name);
                        sum += m[[i, j]];
                    }
                }
                prop_assert_eq!(rows.iter().flatten().count(), m.nrows().min(m.ncols()));
                prop_assert_eq!(sum as f64, objective);
            }
        }
    }
}

/// A random small snapshot: up to 6 nodes in up to 3 racks, 0–2 free map slots each (some
/// taken by running tasks), up to 7 pending maps with 0–3 replicas and sizes 1–256 MiB, and
/// possibly a rack-pair override.
fn snapshot() -> impl Strategy<Value = PlaceRequest> {
    snapshot_in(1..=6, 1..=3, 0..=7, 2)
}

/// A random snapshot with `nodes` nodes in `racks` racks, up to `slots` map slots per node
/// (some taken by running tasks), `tasks` pending maps with 0–3 replicas and sizes 1–256 MiB,
/// and possibly a rack-pair override.
fn snapshot_in(
    nodes: std::ops::RangeInclusive<usize>,
    racks: std::ops::RangeInclusive<usize>,
    tasks: std::ops::RangeInclusive<usize>,
    slots: u32,
) -> impl Strategy<Value = PlaceRequest> {
    (nodes, racks, tasks, any::<bool>()).prop_flat_map(move |(n, racks, t, pair)| {
        (
            proptest::collection::vec((0..racks, 0u32..=slots, 0u32..=slots), n),
            proptest::collection::vec(
                (1u64..=256, proptest::collection::btree_set(0..n, 0..=3.min(n))),
                t,
            ),
        )
            .prop_map(move |(nodes, tasks)| {
                let mut s = Snapshot::new().network(1000.0, 100.0);
                for r in 0..racks {
                    s = s.rack(&format!("r{r}"));
                }
                if pair && racks > 1 {
                    s = s.rack_pair("r0", "r1", 10.0);
                }
                for (i, &(rack, slots, busy)) in nodes.iter().enumerate() {
                    let id = format!("n{i}");
                    s = s.node(Node::new(&id).rack(&format!("r{rack}")).map_slots(slots));
                    for b in 0..busy.min(slots) {
                        let task = Running::map(&format!("bg-{i}-{b}")).job("bg").node(&id);
                        s = s.running(task.started_s(0.0));
                    }
                }
                s = s
                    .pool(Pool::new("p"))
                    .job(Job::new("j1").pool("p"))
                    .job(Job::new("bg").pool("p"));
                for (i, (mib, replicas)) in tasks.iter().enumerate() {
                    let r: Vec<String> = replicas.iter().map(|k| format!("n{k}")).collect();
                    let r: Vec<&str> = r.iter().map(String::as_str).collect();
                    s = s.map(
                        Map::new(&format!("t{i}")).job("j1").input_bytes(mib << 20).replicas(&r),
                    );
                }
                s.build().expect("snapshot parses")
            })
    })
}

fn with_algorithm(req: &PlaceRequest, algorithm: &str, solver: &str) -> PlaceRequest {
    let mut r = req.clone();
    r.policy = serde_json::from_value(json!({"algorithm": algorithm, "solver": solver}))
        .expect("policy parses");
    r
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn placements_are_valid_and_lsap_is_optimal(req in snapshot()) {
        let m = cost_matrix(&req, TaskKind::Map).expect("valid snapshot");
        let oracle = brute::solve(m.view()).expect("no forbidden pairs").objective;
        let free: HashMap<String, i64> = req.cluster.nodes.iter().map(|n| {
            let busy = req.running.iter().filter(|t| t.node == n.id).count() as i64;
            (n.id.to_string(), i64::from(n.map_slots) - busy)
        }).collect();
        let slots: i64 = free.values().sum();
        let mut lsap_objective = None;
        for (algorithm, solver) in [("lsap", "jv"), ("lsap", "hungarian"), ("lsap", "flow"), ("lsap", "auto"), ("dl_sched", "auto")] {
            let r = place(&with_algorithm(&req, algorithm, solver), &PlaceOptions::default())
                .expect("valid snapshot places");
            let mut left = free.clone();
            let mut seen = std::collections::HashSet::new();
            for a in &r.assignments {
                prop_assert!(seen.insert(a.task.clone()), "task placed twice");
                prop_assert!(req.pending.iter().any(|t| t.id == a.task), "unknown task");
                let l = left.get_mut(a.node.as_str()).expect("known node");
                *l -= 1;
                prop_assert!(*l >= 0, "{} oversubscribed by {}", a.node, algorithm);
            }
            prop_assert_eq!(r.assignments.len() as i64, slots.min(req.pending.len() as i64));
            let waiting: u64 = r.waiting.iter().map(|w| w.tasks).sum();
            prop_assert_eq!(waiting as usize + r.assignments.len(), req.pending.len());
            if algorithm == "lsap" {
                prop_assert!((r.stats.objective - oracle).abs() <= 1e-9 * (1.0 + oracle.abs()),
                    "{}: {} vs brute {}", solver, r.stats.objective, oracle);
                lsap_objective = Some(r.stats.objective);
            } else if let Some(best) = lsap_objective {
                prop_assert!(r.stats.objective >= best - 1e-9 * (1.0 + best));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Networks large enough for the flow engine's hub heaps (≥ 48 residual arcs at the source,
    /// the cluster and the racks) and for both search directions (more tasks than free slots
    /// and fewer): the structured engine's objective equals the dense JV's on the same matrix.
    #[test]
    fn structured_flow_equals_dense_jv_on_medium_snapshots(
        req in snapshot_in(20..=70, 1..=4, 40..=220, 4)
    ) {
        let flow = place(&with_algorithm(&req, "lsap", "flow"), &PlaceOptions::default())
            .expect("valid snapshot places");
        let jv = place(&with_algorithm(&req, "lsap", "jv"), &PlaceOptions::default())
            .expect("valid snapshot places");
        prop_assert_eq!(flow.assignments.len(), jv.assignments.len());
        let (a, b) = (flow.stats.objective, jv.stats.objective);
        prop_assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()), "flow {} vs jv {}", a, b);
    }
}
