//! Prometheus metrics of the service (docs/operations/observability.md, "Metrics"; the text
//! exposition format 0.0.4 of the Prometheus documentation, "Exposition formats"). Recorded
//! through the `metrics` facade into one process-wide `metrics-exporter-prometheus` recorder,
//! rendered by placer's own `/metrics` route (the exporter runs no listener of its own).
//!
//! Every hook is a plain function: callers pass no state. The series (all `placer_*`):
//!
//! | series | type | labels |
//! |---|---|---|
//! | `placer_http_requests_total` | counter | `route` (matched pattern or `other`), `status` |
//! | `placer_overloaded_total` | counter | — (responses with status 503) |
//! | `placer_solves_in_flight` | gauge | — |
//! | `placer_queue_length` | gauge | — |
//! | `placer_solve_seconds` | histogram | `algorithm`, `engine` |
//! | `placer_snapshot_bytes` | histogram | — |
//! | `placer_tasks_placed_total` | counter | `kind` (map/reduce), `locality` |
//! | `placer_time_limited_total` | counter | — |
//! | `placer_panics_total` | counter | — |
//! | `placer_pool_fair_share`, `_running`, `_demand` | gauge | `pool`, `kind` |
//! | `placer_last_answer_pools` | gauge | — |
//! | `placer_config_reloads_total` | counter | `result` (ok/error) |
//! | `placer_config_last_reload_timestamp_seconds` | gauge | — |
//! | `placer_config_generation` | gauge | — |
//! | `placer_event_log_errors_total` | counter | — (event log writes that failed) |
//! | `placer_auth_failures_total` | counter | `reason` (missing/invalid/scope; docs/operations/configuration.md) |

use metrics::{counter, describe_counter, describe_gauge, describe_histogram, gauge, histogram};
use metrics::{SetRecorderError, Unit};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use placer_models::{Locality, PlaceResponse, Policy, PoolReport, Status};
use std::fmt::Write as _;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// `Content-Type` of the rendered page (Prometheus text format 0.0.4).
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Most pools whose gauges the page carries: the first this many of the last answer's
/// `pools` (which the solver lists sorted by id); `placer_last_answer_pools` tells how many
/// there were in all.
pub const MAX_POOL_SERIES: usize = 1000;

/// Upper bounds of the `placer_solve_seconds` buckets: 100 µs to 60 s, about ×2.5 apart.
pub const SOLVE_SECONDS_BUCKETS: [f64; 18] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    5.0, 10.0, 30.0, 60.0,
];

/// Upper bounds of the `placer_snapshot_bytes` buckets: 1 KiB to 256 MiB, ×4 apart.
pub const SNAPSHOT_BYTES_BUCKETS: [f64; 10] = [
    1024.0,
    4096.0,
    16384.0,
    65536.0,
    262_144.0,
    1_048_576.0,
    4_194_304.0,
    16_777_216.0,
    67_108_864.0,
    268_435_456.0,
];

const REQUESTS: &str = "placer_http_requests_total";
const OVERLOADED: &str = "placer_overloaded_total";
const IN_FLIGHT: &str = "placer_solves_in_flight";
const QUEUE: &str = "placer_queue_length";
const MEMORY_HELD: &str = "placer_memory_held_bytes";
const SOLVE_SECONDS: &str = "placer_solve_seconds";
const SNAPSHOT_BYTES: &str = "placer_snapshot_bytes";
const PLACED: &str = "placer_tasks_placed_total";
const TIME_LIMITED: &str = "placer_time_limited_total";
const PANICS: &str = "placer_panics_total";
const POOLS: &str = "placer_last_answer_pools";
const RELOADS: &str = "placer_config_reloads_total";
const RELOAD_TIME: &str = "placer_config_last_reload_timestamp_seconds";
const GENERATION: &str = "placer_config_generation";
const EVENT_LOG_ERRORS: &str = "placer_event_log_errors_total";
const AUTH_FAILURES: &str = "placer_auth_failures_total";
const SESSIONS: &str = "placer_sessions";
const SESSION_DELTAS: &str = "placer_session_deltas_total";
const SESSION_BYTES: &str = "placer_session_bytes";

/// How often the background thread folds histogram samples into their buckets, so that an
/// unscraped process does not accumulate samples.
const UPKEEP_EVERY: Duration = Duration::from_secs(5);

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
static LAST_POOLS: Mutex<PoolGauges> = Mutex::new(PoolGauges::new());

/// The Prometheus recorder with placer's buckets, not yet installed anywhere.
///
/// # Errors
/// None in practice: the bucket lists are constant and non-empty.
pub fn recorder() -> Result<metrics_exporter_prometheus::PrometheusRecorder, String> {
    Ok(PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Full(SOLVE_SECONDS.to_owned()), &SOLVE_SECONDS_BUCKETS)
        .and_then(|b| {
            b.set_buckets_for_metric(
                Matcher::Full(SNAPSHOT_BYTES.to_owned()),
                &SNAPSHOT_BYTES_BUCKETS,
            )
        })
        .map_err(|e| e.to_string())?
        .build_recorder())
}

/// Installs placer's recorder as the process's global `metrics` recorder, once: later calls
/// return the same handle. Also describes every series, sets the gauges to 0 so they appear
/// before the first request, and starts a thread that runs the recorder's upkeep every 5 s.
/// If another global recorder was installed first, placer's series go there and the handle
/// renders only the pool gauges.
pub fn install() -> &'static PrometheusHandle {
    HANDLE.get_or_init(|| {
        let recorder = match recorder() {
            Ok(r) => r,
            Err(e) => {
                tracing::error!(error = %e, "metrics recorder: invalid buckets, using defaults");
                PrometheusBuilder::new().build_recorder()
            }
        };
        let handle = recorder.handle();
        if let Err(SetRecorderError(_)) = metrics::set_global_recorder(recorder) {
            tracing::warn!("another metrics recorder is installed; /metrics shows only pools");
        }
        describe();
        let upkeep = handle.clone();
        let spawned =
            std::thread::Builder::new().name("placer-metrics-upkeep".to_owned()).spawn(move || {
                loop {
                    std::thread::sleep(UPKEEP_EVERY);
                    upkeep.run_upkeep();
                }
            });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "no metrics upkeep thread; scrapes drain histograms");
        }
        handle
    })
}

/// Describes every series (HELP lines, units) and sets the gauges to 0, on the current
/// recorder.
pub fn describe() {
    describe_counter!(REQUESTS, "HTTP requests answered, by matched route and status code");
    describe_counter!(OVERLOADED, "Requests refused with 503 (overloaded or draining)");
    describe_gauge!(IN_FLIGHT, "Snapshots holding a solve permit right now");
    describe_gauge!(QUEUE, "Requests waiting for a solve permit right now");
    describe_gauge!(
        MEMORY_HELD,
        Unit::Bytes,
        "Estimated bytes held right now against --max-memory: admitted requests' estimates and \
         the bodies being read or inflated"
    );
    describe_histogram!(
        SOLVE_SECONDS,
        Unit::Seconds,
        "Solver wall time per answered snapshot, by policy.algorithm and policy.solver"
    );
    describe_histogram!(SNAPSHOT_BYTES, Unit::Bytes, "Size of POST /place bodies (decompressed)");
    describe_counter!(
        PLACED,
        "Tasks placed, by kind and data locality (maps: stats.node_local, rack_local, remote, \
         no_preference)"
    );
    describe_counter!(TIME_LIMITED, "Answers with stats.status time_limited");
    describe_counter!(PANICS, "Panics caught while answering (each one a 500 and a bug)");
    describe_gauge!(POOLS, "Pools in the last answer (gauges kept for the first 1000)");
    describe_counter!(RELOADS, "Config file reloads, by result");
    describe_gauge!(
        RELOAD_TIME,
        Unit::Seconds,
        "Unix time the config in force was loaded (start or last good reload)"
    );
    describe_gauge!(GENERATION, "Config generation: 1 at start, +1 per applied reload");
    describe_counter!(
        EVENT_LOG_ERRORS,
        "Event log lines that could not be written (--event-log; the answers were sent)"
    );
    describe_counter!(
        AUTH_FAILURES,
        "Requests refused for their bearer token (--tokens), by reason: missing, invalid, scope"
    );
    for reason in ["missing", "invalid", "scope"] {
        counter!(AUTH_FAILURES, "reason" => reason).absolute(0);
    }
    describe_gauge!(SESSIONS, "Sessions held right now (POST /v1/sessions; --sessions-max)");
    describe_gauge!(
        SESSION_BYTES,
        Unit::Bytes,
        "Estimated bytes the sessions hold right now (part of placer_memory_held_bytes; at most \
         half of --max-memory)"
    );
    describe_counter!(
        SESSION_DELTAS,
        "Session deltas answered, by how their snapshot was validated: by_difference or full"
    );
    for validation in ["by_difference", "full"] {
        counter!(SESSION_DELTAS, "validation" => validation).absolute(0);
    }
    gauge!(SESSIONS).set(0.0);
    gauge!(SESSION_BYTES).set(0.0);
    gauge!(IN_FLIGHT).set(0.0);
    gauge!(QUEUE).set(0.0);
    gauge!(MEMORY_HELD).set(0.0);
    gauge!(POOLS).set(0.0);
    // Generation 1 is the config the process started with, reloaded or not.
    gauge!(GENERATION).set(1.0);
    counter!(OVERLOADED).absolute(0);
    counter!(TIME_LIMITED).absolute(0);
    counter!(PANICS).absolute(0);
    counter!(EVENT_LOG_ERRORS).absolute(0);
}

/// The `/metrics` page: every series of the global recorder followed by the last answer's pool
/// gauges. Installs the recorder on first use. O(series).
pub fn render() -> String {
    let mut page = install().render();
    LAST_POOLS.lock().unwrap_or_else(PoisonError::into_inner).render_into(&mut page);
    page
}

/// One answered request: `placer_http_requests_total{route,status}`, and
/// `placer_overloaded_total` when `status` is 503. `route` must come from a bounded set (the
/// matched pattern, or `other`).
pub fn request(route: &str, status: u16) {
    counter!(REQUESTS, "route" => route.to_owned(), "status" => status.to_string()).increment(1);
    if status == 503 {
        overloaded();
    }
}

/// One request refused with 503. Called by [`request`] for every 503 response; admission code
/// need not call it.
pub fn overloaded() {
    counter!(OVERLOADED).increment(1);
}

/// Sets `placer_solves_in_flight` to `n`. The admission code changes the count under its lock
/// and calls this under the same lock, so two updates never land out of order.
pub fn in_flight(n: usize) {
    gauge!(IN_FLIGHT).set(n as f64);
}

/// Sets `placer_memory_held_bytes` to `bytes` (the admission code calls it under its lock
/// whenever the held bytes change).
pub fn memory_held(bytes: u64) {
    gauge!(MEMORY_HELD).set(bytes as f64);
}

/// Sets `placer_sessions` and `placer_session_bytes` (the session store calls it under its
/// lock whenever a session is stored, moved on, or dropped).
pub fn sessions(count: usize, bytes: u64) {
    gauge!(SESSIONS).set(count as f64);
    gauge!(SESSION_BYTES).set(bytes as f64);
}

/// One session delta answered, its snapshot validated by difference or in full.
pub fn session_delta(by_difference: bool) {
    let validation = if by_difference { "by_difference" } else { "full" };
    counter!(SESSION_DELTAS, "validation" => validation).increment(1);
}

/// Sets `placer_queue_length` to `n` (the admission code calls it whenever the queue changes).
pub fn queue_len(n: usize) {
    gauge!(QUEUE).set(n as f64);
}

/// One solve of `seconds` under `algorithm` and `engine` (wire names).
pub fn solve(algorithm: &'static str, engine: &'static str, seconds: f64) {
    histogram!(SOLVE_SECONDS, "algorithm" => algorithm, "engine" => engine).record(seconds);
}

/// One `POST /place` body of `n` bytes (after decompression).
pub fn snapshot_bytes(n: usize) {
    histogram!(SNAPSHOT_BYTES).record(n as f64);
}

/// One answer with `stats.status: time_limited`.
pub fn time_limited() {
    counter!(TIME_LIMITED).increment(1);
}

/// One panic caught and turned into a 500.
pub fn panic_caught() {
    counter!(PANICS).increment(1);
}

/// One config reload attempt; `ok` when it was applied.
pub fn config_reloaded(ok: bool) {
    counter!(RELOADS, "result" => if ok { "ok" } else { "error" }).increment(1);
}

/// The config of generation `generation` is in force from now: sets
/// `placer_config_generation` and the reload timestamp (Unix seconds, now).
pub fn config_generation(generation: u64) {
    gauge!(GENERATION).set(generation as f64);
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64());
    gauge!(RELOAD_TIME).set(now);
}

/// One event log line that could not be written.
pub fn event_log_error() {
    counter!(EVENT_LOG_ERRORS).increment(1);
}

/// One request refused for its bearer token; `reason` is `missing`, `invalid` or `scope`.
pub fn auth_failure(reason: &'static str) {
    counter!(AUTH_FAILURES, "reason" => reason).increment(1);
}

/// Everything one successful answer tells: the solve time histogram, the placed-task
/// counters, the time-limited counter and the pool gauges (replacing the previous answer's).
/// O(assignments + pools).
pub fn answered(policy: &Policy, response: &PlaceResponse, seconds: f64) {
    solve(policy.algorithm.name(), policy.solver.name(), seconds);
    for (kind, locality, n) in placed_by_locality(response) {
        if n > 0 {
            counter!(PLACED, "kind" => kind, "locality" => locality).increment(n);
        }
    }
    if response.stats.status == Status::TimeLimited {
        time_limited();
    }
    gauge!(POOLS).set(response.pools.len() as f64);
    LAST_POOLS.lock().unwrap_or_else(PoisonError::into_inner).replace(&response.pools);
}

/// Placed tasks as `(kind, locality, count)`: maps from `stats` (`node_local`, `rack_local`,
/// `remote`, `none` for `no_preference`), reduces as the assignments of each locality minus
/// the maps of that locality. O(assignments).
pub fn placed_by_locality(response: &PlaceResponse) -> [(&'static str, &'static str, u64); 8] {
    let stats = &response.stats;
    let mut all = [0_u64; 4];
    for a in &response.assignments {
        all[locality_index(a.locality)] += 1;
    }
    let maps = [stats.node_local, stats.rack_local, stats.remote, stats.no_preference];
    let names = ["node_local", "rack_local", "remote", "none"];
    let mut out = [("map", "", 0); 8];
    for i in 0..4 {
        out[i] = ("map", names[i], maps[i]);
        out[4 + i] = ("reduce", names[i], all[i].saturating_sub(maps[i]));
    }
    out
}

fn locality_index(l: Locality) -> usize {
    match l {
        Locality::Node => 0,
        Locality::Rack => 1,
        Locality::Remote => 2,
        Locality::None => 3,
    }
}

/// The last answer's per-pool gauges, rendered by hand so that pools absent from the latest
/// answer disappear from the page (the `metrics` facade cannot remove a series).
#[derive(Debug, Default)]
pub struct PoolGauges {
    pools: Vec<PoolSample>,
}

#[derive(Debug)]
struct PoolSample {
    id: String,
    fair_share: Option<[f64; 2]>,
    running: [f64; 2],
    demand: [f64; 2],
}

impl PoolGauges {
    /// No pools.
    pub const fn new() -> Self {
        Self { pools: Vec::new() }
    }

    /// Keeps the first [`MAX_POOL_SERIES`] pools of `pools`, dropping the previous ones.
    pub fn replace(&mut self, pools: &[PoolReport]) {
        self.pools.clear();
        self.pools.extend(pools.iter().take(MAX_POOL_SERIES).map(|p| PoolSample {
            id: p.id.0.clone(),
            fair_share: p.fair_share.map(|s| [s.map, s.reduce]),
            running: [p.running.map, p.running.reduce],
            demand: [p.demand.map, p.demand.reduce],
        }));
    }

    /// Appends the three gauge families in text format 0.0.4 to `out` (nothing when there
    /// are no pools). Label values are escaped (`\\`, `\"`, `\n`). O(pools).
    pub fn render_into(&self, out: &mut String) {
        if self.pools.is_empty() {
            return;
        }
        type Pick = fn(&PoolSample) -> Option<[f64; 2]>;
        let families: [(&str, &str, Pick); 3] = [
            (
                "placer_pool_fair_share",
                "Fair share in slots of each pool in the last answer",
                |p| p.fair_share,
            ),
            ("placer_pool_running", "Running tasks of each pool before the last answer", |p| {
                Some(p.running)
            }),
            (
                "placer_pool_demand",
                "Demand (running + pending) of each pool in the last answer",
                |p| Some(p.demand),
            ),
        ];
        for (name, help, pick) in families {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge");
            for p in &self.pools {
                let Some(values) = pick(p) else { continue };
                let pool = escape_label(&p.id);
                for (kind, v) in ["map", "reduce"].into_iter().zip(values) {
                    let _ =
                        writeln!(out, "{name}{{pool=\"{pool}\",kind=\"{kind}\"}} {}", number(v));
                }
            }
            out.push('\n');
        }
    }
}

/// A label value escaped per the text format: backslash, double quote and line feed.
fn escape_label(v: &str) -> String {
    let mut s = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '\\' => s.push_str("\\\\"),
            '"' => s.push_str("\\\""),
            '\n' => s.push_str("\\n"),
            c => s.push(c),
        }
    }
    s
}

/// A sample value as the text format spells it (`+Inf`, `-Inf`, `NaN` for the non-finite).
fn number(v: f64) -> String {
    if v.is_nan() {
        "NaN".to_owned()
    } else if v.is_infinite() {
        if v > 0.0 { "+Inf" } else { "-Inf" }.to_owned()
    } else {
        v.to_string()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use placer_models::{PoolId, SlotCounts, StarvationState};

    fn pool(id: &str, share: Option<f64>) -> PoolReport {
        let counts = |m: f64| SlotCounts { map: m, reduce: 0.5 };
        PoolReport {
            id: PoolId(id.to_owned()),
            fair_share: share.map(counts),
            running: counts(1.0),
            demand: counts(3.0),
            running_after: counts(2.0),
            starvation: StarvationState::default(),
        }
    }

    #[test]
    fn pools_absent_from_the_latest_answer_disappear() {
        let mut g = PoolGauges::new();
        g.replace(&[pool("a", Some(2.0)), pool("b", None)]);
        let mut page = String::new();
        g.render_into(&mut page);
        assert!(page.contains("placer_pool_fair_share{pool=\"a\",kind=\"map\"} 2\n"));
        assert!(!page.contains("placer_pool_fair_share{pool=\"b\""));
        assert!(page.contains("placer_pool_demand{pool=\"b\",kind=\"reduce\"} 0.5\n"));
        g.replace(&[pool("c", Some(1.0))]);
        let mut page = String::new();
        g.render_into(&mut page);
        assert!(!page.contains("pool=\"a\"") && page.contains("pool=\"c\""));
    }

    #[test]
    fn pool_series_are_capped() {
        let many: Vec<_> = (0..MAX_POOL_SERIES + 5).map(|i| pool(&i.to_string(), None)).collect();
        let mut g = PoolGauges::new();
        g.replace(&many);
        let mut page = String::new();
        g.render_into(&mut page);
        assert_eq!(page.matches("placer_pool_running{").count(), 2 * MAX_POOL_SERIES);
    }

    #[test]
    fn label_values_are_escaped_per_the_text_format() {
        assert_eq!(escape_label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
        assert_eq!(number(f64::INFINITY), "+Inf");
        assert_eq!(number(0.25), "0.25");
    }

    /// `placer_config_generation` was missing until the first reload, though it is 1 at start.
    #[test]
    fn a_fresh_page_shows_generation_1_and_no_memory_held() {
        let recorder = recorder().unwrap();
        let handle = recorder.handle();
        metrics::with_local_recorder(&recorder, describe);
        let page = handle.render();
        assert!(page.contains("\nplacer_config_generation 1\n"), "{page}");
        assert!(page.contains("\nplacer_memory_held_bytes 0\n"), "{page}");
    }

    #[test]
    fn hooks_render_through_a_local_recorder() {
        let recorder = recorder().unwrap();
        let handle = recorder.handle();
        metrics::with_local_recorder(&recorder, || {
            describe();
            request("/place", 200);
            request("other", 503);
            solve("lsap", "flow", 0.003);
            snapshot_bytes(2000);
            config_reloaded(false);
            queue_len(3);
        });
        let page = handle.render();
        assert!(page.contains("placer_http_requests_total{route=\"/place\",status=\"200\"} 1"));
        assert!(page.contains("placer_overloaded_total 1"));
        assert!(page.contains(
            "placer_solve_seconds_bucket{algorithm=\"lsap\",engine=\"flow\",le=\"0.005\"} 1"
        ));
        assert!(page.contains("placer_snapshot_bytes_bucket{le=\"1024\"} 0"));
        assert!(page.contains("placer_snapshot_bytes_bucket{le=\"4096\"} 1"));
        assert!(page.contains("placer_config_reloads_total{result=\"error\"} 1"));
        assert!(page.contains("placer_queue_length 3"));
        assert!(page.contains("# TYPE placer_solve_seconds histogram"));
    }
}
