//! Raw-TCP tests of the real server loop (docs/operations/serving.md; RFC 9112 framing; RFC 9110
//! §10.1.1 `Expect`): every error the HTTP layer raises is JSON with its status, `Expect:
//! 100-continue` is refused without `100 Continue`, slow clients do not take `/place` away from
//! others, gzip bodies, keep-alive and pipelining survive the error rewriting. Each test starts
//! its own server on a free port with [`placer_server::run_with`].
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use flate2::write::GzEncoder;
use placer_server::{run_with, AppState, ServerConfig};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::mpsc;
use std::time::Duration;

const SNAPSHOT: &[u8] = include_bytes!("../../examples/snapshot.json");

/// A server with `config` (addr and workers overridden) on its own thread; its address.
fn start(config: ServerConfig) -> SocketAddr {
    let config = ServerConfig { addr: "127.0.0.1:0".to_owned(), workers: Some(1), ..config };
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let state = AppState::new(&config);
        actix_web::rt::System::new()
            .block_on(run_with(config, state, move |addr| tx.send(addr).unwrap()))
            .unwrap();
    });
    rx.recv_timeout(Duration::from_secs(30)).expect("server bound")
}

fn connect(addr: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    stream
}

/// One parsed response: status, lower-cased headers, body.
#[derive(Debug)]
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!("body is not JSON ({e}): {:?}", String::from_utf8_lossy(&self.body))
        })
    }

    /// The error shape of docs/wire-schema.md, "Errors", with `status` and `code`.
    fn assert_error(&self, status: u16, code: &str) {
        assert_eq!(self.status, status, "{self:?}");
        assert_eq!(self.header("content-type"), Some("application/json"), "{self:?}");
        let json = self.json();
        assert_eq!(json["error"]["code"], code, "{json}");
        assert!(json["error"]["path"].is_string(), "{json}");
        assert!(json["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{json}");
    }
}

/// Reads one response framed by its Content-Length from `stream` (after any bytes in `buf`).
fn read_reply(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Reply {
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4) {
            let head = String::from_utf8_lossy(&buf[..end]).into_owned();
            let mut lines = head.split("\r\n");
            let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
            let headers: Vec<(String, String)> = lines
                .filter_map(|l| l.split_once(':'))
                .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
                .collect();
            let len: usize = headers
                .iter()
                .find(|(n, _)| n == "content-length")
                .map_or(0, |(_, v)| v.parse().unwrap());
            while buf.len() < end + len {
                read_more(stream, buf);
            }
            let body = buf[end..end + len].to_vec();
            buf.drain(..end + len);
            return Reply { status, headers, body };
        }
        read_more(stream, buf);
    }
}

fn read_more(stream: &mut TcpStream, buf: &mut Vec<u8>) {
    let mut chunk = [0u8; 64 * 1024];
    let n = stream.read(&mut chunk).expect("read");
    assert!(n > 0, "connection closed early; got {:?}", String::from_utf8_lossy(buf));
    buf.extend_from_slice(&chunk[..n]);
}

/// Sends `request` on a new connection and reads one response.
fn exchange(addr: SocketAddr, request: &[u8]) -> Reply {
    let mut stream = connect(addr);
    stream.write_all(request).unwrap();
    read_reply(&mut stream, &mut Vec::new())
}

fn post_place(body: &[u8], extra_headers: &str) -> Vec<u8> {
    let mut req = format!(
        "POST /place HTTP/1.1\r\nHost: t\r\nContent-Length: {}\r\n{extra_headers}\r\n",
        body.len()
    )
    .into_bytes();
    req.extend_from_slice(body);
    req
}

fn assert_placed(reply: &Reply) {
    assert_eq!(reply.status, 200, "{reply:?} {}", String::from_utf8_lossy(&reply.body));
    assert_eq!(reply.json()["schema_version"], 1);
}

/// Each case is a request head actix-http's h1 decoder rejects before routing.
#[test]
fn every_http_layer_error_is_json() {
    let addr = start(ServerConfig::default());
    let long_uri = format!("GET /{} HTTP/1.1\r\nHost: t\r\n\r\n", "a".repeat(80 * 1024));
    let many_headers = format!(
        "GET /healthz HTTP/1.1\r\nHost: t\r\n{}\r\n",
        (0..100).map(|i| format!("x-h{i}: v\r\n")).collect::<String>()
    );
    let cases: Vec<(&str, Vec<u8>, u16, &str)> = vec![
        ("non-numeric Content-Length", b"POST /place HTTP/1.1\r\nHost: t\r\nContent-Length: abc\r\n\r\n".to_vec(), 400, "bad_request"),
        ("negative Content-Length", b"POST /place HTTP/1.1\r\nHost: t\r\nContent-Length: -1\r\n\r\n".to_vec(), 400, "bad_request"),
        ("duplicate Content-Length", b"POST /place HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab".to_vec(), 400, "bad_request"),
        ("Content-Length with chunked", b"POST /place HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n".to_vec(), 400, "bad_request"),
        ("unsupported Transfer-Encoding", b"POST /place HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\n\r\n".to_vec(), 400, "bad_request"),
        ("control character in a header", b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-Bad: a\x01b\r\n\r\n".to_vec(), 400, "bad_request"),
        ("80 KB URI", long_uri.into_bytes(), 400, "bad_request"),
        ("too many headers", many_headers.into_bytes(), 431, "headers_too_large"),
        ("HTTP/2.0 request line", b"GET /healthz HTTP/2.0\r\nHost: t\r\n\r\n".to_vec(), 400, "bad_request"),
        ("HTTP/3 request line", b"GET /healthz HTTP/3\r\nHost: t\r\n\r\n".to_vec(), 400, "bad_request"),
        ("garbage request line", b"\x16\x03\x01 hello\r\n\r\n".to_vec(), 400, "bad_request"),
    ];
    for (name, request, status, code) in cases {
        let reply = exchange(addr, &request);
        println!("{name}: {} {}", reply.status, String::from_utf8_lossy(&reply.body));
        reply.assert_error(status, code);
    }
}

#[test]
fn a_slow_request_head_is_408_json() {
    let addr = start(ServerConfig { header_timeout_ms: 100, ..ServerConfig::default() });
    let mut stream = connect(addr);
    stream.write_all(b"POST /place HTTP/1.1\r\nHost: t\r\n").unwrap();
    read_reply(&mut stream, &mut Vec::new()).assert_error(408, "request_timeout");
}

/// RFC 9110 §10.1.1: a server that will refuse the body must not send `100 Continue`.
#[test]
fn expect_100_continue_is_refused_without_100_continue() {
    let addr = start(ServerConfig { body_limit_bytes: 1000, ..ServerConfig::default() });
    let mut stream = connect(addr);
    let head =
        b"POST /place HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 5000\r\n\r\n";
    stream.write_all(head).unwrap();
    let mut buf = Vec::new();
    let reply = read_reply(&mut stream, &mut buf);
    reply.assert_error(413, "payload_too_large");
    // Nothing else came before or after the 413 (the connection is closed).
    let mut rest = Vec::new();
    let _ = stream.read_to_end(&mut rest);
    assert!(buf.is_empty() && rest.is_empty(), "{:?}", String::from_utf8_lossy(&rest));

    // Over the memory budget: 12 × 900 > 4000.
    let addr = start(ServerConfig { max_memory_bytes: 4000, ..ServerConfig::default() });
    let head =
        b"POST /place HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 900\r\n\r\n";
    exchange(addr, head).assert_error(413, "over_memory_budget");

    // Admission closed (drain mode): 503 before the body.
    let addr = start(ServerConfig { max_in_flight: 0, ..ServerConfig::default() });
    let reply = exchange(addr, head);
    reply.assert_error(503, "overloaded");
    assert_eq!(reply.header("retry-after"), Some("1"));
}

#[test]
fn expect_100_continue_within_limits_continues() {
    let addr = start(ServerConfig::default());
    let mut stream = connect(addr);
    let head = format!(
        "POST /place HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: {}\r\n\r\n",
        SNAPSHOT.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    let mut buf = Vec::new();
    while !buf.starts_with(b"HTTP/1.1 100 Continue\r\n\r\n") {
        read_more(&mut stream, &mut buf);
    }
    buf.drain(..25);
    stream.write_all(SNAPSHOT).unwrap();
    assert_placed(&read_reply(&mut stream, &mut buf));
}

/// Responses before an HTTP-layer error on the same connection pass through intact: the error
/// rewriting follows the response framing, also with pipelined requests.
#[test]
fn keep_alive_and_pipelining_survive_the_rewriting() {
    let addr = start(ServerConfig::default());
    let mut stream = connect(addr);
    let mut pipelined = post_place(SNAPSHOT, "");
    pipelined.extend_from_slice(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n");
    pipelined.extend_from_slice(&post_place(SNAPSHOT, ""));
    pipelined.extend_from_slice(b"GET /nope HTTP/1.1\r\nHost: t\r\n\r\n");
    pipelined.extend_from_slice(b"POST /place HTTP/1.1\r\nHost: t\r\nContent-Length: x\r\n\r\n");
    stream.write_all(&pipelined).unwrap();
    let mut buf = Vec::new();
    assert_placed(&read_reply(&mut stream, &mut buf));
    assert_eq!(read_reply(&mut stream, &mut buf).json(), serde_json::json!({"status": "ok"}));
    assert_placed(&read_reply(&mut stream, &mut buf));
    read_reply(&mut stream, &mut buf).assert_error(404, "not_found");
    read_reply(&mut stream, &mut buf).assert_error(400, "bad_request");
}

/// A `HEAD` response announces a body it does not carry: the server closes the connection
/// after it, so the framing of later responses is never misread.
#[test]
fn head_responses_close_the_connection() {
    let addr = start(ServerConfig::default());
    let mut stream = connect(addr);
    stream.write_all(b"HEAD /healthz HTTP/1.1\r\nHost: t\r\n\r\n").unwrap();
    let mut rest = Vec::new();
    stream.read_to_end(&mut rest).unwrap();
    let text = String::from_utf8_lossy(&rest);
    assert!(text.starts_with("HTTP/1.1 405"), "{text}");
    assert!(text.contains("connection: close"), "{text}");
}

/// Four connections that declare `Content-Length: 1000`, send part of the body and go
/// silent once made every `/place` answer 503. Now they hold only their connection: with a single
/// solve slot and no queue, other snapshots are still answered, and the slow ones get 408.
#[test]
fn slow_clients_do_not_take_place_away_from_others() {
    let addr = start(ServerConfig {
        max_in_flight: 1,
        queue_len: 0,
        body_timeout_ms: 1_000,
        ..ServerConfig::default()
    });
    let mut slow: Vec<TcpStream> = (0..4)
        .map(|_| {
            let mut s = connect(addr);
            s.write_all(b"POST /place HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\r\n{\"sch")
                .unwrap();
            s
        })
        .collect();
    for _ in 0..3 {
        assert_placed(&exchange(addr, &post_place(SNAPSHOT, "")));
    }
    let ready = exchange(addr, b"GET /readyz HTTP/1.1\r\nHost: t\r\n\r\n");
    assert_eq!(ready.status, 200, "{ready:?}");
    for s in &mut slow {
        read_reply(s, &mut Vec::new()).assert_error(408, "request_timeout");
    }
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

#[test]
fn gzip_bodies_are_decoded_under_the_limit() {
    let addr = start(ServerConfig { body_limit_bytes: 1 << 20, ..ServerConfig::default() });
    let reply = exchange(addr, &post_place(&gzip(SNAPSHOT), "Content-Encoding: gzip\r\n"));
    assert_placed(&reply);
    // 64 MiB of spaces compress to ~64 KiB; decoding stops past the 1 MiB limit.
    let bomb = gzip(&vec![b' '; 64 << 20]);
    let reply = exchange(addr, &post_place(&bomb, "Content-Encoding: gzip\r\n"));
    reply.assert_error(413, "payload_too_large");
    let reply = exchange(addr, &post_place(SNAPSHOT, "Content-Encoding: br\r\n"));
    reply.assert_error(415, "unsupported_encoding");
    let reply = exchange(addr, &post_place(b"not gzip", "Content-Encoding: gzip\r\n"));
    reply.assert_error(400, "payload_error");
}

/// Gangs and topology domains over the wire: `lsap_quota` and `drf` place a gang whole (200)
/// and a job whose gang cannot start waits `gang_incomplete`; `fair` cannot honour them, 422
/// `unsupported_feature` at `jobs[0].gang`; `min_member` above the job's tasks is 400
/// `inconsistent` at `jobs[0].gang.min_member`.
#[test]
fn gangs_over_the_wire_place_refuse_and_validate_with_paths() {
    let addr = start(ServerConfig::default());
    let body = |algorithm: &str, min_member: u32| {
        serde_json::json!({"schema_version": 1,
            "cluster": {"racks": [{"id": "r"}],
                        "nodes": [{"id": "a", "rack": "r", "map_slots": 2}]},
            "pools": [{"id": "p"}],
            "jobs": [{"id": "g", "pool": "p", "gang": {"min_member": min_member}}],
            "pending": [{"id": "t0", "job": "g", "kind": "map"},
                        {"id": "t1", "job": "g", "kind": "map"},
                        {"id": "t2", "job": "g", "kind": "map"}],
            "policy": {"algorithm": algorithm}})
        .to_string()
    };
    // 2 slots: a gang of 2 starts on them, a gang of 3 cannot.
    let reply = exchange(addr, &post_place(body("lsap_quota", 2).as_bytes(), ""));
    assert_placed(&reply);
    assert_eq!(reply.json()["stats"]["assigned"], 2);
    let reply = exchange(addr, &post_place(body("lsap_quota", 3).as_bytes(), ""));
    assert_placed(&reply);
    let json = reply.json();
    assert_eq!(json["stats"]["assigned"], 0);
    assert_eq!(json["waiting"][0]["reason"], "gang_incomplete", "{json}");
    assert_eq!(json["waiting"][0]["tasks"], 3, "{json}");
    // drf on the same node (no `resources`: its tasks take a slot each): 2 start, a gang of
    // 3 waits whole.
    let reply = exchange(addr, &post_place(body("drf", 2).as_bytes(), ""));
    assert_placed(&reply);
    assert_eq!(reply.json()["stats"]["assigned"], 2);
    let reply = exchange(addr, &post_place(body("drf", 3).as_bytes(), ""));
    assert_placed(&reply);
    let json = reply.json();
    assert_eq!(json["stats"]["assigned"], 0);
    assert_eq!(json["waiting"][0]["reason"], "gang_incomplete", "{json}");
    assert_eq!(json["waiting"][0]["tasks"], 3, "{json}");
    let reply = exchange(addr, &post_place(body("fair", 2).as_bytes(), ""));
    reply.assert_error(422, "unsupported_feature");
    assert_eq!(reply.json()["error"]["path"], "jobs[0].gang");
    let reply = exchange(addr, &post_place(body("lsap_quota", 4).as_bytes(), ""));
    reply.assert_error(400, "inconsistent");
    assert_eq!(reply.json()["error"]["path"], "jobs[0].gang.min_member");
}
