//! Racks of nodes placer has seen (the scheduler extender's): a bounded map node → rack label
//! value, learned from every `Nodes`-mode call (the only one that carries labels), so that a
//! replica node missing from a call's candidates (kube-scheduler sends only the nodes that passed
//! its own filters) and, in `NodeNames` mode, the candidates themselves keep their racks.
//!
//! A node whose rack is not known is treated as a rack of its own: placer then knows only
//! that its replica holders are node-local. The map holds at most [`MAX_NODES`] nodes (more
//! than Kubernetes' largest supported cluster, 5,000 nodes); past that, new nodes are not
//! learned. It is forgotten when the rack label setting changes. The map is per process: it is
//! a cache of the cluster's topology, not placement state. A rack map file
//! ([`super::rack_file`]) in the config wins over it: its racks are the operator's statement.

use super::rack_file::RackFile;
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

/// The shared map. Clones share it. A request's view may carry the rack map file in force
/// ([`RackMap::with_file`]), which wins over what was learned.
#[derive(Clone, Debug, Default)]
pub struct RackMap {
    inner: Arc<RwLock<Learned>>,
    /// The config's node → rack file (`--k8s-rack-map`), if any.
    file: Option<RackFile>,
}

impl RackMap {
    /// This map (the learned racks, shared) with `file` as the rack map file in force.
    pub fn with_file(&self, file: Option<RackFile>) -> Self {
        Self { inner: Arc::clone(&self.inner), file }
    }

    /// The rack the rack map file gives `node`, if a file is in force and lists it.
    pub fn file_rack(&self, node: &str) -> Option<&str> {
        self.file.as_ref().and_then(|f| f.rack(node))
    }

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

    /// The racks of `nodes`: the rack map file's, else those learned with `label` (`None` for
    /// those not known).
    ///
    /// # Complexity
    /// O(nodes) expected.
    pub fn racks_of(&self, label: &str, nodes: &[&str]) -> Vec<Option<String>> {
        let learned = self.inner.read().unwrap_or_else(PoisonError::into_inner);
        nodes
            .iter()
            .map(|n| match self.file_rack(n) {
                Some(rack) => Some(rack.to_owned()),
                None if learned.label == label => learned.racks.get(*n).cloned(),
                None => None,
            })
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

    #[test]
    fn the_file_wins_over_learned_racks_and_shares_them() {
        let map = RackMap::default();
        map.learn("rack", [("n1", Some("r1")), ("n2", Some("r1"))]);
        let file = crate::k8s::rack_file::parse("n2 r9\nn5 r5\n").unwrap();
        let view = map.with_file(Some(file));
        assert_eq!(
            view.racks_of("rack", &["n1", "n2", "n5", "n6"]),
            [Some("r1".into()), Some("r9".into()), Some("r5".into()), None]
        );
        // The file applies whatever the label; learning through the view reaches the map.
        assert_eq!(view.racks_of("zone", &["n1", "n5"]), [None, Some("r5".into())]);
        view.learn("rack", [("n6", Some("r6"))]);
        assert_eq!(map.racks_of("rack", &["n6", "n5"]), [Some("r6".into()), None]);
    }
}
