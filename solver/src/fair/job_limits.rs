//! Running-job limits per pool and per user (Hadoop Fair Scheduler design doc §3.4 and §4.7):
//! "The jobs that will run are chosen in order of submit time and priority. Jobs submitted
//! beyond the limit wait for one of the running jobs to finish." A job that is not runnable
//! "declares its demand as 0 and always returns null from assignTasks".
//!
//! placer's order, as Hadoop's FIFO comparator: priority (very_high first), then `submit_s`,
//! then snapshot order. Only active jobs (with a running or a pending task) count against a
//! limit: a listed job with neither cannot hold a slot. Limits: `pools[].max_running_jobs`,
//! `users[].max_running_jobs`, else `policy.user_max_running_jobs` for a job with a `user`.
//! A job without a user is limited by its pool only. O(jobs log jobs).

use placer_models::{Job, PlaceRequest};
use std::cmp::Ordering;
use std::collections::HashMap;

/// Hadoop's FIFO order of two jobs: higher priority first, then earlier submit, then earlier
/// in the snapshot (`a`, `b` are the positions of the jobs).
///
/// # Complexity
/// O(1).
///
/// # Errors
/// None: a total order (`submit_s` compared with `f64::total_cmp`).
///
/// # Examples
/// A high-priority job submitted at 20 s runs before a normal one submitted at 10 s; between
/// equal priorities the earlier submit goes first.
/// ```
/// use placer_models::{Job, Priority};
/// use placer_solver::fair::job_limits::fifo_cmp;
/// use std::cmp::Ordering;
/// let early = Job { submit_s: 10.0, ..Job::default() };
/// let late = Job { submit_s: 20.0, ..Job::default() };
/// let late_high = Job { submit_s: 20.0, priority: Priority::High, ..Job::default() };
/// assert_eq!(fifo_cmp(&late_high, 2, &early, 0), Ordering::Less);
/// assert_eq!(fifo_cmp(&early, 0, &late, 1), Ordering::Less);
/// ```
pub fn fifo_cmp(ja: &Job, a: usize, jb: &Job, b: usize) -> Ordering {
    jb.priority.cmp(&ja.priority).then(ja.submit_s.total_cmp(&jb.submit_s)).then(a.cmp(&b))
}

/// Whether each job may run, given which jobs are active and each job's pool index: the
/// active jobs in [`fifo_cmp`] order each take a place in their pool and user while both are
/// under their `max_running_jobs`; a job that finds either full is not runnable. Inactive
/// jobs count against no limit and are reported runnable.
///
/// # Complexity
/// O(jobs log jobs + pools + users) time, O(jobs + pools + users) space.
///
/// # Errors
/// None: a job beyond its limit is data (`false`, and its demand counts as 0).
///
/// # Examples
/// Design doc §3.4: a pool that runs one job at a time. The job submitted at 0 s runs, the one
/// submitted at 5 s waits; if the earlier job has no task running or pending, it holds no
/// place and the later one runs.
/// ```
/// use placer_solver::fair::job_limits::runnable;
/// let req = placer_models::parse_request(br#"{"schema_version": 1,
///   "cluster": {"racks": [{"id": "r"}], "nodes": [{"id": "n", "rack": "r", "map_slots": 1}]},
///   "pools": [{"id": "p", "max_running_jobs": 1}],
///   "jobs": [{"id": "late", "pool": "p", "submit_s": 5}, {"id": "early", "pool": "p"}]}"#)
///   .unwrap();
/// let job_pool = [0, 0];
/// assert_eq!(runnable(&req, &[true, true], &job_pool), vec![false, true]);
/// assert_eq!(runnable(&req, &[true, false], &job_pool), vec![true, true]);
/// ```
pub fn runnable(req: &PlaceRequest, active: &[bool], job_pool: &[u32]) -> Vec<bool> {
    let mut ok = vec![true; req.jobs.len()];
    let user_limit: HashMap<&str, Option<u32>> =
        req.users.iter().map(|u| (u.id.as_str(), u.max_running_jobs)).collect();
    let limited = req.pools.iter().any(|p| p.max_running_jobs.is_some())
        || req.users.iter().any(|u| u.max_running_jobs.is_some())
        || req.policy.user_max_running_jobs.is_some();
    if !limited {
        return ok;
    }
    let mut order: Vec<usize> = (0..req.jobs.len()).filter(|&j| active[j]).collect();
    order.sort_by(|&a, &b| fifo_cmp(&req.jobs[a], a, &req.jobs[b], b));
    let mut pool_count = vec![0u32; req.pools.len()];
    let mut user_count: HashMap<&str, u32> = HashMap::new();
    for j in order {
        let job = &req.jobs[j];
        let p = job_pool[j] as usize;
        let pool_max = req.pools.get(p).and_then(|p| p.max_running_jobs);
        let user = job.user.as_ref().map(|u| u.as_str());
        let user_max = user.and_then(|u| {
            user_limit.get(u).copied().flatten().or(req.policy.user_max_running_jobs)
        });
        let users_running = user.map_or(0, |u| user_count.get(u).copied().unwrap_or(0));
        if pool_max.is_some_and(|m| pool_count[p] >= m)
            || user_max.is_some_and(|m| users_running >= m)
        {
            ok[j] = false;
            continue;
        }
        pool_count[p] += 1;
        if let Some(u) = user {
            *user_count.entry(u).or_insert(0) += 1;
        }
    }
    ok
}
