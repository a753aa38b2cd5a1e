//! Starvation handling for gangs (FAIR §3.2's timeouts, answered by holding freed slots rather
//! than killing tasks): hand-derived snapshots through `reservation::reserve` and through the
//! whole `lsap_quota` pipeline, on every engine it accepts.

use super::gang::request;
use placer_models::SolverEngine;
use placer_solver::fair::fair_shares;
use placer_solver::gang::reservation::{reserve, GangReserve, Reservation};
use placer_solver::gang::GangProblem;
use placer_solver::{Indexed, LocalityCost, PlaceOptions};
use serde_json::{json, Value};

/// Racks of one-slot nodes n0, n1, … (`per_rack` each), pools p and q of weight 1: job `m` of
/// pool p runs on `busy` with `m_pending` maps pending, and each `(id, submit_s, min_member)`
/// gang of pool q requires a rack with that many pending maps; the clock is `now_s`.
fn snapshot(
    racks: usize,
    per_rack: usize,
    busy: &[usize],
    m_pending: usize,
    gangs: &[(&str, f64, u32)],
    now_s: f64,
) -> Value {
    let nodes: Vec<Value> = (0..racks * per_rack)
        .map(|n| json!({"id": format!("n{n}"), "rack": format!("r{}", n / per_rack), "map_slots": 1}))
        .collect();
    let mut jobs = vec![json!({"id": "m", "pool": "p", "submit_s": 1.0})];
    let mut pending: Vec<Value> =
        (0..m_pending).map(|i| json!({"id": format!("m{i}"), "job": "m", "kind": "map"})).collect();
    for &(id, submit_s, min_member) in gangs {
        jobs.push(json!({"id": id, "pool": "q", "submit_s": submit_s,
            "gang": {"min_member": min_member}, "topology": {"level": "rack", "mode": "required"}}));
        pending.extend(
            (0..min_member).map(|i| json!({"id": format!("{id}.{i}"), "job": id, "kind": "map"})),
        );
    }
    json!({"schema_version": 1, "now_s": now_s,
        "cluster": {"racks": (0..racks).map(|r| json!({"id": format!("r{r}")})).collect::<Vec<_>>(),
                    "nodes": nodes},
        "pools": [{"id": "p"}, {"id": "q"}],
        "jobs": jobs,
        "running": busy.iter().map(|n| json!({"id": format!("x{n}"), "job": "m", "kind": "map",
                                               "node": format!("n{n}")})).collect::<Vec<_>>(),
        "pending": pending})
}

/// `reserve` on `v` with the timeout `after_s`: the reservations and the free map slots left.
fn reserved(v: &Value, knobs: GangReserve) -> (Vec<Reservation>, Vec<u32>, Vec<bool>) {
    let req = request(v);
    let ix = Indexed::new(&req);
    let (model, shares) = (LocalityCost::new(&ix), fair_shares::compute(&ix));
    let mut p = GangProblem::new(&ix, &model, &shares, None).unwrap();
    let held = reserve(&mut p, knobs);
    (held, p.free[0].clone(), p.first.clone())
}

/// The tasks `lsap_quota` assigns on `engine`, with `policy` merged into the snapshot's.
fn assigned(v: &Value, engine: SolverEngine, policy: Value) -> Vec<(String, String)> {
    let mut v = v.clone();
    v["policy"] = policy;
    let mut req = request(&v);
    req.policy.solver = engine;
    let r = placer_solver::place(&req, &PlaceOptions::default()).unwrap();
    r.assignments.iter().map(|a| (a.task.to_string(), a.node.to_string())).collect()
}

fn engines() -> Vec<SolverEngine> {
    let mut e = vec![SolverEngine::Auto, SolverEngine::Flow];
    if cfg!(feature = "mip") {
        e.push(SolverEngine::Mip);
    }
    e
}

/// The module's example: a gang of 2 needing one of two 2-node racks waits 100 s while n0, n2
/// and n3 run `m`'s maps; n1 is the one free slot. Both pools' fair share is 2 slots and `g`
/// runs none, so past 60 s rack r0 (one free slot against r1's none) is held, n1 included, and
/// `m`'s pending map waits. Before the timeout, with it beyond the wait, or with holds off
/// (`gang_reserve_max` 0), the map takes n1.
#[test]
fn a_starving_rack_gang_holds_the_rack_with_the_most_free_slots() {
    let v = snapshot(2, 2, &[0, 2, 3], 1, &[("g", 0.0, 2)], 100.0);
    let (held, free, first) = reserved(&v, GangReserve::default());
    assert_eq!(held, vec![Reservation { job: 1, nodes: vec![0, 1], fits: false }]);
    assert_eq!(free, vec![0, 0, 0, 0]);
    assert_eq!(first, vec![false, false]);
    for engine in engines() {
        assert_eq!(assigned(&v, engine, json!({})), vec![], "{engine:?}: n1 is held");
        for off in [json!({"gang_reserve_after_s": 1000}), json!({"gang_reserve_max": 0})] {
            assert_eq!(assigned(&v, engine, off), vec![("m0".into(), "n1".into())], "{engine:?}");
        }
    }
    let early = snapshot(2, 2, &[0, 2, 3], 1, &[("g", 0.0, 2)], 59.0);
    assert_eq!(reserved(&early, GangReserve::default()).0, vec![], "59 s is before the timeout");
}

/// A starving gang whose rack has room now goes first and holds nothing: n0 and n1 are free,
/// so the gang of 2 fits r0 at once.
#[test]
fn a_starving_gang_that_fits_goes_first_and_holds_nothing() {
    let v = snapshot(2, 2, &[2, 3], 1, &[("g", 0.0, 2)], 100.0);
    let (held, free, first) = reserved(&v, GangReserve::default());
    assert_eq!(held, vec![Reservation { job: 1, nodes: vec![0, 1], fits: true }]);
    assert_eq!(free, vec![1, 1, 0, 0]);
    assert_eq!(first, vec![false, true]);
    for engine in engines() {
        let got = assigned(&v, engine, json!({}));
        let mut nodes: Vec<&str> = got.iter().map(|(_, n)| n.as_str()).collect();
        nodes.sort_unstable();
        assert!(got.iter().all(|(t, _)| t.starts_with("g.")), "{engine:?}: {got:?}");
        assert_eq!(nodes, ["n0", "n1"], "{engine:?}");
    }
}

/// Two starving gangs of 2 on three 2-node racks with one free slot each (n1, n3, n5). The
/// older (`h`, submitted at 0 s, job 2) takes r0, the lowest of the equally free racks; by
/// default it is the only one to hold, so `m`'s maps take n3 and n5 and the younger gang `g`
/// waits its turn. Allowed two holds, `g` holds the next rack, r1, and only n5 is left for
/// `m`. Pool q's share is 3 of the 6 slots, and each gang alone fits in it.
#[test]
fn starving_gangs_hold_oldest_first_on_disjoint_racks_one_at_a_time_by_default() {
    let v = snapshot(3, 2, &[0, 2, 4], 3, &[("g", 10.0, 2), ("h", 0.0, 2)], 100.0);
    let h = Reservation { job: 2, nodes: vec![0, 1], fits: false };
    let (held, free, _) = reserved(&v, GangReserve::default());
    assert_eq!(held, vec![h.clone()]);
    assert_eq!(free, vec![0, 0, 0, 1, 0, 1]);
    let two = GangReserve { gang_reserve_max: 2, ..GangReserve::default() };
    let (held, free, _) = reserved(&v, two);
    assert_eq!(held, vec![h, Reservation { job: 1, nodes: vec![2, 3], fits: false }]);
    assert_eq!(free, vec![0, 0, 0, 0, 0, 1]);
    let nodes = |policy: Value, engine| {
        let mut n: Vec<String> = assigned(&v, engine, policy).into_iter().map(|a| a.1).collect();
        n.sort_unstable();
        n
    };
    for engine in engines() {
        assert_eq!(nodes(json!({}), engine), ["n3", "n5"], "{engine:?}");
        assert_eq!(nodes(json!({"gang_reserve_max": 2}), engine), ["n5"], "{engine:?}");
    }
}

/// FAIR never takes another pool below its share for a starved job: with 4 slots, q's share
/// is 2 (m's pool wants 4), so a gang of 3 would take q above it and holds nothing.
#[test]
fn a_gang_beyond_its_pools_share_holds_nothing() {
    let v = snapshot(1, 4, &[0, 1, 2], 1, &[("g", 0.0, 3)], 100.0);
    assert_eq!(reserved(&v, GangReserve::default()).0, vec![]);
}

/// The knob's domain: finite seconds ≥ 0, refused with its path.
#[test]
fn the_timeout_must_be_finite_and_not_negative() {
    let mut v = snapshot(1, 2, &[], 0, &[], 0.0);
    v["policy"] = json!({"gang_reserve_after_s": -1});
    let req = placer_models::parse_request(v.to_string().as_bytes()).unwrap();
    let err = placer_solver::place(&req, &PlaceOptions::default()).unwrap_err().to_string();
    assert!(err.contains("policy.gang_reserve_after_s"), "{err}");
}
