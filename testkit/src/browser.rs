//! A headless browser for the tests of the dashboard and the what-if report (checked in
//! a real headless browser; W3C WebDriver, <https://www.w3.org/TR/webdriver2/>): starts
//! Debian's `chromedriver` on a free port, opens one headless Chromium session with a fresh
//! profile, and speaks the WebDriver wire protocol (JSON over HTTP/1.1) through a plain TCP
//! socket. Everything a test reads goes through `execute/sync`, so the page's own DOM answers.
//!
//! ```no_run
//! use placer_testkit::browser::Browser;
//! use std::time::Duration;
//!
//! let mut browser = Browser::start()?;
//! browser.goto("http://127.0.0.1:8080/")?;
//! let title = browser.wait_text("h1", "placer", Duration::from_secs(10))?;
//! assert!(title.contains("placer"));
//! browser.screenshot(std::path::Path::new("target/screenshots/dashboard.png"))?;
//! # Ok::<(), String>(())
//! ```

use base64::Engine as _;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The Chromium flags every session gets: headless, no sandbox (containers), no GPU, no use of a
/// small `/dev/shm`, and nothing that reaches the network on its own.
pub const CHROMIUM_ARGS: [&str; 9] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,1600",
];

/// One `chromedriver` process with one headless Chromium session; both end on drop.
pub struct Browser {
    driver: Child,
    port: u16,
    session: String,
    profile: tempfile::TempDir,
}

impl Browser {
    /// Starts `chromedriver` (from `PATH` or `$CHROMEDRIVER`) and a Chromium session with a
    /// fresh `--user-data-dir`. The Chromium binary is `$CHROME_BIN` if set, else the first of
    /// `chromium`, `chromium-browser`, `google-chrome` on `PATH` (else chromedriver's own pick).
    ///
    /// # Errors
    /// A message naming what is missing (install Debian's `chromium` and `chromium-driver`:
    /// `bash scripts/deps` does) or what the driver answered.
    pub fn start() -> Result<Self, String> {
        let driver_bin = std::env::var_os("CHROMEDRIVER")
            .map(PathBuf::from)
            .or_else(|| which("chromedriver"))
            .ok_or("chromedriver not found: install chromium-driver (bash scripts/deps)")?;
        let chrome = std::env::var_os("CHROME_BIN").map(PathBuf::from).or_else(|| {
            ["chromium", "chromium-browser", "google-chrome"].iter().find_map(|name| which(name))
        });
        let port = free_port()?;
        let driver = Command::new(&driver_bin)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", driver_bin.display()))?;
        let profile = tempfile::Builder::new()
            .prefix("placer-chromium-")
            .tempdir()
            .map_err(|e| format!("cannot make a Chromium profile directory: {e}"))?;
        let mut browser = Self { driver, port, session: String::new(), profile };
        browser.wait_ready(Duration::from_secs(20))?;
        let mut args: Vec<String> = CHROMIUM_ARGS.iter().map(|a| (*a).to_owned()).collect();
        args.push(format!("--user-data-dir={}", browser.profile.path().display()));
        let mut options = json!({ "args": args });
        if let Some(chrome) = chrome {
            options["binary"] = json!(chrome.display().to_string());
        }
        let caps = json!({
            "capabilities": { "alwaysMatch": {
                "browserName": "chrome",
                "goog:chromeOptions": options,
            }}
        });
        let answer = browser.call("POST", "/session", Some(&caps))?;
        browser.session = answer["sessionId"]
            .as_str()
            .ok_or_else(|| format!("no sessionId in the driver's answer: {answer}"))?
            .to_owned();
        browser.call_session("POST", "/timeouts", Some(&json!({ "script": 30_000 })))?;
        Ok(browser)
    }

    /// Navigates to `url` (`http://…` or `file:///…`) and waits for the page's load event.
    ///
    /// # Errors
    /// The driver's message (e.g. a refused connection).
    pub fn goto(&mut self, url: &str) -> Result<(), String> {
        self.call_session("POST", "/url", Some(&json!({ "url": url }))).map(|_| ())
    }

    /// Runs `js` as the body of a function in the page (`arguments` is empty) and returns what it
    /// returns, e.g. `return document.title;`.
    ///
    /// # Errors
    /// A JavaScript exception or a driver error, with its message.
    pub fn script(&mut self, js: &str) -> Result<Value, String> {
        self.call_session("POST", "/execute/sync", Some(&json!({ "script": js, "args": [] })))
    }

    /// The rendered text (`innerText`) of the first element matching the CSS selector `css`.
    ///
    /// # Errors
    /// No element matches, or a driver error.
    pub fn text(&mut self, css: &str) -> Result<String, String> {
        let js = format!(
            "const e = document.querySelector({}); return e ? e.innerText : null;",
            json!(css)
        );
        match self.script(&js)? {
            Value::String(s) => Ok(s),
            _ => Err(format!("no element matches {css}")),
        }
    }

    /// The rendered texts of every element matching `css`, in document order.
    ///
    /// # Errors
    /// A driver error.
    pub fn texts(&mut self, css: &str) -> Result<Vec<String>, String> {
        let js = format!(
            "return Array.from(document.querySelectorAll({})).map(e => e.innerText);",
            json!(css)
        );
        let value = self.script(&js)?;
        serde_json::from_value(value).map_err(|e| format!("texts of {css}: {e}"))
    }

    /// Polls (every 100 ms) until the first element matching `css` has a text containing
    /// `contains`, and returns that text.
    ///
    /// # Errors
    /// The timeout, with the last text seen.
    pub fn wait_text(
        &mut self,
        css: &str,
        contains: &str,
        timeout: Duration,
    ) -> Result<String, String> {
        let start = Instant::now();
        loop {
            let last = self.text(css);
            if let Ok(text) = &last {
                if text.contains(contains) {
                    return Ok(text.clone());
                }
            }
            if start.elapsed() > timeout {
                return Err(format!(
                    "after {timeout:?}, {css} does not contain {contains:?}: last {last:?}"
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Saves a PNG of the viewport to `png`, creating its directory.
    ///
    /// # Errors
    /// A driver error, bad base64, or an I/O error.
    pub fn screenshot(&mut self, png: &Path) -> Result<(), String> {
        let value = self.call_session("GET", "/screenshot", None)?;
        let encoded = value.as_str().ok_or("the screenshot is not a string")?;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .map_err(|e| format!("screenshot base64: {e}"))?;
        if let Some(dir) = png.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::write(png, bytes).map_err(|e| format!("{}: {e}", png.display()))
    }

    fn wait_ready(&mut self, timeout: Duration) -> Result<(), String> {
        let start = Instant::now();
        loop {
            if let Ok(status) = self.call("GET", "/status", None) {
                if status["ready"] == json!(true) {
                    return Ok(());
                }
            }
            if let Ok(Some(exit)) = self.driver.try_wait() {
                return Err(format!("chromedriver exited at start: {exit}"));
            }
            if start.elapsed() > timeout {
                return Err(format!("chromedriver not ready after {timeout:?}"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn call_session(
        &mut self,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Value, String> {
        let path = format!("/session/{}{path}", self.session);
        self.call(method, &path, body)
    }

    /// One WebDriver command: the `value` of its answer, or its error as a message.
    fn call(&self, method: &str, path: &str, body: Option<&Value>) -> Result<Value, String> {
        let (status, answer) = http(self.port, method, path, body)?;
        let parsed: Value = serde_json::from_slice(&answer)
            .map_err(|e| format!("{method} {path}: status {status}, not JSON ({e})"))?;
        let value = parsed.get("value").cloned().unwrap_or(Value::Null);
        if (200..300).contains(&status) {
            Ok(value)
        } else {
            Err(format!(
                "{method} {path}: status {status}: {} {}",
                value["error"].as_str().unwrap_or(""),
                value["message"].as_str().unwrap_or("")
            ))
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let path = format!("/session/{}", self.session);
            let _ = http(self.port, "DELETE", &path, None);
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// One HTTP/1.1 exchange with `Connection: close`: the status and the (de-chunked) body.
fn http(
    port: u16,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> Result<(u16, Vec<u8>), String> {
    let what = format!("{method} {path}");
    let mut stream =
        TcpStream::connect(("127.0.0.1", port)).map_err(|e| format!("{what}: connect: {e}"))?;
    stream.set_read_timeout(Some(Duration::from_secs(120))).map_err(|e| e.to_string())?;
    let payload = body.map(Value::to_string).unwrap_or_default();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\
         Content-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\n\r\n",
        payload.len()
    );
    stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(payload.as_bytes()))
        .map_err(|e| format!("{what}: send: {e}"))?;
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).map_err(|e| format!("{what}: read: {e}"))?;
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("{what}: bad status line {line:?}"))?;
    let mut chunked = false;
    let mut length: Option<usize> = None;
    loop {
        line.clear();
        reader.read_line(&mut line).map_err(|e| format!("{what}: read: {e}"))?;
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            let (name, value) = (name.trim().to_ascii_lowercase(), value.trim());
            if name == "transfer-encoding" && value.eq_ignore_ascii_case("chunked") {
                chunked = true;
            } else if name == "content-length" {
                length = value.parse().ok();
            }
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            line.clear();
            reader.read_line(&mut line).map_err(|e| format!("{what}: read: {e}"))?;
            let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                .map_err(|e| format!("{what}: bad chunk size {line:?}: {e}"))?;
            if size == 0 {
                break;
            }
            let start = body.len();
            body.resize(start + size, 0);
            reader.read_exact(&mut body[start..]).map_err(|e| format!("{what}: read: {e}"))?;
            line.clear();
            reader.read_line(&mut line).map_err(|e| format!("{what}: read: {e}"))?;
        }
    } else if let Some(n) = length {
        body.resize(n, 0);
        reader.read_exact(&mut body).map_err(|e| format!("{what}: read: {e}"))?;
    } else {
        reader.read_to_end(&mut body).map_err(|e| format!("{what}: read: {e}"))?;
    }
    Ok((status, body))
}

/// A port nobody listens on right now (bind to port 0, read it, let go).
fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("no free port: {e}"))?;
    listener.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}

/// The first `name` on `PATH` that is a file.
fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|p| p.is_file())
}
