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
//! Under lsap_quota ([`IncrementalFlow::with_quotas`]) tasks enter from their job instead of
//! from S, through the front [`crate::flow::structured::Quotas`] describes: S → pool (its
//! `must` units), S → flex group → pool (`flex`), pool → job (its share at cost 0, any more at
//! cost 1 each). The front's arcs are few (two per pool and per job) and kept with their flow;
//! a capacity set below its flow sends the surplus back (excess at the tail, deficit at the
//! head), and room on an arc of negative reduced cost is filled (deficit at the tail, excess
//! at the head), as for a node's slots. Pools and jobs are hubs like S (every task of a pool
//! is two arcs from it), so an excess there waits until the deficits on the slot side have
//! searched backwards, where the few arcs into a node lead to the best task.
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
    /// Along a quota-front arc (by index).
    Front(u32),
    /// Against a quota-front arc (by index).
    FrontBack(u32),
}

/// A sorted fan of residual arcs at one vertex. Forward fans (out-arcs u → m) are keyed
/// c − π(m), backward fans (in-arcs m → u) c + π(m), so that a walk takes their members in
/// order of reduced cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fan {
    /// An entry (S, or under quotas a job) → its unplaced tasks, by entry index.
    Src(u32),
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
    /// Placed tasks → their entry (backward at the entry), by entry index.
    PlacedIn(u32),
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
            Fan::PlacedIn(_)
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

/// A job's place in an [`IncrementalFlow`] under quotas, as [`IncrementalFlow::add_job`] gave
/// it (the `job` of its tasks' [`TaskArcs`]; handles of removed jobs are reused).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct JobHandle(pub u32);

/// The capacity that stands for ∞ on the quota front (more than any count of tasks).
const UNBOUNDED: u64 = 1 << 62;

/// A vertex above the racks and nodes: a task (by handle) or a quota-front vertex (by index
/// in `front`).
#[derive(Clone, Copy, Debug)]
enum Dyn {
    Task(u32),
    Front(u32),
}

/// An arc of the quota front (S → pool, S → group, group → pool, pool → job), with its flow.
#[derive(Clone, Copy, Debug)]
struct FrontArc {
    from: u32,
    to: u32,
    cap: u64,
    cost: i64,
    flow: u64,
}

/// A quota-front vertex: its vertex id, its arcs out and in (indices in `front_arcs`), and
/// for a job its handle.
#[derive(Clone, Debug, Default)]
struct FrontVertex {
    v: u32,
    out: Vec<u32>,
    inn: Vec<u32>,
    job: Option<u32>,
}

/// lsap_quota's pool: its vertex (front index) and its arcs S → pool (`must`) and group g →
/// pool (`flex`, one per group, the other at capacity 0).
#[derive(Clone, Copy, Debug)]
struct Pool {
    front: u32,
    must: u32,
    flex: [u32; 2],
}

/// lsap_quota's job: its vertex (front index), pool, arcs pool → job within the share (cost
/// 0) and beyond it (cost 1, unbounded), and the live tasks that enter through it.
#[derive(Clone, Copy, Debug)]
struct Job {
    front: u32,
    pool: u32,
    share: u32,
    extra: u32,
    live: bool,
    tasks: u32,
}

/// The structured network's flow, kept across edits (see the module doc): nodes with their
/// racks and free slots, tasks with their [`TaskArcs`] (`job`: their [`JobHandle`] under
/// [`Self::with_quotas`], else ignored), the flow on every arc and a potential per vertex.
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
    /// Per entry (0: S; 1 + j: job j under quotas): its unplaced tasks.
    src_fan: Vec<Keyed>,
    sink_fan: Keyed,
    cluster_racks: Keyed,
    cluster_tasks: Keyed,
    rack_tasks: Vec<Keyed>,
    node_tasks: Vec<Keyed>,
    /// Per entry: its placed tasks.
    placed_in: Vec<Keyed>,
    open_nodes: Keyed,
    cluster_in: Keyed,
    racks_feeding: Keyed,
    rack_in: Vec<Keyed>,
    node_in: Vec<Keyed>,
    /// Per vertex above the racks and nodes: what it is.
    dyn_of: Vec<Dyn>,
    /// Per task handle: its vertex.
    task_vx: Vec<u32>,
    /// Whether tasks enter from their job through lsap_quota's front (else from S).
    quota: bool,
    front: Vec<FrontVertex>,
    front_arcs: Vec<FrontArc>,
    /// S's front arcs (to the pools and groups).
    src_out: Vec<u32>,
    /// The two flex groups (front indices) and their arcs S → group.
    groups: [(u32, u32); 2],
    pools: Vec<Pool>,
    jobs: Vec<Job>,
    vacant_jobs: Vec<u32>,
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
            src_fan: vec![Keyed::new()],
            sink_fan: Keyed::new(),
            cluster_racks: Keyed::new(),
            cluster_tasks: Keyed::new(),
            rack_tasks: vec![Keyed::new(); racks],
            node_tasks: vec![Keyed::new(); nodes],
            placed_in: vec![Keyed::new()],
            open_nodes: Keyed::new(),
            cluster_in: Keyed::new(),
            racks_feeding: Keyed::new(),
            rack_in: vec![Keyed::new(); racks],
            node_in: vec![Keyed::new(); nodes],
            dyn_of: Vec::new(),
            task_vx: Vec::new(),
            quota: false,
            front: Vec::new(),
            front_arcs: Vec::new(),
            src_out: Vec::new(),
            groups: [(0, 0); 2],
            pools: Vec::new(),
            jobs: Vec::new(),
            vacant_jobs: Vec::new(),
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
        self.task_vx[k as usize]
    }

    /// The first vertex above the racks and nodes.
    fn dyn_v0(&self) -> u32 {
        3 + (self.racks() + self.node_rack.len()) as u32
    }

    /// What vertex `v` (above the racks and nodes) is.
    fn dyn_at(&self, v: u32) -> Dyn {
        self.dyn_of[(v - self.dyn_v0()) as usize]
    }

    /// A task's entry (index of its `src_fan`, vertex): S, or under quotas its job when live.
    fn entry(&self, arcs: &TaskArcs) -> Option<(u32, u32)> {
        if !self.quota {
            return Some((0, S));
        }
        let job = self.jobs.get(arcs.job as usize).filter(|j| j.live)?;
        Some((1 + arcs.job, self.front[job.front as usize].v))
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
        let fans = len(&self.src_fan)
            + self.sink_fan.len()
            + self.cluster_racks.len()
            + self.cluster_tasks.len()
            + len(&self.placed_in)
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
            + self.task_vx.capacity() * 4
            + self.dyn_of.capacity() * 8
            + self.front_arcs.capacity() * std::mem::size_of::<FrontArc>()
            + self
                .front
                .iter()
                .map(|f| 64 + 4 * (f.out.capacity() + f.inn.capacity()))
                .sum::<usize>()
            + self.jobs.capacity() * std::mem::size_of::<Job>()
            + self.pools.capacity() * std::mem::size_of::<Pool>()
    }

    /// A new vertex above the racks and nodes, for `what`.
    fn grow(&mut self, what: Dyn) -> u32 {
        let id = self.pot.len() as u32;
        self.dyn_of.push(what);
        let v = self.pot.len() + 1;
        self.pot.resize(v, 0);
        self.excess.resize(v, 0);
        self.dist.resize(v, 0);
        self.seen.resize(v, 0);
        self.done.resize(v, 0);
        self.parent.resize(v, (0, Arc::SrcSink));
        id
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
            Fan::Src(e) => &mut self.src_fan[e as usize],
            Fan::Sink => &mut self.sink_fan,
            Fan::ClusterRacks => &mut self.cluster_racks,
            Fan::ClusterTasks => &mut self.cluster_tasks,
            Fan::RackTasks(q) => &mut self.rack_tasks[q as usize],
            Fan::NodeTasks(n) => &mut self.node_tasks[n as usize],
            Fan::PlacedIn(e) => &mut self.placed_in[e as usize],
            Fan::OpenNodes => &mut self.open_nodes,
            Fan::ClusterIn => &mut self.cluster_in,
            Fan::RacksFeeding => &mut self.racks_feeding,
            Fan::RackIn(q) => &mut self.rack_in[q as usize],
            Fan::NodeIn(n) => &mut self.node_in[n as usize],
        }
    }

    fn fan(&self, fan: Fan) -> &Keyed {
        match fan {
            Fan::Src(e) => &self.src_fan[e as usize],
            Fan::Sink => &self.sink_fan,
            Fan::ClusterRacks => &self.cluster_racks,
            Fan::ClusterTasks => &self.cluster_tasks,
            Fan::RackTasks(q) => &self.rack_tasks[q as usize],
            Fan::NodeTasks(n) => &self.node_tasks[n as usize],
            Fan::PlacedIn(e) => &self.placed_in[e as usize],
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
            let Dyn::Task(k) = self.dyn_at(v) else { return };
            let t = &self.tasks[k as usize];
            if !t.live {
                return;
            }
            let off = i128::from(t.arcs.offset);
            if let Some((e, _)) = self.entry(&t.arcs) {
                if t.inflow {
                    self.fans.push((Fan::PlacedIn(e), -off, k));
                } else {
                    self.fans.push((Fan::Src(e), off, k));
                }
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

    /// Adds a task with `arcs`, unplaced until [`Self::reoptimize`]; arcs to nodes or racks
    /// that do not exist are dropped. Under [`Self::with_quotas`] it enters from job
    /// `arcs.job` (a task of no live job is never placed); else `job` is ignored.
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
                let k = self.tasks.len() as u32;
                self.tasks.push(Task::default());
                let v = self.grow(Dyn::Task(k));
                self.task_vx.push(v);
                k
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
        let entry = self.entry(&arcs);
        if let Some(job) = entry.and(self.quota.then_some(arcs.job)) {
            self.jobs[job as usize].tasks += 1;
        }
        let entry_v = entry.map(|(_, ev)| ev);
        let top = entry_v.map(|ev| self.pot[ev as usize] + offset);
        let saturate = matches!((lower, top), (Some(l), Some(t)) if l > t);
        self.pot[v as usize] = match (lower, top) {
            (Some(l), _) if saturate => l,
            (_, Some(t)) => t,
            (Some(l), None) => l,
            (None, None) => self.pot[S as usize],
        };
        self.excess[v as usize] = 0;
        self.tasks[k as usize] = Task { arcs, live: true, inflow: saturate, out: None };
        if saturate {
            // S → t would have a negative reduced cost: it takes its unit now.
            self.cost += offset;
            self.add_excess(v, 1);
            self.add_excess(entry_v.unwrap_or(S), -1);
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
        let entry = self.entry(&task.arcs);
        if let Some(job) = entry.and(self.quota.then_some(task.arcs.job)) {
            self.jobs[job as usize].tasks -= 1;
        }
        let v = self.task_v(k);
        self.leave(v);
        if let Some(o) = out {
            self.cost -= i128::from(o.cost());
            let x = self.out_v(o);
            self.add_excess(x, -1);
        }
        if inflow {
            self.cost -= i128::from(offset);
            self.add_excess(entry.map_or(S, |(_, ev)| ev), 1);
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

    /// Turns on lsap_quota's front ([`crate::flow::structured::Quotas`]): tasks then enter
    /// from their job (the `job` of their [`TaskArcs`], a [`JobHandle`] of
    /// [`Self::add_job`]) instead of from S, through S → pool (`must`), S → flex group →
    /// pool (`flex`), pool → job (the share at cost 0, any more at cost 1 per unit). Every
    /// capacity starts at 0; [`Self::set_groups`], [`Self::set_pool`] and [`Self::add_job`]
    /// give them. For an empty flow (tasks added before keep entering from S).
    ///
    /// Units are moved one search each: a capacity far above the tasks that can use it (a
    /// group's units beyond its pools' `flex`, say) costs a search per unit it fills and
    /// sends back, so callers give at most the number of tasks, as the cold engine caps
    /// them.
    ///
    /// # Complexity
    /// O(1).
    ///
    /// # Errors
    /// None.
    ///
    /// # Examples
    /// One pool that must receive one unit, one job with a share of 0 (its unit costs 1): of
    /// two tasks the cheaper is placed, at its cost plus the job's surcharge.
    /// ```
    /// use placer_solver::flow::incremental::IncrementalFlow;
    /// use placer_solver::flow::structured::TaskArcs;
    /// let mut flow = IncrementalFlow::new(&[0], 1).with_quotas();
    /// flow.set_free(0, 2);
    /// flow.set_pool(0, 1, 0, 0);
    /// let job = flow.add_job(0, 0);
    /// flow.add_task(TaskArcs { base: Some(6), job: job.0, ..TaskArcs::default() });
    /// flow.add_task(TaskArcs { base: Some(4), job: job.0, ..TaskArcs::default() });
    /// assert!(flow.reoptimize(None));
    /// assert_eq!((flow.placed(), flow.total_cost()), (1, 5));
    /// ```
    pub fn with_quotas(mut self) -> Self {
        if self.quota || !self.tasks.is_empty() {
            return self;
        }
        self.quota = true;
        for g in 0..2 {
            let f = self.front_vertex(None, self.pot[S as usize]);
            let a = self.front_arc(S, self.front[f as usize].v, 0);
            self.groups[g] = (f, a);
        }
        self
    }

    /// A new front vertex (front index) with potential `pot`.
    fn front_vertex(&mut self, job: Option<u32>, pot: i128) -> u32 {
        let f = self.front.len() as u32;
        let v = self.grow(Dyn::Front(f));
        self.pot[v as usize] = pot;
        self.front.push(FrontVertex { v, out: Vec::new(), inn: Vec::new(), job });
        f
    }

    /// A new front arc `from` → `to` of capacity 0 and cost `cost`, in both ends' lists.
    fn front_arc(&mut self, from: u32, to: u32, cost: i64) -> u32 {
        let a = self.front_arcs.len() as u32;
        self.front_arcs.push(FrontArc { from, to, cap: 0, cost, flow: 0 });
        self.link(a);
        a
    }

    /// Puts front arc `a` into its ends' lists.
    fn link(&mut self, a: u32) {
        let FrontArc { from, to, .. } = self.front_arcs[a as usize];
        if from == S {
            self.src_out.push(a);
        } else if let Dyn::Front(f) = self.dyn_at(from) {
            self.front[f as usize].out.push(a);
        }
        if let Dyn::Front(f) = self.dyn_at(to) {
            self.front[f as usize].inn.push(a);
        }
    }

    /// Sets front arc `a`'s capacity: units beyond it go back (excess at its tail, deficit at
    /// its head); room on an arc of negative reduced cost is filled (deficit at its tail,
    /// excess at its head), which keeps every reduced cost ≥ 0. O(log vertices).
    fn set_cap(&mut self, a: u32, cap: u64) {
        let arc = self.front_arcs[a as usize];
        let units = |x: u64| i64::try_from(x).unwrap_or(i64::MAX);
        let rc = i128::from(arc.cost) + self.pot[arc.from as usize] - self.pot[arc.to as usize];
        // Too many units, or room at a negative reduced cost: the arc is saturated.
        let flow = if arc.flow > cap || rc < 0 { cap } else { arc.flow };
        if flow != arc.flow {
            let delta = i128::from(flow) - i128::from(arc.flow);
            self.cost += delta * i128::from(arc.cost);
            let moved = units(flow.abs_diff(arc.flow));
            let sign = if flow > arc.flow { 1 } else { -1 };
            self.add_excess(arc.from, -sign * moved);
            self.add_excess(arc.to, sign * moved);
        }
        let arc = &mut self.front_arcs[a as usize];
        arc.cap = cap;
        arc.flow = flow;
    }

    /// Sets the units through each flex group (S → group g). Ignored without
    /// [`Self::with_quotas`].
    ///
    /// # Complexity
    /// O(log vertices).
    ///
    /// # Errors
    /// None.
    pub fn set_groups(&mut self, units: [u64; 2]) {
        if self.quota {
            for (g, &u) in units.iter().enumerate() {
                self.set_cap(self.groups[g].1, u.min(UNBOUNDED));
            }
        }
    }

    /// Sets pool `p`'s units: `must` through S → pool, up to `flex` more through flex group
    /// `group` (0 or 1; the other group's arc to it gets 0). Pools below `p` that do not
    /// exist yet are made with no units. Ignored without [`Self::with_quotas`].
    ///
    /// # Complexity
    /// O(log vertices), plus O(1) per pool made.
    ///
    /// # Errors
    /// None; a `group` above 1 counts as 1.
    pub fn set_pool(&mut self, p: u32, must: u64, flex: u64, group: usize) {
        if !self.quota {
            return;
        }
        while self.pools.len() <= p as usize {
            let f = self.front_vertex(None, self.pot[S as usize]);
            let v = self.front[f as usize].v;
            let must = self.front_arc(S, v, 0);
            let flex =
                [0, 1].map(|g| self.front_arc(self.front[self.groups[g].0 as usize].v, v, 0));
            self.pools.push(Pool { front: f, must, flex });
        }
        let pool = self.pools[p as usize];
        let group = group.min(1);
        self.set_cap(pool.must, must.min(UNBOUNDED));
        self.set_cap(pool.flex[group], flex.min(UNBOUNDED));
        self.set_cap(pool.flex[1 - group], 0);
    }

    /// Adds a job of pool `pool` (made with no units if it does not exist) with `share` units
    /// within its share (pool → job at cost 0; any more cost 1 each). Without
    /// [`Self::with_quotas`] the handle is given but nothing enters through it.
    ///
    /// # Complexity
    /// O(1) amortised, plus [`Self::set_pool`]'s for a new pool.
    ///
    /// # Errors
    /// None.
    pub fn add_job(&mut self, pool: u32, share: u64) -> JobHandle {
        if self.quota && self.pools.len() <= pool as usize {
            self.set_pool(pool, 0, 0, 0);
        }
        let Some(&Pool { front: pf, .. }) = self.pools.get(pool as usize) else {
            return JobHandle(u32::MAX);
        };
        let pv = self.front[pf as usize].v;
        let pot = self.pot[pv as usize];
        let j = match self.vacant_jobs.pop() {
            Some(j) => {
                let job = self.jobs[j as usize];
                let jv = self.front[job.front as usize].v;
                self.pot[jv as usize] = pot;
                for a in [job.share, job.extra] {
                    let arc = &mut self.front_arcs[a as usize];
                    arc.from = pv;
                    self.front[pf as usize].out.push(a);
                    self.front[job.front as usize].inn.push(a);
                }
                self.jobs[j as usize] = Job { pool, live: true, tasks: 0, ..job };
                j
            }
            None => {
                let j = self.jobs.len() as u32;
                let f = self.front_vertex(Some(j), pot);
                let jv = self.front[f as usize].v;
                let share = self.front_arc(pv, jv, 0);
                let extra = self.front_arc(pv, jv, 1);
                self.jobs.push(Job { front: f, pool, share, extra, live: true, tasks: 0 });
                self.src_fan.push(Keyed::new());
                self.placed_in.push(Keyed::new());
                j
            }
        };
        let job = self.jobs[j as usize];
        self.set_cap(job.extra, UNBOUNDED);
        self.set_cap(job.share, share.min(UNBOUNDED));
        JobHandle(j)
    }

    /// Sets job `j`'s units within its share; false when `j` is not a live job.
    ///
    /// # Complexity
    /// O(log vertices).
    ///
    /// # Errors
    /// None.
    pub fn set_job_share(&mut self, j: JobHandle, share: u64) -> bool {
        let Some(job) = self.jobs.get(j.0 as usize).copied().filter(|x| x.live) else {
            return false;
        };
        self.set_cap(job.share, share.min(UNBOUNDED));
        true
    }

    /// Removes job `j`, its units going back to its pool; false when `j` is not a live job or
    /// a live task still enters through it.
    ///
    /// # Complexity
    /// O(jobs of its pool).
    ///
    /// # Errors
    /// None.
    pub fn remove_job(&mut self, j: JobHandle) -> bool {
        let Some(job) = self.jobs.get(j.0 as usize).copied().filter(|x| x.live && x.tasks == 0)
        else {
            return false;
        };
        self.set_cap(job.share, 0);
        self.set_cap(job.extra, 0);
        let pf = self.pools[job.pool as usize].front as usize;
        self.front[pf].out.retain(|&a| a != job.share && a != job.extra);
        self.front[job.front as usize].inn.clear();
        self.jobs[j.0 as usize].live = false;
        self.vacant_jobs.push(j.0);
        true
    }

    /// The pool of job `j`, if `j` is live.
    pub fn job_pool(&self, j: JobHandle) -> Option<u32> {
        self.jobs.get(j.0 as usize).filter(|x| x.live).map(|x| x.pool)
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
            let tasks_v0 = self.dyn_v0();
            let (start, backward) = if let Some(&u) = self.active.range(3..tasks_v0).next_back() {
                (u, false)
            } else if let Some(&u) =
                self.active.range(tasks_v0..).find(|&&u| matches!(self.dyn_at(u), Dyn::Task(_)))
            {
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
            Fan::Src(_) => (self.task_v(m), Arc::SrcTask),
            Fan::Sink => (self.node_v(m), Arc::SinkNode),
            Fan::ClusterRacks => (self.rack_v(m), Arc::ClusterRack),
            Fan::ClusterTasks | Fan::RackTasks(_) | Fan::NodeTasks(_) => {
                (self.task_v(m), Arc::OutTask)
            }
            Fan::PlacedIn(_) => (self.task_v(m), Arc::TaskSrc),
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
                self.walk(S, Fan::Src(0));
                if self.ts_flow > 0 {
                    self.arc(S, d, T, BIG_M, Arc::SrcSink);
                }
                for j in 0..self.src_out.len() {
                    self.front_out(S, d, self.src_out[j]);
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
                let k = match self.dyn_at(u) {
                    Dyn::Task(k) => k as usize,
                    Dyn::Front(f) => return self.scan_front_out(f, d),
                };
                let (inflow, out, offset) = {
                    let t = &self.tasks[k];
                    (t.inflow, t.out, t.arcs.offset)
                };
                if let Some((_, ev)) = self.entry(&self.tasks[k].arcs).filter(|_| inflow) {
                    self.arc(u, d, ev, -i128::from(offset), Arc::TaskSrc);
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
                self.walk(S, Fan::PlacedIn(0));
                for j in 0..self.src_out.len() {
                    self.front_in_reverse(S, d, self.src_out[j]);
                }
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
                let k = match self.dyn_at(v) {
                    Dyn::Task(k) => k as usize,
                    Dyn::Front(f) => return self.scan_front_in(f, d),
                };
                let t = &self.tasks[k];
                let (inflow, out, offset) = (t.inflow, t.out, t.arcs.offset);
                if let Some((_, ev)) = self.entry(&self.tasks[k].arcs).filter(|_| !inflow) {
                    self.back(v, d, ev, i128::from(offset), Arc::SrcTask);
                }
                if let Some(o) = out {
                    self.back(v, d, self.out_v(o), -i128::from(o.cost()), Arc::OutTask);
                }
            }
        }
    }

    /// Forwards: front arc `a` out of `u` if it has room.
    fn front_out(&mut self, u: u32, d: i128, a: u32) {
        let arc = self.front_arcs[a as usize];
        if arc.flow < arc.cap {
            self.arc(u, d, arc.to, i128::from(arc.cost), Arc::Front(a));
        }
    }

    /// Backwards into `v`: the reverse of front arc `a` (out of `v`) if it carries a unit.
    fn front_in_reverse(&mut self, v: u32, d: i128, a: u32) {
        let arc = self.front_arcs[a as usize];
        if arc.flow > 0 {
            self.back(v, d, arc.to, -i128::from(arc.cost), Arc::FrontBack(a));
        }
    }

    /// Forwards from front vertex `f`: its arcs with room, the reverse of its in-arcs that
    /// carry units, and a job's unplaced tasks.
    fn scan_front_out(&mut self, f: u32, d: i128) {
        let u = self.front[f as usize].v;
        for j in 0..self.front[f as usize].out.len() {
            self.front_out(u, d, self.front[f as usize].out[j]);
        }
        for j in 0..self.front[f as usize].inn.len() {
            let a = self.front[f as usize].inn[j];
            let arc = self.front_arcs[a as usize];
            if arc.flow > 0 {
                self.arc(u, d, arc.from, -i128::from(arc.cost), Arc::FrontBack(a));
            }
        }
        if let Some(job) = self.front[f as usize].job {
            self.walk(u, Fan::Src(1 + job));
        }
    }

    /// Backwards into front vertex `f`: its in-arcs with room, the reverse of its out-arcs
    /// that carry units, and a job's placed tasks.
    fn scan_front_in(&mut self, f: u32, d: i128) {
        let v = self.front[f as usize].v;
        for j in 0..self.front[f as usize].inn.len() {
            let a = self.front[f as usize].inn[j];
            let arc = self.front_arcs[a as usize];
            if arc.flow < arc.cap {
                self.back(v, d, arc.from, i128::from(arc.cost), Arc::Front(a));
            }
        }
        for j in 0..self.front[f as usize].out.len() {
            self.front_in_reverse(v, d, self.front[f as usize].out[j]);
        }
        if let Some(job) = self.front[f as usize].job {
            self.walk(v, Fan::PlacedIn(1 + job));
        }
    }

    /// One unit along residual arc u → v, moving the fan memberships it changes.
    fn push(&mut self, u: u32, v: u32, arc: Arc) {
        let racks = self.racks() as u32;
        // The task end of a task arc (always a task: the searches make them only there).
        let task_end = match arc {
            Arc::SrcTask | Arc::OutTask => Some(v),
            Arc::TaskSrc | Arc::TaskOut(_) => Some(u),
            _ => None,
        };
        let k = match task_end.map(|x| self.dyn_at(x)) {
            Some(Dyn::Task(k)) => k as usize,
            Some(Dyn::Front(_)) => return,
            None => 0,
        };
        match arc {
            Arc::Front(a) => {
                let arc = &mut self.front_arcs[a as usize];
                arc.flow += 1;
                self.cost += i128::from(arc.cost);
            }
            Arc::FrontBack(a) => {
                let arc = &mut self.front_arcs[a as usize];
                arc.flow -= 1;
                self.cost -= i128::from(arc.cost);
            }
            Arc::SrcTask => {
                self.leave(v);
                self.tasks[k].inflow = true;
                self.cost += i128::from(self.tasks[k].arcs.offset);
                self.join(v);
            }
            Arc::TaskSrc => {
                self.leave(u);
                self.tasks[k].inflow = false;
                self.cost -= i128::from(self.tasks[k].arcs.offset);
                self.join(u);
            }
            Arc::TaskOut(o) => {
                self.leave(u);
                self.tasks[k].out = Some(o);
                self.cost += i128::from(o.cost());
                self.join(u);
            }
            Arc::OutTask => {
                self.leave(v);
                if let Some(o) = self.tasks[k].out.take() {
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
    use crate::flow::structured::{solve, Quotas, Slots};

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

    /// The quota front of a test: per pool (must, flex, group), the groups' units, per job
    /// handle (pool, share).
    #[derive(Clone, Debug, Default)]
    struct Front {
        pools: Vec<(u64, u64, usize)>,
        groups: [u64; 2],
        jobs: Vec<(u32, u64)>,
    }

    impl Front {
        fn quotas(&self) -> Quotas {
            Quotas {
                must: self.pools.iter().map(|p| p.0).collect(),
                flex: self.pools.iter().map(|p| (p.1, p.2)).collect(),
                groups: self.groups,
                job_pool: self.jobs.iter().map(|j| j.0).collect(),
                job_share: self.jobs.iter().map(|j| j.1).collect(),
            }
        }

        /// Whether the pools can carry `count` units each (must first, the rest through
        /// their flex group), and the job surcharges: Σ_j max(0, units − share).
        fn admits(&self, tasks: &[TaskArcs], at: &[Option<u32>]) -> Option<i64> {
            let mut per_job = vec![0u64; self.jobs.len()];
            for (task, node) in tasks.iter().zip(at) {
                if node.is_some() {
                    per_job[task.job as usize] += 1;
                }
            }
            let mut per_pool = vec![0u64; self.pools.len()];
            let mut surcharge = 0;
            for (j, &(p, share)) in self.jobs.iter().enumerate() {
                per_pool[p as usize] += per_job[j];
                surcharge += per_job[j].saturating_sub(share) as i64;
            }
            let mut through = [0u64; 2];
            for (p, &(must, flex, g)) in self.pools.iter().enumerate() {
                let beyond = per_pool[p].saturating_sub(must);
                if beyond > flex {
                    return None;
                }
                through[g] += beyond;
            }
            (through[0] <= self.groups[0] && through[1] <= self.groups[1]).then_some(surcharge)
        }
    }

    /// (placed, Σ offset + pair cost + job surcharges) of an assignment under `front`,
    /// checking capacities, arcs and quotas.
    fn quota_objective(
        node_rack: &[u32],
        free: &[u32],
        tasks: &[TaskArcs],
        at: &[Option<u32>],
        front: &Front,
    ) -> (usize, i64) {
        let (placed, cost) = objective(node_rack, free, tasks, at);
        let surcharge = front.admits(tasks, at).expect("the pool counts fit the quotas");
        (placed, cost + surcharge)
    }

    /// Every assignment of ≤ 6 tasks to ≤ 4 nodes (or none) that the quotas admit: the most
    /// placed, then the least cost with the job surcharges.
    fn brute_force_quotas(
        node_rack: &[u32],
        free: &[u32],
        tasks: &[TaskArcs],
        front: &Front,
    ) -> (usize, i64) {
        let mut best: Option<(usize, i64)> = None;
        let mut at = vec![None; tasks.len()];
        let mut room = free.to_vec();
        fn go(
            i: usize,
            node_rack: &[u32],
            room: &mut [u32],
            tasks: &[TaskArcs],
            at: &mut Vec<Option<u32>>,
            front: &Front,
            best: &mut Option<(usize, i64)>,
        ) {
            if i == tasks.len() {
                let Some(surcharge) = front.admits(tasks, at) else { return };
                let mut acc = (0usize, surcharge);
                for (task, node) in tasks.iter().zip(at.iter()) {
                    if let Some(n) = *node {
                        let c = pair_cost(task, n, node_rack[n as usize]).unwrap_or(0);
                        acc = (acc.0 + 1, acc.1 + task.offset + c);
                    }
                }
                if best.is_none_or(|b| acc.0 > b.0 || (acc.0 == b.0 && acc.1 < b.1)) {
                    *best = Some(acc);
                }
                return;
            }
            at[i] = None;
            go(i + 1, node_rack, room, tasks, at, front, best);
            for n in 0..room.len() {
                if room[n] == 0 || pair_cost(&tasks[i], n as u32, node_rack[n]).is_none() {
                    continue;
                }
                room[n] -= 1;
                at[i] = Some(n as u32);
                go(i + 1, node_rack, room, tasks, at, front, best);
                at[i] = None;
                room[n] += 1;
            }
        }
        go(0, node_rack, &mut room, tasks, &mut at, front, &mut best);
        best.unwrap_or((0, 0))
    }

    /// A random quota front: 1–3 pools, 1–4 jobs.
    fn random_front(next: &mut impl FnMut(u64) -> u64) -> Front {
        let pools = 1 + next(3) as usize;
        Front {
            pools: (0..pools).map(|_| (next(3), next(4), next(2) as usize)).collect(),
            groups: [next(5), next(5)],
            jobs: (0..1 + next(4)).map(|_| (next(pools as u64) as u32, next(3))).collect(),
        }
    }

    /// A flow with `front`'s pools, groups and jobs (handles in order).
    fn with_front(mut flow: IncrementalFlow, front: &Front) -> IncrementalFlow {
        flow = flow.with_quotas();
        flow.set_groups(front.groups);
        for (p, &(must, flex, g)) in front.pools.iter().enumerate() {
            flow.set_pool(p as u32, must, flex, g);
        }
        for (j, &(pool, share)) in front.jobs.iter().enumerate() {
            assert_eq!(flow.add_job(pool, share), JobHandle(j as u32));
        }
        flow
    }

    /// The doc example by hand, then quota edits: one node with 2 slots; pool 0 must take 1
    /// unit, job 0 (pool 0) has share 0, so its unit costs 1 more. Tasks cost 4 and 6 (base):
    /// the 4 is placed, total 5. Raising job 0's share to 1 drops the surcharge (total 4);
    /// pool 0 may take one more (flex 1 in group 0, group 0 carrying 1): both placed, the
    /// second beyond the share (4 + 6 + 1 = 11); group 0 back to 0: one placed again (4).
    #[test]
    fn quota_edits_move_the_units_by_hand() {
        let mut flow = IncrementalFlow::new(&[0], 1).with_quotas();
        flow.set_free(0, 2);
        flow.set_pool(0, 1, 0, 0);
        let job = flow.add_job(0, 0);
        flow.add_task(TaskArcs { base: Some(6), job: job.0, ..TaskArcs::default() });
        flow.add_task(TaskArcs { base: Some(4), job: job.0, ..TaskArcs::default() });
        assert!(flow.reoptimize(None));
        assert_eq!((flow.placed(), flow.total_cost()), (1, 5));
        assert!(flow.set_job_share(job, 1));
        assert!(flow.reoptimize(None));
        assert_eq!((flow.placed(), flow.total_cost()), (1, 4));
        flow.set_pool(0, 1, 1, 0);
        flow.set_groups([1, 0]);
        assert!(flow.reoptimize(None));
        assert_eq!((flow.placed(), flow.total_cost()), (2, 11));
        flow.set_groups([0, 0]);
        assert!(flow.reoptimize(None));
        assert_eq!((flow.placed(), flow.total_cost()), (1, 4));
        // A job with a task cannot go; its last task gone, it can.
        assert!(!flow.remove_job(job));
    }

    /// Two pools of one job each, one slot: pool 0 must take it, although pool 1's task is
    /// cheaper (quotas are hard, lsap_quota step 1); when the must moves to pool 1 so does
    /// the slot.
    #[test]
    fn a_must_unit_beats_a_cheaper_task_of_another_pool() {
        let mut flow = IncrementalFlow::filling_slots(&[0], 1).with_quotas();
        flow.set_free(0, 1);
        flow.set_pool(0, 1, 0, 0);
        flow.set_pool(1, 0, 0, 0);
        let a = flow.add_job(0, 1);
        let b = flow.add_job(1, 1);
        let ta = flow.add_task(TaskArcs { base: Some(9), job: a.0, ..TaskArcs::default() });
        let tb = flow.add_task(TaskArcs { base: Some(1), job: b.0, ..TaskArcs::default() });
        assert!(flow.reoptimize(None));
        let at = flow.placement();
        assert_eq!((at[ta.0 as usize], at[tb.0 as usize]), (Some(0), None));
        assert_eq!(flow.total_cost(), 9);
        flow.set_pool(0, 0, 0, 0);
        flow.set_pool(1, 1, 0, 0);
        assert!(flow.reoptimize(None));
        let at = flow.placement();
        assert_eq!((at[ta.0 as usize], at[tb.0 as usize]), (None, Some(0)));
        assert_eq!(flow.total_cost(), 1);
        assert!(flow.remove_task(tb));
        assert!(flow.remove_job(b));
        assert!(flow.reoptimize(None));
        assert_eq!((flow.placed(), flow.total_cost()), (0, 0));
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

        /// Tiny cases under lsap_quota's front (≤ 6 tasks, ≤ 4 nodes, ≤ 3 pools, ≤ 4 jobs)
        /// against every assignment the quotas admit, after each edit (tasks, slots, a pool's
        /// units, the groups', a job's share), from either start.
        #[test]
        fn matches_brute_force_under_quotas(seed in proptest::prelude::any::<u64>()) {
            let mut next = xorshift(seed);
            let nodes = 1 + next(4) as usize;
            let node_rack: Vec<u32> = (0..nodes as u32).map(|n| n / 2).collect();
            let racks = nodes.div_ceil(2);
            let mut front = random_front(&mut next);
            let mut flow = with_front(if next(2) == 0 {
                IncrementalFlow::new(&node_rack, racks)
            } else {
                IncrementalFlow::filling_slots(&node_rack, racks)
            }, &front);
            let mut free = vec![0u32; nodes];
            let mut handles: Vec<TaskHandle> = Vec::new();
            for _ in 0..12 {
                match next(7) {
                    0 | 1 if handles.len() < 6 => {
                        let job = next(front.jobs.len() as u64) as u32;
                        let task = TaskArcs { job, ..random_task(&mut next, nodes, racks) };
                        handles.push(flow.add_task(task));
                    }
                    0..=2 if !handles.is_empty() => {
                        let h = handles.remove(next(handles.len() as u64) as usize);
                        proptest::prop_assert!(flow.remove_task(h));
                    }
                    3 => {
                        let p = next(front.pools.len() as u64) as usize;
                        front.pools[p] = (next(3), next(4), next(2) as usize);
                        let (must, flex, g) = front.pools[p];
                        flow.set_pool(p as u32, must, flex, g);
                    }
                    4 => {
                        front.groups = [next(5), next(5)];
                        flow.set_groups(front.groups);
                    }
                    5 => {
                        let j = next(front.jobs.len() as u64) as usize;
                        front.jobs[j].1 = next(3);
                        proptest::prop_assert!(flow.set_job_share(JobHandle(j as u32), front.jobs[j].1));
                    }
                    _ => {
                        let n = next(nodes as u64) as usize;
                        free[n] = next(3) as u32;
                        flow.set_free(n as u32, free[n]);
                    }
                }
                proptest::prop_assert!(flow.reoptimize(None));
                let (tasks, at) = live(&flow);
                let got = quota_objective(&node_rack, &free, &tasks, &at, &front);
                proptest::prop_assert_eq!(got, brute_force_quotas(&node_rack, &free, &tasks, &front));
                proptest::prop_assert_eq!(
                    (flow.placed() as usize, flow.total_cost()),
                    (got.0, i128::from(got.1))
                );
            }
        }

        /// Sequences of random edits under lsap_quota's front on up to 16 nodes: tasks added,
        /// removed and replaced (their job, offset and level surcharges with them), slots
        /// set, a pool's units, the groups', a job's share changed, jobs removed and added
        /// (handles reused): after each reoptimize the count placed and the integer cost
        /// equal a cold structured solve's under the same quotas, and every capacity and
        /// quota holds.
        #[test]
        fn matches_a_cold_solve_under_quotas(seed in proptest::prelude::any::<u64>()) {
            let mut next = xorshift(seed);
            let nodes = 1 + next(16) as usize;
            let rack_size = 1 + next(4) as u32;
            let node_rack: Vec<u32> = (0..nodes as u32).map(|n| n / rack_size).collect();
            let racks = nodes.div_ceil(rack_size as usize);
            let mut front = random_front(&mut next);
            for p in &mut front.pools {
                p.0 *= 2;
                p.1 *= 2;
            }
            let mut flow = with_front(if next(2) == 0 {
                IncrementalFlow::new(&node_rack, racks)
            } else {
                IncrementalFlow::filling_slots(&node_rack, racks)
            }, &front);
            let mut live_jobs: Vec<bool> = vec![true; front.jobs.len()];
            let mut free = vec![0u32; nodes];
            for (n, f) in free.iter_mut().enumerate() {
                *f = next(3) as u32;
                flow.set_free(n as u32, *f);
            }
            let mut handles: Vec<(TaskHandle, u32)> = Vec::new();
            let random_job = |next: &mut dyn FnMut(u64) -> u64, live: &[bool]| {
                let alive: Vec<u32> = (0..live.len() as u32).filter(|&j| live[j as usize]).collect();
                (!alive.is_empty()).then(|| alive[next(alive.len() as u64) as usize])
            };
            for _step in 0..10 {
                for _ in 0..(1 + next(5)) {
                    match next(9) {
                        0 | 1 => {
                            if let Some(job) = random_job(&mut next, &live_jobs) {
                                let task = TaskArcs { job, ..random_task(&mut next, nodes, racks) };
                                handles.push((flow.add_task(task), job));
                            }
                        }
                        2 if !handles.is_empty() => {
                            let (h, _) = handles.remove(next(handles.len() as u64) as usize);
                            proptest::prop_assert!(flow.remove_task(h));
                        }
                        3 if !handles.is_empty() => {
                            let i = next(handles.len() as u64) as usize;
                            let job = handles[i].1;
                            let arcs = TaskArcs { job, ..random_task(&mut next, nodes, racks) };
                            let h = flow.replace_task(handles[i].0, arcs);
                            proptest::prop_assert!(h.is_some());
                            handles[i].0 = h.unwrap_or(handles[i].0);
                        }
                        4 => {
                            let p = next(front.pools.len() as u64) as usize;
                            front.pools[p] = (next(5), next(6), next(2) as usize);
                            let (must, flex, g) = front.pools[p];
                            flow.set_pool(p as u32, must, flex, g);
                        }
                        5 => {
                            front.groups = [next(8), next(8)];
                            flow.set_groups(front.groups);
                        }
                        6 => {
                            if let Some(j) = random_job(&mut next, &live_jobs) {
                                front.jobs[j as usize].1 = next(4);
                                let share = front.jobs[j as usize].1;
                                proptest::prop_assert!(flow.set_job_share(JobHandle(j), share));
                            }
                        }
                        7 => {
                            // A job without tasks leaves, or a new one comes (a vacant
                            // handle first).
                            let idle = random_job(&mut next, &live_jobs)
                                .filter(|&j| handles.iter().all(|h| h.1 != j));
                            if let Some(j) = idle.filter(|_| next(2) == 0) {
                                proptest::prop_assert!(flow.remove_job(JobHandle(j)));
                                live_jobs[j as usize] = false;
                                front.jobs[j as usize].1 = 0;
                            } else {
                                let pool = next(front.pools.len() as u64) as u32;
                                let share = next(4);
                                let j = flow.add_job(pool, share).0 as usize;
                                if j == front.jobs.len() {
                                    front.jobs.push((pool, share));
                                    live_jobs.push(true);
                                }
                                front.jobs[j] = (pool, share);
                                live_jobs[j] = true;
                            }
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
                let got = quota_objective(&node_rack, &free, &tasks, &at, &front);
                let slots = Slots { node_rack: &node_rack, free: &free, racks };
                let cold = solve(slots, &tasks, Some(&front.quotas()));
                let want = quota_objective(&node_rack, &free, &tasks, &cold.node_of_task, &front);
                proptest::prop_assert_eq!(got, want);
                proptest::prop_assert_eq!(
                    (flow.placed() as usize, flow.total_cost()),
                    (got.0, i128::from(got.1))
                );
            }
        }
    }
}
