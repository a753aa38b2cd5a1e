//! The answers' wire form, `k8s.io/kube-scheduler/extender/v1` types.go: `ExtenderFilterResult`
//! and `HostPriorityList`, with the Go field names as keys exactly as Go's `encoding/json`
//! writes them (the structs have no json tags): `Nodes`, `NodeNames`, `FailedNodes`,
//! `FailedAndUnresolvableNodes`, `Error`; `Host`, `Score`. Every field is written, `null` for
//! the list of the other mode, like Go.

use super::go_json::folds_to;
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// `ExtenderFilterResult`.
#[derive(Debug, Serialize)]
pub struct FilterResult<'v> {
    /// `Nodes` mode: the `NodeList` as sent, with only the nodes that pass.
    #[serde(rename = "Nodes")]
    pub nodes: Option<NodeListOut<'v>>,
    /// `NodeNames` mode: the names that pass.
    #[serde(rename = "NodeNames")]
    pub node_names: Option<Vec<&'v str>>,
    /// Failed nodes that preemption could make fit, with why.
    #[serde(rename = "FailedNodes")]
    pub failed: BTreeMap<&'v str, String>,
    /// Failed nodes that preemption cannot help, with why (kube-scheduler reads these first).
    #[serde(rename = "FailedAndUnresolvableNodes")]
    pub unresolvable: BTreeMap<&'v str, String>,
    /// An error for the whole call; empty when the call succeeded.
    #[serde(rename = "Error")]
    pub error: String,
}

/// A `NodeList` echoed with other items: every key of the list as sent (`apiVersion`, `kind`,
/// `metadata`) but `items`, which is written as `items` with the kept nodes, unchanged.
#[derive(Debug)]
pub struct NodeListOut<'v> {
    /// The list as sent.
    pub list: &'v Map<String, Value>,
    /// The items to write.
    pub items: Vec<&'v Value>,
}

impl Serialize for NodeListOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in self.list {
            if !folds_to(key, "items") {
                map.serialize_entry(key, value)?;
            }
        }
        map.serialize_entry("items", &self.items)?;
        map.end()
    }
}

/// One entry of `HostPriorityList`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HostPriority<'v> {
    /// The node.
    #[serde(rename = "Host")]
    pub host: &'v str,
    /// Its score, 0..=10 (`MaxExtenderPriority`), higher is better.
    #[serde(rename = "Score")]
    pub score: i64,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn go_field_names_and_nulls() {
        let list = json!({"kind": "NodeList", "apiVersion": "v1", "Items": [1, 2]});
        let node = json!({"metadata": {"name": "a"}});
        let result = FilterResult {
            nodes: Some(NodeListOut { list: list.as_object().unwrap(), items: vec![&node] }),
            node_names: None,
            failed: BTreeMap::new(),
            unresolvable: BTreeMap::from([("b", "why".to_owned())]),
            error: String::new(),
        };
        assert_eq!(
            serde_json::to_value(&result).unwrap(),
            json!({"Nodes": {"apiVersion": "v1", "kind": "NodeList", "items": [node]},
                   "NodeNames": null, "FailedNodes": {},
                   "FailedAndUnresolvableNodes": {"b": "why"}, "Error": ""})
        );
        let hp = serde_json::to_string(&[HostPriority { host: "n", score: 10 }]).unwrap();
        assert_eq!(hp, r#"[{"Host":"n","Score":10}]"#);
    }
}
