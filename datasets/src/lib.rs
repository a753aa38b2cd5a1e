//! placer's workload sources (DESIGN.md §Datasets): seeded generators of the papers' own setups
//! and, in later issues, readers for the shipped traces (SWIM, Rumen, SLS, Alibaba). Every
//! generator takes its seed as input and yields the same bytes for the same seed.

mod error;
mod lsap_snapshot;

pub use error::DatasetError;
pub use lsap_snapshot::{lsap_snapshot, LsapSnapshotSpec};
