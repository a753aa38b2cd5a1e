//! Placement policies (DESIGN.md §The epoch pipeline, step 5), one file per policy, each a
//! [`Policy`] placing one [`Epoch`]: `fifo`, `fair` and `delay` (Hadoop's heartbeat schedulers
//! and FAIR Alg. 1, over `crate::fair::heartbeat`), `dl_sched` (the lsap paper's greedy baseline), `lsap`,
//! `lsap_fair` (lsap-sched and lsap-fair-sched) and `lsap_quota` (placer's default),
//! `shuffle_watcher` and `shuffle_watcher_relaxed` (ShuffleWatcher's NASS over `crate::shuffle::nass`), and
//! `lsap_shuffle` (ShuffleWatcher's mechanisms as prices in `lsap_quota`'s exact flow, over
//! [`crate::shuffle::cost`]), and `drf` (Dominant Resource Fairness over the nodes'
//! multi-resource room), the exact ones through the front door [`crate::exact`]. The
//! [`registry`] is the one place that maps an [`placer_models::Algorithm`] to its policy.
//!
//! This folder holds the policies and the registry only. What they share lives beside it:
//! the [`Policy`] trait (`policy_trait`), the [`Epoch`] a policy reads (`epoch`) and the
//! [`Placement`] it returns (`placement`) are top-level files of the crate, re-exported here
//! and at the crate root; the heartbeat loop is `crate::fair::heartbeat`, NASS is
//! `crate::shuffle::nass`.
//!
//! Adding a policy: its file here (a unit struct implementing [`Policy`]), one line in
//! [`registry::REGISTRY`], one variant of `Algorithm` in `placer-models`.

pub(crate) mod delay;
pub(crate) mod dl_sched;
pub(crate) mod drf;
pub(crate) mod fair;
pub(crate) mod fifo;
pub(crate) mod lsap;
pub(crate) mod lsap_fair;
pub(crate) mod lsap_quota;
pub(crate) mod lsap_ras;
pub(crate) mod lsap_shuffle;
pub(crate) mod ras;
pub mod registry;
pub(crate) mod shuffle_watcher;
pub(crate) mod shuffle_watcher_relaxed;

pub use crate::epoch::Epoch;
pub use crate::placement::Placement;
pub use crate::policy_trait::{Candidates, Policy};
pub use lsap_fair::{aging_credits, fairness_costs};
pub use lsap_quota::{place_under_quotas, quotas, share_box};
pub use registry::{lookup, PolicyOf, REGISTRY};
