//! What placer reads of a candidate node (`k8s.io/api/core/v1` Node, sent in
//! `ExtenderArgs.Nodes` when the extender is not `nodeCacheCapable`): its name, its rack label
//! and its allocatable cpu and memory (`status.allocatable`; a resource the node does not list
//! is one it has none of, as in the scheduler's NodeResourcesFit).

use super::go_json::{object_field, string_field, string_map_field, Path};
use super::pod::{amounts, Amounts};
use crate::error::ServerError;
use serde_json::Value;

/// One node of `Nodes.items`.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeInfo<'v> {
    /// `metadata.name`.
    pub name: &'v str,
    /// The value of its rack label, when it has one (non-empty).
    pub rack: Option<&'v str>,
    /// `status.allocatable` cpu (millicores) and memory (bytes).
    pub allocatable: Amounts,
    /// The node object as sent, echoed back by `filter`.
    pub raw: &'v Value,
}

/// Reads node `raw` at `path`, taking its rack from label `rack_label`.
///
/// # Complexity
/// O(size of the node object).
///
/// # Errors
/// `invalid_field` (400) for a missing or empty `metadata.name`, a field of the wrong type or
/// a malformed allocatable quantity.
pub fn read_node<'v>(
    raw: &'v Value,
    path: &Path<'_>,
    rack_label: &str,
) -> Result<NodeInfo<'v>, ServerError> {
    let node = super::go_json::object(raw, path)?;
    let meta_path = path.field("metadata");
    let (name, rack) = match object_field(node, "metadata", path)? {
        Some(meta) => {
            let name = string_field(meta, "name", &meta_path)?.unwrap_or("");
            let labels = string_map_field(meta, "labels", &meta_path)?;
            let rack = labels.and_then(|l| l.get(rack_label)).and_then(Value::as_str);
            (name, rack.filter(|r| !r.is_empty()))
        }
        None => ("", None),
    };
    if name.is_empty() {
        return Err(meta_path.field("name").error("a node needs a non-empty name"));
    }
    let allocatable = match object_field(node, "status", path)? {
        Some(status) => {
            let status_path = path.field("status");
            match object_field(status, "allocatable", &status_path)? {
                Some(list) => amounts(list, &status_path.field("allocatable"))?,
                None => Amounts::default(),
            }
        }
        None => Amounts::default(),
    };
    Ok(NodeInfo { name, rack, allocatable, raw })
}

/// Checks `key` as a Kubernetes label key (Kubernetes docs, "Labels and Selectors", syntax and
/// character set): an optional DNS-subdomain prefix (≤ 253 characters of lower-case
/// alphanumerics, `-` and `.`) and `/`, then a name of 1 to 63 characters, alphanumeric at both
/// ends, with `-`, `_` and `.` between.
///
/// # Errors
/// Why `key` is not a label key.
pub fn check_label_key(key: &str) -> Result<(), String> {
    let (prefix, name) = match key.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if let Some(prefix) = prefix {
        let ok_char =
            |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.';
        let ends = |s: &str| {
            s.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
                && s.chars().last().is_some_and(|c| c.is_ascii_alphanumeric())
        };
        if prefix.is_empty() || prefix.len() > 253 || !prefix.chars().all(ok_char) || !ends(prefix)
        {
            return Err(format!("{key:?}: the prefix before '/' must be a DNS subdomain"));
        }
    }
    let ok_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    let ends = name.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && name.chars().last().is_some_and(|c| c.is_ascii_alphanumeric());
    if name.is_empty() || name.len() > 63 || !name.chars().all(ok_char) || !ends {
        return Err(format!(
            "{key:?}: a label name is 1 to 63 alphanumerics, '-', '_' or '.', alphanumeric at both ends"
        ));
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn name_rack_and_allocatable() {
        let raw = json!({"metadata": {"name": "n1", "labels": {
            "topology.kubernetes.io/rack": "r7", "kubernetes.io/os": "linux"}},
            "status": {"allocatable": {"cpu": "3920m", "memory": "15Gi", "pods": "110"},
                       "capacity": {"cpu": "4"}}});
        let n = read_node(&raw, &Path::Root, "topology.kubernetes.io/rack").unwrap();
        assert_eq!((n.name, n.rack), ("n1", Some("r7")));
        assert_eq!(n.allocatable, Amounts { cpu_milli: 3920, memory_bytes: 15 << 30 });
        let other = read_node(&raw, &Path::Root, "example.com/rack").unwrap();
        assert_eq!(other.rack, None);
    }

    #[test]
    fn label_keys() {
        for good in ["topology.kubernetes.io/rack", "rack", "example.com/rack-id", "a_b.c"] {
            assert!(check_label_key(good).is_ok(), "{good}");
        }
        for bad in ["", "/rack", "Example.com/rack", "a/b/c", "-rack", "rack-", "ra ck", "x/"] {
            assert!(check_label_key(bad).is_err(), "{bad}");
        }
        assert!(check_label_key(&"r".repeat(64)).is_err());
    }

    #[test]
    fn a_node_without_a_name_is_refused() {
        let path = Path::Root.field("Nodes");
        let items = path.field("items");
        let e = read_node(&json!({"metadata": {}}), &items.index(3), "r").unwrap_err();
        assert_eq!(e.path(), "Nodes.items[3].metadata.name");
        let e = read_node(&json!("n1"), &items.index(0), "r").unwrap_err();
        assert_eq!(e.path(), "Nodes.items[0]");
    }
}
