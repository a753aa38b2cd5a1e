//! A policy's knobs (the keys of the snapshot's `policy` object it reads), declared as typed
//! structs with their defaults and their checks next to them, and read once per epoch: the
//! shape of kube-scheduler's per-plugin args (one typed struct per plugin, validated once).
//!
//! A knob group is a [`Settings`] struct: serde gives each key its default, [`Settings::check`]
//! its domain. A policy lists the groups it reads ([`crate::Policy::settings`]); the pipeline
//! checks every registered group on every snapshot ([`crate::registry::check`]), so a bad
//! value is refused whichever algorithm runs, and each knob's domain is written once. The
//! server's configured defaults, the simulator's flags and the what-if sweep keys all set keys
//! of the same `policy` object and are checked by the same groups.

use placer_models::{ModelError, Policy};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};
use std::any::TypeId;
use std::marker::PhantomData;

/// A group of knobs read from the `policy` object: its fields are wire keys, `Default` gives
/// their defaults (serde's `#[serde(default)]` on the struct), [`Settings::check`] their
/// domains.
pub trait Settings: Serialize + DeserializeOwned + Default + Documented + 'static {
    /// The group's name in messages and documents (`locality`, `delay waits`, …).
    const NAME: &'static str;

    /// Checks each knob's domain.
    ///
    /// # Errors
    /// [`ModelError::InvalidNumber`] (or another model error) at `policy.KEY`.
    fn check(&self) -> Result<(), ModelError> {
        Ok(())
    }
}

/// Reads and checks a knob group from `policy`: keys it omits take their defaults, keys of
/// other groups are ignored.
///
/// # Complexity
/// O(keys of `policy`).
///
/// # Errors
/// [`ModelError::InvalidField`] at `policy.KEY` for a value of the wrong type, else
/// [`Settings::check`]'s error.
///
/// # Examples
/// ```
/// use placer_models::Policy;
/// use placer_solver::settings::parse;
/// use placer_solver::LocalityWeight;
/// let mut policy = Policy::default();
/// assert_eq!(parse::<LocalityWeight>(&policy).unwrap().alpha, 1.0);
/// policy.set("alpha", -1.0);
/// assert_eq!(parse::<LocalityWeight>(&policy).unwrap_err().path(), "policy.alpha");
/// ```
pub fn parse<T: Settings>(policy: &Policy) -> Result<T, ModelError> {
    let t: T = serde_path_to_error::deserialize(&policy.settings).map_err(|e| {
        let at = e.path().to_string();
        let path = if at == "." { "policy".to_owned() } else { format!("policy.{at}") };
        ModelError::InvalidField { path, message: e.into_inner().to_string() }
    })?;
    t.check()?;
    Ok(t)
}

/// Reads a knob group from a policy the pipeline has checked ([`crate::registry::check`]);
/// a group that does not parse (only possible unchecked) is its defaults.
///
/// # Complexity
/// O(keys of `policy`).
pub fn read<T: Settings>(policy: &Policy) -> T {
    parse(policy).unwrap_or_default()
}

/// A knob group as the registry sees it (object-safe, so that a policy can list its groups).
pub trait Declared: Sync {
    /// The group's type, to check a group shared by several policies once.
    fn id(&self) -> TypeId;
    /// [`Settings::NAME`].
    fn name(&self) -> &'static str;
    /// Parses and checks the group from `policy` ([`parse`]).
    ///
    /// # Errors
    /// As [`parse`].
    fn check(&self, policy: &Policy) -> Result<(), ModelError>;
    /// The group's keys with their defaults, as JSON.
    fn defaults(&self) -> Map<String, Value>;
    /// The group's keys as `policy` sets them, defaults filled in ([`read`]), as JSON.
    fn resolved(&self, policy: &Policy) -> Map<String, Value>;
    /// The group's JSON schema: one property per key, with its description and default.
    #[cfg(feature = "openapi")]
    fn schema(&self) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>;
    /// The named schemas its schema refers to, for the document's components.
    #[cfg(feature = "openapi")]
    fn components(
        &self,
        out: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>)>,
    );
}

/// The declaration of the knob group `T`; a policy lists `&Knobs::<T>::OF`.
pub struct Knobs<T>(PhantomData<fn() -> T>);

impl<T> Knobs<T> {
    /// The declaration.
    pub const OF: Self = Self(PhantomData);
}

impl<T: Settings> Declared for Knobs<T> {
    fn id(&self) -> TypeId {
        TypeId::of::<T>()
    }
    fn name(&self) -> &'static str {
        T::NAME
    }
    fn check(&self, policy: &Policy) -> Result<(), ModelError> {
        parse::<T>(policy).map(drop)
    }
    fn defaults(&self) -> Map<String, Value> {
        defaults_of(&T::default())
    }
    fn resolved(&self, policy: &Policy) -> Map<String, Value> {
        defaults_of(&read::<T>(policy))
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

/// With the `openapi` feature, every wire type of a policy has a schema.
#[cfg(feature = "openapi")]
pub trait Documented: utoipa::ToSchema {}
#[cfg(feature = "openapi")]
impl<T: utoipa::ToSchema> Documented for T {}
/// With the `openapi` feature, every wire type of a policy has a schema.
#[cfg(not(feature = "openapi"))]
pub trait Documented {}
#[cfg(not(feature = "openapi"))]
impl<T> Documented for T {}

fn defaults_of<T: Serialize>(t: &T) -> Map<String, Value> {
    match serde_json::to_value(t) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}
