//! Step 1 of the epoch pipeline (docs/architecture.md, "The epoch pipeline"): a validated snapshot
//! with its string ids resolved to dense indices, free slots counted per node and kind (lsap-sched
//! §3.2: the idle slot set IS), and the bandwidth lookup. O(size of the snapshot).

use crate::csr::{Lists, SharedLists};
use crate::fair::job_limits;
use crate::network::Bandwidths;
use placer_models::{PlaceRequest, ReducePhase, Resolved, ShuffleSource, TaskKind};
use std::collections::HashMap;

/// The snapshot with every reference resolved.
#[derive(Debug)]
pub struct Indexed<'a> {
    /// The snapshot.
    pub req: &'a PlaceRequest,
    /// Rack index of each node.
    pub node_rack: Vec<u32>,
    /// Free slots per node, per kind (`[map, reduce]`).
    pub free: [Vec<u32>; 2],
    /// Pending task positions of each kind, in snapshot order.
    pub pending_of_kind: [Vec<usize>; 2],
    /// Pending task positions of each kind whose job is runnable (the tasks a policy may
    /// place), in snapshot order.
    pub eligible_of_kind: [Vec<usize>; 2],
    /// Whether each job is within its running-job limits ([`crate::fair::job_limits`]).
    pub runnable: Vec<bool>,
    /// Copy-compute splitting (FAIR §5.2): per node, how many copy-phase reducers one job may
    /// have there (`max_computing`), or `None` when the node has no CPAC.
    pub copy_limit: Vec<Option<u32>>,
    /// Copy-phase reducers running per (job, node), on CPAC nodes only.
    pub copying: HashMap<(u32, u32), u32>,
    /// Intermediate-space admission (FAIR §5.4): per node, its free space for map outputs in
    /// bytes (`resources.disk`), or `None` when unlimited.
    pub disk: Vec<Option<u64>>,
    /// Replica node indices per pending task (empty for reduces), in snapshot order: one flat
    /// array for all tasks (`Lists`; `replicas[t]` is task t's slice).
    pub replicas: Lists<u32>,
    /// Shuffle sources per pending task as (node index, bytes), merged per node and sorted by
    /// node (empty for maps).
    pub shuffle: SharedLists<(u32, u64)>,
    /// Job index of each pending task.
    pub pending_job: Vec<u32>,
    /// Job index of each running task.
    pub running_job: Vec<u32>,
    /// Pool index of each job.
    pub job_pool: Vec<u32>,
    /// Running tasks per job, per kind (`[map, reduce]`).
    pub job_running: [Vec<u32>; 2],
    /// Pending tasks per job, per kind (`[map, reduce]`).
    pub job_pending: [Vec<u32>; 2],
    /// Bandwidths between racks.
    pub bandwidths: Bandwidths,
}

/// The references of a snapshot looked up by id (for [`Indexed::new`], whose caller did not
/// keep [`placer_models::validate_resolved`]'s): unknown ones are [`Resolved::UNKNOWN`].
fn resolve(req: &PlaceRequest) -> Resolved {
    let racks = positions(req.cluster.racks.iter().map(|r| r.id.as_str()));
    let nodes = positions(req.cluster.nodes.iter().map(|n| n.id.as_str()));
    let pools = positions(req.pools.iter().map(|p| p.id.as_str()));
    let jobs = positions(req.jobs.iter().map(|j| j.id.as_str()));
    let at = |map: &foldhash::HashMap<&str, u32>, id: &str| {
        map.get(id).copied().unwrap_or(Resolved::UNKNOWN)
    };
    Resolved {
        node_rack: req.cluster.nodes.iter().map(|n| at(&racks, n.rack.as_str())).collect(),
        job_pool: req.jobs.iter().map(|j| at(&pools, j.pool.as_str())).collect(),
        pending_job: req.pending.iter().map(|t| at(&jobs, t.job.as_str())).collect(),
        replica_nodes: req
            .pending
            .iter()
            .flat_map(|t| t.replicas.iter().map(|r| at(&nodes, r)))
            .collect(),
        shuffle_nodes: req
            .pending
            .iter()
            .flat_map(|t| t.shuffle.iter().map(|s| at(&nodes, s.node.as_str())))
            .collect(),
        running_job: req.running.iter().map(|t| at(&jobs, t.job.as_str())).collect(),
        running_node: req.running.iter().map(|t| at(&nodes, t.node.as_str())).collect(),
    }
}

/// The position of each id (the fast seeded hasher: ids come from the request).
fn positions<'a>(ids: impl ExactSizeIterator<Item = &'a str>) -> foldhash::HashMap<&'a str, u32> {
    let mut map = foldhash::HashMap::with_capacity_and_hasher(ids.len(), Default::default());
    map.extend(ids.enumerate().map(|(i, id)| (id, i as u32)));
    map
}

impl<'a> Indexed<'a> {
    /// Indexes a snapshot that passed [`placer_models::validate`]. References that do not
    /// resolve (impossible after validation) are skipped rather than panicking.
    ///
    /// # Complexity
    /// O(size of the snapshot): one hash lookup per reference.
    pub fn new(req: &'a PlaceRequest) -> Self {
        Self::with_resolved(req, resolve(req))
    }

    /// Indexes a snapshot with the references [`placer_models::validate_resolved`] found (no
    /// lookup by id again). References that are [`Resolved::UNKNOWN`], or missing from a
    /// `resolved` of another snapshot, are skipped (replicas, shuffle sources, a running task's
    /// node) or read as position 0 (a job, pool or rack) rather than panicking.
    ///
    /// # Complexity
    /// O(size of the snapshot).
    pub fn with_resolved(req: &'a PlaceRequest, resolved: Resolved) -> Self {
        let Resolved {
            node_rack,
            job_pool,
            pending_job,
            replica_nodes,
            shuffle_nodes,
            running_job,
            running_node,
        } = resolved;
        let or_zero = |x: Option<&u32>| x.copied().filter(|&x| x != Resolved::UNKNOWN).unwrap_or(0);
        let node_rack: Vec<u32> =
            (0..req.cluster.nodes.len()).map(|n| or_zero(node_rack.get(n))).collect();
        let mut free: [Vec<u32>; 2] =
            TaskKind::ALL.map(|kind| req.cluster.nodes.iter().map(|n| n.slots(kind)).collect());
        let copy_limit: Vec<Option<u32>> = req
            .cluster
            .nodes
            .iter()
            .map(|n| n.cpac().then(|| n.max_computing.unwrap_or(n.reduce_slots)))
            .collect();
        let disk: Vec<Option<u64>> = req.cluster.nodes.iter().map(|n| n.disk()).collect();
        let mut copying: HashMap<(u32, u32), u32> = HashMap::new();
        let running_job: Vec<u32> =
            (0..req.running.len()).map(|t| or_zero(running_job.get(t))).collect();
        for (i, t) in req.running.iter().enumerate() {
            let j = running_job[i];
            let n = running_node.get(i).copied().unwrap_or(Resolved::UNKNOWN);
            if (n as usize) < req.cluster.nodes.len() {
                let slot = &mut free[t.kind.slot()][n as usize];
                *slot = slot.saturating_sub(1);
                let copy_phase = t.phase.unwrap_or_default() == ReducePhase::Copy;
                if t.kind == TaskKind::Reduce && copy_phase && copy_limit[n as usize].is_some() {
                    *copying.entry((j, n)).or_insert(0) += 1;
                }
            }
        }

        let mut pending_of_kind: [Vec<usize>; 2] = [Vec::new(), Vec::new()];
        let replica_count = req.pending.iter().map(|t| t.replicas.len()).sum();
        let mut replicas = Lists::with_capacity(req.pending.len(), replica_count);
        let mut shuffle = SharedLists::with_capacity(req.pending.len());
        let pending_job: Vec<u32> =
            (0..req.pending.len()).map(|t| or_zero(pending_job.get(t))).collect();
        let known = |&n: &u32| n != Resolved::UNKNOWN && (n as usize) < req.cluster.nodes.len();
        let (mut at_replica, mut at_source) = (0, 0);
        // The last pending task with shuffle sources: (task, its range in `shuffle_nodes`).
        let mut previous_sources: Option<(usize, usize, usize)> = None;
        for (i, t) in req.pending.iter().enumerate() {
            pending_of_kind[t.kind.slot()].push(i);
            let k = t.replicas.len();
            let listed = replica_nodes.get(at_replica..at_replica + k).unwrap_or(&[]);
            replicas.push(listed.iter().copied().filter(known));
            at_replica += k;
            let k = t.shuffle.len();
            let listed = shuffle_nodes.get(at_source..at_source + k).unwrap_or(&[]);
            // Reduces of one job often list the same sources with the same bytes as the
            // previous task that had sources: its merged list is shared, not merged again.
            let same = k > 0
                && previous_sources.is_some_and(|(p, from, to)| {
                    shuffle_nodes.get(from..to) == Some(listed)
                        && req.pending.get(p).is_some_and(|before| {
                            before
                                .shuffle
                                .iter()
                                .map(|s| s.bytes)
                                .eq(t.shuffle.iter().map(|s| s.bytes))
                        })
                });
            match previous_sources {
                Some((p, _, _)) if same => shuffle.repeat(p),
                _ => shuffle.push_with(|items| merge_sources(items, listed, &t.shuffle, known)),
            }
            if k > 0 {
                previous_sources = Some((i, at_source, at_source + k));
            }
            at_source += k;
        }
        let job_pool: Vec<u32> = (0..req.jobs.len()).map(|j| or_zero(job_pool.get(j))).collect();
        let mut job_running = [vec![0; req.jobs.len()], vec![0; req.jobs.len()]];
        for (t, task) in req.running.iter().enumerate() {
            if let Some(c) = job_running[task.kind.slot()].get_mut(running_job[t] as usize) {
                *c += 1;
            }
        }
        let mut job_pending = [vec![0; req.jobs.len()], vec![0; req.jobs.len()]];
        for (t, task) in req.pending.iter().enumerate() {
            if let Some(c) = job_pending[task.kind.slot()].get_mut(pending_job[t] as usize) {
                *c += 1;
            }
        }
        let active: Vec<bool> = (0..req.jobs.len())
            .map(|j| {
                TaskKind::ALL
                    .iter()
                    .any(|&k| job_running[k.slot()][j] + job_pending[k.slot()][j] > 0)
            })
            .collect();
        let runnable = job_limits::runnable(req, &active, &job_pool);
        let eligible_of_kind = pending_of_kind.clone().map(|tasks| {
            tasks.into_iter().filter(|&t| runnable[pending_job[t] as usize]).collect()
        });
        let racks = positions(req.cluster.racks.iter().map(|r| r.id.as_str()));
        let bandwidths = Bandwidths::new(&req.cluster.network, req.cluster.racks.len(), |id| {
            racks.get(id).copied()
        });
        Self {
            req,
            node_rack,
            free,
            pending_of_kind,
            eligible_of_kind,
            runnable,
            copy_limit,
            copying,
            disk,
            replicas,
            shuffle,
            pending_job,
            running_job,
            job_pool,
            job_running,
            job_pending,
            bandwidths,
        }
    }

    /// Number of racks.
    pub fn racks(&self) -> usize {
        self.req.cluster.racks.len()
    }

    /// How many more copy-phase reducers job `j` may start on `node` (FAIR §5.2 CPAC);
    /// `u32::MAX` on a node without CPAC.
    pub fn copy_room(&self, j: u32, node: u32) -> u32 {
        match self.copy_limit[node as usize] {
            None => u32::MAX,
            Some(limit) => limit.saturating_sub(self.copying.get(&(j, node)).copied().unwrap_or(0)),
        }
    }

    /// Whether any node limits its intermediate space (`resources.disk`, FAIR §5.4).
    pub fn has_disk(&self) -> bool {
        self.disk.iter().any(Option::is_some)
    }

    /// Pending task `t`'s expected map output in bytes (0 for reduces).
    #[inline]
    pub fn output(&self, t: usize) -> u64 {
        self.req.pending[t].output_bytes
    }

    /// Whether `node`'s free intermediate space could hold pending task `t`'s output at all
    /// (the pairwise part of [`crate::fair::disk`]): always for a reduce or a node without `disk`.
    #[inline]
    pub fn disk_admits(&self, t: usize, node: u32) -> bool {
        self.disk[node as usize].is_none_or(|d| self.output(t) <= d)
    }

    /// Whether any node has copy-compute splitting admission.
    pub fn has_cpac(&self) -> bool {
        self.copy_limit.iter().any(Option::is_some)
    }

    /// Pending tasks of job `j` of a kind that it may place (0 when not runnable).
    pub fn job_demand_pending(&self, k: usize, j: usize) -> u32 {
        if self.runnable[j] {
            self.job_pending[k][j]
        } else {
            0
        }
    }

    /// Total free slots of a kind.
    pub fn free_slots(&self, kind: TaskKind) -> u64 {
        self.free[kind.slot()].iter().map(|&f| u64::from(f)).sum()
    }
}

/// Appends a reduce's shuffle sources to `items` as (node index, bytes), merged per node and
/// sorted by node; `listed` holds the resolved node of each entry of `sources`, and those
/// `known` rejects are left out. Lists already in strictly ascending node order (a
/// simulator's, say) are taken as they are.
///
/// # Complexity
/// O(k) for a sorted list of k sources, else O(k log k).
fn merge_sources(
    items: &mut Vec<(u32, u64)>,
    listed: &[u32],
    sources: &[ShuffleSource],
    known: impl Fn(&u32) -> bool,
) {
    let start = items.len();
    items.extend(listed.iter().zip(sources).filter(|(n, _)| known(n)).map(|(&n, s)| (n, s.bytes)));
    let Some(list) = items.get_mut(start..) else { return };
    if list.windows(2).all(|w| w[0].0 < w[1].0) {
        return;
    }
    list.sort_unstable_by_key(|&(n, _)| n);
    // Equal nodes are adjacent now: fold each run into its first entry.
    let mut kept = 1;
    for i in 1..list.len() {
        if list[i].0 == list[kept - 1].0 {
            list[kept - 1].1 = list[kept - 1].1.saturating_add(list[i].1);
        } else {
            list[kept] = list[i];
            kept += 1;
        }
    }
    items.truncate(start + kept);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sources(bytes: &[u64]) -> Vec<ShuffleSource> {
        bytes.iter().map(|&b| ShuffleSource { node: "n".into(), bytes: b }).collect()
    }

    #[test]
    fn sources_are_merged_per_node_and_sorted() {
        // A reduce listing node 2 twice (3 + 4 bytes), node 0 once and an unknown node.
        let mut items = vec![(9, 9)];
        let listed = [2, 0, Resolved::UNKNOWN, 2];
        merge_sources(&mut items, &listed, &sources(&[3, 5, 7, 4]), |&n| n != Resolved::UNKNOWN);
        assert_eq!(items, [(9, 9), (0, 5), (2, 7)]);
    }

    #[test]
    fn sorted_sources_are_taken_as_they_are() {
        let mut items = Vec::new();
        merge_sources(&mut items, &[0, 1, 4], &sources(&[1, 2, 3]), |_| true);
        assert_eq!(items, [(0, 1), (1, 2), (4, 3)]);
        merge_sources(&mut items, &[], &[], |_| true);
        assert_eq!(items.len(), 3);
    }

    #[test]
    fn equal_consecutive_reduces_share_one_list() {
        // Two reduces of j0 reading the same bytes from the same two nodes, then one that
        // reads other bytes: the first two share their list, the third has its own; a map,
        // then a reduce equal to the third, which shares the third's.
        let body = r#"{"schema_version": 1,
            "cluster": {"racks": [{"id": "r"}], "nodes": [
                {"id": "a", "rack": "r", "map_slots": 1, "reduce_slots": 1},
                {"id": "b", "rack": "r", "map_slots": 1, "reduce_slots": 1}]},
            "pools": [{"id": "p"}], "jobs": [{"id": "j0", "pool": "p"}],
            "pending": [
                {"id": "r0", "job": "j0", "kind": "reduce",
                 "shuffle": [{"node": "b", "bytes": 2}, {"node": "a", "bytes": 1}]},
                {"id": "r1", "job": "j0", "kind": "reduce",
                 "shuffle": [{"node": "b", "bytes": 2}, {"node": "a", "bytes": 1}]},
                {"id": "r2", "job": "j0", "kind": "reduce",
                 "shuffle": [{"node": "b", "bytes": 3}, {"node": "a", "bytes": 1}]},
                {"id": "m0", "job": "j0", "kind": "map", "input_bytes": 5, "replicas": ["a"]},
                {"id": "r3", "job": "j0", "kind": "reduce",
                 "shuffle": [{"node": "b", "bytes": 3}, {"node": "a", "bytes": 1}]}]}"#;
        let req = placer_models::parse_request(body.as_bytes()).unwrap();
        let resolved = placer_models::validate_resolved(&req).unwrap();
        let ix = Indexed::with_resolved(&req, resolved);
        assert_eq!(&ix.shuffle[0], &[(0, 1), (1, 2)]);
        assert!(ix.shuffle.shared(0, 1));
        assert_eq!(&ix.shuffle[2], &[(0, 1), (1, 3)]);
        assert!(!ix.shuffle.shared(1, 2));
        // A map between two equal reduces: the second shares the first's list, not the map's.
        assert!(ix.shuffle[3].is_empty());
        assert_eq!(&ix.shuffle[4], &[(0, 1), (1, 3)]);
        assert!(ix.shuffle.shared(2, 4));
        assert_eq!(Indexed::new(&req).shuffle, ix.shuffle);
    }
}
