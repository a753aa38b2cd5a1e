//! The flow network of one epoch, stored as compressed sparse rows (Ahuja, Magnanti, Orlin,
//! *Network Flows* §2.3, the forward star representation, with each arc's reverse kept beside
//! its tail's row): the one graph type the min-cost flow engine ([`super::ssp`]) solves, for
//! the structured placement network (Quincy's on lsap-sched's costs) and the reduces under
//! CPAC caps (FAIR §5.2).
//!
//! Layout: every arc u → v is two half-arcs, the forward one in u's row and its residual twin
//! (capacity 0, cost negated) in v's row, each holding the other's position; a row holds its
//! vertex's half-arcs in the order the arcs were added, and an arc's id is the position of its
//! forward half. The rows are laid out straight in two passes ([`FlowBuilder`]): no per-vertex
//! lists, no permutation and no table of positions, 20 bytes per half-arc (bounded memory: a network with 10⁷ replica arcs). The flow on an arc is its twin's residual
//! capacity (a twin starts at 0 and gains exactly what the arc loses).
//!
//! Complexity: O(V + E) time and memory to build; O(1) per arc read.

use crate::cancel::Cancel;

/// A network laid out straight into compressed sparse rows in two passes.
///
/// Pass 1 counts: [`FlowBuilder::add_vertex`], [`FlowBuilder::add_arc`] (its id is then
/// meaningless) and [`FlowBuilder::add_degree`] record the vertices and each vertex's number
/// of half-arcs. [`FlowBuilder::lay_out`] turns the counts into row offsets and allocates the
/// half-arcs once. Pass 2 adds the same vertices and arcs in the same order; each half-arc goes
/// straight to the next free place of its tail's row, so a row holds its vertex's out-arcs in
/// the order they were added. [`Network::build`] runs both passes from one closure.
///
/// # Complexity
/// O(V + E) time and space; no permutation.
#[derive(Clone, Debug, Default)]
pub struct FlowBuilder {
    /// Pass 1: half-arcs out of v at `start[v + 1]`; pass 2: row offsets.
    start: Vec<u32>,
    /// Pass 2: the next free position of each row.
    next: Vec<u32>,
    arcs: Vec<CsrArc>,
    filling: bool,
    /// Vertices given to [`FlowBuilder::new`].
    initial: usize,
    /// Pass 2: vertices added so far by [`FlowBuilder::add_vertex`].
    added: usize,
    /// Pass 2 added an arc its row had no room for, or a vertex pass 1 did not count (the
    /// passes differed).
    short: bool,
}

impl FlowBuilder {
    /// Pass 1 of a network of `vertices` vertices (more may be added).
    pub fn new(vertices: usize) -> Self {
        Self { start: vec![0; vertices + 1], initial: vertices, ..Self::default() }
    }

    /// Adds a vertex; returns its index (the same in both passes when they add the same
    /// vertices in the same order). O(1) amortised.
    pub fn add_vertex(&mut self) -> usize {
        if !self.filling {
            self.start.push(0);
            return self.start.len() - 2;
        }
        let v = self.initial + self.added;
        self.added += 1;
        if v + 1 >= self.start.len() {
            self.short = true;
        }
        v
    }

    /// Pass 1: adds `k` half-arcs to `v`'s row (what `k` arcs out of or into `v` add there).
    pub fn add_degree(&mut self, v: usize, k: usize) {
        if !self.filling {
            self.start[v + 1] += k as u32;
        }
    }

    /// Ends pass 1: rows laid out, half-arcs allocated. O(V + E).
    pub fn lay_out(&mut self) {
        if self.filling {
            return;
        }
        for v in 1..self.start.len() {
            self.start[v] += self.start[v - 1];
        }
        self.next = self.start[..self.start.len() - 1].to_vec();
        let halves = self.start.last().copied().unwrap_or(0) as usize;
        self.arcs = vec![CsrArc::default(); halves];
        self.filling = true;
    }

    /// Adds arc u → v with capacity `cap` ≥ 0 (saturated at [`i32::MAX`]) and cost `cost` ≥ 0.
    /// Pass 1: counts it and returns 0. Pass 2: places its halves and returns its id (the
    /// position of its forward half) for [`Network`]'s reads. O(1).
    pub fn add_arc(&mut self, u: usize, v: usize, cap: i64, cost: i64) -> usize {
        if !self.filling {
            self.start[u + 1] += 1;
            self.start[v + 1] += 1;
            return 0;
        }
        let (Some(&p), Some(&q)) = (self.next.get(u), self.next.get(v)) else {
            self.short = true;
            return 0;
        };
        let q = q + u32::from(u == v);
        if p >= self.start[u + 1] || q >= self.start[v + 1] {
            self.short = true;
            return 0;
        }
        self.next[u] += 1;
        self.next[v] += 1;
        self.arcs[p as usize] = CsrArc { to: v as u32, twin: q, cap: clamp_cap(cap), cost };
        self.arcs[q as usize] = CsrArc { to: u as u32, twin: p, cap: 0, cost: -cost };
        p as usize
    }

    /// The network, or `None` if pass 2 did not add exactly the vertices and half-arcs pass 1
    /// counted.
    pub fn finish(self) -> Option<Network> {
        let rows = self.start.len() - 1;
        let complete = self.filling
            && !self.short
            && self.initial + self.added == rows
            && (0..rows).all(|v| self.next[v] == self.start[v + 1]);
        complete.then_some(Network {
            csr: Csr { arcs: self.arcs, start: self.start, flipped: false },
            reversed: false,
            cancel: None,
            cut: false,
        })
    }
}

/// A flow network from [`FlowBuilder`], solved by successive shortest paths
/// ([`Network::solve`], [`Network::solve_fixed_sink`]). Arc ids are
/// [`FlowBuilder::add_arc`]'s; the arcs of a vertex are [`Network::row`]. It cannot grow.
#[derive(Clone, Debug)]
pub struct Network {
    pub(super) csr: Csr,
    /// Whether [`Network::reverse`] was called an odd number of times (an arc's forward half
    /// is then its id's twin).
    reversed: bool,
    pub(super) cancel: Option<Cancel>,
    pub(super) cut: bool,
}

impl Network {
    /// A network of `vertices` vertices (more may be added) built by `add`, which is run twice
    /// on one [`FlowBuilder`] (to count, then to lay out) and must add the same vertices and
    /// arcs both times; returns the network and what the second run returned (e.g. the arc
    /// ids it needs to read), or `None` if the runs differed.
    ///
    /// # Complexity
    /// Two runs of `add`, plus O(V + E).
    ///
    /// # Errors
    /// None: `None` when the two runs differ.
    ///
    /// # Examples
    /// A path s → a → t of capacities 2 and 1, costs 1 and 3: one unit at cost 4.
    /// ```
    /// use placer_solver::flow::{FlowResult, Network};
    /// let (mut g, arcs) = Network::build(3, |b| [b.add_arc(0, 1, 2, 1), b.add_arc(1, 2, 1, 3)])
    ///     .expect("both runs add the same arcs");
    /// assert_eq!(g.solve(0, 2), FlowResult { flow: 1, cost: 4 });
    /// assert_eq!([g.flow(arcs[0]), g.flow(arcs[1])], [1, 1]);
    /// assert_eq!(g.residual(arcs[0]), 1);
    /// ```
    pub fn build<R>(
        vertices: usize,
        mut add: impl FnMut(&mut FlowBuilder) -> R,
    ) -> Option<(Self, R)> {
        let mut b = FlowBuilder::new(vertices);
        add(&mut b);
        b.lay_out();
        let out = add(&mut b);
        b.finish().map(|g| (g, out))
    }

    /// Position of arc `id`'s forward half.
    #[inline]
    fn fwd(&self, id: usize) -> usize {
        if self.reversed {
            self.csr.arcs[id].twin as usize
        } else {
            id
        }
    }

    /// The half-arcs in `v`'s row as built: the ids of the arcs added out of `v` and the
    /// twins of those added into it, in the order added. O(1).
    pub fn row(&self, v: usize) -> std::ops::Range<usize> {
        self.csr.out(v)
    }

    /// The other half of the half-arc at position `p` (for an arc added into `v`, its id from
    /// its position in `v`'s row). O(1).
    pub fn twin(&self, p: usize) -> usize {
        self.csr.arcs[p].twin as usize
    }

    /// The two ends of arc `id` in its current orientation: (tail, head). O(1).
    pub fn ends(&self, id: usize) -> (usize, usize) {
        let f = self.fwd(id);
        let arcs = &self.csr.arcs;
        (arcs[arcs[f].twin as usize].to as usize, arcs[f].to as usize)
    }

    /// Flow on arc `id`: its twin's residual capacity. O(1).
    pub fn flow(&self, id: usize) -> i64 {
        let arcs = &self.csr.arcs;
        i64::from(arcs[arcs[self.fwd(id)].twin as usize].cap)
    }

    /// Remaining capacity of arc `id`. O(1).
    pub fn residual(&self, id: usize) -> i64 {
        i64::from(self.csr.arcs[self.fwd(id)].cap)
    }

    /// Pushes `amount` along arc `id` without any check: for a caller that seeds the flow
    /// with zero-cost paths before a solve (which keeps zero potentials valid). O(1).
    pub fn push(&mut self, id: usize, amount: i64) {
        let amount = clamp_cap(amount);
        let p = self.fwd(id);
        let q = self.csr.arcs[p].twin as usize;
        self.csr.arcs[p].cap -= amount;
        self.csr.arcs[q].cap += amount;
    }

    /// Σ remaining capacity of the arcs out of `v`. O(out-degree).
    pub fn residual_out(&self, v: usize) -> i64 {
        self.csr.residual_out(v)
    }

    /// The number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.csr.start.len() - 1
    }

    /// Sets the token the next solve polls once per augmenting path (and once per phase and
    /// per blocking-flow push of [`Network::solve_fixed_sink`]'s phases); when it reports
    /// cancelled the solve stops with the flow it has, feasible (capacities and conservation
    /// hold: only whole source–sink paths are pushed) but not necessarily maximum or of least
    /// cost, and [`Network::was_cut`] says so. O(1) per poll.
    pub fn set_cancel(&mut self, cancel: Option<Cancel>) {
        self.cancel = cancel;
    }

    /// Whether the last solve stopped on its cancellation token ([`Network::set_cancel`]).
    pub fn was_cut(&self) -> bool {
        self.cut
    }

    /// Reverses every arc (u → v becomes v → u with the same capacity, cost and flow), so
    /// that a caller can search from the other end: a flow from t to s on the reversed network
    /// is a flow from s to t on the original, arc for arc, with the same cost. In place: the
    /// layout is the same (each vertex keeps one half of each of its arcs, in the same order),
    /// the two halves of each arc trade capacity and cost. O(E).
    pub fn reverse(&mut self) {
        swap_halves(&mut self.csr.arcs);
        self.reversed = !self.reversed;
    }
}

/// A half-arc, 20 bytes (packed to 4-byte alignment: no padding after the 32-bit capacity).
/// Out-arcs of a vertex are contiguous and `twin` is the position of the residual twin.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, packed(4))]
pub(super) struct CsrArc {
    pub(super) to: u32,
    pub(super) twin: u32,
    pub(super) cap: i32,
    pub(super) cost: i64,
}

/// A capacity or amount as stored: saturated to 0..=[`i32::MAX`] units (placer's flows are
/// bounded by a task count, far below).
#[inline]
pub(super) fn clamp_cap(cap: i64) -> i32 {
    i32::try_from(cap.max(0)).unwrap_or(i32::MAX)
}

/// Each arc's two halves trade capacity and cost: u → v (capacity c, flow f) becomes v → u
/// with the same c, f and cost. O(E).
pub(super) fn swap_halves(arcs: &mut [CsrArc]) {
    for p in 0..arcs.len() {
        let q = arcs[p].twin as usize;
        if p < q {
            let (a, b) = (arcs[p], arcs[q]);
            arcs[p].cap = b.cap;
            arcs[p].cost = b.cost;
            arcs[q].cap = a.cap;
            arcs[q].cost = a.cost;
        }
    }
}

/// The network laid out for the search (compressed sparse rows), with the search's state.
#[derive(Clone, Debug)]
pub(super) struct Csr {
    pub(super) arcs: Vec<CsrArc>,
    /// Out-arcs of v are `arcs[start[v]..start[v + 1]]`.
    pub(super) start: Vec<u32>,
    /// Whether the search has the arcs the other way round (`Csr::flip`).
    pub(super) flipped: bool,
}

impl Csr {
    /// The positions of `v`'s half-arcs. O(1).
    pub(super) fn out(&self, v: usize) -> std::ops::Range<usize> {
        self.start[v] as usize..self.start[v + 1] as usize
    }

    /// Σ remaining capacity of the half-arcs out of `v`. O(out-degree).
    pub(super) fn residual_out(&self, v: usize) -> i64 {
        self.out(v).map(|p| i64::from(self.arcs[p].cap.max(0))).sum()
    }
}
