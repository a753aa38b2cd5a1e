//! placer's workload sources (DESIGN.md §Datasets): seeded generators of the papers' own setups
//! and, in later issues, readers for the shipped traces (SWIM, Rumen, SLS, Alibaba). Every
//! generator takes its seed as input and yields the same bytes for the same seed.

mod error;
mod fig9_snapshot;
mod lsap_snapshot;
mod multi_pool;
mod topology;

pub use error::DatasetError;
pub use fig9_snapshot::{fig9_snapshot, Fig9Spec};
pub use lsap_snapshot::{lsap_snapshot, LsapSnapshotSpec};
pub use multi_pool::{multi_pool_snapshot, MultiPoolSpec};
