//! RAS, the Resource-aware Adaptive Scheduler (Polo et al.): its performance model
//! ([`utility`]), placer's goal plan for s_req ([`plan`]) and its placement algorithm
//! ([`algorithm`]), shared by the `ras` and `lsap_ras` policies and the MIP reference.

pub mod algorithm;
pub mod plan;
pub mod problem;
pub mod realise;
pub mod report;
pub mod utility;

pub use problem::{Counts, RasProblem, TaskClass};
