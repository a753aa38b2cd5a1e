//! Racks of nodes placer has seen (issue 17 item 5): a bounded map node → rack label value,
//! learned from every `Nodes`-mode call (the only one that carries labels), so that a replica
//! node missing from a call's candidates (kube-scheduler sends only the nodes that passed its
//! own filters) and, in `NodeNames` mode, the candidates themselves keep their racks.
//!
//! A node whose rack is not known is treated as a rack of its own: placer then knows only
//! that its replica holders are node-local. The map holds at most [`MAX_NODES`] nodes (more
//! than Kubernetes' largest supported cluster, 5,000 nodes); past that, new nodes are not
//! learned. It is forgotten when the rack label setting changes. The map is per process: it is
//! a cache of the cluster's topology, not placement state.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};

/// Nodes remembered at most.
pub const MAX_NODES: usize = 65_536;

#[derive(Debug, Default)]
struct Learned {
    /// The label the racks were read from.
    label: String,
    /// node → rack.
    racks: HashMap<String, String>,
}

/// The shared map. Clones share it.
#[derive(Clone, Debug, Default)]
pub struct RackMap {
    inner: Arc<RwLock<Learned>>,
}

impl RackMap {
    /// Records each (node, rack label value) of a `Nodes`-mode call read with `label`; a node
    /// without the label forgets its rack.
    ///
    /// # Complexity
    /// O(nodes) expected.
    pub fn learn<'a>(
        &self,
        label: &str,
        nodes: impl IntoIterator<Item = (&'a str, Option<&'a str>)>,
    ) {
        let mut learned = self.inner.write().unwrap_or_else(PoisonError::into_inner);
        if learned.label != label {
            learned.racks.clear();
            label.clone_into(&mut learned.label);
        }
        for (node, rack) in nodes {
            match rack {
                Some(rack) => {
                    if let Some(known) = learned.racks.get_mut(node) {
                        if known != rack {
                            rack.clone_into(known);
                        }
                    } else if learned.racks.len() < MAX_NODES {
                        learned.racks.insert(node.to_owned(), rack.to_owned());
                    }
                }
                None => {
                    learned.racks.remove(node);
                }
            }
        }
    }

    /// The racks of `nodes` learned with `label` (`None` for those not known).
    ///
    /// # Complexity
    /// O(nodes) expected.
    pub fn racks_of(&self, label: &str, nodes: &[&str]) -> Vec<Option<String>> {
        let learned = self.inner.read().unwrap_or_else(PoisonError::into_inner);
        nodes
            .iter()
            .map(|n| if learned.label == label { learned.racks.get(*n).cloned() } else { None })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learns_updates_forgets() {
        let map = RackMap::default();
        map.learn("rack", [("n1", Some("r1")), ("n2", Some("r1"))]);
        map.learn("rack", [("n2", Some("r2")), ("n1", None)]);
        assert_eq!(map.racks_of("rack", &["n1", "n2", "n3"]), [None, Some("r2".into()), None]);
        assert_eq!(map.racks_of("zone", &["n2"]), [None]);
        map.learn("zone", [("n3", Some("z"))]);
        assert_eq!(map.racks_of("zone", &["n2", "n3"]), [None, Some("z".into())]);
    }
}
