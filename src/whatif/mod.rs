//! `placer whatif` (docs/simulator.md): replays a trace through several
//! policies side by side on the same simulated cluster (the "what if we had run policy X"
//! question of FAIR, Zaharia et al. §6, and lsap-sched §4), in parallel with rayon, and writes
//! the summary, per-job and per-epoch tables, SLS's jobruntime.csv, plots and a manifest.
//! `placer whatif summarize DIR` merges the shards of a sweep. `--workload` runs a paper's own
//! experiment instead of a trace (`workloads.rs`).

mod allocations;
pub mod gang_flags;
pub mod load;
pub mod loss_flags;
pub mod policy_flags;
mod replay;
pub mod shard;
pub mod sweep;
mod table;
pub mod workloads;

pub use replay::{run, summarize, RunArgs};
