//! Atomic file output for every `placer whatif` table, plot and manifest (docs/simulator.md,
//! "Outputs"): a reader — a person, DuckDB, a later `summarize` of shards — sees either the old
//! file or the complete new one, never a torn write, even if the run is killed.
//!
//! Protocol (POSIX rename semantics): create `.NAME.tmp-PID-SEQ` in the target's own directory
//! (same file system, so the rename cannot become a copy) with `create_new` (never clobbers
//! another writer's temp file), write the bytes, `fsync` the file, `rename` it over `NAME`,
//! then `fsync` the directory so that the rename itself is durable (Unix only; elsewhere the
//! rename is the last step). On any error the temp file is removed and the target is
//! untouched. Cost: one extra `fsync` per file.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::ReportError;

/// Temp-file names of this process: `.NAME.tmp-PID-SEQ`, SEQ from this counter.
static SEQUENCE: AtomicU64 = AtomicU64::new(0);

/// The marker every temp file name carries (`.NAME.tmp-…`); tests look for leftovers with it.
pub const TEMP_MARKER: &str = ".tmp-";

/// Writes `bytes` to `path` atomically (see the module docs), creating missing parent
/// directories. Returns the number of bytes written.
///
/// Errors: [`ReportError::Io`] naming the directory, temp file or target that failed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<u64, ReportError> {
    let io = |p: &Path, e: std::io::Error| ReportError::Io {
        path: p.display().to_string(),
        message: e.to_string(),
    };
    let Some(name) = path.file_name() else {
        return Err(ReportError::Io {
            path: path.display().to_string(),
            message: "not a file path".to_owned(),
        });
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&dir).map_err(|e| io(&dir, e))?;
    let seq = SEQUENCE.fetch_add(1, Ordering::Relaxed);
    let temp =
        dir.join(format!(".{}{TEMP_MARKER}{}-{seq}", name.to_string_lossy(), std::process::id()));
    let written = write_and_sync(&temp, bytes).and_then(|()| {
        fs::rename(&temp, path).map_err(|e| io(path, e))?;
        Ok(bytes.len() as u64)
    });
    if written.is_err() {
        // Best effort: the temp file may not exist (create failed) or may already be renamed.
        let _ = fs::remove_file(&temp);
        return written;
    }
    sync_dir(&dir).map_err(|e| io(&dir, e))?;
    written
}

/// Creates `temp` (never an existing file), writes `bytes` and flushes them to the disk.
fn write_and_sync(temp: &Path, bytes: &[u8]) -> Result<(), ReportError> {
    let io = |e: std::io::Error| ReportError::Io {
        path: temp.display().to_string(),
        message: e.to_string(),
    };
    let mut file = OpenOptions::new().write(true).create_new(true).open(temp).map_err(io)?;
    file.write_all(bytes).map_err(io)?;
    file.sync_all().map_err(io)
}

/// Makes a rename in `dir` durable (`fsync` of the directory), on Unix.
#[cfg(unix)]
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Directories cannot be opened for syncing here; the rename is the last step.
#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_target_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/out.csv");
        assert_eq!(write_atomic(&path, b"one\n").unwrap(), 4);
        assert_eq!(write_atomic(&path, b"two\n").unwrap(), 4);
        assert_eq!(fs::read(&path).unwrap(), b"two\n");
        let names: Vec<String> = fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["out.csv"]);
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        // The target is a directory: the rename fails after the temp file was written.
        let target = dir.path().join("taken");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("keep"), b"x").unwrap();
        let err = write_atomic(&target, b"data").unwrap_err();
        assert!(matches!(err, ReportError::Io { .. }), "{err}");
        let mut names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["taken"]);
        assert_eq!(fs::read(target.join("keep")).unwrap(), b"x");
    }
}
