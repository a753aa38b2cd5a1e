//! placer's pure algorithms (docs/architecture.md, "The epoch pipeline"): the bandwidth-aware
//! locality cost of lsap-sched (Guo, Fox, Zhou, eq. 1), fair shares by water-filling (FAIR App. A),
//! the placement policies, exact rectangular assignment, and the epoch pipeline [`place`]. No I/O,
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
//! beside the epoch's shared inputs, one folder per paper where a paper has several pieces:
//! `fair/` (FAIR and the Hadoop Fair Scheduler design doc: water-filling fair shares, the
//! pools' order, job limits, starvation, preemption, CPAC, intermediate space, the heartbeat
//! loop), `shuffle/` (ShuffleWatcher: NetSat, classes, SAMP, SARP, NASS), `ras/` (RAS's
//! utility and Algorithm 1); lsap-sched's `cost`, `matrix`, `network` and lsap-fair-sched's
//! `fairness`; `index`, `room` (multi-resource fit), `csr` (flat lists), `memory` (a request's
//! peak-memory estimate, for admission) and `warm` (labels kept across epochs for the
//! structured flow's warm starts). The policies' contract — the `Policy` trait, the `Epoch`
//! they read and the `Placement` they return — is three top-level files (`policy_trait`,
//! `epoch`, `placement`) re-exported by `policy` and here.
//!
//! The public surface is the API: the pipeline ([`place`], [`cost_matrix`], [`PlaceOptions`],
//! [`Cancel`], [`WarmStart`], [`SolveError`]), the policies' contract ([`Policy`], [`Epoch`],
//! [`Placement`], [`registry`]), the exact front door ([`exact::solve`]), the inputs an epoch is
//! built from ([`Indexed`], [`LocalityCost`], [`Room`]), and one public module per paper or
//! engine (`fair`, `shuffle`, `ras`, `lsap`, `flow`, `mip`) for callers that run one algorithm
//! alone (the benches, the property tests); [`stages`] exposes the pipeline's remaining steps
//! for the request-path bench. Everything else is crate-private.

mod answer;
mod cancel;
mod cost;
mod csr;
pub mod delay_scheduling;
pub mod echo;
mod epoch;
mod error;
pub mod exact;
pub mod fair;
mod fairness;
mod finite;
pub mod flow;
pub mod gang;
mod index;
pub mod lsap;
mod matrix;
mod memory;
#[cfg(feature = "mip")]
pub mod mip;
mod network;
mod pipeline;
mod placement;
pub mod policy;
mod policy_trait;
pub mod ras;
mod room;
pub mod settings;
pub mod shuffle;
pub mod tas;
mod warm;

pub use answer::PlaceOptions;
pub use cancel::Cancel;
pub use cost::{CostRow, LocalityCost, LocalityWeight, RackTerms, SparseRow};
pub use epoch::Epoch;
pub use error::SolveError;
pub use fairness::fairness_distance;
pub use index::Indexed;
pub use memory::{peak_estimate_bytes, PEAK_BYTES_PER_BODY_BYTE};
pub use pipeline::{cost_matrix, place, place_checked};
pub use placement::Placement;
pub use policy::{registry, Candidates, Policy, PolicyOf};
pub use room::{Room, UNCAPPED};
pub use warm::WarmStart;

/// The epoch pipeline's steps one by one, as [`place`] runs them, for a caller that times or
/// inspects a step (the request-path bench): the finiteness checks around the policy and the
/// answer's assembly (step 6). The other steps are public where their paper's code lives:
/// [`fair::fair_shares::compute`], [`fair::starvation::Starvation`], [`Policy::place`],
/// [`fair::disk::settle`], [`fair::preemption::plan`].
pub mod stages {
    pub use crate::answer::{build, running_after_placement, Outcome};
    pub use crate::finite::{check_answer, check_costs, check_weights};
}
