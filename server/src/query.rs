//! The query string of `POST /place` (docs/wire-schema.md; docs/operations/serving.md): `?explain=`
//! and `?deadline_ms=`, and of `POST /v1/sessions`, which also reads `?incremental=`. Unknown parameters are ignored; a known one with a bad value is a 400 whose
//! error path names it (`?explain`, `?deadline_ms`).

use crate::error::ServerError;
use actix_web::web;

/// The parsed parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PlaceQuery {
    /// `?explain=true`: list waiting tasks one by one.
    pub explain: bool,
    /// `?deadline_ms=N`: this request's deadline, wins over `policy.deadline_ms`.
    pub deadline_ms: Option<u64>,
    /// `?incremental=true` (`POST /v1/sessions` only; `POST /place` ignores it): the session
    /// keeps the exact engine's state across its epochs.
    pub incremental: bool,
}

impl PlaceQuery {
    /// Parses `query` (without the `?`).
    ///
    /// # Errors
    /// [`ServerError::InvalidQuery`] for undecodable text, `explain` other than `true`/`false`,
    /// or `deadline_ms` not a non-negative integer of milliseconds.
    pub(crate) fn parse(query: &str) -> Result<Self, ServerError> {
        let pairs = web::Query::<Vec<(String, String)>>::from_query(query)
            .map_err(|e| ServerError::InvalidQuery { param: "?", message: e.to_string() })?;
        let mut out = Self::default();
        for (key, value) in pairs.into_inner() {
            match key.as_str() {
                "explain" => out.explain = flag(&value, "?explain")?,
                "incremental" => out.incremental = flag(&value, "?incremental")?,
                "deadline_ms" => {
                    out.deadline_ms =
                        Some(value.parse().map_err(|_| ServerError::InvalidQuery {
                            param: "?deadline_ms",
                            message: format!("{value:?} is not a whole number of milliseconds ≥ 0"),
                        })?);
                }
                _ => {}
            }
        }
        Ok(out)
    }
}

/// `true` or `false`, else a 400 naming `param`.
fn flag(value: &str, param: &'static str) -> Result<bool, ServerError> {
    value.parse().map_err(|_| ServerError::InvalidQuery {
        param,
        message: format!("{value:?} is not true or false"),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn both_parameters_parse() {
        let q = PlaceQuery::parse("explain=true&deadline_ms=250&other=x").unwrap();
        assert_eq!(q, PlaceQuery { explain: true, deadline_ms: Some(250), incremental: false });
        assert!(PlaceQuery::parse("incremental=true").unwrap().incremental);
        assert_eq!(PlaceQuery::parse("").unwrap(), PlaceQuery::default());
    }

    #[test]
    fn bad_values_name_their_parameter() {
        for (query, path) in [
            ("explain=maybe", "?explain"),
            ("incremental=1", "?incremental"),
            ("deadline_ms=-1", "?deadline_ms"),
            ("deadline_ms=1.5", "?deadline_ms"),
            ("deadline_ms=", "?deadline_ms"),
        ] {
            let err = PlaceQuery::parse(query).unwrap_err();
            assert_eq!((err.code(), err.path()), ("invalid_query", path), "{query}");
        }
    }
}
