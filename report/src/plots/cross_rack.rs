//! The cross-rack traffic plot of `placer whatif` (docs/simulator.md, "Outputs"): cumulative GB
//! read across racks over simulated time, per policy, the cost ShuffleWatcher (Ahmad et al.,
//! §5) measures.

use super::canvas::{
    activity_end_s, legend, no_reports_message, run_span_s, time_axis, zero_based_axis, Body, Plot,
};
use placer_sim::SimReport;

/// Most points of a cumulative cross-rack line.
pub const CROSS_RACK_MAX_POINTS: usize = 500;

/// Cumulative GB moved across racks over simulated time (ShuffleWatcher §5).
pub(super) fn cross_rack_plot(reports: &[&SimReport]) -> Plot {
    let (x, divisor, _) = time_axis(run_span_s(reports));
    let span = x.range.end * divisor;
    let lines: Vec<Vec<(f64, f64)>> = reports
        .iter()
        .map(|r| cross_rack_points(r, span).into_iter().map(|(t, gb)| (t / divisor, gb)).collect())
        .collect();
    let max = lines.iter().flatten().map(|p| p.1).fold(0.0, f64::max);
    let message = no_reports_message(reports).or_else(|| {
        if lines.iter().all(|l| l.len() <= 1) {
            Some("no solver epochs".to_owned())
        } else if max <= 0.0 {
            Some("no bytes crossed racks (0 GB for every policy)".to_owned())
        } else {
            None
        }
    });
    Plot {
        title: "Cumulative cross-rack traffic by policy".to_owned(),
        subtitle: "map input and shuffle bytes read across racks (cf. ShuffleWatcher)".to_owned(),
        x,
        y: zero_based_axis("cross-rack traffic (GB, cumulative)".to_owned(), max, 1.05),
        legend: legend(reports, |r| format!("{} GB", gb_text(r.summary.cross_rack_gb))),
        body: Body::Lines(lines),
        message,
    }
}

fn gb_text(gb: f64) -> String {
    if !gb.is_finite() {
        "?".to_owned()
    } else if gb < 10.0 {
        format!("{gb:.2}")
    } else {
        format!("{gb:.0}")
    }
}

/// (time s, cumulative GB) after each epoch row, from (0, 0) to (last finish, summary total);
/// at most
/// [`CROSS_RACK_MAX_POINTS`] rows kept (the last of each of that many buckets of `span_s`).
fn cross_rack_points(report: &SimReport, span_s: f64) -> Vec<(f64, f64)> {
    let mut points = vec![(0.0, 0.0)];
    let mut bytes = 0.0;
    let width = span_s / CROSS_RACK_MAX_POINTS as f64;
    let bucket = |t: f64| if width > 0.0 { (t / width).floor() as i64 } else { 0 };
    let rows: Vec<(f64, f64)> = report
        .epochs
        .iter()
        .filter(|e| e.time_s.is_finite() && e.time_s >= 0.0)
        .map(|e| {
            if e.bytes_cross_rack.is_finite() && e.bytes_cross_rack > 0.0 {
                bytes += e.bytes_cross_rack;
            }
            (e.time_s, bytes / 1e9)
        })
        .collect();
    for (k, &(t, gb)) in rows.iter().enumerate() {
        let last_of_bucket = rows.get(k + 1).is_none_or(|next| bucket(next.0) != bucket(t));
        if rows.len() <= CROSS_RACK_MAX_POINTS || last_of_bucket {
            points.push((t, gb));
        }
    }
    let (last_t, last_gb) = points[points.len() - 1];
    let end = activity_end_s(report);
    let total = report.summary.cross_rack_gb;
    if !report.epochs.is_empty() && end > last_t {
        let total = if total.is_finite() && total >= last_gb { total } else { last_gb };
        points.push((end, total));
    }
    points
}
