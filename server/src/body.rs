//! Reading a `POST /place` body under the size limit and the body timeout (DESIGN.md §Errors:
//! 413 too large; issue 16 §1 and §8: slow clients, gzip bodies). Refuse early from
//! `Content-Length`, then stream the payload and stop at the first chunk that would cross the
//! limit, so an oversized snapshot is never buffered whole. A `Content-Encoding: gzip` body
//! (RFC 9110 §8.4.1.3) is inflated with the same limit on the decoded size, so a gzip bomb stops
//! at `limit + 1` decoded bytes.

use crate::error::ServerError;
use actix_web::body::{BodyStream, MessageBody};
use actix_web::dev::Payload;
use actix_web::http::header::{HeaderMap, CONTENT_ENCODING, CONTENT_LENGTH};
use actix_web::web::{Bytes, BytesMut};
use actix_web::HttpRequest;
use std::future::poll_fn;
use std::io::Read;
use std::pin::pin;
use std::time::Duration;

/// Bytes reserved up front for a body, whatever its `Content-Length` claims: a slow client that
/// declares a large body holds only what it has actually sent.
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
/// `encoding` (gzip is inflated on the blocking pool, with `limit` on the decoded size).
///
/// # Errors
/// `PayloadTooLarge` over the limit, `RequestTimeout` when the body is late, `Payload` when the
/// connection fails or the gzip stream is corrupt.
///
/// # Complexity
/// O(body) time; at most `limit` raw plus `limit` decoded bytes held.
pub(crate) async fn read_body(
    req: &HttpRequest,
    payload: Payload,
    limit: usize,
    timeout: Duration,
    encoding: Encoding,
) -> Result<Bytes, ServerError> {
    let timeout_ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
    let raw = tokio::time::timeout(timeout, read_limited(req, payload, limit))
        .await
        .map_err(|_| ServerError::RequestTimeout { timeout_ms })??;
    match encoding {
        Encoding::Identity => Ok(raw),
        Encoding::Gzip => actix_web::web::block(move || gunzip_limited(&raw, limit))
            .await
            .map_err(|e| ServerError::Internal { message: format!("gzip thread failed: {e}") })?,
    }
}

/// Buffers the whole payload, failing with `PayloadTooLarge` as soon as more than `limit`
/// bytes have arrived. O(body) time and memory, at most `limit` bytes held.
pub(crate) async fn read_limited(
    req: &HttpRequest,
    payload: Payload,
    limit: usize,
) -> Result<Bytes, ServerError> {
    check_content_length(req.headers(), limit)?;
    let capacity = declared_length(req.headers())
        .map_or(0, |len| len.min(limit.min(INITIAL_CAPACITY) as u64) as usize);
    let mut buf = BytesMut::with_capacity(capacity);
    let mut stream = pin!(BodyStream::new(payload));
    while let Some(chunk) = poll_fn(|cx| stream.as_mut().poll_next(cx)).await {
        let chunk = chunk.map_err(|e| ServerError::Payload { message: e.to_string() })?;
        if chunk.len() > limit - buf.len() {
            return Err(ServerError::PayloadTooLarge { limit });
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(buf.freeze())
}

/// Inflates a gzip body (RFC 1952, concatenated members too), stopping with `PayloadTooLarge`
/// once more than `limit` decoded bytes come out.
///
/// # Errors
/// `PayloadTooLarge`, or `Payload` for a corrupt stream.
///
/// # Complexity
/// O(decoded size), at most `limit + 1` decoded bytes held.
pub(crate) fn gunzip_limited(raw: &[u8], limit: usize) -> Result<Bytes, ServerError> {
    let mut out = Vec::with_capacity(raw.len().saturating_mul(4).min(limit));
    let mut decoder = flate2::read::MultiGzDecoder::new(raw).take(limit as u64 + 1);
    decoder
        .read_to_end(&mut out)
        .map_err(|e| ServerError::Payload { message: format!("corrupt gzip body: {e}") })?;
    if out.len() > limit {
        return Err(ServerError::PayloadTooLarge { limit });
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

    #[actix_web::test]
    async fn reads_a_body_within_the_limit() {
        let (req, payload) = TestRequest::post().set_payload("0123456789").to_http_parts();
        let bytes = read_limited(&req, payload, 10).await.unwrap();
        assert_eq!(&bytes[..], b"0123456789");
    }

    #[actix_web::test]
    async fn refuses_early_from_content_length() {
        let (req, payload) = TestRequest::post().set_payload("0123456789").to_http_parts();
        let err = read_limited(&req, payload, 9).await.unwrap_err();
        assert_eq!(err.code(), "payload_too_large");
    }

    #[actix_web::test]
    async fn refuses_while_streaming_when_content_length_lies() {
        let (req, payload) = TestRequest::post()
            .set_payload("0123456789")
            .insert_header((CONTENT_LENGTH, "3"))
            .to_http_parts();
        let err = read_limited(&req, payload, 5).await.unwrap_err();
        assert_eq!(err.code(), "payload_too_large");
    }

    #[test]
    fn gzip_round_trips_within_the_limit() {
        let body = br#"{"schema_version":1}"#;
        assert_eq!(&gunzip_limited(&gzip(body), body.len()).unwrap()[..], body);
    }

    /// A gzip bomb: 16 MiB of zeros compress to about 16 KiB; the limit applies to the decoded
    /// size and decoding stops at limit + 1 bytes.
    #[test]
    fn a_gzip_bomb_is_413_on_the_decoded_size() {
        let bomb = gzip(&vec![0u8; 16 << 20]);
        assert!(bomb.len() < 64 << 10);
        let err = gunzip_limited(&bomb, 1 << 20).unwrap_err();
        assert_eq!(err.code(), "payload_too_large");
    }

    #[test]
    fn corrupt_gzip_is_a_payload_error() {
        let err = gunzip_limited(b"\x1f\x8b\x08\x00garbage", 100).unwrap_err();
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
