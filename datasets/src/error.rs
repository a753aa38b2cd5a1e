//! The one error type of `placer-datasets`: a generator spec or a trace record that cannot be
//! used, naming the field (DESIGN.md §Errors).

/// Why a dataset could not be produced.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DatasetError {
    /// A generator parameter out of range.
    #[error("--{field}: {message}")]
    InvalidSpec {
        /// The parameter (as its CLI flag name).
        field: &'static str,
        /// What the range is.
        message: String,
    },
}
