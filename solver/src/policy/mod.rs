//! Placement policies (docs/policies.md), one file per policy, each a
//! [`Policy`] placing one [`Epoch`]: `fifo`, `fair` and `delay` (Hadoop's heartbeat schedulers
//! and FAIR Alg. 1, over `crate::fair::heartbeat`), `dl_sched` (the lsap paper's greedy baseline), `lsap`,
//! `lsap_fair` (lsap-sched and lsap-fair-sched) and `lsap_quota` (placer's default),
//! `shuffle_watcher` and `shuffle_watcher_relaxed` (ShuffleWatcher's NASS over `crate::shuffle::nass`), and
//! `lsap_shuffle` (ShuffleWatcher's mechanisms as prices in `lsap_quota`'s exact flow, over
//! [`crate::shuffle::cost`]), `drf` (Dominant Resource Fairness over the nodes'
//! multi-resource room), `kueue_best_fit` and `kueue_least_free` (Kueue's topology-aware
//! scheduling, one workload at a time, over [`crate::tas`]) and `lsap_quota_no_gang` (a
//! gang-unaware baseline), the exact ones through the front door [`crate::exact`]. The
//! [`registry`] is the one place that maps an [`placer_models::Algorithm`] to its policy.
//!
//! This folder holds the policies and the registry only. What they share lives beside it:
//! the [`Policy`] trait (`policy_trait`), the [`Epoch`] a policy reads (`epoch`) and the
//! [`Placement`] it returns (`placement`) are top-level files of the crate, re-exported here
//! and at the crate root; the heartbeat loop is `crate::fair::heartbeat`, NASS is
//! `crate::shuffle::nass`.
//!
//! Each policy module is public: its knobs ([`crate::settings`]) and the per-job fields it
//! echoes or reports ([`crate::echo`]) are declared in it and are part of the API. Adding a
//! policy: docs/adding-a-policy.md.

pub mod delay;
pub mod dl_sched;
pub mod drf;
pub mod fair;
pub mod fifo;
pub mod fifo_per_pool;
pub mod kueue_best_fit;
pub mod kueue_least_free;
pub mod lsap;
pub mod lsap_fair;
pub mod lsap_quota;
pub mod lsap_quota_no_gang;
pub mod lsap_ras;
pub mod lsap_shuffle;
pub mod ras;
pub mod registry;
pub mod shuffle_watcher;
pub mod shuffle_watcher_relaxed;

pub use crate::epoch::Epoch;
pub use crate::placement::Placement;
pub use crate::policy_trait::{check_gangs, Candidates, Policy};
pub use lsap_fair::{aging_credits, fairness_costs};
pub use lsap_quota::{place_under_quotas, quotas, share_box};
pub use registry::{by_name, lookup, PolicyOf, REGISTRY};
