//! The cross-rack shuffle rate over time of `placer whatif` (ShuffleWatcher, Ahmad et al.,
//! Figs. 1 and 10: "Cross-rack Shuffle Rate (Mb/s)" against time): per policy, the mean
//! Mbit/s of cross-rack shuffle in each time bucket of the run's
//! [`placer_sim::SimReport::cross_rack_series`] (60 s), as `cross_rack_timeseries.csv` lists it.

use super::canvas::{
    legend, no_reports_message, run_span_s, time_axis, zero_based_axis, Body, Plot,
};
use crate::tables::cross_rack_rates;
use placer_sim::SimReport;

/// Most points of one policy's line: above, consecutive buckets are averaged in equal groups
/// (a mean rate over the group's span, exact for equal buckets).
pub const TIMESERIES_MAX_POINTS: usize = 500;

/// Cross-rack shuffle Mbit/s over simulated time (ShuffleWatcher Figs. 1 and 10).
pub(super) fn cross_rack_timeseries_plot(reports: &[&SimReport]) -> Plot {
    let (x, divisor, _) = time_axis(run_span_s(reports));
    let span = x.range.end * divisor;
    let lines: Vec<Vec<(f64, f64)>> = reports
        .iter()
        .map(|r| {
            shuffle_points(r)
                .into_iter()
                .filter(|&(t, v)| t <= span && v.is_finite())
                .map(|(t, v)| (t / divisor, v))
                .collect()
        })
        .collect();
    let max = lines.iter().flatten().map(|p| p.1).fold(0.0, f64::max);
    let message = no_reports_message(reports).or_else(|| {
        (max <= 0.0).then(|| "no shuffle crossed racks (0 Mbit/s for every policy)".to_owned())
    });
    let width =
        reports.first().map_or(placer_sim::SERIES_BUCKET_S, |r| r.cross_rack_series.bucket_s);
    Plot {
        title: "Cross-rack shuffle rate over time by policy".to_owned(),
        subtitle: format!(
            "mean Mbit/s per {} s of simulated time (cf. ShuffleWatcher Figs. 1 and 10)",
            width
        ),
        x,
        y: zero_based_axis("cross-rack shuffle rate (Mbit/s)".to_owned(), max, 1.05),
        legend: legend(reports, |r| {
            let peak = shuffle_points(r).iter().map(|p| p.1).fold(0.0, f64::max);
            format!("peak {peak:.0} Mbit/s")
        }),
        body: Body::Lines(lines),
        message,
    }
}

/// (bucket middle s, shuffle Mbit/s) per bucket, at most [`TIMESERIES_MAX_POINTS`] (groups of
/// equal buckets averaged, at the group's middle).
fn shuffle_points(report: &SimReport) -> Vec<(f64, f64)> {
    let rates = cross_rack_rates(report);
    let w = report.cross_rack_series.bucket_s;
    let group = rates.len().div_ceil(TIMESERIES_MAX_POINTS).max(1);
    rates
        .chunks(group)
        .map(|c| {
            let start = c[0].0;
            let mean = c.iter().map(|p| p.1).sum::<f64>() / c.len() as f64;
            (start + c.len() as f64 * w / 2.0, mean)
        })
        .collect()
}
