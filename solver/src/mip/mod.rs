//! Exact MIP references (docs/architecture.md, "MIP reference (`solver: mip`)"), solved by
//! HiGHS through `good_lp` and built only with the cargo feature `mip` (on by default): RAS's epoch
//! problem (Polo et al. §3.4, eqs. 4–6) as max-min utility, then packing, over integer task
//! counts per (class, node) ([`ras_mip`]), with RAS's utility as exact "at least k" ladders
//! ([`ladder`]); and `lsap_quota` with gangs and topology domains ([`quota_mip`]). For small
//! instances: the references heuristics are measured against.

pub mod ladder;
pub mod quota_mip;
pub mod ras_mip;

pub use ras_mip::{solve, MipLimits, MipSolution, MAX_VARIABLES, UTILITY_TOLERANCE};
