//! A run's results per job class (`by_class.csv`): response and wait per workload class (FAIR,
//! Zaharia et al. §6's per-bin response times; `gang-mix`'s `mapreduce`, `gang-required` and
//! `gang-preferred`), and for gangs (KEP-4671's PodGroup, Kueue TAS's topology domains)
//! whether they started whole and inside one rack.
//!
//! A job's class is its workload class ([`placer_sim::JobMetrics`]' `class`), `none` when it has
//! none. Per run, one row per class present, classes in byte order of their names; runs in the
//! given order. Columns ([`BY_CLASS_COLUMNS`]): `jobs`; `jobs_finished`; `mean_response_s` over
//! the finished ones; `mean_wait_s` and `p90_wait_s` (nearest rank: the ⌈0.9 · n⌉-th smallest)
//! over the `wait_s` (first task start − submit) of those that started; `not_started`; then for
//! gangs (`JobMetrics::gang`): `gangs`, `gangs_started_whole` (started gangs at least
//! `min_member` of whose maps started at the instant of the first task: `maps_at_start`; a
//! later retry of a failed attempt does not count against it) and `gangs_in_one_rack`
//! (started gangs whose maps all ran in one rack, `map_racks = 1`; the domain of the rack-level
//! gangs the workloads make). Means and the p90 are empty without a job to take them over;
//! the two gang counts are empty for a class without gangs. O(jobs log jobs).
//!
//! Example: a class of three jobs, submitted at 0, 0 and 10 s, started at 2, 6 and 10 s and
//! finished at 12, 16 and 40 s: mean response (12 + 16 + 30) / 3 = 19.33 s, waits 2, 6, 0 s:
//! mean 2.67 s, p90 the ⌈2.7⌉ = 3rd smallest, 6 s.

use std::collections::BTreeMap;
use std::path::Path;

use placer_sim::{JobMetrics, SimReport};

use super::encode::{int, Cells, Column, Table};
use super::hive::emit;
use crate::manifest::FileEntry;
use crate::ReportError;

/// The columns of `by_class.csv`.
pub const BY_CLASS_COLUMNS: [&str; 11] = [
    "policy",
    "class",
    "jobs",
    "jobs_finished",
    "mean_response_s",
    "mean_wait_s",
    "p90_wait_s",
    "not_started",
    "gangs",
    "gangs_started_whole",
    "gangs_in_one_rack",
];

/// One job class of one run (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct ClassRow {
    /// The run's label (`SimReport::name`).
    pub policy: String,
    /// The workload class, or `none`.
    pub class: String,
    /// Jobs of the class.
    pub jobs: u64,
    /// Those that finished.
    pub jobs_finished: u64,
    /// Mean response of the finished ones, s; `None` when none finished.
    pub mean_response_s: Option<f64>,
    /// Mean wait (first start − submit) of those that started, s; `None` when none started.
    pub mean_wait_s: Option<f64>,
    /// Nearest-rank 90th percentile of those waits, s.
    pub p90_wait_s: Option<f64>,
    /// Jobs that never started.
    pub not_started: u64,
    /// Gangs of the class.
    pub gangs: u64,
    /// Started gangs whose maps all started at once; `None` for a class without gangs.
    pub gangs_started_whole: Option<u64>,
    /// Started gangs whose maps ran in one rack; `None` for a class without gangs.
    pub gangs_in_one_rack: Option<u64>,
}

/// The ⌈p · n⌉-th smallest of `values` (0 < p ≤ 1), `None` if empty.
fn nearest_rank(values: &mut [f64], p: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let rank = ((p * values.len() as f64).ceil() as usize).clamp(1, values.len());
    Some(values[rank - 1])
}

fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// The row of `policy`'s jobs `jobs` of class `class`.
fn class_row(policy: &str, class: &str, jobs: &[&JobMetrics]) -> ClassRow {
    let responses: Vec<f64> = jobs.iter().filter_map(|j| j.response_s).collect();
    let mut waits: Vec<f64> = jobs.iter().filter_map(|j| j.wait_s).collect();
    let gangs: Vec<&&JobMetrics> = jobs.iter().filter(|j| j.gang.is_some()).collect();
    let started = gangs.iter().filter(|j| j.start_s.is_some());
    let whole =
        started.clone().filter(|j| j.gang.is_some_and(|g| j.maps_at_start >= g as usize)).count()
            as u64;
    let one_rack = started.filter(|j| j.map_racks == 1).count() as u64;
    let has_gangs = !gangs.is_empty();
    ClassRow {
        policy: policy.to_owned(),
        class: class.to_owned(),
        jobs: jobs.len() as u64,
        jobs_finished: responses.len() as u64,
        mean_response_s: mean(&responses),
        mean_wait_s: mean(&waits),
        not_started: (jobs.len() - waits.len()) as u64,
        p90_wait_s: nearest_rank(&mut waits, 0.9),
        gangs: gangs.len() as u64,
        gangs_started_whole: has_gangs.then_some(whole),
        gangs_in_one_rack: has_gangs.then_some(one_rack),
    }
}

/// The rows of one run (see the module docs).
pub fn by_class_rows(report: &SimReport) -> Vec<ClassRow> {
    let mut classes: BTreeMap<&str, Vec<&JobMetrics>> = BTreeMap::new();
    for j in &report.jobs {
        classes.entry(j.class.as_deref().unwrap_or("none")).or_default().push(j);
    }
    classes.into_iter().map(|(class, jobs)| class_row(&report.name, class, &jobs)).collect()
}

fn by_class_table(rows: &[ClassRow]) -> Table {
    let n = |f: fn(&ClassRow) -> u64| Cells::I64(rows.iter().map(|r| int(f(r))).collect());
    let o = |f: fn(&ClassRow) -> Option<f64>| Cells::OptF64(rows.iter().map(f).collect());
    let on = |f: fn(&ClassRow) -> Option<u64>| {
        Cells::OptI64(rows.iter().map(|r| f(r).map(int)).collect())
    };
    let cells: [Cells; 11] = [
        Cells::Str(rows.iter().map(|r| r.policy.clone()).collect()),
        Cells::Str(rows.iter().map(|r| r.class.clone()).collect()),
        n(|r| r.jobs),
        n(|r| r.jobs_finished),
        o(|r| r.mean_response_s),
        o(|r| r.mean_wait_s),
        o(|r| r.p90_wait_s),
        n(|r| r.not_started),
        n(|r| r.gangs),
        on(|r| r.gangs_started_whole),
        on(|r| r.gangs_in_one_rack),
    ];
    let columns =
        BY_CLASS_COLUMNS.iter().zip(cells).map(|(&name, cells)| Column { name, cells }).collect();
    Table::new(columns, rows.len())
}

/// `by_class.csv`'s text for `rows`, in the given order.
pub fn by_class_csv(rows: &[ClassRow]) -> String {
    by_class_table(rows).to_csv()
}

/// Writes the rows of `reports` (in order) to `dir/rel_path` atomically (normally
/// `by_class.csv`, see [`crate::manifest::Shard::by_class_file`]).
///
/// Errors: [`ReportError::Io`].
pub fn write_by_class_csv(
    dir: &Path,
    rel_path: &str,
    reports: &[&SimReport],
) -> Result<FileEntry, ReportError> {
    let rows: Vec<ClassRow> = reports.iter().flat_map(|r| by_class_rows(r)).collect();
    emit(dir, rel_path.to_owned(), "by_class", rows.len(), by_class_csv(&rows).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_p90_of_three_is_the_largest() {
        assert_eq!(nearest_rank(&mut [6.0, 2.0, 0.0], 0.9), Some(6.0));
        // Of ten, the 9th smallest.
        let mut ten: Vec<f64> = (1..=10).rev().map(f64::from).collect();
        assert_eq!(nearest_rank(&mut ten, 0.9), Some(9.0));
        assert_eq!(nearest_rank(&mut [], 0.9), None);
    }
}
