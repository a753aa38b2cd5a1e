//! placer's integration tests, in one binary (docs/testing.md, "Test binaries"): the in-process
//! API, the CLI contract, the conformance suite of every exact engine, the epoch pipeline and the
//! fair-sharing family `lsap_shuffle`, `ras` and `lsap_ras` on hand-derived snapshots, their
//! property tests against brute-force oracles, `placer whatif` and its report page, `placer
//! serve`'s SIGTERM drain, and TLS, client certificates and bearer tokens with real clients.
//! Snapshots and workloads come from `placer-testkit`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod anytime;
mod api;
mod browser;
mod cli;
mod conformance;
mod dashboard;
mod fair_policies;
mod fair_properties;
mod limits;
mod placement;
mod properties;
mod ras_policies;
mod ras_properties;
mod serve;
mod shuffle_policies;
mod shuffle_properties;
mod tls;
mod whatif;
mod whatif_report;
