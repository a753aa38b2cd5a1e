//! Gangs and topology domains under `lsap_quota` (all-or-nothing placement as in Kubernetes
//! KEP-4671's PodGroup and Volcano's `minMember`; domains as in Kueue's topology-aware
//! scheduling): the problem and its scorer ([`problem`]), the fast heuristic on the
//! structured flow ([`heuristic`]), and the pass that holds an answer to both rules after the
//! pipeline's intermediate-space admission ([`enforce`]), and the slots held for a gang that
//! has waited too long ([`reservation`], FAIR §3.2's starvation timeouts). The exact method is
//! the MIP [`crate::mip::quota_mip`].

pub mod enforce;
pub mod heuristic;
pub mod problem;
pub mod reservation;

pub use problem::{Domains, GangProblem, Invalid, JobRule, Rule, Score};
pub use reservation::GangReserve;
