//! Successive shortest paths with Johnson potentials (Ahuja, Magnanti, Orlin, *Network Flows*
//! §9.7), placer's own min-cost max-flow for one epoch's networks ([`Network`]): the
//! structured placement (Quincy's network on lsap-sched's costs) and the reduce placement under
//! CPAC caps (FAIR §5.2). Integer costs ≥ 0 on input arcs; each round runs Dijkstra on reduced
//! costs c(u, v) + π(u) − π(v) ≥ 0 and pushes the path's bottleneck. Zero reduced-cost
//! plateaus go through a stack instead of the heap, and vertices of large residual out-degree
//! keep persistent heaps (see [`Network::solve`]).
//!
//! Complexity: O(F · E log V) worst case for a total flow F; memory O(V + E) plus the hub
//! heaps' stale entries (O(Σ degree of the vertices settled)). Exact: the flow is maximum
//! and, among maximum flows, of minimum cost (every augmentation is along a shortest path, so
//! the residual graph never has a negative cycle).

use super::graph::{swap_halves, Csr, CsrArc, Network};
use crate::cancel::{is_cut, Cancel};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The outcome of [`Network::solve`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowResult {
    /// Units sent from source to sink (maximum).
    pub flow: i64,
    /// Σ cost · flow over arcs (minimum among maximum flows).
    pub cost: i64,
}

impl Network {
    /// Sends a maximum flow of minimum cost from `s` to `t`, on top of any flow already pushed
    /// (which must leave no residual arc of negative cost).
    ///
    /// Each round is one Dijkstra on reduced costs c(u, v) + π(u) − π(v) ≥ 0 that stops as
    /// soon as `t` is settled. Only settled vertices' potentials move (π(v) += d(v) − d(t),
    /// which differs from the textbook update by a constant) and only touched entries are
    /// reset, so a short augmenting path costs time in proportion to what it explores.
    ///
    /// Hubs: a vertex with at least [`HUB_DEGREE`] out-arcs (the source of placer's networks,
    /// and the cluster and rack aggregators of the reversed placement network) keeps its
    /// residual out-arcs in a persistent heap keyed by c − π(head). Potentials only fall, so
    /// keys only grow: an entry is re-keyed lazily when it reaches the top with a stale key,
    /// never when a potential moves. Settling a hub then costs O(log) per arc actually used,
    /// not O(out-degree): a round is O(Σ degree of the non-hub vertices settled · log V).
    ///
    /// The answer maximises the flow value and, among maximum flows, minimises Σ_a c(a) · f(a)
    /// in the caller's integer cost units; [`Network::flow`] then reads each arc's flow.
    ///
    /// # Complexity
    /// Time O(F · E log V) worst case for F units sent (one Dijkstra per augmenting path);
    /// space O(V + E) plus the hub heaps' stale entries.
    ///
    /// # Errors
    /// None: an unreachable `t` gives flow 0. The caller's contract, not checked: arc costs
    /// ≥ 0, any flow pushed beforehand leaves no residual arc of negative cost, and costs along
    /// a path fit in i64; outside it the answer is not guaranteed to be of least cost.
    ///
    /// # Examples
    /// lsap-sched's Fig. 1 as a flow: S → T1, T2 (capacity 1, cost 0); T1 → A, T1 → B and
    /// T2 → A cost 0 (the node holds the task's block), T2 → B costs 1 (a remote read); A → T
    /// and B → T have capacity 1 (one idle slot each). Both tasks are placed (flow 2), both
    /// node-local (cost 0): T1 → B and T2 → A.
    /// ```
    /// use placer_solver::flow::{FlowResult, Network};
    /// let (s, t, t1, t2, a, b) = (0, 1, 2, 3, 4, 5);
    /// let (mut g, [t1_a, t1_b, t2_a, t2_b]) = Network::build(6, |g| {
    ///     g.add_arc(s, t1, 1, 0);
    ///     g.add_arc(s, t2, 1, 0);
    ///     let t1_a = g.add_arc(t1, a, 1, 0);
    ///     let t1_b = g.add_arc(t1, b, 1, 0);
    ///     let t2_a = g.add_arc(t2, a, 1, 0);
    ///     let t2_b = g.add_arc(t2, b, 1, 1);
    ///     g.add_arc(a, t, 1, 0);
    ///     g.add_arc(b, t, 1, 0);
    ///     [t1_a, t1_b, t2_a, t2_b]
    /// })
    /// .unwrap();
    /// assert_eq!(g.solve(s, t), FlowResult { flow: 2, cost: 0 });
    /// assert_eq!([g.flow(t1_a), g.flow(t1_b), g.flow(t2_a), g.flow(t2_b)], [0, 1, 1, 0]);
    /// ```
    pub fn solve(&mut self, s: usize, t: usize) -> FlowResult {
        let (result, cut) = self.csr.run(s, t, self.cancel.as_ref());
        self.cut = cut;
        result
    }

    /// Like [`Network::solve`], fastest where a maximum flow fills every arc into `t` (in
    /// the structured placement network every task reaches every node, so with at least as
    /// many unplaced tasks as free slots every slot fills). The flows into `t` are then fixed,
    /// so the cost of reaching `t` through one slot or another differs by a constant and `t`
    /// can be dropped: each vertex with a residual arc into `t` is a deficit of its own.
    ///
    /// Successive shortest paths one deficit at a time (Ahuja, Magnanti, Orlin §9.7, which
    /// lets each augmentation go from any excess to any deficit): with `t` dropped the
    /// problem is a transportation from `s` to the deficits, and each round is one Dijkstra
    /// on reduced costs from a single deficit backwards (on the network flipped in place) to
    /// `s`, stopped when `s` is settled, then a push along that path. Only the settled
    /// vertices' potentials move, so reduced costs stay ≥ 0 and the final flow has no negative
    /// residual cycle (the saturated arcs into `t` close none): minimum cost.
    ///
    /// Why backwards and one at a time: after placer's zero-cost seed, the unplaced tasks and
    /// everything zero-cost paths reach from them form a plateau at distance 0 from `s` that
    /// spans almost the whole network (≈ 221,000 vertices at 100,000 nodes), so any
    /// search from `s` crosses it. From one deficit, a search sees that deficit's few
    /// candidates in order of cost (its rack's and the cluster's cheapest tasks, through the
    /// hub heaps) and stops at the first that reaches `s`: at 100,000 nodes, 3,806 rounds
    /// settled 104,088 vertices in all, ≈ 27 each.
    ///
    /// Where costs tie along whole groups of tasks (reduces with equal shuffle reading from
    /// every node, so dense rows), one round per deficit walks the same ties again and again,
    /// while one primal–dual phase (Ahuja, Magnanti, Orlin §9.8: a Dijkstra, then a blocking
    /// flow on zero reduced-cost arcs) fills every tied deficit at once. So a network with
    /// more than 32 half-arcs per vertex runs phases alone, and otherwise, once the rounds have
    /// touched a quarter of the network's half-arcs in vertices and hub entries, phases run
    /// one at a time while each fills deficits more cheaply per unit than the rounds did, and
    /// the rounds finish. Both keep one set of potentials (negated on the flipped network).
    ///
    /// Whether the arcs into `t` do all fill is not assumed: if a deficit cannot reach `s`
    /// (the supply ran out first, or some task cannot reach that node), the rounds' flow is
    /// discarded and [`Network::solve`] runs instead, so the answer is exact either way.
    ///
    /// # Complexity
    /// Time O(F · E log V) worst case for the F units sent, and in practice O(Σ vertices
    /// settled per round · degree · log V), which stays near the deficits, plus O(E log V)
    /// per phase; plus O(E) for the flips and a run of [`Network::solve`] when a deficit
    /// is unreachable; space O(V + E).
    ///
    /// # Errors
    /// None, under [`Network::solve`]'s contract (costs ≥ 0, no negative residual arc
    /// left by flow pushed beforehand, sums within i64).
    ///
    /// # Examples
    /// lsap-sched's Fig. 1 (the network of [`Network::solve`]'s example) seeded with
    /// dl-sched's greedy choice: T1 → A is pushed first (a zero-cost path, so a valid seed).
    /// The one round left fills B's slot along S → T2 → A, back over the seed A → T1, then
    /// T1 → B, all at reduced cost 0: T1 moves to B and T2 gets A. (`flow`
    /// counts the units this call sends: 1.)
    /// ```
    /// use placer_solver::flow::{FlowResult, Network};
    /// let (s, t, t1, t2, a, b) = (0, 1, 2, 3, 4, 5);
    /// let (mut g, [s_t1, t1_a, t1_b, t2_a, t2_b, a_t]) = Network::build(6, |g| {
    ///     let s_t1 = g.add_arc(s, t1, 1, 0);
    ///     g.add_arc(s, t2, 1, 0);
    ///     let t1_a = g.add_arc(t1, a, 1, 0);
    ///     let t1_b = g.add_arc(t1, b, 1, 0);
    ///     let t2_a = g.add_arc(t2, a, 1, 0);
    ///     let t2_b = g.add_arc(t2, b, 1, 1);
    ///     let a_t = g.add_arc(a, t, 1, 0);
    ///     g.add_arc(b, t, 1, 0);
    ///     [s_t1, t1_a, t1_b, t2_a, t2_b, a_t]
    /// })
    /// .unwrap();
    /// for arc in [s_t1, t1_a, a_t] {
    ///     g.push(arc, 1); // the greedy seed: T1 → A
    /// }
    /// assert_eq!(g.solve_fixed_sink(s, t), FlowResult { flow: 1, cost: 0 });
    /// assert_eq!([g.flow(t1_a), g.flow(t1_b), g.flow(t2_a), g.flow(t2_b)], [0, 1, 1, 0]);
    /// ```
    pub fn solve_fixed_sink(&mut self, s: usize, t: usize) -> FlowResult {
        let (result, cut) = self.csr.fixed_sink(s, t, self.cancel.as_ref());
        self.cut = cut;
        result
    }

    /// [`Network::solve_fixed_sink`] warm-started from `potential` (one label per vertex,
    /// e.g. from an earlier solve of a similar network, a warm start): the labels are first
    /// lowered until every residual arc has a reduced cost ≥ 0 (`Csr::repair`, about 8 · E
    /// arc scans at most; beyond that the solve starts from zero labels, as a cold one does). On
    /// return `potential` holds the final labels. The answer is a minimum-cost flow whatever
    /// the labels given: only the searches' reduced costs change.
    ///
    /// # Complexity
    /// As [`Network::solve_fixed_sink`], plus O(degree) per label that falls.
    ///
    /// # Panics
    /// If `potential` does not have one entry per vertex.
    pub fn solve_fixed_sink_warm(
        &mut self,
        s: usize,
        t: usize,
        potential: &mut [i64],
    ) -> FlowResult {
        assert_eq!(potential.len(), self.csr.start.len() - 1, "one potential per vertex");
        if !self.csr.repair(potential, 8 * self.csr.arcs.len().max(1)) {
            potential.iter_mut().for_each(|p| *p = 0);
        }
        let (result, cut) = self.csr.fixed_sink_from(s, t, self.cancel.as_ref(), potential);
        self.cut = cut;
        result
    }
}

/// Queues `code` at distance `d`: on the stack of the distance being settled when equal to it,
/// else on the heap.
#[inline]
fn enqueue(
    heap: &mut BinaryHeap<Reverse<(i64, u32)>>,
    level: &mut Vec<u32>,
    current: i64,
    d: i64,
    code: u32,
) {
    if d == current {
        level.push(code);
    } else {
        heap.push(Reverse((d, code)));
    }
}

/// The capacities a blocking-flow pass changed, as they were before its first change (one
/// bit per half-arc to log each once), so that [`Csr::fixed_sink`] can discard that flow.
struct Undo {
    saved: Vec<u64>,
    log: Vec<(u32, i32)>,
}

impl Undo {
    fn new(halves: usize) -> Self {
        Self { saved: vec![0; halves.div_ceil(64)], log: Vec::new() }
    }

    /// Logs half-arc `p`'s capacity unless it was logged already. O(1).
    #[inline]
    fn save(&mut self, arcs: &[CsrArc], p: usize) {
        let (word, bit) = (p / 64, 1u64 << (p % 64));
        if self.saved[word] & bit == 0 {
            self.saved[word] |= bit;
            self.log.push((p as u32, arcs[p].cap));
        }
    }

    /// Puts every logged capacity back. O(changes).
    fn restore(self, arcs: &mut [CsrArc]) {
        for (p, cap) in self.log {
            arcs[p as usize].cap = cap;
        }
    }

    /// [`Undo::save`] on a network that may be flipped ([`Csr::flip`]): the capacity at
    /// `p` then belongs at its twin's position the right way round, and is logged there.
    #[inline]
    fn save_oriented(&mut self, arcs: &[CsrArc], p: usize, flipped: bool) {
        if !flipped {
            return self.save(arcs, p);
        }
        let q = arcs[p].twin as usize;
        let (word, bit) = (q / 64, 1u64 << (q % 64));
        if self.saved[word] & bit == 0 {
            self.saved[word] |= bit;
            self.log.push((q as u32, arcs[p].cap));
        }
    }
}

/// A hub's heap entry: (c − π(head) when pushed, a lower bound of it now; arc position).
type HubEntry = Reverse<(i64, u32)>;

impl Csr {
    /// See [`Network::solve_fixed_sink`]: rounds of one deficit each, and primal–dual
    /// phases while those fill deficits more cheaply; plain successive shortest paths from the
    /// seed flow if some deficit cannot be reached.
    ///
    /// The rounds may touch as many vertices and hub entries as the network has half-arcs
    /// (about one phase's work); past that, phases run one at a time while each costs less
    /// per unit it fills than the rounds did, and the rounds then finish. Both keep reduced
    /// costs ≥ 0 with one set of potentials, so every unit goes along a shortest path.
    fn fixed_sink(&mut self, s: usize, t: usize, cancel: Option<&Cancel>) -> (FlowResult, bool) {
        let mut potential = vec![0i64; self.start.len() - 1];
        self.fixed_sink_from(s, t, cancel, &mut potential)
    }

    /// [`Csr::fixed_sink`] from `potential`, which must be feasible (every residual arc's
    /// reduced cost c + π(u) − π(v) ≥ 0, see [`Csr::repair`]); on return it holds the final
    /// potentials (feasible except, possibly, on the arcs of the vertex a search excluded:
    /// [`Csr::repair`] them before another solve).
    fn fixed_sink_from(
        &mut self,
        s: usize,
        t: usize,
        cancel: Option<&Cancel>,
        potential: &mut [i64],
    ) -> (FlowResult, bool) {
        let budget = self.arcs.len() / 4;
        let dense = DENSE_DEGREE * self.start.len();
        self.fixed_sink_tuned(s, t, cancel, budget, dense, potential)
    }

    /// Lowers `potential` until every residual arc's reduced cost c + π(u) − π(v) is ≥ 0:
    /// label correcting (FIFO), labels only fall, so from labels that were feasible for a
    /// similar network (the previous epoch's) only the vertices whose arcs changed move. It
    /// ends because a flow of least cost for its value has no negative residual cycle. Gives
    /// up (false, `potential` then unspecified) after `limit` arc scans.
    ///
    /// Complexity: O(limit) time, O(V) space.
    fn repair(&self, potential: &mut [i64], limit: usize) -> bool {
        let n = self.start.len() - 1;
        let mut queued = vec![true; n];
        let mut queue: std::collections::VecDeque<u32> = (0..n as u32).collect();
        let mut scans = 0usize;
        while let Some(u) = queue.pop_front() {
            let u = u as usize;
            queued[u] = false;
            for p in self.out(u) {
                scans += 1;
                let arc = self.arcs[p];
                let v = arc.to as usize;
                let bound = potential[u].saturating_add(arc.cost);
                if arc.cap > 0 && potential[v] > bound {
                    potential[v] = bound;
                    if !queued[v] {
                        queued[v] = true;
                        queue.push_back(v as u32);
                    }
                }
            }
            if scans > limit {
                return false;
            }
        }
        true
    }

    /// [`Csr::fixed_sink`] with the rounds' first budget and the half-arc count from which
    /// the phases run alone given (tests force each path with them).
    fn fixed_sink_tuned(
        &mut self,
        s: usize,
        t: usize,
        cancel: Option<&Cancel>,
        budget: usize,
        dense: usize,
        potential: &mut [i64],
    ) -> (FlowResult, bool) {
        let mut undo = Undo::new(self.arcs.len());
        let mut total = FlowResult { flow: 0, cost: 0 };
        let mut budget = Some(budget);
        if self.arcs.len() > dense {
            let phases = self.run_phased(s, t, cancel, &mut undo, potential, u32::MAX);
            if phases.cut || phases.left == 0 {
                return (phases.result, phases.cut);
            }
            undo.restore(&mut self.arcs);
            return self.run_from(s, t, cancel, potential);
        }
        let add = |total: &mut FlowResult, r: FlowResult| {
            total.flow += r.flow;
            total.cost += r.cost;
        };
        'modes: loop {
            let (result, end, work) =
                self.by_deficits(s, t, cancel, &mut undo, potential, budget.take());
            add(&mut total, result);
            match end {
                RoundsEnd::Done => return (total, false),
                RoundsEnd::Cut => return (total, true),
                RoundsEnd::Unreached => break 'modes,
                RoundsEnd::Budget => {}
            }
            let per_unit = work as f64 / result.flow.max(1) as f64;
            loop {
                let phase = self.run_phased(s, t, cancel, &mut undo, potential, 1);
                add(&mut total, phase.result);
                if phase.cut {
                    return (total, true);
                }
                if phase.left == 0 {
                    return (total, false);
                }
                if phase.stuck {
                    break 'modes;
                }
                if phase.work as f64 / phase.result.flow.max(1) as f64 > per_unit {
                    continue 'modes;
                }
            }
        }
        undo.restore(&mut self.arcs);
        self.run_from(s, t, cancel, potential)
    }

    /// Swaps each arc's direction in place: a half-arc and its twin exchange capacity and
    /// cost, so u → v (capacity c, flow f) becomes v → u with the same c, f and cost.
    fn flip(&mut self) {
        self.flipped = !self.flipped;
        swap_halves(&mut self.arcs);
    }

    /// The fixed-sink flow one deficit at a time: on the flipped network, each round is a
    /// shortest path from one vertex whose arc into `t` has room back to `s`. Stops early
    /// (`Budget`) once the rounds have touched more than `budget` vertices and hub entries.
    /// `potential` is the right way round on entry and on return; the changes go to `undo`.
    /// Returns the flow sent, why it stopped and the work done.
    fn by_deficits(
        &mut self,
        s: usize,
        t: usize,
        cancel: Option<&Cancel>,
        undo: &mut Undo,
        potential: &mut [i64],
        budget: Option<usize>,
    ) -> (FlowResult, RoundsEnd, usize) {
        self.flip();
        // A residual arc's reduced cost is the same either way round with π negated.
        potential.iter_mut().for_each(|p| *p = -*p);
        let (mut cursor, end) = (self.start[t] as usize, self.start[t + 1] as usize);
        let pick = |g: &Self| {
            while cursor < end && g.arcs[cursor].cap <= 0 {
                cursor += 1;
            }
            (cursor < end).then(|| (g.arcs[cursor].to as usize, Some(cursor)))
        };
        let out = self.rounds(s, t, pick, potential, cancel, Some(Track { undo, budget }));
        self.flip();
        potential.iter_mut().for_each(|p| *p = -*p);
        out
    }

    /// The best entry of a hub's heap: (c − π(head), arc position). Arcs that are full are
    /// dropped; arcs to a vertex settled this round go to `deferred` (back in after the
    /// round); an entry whose key is below the arc's c − π(head) now is put back with it.
    /// Keys only grow (potentials only fall), so a stored key is a lower bound and the
    /// first entry whose key is current is the least.
    fn hub_top(
        &self,
        entries: &mut BinaryHeap<HubEntry>,
        potential: &[i64],
        done: &[bool],
        deferred: &mut Vec<u32>,
    ) -> Option<(i64, u32)> {
        while let Some(&Reverse((key, a))) = entries.peek() {
            let arc = self.arcs[a as usize];
            let head = arc.to as usize;
            if arc.cap <= 0 {
                entries.pop();
            } else if done[head] {
                entries.pop();
                deferred.push(a);
            } else {
                let now = arc.cost - potential[head];
                if now == key {
                    return Some((key, a));
                }
                entries.pop();
                entries.push(Reverse((now, a)));
            }
        }
        None
    }

    /// Primal–dual phases for [`Csr::fixed_sink`], from the flow and the potentials given
    /// (reduced costs ≥ 0 on every residual arc not into `t`): one Dijkstra from `s`
    /// (stopped once every deficit is settled) moves the potentials so that every shortest
    /// path has reduced cost 0, then depth-first searches push along zero reduced-cost arcs
    /// from `s` to any deficit until none is reachable (a blocking flow, with per-phase dead
    /// marks). A phase costs O(E log V) and fills every deficit whose shortest path ties
    /// with others' (equal input sizes), where one round per deficit would search again
    /// through every task placed before it. The changes go to `undo`.
    fn run_phased(
        &mut self,
        s: usize,
        t: usize,
        cancel: Option<&Cancel>,
        undo: &mut Undo,
        potential: &mut [i64],
        max_phases: u32,
    ) -> Phases {
        let n = self.start.len() - 1;
        let mut work = 0usize;
        let mut phases = 0u32;
        let mut dist = vec![i64::MAX; n];
        let mut settled: Vec<u32> = Vec::new();
        let mut heap: BinaryHeap<Reverse<(i64, u32)>> = BinaryHeap::new();
        let mut level: Vec<u32> = Vec::new();
        // Per vertex: its arc into t (placer's networks have at most one per vertex; with
        // several, the last counts and the others are never used).
        let mut sink_arc = vec![u32::MAX; n];
        for (v, arc) in sink_arc.iter_mut().enumerate() {
            if v != t {
                for p in self.out(v) {
                    if self.arcs[p].to as usize == t && self.arcs[p].cap > 0 {
                        *arc = p as u32;
                    }
                }
            }
        }
        let into_t = |arcs: &[CsrArc], v: usize| -> Option<usize> {
            let p = sink_arc[v];
            (p != u32::MAX && arcs[p as usize].cap > 0).then_some(p as usize)
        };
        let mut deficits = (0..n).filter(|&v| into_t(&self.arcs, v).is_some()).count();
        // Units s can still send; a phase's search may stop once it has settled as many
        // deficits as that (more could not be filled in this phase).
        let mut supply: i64 = self.out(s).map(|p| i64::from(self.arcs[p].cap.max(0))).sum();
        // Per-phase stamps: settled (Dijkstra) or dead (blocking flow), on the DFS path, and
        // cursor valid.
        let mut dead = vec![0u32; n];
        let mut on_path = vec![0u32; n];
        let mut cursor = vec![0u32; n];
        let mut cursor_phase = vec![0u32; n];
        let mut phase = 0u32;
        let mut stack: Vec<u32> = Vec::new();
        let mut result = FlowResult { flow: 0, cost: 0 };
        let end = |result, cut, left, stuck, work| Phases { result, cut, left, stuck, work };
        while deficits > 0 && supply > 0 {
            if phases == max_phases {
                return end(result, false, deficits, false, work);
            }
            phases += 1;
            if is_cut(cancel) {
                return end(result, true, deficits, false, work);
            }
            phase += 1;
            // Dijkstra from s (t excluded), stopped once every deficit is settled.
            for &v in &settled {
                dist[v as usize] = i64::MAX;
            }
            settled.clear();
            heap.clear();
            level.clear();
            dist[s] = 0;
            level.push(s as u32);
            let mut current = 0i64;
            let mut reached = 0usize;
            let mut last = 0i64;
            loop {
                let (d, u) = match level.pop() {
                    Some(u) => (current, u as usize),
                    None => match heap.pop() {
                        Some(Reverse((d, u))) => {
                            current = d;
                            (d, u as usize)
                        }
                        None => break,
                    },
                };
                if d > dist[u] || dead[u] == phase {
                    continue;
                }
                // `dead` doubles as the settled mark during the search.
                dead[u] = phase;
                settled.push(u as u32);
                last = d;
                if into_t(&self.arcs, u).is_some() {
                    reached += 1;
                    if reached == deficits || reached as i64 >= supply {
                        break;
                    }
                }
                let base = d + potential[u];
                for p in self.out(u) {
                    let arc = self.arcs[p];
                    let v = arc.to as usize;
                    if arc.cap <= 0 || v == t || dead[v] == phase {
                        continue;
                    }
                    let nd = base + arc.cost - potential[v];
                    if nd < dist[v] {
                        if dist[v] == i64::MAX {
                            settled.push(v as u32 | TOUCHED);
                        }
                        dist[v] = nd;
                        enqueue(&mut heap, &mut level, current, nd, v as u32);
                    }
                }
            }
            work += 2 * settled.len();
            if reached == 0 {
                break;
            }
            // Settled vertices move by d − last; the rest keep their potentials.
            for code in settled.iter_mut() {
                if *code & TOUCHED == 0 {
                    let v = *code as usize;
                    potential[v] += dist[v] - last;
                }
                *code &= !TOUCHED;
            }
            // Blocking flow on zero reduced-cost arcs, from s to any deficit.
            phase += 1;
            loop {
                if is_cut(cancel) {
                    return end(result, true, deficits, false, work);
                }
                stack.clear();
                stack.push(s as u32);
                on_path[s] = phase;
                let mut found = None;
                while let Some(&top) = stack.last() {
                    let u = top as usize;
                    if cursor_phase[u] != phase {
                        cursor_phase[u] = phase;
                        cursor[u] = self.start[u];
                    }
                    if u != s {
                        if let Some(p) = into_t(&self.arcs, u) {
                            found = Some(p);
                            break;
                        }
                    }
                    let end = self.start[u + 1];
                    let mut next = None;
                    while cursor[u] < end {
                        let p = cursor[u] as usize;
                        let arc = self.arcs[p];
                        let v = arc.to as usize;
                        if arc.cap > 0
                            && v != t
                            && dead[v] != phase
                            && on_path[v] != phase
                            && arc.cost + potential[u] - potential[v] == 0
                        {
                            next = Some(v);
                            break;
                        }
                        cursor[u] += 1;
                    }
                    match next {
                        Some(v) => {
                            on_path[v] = phase;
                            stack.push(v as u32);
                        }
                        None => {
                            dead[u] = phase;
                            on_path[u] = 0;
                            stack.pop();
                        }
                    }
                }
                let Some(last_arc) = found else { break };
                // Bottleneck over the path's arcs (each at its vertex's cursor) and the arc
                // into t, then push.
                let mut push = self.arcs[last_arc].cap;
                for &u in &stack[..stack.len() - 1] {
                    push = push.min(self.arcs[cursor[u as usize] as usize].cap);
                }
                let path = stack[..stack.len() - 1].iter().map(|&u| cursor[u as usize] as usize);
                for p in path.chain([last_arc]) {
                    let twin = self.arcs[p].twin as usize;
                    undo.save(&self.arcs, p);
                    undo.save(&self.arcs, twin);
                    self.arcs[p].cap -= push;
                    self.arcs[twin].cap += push;
                    result.cost += i64::from(push) * self.arcs[p].cost;
                }
                result.flow += i64::from(push);
                supply -= i64::from(push);
                if self.arcs[last_arc].cap == 0 {
                    deficits -= 1;
                }
                for &u in stack.iter() {
                    on_path[u as usize] = 0;
                }
                if deficits == 0 || supply == 0 {
                    break;
                }
            }
            phase += 1;
        }
        end(result, false, deficits, deficits > 0, work)
    }

    /// See [`Network::solve`].
    fn run(&mut self, s: usize, t: usize, cancel: Option<&Cancel>) -> (FlowResult, bool) {
        let mut potential = vec![0i64; self.start.len() - 1];
        self.run_from(s, t, cancel, &mut potential)
    }

    /// [`Csr::run`] (from the seed flow the arcs hold), its potentials left in `potential`
    /// (zeroed first: the seed flow of cost 0 has no negative residual arc).
    fn run_from(
        &mut self,
        s: usize,
        t: usize,
        cancel: Option<&Cancel>,
        potential: &mut [i64],
    ) -> (FlowResult, bool) {
        potential.iter_mut().for_each(|p| *p = 0);
        let (result, end, _) =
            self.rounds(t, usize::MAX, |_| Some((s, None)), potential, cancel, None);
        (result, end == RoundsEnd::Cut)
    }

    /// Successive shortest paths, one Dijkstra per round on reduced costs with hub heaps (see
    /// [`Network::solve`]): each round starts where `pick` says — a vertex, and an arc
    /// into it whose residual also bounds the push (`None`: none) — and ends at `target`;
    /// `excluded` is never entered. With `track`, changes go to its undo log and the rounds
    /// stop once they have touched more vertices and hub entries than its budget.
    fn rounds(
        &mut self,
        target: usize,
        excluded: usize,
        mut pick: impl FnMut(&Self) -> Option<(usize, Option<usize>)>,
        potential: &mut [i64],
        cancel: Option<&Cancel>,
        mut track: Option<Track<'_>>,
    ) -> (FlowResult, RoundsEnd, usize) {
        let budget = track.as_ref().and_then(|t| t.budget);
        let n = self.start.len() - 1;
        let t = target;
        let mut dist = vec![i64::MAX; n];
        let mut via = vec![u32::MAX; n];
        let mut done = vec![false; n];
        let mut settled: Vec<u32> = Vec::new();
        let mut touched: Vec<u32> = Vec::new();
        // Main heap: (distance, vertex) or (distance, HUB_CURSOR | hub index).
        let mut heap: BinaryHeap<Reverse<(i64, u32)>> = BinaryHeap::new();
        // Entries at exactly the distance being settled skip the heap (zero reduced-cost
        // plateaus are common: interchangeable slots, zero-cost local moves).
        let mut level: Vec<u32> = Vec::new();
        let mut hub_of = vec![u32::MAX; n];
        let mut hubs: Vec<(u32, BinaryHeap<HubEntry>)> = Vec::new();
        for (v, hub) in hub_of.iter_mut().enumerate() {
            let residual = self.out(v).filter(|&p| self.arcs[p].cap > 0).count();
            if residual >= HUB_DEGREE && v != target && v != excluded {
                *hub = hubs.len() as u32;
                let entries = self
                    .out(v)
                    .filter(|&p| self.arcs[p].cap > 0 && self.arcs[p].to as usize != excluded)
                    .map(|p| {
                        let key = self.arcs[p].cost - potential[self.arcs[p].to as usize];
                        Reverse((key, p as u32))
                    })
                    .collect();
                hubs.push((v as u32, entries));
            }
        }
        // Hub arcs taken out during a round: used by the search, or leading to a vertex
        // settled already; back in at the round's end.
        let mut popped: Vec<u32> = Vec::new();
        let mut result = FlowResult { flow: 0, cost: 0 };
        // Vertices touched and hub entries taken out, over the rounds so far.
        let mut work = 0usize;
        loop {
            if is_cut(cancel) {
                return (result, RoundsEnd::Cut, work);
            }
            if budget.is_some_and(|b| work > b) {
                return (result, RoundsEnd::Budget, work);
            }
            let Some((s, pre)) = pick(self) else { return (result, RoundsEnd::Done, work) };
            work += touched.len() + popped.len();
            for &v in &touched {
                dist[v as usize] = i64::MAX;
                via[v as usize] = u32::MAX;
                done[v as usize] = false;
            }
            touched.clear();
            settled.clear();
            popped.clear();
            heap.clear();
            level.clear();
            dist[s] = 0;
            touched.push(s as u32);
            level.push(s as u32);
            let mut current = 0i64;
            let mut reached = false;
            'search: loop {
                let (d, code) = match level.pop() {
                    Some(code) => (current, code),
                    None => match heap.pop() {
                        Some(Reverse((d, code))) => {
                            current = d;
                            (d, code)
                        }
                        None => break,
                    },
                };
                if code & HUB_CURSOR != 0 {
                    let h = (code & !HUB_CURSOR) as usize;
                    let hv = hubs[h].0 as usize;
                    let Some((key, a)) =
                        self.hub_top(&mut hubs[h].1, potential, &done, &mut popped)
                    else {
                        continue;
                    };
                    let cand = dist[hv] + potential[hv] + key;
                    if cand != d {
                        enqueue(&mut heap, &mut level, current, cand, code);
                        continue;
                    }
                    hubs[h].1.pop();
                    popped.push(a);
                    // The cursor goes back first, so that on a zero plateau the vertex just
                    // reached is explored before the hub's next arc (depth first).
                    if let Some((key, _)) =
                        self.hub_top(&mut hubs[h].1, potential, &done, &mut popped)
                    {
                        let next = dist[hv] + potential[hv] + key;
                        enqueue(&mut heap, &mut level, current, next, code);
                    }
                    let v = self.arcs[a as usize].to as usize;
                    if cand < dist[v] {
                        if dist[v] == i64::MAX {
                            touched.push(v as u32);
                        }
                        dist[v] = cand;
                        via[v] = a;
                        if v == t && cand == current {
                            // Nothing left can come closer: the target is settled now.
                            done[t] = true;
                            settled.push(t as u32);
                            reached = true;
                            break 'search;
                        }
                        enqueue(&mut heap, &mut level, current, cand, v as u32);
                    }
                    continue;
                }
                let u = code as usize;
                if done[u] || d > dist[u] {
                    continue;
                }
                done[u] = true;
                settled.push(u as u32);
                if u == t {
                    reached = true;
                    break;
                }
                if hub_of[u] != u32::MAX {
                    let h = hub_of[u] as usize;
                    if let Some((key, _)) =
                        self.hub_top(&mut hubs[h].1, potential, &done, &mut popped)
                    {
                        let next = d + potential[u] + key;
                        enqueue(&mut heap, &mut level, current, next, HUB_CURSOR | h as u32);
                    }
                    continue;
                }
                let base = d + potential[u];
                for p in self.out(u) {
                    let arc = self.arcs[p];
                    let v = arc.to as usize;
                    if arc.cap <= 0 || done[v] || v == excluded {
                        continue;
                    }
                    let nd = base + arc.cost - potential[v];
                    if nd < dist[v] {
                        if dist[v] == i64::MAX {
                            touched.push(v as u32);
                        }
                        dist[v] = nd;
                        via[v] = p as u32;
                        if v == t && nd == current {
                            // Reached at the distance being settled: no shorter way is left
                            // (ties on a plateau would otherwise be walked first).
                            done[t] = true;
                            settled.push(t as u32);
                            reached = true;
                            break 'search;
                        }
                        enqueue(&mut heap, &mut level, current, nd, v as u32);
                    }
                }
            }
            if !reached {
                return (result, RoundsEnd::Unreached, work);
            }
            let dt = dist[t];
            for &v in &settled {
                potential[v as usize] += dist[v as usize] - dt;
            }
            // Bottleneck along the path, then push.
            let mut push = pre.map_or(i32::MAX, |p| self.arcs[p].cap);
            let mut v = t;
            while v != s {
                let a = self.arcs[via[v] as usize];
                push = push.min(a.cap);
                v = self.arcs[a.twin as usize].to as usize;
            }
            let mut v = t;
            let path = std::iter::from_fn(|| {
                (v != s).then(|| {
                    let p = via[v] as usize;
                    v = self.arcs[self.arcs[p].twin as usize].to as usize;
                    p
                })
            });
            let path: Vec<usize> = path.chain(pre).collect();
            for &p in &path {
                let a = self.arcs[p];
                if let Some(track) = track.as_mut() {
                    track.undo.save_oriented(&self.arcs, p, self.flipped);
                    track.undo.save_oriented(&self.arcs, a.twin as usize, self.flipped);
                }
                self.arcs[p].cap -= push;
                self.arcs[a.twin as usize].cap += push;
                result.cost += i64::from(push) * a.cost;
            }
            result.flow += i64::from(push);
            // Hub entries: an arc whose residual came back (a twin on the path) goes in; the
            // arcs taken out during the round go back (keys need no update: a stale key is a
            // lower bound, corrected when it reaches the top).
            for &p in path.iter() {
                let q = self.arcs[p].twin;
                let h = hub_of[self.arcs[p].to as usize];
                // (An arc into the excluded vertex never enters a heap.)
                if h != u32::MAX && self.arcs[q as usize].to as usize != excluded {
                    popped.push(q);
                }
            }
            for &q in &popped {
                let arc = self.arcs[q as usize];
                let head = arc.to as usize;
                let tail = self.arcs[arc.twin as usize].to as usize;
                if arc.cap > 0 {
                    let key = arc.cost - potential[head];
                    hubs[hub_of[tail] as usize].1.push(Reverse((key, q)));
                }
            }
        }
    }
}

/// [`Csr::rounds`]' undo log and work budget.
struct Track<'a> {
    undo: &'a mut Undo,
    budget: Option<usize>,
}

/// What [`Csr::run_phased`] did.
struct Phases {
    /// The flow it sent.
    result: FlowResult,
    /// Whether it stopped on the cancellation token.
    cut: bool,
    /// Vertices whose arc into `t` still has room.
    left: usize,
    /// Whether it stopped with deficits left that no path reaches (or no supply left).
    stuck: bool,
    /// Vertices it settled, twice (the search and the blocking flow).
    work: usize,
}

/// How [`Csr::rounds`] stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RoundsEnd {
    /// `pick` had no more rounds.
    Done,
    /// A round could not reach its target.
    Unreached,
    /// The rounds outgrew their budget.
    Budget,
    /// The cancellation token fired.
    Cut,
}

/// Marks an entry of the phased search's vertex list as touched but not settled.
const TOUCHED: u32 = 1 << 31;

/// Half-arcs per vertex from which [`Csr::fixed_sink`] starts with phases: rows that dense
/// (reduces that read from every node) tie in cost along whole groups of equal tasks, which
/// one phase fills at once and one round per deficit would walk again and again.
const DENSE_DEGREE: usize = 32;

/// Residual out-degree from which a vertex keeps its arcs in a persistent heap.
pub const HUB_DEGREE: usize = 48;

/// Marks a main-heap entry as a hub's cursor rather than a vertex.
const HUB_CURSOR: u32 = 1 << 31;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::graph::FlowBuilder;

    #[test]
    fn ahuja_style_two_paths_prefers_cheap_then_fills() {
        // s→a (2, 1), s→b (1, 4), a→t (1, 1), a→b (1, 1), b→t (2, 1): max flow 3 at cost
        // 1+1 (s-a-t) + 1+1+1 (s-a-b-t) + 4+1 (s-b-t) = 10.
        let (s, a, b, t) = (0, 1, 2, 3);
        let (mut g, ()) = Network::build(4, |g| {
            g.add_arc(s, a, 2, 1);
            g.add_arc(s, b, 1, 4);
            g.add_arc(a, t, 1, 1);
            g.add_arc(a, b, 1, 1);
            g.add_arc(b, t, 2, 1);
        })
        .unwrap();
        assert_eq!(g.solve(s, t), FlowResult { flow: 3, cost: 10 });
    }

    #[test]
    fn assignment_2x2_by_hand() {
        // Costs [[4, 1], [2, 3]] → rows 0→1, 1→0, total 3.
        let (mut g, arcs) = Network::build(6, |g| {
            let arcs = [
                [g.add_arc(2, 4, 1, 4), g.add_arc(2, 5, 1, 1)],
                [g.add_arc(3, 4, 1, 2), g.add_arc(3, 5, 1, 3)],
            ];
            g.add_arc(0, 2, 1, 0);
            g.add_arc(0, 3, 1, 0);
            g.add_arc(4, 1, 1, 0);
            g.add_arc(5, 1, 1, 0);
            arcs
        })
        .unwrap();
        assert_eq!(g.solve(0, 1), FlowResult { flow: 2, cost: 3 });
        assert_eq!(g.flow(arcs[0][1]), 1);
        assert_eq!(g.flow(arcs[1][0]), 1);
        assert_eq!(g.flow(arcs[0][0]), 0);
    }

    /// A bipartite assignment as a flow: S → rows (1, 0), row → column (1, c), column → T
    /// (cap, 0), optionally stored reversed and solved from T. Returns (flow, cost).
    fn assignment(costs: &[Vec<i64>], col_cap: i64, reversed: bool) -> FlowResult {
        solve_assignment(costs, col_cap, reversed, false)
    }

    /// [`assignment`] with the engine chosen: `phased` = [`Network::solve_fixed_sink`].
    fn solve_assignment(
        costs: &[Vec<i64>],
        col_cap: i64,
        reversed: bool,
        phased: bool,
    ) -> FlowResult {
        let (r, c) = (costs.len(), costs[0].len());
        let arc = |g: &mut FlowBuilder, u: usize, v: usize, cap: i64, cost: i64| {
            if reversed {
                g.add_arc(v, u, cap, cost)
            } else {
                g.add_arc(u, v, cap, cost)
            }
        };
        let (mut g, ()) = Network::build(2 + r + c, |g| {
            for (i, row) in costs.iter().enumerate() {
                arc(g, 0, 2 + i, 1, 0);
                for (j, &x) in row.iter().enumerate() {
                    arc(g, 2 + i, 2 + r + j, 1, x);
                }
            }
            for j in 0..c {
                arc(g, 2 + r + j, 1, col_cap, 0);
            }
        })
        .unwrap();
        let (from, to) = if reversed { (1, 0) } else { (0, 1) };
        if phased {
            g.solve_fixed_sink(from, to)
        } else {
            g.solve(from, to)
        }
    }

    #[test]
    fn phased_two_rows_compete_for_one_cheap_column() {
        // Costs [[1, 5], [2, 9]], one slot per column: row 0 → col 1 (5) and row 1 → col 0
        // (2) total 7 beats row 0 → col 0 (1) + row 1 → col 1 (9) = 10. The first phase
        // gives col 0 to its nearest row (0, reduced distance 1 < 2) and col 1 to nobody
        // (row 0 is taken), the second phase reroutes row 0 to col 1 so row 1 takes col 0.
        let costs = vec![vec![1, 5], vec![2, 9]];
        let expected = FlowResult { flow: 2, cost: 7 };
        assert_eq!(solve_assignment(&costs, 1, false, true), expected);
        assert_eq!(solve_assignment(&costs, 1, true, true), expected);
    }

    #[test]
    fn phased_is_exact_when_the_sink_side_cannot_fill() {
        // One row, two columns of costs 3 and 1: forward, the columns (sink side) cannot both
        // fill, so this runs the fallback (the phases' flow is discarded for plain SSP); the
        // answer must be cost 1 either way.
        let costs = vec![vec![3, 1]];
        assert_eq!(solve_assignment(&costs, 1, false, true), FlowResult { flow: 1, cost: 1 });
        // Reversed the row is the sink side and fills: the phased answer stands.
        assert_eq!(solve_assignment(&costs, 1, true, true), FlowResult { flow: 1, cost: 1 });
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]

        /// Hubs engage (every row and column vertex has ≥ HUB_DEGREE arcs, and so does the
        /// source), costs are tie-heavy (0–3), and both orientations agree with the dense JV
        /// on the same matrix (columns repeated `cap` times).
        #[test]
        fn hub_heaps_match_dense_jv_in_both_directions(
            (r, c, cap, seed) in (50usize..90, 50usize..90, 1i64..3, proptest::prelude::any::<u64>())
        ) {
            let mut x = seed | 1;
            let mut next = || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 4) as i64
            };
            let costs: Vec<Vec<i64>> = (0..r).map(|_| (0..c).map(|_| next()).collect()).collect();
            let wide = ndarray::Array2::from_shape_fn((r, c * cap as usize), |(i, j)| {
                costs[i][j / cap as usize]
            });
            let dense = crate::lsap::jv::solve(wide.view()).expect("no forbidden pairs");
            let expected = FlowResult { flow: r.min(c * cap as usize) as i64, cost: dense.objective };
            proptest::prop_assert_eq!(assignment(&costs, cap, false), expected);
            proptest::prop_assert_eq!(assignment(&costs, cap, true), expected);
            proptest::prop_assert_eq!(solve_assignment(&costs, cap, false, true), expected);
            proptest::prop_assert_eq!(solve_assignment(&costs, cap, true, true), expected);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

        /// Every path through the fixed-sink solve (rounds alone, rounds that run out of
        /// budget at once and hand over to phases and back, phases alone) gives plain
        /// successive shortest paths' flow and cost, on sparse networks with ties and with
        /// rows that cannot reach every column (so the fallback runs too).
        #[test]
        fn fixed_sink_paths_agree_with_plain_ssp(
            r in 1usize..14,
            c in 1usize..10,
            col_cap in 1i64..3,
            seed in proptest::prelude::any::<u64>(),
            reversed in proptest::prelude::any::<bool>(),
        ) {
            let mut x = seed | 1;
            let mut next = |m: u64| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x % m
            };
            let rows: Vec<Vec<(usize, i64)>> = (0..r)
                .map(|_| (0..1 + next(4)).map(|_| (next(c as u64) as usize, next(5) as i64)).collect())
                .collect();
            let build = || {
                Network::build(2 + r + c, |g| {
                    let mut arc = |u: usize, v: usize, cap: i64, cost: i64| {
                        if reversed { g.add_arc(v, u, cap, cost) } else { g.add_arc(u, v, cap, cost) };
                    };
                    for (i, row) in rows.iter().enumerate() {
                        arc(0, 2 + i, 1, 0);
                        for &(j, cost) in row {
                            arc(2 + i, 2 + r + j, 1, cost);
                        }
                    }
                    for j in 0..c {
                        arc(2 + r + j, 1, col_cap, 0);
                    }
                })
                .expect("both passes add the same arcs")
                .0
            };
            let (from, to) = if reversed { (1, 0) } else { (0, 1) };
            let expected = build().solve(from, to);
            for (budget, dense) in [(usize::MAX, usize::MAX), (0, usize::MAX), (1, usize::MAX), (0, 0)] {
                let mut g = build();
                let mut potential = vec![0i64; 2 + r + c];
                let (got, cut) =
                    g.csr.fixed_sink_tuned(from, to, None, budget, dense, &mut potential);
                proptest::prop_assert!(!cut);
                proptest::prop_assert_eq!(got, expected, "budget {} dense {}", budget, dense);
                // Warm: from arbitrary labels (mostly infeasible), repaired, the same flow and
                // cost; then again on a fresh copy from the labels that solve left (as the
                // next epoch starts from the last one's).
                let mut warm: Vec<i64> = (0..2 + r + c).map(|_| next(41) as i64 - 20).collect();
                for _ in 0..2 {
                    let mut g = build();
                    let csr = &mut g.csr;
                    proptest::prop_assert!(csr.repair(&mut warm, usize::MAX));
                    let (got, cut) =
                        csr.fixed_sink_tuned(from, to, None, budget, dense, &mut warm);
                    proptest::prop_assert!(!cut);
                    proptest::prop_assert_eq!(got, expected, "warm: budget {} dense {}", budget, dense);
                }
            }
        }
    }
}
