//! JSON bodies for the errors the HTTP/1.1 layer raises before routing (docs/operations/serving.md,
//! "HTTP errors"; RFC 9112 §6.3 message framing). actix-http's h1 dispatcher answers a request it
//! cannot parse (bad or duplicate `Content-Length`, `Content-Length` with chunked, unknown
//! `Transfer-Encoding`, a control character in a header, a URI over 64 KiB, a version other than
//! HTTP/1.x), a head over 128 KiB or with more than 96 headers, or a head that does not arrive in
//! time, with a hard-coded 4xx/5xx response and an empty body (`content-length: 0`), then closes
//! the connection. Those responses never reach the app.
//!
//! [`JsonErrorIo`] wraps each accepted connection and watches what the dispatcher writes. It
//! follows the response framing (head, then `Content-Length` body bytes; RFC 9112 §6.3), so it
//! stays correct on keep-alive connections and with pipelined requests, and rewrites exactly the
//! responses with status ≥ 400 and `content-length: 0` into the JSON error shape with the right
//! length and `Content-Type: application/json`. The app never sends such a response: every error
//! of placer carries a JSON body. Two cases end the tracking (the rest of the connection passes
//! through unchanged): a chunked or unframed response, which placer never sends, and a response
//! to `HEAD`, whose `Content-Length` announces a body that is not sent — the app closes the
//! connection after every `HEAD` response for this reason (see `app.rs`).
//!
//! Why on the write side rather than pre-parsing requests with httparse: the dispatcher decides
//! what is an error; re-parsing requests would duplicate (and could disagree with) its parser and
//! would have to track request framing across keep-alive and pipelined requests, while the
//! response side is framed by placer's own responses.

use crate::error::error_json;
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Longest response head followed; a longer one (not placer's) ends the tracking.
const MAX_HEAD: usize = 64 * 1024;

/// A connection whose bodiless error responses are rewritten as JSON.
#[derive(Debug)]
pub(crate) struct JsonErrorIo<T> {
    inner: T,
    /// Bytes ready for `inner`, from `pending_from` on.
    pending: Vec<u8>,
    pending_from: usize,
    state: WriteState,
}

#[derive(Debug)]
enum WriteState {
    /// Collecting a response head up to its blank line.
    Head(Vec<u8>),
    /// Passing this many body bytes through.
    Body(u64),
    /// Not following the framing any more: everything passes through.
    Passthrough,
}

impl<T> JsonErrorIo<T> {
    /// Wraps `inner`.
    pub(crate) fn new(inner: T) -> Self {
        Self { inner, pending: Vec::new(), pending_from: 0, state: WriteState::Head(Vec::new()) }
    }

    /// The wrapped connection.
    pub(crate) fn get_ref(&self) -> &T {
        &self.inner
    }

    /// Feeds bytes the dispatcher wrote into the framing tracker; output goes to `pending`.
    fn feed(&mut self, mut buf: &[u8]) {
        while !buf.is_empty() {
            match &mut self.state {
                WriteState::Passthrough => {
                    self.pending.extend_from_slice(buf);
                    return;
                }
                WriteState::Body(left) => {
                    let n = (*left).min(buf.len() as u64) as usize;
                    self.pending.extend_from_slice(&buf[..n]);
                    *left -= n as u64;
                    if *left == 0 {
                        self.state = WriteState::Head(Vec::new());
                    }
                    buf = &buf[n..];
                }
                WriteState::Head(head) => {
                    let searched = head.len().saturating_sub(3);
                    head.extend_from_slice(buf);
                    let Some(end) = find_blank_line(&head[searched..]).map(|i| searched + i) else {
                        if head.len() > MAX_HEAD {
                            let head = std::mem::take(head);
                            self.pending.extend_from_slice(&head);
                            self.state = WriteState::Passthrough;
                        }
                        return;
                    };
                    // `end` is past the blank line; what follows belongs to the body.
                    let rest_from = buf.len() - (head.len() - end);
                    let head = std::mem::take(head);
                    let (out, next) = rewrite_head(&head[..end]);
                    self.pending.extend_from_slice(&out);
                    self.state = next;
                    buf = &buf[rest_from..];
                }
            }
        }
    }
}

/// Index just past the first `\r\n\r\n` in `bytes`.
fn find_blank_line(bytes: &[u8]) -> Option<usize> {
    bytes.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4)
}

/// What to write for a complete response head, and how to follow what comes after it.
fn rewrite_head(head: &[u8]) -> (Vec<u8>, WriteState) {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut response = httparse::Response::new(&mut headers);
    let Ok(httparse::Status::Complete(_)) = response.parse(head) else {
        return (head.to_vec(), WriteState::Passthrough);
    };
    let status = response.code.unwrap_or(0);
    let chunked = response.headers.iter().any(|h| h.name.eq_ignore_ascii_case("transfer-encoding"));
    let length = response
        .headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case("content-length"))
        .and_then(|h| std::str::from_utf8(h.value).ok()?.trim().parse::<u64>().ok());
    match (status, chunked, length) {
        (100..=199, ..) | (204 | 304, false, None) => (head.to_vec(), WriteState::Head(Vec::new())),
        (400.., false, Some(0)) => {
            (json_response(status, response.reason, response.headers), WriteState::Head(Vec::new()))
        }
        (_, false, Some(0)) => (head.to_vec(), WriteState::Head(Vec::new())),
        (_, false, Some(n)) => (head.to_vec(), WriteState::Body(n)),
        _ => (head.to_vec(), WriteState::Passthrough),
    }
}

/// The JSON error response replacing a bodiless `status` response; other headers are kept.
fn json_response(status: u16, reason: Option<&str>, headers: &[httparse::Header<'_>]) -> Vec<u8> {
    let (code, message) = describe(status);
    let body = error_json(code, "$", message.to_owned());
    let mut out = format!("HTTP/1.1 {status} {}\r\n", reason.unwrap_or("Error")).into_bytes();
    for h in headers {
        if h.name.eq_ignore_ascii_case("content-length")
            || h.name.eq_ignore_ascii_case("content-type")
        {
            continue;
        }
        out.extend_from_slice(h.name.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(h.value);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"content-type: application/json\r\n");
    out.extend_from_slice(format!("content-length: {}\r\n\r\n", body.len()).as_bytes());
    out.extend_from_slice(&body);
    out
}

/// Error code and message for a status the HTTP layer answers on its own.
fn describe(status: u16) -> (&'static str, &'static str) {
    match status {
        400 => (
            "bad_request",
            "the request is not valid HTTP/1.1: a malformed request line or URI (at most 65534 \
             bytes), a header with a control character, a bad, negative or duplicate \
             Content-Length, Content-Length together with chunked, an unsupported \
             Transfer-Encoding, or an HTTP version other than 1.0/1.1",
        ),
        408 => ("request_timeout", "the request head did not arrive in time"),
        413 => ("payload_too_large", "the request body is too large"),
        414 => ("uri_too_long", "the request URI is too long"),
        431 => {
            ("headers_too_large", "the request head is too large: more than 96 headers or 128 KiB")
        }
        505 => ("http_version_not_supported", "only HTTP/1.0 and HTTP/1.1 are served"),
        500..=599 => ("internal", "internal error in the HTTP layer (a bug in placer)"),
        _ => ("bad_request", "the request was refused by the HTTP layer"),
    }
}

impl<T: AsyncWrite + Unpin> JsonErrorIo<T> {
    /// Writes `pending` to `inner` until it is empty or `inner` would block.
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.pending_from < self.pending.len() {
            let n = ready!(
                Pin::new(&mut self.inner).poll_write(cx, &self.pending[self.pending_from..])
            )?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.pending_from += n;
        }
        self.pending.clear();
        self.pending_from = 0;
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for JsonErrorIo<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for JsonErrorIo<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.poll_drain(cx))?;
        // Body bytes with nothing pending go straight through, without a copy.
        if let WriteState::Body(left) = &mut this.state {
            let n = (*left).min(buf.len() as u64) as usize;
            let written = ready!(Pin::new(&mut this.inner).poll_write(cx, &buf[..n]))?;
            *left -= written as u64;
            if *left == 0 {
                this.state = WriteState::Head(Vec::new());
            }
            return Poll::Ready(Ok(written));
        }
        this.feed(buf);
        // Start sending now; what does not fit goes on the next write or flush.
        if let Poll::Ready(Err(e)) = this.poll_drain(cx) {
            return Poll::Ready(Err(e));
        }
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_drain(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if let WriteState::Head(head) = &mut this.state {
            // An unfinished head (never from actix): send it as it is.
            let head = std::mem::take(head);
            this.pending.extend_from_slice(&head);
        }
        ready!(this.poll_drain(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn run(chunks: &[&[u8]]) -> String {
        let mut io = JsonErrorIo::new(Vec::<u8>::new());
        for c in chunks {
            io.feed(c);
        }
        String::from_utf8(io.pending).unwrap()
    }

    const ERROR_400: &[u8] =
        b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\ndate: x\r\n\r\n";

    #[test]
    fn a_bodiless_400_becomes_json() {
        let out = run(&[ERROR_400]);
        let (head, body) = out.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 400 Bad Request\r\n"), "{head}");
        assert!(head.contains("connection: close"));
        assert!(head.contains("content-type: application/json"));
        assert!(head.contains(&format!("content-length: {}", body.len())));
        let json: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(json["error"]["code"], "bad_request");
        assert_eq!(json["error"]["path"], "$");
    }

    #[test]
    fn bodies_with_content_length_pass_through_even_when_they_look_like_errors() {
        let body = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n!!!!";
        let ok = format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n", body.len());
        let ok = ok.as_bytes();
        let out = run(&[ok, body, ERROR_400]);
        let want = format!("{}{}", String::from_utf8_lossy(ok), String::from_utf8_lossy(body));
        assert!(out.starts_with(&want), "{out}");
        assert!(out[want.len()..].contains("\"bad_request\""), "pipelined error rewritten");
    }

    #[test]
    fn heads_split_across_writes_are_followed() {
        let (a, b) = ERROR_400.split_at(17);
        assert!(run(&[a, b]).contains("\"bad_request\""));
        let (a, b) = ERROR_400.split_at(ERROR_400.len() - 2);
        assert!(run(&[b"HTTP/1.1 100 Continue\r\n\r\n", a, b]).contains("\"bad_request\""));
    }

    #[test]
    fn each_status_gets_its_code() {
        for (status, code) in
            [(408, "request_timeout"), (431, "headers_too_large"), (500, "internal")]
        {
            let head = format!("HTTP/1.1 {status} X\r\ncontent-length: 0\r\n\r\n");
            assert!(run(&[head.as_bytes()]).contains(&format!("\"{code}\"")), "{status}");
        }
    }

    #[test]
    fn a_bodiless_success_is_left_alone() {
        let head = b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n";
        assert_eq!(run(&[head, head]).as_bytes(), [&head[..], &head[..]].concat());
    }

    #[test]
    fn chunked_responses_end_the_tracking() {
        let head = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n";
        let out = run(&[head, ERROR_400]);
        assert_eq!(out.as_bytes(), [&head[..], ERROR_400].concat());
    }
}
