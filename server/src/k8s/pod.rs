//! What placer reads of the pod being scheduled (`k8s.io/api/core/v1` Pod):
//! its input, pool and resource requests.
//!
//! - Input: annotation `placer.io/replicas`, the nodes holding a replica of its input block,
//!   comma-separated (spaces around names and empty entries are ignored, repeats count once);
//!   annotation `placer.io/input-bytes`, the block's size as a Kubernetes quantity (`134217728`,
//!   `128Mi`), rounded up to whole bytes. Without `input-bytes` a pod that names replicas reads
//!   one HDFS block, 128 MiB (`dfs.blocksize`'s default in Hadoop's hdfs-default.xml), so that
//!   the replicas alone give it a locality preference.
//! - Pool: annotation `placer.io/pool`, else the pod's namespace, else `default` (the namespace
//!   the API server gives a pod created without one).
//! - Requests: the effective request of k8s.io/component-helpers `resource.PodRequests`, as
//!   the scheduler's NodeResourcesFit computes it: the sum over `spec.containers` and the
//!   sidecars (`initContainers` with `restartPolicy: Always`), or, when larger, the peak of an
//!   init container (its request plus the sidecars started before it), per resource; plus
//!   `spec.overhead`. Only `cpu` (in millicores) and `memory` (in bytes) are read. Requests are
//!   read as sent: the API server has already defaulted missing requests to the limits.

use super::go_json::{array_field, object, object_field, string_field, string_map_field, Path};
use super::quantity::Quantity;
use crate::error::ServerError;
use serde_json::{Map, Value};

/// Annotation naming the nodes that hold the pod's input block.
pub const REPLICAS_ANNOTATION: &str = "placer.io/replicas";
/// Annotation giving the size of the pod's input block.
pub const INPUT_BYTES_ANNOTATION: &str = "placer.io/input-bytes";
/// Annotation naming the pod's pool.
pub const POOL_ANNOTATION: &str = "placer.io/pool";
/// Input size of a pod that names replicas but no size: one 128 MiB HDFS block.
pub const DEFAULT_INPUT_BYTES: u64 = 128 << 20;
/// The namespace of a pod that names none.
const DEFAULT_NAMESPACE: &str = "default";

/// CPU and memory amounts: millicores and bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Amounts {
    /// Millicores.
    pub cpu_milli: i64,
    /// Bytes.
    pub memory_bytes: i64,
}

impl Amounts {
    fn plus(self, other: Amounts) -> Amounts {
        Amounts {
            cpu_milli: self.cpu_milli.saturating_add(other.cpu_milli),
            memory_bytes: self.memory_bytes.saturating_add(other.memory_bytes),
        }
    }

    fn max(self, other: Amounts) -> Amounts {
        Amounts {
            cpu_milli: self.cpu_milli.max(other.cpu_milli),
            memory_bytes: self.memory_bytes.max(other.memory_bytes),
        }
    }
}

/// The pod as placer sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodInput {
    /// `namespace/name`, for messages.
    pub name: String,
    /// Its pool.
    pub pool: String,
    /// Nodes holding its input block, in annotation order, distinct.
    pub replicas: Vec<String>,
    /// Bytes of its input block.
    pub input_bytes: u64,
    /// Its effective requests.
    pub requests: Amounts,
}

/// Reads the pod at `path` (`Pod`).
///
/// # Complexity
/// O(size of the pod object).
///
/// # Errors
/// `invalid_field` (400) for a field of the wrong type, a malformed quantity or a negative
/// one, or a malformed `placer.io/input-bytes`.
pub fn read_pod(pod: &Map<String, Value>, path: &Path<'_>) -> Result<PodInput, ServerError> {
    let empty = Map::new();
    let meta = object_field(pod, "metadata", path)?.unwrap_or(&empty);
    let meta_path = path.field("metadata");
    let name = string_field(meta, "name", &meta_path)?.unwrap_or("");
    let namespace = string_field(meta, "namespace", &meta_path)?
        .filter(|n| !n.is_empty())
        .unwrap_or(DEFAULT_NAMESPACE);
    let annotations = string_map_field(meta, "annotations", &meta_path)?.unwrap_or(&empty);
    let annotations_path = meta_path.field("annotations");
    let annotation = |key: &str| annotations.get(key).and_then(Value::as_str);

    let pool = annotation(POOL_ANNOTATION).map(str::trim).filter(|p| !p.is_empty());
    let replicas = distinct_replicas(annotation(REPLICAS_ANNOTATION).unwrap_or(""));
    let input_bytes = match annotation(INPUT_BYTES_ANNOTATION) {
        Some(text) => {
            let here = annotations_path.key(INPUT_BYTES_ANNOTATION);
            let q = Quantity::parse(text.trim()).map_err(|e| here.error(e))?;
            if q.is_negative() {
                return Err(here.error(format!("{text:?} is negative")));
            }
            q.value().unsigned_abs()
        }
        None if replicas.is_empty() => 0,
        None => DEFAULT_INPUT_BYTES,
    };
    let spec = object_field(pod, "spec", path)?.unwrap_or(&empty);
    let requests = effective_requests(spec, &path.field("spec"))?;
    Ok(PodInput {
        name: format!("{namespace}/{name}"),
        pool: pool.unwrap_or(namespace).to_owned(),
        replicas,
        input_bytes,
        requests,
    })
}

/// The node names of a `placer.io/replicas` value: comma-separated, trimmed, empty entries
/// skipped, each name once, in first-seen order.
///
/// # Complexity
/// O(len) expected ([`distinct`]).
fn distinct_replicas(annotation: &str) -> Vec<String> {
    distinct(annotation.split(',').map(str::trim).filter(|node| !node.is_empty()))
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// The items of `items`, each once, in first-seen order.
///
/// # Complexity
/// O(n) expected: one hash set of the items seen (equality is compared on hash collisions
/// only).
fn distinct<T: Eq + std::hash::Hash + Copy>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut seen = std::collections::HashSet::new();
    items.filter(|item| seen.insert(*item)).collect()
}

/// `resource.PodRequests` for cpu and memory (see the module docs).
fn effective_requests(spec: &Map<String, Value>, path: &Path<'_>) -> Result<Amounts, ServerError> {
    let mut sum = Amounts::default();
    let containers_path = path.field("containers");
    for (i, c) in array_field(spec, "containers", path)?.unwrap_or(&[]).iter().enumerate() {
        let here = containers_path.index(i);
        sum = sum.plus(container_requests(object(c, &here)?, &here)?);
    }
    let mut sidecars = Amounts::default();
    let mut init_peak = Amounts::default();
    let init_path = path.field("initContainers");
    for (i, c) in array_field(spec, "initContainers", path)?.unwrap_or(&[]).iter().enumerate() {
        let here = init_path.index(i);
        let c = object(c, &here)?;
        let requests = container_requests(c, &here)?;
        let peak = if string_field(c, "restartPolicy", &here)? == Some("Always") {
            sum = sum.plus(requests);
            sidecars = sidecars.plus(requests);
            sidecars
        } else {
            requests.plus(sidecars)
        };
        init_peak = init_peak.max(peak);
    }
    let overhead = match object_field(spec, "overhead", path)? {
        Some(list) => amounts(list, &path.field("overhead"))?,
        None => Amounts::default(),
    };
    Ok(sum.max(init_peak).plus(overhead))
}

/// A container's `resources.requests`.
fn container_requests(c: &Map<String, Value>, path: &Path<'_>) -> Result<Amounts, ServerError> {
    let Some(resources) = object_field(c, "resources", path)? else {
        return Ok(Amounts::default());
    };
    let here = path.field("resources");
    match object_field(resources, "requests", &here)? {
        Some(list) => amounts(list, &here.field("requests")),
        None => Ok(Amounts::default()),
    }
}

/// The cpu and memory of a `v1.ResourceList` (absent = 0).
///
/// # Errors
/// `invalid_field` for a malformed or negative quantity.
pub fn amounts(list: &Map<String, Value>, path: &Path<'_>) -> Result<Amounts, ServerError> {
    let cpu = quantity(list, "cpu", path)?.map_or(0, |q| q.milli_value());
    let memory = quantity(list, "memory", path)?.map_or(0, |q| q.value());
    Ok(Amounts { cpu_milli: cpu, memory_bytes: memory })
}

/// Entry `name` of a resource list as a quantity, `None` when absent or `null`. Like Go's
/// `Quantity.UnmarshalJSON`, a JSON number is read as the quantity of its decimal text.
fn quantity(
    list: &Map<String, Value>,
    name: &'static str,
    path: &Path<'_>,
) -> Result<Option<Quantity>, ServerError> {
    let here = path.key(name);
    let text = match list.get(name) {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(s)) => s.trim().to_owned(),
        Some(Value::Number(n)) => n.to_string(),
        Some(_) => return Err(here.error("expected a quantity (a string such as \"500m\")")),
    };
    let q = Quantity::parse(&text).map_err(|e| here.error(e))?;
    if q.is_negative() {
        return Err(here.error(format!("{text:?} is negative")));
    }
    Ok(Some(q))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(v: Value) -> Result<PodInput, ServerError> {
        read_pod(v.as_object().unwrap(), &Path::Root.field("Pod"))
    }

    fn requests(spec: Value) -> Amounts {
        pod(json!({"spec": spec})).unwrap().requests
    }

    fn res(cpu: &str, memory: &str) -> Value {
        json!({"resources": {"requests": {"cpu": cpu, "memory": memory}}})
    }

    #[test]
    fn annotations_give_input_and_pool() {
        let p = pod(json!({"metadata": {"name": "m-0", "namespace": "etl", "annotations": {
            "placer.io/replicas": " n1, n2,,n1 , n3", "placer.io/input-bytes": "64Mi"}}}))
        .unwrap();
        assert_eq!(p.name, "etl/m-0");
        assert_eq!(p.pool, "etl");
        assert_eq!(p.replicas, ["n1", "n2", "n3"]);
        assert_eq!(p.input_bytes, 64 << 20);
        let p = pod(json!({"metadata": {"annotations": {"placer.io/pool": "gold",
            "placer.io/replicas": "n1"}}}))
        .unwrap();
        assert_eq!((p.pool.as_str(), p.input_bytes), ("gold", DEFAULT_INPUT_BYTES));
        let p = pod(json!({})).unwrap();
        assert_eq!((p.pool.as_str(), p.input_bytes, p.replicas.len()), ("default", 0, 0));
    }

    /// An item that counts how often it is compared.
    #[derive(Clone, Copy)]
    struct Counted<'c>(u32, &'c std::cell::Cell<u64>);

    impl PartialEq for Counted<'_> {
        fn eq(&self, other: &Self) -> bool {
            self.1.set(self.1.get() + 1);
            self.0 == other.0
        }
    }
    impl Eq for Counted<'_> {}
    impl std::hash::Hash for Counted<'_> {
        fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
            self.0.hash(state);
        }
    }

    /// 80,000 distinct names (about 1 MB) once took 24.7 s to deduplicate: each name was
    /// compared with every name kept before it, n²/2 = 3.2 · 10⁹ comparisons. Now each is
    /// compared only on a hash collision: the count stays linear.
    #[test]
    fn replicas_deduplicate_with_a_linear_number_of_comparisons() {
        assert_eq!(distinct_replicas(" b, a,,b , c,a"), ["b", "a", "c"]);
        let compared = std::cell::Cell::new(0);
        let n = 80_000u32;
        let items = (0..n).chain(0..n).map(|i| Counted(i, &compared));
        let out = distinct(items);
        assert_eq!(out.len(), n as usize);
        assert!(out.iter().enumerate().all(|(i, c)| c.0 == i as u32));
        assert!(compared.get() <= 4 * u64::from(n), "{} comparisons", compared.get());
    }

    #[test]
    fn bad_input_bytes_are_400_at_their_annotation() {
        for bad in ["lots", "-5", "1e"] {
            let e = pod(json!({"metadata": {"annotations": {"placer.io/input-bytes": bad}}}))
                .unwrap_err();
            assert_eq!(e.code(), "invalid_field");
            assert_eq!(e.path(), r#"Pod.metadata.annotations["placer.io/input-bytes"]"#);
        }
    }

    /// component-helpers `PodRequests`: containers add up; a plain init container counts by
    /// its peak; sidecars add to the containers and to the init containers after them.
    #[test]
    fn effective_requests_follow_pod_requests() {
        let two = requests(json!({"containers": [res("500m", "1Gi"), res("1", "512Mi")]}));
        assert_eq!(two, Amounts { cpu_milli: 1500, memory_bytes: 3 << 29 });
        // An init container larger than the sum wins in that resource only.
        let init = requests(json!({"containers": [res("500m", "1Gi")],
            "initContainers": [res("2", "128Mi")]}));
        assert_eq!(init, Amounts { cpu_milli: 2000, memory_bytes: 1 << 30 });
        // Sidecar (200m, 100Mi) then init (1, 1Gi): containers 500m+200m = 700m, init peak
        // 1000m + 200m = 1200m; memory 1Gi+100Mi vs 1Gi+100Mi.
        let mut sidecar = res("200m", "100Mi");
        sidecar["restartPolicy"] = json!("Always");
        let s = requests(json!({"containers": [res("500m", "1Gi")],
            "initContainers": [sidecar, res("1", "1Gi")]}));
        assert_eq!(s, Amounts { cpu_milli: 1200, memory_bytes: (1 << 30) + (100 << 20) });
        // Overhead adds after the max.
        let o = requests(json!({"containers": [res("1", "1Gi")],
            "overhead": {"cpu": "250m", "memory": "120Mi"}}));
        assert_eq!(o, Amounts { cpu_milli: 1250, memory_bytes: (1 << 30) + (120 << 20) });
        // No resources at all, numbers for quantities, other resources ignored.
        assert_eq!(requests(json!({"containers": [{"name": "c"}]})), Amounts::default());
        let n = requests(json!({"containers": [{"resources": {"requests":
            {"cpu": 2, "memory": 1e3, "nvidia.com/gpu": "1"}}}]}));
        assert_eq!(n, Amounts { cpu_milli: 2000, memory_bytes: 1000 });
    }

    #[test]
    fn malformed_requests_name_their_path() {
        let e = pod(json!({"spec": {"containers": [res("1", "1Gi"), res("lots", "1Gi")]}}))
            .unwrap_err();
        assert_eq!(e.path(), r#"Pod.spec.containers[1].resources.requests["cpu"]"#);
        let e = pod(json!({"spec": {"containers": {"a": 1}}})).unwrap_err();
        assert_eq!(e.path(), "Pod.spec.containers");
        let e = pod(json!({"spec": {"containers": [res("-1", "1Gi")]}})).unwrap_err();
        assert!(e.to_string().contains("negative"), "{e}");
        let e = pod(json!({"metadata": {"annotations": {"placer.io/pool": 3}}})).unwrap_err();
        assert_eq!(e.path(), r#"Pod.metadata.annotations["placer.io/pool"]"#);
    }
}
