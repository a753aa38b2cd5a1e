//! The one workload model every trace reader and workload generator yields (docs/simulator.md,
//! "Inputs"; the job/task view of FAIR, Zaharia et al. §2, and of SWIM's replay rules): jobs with
//! submit time, user and pool; map tasks with input bytes and replica locations; reduce tasks with
//! shuffle and output bytes; per-task compute time; and the cluster topology where the trace
//! has one. The simulator (`placer-sim`) replays a [`Workload`] on a cluster.
//!
//! Units: seconds for times (relative to the trace's first submit, or to the trace's own
//! origin when it has one), bytes for sizes. A task's simulated run time is
//! `compute_s` + its input read (maps) or shuffle (reduces) at the simulated link rates; a
//! reader that only knows a measured total duration stores it as `compute_s` and documents it.

/// A whole workload: jobs in submit order (ties kept in trace order) and, when the trace
/// carries one, its cluster.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Workload {
    /// Where it came from (file name or generator name and seed), for reports.
    pub name: String,
    /// Jobs, sorted by `submit_s` (stable).
    pub jobs: Vec<JobSpec>,
    /// Pools named by the trace or generator, with their weights and min shares. Jobs may
    /// name pools not listed here; those get weight 1 and no min share.
    pub pools: Vec<PoolSpec>,
    /// The trace's own cluster (Rumen topology, SLS nodes file, Alibaba node list), if any.
    pub topology: Option<Topology>,
    /// Task times are *measured* attempt times (Rumen): a map's `compute_s` already contains
    /// its start-up and its input read, so the simulator adds neither (it still counts the
    /// bytes the read moves, by locality, but they delay nothing); a reduce's `compute_s` is
    /// its time after the shuffle, and the shuffle itself is simulated. False for generators
    /// and for traces that give sizes and rates (SWIM, SLS, Alibaba).
    pub measured_times: bool,
}

/// One job.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobSpec {
    /// The trace's job id (unique within the workload).
    pub id: String,
    /// Submit time, s.
    pub submit_s: f64,
    /// Submitting user (`"unknown"` when the trace has none).
    pub user: String,
    /// Pool (queue) name (`"default"` when the trace has none).
    pub pool: String,
    /// Map tasks.
    pub maps: Vec<MapSpec>,
    /// Reduce tasks.
    pub reduces: Vec<ReduceSpec>,
    /// Completion-time goal, s after submit (RAS), if the source has one.
    pub deadline_s: Option<f64>,
    /// A label for reports (SWIM size bin, ShuffleWatcher benchmark, RAS job type, …).
    pub class: Option<String>,
    /// When the traced cluster really finished the job, s (same origin as `submit_s`), if the
    /// trace says: `placer whatif` reports simulated against real response time with it.
    pub observed_finish_s: Option<f64>,
    /// The job's set-up before its first task and clean-up after its last, s, as the trace
    /// measured them (Hadoop 0.20 ran a setup and a cleanup task per job; about 16 s each in
    /// the Mumak trace); `None`: the simulator's `job_setup_s` / `job_cleanup_s`.
    pub setup_s: Option<f64>,
    /// See `setup_s`.
    pub cleanup_s: Option<f64>,
    /// All-or-nothing start (`jobs[].gang` on the wire: KEP-4671 PodGroup, Volcano
    /// `minMember`), if the job is a gang.
    pub gang: Option<placer_models::Gang>,
    /// The topology domain its tasks are kept in (`jobs[].topology`: Kueue TAS), if any.
    pub topology: Option<placer_models::Topology>,
}

/// One map task.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MapSpec {
    /// Input split size, bytes.
    pub input_bytes: u64,
    /// Nodes (topology names) holding a replica of the split; empty = no preference.
    pub replicas: Vec<String>,
    /// Compute time, s, excluding the input read.
    pub compute_s: f64,
    /// Map output (shuffle input of the job's reduces), bytes.
    pub output_bytes: u64,
    /// Multi-resource demand (RAS profiles, Alibaba pods), if known.
    pub demand: Option<Demand>,
    /// Where the traced scheduler actually ran it, if the trace says (for comparisons).
    pub observed_host: Option<String>,
    /// Durations, s, of the attempts that failed or were killed before the one `compute_s`
    /// describes, in the order they ran (a trace's retries): each holds a slot that long and
    /// returns the task to pending. Empty for generators.
    pub failed_attempts_s: Vec<f64>,
}

/// One reduce task.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReduceSpec {
    /// Bytes this reduce pulls from the job's map outputs.
    pub shuffle_bytes: u64,
    /// Bytes it writes.
    pub output_bytes: u64,
    /// Compute time, s, excluding the shuffle.
    pub compute_s: f64,
    /// Multi-resource demand, if known.
    pub demand: Option<Demand>,
    /// Durations, s, of failed or killed attempts before the one described (see
    /// [`MapSpec::failed_attempts_s`]).
    pub failed_attempts_s: Vec<f64>,
}

/// A task's resource demand as fractions of one node's capacity (RAS §3.1's per-phase
/// profile: cpu, memory, I/O; Alibaba's cpu/memory/GPU scaled to the node list's largest
/// node).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Demand {
    /// CPU fraction.
    pub cpu: f64,
    /// Memory fraction.
    pub mem: f64,
    /// I/O (or GPU) fraction.
    pub io: f64,
}

/// A pool (queue) and its share parameters (Hadoop Fair Scheduler design doc §3).
#[derive(Clone, Debug, PartialEq)]
pub struct PoolSpec {
    /// Pool name.
    pub id: String,
    /// Weight (> 0).
    pub weight: f64,
    /// Minimum map slots.
    pub min_map_share: f64,
    /// Minimum reduce slots.
    pub min_reduce_share: f64,
}

impl PoolSpec {
    /// A pool of weight 1 with no min shares (the Fair Scheduler's defaults).
    pub fn plain(id: &str) -> Self {
        Self { id: id.to_owned(), weight: 1.0, min_map_share: 0.0, min_reduce_share: 0.0 }
    }
}

/// A cluster from a trace: racks of named nodes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Topology {
    /// Racks in file order; node names are unique across racks.
    pub racks: Vec<RackSpec>,
}

/// One rack.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RackSpec {
    /// Rack name.
    pub id: String,
    /// Its nodes.
    pub nodes: Vec<NodeSpec>,
}

/// One node.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeSpec {
    /// Node name (unescaped: `node1817.megatron.com`).
    pub id: String,
    /// Map slots, if the source says (else the simulator's default).
    pub map_slots: Option<u32>,
    /// Reduce slots, if the source says.
    pub reduce_slots: Option<u32>,
    /// Capacity, if the source says (the absolute units of the source: vcores / MB / GPUs).
    pub capacity: Option<Capacity>,
}

/// A node's absolute capacity as the source states it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Capacity {
    /// CPU (vcores, or milli-CPU / 1000).
    pub cpu: f64,
    /// Memory, MiB.
    pub mem_mib: f64,
    /// GPUs (or I/O units).
    pub gpu: f64,
}

impl Topology {
    /// `nodes` nodes `n0..` in racks `r0..` of `rack_size` (the last rack possibly smaller;
    /// `rack_size` 0 counts as 1), with no slots or capacity stated: lsap-sched §4's synthetic
    /// cluster, named as `placer gen snapshot` and the simulator's synthetic cluster name it.
    /// O(nodes).
    pub fn uniform(nodes: usize, rack_size: usize) -> Self {
        let k = rack_size.max(1);
        let racks = (0..nodes.div_ceil(k))
            .map(|r| RackSpec {
                id: format!("r{r}"),
                nodes: (r * k..((r + 1) * k).min(nodes))
                    .map(|n| NodeSpec { id: format!("n{n}"), ..NodeSpec::default() })
                    .collect(),
            })
            .collect();
        Self { racks }
    }

    /// All nodes with their rack index, in rack order.
    pub fn nodes(&self) -> impl Iterator<Item = (usize, &NodeSpec)> {
        self.racks.iter().enumerate().flat_map(|(r, rack)| rack.nodes.iter().map(move |n| (r, n)))
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.racks.iter().map(|r| r.nodes.len()).sum()
    }
}

impl Workload {
    /// Total map tasks.
    pub fn maps(&self) -> usize {
        self.jobs.iter().map(|j| j.maps.len()).sum()
    }

    /// Total reduce tasks.
    pub fn reduces(&self) -> usize {
        self.jobs.iter().map(|j| j.reduces.len()).sum()
    }

    /// Sorts jobs by submit time, keeping trace order among equal times.
    pub fn sort_jobs(&mut self) {
        self.jobs.sort_by(|a, b| a.submit_s.total_cmp(&b.submit_s));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_racks_of_k_last_one_smaller() {
        // 7 nodes in racks of 3: r0 = n0..n2, r1 = n3..n5, r2 = n6.
        let t = Topology::uniform(7, 3);
        let names: Vec<Vec<&str>> =
            t.racks.iter().map(|r| r.nodes.iter().map(|n| n.id.as_str()).collect()).collect();
        assert_eq!(names, [vec!["n0", "n1", "n2"], vec!["n3", "n4", "n5"], vec!["n6"]]);
        assert_eq!(t.node_count(), 7);
        assert_eq!(Topology::uniform(0, 0).node_count(), 0);
    }
}
