//! SARP, Shuffle-aware Reduce Placement (Ahmad et al. §3.3, Fig. 6): how many of a job's
//! reduces each rack should run. Above MapCompletionThreshold of the maps completed,
//! PreferredReducesPerRack\[r\] = NumReduces · intermediate data on r / the job's intermediate
//! data; below it, SAMP's TentativeReducesPerRack.
//!
//! The intermediate data per rack comes from the snapshot: the shuffle sources the job's
//! pending reduces list (`pending[].shuffle`), summed per rack: each reduce pulls its share of
//! every map output, so the sum is proportional to the map output on each rack. The counts are
//! fractional, as Fig. 6 computes them; a rack's preference "is not met" (Fig. 3, lines 8 and
//! 13) while the job's reduces running or placed there are fewer.

/// PreferredReducesPerRack for one job (Fig. 6): `intermediate` bytes per rack (≥ 0),
/// `reduces` = NumReduces, `maps_fraction_done` in [0, 1], `threshold` =
/// MapCompletionThreshold, `tentative` = SAMP's counts per rack (missing racks: 0).
///
/// Above the threshold and with some intermediate data: reduces · intermediate(r) / Σ
/// intermediate; otherwise the tentative counts.
///
/// # Complexity
/// O(racks).
///
/// # Errors
/// None.
///
/// # Examples
/// ShuffleWatcher Fig. 7: a job's 100 GB of intermediate data lies 90 GB on rack 1 and 10 GB on
/// rack 2, and it has 10 reduces, each pulling 10 GB spread like the data. Evenly placed (5 and
/// 5), 5 · 1 + 5 · 9 = 50 GB crosses racks; SARP prefers 9 and 1, and 9 · 1 + 1 · 9 = 18 GB
/// crosses: 64% less.
/// ```
/// use placer_solver::shuffle::sarp::{cross_rack_bytes, preferred_reduces};
/// let gb = 1e9;
/// let pref = preferred_reduces(&[90.0 * gb, 10.0 * gb], 10, 0.5, 0.15, &[]);
/// assert_eq!(pref, vec![9.0, 1.0]);
/// let even = cross_rack_bytes(&[90.0 * gb, 10.0 * gb], &[5, 5], 100.0 * gb);
/// let sarp = cross_rack_bytes(&[90.0 * gb, 10.0 * gb], &[9, 1], 100.0 * gb);
/// assert!((even - 50.0 * gb).abs() < 1.0 && (sarp - 18.0 * gb).abs() < 1.0);
/// assert!(((1.0 - sarp / even) - 0.64).abs() < 1e-9);
/// ```
pub fn preferred_reduces(
    intermediate: &[f64],
    reduces: u32,
    maps_fraction_done: f64,
    threshold: f64,
    tentative: &[u32],
) -> Vec<f64> {
    let total: f64 = intermediate.iter().sum();
    if maps_fraction_done > threshold && total > 0.0 {
        intermediate.iter().map(|&b| f64::from(reduces) * b / total).collect()
    } else {
        (0..intermediate.len()).map(|r| f64::from(tentative.get(r).copied().unwrap_or(0))).collect()
    }
}

/// Bytes of a job's shuffle that cross racks when `reduces_on[r]` of its reduces run on rack r
/// and its intermediate data lies `intermediate[r]` bytes on rack r, every reduce pulling an
/// equal share of every rack's data, `shuffle` bytes in all: Σ_r reduces_on(r) / R · (shuffle ·
/// (1 − intermediate(r) / Σ intermediate)), R = Σ reduces_on.
///
/// # Complexity
/// O(racks).
///
/// # Errors
/// None: no reduces or no data give 0.
///
/// # Examples
/// See [`preferred_reduces`] (Fig. 7).
pub fn cross_rack_bytes(intermediate: &[f64], reduces_on: &[u32], shuffle: f64) -> f64 {
    let total: f64 = intermediate.iter().sum();
    let reduces: u32 = reduces_on.iter().sum();
    if total <= 0.0 || reduces == 0 {
        return 0.0;
    }
    intermediate
        .iter()
        .zip(reduces_on)
        .map(|(&b, &n)| f64::from(n) / f64::from(reduces) * shuffle * (1.0 - b / total))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sw_fig6_below_the_threshold_uses_samps_tentative_counts() {
        // 10% of the maps done < 15%: the (possibly skewed) early data is not trusted.
        let pref = preferred_reduces(&[1.0, 99.0], 4, 0.10, 0.15, &[3, 1]);
        assert_eq!(pref, vec![3.0, 1.0]);
    }

    #[test]
    fn sw_fig6_above_the_threshold_follows_the_data() {
        let pref = preferred_reduces(&[30.0, 10.0, 0.0], 8, 0.2, 0.15, &[0, 0, 8]);
        assert_eq!(pref, vec![6.0, 2.0, 0.0]);
    }

    #[test]
    fn sw_fig6_no_data_yet_falls_back_to_tentative() {
        let pref = preferred_reduces(&[0.0, 0.0], 2, 0.9, 0.15, &[2]);
        assert_eq!(pref, vec![2.0, 0.0]);
    }
}
