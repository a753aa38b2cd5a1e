//! The one error type of `placer-models`: a structured rejection of a snapshot, carrying a
//! machine-readable code, the JSON path of the offending field and a message (docs/wire-schema.md,
//! "Errors").

use serde::Serialize;

/// Why a snapshot was rejected. Every variant names the field (`path`, e.g.
/// `pending[17].replicas[2]`) so a client can point at its own bug.
#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum ModelError {
    /// The body is not JSON at all (syntax error, truncated, wrong encoding).
    #[error("{path}: malformed JSON: {message}")]
    MalformedJson {
        /// Where the parser stopped (`line 3 column 7` is in the message; the path is the
        /// deepest field reached).
        path: String,
        /// The parser's description.
        message: String,
    },
    /// Well-formed JSON whose shape does not match the schema: a missing field, a wrong type,
    /// a negative count, an unknown enum value such as an unknown algorithm.
    #[error("{path}: {message}")]
    InvalidField {
        /// JSON path of the field.
        path: String,
        /// What was wrong.
        message: String,
    },
    /// `schema_version` is not 1.
    #[error("{path}: unsupported schema_version {found}, this build speaks {supported}")]
    UnsupportedSchemaVersion {
        /// Always `schema_version`.
        path: String,
        /// The version sent.
        found: u64,
        /// The version understood.
        supported: u32,
    },
    /// An id is the empty string.
    #[error("{path}: empty id")]
    EmptyId {
        /// JSON path of the id.
        path: String,
    },
    /// An id appears twice among entities of the same kind (tasks: across pending and
    /// running together).
    #[error("{path}: duplicate id {id:?}, first defined at {first}")]
    DuplicateId {
        /// JSON path of the second occurrence.
        path: String,
        /// The id.
        id: String,
        /// JSON path of the first occurrence.
        first: String,
    },
    /// A reference to a rack, node, pool or job that the snapshot does not define.
    #[error("{path}: unknown {entity} {id:?}")]
    UnknownReference {
        /// JSON path of the reference.
        path: String,
        /// `rack`, `node`, `pool` or `job`.
        entity: &'static str,
        /// The id referenced.
        id: String,
    },
    /// A number outside its domain: negative, NaN or infinite, or a bandwidth ≤ 0.
    #[error("{path}: {message}")]
    InvalidNumber {
        /// JSON path of the number.
        path: String,
        /// What the domain is.
        message: String,
    },
    /// More running tasks of one kind on a node than the node has slots of that kind.
    #[error("{path}: node {node:?} runs more {kind} tasks than its {slots} {kind} slots")]
    SlotsOversubscribed {
        /// JSON path of the first running task beyond capacity.
        path: String,
        /// The node.
        node: String,
        /// `map` or `reduce`.
        kind: &'static str,
        /// The node's slots of that kind.
        slots: u32,
    },
    /// A field that does not fit the task's kind (a map with shuffle sources, a reduce with
    /// replicas), or a replica listed twice.
    #[error("{path}: {message}")]
    Inconsistent {
        /// JSON path of the field.
        path: String,
        /// What is inconsistent.
        message: String,
    },
}

impl ModelError {
    /// The machine-readable code (`duplicate_id`, `unknown_reference`, ...).
    pub fn code(&self) -> &'static str {
        match self {
            Self::MalformedJson { .. } => "malformed_json",
            Self::InvalidField { .. } => "invalid_field",
            Self::UnsupportedSchemaVersion { .. } => "unsupported_schema_version",
            Self::EmptyId { .. } => "empty_id",
            Self::DuplicateId { .. } => "duplicate_id",
            Self::UnknownReference { .. } => "unknown_reference",
            Self::InvalidNumber { .. } => "invalid_number",
            Self::SlotsOversubscribed { .. } => "slots_oversubscribed",
            Self::Inconsistent { .. } => "inconsistent",
        }
    }

    /// The JSON path of the offending field.
    pub fn path(&self) -> &str {
        match self {
            Self::MalformedJson { path, .. }
            | Self::InvalidField { path, .. }
            | Self::UnsupportedSchemaVersion { path, .. }
            | Self::EmptyId { path }
            | Self::DuplicateId { path, .. }
            | Self::UnknownReference { path, .. }
            | Self::InvalidNumber { path, .. }
            | Self::SlotsOversubscribed { path, .. }
            | Self::Inconsistent { path, .. } => path,
        }
    }
}
