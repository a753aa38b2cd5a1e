//! RAS's utility per job after an answer (Polo et al. eqs. 1–3, capped at 1), reported as
//! `jobs[].utility`, and the least of them, eq. 4's max-min objective, as
//! `stats.min_utility`.

use crate::echo::JobField;
use crate::policy::Placement;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A job's utility on the wire: a number ≤ 1, or `null` for −∞ (a job with no map while one
/// is required, eq. 2).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct JobUtility(pub Option<f64>);

impl JobField for JobUtility {
    const KEY: &'static str = "utility";
    const ECHOED: bool = false;
    const DESCRIPTION: &'static str = "RAS's utility u_j of the job after this answer (eqs. \
        1–3, capped at 1), under `ras` and `lsap_ras`: below 0 the job has fewer maps than its \
        goal requires, 1 when every remaining task runs. `null` when it is −∞ (no map runs \
        while one is required). Omitted by the other algorithms and for jobs with nothing left \
        to run.";
}

/// The wire key of the least utility in `stats`.
pub const MIN_UTILITY: &str = "min_utility";

/// `stats.min_utility` as the policies that report it declare it
/// ([`crate::Policy::stats_fields`]).
pub const STATS_FIELDS: &[(&str, &str)] = &[(
    MIN_UTILITY,
    "The least `jobs[].utility` (RAS eq. 4's objective) under `ras` and `lsap_ras`; `null` \
     when it is −∞; omitted by the other algorithms or with no job to run.",
)];

/// Sets `jobs[].utility` and `stats.min_utility` of `placement` from the utility of each job
/// (`None` = nothing left to run, `-inf` = −∞).
///
/// # Complexity
/// O(jobs).
pub fn report(placement: &mut Placement, utilities: &[Option<f64>]) {
    let wire = |u: f64| JobUtility(u.is_finite().then_some(u));
    let per_job: Vec<Option<JobUtility>> = utilities.iter().map(|u| u.map(wire)).collect();
    placement.set_jobs(&per_job);
    let least = utilities.iter().flatten().copied().min_by(|a, b| a.total_cmp(b));
    if let Some(u) = least {
        placement.stats.push((MIN_UTILITY, wire(u).0.map_or(Value::Null, Value::from)));
    }
}
