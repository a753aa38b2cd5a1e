//! `placer serve` as a process (docs/operations/serving.md, "Lifecycle"): SIGTERM
//! while a request is in flight — its body half sent — lets that request finish (200, with
//! `Connection: close`), then the process exits 0. Uses `kill -TERM` (procps) to signal.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

const SNAPSHOT: &[u8] = include_bytes!("../examples/snapshot.json");

#[test]
fn sigterm_drains_the_in_flight_request_and_exits_0() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_placer"))
        .args(["serve", "--addr", "127.0.0.1:0", "--workers", "1", "--shutdown-grace-ms", "5000"])
        .stderr(Stdio::piped())
        .spawn()
        .expect("placer serve starts");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr piped"));
    // Log lines may come first; the address line is the contract.
    let mut line = next_line_containing(&mut stderr, "placer listening on http://");
    let addr = line
        .trim()
        .strip_prefix("placer listening on http://")
        .unwrap_or_else(|| panic!("unexpected line {line:?}"))
        .to_owned();

    // A first request answered on a keep-alive connection: the server has accepted it (a
    // connection still in the listen backlog at SIGTERM is refused, not drained).
    let mut stream = TcpStream::connect(&addr).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(20))).expect("timeout");
    stream.write_all(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n").expect("write healthz");
    let mut first_reply = [0u8; 1024];
    let n = stream.read(&mut first_reply).expect("healthz answer");
    assert!(first_reply[..n].starts_with(b"HTTP/1.1 200 OK"));

    // A request in flight: head and half the body sent.
    let head =
        format!("POST /place HTTP/1.1\r\nHost: t\r\nContent-Length: {}\r\n\r\n", SNAPSHOT.len());
    let (first, second) = SNAPSHOT.split_at(SNAPSHOT.len() / 2);
    stream.write_all(head.as_bytes()).expect("write head");
    stream.write_all(first).expect("write first half");

    let killed = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
    assert!(killed.expect("kill runs").success());
    line = next_line_containing(&mut stderr, "draining");
    assert!(line.contains("draining"), "{line:?}");

    // The in-flight request completes after the signal.
    stream.write_all(second).expect("write second half");
    let mut reply = Vec::new();
    stream.read_to_end(&mut reply).expect("read the answer");
    let text = String::from_utf8_lossy(&reply);
    assert!(text.starts_with("HTTP/1.1 200 OK\r\n"), "{text}");
    assert!(text.contains("connection: close"), "{text}");
    assert!(text.contains("\"schema_version\":1"), "{text}");

    let status = child.wait().expect("placer exits");
    assert_eq!(status.code(), Some(0), "{status:?}");
}

/// The next line of `reader` that contains `needle` (log lines before it are skipped).
fn next_line_containing(reader: &mut impl BufRead, needle: &str) -> String {
    let mut line = String::new();
    loop {
        line.clear();
        let n = reader.read_line(&mut line).expect("stderr line");
        assert!(n > 0, "stderr closed before a line containing {needle:?}");
        if line.contains(needle) {
            return line;
        }
    }
}
