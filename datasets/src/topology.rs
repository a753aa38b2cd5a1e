//! The synthetic cluster shape shared by the seeds' generators (lsap-sched §4, Guo, Fox, Zhou:
//! N nodes in racks of K, S map slots each): racks `r0..`, nodes `n0..` filled rack by rack,
//! the last rack possibly smaller. O(N).

use placer_models::{Node, NodeId, Rack, RackId};

/// ⌈nodes / rack_size⌉ racks and `nodes` nodes with `map_slots` map slots and no reduce slots.
/// `rack_size` must be ≥ 1 (the generators check it first).
pub fn racks_and_nodes(nodes: usize, rack_size: usize, map_slots: u32) -> (Vec<Rack>, Vec<Node>) {
    let rack_size = rack_size.max(1);
    let racks: Vec<Rack> =
        (0..nodes.div_ceil(rack_size)).map(|r| Rack::new(RackId(format!("r{r}")))).collect();
    let nodes = (0..nodes)
        .map(|n| Node {
            id: NodeId(format!("n{n}")),
            rack: racks[n / rack_size].id.clone(),
            map_slots,
            ..Node::default()
        })
        .collect();
    (racks, nodes)
}
