//! The integration tests of `placer-datasets`, in one binary: `readers` (the trace readers on
//! the shipped traces in `tests/data`), `fair_allocations` (YARN fair-scheduler allocation
//! files) and `google` (the Google 2011 cluster-trace reader on a hand-written fixture).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod fair_allocations;
mod google;
mod readers;
