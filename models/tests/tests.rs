//! The integration tests of `placer-models`, in one binary: `validation` (every rule of the v1
//! schema with its error code and JSON path, docs/wire-schema.md, "Errors") and
//! `revalidation` (validation by difference after random deltas equals validation in full).
#![allow(clippy::unwrap_used, clippy::panic)]

mod revalidation;
mod validation;
