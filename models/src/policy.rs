//! The `policy` block of a snapshot: which placement algorithm runs this epoch and on which
//! assignment engine (docs/architecture.md, "The epoch pipeline"; lsap-sched eq. 1 for `alpha`).

use crate::error::ModelError;
use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use std::fmt;

/// A placement algorithm. Every name docs/policies.md lists is accepted by the schema, so that a
/// snapshot written for a later build parses; an algorithm this build does not implement yet is
/// answered with `422 unsupported_algorithm`, a name outside the list with `400 invalid_field`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    /// Hadoop's default FIFO scheduler.
    Fifo,
    /// The Capacity Scheduler's shape: a FIFO queue per pool, each free slot to the pool
    /// furthest below its weight's share of the slots.
    FifoPerPool,
    /// The Hadoop Fair Scheduler (pools, min shares).
    Fair,
    /// Fair sharing with delay scheduling (Zaharia et al., Alg. 1).
    Delay,
    /// The lsap paper's greedy data-locality baseline: per free slot, a node-local task, else a
    /// rack-local one, else the first remaining.
    DlSched,
    /// lsap-sched: minimum total locality cost over all pending tasks × free slots at once.
    Lsap,
    /// lsap-fair-sched: lsap with the fairness cost (GFC, β) added.
    LsapFair,
    /// lsap with fair shares as hard capacities: D-optimal pool counts, then the least
    /// locality cost, then job shares and delay levels (the default).
    #[default]
    LsapQuota,
    /// RAS's resource-aware utility heuristic.
    Ras,
    /// ShuffleWatcher (Ahmad et al.) on the Fair Scheduler's fairness (SW-fair): NetSat, NASS,
    /// SAMP and SARP.
    ShuffleWatcher,
    /// ShuffleWatcher with delay scheduling's relaxed fairness (SW-relaxed, §5.2).
    ShuffleWatcherRelaxed,
    /// placer's exact shuffle-aware policy: one min-cost flow per slot kind pricing map input,
    /// expected shuffle and saturated uplinks, under `lsap_quota`'s pool capacities.
    LsapShuffle,
    /// The YARN FairScheduler's Dominant Resource Fairness (Ghodsi et al.): the next task
    /// goes to the pool, then the job, with the lowest dominant share ÷ weight.
    Drf,
    /// placer's multi-resource policy beyond RAS: RAS's max-min utility decides how many
    /// tasks of each job run, an exact locality flow decides where, within the nodes' room.
    LsapRas,
    /// Kueue's topology-aware scheduling with the `BestFit` profile: one workload at a time in
    /// queue order, all-or-nothing gangs, a domain per topology job (the tightest that fits).
    KueueBestFit,
    /// Kueue's topology-aware scheduling with the `LeastFreeCapacity` profile (domains with the
    /// least free capacity first).
    KueueLeastFree,
    /// A gang-unaware baseline: `lsap_quota` ignoring `jobs[].gang` and `jobs[].topology` (it
    /// may start part of a gang).
    LsapQuotaNoGang,
}

impl Algorithm {
    /// The wire name (`dl_sched`, `lsap`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Self::Fifo => "fifo",
            Self::FifoPerPool => "fifo_per_pool",
            Self::Fair => "fair",
            Self::Delay => "delay",
            Self::DlSched => "dl_sched",
            Self::Lsap => "lsap",
            Self::LsapFair => "lsap_fair",
            Self::LsapQuota => "lsap_quota",
            Self::Ras => "ras",
            Self::ShuffleWatcher => "shuffle_watcher",
            Self::ShuffleWatcherRelaxed => "shuffle_watcher_relaxed",
            Self::LsapShuffle => "lsap_shuffle",
            Self::Drf => "drf",
            Self::LsapRas => "lsap_ras",
            Self::KueueBestFit => "kueue_best_fit",
            Self::KueueLeastFree => "kueue_least_free",
            Self::LsapQuotaNoGang => "lsap_quota_no_gang",
        }
    }
}

/// The engine that solves an exact assignment problem.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum SolverEngine {
    /// The fastest exact engine this build has (today: `flow`).
    #[default]
    Auto,
    /// placer's structured min-cost flow over tasks, replica nodes, rack and cluster
    /// aggregators (no dense matrix).
    Flow,
    /// placer's dense rectangular shortest-augmenting-path solver (Jonker–Volgenant family).
    Jv,
    /// `pathfinding::kuhn_munkres`, the O(n³) reference. For checks only: slow on large,
    /// tie-heavy matrices.
    Hungarian,
    /// The exact MIP reference of the multi-resource policies (`ras`, `lsap_ras`): max-min
    /// utility, then packing, over integer task counts per (job, node), solved by HiGHS
    /// through `good_lp`. Small instances only (`422 problem_too_large` above its limit);
    /// in builds without the `mip` feature, `422 unsupported_solver`.
    Mip,
}

impl SolverEngine {
    /// The wire name (`auto`, `flow`, `jv`, `hungarian`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Flow => "flow",
            Self::Jv => "jv",
            Self::Hungarian => "hungarian",
            Self::Mip => "mip",
        }
    }
}

/// Which algorithm runs and how. Omitted in the snapshot → all defaults.
///
/// On the wire `policy` is one flat object. Four keys belong to every policy and are typed
/// here: `algorithm`, `solver`, `user_max_running_jobs` and `deadline_ms`. Every other key is
/// a knob of some policy (`alpha`, `beta`, `heartbeat_s`, `shuffle_watcher`, …): it is kept as
/// sent in [`Policy::settings`], and the policy that owns it reads it with its own typed
/// settings, its defaults and its checks (`placer_solver::settings`). A key no policy of the
/// build reads is ignored, as any unknown key of the schema.
#[derive(Clone, Debug, Default)]
pub struct Policy {
    /// The placement algorithm; default `lsap_quota`.
    pub algorithm: Algorithm,
    /// The exact engine; default `auto`. Ignored by greedy algorithms.
    pub solver: SolverEngine,
    /// Running-job limit of users not listed in `users` with their own limit (design doc §3.4);
    /// optional, unset = unlimited.
    pub user_max_running_jobs: Option<u32>,
    /// Wall-clock budget of this answer in milliseconds (> 0), measured by the service from
    /// the moment the body is read; unset = the server's `--deadline-ms`. When the exact solve
    /// cannot finish in time, the answer is the best valid placement found, with
    /// `stats.status: time_limited`. `POST /place?deadline_ms=` overrides it. `placer place`
    /// honours it too, from the moment the file is read.
    pub deadline_ms: Option<u64>,
    /// Every other key of the object, as sent, in key order: the policies' knobs.
    pub settings: Map<String, Value>,
    /// Which of the four typed keys the snapshot gave (a server's configured defaults fill
    /// only the others).
    pub given: Given,
}

/// Which typed keys of `policy` a snapshot gave.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Given {
    /// `algorithm` was given.
    pub algorithm: bool,
    /// `solver` was given.
    pub solver: bool,
    /// `user_max_running_jobs` was given.
    pub user_max_running_jobs: bool,
    /// `deadline_ms` was given.
    pub deadline_ms: bool,
}

/// Two policies are equal when they run the same way: [`Policy::given`] is not compared.
impl PartialEq for Policy {
    fn eq(&self, other: &Self) -> bool {
        self.algorithm == other.algorithm
            && self.solver == other.solver
            && self.user_max_running_jobs == other.user_max_running_jobs
            && self.deadline_ms == other.deadline_ms
            && self.settings == other.settings
    }
}

impl Policy {
    /// The policy running `algorithm` with every default.
    pub fn of(algorithm: Algorithm) -> Self {
        Self { algorithm, ..Self::default() }
    }

    /// Sets a knob (`alpha`, `shuffle_watcher`, …) as if the snapshot had sent it; the owning
    /// policy's settings check its value.
    pub fn set(&mut self, key: &str, value: impl Into<Value>) -> &mut Self {
        self.settings.insert(key.to_owned(), value.into());
        self
    }

    /// Fills each key of `defaults` (a `policy` object, e.g. a server's configured defaults)
    /// that this policy was not given; where both hold an object (`shuffle_watcher`), key by
    /// key. O(size of `defaults`).
    ///
    /// # Errors
    /// [`ModelError::InvalidField`] at `policy.KEY` when a typed key's default has the wrong
    /// type.
    pub fn fill_defaults(&mut self, defaults: &Map<String, Value>) -> Result<(), ModelError> {
        fn typed<T: serde::de::DeserializeOwned>(key: &str, v: &Value) -> Result<T, ModelError> {
            T::deserialize(v).map_err(|e| ModelError::InvalidField {
                path: format!("policy.{key}"),
                message: e.to_string(),
            })
        }
        for (key, default) in defaults {
            match key.as_str() {
                "algorithm" if !self.given.algorithm => self.algorithm = typed(key, default)?,
                "solver" if !self.given.solver => self.solver = typed(key, default)?,
                "user_max_running_jobs" if !self.given.user_max_running_jobs => {
                    self.user_max_running_jobs = typed(key, default)?;
                }
                "deadline_ms" if !self.given.deadline_ms => {
                    self.deadline_ms = typed(key, default)?;
                }
                "algorithm" | "solver" | "user_max_running_jobs" | "deadline_ms" => {}
                _ => fill(&mut self.settings, key, default),
            }
        }
        Ok(())
    }
}

/// Inserts `default` at `key` if `target` lacks it; where both hold an object, fills that
/// object key by key.
fn fill(target: &mut Map<String, Value>, key: &str, default: &Value) {
    match (target.get_mut(key), default) {
        (None, _) => {
            target.insert(key.to_owned(), default.clone());
        }
        (Some(Value::Object(inner)), Value::Object(inner_defaults)) => {
            for (k, d) in inner_defaults {
                fill(inner, k, d);
            }
        }
        (Some(_), _) => {}
    }
}

impl Serialize for Policy {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("algorithm", &self.algorithm)?;
        map.serialize_entry("solver", &self.solver)?;
        if let Some(v) = self.user_max_running_jobs {
            map.serialize_entry("user_max_running_jobs", &v)?;
        }
        if let Some(v) = self.deadline_ms {
            map.serialize_entry("deadline_ms", &v)?;
        }
        for (k, v) in &self.settings {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Policy {
    /// One pass over the object: the typed keys parsed in place (so a wrong type has the path
    /// `policy.algorithm`), every other key kept as its JSON value.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Policy;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a policy object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Policy, A::Error> {
                let mut p = Policy::default();
                while let Some(key) = map.next_key::<String>()? {
                    let seen = match key.as_str() {
                        "algorithm" => {
                            p.algorithm = map.next_value()?;
                            std::mem::replace(&mut p.given.algorithm, true)
                        }
                        "solver" => {
                            p.solver = map.next_value()?;
                            std::mem::replace(&mut p.given.solver, true)
                        }
                        "user_max_running_jobs" => {
                            p.user_max_running_jobs = map.next_value()?;
                            std::mem::replace(&mut p.given.user_max_running_jobs, true)
                        }
                        "deadline_ms" => {
                            p.deadline_ms = map.next_value()?;
                            std::mem::replace(&mut p.given.deadline_ms, true)
                        }
                        _ => {
                            let value: Value = map.next_value()?;
                            p.settings.insert(key.clone(), value).is_some()
                        }
                    };
                    if seen {
                        return Err(de::Error::custom(format_args!("duplicate field `{key}`")));
                    }
                }
                Ok(p)
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for Policy {
    /// The typed keys; the knobs of each policy are added from the solver's registry by the
    /// server's document.
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
        use utoipa::openapi::RefOr;
        let object = ObjectBuilder::new()
            .description(Some(
                "Which algorithm runs and how. Omitted → all defaults. Besides these keys, \
                 each policy reads its own knobs from this object (listed below with the \
                 policies that read them); a key no policy reads is ignored.",
            ))
            .property(
                "algorithm",
                utoipa::openapi::schema::AllOfBuilder::new()
                    .item(<Algorithm as utoipa::PartialSchema>::schema())
                    .description(Some("The placement algorithm; default `lsap_quota`."))
                    .default(Some(Value::from("lsap_quota"))),
            )
            .property(
                "solver",
                utoipa::openapi::schema::AllOfBuilder::new()
                    .item(<SolverEngine as utoipa::PartialSchema>::schema())
                    .description(Some(
                        "The exact engine; default `auto`. Ignored by greedy algorithms.",
                    ))
                    .default(Some(Value::from("auto"))),
            )
            .property(
                "user_max_running_jobs",
                ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::SchemaType::from_iter([
                        Type::Integer,
                        Type::Null,
                    ]))
                    .minimum(Some(0))
                    .description(Some(
                        "Running-job limit of users not listed in `users` with their own \
                         limit; optional, unset = unlimited.",
                    )),
            )
            .property(
                "deadline_ms",
                ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::SchemaType::from_iter([
                        Type::Integer,
                        Type::Null,
                    ]))
                    .minimum(Some(1))
                    .description(Some(
                        "Wall-clock budget of this answer in milliseconds (> 0); unset = the \
                         server's `--deadline-ms`. Past it the answer is the best valid \
                         placement found, with `stats.status: time_limited`.",
                    )),
            );
        RefOr::T(Schema::Object(object.build()))
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for Policy {}
