//! The event log (docs/operations/observability.md, "Event log"; Hadoop Fair Scheduler design doc
//! §5, "an event log"): one JSON line per answered epoch ([`EpochRecord`], JSON Lines) in
//! `DIR/events.jsonl`, rotated by size into `events.1.jsonl` (newest) … `events.K.jsonl` (oldest).
//!
//! Crash safety: each line is appended to a file opened with `O_APPEND` by one `write` of the
//! whole line (newline included), so a crash of the process loses at most the line being
//! written, and that line is at the end of the file. On opening, a file not ending in a newline
//! (a torn last line) gets one, so the next line starts clean; readers skip lines that do not
//! parse ([`read`]). No `fsync`: a machine crash may lose what the OS had not written back.

use crate::epoch_record::EpochRecord;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// Size at which `events.jsonl` is rotated when none is configured: 64 MiB.
pub const DEFAULT_MAX_BYTES: u64 = 64 << 20;

/// Rotated files kept when none is configured.
pub const DEFAULT_KEEP: usize = 10;

/// The file being written.
pub const CURRENT: &str = "events.jsonl";

/// The name of the `n`-th rotated file (`events.1.jsonl` is the newest); `n = 0` is
/// [`CURRENT`].
pub fn file_name(n: usize) -> String {
    if n == 0 {
        CURRENT.to_owned()
    } else {
        format!("events.{n}.jsonl")
    }
}

/// The rotation index of a file name: 0 for [`CURRENT`], `n` for `events.n.jsonl`.
fn index_of(name: &str) -> Option<usize> {
    if name == CURRENT {
        return Some(0);
    }
    let n = name.strip_prefix("events.")?.strip_suffix(".jsonl")?;
    // Only canonical numbers: `events.01.jsonl` is not ours.
    n.parse::<usize>().ok().filter(|i| *i > 0 && i.to_string() == n)
}

/// An appender to one directory's event log; clones share it (and its lock).
#[derive(Clone, Debug)]
pub struct EventLog(Arc<Mutex<Writer>>);

#[derive(Debug)]
struct Writer {
    dir: PathBuf,
    max_bytes: u64,
    keep: usize,
    /// `None` until opened, and after a failed write (reopened on the next line).
    file: Option<File>,
    /// Bytes in `events.jsonl`.
    size: u64,
}

impl EventLog {
    /// Creates `dir` if needed and opens its `events.jsonl` for appending. Rotates once the
    /// file would exceed `max_bytes` (a line longer than that gets a file of its own), keeping
    /// `keep` rotated files (0: the old lines are deleted).
    ///
    /// # Errors
    /// The directory cannot be created or the file opened.
    pub fn open(dir: &Path, max_bytes: u64, keep: usize) -> io::Result<Self> {
        let mut writer = Writer { dir: dir.to_path_buf(), max_bytes, keep, file: None, size: 0 };
        writer.reopen()?;
        Ok(Self(Arc::new(Mutex::new(writer))))
    }

    /// An appender to `dir` that opens the file at its first line (and retries at each line
    /// while that fails), for a directory that could not be opened at start.
    pub fn unopened(dir: &Path, max_bytes: u64, keep: usize) -> Self {
        let writer = Writer { dir: dir.to_path_buf(), max_bytes, keep, file: None, size: 0 };
        Self(Arc::new(Mutex::new(writer)))
    }

    /// The directory written to.
    pub fn dir(&self) -> PathBuf {
        self.lock().dir.clone()
    }

    /// Appends `record` as one line, rotating first when the line would take the file past
    /// its size limit.
    ///
    /// # Complexity
    /// O(record) to serialize, one `write` system call; a rotation renames at most `keep + 1`
    /// files.
    ///
    /// # Errors
    /// Serializing, rotating or writing failed; the file is reopened on the next call.
    pub fn append(&self, record: &EpochRecord) -> io::Result<()> {
        let mut line = serde_json::to_vec(record).map_err(io::Error::other)?;
        line.push(b'\n');
        self.lock().write_line(&line)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Writer> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Writer {
    fn write_line(&mut self, line: &[u8]) -> io::Result<()> {
        let result = self.try_write_line(line);
        if result.is_err() {
            self.file = None;
        }
        result
    }

    fn try_write_line(&mut self, line: &[u8]) -> io::Result<()> {
        if self.file.is_none() {
            self.reopen()?;
        }
        let len = line.len() as u64;
        if self.size > 0 && self.size.saturating_add(len) > self.max_bytes {
            self.rotate()?;
        }
        let Some(file) = self.file.as_mut() else {
            return Err(io::Error::other("event log file not open"));
        };
        // One write of the whole line: with O_APPEND the line lands whole at the end (a
        // regular file takes it in one call; `write_all` only loops on a short write).
        file.write_all(line)?;
        file.flush()?;
        self.size += len;
        Ok(())
    }

    /// Opens (creating) `dir/events.jsonl` for appending and ends a torn last line.
    fn reopen(&mut self) -> io::Result<()> {
        fs::create_dir_all(&self.dir)?;
        let mut file =
            OpenOptions::new().create(true).append(true).read(true).open(self.dir.join(CURRENT))?;
        let mut size = file.metadata()?.len();
        if size > 0 {
            let mut last = [0_u8; 1];
            file.seek(SeekFrom::End(-1))?;
            file.read_exact(&mut last)?;
            if last[0] != b'\n' {
                file.write_all(b"\n")?;
                size += 1;
            }
        }
        self.file = Some(file);
        self.size = size;
        Ok(())
    }

    /// `events.{K-1}` → `events.K`, …, `events.jsonl` → `events.1.jsonl` (the oldest falls
    /// off; files beyond `keep` left by an earlier, larger `keep` are deleted), then a new
    /// `events.jsonl`.
    fn rotate(&mut self) -> io::Result<()> {
        self.file = None;
        for entry in fs::read_dir(&self.dir)? {
            let entry = entry?;
            let name = entry.file_name();
            if name.to_str().and_then(index_of).is_some_and(|i| i > self.keep) {
                fs::remove_file(entry.path())?;
            }
        }
        if self.keep == 0 {
            fs::remove_file(self.dir.join(CURRENT))?;
        } else {
            for n in (0..self.keep).rev() {
                let from = self.dir.join(file_name(n));
                if from.exists() {
                    fs::rename(from, self.dir.join(file_name(n + 1)))?;
                }
            }
        }
        self.reopen()
    }
}

/// The event log files of `dir`, oldest first: `events.K.jsonl` … `events.1.jsonl`,
/// `events.jsonl`. Other files are ignored.
///
/// # Errors
/// The directory cannot be listed.
pub fn files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut found: Vec<(usize, PathBuf)> = Vec::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        if let Some(i) = entry.file_name().to_str().and_then(index_of) {
            found.push((i, entry.path()));
        }
    }
    found.sort_by_key(|(i, _)| std::cmp::Reverse(*i));
    Ok(found.into_iter().map(|(_, path)| path).collect())
}

/// A line [`read`] skipped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// Its file.
    pub file: PathBuf,
    /// Its 1-based line number.
    pub line: usize,
    /// Why it did not parse.
    pub error: String,
}

/// Calls `each` with every record of `dir`'s event log, oldest file first and in line order
/// within a file. Lines that do not parse as a record (a torn line left by a crash) are skipped
/// and returned; blank lines are ignored.
///
/// # Complexity
/// O(total bytes); holds one line at a time.
///
/// # Errors
/// The directory or a file cannot be read, or `each` failed.
pub fn read(
    dir: &Path,
    mut each: impl FnMut(EpochRecord) -> io::Result<()>,
) -> io::Result<Vec<Skipped>> {
    let mut skipped = Vec::new();
    for path in files(dir)? {
        let mut reader = BufReader::new(File::open(&path)?);
        let mut line = Vec::new();
        let mut number = 0;
        loop {
            line.clear();
            if reader.read_until(b'\n', &mut line)? == 0 {
                break;
            }
            number += 1;
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<EpochRecord>(&line) {
                Ok(record) => each(record)?,
                Err(e) => {
                    skipped.push(Skipped { file: path.clone(), line: number, error: e.to_string() })
                }
            }
        }
    }
    Ok(skipped)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A fresh empty directory under the target's temporary directory.
    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("placer-event-log-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn record(seq: u64) -> EpochRecord {
        EpochRecord { seq, request_id: format!("r{seq}"), ..EpochRecord::default() }
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn seqs(dir: &Path) -> Vec<u64> {
        let mut out = Vec::new();
        let skipped = read(dir, |r| {
            out.push(r.seq);
            Ok(())
        })
        .unwrap();
        assert!(skipped.is_empty(), "{skipped:?}");
        out
    }

    #[test]
    fn rotated_file_names_parse_back() {
        assert_eq!(index_of("events.jsonl"), Some(0));
        assert_eq!(index_of(&file_name(12)), Some(12));
        for other in ["events.0.jsonl", "events.01.jsonl", "events.x.jsonl", "ev.jsonl"] {
            assert_eq!(index_of(other), None, "{other}");
        }
    }

    #[test]
    fn lines_rotate_by_size_and_keep_k_files() {
        let dir = scratch("rotate");
        let line_len = serde_json::to_vec(&record(10)).unwrap().len() as u64 + 1;
        // Room for two lines per file, two rotated files kept.
        let log = EventLog::open(&dir, 2 * line_len, 2).unwrap();
        for seq in 10..17 {
            log.append(&record(seq)).unwrap();
        }
        // 7 lines: [10 11] [12 13] [14 15] [16]; the oldest pair fell off.
        assert_eq!(names(&dir), ["events.1.jsonl", "events.2.jsonl", "events.jsonl"]);
        assert_eq!(seqs(&dir), [12, 13, 14, 15, 16]);
        for name in names(&dir) {
            let size = fs::metadata(dir.join(name)).unwrap().len();
            assert!(size <= 2 * line_len);
        }
        // Reopening appends after the existing lines.
        drop(log);
        let log = EventLog::open(&dir, 2 * line_len, 2).unwrap();
        log.append(&record(17)).unwrap();
        assert_eq!(seqs(&dir), [12, 13, 14, 15, 16, 17]);
        // Keeping none deletes the old lines; a smaller keep removes the extra files.
        let log = EventLog::open(&dir, 2 * line_len, 0).unwrap();
        log.append(&record(18)).unwrap();
        assert_eq!(names(&dir), ["events.jsonl"]);
        assert_eq!(seqs(&dir), [18]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_torn_last_line_is_skipped_and_ended_on_reopen() {
        let dir = scratch("torn");
        let log = EventLog::open(&dir, DEFAULT_MAX_BYTES, DEFAULT_KEEP).unwrap();
        log.append(&record(1)).unwrap();
        log.append(&record(2)).unwrap();
        drop(log);
        // A crash in the middle of the third line.
        let whole = serde_json::to_string(&record(3)).unwrap();
        let mut file = OpenOptions::new().append(true).open(dir.join(CURRENT)).unwrap();
        file.write_all(&whole.as_bytes()[..whole.len() / 2]).unwrap();
        drop(file);
        let mut got = Vec::new();
        let skipped = read(&dir, |r| {
            got.push(r.seq);
            Ok(())
        })
        .unwrap();
        assert_eq!(got, [1, 2]);
        assert_eq!(skipped.len(), 1);
        assert_eq!(skipped[0].line, 3);
        // The server restarts: the torn line is ended, the next line is whole.
        let log = EventLog::open(&dir, DEFAULT_MAX_BYTES, DEFAULT_KEEP).unwrap();
        log.append(&record(4)).unwrap();
        let mut got = Vec::new();
        let skipped = read(&dir, |r| {
            got.push(r.seq);
            Ok(())
        })
        .unwrap();
        assert_eq!(got, [1, 2, 4]);
        assert_eq!(skipped.len(), 1);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_in_the_way_of_the_directory_is_an_error() {
        let dir = scratch("blocked");
        let file = dir.join("not-a-dir");
        fs::write(&file, b"x").unwrap();
        assert!(EventLog::open(&file, 1, 1).is_err());
        fs::remove_dir_all(&dir).unwrap();
    }
}
