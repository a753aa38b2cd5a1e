//! A session's delta and how it rebuilds the full snapshot (docs/wire-schema.md, "Sessions"):
//! `{"base_epoch", "changes": {now_s?, policy?, network?, upsert?, remove?}}`, applied as
//! remove, then upsert, then `now_s`, `policy` and `network`. The stored snapshot is edited as
//! JSON text: its members and array elements are kept as raw text ([`RawValue`]) and only the
//! arrays a delta touches are split into elements, so the equivalent full snapshot is well
//! defined (the original order, new ids appended) and parsed once, by the same path as
//! `POST /place`.

use crate::error::ServerError;
use placer_models::ModelError;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::marker::PhantomData;

/// `T` read from a JSON object only: serde's derived structs also take an array of their
/// fields in order, which the delta's schema does not allow.
#[derive(Debug, Default)]
pub(crate) struct ObjectOnly<T>(pub T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ObjectOnly<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Object<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Object<T> {
            type Value = T;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(serde::de::value::MapAccessDeserializer::new(map))
            }
        }
        deserializer.deserialize_map(Object(PhantomData)).map(ObjectOnly)
    }
}

/// The body of `POST /v1/sessions/{id}/place`. Unknown keys are refused (a misspelt kind
/// would otherwise change nothing, silently).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Delta<'a> {
    /// The epoch the delta is relative to: the session's current one.
    pub base_epoch: u64,
    /// What changed; none: the same snapshot again.
    #[serde(default, borrow)]
    pub changes: ObjectOnly<Changes<'a>>,
}

/// What changed since `base_epoch`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Changes<'a> {
    /// The new `now_s`.
    #[serde(default, borrow)]
    now_s: Option<&'a RawValue>,
    /// The new `policy`, replacing the whole object.
    #[serde(default, borrow)]
    policy: Option<&'a RawValue>,
    /// The new `cluster.network`, replacing the whole object.
    #[serde(default, borrow)]
    network: Option<&'a RawValue>,
    /// Full objects by kind: an id held is replaced in place, a new one appended.
    #[serde(default, borrow)]
    upsert: ObjectOnly<Upsert<'a>>,
    /// Ids by kind; an id not held is ignored.
    #[serde(default)]
    remove: ObjectOnly<Remove>,
}

/// Upserted objects by kind.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Upsert<'a> {
    #[serde(default, borrow)]
    racks: Vec<&'a RawValue>,
    #[serde(default, borrow)]
    nodes: Vec<&'a RawValue>,
    #[serde(default, borrow)]
    pools: Vec<&'a RawValue>,
    #[serde(default, borrow)]
    users: Vec<&'a RawValue>,
    #[serde(default, borrow)]
    jobs: Vec<&'a RawValue>,
    #[serde(default, borrow)]
    running: Vec<&'a RawValue>,
    #[serde(default, borrow)]
    pending: Vec<&'a RawValue>,
}

/// Removed ids by kind.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Remove {
    #[serde(default)]
    racks: Vec<String>,
    #[serde(default)]
    nodes: Vec<String>,
    #[serde(default)]
    pools: Vec<String>,
    #[serde(default)]
    users: Vec<String>,
    #[serde(default)]
    jobs: Vec<String>,
    #[serde(default)]
    running: Vec<String>,
    #[serde(default)]
    pending: Vec<String>,
}

/// Parses a delta body, with the JSON path of a shape error (`changes.upsert.nodes[0]`).
///
/// # Errors
/// 400 `malformed_json` or `invalid_field`, as a snapshot's.
///
/// # Complexity
/// O(body).
pub(crate) fn parse(body: &[u8]) -> Result<Delta<'_>, ServerError> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let ObjectOnly(delta) = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let path = if path.is_empty() || path == "." { "$".to_owned() } else { path };
        let inner = e.into_inner();
        let message = inner.to_string();
        if inner.is_data() {
            ModelError::InvalidField { path, message }
        } else {
            ModelError::MalformedJson { path, message }
        }
    })?;
    de.end()
        .map_err(|e| ModelError::MalformedJson { path: "$".to_owned(), message: e.to_string() })?;
    let Delta { changes: ObjectOnly(changes), .. } = &delta;
    for (key, value, number) in [
        ("now_s", changes.now_s, true),
        ("policy", changes.policy, false),
        ("network", changes.network, false),
    ] {
        let Some(text) = value.map(RawValue::get) else { continue };
        let fits = if number {
            text.starts_with(|c: char| c == '-' || c.is_ascii_digit())
        } else {
            text.starts_with('{')
        };
        if !fits {
            let expected = if number { "a number" } else { "an object" };
            return Err(ModelError::InvalidField {
                path: format!("changes.{key}"),
                message: format!("expected {expected}, found {text}"),
            }
            .into());
        }
    }
    Ok(delta)
}

/// A member of the rebuilt snapshot: kept as sent, an edited array, or an edited object.
#[derive(Serialize)]
#[serde(untagged)]
enum Member<'a> {
    Raw(&'a RawValue),
    List(Vec<&'a RawValue>),
    Object(BTreeMap<String, Member<'a>>),
}

/// Only the `id` of an object.
#[derive(Deserialize)]
struct IdOf<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
}

/// The id of an array element: its string `id` if it is an object that has one.
fn id_of(element: &RawValue) -> Option<Cow<'_, str>> {
    let text = element.get();
    if !text.trim_start().starts_with('{') {
        return None;
    }
    serde_json::from_str::<IdOf<'_>>(text).ok().map(|i| i.id)
}

/// The members of a JSON object's text.
fn members<'a>(text: &'a str, path: &str) -> Result<BTreeMap<String, Member<'a>>, ServerError> {
    let raw: BTreeMap<String, &RawValue> = serde_json::from_str(text).map_err(|e| {
        ModelError::InvalidField { path: path.to_owned(), message: format!("not an object: {e}") }
    })?;
    Ok(raw.into_iter().map(|(k, v)| (k, Member::Raw(v))).collect())
}

/// Removes the elements of `object[key]` whose id is in `remove`, then upserts `upsert` by
/// id. An untouched array stays as sent; `path` names `object` in the snapshot.
fn edit<'a>(
    object: &mut BTreeMap<String, Member<'a>>,
    key: &str,
    path: &str,
    remove: &[String],
    upsert: &[&'a RawValue],
) -> Result<(), ServerError> {
    if remove.is_empty() && upsert.is_empty() {
        return Ok(());
    }
    let mut list: Vec<&'a RawValue> = match object.remove(key) {
        None => Vec::new(),
        Some(Member::Raw(raw)) => serde_json::from_str(raw.get()).map_err(|e| {
            ModelError::InvalidField { path: format!("{path}{key}"), message: e.to_string() }
        })?,
        Some(Member::List(list)) => list,
        Some(Member::Object(_)) => {
            return Err(ModelError::InvalidField {
                path: format!("{path}{key}"),
                message: "not an array".to_owned(),
            }
            .into())
        }
    };
    if !remove.is_empty() {
        let gone: HashSet<&str> = remove.iter().map(String::as_str).collect();
        list.retain(|e| id_of(e).is_none_or(|id| !gone.contains(id.as_ref())));
    }
    if !upsert.is_empty() {
        let mut at: HashMap<Cow<'a, str>, usize> = HashMap::with_capacity(list.len());
        for (i, &e) in list.iter().enumerate() {
            if let Some(id) = id_of(e) {
                at.entry(id).or_insert(i);
            }
        }
        for (i, &item) in upsert.iter().enumerate() {
            let Some(id) = id_of(item) else {
                return Err(ModelError::InvalidField {
                    path: format!("changes.upsert.{key}[{i}].id"),
                    message: "an upserted entry is an object with a string `id`".to_owned(),
                }
                .into());
            };
            match at.get(&id) {
                Some(&j) => list[j] = item,
                None => {
                    at.insert(id, list.len());
                    list.push(item);
                }
            }
        }
    }
    object.insert(key.to_owned(), Member::List(list));
    Ok(())
}

/// The JSON text of `snapshot` (a v1 snapshot's text) with `changes` applied: remove, then
/// upsert (racks and nodes in `cluster`, the other kinds at the top level), then `now_s`,
/// `policy` and `cluster.network`. Objects' members come out in key order; arrays keep their
/// order, new ids appended in the delta's order; every value not touched is its text as sent.
/// Nothing is checked beyond what locating ids needs: the caller parses and validates the
/// result as a snapshot.
///
/// # Errors
/// 400 `invalid_field` for an upserted entry without a string `id`, or a snapshot member of
/// the wrong JSON type.
///
/// # Complexity
/// O(snapshot + delta) expected: one split of each touched array, one hash per element.
pub(crate) fn apply(snapshot: &[u8], changes: &Changes<'_>) -> Result<Vec<u8>, ServerError> {
    let text = std::str::from_utf8(snapshot)
        .map_err(|e| ModelError::MalformedJson { path: "$".to_owned(), message: e.to_string() })?;
    let mut top = members(text, "$")?;
    let mut cluster = match top.remove("cluster") {
        Some(Member::Raw(raw)) => members(raw.get(), "cluster")?,
        _ => BTreeMap::new(),
    };
    let (up, rm) = (&changes.upsert.0, &changes.remove.0);
    edit(&mut cluster, "racks", "cluster.", &rm.racks, &up.racks)?;
    edit(&mut cluster, "nodes", "cluster.", &rm.nodes, &up.nodes)?;
    if let Some(network) = changes.network {
        cluster.insert("network".to_owned(), Member::Raw(network));
    }
    top.insert("cluster".to_owned(), Member::Object(cluster));
    edit(&mut top, "pools", "", &rm.pools, &up.pools)?;
    edit(&mut top, "users", "", &rm.users, &up.users)?;
    edit(&mut top, "jobs", "", &rm.jobs, &up.jobs)?;
    edit(&mut top, "running", "", &rm.running, &up.running)?;
    edit(&mut top, "pending", "", &rm.pending, &up.pending)?;
    if let Some(now_s) = changes.now_s {
        top.insert("now_s".to_owned(), Member::Raw(now_s));
    }
    if let Some(policy) = changes.policy {
        top.insert("policy".to_owned(), Member::Raw(policy));
    }
    let mut out = serde_json::to_vec(&top)
        .map_err(|e| ServerError::Internal { message: format!("rebuilding a snapshot: {e}") })?;
    out.shrink_to_fit();
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn applied(snapshot: Value, delta: Value) -> Value {
        let body = serde_json::to_vec(&delta).unwrap();
        let delta = parse(&body).unwrap();
        let text = serde_json::to_vec(&snapshot).unwrap();
        serde_json::from_slice(&apply(&text, &delta.changes.0).unwrap()).unwrap()
    }

    #[test]
    fn remove_then_upsert_keeps_order_and_appends_new_ids() {
        let snapshot = json!({"schema_version": 1, "cluster": {"racks": [{"id": "r"}]},
            "pending": [{"id": "a", "x": 1}, {"id": "b"}, {"id": "c"}]});
        let delta = json!({"base_epoch": 0, "changes": {
            "remove": {"pending": ["b", "zz"]},
            "upsert": {"pending": [{"id": "c", "x": 2}, {"id": "d"}, {"id": "b"}],
                       "nodes": [{"id": "n", "rack": "r"}]},
            "now_s": 5, "network": {"rack_mbps": 10}}});
        let out = applied(snapshot, delta);
        assert_eq!(
            out["pending"],
            json!([{"id": "a", "x": 1}, {"id": "c", "x": 2}, {"id": "d"}, {"id": "b"}])
        );
        assert_eq!(out["cluster"]["nodes"], json!([{"id": "n", "rack": "r"}]));
        assert_eq!(out["cluster"]["racks"], json!([{"id": "r"}]));
        assert_eq!(out["cluster"]["network"], json!({"rack_mbps": 10}));
        assert_eq!((out["now_s"].clone(), out["schema_version"].clone()), (json!(5), json!(1)));
    }

    #[test]
    fn an_empty_delta_leaves_the_snapshot_equal() {
        let snapshot = json!({"schema_version": 1, "cluster": {}, "jobs": [{"id": "j"}],
            "policy": {"algorithm": "lsap", "extra": [1, 2.5]}});
        assert_eq!(applied(snapshot.clone(), json!({"base_epoch": 3})), snapshot);
    }

    #[test]
    fn an_upsert_without_an_id_names_its_path() {
        let body = br#"{"base_epoch":0,"changes":{"upsert":{"jobs":[{"id":"j"},{"pool":"p"}]}}}"#;
        let delta = parse(body).unwrap();
        let err = apply(br#"{"schema_version":1,"cluster":{}}"#, &delta.changes.0).unwrap_err();
        assert_eq!((err.code(), err.path()), ("invalid_field", "changes.upsert.jobs[1].id"));
    }

    #[test]
    fn a_misspelt_kind_is_refused_with_its_path() {
        let err = parse(br#"{"base_epoch":0,"changes":{"upsert":{"node":[]}}}"#).unwrap_err();
        assert_eq!((err.code(), err.path()), ("invalid_field", "changes.upsert.node"));
        let err = parse(br#"{"changes":{}}"#).unwrap_err();
        assert_eq!(err.code(), "invalid_field");
        assert_eq!(parse(b"{").unwrap_err().code(), "malformed_json");
        // Arrays of the fields in order (which serde's structs would take) are refused.
        for (body, path) in [
            (&br#"[0]"#[..], "$"),
            (br#"{"base_epoch":0,"changes":[null,null]}"#, "changes"),
            (br#"{"base_epoch":0,"changes":{"remove":[[]]}}"#, "changes.remove"),
            (br#"{"base_epoch":0,"changes":{"policy":[1]}}"#, "changes.policy"),
            (br#"{"base_epoch":0,"changes":{"now_s":"1"}}"#, "changes.now_s"),
            (br#"{"base_epoch":0,"changes":{"network":3}}"#, "changes.network"),
        ] {
            let err = parse(body).unwrap_err();
            assert_eq!((err.code(), err.path()), ("invalid_field", path), "{err}");
        }
    }
}
