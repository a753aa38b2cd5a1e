//! placer's what-if reports (DESIGN.md §CLI contract, `placer whatif`): the tables, plots and
//! shard manifests written from [`placer_sim::SimReport`]s.

mod error;
pub mod plots;

pub use error::ReportError;
