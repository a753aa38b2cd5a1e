//! The workload and cluster of one `placer whatif` (docs/simulator.md, "Inputs"): a trace
//! read by its format's reader, and the cluster from `--topology FILE` or from `--nodes N
//! --rack-size K --map-slots S --reduce-slots R` (lsap-sched §4's synthetic cluster).
//!
//! Decisions: a Rumen, SLS or Alibaba trace names the real cluster's hosts, so on a synthetic
//! cluster (`--nodes`) its replicas are redrawn HDFS-style (3 per block, seeded); with its own
//! `--topology` they are kept. SWIM has no locations: its reader draws them over the cluster in
//! use. `--topology` is read in the trace's own family: a Rumen topology tree (`.json` /
//! `.json.gz`) for `rumen`, an SLS nodes file for `sls`, the node list CSV (required) for
//! `alibaba`, and either of the first two for `swim`; a topology without nodes is an error.
//! A Google 2011 trace (`--trace DIR --format google`) brings its machines in
//! `machine_events`, so it takes no `--topology`: the cluster is its own, replicas none.

use crate::error::CliError;
use placer_datasets::{alibaba, google, rumen, sls, swim, Topology, Workload};
use placer_sim::{ClusterSource, ReplicaSource};
use std::path::Path;

/// The trace formats `--format` takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// SWIM tsv (FB-2009, FB-2010).
    Swim,
    /// Rumen JSON (plain or gzip), e.g. the Mumak 19-job trace.
    Rumen,
    /// YARN SLS JSON.
    Sls,
    /// Alibaba GPU v2023 pod CSV (with `--topology` = the node list CSV).
    Alibaba,
    /// Google cluster-usage trace 2011: `--trace DIR` holds `machine_events`, `job_events`
    /// and `task_events` (headerless CSV, plain or gzip).
    Google,
}

/// The synthetic cluster flags.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shape {
    /// Nodes.
    pub nodes: usize,
    /// Nodes per rack.
    pub rack_size: usize,
    /// Map slots per node.
    pub map_slots: u32,
    /// Reduce slots per node.
    pub reduce_slots: u32,
}

/// `--swim-pools`: `single` (every job in `default`), `size-bin` (a pool per FAIR Table 2 size
/// bin, `bin0` … `bin8`) or `round-robin:N` (job i in `pool{i mod N}`).
pub fn parse_swim_pools(s: &str) -> Result<swim::SwimPools, String> {
    match s {
        "single" => Ok(swim::SwimPools::Single),
        "size-bin" => Ok(swim::SwimPools::BySizeBin),
        _ => match s.strip_prefix("round-robin:").map(str::parse::<usize>) {
            Some(Ok(n)) if n >= 1 => Ok(swim::SwimPools::RoundRobin(n)),
            _ => Err(format!("`{s}`: expected single, size-bin or round-robin:N with N ≥ 1")),
        },
    }
}

/// A loaded what-if input.
pub struct Input {
    /// The jobs (with the trace's topology, or the synthetic one, attached).
    pub workload: Workload,
    /// The cluster every run uses.
    pub cluster: ClusterSource,
    /// Where replicas come from.
    pub replicas: ReplicaSource,
}

fn read_topology(path: &Path, format: Format) -> Result<Topology, CliError> {
    let topology = match format {
        Format::Alibaba => alibaba::read_alibaba_nodes(path)?,
        Format::Rumen => rumen::read_rumen_topology(path)?,
        Format::Sls => sls::read_sls_topology(path)?,
        Format::Google => {
            return Err(CliError::Usage(format!(
                "{}: --format google takes no --topology (the machines come from the trace's \
                 machine_events)",
                path.display()
            )))
        }
        // SWIM has no topology format of its own: either of the others.
        Format::Swim => match rumen::read_rumen_topology(path) {
            Ok(t) if t.node_count() > 0 => t,
            _ => sls::read_sls_topology(path)?,
        },
    };
    if topology.node_count() == 0 {
        return Err(CliError::Usage(format!("{}: the topology has no nodes", path.display())));
    }
    Ok(topology)
}

/// Reads the trace and decides the cluster. `shape` is used when there is no topology file;
/// its slot counts also fill nodes whose topology entry has none.
pub fn load(
    trace: &Path,
    format: Format,
    topology: Option<&Path>,
    shape: &Shape,
    seed: u64,
    swim_pools: swim::SwimPools,
) -> Result<Input, CliError> {
    let topo = match topology {
        Some(p) => Some(read_topology(p, format)?),
        None => None,
    };
    let synthetic = ClusterSource::Synthetic {
        nodes: shape.nodes,
        rack_size: shape.rack_size,
        map_slots: shape.map_slots,
        reduce_slots: shape.reduce_slots,
    };
    let own =
        ClusterSource::Workload { map_slots: shape.map_slots, reduce_slots: shape.reduce_slots };
    let redraw = ReplicaSource::Synthesize { replication: 3 };
    let input = match format {
        Format::Swim => {
            let cluster_topology =
                topo.clone().unwrap_or_else(|| Topology::uniform(shape.nodes, shape.rack_size));
            let options = swim::SwimOptions {
                pools: swim_pools,
                ..swim::SwimOptions::new(cluster_topology.clone(), seed)
            };
            let mut workload = swim::read_swim(trace, &options)?;
            workload.topology = Some(cluster_topology);
            let cluster = if topo.is_some() { own } else { synthetic };
            Input { workload, cluster, replicas: ReplicaSource::Workload }
        }
        Format::Rumen | Format::Sls => {
            let mut workload = match format {
                Format::Rumen => rumen::read_rumen(trace, &rumen::RumenOptions::default())?,
                _ => sls::read_sls(trace)?,
            };
            match topo {
                Some(t) => {
                    workload.topology = Some(t);
                    Input { workload, cluster: own, replicas: ReplicaSource::Workload }
                }
                None => Input { workload, cluster: synthetic, replicas: redraw },
            }
        }
        Format::Alibaba => {
            let Some(nodes) = topology else {
                return Err(CliError::Usage(
                    "--format alibaba needs --topology NODES.csv (the node list)".into(),
                ));
            };
            let workload =
                alibaba::read_alibaba(nodes, trace, &alibaba::AlibabaOptions::default())?;
            Input { workload, cluster: own, replicas: ReplicaSource::Workload }
        }
        Format::Google => {
            let workload = google::read_google(trace)?;
            Input { workload, cluster: own, replicas: ReplicaSource::Workload }
        }
    };
    Ok(input)
}
