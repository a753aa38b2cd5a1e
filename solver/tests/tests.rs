//! placer-solver's integration tests, in one binary (docs/testing.md, "Test binaries"):
//! ShuffleWatcher's figures as served, DRF's examples, and the MIP reference of RAS's epoch problem
//! against hand-derived cases and a brute-force oracle.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod drf;
mod finite;
#[cfg(feature = "mip")]
mod ras_mip;
mod shuffle_watcher;
