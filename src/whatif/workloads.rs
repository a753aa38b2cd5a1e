//! The papers' own experiments for `placer whatif --workload NAME[:key=value,...]`
//! (docs/simulator.md, "Inputs"): each preset builds a paper's workload with its seeded generator
//! (`placer_datasets`), on the paper's cluster, with the network and the scheduler settings
//! the experiment states. One function per paper:
//!
//! | NAME | paper | function |
//! |---|---|---|
//! | `fair-bm` | FAIR (Zaharia et al.) §6.1, Table 2: the multi-user macrobenchmark BM on EC2 | [`fair_bm`] |
//! | `fair-small-jobs` | FAIR §6.2.1, Table 3: delay scheduling with small jobs | [`fair_small_jobs`] |
//! | `shuffle-watcher` | ShuffleWatcher (Ahmad et al.) §4, Tables 1–2: the multi-tenant mix | [`shuffle_watcher`] |
//! | `ras` | RAS (Polo et al.) §4.1, Tables 1–2: Gridmix Sort, Combine, Select | [`ras`] |
//! | `gang-mix` | MapReduce jobs with gangs kept inside a rack (KEP-4671 PodGroup, Kueue TAS) | [`gang_mix`] |
//!
//! Keys override the generator spec's fields (each preset's [`KeyDef`] table lists them with
//! their domains; `-` and `_` are the same in key names). They are checked when the command
//! line is parsed: an unknown workload, an unknown key or a value out of its domain is a usage
//! error (exit 2) naming it and listing the known ones. Ranges that involve several fields
//! (replication above the node count) are the generator's to check (exit 1, naming the field).
//!
//! Precedence, lowest first: the paper's setting, the `--workload` keys, the command-line flags
//! (`--nodes`, `--rack-size`, `--map-slots`, `--reduce-slots`, `--rack-mbps`,
//! `--cross-rack-mbps`, `--uplink-mbps`, `--t1-s`, `--t2-s`), then a `--sweep`'s keys. The
//! cluster is always the generator's own topology (`n0..` in racks `r0..`), built with the
//! node count and rack size after the flags: `--nodes N` alone keeps the paper's number of
//! racks (N must split evenly over them), `--rack-size K` alone keeps the paper's node count,
//! both give N / K racks of K. The nodes' slots are moved from the topology to the run's
//! [`ClusterSource::Workload`], so that the sweep keys `map_slots` and `reduce_slots` apply.

use super::load::Input;
use crate::error::CliError;
use placer_datasets::replicas::InputLayout;
use placer_datasets::{
    fair_bm as gen_fair_bm, gang_mix as gen_gang_mix, ras_mix, shuffle_watcher_mix, small_jobs,
    DatasetError, FairBmSpec, GangMixSpec, RasExperiment, RasSpec, ShuffleWatcherSpec,
    SmallJobsSpec, SwCompute, Workload, FAIR_TABLE2, SW_CROSS_RACK_MBPS, SW_RACK_MBPS,
};
use placer_sim::{ClusterSource, ReplicaSource};

const MIB: u64 = 1 << 20;

/// The workloads `--workload` knows, in the order the errors list them.
pub const NAMES: [&str; 5] = ["fair-bm", "fair-small-jobs", "shuffle-watcher", "ras", "gang-mix"];

/// A paper's experiment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paper {
    /// FAIR §6.1's BM.
    FairBm,
    /// FAIR §6.2.1's small jobs.
    FairSmallJobs,
    /// ShuffleWatcher §4's mix.
    ShuffleWatcher,
    /// RAS §4.1's nine jobs.
    Ras,
    /// MapReduce jobs and rack-kept gangs.
    GangMix,
}

impl Paper {
    fn from_name(name: &str) -> Option<Self> {
        match name {
            "fair-bm" => Some(Self::FairBm),
            "fair-small-jobs" => Some(Self::FairSmallJobs),
            "shuffle-watcher" => Some(Self::ShuffleWatcher),
            "ras" => Some(Self::Ras),
            "gang-mix" => Some(Self::GangMix),
            _ => None,
        }
    }

    /// Its `--workload` name.
    pub fn name(self) -> &'static str {
        match self {
            Self::FairBm => "fair-bm",
            Self::FairSmallJobs => "fair-small-jobs",
            Self::ShuffleWatcher => "shuffle-watcher",
            Self::Ras => "ras",
            Self::GangMix => "gang-mix",
        }
    }

    /// The keys it takes.
    pub fn keys(self) -> &'static [KeyDef] {
        match self {
            Self::FairBm => FAIR_BM_KEYS,
            Self::FairSmallJobs => FAIR_SMALL_JOBS_KEYS,
            Self::ShuffleWatcher => SHUFFLE_WATCHER_KEYS,
            Self::Ras => RAS_KEYS,
            Self::GangMix => GANG_MIX_KEYS,
        }
    }
}

/// The domain of a key's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Domain {
    /// An integer ≥ 1.
    Count,
    /// An integer ≥ 0 (slots per node).
    Slots,
    /// A finite number > 0.
    Positive,
    /// A finite number ≥ 0.
    NonNegative,
    /// A number in [0, 1].
    Fraction,
    /// One of these words.
    Choice(&'static [&'static str]),
}

impl Domain {
    fn describe(self) -> String {
        match self {
            Self::Count => "an integer ≥ 1".into(),
            Self::Slots => "an integer ≥ 0".into(),
            Self::Positive => "a finite number > 0".into(),
            Self::NonNegative => "a finite number ≥ 0".into(),
            Self::Fraction => "a number in [0, 1]".into(),
            Self::Choice(words) => format!("one of {}", words.join(", ")),
        }
    }

    fn parse(self, text: &str) -> Option<Value> {
        let int = || text.parse::<u64>().ok();
        let num = || text.parse::<f64>().ok().filter(|x| x.is_finite());
        match self {
            Self::Count => int().filter(|&n| n >= 1).map(Value::Int),
            Self::Slots => int().filter(|&n| n <= u64::from(u32::MAX)).map(Value::Int),
            Self::Positive => num().filter(|&x| x > 0.0).map(Value::Num),
            Self::NonNegative => num().filter(|&x| x >= 0.0).map(Value::Num),
            Self::Fraction => num().filter(|x| (0.0..=1.0).contains(x)).map(Value::Num),
            Self::Choice(words) => words.iter().find(|w| **w == text).map(|w| Value::Word(w)),
        }
    }
}

/// One key of a preset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyDef {
    /// Its name.
    pub name: &'static str,
    /// Its values.
    pub domain: Domain,
}

const fn key(name: &'static str, domain: Domain) -> KeyDef {
    KeyDef { name, domain }
}

/// A parsed value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// From [`Domain::Count`] or [`Domain::Slots`].
    Int(u64),
    /// From the number domains.
    Num(f64),
    /// From [`Domain::Choice`].
    Word(&'static str),
}

/// As written after `key=` on the command line.
impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Int(n) => write!(f, "{n}"),
            Self::Num(x) => write!(f, "{x}"),
            Self::Word(w) => f.write_str(w),
        }
    }
}

/// `--workload NAME[:key=value,...]`, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadArg {
    /// Which experiment.
    pub paper: Paper,
    /// The keys given, in the preset's key order, each once.
    pub keys: Vec<(&'static str, Value)>,
}

impl WorkloadArg {
    fn get(&self, name: &str) -> Option<Value> {
        self.keys.iter().find(|(k, _)| *k == name).map(|&(_, v)| v)
    }

    fn int(&self, name: &str) -> Option<u64> {
        match self.get(name) {
            Some(Value::Int(n)) => Some(n),
            _ => None,
        }
    }

    fn usize(&self, name: &str) -> Option<usize> {
        self.int(name).map(|n| usize::try_from(n).unwrap_or(usize::MAX))
    }

    fn u32(&self, name: &str) -> Option<u32> {
        self.int(name).map(|n| u32::try_from(n).unwrap_or(u32::MAX))
    }

    fn num(&self, name: &str) -> Option<f64> {
        match self.get(name) {
            Some(Value::Num(x)) => Some(x),
            _ => None,
        }
    }

    fn word(&self, name: &str) -> Option<&'static str> {
        match self.get(name) {
            Some(Value::Word(w)) => Some(w),
            _ => None,
        }
    }
}

/// Parses `NAME[:key=value,...]` (the clap value parser of `--workload`).
pub fn parse_workload(s: &str) -> Result<WorkloadArg, String> {
    let (name, rest) = s.split_once(':').unwrap_or((s, ""));
    let paper = Paper::from_name(name.trim())
        .ok_or_else(|| format!("unknown workload `{name}` (known: {})", NAMES.join(", ")))?;
    let defs = paper.keys();
    let known = || defs.iter().map(|d| d.name).collect::<Vec<_>>().join(", ");
    let mut given: Vec<(&'static str, Value)> = Vec::new();
    for item in rest.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let (k, v) = item.split_once('=').ok_or_else(|| {
            format!("{name}: `{item}` is not key=value (known keys: {})", known())
        })?;
        let k = k.trim().replace('-', "_");
        let def = defs
            .iter()
            .find(|d| d.name == k)
            .ok_or_else(|| format!("{name}: unknown key `{k}` (known keys: {})", known()))?;
        let value = def.domain.parse(v.trim()).ok_or_else(|| {
            format!(
                "{name}: key `{k}` = `{}` must be {} (known keys: {})",
                v.trim(),
                def.domain.describe(),
                known()
            )
        })?;
        if given.iter().any(|(g, _)| *g == def.name) {
            return Err(format!("{name}: key `{k}` given twice"));
        }
        given.push((def.name, value));
    }
    given.sort_by_key(|(k, _)| defs.iter().position(|d| d.name == *k));
    let arg = WorkloadArg { paper, keys: given };
    if paper == Paper::Ras {
        if let (Some(e), Some(g)) = (arg.word("experiment"), arg.word("goals")) {
            if (e == "1") != (g == "relaxed") {
                return Err(format!(
                    "ras: experiment={e} and goals={g} disagree (experiment 1 has relaxed goals, \
                     2 tight ones)"
                ));
            }
        }
    }
    Ok(arg)
}

/// The cluster flags a user gave (`None` = not given).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClusterFlags {
    /// `--nodes`.
    pub nodes: Option<usize>,
    /// `--rack-size`.
    pub rack_size: Option<usize>,
    /// `--map-slots`.
    pub map_slots: Option<u32>,
    /// `--reduce-slots`.
    pub reduce_slots: Option<u32>,
}

/// A preset's run settings besides the workload and cluster (the defaults of a trace replay
/// where the paper says nothing).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// In-rack link (a node's NIC), Mbit/s.
    pub rack_mbps: f64,
    /// Rack-to-rack path, Mbit/s.
    pub cross_rack_mbps: f64,
    /// Rack uplink and downlink, Mbit/s.
    pub uplink_mbps: Option<f64>,
    /// Delay scheduling's T1, s.
    pub t1_s: Option<f64>,
    /// Delay scheduling's T2, s.
    pub t2_s: Option<f64>,
    /// The reduces' slow start (a fraction of the job's maps done); `None`: the simulator's.
    pub slowstart: Option<f64>,
}

impl Default for Settings {
    /// A trace replay's: 1000 / 100 Mbit/s, no rack limit, T1 and T2 from the heartbeat.
    fn default() -> Self {
        Self {
            rack_mbps: 1000.0,
            cross_rack_mbps: 100.0,
            uplink_mbps: None,
            t1_s: None,
            t2_s: None,
            slowstart: None,
        }
    }
}

/// A built experiment.
pub struct Experiment {
    /// The workload and its cluster.
    pub input: Input,
    /// The paper's network and scheduler settings.
    pub settings: Settings,
}

/// Builds `arg`'s experiment with generator seed `seed`, the user's cluster flags applied.
pub fn build(arg: &WorkloadArg, seed: u64, flags: &ClusterFlags) -> Result<Experiment, CliError> {
    match arg.paper {
        Paper::FairBm => fair_bm(arg, seed, flags),
        Paper::FairSmallJobs => fair_small_jobs(arg, seed, flags),
        Paper::ShuffleWatcher => shuffle_watcher(arg, seed, flags),
        Paper::Ras => ras(arg, seed, flags),
        Paper::GangMix => gang_mix(arg, seed, flags),
    }
}

/// `racks` × `per_rack` after `--nodes` / `--rack-size` (module docs).
fn reshape(
    paper: Paper,
    racks: &mut usize,
    per_rack: &mut usize,
    flags: &ClusterFlags,
) -> Result<(), CliError> {
    let bad = |m: String| CliError::Usage(format!("--workload {}: {m}", paper.name()));
    match (flags.nodes, flags.rack_size) {
        (None, None) => {}
        (Some(n), None) => {
            if *racks == 0 || n == 0 || n % *racks != 0 {
                return Err(bad(format!(
                    "--nodes {n} does not split into the experiment's {racks} equal racks; give \
                     --rack-size too"
                )));
            }
            *per_rack = n / *racks;
        }
        (nodes, Some(k)) => {
            let n = nodes.unwrap_or(*racks * *per_rack);
            if k == 0 || n == 0 || n % k != 0 {
                return Err(bad(format!(
                    "{n} nodes do not split into racks of --rack-size {k} (the generator builds \
                     equal racks)"
                )));
            }
            (*racks, *per_rack) = (n / k, k);
        }
    }
    Ok(())
}

/// A generator's spec error as a usage error naming the workload and the field.
fn spec_error(paper: Paper, e: DatasetError) -> CliError {
    match e {
        DatasetError::InvalidSpec { field, message } => CliError::Usage(format!(
            "--workload {}: {}: {message}",
            paper.name(),
            field.replace('-', "_")
        )),
        other => CliError::Dataset(other),
    }
}

/// The workload on its own topology, the nodes' slots moved to the cluster source.
fn on_own_topology(mut workload: Workload, map_slots: u32, reduce_slots: u32) -> Input {
    if let Some(t) = &mut workload.topology {
        for node in t.racks.iter_mut().flat_map(|r| r.nodes.iter_mut()) {
            (node.map_slots, node.reduce_slots) = (None, None);
        }
    }
    Input {
        workload,
        cluster: ClusterSource::Workload { map_slots, reduce_slots },
        replicas: ReplicaSource::Workload,
    }
}

const FAIR_BM_KEYS: &[KeyDef] = &[
    key("jobs", Domain::Count),
    key("mean_interarrival_s", Domain::Positive),
    key("users", Domain::Count),
    key("racks", Domain::Count),
    key("nodes_per_rack", Domain::Count),
    key("map_slots", Domain::Slots),
    key("reduce_slots", Domain::Slots),
    key("block_mib", Domain::Count),
    key("replication", Domain::Count),
    key("min_block_compute_s", Domain::NonNegative),
    key("max_block_compute_s", Domain::NonNegative),
];

/// Table 2's "Jobs in BM" scaled to `jobs` by largest remainders (ties to the smaller bin):
/// the bins' sizes stay the paper's, their mix the paper's as nearly as `jobs` allows.
/// Example: 10 jobs → 6, 1, 1, 1, 1, 0, 0, 0, 0.
fn bm_jobs_per_bin(jobs: usize) -> Vec<usize> {
    let total: usize = FAIR_TABLE2.iter().map(|b| b.jobs).sum();
    let exact: Vec<(usize, usize)> = FAIR_TABLE2
        .iter()
        .map(|b| (b.jobs * jobs / total, (b.jobs * jobs) % total)) // (floor, remainder · total)
        .collect();
    let mut counts: Vec<usize> = exact.iter().map(|e| e.0).collect();
    let left = jobs - counts.iter().sum::<usize>();
    let mut order: Vec<usize> = (0..exact.len()).collect();
    order.sort_by(|&a, &b| exact[b].1.cmp(&exact[a].1).then(a.cmp(&b)));
    for &i in order.iter().take(left) {
        counts[i] += 1;
    }
    counts
}

/// FAIR §6.1 and Table 2 (Zaharia et al., EuroSys 2010): the multi-user macrobenchmark BM —
/// 50 loadgen jobs in Table 2's nine size bins, Poisson arrivals every 30 s, 5–25% reduces,
/// 9–60 s maps, one pool per user ([`FairBmSpec::paper`]) — on the EC2 cluster of Table 1:
/// 100 nodes with 4 map and 2 reduce slots. EC2 gives no topology and "nodes were able to send
/// 1 Gbps to each other" (§6): one rack, 1,000 Mbit/s links (and 1,000 across racks should
/// `--rack-size` split it). §6.1 sets no delay-scheduling waits: the policy defaults apply.
///
/// Keys: `jobs` (Table 2's mix scaled by largest remainders, e.g. 10 → six 16-map jobs and one
/// each of 40, 80, 160 and 320 maps), `mean_interarrival_s`, `users`, `racks`,
/// `nodes_per_rack`, `map_slots`, `reduce_slots`, `block_mib`, `replication`,
/// `min_block_compute_s`, `max_block_compute_s`.
pub fn fair_bm(arg: &WorkloadArg, seed: u64, flags: &ClusterFlags) -> Result<Experiment, CliError> {
    let mut spec = FairBmSpec::paper(seed);
    if let Some(jobs) = arg.usize("jobs") {
        for (bin, n) in spec.bins.iter_mut().zip(bm_jobs_per_bin(jobs)) {
            bin.jobs = n;
        }
    }
    spec.mean_interarrival_s = arg.num("mean_interarrival_s").unwrap_or(spec.mean_interarrival_s);
    spec.users = arg.usize("users").unwrap_or(spec.users);
    spec.racks = arg.usize("racks").unwrap_or(spec.racks);
    spec.nodes_per_rack = arg.usize("nodes_per_rack").unwrap_or(spec.nodes_per_rack);
    spec.map_slots = flags.map_slots.or(arg.u32("map_slots")).unwrap_or(spec.map_slots);
    spec.reduce_slots = flags.reduce_slots.or(arg.u32("reduce_slots")).unwrap_or(spec.reduce_slots);
    spec.block_bytes = arg.int("block_mib").map_or(spec.block_bytes, |m| m.saturating_mul(MIB));
    spec.replication = arg.usize("replication").unwrap_or(spec.replication);
    spec.min_block_compute_s = arg.num("min_block_compute_s").unwrap_or(spec.min_block_compute_s);
    spec.max_block_compute_s = arg.num("max_block_compute_s").unwrap_or(spec.max_block_compute_s);
    reshape(arg.paper, &mut spec.racks, &mut spec.nodes_per_rack, flags)?;
    let workload = gen_fair_bm(&spec).map_err(|e| spec_error(arg.paper, e))?;
    Ok(Experiment {
        input: on_own_topology(workload, spec.map_slots, spec.reduce_slots),
        settings: Settings { rack_mbps: 1000.0, cross_rack_mbps: 1000.0, ..Settings::default() },
    })
}

const FAIR_SMALL_JOBS_KEYS: &[KeyDef] = &[
    key("maps", Domain::Count),
    key("jobs", Domain::Count),
    key("mean_interarrival_s", Domain::Positive),
    key("racks", Domain::Count),
    key("nodes_per_rack", Domain::Count),
    key("map_slots", Domain::Slots),
    key("reduce_slots", Domain::Slots),
    key("block_mib", Domain::Count),
    key("replication", Domain::Count),
    key("keep", Domain::Fraction),
    key("map_compute_s", Domain::NonNegative),
];

/// The job size `fair-small-jobs` runs without `maps=`: Table 3's first row, where delay
/// scheduling matters most (2% → 75% node-local in the paper).
pub const SMALL_JOBS_DEFAULT_MAPS: usize = 3;

/// The paper's delay-scheduling waits of §6.2.1, T1 = T2, s.
pub const FAIR_TABLE3_DELAY_S: f64 = 15.0;

/// FAIR §6.2.1, Table 3 and Fig. 12 (Zaharia et al., EuroSys 2010): map-only scan jobs of
/// `maps` one-block maps ([`SmallJobsSpec::paper`]: 36,000 maps per job size, Poisson
/// arrivals over 1,200 s) on the Small Private Cluster of Table 1 — 100 nodes in 4 racks, 6 map
/// and 4 reduce slots, 1 Gbps Ethernet — with delay scheduling's T1 = T2 = 15 s. The cluster
/// "spanned only 4 racks" with "fairly good bisection bandwidth" (§6): 1,000 Mbit/s links in
/// and across racks (the 1,000 Mbit/s setting of `benches/fair_table3.rs`).
///
/// Keys: `maps` (per job; default 3, Table 3's first row; the job count and the arrival rate
/// follow the paper's rule for that size), `jobs` (the count only: the arrival rate stays the
/// size's, so fewer jobs arrive over a shorter window), `mean_interarrival_s`, `racks`,
/// `nodes_per_rack`, `map_slots`, `reduce_slots`, `block_mib`, `replication`, `keep` (map
/// output / input), `map_compute_s`.
pub fn fair_small_jobs(
    arg: &WorkloadArg,
    seed: u64,
    flags: &ClusterFlags,
) -> Result<Experiment, CliError> {
    let mut spec = SmallJobsSpec::paper(arg.usize("maps").unwrap_or(SMALL_JOBS_DEFAULT_MAPS), seed);
    spec.jobs = arg.usize("jobs").unwrap_or(spec.jobs);
    spec.mean_interarrival_s = arg.num("mean_interarrival_s").unwrap_or(spec.mean_interarrival_s);
    spec.racks = arg.usize("racks").unwrap_or(spec.racks);
    spec.nodes_per_rack = arg.usize("nodes_per_rack").unwrap_or(spec.nodes_per_rack);
    spec.map_slots = flags.map_slots.or(arg.u32("map_slots")).unwrap_or(spec.map_slots);
    spec.reduce_slots = flags.reduce_slots.or(arg.u32("reduce_slots")).unwrap_or(spec.reduce_slots);
    spec.block_bytes = arg.int("block_mib").map_or(spec.block_bytes, |m| m.saturating_mul(MIB));
    spec.replication = arg.usize("replication").unwrap_or(spec.replication);
    spec.keep = arg.num("keep").unwrap_or(spec.keep);
    spec.map_compute_s = arg.num("map_compute_s").unwrap_or(spec.map_compute_s);
    reshape(arg.paper, &mut spec.racks, &mut spec.nodes_per_rack, flags)?;
    let workload = small_jobs(&spec).map_err(|e| spec_error(arg.paper, e))?;
    Ok(Experiment {
        input: on_own_topology(workload, spec.map_slots, spec.reduce_slots),
        settings: Settings {
            rack_mbps: 1000.0,
            cross_rack_mbps: 1000.0,
            uplink_mbps: None,
            t1_s: Some(FAIR_TABLE3_DELAY_S),
            t2_s: Some(FAIR_TABLE3_DELAY_S),
            slowstart: None,
        },
    })
}

const SHUFFLE_WATCHER_KEYS: &[KeyDef] = &[
    key("users", Domain::Count),
    key("jobs_per_user", Domain::Count),
    key("mean_interarrival_s", Domain::Positive),
    key("input_scale", Domain::Positive),
    key("heavy_shuffle_ratio", Domain::Positive),
    key("racks", Domain::Count),
    key("nodes_per_rack", Domain::Count),
    key("map_slots", Domain::Slots),
    key("reduce_slots", Domain::Slots),
    key("block_mib", Domain::Count),
    key("replication", Domain::Count),
    key("max_reduces", Domain::Count),
    key("reduce_input_mib", Domain::Count),
    key("layout", Domain::Choice(&["hdfs", "writer-rack", "writer-node"])),
    key("map_compute_s", Domain::NonNegative),
    key("reduce_compute_s_per_gib", Domain::NonNegative),
    key("compute", Domain::Choice(&["uniform", "per-benchmark"])),
    key("regime", Domain::Choice(&["paper", "loaded"])),
    key("target_utilisation", Domain::Positive),
];

/// ShuffleWatcher §4.1–4.3 and Tables 1–2 (Ahmad et al.): 30 users × 12 jobs of PUMA/Hadoop
/// benchmarks in Table 1's shares with Table 2's input sizes, exponential arrivals every 40 s
/// ([`ShuffleWatcherSpec::paper`]), on the 100-node EC2 testbed split into 10 sub-clusters
/// (racks) of 10 nodes, 4 map and 2 reduce slots each (§4.2). Network (§4.1): about 250
/// Mbit/s per node inside a sub-cluster ([`SW_RACK_MBPS`]), and the aggregate cross-rack
/// bandwidth of a sub-cluster limited to 500 Mbit/s, "50 Mbps ... per-node bisection
/// bandwidth" ([`SW_CROSS_RACK_MBPS`]), the 5:1 oversubscription: each rack's uplink and
/// downlink = 50 Mbit/s × nodes per rack (500), and the rack-to-rack path the same (a pair is
/// never the tighter limit). NWSaturationThreshold (400 of 500 Mbit/s) and
/// MapCompletionThreshold (15%) are the snapshots' policy defaults (`saturation_threshold`
/// 0.8, `map_completion_threshold` 0.15; `--saturation-threshold`, `--map-completion-threshold`
/// override them).
///
/// Keys: `users`, `jobs_per_user`, `mean_interarrival_s`, `input_scale` (every input size ×
/// this; Table 2 as printed is ~62 TB per run), `heavy_shuffle_ratio`, `racks`,
/// `nodes_per_rack`, `map_slots`, `reduce_slots`, `block_mib`, `replication`, `max_reduces`,
/// `reduce_input_mib` (a job's reduces: ⌈shuffle / this⌉, at most `max_reduces`; 1,024),
/// `layout` (`hdfs`, `writer-rack` or `writer-node`: where each job's input was written,
/// [`placer_datasets::replicas::InputLayout`]; `hdfs`), `map_compute_s`,
/// `reduce_compute_s_per_gib`, `compute` (`uniform` or `per-benchmark`: a map's compute by its
/// benchmark's kind, the mix's mean kept; [`SwCompute`]; `uniform`), `target_utilisation`
/// (the offered map load ρ that sets the arrivals; replaces `mean_interarrival_s`), `regime`
/// (`paper`: the settings as printed, the default; `loaded`: [`SW_LOADED`], the cluster under
/// the full load of §4.3, each of its keys overridable, and the reduces' slow start at 1 unless
/// `--slowstart` is given).
pub fn shuffle_watcher(
    arg: &WorkloadArg,
    seed: u64,
    flags: &ClusterFlags,
) -> Result<Experiment, CliError> {
    let mut spec = ShuffleWatcherSpec::paper(seed);
    let loaded = arg.word("regime") == Some("loaded");
    if loaded {
        spec.input_scale = SW_LOADED.input_scale;
        spec.compute = SwCompute::PerBenchmark;
        spec.map_compute_s = SW_LOADED.map_compute_s;
        spec.target_utilisation = Some(SW_LOADED.target_utilisation);
    }
    spec.users = arg.usize("users").unwrap_or(spec.users);
    spec.jobs_per_user = arg.usize("jobs_per_user").unwrap_or(spec.jobs_per_user);
    spec.mean_interarrival_s = arg.num("mean_interarrival_s").unwrap_or(spec.mean_interarrival_s);
    spec.input_scale = arg.num("input_scale").unwrap_or(spec.input_scale);
    spec.heavy_shuffle_ratio = arg.num("heavy_shuffle_ratio").unwrap_or(spec.heavy_shuffle_ratio);
    spec.racks = arg.usize("racks").unwrap_or(spec.racks);
    spec.nodes_per_rack = arg.usize("nodes_per_rack").unwrap_or(spec.nodes_per_rack);
    spec.map_slots = flags.map_slots.or(arg.u32("map_slots")).unwrap_or(spec.map_slots);
    spec.reduce_slots = flags.reduce_slots.or(arg.u32("reduce_slots")).unwrap_or(spec.reduce_slots);
    spec.block_bytes = arg.int("block_mib").map_or(spec.block_bytes, |m| m.saturating_mul(MIB));
    spec.replication = arg.usize("replication").unwrap_or(spec.replication);
    spec.max_reduces = arg.usize("max_reduces").unwrap_or(spec.max_reduces);
    spec.reduce_input_bytes =
        arg.int("reduce_input_mib").map_or(spec.reduce_input_bytes, |m| m.saturating_mul(MIB));
    if let Some(layout) = arg.word("layout") {
        // The key's domain admits only the three names.
        spec.layout = InputLayout::from_name(layout).unwrap_or_default();
    }
    spec.map_compute_s = arg.num("map_compute_s").unwrap_or(spec.map_compute_s);
    spec.reduce_compute_s_per_gib =
        arg.num("reduce_compute_s_per_gib").unwrap_or(spec.reduce_compute_s_per_gib);
    if let Some(compute) = arg.word("compute") {
        // The key's domain admits only the two names.
        spec.compute = SwCompute::from_name(compute).unwrap_or_default();
    }
    spec.target_utilisation = arg.num("target_utilisation").or(spec.target_utilisation);
    reshape(arg.paper, &mut spec.racks, &mut spec.nodes_per_rack, flags)?;
    let workload = shuffle_watcher_mix(&spec).map_err(|e| spec_error(arg.paper, e))?;
    let uplink = SW_CROSS_RACK_MBPS * spec.nodes_per_rack as f64;
    Ok(Experiment {
        input: on_own_topology(workload, spec.map_slots, spec.reduce_slots),
        settings: Settings {
            rack_mbps: SW_RACK_MBPS,
            cross_rack_mbps: uplink,
            uplink_mbps: Some(uplink),
            slowstart: loaded.then_some(SW_LOADED.slowstart),
            ..Settings::default()
        },
    })
}

/// ShuffleWatcher's mix under load (`regime=loaded`; BENCHMARKS.md, "ShuffleWatcher in the
/// loaded regime", measures it under `fair`, seeds 1–3):
/// - `input_scale` 0.045: Table 3's shuffle volumes under Fair (1,261 / 70 / 13 GB heavy /
///   medium / light) within 10–15% (the mix as printed is ~20× Table 3's volumes);
/// - per-benchmark map compute (short maps for the Shuffle-heavy jobs, long ones for the
///   light), `map_compute_s` 50 s per block on average, and arrivals set for an offered map
///   load of 0.95: the map slots are ~96% busy, as §4.3's "utilize the cluster maximally";
/// - the reduces start once their job's maps are done (slow start 1): with Hadoop's 5% the
///   shuffle trickles out at the rate maps finish and the cross-rack links are at 80% of the
///   bisection in 2–3% of the minutes, where Fig. 1 shows long saturated stretches.
pub struct SwLoaded {
    /// Multiplier on Table 2's sizes.
    pub input_scale: f64,
    /// Mean map compute per block, s.
    pub map_compute_s: f64,
    /// Offered map load.
    pub target_utilisation: f64,
    /// The reduces' slow start.
    pub slowstart: f64,
}

/// The loaded regime's settings ([`SwLoaded`]).
pub const SW_LOADED: SwLoaded =
    SwLoaded { input_scale: 0.045, map_compute_s: 50.0, target_utilisation: 0.95, slowstart: 1.0 };

const RAS_KEYS: &[KeyDef] = &[
    key("experiment", Domain::Choice(&["1", "2"])),
    key("goals", Domain::Choice(&["relaxed", "tight"])),
    key("nodes", Domain::Count),
    key("map_slots", Domain::Slots),
    key("block_mib", Domain::Count),
    key("replication", Domain::Count),
    key("sort_reduces", Domain::Count),
    key("work_scale", Domain::Positive),
];

/// Reduce slots of a RAS TaskTracker: RAS is slot-free and the paper states only the Fair
/// Scheduler's map slots (Fig. 3); Hadoop's default `mapred.tasktracker.reduce.tasks.maximum`.
pub const RAS_REDUCE_SLOTS: u32 = 2;

/// RAS §4.1 and Tables 1–2 (Polo et al.): Gridmix Sort, Combine and Select, three instances
/// each (J1–J9) with Table 1's inputs and submission times and Table 2's per-phase resource
/// demands ([`RasSpec::paper`]), on the 20 TaskTrackers of §4.1 (one rack, Gigabit Ethernet:
/// 1,000 Mbit/s) with Fig. 3's best static setting of 4 map slots each, and 2 reduce slots
/// ([`RAS_REDUCE_SLOTS`]). Experiment 1 (§4.2) has relaxed goals (none), experiment 2 (§4.3)
/// Table 1's completion-time goals.
///
/// Keys: `experiment` (`1` or `2`; default 1) or equivalently `goals` (`relaxed` or `tight`),
/// `nodes`, `map_slots`, `block_mib`, `replication`, `sort_reduces`, `work_scale` (every map's
/// compute time from Table 1's lengths × this; default 1, the lengths in isolation;
/// BENCHMARKS.md derives 0.684, where Fair with 4 slots ends Experiment 2 at 4,792 s against the
/// paper's 4,781 s). `--rack-size` does not
/// apply (one rack); `--reduce-slots` sets the reduce slots.
pub fn ras(arg: &WorkloadArg, seed: u64, flags: &ClusterFlags) -> Result<Experiment, CliError> {
    let tight = arg.word("experiment") == Some("2") || arg.word("goals") == Some("tight");
    let experiment = if tight { RasExperiment::Two } else { RasExperiment::One };
    let mut spec = RasSpec::paper(experiment, seed);
    spec.nodes = flags.nodes.or(arg.usize("nodes")).unwrap_or(spec.nodes);
    spec.map_slots = flags.map_slots.or(arg.u32("map_slots")).unwrap_or(spec.map_slots);
    spec.block_bytes = arg.int("block_mib").map_or(spec.block_bytes, |m| m.saturating_mul(MIB));
    spec.replication = arg.usize("replication").unwrap_or(spec.replication);
    spec.sort_reduces = arg.usize("sort_reduces").unwrap_or(spec.sort_reduces);
    spec.work_scale = arg.num("work_scale").unwrap_or(spec.work_scale);
    if let Some(k) = flags.rack_size {
        if k != spec.nodes {
            return Err(CliError::Usage(format!(
                "--workload ras: the RAS cluster is one rack of {} TaskTrackers (§4.1); \
                 --rack-size {k} does not apply",
                spec.nodes
            )));
        }
    }
    let workload = ras_mix(&spec).map_err(|e| spec_error(arg.paper, e))?;
    let reduce_slots = flags.reduce_slots.unwrap_or(RAS_REDUCE_SLOTS);
    Ok(Experiment {
        input: on_own_topology(workload, spec.map_slots, reduce_slots),
        settings: Settings { rack_mbps: 1000.0, cross_rack_mbps: 1000.0, ..Settings::default() },
    })
}

const GANG_MIX_KEYS: &[KeyDef] = &[
    key("jobs", Domain::Count),
    key("mean_interarrival_s", Domain::Positive),
    key("gang_fraction", Domain::Fraction),
    key("required_fraction", Domain::Fraction),
    key("gang_compute_s", Domain::NonNegative),
    key("max_maps", Domain::Count),
    key("map_compute_s", Domain::NonNegative),
    key("reduce_compute_s", Domain::NonNegative),
    key("racks", Domain::Count),
    key("nodes_per_rack", Domain::Count),
    key("map_slots", Domain::Slots),
    key("reduce_slots", Domain::Slots),
    key("block_mib", Domain::Count),
    key("replication", Domain::Count),
];

/// A mixed workload of MapReduce jobs and gangs kept inside a rack
/// ([`placer_datasets::gang_mix`]: all-or-nothing jobs as KEP-4671's PodGroup and Volcano's
/// `minMember`, rack domains as Kueue Topology Aware Scheduling's required and preferred
/// topology), on 8 racks of 8 nodes with 4 map and 2 reduce slots, 1,000 Mbit/s in a rack and
/// 100 across. Not a paper's experiment: the workload on which placer's joint placement of
/// gangs is compared with greedy per-workload placement. A policy that cannot honour gangs
/// sees the gangs as ordinary jobs (the simulator sends their `gang` and `topology` only to
/// the policies that honour them).
///
/// Keys: `jobs`, `mean_interarrival_s`, `gang_fraction`, `required_fraction` (of the gangs,
/// those whose rack is required; the others prefer one), `gang_compute_s`, `max_maps`,
/// `map_compute_s`, `reduce_compute_s`, `racks`, `nodes_per_rack`, `map_slots`,
/// `reduce_slots`, `block_mib`, `replication` ([`GangMixSpec`]'s fields).
pub fn gang_mix(
    arg: &WorkloadArg,
    seed: u64,
    flags: &ClusterFlags,
) -> Result<Experiment, CliError> {
    let d = GangMixSpec { seed, ..GangMixSpec::default() };
    let mut spec = GangMixSpec {
        jobs: arg.usize("jobs").unwrap_or(d.jobs),
        mean_interarrival_s: arg.num("mean_interarrival_s").unwrap_or(d.mean_interarrival_s),
        gang_fraction: arg.num("gang_fraction").unwrap_or(d.gang_fraction),
        required_fraction: arg.num("required_fraction").unwrap_or(d.required_fraction),
        gang_compute_s: arg.num("gang_compute_s").unwrap_or(d.gang_compute_s),
        max_maps: arg.usize("max_maps").unwrap_or(d.max_maps),
        map_compute_s: arg.num("map_compute_s").unwrap_or(d.map_compute_s),
        reduce_compute_s: arg.num("reduce_compute_s").unwrap_or(d.reduce_compute_s),
        racks: arg.usize("racks").unwrap_or(d.racks),
        nodes_per_rack: arg.usize("nodes_per_rack").unwrap_or(d.nodes_per_rack),
        map_slots: flags.map_slots.or(arg.u32("map_slots")).unwrap_or(d.map_slots),
        reduce_slots: flags.reduce_slots.or(arg.u32("reduce_slots")).unwrap_or(d.reduce_slots),
        block_mib: arg.int("block_mib").unwrap_or(d.block_mib),
        replication: arg.usize("replication").unwrap_or(d.replication),
        ..d
    };
    reshape(arg.paper, &mut spec.racks, &mut spec.nodes_per_rack, flags)?;
    let workload = gen_gang_mix(&spec).map_err(|e| spec_error(arg.paper, e))?;
    Ok(Experiment {
        input: on_own_topology(workload, spec.map_slots, spec.reduce_slots),
        settings: Settings::default(),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    fn parse(s: &str) -> WorkloadArg {
        parse_workload(s).unwrap()
    }

    fn build_ok(s: &str, flags: ClusterFlags) -> Experiment {
        build(&parse(s), 1, &flags).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    /// (racks, nodes per rack, map slots per node, reduce slots per node) of a built cluster.
    fn shape(x: &Experiment) -> (usize, Vec<usize>, u32, u32) {
        let t = x.input.workload.topology.as_ref().unwrap();
        assert!(t.nodes().all(|(_, n)| n.map_slots.is_none() && n.reduce_slots.is_none()));
        let ClusterSource::Workload { map_slots, reduce_slots } = x.input.cluster else {
            panic!("{:?}", x.input.cluster)
        };
        (t.racks.len(), t.racks.iter().map(|r| r.nodes.len()).collect(), map_slots, reduce_slots)
    }

    #[test]
    fn names_keys_and_values_are_checked_with_the_known_ones_listed() {
        let e = parse_workload("fair-tiny").unwrap_err();
        assert!(e.contains("fair-tiny") && e.contains("fair-small-jobs, shuffle-watcher"), "{e}");
        let e = parse_workload("fair-small-jobs:mapz=3").unwrap_err();
        assert!(e.contains("`mapz`") && e.contains("maps, jobs, mean_interarrival_s"), "{e}");
        let e = parse_workload("fair-small-jobs:maps=0").unwrap_err();
        assert!(e.contains("`maps`") && e.contains("integer ≥ 1"), "{e}");
        let e = parse_workload("fair-small-jobs:keep=2").unwrap_err();
        assert!(e.contains("`keep`") && e.contains("[0, 1]"), "{e}");
        let e = parse_workload("ras:experiment=3").unwrap_err();
        assert!(e.contains("one of 1, 2") && e.contains("goals"), "{e}");
        assert!(parse_workload("ras:experiment=1,goals=tight").is_err());
        assert!(parse_workload("fair-bm:jobs").is_err());
        assert!(parse_workload("fair-bm:jobs=5,jobs=6").is_err());
        // Keys in the preset's order whatever the order given; `-` reads as `_`.
        let a = parse("fair-small-jobs:jobs=30,maps=3,map-compute-s=1.5");
        assert_eq!(
            a.keys,
            [("maps", Value::Int(3)), ("jobs", Value::Int(30)), ("map_compute_s", Value::Num(1.5))]
        );
        assert_eq!(parse("ras").keys, []);
        assert_eq!(parse("ras:").keys, []);
    }

    #[test]
    fn fair_small_jobs_is_table3_on_the_small_private_cluster() {
        let x = build_ok("fair-small-jobs", ClusterFlags::default());
        assert_eq!(shape(&x), (4, vec![25; 4], 6, 4));
        assert_eq!(x.input.workload.jobs.len(), 12_000, "3-map jobs by default");
        assert_eq!((x.settings.t1_s, x.settings.t2_s), (Some(15.0), Some(15.0)));
        assert_eq!((x.settings.rack_mbps, x.settings.cross_rack_mbps), (1000.0, 1000.0));
        // Keys: 30 jobs of 10 maps at the 10-map size's rate (one every 12 / 30 = 0.4 s).
        let x = build_ok("fair-small-jobs:maps=10,jobs=30", ClusterFlags::default());
        let w = &x.input.workload;
        assert_eq!((w.jobs.len(), w.maps()), (30, 300));
        assert!(w.jobs.last().unwrap().submit_s < 30.0, "{}", w.jobs.last().unwrap().submit_s);
    }

    #[test]
    fn flags_override_the_papers_cluster() {
        let flags = |nodes, rack_size, map_slots| ClusterFlags {
            nodes,
            rack_size,
            map_slots,
            reduce_slots: None,
        };
        let s = "fair-small-jobs:maps=3,jobs=5";
        // --nodes alone keeps the 4 racks; --rack-size alone keeps the 100 nodes; both.
        assert_eq!(shape(&build_ok(s, flags(Some(40), None, None))), (4, vec![10; 4], 6, 4));
        assert_eq!(shape(&build_ok(s, flags(None, Some(50), Some(2)))), (2, vec![50; 2], 2, 4));
        assert_eq!(shape(&build_ok(s, flags(Some(30), Some(10), None))), (3, vec![10; 3], 6, 4));
        let e = build(&parse(s), 1, &flags(Some(30), None, None)).err().unwrap().to_string();
        assert!(e.contains("--nodes 30") && e.contains("--rack-size"), "{e}");
        // A flag beats a key.
        let x = build_ok("fair-small-jobs:jobs=5,map_slots=3", flags(None, None, Some(1)));
        assert_eq!(shape(&x).2, 1);
        let x = build_ok("fair-small-jobs:jobs=5,map_slots=3", ClusterFlags::default());
        assert_eq!(shape(&x).2, 3);
        // Cross-field ranges are the generator's, named by field.
        let e = build(
            &parse("fair-small-jobs:jobs=5,replication=9"),
            1,
            &flags(Some(4), Some(4), None),
        )
        .err()
        .unwrap()
        .to_string();
        assert!(e.contains("replication"), "{e}");
    }

    #[test]
    fn fair_bm_is_table2_on_ec2() {
        let x = build_ok("fair-bm", ClusterFlags::default());
        assert_eq!(shape(&x), (1, vec![100], 4, 2));
        assert_eq!((x.input.workload.jobs.len(), x.input.workload.maps()), (50, 13_784));
        assert_eq!(x.settings.t1_s, None);
        // 10 jobs by largest remainders over Table 2: 16-map ×6, 40, 80, 160, 320 ×1 each.
        assert_eq!(bm_jobs_per_bin(10), [6, 1, 1, 1, 1, 0, 0, 0, 0]);
        assert_eq!(bm_jobs_per_bin(50), FAIR_TABLE2.map(|b| b.jobs));
        let x = build_ok("fair-bm:jobs=10", ClusterFlags::default());
        assert_eq!(x.input.workload.maps(), 6 * 16 + 40 + 80 + 160 + 320);
    }

    #[test]
    fn shuffle_watcher_is_ten_racks_of_ten_with_5_to_1_uplinks() {
        let s = "shuffle-watcher:users=2,jobs_per_user=2,input_scale=0.001";
        let x = build_ok(s, ClusterFlags::default());
        assert_eq!(shape(&x), (10, vec![10; 10], 4, 2));
        assert_eq!(x.input.workload.jobs.len(), 4);
        let st = x.settings;
        assert_eq!((st.rack_mbps, st.cross_rack_mbps, st.uplink_mbps), (250.0, 500.0, Some(500.0)));
        // 50 Mbit/s per node of the rack: racks of 5 get 250.
        let x = build_ok(s, ClusterFlags { rack_size: Some(5), ..ClusterFlags::default() });
        assert_eq!(shape(&x).0, 20);
        assert_eq!(x.settings.uplink_mbps, Some(250.0));
    }

    #[test]
    fn shuffle_watcher_loaded_regime_sets_its_keys_and_the_slow_start() {
        let paper = build_ok("shuffle-watcher:users=2,jobs_per_user=2", ClusterFlags::default());
        assert_eq!(paper.settings.slowstart, None);
        let s = "shuffle-watcher:regime=loaded,users=2,jobs_per_user=2";
        let loaded = build_ok(s, ClusterFlags::default());
        assert_eq!(loaded.settings.slowstart, Some(1.0));
        // The regime is its keys: the same workload as when they are given one by one.
        let keys =
            "input_scale=0.045,compute=per-benchmark,map_compute_s=50,target_utilisation=0.95";
        let explicit = build_ok(
            &format!("shuffle-watcher:users=2,jobs_per_user=2,{keys}"),
            ClusterFlags::default(),
        );
        assert_eq!(loaded.input.workload.jobs, explicit.input.workload.jobs);
        assert_ne!(loaded.input.workload.jobs, paper.input.workload.jobs);
        // A key given overrides the regime's.
        let scaled = build_ok(&format!("{s},input_scale=0.09"), ClusterFlags::default());
        let keys = keys.replace("0.045", "0.09");
        let explicit = build_ok(
            &format!("shuffle-watcher:users=2,jobs_per_user=2,{keys}"),
            ClusterFlags::default(),
        );
        assert_eq!(scaled.input.workload.jobs, explicit.input.workload.jobs);
    }

    #[test]
    fn ras_is_twenty_tasktrackers_and_experiment_two_has_goals() {
        let x = build_ok("ras", ClusterFlags::default());
        assert_eq!(shape(&x), (1, vec![20], 4, 2));
        assert!(x.input.workload.jobs.iter().all(|j| j.deadline_s.is_none()));
        for s in ["ras:experiment=2", "ras:goals=tight"] {
            let x = build_ok(s, ClusterFlags::default());
            assert!(x.input.workload.jobs.iter().all(|j| j.deadline_s.is_some()), "{s}");
        }
        // Demands survive (they are RAS's point); --rack-size does not apply.
        assert!(x_has_demands(&build_ok("ras", ClusterFlags::default())));
        let flags = ClusterFlags { rack_size: Some(5), ..ClusterFlags::default() };
        assert!(build(&parse("ras"), 1, &flags).is_err());
        let flags =
            ClusterFlags { nodes: Some(8), reduce_slots: Some(1), ..ClusterFlags::default() };
        assert_eq!(shape(&build_ok("ras", flags)), (1, vec![8], 4, 1));
        // work_scale scales Table 1's lengths (J5: one wave of 50 s less the 3 s tail, less
        // the 1.671 s start-up and read).
        let compute =
            |s: &str| build_ok(s, ClusterFlags::default()).input.workload.jobs[4].maps[0].compute_s;
        assert!((compute("ras:experiment=2") - (50.0 - 3.0 - 1.671_088_64)).abs() < 1e-9);
        let scaled = compute("ras:experiment=2,work_scale=0.7");
        assert!((scaled - (35.0 - 3.0 - 1.671_088_64)).abs() < 1e-9);
        let e = parse_workload("ras:work_scale=0").unwrap_err();
        assert!(e.contains("`work_scale`") && e.contains("> 0"), "{e}");
    }

    fn x_has_demands(x: &Experiment) -> bool {
        x.input.workload.jobs.iter().flat_map(|j| &j.maps).all(|m| m.demand.is_some())
    }
}
