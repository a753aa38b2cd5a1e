//! placer's what-if reports (docs/simulator.md): the tables, plots and
//! shard manifests written from [`placer_sim::SimReport`]s, and the `index.html` page over them.

pub mod atomic;
pub mod display;
mod error;
pub mod index_html;
pub mod manifest;
pub mod plots;
pub mod tables;

pub use error::ReportError;
