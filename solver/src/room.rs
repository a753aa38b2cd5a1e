//! Multi-resource room per node (RAS §3.1 and eq. 6; DRF's demand vectors): which tasks still
//! fit a node, given its capacities Ω_tt,r, the demands Γ of the tasks running there, and its
//! slots when they cap it. The `ras`, `drf` and `lsap_ras` policies and the MIP reference share
//! this one view.
//!
//! - Resources are the names some node lists in `resources` (all but `disk`), sorted; a node
//!   that does not list one has none of it.
//! - A task's demand is its `demand` when given, else its job's `profile` for its phase: a
//!   map's `map`; a reduce's `shuffle` while its job still has maps pending or running (or,
//!   running under copy-compute splitting, while its `phase` is `copy`), else `reduce` (RAS
//!   Alg. 1 line 27's switch). No profile = no demand.
//! - Slots: a node's `map_slots` / `reduce_slots` cap it when non-zero; 0 on a node with
//!   capacities means no slot cap (RAS's job slots are made of resources), 0 elsewhere means
//!   none, as for the locality policies.
//! - A task fits when every amount of its demand fits the node's room, with a relative
//!   tolerance of 1e-9 so that demands like 0.1 + 0.2 fill 0.3 exactly.
//!
//! Units: the nodes' own, per resource. Memory O((nodes + pending + running) · resources).

use crate::index::Indexed;
use placer_models::{Amounts, JobProfile, ReducePhase, TaskKind};
use std::collections::{BTreeSet, HashMap};

/// Relative tolerance of [`Room::fits`].
const TOLERANCE: f64 = 1e-9;

/// "No slot cap" in [`Room::slots_left`].
pub const UNCAPPED: u32 = u32::MAX;

/// The nodes' room and the pending tasks' demands.
#[derive(Clone, Debug, PartialEq)]
pub struct Room {
    /// Resource names, sorted.
    pub names: Vec<String>,
    /// Capacity per (node, resource), row-major by node.
    pub capacity: Vec<f64>,
    /// Demand in use per (node, resource): running tasks, then what was taken.
    pub used: Vec<f64>,
    /// Free slots per node and kind (`[map, reduce]`), [`UNCAPPED`] = no slot cap.
    pub slots_left: Vec<[u32; 2]>,
    /// Demand per (pending task, resource), row-major by task.
    pub demand: Vec<f64>,
    /// Demand per (running task, resource), row-major by task: what each running task holds
    /// (DRF's per-user usage sums it by job and pool).
    pub running: Vec<f64>,
}

impl Room {
    /// The room of every node after its running tasks, and every pending task's demand.
    ///
    /// # Complexity
    /// O((nodes + pending + running) · resources + Σ profile entries).
    pub fn of(ix: &Indexed<'_>) -> Self {
        let req = ix.req;
        let names: Vec<String> = req
            .cluster
            .nodes
            .iter()
            .filter_map(|n| n.resources.as_ref())
            .flat_map(|r| r.amounts.keys().cloned())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let r = names.len();
        let at: HashMap<&str, usize> =
            names.iter().enumerate().map(|(i, s)| (s.as_str(), i)).collect();
        let nodes = req.cluster.nodes.len();
        let mut capacity = vec![0.0; nodes * r];
        let mut slots_left = Vec::with_capacity(nodes);
        for (n, node) in req.cluster.nodes.iter().enumerate() {
            if let Some(res) = &node.resources {
                for (name, &v) in &res.amounts {
                    if let Some(&k) = at.get(name.as_str()) {
                        capacity[n * r + k] = v;
                    }
                }
            }
            let cap = |kind: TaskKind| {
                let slots = node.slots(kind);
                if slots == 0 && node.has_capacities() {
                    UNCAPPED
                } else {
                    slots
                }
            };
            slots_left.push([cap(TaskKind::Map), cap(TaskKind::Reduce)]);
        }
        // Whether each job still has maps pending or running: its reduces shuffle until not.
        let jobs = req.jobs.len();
        let maps_left: Vec<bool> =
            (0..jobs).map(|j| ix.job_pending[0][j] + ix.job_running[0][j] > 0).collect();
        let node_at: HashMap<&str, usize> =
            req.cluster.nodes.iter().enumerate().map(|(i, n)| (n.id.as_str(), i)).collect();
        let mut used = vec![0.0; nodes * r];
        let mut running = vec![0.0; req.running.len() * r];
        for (i, task) in req.running.iter().enumerate() {
            let j = ix.running_job[i] as usize;
            let shuffling = match task.phase {
                Some(phase) => phase == ReducePhase::Copy,
                None => maps_left[j],
            };
            let amounts = task
                .demand
                .as_ref()
                .or_else(|| phase_demand(req.jobs[j].profile.as_ref(), task.kind, shuffling));
            let row = &mut running[i * r..(i + 1) * r];
            fill(row, amounts, &at);
            let Some(&n) = node_at.get(task.node.as_str()) else { continue };
            for (u, d) in used[n * r..(n + 1) * r].iter_mut().zip(row.iter()) {
                *u += d;
            }
            let k = task.kind.slot();
            if slots_left[n][k] != UNCAPPED {
                slots_left[n][k] = slots_left[n][k].saturating_sub(1);
            }
        }
        let mut demand = vec![0.0; req.pending.len() * r];
        for (t, task) in req.pending.iter().enumerate() {
            let j = ix.pending_job[t] as usize;
            let amounts = task
                .demand
                .as_ref()
                .or_else(|| phase_demand(req.jobs[j].profile.as_ref(), task.kind, maps_left[j]));
            fill(&mut demand[t * r..(t + 1) * r], amounts, &at);
        }
        Self { names, capacity, used, slots_left, demand, running }
    }

    /// Resources.
    pub fn resources(&self) -> usize {
        self.names.len()
    }

    /// Nodes.
    pub fn nodes(&self) -> usize {
        self.slots_left.len()
    }

    /// The demand of pending task `t`, one amount per resource.
    pub fn demand_of(&self, t: usize) -> &[f64] {
        let r = self.resources();
        &self.demand[t * r..(t + 1) * r]
    }

    /// The demand of running task `i`, one amount per resource.
    pub fn running_demand_of(&self, i: usize) -> &[f64] {
        let r = self.resources();
        &self.running[i * r..(i + 1) * r]
    }

    /// Whether demand `d` of a `kind` task fits node `n` now.
    ///
    /// # Complexity
    /// O(resources).
    pub fn fits(&self, n: usize, kind: TaskKind, d: &[f64]) -> bool {
        if self.slots_left[n][kind.slot()] == 0 {
            return false;
        }
        let r = self.resources();
        let base = n * r;
        d.iter().enumerate().all(|(k, &x)| {
            let cap = self.capacity[base + k];
            x <= 0.0 || self.used[base + k] + x <= cap + TOLERANCE * cap.abs().max(1.0)
        })
    }

    /// How much more of resource `k` node `n` admits, tolerance included: a set of new tasks
    /// with positive demands of `k` fits it (as far as `k` goes) when their demands sum to at
    /// most this, as [`Room::fits`] decides one task at a time. Negative when the running
    /// tasks already use more than the capacity: then no task that needs `k` fits.
    ///
    /// # Complexity
    /// O(1).
    pub fn headroom(&self, n: usize, k: usize) -> f64 {
        let i = n * self.resources() + k;
        let cap = self.capacity[i];
        cap + TOLERANCE * cap.abs().max(1.0) - self.used[i]
    }

    /// Whether demand `d` would fit node `n` if it were empty (slots aside): a task that fits
    /// no node this way waits with `no_node_fits`.
    pub fn fits_empty(&self, n: usize, d: &[f64]) -> bool {
        let r = self.resources();
        d.iter().enumerate().all(|(k, &x)| {
            let cap = self.capacity[n * r + k];
            x <= cap + TOLERANCE * cap.abs().max(1.0)
        })
    }

    /// Takes room for demand `d` of a `kind` task on node `n` (the caller checked
    /// [`Room::fits`]).
    pub fn take(&mut self, n: usize, kind: TaskKind, d: &[f64]) {
        let r = self.resources();
        for (u, &x) in self.used[n * r..(n + 1) * r].iter_mut().zip(d) {
            *u += x;
        }
        let s = &mut self.slots_left[n][kind.slot()];
        if *s != UNCAPPED {
            *s = s.saturating_sub(1);
        }
    }

    /// Gives back what [`Room::take`] took.
    pub fn give(&mut self, n: usize, kind: TaskKind, d: &[f64]) {
        let r = self.resources();
        for (u, &x) in self.used[n * r..(n + 1) * r].iter_mut().zip(d) {
            *u -= x;
        }
        let s = &mut self.slots_left[n][kind.slot()];
        if *s != UNCAPPED {
            *s += 1;
        }
    }

    /// The cluster's total capacity per resource.
    pub fn totals(&self) -> Vec<f64> {
        let r = self.resources();
        let mut total = vec![0.0; r];
        for row in self.capacity.chunks(r.max(1)) {
            for (t, &c) in total.iter_mut().zip(row) {
                *t += c;
            }
        }
        total
    }
}

/// The profile entry of a task of `kind` (a reduce `shuffling` or not).
fn phase_demand(profile: Option<&JobProfile>, kind: TaskKind, shuffling: bool) -> Option<&Amounts> {
    let p = profile?;
    Some(match kind {
        TaskKind::Map => &p.map,
        TaskKind::Reduce if shuffling => &p.shuffle,
        TaskKind::Reduce => &p.reduce,
    })
}

/// Writes `amounts` into `row` by resource index (0 for names not listed).
fn fill(row: &mut [f64], amounts: Option<&Amounts>, at: &HashMap<&str, usize>) {
    row.fill(0.0);
    for (name, &v) in amounts.into_iter().flatten() {
        if let Some(&k) = at.get(name.as_str()) {
            row[k] = v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use placer_models::{parse_request, validate};

    fn room(json: &str) -> Room {
        let req = parse_request(json.as_bytes()).unwrap();
        validate(&req).unwrap();
        Room::of(&Indexed::new(&req))
    }

    /// RAS Table 2's Sort on one TaskTracker normalised to 100: a map takes CPU 30, I/O 45,
    /// memory 25, so two fit (I/O 90) and a third does not (I/O 135 > 100).
    #[test]
    fn ras_table2_sort_maps_fill_io_first() {
        let r = room(
            r#"{"schema_version":1,"now_s":0,
            "cluster":{"racks":[{"id":"r"}],"nodes":[{"id":"n","rack":"r",
              "resources":{"cpu":100,"io":100,"mem":100}}]},
            "pools":[{"id":"p"}],
            "jobs":[{"id":"sort","pool":"p","profile":{"map":{"cpu":30,"io":45,"mem":25}}}],
            "pending":[{"id":"m1","job":"sort","kind":"map"},{"id":"m2","job":"sort","kind":"map"},
                       {"id":"m3","job":"sort","kind":"map"}],
            "running":[]}"#,
        );
        assert_eq!(r.names, ["cpu", "io", "mem"]);
        assert_eq!(r.slots_left, [[UNCAPPED, UNCAPPED]]);
        let mut r = r;
        let d = r.demand_of(0).to_vec();
        assert_eq!(d, [30.0, 45.0, 25.0]);
        assert!(r.fits(0, TaskKind::Map, &d));
        r.take(0, TaskKind::Map, &d);
        assert!(r.fits(0, TaskKind::Map, &d));
        r.take(0, TaskKind::Map, &d);
        assert!(!r.fits(0, TaskKind::Map, &d));
        r.give(0, TaskKind::Map, &d);
        assert!(r.fits(0, TaskKind::Map, &d));
    }

    /// A running reduce shuffles while its job has maps left, and its demand override wins;
    /// non-zero slots still cap the node.
    #[test]
    fn running_tasks_take_their_phase_demand() {
        let r = room(
            r#"{"schema_version":1,"now_s":0,
            "cluster":{"racks":[{"id":"r"}],"nodes":[{"id":"n","rack":"r","map_slots":2,
              "reduce_slots":1,"resources":{"cpu":1,"mem":1}}]},
            "pools":[{"id":"p"}],
            "jobs":[{"id":"j","pool":"p","profile":{"map":{"cpu":0.25},
              "shuffle":{"mem":0.125},"reduce":{"cpu":0.5,"mem":0.5}}}],
            "pending":[{"id":"m1","job":"j","kind":"map"},{"id":"r2","job":"j","kind":"reduce"}],
            "running":[{"id":"m0","job":"j","kind":"map","node":"n","demand":{"cpu":0.5}},
                       {"id":"r0","job":"j","kind":"reduce","node":"n"}]}"#,
        );
        assert_eq!(r.used, [0.5, 0.125]);
        assert_eq!(r.running_demand_of(0), [0.5, 0.0]);
        assert_eq!(r.running_demand_of(1), [0.0, 0.125]);
        assert_eq!(r.slots_left, [[1, 0]]);
        assert_eq!(r.demand_of(1), [0.0, 0.125]);
        assert!(!r.fits(0, TaskKind::Reduce, r.demand_of(1)));
        assert!(r.fits(0, TaskKind::Map, r.demand_of(0)));
    }
}
