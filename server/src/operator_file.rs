//! Reading the files an operator points the server at (the config file, the fair-scheduler
//! allocation file; docs/operations/configuration.md, "Config file"): only a regular file, at
//! most a given size, within a time limit. A named pipe, a device or a directory is refused before
//! it is opened (opening a pipe blocks until a writer comes), a file past the size limit is refused
//! after reading one byte more than the limit, and a read slower than the limit (a stalled network
//! file system) stops between chunks. Reloads run on their own thread ([`crate::reload`]), so even
//! a read that blocks inside the kernel never delays a signal's handling.

use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};

/// Largest config file read: 1 MiB (a full config is a few KiB).
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// Largest allocation file read: 16 MiB (tens of thousands of queues).
pub const MAX_ALLOCATIONS_BYTES: u64 = 16 << 20;

/// Longest time to read one file.
pub const READ_TIMEOUT: Duration = Duration::from_secs(5);

/// The text of the regular file at `path`, at most `max_bytes` bytes of UTF-8, read within
/// `timeout`.
///
/// # Errors
/// Why not, as a sentence: as [`read_bytes`], or not UTF-8.
///
/// # Complexity
/// O(file) time and memory, at most `max_bytes + 1` bytes read.
pub fn read_text(path: &Path, max_bytes: u64, timeout: Duration) -> Result<String, String> {
    String::from_utf8(read_bytes(path, max_bytes, timeout)?).map_err(|e| format!("not UTF-8: {e}"))
}

/// The bytes of the regular file at `path`, at most `max_bytes`, read within `timeout`.
///
/// # Errors
/// Why not, as a sentence: not a regular file, unreadable, larger than `max_bytes`, slower
/// than `timeout`.
///
/// # Complexity
/// O(file) time and memory, at most `max_bytes + 1` bytes read.
pub fn read_bytes(path: &Path, max_bytes: u64, timeout: Duration) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read: {e}"))?;
    if !meta.file_type().is_file() {
        return Err("not a regular file (a named pipe, device or directory is refused)".into());
    }
    if meta.len() > max_bytes {
        return Err(format!("{} bytes, over the limit of {max_bytes}", meta.len()));
    }
    let started = Instant::now();
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read: {e}"))?;
    let mut reader = file.take(max_bytes + 1);
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    let mut chunk = [0u8; 64 * 1024];
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(format!("cannot read: {e}")),
        };
        bytes.extend_from_slice(&chunk[..n]);
        if bytes.len() as u64 > max_bytes {
            return Err(format!("over the limit of {max_bytes} bytes"));
        }
        if started.elapsed() > timeout {
            return Err(format!("not read within {} ms", timeout.as_millis()));
        }
    }
    Ok(bytes)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn temp(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("placer-opfile-{}-{name}", std::process::id()))
    }

    #[test]
    fn reads_a_small_regular_file() {
        let path = temp("ok");
        std::fs::write(&path, "a = 1\n").unwrap();
        assert_eq!(read_text(&path, 100, READ_TIMEOUT).unwrap(), "a = 1\n");
        std::fs::remove_file(&path).unwrap();
    }

    /// A 20 MB config once took 11 s to be refused on the signal thread: now it is refused by
    /// its size before it is read.
    #[test]
    fn a_file_over_the_limit_is_refused() {
        let path = temp("big");
        std::fs::write(&path, vec![b'#'; 101]).unwrap();
        let why = read_text(&path, 100, READ_TIMEOUT).unwrap_err();
        assert!(why.contains("over the limit of 100"), "{why}");
        std::fs::remove_file(&path).unwrap();
    }

    /// A config path that is a named pipe once blocked SIGTERM for good: opening it waits for
    /// a writer. Now it is refused before it is opened.
    #[cfg(unix)]
    #[test]
    fn a_named_pipe_is_refused_without_blocking() {
        let path = temp("fifo");
        let made = std::process::Command::new("mkfifo").arg(&path).status().unwrap();
        assert!(made.success());
        let why = read_text(&path, 100, READ_TIMEOUT).unwrap_err();
        assert!(why.contains("not a regular file"), "{why}");
        std::fs::remove_file(&path).unwrap();
        let dir = std::env::temp_dir();
        assert!(read_text(&dir, 100, READ_TIMEOUT).unwrap_err().contains("not a regular file"));
    }
}
