//! placer's what-if reports (DESIGN.md §CLI contract, `placer whatif`): the tables, plots and
//! shard manifests written from [`placer_sim::SimReport`]s.

pub mod atomic;
mod error;
pub mod manifest;
pub mod plots;
pub mod tables;

pub use error::ReportError;
