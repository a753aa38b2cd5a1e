//! `placer whatif --allocations fair-scheduler.xml` (docs/operations/allocation-files.md; Apache
//! Hadoop FairScheduler.md "Allocation file format"): the YARN fair-scheduler allocation file's
//! queues and users in every run, as `placer serve` fills a snapshot with them.
//!
//! Trace jobs map to queues by the pool name their reader gives them: SLS `job.queue.name`,
//! Rumen `queue`, Alibaba `qos`, SWIM the `--swim-pools` names, a `--workload` its own pools;
//! `default` when the trace names none. A `root.` prefix is optional. Pools the workload
//! itself defines (SWIM's and the papers' generated pools) keep their own settings; every
//! other pool a job names takes the file's ([`placer_datasets::FairAllocations::pools`]:
//! declared queues, or undeclared ones created as YARN creates them). The file's users carry
//! their running-job limits, and `userMaxAppsDefault` becomes `policy.user_max_running_jobs`
//! unless set. Percentage shares are of the simulated cluster's slots.

use super::load::Input;
use crate::error::CliError;
use placer_datasets::fair_allocations::{read_fair_allocations, under_root};
use placer_sim::{ClusterSource, SimConfig};
use std::collections::BTreeSet;
use std::path::Path;

/// Reads the file at `path` and puts its pools and users into `base`. O(file + jobs).
///
/// # Errors
/// The file cannot be read or is invalid (naming the element and line).
pub fn apply(path: &Path, input: &Input, base: &mut SimConfig) -> Result<(), CliError> {
    let allocations = read_fair_allocations(path)?;
    let workload = &input.workload;
    let defined: BTreeSet<&str> = workload.pools.iter().map(|p| under_root(&p.id)).collect();
    let mut seen = BTreeSet::new();
    let referenced: Vec<&str> =
        workload.jobs.iter().map(|j| j.pool.as_str()).filter(|p| seen.insert(*p)).collect();
    let slots = cluster_slots(input);
    base.pools = allocations.pools(&|name| defined.contains(name), &referenced, slots);
    base.users = allocations.users();
    if base.policy.user_max_running_jobs.is_none() {
        base.policy.user_max_running_jobs = allocations.user_max_apps_default;
    }
    Ok(())
}

/// The simulated cluster's map and reduce slots.
fn cluster_slots(input: &Input) -> [f64; 2] {
    match input.cluster {
        ClusterSource::Synthetic { nodes, map_slots, reduce_slots, .. } => {
            [nodes as f64 * f64::from(map_slots), nodes as f64 * f64::from(reduce_slots)]
        }
        ClusterSource::Workload { map_slots, reduce_slots } => {
            let Some(topology) = &input.workload.topology else { return [0.0, 0.0] };
            topology.nodes().fold([0.0, 0.0], |[m, r], (_, n)| {
                [
                    m + f64::from(n.map_slots.unwrap_or(map_slots)),
                    r + f64::from(n.reduce_slots.unwrap_or(reduce_slots)),
                ]
            })
        }
    }
}
