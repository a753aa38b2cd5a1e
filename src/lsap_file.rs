//! The `.lsap` dense matrix file of `placer lsap` and `placer export-matrix` (DESIGN.md §CLI
//! contract): little-endian u64 rows, u64 cols, then rows × cols f64 row-major; `+inf` marks a
//! forbidden pair (lsap-sched §3.2: the cost matrix C handed to an LSAP solver).

use crate::error::CliError;
use ndarray::Array2;
use std::path::Path;

/// Reads a `.lsap` file, checking that its length is exactly 16 + 8 · rows · cols bytes.
pub fn read(path: &Path) -> Result<Array2<f64>, CliError> {
    let bytes =
        std::fs::read(path).map_err(|source| CliError::Io { path: path.to_owned(), source })?;
    let bad = |message: String| CliError::BadMatrix { path: path.to_owned(), message };
    let header = |k: usize| -> Result<u64, CliError> {
        let b: [u8; 8] =
            bytes.get(8 * k..8 * k + 8).and_then(|s| s.try_into().ok()).ok_or_else(|| {
                bad(format!("{} bytes: too short for the 16-byte header", bytes.len()))
            })?;
        Ok(u64::from_le_bytes(b))
    };
    let (rows, cols) = (header(0)?, header(1)?);
    let cells = rows
        .checked_mul(cols)
        .and_then(|c| usize::try_from(c).ok())
        .filter(|c| c.checked_mul(8).is_some())
        .ok_or_else(|| bad(format!("{rows} x {cols} does not fit in memory")))?;
    let expected = 16 + 8 * cells;
    if bytes.len() != expected {
        return Err(bad(format!(
            "{rows} x {cols} needs {expected} bytes, the file has {}",
            bytes.len()
        )));
    }
    let values = bytes[16..]
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect();
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
