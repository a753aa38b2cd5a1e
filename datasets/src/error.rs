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
    /// A trace file that cannot be read at all.
    #[error("{file}: {message}")]
    Io {
        /// The file as given.
        file: String,
        /// The operating system's message.
        message: String,
    },
    /// A malformed record in a trace: the file, where in it (`line 17`, `record 3`,
    /// `job 2 mapTasks[5]`), the field, and what is wrong.
    #[error("{file}: {location}: {field}: {message}")]
    Malformed {
        /// The file as given.
        file: String,
        /// Line, record or path within the file.
        location: String,
        /// The offending field.
        field: String,
        /// What is wrong.
        message: String,
    },
}
