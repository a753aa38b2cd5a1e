//! Successive shortest paths with Johnson potentials (Ahuja, Magnanti, Orlin, *Network Flows*
//! §9.7), placer's own min-cost max-flow for the small capacitated networks of one epoch (the
//! reduce placement under CPAC caps, FAIR §5.2). Integer costs ≥ 0 on input arcs; each phase
//! runs Dijkstra on reduced costs c(u, v) + π(u) − π(v) ≥ 0 and pushes the path's bottleneck.
//!
//! Complexity: O(F · E log V) for a total flow F; memory O(V + E). Exact: the flow is maximum
//! and, among maximum flows, of minimum cost (every augmentation is along a shortest path, so
//! the residual graph never has a negative cycle).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One arc and its residual twin (`arc ^ 1`).
#[derive(Clone, Copy, Debug)]
struct Arc {
    to: u32,
    cap: i64,
    cost: i64,
}

/// A flow network under construction, then solved once.
#[derive(Clone, Debug, Default)]
pub struct MinCostFlow {
    arcs: Vec<Arc>,
    out: Vec<Vec<u32>>,
    initial_cap: Vec<i64>,
}

/// The outcome of [`MinCostFlow::solve`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowResult {
    /// Units sent from source to sink (maximum).
    pub flow: i64,
    /// Σ cost · flow over arcs (minimum among maximum flows).
    pub cost: i64,
}

impl MinCostFlow {
    /// A network with `nodes` vertices and no arcs.
    pub fn new(nodes: usize) -> Self {
        Self { arcs: Vec::new(), out: vec![Vec::new(); nodes], initial_cap: Vec::new() }
    }

    /// Adds a vertex; returns its index.
    pub fn add_node(&mut self) -> usize {
        self.out.push(Vec::new());
        self.out.len() - 1
    }

    /// Adds arc u → v with capacity `cap` ≥ 0 and cost `cost` ≥ 0; returns its id.
    pub fn add_arc(&mut self, u: usize, v: usize, cap: i64, cost: i64) -> usize {
        let id = self.arcs.len();
        self.arcs.push(Arc { to: v as u32, cap, cost });
        self.arcs.push(Arc { to: u as u32, cap: 0, cost: -cost });
        self.out[u].push(id as u32);
        self.out[v].push(id as u32 + 1);
        self.initial_cap.push(cap);
        self.initial_cap.push(0);
        id
    }

    /// Flow on arc `id` after [`MinCostFlow::solve`].
    pub fn flow(&self, id: usize) -> i64 {
        self.initial_cap[id] - self.arcs[id].cap
    }

    /// Pushes `amount` along arc `id` without any check: for a caller that seeds the flow
    /// with zero-cost paths before [`MinCostFlow::solve`] (which keeps zero potentials valid).
    pub fn push(&mut self, id: usize, amount: i64) {
        self.arcs[id].cap -= amount;
        self.arcs[id ^ 1].cap += amount;
    }

    /// Remaining capacity of arc `id`.
    pub fn residual(&self, id: usize) -> i64 {
        self.arcs[id].cap
    }

    /// Sends a maximum flow of minimum cost from `s` to `t`, on top of any flow already pushed
    /// (which must leave no residual arc of negative cost). Dijkstra stops as soon as `t` is
    /// settled; only settled vertices' potentials move (π(v) += d(v) − d(t), which differs
    /// from the textbook update by a constant), and only touched entries are reset, so a short
    /// augmenting path costs time in proportion to what it explores. The source's own arcs
    /// (one per task in placer's networks) live in a persistent heap keyed by c − π(v), so a
    /// round does not re-push every unplaced task: O(settled · log) per round, not O(tasks).
    pub fn solve(&mut self, s: usize, t: usize) -> FlowResult {
        let n = self.out.len();
        let mut potential = vec![0i64; n];
        let mut dist = vec![i64::MAX; n];
        let mut via = vec![u32::MAX; n];
        let mut settled: Vec<u32> = Vec::new();
        let mut touched: Vec<u32> = Vec::new();
        let mut done = vec![false; n];
        let mut heap = BinaryHeap::new();
        // Source arcs: (c − π(head), arc) with a version per head to drop stale entries.
        let mut version = vec![0u32; n];
        let mut rekeyed = vec![false; n];
        let mut source_heap: BinaryHeap<Reverse<(i64, u32, u32)>> = BinaryHeap::new();
        // The source's arc into each vertex (u32::MAX: none), to re-key it in O(1).
        let mut source_arc = vec![u32::MAX; n];
        for &a in &self.out[s] {
            let arc = self.arcs[a as usize];
            source_arc[arc.to as usize] = a;
            if arc.cap > 0 {
                source_heap.push(Reverse((arc.cost, a, 0)));
            }
        }
        let mut result = FlowResult { flow: 0, cost: 0 };
        loop {
            for &v in &touched {
                dist[v as usize] = i64::MAX;
                via[v as usize] = u32::MAX;
                done[v as usize] = false;
            }
            touched.clear();
            settled.clear();
            heap.clear();
            dist[s] = 0;
            done[s] = true;
            touched.push(s as u32);
            settled.push(s as u32);
            let mut popped_source: Vec<u32> = Vec::new();
            let mut reached = false;
            loop {
                // The cheaper of the main heap and the source heap's best valid entry.
                while let Some(&Reverse((_, a, ver))) = source_heap.peek() {
                    let head = self.arcs[a as usize].to as usize;
                    if self.arcs[a as usize].cap > 0 && ver == version[head] && !done[head] {
                        break;
                    }
                    source_heap.pop();
                }
                let from_source =
                    source_heap.peek().map(|&Reverse((key, a, _))| (key + potential[s], a));
                let from_main = heap.peek().map(|&Reverse((d, u)): &Reverse<(i64, u32)>| (d, u));
                let (d, u) = match (from_source, from_main) {
                    (None, None) => break,
                    (Some((ds, a)), m) if m.is_none_or(|(dm, _)| ds < dm) => {
                        source_heap.pop();
                        let head = self.arcs[a as usize].to;
                        popped_source.push(head);
                        if dist[head as usize] == i64::MAX {
                            touched.push(head);
                        }
                        if ds < dist[head as usize] {
                            dist[head as usize] = ds;
                            via[head as usize] = a;
                        }
                        (ds, head)
                    }
                    _ => {
                        heap.pop();
                        from_main.unwrap_or((0, 0))
                    }
                };
                let u = u as usize;
                if done[u] || d > dist[u] {
                    continue;
                }
                done[u] = true;
                settled.push(u as u32);
                if u == t {
                    reached = true;
                    break;
                }
                for &a in &self.out[u] {
                    let arc = self.arcs[a as usize];
                    if arc.cap <= 0 {
                        continue;
                    }
                    let v = arc.to as usize;
                    if done[v] {
                        continue;
                    }
                    let nd = d + arc.cost + potential[u] - potential[v];
                    if nd < dist[v] {
                        if dist[v] == i64::MAX {
                            touched.push(v as u32);
                        }
                        dist[v] = nd;
                        via[v] = a;
                        heap.push(Reverse((nd, v as u32)));
                    }
                }
            }
            if !reached {
                return result;
            }
            let dt = dist[t];
            for &v in &settled {
                potential[v as usize] += dist[v as usize] - dt;
            }
            // Bottleneck along the path, then push.
            let mut push = i64::MAX;
            let mut v = t;
            while v != s {
                let a = via[v] as usize;
                push = push.min(self.arcs[a].cap);
                v = self.arcs[a ^ 1].to as usize;
            }
            let mut v = t;
            while v != s {
                let a = via[v] as usize;
                self.arcs[a].cap -= push;
                self.arcs[a ^ 1].cap += push;
                result.cost += push * self.arcs[a].cost;
                v = self.arcs[a ^ 1].to as usize;
            }
            result.flow += push;
            // Re-key the source arcs whose heads moved (settled) or were popped, once each.
            for &v in settled.iter().chain(&popped_source) {
                let a = source_arc[v as usize];
                if a == u32::MAX || rekeyed[v as usize] {
                    continue;
                }
                rekeyed[v as usize] = true;
                version[v as usize] += 1;
                if self.arcs[a as usize].cap > 0 {
                    let key = self.arcs[a as usize].cost - potential[v as usize];
                    source_heap.push(Reverse((key, a, version[v as usize])));
                }
            }
            for &v in settled.iter().chain(&popped_source) {
                rekeyed[v as usize] = false;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ahuja_style_two_paths_prefers_cheap_then_fills() {
        // s→a (2, 1), s→b (1, 4), a→t (1, 1), a→b (1, 1), b→t (2, 1): max flow 3 at cost
        // 1+1 (s-a-t) + 1+1+1 (s-a-b-t) + 4+1 (s-b-t) = 10.
        let mut g = MinCostFlow::new(4);
        let (s, a, b, t) = (0, 1, 2, 3);
        g.add_arc(s, a, 2, 1);
        g.add_arc(s, b, 1, 4);
        g.add_arc(a, t, 1, 1);
        g.add_arc(a, b, 1, 1);
        g.add_arc(b, t, 2, 1);
        assert_eq!(g.solve(s, t), FlowResult { flow: 3, cost: 10 });
    }

    #[test]
    fn assignment_2x2_by_hand() {
        // Costs [[4, 1], [2, 3]] → rows 0→1, 1→0, total 3.
        let mut g = MinCostFlow::new(6);
        let arcs = [
            [g.add_arc(2, 4, 1, 4), g.add_arc(2, 5, 1, 1)],
            [g.add_arc(3, 4, 1, 2), g.add_arc(3, 5, 1, 3)],
        ];
        g.add_arc(0, 2, 1, 0);
        g.add_arc(0, 3, 1, 0);
        g.add_arc(4, 1, 1, 0);
        g.add_arc(5, 1, 1, 0);
        assert_eq!(g.solve(0, 1), FlowResult { flow: 2, cost: 3 });
        assert_eq!(g.flow(arcs[0][1]), 1);
        assert_eq!(g.flow(arcs[1][0]), 1);
        assert_eq!(g.flow(arcs[0][0]), 0);
    }
}
