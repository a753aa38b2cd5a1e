//! Conservation, determinism and error cases of the simulator (`sim/README.md`:
//! "Deterministic for a seed"; "nothing panics on any input"), on hand-built and
//! seeded random workloads, with `SimConfig::audit` on (slots never oversubscribed at any
//! epoch, time never goes back, every task completes exactly once).

use placer_datasets::{PoolSpec, Workload};
use placer_models::Algorithm;
use placer_sim::{
    simulate, simulate_many, ClusterSource, CompletionReport, Goodput, JobTasks, NetSatMeasure,
    Offers, PendingBound, ReplicaSource, Sharing, SimConfig, SimError, SimReport, StopReason,
    Victim,
};
use placer_testkit::workload::{job, map, random_workload, reduce, topology};
use proptest::prelude::*;

/// Every registered policy's algorithm.
fn algorithms() -> Vec<Algorithm> {
    placer_solver::registry::REGISTRY.iter().map(|&(a, _)| a).collect()
}

/// Conservation checks every completed run must pass (`uncapped`: a multi-resource policy on a
/// workload with demands, whose nodes have no slot cap).
fn check_conservation(w: &Workload, r: &SimReport, uncapped: bool) {
    let tasks: usize = w.jobs.iter().map(|j| j.maps.len() + j.reduces.len()).sum();
    assert_eq!(r.summary.task_runs, tasks + r.summary.preemptions, "runs = tasks + re-runs");
    for (spec, j) in w.jobs.iter().zip(&r.jobs) {
        assert_eq!(j.task_runs, spec.maps.len() + spec.reduces.len() + j.preempted);
        assert_eq!(
            j.maps_node_local + j.maps_rack_local + j.maps_remote + j.maps_no_preference,
            spec.maps.len(),
            "every map completed once"
        );
        assert!(j.finish_s.is_some_and(|f| f >= j.submit_s), "{j:?}");
    }
    for pair in r.epochs.windows(2) {
        assert!(pair[0].time_s < pair[1].time_s, "epochs in time order");
    }
    for e in &r.epochs {
        assert!(uncapped || e.assigned <= e.free_map_slots + e.free_reduce_slots);
        assert!(e.offered <= e.pending);
    }
    assert_eq!(r.timing.solve_ms.len(), r.epochs.len());
    // The network's measured cross-rack bytes over time (ShuffleWatcher Figs. 1 and 10) add up
    // to the bytes counted at flow ends, shuffle and all; so do the jobs' Table 3 columns.
    let series = &r.cross_rack_series;
    let near = |a: f64, b: f64| (a - b).abs() <= 1e-6 * b.abs().max(1.0);
    let total: f64 = series.total_bytes.iter().sum();
    let shuffle: f64 = series.shuffle_bytes.iter().sum();
    assert!(near(total, r.summary.cross_rack_gb * 1e9), "{total} vs {:?}", r.summary);
    assert!(near(shuffle, r.summary.cross_rack_shuffle_gb * 1e9), "{shuffle} vs {:?}", r.summary);
    let jobs_cross: f64 = r.jobs.iter().map(|j| j.cross_rack_shuffle_gb + j.remote_map_gb).sum();
    assert!(near(jobs_cross * 1e9, r.summary.cross_rack_gb * 1e9));
    // The run ends with its last job or the epoch tick right after it (3 s epochs here), not
    // at a stale flow end far later.
    let last = r.jobs.iter().filter_map(|j| j.finish_s).fold(0.0_f64, f64::max);
    assert!(
        r.summary.end_time_s <= last + 3.0,
        "end {} after last finish {last}",
        r.summary.end_time_s
    );
}

#[test]
fn random_workloads_conserve_tasks_under_every_algorithm() {
    let w = random_workload(7, 12, 25, 12, 4, 120.0);
    let cluster =
        ClusterSource::Synthetic { nodes: 12, rack_size: 4, map_slots: 2, reduce_slots: 1 };
    for algorithm in algorithms() {
        for bound in
            [PendingBound::All, PendingBound::Capacity, PendingBound::FreeSlots, PendingBound::Auto]
        {
            let cfg = SimConfig {
                cluster: cluster.clone(),
                pending_bound: bound,
                audit: true,
                ..SimConfig::with_algorithm(algorithm)
            };
            let r = simulate(&w, &cfg).unwrap();
            assert_eq!(r.stop, StopReason::Completed, "{algorithm:?}");
            check_conservation(&w, &r, false);
            // Three racks: the traffic checks of `check_conservation` are not vacuous.
            assert!(r.summary.cross_rack_shuffle_gb > 0.0, "{algorithm:?}");
        }
    }
}

#[test]
fn preempted_tasks_rerun_and_are_counted_apart() {
    // One node with 2 map slots. Pool b's job (4 maps of 100 s) fills it at t = 0; pool a
    // (min share 2, timeout 0) submits 2 maps at 10 s. The fair scheduler kills b's tasks for
    // a's min share; they run again later.
    let mut w = Workload {
        jobs: vec![
            job("b", "b", 0.0, vec![map(0, &["n0"], 100.0, 0); 4], vec![]),
            job("a", "a", 10.0, vec![map(0, &["n0"], 10.0, 0); 2], vec![]),
        ],
        pools: vec![
            PoolSpec { id: "a".into(), weight: 1.0, min_map_share: 2.0, min_reduce_share: 0.0 },
            PoolSpec { id: "b".into(), weight: 1.0, min_map_share: 0.0, min_reduce_share: 0.0 },
        ],
        topology: Some(topology(&[&[("n0", 2, 0)]])),
        ..Workload::default()
    };
    w.sort_jobs();
    // Without a setup task: a's would wait for a slot, and a job that has not been set up
    // has no pending maps to preempt for (as in Hadoop 0.20, whose Fair Scheduler counts a
    // job's demand once it runs); with one, b's first maps end before a can claim anything.
    let cfg = SimConfig {
        min_share_timeout_s: Some(0.0),
        audit: true,
        job_setup_s: 0.0,
        ..SimConfig::with_algorithm(Algorithm::Fair)
    };
    let r = simulate(&w, &cfg).unwrap();
    assert_eq!(r.stop, StopReason::Completed);
    assert!(
        r.summary.preemptions >= 1,
        "{:?} {:#?}",
        r.summary,
        &r.epochs[..r.epochs.len().min(4)]
    );
    assert_eq!(r.jobs[0].preempted, r.summary.preemptions);
    check_conservation(&w, &r, false);
    // a finishes long before b would have freed a slot at 100 s.
    assert!(r.jobs[1].finish_s.unwrap() < 100.0, "{:?}", r.jobs[1]);
}

#[test]
fn same_config_same_report_and_parallel_equals_sequential() {
    let w = random_workload(3, 20, 30, 20, 5, 200.0);
    let configs: Vec<SimConfig> = [Algorithm::Delay, Algorithm::Lsap, Algorithm::LsapFair]
        .into_iter()
        .map(|a| SimConfig {
            cluster: ClusterSource::Synthetic {
                nodes: 20,
                rack_size: 5,
                map_slots: 2,
                reduce_slots: 1,
            },
            replicas: ReplicaSource::Synthesize { replication: 3 },
            seed: 11,
            ..SimConfig::with_algorithm(a)
        })
        .collect();
    let parallel = simulate_many(&w, &configs);
    for (cfg, par) in configs.iter().zip(parallel) {
        let a = simulate(&w, cfg).unwrap();
        let b = simulate(&w, cfg).unwrap();
        let par = par.unwrap();
        assert!(a.same_outcome(&b) && a.same_outcome(&par), "{}", cfg.name);
    }
    // Another seed redraws the replicas.
    let other = SimConfig { seed: 12, ..configs[1].clone() };
    let a = simulate(&w, &configs[1]).unwrap();
    let b = simulate(&w, &other).unwrap();
    assert!(!a.same_outcome(&b));
}

#[test]
fn errors_name_their_cause() {
    let w = Workload {
        jobs: vec![job("a", "default", 0.0, vec![map(1, &["nowhere"], 1.0, 0)], vec![])],
        topology: Some(topology(&[&[("n0", 1, 1)]])),
        ..Workload::default()
    };
    let err = simulate(&w, &SimConfig::default()).unwrap_err();
    assert_eq!(err, SimError::UnknownNode { job: "a".into(), map: 0, node: "nowhere".into() });

    let cfg = SimConfig { epoch_s: 0.0, ..SimConfig::default() };
    let err = simulate(&w, &cfg).unwrap_err();
    assert!(matches!(err, SimError::Config { ref field, .. } if field == "epoch_s"), "{err}");

    let mut bad = w.clone();
    bad.jobs[0].maps[0].replicas.clear();
    bad.jobs[0].maps[0].compute_s = f64::NAN;
    let err = simulate(&bad, &SimConfig::default()).unwrap_err();
    assert!(
        matches!(err, SimError::Workload { ref path, .. } if path == "jobs[0].maps[0].compute_s")
    );

    // ShuffleWatcher's knobs have the wire's domains (§4.2: NWSaturationThreshold a fraction
    // of the uplink in (0, 1], MapCompletionThreshold in [0, 1]; a starvation window > 0).
    let knob = |policy: placer_models::Policy| {
        let cfg = SimConfig { policy, ..SimConfig::default() };
        match simulate(&w, &cfg).unwrap_err() {
            SimError::Config { field, .. } => field,
            other => panic!("{other}"),
        }
    };
    let with = |key: &str, v: f64| {
        let mut policy = placer_models::Policy::default();
        policy.set(key, v);
        policy
    };
    for bad in [0.0, 1.5, f64::NAN] {
        assert_eq!(knob(with("saturation_threshold", bad)), "policy.saturation_threshold");
    }
    for bad in [-0.1, 1.01, f64::NAN] {
        let field = knob(with("map_completion_threshold", bad));
        assert_eq!(field, "policy.map_completion_threshold");
    }
    for bad in [0.0, -5.0, f64::INFINITY] {
        assert_eq!(knob(with("starvation_window_s", bad)), "policy.starvation_window_s");
    }
    assert_eq!(knob(with("shuffle_light_ratio", 2.0)), "policy.shuffle_light_ratio");
    // The loss model's domains: a copier cap ≥ 1, a goodput curve's fields.
    let field = |cfg: SimConfig| match simulate(&w, &cfg).unwrap_err() {
        SimError::Config { field, .. } => field,
        other => panic!("{other}"),
    };
    assert_eq!(field(SimConfig { copiers: Some(0), ..SimConfig::default() }), "copiers");
    let g = Goodput { floor: 0.0, ..Goodput::default() };
    assert_eq!(field(SimConfig { goodput: Some(g), ..SimConfig::default() }), "goodput.floor");

    // An engine the algorithm does not run on fails at the first epoch.
    bad.jobs[0].maps[0].compute_s = 1.0;
    bad.jobs[0].submit_s = 4.0;
    let mut cfg = SimConfig::with_algorithm(Algorithm::Ras);
    cfg.policy.solver = placer_models::SolverEngine::Jv;
    // No setup task (it would take the epoch at 6 s and move the first solve to 9 s).
    cfg.job_setup_s = 0.0;
    let err = simulate(&bad, &cfg).unwrap_err();
    assert!(matches!(err, SimError::Solver { time_s, .. } if time_s == 6.0), "{err}");
    // A multi-resource policy on a workload with demands places at epochs: heartbeat offers,
    // which count free slots, are refused. Without demands it keeps the slots and may beat.
    let beats = Offers::Heartbeats { assign_multiple: false };
    let cfg = SimConfig { offers: beats, ..SimConfig::with_algorithm(Algorithm::Ras) };
    assert_eq!(simulate(&bad, &cfg).unwrap().stop, StopReason::Completed);
    bad.jobs[0].maps[0].demand = Some(placer_datasets::Demand { cpu: 0.5, mem: 0.5, io: 0.5 });
    let err = simulate(&bad, &cfg).unwrap_err();
    assert!(matches!(err, SimError::Config { ref field, .. } if field == "offers"), "{err}");
    // A negative deadline names its job.
    bad.jobs[0].deadline_s = Some(-1.0);
    let err = simulate(&bad, &SimConfig::default()).unwrap_err();
    assert!(
        matches!(err, SimError::Workload { ref path, .. } if path == "jobs[0].deadline_s"),
        "{err}"
    );
}

#[test]
fn reduces_without_reduce_slots_stall_instead_of_looping() {
    let w = Workload {
        jobs: vec![job("a", "default", 0.0, vec![map(0, &["n0"], 1.0, 0)], vec![reduce(1, 1.0)])],
        topology: Some(topology(&[&[("n0", 1, 0)]])),
        ..Workload::default()
    };
    let cfg = SimConfig { stall_epochs: 5, audit: true, ..SimConfig::default() };
    let r = simulate(&w, &cfg).unwrap();
    assert_eq!(r.stop, StopReason::Stalled);
    assert_eq!(r.jobs[0].finish_s, None);
    assert_eq!(r.summary.jobs_finished, 0);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn small_random_runs_keep_the_invariants(
        seed in 0u64..10_000,
        nodes in 1usize..7,
        rack_size in 1usize..4,
        map_slots in 0u32..3,
        reduce_slots in 0u32..3,
        jobs in 1usize..6,
        algorithm in 0usize..algorithms().len(),
        bound in 0usize..4,
        preempt in any::<bool>(),
        epoch_s in 0.5f64..5.0,
        uplink in proptest::option::of(50.0f64..1000.0),
        offers in 0usize..4,
        slowstart in 0usize..4,
        task_overhead_s in 0.0f64..2.0,
        // Every job's outputs (≤ 5 × 50 MB) fit one node's room: eviction always unblocks.
        intermediate_gb in proptest::option::of(0.25f64..1.0),
        least_progress in any::<bool>(),
        demand in proptest::option::of((0.0f64..0.8, 0.0f64..0.8, 0.0f64..0.8)),
        // Hadoop 0.20's ends reported at heartbeats and setup / cleanup tasks in slots (the
        // default), each of them off, or both.
        hadoop in 0usize..4,
        job_task_s in 0.0f64..4.0,
        // A network that loses goodput (n0, β, floor, RTO), a copier cap, NetSat's measure.
        loss in proptest::option::of((1u32..4, 0.0f64..1.0, 0.1f64..1.0, 0.0f64..0.5)),
        copiers in proptest::option::of(1u32..4),
        offered in any::<bool>(),
        max_min in any::<bool>(),
        // Epochs as deltas against an in-process session; the audit checks at every epoch that
        // the session holds the whole snapshot.
        sessions in any::<bool>(),
    ) {
        let mut w = random_workload(seed, nodes, jobs, 5, 3, 30.0);
        if let Some((cpu, mem, io)) = demand {
            for m in w.jobs.iter_mut().flat_map(|j| j.maps.iter_mut()) {
                m.demand = Some(placer_datasets::Demand { cpu, mem, io });
            }
        }
        let cfg = SimConfig {
            offers: [
                Offers::Auto,
                Offers::Epochs,
                Offers::Heartbeats { assign_multiple: false },
                Offers::Heartbeats { assign_multiple: true },
            ][offers],
            slowstart: [0.0, 0.05, 0.5, 1.0][slowstart],
            task_overhead_s,
            intermediate_gb,
            victim: if least_progress { Victim::LeastProgress } else { Victim::LatestSubmitted },
            cluster: ClusterSource::Synthetic { nodes, rack_size, map_slots, reduce_slots },
            pending_bound: [PendingBound::All, PendingBound::Capacity, PendingBound::FreeSlots, PendingBound::Auto][bound],
            min_share_timeout_s: preempt.then_some(0.0),
            fair_share_timeout_s: preempt.then_some(3.0),
            epoch_s,
            uplink_mbps: uplink,
            goodput: loss.map(|(n0, beta, floor, rto_s)| Goodput { n0, beta, floor, rto_s }),
            copiers,
            netsat_measure: if offered { NetSatMeasure::Offered } else { NetSatMeasure::Delivered },
            sharing: if max_min { Sharing::MaxMin } else { Sharing::PerLink },
            stall_epochs: 20,
            audit: true,
            sessions,
            // Far beyond any of these runs: reaching it means a run that never ends (e.g. reduces
            // copying forever for maps that have no slot must count as a stall).
            max_time_s: Some(20_000.0),
            completion_report: [CompletionReport::Heartbeat, CompletionReport::Immediate][hadoop % 2],
            job_tasks: [JobTasks::Slots, JobTasks::Delays][hadoop / 2],
            job_setup_s: job_task_s,
            job_cleanup_s: job_task_s / 2.0,
            ..SimConfig::with_algorithm(algorithms()[algorithm])
        };
        let multi = placer_solver::registry::REGISTRY[algorithm].1.multi_resource();
        // Uncapped only when some task carries a demand: a workload whose jobs have no maps
        // (the only tasks given one here) is slot-based, and stalls without reduce slots.
        let demands = w.jobs.iter().any(|j| j.maps.iter().any(|m| m.demand.is_some()));
        let uncapped = demands && multi;
        if uncapped && matches!(cfg.offers, Offers::Heartbeats { .. }) {
            let refused = matches!(
                simulate(&w, &cfg),
                Err(SimError::Config { ref field, .. }) if field == "offers"
            );
            prop_assert!(refused);
            return Ok(());
        }
        let r = simulate(&w, &cfg).unwrap();
        prop_assert!(r.stop != StopReason::TimeLimit, "{:?}", cfg);
        let needs_maps = w.jobs.iter().any(|j| !j.maps.is_empty());
        let needs_reduces = w.jobs.iter().any(|j| !j.reduces.is_empty());
        if (map_slots > 0 || !needs_maps) && (reduce_slots > 0 || !needs_reduces) {
            prop_assert_eq!(r.stop, StopReason::Completed);
        }
        if uncapped {
            // Every map fits an empty node (demands < 1) and reduces have no demand: an
            // uncapped run finishes whatever the configured slots.
            prop_assert_eq!(r.stop, StopReason::Completed);
        }
        if r.stop == StopReason::Completed {
            check_conservation(&w, &r, uncapped);
        }
        let again = simulate(&w, &cfg).unwrap();
        prop_assert!(r.same_outcome(&again));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// The loss model off is today's simulator: a goodput curve that never engages (n0 above
    /// any link's flows, no timeout) and NetSat's delivered measure give the very report of a
    /// run without them, per link and max-min, with and without rack uplinks.
    #[test]
    fn a_loss_model_that_never_engages_changes_nothing(
        seed in 0u64..10_000,
        jobs in 1usize..6,
        uplink in proptest::option::of(50.0f64..1000.0),
        max_min in any::<bool>(),
        algorithm in 0usize..algorithms().len(),
    ) {
        let w = random_workload(seed, 6, jobs, 5, 3, 30.0);
        let cfg = SimConfig {
            cluster: ClusterSource::Synthetic { nodes: 6, rack_size: 2, map_slots: 2, reduce_slots: 1 },
            uplink_mbps: uplink,
            sharing: if max_min { Sharing::MaxMin } else { Sharing::PerLink },
            max_time_s: Some(20_000.0),
            ..SimConfig::with_algorithm(algorithms()[algorithm])
        };
        let idle = Goodput { n0: u32::MAX, rto_s: 0.0, ..Goodput::default() };
        let off = SimConfig { goodput: Some(idle), netsat_measure: NetSatMeasure::Delivered, ..cfg.clone() };
        let a = simulate(&w, &cfg).unwrap();
        let b = simulate(&w, &off).unwrap();
        prop_assert!(a.same_outcome(&b));
    }
}
