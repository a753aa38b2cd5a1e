//! Seeded sampling shared by the workload generators of the papers' setups (FAIR, Zaharia et
//! al. §6.1 "Poisson process" arrivals; ShuffleWatcher, Ahmad et al. §4.3 exponential
//! inter-arrivals; table-driven job mixes): Poisson arrival times, largest-remainder
//! apportionment of a table's percentages, log-uniform sizes, uniform topologies and HDFS
//! replica names. Every function is deterministic for the RNG's state.

use crate::error::DatasetError;
use crate::replicas::{hdfs_replicas, hdfs_replicas_from, rack_index, InputLayout};
use crate::workload::{Capacity, NodeSpec, RackSpec, Topology};
use rand::Rng;

/// `n` arrival times of a Poisson process with mean inter-arrival `mean_gap_s` (s), the first
/// at 0 (workload times are relative to the first submit, workload.rs), each later one an
/// exponential gap `−mean · ln(1 − U)`, U uniform in [0, 1), after the previous one. Sorted
/// ascending by construction; O(n).
pub(crate) fn poisson_arrivals<R: Rng>(rng: &mut R, n: usize, mean_gap_s: f64) -> Vec<f64> {
    let mut out = Vec::with_capacity(n);
    let mut t = 0.0_f64;
    for k in 0..n {
        if k > 0 {
            let u: f64 = rng.random::<f64>();
            t += -mean_gap_s * (1.0 - u).ln();
        }
        out.push(t);
    }
    out
}

/// Splits `total` into parts proportional to `weights` (finite, ≥ 0, positive sum) by largest
/// remainders, ties to the lower index: e.g. 360 jobs over 20 / 19 / 21 / 10 / 10 / 7 / 8 / 5 %
/// → 72 / 68 / 76 / 36 / 36 / 25 / 29 / 18. A zero sum gives all zeros. O(k log k).
pub(crate) fn apportion(total: usize, weights: &[f64]) -> Vec<usize> {
    let sum: f64 = weights.iter().sum();
    if total == 0 || sum <= 0.0 {
        return vec![0; weights.len()];
    }
    let exact: Vec<f64> = weights.iter().map(|w| total as f64 * w / sum).collect();
    let mut parts: Vec<usize> = exact.iter().map(|e| e.floor() as usize).collect();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by(|&a, &b| {
        (exact[b] - exact[b].floor()).total_cmp(&(exact[a] - exact[a].floor())).then(a.cmp(&b))
    });
    let mut left = total.saturating_sub(parts.iter().sum());
    for &p in order.iter().cycle() {
        if left == 0 {
            break;
        }
        parts[p] += 1;
        left -= 1;
    }
    parts
}

/// A value log-uniform in [lo, hi) (0 < lo ≤ hi): `lo · (hi / lo)^U`.
pub(crate) fn log_uniform<R: Rng>(rng: &mut R, lo: f64, hi: f64) -> f64 {
    if hi <= lo {
        return lo;
    }
    lo * (hi / lo).powf(rng.random::<f64>())
}

/// Checks the cluster fields every generator shares: ≥ 1 rack, ≥ 1 node per rack, and
/// 1 ≤ replication ≤ nodes (replicas sit on distinct nodes). Errors name the flag.
pub(crate) fn check_cluster(
    racks: usize,
    nodes_per_rack: usize,
    replication: usize,
) -> Result<(), DatasetError> {
    let invalid = |field, message: String| Err(DatasetError::InvalidSpec { field, message });
    if racks == 0 {
        return invalid("racks", "must be ≥ 1".into());
    }
    if nodes_per_rack == 0 {
        return invalid("nodes-per-rack", "must be ≥ 1".into());
    }
    let nodes = racks.saturating_mul(nodes_per_rack);
    if replication == 0 || replication > nodes {
        return invalid(
            "replication",
            format!("must be in [1, nodes] = [1, {nodes}], got {replication}"),
        );
    }
    Ok(())
}

/// `racks` racks `r0..` of `per_rack` nodes `n0..` each (numbered rack by rack), every node
/// with the given slots and capacity. O(racks · per_rack).
pub(crate) fn uniform_topology(
    racks: usize,
    per_rack: usize,
    map_slots: Option<u32>,
    reduce_slots: Option<u32>,
    capacity: Option<Capacity>,
) -> Topology {
    Topology {
        racks: (0..racks)
            .map(|r| RackSpec {
                id: format!("r{r}"),
                nodes: (0..per_rack)
                    .map(|i| NodeSpec {
                        id: format!("n{}", r * per_rack + i),
                        map_slots,
                        reduce_slots,
                        capacity,
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// The cluster of a generator with per-node (map, reduce) slots and no capacities
/// ([`uniform_topology`]), and its HDFS block placer. O(racks · per_rack).
pub(crate) fn slotted_cluster(
    racks: usize,
    per_rack: usize,
    (map_slots, reduce_slots): (u32, u32),
    replication: usize,
) -> (Topology, BlockPlacer) {
    let topology = uniform_topology(racks, per_rack, Some(map_slots), Some(reduce_slots), None);
    let placer = BlockPlacer::new(&topology, replication);
    (topology, placer)
}

/// Places blocks on a topology with HDFS's default policy ([`hdfs_replicas`]), naming nodes.
pub(crate) struct BlockPlacer {
    names: Vec<String>,
    rack_of: Vec<usize>,
    nodes_of_rack: Vec<Vec<usize>>,
    replication: usize,
}

impl BlockPlacer {
    /// Indexes `topology` once (O(nodes)).
    pub(crate) fn new(topology: &Topology, replication: usize) -> Self {
        let (rack_of, nodes_of_rack) = rack_index(topology);
        let names = topology.nodes().map(|(_, n)| n.id.clone()).collect();
        Self { names, rack_of, nodes_of_rack, replication }
    }

    /// The replica nodes of one new block: `replication` distinct names. O(replication)
    /// expected.
    pub(crate) fn place<R: Rng>(&self, rng: &mut R) -> Vec<String> {
        self.named(hdfs_replicas(&self.rack_of, &self.nodes_of_rack, self.replication, rng))
    }

    /// A job's writer under `layout`: `None` for [`InputLayout::Hdfs`] (no draw, so that the
    /// RNG stream of that layout is what it always was), else a node drawn uniformly.
    pub(crate) fn writer<R: Rng>(&self, layout: InputLayout, rng: &mut R) -> Option<usize> {
        (layout != InputLayout::Hdfs && !self.names.is_empty())
            .then(|| rng.random_range(0..self.names.len()))
    }

    /// One new block of a job written by `writer` under `layout` ([`InputLayout`]).
    pub(crate) fn place_written<R: Rng>(
        &self,
        layout: InputLayout,
        writer: Option<usize>,
        rng: &mut R,
    ) -> Vec<String> {
        let first = match (layout, writer) {
            (InputLayout::WriterNode, Some(w)) => w,
            (InputLayout::WriterRack, Some(w)) => {
                let rack = &self.nodes_of_rack[self.rack_of[w]];
                rack[rng.random_range(0..rack.len())]
            }
            _ => return self.place(rng),
        };
        let (rack_of, racks) = (&self.rack_of, &self.nodes_of_rack);
        self.named(hdfs_replicas_from(first, rack_of, racks, self.replication, rng))
    }

    fn named(&self, nodes: Vec<usize>) -> Vec<String> {
        nodes.into_iter().map(|i| self.names[i].clone()).collect()
    }
}

/// Splits `total` bytes into `parts` near-equal shares (the first `total % parts` one byte
/// larger), as a job's map output divides among its reduces. `parts` ≥ 1.
pub(crate) fn even_split(total: u64, parts: usize) -> Vec<u64> {
    let parts = parts.max(1) as u64;
    let (q, r) = (total / parts, total % parts);
    (0..parts).map(|i| q + u64::from(i < r)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn shuffle_watcher_table2_apportions_360_jobs() {
        // 360 × (20, 19, 21, 10, 10, 7, 8, 5) % = 72, 68.4, 75.6, 36, 36, 25.2, 28.8, 18:
        // floors sum to 358; the two largest remainders (.8, .6) get one more each.
        let parts = apportion(360, &[20.0, 19.0, 21.0, 10.0, 10.0, 7.0, 8.0, 5.0]);
        assert_eq!(parts, [72, 68, 76, 36, 36, 25, 29, 18]);
        assert_eq!(apportion(0, &[1.0]), [0]);
        assert_eq!(apportion(5, &[0.0, 0.0]), [0, 0]);
    }

    #[test]
    fn poisson_arrivals_start_at_zero_and_ascend() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let t = poisson_arrivals(&mut rng, 1000, 30.0);
        assert_eq!(t[0], 0.0);
        assert!(t.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn even_split_keeps_the_total() {
        assert_eq!(even_split(10, 3), [4, 3, 3]);
        assert_eq!(even_split(10, 0), [10]);
    }
}
