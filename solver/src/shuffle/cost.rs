//! `lsap_shuffle`'s shuffle-aware cost (ShuffleWatcher, Ahmad et al. §3, priced instead of
//! ordered): lsap-sched's data-locality cost (Guo, Fox, Zhou eq. 1) plus, per (task, rack),
//! the shuffle a task is expected to cause, NetSat's saturation as a price on cross-rack bytes,
//! and SARP's per-rack reduce counts as a surcharge; plus a credit per task. The terms are the
//! same on every node of a rack, so the model is [`LocalityCost::with_rack_terms`]: every
//! engine (structured flow, JV, Kuhn–Munkres) and the brute-force oracle see one objective.
//!
//! Units: seconds × α (`policy.alpha`), bandwidths in Mbit/s, bytes; X(p, q) = 8 / (10⁶ ·
//! bw(p, q)) is the seconds per byte from rack p to rack q (`rack_mbps` inside a rack,
//! `cross_rack_mbps` or a `rack_pairs` override across).
//!
//! **Saturation price (NASS as costs, §3.1).** With u(q) NetSat's measured utilisation of rack
//! q's uplink and θ = `policy.saturation_threshold`,
//! m(q) = 1 + [`SATURATION_GAIN`] · max(0, u(q) − θ) / θ: 1 up to the threshold (an
//! unsaturated rack is priced exactly as DLC), then rising linearly and without bound but
//! finite for any measured traffic. At the paper's θ = 0.8 (400 of 500 Mbit/s) a rack at 450
//! Mbit/s has m = 2, at its full 500 Mbit/s m = 3. A transfer between two racks p ≠ q crosses
//! both their links, and the busier prices it: m(p, q) = max(m(p), m(q)); in-rack, m(q, q) =
//! 1. With `policy.shuffle_watcher.nass` off, m ≡ 1.
//!
//! **Reduce distribution.** ρ_j(p) = SARP's PreferredReducesPerRack\[p\] of job j over their sum
//! ([`super::ShuffleView::reduce_target`]: the intermediate data per rack, or SAMP's tentative
//! counts below MapCompletionThreshold). A job whose targets are all 0 (SARP off, no reduces,
//! nothing known yet) has no ρ: its maps carry no shuffle term, its reduces no expected
//! shuffle and no SARP surcharge. The per-byte shuffle prices of job j:
//! out_j(q) = Σ_p ρ_j(p) · X(q, p) · m(q, p) (a byte of map output on q, to the reduces) and
//! in_j(q) = Σ_p ρ_j(p) · X(p, q) · m(p, q) (a byte of future map output, to a reduce on q).
//! Under uniform bandwidths and no saturation out_j(q) = ρ_j(q) · X_in + (1 − ρ_j(q)) · X_x:
//! the cross-rack term (1 − ρ_j(q)) · 8 / (10⁶ · bw_cross) plus the in-rack share, priced as DLC prices
//! in-rack reads.
//!
//! **Map t** of job j (input I_t bytes, ratio_j = ShuffleInputRatio) on a node n of rack q:
//! cost = DLC(t, n) + α · [read(t, q) + ratio_j · I_t · out_j(q)], where read(t, q) =
//! I_t · (min_r X(r, q) · m(r, q) − min_r X(r, q)) over its replicas' racks r when q holds no
//! replica (the saturation surcharge on DLC's cross-rack read), else 0. Credit:
//! α · ratio_j · I_t · min_q out_j(q)|m≡1, the shuffle it causes on its best rack of an idle
//! network: unavoidable wherever it runs, so it does not bias which job's maps win a slot
//! unless saturation makes them dearer.
//!
//! **Reduce t** of job j pulling B_t(p) bytes from the nodes of rack p (its `shuffle`
//! sources, B_t = Σ_p B_t(p)) on node n of rack q: cost = DLC(t, n) (its real sources) +
//! α · [Σ_{p ≠ q} B_t(p) · X(p, q) · (m(p, q) − 1) + E_t · in_j(q)] + sarp(t, q). E_t, the
//! shuffle still to come from the job's maps not done yet, is estimated as
//! ratio_j · (maps_total − maps_done) · Ī_j / reduces_total with Ī_j the mean input of the
//! job's pending maps in the snapshot (each reduce pulls an equal share of every map output);
//! when the snapshot lists none of its maps, B_t · (maps_total − maps_done) / maps_done (its
//! pull per done map so far, extrapolated); 0 when no map is done either. Credit:
//! α · (1 + [`NASS_PREMIUM`]) · (B_t + E_t) · X_x(`cross_rack_mbps`): placing a reduce earns
//! its whole shuffle at the idle cross-rack price plus the premium, so on unsaturated racks a
//! heavier reduce nets a larger gain (Fig. 3 lines 13–14: Shuffle-heavy first), and once a
//! rack's price exceeds 1 + premium every cross-rack byte nets a loss there (lines 7–9:
//! Shuffle-light first). A price, not an order: the flip depends on each reduce's bytes and
//! on where they are.
//!
//! **Held maps** (`policy.shuffle_watcher.hold_maps`, as under NASS): a Shuffle-heavy job's map
//! on a rack SAMP did not prefer pays hold(t) = α · ratio_j · I_t · X_max · m_max, its whole
//! expected output at the slowest bandwidth and the highest saturation price: more than it
//! could cost on a preferred rack, so a slot off the preferred racks goes to another job's
//! map when one can use it. The flow stays work-conserving: a slot only a held map can use
//! still takes it (NASS would leave it idle).
//!
//! **SARP's targets.** For job j with R_j eligible pending reduces, rack q has room
//! k_j(q) = max(0, ⌈target_j(q) − running_j(q)⌉) at the normal cost. A rack with k_j(q) ≥ R_j
//! can never be exceeded this epoch: no surcharge. On the others (every rack with target 0
//! among them) each of the job's reduces has at most one home: reduces in pending order each
//! take the rack with room left where their priced rack cost is least (ties to the lower
//! rack), so that no rack is the home of more than k_j(q) reduces. A reduce on a constrained
//! rack other than its home pays sarp(t, q) = α · (B_t + E_t) · X_max · m_max, its whole
//! shuffle at the slowest bandwidth of the cluster and the highest saturation price: more
//! than it could cost anywhere, so a reduce alone never prefers to exceed SARP's count, yet a
//! free slot that only an off-home reduce can use still takes it (the flow is work-conserving).
//! This is a per-task surcharge, not a true capacity: a (job, rack) count shared by paths
//! ending on different nodes at different per-task costs has no arc in the structured network
//! (paths merge at a capacity arc and lose their destination) and no form in a dense matrix;
//! the homes make the count exact (at most k_j(q) at the normal cost) at the price of fixing
//! which reduce may use which rack's room. The flow is exact for this priced objective.
//!
//! Sparsity: a task's term differs between racks only on the racks holding its data, its
//! job's target racks and the saturated racks; under uniform bandwidths only those are listed
//! ([`RackTerms`]), so a task's terms cost O(replicas or source racks + targets + saturated
//! racks) instead of O(racks). With `rack_pairs` overrides every rack is listed, as DLC itself
//! then needs. In the structured network a task reaches every rack it does not list at one
//! `base` cost, the largest; so when a listed rack is dearer than the unlisted ones (a
//! saturated rack, typically) its row lists every cheaper rack, O(racks) arcs for that task
//! ([`LocalityCost::sparse_row`]): the price of keeping the engine unchanged, never
//! O(nodes).

use super::ShuffleView;
use crate::cost::{LocalityCost, RackTerms, BYTES_TO_MEGABITS};
use crate::error::SolveError;
use crate::index::Indexed;
use placer_models::TaskKind;

/// How fast the saturation price rises above NWSaturationThreshold: m = 1 + gain · (u − θ)/θ.
pub const SATURATION_GAIN: f64 = 8.0;

/// The premium over the idle cross-rack price a reduce earns per byte of shuffle it starts.
pub const NASS_PREMIUM: f64 = 0.125;

/// The saturation price m of a rack whose uplink runs at utilisation `utilisation` (measured
/// traffic / capacity, ≥ 0) under NWSaturationThreshold `threshold` (in (0, 1]): 1 at or below
/// the threshold, 1 + [`SATURATION_GAIN`] · (u − θ) / θ above. Unitless, ≥ 1, continuous.
///
/// # Complexity
/// O(1).
///
/// # Errors
/// None: a NaN utilisation counts as 0 (unsaturated).
///
/// # Examples
/// ShuffleWatcher §4.2's threshold, 400 of 500 Mbit/s: 450 Mbit/s (u = 0.9) doubles the price
/// of a cross-rack byte; 350 Mbit/s leaves it alone.
/// ```
/// use placer_solver::shuffle::cost::saturation_price;
/// assert!((saturation_price(0.9, 0.8) - 2.0).abs() < 1e-12);
/// assert!((saturation_price(1.0, 0.8) - 3.0).abs() < 1e-12);
/// assert_eq!(saturation_price(0.7, 0.8), 1.0);
/// ```
pub fn saturation_price(utilisation: f64, threshold: f64) -> f64 {
    if threshold > 0.0 {
        1.0 + SATURATION_GAIN * (utilisation - threshold).max(0.0) / threshold
    } else {
        1.0
    }
}

/// `lsap_shuffle`'s priced problem of one epoch (module docs).
#[derive(Debug)]
pub struct ShufflePricing<'i, 'a> {
    /// The shuffle-aware cost: DLC plus the per-(task, rack) terms.
    pub model: LocalityCost<'i, 'a>,
    /// Per pending task, its offset = −credit in seconds × α (≤ 0).
    pub offsets: Vec<f64>,
    /// m(q) per rack.
    pub saturation: Vec<f64>,
    /// Per pending task, its SARP home rack (reduces of constrained jobs only).
    pub home: Vec<Option<u32>>,
    /// Per pending task, E_t: the shuffle bytes still to come (reduces; 0 for maps).
    pub expected: Vec<f64>,
}

/// A per-rack quantity, listed only where it can differ: under uniform bandwidths `f` is
/// evaluated on the `special` racks (sorted, distinct) and on the first other rack, whose
/// value every other rack shares (the caller guarantees it); otherwise on every rack.
fn per_rack(racks: usize, special: &[u32], uniform: bool, f: impl Fn(u32) -> f64) -> RackTerms {
    if !uniform {
        return RackTerms { default: 0.0, racks: (0..racks as u32).map(|q| (q, f(q))).collect() };
    }
    let plain = (0..racks as u32)
        .zip(special.iter().copied().chain(std::iter::repeat(u32::MAX)))
        .find(|&(q, s)| q != s)
        .map(|(q, _)| q);
    RackTerms {
        default: plain.map_or(0.0, &f),
        racks: special.iter().map(|&q| (q, f(q))).collect(),
    }
}

/// The least value of `v` over `racks` racks.
fn least(v: &RackTerms, racks: usize) -> f64 {
    let listed = v.racks.iter().map(|&(_, x)| x).fold(f64::INFINITY, f64::min);
    if v.racks.len() < racks {
        listed.min(v.default)
    } else {
        listed
    }
}

/// Sorted, distinct union of rack lists.
fn union(parts: &[&[u32]]) -> Vec<u32> {
    let mut v: Vec<u32> = parts.iter().flat_map(|p| p.iter().copied()).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// What one job contributes to its tasks' prices.
struct JobPrices {
    /// ρ_j as (rack, share > 0), by rack; empty = no SARP targets.
    rho: Vec<(u32, f64)>,
    /// out_j(q), in_j(q) in seconds per byte (empty terms when `rho` is).
    out: RackTerms,
    inward: RackTerms,
    /// min_q out_j(q) with m ≡ 1.
    least_out_idle: f64,
    /// The expected future shuffle per reduce from the mean pending map input, if known.
    expected_per_reduce: Option<f64>,
    /// (maps not done, maps done) for the fallback estimate.
    not_done: u32,
    done: u32,
}

impl<'i, 'a> ShufflePricing<'i, 'a> {
    /// Prices epoch `ix` with ShuffleWatcher's view `view` (module docs for every formula):
    /// the shuffle-aware [`LocalityCost`], the per-task offsets (−credits), the saturation
    /// prices, the reduces' SARP homes and expected shuffle.
    ///
    /// # Complexity
    /// Under uniform bandwidths, with s the saturated racks and P the largest set of a job's
    /// target racks: O(jobs · (P + s) · P) for the job prices, O((replicas + P + s) · log) per
    /// map, O(sources + (source racks + P + s) · (source racks + P)) per reduce, plus
    /// O(racks + pending). With `rack_pairs` overrides, racks replaces P + s per task.
    ///
    /// # Errors
    /// [`SolveError::CostOverflow`] when a price is not finite (bytes, ratios or saturation
    /// too large for f64).
    ///
    /// # Examples
    /// A map whose block is on both racks, of a job whose reduces SARP puts on rack r2 (its
    /// pending reduce pulls everything from r2): reading is free on either replica, but on r1
    /// its 100 MB of expected output (ratio 1) would cross to r2 at 100 Mbit/s, 8 s, and on r2
    /// only move inside it at 1,000 Mbit/s, 0.8 s.
    /// ```
    /// use placer_solver::{Indexed, shuffle::{cost::ShufflePricing, ShuffleView}};
    /// let req = placer_models::parse_request(br#"{"schema_version": 1,
    ///   "cluster": {"racks": [{"id": "r1"}, {"id": "r2"}],
    ///     "nodes": [{"id": "a", "rack": "r1", "map_slots": 1},
    ///               {"id": "b", "rack": "r2", "map_slots": 1, "reduce_slots": 1}]},
    ///   "pools": [{"id": "p"}],
    ///   "jobs": [{"id": "j", "pool": "p", "maps_total": 10, "maps_done": 5}],
    ///   "pending": [{"id": "m", "job": "j", "kind": "map", "input_bytes": 100000000,
    ///                "replicas": ["a", "b"]},
    ///               {"id": "r", "job": "j", "kind": "reduce",
    ///                "shuffle": [{"node": "b", "bytes": 5000}]}],
    ///   "policy": {"algorithm": "lsap_shuffle"}}"#).unwrap();
    /// let ix = Indexed::new(&req);
    /// let view = ShuffleView::new(&ix);
    /// let priced = ShufflePricing::new(&ix, &view).unwrap();
    /// let (m, a, b) = (0, 0, 1);
    /// assert!((priced.model.cost(m, a) - 8.0).abs() < 1e-9);
    /// assert!((priced.model.cost(m, b) - 0.8).abs() < 1e-9);
    /// assert!((priced.offsets[m] + 0.8).abs() < 1e-9); // its shuffle on the best rack
    /// ```
    pub fn new(ix: &'i Indexed<'a>, view: &ShuffleView) -> Result<Self, SolveError> {
        let req = ix.req;
        let racks = ix.racks();
        let jobs = req.jobs.len();
        let alpha = crate::settings::read::<crate::cost::LocalityWeight>(&req.policy).alpha;
        let bw = &ix.bandwidths;
        let uniform = bw.uniform();
        let net = &req.cluster.network;

        let saturation: Vec<f64> = (0..racks)
            .map(|q| match view.netsat.utilisation.get(q) {
                Some(&u) if view.mechanisms.nass => {
                    saturation_price(u, view.knobs.saturation_threshold)
                }
                _ => 1.0,
            })
            .collect();
        let saturated: Vec<u32> =
            (0..racks as u32).filter(|&q| saturation[q as usize] > 1.0).collect();
        let m = |q: u32| saturation[q as usize];
        let x = |p: u32, q: u32| BYTES_TO_MEGABITS / bw.between(p, q);
        let pair = |p: u32, q: u32| if p == q { 1.0 } else { m(p).max(m(q)) };
        let priced = |p: u32, q: u32| x(p, q) * pair(p, q);
        let m_max = saturation.iter().copied().fold(1.0, f64::max);
        let slowest = net
            .rack_pairs
            .iter()
            .map(|p| p.mbps)
            .fold(net.rack_mbps.min(net.cross_rack_mbps), f64::min);
        let x_max = BYTES_TO_MEGABITS / slowest;
        let x_cross = BYTES_TO_MEGABITS / net.cross_rack_mbps;

        // Per job: maps not done, pending map input, eligible reduces.
        let mut map_input = vec![0.0; jobs];
        let mut map_count = vec![0u32; jobs];
        for &t in &ix.pending_of_kind[TaskKind::Map.slot()] {
            let j = ix.pending_job[t] as usize;
            map_input[j] += req.pending[t].input_bytes as f64;
            map_count[j] += 1;
        }
        let mut eligible_reduces = vec![0u32; jobs];
        for &t in &ix.eligible_of_kind[TaskKind::Reduce.slot()] {
            eligible_reduces[ix.pending_job[t] as usize] += 1;
        }
        let prices: Vec<JobPrices> = (0..jobs)
            .map(|j| {
                let done = view.maps_done[j];
                let not_done = view.maps_total[j].saturating_sub(done);
                let reduces_total = view.reduces_total[j];
                let expected_per_reduce = (map_count[j] > 0).then(|| {
                    if reduces_total == 0 {
                        0.0
                    } else {
                        view.ratio[j]
                            * f64::from(not_done)
                            * (map_input[j] / f64::from(map_count[j]))
                            / f64::from(reduces_total)
                    }
                });
                let targets = &view.reduce_target[j];
                let sum: f64 = targets.iter().sum();
                let rho: Vec<(u32, f64)> = if sum > 0.0 {
                    (0..racks as u32)
                        .filter(|&q| targets.get(q as usize).is_some_and(|&t| t > 0.0))
                        .map(|q| (q, targets[q as usize] / sum))
                        .collect()
                } else {
                    Vec::new()
                };
                let target_racks: Vec<u32> = rho.iter().map(|&(q, _)| q).collect();
                let special = union(&[&target_racks, &saturated]);
                let (out, inward, least_out_idle) = if rho.is_empty() {
                    (RackTerms::default(), RackTerms::default(), 0.0)
                } else {
                    let out = per_rack(racks, &special, uniform, |q| {
                        rho.iter().map(|&(p, r)| r * priced(q, p)).sum()
                    });
                    let inward = per_rack(racks, &special, uniform, |q| {
                        rho.iter().map(|&(p, r)| r * priced(p, q)).sum()
                    });
                    let idle = per_rack(racks, &target_racks, uniform, |q| {
                        rho.iter().map(|&(p, r)| r * x(q, p)).sum()
                    });
                    (out, inward, least(&idle, racks))
                };
                JobPrices { rho, out, inward, least_out_idle, expected_per_reduce, not_done, done }
            })
            .collect();

        let pending = req.pending.len();
        let mut terms = vec![RackTerms::default(); pending];
        let mut offsets = vec![0.0; pending];
        let mut home: Vec<Option<u32>> = vec![None; pending];
        let mut expected = vec![0.0; pending];

        // Maps.
        for &t in &ix.pending_of_kind[TaskKind::Map.slot()] {
            let j = ix.pending_job[t] as usize;
            let jp = &prices[j];
            let input = req.pending[t].input_bytes as f64;
            let shuffle = view.ratio[j] * input;
            let replica_racks = union(&[&ix.replicas[t]
                .iter()
                .map(|&r| ix.node_rack[r as usize])
                .collect::<Vec<_>>()]);
            let read = |q: u32| {
                if replica_racks.is_empty() || replica_racks.binary_search(&q).is_ok() {
                    return 0.0;
                }
                let plain = replica_racks.iter().map(|&r| x(r, q)).fold(f64::INFINITY, f64::min);
                let dear =
                    replica_racks.iter().map(|&r| priced(r, q)).fold(f64::INFINITY, f64::min);
                input * (dear - plain).max(0.0)
            };
            let target_racks: Vec<u32> = jp.rho.iter().map(|&(q, _)| q).collect();
            // Held (`hold_maps`): SAMP's preferred racks are the special ones, every other rack
            // pays the hold surcharge.
            let preferred: Vec<u32> = if view.holds_maps(j) {
                (0..racks as u32).filter(|&q| view.prefers_map_rack(j, q)).collect()
            } else {
                Vec::new()
            };
            let special = union(&[&replica_racks, &target_racks, &saturated, &preferred]);
            let hold = shuffle * x_max * m_max;
            terms[t] = per_rack(racks, &special, uniform, |q| {
                let out = if jp.rho.is_empty() { 0.0 } else { shuffle * jp.out.at(q) };
                let held = if view.holds_maps_off(j, q) { hold } else { 0.0 };
                alpha * (read(q) + out + held)
            });
            offsets[t] = -alpha * shuffle * jp.least_out_idle;
        }

        // Reduces: bytes per source rack, expected shuffle, SARP homes.
        let reduce_tasks = &ix.pending_of_kind[TaskKind::Reduce.slot()];
        let mut by_rack: Vec<Vec<(u32, f64)>> = vec![Vec::new(); pending];
        for &t in reduce_tasks {
            let mut v: Vec<(u32, f64)> =
                ix.shuffle[t].iter().map(|&(n, b)| (ix.node_rack[n as usize], b as f64)).collect();
            v.sort_by_key(|&(q, _)| q);
            v.dedup_by(|later, kept| {
                if later.0 == kept.0 {
                    kept.1 += later.1;
                    true
                } else {
                    false
                }
            });
            let j = ix.pending_job[t] as usize;
            let jp = &prices[j];
            let pulled: f64 = v.iter().map(|&(_, b)| b).sum();
            expected[t] = match jp.expected_per_reduce {
                Some(e) => e,
                None if jp.done > 0 => pulled * f64::from(jp.not_done) / f64::from(jp.done),
                None => 0.0,
            };
            by_rack[t] = v;
        }
        // The priced rack-level transfer of reduce t on rack q (without node exceptions).
        let transfer = |t: usize, q: u32| -> f64 {
            let jp = &prices[ix.pending_job[t] as usize];
            let real: f64 = by_rack[t].iter().map(|&(p, b)| b * priced(p, q)).sum();
            let future = if jp.rho.is_empty() { 0.0 } else { expected[t] * jp.inward.at(q) };
            real + future
        };
        // Rooms per (job, target rack); homes in pending order.
        let mut room: Vec<Vec<(u32, u32)>> = vec![Vec::new(); jobs];
        for j in 0..jobs {
            let r = eligible_reduces[j];
            room[j] = prices[j]
                .rho
                .iter()
                .map(|&(q, _)| {
                    let target = view.reduce_target[j][q as usize];
                    let on = f64::from(view.reduces_on[j].get(q as usize).copied().unwrap_or(0));
                    let k = (target - on - 1e-9).ceil().max(0.0);
                    (q, if k >= f64::from(r) { r } else { k as u32 })
                })
                .collect();
        }
        let free_rack =
            |j: usize, q: u32| room[j].iter().any(|&(p, k)| p == q && k >= eligible_reduces[j]);
        let mut left: Vec<Vec<(u32, u32)>> = room
            .iter()
            .enumerate()
            .map(|(j, v)| v.iter().copied().filter(|&(_, k)| k < eligible_reduces[j]).collect())
            .collect();
        for &t in &ix.eligible_of_kind[TaskKind::Reduce.slot()] {
            let j = ix.pending_job[t] as usize;
            let best = left[j]
                .iter()
                .enumerate()
                .filter(|(_, &(_, k))| k > 0)
                .map(|(i, &(q, _))| (i, q, transfer(t, q)))
                .min_by(|a, b| a.2.total_cmp(&b.2).then(a.1.cmp(&b.1)));
            if let Some((i, q, _)) = best {
                left[j][i].1 -= 1;
                home[t] = Some(q);
            }
        }
        for &t in reduce_tasks {
            let j = ix.pending_job[t] as usize;
            let jp = &prices[j];
            let eligible = ix.runnable[j];
            let bytes = by_rack[t].iter().map(|&(_, b)| b).sum::<f64>() + expected[t];
            let sigma = alpha * bytes * x_max * m_max;
            let constrained = eligible && !jp.rho.is_empty() && eligible_reduces[j] > 0;
            let sarp = |q: u32| {
                if !constrained || home[t] == Some(q) || free_rack(j, q) {
                    0.0
                } else {
                    sigma
                }
            };
            let source_racks: Vec<u32> = by_rack[t].iter().map(|&(q, _)| q).collect();
            let target_racks: Vec<u32> = jp.rho.iter().map(|&(q, _)| q).collect();
            let special = union(&[&source_racks, &target_racks, &saturated]);
            terms[t] = per_rack(racks, &special, uniform, |q| {
                let surcharge: f64 = by_rack[t]
                    .iter()
                    .filter(|&&(p, _)| p != q)
                    .map(|&(p, b)| b * x(p, q) * (pair(p, q) - 1.0))
                    .sum();
                let future = if jp.rho.is_empty() { 0.0 } else { expected[t] * jp.inward.at(q) };
                alpha * (surcharge + future) + sarp(q)
            });
            offsets[t] = -alpha * (1.0 + NASS_PREMIUM) * bytes * x_cross;
        }
        if let Some(t) = offsets.iter().position(|o| !o.is_finite()) {
            return Err(SolveError::CostOverflow {
                path: format!("pending[{t}]"),
                message: "the task's shuffle credit is not finite".into(),
            });
        }
        let model = LocalityCost::with_rack_terms(ix, terms)?;
        Ok(Self { model, offsets, saturation, home, expected })
    }
}
