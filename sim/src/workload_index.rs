//! The workload with dense indices (`sim/README.md`; the job/task view of FAIR,
//! Zaharia et al. §2): every task of every job in one table (a job's maps, then its reduces),
//! replicas resolved to node indices (or drawn HDFS-style with the run's seed), pools resolved
//! to indices, every number checked. Snapshot ids are `j{job}` for jobs, `j{job}-m-{k}` and
//! `j{job}-r-{k}` for tasks and `p{pool}` for pools, so that an answer maps back to indices by
//! parsing, without a hash lookup. O(tasks + replicas) to build.

use crate::cluster::SimCluster;
use crate::config::{ReplicaSource, SimConfig};
use crate::error::SimError;
use placer_datasets::replicas::hdfs_replicas;
use placer_datasets::Workload;
use placer_models::TaskKind;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;

/// A job's place in the task table.
#[derive(Clone, Debug)]
pub(crate) struct JobIndex {
    /// Global index of its first map (its reduces follow its maps).
    pub first: usize,
    /// Number of maps.
    pub maps: usize,
    /// Number of reduces.
    pub reduces: usize,
    /// Its pool's index.
    pub pool: usize,
    /// Submit time, s.
    pub submit_s: f64,
    /// Σ of its maps' shuffle weights: their output bytes, or (when every output is 0) their
    /// number. A reduce pulls `bytes · w_m / weight_total` from map m.
    pub weight_total: u128,
    /// Whether maps weigh by output bytes (else 1 each).
    pub by_bytes: bool,
    /// Finished maps needed before its reduces become placeable: ⌈slowstart · maps⌉.
    pub slowstart_maps: usize,
    /// Set-up before its first task and clean-up after its last, s.
    pub setup_s: f64,
    /// See `setup_s`.
    pub cleanup_s: f64,
    /// Completion-time goal on the run's clock, s: `submit_s + deadline_s` when the workload
    /// gives a deadline (RAS §3.2's goal; `jobs[].goal_s`).
    pub goal_s: Option<f64>,
}

impl JobIndex {
    /// Map `t`'s shuffle weight (its output bytes, or 1).
    pub fn weight(&self, output_bytes: u64) -> u128 {
        if self.by_bytes {
            u128::from(output_bytes)
        } else {
            1
        }
    }
}

impl JobIndex {
    /// Global index of the job's task `ordinal` of `kind`.
    pub fn task(&self, kind: TaskKind, ordinal: usize) -> usize {
        match kind {
            TaskKind::Map => self.first + ordinal,
            TaskKind::Reduce => self.first + self.maps + ordinal,
        }
    }
}

/// One task's static description.
#[derive(Clone, Debug)]
pub(crate) struct TaskIndex {
    /// Its job's index.
    pub job: u32,
    /// Map or reduce.
    pub kind: TaskKind,
    /// Index among the job's tasks of its kind.
    pub ordinal: u32,
    /// Compute time, s.
    pub compute_s: f64,
    /// Map input bytes, or the bytes a reduce pulls in its shuffle.
    pub bytes: u64,
    /// Map output bytes (the shuffle input of the job's reduces); 0 for reduces.
    pub output_bytes: u64,
    /// Range of its replica node indices in `WorkloadIndex::replica_nodes`.
    replicas: (u32, u32),
    /// Its demand while computing (cpu, mem, io; fractions of a node), if the workload has one.
    pub demand: Option<[f64; 3]>,
    /// Range of its failed attempts' durations in `WorkloadIndex::failed_attempts`.
    failed: (u32, u32),
}

/// A pool's parameters.
#[derive(Clone, Debug)]
pub(crate) struct PoolIndex {
    /// The workload's name.
    pub name: String,
    /// Weight.
    pub weight: f64,
    /// Min map share, slots.
    pub min_map_share: f64,
    /// Min reduce share, slots.
    pub min_reduce_share: f64,
}

/// The indexed workload.
#[derive(Clone, Debug)]
pub(crate) struct WorkloadIndex {
    /// Jobs in workload order.
    pub jobs: Vec<JobIndex>,
    /// All tasks.
    pub tasks: Vec<TaskIndex>,
    /// Pools: the workload's in order, then pools only jobs name, in order of first mention
    /// (weight 1, no min share).
    pub pools: Vec<PoolIndex>,
    replica_nodes: Vec<u32>,
    failed_attempts: Vec<f64>,
}

impl WorkloadIndex {
    /// Indexes `workload` on `cluster`; replicas per `config.replicas`.
    pub fn build(
        workload: &Workload,
        cluster: &SimCluster,
        config: &SimConfig,
    ) -> Result<Self, SimError> {
        let mut pools: Vec<PoolIndex> = Vec::new();
        let mut pool_by_name: HashMap<&str, usize> = HashMap::new();
        for (i, p) in workload.pools.iter().enumerate() {
            for (name, v) in [
                ("weight", p.weight),
                ("min_map_share", p.min_map_share),
                ("min_reduce_share", p.min_reduce_share),
            ] {
                finite_non_negative(v, || format!("pools[{i}].{name}"))?;
            }
            if pool_by_name.insert(p.id.as_str(), pools.len()).is_some() {
                return Err(SimError::workload(
                    format!("pools[{i}].id"),
                    format!("duplicate pool {:?}", p.id),
                ));
            }
            pools.push(PoolIndex {
                name: p.id.clone(),
                weight: p.weight,
                min_map_share: p.min_map_share,
                min_reduce_share: p.min_reduce_share,
            });
        }

        let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
        let mut jobs = Vec::with_capacity(workload.jobs.len());
        let mut tasks = Vec::with_capacity(workload.maps() + workload.reduces());
        let mut replica_nodes: Vec<u32> = Vec::new();
        let mut failed_attempts: Vec<f64> = Vec::new();
        let mut seen: Vec<bool> = vec![false; cluster.len()];
        if u32::try_from(workload.jobs.len()).is_err() {
            return Err(SimError::workload("jobs", "too many jobs"));
        }
        for (j, job) in workload.jobs.iter().enumerate() {
            finite_non_negative(job.submit_s, || format!("jobs[{j}].submit_s"))?;
            let pool = match pool_by_name.get(job.pool.as_str()) {
                Some(&p) => p,
                None => {
                    pool_by_name.insert(job.pool.as_str(), pools.len());
                    pools.push(PoolIndex {
                        name: job.pool.clone(),
                        weight: 1.0,
                        min_map_share: 0.0,
                        min_reduce_share: 0.0,
                    });
                    pools.len() - 1
                }
            };
            let output: u128 = job.maps.iter().map(|m| u128::from(m.output_bytes)).sum();
            jobs.push(JobIndex {
                first: tasks.len(),
                maps: job.maps.len(),
                reduces: job.reduces.len(),
                pool,
                submit_s: job.submit_s,
                weight_total: if output > 0 { output } else { job.maps.len() as u128 },
                by_bytes: output > 0,
                slowstart_maps: ((config.slowstart * job.maps.len() as f64).ceil() as usize)
                    .min(job.maps.len()),
                setup_s: job.setup_s.unwrap_or(config.job_setup_s),
                cleanup_s: job.cleanup_s.unwrap_or(config.job_cleanup_s),
                goal_s: job.deadline_s.map(|d| job.submit_s + d),
            });
            if let Some(d) = job.deadline_s {
                finite_non_negative(d, || format!("jobs[{j}].deadline_s"))?;
            }
            finite_non_negative(jobs[j].setup_s, || format!("jobs[{j}].setup_s"))?;
            finite_non_negative(jobs[j].cleanup_s, || format!("jobs[{j}].cleanup_s"))?;
            for (k, map) in job.maps.iter().enumerate() {
                finite_non_negative(map.compute_s, || format!("jobs[{j}].maps[{k}].compute_s"))?;
                let start = replica_nodes.len();
                match config.replicas {
                    ReplicaSource::Workload => {
                        for name in &map.replicas {
                            let Some(n) = cluster.node(name) else {
                                return Err(SimError::UnknownNode {
                                    job: job.id.clone(),
                                    map: k,
                                    node: name.clone(),
                                });
                            };
                            if !seen[n] {
                                seen[n] = true;
                                replica_nodes.push(n as u32);
                            }
                        }
                        for &n in &replica_nodes[start..] {
                            seen[n as usize] = false;
                        }
                    }
                    ReplicaSource::Synthesize { replication } => {
                        let drawn = hdfs_replicas(
                            &cluster.rack_of,
                            &cluster.nodes_of_rack,
                            replication,
                            &mut rng,
                        );
                        replica_nodes.extend(drawn.into_iter().map(|n| n as u32));
                    }
                }
                let failed = push_attempts(&mut failed_attempts, &map.failed_attempts_s, || {
                    format!("jobs[{j}].maps[{k}].failed_attempts_s")
                })?;
                tasks.push(TaskIndex {
                    job: j as u32,
                    kind: TaskKind::Map,
                    ordinal: k as u32,
                    compute_s: map.compute_s,
                    bytes: map.input_bytes,
                    output_bytes: map.output_bytes,
                    replicas: (start as u32, replica_nodes.len() as u32),
                    demand: demand(map.demand.as_ref(), || format!("jobs[{j}].maps[{k}].demand"))?,
                    failed,
                });
            }
            for (k, reduce) in job.reduces.iter().enumerate() {
                finite_non_negative(reduce.compute_s, || {
                    format!("jobs[{j}].reduces[{k}].compute_s")
                })?;
                let at = replica_nodes.len() as u32;
                let failed =
                    push_attempts(&mut failed_attempts, &reduce.failed_attempts_s, || {
                        format!("jobs[{j}].reduces[{k}].failed_attempts_s")
                    })?;
                tasks.push(TaskIndex {
                    job: j as u32,
                    kind: TaskKind::Reduce,
                    ordinal: k as u32,
                    compute_s: reduce.compute_s,
                    bytes: reduce.shuffle_bytes,
                    output_bytes: 0,
                    replicas: (at, at),
                    demand: demand(reduce.demand.as_ref(), || {
                        format!("jobs[{j}].reduces[{k}].demand")
                    })?,
                    failed,
                });
            }
            if u32::try_from(replica_nodes.len()).is_err() {
                return Err(SimError::workload("jobs", "too many replicas"));
            }
        }
        if u32::try_from(failed_attempts.len()).is_err() {
            return Err(SimError::workload("jobs", "too many failed attempts"));
        }
        Ok(Self { jobs, tasks, pools, replica_nodes, failed_attempts })
    }

    /// Durations of task `t`'s failed attempts, s, in the order they run.
    pub fn failed_attempts(&self, t: usize) -> &[f64] {
        let (a, b) = self.tasks[t].failed;
        &self.failed_attempts[a as usize..b as usize]
    }

    /// Replica node indices of task `t` (empty for reduces and maps without a preference).
    pub fn replicas(&self, t: usize) -> &[u32] {
        let (a, b) = self.tasks[t].replicas;
        &self.replica_nodes[a as usize..b as usize]
    }
}

/// Appends a task's failed attempt durations (each finite, ≥ 0); returns their range.
fn push_attempts(
    all: &mut Vec<f64>,
    attempts: &[f64],
    path: impl Fn() -> String,
) -> Result<(u32, u32), SimError> {
    let start = all.len() as u32;
    for (i, &d) in attempts.iter().enumerate() {
        finite_non_negative(d, || format!("{}[{i}]", path()))?;
        all.push(d);
    }
    Ok((start, all.len().min(u32::MAX as usize) as u32))
}

/// A demand as (cpu, mem, io), each finite and ≥ 0.
fn demand(
    d: Option<&placer_datasets::Demand>,
    path: impl Fn() -> String,
) -> Result<Option<[f64; 3]>, SimError> {
    let Some(d) = d else { return Ok(None) };
    for (name, v) in [("cpu", d.cpu), ("mem", d.mem), ("io", d.io)] {
        finite_non_negative(v, || format!("{}.{name}", path()))?;
    }
    Ok(Some([d.cpu, d.mem, d.io]))
}

fn finite_non_negative(v: f64, path: impl FnOnce() -> String) -> Result<(), SimError> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(SimError::workload(path(), format!("must be a finite number ≥ 0, got {v}")))
    }
}
