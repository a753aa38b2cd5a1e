//! The per-job pending bound of a snapshot (`sim/README.md`; `PendingBound` docs):
//! under `FreeSlots` a job offers at most as many tasks as there are free slots, node-local
//! candidates first, and the epoch still finds the node-local placement.

use placer_datasets::Workload;
use placer_models::Algorithm;
use placer_sim::{simulate, PendingBound, SimConfig};
use placer_testkit::workload::{job, map, topology};

#[test]
fn free_slots_bound_offers_node_local_candidates_first() {
    // n0 has the only map slot; n1 (same rack, no slots) holds m0's and m1's input, n0 holds
    // m2's. One free slot → one task offered; in task order that would be m0 (rack-local),
    // the bound offers m2 first, which lsap places node-local. Later epochs place m0, m1
    // rack-local.
    let workload = Workload {
        jobs: vec![job(
            "a",
            "default",
            0.0,
            vec![
                map(1_000, &["n1"], 1.0, 0),
                map(1_000, &["n1"], 1.0, 0),
                map(1_000, &["n0"], 1.0, 0),
            ],
            vec![],
        )],
        topology: Some(topology(&[&[("n0", 1, 0), ("n1", 0, 0)]])),
        ..Workload::default()
    };
    for (bound, offered) in
        [(PendingBound::FreeSlots, 1), (PendingBound::Capacity, 1), (PendingBound::All, 3)]
    {
        let cfg = SimConfig {
            pending_bound: bound,
            audit: true,
            ..SimConfig::with_algorithm(Algorithm::Lsap)
        };
        let r = simulate(&workload, &cfg).unwrap();
        let first = &r.epochs[0];
        assert_eq!((first.pending, first.offered), (3, offered), "{bound:?}");
        assert_eq!((first.node_local, first.rack_local), (1, 0), "{bound:?}");
        assert_eq!((r.jobs[0].maps_node_local, r.jobs[0].maps_rack_local), (1, 2));
    }
}

#[test]
fn auto_resolves_by_algorithm() {
    assert_eq!(PendingBound::Auto.resolve(Algorithm::Lsap), PendingBound::Capacity);
    assert_eq!(PendingBound::Auto.resolve(Algorithm::Fifo), PendingBound::FreeSlots);
    assert_eq!(PendingBound::Auto.resolve(Algorithm::DlSched), PendingBound::FreeSlots);
    assert_eq!(PendingBound::Auto.resolve(Algorithm::LsapQuota), PendingBound::Capacity);
    assert_eq!(PendingBound::Auto.resolve(Algorithm::Delay), PendingBound::Capacity);
    assert_eq!(PendingBound::All.resolve(Algorithm::Lsap), PendingBound::All);
}
