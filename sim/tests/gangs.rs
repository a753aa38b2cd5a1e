//! Gangs in the simulator (docs/simulator.md, "Gangs"): a gang's maps are offered together and
//! start together (`jobs[].gang`, KEP-4671 PodGroup's all-or-nothing), inside one rack when its
//! topology requires it (Kueue TAS's `podset-required-topology`), under a policy that honours
//! gangs; a policy that does not sees an ordinary job. Times derived by hand in the comments
//! (epochs every 3 s, no overheads, disk 100 MB/s).
// The helper that runs a case unwraps as the tests do.
#![allow(clippy::unwrap_used)]

use placer_datasets::Workload;
use placer_models::{Algorithm, Gang, Topology, TopologyLevel, TopologyMode};
use placer_sim::{simulate, CompletionReport, JobMetrics, Offers, SimConfig, StopReason};
use placer_testkit::workload::{job, map, topology};

fn config(algorithm: Algorithm, sessions: bool) -> SimConfig {
    SimConfig {
        audit: true,
        offers: Offers::Epochs,
        slowstart: 1.0,
        task_overhead_s: 0.0,
        job_setup_s: 0.0,
        job_cleanup_s: 0.0,
        completion_report: CompletionReport::Immediate,
        sessions,
        ..SimConfig::with_algorithm(algorithm)
    }
}

/// Two racks of two nodes with 2 map slots each (a rack holds 4 maps). Job `busy` (pool
/// batch, at 0): two maps of 1 MB, 30 s, with replicas on a0 and b0: they run node-local from
/// the tick at 0 to 30 + 0.01 s, leaving 3 free slots in each rack. Job `g` (pool gang, at
/// 1 s): 4 maps of 10 s without input, a gang of 4 that requires one rack.
fn workload() -> Workload {
    let busy = job(
        "busy",
        "batch",
        0.0,
        vec![map(1_000_000, &["a0"], 30.0, 0), map(1_000_000, &["b0"], 30.0, 0)],
        vec![],
    );
    let mut g = job("g", "gang", 1.0, (0..4).map(|_| map(0, &[], 10.0, 0)).collect(), vec![]);
    g.gang = Some(Gang { min_member: 4 });
    g.topology = Some(Topology {
        level: TopologyLevel::Rack,
        mode: TopologyMode::Required,
        penalty_s: None,
        slice: None,
    });
    Workload {
        name: "gang".into(),
        jobs: vec![busy, g],
        topology: Some(topology(&[&[("a0", 2, 0), ("a1", 2, 0)], &[("b0", 2, 0), ("b1", 2, 0)]])),
        ..Workload::default()
    }
}

fn gang_job(algorithm: Algorithm, sessions: bool) -> JobMetrics {
    let r = simulate(&workload(), &config(algorithm, sessions)).unwrap();
    assert_eq!(r.stop, StopReason::Completed, "{algorithm:?}");
    r.jobs[1].clone()
}

#[test]
fn a_rack_required_gang_waits_for_a_whole_rack_and_starts_in_it() {
    // lsap_quota honours the gang: at 3 s each rack has 3 free slots, fewer than 4, so g
    // waits (`no_domain_fits`) until busy's maps end at 30.01 s; at the tick of 33 s a rack
    // is free and all 4 start in it together: wait 33 − 1 = 32 s, finish 43 s. drf honours it
    // too and, without demands in the workload, places by the same slots (busy's maps go
    // node-local, one per rack): the same times.
    for (algorithm, sessions) in
        [Algorithm::LsapQuota, Algorithm::Drf].into_iter().flat_map(|a| [(a, false), (a, true)])
    {
        let g = gang_job(algorithm, sessions);
        let case = format!("{algorithm:?}, sessions {sessions}");
        assert_eq!(g.start_s, Some(33.0), "{case}");
        assert_eq!(g.wait_s, Some(32.0), "{case}");
        assert_eq!(g.maps_started_s, Some(33.0), "{case}");
        assert_eq!(g.map_racks, 1, "{case}");
        assert_eq!(g.maps_at_start, 4, "{case}");
        assert_eq!(g.finish_s, Some(43.0), "{case}");
    }
}

#[test]
fn under_ras_the_gang_finds_a_whole_rack_at_once() {
    // RAS's Algorithm 1 is blind to locality and fills nodes in snapshot order: at 0 s both
    // of busy's maps go to the first node listed, so one rack keeps all 4 of its slots. At
    // the tick of 3 s g (a gang of 4, rack required) starts whole in that rack: wait
    // 3 − 1 = 2 s, finish 13 s. lsap_ras places RAS's counts per node: the same.
    for algorithm in [Algorithm::Ras, Algorithm::LsapRas] {
        for sessions in [false, true] {
            let g = gang_job(algorithm, sessions);
            let case = format!("{algorithm:?}, sessions {sessions}");
            assert_eq!(g.start_s, Some(3.0), "{case}");
            assert_eq!(g.wait_s, Some(2.0), "{case}");
            assert_eq!(g.maps_started_s, Some(3.0), "{case}");
            assert_eq!(g.map_racks, 1, "{case}");
            assert_eq!(g.finish_s, Some(13.0), "{case}");
        }
    }
}

#[test]
fn a_policy_without_gangs_starts_the_gang_at_once_across_racks() {
    // lsap cannot honour gangs, so it sees g as 4 ordinary maps: at 3 s the 6 free slots
    // (3 per rack) take them all at once, necessarily in both racks; they finish at 13 s.
    let g = gang_job(Algorithm::Lsap, false);
    assert_eq!(g.start_s, Some(3.0));
    assert_eq!(g.wait_s, Some(2.0));
    assert_eq!(g.map_racks, 2);
    assert_eq!(g.finish_s, Some(13.0));
}

#[test]
fn a_waiting_rack_gang_strands_the_free_slots_of_racks_too_small_for_it() {
    // Fragmentation (docs/simulator.md, "Gangs"), measured after each epoch's placement. Under
    // lsap_quota g waits from the tick of 3 s to that of 33 s: after each of those ticks both
    // racks have 3 free map slots, fewer than g's 4, so all 6 are stranded; after the tick of
    // 33 s g runs and nothing waits. ∫ stranded = 6 · (33 − 3) = 180 slot-s over 30 s of
    // waiting: 6 slots while waiting; the run spans [0, 43 s] (g's last map ends at 43 s) on 8
    // map slots: 180 / (8 · 43) = 0.5233.
    for sessions in [false, true] {
        let r = simulate(&workload(), &config(Algorithm::LsapQuota, sessions)).unwrap();
        assert_eq!(r.summary.end_time_s, 43.0);
        let s = &r.summary;
        assert!((s.stranded_slots_while_waiting - 6.0).abs() < 1e-12, "{s:?}");
        assert!((s.stranded_slot_fraction - 180.0 / 344.0).abs() < 1e-12, "{s:?}");
    }
    // lsap starts g's 4 maps at the tick of 3 s, across racks: after that tick no gang waits
    // with fewer than its 4 running, so nothing is ever stranded.
    let r = simulate(&workload(), &config(Algorithm::Lsap, false)).unwrap();
    assert_eq!(r.summary.stranded_slot_fraction, 0.0);
    assert_eq!(r.summary.stranded_slots_while_waiting, 0.0);
}
