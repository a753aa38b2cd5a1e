//! placer-solver's integration tests, in one binary (docs/testing.md, "Test binaries"):
//! ShuffleWatcher's figures as served, DRF's examples, the MIP reference of RAS's epoch problem
//! against hand-derived cases and a brute-force oracle, and gangs and topology domains under
//! `lsap_quota` (their MIP against a brute-force oracle, Kueue's TAS examples) and under the
//! multi-resource policies (hand cases, a brute force of every placement), the greedy
//! per-workload baselines of Kueue's TAS and the gang-unaware one, the slots held for
//! starving gangs, and slices kept whole.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod drf;
mod finite;
mod gang;
mod gang_multi_resource;
mod gang_reservation;
mod gang_slices;
mod kueue;
#[cfg(feature = "mip")]
mod ras_mip;
mod shuffle_watcher;
