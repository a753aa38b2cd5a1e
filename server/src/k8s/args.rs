//! The request body of both verbs, `ExtenderArgs` of `k8s.io/kube-scheduler/extender/v1`
//! (types.go): `{"Pod": v1.Pod, "Nodes": v1.NodeList | null, "NodeNames": [string] | null}`,
//! keys being the Go field names (the struct has no json tags), matched as Go matches them
//! ([`super::go_json`]).
//!
//! kube-scheduler fills `Nodes` when the extender is not `nodeCacheCapable`, `NodeNames` when
//! it is. When both are sent, `Nodes` is used (it says more); when neither, or no `Pod`, the
//! body is refused (400): an extender cannot answer without them.

use super::go_json::{array, array_field, field, object, object_field, string, Path};
use super::node::{read_node, NodeInfo};
use super::pod::{read_pod, PodInput};
use crate::error::ServerError;
use serde_json::{Map, Value};

/// The candidate nodes, as sent.
#[derive(Debug)]
pub enum Candidates<'v> {
    /// `Nodes` mode: the `NodeList` object and its items, read.
    Nodes {
        /// The list as sent (its `apiVersion`, `kind`, `metadata` are echoed by `filter`).
        list: &'v Map<String, Value>,
        /// Its items.
        nodes: Vec<NodeInfo<'v>>,
    },
    /// `NodeNames` mode (`nodeCacheCapable: true`): names only.
    Names(Vec<&'v str>),
}

impl Candidates<'_> {
    /// The candidates' names, in the order sent.
    pub fn names(&self) -> Vec<&str> {
        match self {
            Candidates::Nodes { nodes, .. } => nodes.iter().map(|n| n.name).collect(),
            Candidates::Names(names) => names.clone(),
        }
    }
}

/// A decoded `ExtenderArgs`.
#[derive(Debug)]
pub struct Args<'v> {
    /// The pod being scheduled.
    pub pod: PodInput,
    /// Where it may go.
    pub candidates: Candidates<'v>,
}

/// Parses the body as JSON.
///
/// # Complexity
/// O(body).
///
/// # Errors
/// 400 `malformed_json` when it is not JSON.
pub fn parse_body(bytes: &[u8]) -> Result<Value, ServerError> {
    serde_json::from_slice(bytes).map_err(|e| ServerError::ExtenderJson { message: e.to_string() })
}

/// Reads `body` as `ExtenderArgs`, node racks from label `rack_label`.
///
/// # Complexity
/// O(body).
///
/// # Errors
/// 400 `invalid_field` naming the path: the body is not an object, `Pod` is missing or not
/// an object, neither `Nodes` nor `NodeNames` is sent, a field has the wrong type, a node
/// has no name, a quantity or `placer.io/input-bytes` is malformed.
pub fn read_args<'v>(body: &'v Value, rack_label: &str) -> Result<Args<'v>, ServerError> {
    let root = Path::Root;
    let args = object(body, &root)?;
    let pod_path = root.field("Pod");
    let pod = match field(args, "Pod") {
        Some(pod) => read_pod(object(pod, &pod_path)?, &pod_path)?,
        None => return Err(pod_path.error("ExtenderArgs needs the Pod being scheduled")),
    };
    // `NodeNames` is checked even when `Nodes` wins, so that a body the schema refuses is
    // refused whichever mode it would have used.
    let names_path = root.field("NodeNames");
    let names = match field(args, "NodeNames") {
        Some(names) => Some(
            array(names, &names_path)?
                .iter()
                .enumerate()
                .map(|(i, name)| {
                    let here = names_path.index(i);
                    let name = string(name, &here)?;
                    if name.is_empty() {
                        return Err(here.error("a node name is empty"));
                    }
                    Ok(name)
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
        None => None,
    };
    let nodes_path = root.field("Nodes");
    if let Some(list) = object_field(args, "Nodes", &root)? {
        let items_path = nodes_path.field("items");
        let items = array_field(list, "items", &nodes_path)?.unwrap_or(&[]);
        let nodes = items
            .iter()
            .enumerate()
            .map(|(i, raw)| read_node(raw, &items_path.index(i), rack_label))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(Args { pod, candidates: Candidates::Nodes { list, nodes } });
    }
    match names {
        Some(names) => Ok(Args { pod, candidates: Candidates::Names(names) }),
        None => Err(root.error("ExtenderArgs needs Nodes or NodeNames (both are null or absent)")),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(body: Value) -> ServerError {
        read_args(&body, "rack").unwrap_err()
    }

    #[test]
    fn either_mode_and_case_insensitive_keys() {
        let body = json!({"pod": {}, "nodenames": ["a", "b"]});
        let args = read_args(&body, "rack").unwrap();
        assert_eq!(args.candidates.names(), ["a", "b"]);
        assert!(matches!(args.candidates, Candidates::Names(_)));
        let body = json!({"Pod": {}, "Nodes": {"items": [{"metadata": {"name": "a"}}]},
                          "NodeNames": ["x"]});
        let args = read_args(&body, "rack").unwrap();
        assert!(matches!(args.candidates, Candidates::Nodes { .. }));
        assert_eq!(args.candidates.names(), ["a"]);
        let body = json!({"Pod": {}, "Nodes": {"items": null}});
        assert!(read_args(&body, "rack").unwrap().candidates.names().is_empty());
    }

    #[test]
    fn malformed_args_name_their_path() {
        assert_eq!(err(json!([])).path(), "$");
        assert_eq!(err(json!({"NodeNames": []})).path(), "Pod");
        assert_eq!(err(json!({"Pod": null, "NodeNames": []})).path(), "Pod");
        assert_eq!(err(json!({"Pod": "p", "NodeNames": []})).path(), "Pod");
        assert_eq!(err(json!({"Pod": {}})).path(), "$");
        assert_eq!(err(json!({"Pod": {}, "NodeNames": "a"})).path(), "NodeNames");
        assert_eq!(err(json!({"Pod": {}, "NodeNames": ["a", 1]})).path(), "NodeNames[1]");
        assert_eq!(err(json!({"Pod": {}, "NodeNames": [""]})).path(), "NodeNames[0]");
        // schemathesis' case: NodeNames is checked even when Nodes is sent and wins.
        let both = json!({"Pod": {}, "Nodes": {}, "NodeNames": [{}]});
        assert_eq!(err(both).path(), "NodeNames[0]");
        assert_eq!(err(json!({"Pod": {}, "Nodes": []})).path(), "Nodes");
        assert_eq!(err(json!({"Pod": {}, "Nodes": {"items": {}}})).path(), "Nodes.items");
        let e = err(json!({"Pod": {}, "Nodes": {"items": [{"metadata": {"name": "a"},
            "status": {"allocatable": {"memory": "lots"}}}]}}));
        assert_eq!(e.path(), r#"Nodes.items[0].status.allocatable["memory"]"#);
        assert_eq!(e.code(), "invalid_field");
        assert_eq!(parse_body(b"{").unwrap_err().code(), "malformed_json");
    }
}
