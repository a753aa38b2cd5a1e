//! SAMP, Shuffle-aware Map Placement (Ahmad et al. §3.2, Fig. 4): once per job, choose the
//! racks its maps prefer so that the estimated remote-map traffic plus cross-rack shuffle is
//! least, and predict how many of its reduces each rack will get (TentativeReducesPerRack).
//!
//! Fig. 4 literally: sort the racks by the job's input on them, decreasing; add them one by one
//! while the estimate decreases. The estimate for a rack set S (placer's reading of §3.2's
//! prose, which the paper does not give as a formula):
//! - remote-map traffic = the input bytes of maps with no replica on a rack of S (they must
//!   read across racks when run in S);
//! - the intermediate data of each map lands on the racks of S holding its block, split evenly
//!   between them ("the nodes of each rack become available ... at roughly the same rate",
//!   §3.2), or evenly over S for a map with no replica in S or none at all; with f_r the
//!   share of rack r, SARP puts g_r = f_r of the reduces on r, so the cross-rack shuffle is
//!   ratio · input · Σ_r g_r (1 − f_r) = ratio · input · (1 − Σ_r f_r²) — as far as the racks'
//!   reduce slots allow: rack r can host at most slots(r) / NumReduces of the reduces, and what
//!   does not fit is spread over the racks with room, in proportion to it ([`reduce_spread`]).
//!   "Assumes SARP is used" (Fig. 4, line 6) read as SARP on this cluster: without the cap,
//!   a job with 110 reduces would be sent to one rack of 20 reduce slots, trading remote map
//!   reads for a shuffle saving that SARP cannot deliver.
//!
//! The loop stops at the minimum: a rack whose addition does not decrease the estimate is not
//! kept (Fig. 4's do-while would keep the last rack added; its text says "until this sum is
//! minimized"). Ties between racks holding equal input go to the rack fewer earlier jobs
//! prefer, then the lower rack index: this is what spreads Fig. 5's two jobs over the two
//! racks. Units: bytes (traffic), counts (reduces).

/// A map as SAMP sees it: its input bytes and the racks holding a replica of its block
/// (deduplicated; empty = no preference).
#[derive(Clone, Debug, PartialEq)]
pub struct MapInput {
    /// Input bytes (≥ 0).
    pub bytes: f64,
    /// Racks with a replica.
    pub racks: Vec<u32>,
}

/// SAMP's decision for one job.
#[derive(Clone, Debug, PartialEq)]
pub struct SampPlan {
    /// PreferredMapRacks, in the order they were added.
    pub preferred: Vec<u32>,
    /// TentativeReducesPerRack, one count per rack, summing to the job's reduces.
    pub tentative: Vec<u32>,
    /// The estimated cross-rack traffic of the plan in bytes (remote map + cross-rack shuffle).
    pub traffic_bytes: f64,
}

/// Where SARP can put a job's reduces: g_r = min(f_r, slots(r) / `reduces`) of them on rack r,
/// the rest spread over the racks with room left in proportion to it (or, when the job has
/// more reduces than the cluster has slots, in proportion to the racks' slots). `slots` empty
/// or `reduces` = 0: g = f, no cap. Shares and the result are fractions summing to 1 (or all 0).
///
/// # Complexity
/// O(racks).
pub fn reduce_spread(shares: &[f64], reduces: u32, slots: &[u32]) -> Vec<f64> {
    if reduces == 0 || slots.len() != shares.len() {
        return shares.to_vec();
    }
    let cap: Vec<f64> = slots.iter().map(|&s| f64::from(s) / f64::from(reduces)).collect();
    let mut g: Vec<f64> = shares.iter().zip(&cap).map(|(&f, &c)| f.min(c)).collect();
    let left = shares.iter().sum::<f64>() - g.iter().sum::<f64>();
    if left <= 0.0 {
        return g;
    }
    let spare: Vec<f64> = g.iter().zip(&cap).map(|(&x, &c)| (c - x).max(0.0)).collect();
    let room: f64 = spare.iter().sum();
    if room >= left && room > 0.0 {
        for (x, s) in g.iter_mut().zip(&spare) {
            *x += left * s / room;
        }
        return g;
    }
    let total: f64 = cap.iter().sum();
    if total <= 0.0 {
        return shares.to_vec();
    }
    let sum: f64 = shares.iter().sum();
    cap.iter().map(|&c| sum * c / total).collect()
}

/// The estimate of Fig. 4, line 6 for the rack set `chosen` (bools per rack), for a job of
/// `reduces` reduces on racks of `reduce_slots` (empty: unlimited): (remote-map bytes,
/// cross-rack shuffle bytes, the reduces' share per rack).
///
/// # Complexity
/// O(racks + Σ replicas of `maps`).
pub fn estimate(
    maps: &[MapInput],
    chosen: &[bool],
    ratio: f64,
    reduces: u32,
    reduce_slots: &[u32],
) -> (f64, f64, Vec<f64>) {
    let racks = chosen.len();
    let members: Vec<usize> = (0..racks).filter(|&r| chosen[r]).collect();
    let mut inter = vec![0.0; racks];
    let mut remote = 0.0;
    let mut total = 0.0;
    for m in maps {
        let out = m.bytes * ratio;
        total += out;
        let local = m.racks.iter().filter(|&&r| chosen.get(r as usize) == Some(&true)).count();
        if local > 0 {
            for &r in &m.racks {
                if chosen.get(r as usize) == Some(&true) {
                    inter[r as usize] += out / local as f64;
                }
            }
        } else {
            if !m.racks.is_empty() {
                remote += m.bytes;
            }
            for &r in &members {
                inter[r] += out / members.len() as f64;
            }
        }
    }
    if total <= 0.0 || members.is_empty() {
        return (remote, 0.0, vec![0.0; racks]);
    }
    let shares: Vec<f64> = inter.iter().map(|&b| b / total).collect();
    let spread = reduce_spread(&shares, reduces, reduce_slots);
    let local: f64 = shares.iter().zip(&spread).map(|(f, g)| f * g).sum();
    (remote, total * (1.0 - local).max(0.0), spread)
}

/// SAMP (Fig. 4) for one job: its maps `maps`, on a cluster of `racks` racks with
/// `reduce_slots` per rack (empty: unlimited), with ShuffleInputRatio `ratio` (shuffle bytes /
/// input bytes), `reduces` reduce tasks, and `preferred_by` the number of jobs already
/// preferring each rack (tie-break).
///
/// Estimate(S) = remote(S) + ratio · input · (1 − Σ_r g_r(S) f_r(S)) bytes (module docs); racks
/// are added in decreasing order of the job's input on them while the estimate decreases; the
/// tentative reduces apportion `reduces` to g_r by largest remainders (ties to the lower rack).
///
/// # Complexity
/// O(racks log racks + racks · (racks + Σ replicas)) time, O(racks) space beyond the input.
///
/// # Errors
/// None: an empty job or cluster gets no preferred racks and no tentative reduces.
///
/// # Examples
/// ShuffleWatcher Fig. 5: two jobs whose blocks are all replicated on rack 1 and rack 2 (racks
/// 0 and 1 here). Each rack holds all of either job's input, so no map need read remotely;
/// on one rack the whole shuffle stays inside it (estimate 0), on both half of it would cross.
/// Job 1 takes rack 0; job 2, tied, takes the rack fewer jobs prefer: rack 1.
/// ```
/// use placer_solver::shuffle::samp::{samp, MapInput};
/// let maps: Vec<MapInput> =
///     (0..4).map(|_| MapInput { bytes: 64e6, racks: vec![0, 1] }).collect();
/// let job1 = samp(&maps, 2, &[], 1.5, 4, &[0, 0]);
/// assert_eq!((job1.preferred.clone(), job1.tentative.clone()), (vec![0], vec![4, 0]));
/// assert_eq!(job1.traffic_bytes, 0.0);
/// let job2 = samp(&maps, 2, &[], 1.5, 4, &[1, 0]);
/// assert_eq!((job2.preferred, job2.tentative), (vec![1], vec![0, 4]));
/// ```
pub fn samp(
    maps: &[MapInput],
    racks: usize,
    reduce_slots: &[u32],
    ratio: f64,
    reduces: u32,
    preferred_by: &[u32],
) -> SampPlan {
    let mut input = vec![0.0; racks];
    for m in maps {
        for &r in &m.racks {
            if let Some(b) = input.get_mut(r as usize) {
                *b += m.bytes;
            }
        }
    }
    let mut order: Vec<usize> = (0..racks).filter(|&r| input[r] > 0.0).collect();
    let load = |r: usize| preferred_by.get(r).copied().unwrap_or(0);
    order.sort_by(|&a, &b| {
        input[b].total_cmp(&input[a]).then(load(a).cmp(&load(b))).then(a.cmp(&b))
    });
    let mut chosen = vec![false; racks];
    let mut preferred = Vec::new();
    let mut best = f64::INFINITY;
    let mut best_shares = vec![0.0; racks];
    for r in order {
        chosen[r] = true;
        let (remote, shuffle, shares) = estimate(maps, &chosen, ratio, reduces, reduce_slots);
        let traffic = remote + shuffle;
        if traffic < best {
            best = traffic;
            best_shares = shares;
            preferred.push(r as u32);
        } else {
            chosen[r] = false;
            break;
        }
    }
    let tentative = apportion(reduces, &best_shares);
    SampPlan { preferred, tentative, traffic_bytes: if best.is_finite() { best } else { 0.0 } }
}

/// Splits `total` units over `shares` (≥ 0) by largest remainders, ties to the lower index;
/// all zero shares (or none) give all zeros.
pub fn apportion(total: u32, shares: &[f64]) -> Vec<u32> {
    let sum: f64 = shares.iter().sum();
    if shares.is_empty() || sum <= 0.0 {
        return vec![0; shares.len()];
    }
    let exact: Vec<f64> = shares.iter().map(|s| f64::from(total) * s / sum).collect();
    let mut counts: Vec<u32> = exact.iter().map(|x| x.floor() as u32).collect();
    let given: u32 = counts.iter().sum();
    let mut rest: Vec<usize> = (0..shares.len()).collect();
    rest.sort_by(|&a, &b| {
        (exact[b] - exact[b].floor()).total_cmp(&(exact[a] - exact[a].floor())).then(a.cmp(&b))
    });
    for &r in rest.iter().take(total.saturating_sub(given) as usize) {
        counts[r] += 1;
    }
    counts
}

/// The per-job field whose absence marks a job SAMP has not planned yet
/// (`jobs[].shuffle_watcher`), or `None` when SAMP is off in `policy`.
pub fn plans(policy: &placer_models::Policy) -> Option<&'static str> {
    let knobs: super::ShuffleKnobs = crate::settings::read(policy);
    knobs.shuffle_watcher.samp.then_some(<super::ShuffleWatcherState as crate::echo::JobField>::KEY)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sw_fig4_adds_a_second_rack_when_remote_reads_outweigh_the_shuffle() {
        // A shuffle-light job (ratio 0.1): 3 blocks only on rack 0, 1 block only on rack 1.
        // S = {0}: remote 64 MB, shuffle 0 → 64 MB. S = {0, 1}: remote 0, shares (.75, .25):
        // shuffle = 0.1 · 256 MB · (1 − .5625 − .0625) = 9.6 MB → kept.
        let mut maps: Vec<MapInput> =
            (0..3).map(|_| MapInput { bytes: 64e6, racks: vec![0] }).collect();
        maps.push(MapInput { bytes: 64e6, racks: vec![1] });
        let plan = samp(&maps, 2, &[], 0.1, 4, &[0, 0]);
        assert_eq!(plan.preferred, vec![0, 1]);
        assert!((plan.traffic_bytes - 9.6e6).abs() < 1.0);
        assert_eq!(plan.tentative, vec![3, 1]);
    }

    #[test]
    fn sw_fig4_keeps_one_rack_when_the_shuffle_outweighs_remote_reads() {
        // The same blocks, shuffle-heavy (ratio 2): S = {0}: 64 MB remote; S = {0, 1}: shuffle
        // 2 · 256 MB · .375 = 192 MB > 64 MB → rack 1 is not kept; all reduces on rack 0.
        let mut maps: Vec<MapInput> =
            (0..3).map(|_| MapInput { bytes: 64e6, racks: vec![0] }).collect();
        maps.push(MapInput { bytes: 64e6, racks: vec![1] });
        let plan = samp(&maps, 2, &[], 2.0, 4, &[0, 0]);
        assert_eq!(plan.preferred, vec![0]);
        assert_eq!(plan.traffic_bytes, 64e6);
        assert_eq!(plan.tentative, vec![4, 0]);
    }

    #[test]
    fn sw_fig4_a_job_with_more_reduces_than_a_rack_holds_is_not_sent_to_one_rack() {
        // Fig. 4's second case (3 blocks only on rack 0, 1 only on rack 1, ratio 2) with 10
        // reduces and 6 reduce slots per rack. S = {0}: 64 MB remote, all output on rack 0 but
        // only 6 of the 10 reduces there (g = .6, .4): 512 MB · .4 = 204.8 MB, 268.8 MB in all.
        // S = {0, 1}: no remote read, f = (.75, .25), g = (.6, .4): 512 MB · (1 − .45 − .1) =
        // 230.4 MB, less, so rack 1 is kept. Uncapped, {0} wins (64 MB against 192 MB).
        let mut maps: Vec<MapInput> =
            (0..3).map(|_| MapInput { bytes: 64e6, racks: vec![0] }).collect();
        maps.push(MapInput { bytes: 64e6, racks: vec![1] });
        let capped = samp(&maps, 2, &[6, 6], 2.0, 10, &[0, 0]);
        assert_eq!(capped.preferred, vec![0, 1]);
        assert!((capped.traffic_bytes - 230.4e6).abs() < 1.0);
        assert_eq!(capped.tentative, vec![6, 4]);
        let free = samp(&maps, 2, &[], 2.0, 10, &[0, 0]);
        assert_eq!((free.preferred, free.tentative), (vec![0], vec![10, 0]));
    }

    #[test]
    fn reduce_spread_caps_and_refills() {
        let g = reduce_spread(&[1.0, 0.0, 0.0], 10, &[4, 4, 4]);
        assert!(
            (g[0] - 0.4).abs() < 1e-12 && (g[1] - 0.3).abs() < 1e-12 && (g[2] - 0.3).abs() < 1e-12
        );
        assert_eq!(reduce_spread(&[0.7, 0.3], 0, &[1, 1]), vec![0.7, 0.3]);
        // More reduces than slots: by the racks' slots.
        let g = reduce_spread(&[1.0, 0.0], 10, &[2, 3]);
        assert!((g[0] - 0.4).abs() < 1e-12 && (g[1] - 0.6).abs() < 1e-12);
    }

    #[test]
    fn empty_job_prefers_nothing() {
        let plan = samp(&[], 3, &[], 1.0, 5, &[]);
        assert!(plan.preferred.is_empty());
        assert_eq!(plan.tentative, vec![0, 0, 0]);
    }

    #[test]
    fn apportion_is_largest_remainder() {
        assert_eq!(apportion(10, &[0.9, 0.1]), vec![9, 1]);
        assert_eq!(apportion(3, &[1.0, 1.0]), vec![2, 1]);
        assert_eq!(apportion(0, &[1.0]), vec![0]);
    }
}
