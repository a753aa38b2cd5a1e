//! The integration tests of `placer-datasets`, in one binary: `readers` (the trace readers on
//! the shipped traces in `tests/data`, DESIGN.md §Datasets).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod readers;
