//! The plots of `placer whatif` (docs/simulator.md, "Outputs"), one per figure of the papers they
//! mirror: map-task locality bars (lsap-sched, Guo et al., Fig. 3), job response-time CDFs
//! (FAIR, Zaharia et al., Fig. 5/6 style), cumulative cross-rack traffic (ShuffleWatcher, Ahmad
//! et al., §5), the cross-rack shuffle rate over time (ShuffleWatcher Figs. 1 and 10) and
//! fairness distance over time (lsap-fair-sched, Guo et al.).
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
//! | `cross_rack_timeseries` | simulated time | cross-rack shuffle Mbit/s, mean per 60 s bucket | `cross_rack_series` (as `cross_rack_timeseries.csv`) |
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
//! - The cross-rack shuffle rate joins each bucket's mean rate at the bucket's middle (the
//!   network's own measurement, not bytes counted at flow ends, so a long transfer shows as a
//!   plateau rather than a spike at its end); over [`TIMESERIES_MAX_POINTS`] buckets,
//!   consecutive buckets are averaged in equal groups. The legend gives each policy's peak.
//! - Locality bars carry their value (%) where the label fits its bar's slot (up to 8 policies).
//! - Non-finite values (NaN, ±∞) are skipped; a locality share that is not finite counts as 0.
//!   A plot with nothing to draw (no reports, no finished jobs, no epochs) still gets its axes,
//!   title and legend, and says why it is empty in its middle. Nothing panics.
//!
//! Output is deterministic: the same reports give the same SVG bytes.

mod canvas;
mod cross_rack;
mod cross_rack_timeseries;
mod fairness;
mod locality;
mod response_cdf;
mod write;

pub use cross_rack::CROSS_RACK_MAX_POINTS;
pub use cross_rack_timeseries::TIMESERIES_MAX_POINTS;
pub use fairness::FAIRNESS_BUCKETS;
pub use response_cdf::CDF_MAX_STEPS;
pub use write::write_plots;
