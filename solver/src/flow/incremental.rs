//! An incremental minimum-cost maximum flow on the structured placement network (Firmament,
//! Gog et al., OSDI 2016, §5: consecutive scheduling rounds change a small part of the flow
//! network, so the solver keeps the flow and the dual potentials and repairs them instead of
//! solving from scratch), on lsap-sched's cost (Guo, Fox, Zhou eq. 1) in the arcs of
//! [`crate::flow::structured`]:
//!
//! ```text
//! S ─(1, o_t)→ task ─(1, on_node cost)→ node ─(free slots, 0)→ T
//!                   ─(1, rack cost)───→ rack q ─(∞, 0)→ nodes of q
//!                   ─(1, base)────────→ cluster ─(∞, 0)→ every rack
//! ```
//!
//! The repair is successive shortest paths with potentials (Ahuja, Magnanti, Orlin, *Network
//! Flows*, §9.7, the successive shortest path algorithm on a pseudoflow). The maximum flow
//! comes first through one more arc, T → S, of cost −M with M larger than the cost of any
//! simple path: a minimum-cost circulation then carries the most units S → T, and among those
//! the least cost. [`IncrementalFlow`] keeps a pseudoflow and a potential π per vertex with
//! every residual arc's reduced cost c + π(u) − π(v) ≥ 0. An edit (a task added, removed or
//! changed, a node's free slots set) keeps that property by turning any arc it would break
//! into an imbalance: removing a placed task leaves an excess at S and a deficit where its
//! unit entered the slot side; a new task whose S → task arc would have a negative reduced
//! cost takes a unit (excess at the task, deficit at S); fewer slots on a node than it
//! carries push the surplus back (excess at the node, deficit at T); more slots on a full node
//! whose slot arc has a negative reduced cost are filled (deficit at the node, excess at T).
//! [`IncrementalFlow::reoptimize`] then sends each excess unit along a shortest residual path
//! (Dijkstra on reduced costs, stopped as soon as a deficit is settled) and lowers the
//! potentials of the settled vertices by (D − their distance), which keeps every reduced
//! cost ≥ 0. A deficit may search backwards instead (along in-arcs, to the nearest excess; the
//! settled potentials rise by D − distance): a slot freed on a node finds its best task among
//! the few that list the node, where a forward search from S would cross every unplaced task.
//! With no imbalance left the circulation is optimal: a minimum-cost maximum flow.
//!
//! The fan-outs (S to every unplaced task, T to every used node, the cluster to every rack
//! and back to every task it feeds, a rack or node back to the tasks it feeds) are sorted
//! sets keyed by the reduced cost less the tail's potential, so a search takes their members
//! one at a time in order of distance and never scans a whole fan: a search's work grows with
//! the vertices nearer than its target, not with the cluster.
//!
//! Potentials and distances are i128: M = 2¹⁰⁰ exceeds any simple path's cost (fewer than
//! 2³² arcs of at most 2⁶³ units each), so potentials stay within a few M of each other where
//! the residual graph connects them; a search moves a potential by at most its target's
//! distance, and when the source's potential passes 2¹²⁰ every potential is shifted back by
//! the same amount (reduced costs unchanged), so nothing overflows.

use super::structured::TaskArcs;
use crate::cancel::{is_cut, Cancel};
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};
use std::ops::Bound::{Excluded, Unbounded};

/// The cost of T → S: more than any simple path's cost (see the module doc).
const BIG_M: i128 = 1 << 100;
/// Potentials are shifted back towards 0 when the source's passes this.
const RECENTRE: i128 = 1 << 120;

const S: u32 = 0;
const T: u32 = 1;
const C: u32 = 2;

/// A task's place in an [`IncrementalFlow`], as [`IncrementalFlow::add_task`] gave it (slots
/// of removed tasks are reused).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TaskHandle(pub u32);

/// The out-arc of a task that carries its unit, with its cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Out {
    Node(u32, i64),
    Rack(u32, i64),
    Cluster(i64),
}

impl Out {
    fn cost(self) -> i64 {
        match self {
            Out::Node(_, c) | Out::Rack(_, c) | Out::Cluster(c) => c,
        }
    }
}

/// One residual arc, as a search's parent pointer names it.
#[derive(Clone, Copy, Debug)]
enum Arc {
    SrcTask,
    TaskSrc,
    TaskOut(Out),
    OutTask,
    ClusterRack,
    RackCluster,
    RackNode,
    NodeRack,
    NodeSink,
    SinkNode,
    SinkSrc,
    SrcSink,
}

/// A sorted fan of residual arcs at one vertex. Forward fans (out-arcs u → m) are keyed
/// c − π(m), backward fans (in-arcs m → u) c + π(m), so that a walk takes their members in
/// order of reduced cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fan {
    /// S → unplaced tasks.
    Src,
    /// T → used nodes.
    Sink,
    /// Cluster → racks.
    ClusterRacks,
    /// Cluster → the tasks it feeds.
    ClusterTasks,
    /// Rack → the tasks it feeds.
    RackTasks(u32),
    /// Node → the tasks it feeds directly.
    NodeTasks(u32),
    /// Placed tasks → S (backward at S).
    PlacedIn,
    /// Nodes with a free slot left → T.
    OpenNodes,
    /// Tasks not fed by the cluster → cluster.
    ClusterIn,
    /// Racks the cluster feeds → cluster.
    RacksFeeding,
    /// Tasks listing the rack, not fed by it → rack.
    RackIn(u32),
    /// Tasks listing the node, not fed by it → node.
    NodeIn(u32),
}

impl Fan {
    fn backward(self) -> bool {
        matches!(
            self,
            Fan::PlacedIn
                | Fan::OpenNodes
                | Fan::ClusterIn
                | Fan::RacksFeeding
                | Fan::RackIn(_)
                | Fan::NodeIn(_)
        )
    }
}

/// A task: its arcs and where its unit is.
#[derive(Clone, Debug, Default)]
struct Task {
    arcs: TaskArcs,
    live: bool,
    /// S → task carries a unit.
    inflow: bool,
    out: Option<Out>,
}

/// A sorted fan: (key, member).
type Keyed = BTreeSet<(i128, u32)>;

/// A walk along a fan during a search.
#[derive(Clone, Copy, Debug)]
struct Walk {
    from: u32,
    fan: Fan,
    at: (i128, u32),
}

/// The structured network's flow, kept across edits (see the module doc): nodes with their
/// racks and free slots, tasks with their [`TaskArcs`] (`job` is ignored: no quotas), the
/// flow on every arc and a potential per vertex.
#[derive(Clone, Debug)]
pub struct IncrementalFlow {
    node_rack: Vec<u32>,
    rack_nodes: Vec<Vec<u32>>,
    free: Vec<u32>,
    /// Units on node → T.
    used: Vec<u32>,
    /// Units on rack → node, per node.
    flow_rn: Vec<u32>,
    /// Units on cluster → rack, per rack.
    flow_cr: Vec<u32>,
    /// Units on T → S.
    ts_flow: u64,
    tasks: Vec<Task>,
    vacant: Vec<u32>,
    /// Σ cost of the units on S → task and task → * arcs.
    cost: i128,
    pot: Vec<i128>,
    excess: Vec<i64>,
    /// Vertices with a positive excess.
    active: BTreeSet<u32>,
    /// Vertices with a deficit.
    short: BTreeSet<u32>,
    src_fan: Keyed,
    sink_fan: Keyed,
    cluster_racks: Keyed,
    cluster_tasks: Keyed,
    rack_tasks: Vec<Keyed>,
    node_tasks: Vec<Keyed>,
    placed_in: Keyed,
    open_nodes: Keyed,
    cluster_in: Keyed,
    racks_feeding: Keyed,
    rack_in: Vec<Keyed>,
    node_in: Vec<Keyed>,
    // Search scratch, kept to avoid reallocation; stamps avoid clearing.
    backward: bool,
    dist: Vec<i128>,
    seen: Vec<u32>,
    done: Vec<u32>,
    parent: Vec<(u32, Arc)>,
    stamp: u32,
    settled: Vec<u32>,
    walks: Vec<Walk>,
    path: Vec<(u32, u32, Arc)>,
    fans: Vec<(Fan, i128, u32)>,
    heap: BinaryHeap<Reverse<(i128, u8, u64)>>,
    /// Vertices settled over all searches (a measure of locality).
    settled_total: u64,
}

impl IncrementalFlow {
    /// An empty network over nodes with `node_rack` (the rack of each node, each below
    /// `racks`) and no free slot; tasks and slots come by [`Self::add_task`] and
    /// [`Self::set_free`].
    ///
    /// # Complexity
    /// O(nodes + racks · log racks).
    ///
    /// # Errors
    /// None; a node whose rack is not below `racks` widens the rack count.
    ///
    /// # Examples
    /// ```
    /// use placer_solver::flow::incremental::IncrementalFlow;
    /// let flow = IncrementalFlow::new(&[0, 0, 1], 2);
    /// assert_eq!(flow.placed(), 0);
    /// ```
    pub fn new(node_rack: &[u32], racks: usize) -> Self {
        Self::with_start(node_rack, racks, false)
    }

    /// [`Self::new`], its potentials chosen so that the first [`Self::reoptimize`] fills
    /// slots rather than places tasks: every free slot that [`Self::set_free`] adds starts as a
    /// deficit at its node, which searches backwards for the best task (while with
    /// [`Self::new`] every task starts as an excess that searches forwards for a slot).
    /// Builds faster when free slots are fewer than tasks (each search then ends at the best
    /// task for a slot instead of proving that a task stays out); the flow is the same
    /// minimum-cost maximum flow either way.
    ///
    /// # Complexity
    /// As [`Self::new`].
    ///
    /// # Errors
    /// None.
    ///
    /// # Examples
    /// ```
    /// use placer_solver::flow::incremental::IncrementalFlow;
    /// use placer_solver::flow::structured::TaskArcs;
    /// let mut flow = IncrementalFlow::filling_slots(&[0], 1);
    /// flow.set_free(0, 1);
    /// flow.add_task(TaskArcs { base: Some(5), ..TaskArcs::default() });
    /// flow.add_task(TaskArcs { on_node: vec![(0, 2)], base: Some(5), ..TaskArcs::default() });
    /// assert!(flow.reoptimize(None));
    /// assert_eq!((flow.placed(), flow.total_cost()), (1, 2));
    /// ```
    pub fn filling_slots(node_rack: &[u32], racks: usize) -> Self {
        Self::with_start(node_rack, racks, true)
    }

    fn with_start(node_rack: &[u32], racks: usize, filling: bool) -> Self {
        let racks = racks.max(node_rack.iter().map(|&q| q as usize + 1).max().unwrap_or(0));
        let mut rack_nodes = vec![Vec::new(); racks];
        for (n, &q) in node_rack.iter().enumerate() {
            rack_nodes[q as usize].push(n as u32);
        }
        let nodes = node_rack.len();
        let vertices = 3 + racks + nodes;
        // Feasible potentials of the empty network: T → S, C → rack and rack → node at
        // reduced cost 0, and node → T too (new tasks take units) or at −M (new slots take
        // units).
        let mut pot = vec![if filling { 0 } else { BIG_M }; vertices];
        pot[S as usize] = 0;
        pot[T as usize] = BIG_M;
        let mut flow = Self {
            node_rack: node_rack.to_vec(),
            rack_nodes,
            free: vec![0; nodes],
            used: vec![0; nodes],
            flow_rn: vec![0; nodes],
            flow_cr: vec![0; racks],
            ts_flow: 0,
            tasks: Vec::new(),
            vacant: Vec::new(),
            cost: 0,
            pot,
            excess: vec![0; vertices],
            active: BTreeSet::new(),
            short: BTreeSet::new(),
            src_fan: Keyed::new(),
            sink_fan: Keyed::new(),
            cluster_racks: Keyed::new(),
            cluster_tasks: Keyed::new(),
            rack_tasks: vec![Keyed::new(); racks],
            node_tasks: vec![Keyed::new(); nodes],
            placed_in: Keyed::new(),
            open_nodes: Keyed::new(),
            cluster_in: Keyed::new(),
            racks_feeding: Keyed::new(),
            rack_in: vec![Keyed::new(); racks],
            node_in: vec![Keyed::new(); nodes],
            backward: false,
            dist: vec![0; vertices],
            seen: vec![0; vertices],
            done: vec![0; vertices],
            parent: vec![(0, Arc::SrcSink); vertices],
            stamp: 0,
            settled: Vec::new(),
            walks: Vec::new(),
            path: Vec::new(),
            fans: Vec::new(),
            heap: BinaryHeap::new(),
            settled_total: 0,
        };
        for q in 0..racks as u32 {
            flow.join(flow.rack_v(q));
        }
        flow
    }

    fn racks(&self) -> usize {
        self.rack_nodes.len()
    }

    fn rack_v(&self, q: u32) -> u32 {
        3 + q
    }

    fn node_v(&self, n: u32) -> u32 {
        3 + self.racks() as u32 + n
    }

    fn task_v(&self, k: u32) -> u32 {
        3 + (self.racks() + self.node_rack.len()) as u32 + k
    }

    /// The vertex x of an out-arc.
    fn out_v(&self, o: Out) -> u32 {
        match o {
            Out::Node(n, _) => self.node_v(n),
            Out::Rack(q, _) => self.rack_v(q),
            Out::Cluster(_) => C,
        }
    }

    /// The number of live tasks.
    pub fn tasks(&self) -> usize {
        self.tasks.len() - self.vacant.len()
    }

    /// The number of nodes.
    pub fn nodes(&self) -> usize {
        self.node_rack.len()
    }

    /// Tasks placed (the flow S → T once [`Self::reoptimize`] has run).
    pub fn placed(&self) -> u64 {
        self.ts_flow
    }

    /// Σ (offset + arc cost) over the placed tasks, in the tasks' integer units.
    pub fn total_cost(&self) -> i128 {
        self.cost
    }

    /// Vertices settled by all searches so far (how far the repairs reached).
    pub fn settled_total(&self) -> u64 {
        self.settled_total
    }

    /// Whether no imbalance is left (the flow is a minimum-cost maximum flow).
    pub fn is_balanced(&self) -> bool {
        self.active.is_empty()
    }

    /// Free slots of node `n`.
    pub fn free(&self, n: u32) -> u32 {
        self.free.get(n as usize).copied().unwrap_or(0)
    }

    /// A task's arcs, if `h` is live.
    pub fn arcs(&self, h: TaskHandle) -> Option<&TaskArcs> {
        self.tasks.get(h.0 as usize).filter(|t| t.live).map(|t| &t.arcs)
    }

    /// An estimate of the heap memory held, in bytes: per vertex its potential, excess and
    /// search scratch; per task its arcs; per fan member a B-tree entry (about 40 bytes).
    ///
    /// # Complexity
    /// O(tasks + nodes + racks).
    pub fn heap_bytes(&self) -> usize {
        let vertices = self.pot.len();
        let per_vertex = 16 + 8 + 16 + 4 + 4 + 24;
        let len = |v: &Vec<Keyed>| v.iter().map(BTreeSet::len).sum::<usize>();
        let fans = self.src_fan.len()
            + self.sink_fan.len()
            + self.cluster_racks.len()
            + self.cluster_tasks.len()
            + self.placed_in.len()
            + self.open_nodes.len()
            + self.cluster_in.len()
            + self.racks_feeding.len()
            + len(&self.rack_tasks)
            + len(&self.node_tasks)
            + len(&self.rack_in)
            + len(&self.node_in);
        let arcs: usize = self
            .tasks
            .iter()
            .map(|t| 16 * (t.arcs.on_node.capacity() + t.arcs.racks.capacity()))
            .sum();
        vertices * per_vertex
            + self.tasks.capacity() * std::mem::size_of::<Task>()
            + arcs
            + fans * 40
            + self.node_rack.len() * (4 * 4 + 2 * 24)
            + self.racks() * (3 * 24 + 4)
    }

    fn grow(&mut self) {
        let v = self.pot.len() + 1;
        self.pot.resize(v, 0);
        self.excess.resize(v, 0);
        self.dist.resize(v, 0);
        self.seen.resize(v, 0);
        self.done.resize(v, 0);
        self.parent.resize(v, (0, Arc::SrcSink));
    }

    fn add_excess(&mut self, v: u32, delta: i64) {
        let e = &mut self.excess[v as usize];
        *e += delta;
        let e = *e;
        if e > 0 {
            self.active.insert(v);
        } else {
            self.active.remove(&v);
        }
        if e < 0 {
            self.short.insert(v);
        } else {
            self.short.remove(&v);
        }
    }

    fn keyed(&mut self, fan: Fan) -> &mut Keyed {
        match fan {
            Fan::Src => &mut self.src_fan,
            Fan::Sink => &mut self.sink_fan,
            Fan::ClusterRacks => &mut self.cluster_racks,
            Fan::ClusterTasks => &mut self.cluster_tasks,
            Fan::RackTasks(q) => &mut self.rack_tasks[q as usize],
            Fan::NodeTasks(n) => &mut self.node_tasks[n as usize],
            Fan::PlacedIn => &mut self.placed_in,
            Fan::OpenNodes => &mut self.open_nodes,
            Fan::ClusterIn => &mut self.cluster_in,
            Fan::RacksFeeding => &mut self.racks_feeding,
            Fan::RackIn(q) => &mut self.rack_in[q as usize],
            Fan::NodeIn(n) => &mut self.node_in[n as usize],
        }
    }

    fn fan(&self, fan: Fan) -> &Keyed {
        match fan {
            Fan::Src => &self.src_fan,
            Fan::Sink => &self.sink_fan,
            Fan::ClusterRacks => &self.cluster_racks,
            Fan::ClusterTasks => &self.cluster_tasks,
            Fan::RackTasks(q) => &self.rack_tasks[q as usize],
            Fan::NodeTasks(n) => &self.node_tasks[n as usize],
            Fan::PlacedIn => &self.placed_in,
            Fan::OpenNodes => &self.open_nodes,
            Fan::ClusterIn => &self.cluster_in,
            Fan::RacksFeeding => &self.racks_feeding,
            Fan::RackIn(q) => &self.rack_in[q as usize],
            Fan::NodeIn(n) => &self.node_in[n as usize],
        }
    }

    /// The fans that hold vertex `v` (as (fan, arc cost, member)), into `self.fans`.
    fn memberships(&mut self, v: u32) {
        let racks = self.racks() as u32;
        let nodes = self.nodes() as u32;
        self.fans.clear();
        if v < 3 {
            return;
        }
        if v < 3 + racks {
            let q = v - 3;
            self.fans.push((Fan::ClusterRacks, 0, q));
            if self.flow_cr[q as usize] > 0 {
                self.fans.push((Fan::RacksFeeding, 0, q));
            }
        } else if v < 3 + racks + nodes {
            let n = v - 3 - racks;
            if self.used[n as usize] > 0 {
                self.fans.push((Fan::Sink, 0, n));
            }
            if self.used[n as usize] < self.free[n as usize] {
                self.fans.push((Fan::OpenNodes, 0, n));
            }
        } else {
            let k = v - 3 - racks - nodes;
            let t = &self.tasks[k as usize];
            if !t.live {
                return;
            }
            let off = i128::from(t.arcs.offset);
            if t.inflow {
                self.fans.push((Fan::PlacedIn, -off, k));
            } else {
                self.fans.push((Fan::Src, off, k));
            }
            let out = t.out;
            if let Some(o) = out {
                let fan = match o {
                    Out::Node(n, _) => Fan::NodeTasks(n),
                    Out::Rack(q, _) => Fan::RackTasks(q),
                    Out::Cluster(_) => Fan::ClusterTasks,
                };
                self.fans.push((fan, -i128::from(o.cost()), k));
            }
            for &(n, c) in &t.arcs.on_node {
                if out != Some(Out::Node(n, c)) {
                    self.fans.push((Fan::NodeIn(n), i128::from(c), k));
                }
            }
            for &(q, c) in &t.arcs.racks {
                if out != Some(Out::Rack(q, c)) {
                    self.fans.push((Fan::RackIn(q), i128::from(c), k));
                }
            }
            if let Some(b) = t.arcs.base {
                if out != Some(Out::Cluster(b)) {
                    self.fans.push((Fan::ClusterIn, i128::from(b), k));
                }
            }
        }
    }

    fn key(fan: Fan, cost: i128, pot: i128) -> i128 {
        if fan.backward() {
            cost + pot
        } else {
            cost - pot
        }
    }

    /// Takes `v` out of every fan that holds it (before its state or potential changes).
    fn leave(&mut self, v: u32) {
        self.memberships(v);
        let p = self.pot[v as usize];
        let fans = std::mem::take(&mut self.fans);
        for &(fan, cost, m) in &fans {
            self.keyed(fan).remove(&(Self::key(fan, cost, p), m));
        }
        self.fans = fans;
    }

    /// Puts `v` into every fan that should hold it (after its state or potential changed).
    fn join(&mut self, v: u32) {
        self.memberships(v);
        let p = self.pot[v as usize];
        let fans = std::mem::take(&mut self.fans);
        for &(fan, cost, m) in &fans {
            self.keyed(fan).insert((Self::key(fan, cost, p), m));
        }
        self.fans = fans;
    }

    /// Adds a task with `arcs` (`job` ignored), unplaced until [`Self::reoptimize`]; arcs to
    /// nodes or racks that do not exist are dropped.
    ///
    /// # Complexity
    /// O(its arcs · log tasks).
    ///
    /// # Errors
    /// None.
    ///
    /// # Examples
    /// ```
    /// use placer_solver::flow::incremental::IncrementalFlow;
    /// use placer_solver::flow::structured::TaskArcs;
    /// let mut flow = IncrementalFlow::new(&[0], 1);
    /// flow.set_free(0, 1);
    /// let h = flow.add_task(TaskArcs { base: Some(5), ..TaskArcs::default() });
    /// assert!(flow.reoptimize(None));
    /// assert_eq!((flow.placed(), flow.total_cost()), (1, 5));
    /// assert_eq!(flow.placement()[h.0 as usize], Some(0));
    /// ```
    pub fn add_task(&mut self, mut arcs: TaskArcs) -> TaskHandle {
        let nodes = self.nodes() as u32;
        let racks = self.racks() as u32;
        arcs.on_node.retain(|&(n, _)| n < nodes);
        arcs.racks.retain(|&(q, _)| q < racks);
        let k = match self.vacant.pop() {
            Some(k) => k,
            None => {
                self.tasks.push(Task::default());
                self.grow();
                self.tasks.len() as u32 - 1
            }
        };
        let v = self.task_v(k);
        // π(t) at least max over out-arcs of π(x) − c (their reduced costs ≥ 0).
        let mut lower: Option<i128> = None;
        let mut raise = |x: i128| lower = Some(lower.map_or(x, |l: i128| l.max(x)));
        for &(n, c) in &arcs.on_node {
            raise(self.pot[self.node_v(n) as usize] - i128::from(c));
        }
        for &(q, c) in &arcs.racks {
            raise(self.pot[self.rack_v(q) as usize] - i128::from(c));
        }
        if let Some(b) = arcs.base {
            raise(self.pot[C as usize] - i128::from(b));
        }
        let offset = i128::from(arcs.offset);
        let top = self.pot[S as usize] + offset;
        let saturate = lower.is_some_and(|l| l > top);
        self.pot[v as usize] = match lower {
            Some(l) if saturate => l,
            _ => top,
        };
        self.excess[v as usize] = 0;
        self.tasks[k as usize] = Task { arcs, live: true, inflow: saturate, out: None };
        if saturate {
            // S → t would have a negative reduced cost: it takes its unit now.
            self.cost += offset;
            self.add_excess(v, 1);
            self.add_excess(S, -1);
        }
        self.join(v);
        TaskHandle(k)
    }

    /// Removes a task, cancelling its unit: S keeps the unit as an excess, and the vertex
    /// where it entered the slot side is left a deficit for [`Self::reoptimize`] to fill.
    /// False when `h` is not a live task.
    ///
    /// # Complexity
    /// O(its arcs · log tasks).
    ///
    /// # Errors
    /// None.
    pub fn remove_task(&mut self, h: TaskHandle) -> bool {
        let k = h.0;
        let Some(task) = self.tasks.get(k as usize).filter(|t| t.live) else { return false };
        let (inflow, out, offset) = (task.inflow, task.out, task.arcs.offset);
        let v = self.task_v(k);
        self.leave(v);
        if let Some(o) = out {
            self.cost -= i128::from(o.cost());
            let x = self.out_v(o);
            self.add_excess(x, -1);
        }
        if inflow {
            self.cost -= i128::from(offset);
            self.add_excess(S, 1);
        }
        let e = self.excess[v as usize];
        self.add_excess(v, -e);
        self.tasks[k as usize] = Task::default();
        self.vacant.push(k);
        true
    }

    /// Replaces a task's arcs (a removal and an addition; the handle may change).
    ///
    /// # Complexity
    /// O(its arcs · log tasks).
    ///
    /// # Errors
    /// None; `None` when `h` is not a live task.
    pub fn replace_task(&mut self, h: TaskHandle, arcs: TaskArcs) -> Option<TaskHandle> {
        self.remove_task(h).then(|| self.add_task(arcs))
    }

    /// Sets node `n`'s free slots: units beyond them go back (excess at the node, deficit at
    /// T); new slots on a full node whose slot arc has a negative reduced cost are taken
    /// (deficit at the node, excess at T). Ignored for a node that does not exist.
    ///
    /// # Complexity
    /// O(log nodes).
    ///
    /// # Errors
    /// None.
    pub fn set_free(&mut self, n: u32, slots: u32) {
        let Some(&old) = self.free.get(n as usize) else { return };
        if old == slots {
            return;
        }
        let nv = self.node_v(n);
        self.leave(nv);
        self.free[n as usize] = slots;
        let used = self.used[n as usize];
        if used > slots {
            let back = used - slots;
            self.used[n as usize] = slots;
            self.add_excess(T, -i64::from(back));
            self.add_excess(nv, i64::from(back));
        } else if slots > used && old <= used && self.pot[nv as usize] < self.pot[T as usize] {
            let more = slots - used;
            self.used[n as usize] = slots;
            self.add_excess(nv, -i64::from(more));
            self.add_excess(T, i64::from(more));
        }
        self.join(nv);
    }

    /// Restores a minimum-cost maximum flow after edits: successive shortest paths between
    /// excess and deficit units (see the module doc), polling `cancel` once per path. An
    /// excess at a node or rack, then at a task, searches forwards to the nearest deficit
    /// (units a node can no longer hold go back where they came from first); then a
    /// deficit there searches backwards to the nearest excess; what is left (S and T)
    /// searches forwards. True when done; false when cut (the state keeps its imbalances and
    /// a later call resumes) or, which the invariants rule out, when no path is found.
    ///
    /// # Complexity
    /// O(U · K log K) for U units of imbalance and K vertices settled per search (those
    /// nearer, in reduced cost, than the other end), plus O(log) per fan member taken.
    ///
    /// # Errors
    /// None.
    ///
    /// # Examples
    /// lsap-sched's Fig. 1: nodes A (0) and B (1), one free slot each; T1's block on A and B,
    /// T2's only on A; anywhere else costs 1. Both are placed node-local, T1 → B, T2 → A.
    /// ```
    /// use placer_solver::flow::incremental::IncrementalFlow;
    /// use placer_solver::flow::structured::TaskArcs;
    /// let mut flow = IncrementalFlow::new(&[0, 0], 1);
    /// flow.set_free(0, 1);
    /// flow.set_free(1, 1);
    /// let t1 = flow.add_task(TaskArcs { on_node: vec![(0, 0), (1, 0)], base: Some(1), ..TaskArcs::default() });
    /// let t2 = flow.add_task(TaskArcs { on_node: vec![(0, 0)], base: Some(1), ..TaskArcs::default() });
    /// assert!(flow.reoptimize(None));
    /// let at = flow.placement();
    /// assert_eq!((at[t1.0 as usize], at[t2.0 as usize]), (Some(1), Some(0)));
    /// assert_eq!(flow.total_cost(), 0);
    /// ```
    pub fn reoptimize(&mut self, cancel: Option<&Cancel>) -> bool {
        loop {
            let tasks_v0 = self.task_v(0);
            let (start, backward) = if let Some(&u) = self.active.range(3..tasks_v0).next_back() {
                (u, false)
            } else if let Some(&u) = self.active.range(tasks_v0..).next() {
                (u, false)
            } else if let Some(&w) = self.short.range(3..).next_back() {
                (w, true)
            } else if let Some(&u) = self.active.last() {
                (u, false)
            } else {
                break;
            };
            if is_cut(cancel) || !self.search(start, backward) {
                return false;
            }
        }
        if self.pot[S as usize].abs() > RECENTRE {
            self.recentre();
        }
        true
    }

    /// Shifts every potential by −π(S) (reduced costs unchanged) and rekeys the fans.
    fn recentre(&mut self) {
        let shift = self.pot[S as usize];
        for v in 0..self.pot.len() as u32 {
            self.leave(v);
            self.pot[v as usize] -= shift;
            self.join(v);
        }
    }

    /// The vertex of a fan member, and the arc between it and the walk's vertex.
    fn member(&self, fan: Fan, m: u32) -> (u32, Arc) {
        let task = |k: u32| &self.tasks[k as usize].arcs;
        match fan {
            Fan::Src => (self.task_v(m), Arc::SrcTask),
            Fan::Sink => (self.node_v(m), Arc::SinkNode),
            Fan::ClusterRacks => (self.rack_v(m), Arc::ClusterRack),
            Fan::ClusterTasks | Fan::RackTasks(_) | Fan::NodeTasks(_) => {
                (self.task_v(m), Arc::OutTask)
            }
            Fan::PlacedIn => (self.task_v(m), Arc::TaskSrc),
            Fan::OpenNodes => (self.node_v(m), Arc::NodeSink),
            Fan::RacksFeeding => (self.rack_v(m), Arc::RackCluster),
            Fan::ClusterIn => {
                (self.task_v(m), Arc::TaskOut(Out::Cluster(task(m).base.unwrap_or(0))))
            }
            Fan::RackIn(q) => {
                let c = task(m).racks.iter().find(|p| p.0 == q).map_or(0, |p| p.1);
                (self.task_v(m), Arc::TaskOut(Out::Rack(q, c)))
            }
            Fan::NodeIn(n) => {
                let c = task(m).on_node.iter().find(|p| p.0 == n).map_or(0, |p| p.1);
                (self.task_v(m), Arc::TaskOut(Out::Node(n, c)))
            }
        }
    }

    fn relax(&mut self, v: u32, d: i128, via: u32, arc: Arc) {
        let i = v as usize;
        if self.done[i] == self.stamp || (self.seen[i] == self.stamp && self.dist[i] <= d) {
            return;
        }
        self.seen[i] = self.stamp;
        self.dist[i] = d;
        self.parent[i] = (via, arc);
        let target = if self.backward { self.excess[i] > 0 } else { self.excess[i] < 0 };
        self.heap.push(Reverse((d, u8::from(!target), u64::from(v))));
    }

    /// Forwards: relaxes u → v at cost `c` from u, settled at distance `d`.
    fn arc(&mut self, u: u32, d: i128, v: u32, c: i128, arc: Arc) {
        let rc = c + self.pot[u as usize] - self.pot[v as usize];
        self.relax(v, d + rc, u, arc);
    }

    /// Backwards: relaxes u → v at cost `c` into v, settled at distance `d`.
    fn back(&mut self, v: u32, d: i128, u: u32, c: i128, arc: Arc) {
        let rc = c + self.pot[u as usize] - self.pot[v as usize];
        self.relax(u, d + rc, v, arc);
    }

    /// The distance of a walk's members is `base` + their key.
    fn walk_base(&self, u: u32, fan: Fan) -> i128 {
        let d = self.dist[u as usize];
        if fan.backward() {
            d - self.pot[u as usize]
        } else {
            d + self.pot[u as usize]
        }
    }

    /// Starts a walk along `fan` from settled `u`.
    fn walk(&mut self, u: u32, fan: Fan) {
        let Some(&first) = self.fan(fan).first() else { return };
        let base = self.walk_base(u, fan);
        self.push_walk(Walk { from: u, fan, at: first }, base);
    }

    fn push_walk(&mut self, w: Walk, base: i128) {
        let i = self.walks.len() as u64;
        self.walks.push(w);
        self.heap.push(Reverse((base + w.at.0, 1, (1 << 32) | i)));
    }

    /// One search from `start` (an excess forwards, a deficit backwards) to the nearest
    /// vertex of the other kind, then one unit along the path found and the potentials
    /// moved; false when none is reachable.
    fn search(&mut self, start: u32, backward: bool) -> bool {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.iter_mut().for_each(|x| *x = 0);
            self.done.iter_mut().for_each(|x| *x = 0);
            self.stamp = 1;
        }
        self.backward = backward;
        self.heap.clear();
        self.walks.clear();
        self.settled.clear();
        self.relax(start, 0, start, Arc::SrcSink);
        let mut end = None;
        while let Some(Reverse((d, _, item))) = self.heap.pop() {
            if item >> 32 == 1 {
                let w = self.walks[(item & 0xffff_ffff) as usize];
                let (v, arc) = self.member(w.fan, w.at.1);
                self.relax(v, d, w.from, arc);
                let next = self.fan(w.fan).range((Excluded(w.at), Unbounded)).next().copied();
                if let Some(at) = next {
                    let base = self.walk_base(w.from, w.fan);
                    self.push_walk(Walk { at, ..w }, base);
                }
                continue;
            }
            let u = item as u32;
            let i = u as usize;
            if self.done[i] == self.stamp || d > self.dist[i] {
                continue;
            }
            self.done[i] = self.stamp;
            self.settled.push(u);
            let reached = if backward { self.excess[i] > 0 } else { self.excess[i] < 0 };
            if reached && u != start {
                end = Some((u, d));
                break;
            }
            if backward {
                self.scan_in(u, d);
            } else {
                self.scan_out(u, d);
            }
        }
        self.settled_total += self.settled.len() as u64;
        let Some((end, reach)) = end else { return false };
        // Potentials: settled vertices move by (distance − D) forwards, (D − distance)
        // backwards, which keeps every reduced cost ≥ 0 and puts the path's arcs at 0.
        for j in 0..self.settled.len() {
            let v = self.settled[j];
            let d = self.dist[v as usize];
            let delta = if backward { reach - d } else { d - reach };
            if delta != 0 {
                self.leave(v);
                self.pot[v as usize] += delta;
                self.join(v);
            }
        }
        // The path's arcs in flow order (a task entered by its out-arc leaves it first).
        let mut path = std::mem::take(&mut self.path);
        path.clear();
        let mut v = end;
        while v != start {
            let (u, arc) = self.parent[v as usize];
            if backward {
                path.push((v, u, arc));
            } else {
                path.push((u, v, arc));
            }
            v = u;
        }
        if !backward {
            path.reverse();
        }
        for &(u, v, arc) in &path {
            self.push(u, v, arc);
        }
        self.path = path;
        let (from, to) = if backward { (end, start) } else { (start, end) };
        self.add_excess(from, -1);
        self.add_excess(to, 1);
        true
    }

    /// Forwards: the residual arcs out of `u`, settled at distance `d`.
    fn scan_out(&mut self, u: u32, d: i128) {
        let racks = self.racks() as u32;
        let nodes = self.nodes() as u32;
        match u {
            S => {
                self.walk(S, Fan::Src);
                if self.ts_flow > 0 {
                    self.arc(S, d, T, BIG_M, Arc::SrcSink);
                }
            }
            T => {
                self.arc(T, d, S, -BIG_M, Arc::SinkSrc);
                self.walk(T, Fan::Sink);
            }
            C => {
                self.walk(C, Fan::ClusterRacks);
                self.walk(C, Fan::ClusterTasks);
            }
            _ if u < 3 + racks => {
                let q = u - 3;
                for j in 0..self.rack_nodes[q as usize].len() {
                    let n = self.rack_nodes[q as usize][j];
                    self.arc(u, d, self.node_v(n), 0, Arc::RackNode);
                }
                if self.flow_cr[q as usize] > 0 {
                    self.arc(u, d, C, 0, Arc::RackCluster);
                }
                self.walk(u, Fan::RackTasks(q));
            }
            _ if u < 3 + racks + nodes => {
                let n = u - 3 - racks;
                if self.used[n as usize] < self.free[n as usize] {
                    self.arc(u, d, T, 0, Arc::NodeSink);
                }
                if self.flow_rn[n as usize] > 0 {
                    let q = self.node_rack[n as usize];
                    self.arc(u, d, self.rack_v(q), 0, Arc::NodeRack);
                }
                self.walk(u, Fan::NodeTasks(n));
            }
            _ => {
                let k = (u - 3 - racks - nodes) as usize;
                let (inflow, out, offset) = {
                    let t = &self.tasks[k];
                    (t.inflow, t.out, t.arcs.offset)
                };
                if inflow {
                    self.arc(u, d, S, -i128::from(offset), Arc::TaskSrc);
                }
                for j in 0..self.tasks[k].arcs.on_node.len() {
                    let (n, c) = self.tasks[k].arcs.on_node[j];
                    let o = Out::Node(n, c);
                    if out != Some(o) {
                        self.arc(u, d, self.node_v(n), i128::from(c), Arc::TaskOut(o));
                    }
                }
                for j in 0..self.tasks[k].arcs.racks.len() {
                    let (q, c) = self.tasks[k].arcs.racks[j];
                    let o = Out::Rack(q, c);
                    if out != Some(o) {
                        self.arc(u, d, self.rack_v(q), i128::from(c), Arc::TaskOut(o));
                    }
                }
                if let Some(b) = self.tasks[k].arcs.base {
                    let o = Out::Cluster(b);
                    if out != Some(o) {
                        self.arc(u, d, C, i128::from(b), Arc::TaskOut(o));
                    }
                }
            }
        }
    }

    /// Backwards: the residual arcs into `v`, settled at distance `d`.
    fn scan_in(&mut self, v: u32, d: i128) {
        let racks = self.racks() as u32;
        let nodes = self.nodes() as u32;
        match v {
            S => {
                self.back(S, d, T, -BIG_M, Arc::SinkSrc);
                self.walk(S, Fan::PlacedIn);
            }
            T => {
                if self.ts_flow > 0 {
                    self.back(T, d, S, BIG_M, Arc::SrcSink);
                }
                self.walk(T, Fan::OpenNodes);
            }
            C => {
                self.walk(C, Fan::ClusterIn);
                self.walk(C, Fan::RacksFeeding);
            }
            _ if v < 3 + racks => {
                let q = v - 3;
                self.back(v, d, C, 0, Arc::ClusterRack);
                for j in 0..self.rack_nodes[q as usize].len() {
                    let n = self.rack_nodes[q as usize][j];
                    if self.flow_rn[n as usize] > 0 {
                        self.back(v, d, self.node_v(n), 0, Arc::NodeRack);
                    }
                }
                self.walk(v, Fan::RackIn(q));
            }
            _ if v < 3 + racks + nodes => {
                let n = v - 3 - racks;
                let q = self.node_rack[n as usize];
                self.back(v, d, self.rack_v(q), 0, Arc::RackNode);
                if self.used[n as usize] > 0 {
                    self.back(v, d, T, 0, Arc::SinkNode);
                }
                self.walk(v, Fan::NodeIn(n));
            }
            _ => {
                let k = (v - 3 - racks - nodes) as usize;
                let t = &self.tasks[k];
                let (inflow, out, offset) = (t.inflow, t.out, t.arcs.offset);
                if !inflow {
                    self.back(v, d, S, i128::from(offset), Arc::SrcTask);
                }
                if let Some(o) = out {
                    self.back(v, d, self.out_v(o), -i128::from(o.cost()), Arc::OutTask);
                }
            }
        }
    }

    /// One unit along residual arc u → v, moving the fan memberships it changes.
    fn push(&mut self, u: u32, v: u32, arc: Arc) {
        let racks = self.racks() as u32;
        let nodes = self.nodes() as u32;
        let task = |x: u32| (x - 3 - racks - nodes) as usize;
        match arc {
            Arc::SrcTask => {
                self.leave(v);
                let k = task(v);
                self.tasks[k].inflow = true;
                self.cost += i128::from(self.tasks[k].arcs.offset);
                self.join(v);
            }
            Arc::TaskSrc => {
                self.leave(u);
                let k = task(u);
                self.tasks[k].inflow = false;
                self.cost -= i128::from(self.tasks[k].arcs.offset);
                self.join(u);
            }
            Arc::TaskOut(o) => {
                self.leave(u);
                self.tasks[task(u)].out = Some(o);
                self.cost += i128::from(o.cost());
                self.join(u);
            }
            Arc::OutTask => {
                self.leave(v);
                if let Some(o) = self.tasks[task(v)].out.take() {
                    self.cost -= i128::from(o.cost());
                }
                self.join(v);
            }
            Arc::ClusterRack | Arc::RackCluster => {
                let rack = if matches!(arc, Arc::ClusterRack) { v } else { u };
                self.leave(rack);
                let f = &mut self.flow_cr[(rack - 3) as usize];
                *f = if matches!(arc, Arc::ClusterRack) { *f + 1 } else { *f - 1 };
                self.join(rack);
            }
            Arc::RackNode => self.flow_rn[(v - 3 - racks) as usize] += 1,
            Arc::NodeRack => self.flow_rn[(u - 3 - racks) as usize] -= 1,
            Arc::NodeSink | Arc::SinkNode => {
                let node = if matches!(arc, Arc::NodeSink) { u } else { v };
                self.leave(node);
                let f = &mut self.used[(node - 3 - racks) as usize];
                *f = if matches!(arc, Arc::NodeSink) { *f + 1 } else { *f - 1 };
                self.join(node);
            }
            Arc::SinkSrc => self.ts_flow += 1,
            Arc::SrcSink => self.ts_flow -= 1,
        }
    }

    /// The node of every task, by handle (`None` for an unplaced task or a vacant handle):
    /// the units each rack and the cluster carry are handed to nodes in node order, tasks in
    /// handle order. Meaningful once [`Self::reoptimize`] has returned true.
    ///
    /// # Complexity
    /// O(tasks + nodes + racks).
    ///
    /// # Errors
    /// None.
    pub fn placement(&self) -> Vec<Option<u32>> {
        // Units each rack hands to its nodes, and racks the cluster feeds.
        let mut supply: Vec<Vec<u32>> = vec![Vec::new(); self.racks()];
        for (q, nodes) in self.rack_nodes.iter().enumerate() {
            for &n in nodes.iter().rev() {
                let units = self.flow_rn[n as usize] as usize;
                supply[q].extend(std::iter::repeat_n(n, units));
            }
        }
        let mut feeds: Vec<u32> = Vec::new();
        for q in (0..self.racks() as u32).rev() {
            feeds.extend(std::iter::repeat_n(q, self.flow_cr[q as usize] as usize));
        }
        let mut at = vec![None; self.tasks.len()];
        for (k, t) in self.tasks.iter().enumerate() {
            at[k] = match t.out {
                Some(Out::Node(n, _)) if t.live && t.inflow => Some(n),
                Some(Out::Rack(q, _)) if t.live && t.inflow => supply[q as usize].pop(),
                _ => None,
            };
        }
        for (k, t) in self.tasks.iter().enumerate() {
            if t.live && t.inflow && matches!(t.out, Some(Out::Cluster(_))) {
                at[k] = feeds.pop().and_then(|q| supply[q as usize].pop());
            }
        }
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::structured::{solve, Slots};

    /// A xorshift generator: `next(m)` is uniform-ish in 0..m.
    fn xorshift(seed: u64) -> impl FnMut(u64) -> u64 {
        let mut x = seed | 1;
        move |m| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m.max(1)
        }
    }

    /// The cheapest path cost of `task` on node `n` in rack `q`.
    fn pair_cost(task: &TaskArcs, n: u32, q: u32) -> Option<i64> {
        let on_node = task.on_node.iter().find(|p| p.0 == n).map(|p| p.1);
        let on_rack = task.racks.iter().find(|p| p.0 == q).map(|p| p.1);
        [on_node, on_rack, task.base].into_iter().flatten().min()
    }

    /// (placed, Σ offset + pair cost) of an assignment, checking capacities and arcs.
    fn objective(
        node_rack: &[u32],
        free: &[u32],
        tasks: &[TaskArcs],
        at: &[Option<u32>],
    ) -> (usize, i64) {
        let mut used = vec![0u32; free.len()];
        let mut total = 0;
        let mut placed = 0;
        for (task, node) in tasks.iter().zip(at) {
            let Some(n) = *node else { continue };
            used[n as usize] += 1;
            assert!(used[n as usize] <= free[n as usize], "node {n} over its free slots");
            let c = pair_cost(task, n, node_rack[n as usize]).expect("a placed task uses an arc");
            total += task.offset + c;
            placed += 1;
        }
        (placed, total)
    }

    /// Every assignment of ≤ 6 tasks to ≤ 4 nodes (or none): the most placed, then least cost.
    fn brute_force(node_rack: &[u32], free: &[u32], tasks: &[TaskArcs]) -> (usize, i64) {
        fn go(
            i: usize,
            node_rack: &[u32],
            room: &mut [u32],
            tasks: &[TaskArcs],
            acc: (usize, i64),
            best: &mut Option<(usize, i64)>,
        ) {
            if i == tasks.len() {
                let better = best.is_none_or(|b| acc.0 > b.0 || (acc.0 == b.0 && acc.1 < b.1));
                if better {
                    *best = Some(acc);
                }
                return;
            }
            go(i + 1, node_rack, room, tasks, acc, best);
            for n in 0..room.len() {
                if room[n] == 0 {
                    continue;
                }
                let Some(c) = pair_cost(&tasks[i], n as u32, node_rack[n]) else { continue };
                room[n] -= 1;
                let next = (acc.0 + 1, acc.1 + tasks[i].offset + c);
                go(i + 1, node_rack, room, tasks, next, best);
                room[n] += 1;
            }
        }
        let mut best = None;
        go(0, node_rack, &mut free.to_vec(), tasks, (0, 0), &mut best);
        best.unwrap_or((0, 0))
    }

    /// The live tasks of `flow` and their nodes, in handle order.
    fn live(flow: &IncrementalFlow) -> (Vec<TaskArcs>, Vec<Option<u32>>) {
        let at = flow.placement();
        let mut tasks = Vec::new();
        let mut nodes = Vec::new();
        for (k, node) in at.iter().enumerate() {
            if let Some(arcs) = flow.arcs(TaskHandle(k as u32)) {
                tasks.push(arcs.clone());
                nodes.push(*node);
            }
        }
        (tasks, nodes)
    }

    fn random_task(next: &mut impl FnMut(u64) -> u64, nodes: usize, racks: usize) -> TaskArcs {
        let mut on_node: Vec<(u32, i64)> =
            (0..next(3)).map(|_| (next(nodes as u64) as u32, next(4) as i64)).collect();
        on_node.sort_unstable();
        on_node.dedup_by_key(|p| p.0);
        let racks_listed = if next(2) == 0 {
            vec![(next(racks as u64) as u32, 2 + next(4) as i64)]
        } else {
            Vec::new()
        };
        let base = (next(6) != 0).then(|| 5 + next(5) as i64);
        TaskArcs { offset: next(4) as i64, on_node, racks: racks_listed, base, job: 0 }
    }

    /// lsap-sched Fig. 1: T1's block on A and B, T2's only on A, one slot each: T1 → B,
    /// T2 → A at cost 0, where the greedy T1 → A would cost T2 a remote read. Then A's slot
    /// goes (T2 now cannot stay node-local: one remote read, cost 1, T1 keeps B) and comes back.
    #[test]
    fn lsap_sched_fig1_t1_on_b_t2_on_a() {
        let mut flow = IncrementalFlow::new(&[0, 0], 1);
        flow.set_free(0, 1);
        flow.set_free(1, 1);
        let t1 = TaskArcs { on_node: vec![(0, 0), (1, 0)], base: Some(1), ..TaskArcs::default() };
        let t2 = TaskArcs { on_node: vec![(0, 0)], base: Some(1), ..TaskArcs::default() };
        let h1 = flow.add_task(t1);
        let h2 = flow.add_task(t2);
        assert!(flow.reoptimize(None));
        let at = flow.placement();
        assert_eq!((at[h1.0 as usize], at[h2.0 as usize]), (Some(1), Some(0)));
        assert_eq!((flow.placed(), flow.total_cost()), (2, 0));
        flow.set_free(0, 0);
        assert!(flow.reoptimize(None));
        assert_eq!((flow.placed(), flow.total_cost()), (1, 0));
        flow.set_free(0, 1);
        assert!(flow.reoptimize(None));
        let at = flow.placement();
        assert_eq!((at[h1.0 as usize], at[h2.0 as usize]), (Some(1), Some(0)));
        assert_eq!((flow.placed(), flow.total_cost()), (2, 0));
    }

    /// Removing the task that holds a contested slot hands it to the waiting task: one slot
    /// on A, T1 (offset 0, cost 0 on A) placed, T2 (offset 3) waiting; T1 leaves, T2 takes A.
    #[test]
    fn a_removed_tasks_slot_goes_to_the_waiting_one() {
        let mut flow = IncrementalFlow::new(&[0], 1);
        flow.set_free(0, 1);
        let h1 = flow.add_task(TaskArcs { on_node: vec![(0, 0)], ..TaskArcs::default() });
        let h2 = flow.add_task(TaskArcs { offset: 3, base: Some(2), ..TaskArcs::default() });
        assert!(flow.reoptimize(None));
        assert_eq!(flow.placement()[h1.0 as usize], Some(0));
        assert_eq!((flow.placed(), flow.total_cost()), (1, 0));
        assert!(flow.remove_task(h1));
        assert!(flow.reoptimize(None));
        assert_eq!(flow.placement()[h2.0 as usize], Some(0));
        assert_eq!((flow.placed(), flow.total_cost()), (1, 5));
    }

    /// A cut before the first path leaves the imbalance, and the next call finishes.
    #[test]
    fn a_cut_reoptimize_resumes() {
        let mut flow = IncrementalFlow::new(&[0], 1);
        flow.set_free(0, 2);
        flow.add_task(TaskArcs { base: Some(1), ..TaskArcs::default() });
        let cancel = Cancel::new();
        cancel.cancel();
        assert!(!flow.reoptimize(Some(&cancel)));
        assert!(!flow.is_balanced());
        assert!(flow.reoptimize(None));
        assert_eq!((flow.placed(), flow.total_cost()), (1, 1));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// Tiny cases (≤ 6 tasks, ≤ 4 nodes) against every assignment, after each edit, from
        /// either start.
        #[test]
        fn matches_brute_force_on_tiny_cases(seed in proptest::prelude::any::<u64>()) {
            let mut next = xorshift(seed);
            let nodes = 1 + next(4) as usize;
            let node_rack: Vec<u32> = (0..nodes as u32).map(|n| n / 2).collect();
            let racks = nodes.div_ceil(2);
            let mut flow = if next(2) == 0 {
                IncrementalFlow::new(&node_rack, racks)
            } else {
                IncrementalFlow::filling_slots(&node_rack, racks)
            };
            let mut free = vec![0u32; nodes];
            let mut handles: Vec<TaskHandle> = Vec::new();
            for _ in 0..12 {
                match next(4) {
                    0 | 1 if handles.len() < 6 => {
                        handles.push(flow.add_task(random_task(&mut next, nodes, racks)));
                    }
                    0..=2 if !handles.is_empty() => {
                        let h = handles.remove(next(handles.len() as u64) as usize);
                        proptest::prop_assert!(flow.remove_task(h));
                    }
                    _ => {
                        let n = next(nodes as u64) as usize;
                        free[n] = next(3) as u32;
                        flow.set_free(n as u32, free[n]);
                    }
                }
                proptest::prop_assert!(flow.reoptimize(None));
                let (tasks, at) = live(&flow);
                let got = objective(&node_rack, &free, &tasks, &at);
                proptest::prop_assert_eq!(got, brute_force(&node_rack, &free, &tasks));
                proptest::prop_assert_eq!(
                    (flow.placed() as usize, flow.total_cost()),
                    (got.0, i128::from(got.1))
                );
            }
        }

        /// Sequences of random edits (add, remove, replace tasks, set free slots) on up to 16
        /// nodes: after each reoptimize the count placed and the total cost equal a cold
        /// structured solve of the same tasks and slots, every capacity holds and every
        /// placed task uses one of its arcs (from either start).
        #[test]
        fn matches_a_cold_solve_after_every_edit(seed in proptest::prelude::any::<u64>()) {
            let mut next = xorshift(seed);
            let nodes = 1 + next(16) as usize;
            let rack_size = 1 + next(4) as u32;
            let node_rack: Vec<u32> = (0..nodes as u32).map(|n| n / rack_size).collect();
            let racks = nodes.div_ceil(rack_size as usize);
            let mut flow = if next(2) == 0 {
                IncrementalFlow::new(&node_rack, racks)
            } else {
                IncrementalFlow::filling_slots(&node_rack, racks)
            };
            let mut free = vec![0u32; nodes];
            for (n, f) in free.iter_mut().enumerate() {
                *f = next(3) as u32;
                flow.set_free(n as u32, *f);
            }
            let mut handles: Vec<TaskHandle> = Vec::new();
            for _ in 0..(1 + next(12)) {
                handles.push(flow.add_task(random_task(&mut next, nodes, racks)));
            }
            for _step in 0..10 {
                for _ in 0..(1 + next(4)) {
                    match next(5) {
                        0 => handles.push(flow.add_task(random_task(&mut next, nodes, racks))),
                        1 if !handles.is_empty() => {
                            let h = handles.remove(next(handles.len() as u64) as usize);
                            proptest::prop_assert!(flow.remove_task(h));
                        }
                        2 if !handles.is_empty() => {
                            let i = next(handles.len() as u64) as usize;
                            let arcs = random_task(&mut next, nodes, racks);
                            let h = flow.replace_task(handles[i], arcs);
                            proptest::prop_assert!(h.is_some());
                            handles[i] = h.unwrap_or(handles[i]);
                        }
                        _ => {
                            let n = next(nodes as u64) as usize;
                            free[n] = next(4) as u32;
                            flow.set_free(n as u32, free[n]);
                        }
                    }
                }
                proptest::prop_assert!(flow.reoptimize(None));
                let (tasks, at) = live(&flow);
                let got = objective(&node_rack, &free, &tasks, &at);
                let slots = Slots { node_rack: &node_rack, free: &free, racks };
                let cold = solve(slots, &tasks, None);
                let want = objective(&node_rack, &free, &tasks, &cold.node_of_task);
                proptest::prop_assert_eq!(got, want);
                proptest::prop_assert_eq!(
                    (flow.placed() as usize, flow.total_cost()),
                    (got.0, i128::from(got.1))
                );
            }
        }
    }
}
