//! The tables of `placer whatif` (docs/simulator.md, "Outputs"): `summary.csv`, the per-job and
//! per-epoch tables as CSV and Parquet in hive-style partitions, and SLS's `jobruntime.csv`
//! (hadoop-sls `SchedulerMetrics.addAMRuntime`: `JobID,real_start_time,real_end_time,
//! simulate_start_time,simulate_end_time`, in ms).
//!
//! # Layout (under the `--out` directory `DIR`)
//!
//! ```text
//! DIR/summary.csv                                   one row per run (see Shard::summary_file)
//! DIR/jobs/policy=lsap/part-0.csv                   JOB_COLUMNS, one row per job
//! DIR/jobs/policy=lsap/part-0.parquet               the same rows
//! DIR/epochs/policy=lsap/part-0.{csv,parquet}       EPOCH_COLUMNS, one row per solver call
//! DIR/racks/policy=lsap/part-0.{csv,parquet}        RACK_COLUMNS, one row per epoch and rack
//!                                                   with cross-rack traffic since the last one
//! DIR/jobruntime/policy=lsap/jobruntime.csv         SLS's columns, one row per finished job
//! DIR/validation.csv                                real against simulated response per run
//!                                                   and job, when the trace has real finish
//!                                                   times (see Shard::validation_file)
//! DIR/traffic_by_class.csv                          ShuffleWatcher Table 3 per run and Shuffle
//!                                                   class, when jobs have Table 1 classes
//! DIR/by_class.csv                                  per run and job class: jobs, response, wait,
//!                                                   gangs started whole and in one rack
//! DIR/cross_rack_timeseries.csv                     cross-rack Mbit/s per run and minute
//!                                                   (ShuffleWatcher Figs. 1 and 10)
//! ```
//!
//! The partition directories are the caller's `(key, value)` pairs in order (a sweep adds
//! `policy=lsap/alpha=10/`), hive style, so that DuckDB reads every run with one glob and gets
//! the keys as columns: `read_parquet('DIR/jobs/*/*.parquet', hive_partitioning = true)` (one
//! key; `DIR/jobs/**/*.parquet` for any depth), likewise `read_csv`. The files themselves do
//! not repeat the keys. Key and value bytes outside `[A-Za-z0-9._+-]` are written `%XX`
//! (hive's escaping; `/` and `=` must not appear raw). A key should not be a column name of
//! the table (DuckDB would see both).
//!
//! # Formats (the contract for readers)
//!
//! - CSV: RFC 4180, `,` separated, `\n` line ends, a header row. A field is quoted when it
//!   contains `,`, `"`, CR or LF (quotes doubled) or is an empty string; an absent value
//!   (`Option::None`) is an empty unquoted field (DuckDB reads it as NULL).
//! - Floats: Rust's `{:?}` of `f64` — the shortest decimal that parses back to the same bits,
//!   always with a `.` or an exponent (`12.0`, `0.35`, `1e-7`, `NaN`, `inf`), so CSV readers
//!   type every float column as floating point even when a run's values happen to be
//!   integral. Integers in decimal. Output is byte-identical for equal inputs; only the
//!   wall-clock columns (`*_solve_ms`, `snapshot_ms`, `wall_s`, epochs' `solve_ms`) vary.
//! - Parquet (format 1.0 types, Snappy, one row group): strings `BYTE_ARRAY (STRING)`,
//!   floats `DOUBLE`, counts `INT64`; `Option` columns are `OPTIONAL` with nulls, the rest
//!   `REQUIRED`.
//! - `summary.csv` locality: `node_local`, `rack_local`, `remote` are fractions of the
//!   completed map tasks that have a locality preference (replicas), and sum to 1 (up to float
//!   rounding, 1e-15): [`placer_sim::Summary`]'s definition, the one the plots and the terminal
//!   table use, and the one of the Mumak trace's 65 / 30 / 4 % (maps with location info).
//!   Maps without replicas have no locality to score; `no_preference` is their share of all
//!   completed maps and `map_tasks` counts all of them. With no completed map with replicas the
//!   three are empty (undefined), not zeros.

mod by_class;
mod cross_rack_timeseries;
mod csv_records;
mod encode;
mod hive;
mod run_tables;
mod summary_row;
mod traffic_by_class;
mod validation;

pub use by_class::{by_class_csv, by_class_rows, write_by_class_csv, ClassRow, BY_CLASS_COLUMNS};
pub use cross_rack_timeseries::{
    cross_rack_rates, cross_rack_timeseries_csv, write_cross_rack_timeseries_csv,
    CROSS_RACK_TIMESERIES_COLUMNS,
};

pub use hive::{partition_path, write_run_tables, EPOCHS_DIR, JOBRUNTIME_DIR, JOBS_DIR, RACKS_DIR};
pub use run_tables::{
    epochs_csv, jobruntime_csv, jobs_csv, racks_csv, EPOCH_COLUMNS, JOBRUNTIME_COLUMNS,
    JOB_COLUMNS, RACK_COLUMNS,
};
pub use summary_row::{
    parse_summary_csv, read_summary_csv, summary_csv, write_summary_csv, SummaryRow,
    SUMMARY_COLUMNS,
};
pub use traffic_by_class::{
    traffic_by_class_csv, traffic_by_class_rows, write_traffic_by_class_csv, ClassTrafficRow,
    TRAFFIC_BY_CLASS_COLUMNS,
};
pub use validation::{
    abs_error_stats, error_pct, read_validation_csv, validation_csv, validation_rows,
    write_validation_csv, write_validation_rows, AbsErrorStats, ErrorSummary, ValidationRow,
    VALIDATION_COLUMNS,
};
