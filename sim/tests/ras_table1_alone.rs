//! RAS Table 1 (Polo et al. §4.1) through the simulator: each job's "length in isolation" ("the
//! time taken by each job to complete if the entire experimental cluster is dedicated to it")
//! and the J3–J5 window of Experiment 2's goals (§4.3), alone and with J1. Jobs come from
//! `placer_datasets::ras_mix` and run on the 20 TaskTrackers as `placer whatif --workload ras`
//! runs them: one rack of 1,000 Mbit/s, epochs of 3 s, 1 s task start-up, slowstart 0.05.

use placer_datasets::{ras_mix, RasExperiment, RasJob, RasSpec, RAS_TABLE1};
use placer_models::Algorithm;
use placer_sim::{simulate, ClusterSource, SimConfig, SimReport, StopReason};

/// `jobs` (Experiment 2's goals, every map's compute × `work_scale`) under `ras`.
fn run_ras(jobs: Vec<RasJob>, work_scale: f64) -> Result<SimReport, String> {
    let spec = RasSpec { jobs, work_scale, ..RasSpec::paper(RasExperiment::Two, 1) };
    let workload = ras_mix(&spec).map_err(|e| e.to_string())?;
    let config = SimConfig {
        cluster: ClusterSource::Workload { map_slots: 4, reduce_slots: 2 },
        rack_mbps: 1000.0,
        cross_rack_mbps: 1000.0,
        // The generator charges all of Table 1's length to the maps' waves: no setup or
        // cleanup on top.
        job_setup_s: 0.0,
        job_cleanup_s: 0.0,
        ..SimConfig::with_algorithm(Algorithm::Ras)
    };
    let r = simulate(&workload, &config).map_err(|e| e.to_string())?;
    if r.stop != StopReason::Completed {
        return Err(format!("stopped: {:?}", r.stop));
    }
    Ok(r)
}

#[test]
fn ras_table1_each_job_alone_within_5_percent_of_its_length() {
    // Alone, RAS runs a job at its own concurrency (Table 2: Sort 20 · 2 = 40, Combine 20 · 4 =
    // 80, Select 20 · 5 = 100 maps at once), in the whole waves the generator charged
    // Table 1's length to: J1 2,500 s (36 waves), J2 500 (1), J3 400 (2), J4 280 (4), J5 50
    // (1), J6 750 (3), J7 2,500 (10), J8 350 (8), J9 250 (3), each within 5%. (What is left
    // is each wave's wait for the next 3 s epoch: up to 36 · 3 s on J1.)
    for job in &RAS_TABLE1 {
        let alone = RasJob { submit_s: 0.0, goal_s: job.goal_s - job.submit_s, ..*job };
        let got = run_ras(vec![alone], 1.0).unwrap().jobs[0].finish_s.unwrap();
        let error = got / job.isolation_s - 1.0;
        assert!(
            error.abs() <= 0.05,
            "{}: {got:.1} s against Table 1's {} s ({:+.1}%)",
            job.label,
            job.isolation_s,
            100.0 * error
        );
    }
}

#[test]
fn ras_table1_j3_j5_window_meets_every_goal_without_j1() {
    // Experiment 2's J3 (Select, 160 maps, submitted at 200 s, goal 1,250 s), J4 (400 maps,
    // 350 s, goal 1,100 s) and J5 (80 maps, 500 s, goal 950 s) at the calibrated load
    // (work_scale 0.684, BENCHMARKS.md): their maps (cpu 0.15, io 0.20) need io, at the rates
    // eq. 2's s_req asks for (the remaining work spread to the goal; a map holds its slot
    // (0.684 · L − 3 s) / waves), J3 160 · 135 s · 0.2 / 1,050 s = 4.1, J4 400 · 47 s · 0.2 /
    // 750 s = 5.0, J5 80 · 31 s · 0.2 / 450 s = 1.1 TaskTrackers' worth: 10 of the cluster's
    // 20, so every s_req fits and RAS meets all three
    // goals (the paper: J3 at 802 s, J4 at 550 s, J5 at 560 s). Alone each takes 0.684 × its
    // length: J3 ends at 200 + 274 = 474 s at the earliest, J4 at 350 + 192 = 542 s, J5 at
    // 500 + 34 = 534 s.
    let window: Vec<RasJob> =
        RAS_TABLE1.iter().filter(|j| ["J3", "J4", "J5"].contains(&j.label)).copied().collect();
    let r = run_ras(window, 0.684).unwrap();
    for (j, earliest) in r.jobs.iter().zip([474.0, 542.0, 534.0]) {
        let finish = j.finish_s.unwrap();
        assert_eq!(j.goal_met, Some(true), "{}: {finish} s against {:?}", j.id, j.goal_s);
        assert!(finish >= earliest - 5.0, "{}: {finish} s", j.id);
    }
    assert_eq!((r.summary.goals, r.summary.goals_met), (3, 3));
}

#[test]
fn ras_table1_j1_yields_to_the_j3_j5_window() {
    // Experiment 2's J1 (Sort, 1,440 maps, submitted at 0 s, goal 3,000 s) with J3, J4 and J5
    // at the calibrated load (work_scale 0.684). Alone they take 0.684 × Table 1's lengths
    // of the whole cluster: J1 1,710 s, J3 274 s, J4 192 s, J5 34 s, 2,210 s in all, so
    // earliest goal first fits every goal: J3–J5's 500 s fit their window (200–1,250 s) and J1
    // has the cluster for 2,500 of its 3,000 s. RAS eq. 2's even spread had J1 claim about half
    // the cluster's io throughout the window (1,440 · 47 s · 0.45 / 3,000 s ≈ 10 TaskTrackers'
    // worth at 0 s), and `ras` met only J1's goal (J3, J4, J5 at 1,291 / 1,201 / 973 s); `drf`
    // meets all four. placer's goal plan makes J1 yield while it has slack.
    let jobs: Vec<RasJob> = RAS_TABLE1
        .iter()
        .filter(|j| ["J1", "J3", "J4", "J5"].contains(&j.label))
        .copied()
        .collect();
    let r = run_ras(jobs, 0.684).unwrap();
    for (j, earliest) in r.jobs.iter().zip([1710.0, 474.0, 542.0, 534.0]) {
        let finish = j.finish_s.unwrap();
        assert_eq!(j.goal_met, Some(true), "{}: {finish} s against {:?}", j.id, j.goal_s);
        assert!(finish >= earliest - 5.0, "{}: {finish} s", j.id);
    }
    assert_eq!((r.summary.goals, r.summary.goals_met), (4, 4));
}
