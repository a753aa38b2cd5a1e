//! The memory a `POST /place` request may take, estimated from its body alone
//! (bounded memory: admission against a process-wide `--max-memory` budget). The factor is
//! measured, not derived: peak RSS of `placer place` over the body's size on the worst
//! snapshot shape we know (10⁵ maps × 100 replicas on 120 nodes, 71.3 MB; BENCHMARKS.md,
//! "Memory"), where the replica lists dominate both the body and the memory.

/// Peak bytes per body byte that one request may take, with margin. The worst measured ratio
/// of peak RSS to body size was 7.9 (552,796 KiB over 71.3 MB): an exact policy whose
/// zero-cost seeds do not settle the epoch (`lsap_fair` with distinct ageing offsets), so that
/// the flow network holds an arc per replica, 40 bytes each (two 20-byte half-arcs laid out
/// straight into compressed sparse rows), against about 7 body bytes per replica. The greedy
/// policies, and the exact ones when the seeds settle the epoch, measured 3.1–3.9. 12 leaves
/// 50 % for allocator slack and shapes not measured.
pub const PEAK_BYTES_PER_BODY_BYTE: usize = 12;

/// What one request is expected to take at its peak, in bytes: `body_len` ×
/// [`PEAK_BYTES_PER_BODY_BYTE`] (saturating), the body itself included. A server admits a
/// request when this fits in what its memory budget has left, and gives it back when the
/// answer is written.
///
/// # Complexity
/// O(1).
///
/// # Errors
/// None: saturates at `usize::MAX`.
///
/// # Examples
/// A 66.6 MB snapshot (the worst shape: 10⁵ pending maps × 100 replicas) is budgeted at 799 MB, so
/// a 4 GiB budget admits five of them at once; a 200 KB 500-node snapshot takes 2.4 MB.
/// ```
/// use placer_solver::peak_estimate_bytes;
/// assert_eq!(peak_estimate_bytes(66_600_000), 799_200_000);
/// assert_eq!(4 * (1usize << 30) / peak_estimate_bytes(66_600_000), 5);
/// assert_eq!(peak_estimate_bytes(200_000), 2_400_000);
/// assert_eq!(peak_estimate_bytes(usize::MAX), usize::MAX);
/// ```
pub fn peak_estimate_bytes(body_len: usize) -> usize {
    body_len.saturating_mul(PEAK_BYTES_PER_BODY_BYTE)
}
