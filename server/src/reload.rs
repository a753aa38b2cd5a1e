//! Config reload (docs/operations/configuration.md, "Config file": on SIGHUP or file change;
//! an invalid reload keeps the old config and logs why; visible in `/metrics`): re-read the file,
//! check it as at start, and swap the whole [`ServerConfig`] in the [`LiveConfig`] that requests
//! read. Settings fixed when the server starts are kept and logged as "restart needed". Files are
//! read under a size and time limit, regular files only ([`crate::operator_file`]), on a thread of
//! their own.
//!
//! The fair-scheduler allocation file (`--allocations`, docs/operations/allocation-files.md) is
//! part of the config: a change of either file reloads both, and an invalid allocation file is
//! rejected (logged, counted in `placer_config_reloads_total{result="error"}`) like an invalid
//! config, keeping the old allocations. Without `--config`, only the allocation file is watched.
//!
//! So is the scheduler extender's node → rack map (`--k8s-rack-map`, [`crate::k8s::RackFile`]).
//!
//! So are the TLS certificate, key and client CA and the bearer token file
//! (docs/operations/configuration.md, "TLS and tokens"; [`crate::tls`], [`crate::auth`]): a change
//! of any of them reloads all, an unusable one is rejected the same way, and new connections use
//! the new certificate. Turning TLS on or off needs a restart.

use crate::config::ServerConfig;
use crate::config_file::{self, CommandLine};
use crate::live_config::LiveConfig;
use crate::metrics;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

/// How often the file's modification time and length are compared with the last load's.
pub const POLL_EVERY: Duration = Duration::from_secs(1);

/// Keys that take effect only when the server starts: a reload keeps their old values.
pub const RESTART_KEYS: [&str; 10] = [
    "addr",
    "workers",
    "header_timeout_ms",
    "shutdown_grace_ms",
    "log_format",
    "epochs",
    "epochs_max_bytes",
    "event_log",
    "event_log_max_bytes",
    "event_log_keep",
];

/// What one reload did.
#[derive(Debug, PartialEq)]
pub enum ReloadOutcome {
    /// The new file is in force: the keys whose values changed, and those that changed but
    /// need a restart (kept at their old values).
    Applied {
        /// Changed keys now in force (TOML names, `policy` for the `[policy]` table).
        changed: Vec<&'static str>,
        /// Changed keys not applied.
        restart_needed: Vec<&'static str>,
    },
    /// The file is unreadable or invalid: the old config stays; the error as text.
    Rejected(String),
}

/// Reloads one config file (and the allocation file it names) into one [`LiveConfig`].
#[derive(Debug)]
pub struct Reloader {
    /// The config file; `None`: the command line alone (an allocation file to watch).
    path: Option<PathBuf>,
    cli: CommandLine,
    live: LiveConfig,
    generation: u64,
    stamp: Option<Stamp>,
    /// The stamps of the allocation, TLS and token files in force at the last reload.
    allocations_stamp: Vec<Option<Stamp>>,
}

/// What [`Reloader::poll`] compares: modification time and length.
type Stamp = (SystemTime, u64);

impl Reloader {
    /// A reloader of `path` over `cli` into `live`, which holds generation 1 (the config loaded
    /// at start). Sets `placer_config_generation` and the reload timestamp.
    pub fn new(path: PathBuf, cli: CommandLine, live: LiveConfig) -> Self {
        Self::watching(Some(path), cli, live)
    }

    /// A reloader of the command line's settings alone, re-reading the allocation file they
    /// name (`placer serve --allocations` without `--config`).
    pub fn without_config_file(cli: CommandLine, live: LiveConfig) -> Self {
        Self::watching(None, cli, live)
    }

    fn watching(path: Option<PathBuf>, cli: CommandLine, live: LiveConfig) -> Self {
        let stamp = path.as_deref().and_then(stamp);
        let allocations_stamp = allocations_stamp(&live.get());
        metrics::config_generation(1);
        Self { path, cli, live, generation: 1, stamp, allocations_stamp }
    }

    /// The generation in force: 1 at start, +1 per applied reload.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Reloads now: on success puts the new config in force (restart keys kept), bumps the
    /// generation and logs the changed keys at `info` (restart keys at `warn`); on failure
    /// keeps the old config and logs why at `error`. Counts the attempt in
    /// `placer_config_reloads_total`. Reads the file synchronously (a small file).
    pub fn reload_once(&mut self) -> ReloadOutcome {
        self.stamp = self.path.as_deref().and_then(stamp);
        self.allocations_stamp = allocations_stamp(&self.live.get());
        let loaded = match &self.path {
            Some(path) => config_file::load(path, &self.cli),
            None => config_file::from_command_line(&self.cli),
        };
        let file = self.file();
        let new = match loaded {
            Ok(c) => c,
            Err(e) => {
                metrics::config_reloaded(false);
                tracing::error!(%file, error = %e, "config reload rejected; old config stays");
                return ReloadOutcome::Rejected(e.to_string());
            }
        };
        self.allocations_stamp = allocations_stamp(&new);
        let old = self.live.get();
        let (config, changed, restart_needed) = merge(&old, new);
        self.live.replace(config);
        self.generation += 1;
        metrics::config_reloaded(true);
        metrics::config_generation(self.generation);
        tracing::info!(
            %file,
            generation = self.generation,
            changed = changed.join(","),
            "config reloaded"
        );
        if !restart_needed.is_empty() {
            tracing::warn!(
                keys = restart_needed.join(","),
                "config keys changed but need a restart; not applied"
            );
        }
        ReloadOutcome::Applied { changed, restart_needed }
    }

    /// Reloads if the config file's or a named file's (allocations, TLS, tokens) modification
    /// time or length differs from the last load's (also when it appeared or disappeared);
    /// `None` when unchanged.
    pub fn poll(&mut self) -> Option<ReloadOutcome> {
        let changed = self.path.as_deref().and_then(stamp) != self.stamp
            || allocations_stamp(&self.live.get()) != self.allocations_stamp;
        changed.then(|| self.reload_once())
    }

    /// The watched files for logs: the config file, else the allocation, certificate or token
    /// file.
    fn file(&self) -> String {
        let live = self.live.get();
        let named = [&live.allocations, &live.tls_cert, &live.tokens, &live.k8s_rack_map];
        let file = match (&self.path, named.into_iter().flatten().next()) {
            (Some(p), _) | (None, Some(p)) => p.display().to_string(),
            (None, None) => "(command line)".to_owned(),
        };
        file
    }
}

/// The stamps of the files `config` names besides itself: the allocation file, the TLS
/// certificate, key and client CA, the token file and the extender's rack map.
fn allocations_stamp(config: &ServerConfig) -> Vec<Option<Stamp>> {
    [
        &config.allocations,
        &config.tls_cert,
        &config.tls_key,
        &config.tls_client_ca,
        &config.tokens,
        &config.k8s_rack_map,
    ]
    .into_iter()
    .map(|path| path.as_deref().and_then(stamp))
    .collect()
}

/// `new` with the restart keys taken from `old`, and the keys that differ: those applied and
/// those held back.
fn merge(
    old: &ServerConfig,
    mut new: ServerConfig,
) -> (ServerConfig, Vec<&'static str>, Vec<&'static str>) {
    let changed = changed_keys(old, &new);
    // TLS on or off is fixed at start (the address was announced as http or https).
    let tls_switched = old.tls.is_some() != new.tls.is_some();
    let (restart, applied): (Vec<_>, Vec<_>) = changed
        .into_iter()
        .partition(|k| RESTART_KEYS.contains(k) || (*k == "tls" && tls_switched));
    if tls_switched {
        new.tls_cert.clone_from(&old.tls_cert);
        new.tls_key.clone_from(&old.tls_key);
        new.tls_client_ca.clone_from(&old.tls_client_ca);
        new.tls.clone_from(&old.tls);
    } else if new.tls == old.tls {
        // Unchanged files keep the rustls config in force, and so its TLS session cache.
        new.tls.clone_from(&old.tls);
    }
    new.addr.clone_from(&old.addr);
    new.workers = old.workers;
    new.header_timeout_ms = old.header_timeout_ms;
    new.shutdown_grace_ms = old.shutdown_grace_ms;
    new.log_format = old.log_format;
    new.epochs_kept = old.epochs_kept;
    new.epochs_max_bytes = old.epochs_max_bytes;
    new.event_log.clone_from(&old.event_log);
    new.event_log_max_bytes = old.event_log_max_bytes;
    new.event_log_keep = old.event_log_keep;
    (new, applied, restart)
}

/// The TOML keys whose values differ between `a` and `b`.
fn changed_keys(a: &ServerConfig, b: &ServerConfig) -> Vec<&'static str> {
    let mut keys = Vec::new();
    let mut check = |differs: bool, key| {
        if differs {
            keys.push(key);
        }
    };
    check(a.addr != b.addr, "addr");
    check(a.body_limit_bytes != b.body_limit_bytes, "body_limit");
    check(a.max_in_flight != b.max_in_flight, "max_in_flight");
    check(a.queue_len != b.queue_len, "queue");
    check(a.queue_wait_ms != b.queue_wait_ms, "queue_wait_ms");
    check(a.max_memory_bytes != b.max_memory_bytes, "max_memory");
    check(a.deadline_ms != b.deadline_ms, "deadline_ms");
    check(a.header_timeout_ms != b.header_timeout_ms, "header_timeout_ms");
    check(a.body_timeout_ms != b.body_timeout_ms, "body_timeout_ms");
    check(a.shutdown_grace_ms != b.shutdown_grace_ms, "shutdown_grace_ms");
    check(a.workers != b.workers, "workers");
    check(a.log_format != b.log_format, "log_format");
    check(a.policy_defaults != b.policy_defaults, "policy");
    check(
        a.allocations != b.allocations || a.fair_allocations != b.fair_allocations,
        "allocations",
    );
    check(a.epochs_kept != b.epochs_kept, "epochs");
    check(a.epochs_max_bytes != b.epochs_max_bytes, "epochs_max_bytes");
    check(a.event_log != b.event_log, "event_log");
    check(a.event_log_max_bytes != b.event_log_max_bytes, "event_log_max_bytes");
    check(a.event_log_keep != b.event_log_keep, "event_log_keep");
    let tls_files = (&a.tls_cert, &a.tls_key, &a.tls_client_ca);
    check(tls_files != (&b.tls_cert, &b.tls_key, &b.tls_client_ca) || a.tls != b.tls, "tls");
    check(a.tokens != b.tokens || a.auth_tokens != b.auth_tokens, "tokens");
    check(a.k8s_rack_label != b.k8s_rack_label, "k8s_rack_label");
    check(a.k8s_rack_map != b.k8s_rack_map || a.k8s_rack_file != b.k8s_rack_file, "k8s_rack_map");
    check(a.sessions_max != b.sessions_max, "sessions_max");
    check(a.session_idle_s != b.session_idle_s, "session_idle_s");
    keys
}

fn stamp(path: &std::path::Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

/// Starts reloading: on every SIGHUP, and whenever [`Reloader::poll`] sees a file change
/// (checked every [`POLL_EVERY`]). The reloads run on a thread of their own (`placer-reload`):
/// the SIGHUP listener on the actix runtime only passes the signal on, so a slow or blocked
/// read never delays the handling of SIGTERM. Must run inside an actix system (as
/// [`crate::run`] does).
pub fn spawn(reloader: Reloader) {
    let (hup, hups) = std::sync::mpsc::channel::<()>();
    let thread = std::thread::Builder::new()
        .name("placer-reload".to_owned())
        .spawn(move || reload_loop(reloader, &hups));
    if let Err(e) = thread {
        tracing::warn!(error = %e, "no reload thread; the config will not be reloaded");
        return;
    }
    // Registered now, before the server announces its address: a SIGHUP sent right after the
    // announcement must not meet the default action, which ends the process.
    use actix_web::rt::signal::unix::{signal, SignalKind};
    let mut hangups = match signal(SignalKind::hangup()) {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!(error = %e, "no SIGHUP listener; reloading on file change only");
            return;
        }
    };
    actix_web::rt::spawn(async move {
        while hangups.recv().await.is_some() {
            tracing::info!("SIGHUP: reloading the config file");
            if hup.send(()).is_err() {
                return;
            }
        }
    });
}

/// The reload thread: a reload per message on `hups`, a poll every [`POLL_EVERY`] between.
fn reload_loop(mut reloader: Reloader, hups: &std::sync::mpsc::Receiver<()>) {
    use std::sync::mpsc::RecvTimeoutError;
    loop {
        match hups.recv_timeout(POLL_EVERY) {
            Ok(()) => {
                // Signals that came while reloading ask for the same reload.
                while hups.try_recv().is_ok() {}
                reloader.reload_once();
            }
            Err(RecvTimeoutError::Timeout) => {
                reloader.poll();
            }
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::path::Path;

    /// A config file in the system's temp dir, removed on drop.
    struct TempFile(PathBuf);

    impl TempFile {
        fn new(name: &str, text: &str) -> Self {
            let path =
                std::env::temp_dir().join(format!("placer-{}-{name}.toml", std::process::id()));
            std::fs::write(&path, text).unwrap();
            Self(path)
        }
        fn write(&self, text: &str) {
            std::fs::write(&self.0, text).unwrap();
        }
        fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for TempFile {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    fn start(file: &TempFile, cli: CommandLine) -> (LiveConfig, Reloader) {
        let config = config_file::load(file.path(), &cli).unwrap();
        let live = LiveConfig::new(config);
        let reloader = Reloader::new(file.path().to_path_buf(), cli, live.clone());
        (live, reloader)
    }

    #[test]
    fn a_valid_reload_applies_body_limit_and_policy_defaults() {
        let file = TempFile::new("valid", "body_limit = 1000\n");
        let (live, mut reloader) = start(&file, CommandLine::default());
        assert_eq!(live.get().body_limit_bytes, 1000);
        assert_eq!(live.get().policy_defaults, None);

        file.write("body_limit = 2000\n[policy]\nalgorithm = \"dl_sched\"\n");
        let outcome = reloader.reload_once();
        assert_eq!(
            outcome,
            ReloadOutcome::Applied {
                changed: vec!["body_limit", "policy"],
                restart_needed: vec![]
            }
        );
        assert_eq!(live.get().body_limit_bytes, 2000);
        assert_eq!(live.get().policy_defaults.as_ref().unwrap()["algorithm"], "dl_sched");
        assert_eq!(reloader.generation(), 2);
    }

    #[test]
    fn an_invalid_reload_keeps_the_old_config() {
        let file = TempFile::new("invalid", "body_limit = 1000\n");
        let (live, mut reloader) = start(&file, CommandLine::default());
        file.write("body_limit = \"lots\"\n");
        let ReloadOutcome::Rejected(why) = reloader.reload_once() else { unreachable!() };
        assert!(why.contains("body_limit"), "{why}");
        assert_eq!(live.get().body_limit_bytes, 1000);
        assert_eq!(reloader.generation(), 1);
    }

    #[test]
    fn restart_keys_are_not_applied() {
        let file = TempFile::new("restart", "addr = \"127.0.0.1:1\"\nworkers = 1\n");
        let (live, mut reloader) = start(&file, CommandLine::default());
        file.write("addr = \"127.0.0.1:2\"\nworkers = 3\nmax_in_flight = 9\n");
        let outcome = reloader.reload_once();
        assert_eq!(
            outcome,
            ReloadOutcome::Applied {
                changed: vec!["max_in_flight"],
                restart_needed: vec!["addr", "workers"]
            }
        );
        let now = live.get();
        assert_eq!(
            (now.addr.as_str(), now.workers, now.max_in_flight),
            ("127.0.0.1:1", Some(1), 9)
        );
    }

    #[test]
    fn command_line_flags_keep_winning_after_a_reload() {
        let file = TempFile::new("cli", "body_limit = 1000\n");
        let cli = CommandLine {
            config: ServerConfig { body_limit_bytes: 5, ..ServerConfig::default() },
            given: ["body_limit".to_owned()].into(),
        };
        let (live, mut reloader) = start(&file, cli);
        file.write("body_limit = 3000\nmax_in_flight = 4\n");
        reloader.reload_once();
        assert_eq!((live.get().body_limit_bytes, live.get().max_in_flight), (5, 4));
    }

    #[test]
    fn poll_reloads_only_when_the_file_changed() {
        let file = TempFile::new("poll", "body_limit = 1000\n");
        let (live, mut reloader) = start(&file, CommandLine::default());
        assert_eq!(reloader.poll(), None);
        file.write("body_limit = 12345\n");
        // The length changed, so the stamp differs whatever the clock's resolution.
        assert!(matches!(reloader.poll(), Some(ReloadOutcome::Applied { .. })));
        assert_eq!(live.get().body_limit_bytes, 12345);
        assert_eq!(reloader.poll(), None);
    }
}
