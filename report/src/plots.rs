//! The plots of `placer whatif` (DESIGN.md §CLI contract), one per figure of the papers they
//! mirror: map-task locality bars (lsap-sched, Guo et al., Fig. 3), job response-time CDFs
//! (FAIR, Zaharia et al., Fig. 5/6 style), cumulative cross-rack traffic (ShuffleWatcher, Ahmad
//! et al., §5) and fairness distance over time (lsap-fair-sched, Guo et al.).
//!
//! [`write_plots`] writes each plot as SVG and PNG (1000 × 600 px). Every plot gives policy `i`
//! (the `i`-th report) the same colour and lists the policies in a legend to the right of the
//! plotting area, so that the legend never covers data. Text is DejaVu Sans, embedded and
//! registered once, so the PNGs need no system fonts.
//!
//! | file | x | y | data |
//! |---|---|---|---|
//! | `locality` | node-local / rack-local / remote | % of completed maps with replicas | `summary.node_local`, `rack_local`, `remote` |
//! | `response_cdf` | job response time, s, log scale | fraction of the policy's finished jobs | `jobs[].response_s` |
//! | `cross_rack` | simulated time (s, min or h) | GB (10⁹ bytes) across racks, cumulative | `epochs[].bytes_cross_rack`, then `summary.cross_rack_gb` at the last job finish |
//! | `fairness` | simulated time | fairness distance D, mean per time bucket | `epochs[].fairness_distance` |
//!
//! Decisions:
//! - Response times span orders of magnitude (FAIR's BM: 10 s to an hour), hence the log x
//!   axis, spanning the data (at least half a decade), with ticks at decades, plus 2× and 5×
//!   up to 4 decades, plus every integer mantissa up to 1.5 decades. A response of 0 s is
//!   drawn at the axis's left edge, so it still counts in the CDF. The y axis is the fraction
//!   of that policy's finished jobs; the legend says how many of its jobs finished.
//!   Above [`CDF_MAX_STEPS`] jobs a policy's staircase is thinned to that many evenly spaced
//!   ranks (exact at those ranks).
//! - Fairness distance jumps between 0 and > 1 from one solver call to the next (a pool gains
//!   or loses a task), so raw lines of several policies are unreadable already at a few
//!   hundred epochs. The time axis is cut into [`FAIRNESS_BUCKETS`] equal buckets, shared by
//!   all policies, and each line joins its policy's mean D per non-empty bucket (bridging
//!   periods without solver calls); the subtitle states the bucket width. The legend gives the
//!   run's mean D (`summary.fairness_distance`).
//! - Time axes end at the latest job finish or solver call of any run (not
//!   `summary.end_time_s`, which can lie well after the last finish), in s, min or h.
//! - Lines are split where they turn back sharply: plotters draws wide polylines with mitred
//!   joins, which spike far past a sharp zigzag's peaks in the PNGs.
//! - Cross-rack traffic accumulates each epoch row's bytes; the line ends at the run's last job
//!   finish with the summary's total (bytes that moved after the last solver call). Over
//!   [`CROSS_RACK_MAX_POINTS`] rows the line keeps the last row of each of that many time
//!   buckets (a cumulative curve, so the points it keeps are exact).
//! - Locality bars carry their value (%) where the label fits its bar's slot (up to 8 policies).
//! - Non-finite values (NaN, ±∞) are skipped; a locality share that is not finite counts as 0.
//!   A plot with nothing to draw (no reports, no finished jobs, no epochs) still gets its axes,
//!   title and legend, and says why it is empty in its middle. Nothing panics.
//!
//! Output is deterministic: the same reports give the same SVG bytes.

use crate::ReportError;
use placer_sim::SimReport;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::register_font;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Pixel size of every plot.
const SIZE: (u32, u32) = (1000, 600);
/// Width of the legend column at the right, px.
const LEGEND_W: u32 = 210;
/// Height of the title block, px.
const HEADER_H: u32 = 70;
/// The font family every text uses (registered from the `dejavu` crate).
const FONT: &str = "sans-serif";
/// Equal time buckets of the fairness plot's x axis; the line joins their mean D.
pub const FAIRNESS_BUCKETS: usize = 50;
/// Most points of a cumulative cross-rack line.
pub const CROSS_RACK_MAX_POINTS: usize = 500;
/// Most steps of a response-time CDF.
pub const CDF_MAX_STEPS: usize = 1000;
/// Longest policy name shown in a legend, characters.
const LABEL_MAX_CHARS: usize = 18;

/// Tableau 10: distinct, print-safe colours; policy `i` gets `PALETTE[i % 10]`.
const PALETTE: [(u8, u8, u8); 10] = [
    (31, 119, 180),
    (255, 127, 14),
    (44, 160, 44),
    (214, 39, 40),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (127, 127, 127),
    (188, 189, 34),
    (23, 190, 207),
];

const GRID: RGBColor = RGBColor(228, 228, 228);
const MUTED: RGBColor = RGBColor(90, 90, 90);

/// Writes `locality`, `response_cdf`, `cross_rack` and `fairness`, each as `.svg` and `.png`,
/// into `dir` (created if missing), one colour per report in `reports` order. Returns the
/// eight paths in that order (SVG before PNG).
///
/// Errors: [`ReportError::Io`] when `dir` cannot be created or a file not written,
/// [`ReportError::Plot`] when the embedded font does not load or drawing fails. Empty inputs
/// (no reports, no finished jobs, no epochs, all zeros, NaN) are not errors: the plots say so.
///
/// ```no_run
/// # fn run(lsap: &placer_sim::SimReport, fair: &placer_sim::SimReport)
/// # -> Result<(), placer_report::ReportError> {
/// let files = placer_report::plots::write_plots(&[lsap, fair], std::path::Path::new("out"))?;
/// assert_eq!(files.len(), 8);
/// # Ok(()) }
/// ```
pub fn write_plots(reports: &[&SimReport], dir: &Path) -> Result<Vec<PathBuf>, ReportError> {
    register_fonts()?;
    std::fs::create_dir_all(dir).map_err(|e| io_error(dir, &e))?;
    let plots = [
        ("locality", locality_plot(reports)),
        ("response_cdf", response_cdf_plot(reports)),
        ("cross_rack", cross_rack_plot(reports)),
        ("fairness", fairness_plot(reports)),
    ];
    let mut paths = Vec::with_capacity(2 * plots.len());
    for (name, plot) in &plots {
        paths.push(write_svg(name, plot, dir)?);
        paths.push(write_png(name, plot, dir)?);
    }
    Ok(paths)
}

/// Registers DejaVu Sans (regular, bold) as plotters' `sans-serif`, once per process.
fn register_fonts() -> Result<(), ReportError> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        register_font(FONT, FontStyle::Normal, dejavu::sans::regular()).is_ok()
            && register_font(FONT, FontStyle::Bold, dejavu::sans::bold()).is_ok()
    });
    if ok {
        Ok(())
    } else {
        Err(ReportError::Plot {
            name: "font".to_owned(),
            message: "the embedded DejaVu Sans font does not load".to_owned(),
        })
    }
}

fn io_error(path: &Path, error: &std::io::Error) -> ReportError {
    ReportError::Io { path: path.display().to_string(), message: error.to_string() }
}

fn plot_error(name: &str, error: impl std::fmt::Display) -> ReportError {
    ReportError::Plot { name: name.to_owned(), message: error.to_string() }
}

fn write_svg(name: &str, plot: &Plot, dir: &Path) -> Result<PathBuf, ReportError> {
    let path = dir.join(format!("{name}.svg"));
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        draw(&root, plot).map_err(|e| plot_error(name, e))?;
        root.present().map_err(|e| plot_error(name, e))?;
    }
    std::fs::write(&path, svg).map_err(|e| io_error(&path, &e))?;
    Ok(path)
}

fn write_png(name: &str, plot: &Plot, dir: &Path) -> Result<PathBuf, ReportError> {
    let path = dir.join(format!("{name}.png"));
    {
        let root = BitMapBackend::new(&path, SIZE).into_drawing_area();
        draw(&root, plot).map_err(|e| plot_error(name, e))?;
        // Only `present` touches the file.
        root.present().map_err(|e| ReportError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
    }
    Ok(path)
}

// ---------------------------------------------------------------------------------------------
// What a plot shows, backend-independent.

/// One plot: frame, axes, legend and either lines or grouped bars.
struct Plot {
    title: String,
    subtitle: String,
    x: Axis,
    y: Axis,
    legend: Vec<LegendEntry>,
    body: Body,
    /// Shown in the middle of the plotting area when there is nothing (or nothing visible) to
    /// draw.
    message: Option<String>,
}

/// A linear axis (the CDF's x holds log10 values and formats its ticks as powers of 10).
struct Axis {
    desc: String,
    range: Range<f64>,
    ticks: Vec<f64>,
    format: TickFormat,
}

#[derive(Clone, Copy)]
enum TickFormat {
    /// A number with this many decimals.
    Decimals(usize),
    /// The tick is log10 of the value shown.
    Power10,
    /// Ticks at `k + 0.5` show the locality class `k`.
    Locality,
}

struct LegendEntry {
    label: String,
    note: String,
    colour: RGBColor,
}

enum Body {
    /// One polyline (possibly empty) per policy, in data coordinates.
    Lines(Vec<Vec<(f64, f64)>>),
    /// Per policy, the bar heights of the three locality groups, %.
    LocalityBars(Vec<[f64; 3]>),
}

const LOCALITY_CLASSES: [&str; 3] = ["node-local", "rack-local", "remote"];

fn colour(index: usize) -> RGBColor {
    let (r, g, b) = PALETTE[index % PALETTE.len()];
    RGBColor(r, g, b)
}

/// The report's name (its algorithm's wire name if empty), shortened to fit the legend.
fn label(report: &SimReport) -> String {
    let name = if report.name.trim().is_empty() {
        report.algorithm.name().to_owned()
    } else {
        report.name.clone()
    };
    if name.chars().count() > LABEL_MAX_CHARS {
        let mut short: String = name.chars().take(LABEL_MAX_CHARS - 1).collect();
        short.push('…');
        short
    } else {
        name
    }
}

fn legend(reports: &[&SimReport], note: impl Fn(&SimReport) -> String) -> Vec<LegendEntry> {
    reports
        .iter()
        .enumerate()
        .map(|(i, r)| LegendEntry { label: label(r), note: note(r), colour: colour(i) })
        .collect()
}

fn finite_or_zero(x: f64) -> f64 {
    if x.is_finite() {
        x
    } else {
        0.0
    }
}

/// Ticks every 1, 2 or 5 × 10^k covering `lo..=hi` with about `target` intervals, and the
/// decimals they need. `hi > lo` and both finite.
fn nice_ticks(lo: f64, hi: f64, target: usize) -> (Vec<f64>, f64, usize) {
    let raw = (hi - lo) / target.max(1) as f64;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * magnitude);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step + 1e-9).floor() as i64;
    let ticks = (first..=last).map(|k| k as f64 * step).collect();
    let decimals = if step >= 1.0 { 0 } else { (-step.log10().floor()) as usize };
    (ticks, step, decimals)
}

/// A value axis from 0 to a round number at or above `max` (headroom `pad`, e.g. 1.05).
fn zero_based_axis(desc: String, max: f64, pad: f64) -> Axis {
    let top = if max.is_finite() && max > 0.0 { max * pad } else { 1.0 };
    let (_, step, decimals) = nice_ticks(0.0, top, 6);
    let hi = (top / step).ceil() * step;
    let (ticks, _, _) = nice_ticks(0.0, hi, 6);
    Axis { desc, range: 0.0..hi, ticks, format: TickFormat::Decimals(decimals) }
}

/// Seconds, minutes or hours, whichever keeps a run of `span_s` readable: (divisor, unit).
fn time_unit(span_s: f64) -> (f64, &'static str) {
    if span_s <= 1200.0 {
        (1.0, "s")
    } else if span_s <= 6.0 * 3600.0 {
        (60.0, "min")
    } else {
        (3600.0, "h")
    }
}

/// When a run's activity ended, s: its last job finish or solver call, whichever is later
/// (0 if neither). Not `summary.end_time_s`, which counts events after the last finish.
fn activity_end_s(report: &SimReport) -> f64 {
    report
        .jobs
        .iter()
        .filter_map(|j| j.finish_s)
        .chain(report.epochs.iter().map(|e| e.time_s))
        .filter(|t| t.is_finite() && *t > 0.0)
        .fold(0.0, f64::max)
}

/// The simulated span of the runs, s: the latest [`activity_end_s`], 0 if none.
fn run_span_s(reports: &[&SimReport]) -> f64 {
    reports.iter().map(|r| activity_end_s(r)).fold(0.0, f64::max)
}

/// A duration of `s` seconds in s, min or h, with two or three significant digits.
fn duration_text(s: f64) -> String {
    let (value, unit) = if s < 120.0 {
        (s, "s")
    } else if s < 7200.0 {
        (s / 60.0, "min")
    } else {
        (s / 3600.0, "h")
    };
    if value >= 10.0 {
        format!("{value:.0} {unit}")
    } else if value >= 1.0 {
        format!("{value:.1} {unit}")
    } else {
        format!("{value:.2} {unit}")
    }
}

/// The time axis over `0..span_s` in a readable unit: (axis, seconds per unit, unit).
fn time_axis(span_s: f64) -> (Axis, f64, &'static str) {
    let span = if span_s > 0.0 { span_s } else { 1.0 };
    let (divisor, unit) = time_unit(span);
    let hi = span / divisor;
    let (ticks, _, decimals) = nice_ticks(0.0, hi, 8);
    (
        Axis {
            desc: format!("simulated time ({unit})"),
            range: 0.0..hi,
            ticks,
            format: TickFormat::Decimals(decimals),
        },
        divisor,
        unit,
    )
}

fn no_reports_message(reports: &[&SimReport]) -> Option<String> {
    reports.is_empty().then(|| "no reports".to_owned())
}

// ---------------------------------------------------------------------------------------------
// The four plots.

/// Grouped bars: per locality class, one bar per policy (lsap-sched Fig. 3).
fn locality_plot(reports: &[&SimReport]) -> Plot {
    let bars: Vec<[f64; 3]> = reports
        .iter()
        .map(|r| {
            let s = &r.summary;
            [s.node_local, s.rack_local, s.remote]
                .map(|share| (100.0 * finite_or_zero(share)).clamp(0.0, 100.0))
        })
        .collect();
    let message = no_reports_message(reports).or_else(|| {
        reports
            .iter()
            .all(|r| r.summary.map_tasks == 0)
            .then(|| "no completed map tasks".to_owned())
    });
    Plot {
        title: "Map-task data locality by policy".to_owned(),
        subtitle: "where completed maps with replicas ran (cf. lsap-sched Fig. 3)".to_owned(),
        x: Axis {
            desc: "locality of the map task".to_owned(),
            range: 0.0..3.0,
            ticks: vec![0.5, 1.5, 2.5],
            format: TickFormat::Locality,
        },
        y: Axis {
            desc: "share of completed maps with replicas (%)".to_owned(),
            // Headroom above 100 % for the value labels.
            range: 0.0..110.0,
            ticks: vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0],
            format: TickFormat::Decimals(0),
        },
        legend: legend(reports, |r| {
            let scored: usize =
                r.jobs.iter().map(|j| j.maps_node_local + j.maps_rack_local + j.maps_remote).sum();
            format!("{scored} of {} maps", r.summary.map_tasks)
        }),
        body: Body::LocalityBars(bars),
        message,
    }
}

/// Empirical CDF of finished jobs' response times, log x (FAIR Fig. 5/6).
fn response_cdf_plot(reports: &[&SimReport]) -> Plot {
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

/// Cumulative GB moved across racks over simulated time (ShuffleWatcher §5).
fn cross_rack_plot(reports: &[&SimReport]) -> Plot {
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

/// Fairness distance D over simulated time (lsap-fair-sched), raw or bucket means.
fn fairness_plot(reports: &[&SimReport]) -> Plot {
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

// ---------------------------------------------------------------------------------------------
// Drawing, on any plotters backend.

fn tick_text(format: TickFormat, v: f64) -> String {
    match format {
        TickFormat::Decimals(d) => {
            let text = format!("{:.*}", d, v);
            // No "-0".
            if text.trim_start_matches(['-', '0', '.']).is_empty() {
                format!("{:.*}", d, 0.0)
            } else {
                text
            }
        }
        TickFormat::Power10 => {
            let value = 10f64.powf(v);
            if value >= 1.0 {
                format!("{:.0}", value)
            } else {
                let decimals = (-(v + 1e-9).floor()).max(0.0) as usize;
                format!("{:.*}", decimals, value)
            }
        }
        TickFormat::Locality => {
            let k = v.floor().clamp(0.0, 2.0) as usize;
            LOCALITY_CLASSES[k].to_owned()
        }
    }
}

fn font(size: f64) -> TextStyle<'static> {
    TextStyle::from((FONT, size).into_font())
}

fn bold(size: f64) -> TextStyle<'static> {
    TextStyle::from((FONT, size, FontStyle::Bold).into_font())
}

/// A linear f64 axis whose tick marks and grid lines are exactly `ticks` (plotters' own
/// `with_key_points` on an f64 range loses the custom label formatter).
struct Ticked {
    range: Range<f64>,
    ticks: Vec<f64>,
}

impl Ticked {
    fn of(axis: &Axis) -> Self {
        Self { range: axis.range.clone(), ticks: axis.ticks.clone() }
    }
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let span = self.range.end - self.range.start;
        let length = f64::from(limit.1 - limit.0);
        if span.is_nan() || span <= 0.0 || !value.is_finite() {
            return limit.0;
        }
        let at = ((value - self.range.start) / span * length).clamp(-1e6, 1e6);
        limit.0 + at.round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.range.clone()
    }
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    plot: &Plot,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let centre = (SIZE.0 - LEGEND_W) as i32 / 2 + 40;
    root.draw(&Text::new(
        plot.title.clone(),
        (centre, 14),
        bold(24.0).pos(Pos::new(HPos::Center, VPos::Top)),
    ))?;
    root.draw(&Text::new(
        plot.subtitle.clone(),
        (centre, 46),
        font(15.0).color(&MUTED).pos(Pos::new(HPos::Center, VPos::Top)),
    ))?;
    let body = root.margin(HEADER_H, 0, 0, 0);
    let (chart_area, legend_area) = body.split_horizontally(SIZE.0 - LEGEND_W);

    let mut chart = ChartBuilder::on(&chart_area)
        .margin_left(12)
        .margin_right(16)
        .margin_top(8)
        .margin_bottom(8)
        .x_label_area_size(56)
        .y_label_area_size(78)
        .build_cartesian_2d(Ticked::of(&plot.x), Ticked::of(&plot.y))?;
    let (x_format, y_format) = (plot.x.format, plot.y.format);
    let x_text = move |v: &f64| tick_text(x_format, *v);
    let y_text = move |v: &f64| tick_text(y_format, *v);
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(plot.x.desc.as_str())
        .y_desc(plot.y.desc.as_str())
        .x_label_formatter(&x_text)
        .y_label_formatter(&y_text)
        .label_style(font(15.0))
        .axis_desc_style(font(17.0))
        .bold_line_style(GRID)
        .light_line_style(TRANSPARENT)
        .axis_style(MUTED);
    if matches!(plot.body, Body::LocalityBars(_)) {
        mesh.disable_x_mesh();
    }
    mesh.draw()?;

    match &plot.body {
        Body::Lines(lines) => {
            for (i, line) in lines.iter().enumerate() {
                let pixels: Vec<(i32, i32)> = line.iter().map(|p| chart.backend_coord(p)).collect();
                for part in split_at_sharp_turns(&pixels) {
                    chart.draw_series(LineSeries::new(
                        line[part].iter().copied(),
                        colour(i).stroke_width(2),
                    ))?;
                }
            }
        }
        Body::LocalityBars(bars) => draw_bars(&mut chart, bars)?,
    }

    if let Some(message) = &plot.message {
        let area = chart.plotting_area().strip_coord_spec();
        let (w, h) = area.dim_in_pixel();
        area.draw(&Text::new(
            message.clone(),
            (w as i32 / 2, h as i32 / 2),
            font(20.0).color(&MUTED).pos(Pos::new(HPos::Center, VPos::Center)),
        ))?;
    }

    draw_legend(&legend_area, &plot.legend)
}

/// Index ranges of `path` (pixels) that overlap by one point and turn by at most 90° at every
/// inner vertex, so that no mitred join spikes. Repeated pixels are not vertices.
fn split_at_sharp_turns(path: &[(i32, i32)]) -> Vec<Range<usize>> {
    let mut parts = Vec::new();
    let mut start = 0;
    // The direction of the last segment of non-zero length.
    let mut last: Option<(i64, i64)> = None;
    for k in 1..path.len() {
        let (a, b) = (path[k - 1], path[k]);
        if a == b {
            continue;
        }
        let dir = (i64::from(b.0 - a.0), i64::from(b.1 - a.1));
        if let Some(prev) = last {
            if prev.0 * dir.0 + prev.1 * dir.1 < 0 {
                parts.push(start..k);
                start = k - 1;
            }
        }
        last = Some(dir);
    }
    if start < path.len() {
        parts.push(start..path.len());
    }
    parts
}

fn draw_bars<DB: DrawingBackend, X, Y>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>,
    bars: &[[f64; 3]],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let n = bars.len();
    if n == 0 {
        return Ok(());
    }
    let slot = 0.84 / n as f64;
    let (x_px, _) = chart.plotting_area().dim_in_pixel();
    let slot_px = slot * f64::from(x_px) / 3.0;
    // A label ("99.5", 2.3 em wide) must fit its bar's slot; none below 9 px.
    let size = (slot_px / 2.4).min(14.0);
    let label_size = (size >= 9.0).then_some(size);
    for (i, heights) in bars.iter().enumerate() {
        for (group, &h) in heights.iter().enumerate() {
            let x0 = group as f64 + 0.08 + i as f64 * slot;
            let x1 = x0 + slot * 0.85;
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x0, 0.0), (x1, h)],
                colour(i).filled(),
            )))?;
            if let Some(size) = label_size {
                let text = if h >= 99.95 { "100".to_owned() } else { format!("{h:.1}") };
                chart.draw_series(std::iter::once(Text::new(
                    text,
                    ((x0 + x1) / 2.0, h + 1.0),
                    font(size).pos(Pos::new(HPos::Center, VPos::Bottom)),
                )))?;
            }
        }
    }
    Ok(())
}

fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[LegendEntry],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    if entries.is_empty() {
        return Ok(());
    }
    let (_, h) = area.dim_in_pixel();
    let top = 14;
    area.draw(&Text::new("policy", (8, top), bold(16.0).pos(Pos::new(HPos::Left, VPos::Top))))?;
    let first = top + 36;
    let room = (h as i32 - first - 10).max(0);
    let spacing = (room / entries.len() as i32).clamp(14, 44);
    let show_notes = spacing >= 36;
    for (i, entry) in entries.iter().enumerate() {
        let y = first + i as i32 * spacing;
        area.draw(&PathElement::new(vec![(8, y), (36, y)], entry.colour.stroke_width(4)))?;
        area.draw(&Text::new(
            entry.label.clone(),
            (44, y),
            font(16.0).pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
        if show_notes {
            area.draw(&Text::new(
                entry.note.clone(),
                (44, y + 17),
                font(13.0).color(&MUTED).pos(Pos::new(HPos::Left, VPos::Center)),
            ))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_ticks_are_round() {
        let (ticks, step, decimals) = nice_ticks(0.0, 97.0, 6);
        assert_eq!(step, 20.0);
        assert_eq!(ticks, vec![0.0, 20.0, 40.0, 60.0, 80.0]);
        assert_eq!(decimals, 0);
        let (_, step, decimals) = nice_ticks(0.0, 0.37, 6);
        assert_eq!(step, 0.1);
        assert_eq!(decimals, 1);
    }

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
    fn bucket_means_average_within_buckets() {
        let means = bucket_means([(0.0, 1.0), (0.1, 3.0), (99.9, 5.0)].into_iter(), 100.0);
        assert_eq!(means, vec![(1.0, 2.0), (99.0, 5.0)]);
    }

    #[test]
    fn sharp_turns_split_the_path_right_angles_do_not() {
        let stairs = [(0, 0), (0, 5), (5, 5), (5, 10)];
        assert_eq!(split_at_sharp_turns(&stairs), vec![0..4]);
        let zigzag = [(0, 0), (1, 10), (1, 10), (2, 0), (3, 10)];
        assert_eq!(split_at_sharp_turns(&zigzag), vec![0..3, 2..4, 3..5]);
        assert!(split_at_sharp_turns(&[]).is_empty());
    }

    #[test]
    fn log_ticks_by_span() {
        let ticks: Vec<String> =
            log_ticks(1.2, 3.1).iter().map(|t| tick_text(TickFormat::Power10, *t)).collect();
        assert_eq!(ticks, ["20", "50", "100", "200", "500", "1000"]);
        assert_eq!(log_ticks(-1.0, 5.0).len(), 7);
    }

    #[test]
    fn tick_texts() {
        assert_eq!(tick_text(TickFormat::Power10, 2.0), "100");
        assert_eq!(tick_text(TickFormat::Power10, -1.0), "0.1");
        assert_eq!(tick_text(TickFormat::Decimals(1), -0.0), "0.0");
        assert_eq!(tick_text(TickFormat::Locality, 2.5), "remote");
    }
}
