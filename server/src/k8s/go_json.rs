//! Reading JSON as Go's `encoding/json` decodes it into the untagged structs of
//! `k8s.io/kube-scheduler/extender/v1` and into `k8s.io/api/core/v1` objects (Go `encoding/json`
//! package docs, Unmarshal): a struct field matches a key equal to its name under Unicode
//! simple case folding (`bytes.EqualFold`: `pod`, `POD` and `Pod` all fill `Pod`; so do the
//! Kelvin sign for `k` and the long s for `s`), unknown keys are ignored, and `null` leaves a
//! field at its zero value. Map keys (labels, annotations, resource names) match exactly.
//!
//! When a body has several keys that fold to one field (kube-scheduler never sends that), Go
//! keeps the last one in the document; here the one sorting last wins (`serde_json` keeps
//! object keys sorted).

use crate::error::ServerError;
use serde_json::{Map, Value};
use std::fmt;

/// Where a value sits in the request body, for error messages: `Pod.spec.containers[0]`.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Path<'p> {
    /// The body itself, `$`.
    Root,
    /// A struct field, by its Go name.
    Field(&'p Path<'p>, &'static str),
    /// An array element.
    Index(&'p Path<'p>, usize),
    /// A map entry (a label, an annotation, a resource name).
    Key(&'p Path<'p>, &'p str),
}

impl Path<'_> {
    /// The path of field `name` below this one.
    pub(crate) fn field(&self, name: &'static str) -> Path<'_> {
        Path::Field(self, name)
    }

    /// The path of element `i` below this one.
    pub(crate) fn index(&self, i: usize) -> Path<'_> {
        Path::Index(self, i)
    }

    /// The path of map entry `key` below this one.
    pub(crate) fn key<'k>(&'k self, key: &'k str) -> Path<'k> {
        Path::Key(self, key)
    }

    /// A 400 `invalid_field` error at this path.
    pub(crate) fn error(&self, message: impl Into<String>) -> ServerError {
        ServerError::ExtenderArgs { path: self.to_string(), message: message.into() }
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Root => f.write_str("$"),
            Path::Field(Path::Root, name) => f.write_str(name),
            Path::Field(parent, name) => write!(f, "{parent}.{name}"),
            Path::Index(parent, i) => write!(f, "{parent}[{i}]"),
            Path::Key(parent, key) => write!(f, "{parent}[{key:?}]"),
        }
    }
}

/// Whether JSON key `key` fills Go struct field `name`: equal under Unicode simple case
/// folding, char by char (`bytes.EqualFold`).
pub(crate) fn folds_to(key: &str, name: &str) -> bool {
    key.len() <= 4 * name.len()
        && key.chars().count() == name.chars().count()
        && key.chars().zip(name.chars()).all(|(a, b)| {
            a == b || a.to_lowercase().eq(b.to_lowercase()) || a.to_uppercase().eq(b.to_uppercase())
        })
}

/// The value of struct field `name` in `object`: the last key folding to it, `None` when
/// absent or `null`.
///
/// # Complexity
/// O(keys of `object` · len(name)).
pub(crate) fn field<'v>(object: &'v Map<String, Value>, name: &str) -> Option<&'v Value> {
    object.iter().rev().find(|(k, _)| folds_to(k, name)).map(|(_, v)| v).filter(|v| !v.is_null())
}

/// What a JSON value is, for "expected an object, found a string".
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `value` as an object (Go struct or map).
///
/// # Errors
/// `invalid_field` at `path` when it is not an object.
pub(crate) fn object<'v>(
    value: &'v Value,
    path: &Path<'_>,
) -> Result<&'v Map<String, Value>, ServerError> {
    value
        .as_object()
        .ok_or_else(|| path.error(format!("expected an object, found {}", kind(value))))
}

/// `value` as an array (Go slice).
///
/// # Errors
/// `invalid_field` at `path` when it is not an array.
pub(crate) fn array<'v>(value: &'v Value, path: &Path<'_>) -> Result<&'v [Value], ServerError> {
    value
        .as_array()
        .map(Vec::as_slice)
        .ok_or_else(|| path.error(format!("expected an array, found {}", kind(value))))
}

/// `value` as a string.
///
/// # Errors
/// `invalid_field` at `path` when it is not a string.
pub(crate) fn string<'v>(value: &'v Value, path: &Path<'_>) -> Result<&'v str, ServerError> {
    value.as_str().ok_or_else(|| path.error(format!("expected a string, found {}", kind(value))))
}

/// Struct field `name` of `object` as an object, `None` when absent or `null`.
///
/// # Errors
/// `invalid_field` when present with another type.
pub(crate) fn object_field<'v>(
    object_: &'v Map<String, Value>,
    name: &'static str,
    path: &Path<'_>,
) -> Result<Option<&'v Map<String, Value>>, ServerError> {
    field(object_, name).map(|v| object(v, &path.field(name))).transpose()
}

/// Struct field `name` of `object` as an array, `None` when absent or `null`.
///
/// # Errors
/// `invalid_field` when present with another type.
pub(crate) fn array_field<'v>(
    object_: &'v Map<String, Value>,
    name: &'static str,
    path: &Path<'_>,
) -> Result<Option<&'v [Value]>, ServerError> {
    field(object_, name).map(|v| array(v, &path.field(name))).transpose()
}

/// Struct field `name` of `object` as a string, `None` when absent or `null`.
///
/// # Errors
/// `invalid_field` when present with another type.
pub(crate) fn string_field<'v>(
    object_: &'v Map<String, Value>,
    name: &'static str,
    path: &Path<'_>,
) -> Result<Option<&'v str>, ServerError> {
    field(object_, name).map(|v| string(v, &path.field(name))).transpose()
}

/// Struct field `name` of `object` as a Go `map[string]string` (labels, annotations): the map,
/// `None` when absent or `null`. Every value must be a string (or `null`, Go's "").
///
/// # Errors
/// `invalid_field` when it is not an object or a value is not a string.
pub(crate) fn string_map_field<'v>(
    object_: &'v Map<String, Value>,
    name: &'static str,
    path: &Path<'_>,
) -> Result<Option<&'v Map<String, Value>>, ServerError> {
    let Some(map) = object_field(object_, name, path)? else {
        return Ok(None);
    };
    let here = path.field(name);
    for (key, value) in map {
        if !(value.is_string() || value.is_null()) {
            return Err(here.key(key).error(format!("expected a string, found {}", kind(value))));
        }
    }
    Ok(Some(map))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Go's `bytes.EqualFold`, as `encoding/json` matches untagged fields.
    #[test]
    fn go_case_folding() {
        for key in ["Pod", "pod", "POD", "pOd"] {
            assert!(folds_to(key, "Pod"), "{key}");
        }
        assert!(folds_to("nodenames", "NodeNames"));
        assert!(folds_to("\u{212A}ind", "kind")); // Kelvin sign folds to k
        assert!(folds_to("\u{017F}core", "Score")); // long s folds to s
        for key in ["Pods", "Po", "Pöd", "", "Pod "] {
            assert!(!folds_to(key, "Pod"), "{key}");
        }
    }

    #[test]
    fn fields_ignore_null_and_unknown_keys() {
        let v = json!({"pod": {"x": 1}, "Nodes": null, "Extra": 3});
        let m = v.as_object().unwrap();
        assert!(field(m, "Pod").is_some());
        assert!(field(m, "Nodes").is_none());
        assert!(field(m, "NodeNames").is_none());
        // "Pod" sorts before "pod": the latter wins.
        let v = json!({"Pod": 1, "pod": 2});
        assert_eq!(field(v.as_object().unwrap(), "Pod"), Some(&json!(2)));
    }

    #[test]
    fn wrong_types_name_their_path() {
        let v = json!({"metadata": {"labels": {"a": 1}}});
        let root = Path::Root;
        let pod = root.field("Pod");
        let meta = object_field(v.as_object().unwrap(), "metadata", &pod).unwrap().unwrap();
        let err = string_map_field(meta, "labels", &pod.field("metadata")).unwrap_err();
        assert_eq!(err.path(), r#"Pod.metadata.labels["a"]"#);
        let err = array(&json!("x"), &pod.field("spec").field("containers")).unwrap_err();
        assert_eq!(err.path(), "Pod.spec.containers");
        assert!(err.to_string().contains("found a string"), "{err}");
        assert_eq!(root.index(2).to_string(), "$[2]");
    }
}
