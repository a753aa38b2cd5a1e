//! The one error type of `placer-report` (docs/architecture.md, "Error model"): an output that
//! could not be written or read back, naming the file or plot.

/// Why a report could not be written (or a shard read back).
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// Creating, writing or renaming a file.
    #[error("{path}: {message}")]
    Io {
        /// The file or directory.
        path: String,
        /// The OS error.
        message: String,
    },
    /// Drawing a plot.
    #[error("plot {name}: {message}")]
    Plot {
        /// The plot's file stem.
        name: String,
        /// The drawing backend's error.
        message: String,
    },
    /// A table or manifest that does not parse (reading shards back).
    #[error("{path}: {message}")]
    Format {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
}
