//! placer's workload sources (DESIGN.md §Datasets): seeded generators of the papers' own setups
//! and readers for the shipped traces (SWIM, Rumen, SLS, Alibaba), all yielding one
//! [`Workload`] model. Every generator takes its seed as input and yields the same bytes for the
//! same seed.

pub mod alibaba;
mod error;
mod fair_bm;
mod fig9_snapshot;
mod lsap_snapshot;
mod multi_pool;
pub mod replicas;
pub mod rumen;
mod sampling;
pub mod sls;
pub mod swim;
mod topology;
pub mod workload;

pub use error::DatasetError;
pub use fair_bm::{fair_bm, BmBin, FairBmSpec, FAIR_TABLE2};
pub use fig9_snapshot::{fig9_snapshot, Fig9Spec};
pub use lsap_snapshot::{lsap_snapshot, LsapSnapshotSpec};
pub use multi_pool::{multi_pool_snapshot, MultiPoolSpec};
pub use workload::{
    Capacity, Demand, JobSpec, MapSpec, NodeSpec, PoolSpec, RackSpec, ReduceSpec, Topology,
    Workload,
};
