//! Request ids (echoed as `X-Request-Id`; the header as load
//! balancers and tracing proxies use it): take the caller's id when it is short and plain,
//! otherwise make a fresh random one, so that one request's log line, answer and the caller's
//! own logs can be matched.

use actix_web::http::header::{HeaderName, HeaderValue};
use std::collections::hash_map::RandomState;
use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

/// The header carrying the id, in requests and in every response.
pub const HEADER: HeaderName = HeaderName::from_static("x-request-id");

/// Longest accepted incoming id, in bytes.
pub const MAX_LEN: usize = 64;

/// One request's id: 1 to [`MAX_LEN`] characters of `A–Z a–z 0–9 - _ . :`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestId(String);

impl RequestId {
    /// The caller's id if `value` is one (see the type's charset and length), else `None`.
    pub fn parse(value: &[u8]) -> Option<Self> {
        let ok = !value.is_empty()
            && value.len() <= MAX_LEN
            && value.iter().all(|&b| b.is_ascii_alphanumeric() || b"-_.:".contains(&b));
        // The bytes are ASCII, so the conversion cannot fail.
        ok.then(|| std::str::from_utf8(value).ok().map(|s| Self(s.to_owned()))).flatten()
    }

    /// The caller's id from `header` when valid, otherwise a fresh one.
    pub fn from_header(header: Option<&HeaderValue>) -> Self {
        header.and_then(|v| Self::parse(v.as_bytes())).unwrap_or_else(Self::generate)
    }

    /// A fresh id: 32 lowercase hex digits (128 bits) from the standard library's randomly
    /// keyed SipHash over a process-wide counter, so ids do not repeat within a process and
    /// are unpredictable across processes.
    pub fn generate() -> Self {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let word = |salt: u64| {
            let mut h = RandomState::new().build_hasher();
            h.write_u64(n);
            h.write_u64(salt);
            h.finish()
        };
        Self(format!("{:016x}{:016x}", word(0), word(1)))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The id as a header value.
    pub fn header_value(&self) -> HeaderValue {
        // Valid ids are visible ASCII, which every header value accepts.
        HeaderValue::from_str(&self.0).unwrap_or_else(|_| HeaderValue::from_static("invalid"))
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_incoming_id_is_kept() {
        let id = RequestId::from_header(Some(&HeaderValue::from_static("abc-123_x.y:z")));
        assert_eq!(id.as_str(), "abc-123_x.y:z");
    }

    #[test]
    fn a_long_or_odd_incoming_id_is_replaced() {
        for bad in ["", "has space", "semi;colon", "ünï", &"a".repeat(MAX_LEN + 1)] {
            assert_eq!(RequestId::parse(bad.as_bytes()), None, "{bad:?}");
        }
        assert!(RequestId::parse("a".repeat(MAX_LEN).as_bytes()).is_some());
        let id = RequestId::from_header(Some(&HeaderValue::from_static("has space")));
        assert_eq!(id.as_str().len(), 32);
    }

    #[test]
    fn generated_ids_differ_and_are_valid() {
        let (a, b) = (RequestId::generate(), RequestId::generate());
        assert_ne!(a, b);
        assert_eq!(RequestId::parse(a.as_str().as_bytes()), Some(a));
    }
}
