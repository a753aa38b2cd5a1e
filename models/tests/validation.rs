//! Every validation rule of the v1 schema (docs/wire-schema.md, "Errors") rejects its case with the
//! expected code and JSON path, and the valid edge cases (empty cluster, no free slots) pass.

use placer_models::{parse_request, validate, ModelError, TaskKind};
use placer_testkit::{Job, Map, Node, Pool, Reduce, Running, Snapshot};
use serde_json::{json, Value};

/// Every kind of object and reference once: two racks with a rack-pair override, a node with
/// reduce slots and one without, a map with two replicas, a reduce with a shuffle source, and a
/// running map.
fn base() -> Value {
    Snapshot::new()
        .now_s(10.0)
        .rack("r1")
        .rack("r2")
        .node(Node::new("n1").rack("r1").map_slots(1).reduce_slots(1))
        .node(Node::new("n2").rack("r2").map_slots(2).reduce_slots(0))
        .network(1000.0, 100.0)
        .rack_pair("r1", "r2", 50.0)
        .pool(Pool::new("p").weight(1.0))
        .job(Job::new("j").pool("p").submit_s(1.0))
        .map(Map::new("m0").job("j").input_bytes(1).replicas(&["n1", "n2"]))
        .reduce(Reduce::new("r0").job("j").shuffle("n1", 5))
        .running(Running::map("m9").job("j").node("n2").started_s(2.0))
        .json()
}

/// Parses and validates; the first error.
fn check(v: &Value) -> Result<(), ModelError> {
    let req = parse_request(v.to_string().as_bytes())?;
    validate(&req)
}

fn rejects(mutate: impl FnOnce(&mut Value), code: &str, path: &str) {
    let mut v = base();
    mutate(&mut v);
    match check(&v) {
        Err(e) => {
            assert_eq!((e.code(), e.path()), (code, path), "{e}");
        }
        Ok(()) => panic!("accepted, expected {code} at {path}"),
    }
}

#[test]
fn the_base_snapshot_is_valid() {
    check(&base()).unwrap();
}

#[test]
fn schema_version_other_than_1() {
    rejects(|v| v["schema_version"] = json!(2), "unsupported_schema_version", "schema_version");
    rejects(|v| v["schema_version"] = json!(0), "unsupported_schema_version", "schema_version");
    // Another version whose shape does not parse as v1 is refused for its version.
    rejects(|v| *v = json!({"schema_version": 2}), "unsupported_schema_version", "schema_version");
    rejects(|v| v["schema_version"] = json!(3), "unsupported_schema_version", "schema_version");
    // Version 1 with a missing field is still that field's error.
    rejects(|v| *v = json!({"schema_version": 1}), "invalid_field", "$");
}

#[test]
fn empty_ids() {
    rejects(|v| v["cluster"]["racks"][1]["id"] = json!(""), "empty_id", "cluster.racks[1].id");
    rejects(|v| v["cluster"]["nodes"][0]["id"] = json!(""), "empty_id", "cluster.nodes[0].id");
    rejects(|v| v["pools"][0]["id"] = json!(""), "empty_id", "pools[0].id");
    rejects(|v| v["jobs"][0]["id"] = json!(""), "empty_id", "jobs[0].id");
    rejects(|v| v["pending"][1]["id"] = json!(""), "empty_id", "pending[1].id");
    rejects(|v| v["running"][0]["id"] = json!(""), "empty_id", "running[0].id");
}

#[test]
fn duplicate_ids() {
    rejects(
        |v| v["cluster"]["racks"][1]["id"] = json!("r1"),
        "duplicate_id",
        "cluster.racks[1].id",
    );
    rejects(
        |v| v["cluster"]["nodes"][1]["id"] = json!("n1"),
        "duplicate_id",
        "cluster.nodes[1].id",
    );
    rejects(
        |v| v["pools"].as_array_mut().unwrap().push(json!({"id": "p"})),
        "duplicate_id",
        "pools[1].id",
    );
    rejects(
        |v| v["jobs"].as_array_mut().unwrap().push(json!({"id": "j", "pool": "p"})),
        "duplicate_id",
        "jobs[1].id",
    );
    rejects(|v| v["pending"][1]["id"] = json!("m0"), "duplicate_id", "pending[1].id");
    // A task both pending and running.
    rejects(|v| v["running"][0]["id"] = json!("m0"), "duplicate_id", "running[0].id");
    // A replica listed twice.
    rejects(
        |v| v["pending"][0]["replicas"] = json!(["n2", "n2"]),
        "duplicate_id",
        "pending[0].replicas[1]",
    );
}

#[test]
fn unknown_references() {
    rejects(
        |v| v["cluster"]["nodes"][1]["rack"] = json!("r9"),
        "unknown_reference",
        "cluster.nodes[1].rack",
    );
    rejects(
        |v| v["cluster"]["network"]["rack_pairs"][0]["to"] = json!("r9"),
        "unknown_reference",
        "cluster.network.rack_pairs[0].to",
    );
    rejects(|v| v["jobs"][0]["pool"] = json!("q"), "unknown_reference", "jobs[0].pool");
    rejects(|v| v["pending"][0]["job"] = json!("k"), "unknown_reference", "pending[0].job");
    rejects(
        |v| v["pending"][0]["replicas"][1] = json!("n9"),
        "unknown_reference",
        "pending[0].replicas[1]",
    );
    rejects(
        |v| v["pending"][1]["shuffle"][0]["node"] = json!("n9"),
        "unknown_reference",
        "pending[1].shuffle[0].node",
    );
    rejects(|v| v["running"][0]["node"] = json!("n9"), "unknown_reference", "running[0].node");
    rejects(|v| v["running"][0]["job"] = json!("k"), "unknown_reference", "running[0].job");
}

#[test]
fn negative_non_finite_and_zero_bandwidth_numbers() {
    rejects(|v| v["now_s"] = json!(-1.0), "invalid_number", "now_s");
    rejects(|v| v["pools"][0]["weight"] = json!(-0.5), "invalid_number", "pools[0].weight");
    rejects(
        |v| v["pools"][0]["min_map_share"] = json!(-1),
        "invalid_number",
        "pools[0].min_map_share",
    );
    rejects(|v| v["jobs"][0]["submit_s"] = json!(-3), "invalid_number", "jobs[0].submit_s");
    rejects(|v| v["running"][0]["started_s"] = json!(-3), "invalid_number", "running[0].started_s");
    rejects(
        |v| v["cluster"]["network"]["rack_mbps"] = json!(0),
        "invalid_number",
        "cluster.network.rack_mbps",
    );
    rejects(
        |v| v["cluster"]["network"]["cross_rack_mbps"] = json!(-100),
        "invalid_number",
        "cluster.network.cross_rack_mbps",
    );
    rejects(
        |v| v["cluster"]["network"]["rack_pairs"][0]["mbps"] = json!(0.0),
        "invalid_number",
        "cluster.network.rack_pairs[0].mbps",
    );
    // JSON has no NaN or infinity literal; a number too large for f64 is rejected by the parser.
    rejects(|v| v["now_s"] = json!("NaN"), "invalid_field", "now_s");
    // Negative or fractional counts are shape errors of unsigned fields.
    rejects(
        |v| v["cluster"]["nodes"][0]["map_slots"] = json!(-1),
        "invalid_field",
        "cluster.nodes[0].map_slots",
    );
    rejects(
        |v| v["pending"][0]["input_bytes"] = json!(-5),
        "invalid_field",
        "pending[0].input_bytes",
    );
}

#[test]
fn too_large_a_number_is_rejected_by_the_parser() {
    let body = base().to_string().replace("\"now_s\":10.0", "\"now_s\":1e999");
    let err = parse_request(body.as_bytes()).unwrap_err();
    assert_eq!(err.path(), "now_s", "{err}");
}

#[test]
fn running_tasks_beyond_a_nodes_slots() {
    rejects(
        |v| {
            v["running"]
                .as_array_mut()
                .unwrap()
                .push(json!({"id": "m8", "job": "j", "kind": "map", "node": "n1"}));
            v["running"]
                .as_array_mut()
                .unwrap()
                .push(json!({"id": "m7", "job": "j", "kind": "map", "node": "n1"}));
        },
        "slots_oversubscribed",
        "running[2]",
    );
    // n2 has no reduce slots at all.
    rejects(
        |v| {
            v["running"]
                .as_array_mut()
                .unwrap()
                .push(json!({"id": "r8", "job": "j", "kind": "reduce", "node": "n2"}))
        },
        "slots_oversubscribed",
        "running[1]",
    );
}

#[test]
fn unknown_algorithm_and_engine() {
    rejects(|v| v["policy"] = json!({"algorithm": "best"}), "invalid_field", "policy.algorithm");
    rejects(|v| v["policy"] = json!({"solver": "gurobi"}), "invalid_field", "policy.solver");
}

#[test]
fn fields_that_do_not_fit_the_task_kind() {
    rejects(
        |v| v["pending"][0]["shuffle"] = json!([{"node": "n1", "bytes": 1}]),
        "inconsistent",
        "pending[0].shuffle",
    );
    rejects(|v| v["pending"][1]["replicas"] = json!(["n1"]), "inconsistent", "pending[1].replicas");
    rejects(
        |v| v["pending"][1]["input_bytes"] = json!(7),
        "inconsistent",
        "pending[1].input_bytes",
    );
    rejects(
        |v| v["pending"][1]["output_bytes"] = json!(7),
        "inconsistent",
        "pending[1].output_bytes",
    );
}

#[test]
fn intermediate_space_fields() {
    // FAIR §5.4: a node's free space for map outputs and a map's expected output, in bytes.
    let mut v = base();
    v["cluster"]["nodes"][0]["resources"] = json!({"disk": 0});
    v["cluster"]["nodes"][1]["resources"] = json!({"cpu": 1.0, "disk": 1_000_000_000_000u64});
    v["pending"][0]["output_bytes"] = json!(250_000_000);
    check(&v).unwrap();
    let req = parse_request(v.to_string().as_bytes()).unwrap();
    assert_eq!(req.cluster.nodes[0].disk(), Some(0));
    assert_eq!(req.cluster.nodes[1].disk(), Some(1_000_000_000_000));
    assert_eq!(req.pending[0].output_bytes, 250_000_000);
    // Absent: unlimited, and no output; neither is written back out.
    let plain = parse_request(base().to_string().as_bytes()).unwrap();
    assert_eq!((plain.cluster.nodes[0].disk(), plain.pending[0].output_bytes), (None, 0));
    let echoed = serde_json::to_value(&plain).unwrap();
    assert!(echoed["pending"][0].get("output_bytes").is_none());
    // Negative or fractional bytes are shape errors of unsigned fields.
    rejects(
        |v| v["cluster"]["nodes"][0]["resources"] = json!({"disk": -1}),
        "invalid_field",
        "cluster.nodes[0].resources.disk",
    );
    rejects(
        |v| v["pending"][0]["output_bytes"] = json!(1.5),
        "invalid_field",
        "pending[0].output_bytes",
    );
}

#[test]
fn empty_cluster_and_no_free_slots_are_valid() {
    check(&json!({"schema_version": 1, "cluster": {}})).unwrap();
    let mut v = base();
    v["running"] = json!([
        {"id": "a", "job": "j", "kind": "map", "node": "n1"},
        {"id": "b", "job": "j", "kind": "map", "node": "n2"},
        {"id": "c", "job": "j", "kind": "map", "node": "n2"},
        {"id": "d", "job": "j", "kind": "reduce", "node": "n1"}
    ]);
    check(&v).unwrap();
}

/// The multi-resource fields (RAS §3.1, Table 2; docs/wire-schema.md, "Multi-resource: the
/// fields"): free-form capacities, per-phase profiles, per-task demands, goals and observed map
/// lengths; what each refuses.
#[test]
fn multi_resource_fields() {
    let mut v = base();
    v["cluster"]["nodes"][0]["resources"] = json!({"cpu": 2, "mem": 2048, "disk": 5});
    v["cluster"]["nodes"][1]["resources"] = json!({"gpu": 1});
    v["jobs"][0]["profile"] = json!({"map": {"cpu": 0.3, "mem": 512}, "reduce": {"gpu": 1}});
    v["jobs"][0]["goal_s"] = json!(3000);
    v["jobs"][0]["mean_map_s"] = json!(42.5);
    v["pending"][0]["demand"] = json!({"cpu": 1});
    v["running"][0]["demand"] = json!({"mem": 100});
    check(&v).unwrap();
    let req = parse_request(v.to_string().as_bytes()).unwrap();
    let res = req.cluster.nodes[0].resources.as_ref().unwrap();
    assert_eq!(res.disk, Some(5));
    assert_eq!(res.amounts.keys().collect::<Vec<_>>(), ["cpu", "mem"]);
    assert!(req.cluster.nodes[1].has_capacities());
    assert_eq!(req.jobs[0].profile.as_ref().unwrap().map["mem"], 512.0);
    // Echoed back unchanged: `disk` stays a field of its own next to the names.
    let echoed = serde_json::to_value(&req).unwrap();
    assert_eq!(
        echoed["cluster"]["nodes"][0]["resources"],
        json!({"cpu": 2.0, "mem": 2048.0, "disk": 5})
    );
    rejects(
        |v| v["cluster"]["nodes"][0]["resources"] = json!({"cpu": -1}),
        "invalid_number",
        "cluster.nodes[0].resources.cpu",
    );
    rejects(
        |v| v["cluster"]["nodes"][0]["resources"] = json!({"cpu": "lots"}),
        "invalid_field",
        "cluster.nodes[0].resources",
    );
    rejects(
        |v| v["jobs"][0]["profile"] = json!({"map": {"cpu": 1}}),
        "unknown_reference",
        "jobs[0].profile.map.cpu",
    );
    rejects(
        |v| {
            v["cluster"]["nodes"][0]["resources"] = json!({"cpu": 1});
            v["jobs"][0]["profile"] = json!({"shuffle": {"cpu": -0.5}});
        },
        "invalid_number",
        "jobs[0].profile.shuffle.cpu",
    );
    rejects(
        |v| {
            v["cluster"]["nodes"][0]["resources"] = json!({"cpu": 1, "disk": 10});
            v["pending"][0]["demand"] = json!({"disk": 1});
        },
        "unknown_reference",
        "pending[0].demand.disk",
    );
    rejects(
        |v| v["running"][0]["demand"] = json!({"gpu": 1}),
        "unknown_reference",
        "running[0].demand.gpu",
    );
    rejects(|v| v["jobs"][0]["goal_s"] = json!(-1), "invalid_number", "jobs[0].goal_s");
    rejects(|v| v["jobs"][0]["mean_map_s"] = json!(0), "invalid_number", "jobs[0].mean_map_s");
}

/// On a node with capacities, 0 slots means "no slot cap" (RAS's job slots): its running tasks
/// are bounded by resources, not slots. Without capacities 0 slots still means none.
#[test]
fn zero_slots_with_capacities_are_uncapped() {
    let mut v = base();
    v["cluster"]["nodes"][1]["reduce_slots"] = json!(0);
    v["cluster"]["nodes"][1]["resources"] = json!({"cpu": 4});
    v["running"] = json!([{"id": "a", "job": "j", "kind": "reduce", "node": "n2"},
                          {"id": "b", "job": "j", "kind": "reduce", "node": "n2"}]);
    check(&v).unwrap();
    v["cluster"]["nodes"][1]["resources"] = json!({"disk": 4});
    assert_eq!(check(&v).unwrap_err().code(), "slots_oversubscribed");
}

#[test]
fn configured_slots_below_the_sent_slots() {
    // n2 is sent with 2 map slots: configuring fewer is inconsistent, as many or more is not.
    rejects(
        |v| v["cluster"]["nodes"][1]["configured_map_slots"] = json!(1),
        "inconsistent",
        "cluster.nodes[1].configured_map_slots",
    );
    rejects(
        |v| v["cluster"]["nodes"][0]["configured_reduce_slots"] = json!(0),
        "inconsistent",
        "cluster.nodes[0].configured_reduce_slots",
    );
    let mut v = base();
    v["cluster"]["nodes"][1]["configured_map_slots"] = json!(2);
    v["cluster"]["nodes"][1]["configured_reduce_slots"] = json!(4);
    check(&v).unwrap();
}

#[test]
fn configured_slots_are_the_capacity_and_the_sent_slots_the_room() {
    // A heartbeat snapshot: n1 offers, n2 is sent with 0 map slots though it has 2.
    let mut v = base();
    v["cluster"]["nodes"][1]["map_slots"] = json!(0);
    v["cluster"]["nodes"][1]["configured_map_slots"] = json!(2);
    let req = parse_request(v.to_string().as_bytes()).unwrap();
    let n2 = &req.cluster.nodes[1];
    assert_eq!((n2.slots(TaskKind::Map), n2.configured_slots(TaskKind::Map)), (0, 2));
    // Under CPAC the reducer capacity is `max_reducers` whatever else is said.
    let mut cpac = n2.clone();
    cpac.max_reducers = Some(6);
    cpac.configured_reduce_slots = Some(3);
    assert_eq!(cpac.configured_slots(TaskKind::Reduce), 6);
}

/// Gangs and topology domains (docs/wire-schema.md, "Gangs and topology domains"): the base
/// job has 3 tasks (a pending map, a pending reduce, a running map), so `min_member` 3 is valid
/// and 4 is not; 0 never is.
#[test]
fn gang_and_topology_fields_are_checked_with_their_paths() {
    let accepts = |mutate: &dyn Fn(&mut Value)| {
        let mut v = base();
        mutate(&mut v);
        check(&v).unwrap();
    };
    accepts(&|v| v["jobs"][0]["gang"] = json!({"min_member": 3}));
    accepts(&|v| v["jobs"][0]["gang"] = json!({"min_member": 1}));
    accepts(&|v| {
        v["jobs"][0]["topology"] = json!({"level": "block", "mode": "required"});
        v["cluster"]["nodes"][0]["block"] = json!("b1");
    });
    accepts(&|v| {
        v["jobs"][0]["topology"] = json!({"level": "node", "mode": "preferred", "penalty_s": 0})
    });
    rejects(
        |v| v["jobs"][0]["gang"] = json!({"min_member": 4}),
        "inconsistent",
        "jobs[0].gang.min_member",
    );
    rejects(
        |v| v["jobs"][0]["gang"] = json!({"min_member": 0}),
        "invalid_number",
        "jobs[0].gang.min_member",
    );
    rejects(
        |v| v["jobs"][0]["gang"] = json!({"min_member": -1}),
        "invalid_field",
        "jobs[0].gang.min_member",
    );
    rejects(|v| v["jobs"][0]["gang"] = json!({}), "invalid_field", "jobs[0].gang");
    rejects(
        |v| v["jobs"][0]["topology"] = json!({"level": "galaxy", "mode": "required"}),
        "invalid_field",
        "jobs[0].topology.level",
    );
    rejects(
        |v| v["jobs"][0]["topology"] = json!({"level": "rack", "mode": "maybe"}),
        "invalid_field",
        "jobs[0].topology.mode",
    );
    rejects(
        |v| {
            v["jobs"][0]["topology"] =
                json!({"level": "rack", "mode": "preferred", "penalty_s": -1.0})
        },
        "invalid_number",
        "jobs[0].topology.penalty_s",
    );
    rejects(
        |v| v["cluster"]["nodes"][1]["block"] = json!(""),
        "empty_id",
        "cluster.nodes[1].block",
    );
}
