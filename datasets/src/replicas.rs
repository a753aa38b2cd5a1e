//! HDFS-like block placement for traces without block locations (the default placement policy
//! of HDFS as FAIR, Zaharia et al. §2.1 and lsap-sched §2 describe it: three replicas, one on a
//! node of one rack and two on distinct nodes of another rack). Seeded; O(replicas) expected
//! per block.

use crate::workload::Topology;
use rand::Rng;

/// Draws `replication` distinct nodes (as indices into [`Topology::nodes`] order) for one
/// block: the first uniformly at random; the second on another rack when there is one; the
/// third on the second's rack when it has another node; any further uniformly among the rest.
/// Fewer nodes than `replication` → every node once. Deterministic for the RNG's state.
pub fn hdfs_replicas<R: Rng>(
    rack_of: &[usize],
    nodes_of_rack: &[Vec<usize>],
    replication: usize,
    rng: &mut R,
) -> Vec<usize> {
    if replication == 0 || rack_of.is_empty() {
        return Vec::new();
    }
    let first = rng.random_range(0..rack_of.len());
    hdfs_replicas_from(first, rack_of, nodes_of_rack, replication, rng)
}

/// [`hdfs_replicas`] with the first replica on node `first` (< nodes): HDFS puts it on the
/// writer's own node when the writer runs on a DataNode, the rest as [`hdfs_replicas`] does.
pub fn hdfs_replicas_from<R: Rng>(
    first: usize,
    rack_of: &[usize],
    nodes_of_rack: &[Vec<usize>],
    replication: usize,
    rng: &mut R,
) -> Vec<usize> {
    let n = rack_of.len();
    let want = replication.min(n);
    let mut out: Vec<usize> = Vec::with_capacity(want);
    if want == 0 {
        return out;
    }
    out.push(first);
    if want >= 2 {
        let other_racks: Vec<usize> = (0..nodes_of_rack.len())
            .filter(|&r| r != rack_of[first] && !nodes_of_rack[r].is_empty())
            .collect();
        let second = if other_racks.is_empty() {
            pick_other(n, &out, rng)
        } else {
            let r = other_racks[rng.random_range(0..other_racks.len())];
            nodes_of_rack[r][rng.random_range(0..nodes_of_rack[r].len())]
        };
        out.push(second);
    }
    if want >= 3 {
        let same: Vec<usize> =
            nodes_of_rack[rack_of[out[1]]].iter().copied().filter(|x| !out.contains(x)).collect();
        let third = if same.is_empty() {
            pick_other(n, &out, rng)
        } else {
            same[rng.random_range(0..same.len())]
        };
        out.push(third);
    }
    while out.len() < want {
        let x = pick_other(n, &out, rng);
        out.push(x);
    }
    out
}

/// A node index in 0..n not in `taken` (requires taken.len() < n).
fn pick_other<R: Rng>(n: usize, taken: &[usize], rng: &mut R) -> usize {
    loop {
        let x = rng.random_range(0..n);
        if !taken.contains(&x) {
            return x;
        }
    }
}

/// Where a job's input blocks were written, which decides their first replicas (the paper
/// that needs it, ShuffleWatcher, Ahmad et al. §5, does not say how its inputs were loaded;
/// its −38% heavy cross-rack shuffle for about 3% more remote reads implies input concentrated
/// on few racks):
/// - `Hdfs`: every block's first replica on a node drawn uniformly over the cluster, as when
///   the data was loaded from outside the cluster (HDFS then picks a random node);
/// - `WriterRack`: one rack per job (its writer's, drawn uniformly), every block's first
///   replica on a node of that rack drawn uniformly, as when a previous job's tasks on one
///   rack wrote the input;
/// - `WriterNode`: one node per job, holding every block's first replica, as when one client
///   on a DataNode wrote the input.
///
/// The second and third replicas follow HDFS's rule in every layout ([`hdfs_replicas_from`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum InputLayout {
    /// A uniform first replica per block.
    #[default]
    Hdfs,
    /// First replicas on the writer's rack.
    WriterRack,
    /// First replicas on the writer's node.
    WriterNode,
}

impl InputLayout {
    /// The layout a name stands for: `hdfs`, `writer-rack` or `writer-node`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "hdfs" => Some(Self::Hdfs),
            "writer-rack" => Some(Self::WriterRack),
            "writer-node" => Some(Self::WriterNode),
            _ => None,
        }
    }
}

/// The per-node rack index and per-rack node lists of a topology, in [`Topology::nodes`] order.
pub fn rack_index(topology: &Topology) -> (Vec<usize>, Vec<Vec<usize>>) {
    let mut rack_of = Vec::with_capacity(topology.node_count());
    let mut nodes_of_rack = vec![Vec::new(); topology.racks.len()];
    for (i, (r, _)) in topology.nodes().enumerate() {
        rack_of.push(r);
        nodes_of_rack[r].push(i);
    }
    (rack_of, nodes_of_rack)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn one_rack_then_two_on_another() {
        // 3 racks of 4 nodes: every block has replica 0 alone in its rack and replicas 1, 2
        // together on a different rack (HDFS's default policy).
        let rack_of: Vec<usize> = (0..12).map(|i| i / 4).collect();
        let nodes_of_rack: Vec<Vec<usize>> = (0..3).map(|r| (r * 4..r * 4 + 4).collect()).collect();
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..200 {
            let r = hdfs_replicas(&rack_of, &nodes_of_rack, 3, &mut rng);
            assert_eq!(r.len(), 3);
            assert_ne!(rack_of[r[0]], rack_of[r[1]]);
            assert_eq!(rack_of[r[1]], rack_of[r[2]]);
            assert_ne!(r[1], r[2]);
        }
    }

    #[test]
    fn small_clusters_get_distinct_nodes() {
        // One rack of 2 nodes: replication 3 gives both nodes once.
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut r = hdfs_replicas(&[0, 0], &[vec![0, 1]], 3, &mut rng);
        r.sort_unstable();
        assert_eq!(r, [0, 1]);
        assert!(hdfs_replicas(&[], &[], 3, &mut rng).is_empty());
    }
}
