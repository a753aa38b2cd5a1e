//! The scheduler extender's node → rack map file (`--k8s-rack-map FILE`, `k8s_rack_map` in the
//! config file): the racks of nodes kube-scheduler names without their labels, as it does with
//! `nodeCacheCapable: true` (`NodeNames` in `k8s.io/kube-scheduler/extender/v1`'s
//! `ExtenderArgs`). Read with the config and swapped with it on every reload.
//!
//! Format: one node per line, `NODE RACK` separated by spaces or tabs, what
//! `kubectl get nodes --no-headers -o custom-columns=NAME:.metadata.name,RACK:.metadata.labels.topology\.kubernetes\.io/rack`
//! prints; blank lines and lines starting with `#` are skipped; a rack of `<none>` (kubectl's
//! missing label) leaves the node out. A node listed twice with different racks, a line with
//! one field or more than two, is an error naming its line. At most [`MAX_NODES`] nodes.

use super::racks::MAX_NODES;
use crate::error::ServerError;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// A parsed rack map, shared by the requests of one config generation. Two are equal when
/// their contents are (a reload that rewrites the file unchanged changes nothing).
#[derive(Clone, Debug, Default)]
pub struct RackFile(pub Arc<HashMap<String, String>>);

impl PartialEq for RackFile {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || *self.0 == *other.0
    }
}

impl Eq for RackFile {}

impl RackFile {
    /// The rack the file gives `node`.
    pub fn rack(&self, node: &str) -> Option<&str> {
        self.0.get(node).map(String::as_str)
    }

    /// Nodes listed.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// No node listed.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Parses the text of a rack map (see the module docs). O(text).
///
/// # Errors
/// (1-based line, message) of the first bad line.
///
/// ```text
/// "n1 r1\n# spare\nn2\tr1\nn3 <none>\n" → {n1: r1, n2: r1}
/// ```
pub fn parse(text: &str) -> Result<RackFile, (usize, String)> {
    let mut map: HashMap<String, String> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [node, rack] = fields[..] else {
            return Err((
                line_no,
                format!("expected `NODE RACK`, found {} field(s): {line:?}", fields.len()),
            ));
        };
        if rack == "<none>" {
            continue;
        }
        match map.get(node) {
            Some(known) if known != rack => {
                return Err((line_no, format!("node {node} listed in racks {known} and {rack}")));
            }
            Some(_) => {}
            None if map.len() >= MAX_NODES => {
                return Err((line_no, format!("more than {MAX_NODES} nodes")));
            }
            None => {
                map.insert(node.to_owned(), rack.to_owned());
            }
        }
    }
    Ok(RackFile(Arc::new(map)))
}

/// Reads and parses the rack map at `path`, under the operator files' size and time limits.
///
/// # Errors
/// [`ServerError::Config`] naming the file, the key `k8s_rack_map`, and the line of a bad
/// entry or the read error.
pub fn load(path: &Path) -> Result<RackFile, ServerError> {
    let file = path.display().to_string();
    let text = crate::operator_file::read_text(
        path,
        crate::operator_file::MAX_ALLOCATIONS_BYTES,
        crate::operator_file::READ_TIMEOUT,
    )
    .map_err(|message| ServerError::Config {
        file: file.clone(),
        key: Some("k8s_rack_map".to_owned()),
        line: None,
        message,
    })?;
    parse(&text).map_err(|(line, message)| ServerError::Config {
        file,
        key: Some("k8s_rack_map".to_owned()),
        line: Some(line),
        message,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn kubectl_output_comments_and_missing_labels() {
        let map = parse("# rack map\nn1   r1\n\nn2\tr1\nn3 <none>\nn4 r2\nn1 r1\n").unwrap();
        assert_eq!(map.len(), 3);
        assert_eq!(
            [map.rack("n1"), map.rack("n2"), map.rack("n3"), map.rack("n4")],
            [Some("r1"), Some("r1"), None, Some("r2")]
        );
    }

    #[test]
    fn bad_lines_are_named() {
        assert_eq!(parse("n1 r1\nn2\n").unwrap_err().0, 2);
        assert_eq!(parse("n1 r1 extra\n").unwrap_err().0, 1);
        let (line, message) = parse("n1 r1\n\nn1 r2\n").unwrap_err();
        assert_eq!(line, 3);
        assert!(message.contains("r1 and r2"), "{message}");
        assert!(parse("").unwrap().is_empty());
    }
}
