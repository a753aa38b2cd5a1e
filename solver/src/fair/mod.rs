//! The Fair Scheduler's pieces (FAIR, Zaharia et al.; Hadoop Fair Scheduler design doc):
//! the [`schedulable`] abstraction and weighted [`water_filling`] (FAIR App. A Alg. 2) behind
//! the epoch's [`fair_shares`]; the pools' and jobs' order ([`fair_order`]) and running-job
//! limits ([`job_limits`], design doc §3.4 and §4.7); [`starvation`] and min-share / fair-share
//! [`preemption`] (design doc §3.3 and §4.5); copy-compute splitting's reducer admission
//! ([`cpac`], FAIR §5.2) and intermediate-space admission ([`disk`], FAIR §5.4); and Hadoop's
//! heartbeat loop (`heartbeat`, FAIR Alg. 1) over its forward-only task `queue`, which the
//! `fifo`, `fair`, `delay` and `dl_sched` policies and ShuffleWatcher's NASS drive.

pub mod cpac;
pub mod disk;
pub mod fair_order;
pub mod fair_shares;
pub(crate) mod heartbeat;
pub mod job_limits;
pub mod preemption;
pub(crate) mod queue;
pub mod schedulable;
pub mod starvation;
pub mod water_filling;
