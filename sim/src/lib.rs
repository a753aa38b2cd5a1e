//! placer's what-if simulator (`sim/README.md`): replays a
//! [`placer_datasets::Workload`] on a simulated Hadoop-1 cluster of map and reduce slots (FAIR,
//! Zaharia et al. §2: slots, heartbeats, data locality), calling the very same
//! `placer_solver::place` every epoch that the service runs, and reports locality, response
//! times and slowdowns, bytes moved, fairness distance, utilisation and solver time.
//!
//! ```no_run
//! use placer_sim::{simulate, simulate_many, ClusterSource, SimConfig};
//! # let workload = placer_datasets::Workload::default();
//! let cluster = ClusterSource::Synthetic { nodes: 100, rack_size: 20, map_slots: 4, reduce_slots: 2 };
//! // Every policy this build implements, side by side.
//! let configs: Vec<SimConfig> = placer_solver::registry::REGISTRY
//!     .iter()
//!     .map(|&(a, _)| SimConfig { cluster: cluster.clone(), ..SimConfig::with_algorithm(a) })
//!     .collect();
//! for report in simulate_many(&workload, &configs) {
//!     let report = report?;
//!     println!("{}: {:.1}% node-local", report.name, 100.0 * report.summary.node_local);
//! }
//! # Ok::<(), placer_sim::SimError>(())
//! ```
//!
//! The layout (`sim/README.md` draws it): the event loop in `engine.rs`, the World in `world/`
//! (the cluster's state, a task's life and the mechanisms), the Master in `master/`
//! (snapshot, solve, apply). Where the decisions are documented: the link model in
//! `network.rs`, task times and reduce start in `world/mod.rs`, the slowdown's denominator in
//! [`ideal`], the pending bound on [`PendingBound`], event order in `queue.rs`, what each
//! metric counts in `metrics.rs` (the gangs' stranded slots in `fragmentation.rs`), the measured cross-rack traffic (snapshots'
//! `racks[].cross_rack_traffic_mbps`, the report's time series) in `traffic.rs`, what a
//! snapshot carries for ShuffleWatcher in `master/snapshot.rs`.

mod cluster;
mod config;
mod engine;
mod error;
mod fragmentation;
mod goodput;
pub mod ideal;
mod master;
mod metrics;
mod network;
mod queue;
mod report;
mod resources;
mod run;
mod traffic;
mod workload_index;
mod world;

pub use config::{
    ClusterSource, CompletionReport, Contention, Goodput, JobTasks, NetSatMeasure, NodeOrder,
    Offers, PendingBound, ReplicaSource, Sharing, SimConfig, Victim,
};
pub use error::SimError;
pub use report::{
    EpochMetrics, JobMetrics, RackTraffic, ResourceUse, SimReport, SteadyLoad, StopReason, Summary,
    WallTiming,
};
pub use run::{simulate, simulate_many, simulate_observed};
pub use traffic::{TrafficSeries, SERIES_BUCKET_S, SERIES_MAX_BUCKETS};
