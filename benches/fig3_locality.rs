//! The lsap paper's Fig. 3 and Fig. 5 setup (Guo, Fox, Zhou §4.2–4.3): nodes 100..500 step 50,
//! 4 map slots each, replication 3, 50% of slots idle, tasks = idle slots, one bandwidth for
//! every non-local read. Prints, per size, the node-local share of dl_sched and lsap (paper:
//! 83% and 97%) and the locality-cost reduction of lsap against dl_sched (paper Fig. 5: 70–90%),
//! averaged over seeds 1..=5. A quality comparison, not a timing: run it with
//! `cargo bench --bench fig3_locality`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use placer_datasets::{lsap_snapshot, LsapSnapshotSpec};
use placer_models::{Algorithm, PlaceResponse};
use placer_solver::{place, PlaceOptions};

const SEEDS: std::ops::RangeInclusive<u64> = 1..=5;

fn run(nodes: usize, seed: u64, algorithm: Algorithm) -> PlaceResponse {
    let spec = LsapSnapshotSpec::fig3(nodes, false, seed);
    let mut req = lsap_snapshot(&spec).expect("valid spec");
    req.policy.algorithm = algorithm;
    place(&req, &PlaceOptions::default()).expect("places")
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing: run only for bench.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    println!("| nodes | tasks | dl_sched node-local | lsap node-local | gain (points) | locality-cost reduction | non-local count reduction |");
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    for nodes in (100..=500).step_by(50) {
        let (mut dl_local, mut ls_local, mut dl_cost, mut ls_cost, mut dl_far, mut ls_far) =
            (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
        let mut tasks = 0.0;
        for seed in SEEDS {
            let dl = run(nodes, seed, Algorithm::DlSched);
            let ls = run(nodes, seed, Algorithm::Lsap);
            tasks += dl.stats.assigned as f64;
            dl_local += dl.stats.node_local as f64;
            ls_local += ls.stats.node_local as f64;
            dl_cost += dl.stats.objective;
            ls_cost += ls.stats.objective;
            dl_far += (dl.stats.rack_local + dl.stats.remote) as f64;
            ls_far += (ls.stats.rack_local + ls.stats.remote) as f64;
        }
        let n = SEEDS.count() as f64;
        println!(
            "| {nodes} | {} | {:.1}% | {:.1}% | {:+.1} | {:.1}% | {:.1}% |",
            tasks / n,
            100.0 * dl_local / tasks,
            100.0 * ls_local / tasks,
            100.0 * (ls_local - dl_local) / tasks,
            100.0 * (1.0 - ls_cost / dl_cost),
            100.0 * (1.0 - ls_far / dl_far),
        );
    }
}
