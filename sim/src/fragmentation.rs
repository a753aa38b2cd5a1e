//! Fragmentation: the free slots stranded in topology domains too small for the smallest
//! waiting gang that requires one (placer's measure of the gangs of Kubernetes KEP-4671's
//! PodGroup / Volcano's `minMember`, kept inside a domain by Kueue Topology Aware Scheduling's
//! `podset-required-topology`; the fragmentation Kueue TAS's `BestFit` profile packs against).
//!
//! **Definition.** At each measurement, let W be the *waiting required gangs*: arrived,
//! unfinished jobs with a `gang` and a `required` topology that have not started (never had
//! `min_member` tasks of both kinds running at once, whatever the policy) and have pending
//! tasks; each has fewer running tasks than `min_member` (a gang-unaware policy may have
//! started some). A started gang whose task is pending again (a failed attempt's retry, a
//! preemption) is not waiting to start and is not in W. Per level ℓ (node, rack) with gangs in W, the
//! smallest need is m_ℓ = min over W's gangs at ℓ of (`min_member` − running). A domain of
//! level ℓ (a node, a rack) is *too small* when its free slots of the kinds counted are fewer
//! than m_ℓ; the kinds counted are the maps, and the reduces too when some gang of W at ℓ
//! counts reduces among its members (`min_member` > its maps; the simulator's own gangs are
//! maps). A node's free slots are *stranded* when the node lies in a too-small domain of some
//! level; each node counts once. With W empty nothing is stranded. The simulator's clusters
//! have no blocks, so a gang that requires a block waits (it is in W) but has no domain in
//! which slots could be stranded.
//!
//! **When.** After the placement of each epoch is applied (at every epoch tick, also those
//! that skip the solver); with heartbeat offers, after the first heartbeat of each
//! `epoch_s` window. The value holds until the next measurement (a step function of time) and
//! the last one until the run's last event.
//!
//! **Reported** (`Summary`): `stranded_slot_fraction` = ∫ stranded dt / (slots · (end − first
//! submit)), slots = the cluster's map slots (+ its reduce slots when some required gang of
//! the workload counts reduces), 0 for an empty span; `stranded_slots_while_waiting` =
//! ∫ stranded dt / ∫ [W ≠ ∅] dt, the mean stranded slots while some required gang waits (0
//! when none ever did).
//!
//! Example: racks of 3 + 3 free map slots, a waiting gang of 4 that requires a rack: both racks
//! are too small, 6 slots stranded; with racks of 4 + 2 free, the second rack's 2.
//!
//! O(nodes + arrived required gangs) per measurement, no allocation (a per-rack scratch kept
//! from the start); O(1) per task start and end.

use crate::cluster::SimCluster;
use placer_datasets::Workload;
use placer_models::{TopologyLevel, TopologyMode};
use std::collections::BTreeSet;

/// A gang that requires a domain, as the measure sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct RequiredGang {
    /// 0 node, 1 rack, `None` block (no block domains in the simulator).
    level: Option<usize>,
    min_member: u64,
    /// Its members include reduces: both kinds count.
    both: bool,
}

/// The stranded-slot measure of a run, accumulated as it goes (module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct Fragmentation {
    /// Per job: `Some` for a gang whose topology is required.
    gangs: Vec<Option<RequiredGang>>,
    /// Arrived, unfinished required gangs that have not started.
    active: BTreeSet<usize>,
    /// Running tasks per job (both kinds).
    running: Vec<u32>,
    /// Scratch: free slots per rack and kind.
    rack_free: Vec<[u64; 2]>,
    /// What the fraction is of.
    slots: u64,
    /// The current step: since when, its stranded slots, whether some required gang waits.
    since_s: f64,
    value: u64,
    waiting: bool,
    /// When the last heartbeat-window measurement was taken (its window index).
    window: Option<i64>,
    /// ∫ stranded dt (slot-seconds) and ∫ [W ≠ ∅] dt (s).
    area: f64,
    waiting_s: f64,
}

/// The two figures the summary reports (module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Stranded {
    pub fraction: f64,
    pub while_waiting: f64,
}

impl Fragmentation {
    /// Nothing measured yet, for `workload` on `cluster`.
    pub fn new(workload: &Workload, cluster: &SimCluster) -> Self {
        let gangs: Vec<Option<RequiredGang>> = workload
            .jobs
            .iter()
            .map(|j| {
                let (gang, topology) = (j.gang?, j.topology?);
                (topology.mode == TopologyMode::Required).then_some(RequiredGang {
                    level: match topology.level {
                        TopologyLevel::Node => Some(0),
                        TopologyLevel::Rack => Some(1),
                        TopologyLevel::Block => None,
                    },
                    min_member: u64::from(gang.min_member),
                    both: gang.min_member as usize > j.maps.len(),
                })
            })
            .collect();
        let both = gangs.iter().flatten().any(|g| g.both);
        Self {
            running: vec![0; gangs.len()],
            gangs,
            rack_free: vec![[0, 0]; cluster.nodes_of_rack.len()],
            slots: cluster.total_map_slots + if both { cluster.total_reduce_slots } else { 0 },
            ..Self::default()
        }
    }

    /// Job `j` arrived.
    pub fn arrived(&mut self, j: usize) {
        if self.gangs.get(j).copied().flatten().is_some() {
            self.active.insert(j);
        }
    }

    /// Job `j` finished.
    pub fn finished(&mut self, j: usize) {
        self.active.remove(&j);
    }

    /// A task of job `j` started (`true`) or stopped running (`false`). A required gang with
    /// `min_member` tasks running has started: it leaves the waiting candidates for good.
    pub fn running_changed(&mut self, j: usize, started: bool) {
        if let Some(r) = self.running.get_mut(j) {
            *r = if started { r.saturating_add(1) } else { r.saturating_sub(1) };
            if self.gangs[j].is_some_and(|g| u64::from(*r) >= g.min_member) {
                self.active.remove(&j);
            }
        }
    }

    /// Whether a heartbeat at `now` is the first of its `epoch_s` window (and so measures).
    pub fn window_due(&mut self, now: f64, epoch_s: f64) -> bool {
        let w = (now / epoch_s).floor() as i64;
        if self.window == Some(w) {
            return false;
        }
        self.window = Some(w);
        true
    }

    /// Measures at `now` (module docs): `free(n)` is node `n`'s free slots per kind,
    /// `pending(j)` whether job `j` has pending tasks. O(nodes + arrived required gangs).
    pub fn measure(
        &mut self,
        now: f64,
        cluster: &SimCluster,
        free: impl Fn(usize) -> [u64; 2],
        pending: impl Fn(usize) -> bool,
    ) {
        let mut need = [u64::MAX; 2];
        let mut both = [false; 2];
        let mut waiting = false;
        for &j in &self.active {
            let Some(g) = self.gangs[j] else { continue };
            let running = u64::from(self.running[j]);
            if running >= g.min_member || !pending(j) {
                continue;
            }
            waiting = true;
            if let Some(l) = g.level {
                need[l] = need[l].min(g.min_member - running);
                both[l] |= g.both;
            }
        }
        let mut stranded = 0;
        if need != [u64::MAX; 2] {
            let count = |f: [u64; 2], both: bool| f[0] + if both { f[1] } else { 0 };
            if need[1] != u64::MAX {
                self.rack_free.iter_mut().for_each(|r| *r = [0, 0]);
                for n in 0..cluster.len() {
                    let f = free(n);
                    let r = &mut self.rack_free[cluster.rack_of[n]];
                    *r = [r[0] + f[0], r[1] + f[1]];
                }
            }
            for n in 0..cluster.len() {
                let f = free(n);
                let node_small = need[0] != u64::MAX && count(f, both[0]) < need[0];
                let rack = self.rack_free[cluster.rack_of[n]];
                let rack_small = need[1] != u64::MAX && count(rack, both[1]) < need[1];
                if node_small || rack_small {
                    stranded += count(f, (node_small && both[0]) || (rack_small && both[1]));
                }
            }
        }
        self.advance(now);
        self.value = stranded;
        self.waiting = waiting;
    }

    /// Closes the current step at `now`.
    fn advance(&mut self, now: f64) {
        let dt = (now - self.since_s).max(0.0);
        self.area += self.value as f64 * dt;
        if self.waiting {
            self.waiting_s += dt;
        }
        self.since_s = self.since_s.max(now);
    }

    /// The figures of a run whose jobs were first submitted at `first_submit_s` and whose last
    /// event was at `end_s` (module docs).
    pub fn report(&self, first_submit_s: f64, end_s: f64) -> Stranded {
        let mut f = self.clone();
        f.advance(end_s);
        let span = end_s - first_submit_s;
        let fraction =
            if span > 0.0 && f.slots > 0 { f.area / (f.slots as f64 * span) } else { 0.0 };
        let while_waiting = if f.waiting_s > 0.0 { f.area / f.waiting_s } else { 0.0 };
        Stranded { fraction, while_waiting }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ClusterSource, SimConfig};
    use placer_datasets::JobSpec;
    use placer_models::{Gang, Topology};

    /// Two racks of two nodes, 2 map and 1 reduce slot each.
    fn cluster() -> SimCluster {
        let cfg = SimConfig {
            cluster: ClusterSource::Synthetic {
                nodes: 4,
                rack_size: 2,
                map_slots: 2,
                reduce_slots: 1,
            },
            ..SimConfig::default()
        };
        SimCluster::build(&Workload::default(), &cfg).unwrap()
    }

    fn gang(maps: usize, min_member: u32, level: TopologyLevel, mode: TopologyMode) -> JobSpec {
        JobSpec {
            maps: vec![Default::default(); maps],
            gang: Some(Gang { min_member }),
            topology: Some(Topology { level, mode, penalty_s: None, slice: None }),
            ..JobSpec::default()
        }
    }

    #[test]
    fn slots_in_racks_too_small_for_the_smallest_waiting_need_are_stranded() {
        // Job 0: a gang of 3 maps requiring a rack; job 1: a gang of 2 preferring one (not
        // counted); job 2: a gang of 4 requiring a rack. Free map slots per node: 1, 1 | 2, 0.
        let w = Workload {
            jobs: vec![
                gang(3, 3, TopologyLevel::Rack, TopologyMode::Required),
                gang(2, 2, TopologyLevel::Rack, TopologyMode::Preferred),
                gang(4, 4, TopologyLevel::Rack, TopologyMode::Required),
            ],
            ..Workload::default()
        };
        let c = cluster();
        let mut f = Fragmentation::new(&w, &c);
        assert_eq!(f.slots, 8, "map slots only: no gang counts reduces");
        let free = |n: usize| [[1, 1], [1, 0], [2, 1], [0, 0]][n];
        for j in 0..3 {
            f.arrived(j);
        }
        // Both required gangs wait: m = min(3, 4) = 3. Rack 0 has 2 free maps (< 3): its 2
        // are stranded; rack 1 has 2 (< 3): 2 more. Stranded 4 over [0, 10).
        f.measure(0.0, &c, free, |_| true);
        assert_eq!((f.value, f.waiting), (4, true));
        // Job 0 started one of its maps (under a gang-unaware policy): its need is 3 − 1 = 2;
        // no rack is below 2 free: nothing stranded over [10, 20).
        f.running_changed(0, true);
        f.measure(10.0, &c, free, |_| true);
        assert_eq!((f.value, f.waiting), (0, true));
        // Job 0 reaches its 3 running tasks (it has started), then one ends and is pending
        // again (a retry): a started gang is not waiting. Job 2 has no pending task (its setup
        // is not done): W is empty over [20, 40].
        f.running_changed(0, true);
        f.running_changed(0, true);
        f.running_changed(0, false);
        f.measure(20.0, &c, free, |j| j != 2);
        assert_eq!((f.value, f.waiting), (0, false));
        // ∫ stranded = 4 · 10 = 40 slot-s; over 8 slots and the span [0, 40]: 40 / 320 =
        // 0.125; while waiting (20 s): 2 slots.
        let s = f.report(0.0, 40.0);
        assert_eq!(s, Stranded { fraction: 0.125, while_waiting: 2.0 });
    }

    #[test]
    fn node_gangs_and_gangs_with_reduces_count_their_own_domains_and_kinds() {
        // Job 0: a gang of 2 maps and min_member 3 (a reduce too) requiring a node: need 3 of
        // both kinds per node. Free per node (map, reduce): (2, 1), (1, 1), (2, 0), (0, 0):
        // nodes 1, 2 and 3 hold fewer than 3: 2 + 2 + 0 = 4 stranded (node 0 holds 3).
        let w = Workload {
            jobs: vec![gang(2, 3, TopologyLevel::Node, TopologyMode::Required)],
            ..Workload::default()
        };
        let c = cluster();
        let mut f = Fragmentation::new(&w, &c);
        assert_eq!(f.slots, 12, "map and reduce slots: the gang counts a reduce");
        f.arrived(0);
        f.measure(0.0, &c, |n| [[2, 1], [1, 1], [2, 0], [0, 0]][n], |_| true);
        assert_eq!(f.value, 4);
        // A block gang waits but strands nothing (no block domains).
        let w = Workload {
            jobs: vec![gang(2, 2, TopologyLevel::Block, TopologyMode::Required)],
            ..Workload::default()
        };
        let mut f = Fragmentation::new(&w, &c);
        f.arrived(0);
        f.measure(0.0, &c, |_| [1, 0], |_| true);
        assert_eq!((f.value, f.waiting), (0, true));
        assert_eq!(f.report(0.0, 0.0), Stranded { fraction: 0.0, while_waiting: 0.0 });
    }
}
