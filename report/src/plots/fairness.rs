//! The fairness plot of `placer whatif` (docs/simulator.md, "Outputs"): the fairness distance D
//! (lsap-fair-sched, Guo et al.) over simulated time, per policy, as the mean per time bucket.

use super::canvas::{
    duration_text, legend, no_reports_message, run_span_s, time_axis, zero_based_axis, Body, Plot,
};
use placer_sim::SimReport;

/// Equal time buckets of the fairness plot's x axis; the line joins their mean D.
pub const FAIRNESS_BUCKETS: usize = 50;

/// Fairness distance D over simulated time (lsap-fair-sched), raw or bucket means.
pub(super) fn fairness_plot(reports: &[&SimReport]) -> Plot {
    let (x, divisor, _) = time_axis(run_span_s(reports));
    let span = x.range.end * divisor;
    let lines: Vec<Vec<(f64, f64)>> = reports
        .iter()
        .map(|r| {
            let raw = r
                .epochs
                .iter()
                .filter(|e| e.time_s.is_finite() && e.fairness_distance.is_finite())
                .map(|e| (e.time_s, e.fairness_distance));
            bucket_means(raw, span).into_iter().map(|(t, d)| (t / divisor, d)).collect()
        })
        .collect();
    let max = lines.iter().flatten().map(|p| p.1).fold(0.0, f64::max);
    let message = no_reports_message(reports)
        .or_else(|| lines.iter().all(Vec::is_empty).then(|| "no solver epochs".to_owned()));
    let how = format!("mean per {}", duration_text(span / FAIRNESS_BUCKETS as f64));
    Plot {
        title: "Fairness distance over time by policy".to_owned(),
        subtitle: format!("D = mean over pools of |s_i − w_i| / w_i, {how} (cf. lsap-fair-sched)"),
        x,
        y: zero_based_axis("fairness distance D".to_owned(), max, 1.05),
        legend: legend(reports, |r| {
            let d = r.summary.fairness_distance;
            if d.is_finite() {
                format!("mean D {d:.3}")
            } else {
                "mean D ?".to_owned()
            }
        }),
        body: Body::Lines(lines),
        message,
    }
}

/// The mean value of each non-empty bucket of [`FAIRNESS_BUCKETS`] equal buckets of
/// `0..span_s`, at the bucket's middle.
fn bucket_means(points: impl Iterator<Item = (f64, f64)>, span_s: f64) -> Vec<(f64, f64)> {
    let width = span_s / FAIRNESS_BUCKETS as f64;
    let mut sums = vec![(0.0, 0usize); FAIRNESS_BUCKETS];
    for (t, d) in points {
        let k = if width > 0.0 { (t / width).floor().max(0.0) as usize } else { 0 };
        let slot = &mut sums[k.min(FAIRNESS_BUCKETS - 1)];
        slot.0 += d;
        slot.1 += 1;
    }
    sums.iter()
        .enumerate()
        .filter(|(_, (_, n))| *n > 0)
        .map(|(k, (sum, n))| ((k as f64 + 0.5) * width, sum / *n as f64))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_means_average_within_buckets() {
        let means = bucket_means([(0.0, 1.0), (0.1, 3.0), (99.9, 5.0)].into_iter(), 100.0);
        assert_eq!(means, vec![(1.0, 2.0), (99.0, 5.0)]);
    }
}
