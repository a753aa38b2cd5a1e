//! The one error type of `placer-datasets`: a generator spec or a trace record that cannot be
//! used, naming the field (docs/architecture.md, "Error model").

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
    /// An invalid fair-scheduler allocation file (`fair-scheduler.xml`): the element (its tag
    /// name, or `xml` for a syntax error) and its 1-based line.
    #[error("{file}: line {line}: <{element}>: {message}")]
    Allocations {
        /// The file as given.
        file: String,
        /// 1-based line of the element's start tag.
        line: u32,
        /// The element's tag name.
        element: String,
        /// What is wrong.
        message: String,
    },
}
