//! The cross-rack traffic over time of ShuffleWatcher's Figs. 1 and 10 (Ahmad et al.: "the
//! measured cross-rack Shuffle traffic over time"): `cross_rack_timeseries.csv`, one row per
//! run and time bucket of [`placer_sim::SimReport::cross_rack_series`].
//!
//! Columns ([`CROSS_RACK_TIMESERIES_COLUMNS`]): `policy`; `t_s`, the bucket's start in
//! simulated seconds (bucket k starts at k · w, w = 60 s, [`placer_sim::SERIES_BUCKET_S`],
//! wider only for runs of more than ~45 days); `cross_rack_shuffle_mbps` and
//! `cross_rack_total_mbps` (shuffle + remote map input), the bucket's bytes · 8 / 10⁶ / w: the
//! mean rate over the bucket in Mbit/s, as the network moved the bytes (flows integrated at
//! their actual rates), not as flows ended. Buckets from 0 s to the run's end, zeros
//! included; a run whose bytes never crossed racks has no row. Runs in the given order. Always
//! written. O(Σ buckets).
//!
//! Example: 750 MB of shuffle crossing racks in [0, 60 s) → `lsap,0.0,100.0,100.0`.

use std::path::Path;

use placer_sim::SimReport;

use super::encode::{Cells, Column, Table};
use super::hive::emit;
use crate::manifest::FileEntry;
use crate::ReportError;

/// The columns of `cross_rack_timeseries.csv`.
pub const CROSS_RACK_TIMESERIES_COLUMNS: [&str; 4] =
    ["policy", "t_s", "cross_rack_shuffle_mbps", "cross_rack_total_mbps"];

/// One bucket of one run: (start s, shuffle Mbit/s, total Mbit/s).
pub fn cross_rack_rates(report: &SimReport) -> Vec<(f64, f64, f64)> {
    let s = &report.cross_rack_series;
    let w = s.bucket_s;
    if !(w.is_finite() && w > 0.0) {
        return Vec::new();
    }
    let mbps = |bytes: f64| bytes * 8.0 / 1e6 / w;
    s.total_bytes
        .iter()
        .enumerate()
        .map(|(k, &total)| {
            let shuffle = s.shuffle_bytes.get(k).copied().unwrap_or(0.0);
            (k as f64 * w, mbps(shuffle), mbps(total))
        })
        .collect()
}

fn timeseries_table(reports: &[&SimReport]) -> Table {
    let rows: Vec<(&str, (f64, f64, f64))> = reports
        .iter()
        .flat_map(|r| cross_rack_rates(r).into_iter().map(move |p| (r.name.as_str(), p)))
        .collect();
    let cells: [Cells; 4] = [
        Cells::Str(rows.iter().map(|r| r.0.to_owned()).collect()),
        Cells::F64(rows.iter().map(|r| r.1 .0).collect()),
        Cells::F64(rows.iter().map(|r| r.1 .1).collect()),
        Cells::F64(rows.iter().map(|r| r.1 .2).collect()),
    ];
    let columns = CROSS_RACK_TIMESERIES_COLUMNS
        .iter()
        .zip(cells)
        .map(|(&name, cells)| Column { name, cells })
        .collect();
    Table::new(columns, rows.len())
}

/// `cross_rack_timeseries.csv`'s text for `reports`, in the given order.
pub fn cross_rack_timeseries_csv(reports: &[&SimReport]) -> String {
    timeseries_table(reports).to_csv()
}

/// Writes the time series of `reports` (in order) to `dir/rel_path` atomically (normally
/// `cross_rack_timeseries.csv`, see [`crate::manifest::Shard::cross_rack_timeseries_file`]).
///
/// Errors: [`ReportError::Io`].
pub fn write_cross_rack_timeseries_csv(
    dir: &Path,
    rel_path: &str,
    reports: &[&SimReport],
) -> Result<FileEntry, ReportError> {
    let table = timeseries_table(reports);
    let text = table.to_csv();
    emit(dir, rel_path.to_owned(), "cross_rack_timeseries", table.rows, text.as_bytes())
}
