//! `placer events summarize DIR` (docs/operations/observability.md, "Event log"; Hadoop Fair
//! Scheduler design doc §5, the event log): each pool's share over time from the event log `placer
//! serve --event-log DIR` writes, as CSV (RFC 4180), one row per (epoch, pool), epochs in log
//! order.

use crate::error::CliError;
use placer_server::epochs::EpochRecord;
use placer_server::event_log;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The CSV header. `time`/`unix_ms`/`seq`/`request_id`/`algorithm` are the epoch's; `weight`
/// and the min shares are the snapshot's settings of the pool; the rest the answer's
/// `pools[]` in slots (`fair_share_*` empty when the algorithm computed none; `running_*` is
/// before the answer, `running_after_*` after it).
pub(crate) const HEADER: [&str; 17] = [
    "time",
    "unix_ms",
    "seq",
    "request_id",
    "algorithm",
    "pool",
    "weight",
    "min_map_share",
    "min_reduce_share",
    "fair_share_map",
    "running_map",
    "running_after_map",
    "demand_map",
    "fair_share_reduce",
    "running_reduce",
    "running_after_reduce",
    "demand_reduce",
];

/// Writes the CSV of `dir`'s event log to `out`, rotated files oldest first. Lines that do not
/// parse (a line torn by a crash) are skipped and reported on stderr; pools a record left out
/// (`pools_truncated`) are not in it either.
///
/// # Complexity
/// O(log bytes) time; one line in memory at a time.
///
/// # Errors
/// The directory or a file cannot be read, or `out` cannot be written.
pub(crate) fn summarize(dir: &Path, out: impl Write) -> Result<(), CliError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| CliError::Io { path, source }
    };
    // Nothing is written (not even the header) for a directory that cannot be read.
    std::fs::read_dir(dir).map_err(io(dir))?;
    let stdout = PathBuf::from("stdout");
    let mut csv = csv::Writer::from_writer(out);
    csv.write_record(HEADER).map_err(|e| io(&stdout)(e.into()))?;
    let skipped = event_log::read(dir, |record| write_rows(&mut csv, &record)).map_err(io(dir))?;
    csv.flush().map_err(io(&stdout))?;
    if let Some(first) = skipped.first() {
        eprintln!(
            "placer: skipped {} line(s) that are not epoch records (first: {}:{}: {})",
            skipped.len(),
            first.file.display(),
            first.line,
            first.error
        );
    }
    Ok(())
}

/// One row per pool of `record`.
fn write_rows<W: Write>(csv: &mut csv::Writer<W>, record: &EpochRecord) -> std::io::Result<()> {
    let float = |x: f64| x.to_string();
    for (i, pool) in record.pools.iter().enumerate() {
        // `pool_settings` lists the same pools in the same order; fall back to a search.
        let settings = record
            .pool_settings
            .get(i)
            .filter(|s| s.id == pool.id)
            .or_else(|| record.pool_settings.iter().find(|s| s.id == pool.id));
        let (weight, min_map, min_reduce) = settings
            .map_or((String::new(), String::new(), String::new()), |s| {
                (float(s.weight), float(s.min_map_share), float(s.min_reduce_share))
            });
        let fair = |kind: fn(&placer_models::SlotCounts) -> f64| {
            pool.fair_share.as_ref().map(|f| float(kind(f))).unwrap_or_default()
        };
        let row = [
            record.time.clone(),
            record.unix_ms.to_string(),
            record.seq.to_string(),
            record.request_id.clone(),
            record.algorithm.clone(),
            pool.id.to_string(),
            weight,
            min_map,
            min_reduce,
            fair(|s| s.map),
            float(pool.running.map),
            float(pool.running_after.map),
            float(pool.demand.map),
            fair(|s| s.reduce),
            float(pool.running.reduce),
            float(pool.running_after.reduce),
            float(pool.demand.reduce),
        ];
        csv.write_record(&row)?;
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use placer_models::{PoolId, PoolMode, PoolReport, SlotCounts, StarvationState};
    use placer_server::epoch_record::PoolSettings;

    fn pool(id: &str, fair: Option<f64>, running: f64) -> PoolReport {
        let counts = |map: f64| SlotCounts { map, reduce: 1.0 };
        PoolReport {
            id: PoolId::from(id),
            fair_share: fair.map(counts),
            running: counts(running),
            demand: counts(4.0),
            running_after: counts(running + 1.0),
            starvation: StarvationState::default(),
        }
    }

    fn settings(id: &str, weight: f64) -> PoolSettings {
        PoolSettings {
            id: PoolId::from(id),
            weight,
            min_map_share: 2.0,
            min_reduce_share: 0.0,
            mode: PoolMode::Fair,
        }
    }

    fn record(seq: u64, pools: Vec<PoolReport>, settings: Vec<PoolSettings>) -> EpochRecord {
        EpochRecord {
            seq,
            request_id: format!("r{seq}"),
            time: format!("2026-11-24T10:00:0{seq}.000Z"),
            unix_ms: 1_795_946_400_000 + seq * 1000,
            algorithm: "fair".to_owned(),
            pools,
            pool_settings: settings,
            ..EpochRecord::default()
        }
    }

    /// A fixed directory: a rotated file with epoch 1, the current one with epoch 2 (two pools,
    /// one without a fair share) and a torn last line.
    #[test]
    fn rotated_files_in_order_one_row_per_pool_torn_line_skipped() {
        let dir = std::env::temp_dir().join(format!("placer-events-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let line = |r: &EpochRecord| format!("{}\n", serde_json::to_string(r).unwrap());
        let one = record(1, vec![pool("prod", Some(2.5), 1.0)], vec![settings("prod", 2.0)]);
        let two = record(
            2,
            vec![pool("prod", Some(3.0), 2.0), pool("adhoc", None, 0.0)],
            vec![settings("prod", 2.0), settings("adhoc", 1.0)],
        );
        std::fs::write(dir.join("events.1.jsonl"), line(&one)).unwrap();
        let torn = line(&two);
        std::fs::write(dir.join("events.jsonl"), format!("{torn}{}", &torn[..20])).unwrap();
        std::fs::write(dir.join("notes.txt"), "not a log file").unwrap();

        let mut out = Vec::new();
        summarize(&dir, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let want = "\
time,unix_ms,seq,request_id,algorithm,pool,weight,min_map_share,min_reduce_share,fair_share_map,running_map,running_after_map,demand_map,fair_share_reduce,running_reduce,running_after_reduce,demand_reduce
2026-11-24T10:00:01.000Z,1795946401000,1,r1,fair,prod,2,2,0,2.5,1,2,4,1,1,1,1
2026-11-24T10:00:02.000Z,1795946402000,2,r2,fair,prod,2,2,0,3,2,3,4,1,1,1,1
2026-11-24T10:00:02.000Z,1795946402000,2,r2,fair,adhoc,1,2,0,,0,1,4,,1,1,1
";
        assert_eq!(text, want);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_directory_is_an_error_naming_it() {
        let err = summarize(Path::new("no/such/dir"), Vec::new()).unwrap_err();
        assert!(err.to_string().starts_with("no/such/dir:"), "{err}");
    }
}
