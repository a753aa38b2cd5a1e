//! placer's structured exact placement (docs/architecture.md, "The exact engines"; the network of
//! Quincy and Firmament applied to lsap-sched's cost, Guo, Fox, Zhou eq. 1): instead of the
//! dense task × slot matrix, one min-cost flow over a network linear in the snapshot:
//!
//! ```text
//! S ─(1, o_t)→ task ─(1, on_node cost)→ node ─(free slots, 0)→ T
//!                   ─(1, rack cost)───→ rack q ─(∞, 0)→ nodes of q
//!                   ─(1, base)────────→ cluster ─(∞, 0)→ every rack
//! ```
//!
//! where a task's [`TaskArcs`] give the exact cost on the nodes holding its data, on the
//! racks where it is cheaper than its largest per-rack cost (`base`), and `base` everywhere
//! else; o_t ≥ 0 is a per-task offset (`lsap_fair`'s FC − ageing, shifted). Every path from a
//! task to a node costs at least the true cost of that pair, and the true cost is the cheapest
//! path, so a minimum-cost maximum flow is an optimal rectangular assignment: the same
//! objective as the dense LSAP on `placer export-matrix`, without padding.
//!
//! This is an engine: it knows integer costs, nodes, racks and (for `lsap_quota`) pools and
//! jobs, never a snapshot, a cost model or a policy. `exact` turns a snapshot's
//! seconds into [`TaskArcs`]; [`crate::flow::dense_adapter`] turns a dense matrix into them
//! (every column a node of its own, no rack or cluster arc) for the conformance suite.
//!
//! Solve: a maximum matching over zero-cost node-local pairs and the no-preference tasks are
//! pushed first (a flow of cost 0 is optimal for its value), then
//! [`Network::solve_fixed_sink`] fills what is left one deficit at a time (every slot —
//! or, reversed, every task — that the fuller side must fill: a shortest path from it back to
//! the source, which stays near it; primal–dual phases where ties make them cheaper, as on
//! dense reduce rows), falling back to plain successive shortest paths if a deficit cannot be
//! reached. Memory O(tasks · (replicas + listed racks) + nodes + racks).
//! Time O(F · E log V) in the worst case for the F units left after the greedy seed.
//!
//! Tasks are interchangeable when their arcs are identical, as slots on a node are: a job's
//! reduces that read the same map outputs cost the same on every node. A run of consecutive
//! such tasks (long rows only, never a zero-cost seed or a no-preference task) shares one
//! vertex whose arcs carry as many units as it has members, and the flow on each arc goes
//! back to the members in task order. A job of 1,200 reduces reading from 600 nodes is then
//! 600 arcs instead of 720,000, with the same optimum; finding the runs holds one row.

use super::graph::{FlowBuilder, Network};
use super::zero_matching::max_matching;
use crate::cancel::Cancel;
use crate::csr::Lists;
use placer_models::Status;

/// The slot side of the network: nodes, their racks and free slots.
#[derive(Clone, Copy, Debug)]
pub struct Slots<'a> {
    /// Rack of each node.
    pub node_rack: &'a [u32],
    /// Free slots of each node (a node with 0 is left out of the network).
    pub free: &'a [u32],
    /// Number of racks (every `node_rack` entry is below it).
    pub racks: usize,
}

/// One task's arcs, in integer cost units (all ≥ 0).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TaskArcs {
    /// Cost of entering the task (S → task, or job → task under quotas).
    pub offset: i64,
    /// (node, cost) for the nodes holding its data.
    pub on_node: Vec<(u32, i64)>,
    /// (rack, cost) for the racks where it is cheaper than `base`.
    pub racks: Vec<(u32, i64)>,
    /// The cost on any other node; `None`: no other node may take it.
    pub base: Option<i64>,
    /// Its job (the pool → job → task arcs under [`Quotas`]; ignored without).
    pub job: u32,
}

/// What stands between the source and the tasks for `lsap_quota` (see
/// `policy::lsap_quota`): S → pool (its `must` units), S → flex group g (`groups[g]`
/// units) → pool (its `flex` units), pool → job (`job_share` units free, any more at a cost of
/// one unit each), job → task.
#[derive(Clone, Debug)]
pub struct Quotas {
    /// Per pool: units it must receive.
    pub must: Vec<u64>,
    /// Per pool: (units it may receive beyond `must`, its flex group 0 or 1).
    pub flex: Vec<(u64, usize)>,
    /// Units through each flex group.
    pub groups: [u64; 2],
    /// Per job: its pool.
    pub job_pool: Vec<u32>,
    /// Per job: units within its fair share.
    pub job_share: Vec<u64>,
}

/// The answer of [`solve`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructuredSolution {
    /// The node of each task (by position in the `tasks` given), or `None`.
    pub node_of_task: Vec<Option<u32>>,
    /// `optimal` (a minimum-cost maximum flow), or `time_limited` when cancelled.
    pub status: Status,
}

/// The labels (dual potentials) that a solve leaves on the network's lasting vertices —
/// source, sink, cluster, racks and nodes, which the next epoch's network has again — for
/// the next solve of a similar network to start from ([`solve_warm`]: the
/// reuse of dual values across scheduling rounds that Firmament's incremental solvers make).
/// In the caller's integer cost units, on the network the right way round (source → sink).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Potentials {
    /// The source's label.
    pub source: i64,
    /// The sink's label.
    pub sink: i64,
    /// The cluster aggregator's label.
    pub cluster: i64,
    /// Per rack.
    pub racks: Vec<i64>,
    /// Per node id (a node without a free slot is not in the network and keeps its label).
    pub nodes: Vec<i64>,
}

impl Potentials {
    /// Zero labels for `slots`' racks and nodes (what a cold solve starts from).
    pub fn zeros(slots: Slots<'_>) -> Self {
        Self { racks: vec![0; slots.racks], nodes: vec![0; slots.free.len()], ..Self::default() }
    }

    /// Every label × `factor`, rounded (the next epoch's cost units may differ).
    pub fn rescaled(&self, factor: f64) -> Self {
        let f = |x: i64| {
            let y = (x as f64 * factor).round();
            let bound = (1u64 << 53) as f64;
            if y.is_finite() {
                y.clamp(-bound, bound) as i64
            } else {
                0
            }
        };
        Self {
            source: f(self.source),
            sink: f(self.sink),
            cluster: f(self.cluster),
            racks: self.racks.iter().map(|&x| f(x)).collect(),
            nodes: self.nodes.iter().map(|&x| f(x)).collect(),
        }
    }
}

/// lsap_quota's arcs between the source and the jobs.
struct Front {
    /// Per pool: S → pool.
    must: Vec<usize>,
    /// Per pool: (S → its group, group → pool).
    flex: Vec<Option<(usize, usize)>>,
    /// Per job: (its pool, pool → job within the share).
    share: Vec<(usize, Option<usize>)>,
}

impl Front {
    /// Adds the arcs; `at` = (S, first pool vertex, first job vertex, first group vertex).
    /// In [`FlowBuilder`]'s counting pass the ids kept are meaningless.
    fn build(g: &mut FlowBuilder, q: &Quotas, cap: i64, at: (usize, usize, usize, usize)) -> Self {
        let (s, pool_v0, job_v0, group_v0) = at;
        let units = |x: u64| i64::try_from(x).unwrap_or(i64::MAX).min(cap);
        let groups = [0, 1].map(|x| g.add_arc(s, group_v0 + x, units(q.groups[x]), 0));
        let mut must = Vec::with_capacity(q.must.len());
        let mut flex = Vec::with_capacity(q.must.len());
        for (p, (&m, &(f, group))) in q.must.iter().zip(&q.flex).enumerate() {
            must.push(g.add_arc(s, pool_v0 + p, units(m), 0));
            flex.push(
                (f > 0).then(|| {
                    (groups[group], g.add_arc(group_v0 + group, pool_v0 + p, units(f), 0))
                }),
            );
        }
        let share = q
            .job_share
            .iter()
            .enumerate()
            .map(|(j, &within)| {
                let p = q.job_pool[j] as usize;
                let within = units(within);
                let arc = (within > 0).then(|| g.add_arc(pool_v0 + p, job_v0 + j, within, 0));
                g.add_arc(pool_v0 + p, job_v0 + j, cap, 1);
                (p, arc)
            })
            .collect();
        Self { must, flex, share }
    }

    /// Pushes one unit from S to job `j` at cost 0 if the quotas have room; false otherwise.
    fn enter(&self, g: &mut Network, j: usize) -> bool {
        let (p, share) = self.share[j];
        let Some(share) = share.filter(|&a| g.residual(a) > 0) else { return false };
        if g.residual(self.must[p]) > 0 {
            g.push(self.must[p], 1);
        } else if let Some((group, arc)) =
            self.flex[p].filter(|&(group, arc)| g.residual(group) > 0 && g.residual(arc) > 0)
        {
            g.push(group, 1);
            g.push(arc, 1);
        } else {
            return false;
        }
        g.push(share, 1);
        true
    }
}

/// Where a class's units went.
#[derive(Clone, Copy)]
enum Out {
    Node(u32),
    Rack(u32),
    Cluster,
}

/// What the seeds need of a task once its arcs are in the network.
#[derive(Clone, Copy)]
struct Head {
    offset: i64,
    base: Option<i64>,
    job: u32,
}

/// A task with at least this many listed nodes and racks may share its vertex with the tasks
/// whose arcs are identical (a job's reduces reading the same map outputs from every node);
/// shorter rows are rarely identical and cheap to keep apart.
const CLASS_MIN_ARCS: usize = 8;

/// Half-arcs per vertex that the tasks' arcs add, counted by [`seeds_alone`]'s pass over
/// `arcs_of` for the network's [`FlowBuilder`] (so that `arcs_of` runs at most twice), and the
/// task classes: consecutive tasks with identical arcs are interchangeable (the same cost on
/// every node, the same job), so they share one vertex whose arcs carry as many units as the
/// class has members. A class of k reduces that read from every node then costs one row of arcs instead
/// of k, and its units move together in the searches.
#[derive(Clone, Debug, Default)]
struct Degrees {
    /// Per class: its out-arcs kept (listed nodes with a free slot, listed racks with such a
    /// node, the cluster arc).
    task_out: Vec<u32>,
    /// Per class: its job.
    task_job: Vec<u32>,
    /// Per class: its members (tasks).
    members: Vec<u32>,
    /// Per task: its class; classes are numbered in the order of their first member.
    class_of: Vec<u32>,
    /// Whether tasks may share a vertex (the property tests turn it off for a reference).
    sharing: bool,
    /// The previous task's arcs when it may share (a long row, not a seed): the next task
    /// joins its class if identical. Only runs of consecutive tasks share (a job's reduces
    /// come together), so one row is held, never every task's.
    last: Option<TaskArcs>,
    /// Per node id: task arcs into it.
    node_in: Vec<u32>,
    /// Per rack: task arcs into it.
    rack_in: Vec<u32>,
    /// Task arcs into the cluster vertex.
    cluster_in: usize,
    /// The zero-cost matching when [`seeds_alone`] computed it (the network starts from
    /// it rather than matching again).
    seeded: Option<Vec<Option<u32>>>,
}

impl Degrees {
    /// Empty counts for `nodes` nodes and `racks` racks.
    fn new(nodes: usize, racks: usize, count: usize) -> Self {
        Self {
            task_out: Vec::new(),
            task_job: Vec::new(),
            members: Vec::new(),
            class_of: Vec::with_capacity(count),
            sharing: true,
            last: None,
            node_in: vec![0; nodes],
            rack_in: vec![0; racks],
            cluster_in: 0,
            seeded: None,
        }
    }

    /// Whether `task` may join a class of identical tasks: a long row, and neither a
    /// zero-cost pair nor a no-preference task (the seeds place those one by one).
    fn may_share(task: &TaskArcs) -> bool {
        let seedable =
            task.offset == 0 && (task.base == Some(0) || task.on_node.iter().any(|&(_, c)| c == 0));
        !seedable && task.on_node.len() + task.racks.len() >= CLASS_MIN_ARCS
    }

    /// Counts the next task's arcs, as [`network`] adds them, unless the task just before
    /// has the same arcs and may share (it joins that one's class, the last one). Takes the
    /// row so that a long one is kept as `last` without a copy. O(its arcs).
    fn add(&mut self, task: TaskArcs, free: &[u32], rack_has_node: &[bool]) {
        let class = self.members.len() as u32;
        let shares = self.sharing && Self::may_share(&task);
        if shares && self.last.as_ref() == Some(&task) {
            self.members[class as usize - 1] += 1;
            self.class_of.push(class - 1);
            return;
        }
        self.class_of.push(class);
        self.members.push(1);
        let mut outs = 0u32;
        for &(n, _) in &task.on_node {
            if free[n as usize] > 0 {
                self.node_in[n as usize] += 1;
                outs += 1;
            }
        }
        for &(q, _) in &task.racks {
            if rack_has_node[q as usize] {
                self.rack_in[q as usize] += 1;
                outs += 1;
            }
        }
        if task.base.is_some() {
            self.cluster_in += 1;
            outs += 1;
        }
        self.task_out.push(outs);
        self.task_job.push(task.job);
        self.last = shares.then_some(task);
    }

    /// The number of classes (the network's task vertices).
    fn classes(&self) -> usize {
        self.members.len()
    }

    /// The tasks of each class, in task order (CSR over classes).
    fn member_lists(&self) -> Lists<u32> {
        let mut at: Vec<usize> = Vec::with_capacity(self.classes() + 1);
        at.push(0);
        for &k in &self.members {
            at.push(at[at.len() - 1] + k as usize);
        }
        let mut next = at.clone();
        let mut flat = vec![0u32; self.class_of.len()];
        for (i, &c) in self.class_of.iter().enumerate() {
            flat[next[c as usize]] = i as u32;
            next[c as usize] += 1;
        }
        let mut lists = Lists::with_capacity(self.classes(), flat.len());
        for c in 0..self.classes() {
            lists.push(flat[at[c]..at[c + 1]].iter().copied());
        }
        lists
    }

    /// The task arcs' half-arcs, into pass 1 of `b` (vertices as [`network`] numbers them).
    fn count_into(&self, b: &mut FlowBuilder, at: Layout<'_>) {
        for (c, (&outs, &job)) in self.task_out.iter().zip(&self.task_job).enumerate() {
            let from = at.job_v0.map_or(at.s, |j0| j0 + job as usize);
            b.add_degree(from, 1);
            b.add_degree(at.task_v0 + c, 1 + outs as usize);
        }
        for (n, &k) in self.node_in.iter().enumerate() {
            if k > 0 {
                b.add_degree(at.node_v[n], k as usize);
            }
        }
        for (q, &k) in self.rack_in.iter().enumerate() {
            b.add_degree(at.rack_v0 + q, k as usize);
        }
        b.add_degree(at.cluster, self.cluster_in);
    }
}

/// Where [`network`] numbers its vertices, for [`Degrees::count_into`].
#[derive(Clone, Copy)]
struct Layout<'a> {
    s: usize,
    cluster: usize,
    rack_v0: usize,
    node_v: &'a [usize],
    task_v0: usize,
    /// Under quotas: the first job vertex (tasks enter from their job, not from S).
    job_v0: Option<usize>,
}

/// The number of vertices V of the network for `tasks` tasks: V = 3 (S, T, the cluster
/// aggregator) + racks + nodes with a free slot + tasks, plus pools + jobs + 2 flex groups
/// under [`Quotas`]. The caller sizes its integer costs with it: a path visits each vertex at
/// most once, so no path costs more than V × the largest arc cost.
///
/// # Complexity
/// O(nodes) time (counting the nodes with a free slot), O(1) space.
///
/// # Errors
/// None: a count.
///
/// # Examples
/// lsap-sched's Fig. 1: nodes A and B in one rack, one free slot each, tasks T1 and T2:
/// V = 3 + 1 rack + 2 nodes + 2 tasks = 8.
/// ```
/// use placer_solver::flow::structured::{vertex_count, Slots};
/// let slots = Slots { node_rack: &[0, 0], free: &[1, 1], racks: 1 };
/// assert_eq!(vertex_count(slots, 2, None), 8);
/// ```
pub fn vertex_count(slots: Slots<'_>, tasks: usize, quotas: Option<&Quotas>) -> usize {
    let nodes = slots.free.iter().filter(|&&f| f > 0).count();
    let front = quotas.map_or(0, |q| q.must.len() + q.job_share.len() + 2);
    3 + slots.racks + nodes + tasks + front
}

/// A minimum-cost maximum flow of `tasks` into `slots`: the node of each placed task.
///
/// The placed count is min(tasks, free slots) whenever every task may reach every node (a
/// `base` for each), and the maximum possible otherwise; among placements of that count the
/// total Σ_t (o_t + c(t, n_t)) is least, in the caller's integer cost units, where
/// c(t, n) = `on_node` cost if listed, else the `racks` cost of n's rack if listed, else
/// `base` (plus, under [`Quotas`], one unit per job unit beyond its share).
///
/// Runs of consecutive tasks with identical arcs (at least 8 listed nodes and racks, neither a
/// zero-cost pair nor offset and base 0) share one vertex of their count's capacity: the same
/// optimum, from a network with one row per class.
///
/// # Complexity
/// Time O(F · E log V) in the worst case for the F units left after the zero-cost seed (each
/// search stays near its deficit in practice, see [`Network::solve_fixed_sink`]); memory
/// O(V + E) with V = [`vertex_count`] and E = Σ (listed nodes + listed racks + 2) + nodes +
/// racks, summed over task classes (a run of identical tasks counts once), plus O(tasks) to
/// find the classes.
///
/// # Errors
/// None: a task that cannot be placed is `None` in the answer. Costs must be ≥ 0 and their
/// sums must fit in i64 (the caller's quantum sees to it); this is not checked.
///
/// # Examples
/// lsap-sched's Fig. 1 as arcs: nodes A (0) and B (1) in one rack with one free slot each;
/// T1's block is on A and B, T2's only on A; reading it anywhere else costs 1 unit (`base`).
/// dl-sched's greedy T1 → A would leave T2 a remote read (total 1); the flow places both
/// node-local, T1 → B and T2 → A (total 0).
/// ```
/// use placer_models::Status;
/// use placer_solver::flow::structured::{solve, Slots, TaskArcs};
/// let slots = Slots { node_rack: &[0, 0], free: &[1, 1], racks: 1 };
/// let t1 = TaskArcs { on_node: vec![(0, 0), (1, 0)], base: Some(1), ..TaskArcs::default() };
/// let t2 = TaskArcs { on_node: vec![(0, 0)], base: Some(1), ..TaskArcs::default() };
/// let answer = solve(slots, &[t1, t2], None);
/// assert_eq!(answer.node_of_task, vec![Some(1), Some(0)]); // T1 → B, T2 → A
/// assert_eq!(answer.status, Status::Optimal);
/// ```
pub fn solve(slots: Slots<'_>, tasks: &[TaskArcs], quotas: Option<&Quotas>) -> StructuredSolution {
    solve_with(slots, tasks.len(), |i| tasks[i].clone(), quotas, None)
}

/// [`solve`], polling `cancel` once per augmentation, phase or blocking-flow push
/// ([`Network::set_cancel`]):
/// when it reports cancelled the answer is the flow so far (the zero-cost seeds plus the
/// augmentations done, every capacity and quota respected), `status: time_limited`.
///
/// # Complexity
/// As [`solve`], plus O(1) per poll.
///
/// # Errors
/// None, as [`solve`].
pub fn solve_cancellable(
    slots: Slots<'_>,
    tasks: &[TaskArcs],
    quotas: Option<&Quotas>,
    cancel: Option<&Cancel>,
) -> StructuredSolution {
    solve_with(slots, tasks.len(), |i| tasks[i].clone(), quotas, cancel)
}

/// [`solve_cancellable`] with task i's arcs made on demand by `arcs_of(i)`, each dropped as soon as it is
/// used: the caller never holds every task's arcs at once, and the network is built only when
/// the zero-cost seeds leave work to do (bounded memory). The answer is
/// [`solve`]'s on the same arcs. `arcs_of` is called once per task, or twice per task when the
/// network is built.
///
/// When the seeds alone (the zero-cost matching, then the tasks that cost 0 anywhere) place
/// min(tasks, free slots) tasks, that flow is maximum and of cost 0, so optimal, and it is the
/// answer [`solve`] would give (its searches would find nothing to do): it is returned without
/// the network, from O(tasks + Σ zero-cost pairs) memory.
///
/// # Complexity
/// As [`solve`]; memory O(V + E) for the network alone, the arcs of one task at a time, and
/// O(tasks + Σ zero-cost pairs) when the seeds suffice.
///
/// # Errors
/// None, as [`solve`].
///
/// # Examples
/// lsap-sched's Fig. 1 as in [`solve`], the arcs made on the fly (here the seeds suffice):
/// ```
/// use placer_solver::flow::structured::{solve_with, Slots, TaskArcs};
/// let slots = Slots { node_rack: &[0, 0], free: &[1, 1], racks: 1 };
/// let replicas = [vec![0u32, 1], vec![0]];
/// let arcs_of = |i: usize| TaskArcs {
///     on_node: replicas[i].iter().map(|&n| (n, 0)).collect(), base: Some(1), ..TaskArcs::default() };
/// assert_eq!(solve_with(slots, 2, arcs_of, None, None).node_of_task, vec![Some(1), Some(0)]);
/// ```
pub fn solve_with(
    slots: Slots<'_>,
    count: usize,
    arcs_of: impl Fn(usize) -> TaskArcs,
    quotas: Option<&Quotas>,
    cancel: Option<&Cancel>,
) -> StructuredSolution {
    solve_warm(slots, count, arcs_of, quotas, cancel, None)
}

/// [`solve_with`], its searches started from `warm`'s labels when given (warm starts):
/// the network's lasting vertices take the labels an earlier solve left, every new vertex
/// (tasks, lsap_quota's pools and jobs) a label above them all, and
/// [`Network::solve_fixed_sink_warm`] lowers them until they are feasible. The placement
/// is a minimum-cost maximum flow as [`solve_with`]'s, though it may be another of equal
/// cost. On return `warm` holds the labels this solve left (unchanged when the seeds alone
/// decided; reset to zeros first when its sizes do not match `slots`).
///
/// # Complexity
/// As [`solve_with`], plus O(degree) per label the repair lowers.
///
/// # Errors
/// None, as [`solve`].
///
/// # Examples
/// lsap-sched's Fig. 1 as in [`solve`], twice, the second solve starting from the first's
/// labels:
/// ```
/// use placer_solver::flow::structured::{solve_warm, Potentials, Slots, TaskArcs};
/// let slots = Slots { node_rack: &[0, 0], free: &[1, 1], racks: 1 };
/// let t1 = TaskArcs { on_node: vec![(0, 0), (1, 0)], base: Some(1), ..TaskArcs::default() };
/// let t2 = TaskArcs { on_node: vec![(0, 0)], base: Some(1), ..TaskArcs::default() };
/// let tasks = [t1, t2];
/// let mut warm = Potentials::zeros(slots);
/// for _ in 0..2 {
///     let answer = solve_warm(slots, 2, |i| tasks[i].clone(), None, None, Some(&mut warm));
///     assert_eq!(answer.node_of_task, vec![Some(1), Some(0)]);
/// }
/// ```
pub fn solve_warm(
    slots: Slots<'_>,
    count: usize,
    arcs_of: impl Fn(usize) -> TaskArcs,
    quotas: Option<&Quotas>,
    cancel: Option<&Cancel>,
    warm: Option<&mut Potentials>,
) -> StructuredSolution {
    let mut degrees = match seeds_alone(slots, count, &arcs_of, quotas) {
        Ok(answer) => return answer,
        Err(degrees) => *degrees,
    };
    degrees.last = None;
    network(slots, count, arcs_of, quotas, degrees, cancel, warm)
}

/// [`solve_with`] on the whole network, laid out by a [`FlowBuilder`] whose counting pass
/// takes the tasks' arcs from `degrees` (so `arcs_of` runs once here). If `arcs_of` gives
/// other arcs than it gave for `degrees` (outside its contract) the network cannot be laid
/// out and no task is placed (`time_limited`: valid, not minimal).
///
/// Complexity: as [`solve`]; 40 bytes per arc.
fn network(
    slots: Slots<'_>,
    count: usize,
    arcs_of: impl Fn(usize) -> TaskArcs,
    quotas: Option<&Quotas>,
    degrees: Degrees,
    cancel: Option<&Cancel>,
    warm: Option<&mut Potentials>,
) -> StructuredSolution {
    let free = slots.free;
    let mut node_of_task = vec![None; count];
    let cap = count as i64;
    let nodes: Vec<u32> = (0..free.len() as u32).filter(|&n| free[n as usize] > 0).collect();
    if count == 0 || nodes.is_empty() {
        return StructuredSolution { node_of_task, status: Status::Optimal };
    }

    // Vertices: S, T, cluster, racks, nodes, tasks.
    let racks = slots.racks;
    let (s, t_sink, cluster) = (0usize, 1usize, 2usize);
    let rack_v = |q: u32| 3 + q as usize;
    let mut node_v = vec![usize::MAX; free.len()];
    for (i, &n) in nodes.iter().enumerate() {
        node_v[n as usize] = 3 + racks + i;
    }
    let task_v0 = 3 + racks + nodes.len();
    // One vertex per task class (a task alone, or identical tasks sharing it).
    let classes = degrees.classes();
    let members = degrees.member_lists();
    // lsap_quota's pools, jobs and two flex groups follow the tasks.
    let pool_v0 = task_v0 + classes;
    let job_v0 = pool_v0 + quotas.map_or(0, |q| q.must.len());
    let group_v0 = job_v0 + quotas.map_or(0, |q| q.job_share.len());
    let mut rack_has_node = vec![false; racks];
    for &n in &nodes {
        rack_has_node[slots.node_rack[n as usize] as usize] = true;
    }
    // Two passes over the same arcs: count the half-arcs of each vertex (the tasks' from
    // `degrees`), then lay them out straight into their rows.
    let mut b = FlowBuilder::new(vertex_count(slots, classes, quotas));
    let layout =
        Layout { s, cluster, rack_v0: 3, node_v: &node_v, task_v0, job_v0: quotas.map(|_| job_v0) };
    let mut node_arc = vec![usize::MAX; free.len()];
    let mut rack_node_arc = vec![usize::MAX; free.len()];
    let mut rack_node_arcs: Vec<Vec<(usize, u32)>> = vec![Vec::new(); racks];
    let mut cluster_rack_arc = vec![usize::MAX; racks];
    let mut cluster_rack_arcs: Vec<(usize, u32)> = Vec::new();
    let mut front = None;
    for pass in 0..2 {
        if pass == 1 {
            b.lay_out();
        }
        rack_node_arcs.iter_mut().for_each(Vec::clear);
        cluster_rack_arcs.clear();
        for &n in &nodes {
            let q = slots.node_rack[n as usize];
            node_arc[n as usize] =
                b.add_arc(node_v[n as usize], t_sink, i64::from(free[n as usize]).min(cap), 0);
            let a = b.add_arc(rack_v(q), node_v[n as usize], cap, 0);
            rack_node_arc[n as usize] = a;
            rack_node_arcs[q as usize].push((a, n));
        }
        for q in 0..racks as u32 {
            if rack_has_node[q as usize] {
                let a = b.add_arc(cluster, rack_v(q), cap, 0);
                cluster_rack_arc[q as usize] = a;
                cluster_rack_arcs.push((a, q));
            }
        }
        front = quotas.map(|q| Front::build(&mut b, q, cap, (s, pool_v0, job_v0, group_v0)));
        if pass == 0 {
            degrees.count_into(&mut b, layout);
        }
    }
    let seeded = degrees.seeded;
    // Cursor over nodes with room, for seeding tasks that cost 0 anywhere.
    let mut anywhere = 0usize;

    // Class c's row: its source arc's twin, then its out-arcs (nodes, racks, cluster, in that
    // order), each carrying up to its k members; where an out-arc leads is read back from the
    // network. Tasks come in order, so a class is laid out at its first member.
    let mut heads: Vec<Head> = Vec::with_capacity(classes);
    let mut zero_pairs: Lists<u32> = Lists::with_capacity(count, 0);
    // The largest arc cost (a label above every lasting one by more is feasible on all arcs
    // out of a new vertex).
    let mut widest = 1i64;
    for i in 0..count {
        let c = degrees.class_of[i] as usize;
        if c < heads.len() {
            // A later member of a class laid out already (never a zero-cost pair).
            if seeded.is_none() {
                zero_pairs.push(std::iter::empty());
            }
            continue;
        }
        let task = arcs_of(i);
        widest = widest.max(task.offset).max(task.base.unwrap_or(0));
        widest = task.on_node.iter().chain(&task.racks).fold(widest, |w, &(_, c)| w.max(c));
        let v = task_v0 + c;
        let k = i64::from(members[c].len() as u32);
        let o = task.offset;
        let from = match quotas {
            Some(_) => job_v0 + task.job as usize,
            None => s,
        };
        b.add_arc(from, v, k, o);
        for &(n, units) in &task.on_node {
            if node_v[n as usize] != usize::MAX {
                b.add_arc(v, node_v[n as usize], k, units);
            }
        }
        if seeded.is_none() {
            zero_pairs.push(task.on_node.iter().filter_map(|&(n, units)| {
                (o == 0 && units == 0 && node_v[n as usize] != usize::MAX).then_some(n)
            }));
        }
        for &(q, units) in &task.racks {
            if rack_has_node[q as usize] {
                b.add_arc(v, rack_v(q), k, units);
            }
        }
        if let Some(base) = task.base {
            b.add_arc(v, cluster, k, base);
        }
        heads.push(Head { offset: o, base: task.base, job: task.job });
    }
    // Only if `arcs_of` gave other arcs the second time (outside its contract): no answer.
    let Some(mut g) = b.finish() else {
        return StructuredSolution { node_of_task, status: Status::TimeLimited };
    };
    g.set_cancel(cancel.cloned());
    // Class c's source arc and out-arcs, and where each out-arc leads (its end other than the
    // class's vertex).
    let source_arc = |g: &Network, i: usize| g.twin(g.row(task_v0 + i).start);
    let out_arcs = |g: &Network, i: usize| {
        let row = g.row(task_v0 + i);
        row.start + 1..row.end
    };
    let rack_end = 3 + racks;
    let leads = |g: &Network, i: usize, a: usize| -> Out {
        let (x, y) = g.ends(a);
        let w = if x == task_v0 + i { y } else { x };
        if w == cluster {
            Out::Cluster
        } else if w < rack_end {
            Out::Rack((w - 3) as u32)
        } else {
            Out::Node(nodes[w - rack_end])
        }
    };
    // Seed 1: a maximum matching over zero-cost node-local pairs (the one `seeds_alone`
    // found, if it ran that far).
    let seeded = seeded.unwrap_or_else(|| {
        max_matching(&zero_pairs, |n| free[n as usize].min(u32::try_from(cap).unwrap_or(u32::MAX)))
    });
    drop(zero_pairs);
    let enter = |g: &mut Network, c: usize| match &front {
        Some(f) => f.enter(g, heads[c].job as usize),
        None => true,
    };
    // (A task with a zero-cost pair is a class of its own, see `Degrees::may_share`.)
    for (i, node) in seeded.iter().enumerate() {
        let Some(n) = *node else { continue };
        let c = degrees.class_of[i] as usize;
        let Some(a) = out_arcs(&g, c).find(|&a| matches!(leads(&g, c, a), Out::Node(m) if m == n))
        else {
            continue;
        };
        if !enter(&mut g, c) {
            continue;
        }
        g.push(source_arc(&g, c), 1);
        g.push(a, 1);
        g.push(node_arc[n as usize], 1);
    }
    // Seed 2: a task that costs 0 on any node (no preference, a class of its own) takes any
    // slot left.
    for (i, task) in heads.iter().enumerate() {
        let source_arc = source_arc(&g, i);
        if task.offset != 0 || task.base != Some(0) || g.residual(source_arc) == 0 {
            continue;
        }
        let Some(a) = out_arcs(&g, i).next_back() else { continue };
        while anywhere < nodes.len() && g.residual(node_arc[nodes[anywhere] as usize]) == 0 {
            anywhere += 1;
        }
        if let Some(&n) = nodes.get(anywhere) {
            if !enter(&mut g, i) {
                continue;
            }
            let q = slots.node_rack[n as usize] as usize;
            for arc in [
                source_arc,
                a,
                cluster_rack_arc[q],
                rack_node_arc[n as usize],
                node_arc[n as usize],
            ] {
                g.push(arc, 1);
            }
        }
    }
    // Direction: the side with less room left fills completely (every task reaches every
    // node; lsap_quota's pool and group capacities only bound the source side), so search
    // from the other side with the full side as the fixed sink: from S when the tasks the
    // source can still send cover the free slots, else on the reversed network from T.
    // (When some task cannot reach some node, `solve_fixed_sink` notices and falls back.)
    let supply: i64 = g.residual_out(s);
    let slots_left: i64 = nodes.iter().map(|&n| g.residual(node_arc[n as usize])).sum();
    let forward = supply >= slots_left;
    match warm {
        None if forward => {
            g.solve_fixed_sink(s, t_sink);
        }
        None => {
            g.reverse();
            g.solve_fixed_sink(t_sink, s);
        }
        Some(warm) => {
            if warm.racks.len() != racks || warm.nodes.len() != free.len() {
                *warm = Potentials::zeros(slots);
            }
            // Lasting vertices from `warm`; new ones (tasks, lsap_quota's front) above them
            // all on the network as it is solved, so that the arcs leaving them are feasible:
            // above the highest when it runs forward, below the lowest the right way round
            // when it runs reversed (its labels are the negated ones).
            let lasting = [warm.source, warm.sink, warm.cluster].into_iter();
            let all = || {
                lasting.clone().chain(warm.racks.iter().copied()).chain(warm.nodes.iter().copied())
            };
            let step = widest.saturating_add(1);
            let fresh = if forward {
                all().max().unwrap_or(0).saturating_add(step)
            } else {
                all().min().unwrap_or(0).saturating_sub(step)
            };
            let mut labels = vec![fresh; g.vertex_count()];
            labels[s] = warm.source;
            labels[t_sink] = warm.sink;
            labels[cluster] = warm.cluster;
            labels[3..3 + racks].copy_from_slice(&warm.racks);
            for &n in &nodes {
                labels[node_v[n as usize]] = warm.nodes[n as usize];
            }
            if forward {
                g.solve_fixed_sink_warm(s, t_sink, &mut labels);
            } else {
                labels.iter_mut().for_each(|x| *x = -*x);
                g.reverse();
                g.solve_fixed_sink_warm(t_sink, s, &mut labels);
                labels.iter_mut().for_each(|x| *x = -*x);
            }
            warm.source = labels[s];
            warm.sink = labels[t_sink];
            warm.cluster = labels[cluster];
            warm.racks.copy_from_slice(&labels[3..3 + racks]);
            for &n in &nodes {
                warm.nodes[n as usize] = labels[node_v[n as usize]];
            }
        }
    }

    // Decompose: nodes each rack sends flow to, racks the cluster sends flow to.
    let mut supply: Vec<Vec<u32>> = vec![Vec::new(); racks];
    for (q, arcs) in rack_node_arcs.iter().enumerate() {
        for &(a, n) in arcs {
            for _ in 0..g.flow(a) {
                supply[q].push(n);
            }
        }
    }
    let mut via_cluster: Vec<u32> = Vec::new();
    for &(a, q) in &cluster_rack_arcs {
        for _ in 0..g.flow(a) {
            via_cluster.push(q);
        }
    }
    // Each class's units, in its out-arcs' order, to its members in task order.
    let mut cluster_tasks = Vec::new();
    for (c, tasks) in members.iter().enumerate() {
        let mut tasks = tasks.iter().map(|&i| i as usize);
        for a in out_arcs(&g, c) {
            let out = leads(&g, c, a);
            for i in tasks.by_ref().take(g.flow(a).max(0) as usize) {
                match out {
                    Out::Node(n) => node_of_task[i] = Some(n),
                    Out::Rack(q) => node_of_task[i] = supply[q as usize].pop(),
                    Out::Cluster => cluster_tasks.push(i),
                }
            }
        }
    }
    for i in cluster_tasks {
        if let Some(q) = via_cluster.pop() {
            node_of_task[i] = supply[q as usize].pop();
        }
    }
    let status = if g.was_cut() { Status::TimeLimited } else { Status::Optimal };
    StructuredSolution { node_of_task, status }
}

/// [`solve_with`]'s shortcut: the zero-cost seeds of [`solve`] run without the task → node
/// arcs (node rooms as counters, lsap_quota's front as a network of its own few arcs), and
/// their placement decomposed as [`solve`] decomposes it; or, when they place fewer than
/// min(tasks, free slots) tasks (the network is needed), the half-arcs the tasks' arcs will
/// add to each vertex of the network (empty when there are no tasks or free nodes).
///
/// Complexity: O(Σ arcs) time for one pass over `arcs_of`, plus the matching; memory
/// O(tasks + Σ zero-cost pairs + nodes + racks).
fn seeds_alone(
    slots: Slots<'_>,
    count: usize,
    arcs_of: &impl Fn(usize) -> TaskArcs,
    quotas: Option<&Quotas>,
) -> Result<StructuredSolution, Box<Degrees>> {
    let free = slots.free;
    let cap = count as i64;
    let nodes: Vec<u32> = (0..free.len() as u32).filter(|&n| free[n as usize] > 0).collect();
    if count == 0 || nodes.is_empty() {
        return Err(Box::default());
    }
    let mut rack_has_node = vec![false; slots.racks];
    for &n in &nodes {
        rack_has_node[slots.node_rack[n as usize] as usize] = true;
    }
    let mut degrees = Degrees::new(free.len(), slots.racks, count);
    let room_total: i64 = nodes.iter().map(|&n| i64::from(free[n as usize]).min(cap)).sum();
    let target = room_total.min(cap);
    let mut heads: Vec<Head> = Vec::with_capacity(count);
    let mut zero_pairs: Lists<u32> = Lists::with_capacity(count, 0);
    for task in (0..count).map(arcs_of) {
        zero_pairs.push(task.on_node.iter().filter_map(|&(n, units)| {
            (task.offset == 0 && units == 0 && free[n as usize] > 0).then_some(n)
        }));
        heads.push(Head { offset: task.offset, base: task.base, job: task.job });
        degrees.add(task, free, &rack_has_node);
    }
    // Tasks that could be seeded at all; too few means the network is needed.
    let candidates = (0..count)
        .filter(|&i| {
            let h = heads[i];
            !zero_pairs[i].is_empty() || (h.offset == 0 && h.base == Some(0))
        })
        .count() as i64;
    if candidates < target {
        return Err(Box::new(degrees));
    }
    let racks = slots.racks;
    let task_v0 = 3 + racks + nodes.len();
    let pool_v0 = task_v0 + count;
    let job_v0 = pool_v0 + quotas.map_or(0, |q| q.must.len());
    let group_v0 = job_v0 + quotas.map_or(0, |q| q.job_share.len());
    // lsap_quota's front as a network of its own few arcs (two passes, as in `network`).
    let mut b = FlowBuilder::new(vertex_count(slots, count, quotas));
    let mut front = None;
    for pass in 0..2 {
        if pass == 1 {
            b.lay_out();
        }
        front = quotas.map(|q| Front::build(&mut b, q, cap, (0, pool_v0, job_v0, group_v0)));
    }
    let Some(mut g) = b.finish() else { return Err(Box::new(degrees)) };
    let mut enter = |i: usize| match &front {
        Some(f) => f.enter(&mut g, heads[i].job as usize),
        None => true,
    };
    let mut room: Vec<i64> = free.iter().map(|&f| i64::from(f).min(cap)).collect();
    let mut node_of_task: Vec<Option<u32>> = vec![None; count];
    let mut placed = 0i64;
    // Seed 1: a maximum matching over zero-cost node-local pairs.
    let seeded =
        max_matching(&zero_pairs, |n| free[n as usize].min(u32::try_from(cap).unwrap_or(u32::MAX)));
    drop(zero_pairs);
    for (i, node) in seeded.iter().enumerate() {
        let Some(n) = *node else { continue };
        if !enter(i) {
            continue;
        }
        node_of_task[i] = Some(n);
        room[n as usize] -= 1;
        placed += 1;
    }
    // Seed 2: a task that costs 0 on any node takes any slot left, through the cluster and
    // its node's rack (as in `solve`, whose decomposition then reassigns those nodes).
    let mut anywhere = 0usize;
    let mut via_node = vec![0u32; free.len()];
    let mut via_rack = vec![0u32; racks];
    let mut cluster_tasks = Vec::new();
    for (i, h) in heads.iter().enumerate() {
        if h.offset != 0 || h.base != Some(0) || node_of_task[i].is_some() {
            continue;
        }
        while anywhere < nodes.len() && room[nodes[anywhere] as usize] == 0 {
            anywhere += 1;
        }
        let Some(&n) = nodes.get(anywhere) else { continue };
        if !enter(i) {
            continue;
        }
        room[n as usize] -= 1;
        via_node[n as usize] += 1;
        via_rack[slots.node_rack[n as usize] as usize] += 1;
        cluster_tasks.push(i);
        placed += 1;
    }
    if placed < target {
        degrees.seeded = Some(seeded);
        return Err(Box::new(degrees));
    }
    // Decompose as `solve` does: nodes each rack feeds (node order), racks the cluster feeds.
    let mut supply: Vec<Vec<u32>> = vec![Vec::new(); racks];
    for &n in &nodes {
        let q = slots.node_rack[n as usize] as usize;
        supply[q].extend(std::iter::repeat_n(n, via_node[n as usize] as usize));
    }
    let mut via_cluster: Vec<u32> = Vec::new();
    for (q, &units) in via_rack.iter().enumerate() {
        via_cluster.extend(std::iter::repeat_n(q as u32, units as usize));
    }
    for i in cluster_tasks {
        if let Some(q) = via_cluster.pop() {
            node_of_task[i] = supply[q as usize].pop();
        }
    }
    Ok(StructuredSolution { node_of_task, status: Status::Optimal })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A xorshift generator: `next(m)` is uniform-ish in 0..m.
    fn xorshift(seed: u64) -> impl FnMut(u64) -> u64 {
        let mut x = seed | 1;
        move |m| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        }
    }

    /// lsap_quota's front for pools 0 and 1 and jobs 0 (pool 0), 1 and 2 (pool 1).
    fn random_quotas(next: &mut impl FnMut(u64) -> u64) -> Quotas {
        Quotas {
            must: vec![next(6), next(6)],
            flex: vec![(next(8), 0), (next(8), 1)],
            groups: [next(10), next(10)],
            job_pool: vec![0, 1, 1],
            job_share: vec![next(6), next(6), next(6)],
        }
    }

    /// Σ (offset + cheapest path cost) over the placed tasks, plus one unit per job unit
    /// beyond its share under quotas; panics if a node takes more than its free slots.
    fn objective(
        slots: Slots<'_>,
        arcs: &[TaskArcs],
        quotas: Option<&Quotas>,
        answer: &StructuredSolution,
    ) -> (usize, i64) {
        let mut used = vec![0u32; slots.free.len()];
        let mut per_job = vec![0u64; quotas.map_or(0, |q| q.job_share.len())];
        let mut total = 0i64;
        for (task, node) in arcs.iter().zip(&answer.node_of_task) {
            let Some(n) = *node else { continue };
            used[n as usize] += 1;
            assert!(used[n as usize] <= slots.free[n as usize], "node {n} oversubscribed");
            let rack = slots.node_rack[n as usize];
            let on_node = task.on_node.iter().find(|p| p.0 == n).map(|p| p.1);
            let on_rack = task.racks.iter().find(|p| p.0 == rack).map(|p| p.1);
            let cost = [on_node, on_rack, task.base].into_iter().flatten().min();
            total += task.offset + cost.expect("a placed task has a path to its node");
            if quotas.is_some() {
                per_job[task.job as usize] += 1;
            }
        }
        if let Some(q) = quotas {
            for (j, &p) in per_job.iter().enumerate() {
                total += p.saturating_sub(q.job_share[j]) as i64;
            }
        }
        (answer.node_of_task.iter().flatten().count(), total)
    }

    /// Warm starts on a network solved reversed (more free slots than tasks): the same epoch
    /// again and again leaves labels of the size of its costs, not ones that grow by a cost
    /// each epoch (new vertices must start below the lasting ones there, as they are negated).
    #[test]
    fn warm_labels_stay_bounded_when_solved_reversed() {
        let node_rack: Vec<u32> = vec![0; 10];
        let free = vec![2u32; 10];
        let slots = Slots { node_rack: &node_rack, free: &free, racks: 1 };
        let tasks = |_: usize| TaskArcs { base: Some(1000), ..TaskArcs::default() };
        let mut warm = Potentials::zeros(slots);
        for _ in 0..8 {
            let answer = solve_warm(slots, 5, tasks, None, None, Some(&mut warm));
            assert_eq!(answer.node_of_task.iter().flatten().count(), 5);
        }
        let labels = [warm.source, warm.sink, warm.cluster];
        let all = labels.iter().chain(&warm.racks).chain(&warm.nodes);
        assert!(all.clone().all(|x| x.abs() <= 2000), "{warm:?}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]

        /// The seeds-only answer is the network's answer, node for node (the
        /// shortcut must not change a placement), with and without lsap_quota's front.
        #[test]
        fn seeds_alone_is_the_networks_answer(
            (nodes, tasks, seed, with_quotas) in
                (1usize..12, 1usize..40, proptest::prelude::any::<u64>(), proptest::prelude::any::<bool>())
        ) {
            let mut next = xorshift(seed);
            let node_rack: Vec<u32> = (0..nodes as u32).map(|n| n / 3).collect();
            let racks = nodes.div_ceil(3);
            let free: Vec<u32> = (0..nodes).map(|_| next(3) as u32).collect();
            let arcs: Vec<TaskArcs> = (0..tasks)
                .map(|_| {
                    let k = next(4) as usize;
                    let mut on_node: Vec<(u32, i64)> =
                        (0..k).map(|_| (next(nodes as u64) as u32, 0)).collect();
                    on_node.sort_unstable();
                    on_node.dedup_by_key(|p| p.0);
                    let base = if next(5) == 0 { 0 } else { 1 + next(9) as i64 };
                    TaskArcs { on_node, base: Some(base), job: next(3) as u32, ..TaskArcs::default() }
                })
                .collect();
            let quotas = Quotas {
                must: vec![next(4), next(4)],
                flex: vec![(next(6), 0), (next(6), 1)],
                groups: [next(8), next(8)],
                job_pool: vec![0, 1, 1],
                job_share: vec![next(5), next(5), next(5)],
            };
            let quotas = with_quotas.then_some(&quotas);
            let slots = Slots { node_rack: &node_rack, free: &free, racks };
            let arcs_of = |i: usize| arcs[i].clone();
            if let Ok(alone) = seeds_alone(slots, tasks, &arcs_of, quotas) {
                let mut rack_has_node = vec![false; racks];
                for (n, &f) in free.iter().enumerate() {
                    rack_has_node[node_rack[n] as usize] |= f > 0;
                }
                let mut degrees = Degrees::new(nodes, racks, tasks);
                for task in &arcs {
                    degrees.add(task.clone(), &free, &rack_has_node);
                }
                let full = network(slots, tasks, arcs_of, quotas, degrees, None, None);
                proptest::prop_assert_eq!(alone, full);
            }
        }

        /// Warm starts: over a run of epochs whose free slots and tasks
        /// change, each solve started from the labels the previous one left (the first from
        /// arbitrary labels) places as many tasks at the same cost as a cold solve, with and
        /// without lsap_quota's front.
        #[test]
        fn warm_starts_change_no_objective(
            (nodes, seed, with_quotas) in
                (1usize..16, proptest::prelude::any::<u64>(), proptest::prelude::any::<bool>())
        ) {
            let mut next = xorshift(seed);
            let node_rack: Vec<u32> = (0..nodes as u32).map(|n| n / 3).collect();
            let racks = nodes.div_ceil(3);
            let mut warm = Potentials {
                source: next(100) as i64 - 50,
                sink: next(100) as i64 - 50,
                cluster: next(100) as i64 - 50,
                racks: (0..racks).map(|_| next(100) as i64 - 50).collect(),
                nodes: (0..nodes).map(|_| next(100) as i64 - 50).collect(),
            };
            for _epoch in 0..5 {
                let free: Vec<u32> = (0..nodes).map(|_| next(3) as u32).collect();
                let tasks = 1 + next(30) as usize;
                let arcs: Vec<TaskArcs> = (0..tasks)
                    .map(|_| {
                        let mut on_node: Vec<(u32, i64)> = (0..next(4))
                            .map(|_| (next(nodes as u64) as u32, next(3) as i64))
                            .collect();
                        on_node.sort_unstable();
                        on_node.dedup_by_key(|p| p.0);
                        let q = next(racks as u64) as u32;
                        let racks_listed =
                            if next(2) == 0 { vec![(q, 2 + next(4) as i64)] } else { vec![] };
                        let base = (next(8) != 0).then(|| 4 + next(6) as i64);
                        let (offset, job) = (next(3) as i64, next(3) as u32);
                        TaskArcs { offset, on_node, racks: racks_listed, base, job }
                    })
                    .collect();
                let quotas = random_quotas(&mut next);
                let quotas = with_quotas.then_some(&quotas);
                let slots = Slots { node_rack: &node_rack, free: &free, racks };
                let cold = solve(slots, &arcs, quotas);
                let warmed =
                    solve_warm(slots, tasks, |i| arcs[i].clone(), quotas, None, Some(&mut warm));
                proptest::prop_assert_eq!(
                    objective(slots, &arcs, quotas, &warmed),
                    objective(slots, &arcs, quotas, &cold)
                );
            }
        }

        /// Identical tasks sharing one vertex (a job's reduces reading the same map outputs)
        /// place as many tasks at the same cost as the network with a vertex per task, with
        /// and without lsap_quota's front, and no node takes more than its free slots.
        #[test]
        fn task_classes_change_no_objective(
            (nodes, templates, tasks, seed, with_quotas) in (
                1usize..24,
                1usize..4,
                1usize..40,
                proptest::prelude::any::<u64>(),
                proptest::prelude::any::<bool>(),
            )
        ) {
            let mut next = xorshift(seed);
            let node_rack: Vec<u32> = (0..nodes as u32).map(|n| n / 4).collect();
            let racks = nodes.div_ceil(4);
            let free: Vec<u32> = (0..nodes).map(|_| next(4) as u32).collect();
            // Rows listing most nodes and some racks (long enough to share a vertex from about
            // 10 nodes on), some with a zero-cost node (never shared), drawn from a few
            // templates.
            let template = |next: &mut dyn FnMut(u64) -> u64| {
                let mut on_node: Vec<(u32, i64)> = Vec::new();
                for n in 0..nodes as u32 {
                    if next(4) != 0 {
                        on_node.push((n, if next(16) == 0 { 0 } else { 1 + next(8) as i64 }));
                    }
                }
                let mut racks_listed: Vec<(u32, i64)> = Vec::new();
                for q in 0..racks as u32 {
                    if next(2) == 0 {
                        racks_listed.push((q, 2 + next(8) as i64));
                    }
                }
                let base = (next(6) != 0).then(|| 3 + next(8) as i64);
                let (offset, job) = (next(3) as i64, next(3) as u32);
                TaskArcs { offset, on_node, racks: racks_listed, base, job }
            };
            let shapes: Vec<TaskArcs> = (0..templates).map(|_| template(&mut next)).collect();
            // Runs of 1–8 copies of a template (a job's reduces come together), now and then a
            // short row of its own between them.
            let mut arcs: Vec<TaskArcs> = Vec::with_capacity(tasks);
            while arcs.len() < tasks {
                if next(6) == 0 {
                    arcs.push(TaskArcs {
                        on_node: vec![(next(nodes as u64) as u32, next(3) as i64)],
                        base: Some(5),
                        job: next(3) as u32,
                        ..TaskArcs::default()
                    });
                    continue;
                }
                let shape = &shapes[next(templates as u64) as usize];
                let run = (1 + next(8) as usize).min(tasks - arcs.len());
                arcs.extend(std::iter::repeat_n(shape.clone(), run));
            }
            let quotas = random_quotas(&mut next);
            let quotas = with_quotas.then_some(&quotas);
            let slots = Slots { node_rack: &node_rack, free: &free, racks };
            let shared = solve(slots, &arcs, quotas);
            // The same network with a vertex per task.
            let mut rack_has_node = vec![false; racks];
            for (n, &f) in free.iter().enumerate() {
                rack_has_node[node_rack[n] as usize] |= f > 0;
            }
            let mut degrees = Degrees::new(nodes, racks, tasks);
            degrees.sharing = false;
            for task in &arcs {
                degrees.add(task.clone(), &free, &rack_has_node);
            }
            let apart = network(slots, tasks, |i| arcs[i].clone(), quotas, degrees, None, None);
            proptest::prop_assert_eq!(
                objective(slots, &arcs, quotas, &shared),
                objective(slots, &arcs, quotas, &apart)
            );
        }
    }
}
