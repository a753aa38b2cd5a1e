//! The live dashboard (docs/operations/observability.md, "Dashboard"; Hadoop Fair Scheduler design
//! doc §3.8, "a web page of pools and jobs"): `GET /` serves one page compiled into the binary
//! (HTML, CSS and JavaScript written by hand; no CDN, nothing fetched at build time), which polls
//! `GET /v1/epochs`, the documented JSON view of the ring of answered epochs ([`crate::epochs`])
//! that scripts can read too.

use crate::epoch_record::EpochRecord;
use crate::error::ServerError;
use crate::intake::admit_fixed;
use crate::state::AppState;
use actix_web::http::header::{self, ContentType};
use actix_web::{web, HttpRequest, HttpResponse, Route};
use serde::Serialize;
use std::sync::OnceLock;
use utoipa::ToSchema;

/// Where the JSON view is served.
pub const EPOCHS_PATH: &str = "/v1/epochs";

/// Most JSON bytes of records in one `GET /v1/epochs` answer (beyond its first record): 4 MiB.
/// Older records are paged with `?before=`.
pub const PAGE_MAX_BYTES: u64 = 4 << 20;

const PAGE: &str = include_str!("dashboard/index.html");
const STYLE: &str = include_str!("dashboard/dashboard.css");
const SCRIPT: &str = include_str!("dashboard/dashboard.js");

/// The page with its style sheet and script inlined (one request, works from any proxy path).
fn page() -> &'static str {
    static PAGE_TEXT: OnceLock<String> = OnceLock::new();
    PAGE_TEXT.get_or_init(|| PAGE.replace("/*STYLE*/", STYLE).replace("/*SCRIPT*/", SCRIPT))
}

/// `GET /v1/epochs`'s answer.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub(crate) struct EpochsPage {
    /// Most records the server keeps (`--epochs`).
    pub capacity: usize,
    /// `seq` of the newest answered epoch (0 before the first), kept or not: poll with
    /// `?since=` this value to get only newer records.
    pub last_seq: u64,
    /// The kept records with `since < seq < before`, oldest first: the newest of them, at most
    /// `limit` and at most [`PAGE_MAX_BYTES`] of JSON (beyond the first).
    pub epochs: Vec<EpochRecord>,
    /// Records in the asked range left out of this page (older than its first): ask again
    /// with `?before=` the first record's `seq` for them.
    pub omitted: u64,
    /// Most bytes of records the server keeps (`--epochs-max-bytes`).
    pub max_bytes: u64,
}

/// [`EpochsPage`] borrowing the ring's records (serialized without copying them).
#[derive(Serialize)]
struct EpochsPageRef<'a> {
    capacity: usize,
    last_seq: u64,
    epochs: Vec<&'a EpochRecord>,
    omitted: u64,
    max_bytes: u64,
}

/// `?since=SEQ&before=SEQ&limit=N`; unknown parameters are ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct EpochsQuery {
    since: u64,
    before: u64,
    limit: usize,
}

impl EpochsQuery {
    fn parse(query: &str) -> Result<Self, ServerError> {
        let pairs = web::Query::<Vec<(String, String)>>::from_query(query)
            .map_err(|e| ServerError::InvalidQuery { param: "?", message: e.to_string() })?;
        let mut out = Self { since: 0, before: u64::MAX, limit: usize::MAX };
        let number = |param: &'static str, value: &str| {
            value.parse().map_err(|_| ServerError::InvalidQuery {
                param,
                message: format!("{value:?} is not a whole number ≥ 0"),
            })
        };
        for (key, value) in pairs.into_inner() {
            match key.as_str() {
                "since" => out.since = number("?since", &value)?,
                "before" => out.before = number("?before", &value)?,
                "limit" => {
                    out.limit = usize::try_from(number("?limit", &value)?).unwrap_or(usize::MAX);
                }
                _ => {}
            }
        }
        Ok(out)
    }
}

/// Registers `GET /` and `GET /v1/epochs` on `cfg`.
pub(crate) fn register(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/").route(web::get().to(dashboard)).default_service(method_not_allowed()),
    )
    .service(
        web::resource(EPOCHS_PATH)
            .route(web::get().to(epochs))
            .default_service(method_not_allowed()),
    );
}

/// `GET /`: the dashboard page.
async fn dashboard() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(ContentType::html())
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .body(page())
}

/// `GET /v1/epochs`: the newest kept records between `?since=` and `?before=`, at most
/// `?limit=` and one page of bytes ([`PAGE_MAX_BYTES`]). Admitted like every route that does
/// work ([`crate::intake::admit_fixed`], weighted by twice the page's size: the records and
/// their serialization), then serialized on the blocking pool.
async fn epochs(req: HttpRequest, state: web::Data<AppState>) -> Result<HttpResponse, ServerError> {
    let query = EpochsQuery::parse(req.query_string())?;
    let ring = state.epochs().clone();
    let last_seq = ring.last_seq();
    let page = ring.page(query.since, query.before, query.limit, PAGE_MAX_BYTES);
    let config = state.config.get();
    let weight = page.bytes.saturating_mul(2).saturating_add(64 << 10);
    let permit = admit_fixed(&state, &config, weight).await?;
    let body = web::block(move || {
        let _permit = permit;
        let out = EpochsPageRef {
            capacity: ring.capacity(),
            last_seq,
            epochs: page.records.iter().map(AsRef::as_ref).collect(),
            omitted: page.omitted,
            max_bytes: ring.max_bytes(),
        };
        serde_json::to_vec(&out)
    })
    .await
    .map_err(|e| ServerError::Internal { message: format!("epochs thread failed: {e}") })?
    .map_err(|e| ServerError::Internal { message: format!("serializing epochs: {e}") })?;
    Ok(HttpResponse::Ok()
        .insert_header(ContentType::json())
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(body))
}

/// A dashboard path with a method other than GET: 405 with `Allow: GET`.
fn method_not_allowed() -> Route {
    web::to(|req: HttpRequest| async move {
        Err::<HttpResponse, _>(ServerError::MethodNotAllowed {
            method: req.method().to_string(),
            path: req.path().to_owned(),
            allowed: "GET",
        })
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_page_inlines_its_style_and_script() {
        let page = page();
        assert!(page.starts_with("<!doctype html>"));
        assert!(!page.contains("/*STYLE*/") && !page.contains("/*SCRIPT*/"));
        assert!(page.contains(STYLE) && page.contains(SCRIPT));
        assert!(page.contains("id=\"solve-chart\""));
        // Offline: nothing is loaded from elsewhere (the SVG namespace is a name, not a fetch).
        let page = page.replace("\"http://www.w3.org/2000/svg\"", "");
        for outside in ["http://", "https://", "src=", "<link", "@import", "url("] {
            assert!(!page.contains(outside), "the page refers to {outside}");
        }
    }

    #[test]
    fn the_query_parses_since_and_limit() {
        assert_eq!(
            EpochsQuery::parse("").unwrap(),
            EpochsQuery { since: 0, before: u64::MAX, limit: usize::MAX }
        );
        assert_eq!(
            EpochsQuery::parse("since=5&limit=2&x=y&before=9").unwrap(),
            EpochsQuery { since: 5, before: 9, limit: 2 }
        );
        for (query, path) in [
            ("since=-1", "?since"),
            ("limit=x", "?limit"),
            ("since=", "?since"),
            ("before=no", "?before"),
        ] {
            let err = EpochsQuery::parse(query).unwrap_err();
            assert_eq!((err.code(), err.path()), ("invalid_query", path), "{query}");
        }
    }
}
