//! The integration tests of `placer-report`, in one binary: `plots` (the eight plot files of
//! `placer whatif`) and `tables` (summary, run tables, Parquet and manifests), docs/simulator.md,
//! "Outputs".

mod plots;
mod tables;
