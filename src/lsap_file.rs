//! The `.lsap` dense matrix file of `placer lsap` and `placer export-matrix` (README.md,
//! "CLI"): little-endian u64 rows, u64 cols, then rows × cols f64 row-major; `+inf` marks a
//! forbidden pair (lsap-sched §3.2: the cost matrix C handed to an LSAP solver).

use crate::error::CliError;
use ndarray::Array2;
use std::io::Read;
use std::path::Path;

/// Reads a `.lsap` file, checking that its length is exactly 16 + 8 · rows · cols bytes and
/// that a matrix without cells has at most one row or column. The
/// values are decoded while reading (1 MiB at a time), so the peak is the matrix plus one
/// buffer, not the matrix twice.
pub fn read(path: &Path) -> Result<Array2<f64>, CliError> {
    let io = |source| CliError::Io { path: path.to_owned(), source };
    let bad = |message: String| CliError::BadMatrix { path: path.to_owned(), message };
    let mut file = std::fs::File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let mut header = [0u8; 16];
    file.read_exact(&mut header)
        .map_err(|_| bad(format!("{len} bytes: too short for the 16-byte header")))?;
    let word = |k: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&header[8 * k..8 * k + 8]);
        u64::from_le_bytes(b)
    };
    let (rows, cols) = (word(0), word(1));
    let cells = rows
        .checked_mul(cols)
        .and_then(|c| usize::try_from(c).ok())
        .filter(|c| c.checked_mul(8).is_some())
        .ok_or_else(|| bad(format!("{rows} x {cols} does not fit in memory")))?;
    // A matrix without cells but with 2^40 rows would still make the solver allocate a row
    // table of that size (found by fuzzing): an empty matrix has at most one row or column.
    if cells == 0 && rows.max(cols) > 1 {
        return Err(bad(format!("{rows} x {cols} has no cells; an empty matrix is at most 1 x 0")));
    }
    let expected = 16 + 8 * cells as u64;
    if len != expected {
        return Err(bad(format!("{rows} x {cols} needs {expected} bytes, the file has {len}")));
    }
    let mut values: Vec<f64> = Vec::with_capacity(cells);
    let mut buf = vec![0u8; 1 << 20];
    while values.len() < cells {
        let want = ((cells - values.len()) * 8).min(buf.len());
        file.read_exact(&mut buf[..want]).map_err(io)?;
        values.extend(buf[..want].chunks_exact(8).map(|c| {
            let mut b = [0u8; 8];
            b.copy_from_slice(c);
            f64::from_le_bytes(b)
        }));
    }
    Array2::from_shape_vec((rows as usize, cols as usize), values)
        .map_err(|e| bad(format!("shape: {e}")))
}

/// Writes a matrix as a `.lsap` file.
pub fn write(path: &Path, m: &Array2<f64>) -> Result<(), CliError> {
    let (rows, cols) = m.dim();
    let mut out = Vec::with_capacity(16 + 8 * rows * cols);
    out.extend_from_slice(&(rows as u64).to_le_bytes());
    out.extend_from_slice(&(cols as u64).to_le_bytes());
    for x in m.iter() {
        out.extend_from_slice(&x.to_le_bytes());
    }
    std::fs::write(path, out).map_err(|source| CliError::Io { path: path.to_owned(), source })
}
