//! The fair-sharing family on hand-derived snapshots: Hadoop's FIFO, the Fair Scheduler's order
//! (design doc §4.4), delay scheduling step by step over several /place epochs (FAIR Alg. 1),
//! IO-rate biasing (FAIR §4.3), preemption (design doc §3.3, §4.5), running-job limits (§3.4),
//! copy-compute splitting admission (FAIR §5.2), intermediate-space admission (FAIR §5.4),
//! lsap-fair-sched's costs (lsap §3.3) and the fairness distance (lsap eqs. 10–11). Every expected value is derived in the comments.

use approx::assert_relative_eq;
use placer_models::{PlaceResponse, PreemptionReason, WaitReason};
use placer_solver::delay_scheduling::DelayState;
use placer_solver::echo::reported;
use placer_solver::{place, PlaceOptions};
use placer_testkit::{Job, Map, Node, Pool, Reduce, Running, Snapshot, BLOCK};
use serde_json::json;

/// Racks r1 = {n1, n2}, r2 = {n3, n4}; `slots` map slots and 2 reduce slots per node.
fn cluster(slots: u32) -> Snapshot {
    let node = |id: &str, rack: &str| Node::new(id).rack(rack).map_slots(slots).reduce_slots(2);
    Snapshot::new()
        .rack("r1")
        .rack("r2")
        .nodes([node("n1", "r1"), node("n2", "r1"), node("n3", "r2"), node("n4", "r2")])
        .network(1000.0, 100.0)
}

fn run(s: &Snapshot) -> PlaceResponse {
    place(&s.build().expect("parses"), &PlaceOptions::default()).expect("places")
}

fn placed(r: &PlaceResponse) -> Vec<(String, String)> {
    r.assignments.iter().map(|a| (a.task.to_string(), a.node.to_string())).collect()
}

fn reason_of(r: &PlaceResponse, job: &str) -> Vec<WaitReason> {
    r.waiting.iter().filter(|w| w.job.as_str() == job).map(|w| w.reason).collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

/// Hadoop's FIFO (`JobQueueTaskScheduler`): jobs by priority, then submit time; each free slot
/// (n1 then n3; n2 and n4 are busy) goes to the head-of-line job's closest task. Job b (high)
/// is head: on n1 it launches its n1-local task b1; on n3 it still heads and launches b0.
/// Jobs c (submit 5) and a (submit 10) wait.
#[test]
fn fifo_is_hadoops_default_head_of_line_with_closest_task() {
    let s = cluster(1)
        .pool(Pool::new("p"))
        .job(Job::new("a").pool("p").submit_s(10.0))
        .job(Job::new("b").pool("p").submit_s(20.0).priority("high"))
        .job(Job::new("c").pool("p").submit_s(5.0))
        .job(Job::new("bg").pool("p"))
        .maps([
            Map::new("a0").job("a").input_bytes(BLOCK).replicas(&["n1"]),
            Map::new("b0").job("b").input_bytes(BLOCK).replicas(&["n2"]),
            Map::new("b1").job("b").input_bytes(BLOCK).replicas(&["n1"]),
            Map::new("c0").job("c").input_bytes(BLOCK).replicas(&["n3"]),
        ])
        .running(Running::map("bg1").job("bg").node("n2").started_s(0.0))
        .running(Running::map("bg2").job("bg").node("n4").started_s(0.0))
        .algorithm("fifo");
    let r = run(&s);
    assert_eq!(placed(&r), pairs(&[("b0", "n3"), ("b1", "n1")]));
    assert_eq!(reason_of(&r, "a"), [WaitReason::SlotsTaken]);
    assert_eq!(r.stats.status, placer_models::Status::Heuristic);
}

/// Design doc §4.4: a pool below its min share goes first. prod (min 2) runs 0, adhoc runs 2
/// (n1, n2 busy); free slots n3, n4. Offer n3: prod needy (0 < min(2, 5)) → prod; offer n4:
/// prod 1 < 2 still needy → prod. FIFO by submit time would give both to adhoc's job.
#[test]
fn fair_serves_pools_below_min_share_first() {
    let s = cluster(1)
        .pool(Pool::new("prod").min_map_share(2.0))
        .pool(Pool::new("adhoc"))
        .job(Job::new("ja").pool("adhoc").submit_s(1.0))
        .job(Job::new("jp").pool("prod").submit_s(2.0))
        .maps((0..5).map(|i| Map::new(&format!("p{i}")).job("jp").input_bytes(BLOCK)))
        .maps((0..5).map(|i| Map::new(&format!("a{i}")).job("ja").input_bytes(BLOCK)))
        .running(Running::map("r1").job("ja").node("n1").started_s(0.0))
        .running(Running::map("r2").job("ja").node("n2").started_s(0.0));
    let r = run(&s.clone().algorithm("fair"));
    assert_eq!(placed(&r), pairs(&[("p0", "n3"), ("p1", "n4")]));
    assert_eq!(placed(&run(&s.algorithm("fifo"))), pairs(&[("a0", "n3"), ("a1", "n4")]));
}

/// Design doc §4.4: then by running / weight. prod (w 3) runs 2 (jp on n1, n2), adhoc (w 1)
/// runs 1 (ja on n3); n1 and n2 are full (a background pool fills them), so the free slots
/// are n3 (1) and n4 (2): offers n3, n4, n4. Offer 1: 2/3 < 1/1 → prod. Offer 2: 3/3 = 1/1,
/// a tie → snapshot order → prod. Offer 3: 4/3 > 1/1 → adhoc. prod 2, adhoc 1.
#[test]
fn fair_orders_pools_by_running_over_weight() {
    let s = cluster(2)
        .pool(Pool::new("prod").weight(3.0))
        .pool(Pool::new("adhoc").weight(1.0))
        .pool(Pool::new("bgp"))
        .job(Job::new("jp").pool("prod"))
        .job(Job::new("ja").pool("adhoc"))
        .job(Job::new("bg").pool("bgp"))
        .maps((0..3).map(|i| Map::new(&format!("p{i}")).job("jp").input_bytes(BLOCK)))
        .maps((0..3).map(|i| Map::new(&format!("a{i}")).job("ja").input_bytes(BLOCK)))
        .running(Running::map("r1").job("jp").node("n1").started_s(0.0))
        .running(Running::map("r2").job("jp").node("n2").started_s(0.0))
        .running(Running::map("r3").job("ja").node("n3").started_s(0.0))
        .running(Running::map("bg1").job("bg").node("n1").started_s(0.0))
        .running(Running::map("bg2").job("bg").node("n2").started_s(0.0))
        .algorithm("fair");
    let r = run(&s);
    assert_eq!(placed(&r), pairs(&[("p0", "n3"), ("p1", "n4"), ("a0", "n4")]));
}

/// Inside a pool: `fifo` mode gives every slot to the earliest job; `fair` mode orders jobs by
/// running / 2^priority, ties by submit time. j_norm (w 1, submit 1), j_high (w 2, submit 2),
/// 3 free slots: offer 1: 0 = 0 tie → j_norm; offer 2: 1/1 vs 0/2 → j_high; offer 3: 1/1 vs
/// 1/2 → j_high. So j_norm 1, j_high 2.
#[test]
fn jobs_inside_a_pool_follow_its_mode_with_priority_weights() {
    let snapshot = |mode: &str| {
        cluster(1)
            .pool(Pool::new("p").mode(mode))
            .job(Job::new("j_norm").pool("p").submit_s(1.0))
            .job(Job::new("j_high").pool("p").submit_s(2.0).priority("high"))
            .job(Job::new("bg").pool("p"))
            .maps((0..3).map(|i| Map::new(&format!("n{i}")).job("j_norm").input_bytes(BLOCK)))
            .maps((0..3).map(|i| Map::new(&format!("h{i}")).job("j_high").input_bytes(BLOCK)))
            .running(Running::map("bg1").job("bg").node("n4").started_s(0.0))
            .algorithm("fair")
    };
    let r = run(&snapshot("fair"));
    let count = |r: &PlaceResponse, prefix: char| {
        r.assignments.iter().filter(|a| a.task.as_str().starts_with(prefix)).count()
    };
    assert_eq!((count(&r, 'n'), count(&r, 'h')), (1, 2));
    // fifo mode: priority first → all three to j_high.
    let r = run(&snapshot("fifo"));
    assert_eq!((count(&r, 'n'), count(&r, 'h')), (0, 3));
}

/// FAIR Alg. 1 replayed over five /place calls, one free map slot (on n1) per epoch, T1 = 10 s,
/// T2 = 20 s. Job A (pool pa, runs nothing) is always head of line before job B (pool pb, runs
/// the background tasks on n2–n4); B always has a task local to n1. A has a1 (replica on n2:
/// rack-local to n1) and a0 (replica on n3: off-rack).
/// 1. t = 0: A level 0, wait 0: a1 rack-local needs wait ≥ T1 → skip; B launches. A returns
///    {level 0, wait 0, skipped_at 0}.
/// 2. t = 10: wait += 10 − 0 = 10 ≥ T1 → A launches a1, level 1, wait 0.
/// 3. t = 15: only a0 (off-rack): level 1 needs wait ≥ T2 = 20 → skip → {1, 0, skipped_at 15}.
/// 4. t = 40: wait = 25 ≥ 20 → launches a0 off-rack, level 2, wait 0.
/// 5. t = 41: new a2 local to n1 → launches, level back to 0 ("more local task").
#[test]
fn delay_scheduling_reproduces_fair_alg1_step_by_step() {
    let epoch = |now: f64, a_tasks: Vec<Map>, state: Option<DelayState>, b_task: &str| {
        let mut a = Job::new("A").pool("pa");
        if let Some(s) = state {
            a = a.set("delay", serde_json::to_value(s).unwrap());
        }
        let s = cluster(1)
            .now_s(now)
            .pool(Pool::new("pa"))
            .pool(Pool::new("pb"))
            .job(a)
            .job(Job::new("B").pool("pb"))
            .maps(a_tasks)
            .map(Map::new(b_task).job("B").input_bytes(BLOCK).replicas(&["n1"]))
            .running(Running::map("b-n2").job("B").node("n2").started_s(0.0))
            .running(Running::map("b-n3").job("B").node("n3").started_s(0.0))
            .running(Running::map("b-n4").job("B").node("n4").started_s(0.0))
            .algorithm("delay")
            .policy("locality_delay_node_s", 10.0)
            .policy("locality_delay_rack_s", 20.0);
        let r = run(&s);
        let a_state =
            reported::<DelayState>(r.jobs.iter().find(|j| j.id.as_str() == "A").unwrap()).unwrap();
        (r, a_state)
    };
    let a0 = Map::new("a0").job("A").input_bytes(BLOCK).replicas(&["n3"]);
    let a1 = Map::new("a1").job("A").input_bytes(BLOCK).replicas(&["n2"]);
    let (r, s1) = epoch(0.0, vec![a1.clone(), a0.clone()], None, "b1");
    assert_eq!(placed(&r), pairs(&[("b1", "n1")]));
    assert_eq!(s1, DelayState { level: 0, wait_s: 0.0, skipped_at_s: Some(0.0) });
    assert_eq!(reason_of(&r, "A"), [WaitReason::WaitingForLocality]);

    let (r, s2) = epoch(10.0, vec![a1, a0.clone()], Some(s1), "b2");
    assert_eq!(placed(&r), pairs(&[("a1", "n1")]));
    assert_eq!(r.assignments[0].locality, placer_models::Locality::Rack);
    assert_eq!(s2, DelayState { level: 1, wait_s: 0.0, skipped_at_s: None });

    let (r, s3) = epoch(15.0, vec![a0.clone()], Some(s2), "b3");
    assert_eq!(placed(&r), pairs(&[("b3", "n1")]));
    assert_eq!(s3, DelayState { level: 1, wait_s: 0.0, skipped_at_s: Some(15.0) });

    let (r, s4) = epoch(40.0, vec![a0], Some(s3), "b4");
    assert_eq!(placed(&r), pairs(&[("a0", "n1")]));
    assert_eq!(r.assignments[0].locality, placer_models::Locality::Remote);
    assert_eq!(s4, DelayState { level: 2, wait_s: 0.0, skipped_at_s: None });

    let a2 = Map::new("a2").job("A").input_bytes(BLOCK).replicas(&["n1"]);
    let (r, s5) = epoch(41.0, vec![a2], Some(s4), "b5");
    assert_eq!(placed(&r), pairs(&[("a2", "n1")]));
    assert_eq!(s5, DelayState { level: 0, wait_s: 0.0, skipped_at_s: None });
}

/// Step 3 of the scenario above with a level-0 job: off-rack needs wait ≥ T1 + T2 = 30, so
/// at wait 29 it skips and at wait 30 it launches (level 2). Also: the default T1 = T2 =
/// 1.5 × heartbeat (design doc §4.8): heartbeat 4 s → 6 s each, 12 s in total.
#[test]
fn delay_off_rack_after_t1_plus_t2_and_default_waits() {
    let waited = |wait: f64| {
        cluster(1)
            .now_s(100.0)
            .pool(Pool::new("pa"))
            .pool(Pool::new("pb"))
            .job(Job::new("A").pool("pa").set("delay", json!({"level": 0, "wait_s": wait})))
            .job(Job::new("B").pool("pb"))
            .map(Map::new("a0").job("A").input_bytes(BLOCK).replicas(&["n3"]))
            .running(Running::map("x2").job("B").node("n2").started_s(0.0))
            .running(Running::map("x3").job("B").node("n3").started_s(0.0))
            .running(Running::map("x4").job("B").node("n4").started_s(0.0))
            .algorithm("delay")
    };
    let explicit =
        |s: Snapshot| s.policy("locality_delay_node_s", 10.0).policy("locality_delay_rack_s", 20.0);
    assert!(run(&explicit(waited(29.0))).assignments.is_empty());
    assert_eq!(placed(&run(&explicit(waited(30.0)))), pairs(&[("a0", "n1")]));
    let defaults = |s: Snapshot| s.policy("heartbeat_s", 4.0);
    assert!(run(&defaults(waited(11.9))).assignments.is_empty());
    assert_eq!(placed(&run(&defaults(waited(12.0)))), pairs(&[("a0", "n1")]));
}

/// IO-rate biasing (FAIR §4.3): the CPU-bound job's own T1 = 0 lets it launch a rack-local map
/// at once, while the IO-bound head-of-line job (default T1 = 4.5 s) is skipped. Both jobs'
/// only maps are rack-local to the free slot on n1 (replicas on n2).
#[test]
fn io_rate_biasing_uses_per_job_waits() {
    let s = cluster(1)
        .pool(Pool::new("p"))
        .job(Job::new("io").pool("p").submit_s(1.0))
        .job(Job::new("cpu").pool("p").submit_s(2.0).locality_delay_node_s(0.0))
        .job(Job::new("bg").pool("p"))
        .map(Map::new("io0").job("io").input_bytes(BLOCK).replicas(&["n2"]))
        .map(Map::new("cpu0").job("cpu").input_bytes(BLOCK).replicas(&["n2"]))
        .running(Running::map("x2").job("bg").node("n2").started_s(0.0))
        .running(Running::map("x3").job("bg").node("n3").started_s(0.0))
        .running(Running::map("x4").job("bg").node("n4").started_s(0.0))
        .algorithm("delay");
    let r = run(&s);
    assert_eq!(placed(&r), pairs(&[("cpu0", "n1")]));
    let io =
        reported::<DelayState>(r.jobs.iter().find(|j| j.id.as_str() == "io").unwrap()).unwrap();
    assert_eq!(io.skipped_at_s, Some(0.0));
}

/// A pool starved past its min-share timeout skips the delay (FAIR §3.2 + §4.2): pool pa has
/// min share 1, timeout 5 s and was last at its min share at t = 0; at t = 10 it is starved,
/// so A launches its off-rack map at level 0 without waiting.
#[test]
fn starved_pools_skip_the_locality_wait() {
    let s = cluster(1)
        .pool(
            Pool::new("pa")
                .min_map_share(1.0)
                .min_share_timeout_s(5.0)
                .set("starvation", json!({"map": {"at_min_share_s": 0.0}})),
        )
        .pool(Pool::new("pb"))
        .job(Job::new("A").pool("pa"))
        .job(Job::new("B").pool("pb"))
        .map(Map::new("a0").job("A").input_bytes(BLOCK).replicas(&["n3"]))
        .running(Running::map("x2").job("B").node("n2").started_s(0.0))
        .running(Running::map("x3").job("B").node("n3").started_s(0.0))
        .running(Running::map("x4").job("B").node("n4").started_s(0.0))
        .algorithm("delay");
    assert_eq!(placed(&run(&s.clone().now_s(10.0))), pairs(&[("a0", "n1")]));
    // Not starved yet at t = 5 (5 − 0 is not more than 5): A waits.
    assert!(run(&s.now_s(5.0)).assignments.is_empty());
}

/// Min-share preemption (design doc §3.3): 4 map slots, all held by adhoc's tasks started at
/// t = 1, 2, 3, 4. prod has min share 2, demand 2, timeout 10 s, last at its min share t = 0;
/// now t = 30. Fair shares (capacity 4): prod max(r, 2) capped by demand 2, adhoc r → r = 2:
/// (2, 2). prod runs 0 < 2 for 30 s > 10 s → preempt ⌈2 − 0⌉ = 2 tasks, the most recent of
/// the over-scheduled adhoc (4 > 2): started 4 then 3; adhoc keeps 2 = its fair share.
#[test]
fn min_share_preemption_kills_most_recent_tasks_of_over_scheduled_pools() {
    let starvation = json!({"map": {"at_min_share_s": 0.0, "at_half_fair_share_s": 0.0}});
    let s = cluster(1)
        .pool(
            Pool::new("prod")
                .min_map_share(2.0)
                .min_share_timeout_s(10.0)
                .set("starvation", starvation),
        )
        .pool(Pool::new("adhoc"))
        .job(Job::new("jp").pool("prod"))
        .job(Job::new("ja").pool("adhoc"))
        .maps([
            Map::new("p0").job("jp").input_bytes(BLOCK),
            Map::new("p1").job("jp").input_bytes(BLOCK),
        ])
        .running(Running::map("a1").job("ja").node("n1").started_s(1.0))
        .running(Running::map("a2").job("ja").node("n2").started_s(2.0))
        .running(Running::map("a3").job("ja").node("n3").started_s(3.0))
        .running(Running::map("a4").job("ja").node("n4").started_s(4.0))
        .now_s(30.0);
    let r = run(&s.clone().algorithm("fair"));
    let kills: Vec<_> = r
        .preemptions
        .iter()
        .map(|p| (p.task.as_str(), p.node.as_str(), p.reason, p.for_pool.as_str()))
        .collect();
    assert_eq!(
        kills,
        [
            ("a4", "n4", PreemptionReason::MinShare, "prod"),
            ("a3", "n3", PreemptionReason::MinShare, "prod")
        ]
    );
    assert_eq!(r.stats.preempted, 2);
    let adhoc = &r.pools[1];
    assert_eq!(
        (adhoc.running.map, adhoc.running_after.map, adhoc.fair_share.unwrap().map),
        (4.0, 2.0, 2.0)
    );
    // prod is still below its min share: its clock stays at 0; adhoc's moves to now.
    assert_eq!(r.pools[0].starvation.map.at_min_share_s, Some(0.0));
    assert_eq!(r.pools[1].starvation.map.at_min_share_s, Some(30.0));
    // The locality-only policies never preempt.
    assert!(run(&s.clone().algorithm("lsap")).preemptions.is_empty());
    // Before the timeout (t = 10: 10 − 0 is not > 10) nothing is preempted.
    assert!(run(&s.algorithm("fair").now_s(10.0)).preemptions.is_empty());
}

/// Fair-share preemption: prod (no min share) is below half its fair share for longer than
/// its fair-share timeout, and preempts up to the whole fair share, never taking a pool below
/// its own. 10 single-slot nodes, all busy: adhoc1 runs 5 (started 1 … 5), adhoc2 runs 5
/// (started 1.5 … 5.5); prod has 3 pending. Water-filling, equal weights: 3 + 2r = 10 →
/// r = 3.5: shares (3, 3.5, 3.5). prod runs 0 < 3/2 for 100 s > 60 s → wants ⌈3 − 0⌉ = 3.
/// Victims, latest first: a2-5 (5.5) and a1-5 (5) bring both pools to 4 ≥ 3.5; the next
/// (a2-4) would leave adhoc2 at 3 < 3.5, and so would every later one: only 2 are preempted.
#[test]
fn fair_share_preemption_never_takes_a_pool_below_its_fair_share() {
    let mut s = Snapshot::new()
        .rack("r1")
        .nodes((1..=10).map(|i| Node::new(&format!("n{i}")).rack("r1").map_slots(1)))
        .pool(
            Pool::new("prod")
                .fair_share_timeout_s(60.0)
                .set("starvation", json!({"map": {"at_half_fair_share_s": 0.0}})),
        )
        .pool(Pool::new("adhoc1"))
        .pool(Pool::new("adhoc2"))
        .job(Job::new("jp").pool("prod"))
        .job(Job::new("j1").pool("adhoc1"))
        .job(Job::new("j2").pool("adhoc2"))
        .maps((0..3).map(|i| Map::new(&format!("p{i}")).job("jp").input_bytes(BLOCK)))
        .algorithm("delay")
        .now_s(100.0);
    for k in 1..=5 {
        let (a1, a2) = (format!("a1-{k}"), format!("a2-{k}"));
        s = s
            .running(Running::map(&a1).job("j1").node(&format!("n{k}")).started_s(k as f64))
            .running(
                Running::map(&a2).job("j2").node(&format!("n{}", k + 5)).started_s(k as f64 + 0.5),
            );
    }
    let r = run(&s);
    assert!(r.assignments.is_empty(), "no free slot");
    assert_relative_eq!(r.pools[1].fair_share.unwrap().map, 3.5);
    let kills: Vec<_> = r.preemptions.iter().map(|p| (p.task.as_str(), p.reason)).collect();
    assert_eq!(
        kills,
        [("a2-5", PreemptionReason::FairShare), ("a1-5", PreemptionReason::FairShare)]
    );
    let after: Vec<f64> = r.pools.iter().map(|p| p.running_after.map).collect();
    assert_eq!(after, [0.0, 4.0, 4.0]);
}

/// Running-job limits (design doc §3.4): pool limit 1 → of two active jobs the earlier
/// submitted runs; a higher priority wins over submit time. The job beyond the limit reports
/// runnable = false, demand = running only, and waits with `job_limit` — under every policy.
#[test]
fn running_job_limits_pick_by_priority_then_submit_time() {
    let snapshot = |new: Job| {
        cluster(1)
            .pool(Pool::new("p").max_running_jobs(1))
            .job(Job::new("old").pool("p").submit_s(1.0))
            .job(new)
            .map(Map::new("o0").job("old").input_bytes(BLOCK).replicas(&["n1"]))
            .map(Map::new("n0").job("new").input_bytes(BLOCK).replicas(&["n2"]))
    };
    let new = Job::new("new").pool("p").submit_s(2.0);
    for algorithm in ["fifo", "fair", "delay", "dl_sched", "lsap", "lsap_fair"] {
        let r = run(&snapshot(new.clone()).algorithm(algorithm));
        assert_eq!(placed(&r), pairs(&[("o0", "n1")]), "{algorithm}");
        assert_eq!(reason_of(&r, "new"), [WaitReason::JobLimit], "{algorithm}");
        let new = &r.jobs[1];
        assert!(!new.runnable);
        assert_eq!((new.demand.map, new.fair_share.unwrap().map), (0.0, 0.0));
    }
    let r = run(&snapshot(new.priority("very_high")).algorithm("lsap_fair"));
    assert_eq!(placed(&r), pairs(&[("n0", "n2")]));
}

/// Per-user limits: alice may run 1 job (listed), everyone else 2 (`policy`). alice's second
/// job waits even though it is in another pool; bob's two jobs both run.
#[test]
fn per_user_running_job_limits() {
    let s = cluster(2)
        .pool(Pool::new("p"))
        .pool(Pool::new("q"))
        .job(Job::new("a1").pool("p").user("alice").submit_s(1.0))
        .job(Job::new("a2").pool("q").user("alice").submit_s(2.0))
        .job(Job::new("b1").pool("p").user("bob").submit_s(3.0))
        .job(Job::new("b2").pool("q").user("bob").submit_s(4.0))
        .job(Job::new("b3").pool("q").user("bob").submit_s(5.0))
        .maps(
            ["a1", "a2", "b1", "b2", "b3"]
                .map(|j| Map::new(&format!("{j}-0")).job(j).input_bytes(BLOCK)),
        )
        .algorithm("fifo")
        .policy("user_max_running_jobs", 2)
        .user("alice", 1);
    let r = run(&s);
    let runnable: Vec<bool> = r.jobs.iter().map(|j| j.runnable).collect();
    assert_eq!(runnable, [true, false, true, true, false]);
    assert_eq!(r.assignments.len(), 3);
}

/// Copy-compute splitting admission (FAIR §5.2): n1 has 2 compute slots, max_reducers 6,
/// max_computing 2 (the paper's dual-core example). Job big already runs 2 copy-phase
/// reducers on n1 → free reducer slots 6 − 2 = 4, but big's copy room there is 2 − 2 = 0;
/// job small's reducer takes a slot; big's wait with `reducer_limit` (greedy) — and every
/// policy respects the cap. Once big's reducers compute, it may start 2 more copies.
#[test]
fn cpac_caps_copy_phase_reducers_per_job_and_node() {
    let snapshot = |b0: Running, b1: Running| {
        let reduce = |id: &str, job: &str| Reduce::new(id).job(job).shuffle("n1", 1000);
        Snapshot::new()
            .rack("r")
            .node(
                Node::new("n1")
                    .rack("r")
                    .map_slots(0)
                    .reduce_slots(2)
                    .max_reducers(6)
                    .max_computing(2),
            )
            .pool(Pool::new("p"))
            .job(Job::new("big").pool("p").submit_s(1.0))
            .job(Job::new("small").pool("p").submit_s(2.0))
            .reduce(reduce("b2", "big"))
            .reduce(reduce("b3", "big"))
            .reduce(reduce("b4", "big"))
            .reduce(reduce("s0", "small"))
            .running(b0)
            .running(b1)
    };
    let b0 = Running::reduce("b0").job("big").node("n1");
    let b1 = Running::reduce("b1").job("big").node("n1");
    let copying = snapshot(b0.clone(), b1.clone().phase("copy"));
    for algorithm in ["fifo", "fair", "delay", "dl_sched", "lsap", "lsap_fair"] {
        let r = run(&copying.clone().algorithm(algorithm));
        assert_eq!(r.stats.free_reduce_slots, 4);
        assert_eq!(placed(&r), pairs(&[("s0", "n1")]), "{algorithm}");
        if ["fifo", "fair", "delay"].contains(&algorithm) {
            assert_eq!(reason_of(&r, "big"), [WaitReason::ReducerLimit], "{algorithm}");
        }
    }
    let computing = snapshot(b0.phase("compute"), b1.phase("compute"));
    for algorithm in ["fifo", "lsap"] {
        let r = run(&computing.clone().algorithm(algorithm));
        assert_eq!(r.assignments.len(), 3, "{algorithm}: 2 of big + small");
    }
}

/// Every algorithm on every engine it accepts, as (algorithm, solver) wire names.
fn every_policy_and_engine() -> Vec<(&'static str, &'static str)> {
    placer_solver::registry::REGISTRY
        .iter()
        .flat_map(|(_, p)| p.engines().iter().map(|e| (p.name(), e.name())))
        .collect()
}

/// Intermediate-space admission (FAIR §5.4, "the node will refuse to admit tasks that are
/// expected to overflow its disk"), a node with room for one of two map outputs. Rack r1 =
/// {n1, n2}, 2 map slots each; n1 has 100 MB free for map outputs, n2 no `disk` (unlimited).
/// Maps m0 and m1 read a block on n1 and will write 80 MB each: either fits n1 (80 ≤ 100),
/// both do not (160 > 100).
/// - fifo, fair, dl_sched: n1 is offered first and takes m0 (node-local), leaving 20 MB; n2
///   takes m1 rack-local (1.074 s: 128 MiB at 1,000 Mbit/s); n1's second slot is never used.
/// - delay: m1 is only rack-local on n2, and the job is at level 0 with no wait: skipped
///   (`waiting_for_locality`, not `disk`: n2 has room for it); n1 can no longer hold it.
/// - lsap, lsap_fair, lsap_quota on every engine: both maps are admitted on n1 one by one, so
///   the exact optimum puts both there at cost 0; the answer keeps m0 and moves m1 to the
///   cheapest node with a free slot and room, n2 (1.074 s), and says `heuristic`.
/// - ras and lsap_ras keep the disk in their own counts (m0 on n1, m1 on n2), `heuristic`
///   under `auto`; under `mip`, whose model has the disk rows, both maps placed with at most
///   one on n1 (any such placement is optimal for RAS's locality-blind objectives), `optimal`.
#[test]
fn disk_admits_one_of_two_map_outputs_the_other_goes_elsewhere() {
    let mb = 1_000_000u64;
    let s = Snapshot::new()
        .rack("r1")
        .node(Node::new("n1").rack("r1").map_slots(2).set("resources", json!({"disk": 100 * mb})))
        .node(Node::new("n2").rack("r1").map_slots(2))
        .network(1000.0, 100.0)
        .pool(Pool::new("p"))
        .job(Job::new("j").pool("p"))
        .maps(["m0", "m1"].map(|id| {
            Map::new(id).job("j").input_bytes(BLOCK).replicas(&["n1"]).set("output_bytes", 80 * mb)
        }));
    let rack_local = BLOCK as f64 * 8.0 / 1e9;
    for (algorithm, solver) in every_policy_and_engine() {
        let r = run(&s.clone().algorithm(algorithm).solver(solver));
        let at = format!("{algorithm}/{solver}");
        if algorithm == "delay" {
            assert_eq!(placed(&r), pairs(&[("m0", "n1")]), "{at}");
            assert_eq!(reason_of(&r, "j"), [WaitReason::WaitingForLocality], "{at}");
            continue;
        }
        if solver == "mip" {
            // The MIP's model holds the disk rows itself: an optimum that needs no repair. Its
            // objectives (RAS's utilities, then packing) are blind to locality, so either
            // placement of the two maps that n1's disk admits is optimal.
            let on_n1 = r.assignments.iter().filter(|a| a.node.as_str() == "n1").count();
            assert_eq!((r.stats.assigned, on_n1 <= 1), (2, true), "{at}");
            assert_eq!(r.stats.status, placer_models::Status::Optimal, "{at}");
            continue;
        }
        assert_eq!(placed(&r), pairs(&[("m0", "n1"), ("m1", "n2")]), "{at}");
        assert_relative_eq!(r.stats.objective, rack_local, max_relative = 1e-9);
        // Every answer here is heuristic: a greedy policy's, or an exact one the disk pass
        // changed.
        assert_eq!(r.stats.status, placer_models::Status::Heuristic, "{at}");
    }
}

/// FAIR §5.4 when no other node has room: as above, but n2 has 1 map slot and no space left
/// (`disk` 0), and a third map m2 will write 150 MB, more than any node has. Every algorithm on
/// every engine places m0 on n1 (node-local); m1 cannot join it (160 MB > 100) nor go to n2
/// (80 > 0); m2 fits nowhere (150 > 100). Slots stay free on n1 and n2, so both wait with
/// reason `disk`.
#[test]
fn disk_full_everywhere_leaves_maps_waiting_for_disk() {
    let mb = 1_000_000u64;
    let map = |id: &str, out: u64| {
        Map::new(id).job("j").input_bytes(BLOCK).replicas(&["n1"]).set("output_bytes", out * mb)
    };
    let s = Snapshot::new()
        .rack("r1")
        .node(Node::new("n1").rack("r1").map_slots(2).set("resources", json!({"disk": 100 * mb})))
        .node(Node::new("n2").rack("r1").map_slots(1).set("resources", json!({"disk": 0})))
        .network(1000.0, 100.0)
        .pool(Pool::new("p"))
        .job(Job::new("j").pool("p"))
        .maps([map("m0", 80), map("m1", 80), map("m2", 150)]);
    for (algorithm, solver) in every_policy_and_engine() {
        let req = s.clone().algorithm(algorithm).solver(solver).build().unwrap();
        let at = format!("{algorithm}/{solver}");
        let r = place(&req, &PlaceOptions { explain: true, ..PlaceOptions::default() }).unwrap();
        assert_eq!(placed(&r), pairs(&[("m0", "n1")]), "{at}");
        let waiting: Vec<(&str, WaitReason)> = r
            .waiting
            .iter()
            .map(|w| (w.task.as_ref().map_or("", |t| t.as_str()), w.reason))
            .collect();
        assert_eq!(waiting, [("m1", WaitReason::Disk), ("m2", WaitReason::Disk)], "{at}");
        assert_eq!(serde_json::to_value(r.waiting[0].reason).unwrap(), json!("disk"));
    }
}

/// lsap-fair-sched's fairness cost (lsap §3.3), by hand: 8 nodes × 1 map slot (AS = 8); pool A (weight 1) runs 4, pool B (weight 3) runs 0; free:
/// the 4 nodes A does not occupy. w = (¼, ¾). sto_A = max(0, ⌊2⌋ − 4) = 0; sto_B =
/// min(4, ⌊6⌋ − 0) = 4; GFC_B = β · 0/6 · ¼ = 0; A's tasks cost β · (1 − ¼) = 7.5 (β = 10).
/// A's 4 tasks are node-local on the free nodes, B's are remote (10.74 s each at α = 1).
/// - lsap: locality only → A's 4 local tasks; A runs 8, B 0: D = (|1 − ¼|/¼ + |0 − ¾|/¾)/2 = 2.
/// - lsap_fair, α = 0.001: FC dominates → B's 4 tasks; A 4, B 4: D = (1 + ⅓)/2 = ⅔.
/// - lsap_fair, α = 1: B costs 0 + 10.74 > A's 7.5 + 0 → A's tasks: D = 2 (locality wins).
#[test]
fn lsap_fair_trades_locality_for_fairness_with_alpha() {
    let s = Snapshot::new()
        .rack("r1")
        .rack("r2")
        .nodes((1..=8).map(|i| {
            Node::new(&format!("n{i}")).rack(if i <= 4 { "r1" } else { "r2" }).map_slots(1)
        }))
        .pool(Pool::new("A").weight(1.0))
        .pool(Pool::new("B").weight(3.0))
        .job(Job::new("ja").pool("A"))
        .job(Job::new("jb").pool("B"))
        .maps((0..4).map(|i| {
            Map::new(&format!("a{i}"))
                .job("ja")
                .input_bytes(BLOCK)
                .replicas(&[&format!("n{}", i + 5)])
        }))
        .maps(
            (0..4)
                .map(|i| Map::new(&format!("b{i}")).job("jb").input_bytes(BLOCK).replicas(&["n1"])),
        )
        .running(Running::map("x1").job("ja").node("n1").started_s(0.0))
        .running(Running::map("x2").job("ja").node("n2").started_s(0.0))
        .running(Running::map("x3").job("ja").node("n3").started_s(0.0))
        .running(Running::map("x4").job("ja").node("n4").started_s(0.0));
    let a_placed = |r: &PlaceResponse| {
        r.assignments.iter().filter(|a| a.task.as_str().starts_with('a')).count()
    };
    let r = run(&s.clone().algorithm("lsap"));
    assert_eq!(a_placed(&r), 4);
    assert_relative_eq!(r.stats.fairness_distance, 2.0, epsilon = 1e-12);

    let lsap_fair = s.algorithm("lsap_fair").policy("beta", 10.0);
    let r = run(&lsap_fair.clone().policy("alpha", 0.001));
    assert_eq!(a_placed(&r), 0);
    assert_relative_eq!(r.stats.fairness_distance, 2.0 / 3.0, epsilon = 1e-12);
    for a in &r.assignments {
        assert_eq!(a.cost.fairness, 0.0, "B is within its quota: GFC_B = 0");
    }

    let r = run(&lsap_fair.policy("alpha", 1.0));
    assert_eq!(a_placed(&r), 4);
    for a in &r.assignments {
        assert_relative_eq!(a.cost.fairness, 7.5, epsilon = 1e-12);
        assert!((0.0..=10.0).contains(&a.cost.fairness));
    }
    assert_relative_eq!(r.stats.objective, 4.0 * 7.5, epsilon = 1e-9);
}

/// sto and the within/beyond split (lsap Algorithm lines 13–27): pool B alone (w = 1 → every
/// FC 0) is not informative, so two pools: A (w 1) runs 0 with 8 pending, B (w 1) runs 0.
/// AS = 8, w = ½ each: sto_A = min(8, 4 − 0) = 4; GFC_A = β · 0 · ½ = 0; beyond = β · ½ = 5.
/// The 4 tasks with a replica on a free node come first (data-local candidates), then the
/// rest in snapshot order.
#[test]
fn lsap_fair_sto_gives_gfc_to_data_local_candidates_first() {
    use placer_solver::policy::fairness_costs;
    use placer_solver::Indexed;
    let s = Snapshot::new()
        .rack("r1")
        .nodes((1..=8).map(|i| Node::new(&format!("n{i}")).rack("r1").map_slots(1)))
        .pool(Pool::new("A"))
        .pool(Pool::new("B"))
        .job(Job::new("ja").pool("A"))
        .job(Job::new("jb").pool("B"))
        .maps((0..8).map(|i| {
            // Odd tasks have their replica on n8, which is busy: not data-local candidates.
            let replica = if i % 2 == 1 { "n8".to_owned() } else { format!("n{}", i + 1) };
            Map::new(&format!("a{i}")).job("ja").input_bytes(BLOCK).replicas(&[&replica])
        }))
        .running(Running::map("busy").job("jb").node("n8").started_s(0.0))
        .algorithm("lsap_fair")
        .policy("beta", 10.0);
    let req = s.build().unwrap();
    let ix = Indexed::new(&req);
    let (fc, quotas) = fairness_costs(&ix);
    // B runs 1 of AS = 8: sto_B = 0 (no pending); A: sto = min(8, ⌊4⌋ − 0) = 4.
    assert_eq!(quotas[0][0].sto, 4);
    assert_relative_eq!(quotas[0][0].beyond, 5.0);
    assert_relative_eq!(quotas[1 - 1][1].gfc, 10.0 * (1.0 / 4.0) * 0.5);
    // Candidates a0, a2, a4, a6 (replicas on free n1, n3, n5, n7) get GFC 0; the rest 5.
    assert_eq!(fc, [0.0, 5.0, 0.0, 5.0, 0.0, 5.0, 0.0, 5.0]);
    assert!(quotas[0][0].gfc < quotas[0][0].beyond, "within quota is cheaper than beyond");
}

/// Ageing (lsap §3.3, last paragraph): one free slot (n1); a fresh node-local map and an old
/// off-rack one of the same single pool (w = 1, so FC = 0). Credit = β · wait / aging_s =
/// 10 · 1000 / 100 = 100 > the old task's 10.74 s transfer: the old task takes the slot. With
/// no wait it would lose to the local one.
#[test]
fn lsap_fair_ages_long_waiting_tasks() {
    let snapshot = |old_pending_since_s: f64| {
        cluster(1)
            .now_s(1000.0)
            .pool(Pool::new("p"))
            .job(Job::new("j").pool("p"))
            .map(
                Map::new("old")
                    .job("j")
                    .input_bytes(BLOCK)
                    .replicas(&["n3"])
                    .pending_since_s(old_pending_since_s),
            )
            .map(
                Map::new("fresh")
                    .job("j")
                    .input_bytes(BLOCK)
                    .replicas(&["n1"])
                    .pending_since_s(1000.0),
            )
            .running(Running::map("x2").job("j").node("n2").started_s(0.0))
            .running(Running::map("x3").job("j").node("n3").started_s(0.0))
            .running(Running::map("x4").job("j").node("n4").started_s(0.0))
            .algorithm("lsap_fair")
            .policy("beta", 10.0)
            .policy("aging_s", 100.0)
    };
    let r = run(&snapshot(0.0));
    assert_eq!(placed(&r), pairs(&[("old", "n1")]));
    assert_relative_eq!(r.assignments[0].cost.aging, 100.0);
    assert_relative_eq!(
        r.assignments[0].cost.total,
        BLOCK as f64 * 8e-6 / 100.0 - 100.0,
        epsilon = 1e-9
    );
    assert_eq!(placed(&run(&snapshot(1000.0))), pairs(&[("fresh", "n1")]));
}
