//! The canvas every plot of `placer whatif` is drawn on (docs/simulator.md, "Outputs"): a
//! backend-independent description of a plot ([`Plot`]: title, axes with their ticks, legend,
//! lines or bars), the toolkit the figures build it with (colours, round ticks, time axes,
//! legends), and its drawing on plotters' SVG and PNG backends (1000 × 600 px, DejaVu Sans, the
//! legend to the right of the plotting area).

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

/// Registers DejaVu Sans (regular, bold) as plotters' `sans-serif`, once per process.
pub(super) fn register_fonts() -> Result<(), ReportError> {
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

pub(super) fn io_error(path: &Path, error: &std::io::Error) -> ReportError {
    ReportError::Io { path: path.display().to_string(), message: error.to_string() }
}

fn plot_error(name: &str, error: impl std::fmt::Display) -> ReportError {
    ReportError::Plot { name: name.to_owned(), message: error.to_string() }
}

pub(super) fn write_svg(name: &str, plot: &Plot, dir: &Path) -> Result<PathBuf, ReportError> {
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

pub(super) fn write_png(name: &str, plot: &Plot, dir: &Path) -> Result<PathBuf, ReportError> {
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
pub(super) struct Plot {
    pub(super) title: String,
    pub(super) subtitle: String,
    pub(super) x: Axis,
    pub(super) y: Axis,
    pub(super) legend: Vec<LegendEntry>,
    pub(super) body: Body,
    /// Shown in the middle of the plotting area when there is nothing (or nothing visible) to
    /// draw.
    pub(super) message: Option<String>,
}

/// A linear axis (the CDF's x holds log10 values and formats its ticks as powers of 10).
pub(super) struct Axis {
    pub(super) desc: String,
    pub(super) range: Range<f64>,
    pub(super) ticks: Vec<f64>,
    pub(super) format: TickFormat,
}

#[derive(Clone, Copy)]
pub(super) enum TickFormat {
    /// A number with this many decimals.
    Decimals(usize),
    /// The tick is log10 of the value shown.
    Power10,
    /// Ticks at `k + 0.5` show the locality class `k`.
    Locality,
}

pub(super) struct LegendEntry {
    label: String,
    note: String,
    colour: RGBColor,
}

pub(super) enum Body {
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

pub(super) fn legend(
    reports: &[&SimReport],
    note: impl Fn(&SimReport) -> String,
) -> Vec<LegendEntry> {
    reports
        .iter()
        .enumerate()
        .map(|(i, r)| LegendEntry { label: label(r), note: note(r), colour: colour(i) })
        .collect()
}

pub(super) fn finite_or_zero(x: f64) -> f64 {
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
pub(super) fn zero_based_axis(desc: String, max: f64, pad: f64) -> Axis {
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
pub(super) fn activity_end_s(report: &SimReport) -> f64 {
    report
        .jobs
        .iter()
        .filter_map(|j| j.finish_s)
        .chain(report.epochs.iter().map(|e| e.time_s))
        .filter(|t| t.is_finite() && *t > 0.0)
        .fold(0.0, f64::max)
}

/// The simulated span of the runs, s: the latest [`activity_end_s`], 0 if none.
pub(super) fn run_span_s(reports: &[&SimReport]) -> f64 {
    reports.iter().map(|r| activity_end_s(r)).fold(0.0, f64::max)
}

/// A duration of `s` seconds in s, min or h, with two or three significant digits.
pub(super) fn duration_text(s: f64) -> String {
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
pub(super) fn time_axis(span_s: f64) -> (Axis, f64, &'static str) {
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

pub(super) fn no_reports_message(reports: &[&SimReport]) -> Option<String> {
    reports.is_empty().then(|| "no reports".to_owned())
}

// ---------------------------------------------------------------------------------------------
// Drawing, on any plotters backend.

pub(super) fn tick_text(format: TickFormat, v: f64) -> String {
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
    fn sharp_turns_split_the_path_right_angles_do_not() {
        let stairs = [(0, 0), (0, 5), (5, 5), (5, 10)];
        assert_eq!(split_at_sharp_turns(&stairs), vec![0..4]);
        let zigzag = [(0, 0), (1, 10), (1, 10), (2, 0), (3, 10)];
        assert_eq!(split_at_sharp_turns(&zigzag), vec![0..3, 2..4, 3..5]);
        assert!(split_at_sharp_turns(&[]).is_empty());
    }

    #[test]
    fn tick_texts() {
        assert_eq!(tick_text(TickFormat::Power10, 2.0), "100");
        assert_eq!(tick_text(TickFormat::Power10, -1.0), "0.1");
        assert_eq!(tick_text(TickFormat::Decimals(1), -0.0), "0.0");
        assert_eq!(tick_text(TickFormat::Locality, 2.5), "remote");
    }
}
