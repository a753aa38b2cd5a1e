//! placer's pure algorithms (DESIGN.md §The epoch pipeline): the bandwidth-aware locality cost
//! of lsap-sched (Guo, Fox, Zhou, eq. 1), fair shares by water-filling (FAIR App. A), the
//! placement policies, exact rectangular assignment, and the epoch pipeline [`place`]. No I/O,
//! no clock, no environment: the same function serves the HTTP service, the CLI and the
//! simulator.
//!
//! Layers, arrows pointing down only:
//! ```text
//! pipeline   place(): validate → index → fair shares → policy → answer   (pipeline, answer)
//! policy     one file per policy, one Policy trait, one registry          (policy/)
//! exact      the front door: objective + engine → quantum, dense / structured / capped
//! engines    flow/ (structured min-cost flow), lsap/ (dense JV, Kuhn–Munkres, brute force),
//!            mip/ (RAS's epoch problem exactly, HiGHS; the cargo feature `mip`, on by default)
//! ```
//! beside the epoch's shared inputs: `index`, `cost`, `matrix`, `network`, `fair_shares`,
//! `water_filling`, `schedulable`, `fair_order`, `starvation`, `job_limits`, `cpac`, `disk`,
//! `preemption`, `fairness`, and ShuffleWatcher's `shuffle` (NetSat, classes, SAMP, SARP);
//! `csr` (flat lists), `memory` (a request's peak-memory estimate, for admission) and `warm`
//! (labels kept across epochs for the structured flow's warm starts).

pub mod answer;
pub mod cancel;
pub mod cost;
pub mod cpac;
pub mod csr;
pub mod delay_scheduling;
pub mod disk;
pub mod echo;
mod error;
pub mod exact;
pub mod fair_order;
pub mod fair_shares;
pub mod fairness;
pub mod finite;
pub mod flow;
pub mod index;
pub mod job_limits;
pub mod lsap;
pub mod matrix;
pub mod memory;
#[cfg(feature = "mip")]
pub mod mip;
pub mod network;
mod pipeline;
pub mod policy;
pub mod preemption;
pub mod ras;
pub mod room;
pub mod schedulable;
pub mod settings;
pub mod shuffle;
pub mod starvation;
pub mod warm;
pub mod water_filling;

pub use answer::PlaceOptions;
pub use cancel::Cancel;
pub use error::SolveError;
pub use pipeline::{cost_matrix, place};
pub use policy::{registry, Policy, PolicyOf};
pub use warm::WarmStart;
