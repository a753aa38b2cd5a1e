//! Random sequences of session deltas (docs/wire-schema.md, "Sessions"): pending and running
//! tasks added, replaced and removed, the clock moved, the policy switched among the exact
//! policies (`lsap`, `lsap_fair`, `lsap_quota`, `lsap_shuffle`, `lsap_ras`). After each delta the session's answer must equal
//! `placer_solver::place` on the equivalent full snapshot, which the test keeps itself by the
//! documented rules (remove, then upsert in place or appended, then `now_s` and `policy`); a
//! delta the full snapshot's rules refuse must get the same error code and path, and leave the
//! session at its epoch. An incremental session (`?incremental=true`) must give the same
//! status, counts and objective; where placements tie in cost it may pick another.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use actix_web::test::{self, TestRequest};
use placer_server::{app, AppState, ServerConfig};
use placer_solver::PlaceOptions;
use proptest::prelude::*;
use serde_json::{json, Value};

/// Two racks, three nodes (5 map and 3 reduce slots), two pools, two jobs, no tasks.
fn base() -> Value {
    json!({
        "schema_version": 1,
        "now_s": 100.0,
        "cluster": {
            "racks": [{"id": "r1"}, {"id": "r2"}],
            "nodes": [
                {"id": "n1", "rack": "r1", "map_slots": 2, "reduce_slots": 1},
                {"id": "n2", "rack": "r1", "map_slots": 1, "reduce_slots": 1},
                {"id": "n3", "rack": "r2", "map_slots": 2, "reduce_slots": 1}
            ]
        },
        "pools": [{"id": "p1", "weight": 2.0, "min_map_share": 1},
                  {"id": "p2", "weight": 1.0}],
        "jobs": [{"id": "j1", "pool": "p1", "submit_s": 10.0},
                 {"id": "j2", "pool": "p2", "submit_s": 20.0}],
        "policy": {"algorithm": "lsap"}
    })
}

const NODES: [&str; 3] = ["n1", "n2", "n3"];
const JOBS: [&str; 2] = ["j1", "j2"];
/// Every exact policy.
const POLICIES: [&str; 5] = ["lsap", "lsap_fair", "lsap_quota", "lsap_shuffle", "lsap_ras"];

/// One change of a delta.
#[derive(Clone, Debug)]
enum Op {
    /// Upsert pending map `m{id}` of a job, its block on a node, of some size.
    Pending { id: u8, job: usize, replica: usize, bytes: u64 },
    /// Remove pending map `m{id}`.
    Unpend(u8),
    /// Upsert running map `r{id}` of a job on a node (may oversubscribe: a 400 then).
    Running { id: u8, job: usize, node: usize },
    /// Remove running map `r{id}`.
    Stop(u8),
    /// Move the clock.
    Now(u32),
    /// Switch the policy.
    Policy(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u8..6, 0..2usize, 0..3usize, 1u64..1 << 28)
            .prop_map(|(id, job, replica, bytes)| Op::Pending { id, job, replica, bytes }),
        (0u8..6).prop_map(Op::Unpend),
        (0u8..6, 0..2usize, 0..3usize).prop_map(|(id, job, node)| Op::Running { id, job, node }),
        (0u8..6).prop_map(Op::Stop),
        (100u32..2000).prop_map(Op::Now),
        (0..POLICIES.len()).prop_map(Op::Policy),
    ]
}

/// The delta's `changes` for `ops`, and the full snapshot they make of `full`, applied by the
/// documented rules.
fn changes(ops: &[Op], full: &Value) -> (Value, Value) {
    let mut next = full.clone();
    let (mut remove_p, mut remove_r, mut up_p, mut up_r) = (vec![], vec![], vec![], vec![]);
    let mut changes = json!({});
    for op in ops {
        match *op {
            Op::Pending { id, job, replica, bytes } => up_p.push(json!({
                "id": format!("m{id}"), "job": JOBS[job], "kind": "map",
                "input_bytes": bytes, "replicas": [NODES[replica]]})),
            Op::Unpend(id) => remove_p.push(format!("m{id}")),
            Op::Running { id, job, node } => up_r.push(json!({
                "id": format!("r{id}"), "job": JOBS[job], "kind": "map", "node": NODES[node],
                "started_s": 50.0})),
            Op::Stop(id) => remove_r.push(format!("r{id}")),
            Op::Now(s) => changes["now_s"] = json!(f64::from(s)),
            Op::Policy(p) => changes["policy"] = json!({"algorithm": POLICIES[p]}),
        }
    }
    for (key, removed, upserted) in [("pending", &remove_p, &up_p), ("running", &remove_r, &up_r)] {
        let list = next.as_object_mut().unwrap().entry(key).or_insert_with(|| json!([]));
        let list = list.as_array_mut().unwrap();
        list.retain(|e| !removed.iter().any(|id| e["id"] == *id));
        for item in upserted {
            match list.iter().position(|e| e["id"] == item["id"]) {
                Some(at) => list[at] = item.clone(),
                None => list.push(item.clone()),
            }
        }
        if !removed.is_empty() {
            changes["remove"][key] = json!(removed);
        }
        if !upserted.is_empty() {
            changes["upsert"][key] = json!(upserted);
        }
    }
    for key in ["now_s", "policy"] {
        if let Some(v) = changes.get(key) {
            next[key] = v.clone();
        }
    }
    (changes, next)
}

/// `placer_solver::place` on `snapshot`: the answer without `solve_ms`, or the error's code
/// and path.
fn expected(snapshot: &Value) -> Result<Value, (String, String)> {
    let request = placer_models::parse_request(snapshot.to_string().as_bytes())
        .map_err(|e| (e.code().to_owned(), e.path().to_owned()))?;
    let response = placer_solver::place(&request, &PlaceOptions::default())
        .map_err(|e| (e.code().to_owned(), e.path().to_owned()))?;
    let mut answer = serde_json::to_value(&response).unwrap();
    answer["stats"].as_object_mut().unwrap().remove("solve_ms");
    Ok(answer)
}

/// The parts of an answer an incremental session shares with `POST /place` where placements
/// tie in cost: status, counts, objective (to 1 ns per placement, the engines' quantum).
fn same_optimum(got: &Value, want: &Value) -> bool {
    let stats = |a: &Value, k: &str| a["stats"][k].clone();
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs())) + 1e-6;
    ["status", "assigned", "preempted", "pending"].iter().all(|k| stats(got, k) == stats(want, k))
        && close(
            stats(got, "objective").as_f64().unwrap_or(f64::NAN),
            stats(want, "objective").as_f64().unwrap_or(f64::NAN),
        )
}

fn check(deltas: &[Vec<Op>], incremental: bool) {
    actix_web::rt::System::new().block_on(async {
        let svc = test::init_service(app(AppState::new(&ServerConfig::default()))).await;
        let mut full = base();
        let uri = if incremental { "/v1/sessions?incremental=true" } else { "/v1/sessions" };
        let req = TestRequest::post().uri(uri).set_json(&full).to_request();
        let created: Value = test::call_and_read_body_json(&svc, req).await;
        let id = created["session"].as_str().unwrap().to_owned();
        let mut epoch = 0u64;
        for ops in deltas {
            let (changes, next) = changes(ops, &full);
            let body = json!({"base_epoch": epoch, "changes": changes});
            let uri = format!("/v1/sessions/{id}/place");
            let resp = test::call_service(
                &svc,
                TestRequest::post().uri(&uri).set_json(&body).to_request(),
            )
            .await;
            let status = resp.status().as_u16();
            let mut got: Value = serde_json::from_slice(&test::read_body(resp).await).unwrap();
            match expected(&next) {
                Ok(answer) => {
                    assert_eq!(status, 200, "{body} → {got}");
                    epoch += 1;
                    assert_eq!(got["epoch"], epoch);
                    got["answer"]["stats"].as_object_mut().unwrap().remove("solve_ms");
                    if incremental {
                        assert!(same_optimum(&got["answer"], &answer), "after {body}: {got}");
                    } else {
                        assert_eq!(got["answer"], answer, "after {body}");
                    }
                    full = next;
                }
                Err((code, path)) => {
                    assert!(status == 400 || status == 422, "{body} → {got}");
                    assert_eq!(got["error"]["code"], code, "{body}");
                    assert_eq!(got["error"]["path"], path, "{body}");
                }
            }
        }
    });
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn each_session_answer_is_the_full_snapshots_answer(
        deltas in prop::collection::vec(prop::collection::vec(op(), 1..4), 1..8),
        incremental in any::<bool>(),
    ) {
        check(&deltas, incremental);
    }
}
