//! ShuffleWatcher's Table 3 per run (Ahmad et al., §5.1: "the actual volumes of the total
//! Shuffle (within-rack and cross-rack), cross-rack Shuffle and remote Map traffic for
//! Shuffle-heavy, Shuffle-medium and Shuffle-light jobs"): `traffic_by_class.csv`, the run's
//! traffic split by its jobs' Shuffle class.
//!
//! A job's class is the Table 1 class of its workload class (the benchmark name,
//! [`placer_datasets::sw_shuffle_class`]); a job whose class is not a Table 1 benchmark, or
//! has none, counts as `other`. Per run, rows `heavy`, `medium`, `light` always, then `other`
//! when it has jobs; runs in the given order. Columns ([`TRAFFIC_BY_CLASS_COLUMNS`]): `jobs`
//! (every job of the class, finished or not), and in GB (10⁹ bytes) the Σ over its jobs of
//! [`placer_sim::JobMetrics`]' `shuffle_gb` (Table 3's "Total Shuffle"),
//! `cross_rack_shuffle_gb`, `remote_map_gb`, and their cross-rack total, the sum of the last
//! two ("Total Cross-Rack Traffic"). The file is written only when some job of some run has a
//! Table 1 class. O(jobs).
//!
//! Example: a terasort job with 3 GB of shuffle, 2 GB of it across racks, and 0.5 GB of remote
//! map input, and a grep job with 0.1 GB of remote map input: `heavy,1,3.0,2.0,0.5,2.5`,
//! `medium,0,0.0,0.0,0.0,0.0`, `light,1,0.0,0.0,0.1,0.1`.

use std::path::Path;

use placer_datasets::{sw_shuffle_class, ShuffleClass};
use placer_sim::SimReport;

use super::encode::{int, Cells, Column, Table};
use super::hive::emit;
use crate::manifest::FileEntry;
use crate::ReportError;

/// The columns of `traffic_by_class.csv`.
pub const TRAFFIC_BY_CLASS_COLUMNS: [&str; 7] = [
    "policy",
    "class",
    "jobs",
    "total_shuffle_gb",
    "cross_rack_shuffle_gb",
    "remote_map_gb",
    "total_cross_rack_gb",
];

/// One Shuffle class of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassTrafficRow {
    /// The run's label (`SimReport::name`).
    pub policy: String,
    /// `heavy`, `medium`, `light` or `other`.
    pub class: &'static str,
    /// Jobs of the class.
    pub jobs: u64,
    /// GB its reduces pulled (local, in-rack and cross-rack).
    pub total_shuffle_gb: f64,
    /// GB of that shuffle that crossed racks.
    pub cross_rack_shuffle_gb: f64,
    /// GB of map input read across racks.
    pub remote_map_gb: f64,
    /// `cross_rack_shuffle_gb + remote_map_gb`.
    pub total_cross_rack_gb: f64,
}

/// The row labels, in row order (index 3 is `other`).
const CLASSES: [&str; 4] = ["heavy", "medium", "light", "other"];

fn class_index(class: Option<&str>) -> usize {
    match class.and_then(sw_shuffle_class) {
        Some(ShuffleClass::Heavy) => 0,
        Some(ShuffleClass::Medium) => 1,
        Some(ShuffleClass::Light) => 2,
        None => 3,
    }
}

/// The rows of one run (see the module docs).
pub fn traffic_by_class_rows(report: &SimReport) -> Vec<ClassTrafficRow> {
    let mut rows: Vec<ClassTrafficRow> = CLASSES
        .iter()
        .map(|&class| ClassTrafficRow {
            policy: report.name.clone(),
            class,
            jobs: 0,
            total_shuffle_gb: 0.0,
            cross_rack_shuffle_gb: 0.0,
            remote_map_gb: 0.0,
            total_cross_rack_gb: 0.0,
        })
        .collect();
    for j in &report.jobs {
        let row = &mut rows[class_index(j.class.as_deref())];
        row.jobs += 1;
        row.total_shuffle_gb += j.shuffle_gb;
        row.cross_rack_shuffle_gb += j.cross_rack_shuffle_gb;
        row.remote_map_gb += j.remote_map_gb;
    }
    for row in &mut rows {
        row.total_cross_rack_gb = row.cross_rack_shuffle_gb + row.remote_map_gb;
    }
    if rows[3].jobs == 0 {
        rows.pop();
    }
    rows
}

/// Whether some job of `reports` has a Table 1 class.
fn has_table1_class(reports: &[&SimReport]) -> bool {
    reports.iter().flat_map(|r| &r.jobs).any(|j| class_index(j.class.as_deref()) < 3)
}

fn traffic_table(rows: &[ClassTrafficRow]) -> Table {
    let x = |f: fn(&ClassTrafficRow) -> f64| Cells::F64(rows.iter().map(f).collect());
    let cells: [Cells; 7] = [
        Cells::Str(rows.iter().map(|r| r.policy.clone()).collect()),
        Cells::Str(rows.iter().map(|r| r.class.to_owned()).collect()),
        Cells::I64(rows.iter().map(|r| int(r.jobs)).collect()),
        x(|r| r.total_shuffle_gb),
        x(|r| r.cross_rack_shuffle_gb),
        x(|r| r.remote_map_gb),
        x(|r| r.total_cross_rack_gb),
    ];
    let columns = TRAFFIC_BY_CLASS_COLUMNS
        .iter()
        .zip(cells)
        .map(|(&name, cells)| Column { name, cells })
        .collect();
    Table::new(columns, rows.len())
}

/// `traffic_by_class.csv`'s text for `rows`, in the given order.
pub fn traffic_by_class_csv(rows: &[ClassTrafficRow]) -> String {
    traffic_table(rows).to_csv()
}

/// Writes the rows of `reports` (in order) to `dir/rel_path` atomically when some job has a
/// Table 1 class (normally `traffic_by_class.csv`, see
/// [`crate::manifest::Shard::traffic_by_class_file`]); `None` (and no file) otherwise.
///
/// Errors: [`ReportError::Io`].
pub fn write_traffic_by_class_csv(
    dir: &Path,
    rel_path: &str,
    reports: &[&SimReport],
) -> Result<Option<FileEntry>, ReportError> {
    if !has_table1_class(reports) {
        return Ok(None);
    }
    let rows: Vec<ClassTrafficRow> =
        reports.iter().flat_map(|r| traffic_by_class_rows(r)).collect();
    let text = traffic_by_class_csv(&rows);
    emit(dir, rel_path.to_owned(), "traffic_by_class", rows.len(), text.as_bytes()).map(Some)
}
