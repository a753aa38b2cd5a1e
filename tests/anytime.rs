//! Deadlines with an anytime answer (docs/operations/serving.md, "Deadlines and the
//! anytime answer"), solver side: an
//! exact policy whose engine is cut by [`Cancel::after_polls`] (a deterministic deadline)
//! answers with a valid placement (every invariant of the fair-sharing property tests: no
//! slot or copy-compute cap oversubscribed, only runnable jobs, every task placed or waiting,
//! maps work-conserving), `time_limited` when cut and exactly the uncut answer when not, the
//! same twice; under `lsap_quota` the pools' capacities hold too.

use super::fair_properties::{check_valid, snapshot};
use placer_models::{PlaceRequest, PlaceResponse, SolverEngine, Status, TaskKind};
use placer_solver::exact::check_engine;
use placer_solver::Indexed;
use placer_solver::{fair::fair_shares, place, registry, Cancel, PlaceOptions, SolveError};
use proptest::prelude::*;

/// The exact algorithms and every engine each accepts (besides `mip`, which has its own node
/// budget).
fn exact_runs() -> Vec<(&'static str, SolverEngine)> {
    let mut out = Vec::new();
    for name in ["lsap", "lsap_fair", "lsap_quota", "lsap_shuffle", "lsap_ras"] {
        let policy = registry::by_name(name).unwrap().1;
        for e in [SolverEngine::Auto, SolverEngine::Jv, SolverEngine::Hungarian] {
            if check_engine(policy.engines(), e).is_ok() {
                out.push((name, e));
            }
        }
    }
    out
}

fn run(
    req: &PlaceRequest,
    algorithm: &str,
    engine: SolverEngine,
    cancel: Option<Cancel>,
) -> Result<PlaceResponse, SolveError> {
    let mut req = req.clone();
    req.policy.algorithm = registry::by_name(algorithm).unwrap().0;
    req.policy.solver = engine;
    place(&req, &PlaceOptions { explain: false, cancel, warm: None })
}

/// `lsap_quota`'s hard part: per kind, each pool receives at most `must + flex` units and
/// each flex group at most its units beyond the pools' `must` (reduces under copy-compute caps
/// included: the capped flow feeds them through the same capacities; the case in
/// `anytime.proptest-regressions` is one where it once did not).
fn check_quotas(req: &PlaceRequest, r: &PlaceResponse) -> Result<(), TestCaseError> {
    let ix = Indexed::new(req);
    let shares = fair_shares::compute(&ix);
    for kind in TaskKind::ALL {
        let q = placer_solver::policy::quotas(&ix, &shares, kind);
        let mut used = vec![0u64; q.must.len()];
        for a in &r.assignments {
            let t = req.pending.iter().position(|t| t.id == a.task).unwrap();
            if req.pending[t].kind == kind {
                used[q.job_pool[ix.pending_job[t] as usize] as usize] += 1;
            }
        }
        let mut excess = [0u64; 2];
        for (p, &u) in used.iter().enumerate() {
            prop_assert!(u <= q.must[p] + q.flex[p].0, "pool {} over its capacity", p);
            excess[q.flex[p].1] += u.saturating_sub(q.must[p]);
        }
        prop_assert!(excess[0] <= q.groups[0] && excess[1] <= q.groups[1], "flex group over");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Cut after 0 … 7 polls: valid, `time_limited` or the uncut answer itself, deterministic.
    #[test]
    fn a_cut_solve_answers_validly(req in snapshot(), polls in 0u64..8) {
        for (algorithm, engine) in exact_runs() {
            let Ok(uncut) = run(&req, algorithm, engine, None) else { continue };
            let never = run(&req, algorithm, engine, Some(Cancel::new())).unwrap();
            prop_assert_eq!(&never, &uncut, "{}/{:?}: a token never cancelled", algorithm, engine);
            let cut = run(&req, algorithm, engine, Some(Cancel::after_polls(polls))).unwrap();
            let again = run(&req, algorithm, engine, Some(Cancel::after_polls(polls))).unwrap();
            prop_assert_eq!(&cut, &again, "{}/{:?}: deterministic", algorithm, engine);
            check_valid(&req, &cut, algorithm)?;
            if algorithm == "lsap_quota" {
                check_quotas(&req, &cut)?;
            }
            if cut.stats.status != Status::TimeLimited {
                prop_assert_eq!(&cut, &uncut, "{}/{:?}: not cut, so exact", algorithm, engine);
            }
            if polls == 0 && algorithm != "lsap_ras" {
                prop_assert_eq!(cut.stats.status, Status::TimeLimited, "{}/{:?}", algorithm, engine);
            }
        }
    }
}

/// lsap-sched's Fig. 1 (T1's block on A and B, T2's only on A, one map slot each) under every
/// exact algorithm and engine: cancelled before the start, the greedy completion gives T1 (first
/// in the queue) A and T2 B (`time_limited`, both placed); with polls to spare the optimum
/// T1 → B, T2 → A (`optimal`).
#[test]
fn lsap_fig1_before_and_after_the_deadline() {
    let req = placer_models::parse_request(br#"{"schema_version": 1,
      "cluster": {"racks": [{"id": "r"}],
        "nodes": [{"id": "A", "rack": "r", "map_slots": 1}, {"id": "B", "rack": "r", "map_slots": 1}]},
      "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}],
      "pending": [{"id": "T1", "job": "j", "kind": "map", "input_bytes": 1000000, "replicas": ["A", "B"]},
                  {"id": "T2", "job": "j", "kind": "map", "input_bytes": 1000000, "replicas": ["A"]}]}"#)
    .unwrap();
    for (algorithm, engine) in exact_runs().into_iter().filter(|(a, _)| *a != "lsap_ras") {
        let to = |r: &PlaceResponse| -> Vec<(String, String)> {
            r.assignments.iter().map(|a| (a.task.to_string(), a.node.to_string())).collect()
        };
        let cut = run(&req, algorithm, engine, Some(Cancel::after_polls(0))).unwrap();
        assert_eq!(cut.stats.status, Status::TimeLimited, "{algorithm}/{engine:?}");
        assert_eq!(to(&cut), [("T1".into(), "A".into()), ("T2".into(), "B".into())], "{algorithm}");
        let full = run(&req, algorithm, engine, Some(Cancel::after_polls(1000))).unwrap();
        assert_eq!(full.stats.status, Status::Optimal, "{algorithm}/{engine:?}");
        assert_eq!(
            to(&full),
            [("T1".into(), "B".into()), ("T2".into(), "A".into())],
            "{algorithm}"
        );
    }
}
