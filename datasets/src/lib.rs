//! placer's workload sources (docs/simulator.md, "Inputs"): seeded generators of the papers' own
//! setups and readers for the shipped traces (SWIM, Rumen, SLS, Alibaba, Google 2011), all yielding
//! one [`Workload`] model; and the YARN fair-scheduler allocation file ([`fair_allocations`]).
//! Every generator takes its seed as input and yields the same bytes for the same seed.

pub mod alibaba;
mod error;
pub mod fair_allocations;
mod fair_bm;
mod fig9_snapshot;
mod gang_mix;
pub mod google;
mod lsap_snapshot;
mod multi_pool;
mod ras_mix;
pub mod replicas;
pub mod rumen;
mod sampling;
mod shuffle_watcher_mix;
pub mod sls;
mod small_jobs;
pub mod swim;
mod topology;
mod trace_gangs;
pub mod workload;

pub use error::DatasetError;
pub use fair_allocations::{parse_fair_allocations, read_fair_allocations, FairAllocations};
pub use fair_bm::{fair_bm, BmBin, FairBmSpec, FAIR_TABLE2};
pub use fig9_snapshot::{fig9_snapshot, Fig9Spec};
pub use gang_mix::{gang_mix, GangMixSpec};
pub use lsap_snapshot::{lsap_snapshot, LsapSnapshotSpec};
pub use multi_pool::{multi_pool_snapshot, MultiPoolSpec};
pub use ras_mix::{ras_mix, RasApp, RasExperiment, RasJob, RasProfile, RasSpec, RAS_TABLE1};
pub use shuffle_watcher_mix::{
    shuffle_watcher_mix, sw_shuffle_class, ShuffleClass, ShuffleWatcherSpec, SwBenchmark,
    SwCompute, SwSizeBin, SW_CROSS_RACK_MBPS, SW_RACK_MBPS, SW_TABLE1, SW_TABLE2,
};
pub use small_jobs::{
    small_jobs, SmallJobsSpec, SMALL_JOBS_LAUNCHES_PER_S, SMALL_JOBS_TOTAL_MAPS, SMALL_JOB_SIZES,
};
pub use trace_gangs::{make_gangs, TraceGangs, TraceGangsOutcome};
pub use workload::{
    Capacity, Demand, JobSpec, MapSpec, NodeSpec, PoolSpec, RackSpec, ReduceSpec, Topology,
    Workload,
};
