//! The simulator against reality (docs/simulator.md, "Validation": the Mumak trace's real job
//! response times under the 2009 scheduler, error per job): when the
//! workload records when its jobs really finished ([`placer_sim::JobMetrics::observed_response_s`]),
//! `validation.csv` lists per run and job the real and the simulated response time and the
//! error, and [`ErrorSummary`] condenses a run into the median and mean absolute error.
//!
//! Definitions: error % = (simulated − real) / real · 100, per job with both a real response
//! (> 0) and a simulated one (the job finished); undefined (an empty cell) otherwise, and then
//! left out of the summary. The median of an even count is the mean of the two middle values.
//!
//! `validation.csv` (RFC 4180 as the other tables; [`VALIDATION_COLUMNS`]): one row per job
//! with a real response time, runs in the given order, jobs in workload order.

use std::path::Path;

use placer_sim::SimReport;

use super::csv_records::read_records;
use super::encode::{Cells, Column, Table};
use super::hive::emit;
use crate::manifest::FileEntry;
use crate::ReportError;

/// The columns of `validation.csv`.
pub const VALIDATION_COLUMNS: [&str; 6] =
    ["policy", "job", "class", "real_response_s", "sim_response_s", "error_pct"];

/// One job of one run with a real response time.
#[derive(Clone, Debug, PartialEq)]
pub struct ValidationRow {
    /// The run's label (`SimReport::name`).
    pub policy: String,
    /// The job id.
    pub job: String,
    /// The job's class, if any.
    pub class: Option<String>,
    /// The real cluster's response time, s.
    pub real_response_s: f64,
    /// The simulated response time, s; `None` if the job did not finish.
    pub sim_response_s: Option<f64>,
    /// (sim − real) / real · 100; `None` if either is missing or real ≤ 0.
    pub error_pct: Option<f64>,
}

/// (sim − real) / real · 100, when both are finite and real > 0.
/// Example: real 40 s, simulated 50 s → 25%.
pub fn error_pct(real: f64, sim: f64) -> Option<f64> {
    (real.is_finite() && real > 0.0 && sim.is_finite()).then(|| (sim - real) / real * 100.0)
}

/// The rows of one run: its jobs with a real response time, in workload order.
pub fn validation_rows(report: &SimReport) -> Vec<ValidationRow> {
    report
        .jobs
        .iter()
        .filter_map(|j| {
            let real = j.observed_response_s?;
            Some(ValidationRow {
                policy: report.name.clone(),
                job: j.id.clone(),
                class: j.class.clone(),
                real_response_s: real,
                sim_response_s: j.response_s,
                error_pct: j.response_s.and_then(|sim| error_pct(real, sim)),
            })
        })
        .collect()
}

/// Median and mean of absolute errors, over `jobs` jobs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AbsErrorStats {
    /// Median |error|, %.
    pub median_pct: f64,
    /// Mean |error|, %.
    pub mean_pct: f64,
    /// Errors counted.
    pub jobs: usize,
}

/// The median and mean of |e| over `errors` (in %), `None` if there are none. O(n log n).
/// Example: +10, −20, +5, −40 → |e| sorted 5, 10, 20, 40: median (10 + 20) / 2 = 15, mean
/// 75 / 4 = 18.75.
pub fn abs_error_stats(errors: impl IntoIterator<Item = f64>) -> Option<AbsErrorStats> {
    let mut abs: Vec<f64> = errors.into_iter().map(f64::abs).collect();
    if abs.is_empty() {
        return None;
    }
    abs.sort_by(f64::total_cmp);
    let n = abs.len();
    let median_pct = if n % 2 == 1 { abs[n / 2] } else { (abs[n / 2 - 1] + abs[n / 2]) / 2.0 };
    let mean_pct = abs.iter().sum::<f64>() / n as f64;
    Some(AbsErrorStats { median_pct, mean_pct, jobs: n })
}

/// One run's validation in one line.
#[derive(Clone, Debug, PartialEq)]
pub struct ErrorSummary {
    /// The run's label.
    pub policy: String,
    /// Jobs with a real response time.
    pub with_real: usize,
    /// The errors of those that also finished; `None` if none did.
    pub stats: Option<AbsErrorStats>,
}

impl ErrorSummary {
    /// The summary of one run, `None` if no job has a real response time.
    pub fn of(report: &SimReport) -> Option<Self> {
        let rows = validation_rows(report);
        if rows.is_empty() {
            return None;
        }
        Some(ErrorSummary {
            policy: report.name.clone(),
            with_real: rows.len(),
            stats: abs_error_stats(rows.iter().filter_map(|r| r.error_pct)),
        })
    }
}

impl std::fmt::Display for ErrorSummary {
    /// `validation: policy P: median |error| X%, mean |error| Y% over N jobs`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.stats {
            Some(s) => write!(
                f,
                "validation: policy {}: median |error| {:.1}%, mean |error| {:.1}% over {} jobs",
                self.policy, s.median_pct, s.mean_pct, s.jobs
            ),
            None => write!(
                f,
                "validation: policy {}: none of the {} jobs with a real response time finished",
                self.policy, self.with_real
            ),
        }
    }
}

fn validation_table(rows: &[ValidationRow]) -> Table {
    let r = rows;
    let columns = vec![
        Column { name: "policy", cells: Cells::Str(r.iter().map(|x| x.policy.clone()).collect()) },
        Column { name: "job", cells: Cells::Str(r.iter().map(|x| x.job.clone()).collect()) },
        Column { name: "class", cells: Cells::OptStr(r.iter().map(|x| x.class.clone()).collect()) },
        Column {
            name: "real_response_s",
            cells: Cells::F64(r.iter().map(|x| x.real_response_s).collect()),
        },
        Column {
            name: "sim_response_s",
            cells: Cells::OptF64(r.iter().map(|x| x.sim_response_s).collect()),
        },
        Column { name: "error_pct", cells: Cells::OptF64(r.iter().map(|x| x.error_pct).collect()) },
    ];
    Table::new(columns, rows.len())
}

/// `validation.csv`'s text for `rows`, in the given order.
pub fn validation_csv(rows: &[ValidationRow]) -> String {
    validation_table(rows).to_csv()
}

/// Writes the validation rows of `reports` (in order) to `dir/rel_path` atomically, if any
/// job of any run has a real response time; `None` (and no file) otherwise.
///
/// Errors: [`ReportError::Io`].
pub fn write_validation_csv(
    dir: &Path,
    rel_path: &str,
    reports: &[&SimReport],
) -> Result<Option<FileEntry>, ReportError> {
    let rows: Vec<ValidationRow> = reports.iter().flat_map(|r| validation_rows(r)).collect();
    write_validation_rows(dir, rel_path, &rows)
}

/// Writes `rows` to `dir/rel_path` atomically, if there are any (see
/// [`write_validation_csv`]); used to merge shards.
///
/// Errors: [`ReportError::Io`].
pub fn write_validation_rows(
    dir: &Path,
    rel_path: &str,
    rows: &[ValidationRow],
) -> Result<Option<FileEntry>, ReportError> {
    if rows.is_empty() {
        return Ok(None);
    }
    let text = validation_csv(rows);
    emit(dir, rel_path.to_owned(), "validation", rows.len(), text.as_bytes()).map(Some)
}

/// Reads a `validation.csv` written by [`write_validation_csv`] (columns found by name).
///
/// Errors: [`ReportError::Io`], [`ReportError::Format`] naming the line and column.
pub fn read_validation_csv(path: &Path) -> Result<Vec<ValidationRow>, ReportError> {
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| ReportError::Io { path: origin.clone(), message: e.to_string() })?;
    let bad = |message: String| ReportError::Format { path: origin.clone(), message };
    let records = read_records(&text).map_err(bad)?;
    let Some((header, body)) = records.split_first() else {
        return Err(bad("empty file, no header".to_owned()));
    };
    let mut at = [0usize; 6];
    for (slot, name) in at.iter_mut().zip(VALIDATION_COLUMNS) {
        *slot = header
            .fields
            .iter()
            .position(|f| f == name)
            .ok_or_else(|| bad(format!("missing column `{name}`")))?;
    }
    let mut rows = Vec::with_capacity(body.len());
    for record in body {
        let line = record.line;
        let cell =
            |c: usize| record.get(at[c]).ok_or_else(|| bad(format!("line {line}: too few fields")));
        let opt_str =
            |c: usize| cell(c).map(|(t, quoted)| (!t.is_empty() || quoted).then(|| t.to_owned()));
        let opt_num = |c: usize| -> Result<Option<f64>, ReportError> {
            let (t, quoted) = cell(c)?;
            if t.is_empty() && !quoted {
                return Ok(None);
            }
            t.parse::<f64>()
                .map(Some)
                .map_err(|e| bad(format!("line {line}, column `{}`: {e}", VALIDATION_COLUMNS[c])))
        };
        rows.push(ValidationRow {
            policy: cell(0)?.0.to_owned(),
            job: cell(1)?.0.to_owned(),
            class: opt_str(2)?,
            real_response_s: opt_num(3)?
                .ok_or_else(|| bad(format!("line {line}, column `real_response_s`: empty")))?,
            sim_response_s: opt_num(4)?,
            error_pct: opt_num(5)?,
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_mean_of_absolute_errors_by_hand() {
        // |+10|, |−20|, |+5|, |−40| sorted: 5, 10, 20, 40 → median (10 + 20) / 2 = 15,
        // mean 75 / 4 = 18.75.
        let s = abs_error_stats([10.0, -20.0, 5.0, -40.0]).unwrap();
        assert_eq!(s, AbsErrorStats { median_pct: 15.0, mean_pct: 18.75, jobs: 4 });
        // Odd count: the middle one. 3, 7, 50 → median 7, mean 20.
        let s = abs_error_stats([-50.0, 3.0, 7.0]).unwrap();
        assert_eq!((s.median_pct, s.mean_pct, s.jobs), (7.0, 20.0, 3));
        assert_eq!(abs_error_stats([]), None);
    }

    #[test]
    fn error_is_relative_to_the_real_response() {
        assert_eq!(error_pct(40.0, 50.0), Some(25.0));
        assert_eq!(error_pct(40.0, 30.0), Some(-25.0));
        assert_eq!(error_pct(0.0, 30.0), None);
        assert_eq!(error_pct(-1.0, 30.0), None);
        assert_eq!(error_pct(40.0, f64::NAN), None);
    }
}
