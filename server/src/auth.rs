//! Bearer tokens (RFC 6750 "The OAuth 2.0 Authorization Framework: Bearer Token Usage", §2.1
//! the `Authorization: Bearer` header, §3 the `WWW-Authenticate` challenge and its error codes;
//! docs/operations/configuration.md, "TLS and tokens"): who may ask what of `placer serve`.
//!
//! The token file (`--tokens FILE`, config key `tokens`) holds one token per line as
//! `SCOPES TOKEN`, SCOPES a comma-separated list of `place` and `read`; `#` starts a comment
//! line, blank lines are skipped. A token is at least [`MIN_TOKEN_BYTES`] bytes of the RFC 6750
//! `b64token` alphabet. The file is re-read with the config (SIGHUP or a change), and a bad file
//! is rejected like a bad config: the old tokens stay.
//!
//! Without a token file nothing is checked. With one:
//! - open to all: `GET /healthz`, `/readyz` (probes), `/openapi.json`, `/docs`, `/docs/...`
//!   and the dashboard's page `GET /` (it holds no data; its script sends the token it reads
//!   from the page's URL fragment `#token=...` to `GET /v1/epochs`);
//! - scope `read`: every other `GET` or `HEAD` (`/v1/epochs`, `/metrics`);
//! - scope `place`: every other method (`POST /place`, `POST /k8s/v1/filter`,
//!   `POST /k8s/v1/prioritize`), so a route added later is closed until it is listed here.
//!
//! kube-scheduler's extender config has no bearer-token field: on the two extender routes, a
//! client certificate verified by `--tls-client-ca` (mutual TLS) is accepted in place of a token
//! with scope `place`. Everywhere else a client certificate alone grants nothing.
//!
//! No token → 401 `unauthorized` with `WWW-Authenticate: Bearer realm="placer"`; a malformed
//! or unknown one → 401 with `error="invalid_token"`; a known token without the route's scope
//! → 403 `forbidden` with `error="insufficient_scope"`. Each refusal is counted in
//! `placer_auth_failures_total{reason="missing"|"invalid"|"scope"}`. The check runs before the
//! body is read and before admission (a middleware around the app; also before `100 Continue`).
//!
//! Tokens are kept only as SHA-256 digests; a presented token is hashed and compared with every
//! configured digest in constant time (no early exit), and tokens are never logged or echoed.

use crate::config::ServerConfig;
use crate::error::ServerError;
use crate::metrics;
use crate::state::AppState;
use crate::tls::ClientCert;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderMap, AUTHORIZATION};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::web;
use ring::digest::{digest, SHA256};
use std::fmt;
use std::path::Path;
use std::sync::Arc;
use subtle::{Choice, ConstantTimeEq};

/// Shortest accepted token, in bytes (16 random bytes of base64 are 22).
pub const MIN_TOKEN_BYTES: usize = 16;

/// Largest token file read: 1 MiB.
pub const MAX_TOKENS_FILE_BYTES: u64 = 1 << 20;

/// What a token may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Post work: `POST /place`, the extender routes.
    Place,
    /// Read data: `GET /v1/epochs`, `GET /metrics`.
    Read,
}

impl Scope {
    /// The name in the token file and in `WWW-Authenticate`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Place => "place",
            Self::Read => "read",
        }
    }
}

/// One configured token: its digest and scopes.
#[derive(Clone, PartialEq, Eq)]
struct Entry {
    digest: [u8; 32],
    place: bool,
    read: bool,
}

/// The tokens of a token file, as SHA-256 digests with their scopes.
#[derive(Clone, PartialEq, Eq)]
pub struct Tokens(Arc<[Entry]>);

impl fmt::Debug for Tokens {
    // Never the digests: only how many there are.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tokens").field("count", &self.0.len()).finish()
    }
}

/// Why a line of a token file is refused: its 1-based number and what is wrong (never the
/// token itself).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenProblem {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl Tokens {
    /// Parses a token file's text. O(text + tokens · log tokens).
    ///
    /// # Errors
    /// The first bad line: not `SCOPES TOKEN`, an unknown or repeated scope, a token shorter
    /// than [`MIN_TOKEN_BYTES`] or outside the `b64token` alphabet, a token given twice.
    pub fn parse(text: &str) -> Result<Self, TokenProblem> {
        let mut entries: Vec<(Entry, usize)> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let err = |message: String| TokenProblem { line, message };
            let trimmed = raw.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let mut fields = trimmed.split_whitespace();
            let scopes = fields.next().unwrap_or_default();
            let Some(token) = fields.next() else {
                return Err(err(
                    "no token: expected `SCOPES TOKEN`, e.g. `place,read 3q2-...`".to_owned()
                ));
            };
            if fields.next().is_some() {
                return Err(err("more than two fields: expected `SCOPES TOKEN`".to_owned()));
            }
            let (mut place, mut read) = (false, false);
            for scope in scopes.split(',') {
                let seen = match scope {
                    "place" => std::mem::replace(&mut place, true),
                    "read" => std::mem::replace(&mut read, true),
                    other => {
                        return Err(err(format!(
                            "unknown scope {other:?}: scopes are `place` and `read`, \
                             comma-separated"
                        )))
                    }
                };
                if seen {
                    return Err(err(format!("scope `{scope}` given twice")));
                }
            }
            if token.len() < MIN_TOKEN_BYTES {
                return Err(err(format!(
                    "the token is {} bytes; at least {MIN_TOKEN_BYTES} are needed",
                    token.len()
                )));
            }
            if !is_b64token(token) {
                return Err(err("the token has characters a bearer token cannot carry (RFC \
                                6750 b64token: letters, digits, `-._~+/`, then `=`)"
                    .to_owned()));
            }
            let entry = Entry { digest: sha256(token.as_bytes()), place, read };
            if let Some((_, first)) = entries.iter().find(|(e, _)| e.digest == entry.digest) {
                return Err(err(format!("the same token as line {first}")));
            }
            entries.push((entry, line));
        }
        Ok(Self(entries.into_iter().map(|(e, _)| e).collect()))
    }

    /// Reads and parses the token file at `path`.
    ///
    /// # Errors
    /// [`ServerError::Config`] naming the file (and the line): unreadable, not a regular file,
    /// over [`MAX_TOKENS_FILE_BYTES`], not UTF-8, or a bad line ([`Tokens::parse`]).
    pub fn load(path: &Path) -> Result<Self, ServerError> {
        let problem = |line: Option<usize>, message: String| ServerError::Config {
            file: path.display().to_string(),
            key: None,
            line,
            message,
        };
        let text = crate::operator_file::read_text(
            path,
            MAX_TOKENS_FILE_BYTES,
            crate::operator_file::READ_TIMEOUT,
        )
        .map_err(|message| problem(None, message))?;
        Self::parse(&text).map_err(|p| problem(Some(p.line), p.message))
    }

    /// How many tokens there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none (every protected route is then refused).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The scopes of `token` as (place, read), `None` for an unknown token. Hashes `token` once
    /// and compares the digest with every configured digest in constant time, without stopping
    /// at a match: the time depends on the number of tokens only.
    fn scopes_of(&self, token: &[u8]) -> Option<(bool, bool)> {
        let presented = sha256(token);
        let (mut found, mut place, mut read) = (Choice::from(0), Choice::from(0), Choice::from(0));
        for entry in self.0.iter() {
            let same = entry.digest.ct_eq(&presented);
            found |= same;
            place |= same & Choice::from(u8::from(entry.place));
            read |= same & Choice::from(u8::from(entry.read));
        }
        bool::from(found).then(|| (bool::from(place), bool::from(read)))
    }
}

fn sha256(bytes: &[u8]) -> [u8; 32] {
    let mut out = [0; 32];
    out.copy_from_slice(digest(&SHA256, bytes).as_ref());
    out
}

/// RFC 6750 §2.1 `b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
fn is_b64token(token: &str) -> bool {
    let body = token.trim_end_matches('=');
    !body.is_empty() && body.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b))
}

/// `config` with `auth_tokens` read from its `tokens` file (`None` without one).
///
/// # Errors
/// [`ServerError::Config`] for an unusable token file ([`Tokens::load`]).
pub fn load_into(mut config: ServerConfig) -> Result<ServerConfig, ServerError> {
    config.auth_tokens = match &config.tokens {
        Some(path) => Some(Tokens::load(path)?),
        None => None,
    };
    Ok(config)
}

/// The scope a request needs, `None` for the open routes (see the module docs).
pub fn required_scope(method: &Method, path: &str) -> Option<Scope> {
    let open = matches!(path, "/" | "/healthz" | "/readyz" | "/openapi.json" | "/docs")
        || path.starts_with("/docs/");
    let reading = method == Method::GET || method == Method::HEAD;
    match (open && reading, reading) {
        (true, _) => None,
        (false, true) => Some(Scope::Read),
        (false, false) => Some(Scope::Place),
    }
}

/// Whether a verified client certificate stands in for a `place` token on `path` (the
/// extender routes: kube-scheduler cannot send a bearer token).
fn certificate_suffices(path: &str) -> bool {
    path == crate::k8s::FILTER_PATH || path == crate::k8s::PRIORITIZE_PATH
}

/// Why a request is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Denial {
    /// No `Authorization` header.
    Missing,
    /// Not `Bearer TOKEN`, or an unknown token.
    Invalid,
    /// A known token without the route's scope.
    Scope(Scope),
}

impl Denial {
    /// The `reason` label of `placer_auth_failures_total`.
    pub fn reason(self) -> &'static str {
        match self {
            Self::Missing => "missing",
            Self::Invalid => "invalid",
            Self::Scope(_) => "scope",
        }
    }
}

/// Checks a request's head against `tokens` (`None`: nothing is checked). `client_cert`: the
/// connection carries a verified client certificate. Counts a refusal in
/// `placer_auth_failures_total`.
///
/// # Errors
/// [`ServerError::Unauthorized`] (401) or [`ServerError::Forbidden`] (403).
pub(crate) fn authorize(
    tokens: Option<&Tokens>,
    method: &Method,
    path: &str,
    headers: &HeaderMap,
    client_cert: bool,
) -> Result<(), ServerError> {
    let (Some(tokens), Some(scope)) = (tokens, required_scope(method, path)) else {
        return Ok(());
    };
    let denial = match decide(tokens, scope, headers) {
        Ok(()) => return Ok(()),
        Err(_) if client_cert && scope == Scope::Place && certificate_suffices(path) => {
            return Ok(());
        }
        Err(denial) => denial,
    };
    metrics::auth_failure(denial.reason());
    Err(match denial {
        Denial::Missing | Denial::Invalid => ServerError::Unauthorized { denial },
        Denial::Scope(scope) => ServerError::Forbidden {
            scope: scope.name(),
            method: method.to_string(),
            path: path.to_owned(),
        },
    })
}

/// The decision for one request needing `scope`.
fn decide(tokens: &Tokens, scope: Scope, headers: &HeaderMap) -> Result<(), Denial> {
    let mut values = headers.get_all(AUTHORIZATION);
    let Some(value) = values.next() else {
        return Err(Denial::Missing);
    };
    if values.next().is_some() {
        return Err(Denial::Invalid);
    }
    let token = bearer_token(value.as_bytes()).ok_or(Denial::Invalid)?;
    let (place, read) = tokens.scopes_of(token).ok_or(Denial::Invalid)?;
    let granted = match scope {
        Scope::Place => place,
        Scope::Read => read,
    };
    if granted {
        Ok(())
    } else {
        Err(Denial::Scope(scope))
    }
}

/// The token of an `Authorization: Bearer TOKEN` value (the scheme case-insensitive, RFC 9110
/// §11.1), `None` for another scheme or an empty token.
fn bearer_token(value: &[u8]) -> Option<&[u8]> {
    let (scheme, rest) = value.split_at_checked(6)?;
    if !scheme.eq_ignore_ascii_case(b"bearer") || rest.first() != Some(&b' ') {
        return None;
    }
    let token = rest.trim_ascii();
    (!token.is_empty()).then_some(token)
}

/// The middleware: refuses the request before its handler runs (nothing of the body is read,
/// no admission permit is taken). For `App::wrap(actix_web::middleware::from_fn(middleware))`.
///
/// # Errors
/// None of its own: a refusal is a response; the inner service's errors pass through.
pub async fn middleware<B: MessageBody + 'static>(
    req: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
    let tokens = req
        .app_data::<web::Data<AppState>>()
        .and_then(|state| state.config.get().auth_tokens.clone());
    let client_cert = req.request().conn_data::<ClientCert>().is_some();
    match authorize(tokens.as_ref(), req.method(), req.path(), req.headers(), client_cert) {
        Ok(()) => Ok(next.call(req).await?.map_into_left_body()),
        Err(e) => Ok(req.error_response(e).map_into_right_body()),
    }
}

/// The OpenAPI side of the tokens: a `bearer` HTTP security scheme, and on every operation
/// [`required_scope`] protects, its scope as a security requirement (alternative: none, since
/// tokens are checked only with `--tokens`) and the 401 and 403 answers. A modifier of the
/// document ([`crate::openapi`]).
pub(crate) struct SecurityDoc;

impl utoipa::Modify for SecurityDoc {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        use utoipa::openapi::security::SecurityScheme;
        use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityRequirement};
        use utoipa::openapi::{Content, HeaderBuilder, Ref, ResponseBuilder};

        let scheme = HttpBuilder::new()
            .scheme(HttpAuthScheme::Bearer)
            .description(Some(
                "A token of the server's token file (`placer serve --tokens FILE`), whose line \
                 gives its scopes: `place` (POST /place, the sessions, the extender routes) and `read` \
                 (GET /v1/epochs, GET /metrics). Checked only when the server has a token \
                 file. On the extender routes a client certificate verified by \
                 `--tls-client-ca` is accepted instead (kube-scheduler sends no token).",
            ))
            .build();
        openapi
            .components
            .get_or_insert_with(Default::default)
            .add_security_scheme("bearer", SecurityScheme::Http(scheme));
        let error = || Content::new(Some(Ref::from_schema_name("ErrorResponse")));
        for (path, item) in &mut openapi.paths.paths {
            let operations = [
                (Method::GET, &mut item.get),
                (Method::POST, &mut item.post),
                (Method::DELETE, &mut item.delete),
            ];
            for (method, op) in operations {
                let (Some(op), Some(scope)) = (op, required_scope(&method, path)) else {
                    continue;
                };
                op.security = Some(vec![
                    SecurityRequirement::new("bearer", [scope.name()]),
                    SecurityRequirement::default(),
                ]);
                let challenge = HeaderBuilder::new()
                    .schema(ObjectBuilder::new().schema_type(Type::String))
                    .description(Some(
                        "`Bearer realm=\"placer\"`, with `error=\"invalid_token\"` once a \
                         token was sent (RFC 6750 §3).",
                    ))
                    .build();
                let unauthorized = ResponseBuilder::new()
                    .description(
                        "No bearer token, or a malformed or unknown one (only with `--tokens`).",
                    )
                    .content("application/json", error())
                    .header("WWW-Authenticate", challenge)
                    .build();
                let forbidden = ResponseBuilder::new()
                    .description(format!("The token lacks scope `{}`.", scope.name()))
                    .content("application/json", error())
                    .build();
                op.responses.responses.insert("401".to_owned(), unauthorized.into());
                op.responses.responses.insert("403".to_owned(), forbidden.into());
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use actix_web::http::header::HeaderValue;

    const PLACE: &str = "place-token-0123456789";
    const READ: &str = "read-token-0123456789ab";
    const BOTH: &str = "both-token-0123456789ab";

    fn tokens() -> Tokens {
        Tokens::parse(&format!(
            "# operators\n\nplace {PLACE}\nread  {READ}\n  read,place {BOTH}  \n"
        ))
        .unwrap()
    }

    fn headers(value: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Some(v) = value {
            h.insert(AUTHORIZATION, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn check(value: Option<&str>, method: Method, path: &str) -> Result<(), String> {
        authorize(Some(&tokens()), &method, path, &headers(value), false)
            .map_err(|e| e.code().to_owned())
    }

    #[test]
    fn a_token_file_parses_scopes_comments_and_blank_lines() {
        let t = tokens();
        assert_eq!(t.len(), 3);
        assert_eq!(t.scopes_of(PLACE.as_bytes()), Some((true, false)));
        assert_eq!(t.scopes_of(READ.as_bytes()), Some((false, true)));
        assert_eq!(t.scopes_of(BOTH.as_bytes()), Some((true, true)));
        assert_eq!(t.scopes_of(b"place-token-0123456788"), None);
        assert_eq!(format!("{t:?}"), "Tokens { count: 3 }");
        assert!(Tokens::parse("# none\n").unwrap().is_empty());
    }

    #[test]
    fn bad_token_lines_are_named_and_never_echo_the_token() {
        let cases = [
            ("place\n", 1, "no token"),
            ("read abcdefghijklmnopq extra\n", 1, "more than two fields"),
            ("# c\nwrite abcdefghijklmnopq\n", 2, "unknown scope \"write\""),
            ("place,,read abcdefghijklmnopq\n", 1, "unknown scope \"\""),
            ("place,place abcdefghijklmnopq\n", 1, "given twice"),
            ("read short-token\n", 1, "at least 16"),
            ("read abcdefghij\"klmnopq\n", 1, "b64token"),
            ("read abcdefghijklmnopq\n\nplace abcdefghijklmnopq\n", 3, "same token as line 1"),
        ];
        for (text, line, message) in cases {
            let p = Tokens::parse(text).unwrap_err();
            assert_eq!(p.line, line, "{text:?}: {p:?}");
            assert!(p.message.contains(message), "{text:?}: {p:?}");
            assert!(!p.message.contains("abcdefghij") && !p.message.contains("short-token"));
        }
    }

    #[test]
    fn scopes_follow_the_route_table() {
        for (method, path, scope) in [
            (Method::POST, "/place", Some(Scope::Place)),
            (Method::POST, "/k8s/v1/filter", Some(Scope::Place)),
            (Method::POST, "/k8s/v1/prioritize", Some(Scope::Place)),
            (Method::GET, "/v1/epochs", Some(Scope::Read)),
            (Method::GET, "/metrics", Some(Scope::Read)),
            (Method::HEAD, "/metrics", Some(Scope::Read)),
            (Method::GET, "/healthz", None),
            (Method::GET, "/readyz", None),
            (Method::GET, "/openapi.json", None),
            (Method::GET, "/docs", None),
            (Method::GET, "/docs/index.css", None),
            (Method::GET, "/", None),
            // Closed by default: unknown routes, other methods on open paths.
            (Method::GET, "/v1/whatever", Some(Scope::Read)),
            (Method::POST, "/healthz", Some(Scope::Place)),
            (Method::DELETE, "/v1/epochs", Some(Scope::Place)),
        ] {
            assert_eq!(required_scope(&method, path), scope, "{method} {path}");
        }
    }

    #[test]
    fn missing_invalid_and_unscoped_tokens_are_refused() {
        let bearer = |t: &str| format!("Bearer {t}");
        assert_eq!(check(None, Method::POST, "/place"), Err("unauthorized".to_owned()));
        assert_eq!(check(None, Method::GET, "/healthz"), Ok(()));
        assert_eq!(check(Some(&bearer(PLACE)), Method::POST, "/place"), Ok(()));
        assert_eq!(check(Some(&format!("bEaReR   {BOTH} ")), Method::POST, "/place"), Ok(()));
        assert_eq!(check(Some(&bearer(READ)), Method::GET, "/metrics"), Ok(()));
        assert_eq!(check(Some(&bearer(BOTH)), Method::GET, "/v1/epochs"), Ok(()));
        assert_eq!(check(Some(&bearer(READ)), Method::POST, "/place"), Err("forbidden".to_owned()));
        assert_eq!(
            check(Some(&bearer(PLACE)), Method::GET, "/v1/epochs"),
            Err("forbidden".to_owned())
        );
        for bad in [
            "Bearer".to_owned(),
            "Bearer ".to_owned(),
            format!("Basic {PLACE}"),
            format!("Bearer{PLACE}"),
            format!("Bearer {PLACE}x"),
            PLACE.to_owned(),
        ] {
            assert_eq!(
                check(Some(&bad), Method::POST, "/place"),
                Err("unauthorized".to_owned()),
                "{bad}"
            );
        }
        // Two Authorization headers: refused.
        let mut two = headers(Some(&bearer(PLACE)));
        two.append(AUTHORIZATION, HeaderValue::from_str(&bearer(PLACE)).unwrap());
        let err = authorize(Some(&tokens()), &Method::POST, "/place", &two, false).unwrap_err();
        assert_eq!(err.code(), "unauthorized");
        // Without a token file nothing is checked.
        assert!(authorize(None, &Method::POST, "/place", &headers(None), false).is_ok());
        // An empty token file refuses every protected route.
        let none = Tokens::parse("").unwrap();
        let err = authorize(Some(&none), &Method::GET, "/metrics", &headers(None), false);
        assert_eq!(err.unwrap_err().code(), "unauthorized");
    }

    /// The middleware in the real app: refusals are JSON with the challenge, before the body
    /// is read; open routes and good tokens pass.
    #[actix_web::test]
    async fn the_app_refuses_before_the_handler() {
        use actix_web::test::{call_service, init_service, read_body, TestRequest};
        let config = ServerConfig { auth_tokens: Some(tokens()), ..ServerConfig::default() };
        let srv = init_service(crate::app(AppState::new(&config))).await;
        let call = |req: TestRequest| call_service(&srv, req.to_request());

        let res = call(TestRequest::post().uri("/place").set_payload("{")).await;
        assert_eq!(res.status(), 401);
        let challenge = res.headers().get("www-authenticate").unwrap().to_str().unwrap();
        assert_eq!(challenge, "Bearer realm=\"placer\"");
        let body = read_body(res).await;
        let json: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(json["error"]["code"], "unauthorized");
        assert_eq!(json["error"]["path"], "$");

        let bad = TestRequest::get()
            .uri("/metrics")
            .insert_header((AUTHORIZATION, "Bearer nope-nope-nope-nope"));
        let res = call(bad).await;
        assert_eq!(res.status(), 401);
        let challenge = res.headers().get("www-authenticate").unwrap().to_str().unwrap();
        assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");

        let wrong = TestRequest::get()
            .uri("/v1/epochs")
            .insert_header((AUTHORIZATION, format!("Bearer {PLACE}")));
        let res = call(wrong).await;
        assert_eq!(res.status(), 403);
        let challenge = res.headers().get("www-authenticate").unwrap().to_str().unwrap();
        assert!(challenge.contains("scope=\"read\""), "{challenge}");
        let json: serde_json::Value = serde_json::from_slice(&read_body(res).await).unwrap();
        assert_eq!(json["error"]["code"], "forbidden");

        // A place token gets past the check: the malformed body is the handler's 400.
        let post = TestRequest::post()
            .uri("/place")
            .insert_header((AUTHORIZATION, format!("Bearer {PLACE}")))
            .set_payload("{");
        assert_eq!(call(post).await.status(), 400);
        let read = TestRequest::get()
            .uri("/metrics")
            .insert_header((AUTHORIZATION, format!("Bearer {READ}")));
        let res = call(read).await;
        assert_eq!(res.status(), 200);
        let page = String::from_utf8(read_body(res).await.to_vec()).unwrap();
        assert!(page.contains("placer_auth_failures_total{reason=\"scope\"}"), "{page}");
        for path in ["/healthz", "/", "/openapi.json"] {
            assert_eq!(call(TestRequest::get().uri(path)).await.status(), 200, "{path}");
        }
    }

    #[test]
    fn the_openapi_document_declares_the_scheme_and_each_scope() {
        let doc = serde_json::to_value(crate::openapi_document()).unwrap();
        let scheme = &doc["components"]["securitySchemes"]["bearer"];
        assert_eq!(
            (scheme["type"].as_str(), scheme["scheme"].as_str()),
            (Some("http"), Some("bearer"))
        );
        for (path, method, scope) in [
            ("/place", "post", Some("place")),
            ("/v1/sessions", "post", Some("place")),
            ("/v1/sessions/{session}/place", "post", Some("place")),
            ("/v1/sessions/{session}", "delete", Some("place")),
            ("/k8s/v1/filter", "post", Some("place")),
            ("/k8s/v1/prioritize", "post", Some("place")),
            ("/v1/epochs", "get", Some("read")),
            ("/metrics", "get", Some("read")),
            ("/healthz", "get", None),
            ("/readyz", "get", None),
            ("/", "get", None),
            ("/openapi.json", "get", None),
            ("/docs/", "get", None),
        ] {
            let op = &doc["paths"][path][method];
            assert!(op.is_object(), "{method} {path}");
            match scope {
                Some(scope) => {
                    let optional = serde_json::json!([{"bearer": [scope]}, {}]);
                    assert_eq!(op["security"], optional, "{method} {path}");
                    let challenge = &op["responses"]["401"]["headers"]["WWW-Authenticate"];
                    assert!(challenge.is_object(), "{method} {path}");
                    let forbidden = op["responses"]["403"]["description"].as_str().unwrap();
                    assert!(forbidden.contains("`forbidden`"), "{forbidden}");
                }
                None => {
                    assert!(op.get("security").is_none(), "{method} {path}");
                    assert!(op["responses"].get("401").is_none(), "{method} {path}");
                }
            }
        }
    }

    #[test]
    fn a_client_certificate_stands_in_for_place_on_the_extender_routes_only() {
        let t = tokens();
        let none = headers(None);
        for path in ["/k8s/v1/filter", "/k8s/v1/prioritize"] {
            assert!(authorize(Some(&t), &Method::POST, path, &none, true).is_ok());
            assert!(authorize(Some(&t), &Method::POST, path, &none, false).is_err());
        }
        for (method, path) in [(Method::POST, "/place"), (Method::GET, "/metrics")] {
            let err = authorize(Some(&t), &method, path, &none, true).unwrap_err();
            assert_eq!(err.code(), "unauthorized", "{method} {path}");
        }
    }
}
