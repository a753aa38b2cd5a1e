//! Where the tables of `placer whatif` go (docs/simulator.md, "Outputs"): hive-style partition
//! directories (`jobs/policy=lsap/alpha=10/part-0.csv`, hive's `%XX` escaping) so that DuckDB
//! reads every run with one glob, and the atomic writers of one run's tables.

use std::path::Path;

use placer_sim::SimReport;

use super::run_tables::{epochs_table, jobruntime_table, jobs_table, racks_table};
use crate::atomic::write_atomic;
use crate::manifest::FileEntry;
use crate::ReportError;

/// The per-job table's directory under `DIR`.
pub const JOBS_DIR: &str = "jobs";

/// The per-epoch table's directory under `DIR`.
pub const EPOCHS_DIR: &str = "epochs";
/// The per-rack cross-rack traffic table's directory.
pub const RACKS_DIR: &str = "racks";

/// The SLS job runtime table's directory under `DIR`.
pub const JOBRUNTIME_DIR: &str = "jobruntime";

/// The partition directories of `partition`, hive style: `policy=lsap/alpha=10` (empty for no
/// keys). Bytes outside `[A-Za-z0-9._+-]` are escaped `%XX`.
pub fn partition_path(partition: &[(String, String)]) -> String {
    partition
        .iter()
        .map(|(k, v)| format!("{}={}", hive_escape(k), hive_escape(v)))
        .collect::<Vec<_>>()
        .join("/")
}

/// Hive's path escaping of one key or value.
fn hive_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'+' | b'-') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `a/b` joined, skipping an empty middle part.
fn rel(table_dir: &str, part: &str, file: &str) -> String {
    if part.is_empty() {
        format!("{table_dir}/{file}")
    } else {
        format!("{table_dir}/{part}/{file}")
    }
}

/// Writes `bytes` to `dir/rel_path` atomically and describes the file.
pub(super) fn emit(
    dir: &Path,
    rel_path: String,
    kind: &str,
    rows: usize,
    bytes: &[u8],
) -> Result<FileEntry, ReportError> {
    write_atomic(&dir.join(&rel_path), bytes)?;
    Ok(FileEntry::new(rel_path, kind, Some(rows as u64), bytes))
}

/// Writes one run's tables under `dir` in the partition `partition` (e.g.
/// `[("policy", "lsap")]`): `jobs/…/part-0.{csv,parquet}`, `epochs/…/part-0.{csv,parquet}`,
/// `racks/…/part-0.{csv,parquet}` and `jobruntime/…/jobruntime.csv`, each atomically. Returns the files written, in that
/// order, with paths relative to `dir` (`/`-separated).
///
/// Errors: [`ReportError::Io`] for a file that cannot be written, [`ReportError::Format`] if
/// the Parquet encoder refuses a table (a bug).
pub fn write_run_tables(
    dir: &Path,
    partition: &[(String, String)],
    report: &SimReport,
) -> Result<Vec<FileEntry>, ReportError> {
    let part = partition_path(partition);
    let mut files = Vec::with_capacity(7);
    for (table_dir, table) in [
        (JOBS_DIR, jobs_table(report)),
        (EPOCHS_DIR, epochs_table(report)),
        (RACKS_DIR, racks_table(report)),
    ] {
        let csv = rel(table_dir, &part, "part-0.csv");
        files.push(emit(dir, csv, table_dir, table.rows, table.to_csv().as_bytes())?);
        let pq = rel(table_dir, &part, "part-0.parquet");
        let bytes = table.to_parquet(table_dir, &pq)?;
        files.push(emit(dir, pq, table_dir, table.rows, &bytes)?);
    }
    let runtime = jobruntime_table(report);
    let path = rel(JOBRUNTIME_DIR, &part, "jobruntime.csv");
    files.push(emit(dir, path, JOBRUNTIME_DIR, runtime.rows, runtime.to_csv().as_bytes())?);
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hive_paths_escape_separators() {
        let p =
            [("policy".to_owned(), "lsap".to_owned()), ("alpha".to_owned(), "1/2=x".to_owned())];
        assert_eq!(partition_path(&p), "policy=lsap/alpha=1%2F2%3Dx");
        assert_eq!(partition_path(&[]), "");
    }
}
