//! Reading a request body under the size limit, the body timeout and the memory budget (RFC
//! 9110 §15.5.14 413, §8.4.1.3 gzip; docs/operations/serving.md, "Limits per route"). Refuse
//! early from `Content-Length`, then stream the payload and stop at the first chunk that would
//! cross the limit, so an oversized body is never buffered whole. A `Content-Encoding: gzip` body
//! is inflated with the same limit on the decoded size, so a gzip bomb stops at `limit + 1` decoded
//! bytes. Every buffer's capacity is held against the memory budget before it is allocated, raw and
//! decoded alike ([`crate::admission::Hold`]).

use crate::admission::{Hold, MemoryModel};
use crate::error::ServerError;
use actix_web::body::{BodyStream, MessageBody};
use actix_web::dev::Payload;
use actix_web::http::header::{HeaderMap, CONTENT_ENCODING, CONTENT_LENGTH};
use actix_web::web::Bytes;
use actix_web::HttpRequest;
use std::future::poll_fn;
use std::io::Read;
use std::pin::pin;
use std::time::Duration;

/// Smallest buffer allocated for a body, whatever its `Content-Length` claims: a slow client
/// that declares a large body holds only what it has actually sent.
const INITIAL_CAPACITY: usize = 64 * 1024;

/// How a body is encoded on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Encoding {
    /// No `Content-Encoding`, or `identity`.
    Identity,
    /// `gzip` (or its alias `x-gzip`).
    Gzip,
}

/// The body's `Content-Encoding`.
///
/// # Errors
/// [`ServerError::UnsupportedEncoding`] for anything but `gzip`, `x-gzip` and `identity`
/// (a list of several codings included).
pub(crate) fn encoding(headers: &HeaderMap) -> Result<Encoding, ServerError> {
    let Some(value) = headers.get(CONTENT_ENCODING) else { return Ok(Encoding::Identity) };
    let text = value.to_str().unwrap_or_default().trim().to_ascii_lowercase();
    match text.as_str() {
        "" | "identity" => Ok(Encoding::Identity),
        "gzip" | "x-gzip" => Ok(Encoding::Gzip),
        _ => Err(ServerError::UnsupportedEncoding {
            encoding: String::from_utf8_lossy(value.as_bytes()).into_owned(),
        }),
    }
}

/// The declared `Content-Length`, if present and a number.
pub(crate) fn declared_length(headers: &HeaderMap) -> Option<u64> {
    headers.get(CONTENT_LENGTH)?.to_str().ok()?.trim().parse().ok()
}

/// Refuses a body whose declared `Content-Length` exceeds `limit`, before reading anything.
/// A missing or unparsable header passes: the streaming check in [`read_limited`] catches it.
///
/// # Errors
/// [`ServerError::PayloadTooLarge`].
pub(crate) fn check_content_length(headers: &HeaderMap, limit: usize) -> Result<(), ServerError> {
    match declared_length(headers) {
        Some(len) if len > limit as u64 => Err(ServerError::PayloadTooLarge { limit }),
        _ => Ok(()),
    }
}

/// Reads the whole body within `timeout` and at most `limit` bytes, then decodes it per
/// `encoding` (gzip is inflated on the blocking pool, with `limit` on the decoded size). Every
/// byte kept, raw or decoded, is first held in `hold` (see [`crate::admission`]): a body the
/// memory budget cannot take now is refused while it arrives. On success the hold covers the
/// returned bytes only.
///
/// # Errors
/// `PayloadTooLarge` over the limit, `RequestTimeout` when the body is late, `Payload` when the
/// connection fails or the gzip stream is corrupt, `Overloaded` (503) or `OverMemoryBudget`
/// (413) when the budget cannot hold the bytes (the latter quoting `model`'s factor).
///
/// # Complexity
/// O(body) time; at most `limit` raw plus `limit` decoded bytes held.
pub(crate) async fn read_body(
    req: &HttpRequest,
    payload: Payload,
    limits: BodyLimits,
    encoding: Encoding,
    mut hold: Hold,
    model: MemoryModel,
) -> Result<(Bytes, Hold), ServerError> {
    let BodyLimits { limit, timeout } = limits;
    let timeout_ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
    let raw = tokio::time::timeout(timeout, read_limited(req, payload, limit, &mut hold, model))
        .await
        .map_err(|_| ServerError::RequestTimeout { timeout_ms })??;
    match encoding {
        Encoding::Identity => Ok((raw, hold)),
        Encoding::Gzip => actix_web::web::block(move || {
            let raw_len = raw.len() as u64;
            let decoded = gunzip_limited(&raw, limit, |bytes| {
                hold.grow_to(raw_len + bytes).map_err(|r| r.into_error(model))
            })?;
            drop(raw);
            hold.shrink_to(decoded.len() as u64);
            Ok((decoded, hold))
        })
        .await
        .map_err(|e| ServerError::Internal { message: format!("gzip thread failed: {e}") })?,
    }
}

/// The size and time limits of one body.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BodyLimits {
    /// Most bytes, raw and decoded.
    pub limit: usize,
    /// Longest time to receive it.
    pub timeout: Duration,
}

/// The capacity to grow a buffer of `capacity` bytes to, to take `needed` bytes: at least
/// `needed`, doubling (amortised O(1) per byte), never past `limit`.
fn next_capacity(capacity: usize, needed: usize, limit: usize) -> usize {
    needed.max(capacity.saturating_mul(2).max(INITIAL_CAPACITY)).min(limit.max(needed))
}

/// Buffers the whole payload, failing with `PayloadTooLarge` as soon as more than `limit`
/// bytes have arrived, and holding every byte of the buffer's capacity in `hold` before it is
/// allocated. O(body) time and memory, at most `limit` bytes held.
pub(crate) async fn read_limited(
    req: &HttpRequest,
    payload: Payload,
    limit: usize,
    hold: &mut Hold,
    model: MemoryModel,
) -> Result<Bytes, ServerError> {
    check_content_length(req.headers(), limit)?;
    let mut buf: Vec<u8> = Vec::new();
    let mut stream = pin!(BodyStream::new(payload));
    while let Some(chunk) = poll_fn(|cx| stream.as_mut().poll_next(cx)).await {
        let chunk = chunk.map_err(|e| ServerError::Payload { message: e.to_string() })?;
        if chunk.len() > limit - buf.len() {
            return Err(ServerError::PayloadTooLarge { limit });
        }
        let needed = buf.len() + chunk.len();
        if needed > buf.capacity() {
            let capacity = next_capacity(buf.capacity(), needed, limit);
            // While the buffer moves, the old one and the new one are both alive.
            let moving = (capacity + buf.capacity()) as u64;
            hold.grow_to(moving).map_err(|r| r.into_error(model))?;
            buf.reserve_exact(capacity - buf.len());
            hold.shrink_to(capacity as u64);
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(buf))
}

/// Inflates a gzip body (RFC 1952, concatenated members too), stopping with `PayloadTooLarge`
/// once more than `limit` decoded bytes come out. `grow(n)` is called before the output buffer
/// grows, with `n` the bytes alive while it moves (the old capacity plus the new), and its
/// error ends the decoding (the memory budget's say).
///
/// # Errors
/// `PayloadTooLarge`, `Payload` for a corrupt stream, or `grow`'s error.
///
/// # Complexity
/// O(decoded size), at most `limit + 1` decoded bytes held.
pub(crate) fn gunzip_limited(
    raw: &[u8],
    limit: usize,
    mut grow: impl FnMut(u64) -> Result<(), ServerError>,
) -> Result<Bytes, ServerError> {
    let mut out: Vec<u8> = Vec::new();
    let mut decoder = flate2::read::MultiGzDecoder::new(raw).take(limit as u64 + 1);
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = match decoder.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(ServerError::Payload { message: format!("corrupt gzip body: {e}") })
            }
        };
        let needed = out.len() + n;
        if needed > limit {
            return Err(ServerError::PayloadTooLarge { limit });
        }
        if needed > out.capacity() {
            let capacity = next_capacity(out.capacity(), needed, limit);
            grow((capacity + out.capacity()) as u64)?;
            out.reserve_exact(capacity - out.len());
        }
        out.extend_from_slice(&chunk[..n]);
    }
    Ok(Bytes::from(out))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;
    use flate2::write::GzEncoder;
    use std::io::Write;

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut enc = GzEncoder::new(Vec::new(), flate2::Compression::best());
        enc.write_all(bytes).unwrap();
        enc.finish().unwrap()
    }

    fn hold(budget: u64) -> Hold {
        crate::admission::Admission::default().hold(budget)
    }

    fn no_growth_limit(_: u64) -> Result<(), ServerError> {
        Ok(())
    }

    const MODEL: MemoryModel = MemoryModel::Solve;

    #[actix_web::test]
    async fn reads_a_body_within_the_limit() {
        let (req, payload) = TestRequest::post().set_payload("0123456789").to_http_parts();
        let mut hold = hold(1 << 20);
        let bytes = read_limited(&req, payload, 10, &mut hold, MODEL).await.unwrap();
        assert_eq!(&bytes[..], b"0123456789");
        assert_eq!(hold.bytes(), 10, "the buffer's capacity is held");
    }

    #[actix_web::test]
    async fn refuses_early_from_content_length() {
        let (req, payload) = TestRequest::post().set_payload("0123456789").to_http_parts();
        let err = read_limited(&req, payload, 9, &mut hold(1 << 20), MODEL).await.unwrap_err();
        assert_eq!(err.code(), "payload_too_large");
    }

    #[actix_web::test]
    async fn refuses_while_streaming_when_content_length_lies() {
        let (req, payload) = TestRequest::post()
            .set_payload("0123456789")
            .insert_header((CONTENT_LENGTH, "3"))
            .to_http_parts();
        let err = read_limited(&req, payload, 5, &mut hold(1 << 20), MODEL).await.unwrap_err();
        assert_eq!(err.code(), "payload_too_large");
    }

    /// A body the memory budget cannot hold now is refused while it arrives (503), not
    /// buffered first.
    #[actix_web::test]
    async fn a_body_over_the_free_budget_is_refused_while_it_arrives() {
        let admission = crate::admission::Admission::default();
        let mut other = admission.hold(100);
        other.grow_to(95).unwrap();
        let (req, payload) = TestRequest::post().set_payload("0123456789").to_http_parts();
        let mut mine = admission.hold(100);
        let err = read_limited(&req, payload, 50, &mut mine, MODEL).await.unwrap_err();
        assert_eq!(err.code(), "overloaded");
        assert_eq!(admission.bytes_in_use(), 95);
    }

    #[test]
    fn gzip_round_trips_within_the_limit() {
        let body = br#"{"schema_version":1}"#;
        let out = gunzip_limited(&gzip(body), body.len(), no_growth_limit).unwrap();
        assert_eq!(&out[..], body);
    }

    /// A gzip bomb: 16 MiB of zeros compress to about 16 KiB; the limit applies to the decoded
    /// size and decoding stops at limit + 1 bytes.
    #[test]
    fn a_gzip_bomb_is_413_on_the_decoded_size() {
        let bomb = gzip(&vec![0u8; 16 << 20]);
        assert!(bomb.len() < 64 << 10);
        let err = gunzip_limited(&bomb, 1 << 20, no_growth_limit).unwrap_err();
        assert_eq!(err.code(), "payload_too_large");
    }

    /// Inflating counts against the budget as it goes: a bomb under the size limit stops as
    /// soon as its decoded bytes would pass what the budget can hold, and never allocates
    /// more than it was allowed.
    #[test]
    fn gzip_decoding_asks_the_budget_before_each_growth() {
        let bomb = gzip(&vec![0u8; 16 << 20]);
        let mut asked = Vec::new();
        let err = gunzip_limited(&bomb, 64 << 20, |n| {
            asked.push(n);
            if n > 1 << 20 {
                Err(ServerError::Overloaded { reason: "budget".into() })
            } else {
                Ok(())
            }
        })
        .unwrap_err();
        assert_eq!(err.code(), "overloaded");
        // Old plus new capacity: 64 KiB, then 64 + 128 KiB, 128 + 256 KiB, ...
        assert_eq!(asked[..3], [64 << 10, 192 << 10, 384 << 10]);
        assert!(*asked.last().unwrap() <= 3 << 20);
    }

    #[test]
    fn corrupt_gzip_is_a_payload_error() {
        let err = gunzip_limited(b"\x1f\x8b\x08\x00garbage", 100, no_growth_limit).unwrap_err();
        assert_eq!(err.code(), "payload_error");
    }

    #[test]
    fn encodings_gzip_identity_or_415() {
        let req =
            |v: &str| TestRequest::post().insert_header((CONTENT_ENCODING, v)).to_http_request();
        assert_eq!(encoding(req("gzip").headers()).unwrap(), Encoding::Gzip);
        assert_eq!(encoding(req("X-GZIP").headers()).unwrap(), Encoding::Gzip);
        assert_eq!(encoding(req("identity").headers()).unwrap(), Encoding::Identity);
        assert_eq!(
            encoding(TestRequest::post().to_http_request().headers()).unwrap(),
            Encoding::Identity
        );
        assert_eq!(encoding(req("br").headers()).unwrap_err().code(), "unsupported_encoding");
        assert_eq!(
            encoding(req("gzip, gzip").headers()).unwrap_err().code(),
            "unsupported_encoding"
        );
    }
}
