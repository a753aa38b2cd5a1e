//! Gangs and topology domains (all-or-nothing placement as in Kubernetes KEP-4671's PodGroup
//! and Volcano's `minMember`; domains as in Kueue's topology-aware scheduling). Under
//! `lsap_quota`: the problem and its scorer ([`problem`]), the fast heuristic on the
//! structured flow ([`heuristic`]), and the slots held for a gang that has waited too long
//! ([`reservation`], FAIR §3.2's starvation timeouts); the exact method is the MIP
//! [`crate::mip::quota_mip`]. Under the multi-resource policies (`drf`, `ras`, `lsap_ras`):
//! the rounds that narrow the policy ([`rounds`]) to a [`Scope`] ([`scope`]) whose domains
//! are chosen by best fit on the nodes' room ([`best_fit`]). For every policy: the pass that
//! holds an answer to both rules after the pipeline's intermediate-space admission
//! ([`enforce`]).

pub mod best_fit;
pub mod enforce;
pub mod heuristic;
pub mod problem;
pub mod reservation;
pub mod rounds;
pub mod scope;

pub use problem::{Domains, GangProblem, Invalid, JobRule, Rule, Score};
pub use reservation::GangReserve;
pub use scope::Scope;
