//! Structured logs (docs/operations/observability.md, "Logs"; the `tracing` ecosystem's `fmt`
//! subscriber): one event per request, human-readable (`pretty`) or one JSON object per line
//! (`json`), filtered by `RUST_LOG` (`EnvFilter` directives, default `info`). Also the facts of a
//! solve that the pipeline hands to the request's log line.

use placer_models::{PlaceRequest, PlaceResponse, Status};
use serde::{Deserialize, Serialize};
use std::io;
use std::str::FromStr;
use std::sync::{Arc, Mutex, PoisonError};
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::EnvFilter;

/// The filter used when `RUST_LOG` is unset or empty.
pub const DEFAULT_FILTER: &str = "info";

/// How log events are written to stderr.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogFormat {
    /// One human-readable line per event: time, level, target, message, `key=value` fields.
    #[default]
    Pretty,
    /// One JSON object per line: `timestamp`, `level`, `target`, `message` and the fields.
    Json,
}

impl LogFormat {
    /// The name used by `--log-format` and the config file.
    pub fn name(self) -> &'static str {
        match self {
            Self::Pretty => "pretty",
            Self::Json => "json",
        }
    }
}

impl FromStr for LogFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "pretty" => Ok(Self::Pretty),
            "json" => Ok(Self::Json),
            _ => Err(format!("unknown log format {s:?} (expected pretty or json)")),
        }
    }
}

/// A subscriber writing `format` to `writer` with `filter` (`EnvFilter` directives, e.g.
/// `info,placer_server=debug`); an unparsable filter falls back to [`DEFAULT_FILTER`].
pub fn subscriber<W>(
    format: LogFormat,
    filter: &str,
    writer: W,
) -> Box<dyn tracing::Subscriber + Send + Sync>
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    let filter = EnvFilter::try_new(filter).unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(writer);
    match format {
        LogFormat::Pretty => Box::new(builder.with_ansi(false).finish()),
        LogFormat::Json => {
            Box::new(builder.json().flatten_event(true).with_current_span(false).finish())
        }
    }
}

/// Installs the process's log subscriber: `format` to stderr, filtered by `RUST_LOG` (or
/// [`DEFAULT_FILTER`]). A second call, or one after another subscriber was installed, changes
/// nothing and returns `false`.
pub fn init(format: LogFormat) -> bool {
    let filter = std::env::var(EnvFilter::DEFAULT_ENV)
        .ok()
        .filter(|f| !f.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_FILTER.to_owned());
    tracing::subscriber::set_global_default(subscriber(format, &filter, io::stderr)).is_ok()
}

/// What the pipeline learnt about one `POST /place`, for its log line; clones share it.
/// Empty until the body is parsed.
#[derive(Clone, Debug, Default)]
pub struct SolveLog(Arc<Mutex<SolveFacts>>);

/// The facts of [`SolveLog`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SolveFacts {
    /// Body size in bytes.
    pub snapshot_bytes: Option<usize>,
    /// `policy.algorithm` in force (after config defaults).
    pub algorithm: Option<&'static str>,
    /// `policy.solver` in force.
    pub engine: Option<&'static str>,
    /// Pending tasks in the snapshot.
    pub pending: Option<usize>,
    /// Nodes in the snapshot.
    pub nodes: Option<usize>,
    /// Free slots before placement (`stats.free_slots`).
    pub free_slots: Option<u64>,
    /// Tasks assigned (`stats.assigned`).
    pub assigned: Option<u64>,
    /// Solve wall time in milliseconds.
    pub solve_ms: Option<f64>,
    /// `stats.status`: `optimal`, `heuristic` or `time_limited`.
    pub outcome: Option<&'static str>,
}

impl SolveLog {
    /// Records the body size.
    pub fn body(&self, bytes: usize) {
        self.with(|f| f.snapshot_bytes = Some(bytes));
    }

    /// Records what the parsed snapshot asks for.
    pub fn request(&self, request: &PlaceRequest) {
        self.with(|f| {
            f.algorithm = Some(request.policy.algorithm.name());
            f.engine = Some(request.policy.solver.name());
            f.pending = Some(request.pending.len());
            f.nodes = Some(request.cluster.nodes.len());
        });
    }

    /// Records the answer's totals.
    pub fn response(&self, response: &PlaceResponse) {
        self.with(|f| {
            f.free_slots = Some(response.stats.free_slots);
            f.assigned = Some(response.stats.assigned);
            f.solve_ms = Some(response.stats.solve_ms);
            f.outcome = Some(status_name(response.stats.status));
        });
    }

    /// A copy of the facts so far.
    pub fn facts(&self) -> SolveFacts {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    fn with(&self, f: impl FnOnce(&mut SolveFacts)) {
        f(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner));
    }
}

/// The wire name of a `stats.status`.
pub fn status_name(status: Status) -> &'static str {
    match status {
        Status::Optimal => "optimal",
        Status::Heuristic => "heuristic",
        Status::TimeLimited => "time_limited",
    }
}

/// A `MakeWriter` into a shared buffer, for tests that read the log.
#[cfg(test)]
#[derive(Clone, Default)]
pub(crate) struct Capture(pub(crate) Arc<Mutex<Vec<u8>>>);

#[cfg(test)]
impl io::Write for Capture {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
impl<'w> MakeWriter<'w> for Capture {
    type Writer = Capture;
    fn make_writer(&'w self) -> Self::Writer {
        self.clone()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn json_format_writes_one_object_per_line() {
        let out = Capture::default();
        let sub = subscriber(LogFormat::Json, "info", out.clone());
        tracing::subscriber::with_default(sub, || {
            tracing::info!(request_id = "r1", status = 200_u16, "request");
            tracing::debug!("filtered out");
        });
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<_> = text.lines().collect();
        assert_eq!(lines.len(), 1, "{text}");
        let v: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
        assert_eq!(v["request_id"], "r1");
        assert_eq!(v["status"], 200);
        assert_eq!(v["level"], "INFO");
    }

    #[test]
    fn pretty_format_writes_key_value_fields() {
        let out = Capture::default();
        let sub = subscriber(LogFormat::Pretty, "warn", out.clone());
        tracing::subscriber::with_default(sub, || {
            tracing::info!("filtered out");
            tracing::warn!(request_id = "r2", "slow");
        });
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        assert!(text.contains("WARN") && text.contains("request_id=\"r2\""), "{text}");
        assert!(!text.contains("filtered out"));
    }

    #[test]
    fn log_format_names_round_trip() {
        for f in [LogFormat::Pretty, LogFormat::Json] {
            assert_eq!(f.name().parse::<LogFormat>(), Ok(f));
        }
        assert!("yaml".parse::<LogFormat>().is_err());
    }
}
