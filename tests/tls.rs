//! `placer serve` with TLS, client certificates and bearer tokens, driven by real TLS clients
//! (RFC 8446 TLS 1.3, RFC 6750 bearer tokens; docs/operations/configuration.md, "TLS and
//! tokens"): `curl` and Python's
//! `ssl` module as subprocesses against the built binary, with the test certificates of
//! `tests/fixtures/tls` (made by its `generate.sh`). Checks the handshake against the right and a
//! wrong CA, mutual TLS with and without a client certificate, 401/403/200 by token and scope,
//! `Expect: 100-continue` refused before the body, the HTTP layer's JSON errors under TLS, the
//! auth counters in `/metrics`, a certificate reload on SIGHUP (a bad one rejected, a good one
//! used by new connections), the handshake timeout, the dashboard's token, and that no token
//! reaches the log.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const PLACE: &str = "place-token-for-tests-0001";
const READ: &str = "read-token-for-tests-00001";
const SNAPSHOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/snapshot.json");

/// The extender example of docs/operations/kubernetes-extender.md: one pod whose block is on n1.
const EXTENDER_ARGS: &str = r#"{"Pod": {"metadata": {"name": "m-0", "namespace": "etl",
  "annotations": {"placer.io/replicas": "n1", "placer.io/input-bytes": "128Mi"}}},
  "Nodes": {"items": [{"metadata": {"name": "n1", "labels": {"topology.kubernetes.io/rack": "r1"}}},
                      {"metadata": {"name": "n2", "labels": {"topology.kubernetes.io/rack": "r2"}}}]}}"#;

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/tls/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// A scratch directory, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("placer-tls-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn path(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }

    /// Copies a fixture to `name` here, atomically (write then rename).
    fn put_fixture(&self, fixture_name: &str, name: &str) {
        self.put(name, &std::fs::read(fixture(fixture_name)).unwrap());
    }

    fn put(&self, name: &str, bytes: &[u8]) {
        let tmp = self.0.join(format!(".{name}.tmp"));
        std::fs::write(&tmp, bytes).unwrap();
        std::fs::rename(&tmp, self.0.join(name)).unwrap();
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A running `placer serve`, killed on drop; its stderr is collected by a thread.
struct Server {
    child: Child,
    port: u16,
    log: Arc<Mutex<String>>,
}

impl Server {
    fn start(args: &[&str]) -> Self {
        Self::start_announcing("placer listening on https://", args)
    }

    /// Starts the server and waits for the line `announce` followed by the address.
    fn start_announcing(announce: &'static str, args: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_placer"))
            .args(["serve", "--addr", "127.0.0.1:0", "--workers", "1"])
            .args(args)
            .stderr(Stdio::piped())
            .spawn()
            .expect("placer serve starts");
        let stderr = child.stderr.take().expect("stderr piped");
        let log = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let sink = Arc::clone(&log);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Some(addr) = line.strip_prefix(announce) {
                    let _ = tx.send(addr.trim().to_owned());
                }
                let mut log = sink.lock().unwrap();
                log.push_str(&line);
                log.push('\n');
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("no `{announce}` line: {}", log.lock().unwrap()));
        let port = addr.rsplit_once(':').unwrap().1.parse().unwrap();
        Self { child, port, log }
    }

    fn url(&self, path: &str) -> String {
        format!("https://127.0.0.1:{}{path}", self.port)
    }

    fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    fn signal(&self, name: &str) {
        let status = Command::new("kill").args([name, &self.child.id().to_string()]).status();
        assert!(status.expect("kill runs").success());
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What curl got: whether it succeeded, the status (0 without an answer), the body.
#[derive(Debug)]
struct CurlReply {
    ok: bool,
    status: u16,
    headers: String,
    body: String,
    stderr: String,
}

/// `curl -sS` with `args` then `url`; `-D -` puts the response headers before the body.
fn curl<S: AsRef<std::ffi::OsStr>>(url: &str, args: &[S]) -> CurlReply {
    let out = Command::new("curl")
        .args(["-sS", "--max-time", "20", "-D", "-", "-w", "\n%{http_code}"])
        .args(args)
        .arg(url)
        .output()
        .expect("curl runs (scripts/deps installs it)");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let (text, code) = stdout.rsplit_once('\n').unwrap_or(("", &stdout));
    let (headers, body) = text.split_once("\r\n\r\n").unwrap_or(("", text));
    CurlReply {
        ok: out.status.success(),
        status: code.trim().parse().unwrap_or(0),
        headers: headers.to_ascii_lowercase(),
        body: body.to_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn bearer(token: &str) -> String {
    format!("Authorization: Bearer {token}")
}

/// Python's `ssl`: connects to 127.0.0.1:`port` trusting `ca` (and presenting `client` =
/// (cert, key)), sends the bytes of stdin, reads one response (head, then `Content-Length`
/// bytes). Prints `VERSION\nSTATUS-LINE\nBODY`, or `ERROR Type: message`.
const PYTHON_CLIENT: &str = r#"
import socket, ssl, sys
port, ca, cert, key = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.load_verify_locations(ca)
if cert:
    ctx.load_cert_chain(cert, key)
request = sys.stdin.buffer.read()
try:
    with socket.create_connection(("127.0.0.1", port), timeout=20) as raw:
        with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as s:
            s.sendall(request)
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = s.recv(65536)
                if not chunk:
                    raise ConnectionError("closed before a response: %r" % data)
                data += chunk
            head, body = data.split(b"\r\n\r\n", 1)
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            while len(body) < length:
                chunk = s.recv(65536)
                if not chunk:
                    break
                body += chunk
            print(s.version())
            print(head.split(b"\r\n")[0].decode())
            print(body.decode())
except Exception as e:
    print("ERROR %s: %s" % (type(e).__name__, e))
"#;

fn python(port: u16, ca: &str, client: Option<(&str, &str)>, request: &str) -> String {
    let (cert, key) = client.unwrap_or(("", ""));
    let mut child = Command::new("python3")
        .args(["-c", PYTHON_CLIENT, &port.to_string(), ca, cert, key])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs (scripts/deps installs it)");
    child.stdin.take().unwrap().write_all(request.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The value of the series `name` (with its labels) on a metrics page.
fn metric(page: &str, name: &str) -> Option<f64> {
    page.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
}

/// Polls `check` every 100 ms for up to 15 s.
fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    let start = Instant::now();
    while !check() {
        assert!(start.elapsed() < Duration::from_secs(15), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn tls_and_tokens_with_curl_and_python() {
    let dir = Scratch::new("tokens");
    dir.put_fixture("server.pem", "server.pem");
    dir.put_fixture("server-key.pem", "server-key.pem");
    dir.put("tokens.txt", format!("# test tokens\nplace {PLACE}\nread {READ}\n").as_bytes());
    let server = Server::start(&[
        "--tls-cert",
        &dir.path("server.pem"),
        "--tls-key",
        &dir.path("server-key.pem"),
        "--tokens",
        &dir.path("tokens.txt"),
    ]);
    let (ca, other_ca) = (fixture("ca.pem"), fixture("other-ca.pem"));
    let (ca, other_ca) = (ca.as_str(), other_ca.as_str());
    let trusting = |ca: &str| ["--cacert".to_owned(), ca.to_owned()];

    // The handshake: OK with the right CA (TLS 1.3 and 1.2), refused with a wrong one.
    let r = curl(&server.url("/healthz"), &["--cacert", ca]);
    assert_eq!((r.ok, r.status, r.body.as_str()), (true, 200, r#"{"status":"ok"}"#), "{r:?}");
    let r = curl(&server.url("/healthz"), &["--cacert", ca, "--tlsv1.2", "--tls-max", "1.2"]);
    assert_eq!(r.status, 200, "TLS 1.2: {r:?}");
    let r = curl(&server.url("/healthz"), &["--cacert", other_ca]);
    assert!(!r.ok && r.status == 0, "a wrong CA must fail the handshake: {r:?}");
    assert!(r.stderr.contains("certificate"), "{r:?}");
    let healthz = "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
    let out = python(server.port, ca, None, healthz);
    assert!(out.starts_with("TLSv1.3\nHTTP/1.1 200 OK\n"), "{out}");
    let out = python(server.port, other_ca, None, healthz);
    assert!(out.starts_with("ERROR SSLCertVerificationError"), "{out}");
    // Plain HTTP on the TLS port gets no answer.
    let plain = format!("http://127.0.0.1:{}/healthz", server.port);
    assert_eq!(curl::<&str>(&plain, &[]).status, 0);

    // Open routes need no token.
    for path in ["/readyz", "/openapi.json", "/"] {
        assert_eq!(curl(&server.url(path), &trusting(ca)).status, 200, "{path}");
    }

    // 401 without a token (missing), 401 with an unknown one (invalid), 403 with the wrong
    // scope (twice), 200 with the right one.
    let post = |token: Option<&str>| {
        let mut args = vec!["--cacert".to_owned(), ca.to_owned()];
        args.extend(["--data-binary".to_owned(), format!("@{SNAPSHOT}")]);
        if let Some(t) = token {
            args.extend(["-H".to_owned(), bearer(t)]);
        }
        curl(&server.url("/place"), &args)
    };
    let r = post(None);
    assert_eq!(r.status, 401, "{r:?}");
    assert!(r.body.contains(r#""code":"unauthorized""#), "{r:?}");
    assert!(r.headers.contains("www-authenticate: bearer realm=\"placer\""), "{r:?}");
    let r = post(Some(READ));
    assert_eq!(r.status, 403, "{r:?}");
    assert!(r.body.contains(r#""code":"forbidden""#), "{r:?}");
    assert!(r.headers.contains("error=\"insufficient_scope\""), "{r:?}");
    let r = post(Some(PLACE));
    assert_eq!(r.status, 200, "{r:?}");
    assert!(r.body.contains(r#""schema_version":1"#), "{r:?}");
    let get =
        |path: &str, token: &str| curl(&server.url(path), &["--cacert", ca, "-H", &bearer(token)]);
    let r = get("/v1/epochs", "not-a-known-token-000000");
    assert_eq!(r.status, 401, "{r:?}");
    assert!(r.headers.contains("error=\"invalid_token\""), "{r:?}");
    assert_eq!(get("/metrics", PLACE).status, 403);
    let r = get("/v1/epochs", READ);
    assert_eq!(r.status, 200, "{r:?}");
    assert!(r.body.contains(r#""last_seq":1"#), "{r:?}");

    // Expect: 100-continue without a token: the 401 comes instead of `100 Continue`, before
    // any of the body is sent (missing, again).
    let expect = "POST /place HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\
                  Expect: 100-continue\r\n\r\n";
    let out = python(server.port, ca, None, expect);
    assert!(out.contains("HTTP/1.1 401 Unauthorized\n"), "{out}");
    assert!(out.contains(r#""code":"unauthorized""#), "{out}");

    // The HTTP layer's own errors stay JSON under TLS.
    let bad = "GET /healthz HTTP/1.1\r\nHost: t\r\nContent-Length: x\r\n\r\n";
    let out = python(server.port, ca, None, bad);
    assert!(out.contains("HTTP/1.1 400 Bad Request\n"), "{out}");
    assert!(out.contains(r#""code":"bad_request""#), "{out}");

    // The counters: 2 missing, 1 invalid, 2 scope.
    let page = get("/metrics", READ);
    assert_eq!(page.status, 200);
    for (reason, n) in [("missing", 2.0), ("invalid", 1.0), ("scope", 2.0)] {
        let series = format!("placer_auth_failures_total{{reason=\"{reason}\"}}");
        assert_eq!(metric(&page.body, &series), Some(n), "{series}");
    }

    // A bad certificate on SIGHUP is rejected: counted, and the old one keeps serving.
    dir.put("server.pem", b"-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n");
    server.signal("-HUP");
    eventually("the rejected reload", || {
        let page = get("/metrics", READ).body;
        metric(&page, "placer_config_reloads_total{result=\"error\"}").unwrap_or(0.0) >= 1.0
    });
    assert_eq!(curl(&server.url("/healthz"), &trusting(ca)).status, 200);
    assert!(server.log().contains("config reload rejected"), "{}", server.log());

    // A good one (from the other CA) is used by new connections after SIGHUP.
    dir.put_fixture("other-server-key.pem", "server-key.pem");
    dir.put_fixture("other-server.pem", "server.pem");
    server.signal("-HUP");
    eventually("the new certificate", || {
        curl(&server.url("/healthz"), &trusting(other_ca)).status == 200
    });
    let r = curl(&server.url("/healthz"), &["--cacert", ca]);
    assert_eq!(r.status, 0, "the old CA no longer verifies the server: {r:?}");
    let out = python(server.port, other_ca, None, healthz);
    assert!(out.starts_with("TLSv1.3\nHTTP/1.1 200 OK\n"), "{out}");

    // No token ever reaches the log.
    let log = server.log();
    assert!(log.contains("placer listening on https://"), "{log}");
    for token in [PLACE, READ, "not-a-known-token-000000"] {
        assert!(!log.contains(token), "the log holds a token: {log}");
    }
}

#[test]
fn mutual_tls_with_curl_and_python() {
    let dir = Scratch::new("mtls");
    dir.put("tokens.txt", format!("place {PLACE}\nread {READ}\n").as_bytes());
    let server = Server::start(&[
        "--tls-cert",
        &fixture("server.pem"),
        "--tls-key",
        &fixture("server-key.pem"),
        "--tls-client-ca",
        &fixture("ca.pem"),
        "--tokens",
        &dir.path("tokens.txt"),
        "--header-timeout-ms",
        "1000",
    ]);
    let ca = fixture("ca.pem");
    let ca = ca.as_str();
    let (cert, key) = (fixture("client.pem"), fixture("client-key.pem"));
    let (other_cert, other_key) = (fixture("other-client.pem"), fixture("other-client-key.pem"));

    // No client certificate, or one from another CA: refused.
    let r = curl(&server.url("/healthz"), &["--cacert", ca]);
    assert!(!r.ok && r.status == 0, "no client certificate: {r:?}");
    let r = curl(
        &server.url("/healthz"),
        &["--cacert", ca, "--cert", &other_cert, "--key", &other_key],
    );
    assert!(!r.ok && r.status == 0, "a client certificate of another CA: {r:?}");
    let healthz = "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
    let out = python(server.port, ca, None, healthz);
    assert!(out.starts_with("ERROR"), "no client certificate: {out}");
    let out = python(server.port, ca, Some((&other_cert, &other_key)), healthz);
    assert!(out.starts_with("ERROR"), "a client certificate of another CA: {out}");

    // A client that connects and never starts the handshake is dropped after the header
    // timeout (1 s here), not held open.
    let mut silent = std::net::TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    silent.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let started = Instant::now();
    let mut buf = [0u8; 64];
    let read = std::io::Read::read(&mut silent, &mut buf);
    assert!(matches!(read, Ok(0)) || read.is_err(), "{read:?}");
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(900) && waited < Duration::from_secs(5), "{waited:?}");

    // With the client certificate: accepted.
    let with_cert = ["--cacert", ca, "--cert", cert.as_str(), "--key", key.as_str()];
    let r = curl(&server.url("/healthz"), &with_cert);
    assert_eq!(r.status, 200, "{r:?}");
    let out = python(server.port, ca, Some((&cert, &key)), healthz);
    assert!(out.starts_with("TLSv1.3\nHTTP/1.1 200 OK\n"), "{out}");

    // The certificate stands in for a `place` token on the extender routes only.
    let mut args = with_cert.to_vec();
    args.extend(["--data-binary", EXTENDER_ARGS]);
    let r = curl(&server.url("/k8s/v1/prioritize"), &args);
    assert_eq!(r.status, 200, "{r:?}");
    assert!(r.body.contains(r#""Host":"n1""#), "{r:?}");
    let r = curl(&server.url("/place"), &args);
    assert_eq!(r.status, 401, "/place still needs a token: {r:?}");
    let (data, auth) = (format!("@{SNAPSHOT}"), bearer(PLACE));
    let mut args = with_cert.to_vec();
    args.extend(["--data-binary", &data, "-H", &auth]);
    let r = curl(&server.url("/place"), &args);
    assert_eq!(r.status, 200, "{r:?}");
    let r = curl(&server.url("/metrics"), &with_cert);
    assert_eq!(r.status, 401, "/metrics still needs a token: {r:?}");
}

/// The dashboard with tokens (plaintext on loopback: Chromium is not told of the test CA): its
/// page is open, and its script sends the `read` token of the URL fragment to `/v1/epochs`;
/// without one it shows why the data is missing.
#[test]
fn the_dashboard_sends_the_token_of_its_url_fragment() {
    use placer_testkit::browser::Browser;
    let dir = Scratch::new("dashboard");
    dir.put("tokens.txt", format!("place {PLACE}\nread {READ}\n").as_bytes());
    let server = Server::start_announcing(
        "placer listening on http://",
        &["--tokens", &dir.path("tokens.txt")],
    );
    let base = format!("http://127.0.0.1:{}/", server.port);
    let data = format!("@{SNAPSHOT}");
    let r = curl(&format!("{base}place"), &["--data-binary", &data, "-H", &bearer(PLACE)]);
    assert_eq!(r.status, 200, "{r:?}");

    let wait = Duration::from_secs(20);
    let mut browser = Browser::start().expect("headless Chromium (bash scripts/deps installs it)");
    browser.goto(&format!("{base}#token={READ}")).unwrap();
    assert_eq!(browser.wait_text("#last-seq", "1", wait).unwrap(), "1");
    browser.goto(&format!("{base}?again#")).unwrap();
    let error = browser.wait_text("#error", "HTTP 401", wait).unwrap();
    assert!(error.contains("#token="), "{error}");
    assert!(!server.log().contains(READ), "the token reached the server's log");
}

/// examples/kube-scheduler-config-tls.yaml: the extender over HTTPS with a client certificate.
#[test]
fn the_tls_kube_scheduler_example_has_a_tls_config() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/kube-scheduler-config-tls.yaml"),
    )
    .unwrap();
    assert!(!text.contains('\t'), "YAML forbids tabs");
    let value = |key: &str| {
        text.lines().find_map(|l| {
            let rest = l.trim_start().trim_start_matches("- ").strip_prefix(key)?;
            Some(rest.strip_prefix(':')?.trim().trim_matches('"').to_owned())
        })
    };
    assert_eq!(value("enableHTTPS").as_deref(), Some("true"));
    assert_eq!(value("insecure").as_deref(), Some("false"));
    assert!(value("urlPrefix").unwrap().starts_with("https://"));
    assert!(text.lines().any(|l| l.trim() == "tlsConfig:"));
    for key in ["caFile", "certFile", "keyFile"] {
        assert!(value(key).is_some_and(|v| v.ends_with(".pem")), "{key}");
    }
}
