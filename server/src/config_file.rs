//! The config file (`--config placer.toml`: every serve flag plus policy defaults, validated
//! at start, an invalid file being a clear error naming the key; TOML 1.0;
//! docs/operations/configuration.md, "Config file").
//! Keys are the `placer serve` flags with `-` → `_`; a `[policy]` table holds defaults for the
//! snapshot `policy` keys a snapshot omits (docs/wire-schema.md, "The policy block"). Flags given
//! on the command line win over the file.

use crate::config::ServerConfig;
use crate::error::ServerError;
use crate::logging::LogFormat;
use placer_models::{ModelError, Policy};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

/// Every key of the file, each optional (an absent key leaves the flag's value).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct FileConfig {
    /// `--addr`: `host:port` to bind.
    pub addr: Option<String>,
    /// `--body-limit`: largest decompressed body in bytes (≥ 1).
    pub body_limit: Option<usize>,
    /// `--max-in-flight`: concurrent solves.
    pub max_in_flight: Option<usize>,
    /// `--queue`: requests allowed to wait for a solve slot.
    pub queue: Option<usize>,
    /// `--queue-wait-ms`: longest wait in that queue.
    pub queue_wait_ms: Option<u64>,
    /// `--max-memory`: process-wide solve memory budget in bytes (≥ 1).
    pub max_memory: Option<u64>,
    /// `--deadline-ms`: default per-request deadline (≥ 1).
    pub deadline_ms: Option<u64>,
    /// `--header-timeout-ms`.
    pub header_timeout_ms: Option<u64>,
    /// `--body-timeout-ms`.
    pub body_timeout_ms: Option<u64>,
    /// `--shutdown-grace-ms`.
    pub shutdown_grace_ms: Option<u64>,
    /// `--workers`: HTTP worker threads (≥ 1).
    pub workers: Option<usize>,
    /// `--log-format`: `pretty` or `json`.
    pub log_format: Option<LogFormat>,
    /// `[policy]`: defaults for omitted snapshot `policy` keys, checked as a
    /// `placer_models::Policy`.
    pub policy: Option<Map<String, Value>>,
    /// `--allocations`: a YARN fair-scheduler allocation file; a relative path is taken from
    /// the config file's directory.
    pub allocations: Option<PathBuf>,
    /// `--epochs`: answered epochs kept for `GET /v1/epochs` and the dashboard.
    pub epochs: Option<usize>,
    /// `--epochs-max-bytes`: bytes of epoch records kept (≥ 1).
    pub epochs_max_bytes: Option<u64>,
    /// `--event-log`: the event log's directory.
    pub event_log: Option<PathBuf>,
    /// `--event-log-max-bytes`: rotation size of `events.jsonl` (≥ 1).
    pub event_log_max_bytes: Option<u64>,
    /// `--event-log-keep`: rotated event log files kept.
    pub event_log_keep: Option<usize>,
    /// `--k8s-rack-label`: the node label read as a node's rack by the scheduler extender.
    pub k8s_rack_label: Option<String>,
    /// `--k8s-rack-map`: the scheduler extender's node → rack map file; a relative path is
    /// taken from the config file's directory.
    pub k8s_rack_map: Option<PathBuf>,
    /// `--tls-cert`: PEM certificate chain; a relative path is taken from the config file's
    /// directory (so are the three below).
    pub tls_cert: Option<PathBuf>,
    /// `--tls-key`: PEM private key of `tls_cert`.
    pub tls_key: Option<PathBuf>,
    /// `--tls-client-ca`: PEM CA of the client certificates (mutual TLS).
    pub tls_client_ca: Option<PathBuf>,
    /// `--tokens`: the bearer token file.
    pub tokens: Option<PathBuf>,
    /// `--sessions-max`: sessions kept at once (0 disables them).
    pub sessions_max: Option<usize>,
    /// `--session-idle-s`: seconds a session may go unused (0: no limit).
    pub session_idle_s: Option<u64>,
}

/// The `[policy]` table alone, read again with its spans for precise error lines.
#[derive(Deserialize)]
struct PolicyTable {
    #[serde(default)]
    policy: Policy,
}

/// What the command line said: the config its flags and defaults make, and which keys (flag
/// names with `-` → `_`, e.g. `body_limit`) were given explicitly and so win over the file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CommandLine {
    /// Defaults overridden by the given flags.
    pub config: ServerConfig,
    /// Keys given on the command line.
    pub given: BTreeSet<String>,
}

impl CommandLine {
    fn wins(&self, key: &str) -> bool {
        self.given.contains(key)
    }
}

/// Reads, checks and applies the file at `path` over `cli`: the settings to run with, with
/// `config_path` set to `path`.
///
/// # Errors
/// [`ServerError::Config`] naming the file, the key (and its line when known) for an
/// unreadable file, a TOML syntax error, an unknown key, a wrong type or an invalid value.
pub fn load(path: &Path, cli: &CommandLine) -> Result<ServerConfig, ServerError> {
    let text = crate::operator_file::read_text(
        path,
        crate::operator_file::MAX_CONFIG_BYTES,
        crate::operator_file::READ_TIMEOUT,
    )
    .map_err(|message| ServerError::Config {
        file: path.display().to_string(),
        key: None,
        line: None,
        message,
    })?;
    let file = parse(&text).map_err(|e| e.into_error(path))?;
    let mut config = resolve(&file, cli);
    config.config_path = Some(path.to_path_buf());
    if let (false, Some(allocations)) = (cli.wins("allocations"), &file.allocations) {
        let dir = path.parent().unwrap_or(Path::new(""));
        config.allocations = Some(dir.join(allocations));
    }
    let dir = path.parent().unwrap_or(Path::new(""));
    for (key, from, to) in [
        ("tls_cert", &file.tls_cert, &mut config.tls_cert),
        ("tls_key", &file.tls_key, &mut config.tls_key),
        ("tls_client_ca", &file.tls_client_ca, &mut config.tls_client_ca),
        ("tokens", &file.tokens, &mut config.tokens),
        ("k8s_rack_map", &file.k8s_rack_map, &mut config.k8s_rack_map),
    ] {
        if let (false, Some(from)) = (cli.wins(key), from) {
            *to = Some(dir.join(from));
        }
    }
    load_allocations(config)
}

/// The command line's settings alone (no config file), with its allocation file read.
///
/// # Errors
/// [`ServerError::Config`] for an unreadable or invalid allocation file.
pub fn from_command_line(cli: &CommandLine) -> Result<ServerConfig, ServerError> {
    load_allocations(cli.config.clone())
}

/// `config` with `fair_allocations` read from `config.allocations` (`None` without one), and
/// `k8s_rack_file` from `config.k8s_rack_map`. Also reads the TLS files and the token file
/// ([`crate::tls::load_into`], [`crate::auth::load_into`]).
fn load_allocations(mut config: ServerConfig) -> Result<ServerConfig, ServerError> {
    config.fair_allocations = match &config.allocations {
        Some(path) => Some(crate::allocations::load(path)?),
        None => None,
    };
    config.k8s_rack_file = match &config.k8s_rack_map {
        Some(path) => Some(crate::k8s::load_rack_file(path)?),
        None => None,
    };
    crate::tls::load_into(config).and_then(crate::auth::load_into)
}

/// Parses and checks the text of a config file. O(text).
///
/// # Errors
/// The first problem found, in this order: TOML syntax or a wrong type (with the line from
/// the parser), unknown keys (line found by a scan), invalid `[policy]` values, invalid server
/// values.
pub fn parse(text: &str) -> Result<FileConfig, ConfigProblem> {
    let mut unknown = Vec::new();
    let file: FileConfig = deserialize(text, &mut unknown)?;
    if let Some(key) = unknown.first() {
        return Err(ConfigProblem::new(key, line_of_key(text, key), "unknown key"));
    }
    if file.policy.is_some() {
        let mut unknown = Vec::new();
        let table: PolicyTable = deserialize(text, &mut unknown)?;
        let known: Vec<String> = placer_solver::registry::settings()
            .iter()
            .flat_map(|g| g.defaults().into_iter().map(|(k, _)| k))
            .collect();
        let unknown = unknown.iter().find(|k| k.starts_with("policy.")).cloned().or_else(|| {
            let key = table.policy.settings.keys().find(|k| !known.contains(k))?;
            Some(format!("policy.{key}"))
        });
        if let Some(key) = unknown {
            let message = "unknown key (not a snapshot policy key)";
            return Err(ConfigProblem::new(&key, line_of_key(text, &key), message));
        }
        check_policy(&table.policy).map_err(|(key, message)| {
            let line = line_of_key(text, &key);
            ConfigProblem::new(&key, line, &message)
        })?;
    }
    check_values(&file)
        .map_err(|(key, message)| ConfigProblem::new(key, line_of_key(text, key), &message))?;
    Ok(file)
}

/// `cli`'s config with each key of `file` applied unless the command line gave it;
/// `policy_defaults` is the file's `[policy]` table (no flag sets it). O(keys).
pub fn resolve(file: &FileConfig, cli: &CommandLine) -> ServerConfig {
    let mut c = cli.config.clone();
    fn set<T: Clone>(cli: &CommandLine, key: &str, from: &Option<T>, to: &mut T) {
        if let (false, Some(v)) = (cli.wins(key), from) {
            *to = v.clone();
        }
    }
    set(cli, "addr", &file.addr, &mut c.addr);
    set(cli, "body_limit", &file.body_limit, &mut c.body_limit_bytes);
    set(cli, "max_in_flight", &file.max_in_flight, &mut c.max_in_flight);
    set(cli, "queue", &file.queue, &mut c.queue_len);
    set(cli, "queue_wait_ms", &file.queue_wait_ms, &mut c.queue_wait_ms);
    set(cli, "max_memory", &file.max_memory, &mut c.max_memory_bytes);
    set(cli, "header_timeout_ms", &file.header_timeout_ms, &mut c.header_timeout_ms);
    set(cli, "body_timeout_ms", &file.body_timeout_ms, &mut c.body_timeout_ms);
    set(cli, "shutdown_grace_ms", &file.shutdown_grace_ms, &mut c.shutdown_grace_ms);
    if !cli.wins("deadline_ms") && file.deadline_ms.is_some() {
        c.deadline_ms = file.deadline_ms;
    }
    set(cli, "log_format", &file.log_format, &mut c.log_format);
    if !cli.wins("workers") && file.workers.is_some() {
        c.workers = file.workers;
    }
    c.policy_defaults = file.policy.clone().filter(|p| !p.is_empty());
    if !cli.wins("allocations") && file.allocations.is_some() {
        c.allocations.clone_from(&file.allocations);
    }
    set(cli, "epochs", &file.epochs, &mut c.epochs_kept);
    set(cli, "epochs_max_bytes", &file.epochs_max_bytes, &mut c.epochs_max_bytes);
    if !cli.wins("event_log") && file.event_log.is_some() {
        c.event_log.clone_from(&file.event_log);
    }
    set(cli, "event_log_max_bytes", &file.event_log_max_bytes, &mut c.event_log_max_bytes);
    set(cli, "event_log_keep", &file.event_log_keep, &mut c.event_log_keep);
    set(cli, "k8s_rack_label", &file.k8s_rack_label, &mut c.k8s_rack_label);
    set(cli, "sessions_max", &file.sessions_max, &mut c.sessions_max);
    set(cli, "session_idle_s", &file.session_idle_s, &mut c.session_idle_s);
    for (key, from, to) in [
        ("tls_cert", &file.tls_cert, &mut c.tls_cert),
        ("tls_key", &file.tls_key, &mut c.tls_key),
        ("tls_client_ca", &file.tls_client_ca, &mut c.tls_client_ca),
        ("tokens", &file.tokens, &mut c.tokens),
        ("k8s_rack_map", &file.k8s_rack_map, &mut c.k8s_rack_map),
    ] {
        if !cli.wins(key) && from.is_some() {
            to.clone_from(from);
        }
    }
    c
}

/// Deserializes `text` as `T`, collecting the paths of keys `T` does not know.
fn deserialize<'de, T: Deserialize<'de>>(
    text: &'de str,
    unknown: &mut Vec<String>,
) -> Result<T, ConfigProblem> {
    let mut note = |path: serde_ignored::Path<'_>| unknown.push(path.to_string());
    let de = serde_ignored::Deserializer::new(toml::Deserializer::new(text), &mut note);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let key = e.path().to_string();
        let inner = e.into_inner();
        let line = inner.span().map(|s| line_at(text, s.start));
        let key = if key == "." { None } else { Some(key) };
        ConfigProblem { key, line, message: inner.message().to_owned() }
    })
}

/// Checks a `[policy]` table as the service checks a snapshot's policy: the knobs' domains
/// (`placer_solver::registry::check_settings`, e.g. `alpha ≥ 0`) and an algorithm this build
/// implements.
/// Returns the offending key (`policy.alpha`) and why.
fn check_policy(policy: &Policy) -> Result<(), (String, String)> {
    let mut request = placer_models::parse_request(br#"{"schema_version":1,"cluster":{}}"#)
        .map_err(|e| ("policy".to_owned(), e.to_string()))?;
    request.policy = policy.clone();
    placer_models::validate(&request)
        .and_then(|()| placer_solver::registry::check_settings(&request.policy))
        .map_err(|e: ModelError| (e.path().to_owned(), e.to_string()))?;
    placer_solver::registry::lookup(policy.algorithm)
        .map_err(|e| ("policy.algorithm".to_owned(), e.to_string()))?;
    if policy.deadline_ms == Some(0) {
        return Err(("policy.deadline_ms".to_owned(), "must be at least 1".to_owned()));
    }
    Ok(())
}

/// Checks the server keys' values beyond their types.
fn check_values(file: &FileConfig) -> Result<(), (&'static str, String)> {
    if let Some(addr) = &file.addr {
        let port = addr.rsplit_once(':').map(|(host, port)| (host, port.parse::<u16>()));
        if !matches!(port, Some((host, Ok(_))) if !host.is_empty()) {
            return Err(("addr", format!("{addr:?} is not host:port (e.g. \"127.0.0.1:8080\")")));
        }
    }
    let at_least_one = [
        ("body_limit", file.body_limit.map(|v| v as u64)),
        ("max_memory", file.max_memory),
        ("deadline_ms", file.deadline_ms),
        ("workers", file.workers.map(|v| v as u64)),
        ("event_log_max_bytes", file.event_log_max_bytes),
        ("epochs_max_bytes", file.epochs_max_bytes),
    ];
    for (key, value) in at_least_one {
        if value == Some(0) {
            return Err((key, "must be at least 1".to_owned()));
        }
    }
    if let Some(label) = &file.k8s_rack_label {
        crate::k8s::check_label_key(label).map_err(|e| ("k8s_rack_label", e))?;
    }
    Ok(())
}

/// The 1-based line of byte offset `at` in `text`.
fn line_at(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

/// The line defining `key` (`a.b` = key `b` inside table `[a]`, or `b` at the top level), by a
/// scan of the lines for `b =` after the table header; `None` when not found (dotted or
/// quoted keys, inline tables).
fn line_of_key(text: &str, key: &str) -> Option<usize> {
    let (table, name) = match key.rsplit_once('.') {
        Some((t, n)) => (Some(t), n),
        None => (None, key),
    };
    let mut in_table = table.is_none();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if let Some(header) = line.strip_prefix('[') {
            let header = header.trim_end_matches(']').trim();
            in_table = Some(header) == table;
            continue;
        }
        let defines =
            line.strip_prefix(name).is_some_and(|rest| rest.trim_start().starts_with('='));
        if in_table && defines {
            return Some(i + 1);
        }
    }
    None
}

/// A problem in a config file's text: the key (a dotted path) and line when known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigProblem {
    /// The offending key, e.g. `body_limit` or `policy.alpha`; `None` for a syntax error
    /// outside any key.
    pub key: Option<String>,
    /// 1-based line.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl ConfigProblem {
    fn new(key: &str, line: Option<usize>, message: &str) -> Self {
        Self { key: Some(key.to_owned()), line, message: message.to_owned() }
    }

    /// The problem as the crate's error, naming `file`.
    pub fn into_error(self, file: &Path) -> ServerError {
        ServerError::Config {
            file: file.display().to_string(),
            key: self.key,
            line: self.line,
            message: self.message,
        }
    }
}

impl fmt::Display for ConfigProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::error::config_location(self.key.as_ref(), self.line.as_ref()))?;
        f.write_str(&self.message)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use placer_models::Algorithm;

    fn problem(text: &str) -> ConfigProblem {
        parse(text).unwrap_err()
    }

    #[test]
    fn a_valid_file_sets_every_key() {
        let file = parse(
            r#"
addr = "0.0.0.0:9000"
body_limit = 1000
max_in_flight = 3
queue = 16
queue_wait_ms = 250
max_memory = 2000000000
deadline_ms = 900
header_timeout_ms = 5000
body_timeout_ms = 30000
shutdown_grace_ms = 10000
workers = 2
log_format = "json"
epochs = 30
event_log = "var/events"
event_log_max_bytes = 1048576
event_log_keep = 3

[policy]
algorithm = "dl_sched"
alpha = 2.5
shuffle_watcher = { nass = false }
"#,
        )
        .unwrap();
        assert_eq!(file.addr.as_deref(), Some("0.0.0.0:9000"));
        assert_eq!(file.queue, Some(16));
        assert_eq!(file.log_format, Some(LogFormat::Json));
        let config = resolve(&file, &CommandLine::default());
        assert_eq!(config.body_limit_bytes, 1000);
        assert_eq!(config.max_in_flight, 3);
        assert_eq!(config.workers, Some(2));
        assert_eq!((config.epochs_kept, config.event_log_keep), (30, 3));
        assert_eq!(config.event_log.as_deref(), Some(Path::new("var/events")));
        assert_eq!(config.event_log_max_bytes, 1 << 20);
        let policy = config.policy_defaults.unwrap();
        assert_eq!(policy["algorithm"], "dl_sched");
        assert_eq!(policy["shuffle_watcher"]["nass"], false);
    }

    #[test]
    fn an_empty_file_is_the_defaults() {
        let config = resolve(&parse("").unwrap(), &CommandLine::default());
        assert_eq!(config, ServerConfig::default());
    }

    #[test]
    fn an_unknown_key_is_named_with_its_line() {
        let p = problem("addr = \"127.0.0.1:1\"\nbody_limt = 5\n");
        assert_eq!((p.key.as_deref(), p.line), (Some("body_limt"), Some(2)));
        assert!(p.message.contains("unknown key"));
        let p = problem("[policy]\nalgorithm = \"lsap\"\nalhpa = 1\n");
        assert_eq!((p.key.as_deref(), p.line), (Some("policy.alhpa"), Some(3)));
    }

    #[test]
    fn a_wrong_type_is_named_with_its_line() {
        let p = problem("workers = 2\nbody_limit = \"big\"\n");
        assert_eq!((p.key.as_deref(), p.line), (Some("body_limit"), Some(2)));
        assert!(p.message.contains("invalid type"), "{}", p.message);
        let p = problem("body_limit = -1\n");
        assert_eq!(p.key.as_deref(), Some("body_limit"));
        let p = problem("log_format = \"yaml\"\n");
        assert_eq!((p.key.as_deref(), p.line), (Some("log_format"), Some(1)));
        let p = problem("[policy]\nalpha = \"x\"\n");
        assert_eq!((p.key.as_deref(), p.line), (Some("policy.alpha"), Some(2)));
        let p = problem("[policy]\nalgorithm = \"magic\"\n");
        assert_eq!((p.key.as_deref(), p.line), (Some("policy.algorithm"), Some(2)));
    }

    #[test]
    fn an_invalid_value_is_named_with_its_line() {
        let p = problem("\nworkers = 0\n");
        assert_eq!((p.key.as_deref(), p.line), (Some("workers"), Some(2)));
        let p = problem("addr = \"localhost\"\n");
        assert_eq!(p.key.as_deref(), Some("addr"));
        let p = problem("[policy]\nalpha = -1.0\n");
        assert_eq!((p.key.as_deref(), p.line), (Some("policy.alpha"), Some(2)));
        let p = problem("[policy]\nsaturation_threshold = 2.0\n");
        assert_eq!(p.key.as_deref(), Some("policy.saturation_threshold"));
        let p = problem("workers = 2\nk8s_rack_label = \"not a label\"\n");
        assert_eq!((p.key.as_deref(), p.line), (Some("k8s_rack_label"), Some(2)));
    }

    #[test]
    fn a_syntax_error_has_a_line() {
        let p = problem("addr = \"127.0.0.1:1\"\nbody_limit = = 3\n");
        assert_eq!(p.line, Some(2));
    }

    #[test]
    fn the_command_line_wins_over_the_file() {
        let file = parse("body_limit = 1000\nmax_in_flight = 3\n").unwrap();
        let cli = CommandLine {
            config: ServerConfig { body_limit_bytes: 77, ..ServerConfig::default() },
            given: BTreeSet::from(["body_limit".to_owned()]),
        };
        let config = resolve(&file, &cli);
        assert_eq!(config.body_limit_bytes, 77);
        assert_eq!(config.max_in_flight, 3);
    }

    #[test]
    fn the_checked_in_example_loads_also_with_every_key_uncommented() {
        let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/placer.toml"));
        let config = load(path, &CommandLine::default()).unwrap();
        assert_eq!(config.config_path.as_deref(), Some(path));
        assert_eq!(config.body_limit_bytes, ServerConfig::default().body_limit_bytes);

        // Every `# key = value` line is a valid setting too.
        let text = std::fs::read_to_string(path).unwrap();
        let uncommented: String = text
            .lines()
            .map(|l| match l.strip_prefix("# ") {
                Some(rest) if rest.split_once(" = ").is_some_and(|(k, _)| !k.contains(' ')) => rest,
                _ => l,
            })
            .map(|l| format!("{l}\n"))
            .collect();
        let file = parse(&uncommented).unwrap();
        assert_eq!(file.queue, Some(crate::DEFAULT_QUEUE_LEN));
        let policy = file.policy.unwrap();
        assert_eq!(policy.len(), 15, "{policy:?}");
        let policy: Policy = serde_json::from_value(Value::Object(policy)).unwrap();
        assert_eq!(policy.algorithm, Algorithm::LsapQuota);
        assert_eq!((policy.user_max_running_jobs, policy.deadline_ms), (Some(10), Some(2000)));
        // Every knob of the example is its policy's default but the two waits.
        let mut expected = Policy::default();
        expected.set("locality_delay_node_s", 4.5).set("locality_delay_rack_s", 4.5);
        for group in placer_solver::registry::settings() {
            assert_eq!(group.resolved(&policy), group.resolved(&expected), "{}", group.name());
        }
    }

    #[test]
    fn load_names_the_file() {
        let err = load(Path::new("no/such/placer.toml"), &CommandLine::default()).unwrap_err();
        assert!(err.to_string().starts_with("no/such/placer.toml: cannot read"), "{err}");
    }
}
