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

use super::hooks::{Ctx, Mechanism};
use crate::config::Contention;
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

impl NodeLoad {
    /// Task `t` (on its node, its `work_left` settled now, with a demand) starts computing.
    fn join(&mut self, cx: &mut Ctx<'_>, t: usize) {
        let n = cx.tasks[t].node;
        self.settle(cx, n);
        self.tasks[n].push(t);
        self.rerate(cx, n);
    }

    /// Task `t` stops computing (it finished or was killed).
    fn leave(&mut self, cx: &mut Ctx<'_>, t: usize) {
        let n = cx.tasks[t].node;
        let Some(i) = self.tasks[n].iter().position(|&x| x == t) else { return };
        self.settle(cx, n);
        self.tasks[n].swap_remove(i);
        self.rerate(cx, n);
    }

    /// Work done by node `n`'s tasks since they were last settled, at its current rate.
    fn settle(&self, cx: &mut Ctx<'_>, n: usize) {
        let rate = self.rate[n];
        for &t in &self.tasks[n] {
            let run = &mut cx.tasks[t];
            run.work_left = (run.work_left - (cx.now - run.settled_s) * rate).max(0.0);
            run.settled_s = cx.now;
        }
    }

    /// Node `n`'s new demand sums and rate; its tasks rescheduled at it.
    fn rerate(&mut self, cx: &mut Ctx<'_>, n: usize) {
        let mut sum = [0.0; 3];
        for &t in &self.tasks[n] {
            if let Some(d) = cx.ix.tasks[t].demand {
                for (s, d) in sum.iter_mut().zip(d) {
                    *s += d;
                }
            }
        }
        let cap = cx.cluster.capacity[n];
        for (r, used) in self.in_use.iter_mut().enumerate() {
            *used += sum[r].min(cap[r]) - self.sum[n][r].min(cap[r]);
        }
        self.sum[n] = sum;
        let rate = node_rate(sum, cap, &cx.cfg.contention);
        self.rate[n] = rate;
        for &t in &self.tasks[n] {
            let run = &mut cx.tasks[t];
            run.version = run.version.wrapping_add(1);
            let at = cx.now + run.work_left / rate;
            cx.queue.push(at, EventKind::TaskDone { task: t, version: run.version });
        }
        cx.metrics.resources_changed(cx.now, self.in_use);
    }
}

impl Mechanism for NodeLoad {
    /// A task with a demand joins its node's load (with contention on).
    fn compute_started(&mut self, cx: &mut Ctx<'_>, t: usize) -> bool {
        if !(cx.cfg.contention.enabled && cx.ix.tasks[t].demand.is_some()) {
            return false;
        }
        self.join(cx, t);
        true
    }

    /// A task that ended leaves its node's load at once, before its end is reported.
    fn task_exited(&mut self, cx: &mut Ctx<'_>, t: usize) {
        if cx.tasks[t].computing {
            self.leave(cx, t);
        }
    }

    /// A computing task leaves its node's load (a no-op if it left when it exited).
    fn task_released(&mut self, cx: &mut Ctx<'_>, t: usize) {
        if cx.tasks[t].computing {
            self.leave(cx, t);
        }
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
