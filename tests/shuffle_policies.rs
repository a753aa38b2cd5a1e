//! `lsap_shuffle` on hand-derived snapshots (ShuffleWatcher, Ahmad et al. §3, as prices): a map
//! follows its job's reduces when reads tie (SAMP's intent, Fig. 5), a saturated uplink gives
//! the last reduce slot to the light job and an idle one to the heavy job (NASS, Fig. 3), a
//! price rather than an order, SARP's counts spread reduces 9 : 1 (Fig. 7), pools keep
//! `lsap_quota`'s hard counts, SAMP's decision is returned and an echoed one followed, and the
//! exact answer beats NASS's greedy heartbeat (lsap-sched Fig. 1). Every expected value is
//! derived in the comments: bandwidths 1,000 Mbit/s in a rack, 100 across, so a byte costs
//! X_in = 8 ns inside a rack and X_x = 80 ns across (α = 1).

use approx::assert_relative_eq;
use placer_models::{PlaceRequest, PlaceResponse};
use placer_solver::shuffle::cost::ShufflePricing;
use placer_solver::shuffle::ShuffleView;
use placer_solver::Indexed;
use placer_solver::{place, PlaceOptions};
use placer_testkit::{Job, Map, Node, Pool, Reduce, Running, Snapshot, BLOCK};
use serde_json::json;

const MB: u64 = 1_000_000;
const X_IN: f64 = 8e-9;
const X_X: f64 = 8e-8;

fn racks() -> Snapshot {
    Snapshot::new().rack("r1").rack("r2").network(1000.0, 100.0)
}

fn answer(req: &PlaceRequest) -> PlaceResponse {
    place(req, &PlaceOptions::default()).expect("places")
}

fn run(s: &Snapshot) -> PlaceResponse {
    answer(&s.build().expect("parses"))
}

fn node_of<'r>(r: &'r PlaceResponse, task: &str) -> Option<&'r str> {
    r.assignments.iter().find(|a| a.task.as_str() == task).map(|a| a.node.as_str())
}

/// Fig. 5's point for one map. Rack r1 = {a1, a2}, r2 = {b1, b2}; the map (128 MiB) has
/// replicas on a1 and b1, whose map slots are busy (0 slots); a2 and b2 have one free map slot
/// each, so the map reads rack-locally either way: DLC = 134,217,728 · X_in = 1.074 s on both,
/// a tie for lsap-sched. Half the job's maps are done (above MapCompletionThreshold 0.15), and
/// its one reduce pulls from a node of `reduce_rack`, so SARP puts all of it there: ρ = 1 on
/// that rack. The map's 128 MiB of expected output (ratio 1) then costs 1.074 s more on the
/// reduce's rack and 10.737 s more on the other: 2.147 s against 11.811 s. The map goes to
/// the reduce's rack, in both mirror images, while lsap_quota's locality cost is the same.
#[test]
fn sw_fig5_map_runs_on_the_rack_of_its_reduces_when_reads_tie() {
    let snapshot = |source: &str| {
        racks()
            .node(Node::new("a1").rack("r1").reduce_slots(1))
            .node(Node::new("a2").rack("r1").map_slots(1))
            .node(Node::new("b1").rack("r2").reduce_slots(1))
            .node(Node::new("b2").rack("r2").map_slots(1))
            .pool(Pool::new("p"))
            .job(Job::new("j").pool("p").set("maps_total", 10).set("maps_done", 5))
            .map(Map::new("m").job("j").input_bytes(BLOCK).replicas(&["a1", "b1"]))
            .reduce(Reduce::new("r").job("j").shuffle(source, 50 * MB))
            .algorithm("lsap_shuffle")
    };
    for (source, rack_node) in [("b1", "b2"), ("a1", "a2")] {
        let s = snapshot(source);
        let req = s.build().unwrap();
        let ix = Indexed::new(&req);
        let pricing = ShufflePricing::new(&ix, &ShuffleView::new(&ix)).unwrap();
        let (near, far) = if rack_node == "b2" { (3, 1) } else { (1, 3) };
        let block = BLOCK as f64;
        assert_relative_eq!(pricing.model.cost(0, near), 2.0 * block * X_IN, max_relative = 1e-12);
        assert_relative_eq!(
            pricing.model.cost(0, far),
            block * X_IN + block * X_X,
            max_relative = 1e-12
        );
        let r = answer(&req);
        assert_eq!(node_of(&r, "m"), Some(rack_node), "reduces near {source}");
        assert_eq!(node_of(&r, "r"), Some(source), "the reduce goes to its data");
        let quota = run(&s.algorithm("lsap_quota"));
        let m_cost = |r: &PlaceResponse| {
            r.assignments.iter().find(|a| a.task.as_str() == "m").map(|a| a.cost.locality)
        };
        assert_relative_eq!(m_cost(&quota).unwrap(), block * X_IN, max_relative = 1e-12);
        assert_relative_eq!(m_cost(&r).unwrap(), block * X_IN, max_relative = 1e-12);
    }
}

/// Fig. 3's two reduce orders as one price. One free reduce slot, on n (rack r1, uplink 500
/// Mbit/s); two jobs of one user, all maps done (no shuffle to come), SARP off (§5.3's
/// ablation: only the network decides). Heavy (ratio 1.5) pulls 400 MB from s (rack r2), light
/// (ratio 0.01) 20 MB from s. A reduce earns its bytes at X_x × 1.125 (the premium) and pays
/// them at X_x × m(r1):
/// - r1 at 100 Mbit/s (u = 0.2, m = 1): heavy 400 MB · 80 ns · (1 − 1.125) = −4 s, light
///   20 MB · 80 ns · (1 − 1.125) = −0.2 s: the heavy reduce (Fig. 3 line 13);
/// - r1 at 450 Mbit/s (u = 0.9 > θ = 0.8, m = 1 + 8 · 0.1 / 0.8 = 2): heavy 32 · (2 − 1.125)
///   = 28 s, light 1.6 · 0.875 = 1.4 s: the light reduce (line 7), as NASS;
/// - saturated, but the heavy job's 400 MB lie on n itself: 0 − 36 = −36 s against 1.4 s, so
///   the heavy reduce, which moves no byte across the busy uplink. NASS's fixed order still
///   picks the light one and sends 20 MB through the saturated uplink.
#[test]
fn sw_fig3_saturation_gives_the_last_reduce_slot_to_the_light_reduce() {
    let snapshot = |traffic: f64, heavy_source: &str| {
        let mut req = racks()
            .node(Node::new("n").rack("r1").reduce_slots(1))
            .node(Node::new("s").rack("r2"))
            .pool(Pool::new("p"))
            .job(
                Job::new("heavy")
                    .pool("p")
                    .user("u")
                    .submit_s(1.0)
                    .set("shuffle_input_ratio", 1.5)
                    .set("maps_total", 4)
                    .set("maps_done", 4),
            )
            .job(
                Job::new("light")
                    .pool("p")
                    .user("u")
                    .submit_s(2.0)
                    .set("shuffle_input_ratio", 0.01)
                    .set("maps_total", 4)
                    .set("maps_done", 4),
            )
            .reduce(Reduce::new("h-r").job("heavy").shuffle(heavy_source, 400 * MB))
            .reduce(Reduce::new("l-r").job("light").shuffle("s", 20 * MB))
            .algorithm("lsap_shuffle")
            .policy("shuffle_watcher", json!({"sarp": false}))
            .build()
            .unwrap();
        req.cluster.racks[0].uplink_mbps = Some(500.0);
        req.cluster.racks[0].cross_rack_traffic_mbps = Some(traffic);
        req
    };
    let winner = |req: &PlaceRequest| {
        let r = answer(req);
        assert_eq!(r.assignments.len(), 1);
        r.assignments[0].task.to_string()
    };
    let idle = snapshot(100.0, "s");
    let busy = snapshot(450.0, "s");
    assert_eq!(winner(&idle), "h-r");
    assert_eq!(winner(&busy), "l-r");
    let ix = Indexed::new(&busy);
    let pricing = ShufflePricing::new(&ix, &ShuffleView::new(&ix)).unwrap();
    assert_relative_eq!(pricing.saturation[0], 2.0, max_relative = 1e-12);
    let net = |t: usize| pricing.model.cost(t, 0) + pricing.offsets[t];
    assert_relative_eq!(net(0), 28.0, max_relative = 1e-9);
    assert_relative_eq!(net(1), 1.4, max_relative = 1e-9);

    let local = snapshot(450.0, "n");
    assert_eq!(winner(&local), "h-r");
    let mut sw = local.clone();
    sw.policy.algorithm = placer_solver::registry::by_name("shuffle_watcher").unwrap().0;
    assert_eq!(winner(&sw), "l-r", "NASS's order ignores where the bytes are");
}

/// Fig. 7: a job's 100 MB of intermediate data lie 90 MB on r1 (node a0) and 10 MB on r2
/// (node b0); each of its 10 reduces pulls 9 MB from a0 and 1 MB from b0, and all maps are
/// done. SARP's targets are 10 · 90/100 = 9 on r1 and 1 on r2. Each rack has 10 free reduce
/// slots (5 nodes × 2). Priced alone, a reduce costs 9 MB · 8 ns + 1 MB · 80 ns = 0.152 s on
/// r1 (0.08 s on a0) and 9 MB · 80 ns + 1 MB · 8 ns = 0.728 s on r2 (0.72 s on b0), so
/// without SARP all ten go to r1. With SARP, r1 has room for 9 (the first nine reduces' home)
/// and r2 for 1 (the tenth's); a tenth reduce on r1 pays its 10 MB at the slowest bandwidth,
/// 0.8 s, on top: 0.952 s > 0.72 s on b0. Hence 9 : 1.
#[test]
fn sw_fig7_sarp_targets_spread_reduces_nine_to_one() {
    let mut s = racks()
        .pool(Pool::new("p"))
        .job(Job::new("j").pool("p").set("maps_total", 10).set("maps_done", 10));
    for i in 0..5 {
        s = s
            .node(Node::new(&format!("a{i}")).rack("r1").reduce_slots(2))
            .node(Node::new(&format!("b{i}")).rack("r2").reduce_slots(2));
    }
    for i in 0..10 {
        s = s
            .reduce(Reduce::new(&format!("r{i}")).job("j").shuffle("a0", 9 * MB).shuffle("b0", MB));
    }
    let per_rack = |r: &PlaceResponse| {
        let on = |prefix: &str| {
            r.assignments.iter().filter(|a| a.node.as_str().starts_with(prefix)).count()
        };
        (on("a"), on("b"))
    };
    let sarp = run(&s.clone().algorithm("lsap_shuffle"));
    assert_eq!(per_rack(&sarp), (9, 1));
    assert_eq!(node_of(&sarp, "r9"), Some("b0"), "the tenth reduce's home is r2");
    let off = s.clone().algorithm("lsap_shuffle").policy("shuffle_watcher", json!({"sarp": false}));
    assert_eq!(per_rack(&run(&off)), (10, 0));
    assert_eq!(per_rack(&run(&s.algorithm("lsap_quota"))), (10, 0));
}

/// Fair shares stay hard (lsap_quota's D-optimal pool counts). Node n (rack r1) has 2 free map
/// slots; pool A's job has two maps with their block on n (0 s), pool B's two maps read from
/// r2 (10.737 s each). Weights 1 : 1 and nothing running: R = 2, each pool's share is 1, so
/// each must get one slot. lsap, which knows no shares, gives both to A.
#[test]
fn fair_shares_stay_hard_pool_capacities() {
    let s = racks()
        .node(Node::new("n").rack("r1").map_slots(2))
        .node(Node::new("far").rack("r2"))
        .pool(Pool::new("A"))
        .pool(Pool::new("B"))
        .job(Job::new("ja").pool("A"))
        .job(Job::new("jb").pool("B"))
        .maps(["a0", "a1"].map(|id| Map::new(id).job("ja").input_bytes(BLOCK).replicas(&["n"])))
        .maps(["b0", "b1"].map(|id| Map::new(id).job("jb").input_bytes(BLOCK).replicas(&["far"])));
    let pools = |r: &PlaceResponse| {
        let a = r.assignments.iter().filter(|a| a.task.as_str().starts_with('a')).count();
        (a, r.assignments.len() - a)
    };
    assert_eq!(pools(&run(&s.clone().algorithm("lsap_shuffle"))), (1, 1));
    assert_eq!(pools(&run(&s.algorithm("lsap"))), (2, 0));
}

/// SAMP runs once per job (§3.2): the answer returns its decision and an echoed one is kept.
/// The map's block is on a (r1) and b (r2), one free map slot on each, and the job will have 2
/// reduces (`reduces_total`), none done. Fresh, SAMP prefers r1 (equal input, lower rack) and
/// its tentative reduces (2 on r1) make ρ(r1) = 1: the map goes to a, and the answer says so.
/// Echoing a decision for r2 instead (below MapCompletionThreshold, SARP follows the tentative
/// counts) sends it to b, and the echo comes back unchanged.
#[test]
fn samp_decision_is_returned_and_an_echoed_one_is_followed() {
    let s = racks()
        .node(Node::new("a").rack("r1").map_slots(1))
        .node(Node::new("b").rack("r2").map_slots(1))
        .pool(Pool::new("p"))
        .map(Map::new("m").job("j").input_bytes(BLOCK).replicas(&["a", "b"]))
        .algorithm("lsap_shuffle");
    let job = Job::new("j").pool("p").set("reduces_total", 2);
    let fresh = run(&s.clone().job(job.clone()));
    assert_eq!(node_of(&fresh, "m"), Some("a"));
    let decided: placer_solver::shuffle::ShuffleWatcherState =
        placer_solver::echo::reported(&fresh.jobs[0]).unwrap();
    assert_eq!(decided.preferred_map_racks[0].as_str(), "r1");
    let echo = json!({"preferred_map_racks": ["r2"],
                      "tentative_reduces_per_rack": [{"rack": "r2", "reduces": 2}]});
    let echoed = run(&s.job(job.set("shuffle_watcher", echo.clone())));
    assert_eq!(node_of(&echoed, "m"), Some("b"));
    assert_eq!(echoed.jobs[0].state["shuffle_watcher"], echo);
}

/// lsap-sched's Fig. 1 under both ShuffleWatchers: T1's block is on A and B, T2's only on A,
/// one free map slot on each, one rack. NASS answers A's heartbeat first with the job's first
/// node-local map, T1, so T2 reads rack-locally on B (1.074 s); the exact flow places T1 on B
/// and T2 on A, both node-local (0 s).
#[test]
fn lsap_fig1_exact_flow_beats_nass_heartbeat_order() {
    let s = Snapshot::new()
        .rack("r")
        .network(1000.0, 100.0)
        .node(Node::new("A").rack("r").map_slots(1))
        .node(Node::new("B").rack("r").map_slots(1))
        .pool(Pool::new("p"))
        .job(Job::new("j").pool("p"))
        .map(Map::new("T1").job("j").input_bytes(BLOCK).replicas(&["A", "B"]))
        .map(Map::new("T2").job("j").input_bytes(BLOCK).replicas(&["A"]));
    let exact = run(&s.clone().algorithm("lsap_shuffle"));
    assert_eq!((exact.stats.node_local, exact.stats.objective), (2, 0.0));
    let nass = run(&s.algorithm("shuffle_watcher"));
    assert_eq!((nass.stats.node_local, nass.stats.rack_local), (1, 1));
    assert_relative_eq!(nass.stats.objective, BLOCK as f64 * X_IN, max_relative = 1e-12);
}

/// ShuffleWatcher Fig. 5 itself: two jobs whose blocks are all on both racks, one free map
/// slot on each rack, each job with 2 reduces to come. SAMP prefers r1 for job 1 (equal input,
/// lower rack) and r2 for job 2 (r1 is taken by one job already), with tentative reduces 2 on
/// its rack, so each job's expected 64 MB of output costs 64 MB · 8 ns = 0.512 s on its own
/// rack and 64 MB · 80 ns = 5.12 s on the other: j1 → a, j2 → b whatever the pending order.
/// lsap_quota reads node-locally either way (0 s) and, listed j2 first, places it on a.
#[test]
fn sw_fig5_two_jobs_take_the_racks_samp_prefers() {
    for order in [["j2-m", "j1-m"], ["j1-m", "j2-m"]] {
        let mut s = racks()
            .node(Node::new("a").rack("r1").map_slots(1))
            .node(Node::new("b").rack("r2").map_slots(1))
            .pool(Pool::new("p"))
            .job(Job::new("j1").pool("p").set("reduces_total", 2))
            .job(Job::new("j2").pool("p").set("reduces_total", 2));
        for id in order {
            s = s.map(Map::new(id).job(&id[..2]).input_bytes(64 * MB).replicas(&["a", "b"]));
        }
        let r = run(&s.clone().algorithm("lsap_shuffle"));
        assert_eq!((node_of(&r, "j1-m"), node_of(&r, "j2-m")), (Some("a"), Some("b")), "{order:?}");
        assert_eq!(r.stats.objective, 0.0);
        if order[0] == "j2-m" {
            let quota = run(&s.algorithm("lsap_quota"));
            assert_eq!(node_of(&quota, "j2-m"), Some("a"), "locality alone is indifferent");
        }
    }
}

/// §3.2's "restriction of a job's Map tasks to a subset of nodes or racks" (`hold_maps`): a
/// Shuffle-heavy job (ratio 1.5) whose echoed SAMP decision prefers r1 has a map with
/// replicas on a (r1, busy) and b (r2, free). As Fig. 3 prints it, b's heartbeat runs the map
/// node-locally (line 5, "local map of any job"); held, the map waits for a slot on r1 and b
/// stays idle. A Shuffle-light job (ratio 0.01) is never held.
#[test]
fn sw_3_2_held_maps_wait_for_their_preferred_racks() {
    let s = |mechanisms: serde_json::Value, ratio: f64| {
        racks()
            .node(Node::new("a").rack("r1"))
            .node(Node::new("b").rack("r2").map_slots(1))
            .pool(Pool::new("p"))
            .job(Job::new("j").pool("p").set("shuffle_input_ratio", ratio).set(
                "shuffle_watcher",
                json!({"preferred_map_racks": ["r1"],
                       "tentative_reduces_per_rack": [{"rack": "r1", "reduces": 1}]}),
            ))
            .map(Map::new("m").job("j").input_bytes(BLOCK).replicas(&["a", "b"]))
            .algorithm("shuffle_watcher")
            .policy("shuffle_watcher", mechanisms)
    };
    assert_eq!(node_of(&run(&s(json!({}), 1.5)), "m"), Some("b"));
    assert_eq!(node_of(&run(&s(json!({"hold_maps": true}), 1.5)), "m"), None);
    assert_eq!(node_of(&run(&s(json!({"hold_maps": true}), 0.01)), "m"), Some("b"));
}

/// SARP's targets as a bound (`hold_reduces`) and §3.3's idle option (`idle_when_saturated`).
/// A heavy job (ratio 1.5, maps all done) has all its 400 MB of map output on rack r1, so
/// SARP's PreferredReducesPerRack is 1 on r1 and 0 on r2. Its one reduce is offered a slot on
/// b (r2): Fig. 3's line 15 ("any reduce") takes it; held, it waits for r1. On a saturated
/// r2 (450 of 500 Mbit/s) the idle option leaves b's slot to light reduces: none here, so
/// the heavy reduce waits even without the hold.
#[test]
fn sw_fig6_held_reduces_wait_for_sarps_racks_and_saturated_slots_idle() {
    let s = |mechanisms: serde_json::Value, traffic: f64| {
        let mut req = racks()
            .node(Node::new("a").rack("r1"))
            .node(Node::new("b").rack("r2").reduce_slots(1))
            .pool(Pool::new("p"))
            .job(
                Job::new("h")
                    .pool("p")
                    .set("shuffle_input_ratio", 1.5)
                    .set("maps_total", 4)
                    .set("maps_done", 4)
                    .set("reduces_total", 1),
            )
            .reduce(Reduce::new("h-r").job("h").shuffle("a", 400 * MB))
            .algorithm("shuffle_watcher")
            .policy("shuffle_watcher", mechanisms)
            .build()
            .unwrap();
        req.cluster.racks[1].uplink_mbps = Some(500.0);
        req.cluster.racks[1].cross_rack_traffic_mbps = Some(traffic);
        answer(&req)
    };
    assert_eq!(node_of(&s(json!({}), 0.0), "h-r"), Some("b"));
    assert_eq!(node_of(&s(json!({"hold_reduces": true}), 0.0), "h-r"), None);
    assert_eq!(node_of(&s(json!({}), 450.0), "h-r"), Some("b"), "Fig. 3 line 9");
    assert_eq!(node_of(&s(json!({"idle_when_saturated": true}), 450.0), "h-r"), None);
}

/// `fair_within_user`: one user's two jobs, the earlier with 2 running maps, the later with
/// none, on a node of 3 map slots (1 free). Arrival order (Fig. 3 as printed) gives the free
/// slot to the earlier job; fair ordering inside the user gives it to the job with fewer
/// running.
#[test]
fn sw_3_1_fair_ordering_within_a_user() {
    let s = |mechanisms: serde_json::Value| {
        racks()
            .node(Node::new("a").rack("r1").map_slots(3))
            .pool(Pool::new("p"))
            .job(Job::new("early").pool("p").user("u").submit_s(1.0))
            .job(Job::new("late").pool("p").user("u").submit_s(2.0))
            .running(Running::map("early-r1").job("early").node("a"))
            .running(Running::map("early-r2").job("early").node("a"))
            .map(Map::new("e").job("early").input_bytes(BLOCK).replicas(&["a"]))
            .map(Map::new("l").job("late").input_bytes(BLOCK).replicas(&["a"]))
            .algorithm("shuffle_watcher")
            .policy("shuffle_watcher", mechanisms)
    };
    let arrival = run(&s(json!({"samp": false})));
    assert_eq!((node_of(&arrival, "e"), node_of(&arrival, "l")), (Some("a"), None));
    let fair = run(&s(json!({"samp": false, "fair_within_user": true})));
    assert_eq!((node_of(&fair, "e"), node_of(&fair, "l")), (None, Some("a")));
}

/// `hold_maps` under `lsap_shuffle` is a price. One free map slot, on b (r2). A Shuffle-heavy
/// job (ratio 1.5) held by SAMP to r1, with no reduce targets yet (so no shuffle term), has a
/// map with a replica on b: node-local there, DLC 0. A light job's map has its replica on a
/// (r1, busy): on b it reads across racks, 128 MiB · X_x = 10.7 s. Unheld, the heavy map takes
/// b (0 < 10.7 s). Held, it pays its whole expected output at the slowest bandwidth,
/// 1.5 · 128 MiB · X_x = 16.1 s, and the light map takes the slot instead.
#[test]
fn sw_3_2_lsap_shuffle_prices_a_held_map_off_its_racks() {
    let s = |mechanisms: serde_json::Value| {
        racks()
            .node(Node::new("a").rack("r1"))
            .node(Node::new("b").rack("r2").map_slots(1))
            .pool(Pool::new("p"))
            .job(Job::new("heavy").pool("p").set("shuffle_input_ratio", 1.5).set(
                "shuffle_watcher",
                json!({"preferred_map_racks": ["r1"], "tentative_reduces_per_rack": []}),
            ))
            .job(Job::new("light").pool("p").set("shuffle_input_ratio", 0.01))
            .map(Map::new("h").job("heavy").input_bytes(BLOCK).replicas(&["b"]))
            .map(Map::new("l").job("light").input_bytes(BLOCK).replicas(&["a"]))
            .algorithm("lsap_shuffle")
            .policy("shuffle_watcher", mechanisms)
    };
    let free = run(&s(json!({})));
    assert_eq!((node_of(&free, "h"), node_of(&free, "l")), (Some("b"), None));
    let held = run(&s(json!({"hold_maps": true})));
    assert_eq!((node_of(&held, "h"), node_of(&held, "l")), (None, Some("b")));
}
