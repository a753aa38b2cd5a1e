//! Server-side policy defaults: keys of the config file's `[policy]` table fill the keys a
//! snapshot's `policy` omits, and the snapshot's own keys win (docs/operations/configuration.md,
//! "Config file"). The parsed policy records which of its typed keys the snapshot gave and
//! keeps every other key as sent ([`placer_models::Policy`]), so the defaults apply to the
//! parsed request: the body is read once.

use crate::error::ServerError;
use placer_models::PlaceRequest;
use serde_json::{Map, Value};

/// Fills each key of `defaults` that `request.policy` lacks; nested objects
/// (`shuffle_watcher`) key by key ([`placer_models::Policy::fill_defaults`]). Does nothing
/// when `defaults` is empty.
///
/// # Complexity
/// O(size of `defaults`), independent of the body.
///
/// # Errors
/// [`ServerError::Model`] `invalid_field` at `policy.KEY` if a typed default has the wrong
/// type (cannot happen when `defaults` were checked with [`crate::config_file`]).
pub(crate) fn apply(
    request: &mut PlaceRequest,
    defaults: &Map<String, Value>,
) -> Result<(), ServerError> {
    request.policy.fill_defaults(defaults).map_err(ServerError::Model)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use placer_models::{parse_request, Algorithm, SolverEngine};
    use placer_solver::settings::read;
    use placer_solver::shuffle::ShuffleKnobs;
    use serde_json::json;

    fn defaults(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    #[test]
    fn omitted_keys_take_the_default_and_given_keys_win() {
        let body = br#"{"schema_version":1,"cluster":{},
            "policy":{"alpha":2,"shuffle_watcher":{"nass":false}}}"#;
        let mut req = parse_request(body).unwrap();
        let d = defaults(json!({"algorithm": "dl_sched", "alpha": 5.0,
                "shuffle_watcher": {"nass": true, "samp": false}}));
        apply(&mut req, &d).unwrap();
        assert_eq!(req.policy.algorithm, Algorithm::DlSched);
        let alpha: placer_solver::LocalityWeight = read(&req.policy);
        assert_eq!(alpha.alpha, 2.0);
        let sw = read::<ShuffleKnobs>(&req.policy).shuffle_watcher;
        assert!(!sw.nass);
        assert!(!sw.samp);
        assert!(sw.sarp);
        assert_eq!(req.policy.solver, SolverEngine::Auto);
    }

    #[test]
    fn a_snapshot_without_policy_gets_all_defaults() {
        let body = br#"{"schema_version":1,"cluster":{}}"#;
        let mut req = parse_request(body).unwrap();
        apply(&mut req, &defaults(json!({"algorithm": "fifo", "deadline_ms": 50}))).unwrap();
        assert_eq!(req.policy.algorithm, Algorithm::Fifo);
        assert_eq!(req.policy.deadline_ms, Some(50));
    }

    #[test]
    fn a_given_typed_key_wins_even_at_its_default_value() {
        let body = br#"{"schema_version":1,"cluster":{},"policy":{"algorithm":"lsap_quota"}}"#;
        let mut req = parse_request(body).unwrap();
        apply(&mut req, &defaults(json!({"algorithm": "fifo"}))).unwrap();
        assert_eq!(req.policy.algorithm, Algorithm::LsapQuota);
    }

    #[test]
    fn no_defaults_leaves_the_request_alone() {
        let body = br#"{"schema_version":1,"cluster":{},"policy":{"algorithm":"lsap"}}"#;
        let mut req = parse_request(body).unwrap();
        let before = req.policy.clone();
        apply(&mut req, &Map::new()).unwrap();
        assert_eq!(req.policy, before);
    }

    #[actix_web::test]
    async fn through_the_app_the_default_algorithm_runs_only_when_omitted() {
        use crate::{app, AppState, ServerConfig};
        use actix_web::test::{call_service, init_service, read_body, TestRequest};
        let config = ServerConfig {
            policy_defaults: Some(defaults(json!({"algorithm": "dl_sched"}))),
            ..ServerConfig::default()
        };
        let svc = init_service(app(AppState::new(&config))).await;
        let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/snapshot.json");
        let mut snapshot: Value = serde_json::from_slice(&std::fs::read(example).unwrap()).unwrap();
        for (expected, drop_algorithm) in [("optimal", false), ("heuristic", true)] {
            if drop_algorithm {
                // The example sets lsap (exact: optimal); without it, dl_sched (greedy) runs.
                snapshot["policy"].as_object_mut().unwrap().remove("algorithm");
            }
            let req = TestRequest::post().uri("/place").set_json(&snapshot).to_request();
            let res: Value =
                serde_json::from_slice(&read_body(call_service(&svc, req).await).await).unwrap();
            assert_eq!(res["stats"]["status"], expected, "{res}");
        }
    }
}
