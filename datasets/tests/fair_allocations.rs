//! The fair-scheduler allocation file reader (`fair_allocations`): the SLS sample shipped with
//! Apache Hadoop, hand-written files with every element of the YARN and MR1 formats (pools
//! derived by hand from FairScheduler.md and the HFS design doc), errors naming element and
//! line, and the filling of a snapshot's pools and users.

use placer_datasets::fair_allocations::{
    parse_fair_allocations, read_fair_allocations, FairAllocations,
};
use placer_datasets::DatasetError;
use placer_models::{PlaceRequest, Pool, PoolId, PoolMode, User, UserId};
use placer_testkit::data;

fn read(name: &str) -> FairAllocations {
    read_fair_allocations(&data(name)).unwrap()
}

/// A pool with the given fields, the others at their defaults.
#[allow(clippy::too_many_arguments)]
fn pool(
    id: &str,
    weight: f64,
    min: (f64, f64),
    mode: PoolMode,
    timeouts: (Option<f64>, Option<f64>),
    max_running_jobs: Option<u32>,
) -> Pool {
    Pool {
        id: PoolId(id.to_owned()),
        weight,
        min_map_share: min.0,
        min_reduce_share: min.1,
        mode,
        min_share_timeout_s: timeouts.0,
        fair_share_timeout_s: timeouts.1,
        max_running_jobs,
        starvation: None,
    }
}

fn user(id: &str, max: Option<u32>) -> User {
    User { id: UserId(id.to_owned()), max_running_jobs: max, weight: None }
}

/// A snapshot of `nodes` nodes with 10 map and 5 reduce slots each, and `jobs` as
/// (id, pool, user).
fn snapshot(nodes: usize, jobs: &[(&str, &str, &str)]) -> PlaceRequest {
    let nodes: Vec<_> = (0..nodes)
        .map(|i| serde_json::json!({"id": format!("n{i}"), "rack": "r0", "map_slots": 10, "reduce_slots": 5}))
        .collect();
    let jobs: Vec<_> = jobs
        .iter()
        .map(|(id, pool, user)| serde_json::json!({"id": id, "pool": pool, "user": user}))
        .collect();
    let body = serde_json::json!({
        "schema_version": 1,
        "cluster": {"racks": [{"id": "r0"}], "nodes": nodes},
        "jobs": jobs,
    });
    placer_models::parse_request(body.to_string().as_bytes()).unwrap()
}

#[test]
fn sls_sample_gives_three_weighted_pools_and_jenkins_limit() {
    // hadoop-sls sample-conf/fair-scheduler.xml: weights 0.25/0.25/0.5, minResources
    // "1024 mb, 1 vcores" = 1 slot of 1024 MB, schedulingMode fair, minSharePreemptionTimeout
    // 2 s, no fair-share timeout; user jenkins maxRunningJobs 1000 (MR1 name); userMaxAppsDefault
    // 1000.
    let a = read("sls-sample-fair-scheduler.xml");
    let pools = a.pools(&|_| false, &[], [40.0, 20.0]);
    let q = |id, w| pool(id, w, (1.0, 1.0), PoolMode::Fair, (Some(2.0), None), None);
    assert_eq!(pools, vec![q("sls_queue_1", 0.25), q("sls_queue_2", 0.25), q("sls_queue_3", 0.5)]);
    assert_eq!(a.users(), vec![user("jenkins", Some(1000))]);
    assert_eq!(a.user_max_apps_default, Some(1000));
}

#[test]
fn every_yarn_element_maps_as_derived_by_hand() {
    // 4 nodes: 40 map slots, 20 reduce slots.
    // prod (weight 3, parent, drf, maxRunningApps 10, fair timeout 300) holds etl (weight 2)
    // and reports (weight 1): 3·2/3 = 2 and 3·1/3 = 1; default: 0.5 at the top level.
    // etl: drf, 4096 MB and 2 vcores → min(4, 2) = 2 slots; max min(20, prod 10, root 40) = 10;
    //   min timeout its own 30 s, fair timeout prod's 300 s.
    // reports: fifo, 25% memory → 10 map, 5 reduce slots; max 3; root's 90 s; prod's 300 s.
    // default: default policy fair, 20% → 8 and 4; max queueMaxAppsDefault 15; root's 90 s;
    //   defaultFairSharePreemptionTimeout 600 s.
    // adhoc: type="parent" without children: no pool.
    let a = read("yarn-every-element-fair-scheduler.xml");
    let pools = a.pools(&|_| false, &[], [40.0, 20.0]);
    assert_eq!(
        pools,
        vec![
            pool("prod.etl", 2.0, (2.0, 2.0), PoolMode::Fair, (Some(30.0), Some(300.0)), Some(10)),
            pool(
                "prod.reports",
                1.0,
                (10.0, 5.0),
                PoolMode::Fifo,
                (Some(90.0), Some(300.0)),
                Some(3)
            ),
            pool("default", 0.5, (8.0, 4.0), PoolMode::Fair, (Some(90.0), Some(600.0)), Some(15)),
        ]
    );
    assert_eq!(a.users(), vec![user("alice", Some(2)), user("bob", None)]);
    assert_eq!(a.user_max_apps_default, Some(5));
}

#[test]
fn every_mr1_element_maps_as_derived_by_hand() {
    // sample_pool: minMaps 5, minReduces 4, maxRunningJobs 10, weight 2, fifo, 300 s; the
    // top-level fairSharePreemptionTimeout 1200 s is every pool's. other: poolMaxJobsDefault 20,
    // defaultMinSharePreemptionTimeout 600 s, defaultPoolSchedulingMode fair.
    let a = read("mr1-fair-scheduler.xml");
    let pools = a.pools(&|_| false, &[], [40.0, 20.0]);
    assert_eq!(
        pools,
        vec![
            pool(
                "sample_pool",
                2.0,
                (5.0, 4.0),
                PoolMode::Fifo,
                (Some(300.0), Some(1200.0)),
                Some(10)
            ),
            pool("other", 1.0, (0.0, 0.0), PoolMode::Fair, (Some(600.0), Some(1200.0)), Some(20)),
        ]
    );
    assert_eq!(a.users(), vec![user("sample_user", Some(6))]);
    assert_eq!(a.user_max_apps_default, Some(3));
}

#[test]
fn fill_keeps_the_snapshot_and_adds_declared_and_job_named_pools() {
    let a = read("yarn-every-element-fair-scheduler.xml");
    let mut req = snapshot(
        4,
        &[
            ("j1", "root.default", "alice"),
            ("j2", "adhoc.carol", "carol"),
            ("j3", "newq", "dave"),
            ("j4", "prod.etl", "alice"),
        ],
    );
    // The snapshot defines prod.etl itself: it stays as given.
    req.pools.push(Pool { id: PoolId("prod.etl".into()), weight: 7.0, ..Pool::default() });
    a.fill(&mut req);
    let ids: Vec<&str> = req.pools.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, ["prod.etl", "prod.reports", "root.default", "adhoc.carol", "newq"]);
    assert_eq!(req.pools[0].weight, 7.0);
    // root.default is queue default under the job's spelling.
    assert_eq!(req.pools[2].weight, 0.5);
    assert_eq!(req.pools[2].min_map_share, 8.0);
    // adhoc.carol: created under parent adhoc (weight 1, its only child), inheriting root's
    // 90 s and the default 600 s, limit queueMaxAppsDefault 15.
    assert_eq!(
        req.pools[3],
        pool("adhoc.carol", 1.0, (0.0, 0.0), PoolMode::Fair, (Some(90.0), Some(600.0)), Some(15))
    );
    assert_eq!(req.pools[4].weight, 1.0);
    let users: Vec<(&str, Option<u32>)> =
        req.users.iter().map(|u| (u.id.as_str(), u.max_running_jobs)).collect();
    assert_eq!(users, [("alice", Some(2)), ("bob", None), ("carol", None), ("dave", None)]);
    assert_eq!(req.policy.user_max_running_jobs, Some(5));
    placer_models::validate(&req).unwrap();
}

#[test]
fn fill_makes_a_snapshot_naming_file_queues_valid() {
    // Without the file the snapshot is invalid (its job names an unlisted pool); with it the
    // snapshot lists the file's pools.
    let a = read("sls-sample-fair-scheduler.xml");
    let mut req = snapshot(2, &[("j1", "sls_queue_1", "jenkins")]);
    assert!(placer_models::validate(&req).is_err());
    a.fill(&mut req);
    let answer = valid_pool_ids(&req);
    assert_eq!(answer, ["sls_queue_1", "sls_queue_2", "sls_queue_3"]);
}

/// The pool ids of a snapshot that validates.
fn valid_pool_ids(req: &PlaceRequest) -> Vec<String> {
    placer_models::validate(req).unwrap();
    req.pools.iter().map(|p| p.id.0.clone()).collect()
}

#[test]
fn a_job_naming_a_parent_queue_gets_no_pool() {
    let a = read("yarn-every-element-fair-scheduler.xml");
    let mut req = snapshot(1, &[("j1", "prod", "alice")]);
    a.fill(&mut req);
    assert!(req.pools.iter().all(|p| p.id.as_str() != "prod"));
    let err = placer_models::validate(&req).unwrap_err();
    assert_eq!(err.path(), "jobs[0].pool");
}

#[test]
fn the_snapshot_policy_user_limit_wins() {
    let a = read("sls-sample-fair-scheduler.xml");
    let mut req = snapshot(1, &[]);
    req.policy.user_max_running_jobs = Some(7);
    a.fill(&mut req);
    assert_eq!(req.policy.user_max_running_jobs, Some(7));
}

/// (element, line) of an allocation error.
fn where_(text: &str) -> (String, u32, String) {
    match parse_fair_allocations("t.xml", text).unwrap_err() {
        DatasetError::Allocations { file, line, element, message } => {
            assert_eq!(file, "t.xml");
            (element, line, message)
        }
        other => panic!("expected Allocations, got {other:?}"),
    }
}

#[test]
fn errors_name_the_element_and_its_line() {
    let cases: [(&str, &str, u32, &str); 16] = [
        ("<allocations>\n<queue name=\"a\">\n<wieght>2</wieght>\n</queue>\n</allocations>", "wieght", 3, "unknown element"),
        ("<allocations>\n<queue name=\"a\">\n<weight>heavy</weight>\n</queue>\n</allocations>", "weight", 3, "not a number"),
        ("<allocations>\n\n<queue name=\"a\"><weight>-1</weight></queue>\n</allocations>", "weight", 3, "not a number"),
        ("<allocations>\n<queue name=\"a\">\n\n<minResources>1024 mb</minResources>\n</queue>\n</allocations>", "minResources", 4, "required"),
        ("<allocations>\n<queue name=\"a\">\n<minResources>1 gb, 1 vcores</minResources>\n</queue>\n</allocations>", "minResources", 3, "expected"),
        ("<allocations>\n<queue name=\"a\">\n<schedulingPolicy>lottery</schedulingPolicy>\n</queue>\n</allocations>", "schedulingPolicy", 3, "unknown scheduling policy"),
        ("<allocations>\n<maxJobs>3</maxJobs>\n</allocations>", "maxJobs", 2, "unknown element"),
        ("<?xml version=\"1.0\"?>\n<scheduler/>", "scheduler", 2, "<allocations>"),
        ("<allocations>\n<queue name=\"a\">\n</allocations>", "xml", 3, ""),
        ("<allocations>\n<queue name=\"a.b\"/>\n</allocations>", "queue", 2, "period"),
        ("<allocations>\n<queue name=\"a\"/>\n<pool name=\"a\"/>\n</allocations>", "pool", 3, "declared twice"),
        ("<allocations>\n<queue name=\"p\">\n<schedulingPolicy>fifo</schedulingPolicy>\n<queue name=\"c\"/>\n</queue>\n</allocations>", "schedulingPolicy", 3, "leaf queues only"),
        ("<allocations>\n<queue name=\"root\"/>\n<queue name=\"x\"/>\n</allocations>", "queue", 3, "root"),
        ("<allocations>\n<user name=\"u\">\n<weight>2</weight>\n</user>\n</allocations>", "weight", 3, "unknown element"),
        ("<allocations>\n<queuePlacementPolicy>\n<rule name=\"random\"/>\n</queuePlacementPolicy>\n</allocations>", "rule", 3, "unknown placement rule"),
        ("<allocations>\n<defaultQueueSchedulingPolicy>fifo</defaultQueueSchedulingPolicy>\n</allocations>", "defaultQueueSchedulingPolicy", 2, "fifo"),
    ];
    for (text, element, line, says) in cases {
        let (e, l, message) = where_(text);
        assert_eq!((e.as_str(), l), (element, line), "{text}: {message}");
        assert!(message.contains(says), "{text}: {message}");
    }
}

#[test]
fn more_invalid_values_are_errors() {
    for (text, element) in [
        ("<allocations><queue name=\"a\"><maxRunningApps>-2</maxRunningApps></queue></allocations>", "maxRunningApps"),
        ("<allocations><queue name=\"a\"><minSharePreemptionTimeout>2.5</minSharePreemptionTimeout></queue></allocations>", "minSharePreemptionTimeout"),
        ("<allocations><queue name=\"a\"><fairSharePreemptionThreshold>1.5</fairSharePreemptionThreshold></queue></allocations>", "fairSharePreemptionThreshold"),
        ("<allocations><queue name=\"a\"><allowPreemptionFrom>maybe</allowPreemptionFrom></queue></allocations>", "allowPreemptionFrom"),
        ("<allocations><queue name=\"a\"><weight>1</weight><weight>2</weight></queue></allocations>", "weight"),
        ("<allocations><queue name=\"a\"><weight><b>1</b></weight></queue></allocations>", "weight"),
        ("<allocations><queue name=\"\"/></allocations>", "queue"),
        ("<allocations><queue name=\"a\" type=\"leafy\"/></allocations>", "queue"),
        ("<allocations><user/></allocations>", "user"),
        ("<allocations><userMaxAppsDefault>x</userMaxAppsDefault></allocations>", "userMaxAppsDefault"),
        ("<allocations><userMaxAppsDefault>1</userMaxAppsDefault><userMaxJobsDefault>2</userMaxJobsDefault></allocations>", "userMaxJobsDefault"),
        ("<allocations><queueMaxAMShareDefault>2</queueMaxAMShareDefault></allocations>", "queueMaxAMShareDefault"),
        ("<allocations><queuePlacementPolicy><rule name=\"nestedUserQueue\"/></queuePlacementPolicy></allocations>", "rule"),
    ] {
        assert_eq!(where_(text).0, element, "{text}");
    }
}

#[test]
fn the_yarn_sample_of_the_docs_parses() {
    // FairScheduler.md's example allocation file (its queue settings; comments dropped).
    let text = r#"<?xml version="1.0"?>
<allocations>
  <queue name="sample_queue">
    <minResources>10000 mb,0vcores</minResources>
    <maxResources>90000 mb,0vcores</maxResources>
    <maxRunningApps>50</maxRunningApps>
    <maxAMShare>0.1</maxAMShare>
    <weight>2.0</weight>
    <schedulingPolicy>fair</schedulingPolicy>
    <queue name="sample_sub_queue">
      <aclSubmitApps>charlie</aclSubmitApps>
      <minResources>5000 mb,0vcores</minResources>
    </queue>
    <queue name="sample_reservable_queue">
      <reservation></reservation>
    </queue>
  </queue>
  <queueMaxAMShareDefault>0.5</queueMaxAMShareDefault>
  <queueMaxResourcesDefault>40000 mb,0vcores</queueMaxResourcesDefault>
  <queue name="secondary_group_queue" type="parent">
  <weight>3.0</weight>
  <maxChildResources>4096 mb,4vcores</maxChildResources>
  </queue>
  <user name="sample_user">
    <maxRunningApps>30</maxRunningApps>
  </user>
  <userMaxAppsDefault>5</userMaxAppsDefault>
  <queuePlacementPolicy>
    <rule name="specified" />
    <rule name="primaryGroup" create="false" />
    <rule name="nestedUserQueue">
        <rule name="secondaryGroupExistingQueue" create="false" />
    </rule>
    <rule name="default" queue="sample_queue"/>
  </queuePlacementPolicy>
</allocations>"#;
    let a = parse_fair_allocations("docs.xml", text).unwrap();
    let pools = a.pools(&|_| false, &[], [0.0, 0.0]);
    // sample_queue (weight 2) splits between its two children (weight 1 each): 1 and 1;
    // 5000 MB → 4 slots; limits: the parent's 50.
    let ids: Vec<(&str, f64, f64, Option<u32>)> = pools
        .iter()
        .map(|p| (p.id.as_str(), p.weight, p.min_map_share, p.max_running_jobs))
        .collect();
    assert_eq!(
        ids,
        [
            ("sample_queue.sample_sub_queue", 1.0, 4.0, Some(50)),
            ("sample_queue.sample_reservable_queue", 1.0, 0.0, Some(50)),
        ]
    );
}
