//! The integration tests of `placer-sim`, in one binary (`sim/README.md`):
//! `hand_computed` (completion times derived by hand), `invariants` (conservation, determinism
//! and errors on hand-built and seeded random workloads) and `pending_bound` (a snapshot's
//! per-job pending bound). Workloads come from `placer_testkit::workload`.

mod hand_computed;
mod invariants;
mod pending_bound;
