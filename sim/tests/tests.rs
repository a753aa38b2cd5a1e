//! The integration tests of `placer-sim`, in one binary (`sim/README.md`):
//! `gangs` (all-or-nothing jobs kept inside a rack), `hand_computed` (completion times derived
//! by hand), `invariants` (conservation, determinism
//! and errors on hand-built and seeded random workloads), `pending_bound` (a snapshot's
//! per-job pending bound) and `ras_table1_alone` (RAS Table 1's jobs alone and in Experiment 2's J3–J5 window). Workloads come
//! from `placer_testkit::workload` and the datasets' generators.

mod gangs;
mod hand_computed;
mod invariants;
mod pending_bound;
mod ras_table1_alone;
