//! Step 1 of the epoch pipeline (DESIGN.md §The epoch pipeline): a validated snapshot with its
//! string ids resolved to dense indices, free slots counted per node and kind (lsap-sched
//! §3.2: the idle slot set IS), and the bandwidth lookup. O(size of the snapshot).

use crate::csr::Lists;
use crate::job_limits;
use crate::network::Bandwidths;
use placer_models::{PlaceRequest, ReducePhase, TaskKind};
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
    /// Whether each job is within its running-job limits ([`crate::job_limits`]).
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
    /// array for all tasks ([`Lists`]; `replicas[t]` is task t's slice).
    pub replicas: Lists<u32>,
    /// Shuffle sources per pending task as (node index, bytes), merged per node and sorted by
    /// node (empty for maps).
    pub shuffle: Vec<Vec<(u32, u64)>>,
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

impl<'a> Indexed<'a> {
    /// Indexes a snapshot that passed [`placer_models::validate`]. References that do not
    /// resolve (impossible after validation) are skipped rather than panicking.
    pub fn new(req: &'a PlaceRequest) -> Self {
        let racks: HashMap<&str, u32> =
            req.cluster.racks.iter().enumerate().map(|(i, r)| (r.id.as_str(), i as u32)).collect();
        let nodes: HashMap<&str, u32> =
            req.cluster.nodes.iter().enumerate().map(|(i, n)| (n.id.as_str(), i as u32)).collect();
        let pools: HashMap<&str, u32> =
            req.pools.iter().enumerate().map(|(i, p)| (p.id.as_str(), i as u32)).collect();
        let jobs: HashMap<&str, u32> =
            req.jobs.iter().enumerate().map(|(i, j)| (j.id.as_str(), i as u32)).collect();

        let node_rack: Vec<u32> = req
            .cluster
            .nodes
            .iter()
            .map(|n| racks.get(n.rack.as_str()).copied().unwrap_or(0))
            .collect();
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
        let mut running_job = Vec::with_capacity(req.running.len());
        for t in &req.running {
            let j = jobs.get(t.job.as_str()).copied().unwrap_or(0);
            if let Some(&n) = nodes.get(t.node.as_str()) {
                let slot = &mut free[t.kind.slot()][n as usize];
                *slot = slot.saturating_sub(1);
                let copy_phase = t.phase.unwrap_or_default() == ReducePhase::Copy;
                if t.kind == TaskKind::Reduce && copy_phase && copy_limit[n as usize].is_some() {
                    *copying.entry((j, n)).or_insert(0) += 1;
                }
            }
            running_job.push(j);
        }

        let mut pending_of_kind: [Vec<usize>; 2] = [Vec::new(), Vec::new()];
        let replica_count = req.pending.iter().map(|t| t.replicas.len()).sum();
        let mut replicas = Lists::with_capacity(req.pending.len(), replica_count);
        let mut shuffle = Vec::with_capacity(req.pending.len());
        let mut pending_job = Vec::with_capacity(req.pending.len());
        for (i, t) in req.pending.iter().enumerate() {
            pending_of_kind[t.kind.slot()].push(i);
            pending_job.push(jobs.get(t.job.as_str()).copied().unwrap_or(0));
            replicas.push(t.replicas.iter().filter_map(|r| nodes.get(r).copied()));
            let mut sources: Vec<(u32, u64)> = t
                .shuffle
                .iter()
                .filter_map(|s| nodes.get(s.node.as_str()).map(|&n| (n, s.bytes)))
                .collect();
            sources.sort_unstable_by_key(|&(n, _)| n);
            sources.dedup_by(|later, kept| {
                if later.0 == kept.0 {
                    kept.1 = kept.1.saturating_add(later.1);
                    true
                } else {
                    false
                }
            });
            shuffle.push(sources);
        }
        let job_pool: Vec<u32> =
            req.jobs.iter().map(|j| pools.get(j.pool.as_str()).copied().unwrap_or(0)).collect();
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
    /// (the pairwise part of [`crate::disk`]): always for a reduce or a node without `disk`.
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
