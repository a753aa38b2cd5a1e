//! The job response-time CDF plot of `placer whatif` (docs/simulator.md, "Outputs"): the empirical
//! CDF of each policy's finished jobs' response times on a log x axis, as in FAIR (Zaharia et
//! al.) Fig. 5/6.

use super::canvas::{legend, no_reports_message, Axis, Body, Plot, TickFormat};
use placer_sim::SimReport;

/// Most steps of a response-time CDF.
pub const CDF_MAX_STEPS: usize = 1000;

/// Empirical CDF of finished jobs' response times, log x (FAIR Fig. 5/6).
pub(super) fn response_cdf_plot(reports: &[&SimReport]) -> Plot {
    let finished: Vec<Vec<f64>> = reports
        .iter()
        .map(|r| {
            let mut v: Vec<f64> =
                r.jobs.iter().filter_map(|j| j.response_s).filter(|x| x.is_finite()).collect();
            v.sort_by(f64::total_cmp);
            v
        })
        .collect();
    let positive = || finished.iter().flatten().copied().filter(|x| *x > 0.0);
    let (lo, hi) = match (positive().reduce(f64::min), positive().reduce(f64::max)) {
        (Some(min), Some(max)) => {
            // A little room either side, at least half a decade in all.
            let (lo, hi) = (min.log10() - 0.05, max.log10() + 0.05);
            let widen = (0.5 - (hi - lo)).max(0.0) / 2.0;
            (lo - widen, hi + widen)
        }
        _ => (0.0, 1.0),
    };
    let floor = 10f64.powf(lo);
    let lines = finished
        .iter()
        .map(|v| cdf_steps(v).into_iter().map(|(x, y)| (x.max(floor).log10(), y)).collect())
        .collect();
    let message = no_reports_message(reports)
        .or_else(|| finished.iter().all(Vec::is_empty).then(|| "no finished jobs".to_owned()));
    Plot {
        title: "Job response time CDF by policy".to_owned(),
        subtitle: "empirical CDF over each policy's finished jobs (cf. FAIR, Zaharia et al., \
                   Fig. 5/6)"
            .to_owned(),
        x: Axis {
            desc: "job response time (s, log scale)".to_owned(),
            range: lo..hi,
            ticks: log_ticks(lo, hi),
            format: TickFormat::Power10,
        },
        y: Axis {
            desc: "fraction of finished jobs".to_owned(),
            // Room above 1 so that the top steps are not hidden by the frame.
            range: 0.0..1.03,
            ticks: vec![0.0, 0.2, 0.4, 0.6, 0.8, 1.0],
            format: TickFormat::Decimals(1),
        },
        legend: legend(reports, |r| {
            let done = r.jobs.iter().filter(|j| j.response_s.is_some_and(f64::is_finite)).count();
            if done == r.jobs.len() {
                format!("{done} jobs")
            } else {
                format!("{done} of {} finished", r.jobs.len())
            }
        }),
        body: Body::Lines(lines),
        message,
    }
}

/// Ticks (log10 values) of a log axis over `lo..hi` (log10 values): decades, plus 2× and 5×
/// up to 4 decades, plus every integer mantissa up to 1.5 decades.
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = hi - lo;
    let mantissas: &[f64] = if span > 4.0 {
        &[1.0]
    } else if span > 1.5 {
        &[1.0, 2.0, 5.0]
    } else {
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
    };
    let mut ticks = Vec::new();
    for decade in (lo.floor() as i64)..=(hi.ceil() as i64) {
        for m in mantissas {
            let t = decade as f64 + m.log10();
            if t >= lo && t <= hi {
                ticks.push(t);
            }
        }
    }
    ticks
}

/// The staircase of the empirical CDF of `sorted` (ascending, finite): (x, fraction ≤ x),
/// thinned to at most [`CDF_MAX_STEPS`] evenly spaced ranks (always the last).
fn cdf_steps(sorted: &[f64]) -> Vec<(f64, f64)> {
    let n = sorted.len();
    if n == 0 {
        return Vec::new();
    }
    let ranks: Vec<usize> = if n <= CDF_MAX_STEPS {
        (0..n).collect()
    } else {
        let mut r: Vec<usize> =
            (1..=CDF_MAX_STEPS).map(|k| (k * n).div_ceil(CDF_MAX_STEPS) - 1).collect();
        r.dedup();
        r
    };
    let mut points = Vec::with_capacity(2 * ranks.len());
    let mut y = 0.0;
    for i in ranks {
        // Ties: jump at the last of equal values only.
        if i + 1 < n && sorted[i + 1] == sorted[i] {
            continue;
        }
        let x = sorted[i];
        points.push((x, y));
        y = (i + 1) as f64 / n as f64;
        points.push((x, y));
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plots::canvas::tick_text;

    #[test]
    fn cdf_steps_jump_once_per_distinct_value() {
        let steps = cdf_steps(&[1.0, 2.0, 2.0, 4.0]);
        assert_eq!(
            steps,
            vec![(1.0, 0.0), (1.0, 0.25), (2.0, 0.25), (2.0, 0.75), (4.0, 0.75), (4.0, 1.0)]
        );
        assert!(cdf_steps(&[]).is_empty());
        let many: Vec<f64> = (0..10_000).map(f64::from).collect();
        let thinned = cdf_steps(&many);
        assert!(thinned.len() <= 2 * CDF_MAX_STEPS);
        assert_eq!(thinned.last(), Some(&(9999.0, 1.0)));
    }

    #[test]
    fn log_ticks_by_span() {
        let ticks: Vec<String> =
            log_ticks(1.2, 3.1).iter().map(|t| tick_text(TickFormat::Power10, *t)).collect();
        assert_eq!(ticks, ["20", "50", "100", "200", "500", "1000"]);
        assert_eq!(log_ticks(-1.0, 5.0).len(), 7);
    }
}
