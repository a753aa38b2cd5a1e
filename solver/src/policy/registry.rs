//! The registry: it maps each `Algorithm` to its policy and is the only place that lists them.
//! Every caller that needs "all policies" or "the policy of this algorithm" asks here: the
//! pipeline, the simulator, the server's error message, the tests and the benches.

use super::{
    delay, dl_sched, drf, fair, fifo, fifo_per_pool, kueue_best_fit, kueue_least_free, lsap,
    lsap_fair, lsap_quota, lsap_quota_no_gang, lsap_ras, lsap_shuffle, ras, shuffle_watcher,
    shuffle_watcher_relaxed, Policy,
};
use crate::error::SolveError;
use placer_models::Algorithm;

/// Every algorithm this build implements, with its policy, in the order they are listed to
/// users. An `Algorithm` absent here parses but is answered `422 unsupported_algorithm`.
pub static REGISTRY: &[(Algorithm, &dyn Policy)] = &[
    (Algorithm::Fifo, &fifo::Fifo),
    (Algorithm::FifoPerPool, &fifo_per_pool::FifoPerPool),
    (Algorithm::Fair, &fair::Fair),
    (Algorithm::Delay, &delay::Delay),
    (Algorithm::DlSched, &dl_sched::DlSched),
    (Algorithm::Lsap, &lsap::Lsap),
    (Algorithm::LsapFair, &lsap_fair::LsapFair),
    (Algorithm::LsapQuota, &lsap_quota::LsapQuota),
    (Algorithm::ShuffleWatcher, &shuffle_watcher::ShuffleWatcher),
    (Algorithm::ShuffleWatcherRelaxed, &shuffle_watcher_relaxed::ShuffleWatcherRelaxed),
    (Algorithm::LsapShuffle, &lsap_shuffle::LsapShuffle),
    (Algorithm::Ras, &ras::Ras),
    (Algorithm::LsapRas, &lsap_ras::LsapRas),
    (Algorithm::Drf, &drf::Drf),
    (Algorithm::KueueBestFit, &kueue_best_fit::KueueBestFit),
    (Algorithm::KueueLeastFree, &kueue_least_free::KueueLeastFree),
    (Algorithm::LsapQuotaNoGang, &lsap_quota_no_gang::LsapQuotaNoGang),
];

/// `Algorithm::policy()`: the policy of an algorithm, if this build implements it.
pub trait PolicyOf {
    /// The registered policy, or `None`.
    fn policy(self) -> Option<&'static dyn Policy>;
}

impl PolicyOf for Algorithm {
    fn policy(self) -> Option<&'static dyn Policy> {
        REGISTRY.iter().find(|(a, _)| *a == self).map(|&(_, p)| p)
    }
}

/// The registered algorithms' wire names, comma-separated (for error messages and `--help`).
pub fn available() -> String {
    REGISTRY.iter().map(|(_, p)| p.name()).collect::<Vec<_>>().join(", ")
}

/// The registered algorithm whose wire name is `name`.
pub fn by_name(name: &str) -> Option<(Algorithm, &'static dyn Policy)> {
    REGISTRY.iter().find(|(_, p)| p.name() == name).copied()
}

/// The policy of `algorithm`.
///
/// # Errors
/// [`SolveError::UnsupportedAlgorithm`] (path `policy.algorithm`) when this build does not
/// implement it, listing the ones it does.
pub fn lookup(algorithm: Algorithm) -> Result<&'static dyn Policy, SolveError> {
    algorithm.policy().ok_or_else(|| SolveError::UnsupportedAlgorithm {
        path: "policy.algorithm".to_owned(),
        algorithm: algorithm.name(),
        available: available(),
    })
}

/// Every knob group some registered policy reads, each once, in registry order, α's
/// ([`crate::cost::LocalityWeight`], read by every answer) first.
pub fn settings() -> Vec<&'static dyn crate::settings::Declared> {
    let mut out: Vec<&'static dyn crate::settings::Declared> =
        vec![&crate::settings::Knobs::<crate::cost::LocalityWeight>::OF];
    for (_, p) in REGISTRY {
        for &d in p.settings() {
            if out.iter().all(|o| o.id() != d.id()) {
                out.push(d);
            }
        }
    }
    out
}

/// Every per-job field some registered policy echoes or reports, each once, in registry order.
pub fn job_fields() -> Vec<&'static dyn crate::echo::Declared> {
    let mut out: Vec<&'static dyn crate::echo::Declared> = Vec::new();
    for (_, p) in REGISTRY {
        for &d in p.job_fields() {
            if out.iter().all(|o| o.id() != d.id()) {
                out.push(d);
            }
        }
    }
    out
}

/// The names of the policies that read `key` of the `policy` object, in registry order
/// (every policy for α).
pub fn readers_of_setting(key: &str) -> Vec<&'static str> {
    let every = crate::settings::Knobs::<crate::cost::LocalityWeight>::OF;
    let alpha = crate::settings::Declared::defaults(&every).contains_key(key);
    REGISTRY
        .iter()
        .filter(|(_, p)| alpha || p.settings().iter().any(|d| d.defaults().contains_key(key)))
        .map(|(_, p)| p.name())
        .collect()
}

/// Checks a snapshot's policy knobs and per-job echoed state: every knob group and every
/// per-job field of every registered policy, whichever algorithm runs, so that a bad value is
/// refused the same way under every algorithm and each domain is written once, with its type.
///
/// # Complexity
/// O(groups · keys of `policy` + bytes of the jobs' echoed state + racks).
///
/// # Errors
/// The first group's or field's [`placer_models::ModelError`], in registry order.
pub fn check(req: &placer_models::PlaceRequest) -> Result<(), placer_models::ModelError> {
    check_settings(&req.policy)?;
    check_job_fields(req)
}

/// The knob half of [`check`]: every registered knob group against `policy`.
///
/// # Errors
/// The first group's [`placer_models::ModelError`].
pub fn check_settings(policy: &placer_models::Policy) -> Result<(), placer_models::ModelError> {
    for group in settings() {
        group.check(policy)?;
    }
    Ok(())
}

/// The per-job half of [`check`]: every registered field against the jobs' echoed state.
///
/// # Errors
/// The first field's [`placer_models::ModelError`].
pub fn check_job_fields(
    req: &placer_models::PlaceRequest,
) -> Result<(), placer_models::ModelError> {
    if req.jobs.iter().any(|j| !j.state.is_empty()) {
        let cx = crate::echo::Context::new(req);
        for field in job_fields() {
            field.check(&cx)?;
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use placer_models::PlaceRequest;
    use serde_json::json;

    /// The wire name three ways: serde's, `Algorithm::name()` and the policy's.
    #[test]
    fn every_entry_agrees_on_its_name() {
        for (algorithm, policy) in REGISTRY {
            let serde = serde_json::to_value(algorithm).unwrap();
            assert_eq!(serde, json!(algorithm.name()));
            assert_eq!(algorithm.name(), policy.name());
            assert_eq!(by_name(policy.name()).map(|(a, _)| a), Some(*algorithm));
        }
    }

    /// A knob belongs to one group, so its domain is written once.
    #[test]
    fn no_knob_is_declared_twice() {
        let mut seen = std::collections::BTreeSet::new();
        for group in settings() {
            for key in group.defaults().keys() {
                assert!(seen.insert(key.clone()), "{key} declared twice");
            }
        }
        assert!(seen.len() >= 11, "{seen:?}");
    }

    /// Each knob's domain, checked whatever the algorithm (the defaults' `lsap_quota` reads
    /// none of ShuffleWatcher's): the path names the key.
    #[test]
    fn every_knob_refuses_a_value_outside_its_domain_with_its_path() {
        for (key, bad) in [
            ("alpha", json!(-1)),
            ("beta", json!(-1)),
            ("aging_s", json!(0)),
            ("heartbeat_s", json!(0)),
            ("locality_delay_node_s", json!(-1)),
            ("locality_delay_rack_s", json!(-0.5)),
            ("saturation_threshold", json!(0)),
            ("map_completion_threshold", json!(1.5)),
            ("starvation_window_s", json!(0)),
            ("shuffle_light_ratio", json!(2)),
            ("beta", json!("ten")),
            ("shuffle_watcher", json!({"nass": 1})),
        ] {
            let mut policy = placer_models::Policy::default();
            policy.set(key, bad.clone());
            let e = check_settings(&policy).unwrap_err();
            assert!(e.path().starts_with(&format!("policy.{key}")), "{key} = {bad}: {e}");
        }
        check_settings(&placer_models::Policy::default()).unwrap();
    }

    /// Echoed state is checked with its path: FAIR Alg. 1's level is 0, 1 or 2; SAMP's racks
    /// exist.
    #[test]
    fn echoed_state_refuses_bad_values_with_its_path() {
        let req = |job: serde_json::Value| -> PlaceRequest {
            serde_json::from_value(json!({"schema_version": 1,
                "cluster": {"racks": [{"id": "r"}]}, "pools": [{"id": "p"}], "jobs": [job]}))
            .unwrap()
        };
        for (job, path) in [
            (json!({"id": "j", "pool": "p", "delay": {"level": 3}}), "jobs[0].delay.level"),
            (json!({"id": "j", "pool": "p", "delay": {"wait_s": -1}}), "jobs[0].delay.wait_s"),
            (json!({"id": "j", "pool": "p", "delay": {"level": "x"}}), "jobs[0].delay.level"),
            (
                json!({"id": "j", "pool": "p",
                       "shuffle_watcher": {"preferred_map_racks": ["nowhere"]}}),
                "jobs[0].shuffle_watcher.preferred_map_racks[0]",
            ),
        ] {
            let e = check(&req(job.clone())).unwrap_err();
            assert_eq!(e.path(), path, "{job}: {e}");
        }
        check(&req(json!({"id": "j", "pool": "p", "delay": {"level": 2, "wait_s": 3.0},
            "unknown_key": [1, 2]})))
        .unwrap();
    }
}
