//! The one error type of the `placer` CLI (README.md, "CLI"): files that cannot be read
//! or written, `.lsap` matrices of the wrong size, and errors of the crates it drives.

use std::path::PathBuf;

/// Why a CLI command failed (exit status 1, message on stderr).
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Reading or writing a file.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A `.lsap` file whose header and length disagree.
    #[error("{path}: {message}")]
    BadMatrix {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The snapshot was rejected or could not be solved; printed as the service's JSON error.
    #[error("{0}")]
    Solve(#[from] placer_solver::SolveError),
    /// A snapshot that does not parse.
    #[error("{0}")]
    Model(#[from] placer_models::ModelError),
    /// A generator spec out of range.
    #[error("{0}")]
    Dataset(#[from] placer_datasets::DatasetError),
    /// A command line that cannot run as given (missing flag, bad sweep file).
    #[error("{0}")]
    Usage(String),
    /// `--shard` that names no slice: `auto` outside an array job, or inconsistent array
    /// variables.
    #[error("{0}")]
    Shard(String),
    /// A what-if run that failed.
    #[error("{0}")]
    Sim(#[from] placer_sim::SimError),
    /// Writing what-if outputs.
    #[error("{0}")]
    Report(#[from] placer_report::ReportError),
    /// The service could not start: an invalid `--config` file.
    #[error("{0}")]
    Server(#[from] placer_server::ServerError),
    /// Serialising output.
    #[error("json: {0}")]
    Json(#[from] serde_json::Error),
}

impl CliError {
    /// The error as the service's JSON body, when it has a code and a path.
    pub fn json(&self) -> Option<serde_json::Value> {
        let (code, path) = match self {
            Self::Solve(e) => (e.code(), e.path().to_owned()),
            Self::Model(e) => (e.code(), e.path().to_owned()),
            _ => return None,
        };
        Some(
            serde_json::json!({"error": {"code": code, "path": path, "message": self.to_string()}}),
        )
    }
}
