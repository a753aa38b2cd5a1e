//! Multi-resource contention on a node (RAS, Polo et al. §3.1 and Fig. 3: too few slots idle a
//! node, too many overcommit it): the tasks computing on a node with a demand (cpu, mem, io as
//! fractions of one node, RAS Table 2) all progress at the node's rate `ρ = min_r f_r` of
//! [`crate::Contention`] (1 when the sums fit the node; else the most overcommitted resource
//! sets the pace). A node's load of resource r is D_r / C_r with C_r its capacity in the
//! demands' units (`resources.rs`: 1 on the RAS and synthetic clusters, so the load is D_r;
//! on a trace cluster the node's share of the largest node); a resource the node has none of
//! (C_r = 0) is not modelled on it (factor 1), since a slot policy may well send a GPU task
//! to a CPU node, which would otherwise never finish. When a task starts or stops computing
//! on a node, the node's tasks are settled at the old rate (work done = elapsed · ρ) and
//! rescheduled at the new one, under a new version (their old end events go stale). Tasks
//! without a demand are not slowed and do not slow others. O(tasks computing on the node) per
//! change.
//!
//! Example (κ_io = 0.5, nothing else overcommitted): three tasks of io 0.5 on one node sum to
//! D_io = 1.5, so `ρ = 1 / (1.5 · (1 + 0.5 · 0.5)) = 0.533`: each 10 s task takes 18.75 s,
//! where proportional sharing alone (κ = 0) would give 15 s.

use crate::config::Contention;
use crate::engine::Engine;
use crate::queue::EventKind;

/// Per node, the demand-bearing tasks computing there and their rate.
#[derive(Clone, Debug)]
pub(crate) struct NodeLoad {
    tasks: Vec<Vec<usize>>,
    sum: Vec<[f64; 3]>,
    rate: Vec<f64>,
    /// Σ over nodes of min(sum, capacity) per resource: the cluster's resources in use, in
    /// the demands' units.
    in_use: [f64; 3],
}

impl NodeLoad {
    /// No task computing on `nodes` nodes.
    pub fn new(nodes: usize) -> Self {
        Self {
            tasks: vec![Vec::new(); nodes],
            sum: vec![[0.0; 3]; nodes],
            rate: vec![1.0; nodes],
            in_use: [0.0; 3],
        }
    }
}

/// `ρ` of [`Contention`] for demand sums `sum` = (cpu, mem, io) on a node of capacity `cap`:
/// loads `sum_r / cap_r` (0 where `cap_r` = 0, module docs).
pub(crate) fn node_rate(sum: [f64; 3], cap: [f64; 3], c: &Contention) -> f64 {
    let load = std::array::from_fn(|r| if cap[r] > 0.0 { sum[r] / cap[r] } else { 0.0 });
    rate(load, c)
}

/// `ρ` of [`Contention`] for loads `d` = (cpu, mem, io), each Σ demand / capacity.
pub(crate) fn rate(d: [f64; 3], c: &Contention) -> f64 {
    let shared = |load: f64, kappa: f64| {
        if load <= 1.0 {
            1.0
        } else {
            1.0 / (load * (1.0 + kappa * (load - 1.0)))
        }
    };
    let swap = if d[1] <= 1.0 { 1.0 } else { 1.0 / (1.0 + c.swap_penalty * (d[1] - 1.0)) };
    shared(d[0], c.cpu_thrash).min(shared(d[2], c.io_thrash)).min(swap)
}

impl Engine<'_> {
    /// Task `t` (on its node, its `work_left` settled now, with a demand) starts computing.
    pub(crate) fn join_load(&mut self, t: usize) {
        let n = self.tasks[t].node;
        self.settle_node(n);
        self.load.tasks[n].push(t);
        self.rerate_node(n);
    }

    /// Task `t` stops computing (it finished or was killed).
    pub(crate) fn leave_load(&mut self, t: usize) {
        let n = self.tasks[t].node;
        let Some(i) = self.load.tasks[n].iter().position(|&x| x == t) else { return };
        self.settle_node(n);
        self.load.tasks[n].swap_remove(i);
        self.rerate_node(n);
    }

    /// Work done by node `n`'s tasks since they were last settled, at its current rate.
    fn settle_node(&mut self, n: usize) {
        let rate = self.load.rate[n];
        for &t in &self.load.tasks[n] {
            let run = &mut self.tasks[t];
            run.work_left = (run.work_left - (self.now - run.settled_s) * rate).max(0.0);
            run.settled_s = self.now;
        }
    }

    /// Node `n`'s new demand sums and rate; its tasks rescheduled at it.
    fn rerate_node(&mut self, n: usize) {
        let mut sum = [0.0; 3];
        for &t in &self.load.tasks[n] {
            if let Some(d) = self.ix.tasks[t].demand {
                for (s, d) in sum.iter_mut().zip(d) {
                    *s += d;
                }
            }
        }
        let cap = self.cluster.capacity[n];
        for (r, used) in self.load.in_use.iter_mut().enumerate() {
            *used += sum[r].min(cap[r]) - self.load.sum[n][r].min(cap[r]);
        }
        self.load.sum[n] = sum;
        let rate = node_rate(sum, cap, &self.cfg.contention);
        self.load.rate[n] = rate;
        for i in 0..self.load.tasks[n].len() {
            let t = self.load.tasks[n][i];
            let run = &mut self.tasks[t];
            run.version = run.version.wrapping_add(1);
            let at = self.now + run.work_left / rate;
            self.queue.push(at, EventKind::TaskDone { task: t, version: run.version });
        }
        self.metrics.resources_changed(self.now, self.load.in_use);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn module_doc_example_and_the_regimes() {
        let c = Contention::default();
        // Fits: rate 1.
        assert_eq!(rate([0.9, 1.0, 1.0], &c), 1.0);
        // Three io-0.5 tasks: 1 / (1.5 · 1.25).
        let io = Contention { cpu_thrash: 0.0, swap_penalty: 0.0, io_thrash: 0.5, enabled: true };
        assert_relative_eq!(rate([0.0, 0.0, 1.5], &io), 1.0 / 1.875);
        assert_relative_eq!(10.0 / rate([0.0, 0.0, 1.5], &io), 18.75);
        // κ = 0 is proportional sharing.
        let fair = Contention { cpu_thrash: 0.0, io_thrash: 0.0, swap_penalty: 0.0, enabled: true };
        assert_relative_eq!(rate([2.0, 0.0, 0.0], &fair), 0.5);
        // Memory 1.5 with κ_mem 4: 1 / 3.
        let mem = Contention { swap_penalty: 4.0, ..fair };
        assert_relative_eq!(rate([0.0, 1.5, 0.0], &mem), 1.0 / 3.0);
        // Two resources over: the bottleneck sets the pace (cpu 2 → 1/2, io 1.5 → 1/1.5).
        assert_relative_eq!(rate([2.0, 0.0, 1.5], &fair), 0.5);
        // A node of half the largest's cpu runs cpu 0.75 at load 1.5; one without GPUs
        // (io capacity 0) is not slowed by GPU demands.
        assert_relative_eq!(node_rate([0.75, 0.0, 0.0], [0.5, 1.0, 1.0], &fair), 1.0 / 1.5);
        assert_eq!(node_rate([0.5, 0.5, 3.0], [1.0, 1.0, 0.0], &fair), 1.0);
    }
}
