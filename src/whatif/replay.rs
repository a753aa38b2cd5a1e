//! The what-if replay itself (docs/simulator.md): every run of the
//! policies × sweep points, in parallel, with a progress bar, and the outputs they write; and
//! `summarize`, which merges a sweep's shards.

use super::gang_flags::{self, GangsArg};
use super::load::{self, Format, Input, Shape};
use super::loss_flags::{self, CopiersArg, GoodputArg};
use super::policy_flags::{self, PolicySet};
use super::shard::{self, ShardArg, ShardEnv};
use super::sweep::{self, Point, Sweep};
use super::table;
use super::workloads::{self, ClusterFlags, Settings, WorkloadArg};
use crate::error::CliError;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use placer_models::Algorithm;
use placer_report::index_html;
use placer_report::manifest::{self, FileEntry, Manifest, Shard, MANIFEST_FILE};
use placer_report::plots;
use placer_report::tables::{self, ErrorSummary, SummaryRow, ValidationRow};
use placer_sim::{
    ClusterSource, CompletionReport, JobTasks, NetSatMeasure, Offers, Sharing, SimConfig,
    SimReport, Victim,
};
use placer_solver::shuffle::SwMechanisms;
use rayon::prelude::*;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// `placer whatif` arguments (the run itself). Exactly one of `--trace` and `--workload`.
#[derive(clap::Args, Debug, Clone)]
#[command(group(clap::ArgGroup::new("input").args(["trace", "workload"]).required(true)))]
pub struct RunArgs {
    /// The trace file (with --format); for google the folder of its tables.
    #[arg(long, requires = "format")]
    pub trace: Option<PathBuf>,
    /// Its format.
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// A paper's own experiment instead of a trace, cluster included, seeded by --seed:
    /// NAME[:key=value,...] with NAME fair-bm, fair-small-jobs, shuffle-watcher or ras (e.g.
    /// fair-small-jobs:maps=10,jobs=360, ras:experiment=2). Flags given override its settings.
    #[arg(long, value_name = "NAME[:KEY=VALUE,...]", value_parser = workloads::parse_workload,
          conflicts_with_all = ["trace", "format", "topology", "swim_pools"])]
    pub workload: Option<WorkloadArg>,
    /// The cluster: a Rumen topology (.json/.json.gz), an SLS nodes file, or for alibaba the
    /// node list CSV. Without it: --nodes/--rack-size/--map-slots/--reduce-slots.
    #[arg(long)]
    pub topology: Option<PathBuf>,
    /// Nodes of the synthetic cluster [default: 100; a --workload's: its paper's].
    #[arg(long)]
    pub nodes: Option<usize>,
    /// Nodes per rack [default: 20; a --workload's: its paper's].
    #[arg(long)]
    pub rack_size: Option<usize>,
    /// Map slots per node, also for topology nodes that do not say [default: 4; a
    /// --workload's: its paper's].
    #[arg(long)]
    pub map_slots: Option<u32>,
    /// Reduce slots per node, also for topology nodes that do not say [default: 2; a
    /// --workload's: its paper's].
    #[arg(long)]
    pub reduce_slots: Option<u32>,
    /// In-rack link bandwidth, Mbit/s [default: 1000; a --workload's: its paper's].
    #[arg(long)]
    pub rack_mbps: Option<f64>,
    /// Rack-to-rack bandwidth, Mbit/s [default: 100; a --workload's: its paper's].
    #[arg(long)]
    pub cross_rack_mbps: Option<f64>,
    /// Each rack's uplink and downlink, Mbit/s, shared by all flows leaving or entering it
    /// (ShuffleWatcher's oversubscribed racks) [default: no rack limit; shuffle-watcher: 500].
    #[arg(long)]
    pub uplink_mbps: Option<f64>,
    /// Delay scheduling's T1 (wait for a node-local slot), s [default: 1.5 × the heartbeat;
    /// fair-small-jobs: 15].
    #[arg(long, value_parser = policy_flags::knob("locality_delay_node_s"))]
    pub t1_s: Option<f64>,
    /// Delay scheduling's T2 (further wait for a rack-local slot), s [default: 1.5 × the
    /// heartbeat; fair-small-jobs: 15].
    #[arg(long, value_parser = policy_flags::knob("locality_delay_rack_s"))]
    pub t2_s: Option<f64>,
    /// Disk read rate of node-local input, MB/s.
    #[arg(long, default_value_t = 100.0)]
    pub disk_mb_s: f64,
    /// Epoch (heartbeat) length, s.
    #[arg(long, default_value_t = 3.0)]
    pub epoch_s: f64,
    /// Policies to compare, comma-separated.
    #[arg(long, value_delimiter = ',', value_parser = crate::parse_policy,
          default_value = "fifo,fair,delay,dl_sched,lsap,lsap_quota")]
    pub policies: Vec<Algorithm>,
    /// SWIM only: how jobs map to pools (SWIM names none): single, size-bin (FAIR Table 2
    /// bins) or round-robin:N.
    #[arg(long, default_value = "single", value_parser = load::parse_swim_pools)]
    pub swim_pools: placer_datasets::swim::SwimPools,
    /// Seed of every random choice (replica synthesis, heartbeat order).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output directory (created).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// A parameter sweep (TOML; see `placer whatif --help` and the README).
    #[arg(long)]
    pub sweep: Option<PathBuf>,
    /// Run only slice i of N of the runs (0-based), for array jobs: `i/N`, or `auto` to take
    /// i and N from a Slurm array task (SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN of
    /// SLURM_ARRAY_TASK_COUNT) or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX of
    /// --shard-count or PLACER_SHARD_COUNT).
    #[arg(long, value_name = "i/N|auto", value_parser = shard::parse_shard)]
    pub shard: Option<ShardArg>,
    /// With `--shard auto` where the environment gives no count (a Kubernetes Indexed Job):
    /// the number of shards (the Job's completions) [default: PLACER_SHARD_COUNT]. With
    /// Slurm it must equal SLURM_ARRAY_TASK_COUNT.
    #[arg(long, value_name = "N", requires = "shard")]
    pub shard_count: Option<usize>,
    /// Stop every run at this simulated time, s.
    #[arg(long)]
    pub max_time_s: Option<f64>,
    /// How concurrent transfers share links: per-link (each link split equally, a flow at its
    /// tightest share) or max-min (progressive filling: capacity a held-back flow leaves is
    /// used by the others) [default: per-link].
    #[arg(long, value_name = "MODEL")]
    pub network: Option<NetworkArg>,
    /// Goodput of the shaped cross-rack links (the rack uplinks with --uplink-mbps, else the
    /// rack-pair links) when many flows share one: none (loss-free) or
    /// incast[:n0=8,beta=0.05,floor=0.1,rto_s=0.2] (TCP throughput collapse: a link carrying
    /// more than n0 flows, n, delivers max(floor, 1/(1 + beta·(n − n0))) of its capacity, and a
    /// flow joining one that carries n0 or more first waits rto_s) [default: none].
    #[arg(long, value_name = "MODEL", value_parser = loss_flags::parse_goodput)]
    pub goodput: Option<GoodputArg>,
    /// Most shuffle flows in progress per reduce (Hadoop's mapred.reduce.parallel.copies), or
    /// unlimited (one flow per source rack at a time) [default: unlimited; with --goodput
    /// incast: 5, Hadoop's].
    #[arg(long, value_name = "N|unlimited", value_parser = loss_flags::parse_copiers)]
    pub copiers: Option<CopiersArg>,
    /// What the snapshots report as each rack's cross-rack traffic for NetSat: delivered (the
    /// bytes that crossed) or offered (the flows' rates on their unshaped links alone, the
    /// demand) [default: delivered].
    #[arg(long, value_enum, value_name = "MEASURE")]
    pub netsat_measure: Option<NetSatMeasureArg>,
    /// The TaskTrackers' heartbeat interval, s (> 0), for the heartbeat offers and the default
    /// delay-scheduling waits (1.5 × it) [default: Hadoop 0.20's rule for the cluster's N
    /// nodes, max(3, ⌊N / 100⌋ + 1) s: 3 s up to 299 nodes, 16 s for the Mumak trace's 1,545].
    #[arg(long, value_name = "S", value_parser = policy_flags::knob("heartbeat_s"))]
    pub heartbeat_s: Option<f64>,
    /// Fraction of a job's maps that must be done before its reduces may start, in [0, 1]
    /// (Hadoop's mapred.reduce.slowstart.completed.maps) [default: 0.05].
    #[arg(long)]
    pub slowstart: Option<f64>,
    /// How free slots are offered: `epoch` (all of the cluster's every epoch), `node` (per-node
    /// heartbeats, one task of each kind: Hadoop 0.20), `node-multiple` (per-node heartbeats,
    /// every free slot: the Fair Scheduler's assignmultiple) [default: what the policy is:
    /// node for fifo, fair, delay, dl_sched; epoch for the others]. ras, drf and lsap_ras on a
    /// workload with demands place by resources at epochs: node offers are refused for them.
    #[arg(long, value_enum)]
    pub heartbeat: Option<Heartbeat>,
    /// Start-up time of every task attempt (JVM launch), s [default: 1].
    #[arg(long)]
    pub task_overhead_s: Option<f64>,
    /// When the master learns of a task's end with heartbeat offers: `heartbeat` (at its
    /// node's next heartbeat, which offers the freed slot: Hadoop 0.20) or `immediate`
    /// [default: heartbeat; epoch offers are always immediate].
    #[arg(long, value_enum, value_name = "WHEN")]
    pub completion_report: Option<CompletionArg>,
    /// Run time of each job's setup task, s (≥ 0; 0: none), where the trace measured none
    /// [default: 2, the Mumak trace's median].
    #[arg(long, value_name = "S", value_parser = parse_non_negative_s)]
    pub job_setup_s: Option<f64>,
    /// Run time of each job's cleanup task, s (≥ 0; 0: none), where the trace measured none
    /// [default: 2].
    #[arg(long, value_name = "S", value_parser = parse_non_negative_s)]
    pub job_cleanup_s: Option<f64>,
    /// How setup and cleanup run: `slot` (each a task that takes a slot through an offer,
    /// before the scheduler is asked: Hadoop 0.20) or `delay` (a wait without a slot)
    /// [default: slot].
    #[arg(long, value_enum, value_name = "MODEL")]
    pub job_tasks: Option<JobTasksArg>,
    /// Each node's disk space for map outputs, GB (FAIR §5.4) [default: unlimited].
    #[arg(long)]
    pub intermediate_gb: Option<f64>,
    /// Whose map outputs go when the disks are full (FAIR §5.4) [default: latest].
    #[arg(long, value_enum)]
    pub victim: Option<VictimArg>,
    /// Start each epoch's exact flow from the dual labels of the previous epoch (warm starts,
    /// as Firmament's incremental solvers; placements stay least-cost) [default: cold].
    #[arg(long)]
    pub warm_start: bool,
    /// Send each epoch as a delta against an in-process session (what changed since the last
    /// epoch, validated by difference) instead of a whole snapshot [default: whole snapshots].
    #[arg(long)]
    pub sessions: bool,
    /// ShuffleWatcher's mechanisms in the shuffle_watcher policies (the §5.3 ablation): a
    /// comma list of nass, samp, sarp, or none, and optionally uncapped (SAMP's and SARP's
    /// reduce estimate without the reduce-slot cap per rack) [default: nass,samp,sarp].
    #[arg(long, value_name = "LIST", value_parser = policy_flags::parse_sw_mechanisms)]
    pub sw_mechanisms: Option<SwMechanisms>,
    /// ShuffleWatcher's NWSaturationThreshold: a rack's network is saturated above this
    /// fraction of its uplink, in (0, 1] [default: 0.8, §4.2's 400 of 500 Mbit/s].
    #[arg(long, value_name = "X", value_parser = policy_flags::knob("saturation_threshold"))]
    pub saturation_threshold: Option<f64>,
    /// ShuffleWatcher's MapCompletionThreshold: above this fraction of a job's maps done, SARP
    /// places reduces by the actual intermediate data, in [0, 1] [default: 0.15, §4.2].
    #[arg(long, value_name = "X", value_parser = policy_flags::knob("map_completion_threshold"))]
    pub map_completion_threshold: Option<f64>,
    /// ShuffleWatcher's starvation window, s (> 0): a user's jobs of an earlier window go
    /// first [default: 600].
    #[arg(long, value_name = "X", value_parser = policy_flags::knob("starvation_window_s"))]
    pub starvation_window_s: Option<f64>,
    /// Sets a key of the runs' `policy` object, as a snapshot would (repeatable; VALUE is JSON,
    /// e.g. `--policy-set beta=5 --policy-set aging_s=60`); any knob some policy reads, checked
    /// by that policy's settings (docs/policies.md lists them).
    #[arg(long, value_name = "KEY=VALUE", value_parser = policy_flags::parse_policy_set)]
    pub policy_set: Vec<PolicySet>,
    /// A YARN fair-scheduler allocation file (fair-scheduler.xml): the pools jobs name take its
    /// queues' weights, min shares, modes, limits and timeouts; its users their limits.
    #[arg(long, value_name = "FILE")]
    pub allocations: Option<PathBuf>,
    /// Trace only: replay its jobs of 2 to N maps as gangs (all-or-nothing, KEP-4671's
    /// PodGroup) kept inside a domain (Kueue TAS's topology):
    /// max_maps=N[,level=rack|node][,mode=required|preferred][,share=F][,seed=S]. A chosen job's
    /// gang is all its maps (its reduces start after them, so they are not members), its class
    /// becomes gang-required or gang-preferred; a seeded share F of the eligible jobs is chosen
    /// (default 1; seed default --seed). A gang larger than the largest domain of its level
    /// (required) or than the cluster (preferred) could never start: it stays an ordinary job,
    /// and the count of those skipped is printed [default: no gangs].
    #[arg(long, value_name = "KEYS", value_parser = gang_flags::parse_gangs)]
    pub gangs: Option<GangsArg>,
}

/// `--heartbeat`: how free slots reach the policy ([`Offers`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Heartbeat {
    /// Every epoch, every free slot of the cluster at once (`Offers::Epochs`).
    Epoch,
    /// Per-node heartbeats, one task of each kind each (`Heartbeats { assign_multiple: false }`).
    Node,
    /// Per-node heartbeats, every free slot of the node (`Heartbeats { assign_multiple: true }`).
    NodeMultiple,
}

impl Heartbeat {
    /// The simulator's setting.
    pub fn offers(self) -> Offers {
        match self {
            Self::Epoch => Offers::Epochs,
            Self::Node => Offers::Heartbeats { assign_multiple: false },
            Self::NodeMultiple => Offers::Heartbeats { assign_multiple: true },
        }
    }
}

/// `--completion-report`: when a task's end reaches the master ([`CompletionReport`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CompletionArg {
    /// At once.
    Immediate,
    /// At the node's next heartbeat.
    Heartbeat,
}

/// `--job-tasks`: how setup and cleanup run ([`JobTasks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum JobTasksArg {
    /// Tasks that take a slot.
    Slot,
    /// Delays without a slot.
    Delay,
}

/// A duration in seconds, finite and ≥ 0.
fn parse_non_negative_s(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("must be a number of seconds ≥ 0, got {s}")),
    }
}

/// `--network`: how transfers share links ([`Sharing`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum NetworkArg {
    /// Each link split equally among its flows.
    PerLink,
    /// Max-min fair rates.
    MaxMin,
}

/// `--netsat-measure`: what NetSat reads ([`NetSatMeasure`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum NetSatMeasureArg {
    /// The bytes that crossed each rack's boundary.
    Delivered,
    /// The cross-rack flows' offered rates.
    Offered,
}

/// `--victim`: FAIR §5.4's victim of a full disk ([`Victim`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum VictimArg {
    /// The job submitted latest.
    Latest,
    /// The job with the least progress.
    LeastProgress,
}

impl VictimArg {
    /// The simulator's setting.
    pub fn victim(self) -> Victim {
        match self {
            Self::Latest => Victim::LatestSubmitted,
            Self::LeastProgress => Victim::LeastProgress,
        }
    }
}

/// The simulator settings of the flags that have one (not the cluster, the algorithm or
/// replicas; ShuffleWatcher's knobs go to the snapshots' `policy`): each given flag replaces
/// `base`'s value.
pub fn apply_flags(args: &RunArgs, base: &mut SimConfig) {
    if let Some(f) = args.slowstart {
        base.slowstart = f;
    }
    if let Some(h) = args.heartbeat {
        base.offers = h.offers();
    }
    if let Some(t) = args.task_overhead_s {
        base.task_overhead_s = t;
    }
    if let Some(c) = args.completion_report {
        base.completion_report = match c {
            CompletionArg::Immediate => CompletionReport::Immediate,
            CompletionArg::Heartbeat => CompletionReport::Heartbeat,
        };
    }
    if let Some(s) = args.job_setup_s {
        base.job_setup_s = s;
    }
    if let Some(s) = args.job_cleanup_s {
        base.job_cleanup_s = s;
    }
    if let Some(m) = args.job_tasks {
        base.job_tasks = match m {
            JobTasksArg::Slot => JobTasks::Slots,
            JobTasksArg::Delay => JobTasks::Delays,
        };
    }
    if let Some(gb) = args.intermediate_gb {
        base.intermediate_gb = Some(gb);
    }
    if let Some(v) = args.victim {
        base.victim = v.victim();
    }
    if let Some(n) = args.network {
        base.sharing = match n {
            NetworkArg::PerLink => Sharing::PerLink,
            NetworkArg::MaxMin => Sharing::MaxMin,
        };
    }
    if args.warm_start {
        base.warm_start = true;
    }
    if args.sessions {
        base.sessions = true;
    }
    if let Some(GoodputArg(g)) = args.goodput {
        base.goodput = g;
        if g.is_some() && args.copiers.is_none() {
            base.copiers = Some(loss_flags::HADOOP_COPIERS);
        }
    }
    if let Some(CopiersArg(k)) = args.copiers {
        base.copiers = k;
    }
    if let Some(m) = args.netsat_measure {
        base.netsat_measure = match m {
            NetSatMeasureArg::Delivered => NetSatMeasure::Delivered,
            NetSatMeasureArg::Offered => NetSatMeasure::Offered,
        };
    }
    // The knob flags set keys of the `policy` object; the policies' settings check them
    // (`SimConfig::validate`).
    if let Some(m) = args.sw_mechanisms {
        base.policy.set("shuffle_watcher", serde_json::to_value(m).unwrap_or_default());
    }
    for (key, x) in [
        ("saturation_threshold", args.saturation_threshold),
        ("map_completion_threshold", args.map_completion_threshold),
        ("starvation_window_s", args.starvation_window_s),
    ] {
        if let Some(x) = x {
            base.policy.set(key, x);
        }
    }
    for PolicySet(key, value) in &args.policy_set {
        base.policy.set(key, value.clone());
    }
}

/// One run of a what-if: a policy at one sweep point.
pub struct Run {
    /// `policy` or `policy/key=value/...`.
    pub name: String,
    /// Hive partition keys: `policy=…` then the sweep keys.
    pub partition: Vec<(String, String)>,
    /// The simulator's config.
    pub config: SimConfig,
}

/// Every run of the what-if in a fixed order: sweep points outer, policies inner.
fn runs(args: &RunArgs, base: &SimConfig, points: &[Point]) -> Vec<Run> {
    let mut out = Vec::new();
    for point in points {
        for &algorithm in &args.policies {
            let mut config = base.clone();
            config.policy.algorithm = algorithm;
            sweep::apply(&mut config, point);
            let mut partition = vec![("policy".to_owned(), algorithm.name().to_owned())];
            partition.extend(point.iter().map(|&(k, v)| (k.to_owned(), format!("{v}"))));
            let name = partition
                .iter()
                .skip(1)
                .fold(algorithm.name().to_owned(), |acc, (k, v)| format!("{acc}/{k}={v}"));
            config.name = name.clone();
            out.push(Run { name, partition, config });
        }
    }
    out
}

/// The cluster of a trace replay without `--topology` or flags: 100 nodes in racks of 20, 4 map
/// and 2 reduce slots.
const TRACE_SHAPE: Shape = Shape { nodes: 100, rack_size: 20, map_slots: 4, reduce_slots: 2 };

/// The workload, its cluster, and the settings the flags start from: a trace's (read with
/// `--format`) or a paper's experiment (`--workload`).
fn input(args: &RunArgs) -> Result<(Input, Settings), CliError> {
    match (&args.trace, &args.workload) {
        (Some(trace), None) => {
            let Some(format) = args.format else {
                return Err(CliError::Usage("whatif --trace FILE needs --format".into()));
            };
            let shape = Shape {
                nodes: args.nodes.unwrap_or(TRACE_SHAPE.nodes),
                rack_size: args.rack_size.unwrap_or(TRACE_SHAPE.rack_size),
                map_slots: args.map_slots.unwrap_or(TRACE_SHAPE.map_slots),
                reduce_slots: args.reduce_slots.unwrap_or(TRACE_SHAPE.reduce_slots),
            };
            let topology = args.topology.as_deref();
            let input = load::load(trace, format, topology, &shape, args.seed, args.swim_pools)?;
            Ok((input, Settings::default()))
        }
        (None, Some(workload)) => {
            let flags = ClusterFlags {
                nodes: args.nodes,
                rack_size: args.rack_size,
                map_slots: args.map_slots,
                reduce_slots: args.reduce_slots,
            };
            let experiment = workloads::build(workload, args.seed, &flags)?;
            Ok((experiment.input, experiment.settings))
        }
        _ => Err(CliError::Usage(
            "whatif needs exactly one of --trace FILE --format F and --workload NAME".into(),
        )),
    }
}

/// The config every run starts from: the input's cluster and replicas, `settings` (a trace's
/// defaults or the paper's), then every flag the user gave.
fn base_config(args: &RunArgs, input: &Input, settings: &Settings) -> SimConfig {
    let mut base = SimConfig {
        cluster: input.cluster.clone(),
        replicas: input.replicas,
        rack_mbps: args.rack_mbps.unwrap_or(settings.rack_mbps),
        cross_rack_mbps: args.cross_rack_mbps.unwrap_or(settings.cross_rack_mbps),
        uplink_mbps: args.uplink_mbps.or(settings.uplink_mbps),
        disk_mb_s: args.disk_mb_s,
        epoch_s: args.epoch_s,
        seed: args.seed,
        max_time_s: args.max_time_s,
        ..SimConfig::default()
    };
    let nodes = match &input.cluster {
        ClusterSource::Synthetic { nodes, .. } => *nodes,
        ClusterSource::Workload { .. } => {
            input.workload.topology.as_ref().map_or(0, |t| t.node_count())
        }
    };
    base.policy.set("heartbeat_s", args.heartbeat_s.unwrap_or_else(|| hadoop_heartbeat_s(nodes)));
    if let Some(t1) = args.t1_s.or(settings.t1_s) {
        base.policy.set("locality_delay_node_s", t1);
    }
    if let Some(t2) = args.t2_s.or(settings.t2_s) {
        base.policy.set("locality_delay_rack_s", t2);
    }
    if let Some(f) = settings.slowstart {
        base.slowstart = f;
    }
    apply_flags(args, &mut base);
    base
}

/// Hadoop 0.20's heartbeat interval for a cluster of `nodes` TaskTrackers, s: the JobTracker
/// asks for one heartbeat per node every max(3 s, (⌊nodes / 100⌋ + 1) s)
/// (`JobTracker.getNextHeartbeatInterval`: `HEARTBEAT_INTERVAL_MIN` 3 s and
/// `CLUSTER_INCREMENT` 100), so that it handles about 100 heartbeats a second. Example: 1,545
/// nodes → 16 s; 100 nodes → 3 s.
pub fn hadoop_heartbeat_s(nodes: usize) -> f64 {
    ((nodes / 100 + 1) as f64).max(3.0)
}

/// Runs the what-if.
pub fn run(args: &RunArgs) -> Result<(), CliError> {
    let Some(out) = &args.out else {
        return Err(CliError::Usage("whatif needs --out DIR".into()));
    };
    let (shard, shards) = shard::resolve(args.shard, args.shard_count, &ShardEnv::from_process())
        .map_err(CliError::Shard)?;
    let (mut input, settings) = input(args)?;
    let gangs =
        match &args.gangs {
            Some(_) if args.trace.is_none() => return Err(CliError::Usage(
                "--gangs turns a trace's jobs into gangs: it needs --trace (a --workload makes \
                 its own, e.g. gang-mix)"
                    .into(),
            )),
            Some(g) => {
                let line = gang_flags::apply(&mut input, g, args.seed)?;
                eprintln!("{line}");
                Some(line)
            }
            None => None,
        };
    let sweep = match &args.sweep {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|source| CliError::Io { path: p.clone(), source })?;
            Sweep::parse(&p.display().to_string(), &text)?
        }
        None => Sweep::default(),
    };
    let mut base = base_config(args, &input, &settings);
    if let Some(path) = &args.allocations {
        super::allocations::apply(path, &input, &mut base)?;
    }
    let all = runs(args, &base, &sweep.points());
    // The sweep's identity, the same for every shard: the arguments but the shard, and every
    // run's config.
    let config = serde_json::json!({
        "workload": input.workload.name,
        "args": format!("{:?}", RunArgs { shard: None, shard_count: None, ..args.clone() }),
        "runs": all.iter().map(|run| &run.config).collect::<Vec<_>>(),
    })
    .to_string();
    let mine: Vec<Run> =
        all.into_iter().enumerate().filter(|(i, _)| i % shards == shard).map(|(_, r)| r).collect();
    for run in &mine {
        run.config.validate()?;
    }
    let bar = progress_bar((mine.len() * input.workload.jobs.len()) as u64, mine.len());
    let tick = || bar.inc(1);
    let reports: Vec<Result<SimReport, placer_sim::SimError>> = mine
        .par_iter()
        .map(|run| placer_sim::simulate_observed(&input.workload, &run.config, &tick))
        .collect();
    bar.finish_and_clear();
    let mut done = Vec::with_capacity(reports.len());
    for (run, report) in mine.iter().zip(reports) {
        done.push((run, report.map_err(|e| CliError::Usage(format!("{}: {e}", run.name)))?));
    }
    std::fs::create_dir_all(out).map_err(|source| CliError::Io { path: out.clone(), source })?;
    let title = format!("placer what-if: {}", input.workload.name);
    let sharded = args.shard.map(|_| (shard, shards));
    let mut about = about(args, &input.workload.name, sharded, done.len());
    if let Some(line) = gangs {
        about.push(("--gangs".to_owned(), line));
    }
    let outputs =
        Outputs { dir: out, shard, shards, config: &config, title: &title, about: &about };
    let page = outputs.write(&done)?;
    let rows: Vec<SummaryRow> = done.iter().map(|(_, r)| SummaryRow::from_report(r)).collect();
    print!("{}", table::render(&rows));
    for (_, report) in &done {
        if let Some(line) = ErrorSummary::of(report) {
            println!("{line}");
        }
    }
    println!("report: {}", page.display());
    Ok(())
}

/// What the report page says was run: the workload, its source (trace and format, or the
/// paper's experiment and keys), topology, allocation file, policies, sweep, shard, seed and
/// the runs here.
fn about(
    args: &RunArgs,
    workload: &str,
    shard: Option<(usize, usize)>,
    runs: usize,
) -> Vec<(String, String)> {
    let mut about = vec![("workload".to_owned(), workload.to_owned())];
    let mut add = |label: &str, value: String| about.push((label.to_owned(), value));
    if let Some(trace) = &args.trace {
        add("trace", trace.display().to_string());
    }
    if let Some(format) = args.format.and_then(|f| clap::ValueEnum::to_possible_value(&f)) {
        add("format", format.get_name().to_owned());
    }
    if let Some(w) = &args.workload {
        let keys = w.keys.iter().map(|(k, v)| format!("{k}={v}"));
        let keys: Vec<String> = keys.collect();
        let spec = match keys.is_empty() {
            true => w.paper.name().to_owned(),
            false => format!("{}:{}", w.paper.name(), keys.join(",")),
        };
        add("--workload", spec);
    }
    if let Some(topology) = &args.topology {
        add("topology", topology.display().to_string());
    }
    if let Some(allocations) = &args.allocations {
        add("allocations", allocations.display().to_string());
    }
    let policies: Vec<&str> = args.policies.iter().map(|p| p.name()).collect();
    add("policies", policies.join(", "));
    if let Some(sweep) = &args.sweep {
        add("sweep", sweep.display().to_string());
    }
    if let Some((i, n)) = shard {
        add("shard", format!("{i}/{n}"));
    }
    add("seed", args.seed.to_string());
    add("runs", runs.to_string());
    about
}

/// Jobs finished over all runs (`jobs` = runs × jobs per run) on stderr; hidden unless stdout
/// is a terminal (a pipe or a batch log gets only the summary).
fn progress_bar(jobs: u64, runs: usize) -> ProgressBar {
    let bar = ProgressBar::new(jobs);
    if !std::io::stdout().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    let template = format!(
        "{{spinner}} [{{elapsed_precise}}] {{bar:30}} {{pos}}/{{len}} jobs over {runs} runs, \
         eta {{eta}}"
    );
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}

/// Where and what a what-if writes.
struct Outputs<'a> {
    dir: &'a Path,
    shard: usize,
    shards: usize,
    /// The sweep's config JSON (hashed into the manifest).
    config: &'a str,
    /// The report page's title.
    title: &'a str,
    /// What the report page says was run (label, value).
    about: &'a [(String, String)],
}

impl Outputs<'_> {
    /// Tables per run, then the summary, the validation, ShuffleWatcher's Table 3 by class, the
    /// results by job class and the cross-rack time series (beside the summary), plots (the
    /// whole run's or this shard's), the report page over them (`index.html` beside the
    /// summary), and the manifest last, every file atomically. Returns the page's path.
    fn write(&self, done: &[(&Run, SimReport)]) -> Result<PathBuf, CliError> {
        let shard = Shard::new(self.shard, self.shards)?;
        let mut files = Vec::new();
        for (run, report) in done {
            files.extend(tables::write_run_tables(self.dir, &run.partition, report)?);
        }
        let rows: Vec<SummaryRow> = done.iter().map(|(_, r)| SummaryRow::from_report(r)).collect();
        files.push(tables::write_summary_csv(self.dir, &shard.summary_file(), &rows)?);
        let reports: Vec<&SimReport> = done.iter().map(|(_, r)| r).collect();
        let validation = shard.validation_file();
        files.extend(tables::write_validation_csv(self.dir, &validation, &reports)?);
        let by_class = shard.traffic_by_class_file();
        files.extend(tables::write_traffic_by_class_csv(self.dir, &by_class, &reports)?);
        files.push(tables::write_by_class_csv(self.dir, &shard.by_class_file(), &reports)?);
        let series = shard.cross_rack_timeseries_file();
        files.push(tables::write_cross_rack_timeseries_csv(self.dir, &series, &reports)?);
        let plot_dir = match shard == Shard::WHOLE {
            true => self.dir.to_path_buf(),
            false => self.dir.join(shard_dir(&shard)),
        };
        for path in plots::write_plots(&reports, &plot_dir)? {
            let bytes = std::fs::read(&path)
                .map_err(|source| CliError::Io { path: path.clone(), source })?;
            let rel =
                path.strip_prefix(self.dir).unwrap_or(&path).to_string_lossy().replace('\\', "/");
            files.push(FileEntry::new(rel, "plot", None, &bytes));
        }
        let names: Vec<String> = done.iter().map(|(run, _)| run.name.clone()).collect();
        // The page shows the manifest of every file but itself; the manifest lists the page.
        let draft = Manifest::new(GIT_REVISION, self.config, shard, names.clone(), files.clone());
        let page = shard.index_file();
        files.push(index_html::write_index(self.dir, &page, self.title, self.about, &draft)?);
        let manifest = Manifest::new(GIT_REVISION, self.config, shard, names, files);
        manifest::write_manifest(self.dir, &shard.manifest_file(), &manifest)?;
        Ok(self.dir.join(page))
    }
}

/// The shards' `validation.csv` rows (those that wrote one), runs in run order (`names`),
/// jobs in each run's order.
fn merged_validation(
    dir: &Path,
    shards: &[(Manifest, Vec<SummaryRow>)],
    names: &[String],
) -> Result<Vec<ValidationRow>, CliError> {
    let mut rows = Vec::new();
    for (m, _) in shards {
        let rel = m.shard.validation_file();
        if m.files.iter().any(|f| f.path == rel) {
            rows.extend(tables::read_validation_csv(&dir.join(&rel))?);
        }
    }
    // Stable: a run's jobs keep their order.
    rows.sort_by_key(|r| names.iter().position(|n| *n == r.policy).unwrap_or(usize::MAX));
    Ok(rows)
}

/// The folder of a shard's summary, manifest and plots, relative to `--out`.
fn shard_dir(shard: &Shard) -> PathBuf {
    Path::new(&shard.manifest_file()).parent().map(Path::to_path_buf).unwrap_or_default()
}

/// placer's git revision at build time (`build.rs`), or `unknown`.
const GIT_REVISION: &str = env!("PLACER_GIT_REVISION");

/// `placer whatif summarize DIR`: reads every shard's manifest under `DIR/shards/`, checks that
/// all N of one sweep are there (same N, same config hash, each index once) and that the files
/// they list exist with the recorded sizes, then writes `DIR/summary.csv` with the rows in run
/// order (run k came from shard k mod N) and `DIR/manifest.json` listing every shard's files.
pub fn summarize(dir: &Path) -> Result<(), CliError> {
    let shards_dir = dir.join("shards");
    let entries = std::fs::read_dir(&shards_dir)
        .map_err(|source| CliError::Io { path: shards_dir.clone(), source })?;
    let mut found: Vec<(Manifest, Vec<SummaryRow>)> = Vec::new();
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        let m_path = p.join(MANIFEST_FILE);
        if !m_path.is_file() {
            continue;
        }
        let m = manifest::read_manifest(&m_path)?;
        for f in &m.files {
            let on_disk = std::fs::metadata(dir.join(&f.path)).map(|md| md.len()).ok();
            if on_disk != Some(f.bytes) {
                return Err(CliError::Usage(format!(
                    "{}: {} is missing or has changed since shard {} wrote it",
                    m_path.display(),
                    f.path,
                    m.shard
                )));
            }
        }
        let rows = tables::read_summary_csv(&dir.join(m.shard.summary_file()))?;
        found.push((m, rows));
    }
    let Some((first, _)) = found.first() else {
        return Err(CliError::Usage(format!("{}: no shard manifests", shards_dir.display())));
    };
    let n = first.shard.count;
    let hash = first.config_sha256.clone();
    let first_shard = first.shard;
    let mut by_index: Vec<Option<(Manifest, Vec<SummaryRow>)>> = (0..n).map(|_| None).collect();
    for (m, rows) in found {
        if m.shard.count != n || m.config_sha256 != hash {
            return Err(CliError::Usage(format!(
                "shard {} belongs to another sweep (N or config hash differs from shard {})",
                m.shard, first_shard
            )));
        }
        let i = m.shard.index;
        if by_index[i].is_some() {
            return Err(CliError::Usage(format!("shard {i}/{n} found twice")));
        }
        by_index[i] = Some((m, rows));
    }
    let mut shards = Vec::with_capacity(n);
    for (i, s) in by_index.into_iter().enumerate() {
        shards.push(s.ok_or_else(|| CliError::Usage(format!("shard {i}/{n} is missing")))?);
    }
    // Run k is row k / N of shard k mod N.
    let total: usize = shards.iter().map(|(_, rows)| rows.len()).sum();
    let mut rows = Vec::with_capacity(total);
    let mut names = Vec::with_capacity(total);
    for k in 0..total {
        let (m, shard_rows) = &shards[k % n];
        if let Some(row) = shard_rows.get(k / n) {
            rows.push(row.clone());
            names.push(m.policies.get(k / n).cloned().unwrap_or_default());
        }
    }
    let mut files: Vec<FileEntry> = shards.iter().flat_map(|(m, _)| m.files.clone()).collect();
    files.push(tables::write_summary_csv(dir, &Shard::WHOLE.summary_file(), &rows)?);
    let validation = merged_validation(dir, &shards, &names)?;
    files.extend(tables::write_validation_rows(dir, &Shard::WHOLE.validation_file(), &validation)?);
    let revision = shards[0].0.git_revision.clone();
    let mut draft = Manifest::new(&revision, "", Shard::WHOLE, names.clone(), files.clone());
    draft.config_sha256 = hash.clone();
    let title = format!("placer what-if: {n} shards merged");
    let about = [
        ("merged".to_owned(), format!("{n} shards of one sweep (config {hash})")),
        ("runs".to_owned(), rows.len().to_string()),
    ];
    let page = Shard::WHOLE.index_file();
    files.push(index_html::write_index(dir, &page, &title, &about, &draft)?);
    let mut manifest = Manifest::new(&revision, "", Shard::WHOLE, names, files);
    manifest.config_sha256 = hash;
    manifest::write_manifest(dir, &Shard::WHOLE.manifest_file(), &manifest)?;
    println!("merged {n} shards, {} runs: {}", rows.len(), dir.join("summary.csv").display());
    println!("report: {}", dir.join(page).display());
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    #[test]
    fn hadoop_0_20_heartbeat_interval_grows_with_the_cluster() {
        // max(3 s, ⌊N / 100⌋ + 1 s): the Mumak trace's 1,545 TaskTrackers heartbeat every 16 s.
        let h: Vec<f64> = [1, 100, 199, 200, 299, 300, 600, 1545].map(hadoop_heartbeat_s).to_vec();
        assert_eq!(h, [3.0, 3.0, 3.0, 3.0, 3.0, 4.0, 7.0, 16.0]);
        let heartbeat = policy_flags::knob("heartbeat_s");
        assert!(heartbeat("0").is_err() && heartbeat("inf").is_err());
        assert_eq!(heartbeat("16"), Ok(16.0));
    }

    use super::*;
    use clap::Parser;
    use placer_solver::delay_scheduling::DelayWaits;
    use placer_solver::shuffle::ShuffleKnobs;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        run: RunArgs,
    }

    fn base(line: &str) -> SimConfig {
        let args = Cli::try_parse_from(line.split_whitespace()).unwrap().run;
        let (input, settings) = input(&args).unwrap();
        base_config(&args, &input, &settings)
    }

    #[test]
    fn flags_given_override_the_workloads_settings() {
        // fair-small-jobs sets T1 = T2 = 15 s and 1,000 Mbit/s across racks.
        let waits = |c: &SimConfig| -> DelayWaits { placer_solver::settings::read(&c.policy) };
        let sw_knobs = |c: &SimConfig| -> ShuffleKnobs { placer_solver::settings::read(&c.policy) };
        let preset = base("x --workload fair-small-jobs:jobs=5");
        assert_eq!(waits(&preset).locality_delay_node_s, Some(15.0));
        assert_eq!(waits(&preset).locality_delay_rack_s, Some(15.0));
        assert_eq!((preset.rack_mbps, preset.cross_rack_mbps), (1000.0, 1000.0));
        assert_eq!(preset.cluster, ClusterSource::Workload { map_slots: 6, reduce_slots: 4 });
        let given = base(
            "x --workload fair-small-jobs:jobs=5 --t1-s 5 --cross-rack-mbps 100 --map-slots 2 \
             --slowstart 1 --heartbeat node-multiple",
        );
        assert_eq!(waits(&given).locality_delay_node_s, Some(5.0));
        assert_eq!(waits(&given).locality_delay_rack_s, Some(15.0));
        assert_eq!((given.rack_mbps, given.cross_rack_mbps), (1000.0, 100.0));
        assert_eq!(given.cluster, ClusterSource::Workload { map_slots: 2, reduce_slots: 4 });
        assert_eq!(given.slowstart, 1.0);
        assert_eq!(given.offers, Offers::Heartbeats { assign_multiple: true });
        // Hadoop 0.20's completion reports and setup / cleanup tasks, unless turned off.
        let hadoop = base("x --workload fair-small-jobs:jobs=5");
        assert_eq!(hadoop.completion_report, CompletionReport::Heartbeat);
        assert_eq!((hadoop.job_setup_s, hadoop.job_cleanup_s), (2.0, 2.0));
        assert_eq!(hadoop.job_tasks, JobTasks::Slots);
        let off = base(
            "x --workload fair-small-jobs:jobs=5 --completion-report immediate --job-setup-s 0 \
             --job-cleanup-s 0.5 --job-tasks delay",
        );
        assert_eq!(off.completion_report, CompletionReport::Immediate);
        assert_eq!((off.job_setup_s, off.job_cleanup_s), (0.0, 0.5));
        assert_eq!(off.job_tasks, JobTasks::Delays);
        assert!(Cli::try_parse_from(["x", "--workload", "ras", "--job-setup-s", "-1"]).is_err());
        // shuffle-watcher's oversubscribed uplinks, unless --uplink-mbps says otherwise.
        let sw = "x --workload shuffle-watcher:users=1,jobs_per_user=1,input_scale=0.001";
        assert_eq!(base(sw).uplink_mbps, Some(500.0));
        assert_eq!(base(&format!("{sw} --uplink-mbps 80")).uplink_mbps, Some(80.0));
        // ShuffleWatcher's knobs reach every snapshot's policy; the paper's by default.
        let sw_base = base(sw);
        assert_eq!(sw_knobs(&sw_base), ShuffleKnobs::default());
        assert_eq!(sw_knobs(&sw_base).saturation_threshold, 0.8);
        let knobs = base(&format!(
            "{sw} --sw-mechanisms nass,sarp --saturation-threshold 0.75 \
             --map-completion-threshold 0.3 --starvation-window-s 120"
        ));
        let k = sw_knobs(&knobs);
        assert_eq!(
            k.shuffle_watcher,
            SwMechanisms { nass: true, samp: false, sarp: true, ..SwMechanisms::default() }
        );
        assert_eq!(
            (k.saturation_threshold, k.map_completion_threshold, k.starvation_window_s),
            (0.75, 0.3, 120.0)
        );
        // Any knob through --policy-set, checked by its policy's settings at run time.
        let set = base(&format!("{sw} --policy-set aging_s=60 --policy-set beta=2.5"));
        let fc: placer_solver::policy::lsap_fair::FairnessCost =
            placer_solver::settings::read(&set.policy);
        assert_eq!((fc.beta, fc.aging_s), (2.5, 60.0));
        assert!(Cli::try_parse_from(["x", "--policy-set", "betta=1"]).is_err());
        // Without flags every setting is SimConfig's default but the workload's.
        let plain = base("x --workload ras");
        assert_eq!(plain.slowstart, SimConfig::default().slowstart);
        assert_eq!(plain.offers, Offers::Auto);
        assert_eq!(waits(&plain).locality_delay_node_s, None);
    }

    #[test]
    fn validation_csv_per_shard_merged_in_run_order_and_listed() {
        // One node with one map slot; jobs a and c record real finish times (5 s and 20 s after
        // a submit at 0 and 2 s), b does not. Two runs (fifo, lsap) written as shards 0/2 and
        // 1/2, then merged: validation.csv has a and c of fifo, then of lsap, with error % =
        // (simulated − real) / real · 100 from the jobs' own response times.
        use placer_testkit::workload::{job, map, topology};
        let mut jobs = vec![
            job("a", "default", 0.0, vec![map(0, &["n0"], 4.0, 0)], vec![]),
            job("b", "default", 1.0, vec![map(0, &["n0"], 4.0, 0)], vec![]),
            job("c", "default", 2.0, vec![map(0, &["n0"], 4.0, 0)], vec![]),
        ];
        jobs[0].observed_finish_s = Some(5.0);
        jobs[2].observed_finish_s = Some(22.0);
        let workload = placer_datasets::Workload {
            jobs,
            topology: Some(topology(&[&[("n0", 1, 0)]])),
            ..placer_datasets::Workload::default()
        };
        let dir = std::env::temp_dir().join(format!("placer-validation-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut sims = Vec::new();
        for (i, name) in ["fifo", "lsap"].into_iter().enumerate() {
            let algorithm = crate::parse_policy(name).unwrap();
            let config =
                SimConfig { name: name.to_owned(), ..SimConfig::with_algorithm(algorithm) };
            let report = placer_sim::simulate(&workload, &config).unwrap();
            let run = Run {
                name: name.to_owned(),
                partition: vec![("policy".to_owned(), name.to_owned())],
                config,
            };
            let outputs =
                Outputs { dir: &dir, shard: i, shards: 2, config: "{}", title: "t", about: &[] };
            outputs.write(&[(&run, report.clone())]).unwrap();
            let shard = Shard::new(i, 2).unwrap();
            assert!(dir.join(shard.validation_file()).is_file());
            let m = manifest::read_manifest(&dir.join(shard.manifest_file())).unwrap();
            assert!(m.files.iter().any(|f| f.path == shard.validation_file()));
            sims.push(report);
        }
        summarize(&dir).unwrap();
        let merged = tables::read_validation_csv(&dir.join("validation.csv")).unwrap();
        let got: Vec<(&str, &str)> =
            merged.iter().map(|r| (r.policy.as_str(), r.job.as_str())).collect();
        assert_eq!(got, [("fifo", "a"), ("fifo", "c"), ("lsap", "a"), ("lsap", "c")]);
        for (row, (report, j)) in merged.iter().zip([(0, 0), (0, 2), (1, 0), (1, 2)]) {
            let sim = sims[report].jobs[j].response_s.unwrap();
            let real = [5.0, 0.0, 20.0][j];
            assert_eq!(row.real_response_s, real);
            assert_eq!(row.sim_response_s, Some(sim));
            assert_eq!(row.error_pct, Some((sim - real) / real * 100.0));
        }
        let m = manifest::read_manifest(&dir.join("manifest.json")).unwrap();
        assert!(m.files.iter().any(|f| f.path == "validation.csv" && f.rows == Some(4)));
        let line = ErrorSummary::of(&sims[0]).unwrap().to_string();
        assert!(line.starts_with("validation: policy fifo: median |error| "), "{line}");
        assert!(line.ends_with("% over 2 jobs"), "{line}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
