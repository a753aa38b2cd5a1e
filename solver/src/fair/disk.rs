//! Intermediate-space admission (FAIR, Zaharia et al., §5.4: "the node will refuse to admit
//! tasks that are expected to overflow its disk"): a map writes its output (`pending[].
//! output_bytes`) to the local disk of the node it runs on, so a node with
//! `resources.disk` = d bytes free for map outputs takes a map only while the outputs of the
//! maps placed on it *in this answer* fit in d (d is already net of what runs there; the
//! master reports it). Nodes without `disk` are unlimited; reduces and maps with no output
//! always fit.
//!
//! Two parts, enforced where each belongs:
//! - **Pairwise**: map t is never a candidate on node n when `output(t) > disk(n)`
//!   ([`crate::index::Indexed::disk_admits`]). The heartbeat policies (`fifo`, `fair`,
//!   `delay`, `dl_sched`) skip such tasks when a slot is offered; the exact front door
//!   ([`crate::exact::solve()`]) leaves the pair out of the problem: the structured flow
//!   gives a map that some free node refuses explicit arcs to the nodes that admit it instead
//!   of its rack and cluster arcs, and the dense engines see a penalty on refused pairs larger
//!   than any assignment of admitted ones, so that they maximise the admitted placements and
//!   the penalised ones are dropped. The exact policies are therefore exact for the pairwise
//!   part: the most placements, then the least cost, over admitted pairs (brute force agrees).
//! - **Cumulative**: the heartbeat policies track each node's space left as they hand out
//!   slots ([`Space`]), so they never overflow. Every policy's placement then goes through
//!   [`settle`] in the pipeline: in pending order it keeps each map that still fits its node
//!   and moves one that does not to the cheapest node with a free map slot that still holds it
//!   (ties to the lower node index), or leaves it waiting. For the exact policies this is where
//!   the cumulative part is enforced, so their answer is exact only for the pairwise part:
//!   when [`settle`] moves or drops a map, the answer's status becomes `heuristic`, and the
//!   state a policy echoed (`lsap_quota`'s delay levels) was computed before the move.
//!
//! A map left waiting says `disk` when a map slot is left free after the answer but its output
//! fits no node with a free map slot ([`settle`]'s `waits`).
//!
//! Example: node a has 100 MB free, node b none; maps t1 and t2 write 80 MB each. Either may
//! go to a (80 ≤ 100) but not both (160 > 100), and neither to b (80 > 0): one map is placed
//! on a, the other waits with reason `disk` (b's slot is free, and b cannot hold it).

use crate::cost::LocalityCost;
use crate::index::Indexed;
use placer_models::TaskKind;

/// Each node's free intermediate space left while slots are handed out.
#[derive(Clone, Debug)]
pub struct Space {
    left: Vec<Option<u64>>,
}

impl Space {
    /// Every node's `resources.disk` (`None`: unlimited). O(nodes).
    pub fn new(ix: &Indexed<'_>) -> Self {
        Self { left: ix.disk.clone() }
    }

    /// Whether pending task `t`'s output fits what is left on `node`: always for a node
    /// without `disk` or a task without output.
    ///
    /// # Complexity
    /// O(1).
    ///
    /// # Errors
    /// None: `node` must be a node index and `t` a pending position (else it panics).
    ///
    /// # Examples
    /// FAIR §5.4: node a has 100 bytes free for map outputs, node b has no `disk` (unlimited).
    /// Two maps of 80 bytes: the first fits a, the second no longer does; b takes both.
    /// ```
    /// use placer_solver::{fair::disk::Space, Indexed};
    /// let req = placer_models::parse_request(br#"{"schema_version": 1,
    ///   "cluster": {"racks": [{"id": "r"}], "nodes": [
    ///     {"id": "a", "rack": "r", "map_slots": 2, "resources": {"disk": 100}},
    ///     {"id": "b", "rack": "r", "map_slots": 2}]},
    ///   "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}],
    ///   "pending": [{"id": "t1", "job": "j", "kind": "map", "output_bytes": 80},
    ///               {"id": "t2", "job": "j", "kind": "map", "output_bytes": 80}]}"#).unwrap();
    /// placer_models::validate(&req).unwrap();
    /// let ix = Indexed::new(&req);
    /// let (a, b, t1, t2) = (0, 1, 0, 1);
    /// let mut space = Space::new(&ix);
    /// assert!(space.fits(&ix, t1, a));
    /// space.take(&ix, t1, a);
    /// assert!(!space.fits(&ix, t2, a));
    /// assert!(space.fits(&ix, t2, b));
    /// ```
    #[inline]
    pub fn fits(&self, ix: &Indexed<'_>, t: usize, node: u32) -> bool {
        self.left[node as usize].is_none_or(|d| ix.output(t) <= d)
    }

    /// Records pending task `t` placed on `node`: its output is taken from the node's space
    /// (floored at 0). O(1); infallible. See [`Space::fits`]'s example.
    #[inline]
    pub fn take(&mut self, ix: &Indexed<'_>, t: usize, node: u32) {
        if let Some(d) = &mut self.left[node as usize] {
            *d = d.saturating_sub(ix.output(t));
        }
    }

    /// The most space left on any node for which `open` holds; `None` when one of them is
    /// unlimited, `Some(0)` when there is none. O(nodes).
    fn most(&self, mut open: impl FnMut(usize) -> bool) -> Option<u64> {
        let mut most = Some(0);
        for (n, &left) in self.left.iter().enumerate() {
            if open(n) {
                most = match (most, left) {
                    (Some(m), Some(l)) => Some(m.max(l)),
                    _ => None,
                };
            }
        }
        most
    }
}

/// Whether pending task `t` of `kind` fits, pairwise, on at least one node with a free slot
/// of the kind: the tasks an exact policy can place at all (`lsap_quota` counts only these as
/// placeable when it sizes its pool quotas).
///
/// # Complexity
/// O(nodes) to build, O(1) per call.
///
/// # Errors
/// None.
///
/// # Examples
/// See the module docs: with a's 100 bytes and b's 0 (both with a free map slot), a map of
/// 80 bytes fits somewhere, one of 120 bytes nowhere.
/// ```
/// use placer_models::TaskKind;
/// use placer_solver::{fair::disk, Indexed};
/// let req = placer_models::parse_request(br#"{"schema_version": 1,
///   "cluster": {"racks": [{"id": "r"}], "nodes": [
///     {"id": "a", "rack": "r", "map_slots": 1, "resources": {"disk": 100}},
///     {"id": "b", "rack": "r", "map_slots": 1, "resources": {"disk": 0}}]},
///   "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}],
///   "pending": [{"id": "t1", "job": "j", "kind": "map", "output_bytes": 80},
///               {"id": "t2", "job": "j", "kind": "map", "output_bytes": 120}]}"#).unwrap();
/// placer_models::validate(&req).unwrap();
/// let ix = Indexed::new(&req);
/// let fits = disk::fits_somewhere(&ix, TaskKind::Map);
/// assert!(fits(0) && !fits(1));
/// ```
pub fn fits_somewhere<'i>(ix: &'i Indexed<'_>, kind: TaskKind) -> impl Fn(usize) -> bool + 'i {
    let free = &ix.free[kind.slot()];
    let most = Space::new(ix).most(|n| free[n] > 0);
    move |t| most.is_none_or(|m| ix.output(t) <= m)
}

/// What [`settle`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settled {
    /// Maps moved to another node, by pending position, in pending order.
    pub moved: Vec<usize>,
    /// Maps taken off their node with nowhere else to go, by pending position.
    pub dropped: Vec<usize>,
    /// Per pending task: it waits for intermediate space (a map slot is left free after the
    /// answer, but its output fits no node with one). Empty when no node has `disk`.
    pub waits: Vec<bool>,
}

impl Settled {
    /// Whether the placement was changed.
    pub fn changed(&self) -> bool {
        !self.moved.is_empty() || !self.dropped.is_empty()
    }
}

/// Makes a placement respect every node's intermediate space (the cumulative part, see the
/// module docs): maps in pending order keep their node while their output fits what the maps
/// before them left there; a map that does not fit moves to the cheapest node (locality cost,
/// ties to the lower index) with a free map slot and room for it, else waits. Then marks the
/// maps that wait for space. A no-op when no node has `disk`.
///
/// # Complexity
/// O(pending + nodes) plus O(nodes · replicas) per map that does not fit its node.
///
/// # Errors
/// None: a map that cannot be placed waits.
///
/// # Examples
/// The module docs' example, as an exact solve might leave it: both maps on a (100 bytes
/// free, 80 each). t1 stays, t2 does not fit any more and b (0 bytes) cannot hold it: it
/// waits for space.
/// ```
/// use placer_solver::{LocalityCost, fair::disk, Indexed};
/// let req = placer_models::parse_request(br#"{"schema_version": 1,
///   "cluster": {"racks": [{"id": "r"}], "nodes": [
///     {"id": "a", "rack": "r", "map_slots": 2, "resources": {"disk": 100}},
///     {"id": "b", "rack": "r", "map_slots": 1, "resources": {"disk": 0}}]},
///   "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}],
///   "pending": [{"id": "t1", "job": "j", "kind": "map", "output_bytes": 80},
///               {"id": "t2", "job": "j", "kind": "map", "output_bytes": 80}]}"#).unwrap();
/// placer_models::validate(&req).unwrap();
/// let ix = Indexed::new(&req);
/// let model = LocalityCost::new(&ix);
/// let mut node_of_task = vec![Some(0), Some(0)];
/// let settled = disk::settle(&ix, &model, &mut node_of_task);
/// assert_eq!(node_of_task, vec![Some(0), None]);
/// assert_eq!((settled.moved, settled.dropped), (vec![], vec![1]));
/// assert_eq!(settled.waits, vec![false, true]);
/// ```
pub fn settle(
    ix: &Indexed<'_>,
    model: &LocalityCost<'_, '_>,
    node_of_task: &mut [Option<u32>],
) -> Settled {
    let mut settled = Settled::default();
    if !ix.has_disk() {
        return settled;
    }
    let maps = &ix.pending_of_kind[TaskKind::Map.slot()];
    let mut free = ix.free[TaskKind::Map.slot()].clone();
    let mut space = Space::new(ix);
    let mut misfits = Vec::new();
    for &t in maps {
        let Some(n) = node_of_task[t] else { continue };
        if space.fits(ix, t, n) {
            space.take(ix, t, n);
            free[n as usize] = free[n as usize].saturating_sub(1);
        } else {
            node_of_task[t] = None;
            misfits.push(t);
        }
    }
    for t in misfits {
        let best = (0..free.len() as u32)
            .filter(|&n| free[n as usize] > 0 && space.fits(ix, t, n))
            .map(|n| (model.cost(t, n), n))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        match best {
            Some((_, n)) => {
                space.take(ix, t, n);
                free[n as usize] -= 1;
                node_of_task[t] = Some(n);
                settled.moved.push(t);
            }
            None => settled.dropped.push(t),
        }
    }
    let most = space.most(|n| free[n] > 0);
    let any_free = free.iter().any(|&f| f > 0);
    settled.waits = vec![false; node_of_task.len()];
    for &t in maps {
        if node_of_task[t].is_none() && any_free && most.is_some_and(|m| ix.output(t) > m) {
            settled.waits[t] = true;
        }
    }
    settled
}
