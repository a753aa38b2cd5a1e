//! Parameter sweeps of `placer whatif --sweep FILE.toml --shard i/N` (docs/simulator.md, "Sweeps
//! and shards"): the runs are every policy × every combination of the swept values, in a fixed
//! order, and shard i of N takes the runs whose index is i modulo N, so N array tasks (a Kubernetes
//! Indexed Job's `JOB_COMPLETION_INDEX`, a Slurm array's `SLURM_ARRAY_TASK_ID`, both 0-based)
//! split the sweep with no coordination and `placer whatif summarize DIR` merges them.
//!
//! The sweep file is TOML, one key per swept parameter, each a list of numbers:
//!
//! ```toml
//! alpha = [0.1, 1, 10]      # policy.alpha (lsap-fair-sched's DLC weight)
//! beta = [10]               # policy.beta (lsap-fair-sched's fairness weight)
//! t1_s = [0, 4.5]           # policy.locality_delay_node_s (FAIR Alg. 1's T1)
//! t2_s = [4.5]              # policy.locality_delay_rack_s (T2)
//! aging_s = [60, 300]       # any other numeric knob of a policy, by its `policy` key
//! replication = [1, 3]      # replicas redrawn HDFS-style with this many per block
//! epoch_s = [3]             # the simulator's epoch (heartbeat) length
//! rack_mbps = [1000]
//! cross_rack_mbps = [100]
//! uplink_mbps = [500]       # each rack's uplink and downlink (ShuffleWatcher §4.1)
//! map_slots = [1, 4, 8]     # map slots of every node (RAS Fig. 3's 1..8 per TaskTracker)
//! reduce_slots = [2]        # reduce slots of every node
//! slowstart = [0.05, 1]     # fraction of a job's maps done before its reduces may start
//! heartbeat = [0, 1, 2]     # how slots are offered (below)
//! ```
//!
//! - `map_slots`, `reduce_slots`: non-negative integers; they set the slots of the run's
//!   cluster (`ClusterSource`, either variant), i.e. of every node whose topology entry does
//!   not state its own (trace topologies never do; `--workload` clusters leave them to these).
//! - `slowstart`: in [0, 1] (Hadoop's `mapred.reduce.slowstart.completed.maps`).
//! - `heartbeat`: `0` = epochs (every free slot of the cluster offered at once every epoch),
//!   `1` = per-node heartbeats offering one task of each kind (Hadoop 0.20), `2` = per-node
//!   heartbeats offering every free slot of the node (the Fair Scheduler's `assignmultiple`);
//!   the flag `--heartbeat epoch|node|node-multiple`. Without it (flag or key) the policy
//!   decides (`Offers::Auto`).
//!
//! The policy keys are those the policies declare (`placer_solver::settings`): every numeric
//! knob some policy reads is sweepable under its `policy` name, and its values are checked by
//! that policy's settings. Unknown keys and values out of a key's domain are errors (a typo must not silently sweep
//! nothing). Keys vary in the order above, the last fastest; each run's partition path is
//! `policy=P/key=value/...` in that order.

use crate::error::CliError;
use placer_sim::{ClusterSource, Offers, ReplicaSource, SimConfig};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The simulator's own sweepable parameters, in partition order.
const SIM_KEYS: [&str; 9] = [
    "replication",
    "epoch_s",
    "rack_mbps",
    "cross_rack_mbps",
    "uplink_mbps",
    "map_slots",
    "reduce_slots",
    "slowstart",
    "heartbeat",
];

/// The short names of two policy knobs, kept from the sweep files written before every knob
/// was sweepable: FAIR Alg. 1's T1 and T2.
const ALIASES: [(&str, &str); 2] =
    [("t1_s", "locality_delay_node_s"), ("t2_s", "locality_delay_rack_s")];

/// The sweepable parameters, in partition order: `alpha`, `beta`, `t1_s`, `t2_s`, then every
/// other numeric knob some policy of this build reads (`placer_solver::registry::settings`,
/// in registry order), then the simulator's own.
pub fn keys() -> &'static [&'static str] {
    static KEYS: OnceLock<Vec<&'static str>> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut keys: Vec<&'static str> = vec!["alpha", "beta", "t1_s", "t2_s"];
        for group in placer_solver::registry::settings() {
            for (key, default) in group.defaults() {
                let numeric = default.is_number() || default.is_null();
                let taken =
                    keys.contains(&key.as_str()) || ALIASES.iter().any(|&(_, long)| long == key);
                if numeric && !taken {
                    keys.push(Box::leak(key.into_boxed_str()));
                }
            }
        }
        keys.extend(SIM_KEYS);
        keys
    })
}

/// The `policy` key a sweep key sets, if it is a policy knob.
fn policy_key(key: &str) -> Option<&str> {
    if SIM_KEYS.contains(&key) {
        return None;
    }
    Some(ALIASES.iter().find(|&&(short, _)| short == key).map_or(key, |&(_, long)| long))
}

/// Why `v` is not a value of `key`, if it is not (every value is already finite). A policy
/// knob is checked by the settings of the policies that read it.
fn out_of_domain(key: &str, v: f64) -> Option<String> {
    if let Some(knob) = policy_key(key) {
        let mut policy = placer_models::Policy::default();
        policy.set(knob, v);
        return placer_solver::registry::check_settings(&policy).err().map(|e| e.to_string());
    }
    match key {
        "map_slots" | "reduce_slots" if v < 0.0 || v.fract() != 0.0 || v > f64::from(u32::MAX) => {
            Some("must be a non-negative integer".to_owned())
        }
        "slowstart" if !(0.0..=1.0).contains(&v) => Some("must be in [0, 1]".to_owned()),
        "heartbeat" if ![0.0, 1.0, 2.0].contains(&v) => Some(
            "must be 0 (epochs), 1 (node heartbeats) or 2 (node heartbeats, assign multiple)"
                .to_owned(),
        ),
        _ => None,
    }
}

/// The offers a `heartbeat` key value stands for (see the module docs).
pub fn offers_of(heartbeat: f64) -> Offers {
    if heartbeat >= 2.0 {
        Offers::Heartbeats { assign_multiple: true }
    } else if heartbeat >= 1.0 {
        Offers::Heartbeats { assign_multiple: false }
    } else {
        Offers::Epochs
    }
}

/// A parsed sweep: per key (in [`keys`] order) its values.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sweep {
    /// (key, values), keys in [`keys`] order, only the swept ones.
    pub axes: Vec<(&'static str, Vec<f64>)>,
}

/// One point of a sweep: (key, value) pairs in [`keys`] order.
pub type Point = Vec<(&'static str, f64)>;

impl Sweep {
    /// Parses the TOML text of `file`.
    pub fn parse(file: &str, text: &str) -> Result<Self, CliError> {
        let bad = |message: String| CliError::Usage(format!("{file}: {message}"));
        let table: BTreeMap<String, toml::Value> =
            toml::from_str(text).map_err(|e| bad(e.to_string()))?;
        for key in table.keys() {
            if !keys().contains(&key.as_str()) {
                return Err(bad(format!("unknown key `{key}` (known: {})", keys().join(", "))));
            }
        }
        let mut axes = Vec::new();
        for &key in keys() {
            let Some(value) = table.get(key) else { continue };
            let list = value
                .as_array()
                .ok_or_else(|| bad(format!("`{key}` must be a list of numbers")))?;
            let mut values = Vec::with_capacity(list.len());
            for (i, v) in list.iter().enumerate() {
                let x = v
                    .as_float()
                    .or_else(|| v.as_integer().map(|n| n as f64))
                    .filter(|x| x.is_finite())
                    .ok_or_else(|| bad(format!("`{key}[{i}]` must be a finite number")))?;
                if let Some(why) = out_of_domain(key, x) {
                    return Err(bad(format!("`{key}[{i}]` = {x} {why}")));
                }
                values.push(x);
            }
            if values.is_empty() {
                return Err(bad(format!("`{key}` lists no value")));
            }
            axes.push((key, values));
        }
        Ok(Self { axes })
    }

    /// Every combination, the last axis fastest. One empty point when nothing is swept.
    pub fn points(&self) -> Vec<Point> {
        let mut points: Vec<Point> = vec![Vec::new()];
        for (key, values) in &self.axes {
            points = points
                .iter()
                .flat_map(|p| {
                    values.iter().map(move |&v| {
                        let mut q = p.clone();
                        q.push((*key, v));
                        q
                    })
                })
                .collect();
        }
        points
    }
}

/// Applies a sweep point to a run's config (values checked by [`Sweep::parse`]).
pub fn apply(config: &mut SimConfig, point: &Point) {
    for &(key, v) in point {
        if let Some(knob) = policy_key(key) {
            config.policy.set(knob, v);
            continue;
        }
        match key {
            "replication" => {
                config.replicas = ReplicaSource::Synthesize { replication: v.max(0.0) as usize }
            }
            "epoch_s" => config.epoch_s = v,
            "rack_mbps" => config.rack_mbps = v,
            "cross_rack_mbps" => config.cross_rack_mbps = v,
            "uplink_mbps" => config.uplink_mbps = Some(v),
            "map_slots" | "reduce_slots" => {
                let (ClusterSource::Workload { map_slots, reduce_slots }
                | ClusterSource::Synthetic { map_slots, reduce_slots, .. }) = &mut config.cluster;
                let slots = if key == "map_slots" { map_slots } else { reduce_slots };
                *slots = v.max(0.0) as u32;
            }
            "slowstart" => config.slowstart = v,
            "heartbeat" => config.offers = offers_of(v),
            _ => {}
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn cartesian_product_in_key_order_last_fastest() {
        let s = Sweep::parse("s.toml", "replication = [1, 3]\nalpha = [0.5, 10]").unwrap();
        let labels: Vec<String> = s
            .points()
            .iter()
            .map(|p| p.iter().map(|&(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("/"))
            .collect();
        assert_eq!(
            labels,
            [
                "alpha=0.5/replication=1",
                "alpha=0.5/replication=3",
                "alpha=10/replication=1",
                "alpha=10/replication=3"
            ]
        );
    }

    #[test]
    fn unknown_keys_and_bad_values_are_named() {
        let e = Sweep::parse("s.toml", "alhpa = [1]").unwrap_err().to_string();
        assert!(e.contains("alhpa"), "{e}");
        let e = Sweep::parse("s.toml", "beta = [1, \"x\"]").unwrap_err().to_string();
        assert!(e.contains("beta[1]"), "{e}");
        assert!(Sweep::parse("s.toml", "beta = []").is_err());
        assert_eq!(Sweep::parse("s.toml", "").unwrap().points(), vec![Vec::new()]);
    }

    #[test]
    fn new_keys_are_checked_against_their_domain() {
        for (text, named) in [
            ("map_slots = [4, 2.5]", "map_slots[1]"),
            ("reduce_slots = [-1]", "reduce_slots[0]"),
            ("slowstart = [1.5]", "slowstart[0]"),
            ("heartbeat = [0, 3]", "heartbeat[1]"),
        ] {
            let e = Sweep::parse("s.toml", text).unwrap_err().to_string();
            assert!(e.contains(named), "{text}: {e}");
        }
        let s = Sweep::parse("s.toml", "heartbeat = [0, 1, 2]\nmap_slots = [1, 8]").unwrap();
        // map_slots comes before heartbeat in KEYS, so it is the outer axis.
        assert_eq!(s.axes.iter().map(|(k, _)| *k).collect::<Vec<_>>(), ["map_slots", "heartbeat"]);
        assert_eq!(s.points().len(), 6);
    }

    #[test]
    fn apply_sets_slots_of_either_cluster_slowstart_offers_and_uplink() {
        let point: Point = vec![
            ("uplink_mbps", 500.0),
            ("map_slots", 8.0),
            ("reduce_slots", 0.0),
            ("slowstart", 1.0),
            ("heartbeat", 2.0),
        ];
        let mut synthetic = SimConfig {
            cluster: ClusterSource::Synthetic {
                nodes: 10,
                rack_size: 5,
                map_slots: 4,
                reduce_slots: 2,
            },
            ..SimConfig::default()
        };
        apply(&mut synthetic, &point);
        assert_eq!(
            synthetic.cluster,
            ClusterSource::Synthetic { nodes: 10, rack_size: 5, map_slots: 8, reduce_slots: 0 }
        );
        assert_eq!(synthetic.uplink_mbps, Some(500.0));
        assert_eq!(synthetic.slowstart, 1.0);
        assert_eq!(synthetic.offers, Offers::Heartbeats { assign_multiple: true });
        let mut own = SimConfig::default();
        apply(&mut own, &point);
        assert_eq!(own.cluster, ClusterSource::Workload { map_slots: 8, reduce_slots: 0 });
        for (h, offers) in [
            (0.0, Offers::Epochs),
            (1.0, Offers::Heartbeats { assign_multiple: false }),
            (2.0, Offers::Heartbeats { assign_multiple: true }),
        ] {
            apply(&mut own, &vec![("heartbeat", h)]);
            assert_eq!(own.offers, offers);
        }
        own.validate().unwrap();
    }
}
