//! Reading a `POST /place` body under the size limit (DESIGN.md §Errors: 413 too large): refuse
//! early from `Content-Length`, then stream the payload and stop at the first chunk that would
//! cross the limit, so an oversized snapshot is never buffered whole.

use crate::error::ServerError;
use actix_web::body::{BodyStream, MessageBody};
use actix_web::dev::Payload;
use actix_web::http::header::CONTENT_LENGTH;
use actix_web::web::{Bytes, BytesMut};
use actix_web::HttpRequest;
use std::future::poll_fn;
use std::pin::pin;

/// Refuses a body whose declared `Content-Length` exceeds `limit`, before reading anything.
/// A missing or unparsable header passes: the streaming check in [`read_limited`] catches it.
pub(crate) fn check_content_length(req: &HttpRequest, limit: usize) -> Result<(), ServerError> {
    match declared_length(req) {
        Some(len) if len > limit as u64 => Err(ServerError::PayloadTooLarge { limit }),
        _ => Ok(()),
    }
}

/// Buffers the whole payload, failing with `PayloadTooLarge` as soon as more than `limit`
/// bytes have arrived. O(body) time and memory, at most `limit` bytes held.
pub(crate) async fn read_limited(
    req: &HttpRequest,
    payload: Payload,
    limit: usize,
) -> Result<Bytes, ServerError> {
    check_content_length(req, limit)?;
    let capacity = declared_length(req).map_or(0, |len| len.min(limit as u64) as usize);
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

fn declared_length(req: &HttpRequest) -> Option<u64> {
    req.headers().get(CONTENT_LENGTH)?.to_str().ok()?.trim().parse().ok()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

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
}
