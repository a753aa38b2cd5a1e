//! Hand-derived completion times (`sim/README.md`: task time = compute + input
//! read at the disk rate or the shared link rate + shuffle). Every number is derived in the
//! comments; rates: disk 100 MB/s, in-rack link 1000 Mbit/s = 125 MB/s, cross-rack link
//! 100 Mbit/s = 12.5 MB/s (MB = 10⁶ bytes).

use placer_datasets::Workload;
use placer_models::Algorithm;
use placer_sim::{
    simulate, ClusterSource, CompletionReport, JobTasks, Offers, SimConfig, StopReason,
};
use placer_testkit::workload::{job, map, reduce, topology};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// The model these hand-derived times assume: epoch offers of every free slot, reduces only
/// after every map (slowstart 1.0), no task start-up overhead, no job setup or cleanup task,
/// ends known at once. The tests of the newer mechanisms below change one setting at a time
/// from here.
fn config(algorithm: Algorithm) -> SimConfig {
    SimConfig {
        audit: true,
        offers: Offers::Epochs,
        slowstart: 1.0,
        task_overhead_s: 0.0,
        job_setup_s: 0.0,
        job_cleanup_s: 0.0,
        completion_report: CompletionReport::Immediate,
        ..SimConfig::with_algorithm(algorithm)
    }
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

/// Two maps of 0 input (replicas n0 and n1), compute 10 s and 20 s, 62.5 MB output each; one
/// reduce pulling 125 MB, 5 s compute; n0 and n1 in one rack, one map and one reduce slot each.
fn staggered_maps() -> Workload {
    Workload {
        jobs: vec![job(
            "a",
            "default",
            0.0,
            vec![map(0, &["n0"], 10.0, 62_500_000), map(0, &["n1"], 20.0, 62_500_000)],
            vec![reduce(125_000_000, 5.0)],
        )],
        topology: Some(topology(&[&[("n0", 1, 1), ("n1", 1, 1)]])),
        ..Workload::default()
    }
}

#[test]
fn slowstart_reduce_copies_each_map_output_as_it_appears() {
    // Hadoop's slowstart (mapred.reduce.slowstart.completed.maps). Both maps start at tick 0.
    // slowstart 1.0: the reduce is pending when the second map ends (20 s), placed at tick 21
    // on n0 or n1 (62.5 MB on each): its local half takes 62.5 / 100 = 0.625 s from disk, the
    // other 62.5 / 125 = 0.5 s in-rack, in parallel; finish 21 + 0.625 + 5 = 26.625 s.
    // slowstart 0.5: ⌈0.5 · 2⌉ = 1 map suffices. The first ends at 10; tick 12 places the
    // reduce where the known 62.5 MB lie (n0, lsap): it reads them from disk by 12.625, then
    // waits; the second map ends at 20, the reduce learns of it at its next poll (21, the
    // 3 s grid) and its 62.5 MB arrive from n1 at 21 + 0.5 = 21.5; finish 26.5 s.
    let w = staggered_maps();
    for (slowstart, finish) in [(1.0, 26.625), (0.5, 26.5)] {
        let cfg = SimConfig { slowstart, ..config(Algorithm::Lsap) };
        let r = simulate(&w, &cfg).unwrap();
        assert_eq!(r.stop, StopReason::Completed);
        assert!(close(r.jobs[0].finish_s.unwrap(), finish), "{slowstart}: {:?}", r.jobs[0]);
        // Either way 62.5 MB moved in-rack and 62.5 MB were read from disk.
        assert!(close(r.summary.in_rack_gb, 0.0625));
        assert!(close(r.summary.local_read_gb, 0.0625));
    }
}

#[test]
fn task_start_up_overhead_delays_every_task() {
    // As above with slowstart 0.5 and 1 s of start-up per task: the maps end at 11 and 21;
    // tick 12 places the reduce on n0 (local 62.5 MB by 12.625); the poll at 21 fetches the
    // second output, which arrives at 21.5; then 1 s overhead + 5 s: finish 27.5 s.
    let cfg = SimConfig { slowstart: 0.5, task_overhead_s: 1.0, ..config(Algorithm::Lsap) };
    let r = simulate(&staggered_maps(), &cfg).unwrap();
    assert!(close(r.jobs[0].finish_s.unwrap(), 27.5), "{:?}", r.jobs[0]);
}

#[test]
fn per_node_heartbeats_give_one_map_per_heartbeat_unless_assign_multiple() {
    // Hadoop 0.20: one map per heartbeat. One node with 4 map slots, one job of 4 maps
    // (replica n0, no input, 100 s compute). At epochs all 4 start at 0: finish 100 s. On
    // heartbeats every 3 s at a phase φ ∈ [0, 3): one map at φ, φ + 3, φ + 6, φ + 9, finish
    // φ + 109; with assign_multiple all four at φ, finish φ + 100: 9 s apart, same φ (seeded).
    let w = Workload {
        jobs: vec![job("a", "default", 0.0, vec![map(0, &["n0"], 100.0, 0); 4], vec![])],
        topology: Some(topology(&[&[("n0", 4, 0)]])),
        ..Workload::default()
    };
    let finish = |offers| {
        for algorithm in [Algorithm::Fifo, Algorithm::Fair, Algorithm::Delay] {
            let cfg = SimConfig { offers, ..config(algorithm) };
            let r = simulate(&w, &cfg).unwrap();
            assert_eq!(r.stop, StopReason::Completed);
            let f = r.jobs[0].finish_s.unwrap();
            let fifo = simulate(&w, &SimConfig { offers, ..config(Algorithm::Fifo) }).unwrap();
            assert!(close(f, fifo.jobs[0].finish_s.unwrap()), "{algorithm:?}");
        }
        simulate(&w, &SimConfig { offers, ..config(Algorithm::Fifo) }).unwrap().jobs[0]
            .finish_s
            .unwrap()
    };
    assert!(close(finish(Offers::Epochs), 100.0));
    let one = finish(Offers::Heartbeats { assign_multiple: false });
    let all = finish(Offers::Heartbeats { assign_multiple: true });
    assert!(close(one - all, 9.0), "{one} {all}");
    assert!((100.0..103.0).contains(&all), "{all}");
    // Auto gives the heartbeat schedulers one map per heartbeat, lsap its epochs.
    let auto = |a| simulate(&w, &SimConfig { offers: Offers::Auto, ..config(a) }).unwrap();
    assert!(close(auto(Algorithm::Fifo).jobs[0].finish_s.unwrap(), one));
    assert!(close(auto(Algorithm::Lsap).jobs[0].finish_s.unwrap(), 100.0));
}

#[test]
fn overcommitted_resources_slow_every_task_on_the_node() {
    // RAS Table 2-style demands; contention.rs's rate. Two maps start together on one node
    // with 2 map slots, no input, 10 s compute each.
    // io 0.75 each: D_io = 1.5, ρ = 1 / (1.5 · (1 + 0.5 · 0.5)) = 1 / 1.875: 18.75 s.
    // mem 0.6 each: D_mem = 1.2, ρ = 1 / (1 + 4 · 0.2) = 1 / 1.8: 18 s.
    // cpu 0.5 each: D_cpu = 1, fits: 10 s. Contention off: 10 s.
    let run = |demand: placer_datasets::Demand, enabled: bool| {
        let m = placer_datasets::MapSpec { demand: Some(demand), ..map(0, &["n0"], 10.0, 0) };
        let w = Workload {
            jobs: vec![job("a", "default", 0.0, vec![m; 2], vec![])],
            topology: Some(topology(&[&[("n0", 2, 0)]])),
            ..Workload::default()
        };
        let contention = placer_sim::Contention { enabled, ..Default::default() };
        let r = simulate(&w, &SimConfig { contention, ..config(Algorithm::Lsap) }).unwrap();
        r.jobs[0].finish_s.unwrap()
    };
    let d = |cpu, mem, io| placer_datasets::Demand { cpu, mem, io };
    assert!(close(run(d(0.0, 0.0, 0.75), true), 18.75));
    assert!(close(run(d(0.0, 0.6, 0.0), true), 18.0));
    assert!(close(run(d(0.5, 0.0, 0.0), true), 10.0));
    assert!(close(run(d(0.0, 0.0, 0.75), false), 10.0));
}

#[test]
fn a_task_that_ends_frees_room_for_the_others() {
    // Rates change mid-run: maps of 10 s and 20 s with io 0.75 each on one node (κ_io 0.5):
    // together ρ = 1 / 1.875, so the short one ends at 18.75 s, when the long one has done
    // 10 s of its 20; alone it runs at rate 1: finish 18.75 + 10 = 28.75 s.
    let m = |c| placer_datasets::MapSpec {
        demand: Some(placer_datasets::Demand { cpu: 0.0, mem: 0.0, io: 0.75 }),
        ..map(0, &["n0"], c, 0)
    };
    let w = Workload {
        jobs: vec![job("a", "default", 0.0, vec![m(10.0), m(20.0)], vec![])],
        topology: Some(topology(&[&[("n0", 2, 0)]])),
        ..Workload::default()
    };
    let r = simulate(&w, &config(Algorithm::Lsap)).unwrap();
    assert!(close(r.jobs[0].finish_s.unwrap(), 28.75), "{:?}", r.jobs[0]);
}

#[test]
fn measured_times_and_failed_attempts_replay_as_traced() {
    // A Rumen-style map: measured 10 s (its read included), one failed attempt of 4 s first,
    // its replica in the other rack, 125 MB of input. Tick 0 starts the failed attempt; it
    // fails at 4; tick 6 starts the real one, which takes its measured 10 s: no read time, no
    // start-up overhead (even if set): finish 16 s. Its 125 MB still count as cross-rack.
    let mut m = map(125_000_000, &["n1"], 10.0, 0);
    m.failed_attempts_s = vec![4.0];
    let w = Workload {
        jobs: vec![job("a", "default", 0.0, vec![m], vec![])],
        topology: Some(topology(&[&[("n0", 1, 0)], &[("n1", 0, 0)]])),
        measured_times: true,
        ..Workload::default()
    };
    let cfg = SimConfig { task_overhead_s: 1.0, ..config(Algorithm::Lsap) };
    let r = simulate(&w, &cfg).unwrap();
    assert_eq!(r.stop, StopReason::Completed);
    assert!(close(r.jobs[0].finish_s.unwrap(), 16.0), "{:?}", r.jobs[0]);
    assert_eq!(r.jobs[0].task_runs, 2);
    assert_eq!(r.jobs[0].maps_remote, 1);
    assert!(close(r.summary.cross_rack_gb, 0.125));
}

#[test]
fn full_disks_evict_the_latest_job_and_the_other_finishes() {
    // FAIR §5.4. One node, 2 map slots, 1 reduce slot, 100 MB of room for map outputs. Jobs a
    // and b (both at 0; b is later in submit order) each have 2 maps (no input, 10 s, 40 MB
    // output) and one reduce (80 MB shuffle, 1 s). fair, epochs, slowstart 1, no overhead.
    // Tick 0: one map of each (80 MB reserved ≤ 100). At 10 both end: 80 MB held, 20 free, so
    // at tick 12 neither second map fits and nothing runs: stuck. The victim (submitted
    // latest: b) loses its output; 60 MB free. Tick 15: a's second map (its share is as low
    // as b's; a comes first) takes 40 MB; the 20 left fit nothing else. It ends at 25; tick
    // 27 starts a's reduce, which reads its 80 MB from the local disk (0.8 s) and computes
    // 1 s: a ends at 28.8 and its 80 MB are deleted. Tick 30: both of b's maps (80 MB), done
    // at 40; tick 42 its reduce: b ends at 43.8. The most held at once: 80 MB.
    let m = map(0, &["n0"], 10.0, 40_000_000);
    let w = Workload {
        jobs: vec![
            job("a", "default", 0.0, vec![m.clone(), m.clone()], vec![reduce(80_000_000, 1.0)]),
            job("b", "default", 0.0, vec![m.clone(), m], vec![reduce(80_000_000, 1.0)]),
        ],
        topology: Some(topology(&[&[("n0", 2, 1)]])),
        ..Workload::default()
    };
    let cfg = SimConfig { intermediate_gb: Some(0.1), ..config(Algorithm::Fair) };
    let r = simulate(&w, &cfg).unwrap();
    assert_eq!(r.stop, StopReason::Completed);
    let finish: Vec<f64> = r.jobs.iter().map(|j| j.finish_s.unwrap()).collect();
    assert!(close(finish[0], 28.8) && close(finish[1], 43.8), "{finish:?}");
    assert!(close(r.summary.peak_intermediate_gb, 0.08));
    // b's first map ran twice; every map counts once as completed.
    assert_eq!(r.jobs[1].task_runs, 4);
    assert_eq!(r.jobs[1].maps_node_local, 2);
}

#[test]
fn job_setup_and_cleanup_delay_the_job() {
    // Hadoop 0.20's setup and cleanup tasks as delays without a slot (`JobTasks::Delays`).
    // One map (no input, 10 s) on one node; setup 5 s, cleanup 3 s: ready at 5, tick 6 starts
    // the map, done at 16, the job finishes at 19. A workload's own (measured) times win over
    // the config's: setup 1 s → ready 1, tick 3, done 13, finish 16.
    let mut w = Workload {
        jobs: vec![job("a", "default", 0.0, vec![map(0, &["n0"], 10.0, 0)], vec![])],
        topology: Some(topology(&[&[("n0", 1, 0)]])),
        ..Workload::default()
    };
    let cfg = SimConfig {
        job_setup_s: 5.0,
        job_cleanup_s: 3.0,
        job_tasks: JobTasks::Delays,
        ..config(Algorithm::Lsap)
    };
    let r = simulate(&w, &cfg).unwrap();
    assert!(close(r.jobs[0].finish_s.unwrap(), 19.0), "{:?}", r.jobs[0]);
    w.jobs[0].setup_s = Some(1.0);
    let r = simulate(&w, &cfg).unwrap();
    assert!(close(r.jobs[0].finish_s.unwrap(), 16.0), "{:?}", r.jobs[0]);
}

/// One node n0 with one map and one reduce slot; job "a" submitted at 0 with one map (no
/// input, 10 s), and optionally job "b" (the same) submitted at 6 s.
fn one_slot_jobs(with_b: bool) -> Workload {
    let mut jobs = vec![job("a", "default", 0.0, vec![map(0, &["n0"], 10.0, 0)], vec![])];
    if with_b {
        jobs.push(job("b", "default", 6.0, vec![map(0, &["n0"], 10.0, 0)], vec![]));
    }
    Workload { jobs, topology: Some(topology(&[&[("n0", 1, 1)]])), ..Workload::default() }
}

/// Hadoop 0.20's heartbeats (3 s, one task of a kind each) under fifo, with `setup_s` /
/// `cleanup_s` tasks and ends reported as `report` says.
fn hadoop(setup_s: f64, cleanup_s: f64, report: CompletionReport) -> SimConfig {
    SimConfig {
        offers: Offers::Heartbeats { assign_multiple: false },
        job_setup_s: setup_s,
        job_cleanup_s: cleanup_s,
        completion_report: report,
        ..config(Algorithm::Fifo)
    }
}

/// The node's heartbeat phase φ ∈ [0, 3) (seeded): with neither mechanism, job a's map starts
/// at the first heartbeat φ and ends at φ + 10.
fn phase() -> f64 {
    let r = simulate(&one_slot_jobs(false), &hadoop(0.0, 0.0, CompletionReport::Immediate));
    // A failed run gives NaN, outside the range below.
    let phi = r.ok().and_then(|r| r.jobs[0].finish_s).map_or(f64::NAN, |f| f - 10.0);
    assert!((0.0..3.0).contains(&phi), "{phi}");
    phi
}

#[test]
fn one_map_job_with_setup_cleanup_and_heartbeat_reports() {
    // Heartbeats at φ + 3k. Setup 2 s, cleanup 2 s, ends reported at the next heartbeat.
    // φ: the setup task takes the map slot, runs to φ + 2; reported at φ + 3, where the map
    // becomes pending and takes the freed slot in the same heartbeat: runs φ + 3 … φ + 13;
    // reported at φ + 15 (the first heartbeat after 13), where the cleanup task takes the
    // slot: φ + 15 … φ + 17; reported at φ + 18: the job finishes at φ + 18, i.e.
    // setup (2) + alignment to the next heartbeat (1) + map (10) + wait for the next
    // heartbeat (2) + cleanup (2) + its report (1) after the first heartbeat φ.
    let phi = phase();
    let w = one_slot_jobs(false);
    let run = |setup, cleanup, report| {
        let r = simulate(&w, &hadoop(setup, cleanup, report)).unwrap();
        assert_eq!(r.stop, StopReason::Completed);
        // Setup and cleanup are not maps: one map, node-local.
        assert_eq!((r.jobs[0].maps_node_local, r.jobs[0].maps_remote), (1, 0));
        r.jobs[0].finish_s.unwrap() - phi
    };
    assert!(close(run(2.0, 2.0, CompletionReport::Heartbeat), 18.0));
    // Ends at once: the setup ends at φ + 2, the map waits for the heartbeat φ + 3 and ends at
    // φ + 13, the cleanup waits for φ + 15 and ends at φ + 17.
    assert!(close(run(2.0, 2.0, CompletionReport::Immediate), 17.0));
    // No setup or cleanup, reported at the heartbeat: the map ends at φ + 10, known at φ + 12.
    assert!(close(run(0.0, 0.0, CompletionReport::Heartbeat), 12.0));
    // As delays without a slot (the earlier model): ready at 2, the map at the first
    // heartbeat from 2 on (φ if φ ≥ 2, else φ + 3), the job 10 + 2 s after it.
    let delays =
        SimConfig { job_tasks: JobTasks::Delays, ..hadoop(2.0, 2.0, CompletionReport::Immediate) };
    let r = simulate(&w, &delays).unwrap();
    let start = if phi >= 2.0 { phi } else { phi + 3.0 };
    assert!(close(r.jobs[0].finish_s.unwrap(), start + 12.0), "{:?}", r.jobs[0]);
}

#[test]
fn setup_takes_a_reduce_slot_when_no_map_slot_is_free_and_cleanup_goes_first() {
    // Job a as above: setup φ … φ + 2, map φ + 3 … φ + 13. Job b arrives at 6 (after φ + 3,
    // before φ + 6): its setup waits for the heartbeat φ + 6, where the map slot is a's: it
    // takes the reduce slot, φ + 6 … φ + 8, reported at φ + 9 (b's map pending, no map slot).
    // a's map is reported at φ + 15: a's cleanup task goes before the scheduler and takes the
    // map slot (φ + 15 … φ + 17); b's map waits for the report at φ + 18 (a finishes then) and
    // runs φ + 18 … φ + 28, reported at φ + 30; b's cleanup φ + 30 … φ + 32, reported at
    // φ + 33.
    let phi = phase();
    let r = simulate(&one_slot_jobs(true), &hadoop(2.0, 2.0, CompletionReport::Heartbeat));
    let r = r.unwrap();
    assert_eq!(r.stop, StopReason::Completed);
    assert!(close(r.jobs[0].finish_s.unwrap() - phi, 18.0), "{:?}", r.jobs[0]);
    assert!(close(r.jobs[1].finish_s.unwrap() - phi, 33.0), "{:?}", r.jobs[1]);
    // Without the second job's setup in the reduce slot it would have waited for the map
    // slot: the same run with no reduce slot finishes b later.
    let mut no_reduce = one_slot_jobs(true);
    no_reduce.topology = Some(topology(&[&[("n0", 1, 0)]]));
    let r2 = simulate(&no_reduce, &hadoop(2.0, 2.0, CompletionReport::Heartbeat)).unwrap();
    assert!(r2.jobs[1].finish_s.unwrap() > r.jobs[1].finish_s.unwrap(), "{:?}", r2.jobs[1]);
}

#[test]
fn setup_and_cleanup_take_slots_at_epochs_too() {
    // lsap at 3 s epochs, setup and cleanup 2 s: tick 0 starts the setup on n0's map slot
    // (0 … 2; epochs know of ends at once); tick 3 starts the map (3 … 13); tick 15 the
    // cleanup (15 … 17): the job finishes at 17.
    let cfg = SimConfig { job_setup_s: 2.0, job_cleanup_s: 2.0, ..config(Algorithm::Lsap) };
    let r = simulate(&one_slot_jobs(false), &cfg).unwrap();
    assert_eq!(r.stop, StopReason::Completed);
    assert!(close(r.jobs[0].finish_s.unwrap(), 17.0), "{:?}", r.jobs[0]);
}

#[test]
fn a_one_slot_offer_shows_the_rack_local_task_before_a_remote_one() {
    // Hadoop 0.20's task search on a heartbeat: node-local, then rack-local, then any. Only
    // n0 (rack r0) has a slot; the job's first map has its replica on n2 (rack r1), its second
    // on n1 (rack r0). fifo's snapshot carries one map per job (its free-slot bound): it must
    // be the rack-local second map, on epochs and on heartbeats alike.
    let w = Workload {
        jobs: vec![job(
            "a",
            "default",
            0.0,
            vec![map(1_000_000, &["n2"], 10.0, 0), map(1_000_000, &["n1"], 10.0, 0)],
            vec![],
        )],
        topology: Some(topology(&[&[("n0", 1, 0), ("n1", 0, 0)], &[("n2", 0, 0)]])),
        ..Workload::default()
    };
    for offers in [Offers::Epochs, Offers::Heartbeats { assign_multiple: false }] {
        let r = simulate(&w, &SimConfig { offers, ..config(Algorithm::Fifo) }).unwrap();
        assert_eq!((r.epochs[0].rack_local, r.epochs[0].remote), (1, 0), "{offers:?}");
    }
}

/// Rack r0: n0 (one map slot) ; rack r1: n1 (one reduce slot) holds the input. One job: a map
/// reading 100 MB from n1 and writing 1 GB, no compute; a reduce pulling that 1 GB, no compute.
fn one_cross_rack_job() -> Workload {
    Workload {
        jobs: vec![job(
            "a",
            "default",
            0.0,
            vec![map(100_000_000, &["n1"], 0.0, 1_000_000_000)],
            vec![reduce(1_000_000_000, 0.0)],
        )],
        topology: Some(topology(&[&[("n0", 1, 0)], &[("n1", 0, 1)]])),
        ..Workload::default()
    }
}

#[test]
fn sw_table_3_traffic_per_job_splits_shuffle_and_remote_map() {
    // The map runs on n0 (the only map slot) and reads its 100 MB across racks at 100 Mbit/s
    // = 12.5 MB/s: 0..8 s. Tick 9 places the reduce on n1 (the only reduce slot); it pulls the
    // 1 GB from n0 across racks at 12.5 MB/s: 9..89 s. Table 3's columns for the job: total
    // shuffle 1 GB, all of it cross-rack; remote map 0.1 GB; total cross-rack 1.1 GB.
    let r = simulate(&one_cross_rack_job(), &config(Algorithm::Lsap)).unwrap();
    assert_eq!(r.stop, StopReason::Completed);
    let j = &r.jobs[0];
    assert!(close(j.finish_s.unwrap(), 89.0), "{j:?}");
    assert!(close(j.shuffle_gb, 1.0) && close(j.cross_rack_shuffle_gb, 1.0), "{j:?}");
    assert!(close(j.remote_map_gb, 0.1), "{j:?}");
    assert!(close(r.summary.cross_rack_gb, 1.1));
    // A reduce next to its map output reads it from disk: shuffle, but not cross-rack.
    let w = Workload {
        jobs: vec![job(
            "a",
            "default",
            0.0,
            vec![map(0, &["n0"], 0.0, 50_000_000)],
            vec![reduce(50_000_000, 0.0)],
        )],
        topology: Some(topology(&[&[("n0", 1, 1)], &[("n1", 0, 0)]])),
        ..Workload::default()
    };
    let j = &simulate(&w, &config(Algorithm::Lsap)).unwrap().jobs[0];
    assert!(close(j.shuffle_gb, 0.05) && j.cross_rack_shuffle_gb == 0.0, "{j:?}");
    assert_eq!(j.remote_map_gb, 0.0);
}

#[test]
fn sw_fig_10_cross_rack_rate_per_minute_bucket() {
    // As above, the network's measurement per 60 s bucket: the remote map's 100 MB in
    // [0, 8 s), the shuffle at 12.5 MB/s in [9, 89 s): 51 s = 637.5 MB in [0, 60) and 29 s =
    // 362.5 MB in [60, 120). Bucket 0: 737.5 MB in all (737.5 · 8 / 60 = 98.33
    // Mbit/s), of which 637.5 MB shuffle; bucket 1: 362.5 MB, all shuffle. The series sums to
    // the run's cross-rack total.
    let r = simulate(&one_cross_rack_job(), &config(Algorithm::Lsap)).unwrap();
    let s = &r.cross_rack_series;
    assert_eq!(s.bucket_s, 60.0);
    assert_eq!(s.total_bytes.len(), 2, "{s:?}");
    let near = |a: f64, b: f64| (a - b).abs() < 1e-3;
    assert!(near(s.total_bytes[0], 737.5e6) && near(s.shuffle_bytes[0], 637.5e6), "{s:?}");
    assert!(near(s.total_bytes[1], 362.5e6) && near(s.shuffle_bytes[1], 362.5e6), "{s:?}");
    let sum: f64 = s.total_bytes.iter().sum();
    assert!(near(sum, r.summary.cross_rack_gb * 1e9));
    // One rack: nothing crosses, no series.
    let w = Workload {
        jobs: vec![job("a", "default", 0.0, vec![map(1_000_000, &["n1"], 1.0, 0)], vec![])],
        topology: Some(topology(&[&[("n0", 1, 0), ("n1", 0, 0)]])),
        ..Workload::default()
    };
    assert!(simulate(&w, &config(Algorithm::Lsap))
        .unwrap()
        .cross_rack_series
        .total_bytes
        .is_empty());
}

#[test]
fn sw_4_3_steady_state_leaves_out_ramp_up_and_ramp_down() {
    // Five one-map jobs (node-local, no input) submitted at 0, 100, 200, 300, 400 s on one node
    // with 5 map slots, epochs every 1 s, computing 50, 50, 180, 120, 100 s: they finish at 50,
    // 150, 380, 420, 500 s. Submission span [0, 400]: 3 finish inside it → 3 / (400 / 3600 h)
    // = 27 jobs/h (the whole-run throughput is 5 / (500 / 3600) = 36). Middle 80% of the span:
    // submits in [40, 360], i.e. 100, 200, 300 with responses 50, 180, 120 → 116.67 s (all
    // five: 100 s).
    let jobs = [(0.0, 50.0), (100.0, 50.0), (200.0, 180.0), (300.0, 120.0), (400.0, 100.0)]
        .iter()
        .enumerate()
        .map(|(i, &(at, c))| {
            job(&format!("j{i}"), "default", at, vec![map(0, &["n0"], c, 0)], vec![])
        })
        .collect();
    let w = Workload { jobs, topology: Some(topology(&[&[("n0", 5, 0)]])), ..Workload::default() };
    let r = simulate(&w, &SimConfig { epoch_s: 1.0, ..config(Algorithm::Fair) }).unwrap();
    let finish: Vec<f64> = r.jobs.iter().map(|j| j.finish_s.unwrap()).collect();
    assert_eq!(finish, [50.0, 150.0, 380.0, 420.0, 500.0]);
    let s = &r.summary;
    assert!(close(s.steady_throughput_jobs_per_h, 27.0), "{s:?}");
    assert!(close(s.steady_mean_turnaround_s, 350.0 / 3.0), "{s:?}");
    assert!(close(s.throughput_jobs_per_h, 36.0) && close(s.mean_response_s, 100.0));
    // Every job submitted at once: no span, throughput 0 (not NaN); the middle is everyone.
    let mut w = w;
    for j in &mut w.jobs {
        j.submit_s = 0.0;
    }
    let r = simulate(&w, &SimConfig { epoch_s: 1.0, ..config(Algorithm::Fair) }).unwrap();
    assert_eq!(r.summary.steady_throughput_jobs_per_h, 0.0);
    assert!(close(r.summary.steady_mean_turnaround_s, r.summary.mean_response_s));
}

/// `demand` on every map of every job.
fn with_demand(mut w: Workload, cpu: f64, mem: f64, io: f64) -> Workload {
    for m in w.jobs.iter_mut().flat_map(|j| j.maps.iter_mut()) {
        m.demand = Some(placer_datasets::Demand { cpu, mem, io });
    }
    w
}

#[test]
fn ras_3_1_job_slots_of_resources_run_three_maps_on_a_one_slot_node() {
    // RAS §3.1: a node hosts as many tasks as its resources allow, not a fixed slot count.
    // One node of 1 map slot (capacity 1.0 of cpu, mem, io: the cluster states none); one job
    // of four maps, each cpu = mem = io = 0.3, 10 s, no input; epochs every 3 s.
    // ras, drf, lsap_ras: 3 × 0.3 = 0.9 fits, 4 × 0.3 = 1.2 does not: three maps start at 0
    // and end at 10 (at rate 1: no resource above 1); the fourth starts at tick 12, ends 22.
    // The snapshot at 0 offers 3 of the 4 pending maps: ⌊1 / 0.3⌋ = 3 on the one node.
    // fair (the same epochs): one map slot, one map at a time: 0–10, 12–22, 24–34, 36–46.
    let w = with_demand(
        Workload {
            jobs: vec![job("a", "default", 0.0, vec![map(0, &["n0"], 10.0, 0); 4], vec![])],
            topology: Some(topology(&[&[("n0", 1, 0)]])),
            ..Workload::default()
        },
        0.3,
        0.3,
        0.3,
    );
    for algorithm in [Algorithm::Ras, Algorithm::Drf, Algorithm::LsapRas] {
        let r = simulate(&w, &config(algorithm)).unwrap();
        assert_eq!(r.stop, StopReason::Completed, "{algorithm:?}");
        assert!(close(r.jobs[0].finish_s.unwrap(), 22.0), "{algorithm:?}: {:?}", r.jobs[0]);
        assert_eq!((r.epochs[0].pending, r.epochs[0].offered), (4, 3), "{algorithm:?}");
        assert_eq!(r.epochs[0].assigned, 3, "{algorithm:?}");
        // Σ demand over time: 0.9 on [0, 10), 0.3 on [12, 22): 12 / 22 of the node's cpu.
        let u = r.summary.utilisation.unwrap();
        assert!(close(u.cpu, 12.0 / 22.0), "{algorithm:?}: {u:?}");
    }
    let r = simulate(&w, &config(Algorithm::Fair)).unwrap();
    assert!(close(r.jobs[0].finish_s.unwrap(), 46.0), "{:?}", r.jobs[0]);
    assert!(r.epochs.iter().all(|e| e.assigned <= 1));
}

#[test]
fn uncapped_nodes_still_slow_down_when_a_resource_is_overcommitted() {
    // The contention model is the same under every policy: fair with 2 map slots on one node
    // runs two maps of io 0.75 at once, D_io = 1.5, rate 1 / (1.5 · (1 + 0.5 · 0.5)) = 1 /
    // 1.875: each 10 s map takes 18.75 s. ras never overcommits: one at a time (2 × 0.75 >
    // 1): 0–10, tick 12: 12–22.
    let w = with_demand(
        Workload {
            jobs: vec![job("a", "default", 0.0, vec![map(0, &["n0"], 10.0, 0); 2], vec![])],
            topology: Some(topology(&[&[("n0", 2, 0)]])),
            ..Workload::default()
        },
        0.1,
        0.1,
        0.75,
    );
    let fair = simulate(&w, &config(Algorithm::Fair)).unwrap();
    assert!(close(fair.jobs[0].finish_s.unwrap(), 18.75), "{:?}", fair.jobs[0]);
    let ras = simulate(&w, &config(Algorithm::Ras)).unwrap();
    assert!(close(ras.jobs[0].finish_s.unwrap(), 22.0), "{:?}", ras.jobs[0]);
}

#[test]
fn ras_3_2_goals_met_and_missed() {
    // One node, one map slot, fifo at epochs every 3 s, no overhead. Goals are submit +
    // deadline, met when the job finishes by then:
    // a: submitted at 0, one 10 s map, deadline 10 → goal 10; runs 0–10: met (at the goal).
    // b: at 1, one 5 s map, deadline 14 → goal 15; waits for a, tick 12: 12–17 > 15: missed.
    // c: at 2, one 1 s map, no deadline: no goal; tick 18: 18–19.
    let mut jobs = vec![
        job("a", "default", 0.0, vec![map(0, &["n0"], 10.0, 0)], vec![]),
        job("b", "default", 1.0, vec![map(0, &["n0"], 5.0, 0)], vec![]),
        job("c", "default", 2.0, vec![map(0, &["n0"], 1.0, 0)], vec![]),
    ];
    jobs[0].deadline_s = Some(10.0);
    jobs[1].deadline_s = Some(14.0);
    let w = Workload { jobs, topology: Some(topology(&[&[("n0", 1, 0)]])), ..Workload::default() };
    let r = simulate(&w, &config(Algorithm::Fifo)).unwrap();
    let got: Vec<(f64, Option<f64>, Option<bool>)> =
        r.jobs.iter().map(|j| (j.finish_s.unwrap(), j.goal_s, j.goal_met)).collect();
    assert_eq!(
        got,
        [(10.0, Some(10.0), Some(true)), (17.0, Some(15.0), Some(false)), (19.0, None, None)]
    );
    assert_eq!((r.summary.goals, r.summary.goals_met), (2, 1));
    // A job that never finishes misses its goal: stopped at 12 s, b has not run.
    let cut = SimConfig { max_time_s: Some(12.0), ..config(Algorithm::Fifo) };
    let r = simulate(&w, &cut).unwrap();
    assert_eq!(r.jobs[1].goal_met, Some(false));
    assert_eq!((r.summary.goals, r.summary.goals_met), (2, 1));
}

/// Three maps of no input, 1 s compute and 12.5 MB output each, on n0, n1, n2 (racks 0, 1, 2,
/// one map slot each); one reduce of 37.5 MB and no compute on n3 (rack 3, the only reduce
/// slot): its shuffle comes from three racks at once.
fn three_racks_into_one() -> Workload {
    Workload {
        jobs: vec![job(
            "a",
            "default",
            0.0,
            vec![
                map(0, &["n0"], 1.0, 12_500_000),
                map(0, &["n1"], 1.0, 12_500_000),
                map(0, &["n2"], 1.0, 12_500_000),
            ],
            vec![reduce(37_500_000, 0.0)],
        )],
        topology: Some(topology(&[
            &[("n0", 1, 0)],
            &[("n1", 1, 0)],
            &[("n2", 1, 0)],
            &[("n3", 0, 1)],
        ])),
        ..Workload::default()
    }
}

#[test]
fn hadoop_parallel_copies_cap_a_reduces_flows() {
    // The maps end at 1 s; tick 3 places the reduce, which owes 12.5 MB to each of racks 0, 1,
    // 2. Each flow is alone on its 100 Mbit/s rack-pair link (12.5 MB/s; n3's NIC gives each
    // 41.7): 1 s each. One flow per rack at a time: all three in [3, 4], finish 4 s. Two
    // copiers: two in [3, 4], the third in [4, 5]: 5 s. One copier: one after another, 6 s.
    let w = three_racks_into_one();
    for (copiers, finish) in [(None, 4.0), (Some(2), 5.0), (Some(1), 6.0)] {
        let cfg = SimConfig { copiers, ..config(Algorithm::Lsap) };
        let r = simulate(&w, &cfg).unwrap();
        assert_eq!(r.stop, StopReason::Completed);
        assert!(close(r.jobs[0].finish_s.unwrap(), finish), "{copiers:?}: {:?}", r.jobs[0]);
        assert!(close(r.summary.cross_rack_gb, 0.0375));
    }
}

#[test]
fn a_downlink_losing_goodput_slows_the_shuffle_it_carries() {
    // As above with 100 Mbit/s rack uplinks (12.5 MB/s): the three flows share rack 3's
    // downlink, 12.5 / 3 MB/s each, 3 s: finish 3 + 3 = 6 s. With g(n) = max(0.1, 1 / (1 +
    // (n − 1))) (n0 = 1, β = 1, no timeout) the downlink carries n = 3 flows at g = 1/3: 12.5 /
    // 9 MB/s each, 9 s: finish 12 s, per link and max-min alike (the downlink holds all three;
    // each source uplink carries one flow, g(1) = 1).
    let w = three_racks_into_one();
    let g = placer_sim::Goodput { n0: 1, beta: 1.0, floor: 0.1, rto_s: 0.0 };
    for sharing in [placer_sim::Sharing::PerLink, placer_sim::Sharing::MaxMin] {
        for (goodput, finish) in [(None, 6.0), (Some(g), 12.0)] {
            let cfg =
                SimConfig { uplink_mbps: Some(100.0), sharing, goodput, ..config(Algorithm::Lsap) };
            let r = simulate(&w, &cfg).unwrap();
            assert_eq!(r.stop, StopReason::Completed);
            let f = r.jobs[0].finish_s.unwrap();
            assert!((f - finish).abs() < 1e-6, "{sharing:?} {goodput:?}: {f}");
        }
    }
}
