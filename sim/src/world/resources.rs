//! The resources held on each node in resource mode (RAS, Polo et al. §3.1: a TaskTracker's
//! "job slots" made of its resources; the units and the pending bound are in `resources.rs`):
//! Σ demand (cpu, mem, io) of the tasks holding it per node, a task taking its demand when it
//! starts (a map) or starts computing (a reduce: copying costs next to nothing, RAS Table 2)
//! and giving it back when it stops. O(1) per change; O(1) per room query.

use crate::resources::fit_count;
use crate::workload_index::WorkloadIndex;
use crate::SimError;
use placer_models::TaskKind;
use std::collections::BTreeMap;

/// Per job and kind, the least demand of its tasks and the cluster's room for them (the
/// pending bound of the crate's `resources.rs`).
#[derive(Clone, Debug, Default)]
pub(crate) struct ResourceBound {
    /// Per job and kind (`[map, reduce]`): the componentwise least demand of its tasks of the
    /// kind; `None` when one of them has no demand (or it has none of the kind).
    pub least: Vec<[Option<[f64; 3]>; 2]>,
    /// Per job and kind: H of the crate's `resources.rs` (`u64::MAX`: unbounded).
    pub hold: Vec<[u64; 2]>,
}

impl ResourceBound {
    /// The bound of every job of `ix` on nodes of `capacity`.
    pub fn new(ix: &WorkloadIndex, capacity: &[[f64; 3]]) -> Self {
        // Distinct capacity vectors with their multiplicity: a trace's nodes come in few sizes.
        let mut sizes: BTreeMap<[u64; 3], u64> = BTreeMap::new();
        for c in capacity {
            *sizes.entry(c.map(f64::to_bits)).or_default() += 1;
        }
        let sizes: Vec<([f64; 3], u64)> =
            sizes.into_iter().map(|(c, k)| (c.map(f64::from_bits), k)).collect();
        let mut least = Vec::with_capacity(ix.jobs.len());
        let mut hold = Vec::with_capacity(ix.jobs.len());
        for job in &ix.jobs {
            let mut per_kind = [None, None];
            let mut bound = [u64::MAX; 2];
            for kind in [TaskKind::Map, TaskKind::Reduce] {
                let count = match kind {
                    TaskKind::Map => job.maps,
                    TaskKind::Reduce => job.reduces,
                };
                let mut d: Option<[f64; 3]> = None;
                let mut all = count > 0;
                for i in 0..count {
                    match ix.tasks[job.task(kind, i)].demand {
                        Some(x) => {
                            d = Some(d.map_or(x, |d| std::array::from_fn(|r| d[r].min(x[r]))));
                        }
                        None => all = false,
                    }
                }
                let Some(d) = d.filter(|_| all) else { continue };
                per_kind[kind.slot()] = Some(d);
                let total = sizes
                    .iter()
                    .map(|&(c, k)| fit_count(c, d).saturating_mul(k))
                    .fold(0u64, u64::saturating_add);
                bound[kind.slot()] = total.max(1);
            }
            least.push(per_kind);
            hold.push(bound);
        }
        Self { least, hold }
    }
}

/// Per node, the demand held; per job and kind, the least demand and bound.
#[derive(Clone, Debug)]
pub(crate) struct Held {
    per_node: Vec<[f64; 3]>,
    bound: ResourceBound,
}

impl Held {
    /// Nothing held on `nodes` nodes; `bound` per job and kind.
    pub fn new(nodes: usize, bound: ResourceBound) -> Self {
        Self { per_node: vec![[0.0; 3]; nodes], bound }
    }

    /// A task of `demand` (none: nothing) takes it on node `n`.
    pub fn take(&mut self, n: usize, demand: Option<[f64; 3]>) {
        add(&mut self.per_node[n], demand, 1.0);
    }

    /// A task of `demand` gives it back on node `n`.
    pub fn give_back(&mut self, n: usize, demand: Option<[f64; 3]>) {
        add(&mut self.per_node[n], demand, -1.0);
    }

    /// Per job `j` and `kind`, H of `resources.rs` (`u64::MAX`: unbounded).
    pub fn bound(&self, j: usize, kind: TaskKind) -> u64 {
        self.bound.hold[j][kind.slot()]
    }

    /// Node `n` (of capacity `capacity`)'s free room for job `j`'s tasks of `kind`:
    /// ⌊(capacity_r − held_r) / d_r⌋ minimised over r, `u32::MAX` when unbounded.
    pub fn room_for(&self, n: usize, capacity: [f64; 3], j: usize, kind: TaskKind) -> u32 {
        let Some(d) = self.bound.least[j][kind.slot()] else { return u32::MAX };
        let h = self.per_node[n];
        let free = std::array::from_fn(|r| (capacity[r] - h[r]).max(0.0));
        u32::try_from(fit_count(free, d)).unwrap_or(u32::MAX)
    }
}

/// Uncapped runs: the running maps, as (node, demand), hold no more than a node's capacity
/// (with the solver's tolerance). Reduces are left out: one that starts computing takes its
/// reduce demand where it copied for free, and may overcommit the node until tasks end (RAS
/// §3.5's Task Scheduler drives that transition; contention slows the node meanwhile).
pub(crate) fn audit_maps(
    maps: impl Iterator<Item = (usize, Option<[f64; 3]>)>,
    capacity: &[[f64; 3]],
    now: f64,
) -> Result<(), SimError> {
    let mut held = vec![[0.0f64; 3]; capacity.len()];
    for (n, demand) in maps {
        add(&mut held[n], demand, 1.0);
    }
    for (n, h) in held.iter().enumerate() {
        let c = capacity[n];
        // Σ of many demands drifts by a few ulps per task.
        let over = (0..3).any(|r| h[r] > c[r] + 1e-6 * c[r].abs().max(1.0));
        if over {
            return Err(SimError::Invariant {
                time_s: now,
                message: format!("node {n}: running tasks hold {h:?}, capacity {c:?}"),
            });
        }
    }
    Ok(())
}

/// `held` += `sign` · `demand` (nothing without a demand).
fn add(held: &mut [f64; 3], demand: Option<[f64; 3]>, sign: f64) {
    if let Some(d) = demand {
        for (h, d) in held.iter_mut().zip(d) {
            *h += sign * d;
        }
    }
}
