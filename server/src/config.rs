//! Server settings (DESIGN.md §Errors: the 413 body limit and the 503 overload limit): where to
//! listen, how large a snapshot may be, how many solves may run at once. Reads no environment:
//! the CLI (`placer serve`) fills it from its flags.

use crate::logging::LogFormat;
use serde_json::{Map, Value};
use std::num::NonZeroUsize;
use std::path::PathBuf;

/// Address `placer serve` listens on when none is given.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";

/// Largest accepted `POST /place` body when none is configured: 64 MiB.
pub const DEFAULT_BODY_LIMIT_BYTES: usize = 64 * 1024 * 1024;

/// Settings of one server instance. `ServerConfig::default()` works with no config file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerConfig {
    /// `host:port` to bind, e.g. `127.0.0.1:8080` (port 0 picks a free port).
    pub addr: String,
    /// Largest accepted request body in bytes; larger bodies get `413 payload_too_large`,
    /// from `Content-Length` before reading, or while streaming when it is absent or wrong.
    pub body_limit_bytes: usize,
    /// Most `POST /place` requests being read or solved at once; one more gets
    /// `503 overloaded` with `Retry-After: 1`. 0 refuses every snapshot (drain mode).
    pub max_in_flight: usize,
    /// HTTP worker threads; `None` lets actix-web choose (one per core).
    pub workers: Option<usize>,
    /// How log events are written (`--log-format`); default `pretty`.
    pub log_format: LogFormat,
    /// The config file's `[policy]` table: values for the snapshot `policy` keys a snapshot
    /// omits (its own keys win); `None` = no defaults beyond the schema's.
    pub policy_defaults: Option<Map<String, Value>>,
    /// The config file this came from (`--config`), reloaded on SIGHUP or change.
    pub config_path: Option<PathBuf>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            addr: DEFAULT_ADDR.to_owned(),
            body_limit_bytes: DEFAULT_BODY_LIMIT_BYTES,
            max_in_flight: default_max_in_flight(),
            workers: None,
            log_format: LogFormat::Pretty,
            policy_defaults: None,
            config_path: None,
        }
    }
}

/// Twice the machine's available parallelism (2 if it cannot be determined): enough solves in
/// flight to keep every core busy while the next bodies stream in.
pub fn default_max_in_flight() -> usize {
    std::thread::available_parallelism().map_or(1, NonZeroUsize::get).saturating_mul(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_the_cli_contract() {
        let c = ServerConfig::default();
        assert_eq!(c.addr, "127.0.0.1:8080");
        assert_eq!(c.body_limit_bytes, 64 << 20);
        assert!(c.max_in_flight >= 2);
        assert_eq!(c.workers, None);
    }
}
