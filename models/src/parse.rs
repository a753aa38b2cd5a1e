//! Parsing a snapshot from bytes with the JSON path of any shape error (docs/wire-schema.md,
//! "Errors": `pending[17].replicas[2]`).

use crate::error::ModelError;
use crate::request::PlaceRequest;
use serde::Deserialize;

/// Parses a v1 snapshot. Syntax errors become [`ModelError::MalformedJson`], shape errors
/// (missing field, wrong type, negative count, unknown algorithm) [`ModelError::InvalidField`],
/// each with the path of the field the parser was in. Does not validate references: call
/// [`crate::validate`] next.
///
/// A body of the common shape is read once by the fast reader (`fast_read`: byte by byte
/// where it can be exactly what `serde_json` would read, by `serde_json` elsewhere); one it
/// declines is read once by `serde_json`, without tracking paths; only a body that fails is read
/// again with `serde_path_to_error` for the path of its error (the same deserializer, so the
/// same message).
///
/// # Complexity
/// O(bytes) time; memory the parsed snapshot.
///
/// A body whose shape does not parse but whose top-level `schema_version` does, and is not
/// [`crate::SCHEMA_VERSION`], is [`ModelError::UnsupportedSchemaVersion`]: another version's
/// snapshot is refused for its version, not for a field that version may have changed.
///
/// # Errors
/// [`ModelError::MalformedJson`], [`ModelError::InvalidField`] or
/// [`ModelError::UnsupportedSchemaVersion`], as above.
pub fn parse_request(bytes: &[u8]) -> Result<PlaceRequest, ModelError> {
    if let Some(request) = crate::fast_read::read(bytes) {
        return Ok(request);
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    match PlaceRequest::deserialize(&mut de).and_then(|r| de.end().map(|()| r)) {
        Ok(request) => Ok(request),
        Err(_) => Err(parse_error(bytes)),
    }
}

/// The error of a body that failed to parse, with its path: the body read again while tracking
/// the path.
#[cold]
fn parse_error(bytes: &[u8]) -> ModelError {
    /// Only the version of a body (other fields ignored).
    #[derive(Deserialize)]
    struct Version {
        schema_version: u64,
    }
    if let Ok(Version { schema_version: found }) = serde_json::from_slice::<Version>(bytes) {
        if found != u64::from(crate::SCHEMA_VERSION) {
            return ModelError::UnsupportedSchemaVersion {
                path: "schema_version".to_owned(),
                found,
                supported: crate::SCHEMA_VERSION,
            };
        }
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let parsed: Result<PlaceRequest, _> = serde_path_to_error::deserialize(&mut de);
    match parsed {
        Ok(_) => match de.end() {
            Ok(()) => ModelError::MalformedJson {
                path: "$".to_owned(),
                message: "the body failed to parse once and parsed the second time".to_owned(),
            },
            Err(e) => ModelError::MalformedJson { path: "$".to_owned(), message: e.to_string() },
        },
        Err(e) => path_error(e),
    }
}

/// A serde_json error with the path `serde_path_to_error` tracked: a data error (wrong type,
/// missing field, bad value) is [`ModelError::InvalidField`], a syntax error
/// [`ModelError::MalformedJson`]; shared by snapshots and session deltas.
pub(crate) fn path_error(e: serde_path_to_error::Error<serde_json::Error>) -> ModelError {
    let path = display_path(&e.path().to_string());
    let inner = e.into_inner();
    let message = inner.to_string();
    if inner.is_data() {
        ModelError::InvalidField { path, message }
    } else {
        ModelError::MalformedJson { path, message }
    }
}

/// serde_path_to_error prints the root as `.` (or `?` when the error came before any key);
/// placer prints it as `$`.
fn display_path(p: &str) -> String {
    if matches!(p, "" | "." | "?") {
        "$".to_owned()
    } else {
        p.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_algorithm_names_its_path() {
        let body = br#"{"schema_version":1,"cluster":{},"policy":{"algorithm":"magic"}}"#;
        let err = parse_request(body).unwrap_err();
        assert_eq!(err.code(), "invalid_field");
        assert_eq!(err.path(), "policy.algorithm");
    }

    #[test]
    fn negative_slot_count_names_its_path() {
        let body = br#"{"schema_version":1,"cluster":{"racks":[{"id":"r"}],
            "nodes":[{"id":"a","rack":"r","map_slots":-1}]}}"#;
        let err = parse_request(body).unwrap_err();
        assert_eq!(err.code(), "invalid_field");
        assert_eq!(err.path(), "cluster.nodes[0].map_slots");
    }

    #[test]
    fn wrong_type_deep_in_an_array_names_its_path() {
        let body = br#"{"schema_version":1,"cluster":{},"jobs":[{"id":"j","pool":"p"}],
            "pending":[{"id":"t","job":"j","kind":"map","replicas":["a",7]}]}"#;
        let err = parse_request(body).unwrap_err();
        assert_eq!(err.path(), "pending[0].replicas[1]");
    }

    #[test]
    fn truncated_body_is_malformed_json() {
        let err = parse_request(br#"{"schema_version":1,"cluster":{"#).unwrap_err();
        assert_eq!(err.code(), "malformed_json");
    }

    #[test]
    fn trailing_garbage_is_malformed_json() {
        let err = parse_request(br#"{"schema_version":1,"cluster":{}} x"#).unwrap_err();
        assert_eq!(err.code(), "malformed_json");
    }

    #[test]
    fn missing_cluster_is_invalid_field() {
        let err = parse_request(br#"{"schema_version":1}"#).unwrap_err();
        assert_eq!(err.code(), "invalid_field");
    }
}
