//! TLS for `placer serve` (RFC 8446 TLS 1.3 and RFC 5246 TLS 1.2, with rustls and its `ring`
//! provider; docs/operations/configuration.md, "TLS and tokens"): the server certificate
//! chain and key from PEM files
//! (`--tls-cert`, `--tls-key`), and optional client certificates signed by one CA
//! (`--tls-client-ca`, mutual TLS: rustls' `WebPkiClientVerifier`, RFC 5280 path validation).
//!
//! The files are read with the config ([`load_into`]) at start and at every reload (SIGHUP or a
//! change of any watched file, [`crate::reload`]): a reload builds a whole new rustls config,
//! and each new connection takes the one in force when it is accepted, so open connections keep
//! their session and new ones get the new certificate. A bad certificate or key on reload is
//! rejected like a bad config file (logged, counted in `placer_config_reloads_total{result=
//! "error"}`) and the old one stays. Whether the server speaks TLS at all is fixed at start.
//!
//! The TLS layer sits between the accepted TCP stream and the JSON rewriting of the HTTP layer's
//! errors ([`crate::http_errors`]), so those errors stay JSON under TLS. The handshake must
//! finish within `header_timeout_ms`.

use crate::config::ServerConfig;
use crate::error::ServerError;
use crate::operator_file::READ_TIMEOUT;
use ring::digest::{Context as Digest, SHA256};
use rustls::server::WebPkiClientVerifier;
use rustls::RootCertStore;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

/// Largest certificate, key or CA file read: 1 MiB (a chain of a few certificates is a few KiB).
pub const MAX_PEM_BYTES: u64 = 1 << 20;

/// A loaded server certificate and key (and client CA): the rustls config every new connection
/// uses. Equal when built from the same file contents.
#[derive(Clone)]
pub struct Tls {
    config: Arc<rustls::ServerConfig>,
    /// SHA-256 of the files' contents, to tell a reload that changed them.
    digest: [u8; 32],
    client_auth: bool,
}

impl PartialEq for Tls {
    fn eq(&self, other: &Self) -> bool {
        self.digest == other.digest && self.client_auth == other.client_auth
    }
}

impl Eq for Tls {}

impl fmt::Debug for Tls {
    // Never the key: only whether client certificates are required.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tls").field("client_auth", &self.client_auth).finish_non_exhaustive()
    }
}

impl Tls {
    /// Reads the PEM certificate chain at `cert` (leaf first), the PEM private key at `key`
    /// (PKCS#8, SEC1 or PKCS#1) and, with `client_ca`, the PEM CA certificates client
    /// certificates must chain to; builds the rustls config (TLS 1.2 and 1.3, ALPN
    /// `http/1.1`).
    ///
    /// # Errors
    /// [`ServerError::Config`] naming the file: unreadable, not a regular file, over
    /// [`MAX_PEM_BYTES`], no certificate or key in it, a key that does not match the
    /// certificate, or a CA certificate rustls refuses.
    pub fn load(cert: &Path, key: &Path, client_ca: Option<&Path>) -> Result<Self, ServerError> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut digest = Digest::new(&SHA256);
        let cert_pem = read_pem(cert, "tls_cert", &mut digest)?;
        let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&cert_pem)
            .collect::<Result<_, _>>()
            .map_err(|e| problem(cert, "tls_cert", format!("not a PEM certificate file: {e}")))?;
        if chain.is_empty() {
            let message = "no certificate in the file (expected PEM `BEGIN CERTIFICATE`)";
            return Err(problem(cert, "tls_cert", message.to_owned()));
        }
        let key_pem = read_pem(key, "tls_key", &mut digest)?;
        let private = PrivateKeyDer::from_pem_slice(&key_pem)
            .map_err(|e| problem(key, "tls_key", format!("no PEM private key in the file: {e}")))?;
        let builder = rustls::ServerConfig::builder_with_provider(Arc::clone(&provider))
            .with_safe_default_protocol_versions()
            .map_err(|e| problem(cert, "tls_cert", e.to_string()))?;
        let builder = match client_ca {
            None => builder.with_no_client_auth(),
            Some(ca) => {
                let ca_pem = read_pem(ca, "tls_client_ca", &mut digest)?;
                let mut roots = RootCertStore::empty();
                for der in CertificateDer::pem_slice_iter(&ca_pem) {
                    let der = der.map_err(|e| {
                        problem(ca, "tls_client_ca", format!("not a PEM certificate file: {e}"))
                    })?;
                    roots.add(der).map_err(|e| {
                        problem(ca, "tls_client_ca", format!("not a usable CA certificate: {e}"))
                    })?;
                }
                if roots.is_empty() {
                    let message =
                        "no CA certificate in the file (expected PEM `BEGIN CERTIFICATE`)";
                    return Err(problem(ca, "tls_client_ca", message.to_owned()));
                }
                let verifier =
                    WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                        .build()
                        .map_err(|e| problem(ca, "tls_client_ca", e.to_string()))?;
                builder.with_client_cert_verifier(verifier)
            }
        };
        let mut config = builder.with_single_cert(chain, private).map_err(|e| match e {
            rustls::Error::InvalidCertificate(why) => {
                problem(cert, "tls_cert", format!("not a usable certificate: {why:?}"))
            }
            rustls::Error::InconsistentKeys(_) => {
                let message = format!("the key does not fit the certificate {}", cert.display());
                problem(key, "tls_key", message)
            }
            other => problem(key, "tls_key", format!("not a usable private key: {other}")),
        })?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        let mut out = [0; 32];
        out.copy_from_slice(digest.finish().as_ref());
        Ok(Self { config: Arc::new(config), digest: out, client_auth: client_ca.is_some() })
    }

    /// Whether clients must present a certificate signed by the client CA.
    pub fn requires_client_cert(&self) -> bool {
        self.client_auth
    }
}

/// `config` with `tls` loaded from its `tls_cert`, `tls_key` and `tls_client_ca` (`None` when
/// neither certificate nor key is set).
///
/// # Errors
/// [`ServerError::Config`]: only one of `tls_cert` and `tls_key` is set, `tls_client_ca` is set
/// without them, or a file cannot be used ([`Tls::load`]).
pub fn load_into(mut config: ServerConfig) -> Result<ServerConfig, ServerError> {
    config.tls = match (&config.tls_cert, &config.tls_key) {
        (Some(cert), Some(key)) => Some(Tls::load(cert, key, config.tls_client_ca.as_deref())?),
        (None, None) => match &config.tls_client_ca {
            None => None,
            Some(ca) => {
                let message = "tls_client_ca needs tls_cert and tls_key (client certificates \
                               are asked only under TLS)";
                return Err(problem(ca, "tls_client_ca", message.to_owned()));
            }
        },
        (Some(cert), None) => {
            let message = "tls_cert is set but tls_key is not: give both, or neither to serve \
                           plaintext";
            return Err(problem(cert, "tls_key", message.to_owned()));
        }
        (None, Some(key)) => {
            let message = "tls_key is set but tls_cert is not: give both, or neither to serve \
                           plaintext";
            return Err(problem(key, "tls_cert", message.to_owned()));
        }
    };
    Ok(config)
}

/// The bytes of a PEM file, also fed to `digest`; refuses what is not a regular file (a named
/// pipe would block the reload) and files over [`MAX_PEM_BYTES`].
fn read_pem(path: &Path, key: &str, digest: &mut Digest) -> Result<Vec<u8>, ServerError> {
    let bytes = crate::operator_file::read_bytes(path, MAX_PEM_BYTES, READ_TIMEOUT)
        .map_err(|message| problem(path, key, message))?;
    digest.update(&(bytes.len() as u64).to_le_bytes());
    digest.update(&bytes);
    Ok(bytes)
}

fn problem(file: &Path, key: &str, message: String) -> ServerError {
    ServerError::Config {
        file: file.display().to_string(),
        key: Some(key.to_owned()),
        line: None,
        message,
    }
}

/// The `warn` line for binding `addr` without TLS or without tokens, when `addr` is not a
/// loopback address (anyone who can reach it can then read or post, or sniff the traffic).
pub(crate) fn exposure_warning(addr: SocketAddr, tls: bool, tokens: bool) -> Option<String> {
    if addr.ip().is_loopback() {
        return None;
    }
    const ANYONE: &str = "anyone who reaches it may post snapshots and read epochs and metrics";
    const CLEAR: &str = "crosses the network in clear";
    let missing = match (tls, tokens) {
        (true, true) => return None,
        (false, true) => format!("without TLS (--tls-cert, --tls-key): every token {CLEAR}"),
        (true, false) => format!("without bearer tokens (--tokens): {ANYONE}"),
        (false, false) => format!(
            "without TLS (--tls-cert, --tls-key) and without bearer tokens (--tokens): {ANYONE}, \
             and everything {CLEAR}"
        ),
    };
    Some(format!("listening on the non-loopback address {addr} {missing}"))
}

/// Marker in a connection's data (`HttpRequest::conn_data`) when the client presented a
/// certificate that the client CA verified.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ClientCert;

/// An accepted connection: plain TCP, or TLS over it.
pub(crate) enum Conn {
    /// No TLS configured.
    Plain(TcpStream),
    /// After a completed handshake.
    Tls(Box<TlsStream<TcpStream>>),
}

impl Conn {
    /// Whether the client presented a verified certificate (only under mutual TLS: the
    /// verifier refuses the handshake otherwise).
    pub(crate) fn has_client_cert(&self) -> bool {
        match self {
            Self::Plain(_) => false,
            Self::Tls(s) => s.get_ref().1.peer_certificates().is_some_and(|c| !c.is_empty()),
        }
    }
}

/// Runs the TLS handshake on `io` with `tls` (plain `io` without), within `timeout`.
///
/// # Errors
/// The handshake failed (wrong protocol, no or unverified client certificate, ...) or timed
/// out; the connection is then closed.
pub(crate) async fn accept(
    io: TcpStream,
    tls: Option<&Tls>,
    timeout: Duration,
) -> io::Result<Conn> {
    let Some(tls) = tls else {
        return Ok(Conn::Plain(io));
    };
    let peer = io.peer_addr().ok();
    let acceptor = TlsAcceptor::from(Arc::clone(&tls.config));
    match tokio::time::timeout(timeout, acceptor.accept(io)).await {
        Ok(Ok(stream)) => Ok(Conn::Tls(Box::new(stream))),
        Ok(Err(e)) => {
            tracing::debug!(?peer, error = %e, "TLS handshake failed");
            Err(e)
        }
        Err(_) => {
            tracing::debug!(?peer, "TLS handshake timed out");
            Err(io::Error::new(io::ErrorKind::TimedOut, "TLS handshake timed out"))
        }
    }
}

impl AsyncRead for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Self::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Self::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Self::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Self::Plain(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            Self::Tls(s) => Pin::new(s.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Self::Plain(s) => s.is_write_vectored(),
            Self::Tls(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Plain(s) => Pin::new(s).poll_flush(cx),
            Self::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Self::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A file of the checked-in test certificates (`tests/fixtures/tls`).
    pub(crate) fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/tls").join(name)
    }

    fn with_files(cert: Option<&str>, key: Option<&str>, ca: Option<&str>) -> ServerConfig {
        ServerConfig {
            tls_cert: cert.map(fixture),
            tls_key: key.map(fixture),
            tls_client_ca: ca.map(fixture),
            ..ServerConfig::default()
        }
    }

    #[test]
    fn the_fixtures_load_with_and_without_a_client_ca() {
        let plain = load_into(with_files(None, None, None)).unwrap();
        assert!(plain.tls.is_none());
        let tls = load_into(with_files(Some("server.pem"), Some("server-key.pem"), None)).unwrap();
        assert!(!tls.tls.as_ref().unwrap().requires_client_cert());
        let mtls =
            load_into(with_files(Some("server.pem"), Some("server-key.pem"), Some("ca.pem")))
                .unwrap();
        assert!(mtls.tls.as_ref().unwrap().requires_client_cert());
        assert_ne!(tls.tls, mtls.tls);
        // The same files give an equal config (a reload of unchanged files changes nothing).
        let again =
            load_into(with_files(Some("server.pem"), Some("server-key.pem"), None)).unwrap();
        assert_eq!(tls.tls, again.tls);
        // No key material in the debug form.
        assert_eq!(format!("{:?}", mtls.tls.unwrap()), "Tls { client_auth: true, .. }");
    }

    #[test]
    fn only_one_of_cert_and_key_is_an_error_naming_the_file() {
        let err = load_into(with_files(Some("server.pem"), None, None)).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("server.pem") && text.contains("tls_key"), "{text}");
        let err = load_into(with_files(None, Some("server-key.pem"), None)).unwrap_err();
        assert!(err.to_string().contains("server-key.pem"), "{err}");
        let err = load_into(with_files(None, None, Some("ca.pem"))).unwrap_err();
        assert!(err.to_string().contains("tls_client_ca"), "{err}");
    }

    #[test]
    fn unusable_files_are_errors_naming_the_file() {
        let cases = [
            (Some("nope.pem"), Some("server-key.pem"), None, "nope.pem", "cannot read"),
            (
                Some("server-key.pem"),
                Some("server-key.pem"),
                None,
                "server-key.pem",
                "no certificate",
            ),
            (Some("server.pem"), Some("server.pem"), None, "server.pem", "no PEM private key"),
            // The client's key with the server's certificate.
            (Some("server.pem"), Some("client-key.pem"), None, "client-key.pem", "does not fit"),
            (
                Some("server.pem"),
                Some("server-key.pem"),
                Some("server-key.pem"),
                "server-key.pem",
                "no CA certificate",
            ),
            (Some("server.pem"), Some("server-key.pem"), Some("."), "", "not a regular file"),
        ];
        for (cert, key, ca, file, message) in cases {
            let err = load_into(with_files(cert, key, ca)).unwrap_err();
            let text = err.to_string();
            assert_eq!(err.code(), "invalid_config");
            assert!(text.contains(file) && text.contains(message), "{cert:?} {key:?}: {text}");
        }
    }

    /// A scratch directory with a config file naming a certificate and key beside it.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Self {
            let dir =
                std::env::temp_dir().join(format!("placer-tls-{}-{name}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Self(dir)
        }
        fn put(&self, name: &str, bytes: &[u8]) {
            std::fs::write(self.0.join(name), bytes).unwrap();
        }
        fn copy(&self, fixture_name: &str, name: &str) {
            self.put(name, &std::fs::read(fixture(fixture_name)).unwrap());
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn a_reload_swaps_the_certificate_rejects_a_bad_one_and_keeps_tls_on() {
        use crate::config_file::{self, CommandLine};
        use crate::reload::{ReloadOutcome, Reloader};
        let dir = Scratch::new("reload");
        dir.copy("server.pem", "server.pem");
        dir.copy("server-key.pem", "server-key.pem");
        let config_text = "tls_cert = \"server.pem\"\ntls_key = \"server-key.pem\"\n";
        dir.put("placer.toml", config_text.as_bytes());
        let path = dir.0.join("placer.toml");
        let cli = CommandLine::default();
        // Relative paths are taken from the config file's directory.
        let config = config_file::load(&path, &cli).unwrap();
        assert_eq!(config.tls_cert.as_deref(), Some(dir.0.join("server.pem").as_path()));
        let first = config.tls.clone().unwrap();
        let live = crate::LiveConfig::new(config);
        let mut reloader = Reloader::new(path, cli, live.clone());

        // A garbled certificate: rejected, the old one stays.
        dir.put("server.pem", b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
        let ReloadOutcome::Rejected(why) = reloader.reload_once() else { unreachable!() };
        assert!(why.contains("server.pem") && why.contains("tls_cert"), "{why}");
        assert_eq!(live.get().tls.as_ref(), Some(&first));

        // Another valid pair: applied.
        dir.copy("other-server.pem", "server.pem");
        dir.copy("other-server-key.pem", "server-key.pem");
        let outcome = reloader.reload_once();
        assert_eq!(
            outcome,
            ReloadOutcome::Applied { changed: vec!["tls"], restart_needed: vec![] }
        );
        let second = live.get().tls.clone().unwrap();
        assert_ne!(second, first);

        // Another key changed, the files not: the rustls config in force (and its session
        // cache) stays.
        dir.put("placer.toml", format!("{config_text}body_limit = 1000\n").as_bytes());
        let outcome = reloader.reload_once();
        let changed = vec!["body_limit"];
        assert_eq!(outcome, ReloadOutcome::Applied { changed, restart_needed: vec![] });
        assert!(Arc::ptr_eq(&live.get().tls.as_ref().unwrap().config, &second.config));

        // TLS off needs a restart: the certificate stays in force.
        dir.put("placer.toml", b"");
        let outcome = reloader.reload_once();
        assert_eq!(
            outcome,
            ReloadOutcome::Applied { changed: vec!["body_limit"], restart_needed: vec!["tls"] }
        );
        assert_eq!(live.get().tls.as_ref(), Some(&second));
        assert!(live.get().tls_cert.is_some());
    }

    #[test]
    fn non_loopback_addresses_without_tls_or_tokens_are_warned_about() {
        let local: SocketAddr = "127.0.0.1:8080".parse().unwrap();
        let any: SocketAddr = "0.0.0.0:8080".parse().unwrap();
        assert_eq!(exposure_warning(local, false, false), None);
        assert_eq!(exposure_warning("[::1]:1".parse().unwrap(), false, false), None);
        assert_eq!(exposure_warning(any, true, true), None);
        assert!(exposure_warning(any, false, true).unwrap().contains("without TLS"));
        assert!(exposure_warning(any, true, false).unwrap().contains("without bearer tokens"));
        let both = exposure_warning(any, false, false).unwrap();
        assert!(both.contains("without TLS") && both.contains("without bearer tokens"), "{both}");
    }
}
