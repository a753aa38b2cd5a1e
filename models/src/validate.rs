//! Semantic validation of a parsed snapshot (docs/wire-schema.md, "Errors"): versions,
//! ids, references, number domains and slot capacities, each rejection naming the JSON path of
//! the first offending field. O(size of the snapshot) time and memory.

use crate::error::ModelError;
use crate::name_index::NameIndex;
use crate::policy::Algorithm;
use crate::request::{Amounts, PlaceRequest, TaskKind};
use crate::SCHEMA_VERSION;
use foldhash::HashMap;
use std::collections::BTreeSet;

/// The references of a valid snapshot resolved to positions as validation found them, so that
/// indexing need not look them up again (one pass from the parsed snapshot to the
/// index). A position that did not resolve is [`Resolved::UNKNOWN`] (never, after validation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resolved {
    /// Rack position of each node.
    pub node_rack: Vec<u32>,
    /// Pool position of each job.
    pub job_pool: Vec<u32>,
    /// Job position of each pending task.
    pub pending_job: Vec<u32>,
    /// Node positions of every pending task's replicas, concatenated in task order (task t's
    /// are the next `pending[t].replicas.len()`).
    pub replica_nodes: Vec<u32>,
    /// Node positions of every pending task's shuffle sources, concatenated in task order.
    pub shuffle_nodes: Vec<u32>,
    /// Job position of each running task.
    pub running_job: Vec<u32>,
    /// Node position of each running task.
    pub running_node: Vec<u32>,
}

impl Resolved {
    /// A reference that did not resolve.
    pub const UNKNOWN: u32 = u32::MAX;
}

/// Checks everything the schema's types cannot: returns the first violation in document order
/// (schema version, `now_s`, policy, network, racks, nodes, pools, jobs, pending, running).
///
/// Accepted as valid: an empty cluster, nodes without free slots, no pending tasks.
///
/// # Complexity
/// O(size of the snapshot) time and memory.
///
/// # Errors
/// The first violation, with its JSON path (docs/wire-schema.md, "Errors").
pub fn validate(req: &PlaceRequest) -> Result<(), ModelError> {
    validate_resolved(req).map(drop)
}

/// [`validate`], returning the references it resolved ([`Resolved`]).
///
/// # Complexity
/// O(size of the snapshot) time and memory.
///
/// # Errors
/// As [`validate`].
pub fn validate_resolved(req: &PlaceRequest) -> Result<Resolved, ModelError> {
    if req.schema_version != u64::from(SCHEMA_VERSION) {
        return Err(ModelError::UnsupportedSchemaVersion {
            path: "schema_version".to_owned(),
            found: req.schema_version,
            supported: SCHEMA_VERSION,
        });
    }
    non_negative(req.now_s, || "now_s".to_owned())?;
    let net = &req.cluster.network;
    positive(net.rack_mbps, || "cluster.network.rack_mbps".to_owned())?;
    positive(net.cross_rack_mbps, || "cluster.network.cross_rack_mbps".to_owned())?;

    let racks = unique_ids(req.cluster.racks.iter().map(|r| r.id.as_str()), "cluster.racks")?;
    for (i, pair) in net.rack_pairs.iter().enumerate() {
        let at = |f: &str| format!("cluster.network.rack_pairs[{i}].{f}");
        known(&racks, pair.from.as_str(), "rack", || at("from"))?;
        known(&racks, pair.to.as_str(), "rack", || at("to"))?;
        positive(pair.mbps, || at("mbps"))?;
    }

    for (i, rack) in req.cluster.racks.iter().enumerate() {
        if let Some(v) = rack.uplink_mbps {
            positive(v, || format!("cluster.racks[{i}].uplink_mbps"))?;
        }
        if let Some(v) = rack.cross_rack_traffic_mbps {
            non_negative(v, || format!("cluster.racks[{i}].cross_rack_traffic_mbps"))?;
        }
    }

    let mut out = Resolved {
        node_rack: Vec::with_capacity(req.cluster.nodes.len()),
        job_pool: Vec::with_capacity(req.jobs.len()),
        pending_job: Vec::with_capacity(req.pending.len()),
        replica_nodes: Vec::with_capacity(req.pending.iter().map(|t| t.replicas.len()).sum()),
        shuffle_nodes: Vec::new(),
        running_job: Vec::with_capacity(req.running.len()),
        running_node: Vec::with_capacity(req.running.len()),
    };
    let nodes = unique_ids(req.cluster.nodes.iter().map(|n| n.id.as_str()), "cluster.nodes")?;
    for (i, node) in req.cluster.nodes.iter().enumerate() {
        let r = known(&racks, node.rack.as_str(), "rack", || format!("cluster.nodes[{i}].rack"))?;
        out.node_rack.push(position(r));
        for (name, configured, sent) in [
            ("configured_map_slots", node.configured_map_slots, node.map_slots),
            ("configured_reduce_slots", node.configured_reduce_slots, node.reduce_slots),
        ] {
            if configured.is_some_and(|c| c < sent) {
                return Err(ModelError::Inconsistent {
                    path: format!("cluster.nodes[{i}].{name}"),
                    message: format!(
                        "{} configured slots are fewer than the {sent} sent",
                        configured.unwrap_or(0)
                    ),
                });
            }
        }
        if node.block.as_ref().is_some_and(|b| b.as_str().is_empty()) {
            return Err(ModelError::EmptyId { path: format!("cluster.nodes[{i}].block") });
        }
        if let Some(res) = &node.resources {
            for (name, &v) in &res.amounts {
                non_negative(v, || format!("cluster.nodes[{i}].resources.{name}"))?;
            }
        }
    }
    // The resources some node has: a demand may name only these (RAS's Γ and Ω share names).
    let resources: BTreeSet<&str> = req
        .cluster
        .nodes
        .iter()
        .filter_map(|n| n.resources.as_ref())
        .flat_map(|r| r.amounts.keys().map(String::as_str))
        .collect();

    let pools = unique_ids(req.pools.iter().map(|p| p.id.as_str()), "pools")?;
    for (i, pool) in req.pools.iter().enumerate() {
        non_negative(pool.weight, || format!("pools[{i}].weight"))?;
        non_negative(pool.min_map_share, || format!("pools[{i}].min_map_share"))?;
        non_negative(pool.min_reduce_share, || format!("pools[{i}].min_reduce_share"))?;
        for (name, v) in [
            ("min_share_timeout_s", pool.min_share_timeout_s),
            ("fair_share_timeout_s", pool.fair_share_timeout_s),
        ] {
            if let Some(v) = v {
                non_negative(v, || format!("pools[{i}].{name}"))?;
            }
        }
        if let Some(st) = &pool.starvation {
            for (kind, clock) in [("map", &st.map), ("reduce", &st.reduce)] {
                for (name, v) in [
                    ("at_min_share_s", clock.at_min_share_s),
                    ("at_half_fair_share_s", clock.at_half_fair_share_s),
                ] {
                    if let Some(v) = v {
                        non_negative(v, || format!("pools[{i}].starvation.{kind}.{name}"))?;
                    }
                }
            }
        }
    }

    let users = unique_ids(req.users.iter().map(|u| u.id.as_str()), "users")?;
    for (i, user) in req.users.iter().enumerate() {
        if let Some(w) = user.weight {
            positive(w, || format!("users[{i}].weight"))?;
        }
    }
    // Under the ShuffleWatcher policies users are the fairness unit: once `users` lists them,
    // a job naming another user has no share to be scheduled from. (`lsap_shuffle` shares by
    // pools and jobs, as `lsap_quota`: a user it does not list is simply unlimited.)
    let users_are_fairness = !users.is_empty()
        && matches!(
            req.policy.algorithm,
            Algorithm::ShuffleWatcher | Algorithm::ShuffleWatcherRelaxed
        );

    let jobs = unique_ids(req.jobs.iter().map(|j| j.id.as_str()), "jobs")?;
    for (i, job) in req.jobs.iter().enumerate() {
        let p = known(&pools, job.pool.as_str(), "pool", || format!("jobs[{i}].pool"))?;
        out.job_pool.push(position(p));
        non_negative(job.submit_s, || format!("jobs[{i}].submit_s"))?;
        if let Some(user) = &job.user {
            if user.as_str().is_empty() {
                return Err(ModelError::EmptyId { path: format!("jobs[{i}].user") });
            }
            if users_are_fairness {
                known(&users, user.as_str(), "user", || format!("jobs[{i}].user"))?;
            }
        }
        if let Some(v) = job.shuffle_input_ratio {
            non_negative(v, || format!("jobs[{i}].shuffle_input_ratio"))?;
        }
        if let (Some(done), Some(total)) = (job.maps_done, job.maps_total) {
            if done > total {
                return Err(ModelError::Inconsistent {
                    path: format!("jobs[{i}].maps_done"),
                    message: format!("{done} maps done of {total} in all"),
                });
            }
        }
        for (name, v) in [
            ("locality_delay_node_s", job.locality_delay_node_s),
            ("locality_delay_rack_s", job.locality_delay_rack_s),
        ] {
            if let Some(v) = v {
                non_negative(v, || format!("jobs[{i}].{name}"))?;
            }
        }
        if let Some(profile) = &job.profile {
            for (phase, amounts) in
                [("map", &profile.map), ("shuffle", &profile.shuffle), ("reduce", &profile.reduce)]
            {
                demand(&resources, amounts, || format!("jobs[{i}].profile.{phase}"))?;
            }
        }
        if let Some(v) = job.goal_s {
            non_negative(v, || format!("jobs[{i}].goal_s"))?;
        }
        if let Some(v) = job.mean_map_s {
            positive(v, || format!("jobs[{i}].mean_map_s"))?;
        }
        if job.gang.is_some_and(|g| g.min_member == 0) {
            return Err(ModelError::InvalidNumber {
                path: format!("jobs[{i}].gang.min_member"),
                message: "must be an integer ≥ 1, got 0".to_owned(),
            });
        }
        if let Some(v) = job.topology.and_then(|t| t.penalty_s) {
            non_negative(v, || format!("jobs[{i}].topology.penalty_s"))?;
        }
        if let Some((topology, slice)) = job.topology.and_then(|t| Some((t, t.slice?))) {
            if slice.size == 0 {
                return Err(ModelError::InvalidNumber {
                    path: format!("jobs[{i}].topology.slice.size"),
                    message: "must be an integer ≥ 1, got 0".to_owned(),
                });
            }
            if slice.level > topology.level {
                return Err(ModelError::Inconsistent {
                    path: format!("jobs[{i}].topology.slice.level"),
                    message: format!(
                        "a slice is kept inside one {}, above the job's level {}",
                        slice.level.name(),
                        topology.level.name()
                    ),
                });
            }
        }
    }

    // Task ids are unique across pending and running together. A sort of their hashes finds
    // most snapshots free of duplicates at once; only one with two equal hashes is checked id by
    // id, with a map, for the first duplicate and where it was first seen.
    let task_ids = || {
        req.pending.iter().map(|t| t.id.as_str()).chain(req.running.iter().map(|t| t.id.as_str()))
    };
    let mut tasks: Option<HashMap<&str, TaskAt>> =
        equal_hashes(task_ids()).then(|| map_with_capacity(req.pending.len() + req.running.len()));
    // The replica lists' duplicates: the task + 1 that last named each node (4 bytes a node, so
    // that the stamps of 10⁵ nodes stay in cache). Stamps wrap beyond 2³² − 1 tasks, which no
    // body under any limit holds.
    let mut named: Vec<u32> = vec![0; req.cluster.nodes.len()];
    // The last pending task with shuffle sources, and where its resolved nodes start.
    let mut last_shuffle: Option<(usize, usize)> = None;

    // Tasks of one job come together: the previous task's job, when it is the same, is not
    // looked up again (one string comparison).
    let mut last_job: Option<(&str, usize)> = None;
    for (i, task) in req.pending.iter().enumerate() {
        claim(tasks.as_mut(), task.id.as_str(), TaskAt::Pending(i))?;
        let j =
            cached(&mut last_job, &jobs, task.job.as_str(), "job", || format!("pending[{i}].job"))?;
        out.pending_job.push(position(j));
        match task.kind {
            TaskKind::Map => {
                if !task.shuffle.is_empty() {
                    return Err(ModelError::Inconsistent {
                        path: format!("pending[{i}].shuffle"),
                        message: "a map task has no shuffle input".to_owned(),
                    });
                }
            }
            TaskKind::Reduce => {
                if !task.replicas.is_empty() {
                    return Err(ModelError::Inconsistent {
                        path: format!("pending[{i}].replicas"),
                        message: "a reduce task has no input replicas; use shuffle".to_owned(),
                    });
                }
                if task.input_bytes != 0 {
                    return Err(ModelError::Inconsistent {
                        path: format!("pending[{i}].input_bytes"),
                        message: "a reduce task has no map input; use shuffle".to_owned(),
                    });
                }
                if task.output_bytes != 0 {
                    return Err(ModelError::Inconsistent {
                        path: format!("pending[{i}].output_bytes"),
                        message: "output_bytes is a map's intermediate output; a reduce has none"
                            .to_owned(),
                    });
                }
            }
        }
        if let Some(v) = task.pending_since_s {
            non_negative(v, || format!("pending[{i}].pending_since_s"))?;
        }
        if let Some(d) = &task.demand {
            demand(&resources, d, || format!("pending[{i}].demand"))?;
        }
        for (k, replica) in task.replicas.iter().enumerate() {
            let path = || format!("pending[{i}].replicas[{k}]");
            let n = known(&nodes, replica, "node", path)?;
            let stamp = (i as u32).wrapping_add(1);
            if named[n] == stamp {
                // The first naming in this task is the earlier one (this is the first repeat).
                let first = task.replicas.iter().position(|r| r == replica).unwrap_or(k);
                return Err(ModelError::DuplicateId {
                    path: path(),
                    id: replica.to_string(),
                    first: format!("pending[{i}].replicas[{first}]"),
                });
            }
            named[n] = stamp;
            out.replica_nodes.push(position(n));
        }
        // Reduces of one job list the same source nodes in the same order: a source named as
        // the previous reduce's k-th is resolved already (one string comparison, no lookup).
        let (previous, resolved) = match last_shuffle {
            Some((p, at)) => (req.pending[p].shuffle.as_slice(), at),
            None => (&[][..], 0),
        };
        let at = out.shuffle_nodes.len();
        for (k, source) in task.shuffle.iter().enumerate() {
            let node = source.node.as_str();
            let same = previous.get(k).is_some_and(|s| s.node.as_str() == node);
            if let Some(&n) = same.then(|| out.shuffle_nodes.get(resolved + k)).flatten() {
                out.shuffle_nodes.push(n);
                continue;
            }
            let n = known(&nodes, node, "node", || format!("pending[{i}].shuffle[{k}].node"))?;
            out.shuffle_nodes.push(position(n));
        }
        if !task.shuffle.is_empty() {
            last_shuffle = Some((i, at));
        }
    }

    let mut used: Vec<[u32; 2]> = vec![[0, 0]; req.cluster.nodes.len()];
    // Running tasks are often listed node by node: the previous task's node, as its job.
    let mut last_job: Option<(&str, usize)> = None;
    let mut last_node: Option<(&str, usize)> = None;
    for (i, task) in req.running.iter().enumerate() {
        claim(tasks.as_mut(), task.id.as_str(), TaskAt::Running(i))?;
        let j =
            cached(&mut last_job, &jobs, task.job.as_str(), "job", || format!("running[{i}].job"))?;
        let n = cached(&mut last_node, &nodes, task.node.as_str(), "node", || {
            format!("running[{i}].node")
        })?;
        out.running_job.push(position(j));
        out.running_node.push(position(n));
        if let Some(s) = task.started_s {
            non_negative(s, || format!("running[{i}].started_s"))?;
        }
        if let Some(d) = &task.demand {
            demand(&resources, d, || format!("running[{i}].demand"))?;
        }
        if task.phase.is_some() && task.kind == TaskKind::Map {
            return Err(ModelError::Inconsistent {
                path: format!("running[{i}].phase"),
                message: "only a reduce has a copy or compute phase".to_owned(),
            });
        }
        let node = &req.cluster.nodes[n];
        let k = usize::from(task.kind == TaskKind::Reduce);
        let slots = node.slots(task.kind);
        used[n][k] += 1;
        // On a node with capacities, 0 slots means "no slot cap" (the multi-resource policies'
        // job slots, RAS §3.1): its running tasks are bounded by resources, not slots.
        if used[n][k] > slots && !(slots == 0 && node.has_capacities()) {
            return Err(ModelError::SlotsOversubscribed {
                path: format!("running[{i}]"),
                node: node.id.to_string(),
                kind: task.kind.name(),
                slots,
            });
        }
    }
    gangs_fit(req, &out)?;
    Ok(out)
}

/// A gang's `min_member` is at most its job's tasks in the snapshot (pending + running, both
/// kinds): a larger one could never start. O(jobs + tasks) when some job is a gang, else
/// O(jobs).
fn gangs_fit(req: &PlaceRequest, out: &Resolved) -> Result<(), ModelError> {
    if req.jobs.iter().all(|j| j.gang.is_none()) {
        return Ok(());
    }
    let mut tasks = vec![0u64; req.jobs.len()];
    for &j in out.pending_job.iter().chain(&out.running_job) {
        if let Some(n) = tasks.get_mut(j as usize) {
            *n += 1;
        }
    }
    for (i, job) in req.jobs.iter().enumerate() {
        if let Some(g) = job.gang {
            if u64::from(g.min_member) > tasks[i] {
                return Err(ModelError::Inconsistent {
                    path: format!("jobs[{i}].gang.min_member"),
                    message: format!(
                        "min_member {} exceeds the job's {} pending and running tasks",
                        g.min_member, tasks[i]
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Where a task id was first seen: `pending[i]` or `running[i]` (its path is written only for
/// an error).
#[derive(Clone, Copy)]
enum TaskAt {
    Pending(usize),
    Running(usize),
}

impl TaskAt {
    fn path(self) -> String {
        match self {
            Self::Pending(i) => format!("pending[{i}].id"),
            Self::Running(i) => format!("running[{i}].id"),
        }
    }
}

/// Whether two of `ids` have the same hash (so that they may be equal): the hashes sorted and
/// compared with their neighbours, O(n log n) time, cache-friendly, where a map of the ids
/// would take a cache miss or two per id.
fn equal_hashes<'a>(ids: impl Iterator<Item = &'a str>) -> bool {
    use std::hash::BuildHasher;
    let state = foldhash::fast::RandomState::default();
    let mut hashes: Vec<u64> = ids.map(|id| state.hash_one(id)).collect();
    hashes.sort_unstable();
    hashes.windows(2).any(|w| w[0] == w[1])
}

/// Registers a task id, rejecting empty ones and ids already seen (pending or running); with
/// no map (no two ids share a hash) only empty ones.
fn claim<'a>(
    tasks: Option<&mut HashMap<&'a str, TaskAt>>,
    id: &'a str,
    at: TaskAt,
) -> Result<(), ModelError> {
    if id.is_empty() {
        return Err(ModelError::EmptyId { path: at.path() });
    }
    let Some(tasks) = tasks else {
        return Ok(());
    };
    if let Some(first) = tasks.insert(id, at) {
        // Keep the first occurrence for later duplicates (none: this one is an error).
        return Err(ModelError::DuplicateId {
            path: at.path(),
            id: id.to_owned(),
            first: first.path(),
        });
    }
    Ok(())
}

/// A position as stored in [`Resolved`] (positions beyond u32 are [`Resolved::UNKNOWN`]; a body
/// limit keeps real snapshots far below).
fn position(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(Resolved::UNKNOWN)
}

/// An empty map of the fast hasher with room for `n` entries.
fn map_with_capacity<K, V>(n: usize) -> HashMap<K, V> {
    HashMap::with_capacity_and_hasher(n, foldhash::fast::RandomState::default())
}

/// Indexes ids by position, rejecting empty and duplicate ones.
fn unique_ids<'a>(
    ids: impl Iterator<Item = &'a str>,
    array: &str,
) -> Result<NameIndex, ModelError> {
    let mut index = NameIndex::with_capacity(ids.size_hint().0);
    for (i, id) in ids.enumerate() {
        let path = || format!("{array}[{i}].id");
        if id.is_empty() {
            return Err(ModelError::EmptyId { path: path() });
        }
        match index.insert(id) {
            Ok(_) => {}
            Err(Some(first)) => {
                return Err(ModelError::DuplicateId {
                    path: path(),
                    id: id.to_owned(),
                    first: format!("{array}[{first}].id"),
                })
            }
            // More than 2³² ids or 4 GiB of them (a body limit keeps real snapshots far below).
            Err(None) => {
                return Err(ModelError::Inconsistent {
                    path: path(),
                    message: format!("more ids in {array} than positions can hold"),
                })
            }
        }
    }
    Ok(index)
}

/// [`known`], remembering the last id resolved: the same id again costs one string comparison.
#[inline]
fn cached<'a>(
    last: &mut Option<(&'a str, usize)>,
    index: &NameIndex,
    id: &'a str,
    entity: &'static str,
    path: impl FnOnce() -> String,
) -> Result<usize, ModelError> {
    if let Some((name, at)) = *last {
        if name == id {
            return Ok(at);
        }
    }
    let at = known(index, id, entity, path)?;
    *last = Some((id, at));
    Ok(at)
}

fn known(
    index: &NameIndex,
    id: &str,
    entity: &'static str,
    path: impl FnOnce() -> String,
) -> Result<usize, ModelError> {
    index.get(id).ok_or_else(|| ModelError::UnknownReference {
        path: path(),
        entity,
        id: id.to_owned(),
    })
}

/// A demand vector: every amount finite and ≥ 0, every name a resource some node has.
fn demand(
    resources: &BTreeSet<&str>,
    amounts: &Amounts,
    path: impl Fn() -> String,
) -> Result<(), ModelError> {
    for (name, &v) in amounts {
        non_negative(v, || format!("{}.{name}", path()))?;
        if !resources.contains(name.as_str()) {
            return Err(ModelError::UnknownReference {
                path: format!("{}.{name}", path()),
                entity: "resource",
                id: name.clone(),
            });
        }
    }
    Ok(())
}

/// Checks that `v` is a finite number ≥ 0.
///
/// # Errors
/// [`ModelError::InvalidNumber`] at `path()`.
pub fn non_negative(v: f64, path: impl FnOnce() -> String) -> Result<(), ModelError> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(ModelError::InvalidNumber {
            path: path(),
            message: format!("must be a finite number ≥ 0, got {v}"),
        })
    }
}

/// Checks that `v` is a finite number > 0.
///
/// # Errors
/// [`ModelError::InvalidNumber`] at `path()`.
pub fn positive(v: f64, path: impl FnOnce() -> String) -> Result<(), ModelError> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(ModelError::InvalidNumber {
            path: path(),
            message: format!("must be a finite number > 0, got {v}"),
        })
    }
}

/// Checks that `v` is a fraction in [0, 1].
///
/// # Errors
/// [`ModelError::InvalidNumber`] at `path()`.
pub fn fraction(v: f64, path: impl FnOnce() -> String) -> Result<(), ModelError> {
    if (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(ModelError::InvalidNumber {
            path: path(),
            message: format!("must be a number in [0, 1], got {v}"),
        })
    }
}
