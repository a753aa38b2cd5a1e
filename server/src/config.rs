//! Server settings (docs/operations/serving.md: the 413 body limit and the 503 overload limit,
//! admission, deadlines, timeouts, graceful shutdown): where to listen, how large a snapshot may
//! be, how much solving may run at once, how long to wait for slow clients. Reads no environment
//! variables: the CLI (`placer serve`) fills it from its flags (and the config file).

use crate::logging::LogFormat;
use serde_json::{Map, Value};
use std::num::NonZeroUsize;
use std::path::PathBuf;

/// Address `placer serve` listens on when none is given.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";

/// Largest accepted `POST /place` body (after gzip decoding) when none is configured: 64 MiB.
pub const DEFAULT_BODY_LIMIT_BYTES: usize = 64 * 1024 * 1024;

/// Requests that may wait for a solve slot when none is configured.
pub const DEFAULT_QUEUE_LEN: usize = 1024;

/// Longest wait for a solve slot when none is configured: 2 s.
pub const DEFAULT_QUEUE_WAIT_MS: u64 = 2_000;

/// Memory budget when the machine's memory cannot be read: 4 GiB.
pub const FALLBACK_MAX_MEMORY_BYTES: u64 = 4 << 30;

/// Time allowed for a request head (request line and headers) when none is configured: 5 s.
pub const DEFAULT_HEADER_TIMEOUT_MS: u64 = 5_000;

/// Time allowed for reading a whole request body when none is configured: 10 s.
pub const DEFAULT_BODY_TIMEOUT_MS: u64 = 10_000;

/// Time in-flight requests get to finish after SIGTERM when none is configured: 30 s.
pub const DEFAULT_SHUTDOWN_GRACE_MS: u64 = 30_000;

/// The node label read as a node's rack by the scheduler extender when none is configured.
pub const DEFAULT_K8S_RACK_LABEL: &str = "topology.kubernetes.io/rack";

/// Default `--sessions-max`: sessions kept at once.
pub const DEFAULT_SESSIONS_MAX: usize = 64;

/// Default `--session-idle-s`: a session unused for 10 minutes is dropped.
pub const DEFAULT_SESSION_IDLE_S: u64 = 600;

/// Settings of one server instance. `ServerConfig::default()` works with no config file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerConfig {
    /// `host:port` to bind, e.g. `127.0.0.1:8080` (port 0 picks a free port).
    pub addr: String,
    /// Largest accepted request body in bytes, measured after gzip decoding; larger bodies get
    /// `413 payload_too_large`, from `Content-Length` before reading, or while reading.
    pub body_limit_bytes: usize,
    /// Most solves running at once (default two per core, see [`default_max_in_flight`]).
    /// Requests beyond it wait in the admission queue. 0 refuses every snapshot with 503 (drain mode).
    pub max_in_flight: usize,
    /// Most requests waiting for a solve slot; one more gets `503 overloaded`.
    pub queue_len: usize,
    /// Longest wait in the admission queue, in ms; then `503 overloaded` with `Retry-After`.
    pub queue_wait_ms: u64,
    /// Process-wide budget, in bytes, for the estimated peak memory of the solves running at
    /// once (estimate: [`crate::estimate_solve_bytes`]). Default: half the machine's memory
    /// (`MemTotal` of `/proc/meminfo`), or 4 GiB when that cannot be read.
    pub max_memory_bytes: u64,
    /// Deadline of a request that gives none (`?deadline_ms=` or `policy.deadline_ms`), in ms
    /// from the moment its body is read; `None` = no deadline.
    pub deadline_ms: Option<u64>,
    /// Time a client gets to send a request head, in ms; then `408 request_timeout`.
    pub header_timeout_ms: u64,
    /// Time a client gets to send the whole body once the head is in, in ms; then
    /// `408 request_timeout`.
    pub body_timeout_ms: u64,
    /// After SIGTERM/SIGINT: time in-flight requests get to finish, in ms, before the process
    /// exits anyway.
    pub shutdown_grace_ms: u64,
    /// HTTP worker threads; `None` = one per core.
    pub workers: Option<usize>,
    /// How log events are written (`--log-format`); default `pretty`.
    pub log_format: LogFormat,
    /// The config file's `[policy]` table: values for the snapshot `policy` keys a snapshot
    /// omits (its own keys win); `None` = no defaults beyond the schema's.
    pub policy_defaults: Option<Map<String, Value>>,
    /// The config file this came from (`--config`), reloaded on SIGHUP or change.
    pub config_path: Option<PathBuf>,
    /// A YARN fair-scheduler allocation file (`--allocations`): pools and users a snapshot
    /// does not define are filled from it; reloaded on SIGHUP or change, like the config.
    pub allocations: Option<PathBuf>,
    /// The file at `allocations` as read with this config (`None` until loaded, or with no
    /// file): [`crate::config_file::load`] and [`crate::config_file::from_command_line`]
    /// read it.
    pub fair_allocations: Option<crate::allocations::Allocations>,
    /// Answered epochs kept in memory for `GET /v1/epochs` and the dashboard (`--epochs`);
    /// 0 keeps none. Fixed at start.
    pub epochs_kept: usize,
    /// Bytes of epoch records kept, each counted at its JSON size (`--epochs-max-bytes`); the
    /// newest record is kept whatever its size. Fixed at start.
    pub epochs_max_bytes: u64,
    /// Directory of the event log (`--event-log`): one JSON line per answered epoch; `None`
    /// = no event log. Fixed at start.
    pub event_log: Option<PathBuf>,
    /// Size in bytes at which `events.jsonl` is rotated (`--event-log-max-bytes`).
    pub event_log_max_bytes: u64,
    /// Rotated event log files kept (`--event-log-keep`); 0 deletes the old lines.
    pub event_log_keep: usize,
    /// The node label whose value is a node's rack for the scheduler extender
    /// (`--k8s-rack-label`); default `topology.kubernetes.io/rack`.
    pub k8s_rack_label: String,
    /// A node → rack map file for the scheduler extender (`--k8s-rack-map`), reloaded with the
    /// config; its racks win over labels and learned racks.
    pub k8s_rack_map: Option<PathBuf>,
    /// The file at `k8s_rack_map` as read with this config (`None` until loaded, or with no
    /// file).
    pub k8s_rack_file: Option<crate::k8s::RackFile>,
    /// PEM certificate chain to serve TLS with (`--tls-cert`; docs/operations/configuration.md,
    /// "TLS and tokens"); with `tls_key`, or neither for plaintext. Re-read on SIGHUP or change,
    /// like the config.
    pub tls_cert: Option<PathBuf>,
    /// PEM private key of `tls_cert` (`--tls-key`).
    pub tls_key: Option<PathBuf>,
    /// PEM CA certificates that client certificates must chain to (`--tls-client-ca`, mutual
    /// TLS); `None` asks for no client certificate.
    pub tls_client_ca: Option<PathBuf>,
    /// The rustls config read from the three files above (`None` until loaded, or without
    /// TLS): [`crate::tls::load_into`] reads it.
    pub tls: Option<crate::tls::Tls>,
    /// A bearer token file (`--tokens`): `SCOPES TOKEN` lines ([`crate::auth`]); `None` checks
    /// nothing. Re-read on SIGHUP or change, like the config.
    pub tokens: Option<PathBuf>,
    /// The tokens read from `tokens` (`None` until loaded, or without a file):
    /// [`crate::auth::load_into`] reads them.
    pub auth_tokens: Option<crate::auth::Tokens>,
    /// Most sessions kept (`--sessions-max`); the least recently used is evicted to make room;
    /// 0 disables sessions (`POST /v1/sessions` gets 503).
    pub sessions_max: usize,
    /// Seconds a session may go unused before it is dropped (`--session-idle-s`); 0 never.
    pub session_idle_s: u64,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            addr: DEFAULT_ADDR.to_owned(),
            body_limit_bytes: DEFAULT_BODY_LIMIT_BYTES,
            max_in_flight: default_max_in_flight(),
            queue_len: DEFAULT_QUEUE_LEN,
            queue_wait_ms: DEFAULT_QUEUE_WAIT_MS,
            max_memory_bytes: default_max_memory_bytes(),
            deadline_ms: None,
            header_timeout_ms: DEFAULT_HEADER_TIMEOUT_MS,
            body_timeout_ms: DEFAULT_BODY_TIMEOUT_MS,
            shutdown_grace_ms: DEFAULT_SHUTDOWN_GRACE_MS,
            workers: None,
            log_format: LogFormat::Pretty,
            policy_defaults: None,
            config_path: None,
            allocations: None,
            fair_allocations: None,
            epochs_kept: crate::epochs::DEFAULT_EPOCHS_KEPT,
            epochs_max_bytes: crate::epochs::DEFAULT_EPOCHS_MAX_BYTES,
            event_log: None,
            event_log_max_bytes: crate::event_log::DEFAULT_MAX_BYTES,
            event_log_keep: crate::event_log::DEFAULT_KEEP,
            k8s_rack_label: DEFAULT_K8S_RACK_LABEL.to_owned(),
            k8s_rack_map: None,
            k8s_rack_file: None,
            tls_cert: None,
            tls_key: None,
            tls_client_ca: None,
            tls: None,
            tokens: None,
            auth_tokens: None,
            sessions_max: DEFAULT_SESSIONS_MAX,
            session_idle_s: DEFAULT_SESSION_IDLE_S,
        }
    }
}

/// Twice the machine's available parallelism (2 if it cannot be determined). Solves are
/// CPU-bound, but each permit also covers parsing and serializing on the blocking pool, so two per
/// core keep every core busy between solves: on 2 cores, tiny snapshots at 256 connections gave
/// 8,345 answers/s with one permit per core and 11,272 with two (BENCHMARKS.md, "The admission
/// rewrite, measured while it was built").
/// Memory stays bounded by `--max-memory`, not by this count.
pub fn default_max_in_flight() -> usize {
    std::thread::available_parallelism().map_or(1, NonZeroUsize::get).saturating_mul(2)
}

/// Half of `MemTotal` from `/proc/meminfo`, or [`FALLBACK_MAX_MEMORY_BYTES`] when it cannot be
/// read (not Linux, no procfs).
pub fn default_max_memory_bytes() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| mem_total_bytes(&text))
        .map_or(FALLBACK_MAX_MEMORY_BYTES, |total| total / 2)
}

/// `MemTotal:   16318480 kB` → bytes.
fn mem_total_bytes(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_the_cli_contract() {
        let c = ServerConfig::default();
        assert_eq!(c.addr, "127.0.0.1:8080");
        assert_eq!(c.body_limit_bytes, 64 << 20);
        assert!(c.max_in_flight >= 1);
        assert_eq!(c.queue_len, 1024);
        assert_eq!(c.queue_wait_ms, 2_000);
        assert!(c.max_memory_bytes > 0);
        assert_eq!(c.deadline_ms, None);
        assert_eq!((c.header_timeout_ms, c.body_timeout_ms), (5_000, 10_000));
        assert_eq!(c.shutdown_grace_ms, 30_000);
        assert_eq!(c.workers, None);
        assert_eq!((c.epochs_kept, c.event_log.as_deref()), (120, None));
        assert_eq!(c.epochs_max_bytes, 64 << 20);
        assert_eq!((c.event_log_max_bytes, c.event_log_keep), (64 << 20, 10));
        assert_eq!((c.sessions_max, c.session_idle_s), (64, 600));
    }

    #[test]
    fn meminfo_total_is_read_in_kib() {
        let text = "MemTotal:       16318480 kB\nMemFree:  1 kB\n";
        assert_eq!(mem_total_bytes(text), Some(16_318_480 * 1024));
        assert_eq!(mem_total_bytes("MemFree: 1 kB\n"), None);
    }
}
