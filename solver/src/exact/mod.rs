//! The exact front door (docs/architecture.md, "The exact engines"): "solve this exact
//! assignment of one slot kind with this engine". Policies (`policy`) say what to minimise (an
//! [`Objective`]: lsap-sched's locality cost, plus lsap-fair-sched's per-task offsets, or
//! under `lsap_quota`'s pool and job capacities); this layer owns everything between that and
//! an engine: the integer cost `quantum` and the offsets' shift, the dense matrix for the
//! dense engines (`dense`), the structured network's arcs (`structured`), and the
//! copy-compute capped reduces (`capped`, FAIR §5.2); it also keeps out the (task, node)
//! pairs a node's intermediate space refuses (FAIR §5.4, [`crate::fair::disk`]: no arc in
//! `structured`, a penalty in `dense`; capped reduces write no map output). Engines ([`crate::flow`],
//! [`crate::lsap`]) never see a snapshot or a policy.

mod anytime;
pub(crate) mod capped;
pub(crate) mod dense;
pub(crate) mod engines;
pub(crate) mod quantum;
pub(crate) mod solve;
pub(crate) mod structured;

pub use crate::flow::structured::Quotas;
pub use engines::{check_engine, engine_list, EngineChoice, ANY_ENGINE, FLOW_ONLY, MIP_AVAILABLE};
pub use quantum::Quantum;
pub use solve::{solve, Control, Objective, Problem};
