//! Fuzz target `extender` (docs/operations/kubernetes-extender.md; `ExtenderArgs`,
//! `ExtenderFilterResult` and `HostPriorityList` of `k8s.io/kube-scheduler/extender/v1`
//! types.go; quantities per the Kubernetes `resource.Quantity` docs): bytes → the extender's
//! body decoding → both verbs' answers, through `placer_server::fuzzing`, which runs what the
//! routes run once the body is read.
//!
//! The input is up to three bodies separated by a 0xFF byte (never in UTF-8 JSON), answered in
//! turn by one extender, so that racks learned from a `Nodes` call reach later calls. Every
//! other input is answered knowing an epoch that holds pool `etl` at its fair share.
//!
//! Checked, with the candidates read independently here (Go's case folding for ASCII field
//! names: ASCII case, the Kelvin sign for `k`, the long s for `s`; the key sorting last wins):
//! - no panic; a refusal is 4xx with a non-empty code and path, the same for both verbs, and
//!   `malformed_json` exactly when the body is not JSON;
//! - filter: every key of `ExtenderFilterResult` is written, `Error` is empty, `FailedNodes` is
//!   empty; the kept nodes are a subsequence of the candidates (in `Nodes` mode, the sent items
//!   unchanged, with the list's other keys echoed); every distinct candidate is either kept or
//!   in `FailedAndUnresolvableNodes` with a reason, never both, and nothing else is there;
//! - prioritize: one `{Host, Score}` per candidate, in the order sent, Score in 0..=10, and 10
//!   on every candidate named in `placer.io/replicas`;
//! - quantities (the whole input when it is short text, and every `cpu`, `memory` and
//!   `placer.io/input-bytes` string of a body): a parsed quantity has value = ⌈milli / 1000⌉
//!   (magnitudes, below saturation), the sign it was written with, canonical forms of its
//!   value that parse back to it, and, for plain decimal text, the value computed here exactly.
#![no_main]

use libfuzzer_sys::fuzz_target;
use placer_models::{PoolReport, SlotCounts};
use placer_server::epochs::EpochRecord;
use placer_server::fuzzing::{Extender, ExtenderVerb, Quantity, Refusal};
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// Separates the bodies of one input.
const SEPARATOR: u8 = 0xFF;
/// Bodies answered per input.
const MAX_BODIES: usize = 3;
/// Inputs up to this length are also read as one quantity.
const MAX_QUANTITY_TEXT: usize = 48;

fuzz_target!(|data: &[u8]| {
    if data.len() <= MAX_QUANTITY_TEXT {
        if let Ok(text) = std::str::from_utf8(data) {
            check_quantity(text);
        }
    }
    let extender = Extender::new();
    let record = held_record();
    let latest = (data.len() % 2 == 0).then_some(&record);
    for body in data.split(|&b| b == SEPARATOR).take(MAX_BODIES) {
        let json: Option<Value> = serde_json::from_slice(body).ok();
        if let Some(v) = &json {
            for_each_quantity(v, &mut check_quantity);
        }
        let filter = extender.call(body, ExtenderVerb::Filter, latest);
        let prioritize = extender.call(body, ExtenderVerb::Prioritize, latest);
        match (&filter, &prioritize) {
            (Ok(f), Ok(p)) => {
                let Some(call) = json.as_ref().and_then(read_call) else {
                    panic!("answered a body that is not ExtenderArgs: {}", lossy(body))
                };
                check_filter(&call, f, latest.is_some());
                check_prioritize(&call, p);
            }
            (Err(f), Err(p)) => {
                check_refusal(f, json.is_some());
                assert_eq!((f.code, &f.path), (p.code, &p.path), "the verbs refuse differently");
            }
            _ => panic!(
                "one verb answers, the other refuses: filter {:?}, prioritize {:?}",
                filter.as_ref().map(|b| lossy(b)),
                prioritize.as_ref().map(|b| lossy(b))
            ),
        }
    }
});

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// An epoch in which pool `etl` runs its fair share and wants more (held back by `filter`),
/// and pool `idle` got all it wanted (never held back).
fn held_record() -> EpochRecord {
    let counts = |map| SlotCounts { map, reduce: 0.0 };
    let pool = |id: &str, fair: f64, running: f64, demand: f64| PoolReport {
        id: id.into(),
        fair_share: Some(counts(fair)),
        running: counts(running),
        demand: counts(demand),
        running_after: counts(running),
        starvation: Default::default(),
    };
    EpochRecord {
        pools: vec![pool("etl", 4.0, 4.0, 10.0), pool("idle", 4.0, 2.0, 2.0)],
        ..EpochRecord::default()
    }
}

/// Whether Go's `encoding/json` fills struct field `name` (ASCII) from key `key`: equal under
/// simple case folding. The only non-ASCII characters folding to ASCII letters are the Kelvin
/// sign (k) and the long s (s).
fn folds(key: &str, name: &str) -> bool {
    let fold = |c: char| match c {
        '\u{212A}' => 'k',
        '\u{17F}' => 's',
        c if c.is_ascii() => c.to_ascii_lowercase(),
        _ => '\u{FFFD}',
    };
    key.chars().map(fold).eq(name.chars().map(|c| c.to_ascii_lowercase()))
}

/// Struct field `name` of `object`: the last key (in `serde_json`'s sorted order) folding to
/// it, `None` when absent or `null`.
fn field<'v>(object: &'v Map<String, Value>, name: &str) -> Option<&'v Value> {
    object.iter().rev().find(|(k, _)| folds(k, name)).map(|(_, v)| v).filter(|v| !v.is_null())
}

/// What a body asks, read independently of the server.
struct Call<'v> {
    /// `Nodes` mode: the list and its items; `None` in `NodeNames` mode.
    list: Option<(&'v Map<String, Value>, &'v [Value])>,
    /// The candidates' names, in the order sent.
    names: Vec<&'v str>,
    /// The pod's `placer.io/replicas` entries.
    replicas: BTreeSet<&'v str>,
    /// The pod's pool.
    pool: &'v str,
}

fn read_call(body: &Value) -> Option<Call<'_>> {
    let args = body.as_object()?;
    let pod = field(args, "Pod")?.as_object()?;
    let meta = field(pod, "metadata").and_then(Value::as_object);
    let annotations = meta.and_then(|m| field(m, "annotations")).and_then(Value::as_object);
    let annotation = |key: &str| annotations.and_then(|a| a.get(key)).and_then(Value::as_str);
    let replicas = annotation("placer.io/replicas")
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .collect();
    let namespace = meta
        .and_then(|m| field(m, "namespace"))
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .unwrap_or("default");
    let pool = annotation("placer.io/pool").map(str::trim).filter(|p| !p.is_empty());
    let pool = pool.unwrap_or(namespace);
    if let Some(list) = field(args, "Nodes") {
        let list = list.as_object()?;
        let items = match field(list, "items") {
            Some(items) => items.as_array()?.as_slice(),
            None => &[],
        };
        let names = items.iter().map(node_name).collect::<Option<Vec<_>>>()?;
        return Some(Call { list: Some((list, items)), names, replicas, pool });
    }
    let names = field(args, "NodeNames")?
        .as_array()?
        .iter()
        .map(|n| n.as_str().filter(|n| !n.is_empty()))
        .collect::<Option<Vec<_>>>()?;
    Some(Call { list: None, names, replicas, pool })
}

/// `metadata.name` of a Node object, when it has a non-empty one.
fn node_name(node: &Value) -> Option<&str> {
    let meta = field(node.as_object()?, "metadata")?.as_object()?;
    field(meta, "name")?.as_str().filter(|n| !n.is_empty())
}

fn check_refusal(r: &Refusal, is_json: bool) {
    assert!((400..500).contains(&r.status), "refused with status {}: {r:?}", r.status);
    assert!(!r.code.is_empty() && !r.path.is_empty(), "refusal without code or path: {r:?}");
    assert_eq!(r.code == "malformed_json", !is_json, "malformed_json iff not JSON: {r:?}");
}

fn check_filter(call: &Call<'_>, answer: &[u8], knows_epoch: bool) {
    let Ok(Value::Object(out)) = serde_json::from_slice::<Value>(answer) else {
        panic!("filter answer is not a JSON object: {}", lossy(answer))
    };
    let keys: Vec<&str> = out.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["Error", "FailedAndUnresolvableNodes", "FailedNodes", "NodeNames", "Nodes"],
        "filter answer keys"
    );
    assert_eq!(out["Error"], "", "filter Error");
    assert_eq!(out["FailedNodes"], Value::Object(Map::new()), "FailedNodes is always empty");
    let Some(failed) = out["FailedAndUnresolvableNodes"].as_object() else {
        panic!("FailedAndUnresolvableNodes is not an object")
    };
    let kept: Vec<&str> = match call.list {
        Some((list, items)) => {
            assert!(out["NodeNames"].is_null(), "NodeNames in Nodes mode");
            let Some(echo) = out["Nodes"].as_object() else { panic!("Nodes mode without Nodes") };
            for (k, v) in list {
                if !folds(k, "items") {
                    assert_eq!(echo.get(k), Some(v), "the list's key {k:?} is not echoed");
                }
            }
            let Some(kept) = echo.get("items").and_then(Value::as_array) else {
                panic!("Nodes.items is not an array")
            };
            // Each kept item is a sent item, unchanged, in the order sent.
            let mut next = 0;
            for item in kept {
                let Some(at) = items[next..].iter().position(|i| i == item) else {
                    panic!("kept item {item} is not a sent item (in order)")
                };
                next += at + 1;
            }
            kept.iter().map(|i| node_name(i).unwrap_or_default()).collect()
        }
        None => {
            assert!(out["Nodes"].is_null(), "Nodes in NodeNames mode");
            let Some(kept) = out["NodeNames"].as_array() else {
                panic!("NodeNames mode without NodeNames")
            };
            let kept: Vec<&str> = kept.iter().map(|n| n.as_str().unwrap_or_default()).collect();
            let mut rest = call.names.iter();
            for k in &kept {
                assert!(rest.any(|n| n == k), "kept name {k:?} is not a candidate (in order)");
            }
            kept
        }
    };
    let candidates: BTreeSet<&str> = call.names.iter().copied().collect();
    let kept_set: BTreeSet<&str> = kept.iter().copied().collect();
    for (name, why) in failed {
        assert!(candidates.contains(name.as_str()), "failed {name:?} is not a candidate");
        assert!(!kept_set.contains(name.as_str()), "{name:?} is both kept and failed");
        assert!(why.as_str().is_some_and(|w| !w.is_empty()), "{name:?} fails without a reason");
    }
    // A failing candidate may go without a reason once the reasons fill their budget (the
    // body's size, at least 64 KiB; docs/operations/kubernetes-extender.md).
    let reasons_bytes: usize = failed.iter().map(|(n, w)| n.len() + w.to_string().len() + 4).sum();
    for name in &candidates {
        assert!(
            kept_set.contains(name) || failed.contains_key(*name) || reasons_bytes > 60 << 10,
            "candidate {name:?} is neither kept nor failed"
        );
    }
    if !knows_epoch && call.list.is_none() {
        assert_eq!(kept, call.names, "NodeNames mode fails nodes only by fair share");
    }
    if knows_epoch && call.pool == "etl" {
        assert!(kept.is_empty(), "pool etl is held at its fair share, yet nodes pass");
    }
}

fn check_prioritize(call: &Call<'_>, answer: &[u8]) {
    let Ok(Value::Array(list)) = serde_json::from_slice::<Value>(answer) else {
        panic!("prioritize answer is not a JSON array: {}", lossy(answer))
    };
    assert_eq!(list.len(), call.names.len(), "one score per candidate");
    for (entry, name) in list.iter().zip(&call.names) {
        let host = entry.get("Host").and_then(Value::as_str);
        assert_eq!(host, Some(*name), "hosts in candidate order: {entry}");
        let Some(score) = entry.get("Score").and_then(Value::as_i64) else {
            panic!("no integer Score in {entry}")
        };
        assert!((0..=10).contains(&score), "score {score} of {name:?}");
        if call.replicas.contains(name) {
            assert_eq!(score, 10, "{name:?} holds a replica yet scores {score}");
        }
        assert_eq!(entry.as_object().map(Map::len), Some(2), "HostPriority keys: {entry}");
    }
}

/// Calls `f` on every string value under a key `cpu`, `memory` or `placer.io/input-bytes`.
fn for_each_quantity(v: &Value, f: &mut impl FnMut(&str)) {
    match v {
        Value::Object(map) => {
            for (k, x) in map {
                match x {
                    Value::String(s)
                        if matches!(k.as_str(), "cpu" | "memory" | "placer.io/input-bytes") =>
                    {
                        f(s.trim());
                    }
                    _ => for_each_quantity(x, f),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|x| for_each_quantity(x, f)),
        _ => {}
    }
}

fn parse(text: &str) -> Option<Quantity> {
    Quantity::parse(text).ok()
}

/// The quantity properties of the module docs on `text`.
fn check_quantity(text: &str) {
    let Some(q) = parse(text) else { return };
    let (v, m) = (q.value(), q.milli_value());
    let (va, ma) = (v.unsigned_abs(), m.unsigned_abs());
    let max = i64::MAX.unsigned_abs();
    if q.is_negative() {
        assert!(v < 0 && m < 0, "{text:?}: negative yet value {v}, milli {m}");
    } else {
        assert!(v >= 0 && m >= 0, "{text:?}: not negative yet value {v}, milli {m}");
        assert_eq!(v == 0, m == 0, "{text:?}: value {v}, milli {m}");
    }
    assert!(va <= max && ma <= max, "{text:?}: beyond ±i64::MAX");
    // value = ⌈|q|⌉ and milli = ⌈1000 |q|⌉ give value = ⌈milli / 1000⌉.
    if ma < max {
        assert_eq!(va, ma.div_ceil(1000), "{text:?}: value {v} vs milli {m}");
    } else {
        assert!(va >= max / 1000, "{text:?}: milli saturates, value {v} is too small");
    }
    // Canonical forms round-trip.
    if va < max {
        let plain = parse(&v.to_string()).map(|p| p.value());
        assert_eq!(plain, Some(v), "{text:?}: value {v} does not parse back");
        let thousand = v.checked_mul(1000).unwrap_or(if v < 0 { -i64::MAX } else { i64::MAX });
        let milli_of_plain = parse(&v.to_string()).map(|p| p.milli_value());
        assert_eq!(milli_of_plain, Some(thousand), "{text:?}: milli of {v}");
        if v % 1024 == 0 && v != 0 {
            let ki = parse(&format!("{}Ki", v / 1024)).map(|p| p.value());
            assert_eq!(ki, Some(v), "{text:?}: {}Ki", v / 1024);
        }
    }
    if ma < max {
        let back = parse(&format!("{m}m")).map(|p| p.milli_value());
        assert_eq!(back, Some(m), "{text:?}: {m}m does not parse back");
    }
    if let Some(exact) = exact_value(text) {
        let want = if exact > u128::from(max) { max } else { exact as u64 };
        assert_eq!(va, want, "{text:?}: value {v}, computed {exact}");
    }
}

/// ⌈|q|⌉ of `text` computed here, for `[+-] digits [. digits] suffix` with a suffix of the
/// Kubernetes docs (`n u m k M G T P E`, `Ki … Ei`, `e±N`) and at most 30 digits; `None` when
/// the text has another form or the arithmetic leaves u128.
fn exact_value(text: &str) -> Option<u128> {
    let body = text.strip_prefix(['+', '-']).unwrap_or(text);
    let split = body.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(body.len());
    let (number, suffix) = body.split_at(split);
    let (int, frac) = number.split_once('.').unwrap_or((number, ""));
    if int.len() + frac.len() > 30 || frac.contains('.') {
        return None;
    }
    let (exp10, exp2): (i32, u32) = match suffix {
        "n" => (-9, 0),
        "u" => (-6, 0),
        "m" => (-3, 0),
        "" => (0, 0),
        "k" => (3, 0),
        "M" => (6, 0),
        "G" => (9, 0),
        "T" => (12, 0),
        "P" => (15, 0),
        "E" => (18, 0),
        "Ki" => (0, 10),
        "Mi" => (0, 20),
        "Gi" => (0, 30),
        "Ti" => (0, 40),
        "Pi" => (0, 50),
        "Ei" => (0, 60),
        s => {
            let e = s.strip_prefix(['e', 'E'])?;
            let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
            if digits.is_empty() || digits.len() > 3 || !digits.bytes().all(|b| b.is_ascii_digit())
            {
                return None;
            }
            (e.parse().ok()?, 0)
        }
    };
    let digits: String = format!("{int}{frac}");
    let n: u128 = if digits.is_empty() { 0 } else { digits.parse().ok()? };
    let n = n.checked_mul(1u128.checked_shl(exp2)?)?;
    let k = exp10 - frac.len() as i32;
    if k >= 0 {
        n.checked_mul(10u128.checked_pow(k as u32)?)
    } else {
        let p = 10u128.checked_pow((-k) as u32)?;
        Some(n.div_ceil(p))
    }
}
