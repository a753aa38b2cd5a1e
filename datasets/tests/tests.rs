//! The integration tests of `placer-datasets`, in one binary: `readers` (the trace readers on
//! the shipped traces in `tests/data`, DESIGN.md §Datasets) and `fair_allocations` (YARN
//! fair-scheduler allocation files).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod fair_allocations;
mod readers;
