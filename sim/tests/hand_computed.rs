//! Hand-derived completion times (DESIGN.md §What-if simulator: task time = compute + input
//! read at the disk rate or the shared link rate + shuffle). Every number is derived in the
//! comments; rates: disk 100 MB/s, in-rack link 1000 Mbit/s = 125 MB/s, cross-rack link
//! 100 Mbit/s = 12.5 MB/s (MB = 10⁶ bytes).

use placer_datasets::Workload;
use placer_models::Algorithm;
use placer_sim::{simulate, ClusterSource, SimConfig, StopReason};
use placer_testkit::workload::{job, map, reduce, topology};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

fn config(algorithm: Algorithm) -> SimConfig {
    SimConfig { audit: true, ..SimConfig::with_algorithm(algorithm) }
}

#[test]
fn one_job_two_node_local_maps_then_a_reduce() {
    // Two nodes n0, n1 in one rack, 1 map and 1 reduce slot each. Job submitted at 0: two
    // maps of 100 MB, 10 s compute, replicas n0 and n1 respectively, 50 MB output each; one
    // reduce pulling 125 MB, 5 s compute.
    // Tick 0: both maps node-local. Finish = 0 + 10 + 100 MB / 100 MB/s = 11 s.
    // Reduce pending at 11; next tick at ⌈11 / 3⌉ · 3 = 12. Sources n0, n1 hold equal
    // output: 62.5 MB each. On either node (lsap ties), the local half is read from disk in
    // 62.5 / 100 = 0.625 s and the other half arrives over the in-rack link in
    // 62.5 / 125 = 0.5 s, in parallel: input phase 0.625 s. Finish = 12 + 0.625 + 5 = 17.625.
    let workload = Workload {
        jobs: vec![job(
            "a",
            "default",
            0.0,
            vec![
                map(100_000_000, &["n0"], 10.0, 50_000_000),
                map(100_000_000, &["n1"], 10.0, 50_000_000),
            ],
            vec![reduce(125_000_000, 5.0)],
        )],
        topology: Some(topology(&[&[("n0", 1, 1), ("n1", 1, 1)]])),
        ..Workload::default()
    };
    for algorithm in [Algorithm::Lsap, Algorithm::DlSched, Algorithm::Fifo, Algorithm::LsapQuota] {
        let r = simulate(&workload, &config(algorithm)).unwrap();
        assert_eq!(r.stop, StopReason::Completed);
        let j = &r.jobs[0];
        assert!(close(j.finish_s.unwrap(), 17.625), "{algorithm:?}: {:?}", j.finish_s);
        assert_eq!(j.maps_node_local, 2);
        assert_eq!(r.epochs.len(), 2);
        assert!(close(r.epochs[0].time_s, 0.0) && close(r.epochs[1].time_s, 12.0));
        // 62.5 MB moved in-rack (the remote half of the shuffle), 262.5 MB read locally.
        assert!(close(r.summary.in_rack_gb, 0.0625));
        assert!(close(r.summary.local_read_gb, 0.2625));
        assert!(close(r.summary.cross_rack_gb, 0.0));
        // Ideal: maps max(11, 22 / 2) = 11 s; reduce 5 + 125 MB / 125 MB/s = 6 s; 17 s.
        assert!(close(j.ideal_s, 17.0));
        assert!(close(j.slowdown.unwrap(), 17.625 / 17.0));
    }
}

#[test]
fn two_rack_local_reads_share_one_link_and_take_twice_as_long() {
    // One rack: n0, n1 without slots hold the data; n2 has 2 map slots. Jobs a and b each
    // have one map of 125 MB (replicas n0 and n1 resp.), 1 s compute, both submitted at 0.
    // Tick 0: both go to n2, rack-local. Alone a read takes 125 / 125 = 1 s; sharing n2's
    // in-rack link each gets 62.5 MB/s: 2 s. Finish = 0 + 2 + 1 = 3 s for both.
    let workload = Workload {
        jobs: vec![
            job("a", "default", 0.0, vec![map(125_000_000, &["n0"], 1.0, 0)], vec![]),
            job("b", "default", 0.0, vec![map(125_000_000, &["n1"], 1.0, 0)], vec![]),
        ],
        topology: Some(topology(&[&[("n0", 0, 0), ("n1", 0, 0), ("n2", 2, 0)]])),
        ..Workload::default()
    };
    let r = simulate(&workload, &config(Algorithm::Lsap)).unwrap();
    for j in &r.jobs {
        assert!(close(j.finish_s.unwrap(), 3.0), "{j:?}");
        assert_eq!(j.maps_rack_local, 1);
    }
    assert!(close(r.summary.in_rack_gb, 0.25));
    assert_eq!((r.epochs[0].node_local, r.epochs[0].rack_local), (0, 2));
}

#[test]
fn a_read_that_starts_later_slows_the_first_one_down() {
    // As above with epoch_s = 1. Job a (250 MB from n0) starts at tick 0 alone at 125 MB/s.
    // Job b (125 MB from n1) arrives at 0.5 and starts at tick 1, when a has 125 MB left.
    // From t = 1 both get 62.5 MB/s: a's 125 MB and b's 125 MB both take 2 s → both end their
    // read at t = 3; no compute. a: 3 s (alone it would be 2 s); b: response 3 − 0.5 = 2.5 s.
    let workload = Workload {
        jobs: vec![
            job("a", "default", 0.0, vec![map(250_000_000, &["n0"], 0.0, 0)], vec![]),
            job("b", "default", 0.5, vec![map(125_000_000, &["n1"], 0.0, 0)], vec![]),
        ],
        topology: Some(topology(&[&[("n0", 0, 0), ("n1", 0, 0), ("n2", 2, 0)]])),
        ..Workload::default()
    };
    let cfg = SimConfig { epoch_s: 1.0, ..config(Algorithm::Lsap) };
    let r = simulate(&workload, &cfg).unwrap();
    assert!(close(r.jobs[0].finish_s.unwrap(), 3.0), "{:?}", r.jobs[0]);
    assert!(close(r.jobs[1].finish_s.unwrap(), 3.0), "{:?}", r.jobs[1]);
    assert!(close(r.jobs[1].response_s.unwrap(), 2.5));
}

#[test]
fn cross_rack_reads_share_the_rack_pair_link() {
    // Rack 0: n0 holds the data, no slots. Rack 1: n1 with 2 map slots. One job, two maps of
    // 12.5 MB from n0, no compute. Both read over r0 → r1 (12.5 MB/s shared: 6.25 MB/s each)
    // → 12.5 / 6.25 = 2 s. Alone one would take 1 s.
    let workload = Workload {
        jobs: vec![job(
            "a",
            "default",
            0.0,
            vec![map(12_500_000, &["n0"], 0.0, 0), map(12_500_000, &["n0"], 0.0, 0)],
            vec![],
        )],
        topology: Some(topology(&[&[("n0", 0, 0)], &[("n1", 2, 0)]])),
        ..Workload::default()
    };
    let r = simulate(&workload, &config(Algorithm::Lsap)).unwrap();
    assert!(close(r.jobs[0].finish_s.unwrap(), 2.0));
    assert_eq!(r.jobs[0].maps_remote, 2);
    assert!(close(r.summary.cross_rack_gb, 0.025));
    assert!(close(r.summary.remote, 1.0));
}

#[test]
fn synthetic_cluster_and_waves() {
    // 1 node n0 with 1 map slot; 3 node-local maps of 0 bytes and 4 s compute. Tick 0: first
    // map (0–4). Tick 6 (first grid point ≥ 4): second (6–10). Tick 12: third (12–16).
    let workload = Workload {
        jobs: vec![job("a", "default", 0.0, vec![map(0, &["n0"], 4.0, 0); 3], vec![])],
        ..Workload::default()
    };
    let cfg = SimConfig {
        cluster: ClusterSource::Synthetic { nodes: 1, rack_size: 1, map_slots: 1, reduce_slots: 0 },
        ..config(Algorithm::Lsap)
    };
    let r = simulate(&workload, &cfg).unwrap();
    assert!(close(r.jobs[0].finish_s.unwrap(), 16.0));
    let times: Vec<f64> = r.epochs.iter().map(|e| e.time_s).collect();
    assert_eq!(times, [0.0, 6.0, 12.0]);
    // Busy 12 slot-seconds over a makespan of 16 s on 1 slot.
    assert!(close(r.summary.map_slot_utilisation, 0.75));
}

#[test]
fn heartbeat_order_is_shuffled_each_epoch_unless_fixed() {
    // 10 nodes n0..n9 in racks of 5, 1 map slot each; 30 one-map jobs, one every 6 s, each
    // map 1 s of compute with its only replica on n9. fifo launches a job's map on the first
    // slot offered (FAIR's "standard" scheduling). With the topology's order the first slot is
    // n0 every epoch: all 30 maps run remote (n9 is in the other rack). With heartbeats in a
    // fresh random order each epoch, n9 comes first in about 1 epoch in 10; seed 1 must give
    // some node-local maps (P(none) = 0.9³⁰ ≈ 4%, and the seed is fixed).
    let jobs = (0..30)
        .map(|i| {
            job(&format!("j{i}"), "default", 6.0 * i as f64, vec![map(0, &["n9"], 1.0, 0)], vec![])
        })
        .collect();
    let workload = Workload { jobs, ..Workload::default() };
    let cluster =
        ClusterSource::Synthetic { nodes: 10, rack_size: 5, map_slots: 1, reduce_slots: 0 };
    let local = |order| {
        let cfg =
            SimConfig { cluster: cluster.clone(), node_order: order, ..config(Algorithm::Fifo) };
        let r = simulate(&workload, &cfg).unwrap();
        r.jobs.iter().map(|j| j.maps_node_local).sum::<usize>()
    };
    assert_eq!(local(placer_sim::NodeOrder::Fixed), 0);
    let shuffled = local(placer_sim::NodeOrder::Shuffled);
    assert!((1..30).contains(&shuffled), "{shuffled} of 30 node-local");
}

#[test]
fn a_rack_uplink_slows_two_reads_leaving_one_rack() {
    // ShuffleWatcher §4.1's oversubscribed racks. Rack 0 holds the data on n0 and n1 (no
    // slots); racks 1 and 2 have one map slot each (n2, n3). Jobs a and b each have one map of
    // 12.5 MB (replicas n0 and n1), 1 s compute, submitted at 0; tick 0 sends one map to each
    // of n2 and n3, both off-rack. Each flow is alone on its rack-pair link (100 Mbit/s =
    // 12.5 MB/s): without a rack limit the read takes 1 s, finish 2 s. With a 100 Mbit/s
    // uplink out of rack 0 both flows share 12.5 MB/s: 2 s each, finish 3 s.
    let workload = Workload {
        jobs: vec![
            job("a", "default", 0.0, vec![map(12_500_000, &["n0"], 1.0, 0)], vec![]),
            job("b", "default", 0.0, vec![map(12_500_000, &["n1"], 1.0, 0)], vec![]),
        ],
        topology: Some(topology(&[
            &[("n0", 0, 0), ("n1", 0, 0)],
            &[("n2", 1, 0)],
            &[("n3", 1, 0)],
        ])),
        ..Workload::default()
    };
    for (uplink_mbps, finish) in [(None, 2.0), (Some(100.0), 3.0)] {
        let cfg = SimConfig { uplink_mbps, ..config(Algorithm::Lsap) };
        let r = simulate(&workload, &cfg).unwrap();
        assert_eq!(r.stop, StopReason::Completed);
        for j in &r.jobs {
            assert!(close(j.finish_s.unwrap(), finish), "{uplink_mbps:?}: {j:?}");
            assert_eq!(j.maps_remote, 1);
        }
        assert!(close(r.summary.cross_rack_gb, 0.025));
    }
}
