//! What a policy hands back to the master per job and receives again in the next snapshot
//! (`jobs[].delay`, `jobs[].shuffle_watcher`), and what it reports per job (`jobs[].utility`),
//! each declared as the policy's own type under one wire key. The snapshot carries them in the
//! generic [`placer_models::JobState`], the answer in `JobReport::state`, and a [`Placement`]
//! in [`Placement::job_state`]; nothing between the policy and the wire names them.
//!
//! [`Placement`]: crate::policy::Placement
//! [`Placement::job_state`]: crate::policy::Placement::job_state

use placer_models::{ModelError, PlaceRequest};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use std::any::TypeId;
use std::cell::OnceCell;
use std::collections::HashSet;
use std::marker::PhantomData;

use crate::settings::Documented;

/// A policy's per-job field on the wire.
pub trait JobField: Serialize + DeserializeOwned + Documented + 'static {
    /// The wire key, in `jobs[]` of the answer (and of the next snapshot when echoed).
    const KEY: &'static str;
    /// Whether the master sends it back (state), or it is reported only (`utility`).
    const ECHOED: bool;
    /// What the field means, for the schema.
    const DESCRIPTION: &'static str;

    /// Checks one job's value against the snapshot (its ranges, the ids it names); `path` is
    /// `jobs[i].KEY`.
    ///
    /// # Errors
    /// A [`ModelError`] at `path` or below it.
    fn check(&self, _cx: &Context<'_>, _path: &str) -> Result<(), ModelError> {
        Ok(())
    }
}

/// The snapshot a [`JobField::check`] runs against, with its rack ids indexed on first use.
pub struct Context<'a> {
    /// The snapshot.
    pub req: &'a PlaceRequest,
    racks: OnceCell<HashSet<&'a str>>,
}

impl<'a> Context<'a> {
    /// The context of `req`.
    pub fn new(req: &'a PlaceRequest) -> Self {
        Self { req, racks: OnceCell::new() }
    }

    /// Whether `cluster.racks` lists `id`. O(1) after an O(racks) first call.
    pub fn rack_known(&self, id: &str) -> bool {
        self.racks
            .get_or_init(|| self.req.cluster.racks.iter().map(|r| r.id.as_str()).collect())
            .contains(id)
    }
}

/// Job `j`'s value of `T`, if its snapshot sent one that parses. After [`crate::registry::check`]
/// every sent value parses.
///
/// # Complexity
/// O(bytes of the value).
pub fn read<T: JobField>(req: &PlaceRequest, j: usize) -> Option<T> {
    let raw = req.jobs.get(j)?.state.get(T::KEY)?;
    serde_json::from_str(raw.get()).ok()
}

/// Every job's value of `T` ([`read`]), in job order.
///
/// # Complexity
/// O(bytes of the values).
pub fn read_all<T: JobField>(req: &PlaceRequest) -> Vec<Option<T>> {
    (0..req.jobs.len()).map(|j| read(req, j)).collect()
}

/// Parses and checks every job's value of `T`.
///
/// # Complexity
/// O(bytes of the values) plus [`JobField::check`].
///
/// # Errors
/// [`ModelError::InvalidField`] at `jobs[i].KEY…` for a value of the wrong shape, else
/// [`JobField::check`]'s error.
pub fn parse_all<T: JobField>(cx: &Context<'_>) -> Result<(), ModelError> {
    for (i, job) in cx.req.jobs.iter().enumerate() {
        let Some(raw) = job.state.get(T::KEY) else { continue };
        let path = format!("jobs[{i}].{}", T::KEY);
        let mut de = serde_json::Deserializer::from_str(raw.get());
        let value: T = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let at = e.path().to_string();
            let path = if at == "." { path.clone() } else { format!("{path}.{at}") };
            ModelError::InvalidField { path, message: e.into_inner().to_string() }
        })?;
        value.check(cx, &path)?;
    }
    Ok(())
}

/// The values a policy decided for `T`'s key, one per job (`None` = omit the key for that
/// job), as [`crate::policy::Placement::job_state`] carries them.
pub fn values<T: JobField>(per_job: &[Option<T>]) -> Vec<Option<Value>> {
    per_job.iter().map(|v| v.as_ref().and_then(|v| serde_json::to_value(v).ok())).collect()
}

/// A per-job field as the registry sees it (object-safe).
pub trait Declared: Sync {
    /// The field's type, to check a field shared by several policies once.
    fn id(&self) -> TypeId;
    /// [`JobField::KEY`].
    fn key(&self) -> &'static str;
    /// [`JobField::ECHOED`].
    fn echoed(&self) -> bool;
    /// [`JobField::DESCRIPTION`].
    fn description(&self) -> &'static str;
    /// Parses and checks every job's value ([`parse_all`]).
    ///
    /// # Errors
    /// As [`parse_all`].
    fn check(&self, cx: &Context<'_>) -> Result<(), ModelError>;
    /// The field's JSON schema.
    #[cfg(feature = "openapi")]
    fn schema(&self) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>;
    /// The named schemas its schema refers to, for the document's components.
    #[cfg(feature = "openapi")]
    fn components(
        &self,
        out: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>)>,
    );
}

/// The declaration of the field `T`; a policy lists `&Field::<T>::OF`.
pub struct Field<T>(PhantomData<fn() -> T>);

impl<T> Field<T> {
    /// The declaration.
    pub const OF: Self = Self(PhantomData);
}

impl<T: JobField> Declared for Field<T> {
    fn id(&self) -> TypeId {
        TypeId::of::<T>()
    }
    fn key(&self) -> &'static str {
        T::KEY
    }
    fn echoed(&self) -> bool {
        T::ECHOED
    }
    fn description(&self) -> &'static str {
        T::DESCRIPTION
    }
    fn check(&self, cx: &Context<'_>) -> Result<(), ModelError> {
        parse_all::<T>(cx)
    }
    #[cfg(feature = "openapi")]
    fn schema(&self) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        <T as utoipa::PartialSchema>::schema()
    }
    #[cfg(feature = "openapi")]
    fn components(
        &self,
        out: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>)>,
    ) {
        <T as utoipa::ToSchema>::schemas(out);
    }
}

/// A job's value of `T` in an answer (`jobs[].KEY`), if present and of `T`'s shape: what a
/// master or a test reads back.
///
/// # Complexity
/// O(size of the value).
pub fn reported<T: JobField>(report: &placer_models::JobReport) -> Option<T> {
    report.state.get(T::KEY).and_then(|v| T::deserialize(v).ok())
}
