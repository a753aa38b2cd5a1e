//! A trace's multi-map jobs made gangs (all-or-nothing jobs: Kubernetes KEP-4671's PodGroup
//! `minCount`, Volcano's `minMember`; kept inside a topology domain: Kueue Topology Aware
//! Scheduling's `podset-required-topology` / `podset-preferred-topology`), so that a real
//! trace's job sizes and arrivals exercise gang placement (`placer whatif --gangs`).
//!
//! Which jobs: those with 2 to `max_maps` maps, each kept with probability `share` (a seeded
//! draw per such job, in workload order). A chosen job gets `gang.min_member` = its maps (its
//! reduces are not members: they start after the maps, at slowstart, so a gang of all tasks
//! could never run at once) and the topology (`level`, `mode`, the default penalty), and its
//! class becomes `gang-required` or `gang-preferred` (as `gang-mix` names them); the other jobs
//! are left as they are. A gang must fit where it may start: a `required` gang larger than
//! the largest domain of its level (`domain_map_slots`), or any gang larger than the cluster
//! (`cluster_map_slots`), could never start, so such a job is *skipped*: it stays an ordinary
//! job and is counted in [`TraceGangsOutcome::skipped`]. Deterministic: ChaCha8 seeded with
//! `seed`; O(jobs).

use crate::error::DatasetError;
use crate::workload::Workload;
use placer_models::{Gang, Topology, TopologyLevel, TopologyMode};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Which jobs of a trace become gangs, and how they are kept together (module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraceGangs {
    /// Most maps of a job made a gang (≥ 2).
    pub max_maps: usize,
    /// The domain a gang is kept inside.
    pub level: TopologyLevel,
    /// Whether the domain binds.
    pub mode: TopologyMode,
    /// The fraction of eligible jobs made gangs, in [0, 1].
    pub share: f64,
    /// Seed of the draws.
    pub seed: u64,
}

/// What [`make_gangs`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraceGangsOutcome {
    /// Jobs with 2 to `max_maps` maps.
    pub eligible: usize,
    /// Jobs made gangs.
    pub gangs: usize,
    /// Jobs drawn but left ordinary because they could never start as gangs (too large for
    /// the largest domain of a required level, or for the cluster).
    pub skipped: usize,
}

impl TraceGangs {
    fn check(&self) -> Result<(), DatasetError> {
        let invalid = |message: String| Err(DatasetError::InvalidSpec { field: "gangs", message });
        if self.max_maps < 2 {
            return invalid(format!("max_maps must be ≥ 2, got {}", self.max_maps));
        }
        if !(0.0..=1.0).contains(&self.share) {
            return invalid(format!("share must be in [0, 1], got {}", self.share));
        }
        Ok(())
    }
}

/// Makes gangs of `workload`'s jobs as `spec` says (module docs), on a cluster whose largest
/// domain of `spec.level` holds `domain_map_slots` map slots and whose nodes hold
/// `cluster_map_slots` in all.
///
/// # Complexity
/// O(jobs): one draw per eligible job.
///
/// # Errors
/// [`DatasetError::InvalidSpec`] (field `gangs`) for `max_maps` < 2 or `share` outside [0, 1].
///
/// # Examples
/// ```
/// use placer_datasets::{make_gangs, JobSpec, MapSpec, TraceGangs, Workload};
/// use placer_models::{TopologyLevel, TopologyMode};
/// let job = |maps: usize| JobSpec { maps: vec![MapSpec::default(); maps], ..JobSpec::default() };
/// let mut w = Workload { jobs: vec![job(1), job(3), job(8), job(20)], ..Workload::default() };
/// let spec = TraceGangs {
///     max_maps: 10,
///     level: TopologyLevel::Rack,
///     mode: TopologyMode::Required,
///     share: 1.0,
///     seed: 1,
/// };
/// // Racks of 4 map slots: the 8-map job cannot fit one and stays ordinary.
/// let done = make_gangs(&mut w, &spec, 4, 100).unwrap();
/// assert_eq!((done.eligible, done.gangs, done.skipped), (2, 1, 1));
/// assert_eq!(w.jobs[1].gang.unwrap().min_member, 3);
/// assert_eq!(w.jobs[1].class.as_deref(), Some("gang-required"));
/// assert!(w.jobs[0].gang.is_none() && w.jobs[2].gang.is_none() && w.jobs[3].gang.is_none());
/// ```
pub fn make_gangs(
    workload: &mut Workload,
    spec: &TraceGangs,
    domain_map_slots: u64,
    cluster_map_slots: u64,
) -> Result<TraceGangsOutcome, DatasetError> {
    spec.check()?;
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
    let room = match spec.mode {
        TopologyMode::Required => domain_map_slots.min(cluster_map_slots),
        TopologyMode::Preferred => cluster_map_slots,
    };
    let class = match spec.mode {
        TopologyMode::Required => "gang-required",
        TopologyMode::Preferred => "gang-preferred",
    };
    let mut outcome = TraceGangsOutcome::default();
    for job in &mut workload.jobs {
        let maps = job.maps.len();
        if !(2..=spec.max_maps).contains(&maps) {
            continue;
        }
        outcome.eligible += 1;
        // One draw per eligible job, whatever the share, so that a share changes only which
        // jobs are kept, not the draws of the others.
        if rng.random::<f64>() >= spec.share {
            continue;
        }
        let Ok(min_member) = u32::try_from(maps) else { continue };
        if maps as u64 > room {
            outcome.skipped += 1;
            continue;
        }
        job.gang = Some(Gang { min_member });
        job.topology =
            Some(Topology { level: spec.level, mode: spec.mode, penalty_s: None, slice: None });
        job.class = Some(class.to_owned());
        outcome.gangs += 1;
    }
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{JobSpec, MapSpec, ReduceSpec};

    fn job(maps: usize, reduces: usize) -> JobSpec {
        JobSpec {
            maps: vec![MapSpec::default(); maps],
            reduces: vec![ReduceSpec::default(); reduces],
            class: Some("trace".to_owned()),
            ..JobSpec::default()
        }
    }

    fn spec(share: f64) -> TraceGangs {
        TraceGangs {
            max_maps: 5,
            level: TopologyLevel::Node,
            mode: TopologyMode::Preferred,
            share,
            seed: 7,
        }
    }

    #[test]
    fn gangs_are_the_maps_of_jobs_up_to_max_maps() {
        // Maps 0, 1, 2, 5, 6 (and reduces): only the 2- and 5-map jobs are eligible; preferred
        // gangs need only the cluster (10 slots), not a node (1 slot).
        let mut w = Workload {
            jobs: vec![job(0, 1), job(1, 3), job(2, 4), job(5, 1), job(6, 0)],
            ..Workload::default()
        };
        let done = make_gangs(&mut w, &spec(1.0), 1, 10).unwrap();
        assert_eq!(done, TraceGangsOutcome { eligible: 2, gangs: 2, skipped: 0 });
        let gangs: Vec<Option<u32>> = w.jobs.iter().map(|j| j.gang.map(|g| g.min_member)).collect();
        assert_eq!(gangs, [None, None, Some(2), Some(5), None]);
        let t = w.jobs[2].topology.unwrap();
        assert_eq!(
            (t.level, t.mode, t.penalty_s),
            (TopologyLevel::Node, TopologyMode::Preferred, None)
        );
        assert_eq!(w.jobs[3].class.as_deref(), Some("gang-preferred"));
        assert_eq!(w.jobs[4].class.as_deref(), Some("trace"), "others keep their class");
        // A cluster of 4 map slots cannot hold the 5-map gang even preferred: skipped.
        let mut w = Workload { jobs: vec![job(2, 0), job(5, 0)], ..Workload::default() };
        let done = make_gangs(&mut w, &spec(1.0), 1, 4).unwrap();
        assert_eq!(done, TraceGangsOutcome { eligible: 2, gangs: 1, skipped: 1 });
        assert!(w.jobs[1].gang.is_none() && w.jobs[1].topology.is_none());
    }

    #[test]
    fn a_share_keeps_a_seeded_subset_and_zero_keeps_none() {
        let jobs = vec![job(3, 0); 200];
        let mut none = Workload { jobs: jobs.clone(), ..Workload::default() };
        assert_eq!(make_gangs(&mut none, &spec(0.0), 10, 1000).unwrap().gangs, 0);
        let mut a = Workload { jobs: jobs.clone(), ..Workload::default() };
        let mut b = Workload { jobs, ..Workload::default() };
        let made = make_gangs(&mut a, &spec(0.5), 10, 1000).unwrap().gangs;
        make_gangs(&mut b, &spec(0.5), 10, 1000).unwrap();
        assert_eq!(a, b, "same seed, same gangs");
        // Half of 200, ±4σ of a binomial (σ ≈ 7.1).
        assert!((72..=128).contains(&made), "{made}");
    }

    #[test]
    fn bad_specs_name_the_flag() {
        let mut w = Workload::default();
        for bad in [TraceGangs { max_maps: 1, ..spec(1.0) }, spec(1.5)] {
            assert!(matches!(
                make_gangs(&mut w, &bad, 1, 1),
                Err(DatasetError::InvalidSpec { field: "gangs", .. })
            ));
        }
    }
}
