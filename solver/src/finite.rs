//! Every number of an answer finite (docs/operations/serving.md, "Finite numbers":
//! `422 cost_overflow`). A cost that overflows f64 would be written as `null`, so placer refuses
//! such a snapshot instead, the same way under every algorithm: [`check_costs`] runs in the
//! pipeline before any policy and bounds what *any* placement could cost (so the answer does not
//! depend on which tasks a policy happens to place), and [`check_answer`] is the last line before
//! the response leaves, over every placed cost and every total. Each error names the field at
//! fault: a bandwidth (`cluster.network.rack_mbps`, `…cross_rack_mbps`, `…rack_pairs[i].mbps`),
//! `policy.alpha`, `policy.beta`, `policy.aging_s`, or the pool weight whose addition takes
//! Σ weights beyond f64 ([`check_weights`]: every fair-share policy normalises by that sum).
//! Pool weights whose sum is finite but far from 1 are solved scaled by a power of two
//! ([`relative_weights`]): exact, the same ratios, the same answer under every algorithm.

use crate::cost::{LocalityCost, BYTES_TO_MEGABITS};
use crate::error::SolveError;
use crate::index::Indexed;
use placer_models::{PlaceRequest, PlaceResponse, TaskKind};

fn overflow(path: String, message: impl Into<String>) -> SolveError {
    SolveError::CostOverflow { path, message: message.into() }
}

/// Checks that every pending task's locality cost on every node is finite and that their sum
/// over all pending tasks (each at its dearest node) is too, so that every placement any
/// policy could make, and its totals, are finite.
///
/// A bound first: Σ_t α · bytes(t) · 8 / (10⁶ · the slowest bandwidth of the cluster) ≤ half
/// of f64's largest value, with
/// bytes(t) a map's input (0 without replicas) or a reduce's total shuffle; only when that
/// overflows are the tasks' exact rows ([`LocalityCost::row`]) summed.
///
/// # Complexity
/// O(pending + Σ shuffle sources + rack pairs) for the bound; the exact pass (extreme
/// snapshots only) O(Σ of [`LocalityCost::row`]'s cost).
///
/// # Errors
/// [`SolveError::CostOverflow`] naming `policy.alpha` when α · bytes overflows by itself,
/// else the bandwidth of the slowest link the offending task may use.
pub fn check_costs(ix: &Indexed<'_>, model: &LocalityCost<'_, '_>) -> Result<(), SolveError> {
    let req = ix.req;
    let net = &req.cluster.network;
    let slowest = net
        .rack_pairs
        .iter()
        .map(|p| p.mbps)
        .fold(net.rack_mbps.min(net.cross_rack_mbps), f64::min);
    // In the cost's own order of operations (α · bytes first), so that an intermediate
    // overflow shows in the bound too; half of f64's range absorbs the sums' rounding.
    let alpha = crate::settings::read::<crate::cost::LocalityWeight>(&req.policy).alpha;
    // A reduce sharing the previous task's stored sources moves the same bytes.
    let mut bytes = 0.0;
    let bound: f64 = (0..req.pending.len())
        .map(|t| {
            if t == 0 || !ix.shuffle.shared(t - 1, t) || ix.shuffle[t].is_empty() {
                bytes = bytes_of(ix, t);
            }
            alpha * bytes * BYTES_TO_MEGABITS / slowest
        })
        .sum();
    if bound <= f64::MAX / 2.0 {
        return Ok(());
    }
    let mut total = 0.0;
    let mut worst = (0.0, 0usize);
    for t in 0..req.pending.len() {
        let dearest = model.row(t).max();
        if !dearest.is_finite() {
            return Err(overflow(
                field_of(ix, t),
                format!(
                    "pending[{t}] ({}) costs more than f64 holds on some node",
                    req.pending[t].id
                ),
            ));
        }
        total += dearest;
        if dearest > worst.0 {
            worst = (dearest, t);
        }
    }
    if !total.is_finite() {
        return Err(overflow(
            field_of(ix, worst.1),
            "the pending tasks' locality costs sum beyond f64",
        ));
    }
    Ok(())
}

/// Checks that the pools' weights sum to a finite number: the fair shares, the fairness
/// distance and the fairness costs all divide weight_i by Σ weights (lsap-fair-sched §4.4's
/// w_i), which an infinite sum turns into 0 for every pool. Run by the pipeline before any
/// policy, so that every algorithm refuses such a snapshot alike.
///
/// # Complexity
/// O(pools).
///
/// # Errors
/// [`SolveError::CostOverflow`] naming `pools[i].weight`, the first weight whose addition
/// overflows the sum.
///
/// # Examples
/// Two pools of weight 10³⁰⁸: 2 · 10³⁰⁸ is beyond f64 (≈ 1.8 · 10³⁰⁸).
/// ```
/// let req = placer_models::parse_request(br#"{"schema_version": 1,
///   "cluster": {"racks": [], "nodes": []},
///   "pools": [{"id": "p", "weight": 1e308}, {"id": "q", "weight": 1e308}]}"#).unwrap();
/// let err = placer_solver::stages::check_weights(&req).unwrap_err();
/// assert_eq!((err.code(), err.path()), ("cost_overflow", "pools[1].weight"));
/// ```
pub fn check_weights(req: &PlaceRequest) -> Result<(), SolveError> {
    let mut sum = 0.0_f64;
    for (i, pool) in req.pools.iter().enumerate() {
        sum += pool.weight;
        if !sum.is_finite() {
            return Err(overflow(
                format!("pools[{i}].weight"),
                format!(
                    "the pools' weights sum beyond f64 at pool {} (weight {:e}); weights are \
                     relative: scale them down",
                    pool.id, pool.weight
                ),
            ));
        }
    }
    Ok(())
}

/// `req` with its pool weights scaled by the power of two that brings the largest into
/// [1, 2), when the largest is outside [2⁻³², 2³²]; `None` otherwise (the snapshot is solved
/// as sent). Weights are relative (FAIR §3.1: only their ratios matter) and a power of two
/// scales every weight exactly, so the answer is the one of the same ratios near 1, where every
/// policy's own arithmetic (running / weight, weight / Σ weights, the water level's breakpoints
/// demand / weight) stays within f64. Run by the pipeline after [`check_weights`].
///
/// # Complexity
/// O(pools); O(size of the snapshot) for the copy, made only for extreme weights.
///
/// # Errors
/// None.
pub fn relative_weights(req: &PlaceRequest) -> Option<PlaceRequest> {
    let largest = req.pools.iter().map(|p| p.weight).fold(0.0, f64::max);
    let moderate = 2f64.powi(-32)..=2f64.powi(32);
    if !(largest > 0.0 && largest.is_finite()) || moderate.contains(&largest) {
        return None;
    }
    // 2^shift · largest ∈ [1, 2), shift ∈ [−1023, 1074], applied as two factors f64 holds.
    let shift = -(largest.log2().floor() as i32);
    let (a, b) = (2f64.powi(shift / 2), 2f64.powi(shift - shift / 2));
    let mut scaled = req.clone();
    for pool in &mut scaled.pools {
        pool.weight = pool.weight * a * b;
    }
    Some(scaled)
}

/// Bytes task `t` may move: a map's input (none without replicas), a reduce's whole shuffle.
fn bytes_of(ix: &Indexed<'_>, t: usize) -> f64 {
    let task = &ix.req.pending[t];
    match task.kind {
        TaskKind::Map if ix.replicas[t].is_empty() => 0.0,
        TaskKind::Map => task.input_bytes as f64,
        TaskKind::Reduce => ix.shuffle[t].iter().map(|&(_, b)| u128::from(b)).sum::<u128>() as f64,
    }
}

/// The field that makes task `t`'s cost overflow: `policy.alpha` when α · bytes · 8 / 10⁶ is
/// already beyond f64, else the bandwidth of the slowest link its data may take (a map: the
/// best replica's link into the worst rack; a reduce: its slowest source link).
fn field_of(ix: &Indexed<'_>, t: usize) -> String {
    let req = ix.req;
    let bw = &ix.bandwidths;
    let racks = ix.racks() as u32;
    let rack_of = |n: u32| ix.node_rack[n as usize];
    let alpha = crate::settings::read::<crate::cost::LocalityWeight>(&req.policy).alpha;
    let task = &req.pending[t];
    let (sources, amounts): (Vec<u32>, Vec<f64>) = match task.kind {
        TaskKind::Map => {
            ix.replicas[t].iter().map(|&r| (rack_of(r), task.input_bytes as f64)).unzip()
        }
        TaskKind::Reduce => {
            ix.shuffle[t].iter().filter(|s| s.1 > 0).map(|&(n, b)| (rack_of(n), b as f64)).unzip()
        }
    };
    if amounts.iter().any(|&b| !(alpha * b * BYTES_TO_MEGABITS).is_finite()) {
        return "policy.alpha".to_owned();
    }
    let mut link = None::<(f64, u32, u32)>;
    for q in 0..racks {
        let pick = match task.kind {
            // The best replica's link into rack q.
            TaskKind::Map => {
                sources.iter().map(|&p| (bw.between(p, q), p, q)).max_by(|a, b| a.0.total_cmp(&b.0))
            }
            TaskKind::Reduce => {
                sources.iter().map(|&p| (bw.between(p, q), p, q)).min_by(|a, b| a.0.total_cmp(&b.0))
            }
        };
        if let Some(pick) = pick {
            if link.is_none_or(|l| pick.0 < l.0) {
                link = Some(pick);
            }
        }
    }
    match link {
        Some((_, p, q)) => bandwidth_field(req, p, q),
        None => "cluster.network".to_owned(),
    }
}

/// The field giving the bandwidth from rack `src` into rack `dst` (as
/// [`crate::network::Bandwidths::between`] resolves it): the last `rack_pairs` entry
/// `src → dst`, else the last `dst → src`, else `rack_mbps` inside a rack and
/// `cross_rack_mbps` across.
fn bandwidth_field(req: &PlaceRequest, src: u32, dst: u32) -> String {
    let racks = &req.cluster.racks;
    let id = |q: u32| racks.get(q as usize).map(|r| r.id.as_str());
    let pairs = &req.cluster.network.rack_pairs;
    let find = |a: u32, b: u32| {
        pairs.iter().rposition(|p| Some(p.from.as_str()) == id(a) && Some(p.to.as_str()) == id(b))
    };
    if let Some(i) = find(src, dst).or_else(|| find(dst, src)) {
        format!("cluster.network.rack_pairs[{i}].mbps")
    } else if src == dst {
        "cluster.network.rack_mbps".to_owned()
    } else {
        "cluster.network.cross_rack_mbps".to_owned()
    }
}

/// The field behind an overflowing ageing credit β · wait / `aging_s`: `policy.beta` when β
/// outweighs 1 / `aging_s`, else `policy.aging_s`.
pub fn aging_field(req: &PlaceRequest) -> &'static str {
    let knobs: crate::policy::lsap_fair::FairnessCost = crate::settings::read(&req.policy);
    if knobs.beta * knobs.aging_s >= 1.0 {
        "policy.beta"
    } else {
        "policy.aging_s"
    }
}

/// Checks that every placed cost (`total`, `locality`, `fairness`, `aging`) and every total
/// of `stats` in `resp` is finite: the answer's last check, so that no `200` carries a `null`
/// where a number belongs (`stats.min_utility`'s `null`, RAS's −∞, is part of the schema).
///
/// # Complexity
/// O(assignments + pools + jobs).
///
/// # Errors
/// [`SolveError::CostOverflow`] naming `policy.beta` (fairness), `policy.beta` or
/// `policy.aging_s` (ageing, `aging_field`), `cluster.network` (locality), or `pending`
/// (a sum beyond f64).
pub fn check_answer(req: &PlaceRequest, resp: &PlaceResponse) -> Result<(), SolveError> {
    for a in &resp.assignments {
        let c = &a.cost;
        let at = |part: &str| format!("{} on {}: its {part} cost is not finite", a.task, a.node);
        if !c.locality.is_finite() {
            return Err(overflow("cluster.network".to_owned(), at("locality")));
        }
        if !c.fairness.is_finite() {
            return Err(overflow("policy.beta".to_owned(), at("fairness")));
        }
        if !c.aging.is_finite() {
            return Err(overflow(aging_field(req).to_owned(), at("ageing")));
        }
        if !c.total.is_finite() {
            let field = if c.locality >= c.fairness.max(c.aging) {
                "cluster.network"
            } else if c.fairness >= c.aging {
                "policy.beta"
            } else {
                aging_field(req)
            };
            return Err(overflow(field.to_owned(), at("total")));
        }
    }
    let s = &resp.stats;
    let sums = [("locality_cost", s.locality_cost), ("objective", s.objective)];
    if let Some((name, _)) = sums.iter().find(|(_, x)| !x.is_finite()) {
        return Err(overflow(
            "pending".to_owned(),
            format!("stats.{name}: the placed costs sum beyond f64"),
        ));
    }
    let shares = resp
        .pools
        .iter()
        .filter_map(|p| p.fair_share)
        .chain(resp.jobs.iter().filter_map(|j| j.fair_share));
    let finite = |x: f64| x.is_finite();
    if !finite(s.fairness_distance)
        || shares.into_iter().any(|c| !finite(c.map) || !finite(c.reduce))
    {
        return Err(overflow(
            "pools".to_owned(),
            "a fair share or the fairness distance is not finite",
        ));
    }
    Ok(())
}
