//! Reader for the Alibaba GPU cluster trace v2023 (alibaba/clusterdata
//! `cluster-trace-gpu-v2023`; Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing
//! Workloads with Fragmentation Gradient Descent", USENIX ATC'23): the node list
//! (`openb_node_list_*.csv`: `sn, cpu_milli, memory_mib, gpu, model`) and the pod list
//! (`openb_pod_list_*.csv`: `name, cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec, qos,
//! pod_phase, creation_time, deletion_time, scheduled_time`). Units: milli-CPU, MiB, GPUs,
//! seconds from the trace's origin. Complexity: O(rows) time and memory.
//!
//! Format: comma-separated with a header row; columns are found by name, so order does not
//! matter and extra columns are ignored. The shipped files have no quoting, so the reader
//! splits on commas and rejects a field containing `"` (as malformed, naming the line and the
//! column) rather than misreading it. A row with fewer fields than the header is malformed,
//! naming the first missing column. Blank lines are skipped.
//!
//! Nodes → [`Topology`]: one rack per GPU model in first-appearance order (`cpu` for nodes with
//! an empty model). The trace has no network topology; grouping by model keeps the racks
//! meaningful (and makes per-model counts one lookup). Each node gets [`Capacity`] { cpu:
//! cpu_milli / 1000, mem_mib, gpu }; slots are left to the simulator. Names must be unique.
//!
//! Pods → one job per pod with a single map task (no input, no replicas, no output): id =
//! `name`, submit = `creation_time`, user `"unknown"`, **pool = `qos`** (LS, BE, Burstable,
//! Guaranteed: the trace's own service classes), class = `pod_phase`. Demand: every dimension
//! as a fraction of the **largest capacity of that dimension over the node list** (per
//! dimension: 128 CPUs, 1 TiB, 8 GPUs for the shipped list): cpu = cpu_milli / max cpu_milli,
//! mem = memory_mib / max memory_mib, io = GPUs / max GPUs, where a pod's GPUs are num_gpu ×
//! gpu_milli / 1000 (gpu_milli is the share of each GPU a sharing pod takes). A pod that needs a
//! dimension no node has is malformed; a pod larger than every node keeps its fraction above 1.
//!
//! Durations (`compute_s`), decided per phase:
//! - scheduled (Running, Succeeded, Failed: `scheduled_time` present): deletion − scheduled,
//!   the time it held its resources. For Running pods `deletion_time` is the trace's end, so
//!   theirs is a lower bound (censored); Failed pods keep the time they ran before failing.
//! - Pending (`scheduled_time` empty, never placed): kept by default — it is demand the real
//!   scheduler could not serve, what a packing comparison wants — with compute_s = deletion −
//!   creation, its lifetime in the trace, the only length the trace gives (an assumption).
//!   [`AlibabaOptions::skip_pending`] drops them.
//! - deletion before scheduled (or creation) is malformed; so are negative numbers.

use crate::error::DatasetError;
use crate::rumen::{malformed, read_file};
use crate::workload::{Capacity, Demand, JobSpec, MapSpec, NodeSpec, RackSpec, Topology, Workload};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// How [`read_alibaba`] treats pods.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AlibabaOptions {
    /// Drop Pending pods (never scheduled) instead of keeping them (default false).
    pub skip_pending: bool,
}

/// Reads a node list and a pod list: the pods as jobs, the nodes as the topology.
pub fn read_alibaba(
    nodes: &Path,
    pods: &Path,
    options: &AlibabaOptions,
) -> Result<Workload, DatasetError> {
    let topology = read_alibaba_nodes(nodes)?;
    let file = pods.display().to_string();
    let bytes = read_file(&file, pods)?;
    let mut w = parse_alibaba_pods(&file, &bytes, &topology, options)?;
    w.topology = Some(topology);
    Ok(w)
}

/// Reads a node list.
pub fn read_alibaba_nodes(path: &Path) -> Result<Topology, DatasetError> {
    let file = path.display().to_string();
    let bytes = read_file(&file, path)?;
    parse_alibaba_nodes(&file, &bytes)
}

/// Parses a node list from bytes; `file` names them in errors.
pub fn parse_alibaba_nodes(file: &str, bytes: &[u8]) -> Result<Topology, DatasetError> {
    let table = Table::parse(file, bytes, &["sn", "cpu_milli", "memory_mib", "gpu", "model"])?;
    let mut racks: Vec<RackSpec> = Vec::new();
    let mut rack_at: BTreeMap<String, usize> = BTreeMap::new();
    let mut names = BTreeSet::new();
    for row in &table.rows {
        let sn = row.text(0)?;
        if sn.is_empty() {
            return Err(row.err(0, "empty node name"));
        }
        if !names.insert(sn.to_string()) {
            return Err(row.err(0, "duplicate node name"));
        }
        let cpu = row.count(1)?;
        let mem = row.count(2)?;
        let gpu = row.count(3)?;
        let model = row.text(4)?;
        let rack = if model.is_empty() { "cpu" } else { model };
        let r = *rack_at.entry(rack.to_string()).or_insert_with(|| {
            racks.push(RackSpec { id: rack.to_string(), nodes: Vec::new() });
            racks.len() - 1
        });
        racks[r].nodes.push(NodeSpec {
            id: sn.to_string(),
            capacity: Some(Capacity {
                cpu: cpu as f64 / 1000.0,
                mem_mib: mem as f64,
                gpu: gpu as f64,
            }),
            ..NodeSpec::default()
        });
    }
    Ok(Topology { racks })
}

/// Parses a pod list from bytes, scaling demands to `nodes` (see the module docs); `file` names
/// them in errors. The workload's topology is left empty ([`read_alibaba`] sets it).
pub fn parse_alibaba_pods(
    file: &str,
    bytes: &[u8],
    nodes: &Topology,
    options: &AlibabaOptions,
) -> Result<Workload, DatasetError> {
    const COLS: [&str; 11] = [
        "name",
        "cpu_milli",
        "memory_mib",
        "num_gpu",
        "gpu_milli",
        "gpu_spec",
        "qos",
        "pod_phase",
        "creation_time",
        "deletion_time",
        "scheduled_time",
    ];
    let table = Table::parse(file, bytes, &COLS)?;
    let caps: Vec<Capacity> = nodes.nodes().filter_map(|(_, n)| n.capacity).collect();
    let max_of = |f: fn(&Capacity) -> f64| caps.iter().map(f).fold(0.0, f64::max);
    let (max_cpu, max_mem, max_gpu) = (max_of(|c| c.cpu), max_of(|c| c.mem_mib), max_of(|c| c.gpu));
    let mut ids = BTreeSet::new();
    let mut jobs = Vec::with_capacity(table.rows.len());
    for row in &table.rows {
        let name = row.text(0)?;
        if name.is_empty() {
            return Err(row.err(0, "empty pod name"));
        }
        if !ids.insert(name.to_string()) {
            return Err(row.err(0, "duplicate pod name"));
        }
        let cpu = row.count(1)? as f64 / 1000.0;
        let mem = row.count(2)? as f64;
        let gpus = row.count(3)? as f64 * row.count(4)? as f64 / 1000.0;
        let frac = |need: f64, max: f64, col: usize, what: &str| {
            if need == 0.0 {
                Ok(0.0)
            } else if max > 0.0 {
                Ok(need / max)
            } else {
                Err(row.err(col, &format!("needs {what} but no node has any")))
            }
        };
        let demand = Demand {
            cpu: frac(cpu, max_cpu, 1, "cpu")?,
            mem: frac(mem, max_mem, 2, "memory")?,
            io: frac(gpus, max_gpu, 3, "a GPU")?,
        };
        let qos = row.text(6)?;
        let phase = row.text(7)?;
        let created = row.count(8)?;
        let deleted = row.count(9)?;
        let scheduled = row.optional_count(10)?;
        let seconds = match scheduled {
            Some(s) => {
                if s < created {
                    return Err(row.err(10, "scheduled before creation"));
                }
                deleted.checked_sub(s).ok_or_else(|| row.err(9, "deletion before scheduling"))?
            }
            None => {
                if options.skip_pending {
                    continue;
                }
                deleted
                    .checked_sub(created)
                    .ok_or_else(|| row.err(9, "deletion before creation"))?
            }
        };
        jobs.push(JobSpec {
            gang: None,
            topology: None,
            cleanup_s: None,
            setup_s: None,
            observed_finish_s: None,
            id: name.to_string(),
            submit_s: created as f64,
            user: "unknown".into(),
            pool: if qos.is_empty() { "default".into() } else { qos.to_string() },
            maps: vec![MapSpec {
                compute_s: seconds as f64,
                demand: Some(demand),
                ..MapSpec::default()
            }],
            reduces: Vec::new(),
            deadline_s: None,
            class: (!phase.is_empty()).then(|| phase.to_string()),
        });
    }
    let mut w = Workload {
        measured_times: false,
        name: file.to_string(),
        jobs,
        pools: Vec::new(),
        topology: None,
    };
    w.sort_jobs();
    Ok(w)
}

/// A header-addressed CSV table: the wanted columns of every row.
struct Table<'a> {
    rows: Vec<Row<'a>>,
}

/// One data row's wanted fields (in the order asked for).
struct Row<'a> {
    file: &'a str,
    line: usize,
    names: &'a [&'a str],
    fields: Vec<&'a str>,
}

impl<'a> Table<'a> {
    fn parse(file: &'a str, bytes: &'a [u8], wanted: &'a [&'a str]) -> Result<Self, DatasetError> {
        let text = std::str::from_utf8(bytes).map_err(|e| {
            let line = 1 + bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count();
            malformed(file, &format!("line {line}"), "line", "not UTF-8")
        })?;
        let mut lines =
            text.split('\n').enumerate().map(|(i, l)| (i + 1, l.trim_end_matches('\r')));
        let Some((_, header)) = lines.find(|(_, l)| !l.trim().is_empty()) else {
            return Err(malformed(file, "line 1", "header", "empty file"));
        };
        let head: Vec<&str> = header.split(',').map(str::trim).collect();
        let mut at = Vec::with_capacity(wanted.len());
        for w in wanted {
            let i = head
                .iter()
                .position(|h| h == w)
                .ok_or_else(|| malformed(file, "line 1 (header)", w, "missing column"))?;
            at.push(i);
        }
        let mut rows = Vec::new();
        for (line, l) in lines {
            if l.trim().is_empty() {
                continue;
            }
            let cells: Vec<&str> = l.split(',').collect();
            let mut fields = Vec::with_capacity(at.len());
            for (k, &i) in at.iter().enumerate() {
                let Some(c) = cells.get(i) else {
                    let first_missing = head.get(cells.len()).copied().unwrap_or(wanted[k]);
                    return Err(malformed(
                        file,
                        &format!("line {line}"),
                        first_missing,
                        &format!(
                            "missing column ({} fields, header has {})",
                            cells.len(),
                            head.len()
                        ),
                    ));
                };
                if c.contains('"') {
                    return Err(malformed(
                        file,
                        &format!("line {line}"),
                        wanted[k],
                        "quoted CSV fields are not supported",
                    ));
                }
                fields.push(c.trim());
            }
            rows.push(Row { file, line, names: wanted, fields });
        }
        Ok(Table { rows })
    }
}

impl Row<'_> {
    fn err(&self, col: usize, message: &str) -> DatasetError {
        malformed(self.file, &format!("line {}", self.line), self.names[col], message)
    }

    fn text(&self, col: usize) -> Result<&str, DatasetError> {
        Ok(self.fields[col])
    }

    /// A non-negative integer.
    fn count(&self, col: usize) -> Result<u64, DatasetError> {
        self.optional_count(col)?.ok_or_else(|| self.err(col, "empty"))
    }

    /// A non-negative integer, or None when empty.
    fn optional_count(&self, col: usize) -> Result<Option<u64>, DatasetError> {
        let s = self.fields[col];
        if s.is_empty() {
            return Ok(None);
        }
        match s.parse::<u64>() {
            Ok(v) => Ok(Some(v)),
            Err(_) if s.parse::<i128>().is_ok_and(|v| v < 0) => {
                Err(self.err(col, &format!("negative value {s}")))
            }
            Err(_) => Err(self.err(col, &format!("not a non-negative integer: {s:?}"))),
        }
    }
}
