//! Writing the five plots of `placer whatif` (docs/simulator.md, "Outputs") as SVG and PNG files.

use super::canvas::{io_error, register_fonts, write_png, write_svg};
use super::cross_rack::cross_rack_plot;
use super::cross_rack_timeseries::cross_rack_timeseries_plot;
use super::fairness::fairness_plot;
use super::locality::locality_plot;
use super::response_cdf::response_cdf_plot;
use crate::ReportError;
use placer_sim::SimReport;
use std::path::{Path, PathBuf};

/// Writes `locality`, `response_cdf`, `cross_rack`, `cross_rack_timeseries` and `fairness`,
/// each as `.svg` and `.png`, into `dir` (created if missing), one colour per report in
/// `reports` order. Returns the ten paths in that order (SVG before PNG).
///
/// Errors: [`ReportError::Io`] when `dir` cannot be created or a file not written,
/// [`ReportError::Plot`] when the embedded font does not load or drawing fails. Empty inputs
/// (no reports, no finished jobs, no epochs, all zeros, NaN) are not errors: the plots say so.
///
/// ```no_run
/// # fn run(lsap: &placer_sim::SimReport, fair: &placer_sim::SimReport)
/// # -> Result<(), placer_report::ReportError> {
/// let files = placer_report::plots::write_plots(&[lsap, fair], std::path::Path::new("out"))?;
/// assert_eq!(files.len(), 10);
/// # Ok(()) }
/// ```
pub fn write_plots(reports: &[&SimReport], dir: &Path) -> Result<Vec<PathBuf>, ReportError> {
    register_fonts()?;
    std::fs::create_dir_all(dir).map_err(|e| io_error(dir, &e))?;
    let plots = [
        ("locality", locality_plot(reports)),
        ("response_cdf", response_cdf_plot(reports)),
        ("cross_rack", cross_rack_plot(reports)),
        ("cross_rack_timeseries", cross_rack_timeseries_plot(reports)),
        ("fairness", fairness_plot(reports)),
    ];
    let mut paths = Vec::with_capacity(2 * plots.len());
    for (name, plot) in &plots {
        paths.push(write_svg(name, plot, dir)?);
        paths.push(write_png(name, plot, dir)?);
    }
    Ok(paths)
}
