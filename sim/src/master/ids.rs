//! The snapshot's ids (the v1 wire schema of `models/`: every task, job, node, rack and pool is
//! named by a string): the one place where the simulator's indices become strings and an
//! answer's strings become indices again (`sim/README.md`, "Three parts").
//!
//! Inside the simulator everything is an index. A snapshot names task `k` of kind map or
//! reduce of job `j` `j{j}-m-{k}` / `j{j}-r-{k}`, job `j` `j{j}`, node `i` `n{i}`, rack `r`
//! `r{r}` and pool `p` `p{p}` (indices in the order the World holds them; a trace's own node
//! names stay in `SimCluster::names`). Reading is the inverse of writing; an id that no
//! snapshot of this run could carry (malformed, out of range, a task ordinal past its job's
//! tasks) reads as `None`. Example: in a run whose job 3 has 2 maps, `j3-m-1` reads as that
//! job's second map and `j3-m-2` as `None`.
//!
//! Cost: O(length of the id) per id, with no allocation when writing into a reused string.

use crate::workload_index::WorkloadIndex;
use placer_models::{NodeId, PoolId, RackId, TaskKind};

/// `s` = the formatted `args`, in `s`'s allocation.
fn write(s: &mut String, args: std::fmt::Arguments<'_>) {
    s.clear();
    // Writing into a `String` cannot fail.
    let _ = std::fmt::Write::write_fmt(s, args);
}

/// An index written after `prefix`, below `len`.
fn read(id: &str, prefix: char, len: usize) -> Option<usize> {
    let i: usize = id.strip_prefix(prefix)?.parse().ok()?;
    (i < len).then_some(i)
}

/// Task `t`'s id into `out`.
pub(crate) fn write_task(ix: &WorkloadIndex, t: usize, out: &mut String) {
    let task = &ix.tasks[t];
    let kind = match task.kind {
        TaskKind::Map => 'm',
        TaskKind::Reduce => 'r',
    };
    write(out, format_args!("j{}-{kind}-{}", task.job, task.ordinal));
}

/// The task a task id names.
pub(crate) fn read_task(ix: &WorkloadIndex, id: &str) -> Option<usize> {
    let (job, rest) = id.split_once('-')?;
    let (kind, ordinal) = rest.split_once('-')?;
    let spec = &ix.jobs[read(job, 'j', ix.jobs.len())?];
    let ordinal: usize = ordinal.parse().ok()?;
    match kind {
        "m" if ordinal < spec.maps => Some(spec.task(TaskKind::Map, ordinal)),
        "r" if ordinal < spec.reduces => Some(spec.task(TaskKind::Reduce, ordinal)),
        _ => None,
    }
}

/// Job `j`'s id into `out`.
pub(crate) fn write_job(j: usize, out: &mut String) {
    write(out, format_args!("j{j}"));
}

/// The job (of `jobs`) a job id names.
pub(crate) fn read_job(id: &str, jobs: usize) -> Option<usize> {
    read(id, 'j', jobs)
}

/// Node `i`'s id.
pub(crate) fn node(i: usize) -> NodeId {
    NodeId(format!("n{i}"))
}

/// The node (of `nodes`) a node id names.
pub(crate) fn read_node(id: &str, nodes: usize) -> Option<usize> {
    read(id, 'n', nodes)
}

/// Rack `r`'s id.
pub(crate) fn rack(r: usize) -> RackId {
    RackId(format!("r{r}"))
}

/// Pool `p`'s id into `out`.
pub(crate) fn write_pool(p: usize, out: &mut String) {
    write(out, format_args!("p{p}"));
}

/// Pool `p`'s id.
pub(crate) fn pool(p: usize) -> PoolId {
    let mut id = String::new();
    write_pool(p, &mut id);
    PoolId(id)
}

/// The pool (of `pools`) a pool id names.
pub(crate) fn read_pool(id: &str, pools: usize) -> Option<usize> {
    read(id, 'p', pools)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::SimCluster;
    use crate::config::{ClusterSource, SimConfig};
    use placer_datasets::{JobSpec, MapSpec, ReduceSpec, Workload};

    /// Job 0 with 2 maps and 1 reduce, job 1 with 1 map, on 4 nodes.
    fn index() -> WorkloadIndex {
        let map = MapSpec::default();
        let job = |id: &str, maps: usize, reduces: usize| JobSpec {
            id: id.to_owned(),
            maps: vec![map.clone(); maps],
            reduces: vec![ReduceSpec::default(); reduces],
            ..JobSpec::default()
        };
        let jobs = vec![job("a", 2, 1), job("b", 1, 0)];
        let workload = Workload { jobs, ..Workload::default() };
        let cfg = SimConfig {
            cluster: ClusterSource::Synthetic {
                nodes: 4,
                rack_size: 2,
                map_slots: 1,
                reduce_slots: 1,
            },
            ..SimConfig::default()
        };
        let cluster = SimCluster::build(&workload, &cfg).unwrap();
        WorkloadIndex::build(&workload, &cluster, &cfg).unwrap()
    }

    #[test]
    fn every_task_reads_back_as_itself() {
        let ix = index();
        let mut id = String::new();
        let mut written = Vec::new();
        for t in 0..ix.tasks.len() {
            write_task(&ix, t, &mut id);
            assert_eq!(read_task(&ix, &id), Some(t), "{id}");
            written.push(id.clone());
        }
        assert_eq!(written, ["j0-m-0", "j0-m-1", "j0-r-0", "j1-m-0"]);
    }

    #[test]
    fn ids_no_snapshot_carries_read_as_none() {
        let ix = index();
        for id in ["j0-m-2", "j1-r-0", "j2-m-0", "j0-x-0", "j0-m", "x0-m-0", "j-1-m-0", ""] {
            assert_eq!(read_task(&ix, id), None, "{id}");
        }
        assert_eq!(read_node(node(3).as_str(), 4), Some(3));
        assert_eq!(read_node("n4", 4), None);
        assert_eq!(read_node("r1", 4), None);
        assert_eq!(read_pool(pool(1).as_str(), 2), Some(1));
        assert_eq!(read_pool("p2", 2), None);
        let mut j = String::new();
        write_job(1, &mut j);
        assert_eq!((read_job(&j, 2), read_job("j2", 2)), (Some(1), None));
        assert_eq!(rack(2).as_str(), "r2");
    }
}
