//! The live dashboard (issue 17 item 1; Hadoop Fair Scheduler design doc §3.8, "a web page of
//! pools and jobs"): `GET /` serves one page compiled into the binary (HTML, CSS and JavaScript
//! written by hand; no CDN, nothing fetched at build time), which polls `GET /v1/epochs`, the
//! documented JSON view of the ring of answered epochs ([`crate::epochs`]) that scripts can
//! read too.

use crate::epoch_record::EpochRecord;
use crate::error::ServerError;
use crate::state::AppState;
use actix_web::http::header::{self, ContentType};
use actix_web::{web, HttpRequest, HttpResponse, Route};
use serde::Serialize;
use std::sync::OnceLock;
use utoipa::ToSchema;

/// Where the JSON view is served.
pub const EPOCHS_PATH: &str = "/v1/epochs";

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
    /// The kept records with `seq > since`, oldest first, at most `limit` (the newest).
    pub epochs: Vec<EpochRecord>,
}

/// [`EpochsPage`] borrowing the ring's records (serialized without copying them).
#[derive(Serialize)]
struct EpochsPageRef<'a> {
    capacity: usize,
    last_seq: u64,
    epochs: Vec<&'a EpochRecord>,
}

/// `?since=SEQ&limit=N`; unknown parameters are ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct EpochsQuery {
    since: u64,
    limit: usize,
}

impl EpochsQuery {
    fn parse(query: &str) -> Result<Self, ServerError> {
        let pairs = web::Query::<Vec<(String, String)>>::from_query(query)
            .map_err(|e| ServerError::InvalidQuery { param: "?", message: e.to_string() })?;
        let mut out = Self { since: 0, limit: usize::MAX };
        for (key, value) in pairs.into_inner() {
            match key.as_str() {
                "since" => {
                    out.since = value.parse().map_err(|_| ServerError::InvalidQuery {
                        param: "?since",
                        message: format!("{value:?} is not a whole number ≥ 0"),
                    })?;
                }
                "limit" => {
                    out.limit = value.parse().map_err(|_| ServerError::InvalidQuery {
                        param: "?limit",
                        message: format!("{value:?} is not a whole number ≥ 0"),
                    })?;
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

/// `GET /v1/epochs`: the kept records after `?since=`, the newest `?limit=`. Serialized on the
/// blocking pool (the ring can hold megabytes).
async fn epochs(req: HttpRequest, state: web::Data<AppState>) -> Result<HttpResponse, ServerError> {
    let query = EpochsQuery::parse(req.query_string())?;
    let ring = state.epochs().clone();
    let body = web::block(move || {
        let last_seq = ring.last_seq();
        let records = ring.since(query.since, query.limit);
        let page = EpochsPageRef {
            capacity: ring.capacity(),
            last_seq,
            epochs: records.iter().map(AsRef::as_ref).collect(),
        };
        serde_json::to_vec(&page)
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
        assert_eq!(EpochsQuery::parse("").unwrap(), EpochsQuery { since: 0, limit: usize::MAX });
        assert_eq!(
            EpochsQuery::parse("since=5&limit=2&x=y").unwrap(),
            EpochsQuery { since: 5, limit: 2 }
        );
        for (query, path) in [("since=-1", "?since"), ("limit=x", "?limit"), ("since=", "?since")] {
            let err = EpochsQuery::parse(query).unwrap_err();
            assert_eq!((err.code(), err.path()), ("invalid_query", path), "{query}");
        }
    }
}
