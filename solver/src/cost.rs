//! The bandwidth-aware data-locality cost of lsap-sched (Guo, Fox, Zhou, eq. 1) and the reduce
//! shuffle cost (docs/wire-schema.md, "Rules and decisions"), in seconds × α.
//!
//! Map task t on node n: `0` if a replica of t's block is on n, else
//! `α · input_bytes · 8 / (10⁶ · max_r bw(rack(r), rack(n)))` seconds, where bw is in Mbit/s.
//! A map without replicas costs 0 everywhere. Reduce task t on node n:
//! `α · Σ_s bytes(s) · 8 / (10⁶ · bw(rack(s), rack(n)))` over its shuffle sources s ≠ n.
//!
//! Example: a 128 MiB block (134,217,728 B) read across racks at 100 Mbit/s costs
//! 134,217,728 · 8 / 10⁸ = 10.737 s; in-rack at 1,000 Mbit/s, 1.074 s.
//!
//! A task's cost depends on the node only through the node's rack, except on the few nodes
//! that hold its data. [`CostRow`] stores exactly that: one value per rack plus exceptions per
//! node, built in O(racks · replicas) (maps) or O(sources + racks · source racks) (reduces).
//!
//! A policy may add a term per (task, rack) to this cost ([`LocalityCost::with_rack_terms`],
//! [`RackTerms`]: `lsap_shuffle`'s expected shuffle and saturation prices,
//! [`crate::shuffle::cost`]). The term keeps the rack structure (it is the same on every node
//! of a rack), so [`LocalityCost::row`], [`LocalityCost::sparse_row`] and
//! [`LocalityCost::cost`] all include it and every engine, dense or structured, and every
//! brute-force oracle sees one objective. [`LocalityCost::new`] has no terms: its costs are
//! lsap-sched's eq. 1 exactly, bit for bit.

use crate::error::SolveError;
use crate::index::Indexed;
use crate::settings::Settings;
use placer_models::{non_negative, Locality, ModelError, TaskKind};
use serde::{Deserialize, Serialize};

/// The weight of the locality cost, read by every policy (the answer prices each assignment
/// with it, and the exact policies minimise it).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(default)]
pub struct LocalityWeight {
    /// Weight α of the data-locality cost (lsap eq. 1 scaled; unitless, ≥ 0); default 1.
    pub alpha: f64,
}

impl Default for LocalityWeight {
    fn default() -> Self {
        Self { alpha: 1.0 }
    }
}

impl Settings for LocalityWeight {
    const NAME: &'static str = "locality";
    fn check(&self) -> Result<(), ModelError> {
        non_negative(self.alpha, || "policy.alpha".to_owned())
    }
}

/// The snapshot's α ([`LocalityWeight`]).
fn alpha(ix: &Indexed<'_>) -> f64 {
    crate::settings::read::<LocalityWeight>(&ix.req.policy).alpha
}

/// Bits per byte over bits per megabit: seconds = bytes · `BYTES_TO_MEGABITS` / Mbit/s.
pub const BYTES_TO_MEGABITS: f64 = 8.0 / 1e6;

/// One pending task's cost on every node, in seconds × α.
#[derive(Clone, Debug, PartialEq)]
pub struct CostRow {
    /// Cost on a node of each rack that holds none of the task's data.
    pub per_rack: Vec<f64>,
    /// Nodes that hold the task's data, sorted by node index, with their exact cost.
    pub on_node: Vec<(u32, f64)>,
}

impl CostRow {
    /// Cost on node `node` of rack `rack`. O(log data nodes).
    #[inline]
    pub fn at(&self, node: u32, rack: u32) -> f64 {
        match self.on_node.binary_search_by_key(&node, |&(n, _)| n) {
            Ok(k) => self.on_node[k].1,
            Err(_) => self.per_rack[rack as usize],
        }
    }

    /// The largest cost on any node (0 for an empty cluster).
    pub fn max(&self) -> f64 {
        self.per_rack.iter().chain(self.on_node.iter().map(|(_, c)| c)).fold(0.0, |m, &c| m.max(c))
    }
}

/// A task's costs in the shape of the flow network (docs/architecture.md, "The epoch pipeline"):
/// `base` on every node of a rack not listed, `racks` for the listed racks (each < `base`),
/// `on_node` for the nodes holding its data (each ≤ its rack's cost). So
/// cost(n) = on_node(n), else racks(rack(n)), else base; and base = max over racks.
#[derive(Clone, Debug, PartialEq)]
pub struct SparseRow {
    /// The cost on a node of any unlisted rack (the largest per-rack cost).
    pub base: f64,
    /// Racks where the task is cheaper than `base`.
    pub racks: Vec<(u32, f64)>,
    /// Nodes holding its data, with their exact cost.
    pub on_node: Vec<(u32, f64)>,
}

/// An additive cost of one task per rack, in seconds × α (finite, ≥ 0): `racks` where listed
/// (sorted by rack, distinct), `default` on every other rack. It is the same on every node of a
/// rack, so adding it keeps a task's costs rack-structured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RackTerms {
    /// The term on every rack not listed.
    pub default: f64,
    /// (rack, term) for the racks whose term differs from `default`, sorted by rack.
    pub racks: Vec<(u32, f64)>,
}

impl RackTerms {
    /// The term on rack `rack`, in seconds × α: its listed value, else `default`.
    ///
    /// # Complexity
    /// O(log listed racks) time (binary search), O(1) space.
    ///
    /// # Errors
    /// None: an unlisted rack, known or not, has `default`.
    ///
    /// # Examples
    /// ```
    /// use placer_solver::RackTerms;
    /// let terms = RackTerms { default: 1.5, racks: vec![(2, 0.25), (7, 4.0)] };
    /// assert_eq!((terms.at(2), terms.at(7), terms.at(3)), (0.25, 4.0, 1.5));
    /// ```
    #[inline]
    pub fn at(&self, rack: u32) -> f64 {
        match self.racks.binary_search_by_key(&rack, |&(q, _)| q) {
            Ok(k) => self.racks[k].1,
            Err(_) => self.default,
        }
    }
}

/// The locality cost model of one snapshot.
#[derive(Debug)]
pub struct LocalityCost<'i, 'a> {
    ix: &'i Indexed<'a>,
    alpha: f64,
    /// Per pending task, its additive term per rack ([`LocalityCost::with_rack_terms`]).
    terms: Option<Vec<RackTerms>>,
}

impl<'i, 'a> LocalityCost<'i, 'a> {
    /// The model with the snapshot's `policy.alpha`.
    pub fn new(ix: &'i Indexed<'a>) -> Self {
        Self { ix, alpha: alpha(ix), terms: None }
    }

    /// The model of [`LocalityCost::new`] plus a term per (task, rack): pending task t on node
    /// n costs DLC(t, n) + `terms[t]`.at(rack(n)) seconds × α, in [`LocalityCost::row`],
    /// [`LocalityCost::sparse_row`] and [`LocalityCost::cost`] alike. `terms` has one entry
    /// per pending task, by position.
    ///
    /// # Complexity
    /// O(pending + Σ listed racks) to check the terms. With terms, [`LocalityCost::row`] costs
    /// O(racks + data nodes · log listed) more, [`LocalityCost::cost`] O(log listed) more, and
    /// a map's [`LocalityCost::sparse_row`] under uniform bandwidths O((replicas + listed) ·
    /// log) when no rack is dearer than the unlisted ones, O(racks) otherwise.
    ///
    /// # Errors
    /// [`SolveError::CostOverflow`] (path `pending[t]`) when a term is NaN, infinite or
    /// negative, when a task's racks are unsorted, repeated or not racks of the cluster, or
    /// when `terms` does not have one entry per pending task.
    ///
    /// # Examples
    /// The snapshot of [`LocalityCost::cost`]'s example: the map costs 0 on n1 (its replica,
    /// rack r1) and 10.737 s on n3 (rack r2). A term of 20 s on r1 and 1 s elsewhere moves
    /// its cheapest node to n3: 0 + 20 on n1, 1.074 + 20 on n2, 10.737 + 1 on n3.
    /// ```
    /// use placer_solver::{LocalityCost, RackTerms, Indexed};
    /// # let req = placer_models::parse_request(br#"{"schema_version": 1,
    /// #   "cluster": {"racks": [{"id": "r1"}, {"id": "r2"}],
    /// #     "nodes": [{"id": "n1", "rack": "r1"}, {"id": "n2", "rack": "r1"},
    /// #               {"id": "n3", "rack": "r2"}]},
    /// #   "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}],
    /// #   "pending": [
    /// #     {"id": "m", "job": "j", "kind": "map", "input_bytes": 134217728, "replicas": ["n1"]},
    /// #     {"id": "r", "job": "j", "kind": "reduce", "shuffle": [
    /// #       {"node": "n1", "bytes": 100000000}, {"node": "n3", "bytes": 100000000}]}]}"#)
    /// #   .unwrap();
    /// # placer_models::validate(&req).unwrap();
    /// let ix = Indexed::new(&req);
    /// let term = RackTerms { default: 1.0, racks: vec![(0, 20.0)] };
    /// let model = LocalityCost::with_rack_terms(&ix, vec![term, RackTerms::default()]).unwrap();
    /// let (m, n1, n2, n3) = (0, 0, 1, 2);
    /// assert_eq!(model.cost(m, n1), 20.0);
    /// assert!((model.cost(m, n2) - 21.073_741_824).abs() < 1e-6);
    /// assert!((model.cost(m, n3) - 11.737_418_24).abs() < 1e-6);
    /// let sparse = model.sparse_row(m);
    /// assert!((sparse.base - 21.073_741_824).abs() < 1e-6); // r1 is now the dearer rack
    /// assert!((sparse.racks[0].1 - 11.737_418_24).abs() < 1e-6);
    /// assert_eq!(sparse.racks[0].0, 1);
    /// let bad = RackTerms { default: f64::NAN, racks: Vec::new() };
    /// assert!(LocalityCost::with_rack_terms(&ix, vec![bad, RackTerms::default()]).is_err());
    /// ```
    pub fn with_rack_terms(ix: &'i Indexed<'a>, terms: Vec<RackTerms>) -> Result<Self, SolveError> {
        let bad = |t: usize, message: String| SolveError::CostOverflow {
            path: format!("pending[{t}]"),
            message,
        };
        if terms.len() != ix.req.pending.len() {
            return Err(bad(
                terms.len(),
                format!("{} rack terms for {} pending tasks", terms.len(), ix.req.pending.len()),
            ));
        }
        let racks = ix.racks() as u64;
        let usable = |x: f64| x.is_finite() && x >= 0.0;
        for (t, term) in terms.iter().enumerate() {
            if !usable(term.default) || term.racks.iter().any(|&(_, x)| !usable(x)) {
                return Err(bad(t, "a per-rack cost term is not finite and ≥ 0".into()));
            }
            let ordered = term.racks.windows(2).all(|w| w[0].0 < w[1].0);
            if !ordered || term.racks.iter().any(|&(q, _)| u64::from(q) >= racks) {
                return Err(bad(t, "per-rack cost terms must name distinct racks in order".into()));
            }
        }
        Ok(Self { ix, alpha: alpha(ix), terms: Some(terms) })
    }

    /// Pending task `t`'s term per rack ([`LocalityCost::with_rack_terms`]), or `None` for a
    /// model without terms ([`LocalityCost::new`]) or a position beyond `pending`.
    ///
    /// # Complexity
    /// O(1).
    ///
    /// # Errors
    /// None.
    ///
    /// # Examples
    /// ```
    /// use placer_solver::{LocalityCost, RackTerms, Indexed};
    /// let req = placer_models::parse_request(br#"{"schema_version": 1,
    ///   "cluster": {"racks": [{"id": "r"}], "nodes": [{"id": "n", "rack": "r"}]},
    ///   "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}],
    ///   "pending": [{"id": "m", "job": "j", "kind": "map"}]}"#).unwrap();
    /// let ix = Indexed::new(&req);
    /// assert!(LocalityCost::new(&ix).terms(0).is_none());
    /// let term = RackTerms { default: 2.0, racks: Vec::new() };
    /// let model = LocalityCost::with_rack_terms(&ix, vec![term.clone()]).unwrap();
    /// assert_eq!(model.terms(0), Some(&term));
    /// assert_eq!(model.cost(0, 0), 2.0);
    /// ```
    #[inline]
    pub fn terms(&self, t: usize) -> Option<&RackTerms> {
        self.terms.as_ref().and_then(|v| v.get(t))
    }

    /// Pending task `t`'s cost on every node, in seconds × α, as one value per rack
    /// (`per_rack`, for the nodes that hold none of its data) plus the exact cost on the nodes
    /// that do (`on_node`). Map: per_rack(q) = α · input_bytes · 8 / (10⁶ · max_r bw(rack(r),
    /// q)) over its replicas r (all 0 without replicas), on_node = 0 on each replica. Reduce:
    /// per_rack(q) = α · Σ_s bytes(s) · 8 / (10⁶ · bw(rack(s), q)) over its shuffle sources,
    /// and on a source node its own bytes are not transferred.
    ///
    /// # Complexity
    /// Map: O(racks · replicas + replicas log replicas) time; reduce: O(sources + racks ·
    /// source racks). Space O(racks + replicas) or O(racks + sources) for the row.
    ///
    /// # Errors
    /// None: bandwidths are validated > 0, so every cost is finite. `t` must be a pending
    /// position (else it panics).
    ///
    /// # Examples
    /// The snapshot of [`LocalityCost::cost`]'s example. The 128 MiB map costs 1.074 s on n2
    /// (its replica's rack r1) and 10.737 s in rack r2, 0 on n1. The reduce pulls 100 MB from
    /// n1 (rack r1) and 100 MB from n3 (rack r2): 100 · 8 / 1,000 + 100 · 8 / 100 = 0.8 + 8 =
    /// 8.8 s on any node of either rack without a source, 8.8 − 0.8 = 8 s on n1 and n3.
    /// ```
    /// # use placer_solver::{LocalityCost, Indexed};
    /// # let req = placer_models::parse_request(br#"{"schema_version": 1,
    /// #   "cluster": {"racks": [{"id": "r1"}, {"id": "r2"}],
    /// #     "nodes": [{"id": "n1", "rack": "r1"}, {"id": "n2", "rack": "r1"},
    /// #               {"id": "n3", "rack": "r2"}]},
    /// #   "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}],
    /// #   "pending": [
    /// #     {"id": "m", "job": "j", "kind": "map", "input_bytes": 134217728, "replicas": ["n1"]},
    /// #     {"id": "r", "job": "j", "kind": "reduce", "shuffle": [
    /// #       {"node": "n1", "bytes": 100000000}, {"node": "n3", "bytes": 100000000}]}]}"#)
    /// #   .unwrap();
    /// # placer_models::validate(&req).unwrap();
    /// # let ix = Indexed::new(&req);
    /// # let model = LocalityCost::new(&ix);
    /// # let (m, r, n1, n2, n3) = (0, 1, 0, 1, 2); // pending positions, node indices
    /// let map = model.row(m);
    /// assert!((map.per_rack[0] - 1.073_741_824).abs() < 1e-6);
    /// assert!((map.per_rack[1] - 10.737_418_24).abs() < 1e-6);
    /// assert_eq!(map.on_node, vec![(n1, 0.0)]);
    /// let reduce = model.row(r);
    /// assert!(reduce.per_rack.iter().all(|&c| (c - 8.8).abs() < 1e-9));
    /// assert_eq!(reduce.on_node.iter().map(|&(n, _)| n).collect::<Vec<_>>(), [n1, n3]);
    /// assert!(reduce.on_node.iter().all(|&(_, c)| (c - 8.0).abs() < 1e-9));
    /// assert!((reduce.at(n2, 0) - 8.8).abs() < 1e-9);
    /// ```
    pub fn row(&self, t: usize) -> CostRow {
        let mut row = self.dlc_row(t);
        if let Some(terms) = self.terms(t) {
            for (q, c) in row.per_rack.iter_mut().enumerate() {
                *c += terms.at(q as u32);
            }
            for (n, c) in &mut row.on_node {
                *c += terms.at(self.ix.node_rack[*n as usize]);
            }
        }
        row
    }

    /// [`LocalityCost::row`] without the rack terms: lsap-sched's eq. 1 alone.
    fn dlc_row(&self, t: usize) -> CostRow {
        let task = &self.ix.req.pending[t];
        match task.kind {
            TaskKind::Map => self.map_row(t, task.input_bytes),
            TaskKind::Reduce => self.reduce_row(t),
        }
    }

    fn map_row(&self, t: usize, bytes: u64) -> CostRow {
        let replicas = &self.ix.replicas[t];
        let racks = self.ix.racks();
        if replicas.is_empty() {
            return CostRow { per_rack: vec![0.0; racks], on_node: Vec::new() };
        }
        let per_rack = (0..racks as u32).map(|q| self.map_read(t, bytes, q)).collect();
        let mut on_node: Vec<(u32, f64)> = replicas.iter().map(|&r| (r, 0.0)).collect();
        on_node.sort_unstable_by_key(|&(n, _)| n);
        CostRow { per_rack, on_node }
    }

    /// Seconds × α for map `t` to read `bytes` from its best replica into rack `q`.
    fn map_read(&self, t: usize, bytes: u64, q: u32) -> f64 {
        let bw = &self.ix.bandwidths;
        let best = self.ix.replicas[t]
            .iter()
            .map(|&r| bw.between(self.ix.node_rack[r as usize], q))
            .fold(0.0, f64::max);
        self.alpha * bytes as f64 * BYTES_TO_MEGABITS / best
    }

    /// Pending task `t`'s costs in sparse form, in seconds × α: cost(n) = `on_node`(n) on the
    /// nodes holding its data, else `racks`(rack(n)) on the racks cheaper than the maximum,
    /// else `base` = the largest per-rack cost of [`LocalityCost::row`].
    ///
    /// # Complexity
    /// A map when bandwidths are
    /// `Bandwidths::uniform`: O(replicas log replicas)
    /// time and space. Otherwise [`LocalityCost::row`]'s cost plus O(racks).
    ///
    /// # Errors
    /// None, as [`LocalityCost::row`].
    ///
    /// # Examples
    /// The snapshot of [`LocalityCost::cost`]'s example: the 128 MiB map costs 0 on n1, 1.074 s
    /// in rack r1 (listed: cheaper than the base) and the base 10.737 s on every other rack.
    /// ```
    /// # use placer_solver::{LocalityCost, Indexed};
    /// # let req = placer_models::parse_request(br#"{"schema_version": 1,
    /// #   "cluster": {"racks": [{"id": "r1"}, {"id": "r2"}],
    /// #     "nodes": [{"id": "n1", "rack": "r1"}, {"id": "n2", "rack": "r1"},
    /// #               {"id": "n3", "rack": "r2"}]},
    /// #   "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}],
    /// #   "pending": [
    /// #     {"id": "m", "job": "j", "kind": "map", "input_bytes": 134217728, "replicas": ["n1"]},
    /// #     {"id": "r", "job": "j", "kind": "reduce", "shuffle": [
    /// #       {"node": "n1", "bytes": 100000000}, {"node": "n3", "bytes": 100000000}]}]}"#)
    /// #   .unwrap();
    /// # placer_models::validate(&req).unwrap();
    /// # let ix = Indexed::new(&req);
    /// # let model = LocalityCost::new(&ix);
    /// # let (m, r, n1, n2, n3) = (0, 1, 0, 1, 2); // pending positions, node indices
    /// let sparse = model.sparse_row(m);
    /// assert!((sparse.base - 10.737_418_24).abs() < 1e-6);
    /// assert_eq!(sparse.racks.len(), 1);
    /// assert_eq!(sparse.racks[0].0, 0); // rack r1
    /// assert!((sparse.racks[0].1 - 1.073_741_824).abs() < 1e-6);
    /// assert_eq!(sparse.on_node, vec![(n1, 0.0)]);
    /// # let _ = (r, n2, n3);
    /// ```
    pub fn sparse_row(&self, t: usize) -> SparseRow {
        if let Some(terms) = self.terms(t) {
            return self.sparse_row_with(t, terms);
        }
        let task = &self.ix.req.pending[t];
        let replicas = &self.ix.replicas[t];
        let racks = self.ix.racks();
        if task.kind == TaskKind::Map && replicas.is_empty() {
            return SparseRow { base: 0.0, racks: Vec::new(), on_node: Vec::new() };
        }
        if task.kind == TaskKind::Map && self.ix.bandwidths.uniform() {
            let mut holding: Vec<u32> =
                replicas.iter().map(|&r| self.ix.node_rack[r as usize]).collect();
            holding.sort_unstable();
            holding.dedup();
            let bytes = task.input_bytes;
            let on_node = {
                let mut v: Vec<(u32, f64)> = replicas.iter().map(|&r| (r, 0.0)).collect();
                v.sort_unstable_by_key(|&(n, _)| n);
                v
            };
            let in_rack = self.map_read(t, bytes, holding[0]);
            if holding.len() == racks {
                return SparseRow { base: in_rack, racks: Vec::new(), on_node };
            }
            // Some rack holds no replica, so there are at least two racks.
            let cross = self.cross_read(bytes);
            let listed = if in_rack < cross {
                holding.iter().map(|&q| (q, in_rack)).collect()
            } else {
                Vec::new()
            };
            return SparseRow { base: cross, racks: listed, on_node };
        }
        Self::sparse_of(self.dlc_row(t))
    }

    /// A full row in sparse form: base = the largest per-rack cost, the cheaper racks listed.
    /// O(racks).
    fn sparse_of(row: CostRow) -> SparseRow {
        let base = row.per_rack.iter().copied().fold(0.0, f64::max);
        let listed = (0..row.per_rack.len() as u32)
            .filter(|&q| row.per_rack[q as usize] < base)
            .map(|q| (q, row.per_rack[q as usize]))
            .collect();
        SparseRow { base, racks: listed, on_node: row.on_node }
    }

    /// [`LocalityCost::sparse_row`] with rack terms. A map under uniform bandwidths has one
    /// DLC per rack holding a replica (in-rack) and one elsewhere (cross-rack), so only the
    /// racks holding a replica or listed in its terms ("special") can differ from the others;
    /// the others all cost cross + `default`. When that is the largest value the special racks
    /// cheaper than it are listed; when a special rack is dearer, it is the base and every
    /// cheaper rack is listed (O(racks)). Reduces and non-uniform bandwidths go through the
    /// full row.
    fn sparse_row_with(&self, t: usize, terms: &RackTerms) -> SparseRow {
        let task = &self.ix.req.pending[t];
        if task.kind != TaskKind::Map || !self.ix.bandwidths.uniform() {
            return Self::sparse_of(self.row(t));
        }
        let racks = self.ix.racks();
        let replicas = &self.ix.replicas[t];
        let rack_of = |n: u32| self.ix.node_rack[n as usize];
        let mut holding: Vec<u32> = replicas.iter().map(|&r| rack_of(r)).collect();
        holding.sort_unstable();
        holding.dedup();
        let (in_rack, cross) = match holding.first() {
            None => (0.0, 0.0),
            Some(&q) if holding.len() == racks => (self.map_read(t, task.input_bytes, q), 0.0),
            Some(&q) => (self.map_read(t, task.input_bytes, q), self.cross_read(task.input_bytes)),
        };
        let value = |q: u32| {
            let dlc = if holding.binary_search(&q).is_ok() { in_rack } else { cross };
            dlc + terms.at(q)
        };
        let mut special: Vec<u32> = holding.clone();
        special.extend(terms.racks.iter().map(|&(q, _)| q));
        special.sort_unstable();
        special.dedup();
        let plain = (0..racks as u32)
            .zip(special.iter().copied().chain(std::iter::repeat(u32::MAX)))
            .find(|&(q, s)| q != s)
            .map(|(q, _)| q);
        let plain_value = plain.map(value);
        let special_max = special.iter().map(|&q| value(q)).fold(0.0, f64::max);
        let base = plain_value.map_or(special_max, |v| v.max(special_max));
        let listed: Vec<(u32, f64)> = if plain_value.is_some_and(|v| v < base) {
            (0..racks as u32).map(|q| (q, value(q))).filter(|&(_, c)| c < base).collect()
        } else {
            special.iter().map(|&q| (q, value(q))).filter(|&(_, c)| c < base).collect()
        };
        let mut on_node: Vec<(u32, f64)> =
            replicas.iter().map(|&r| (r, terms.at(rack_of(r)))).collect();
        on_node.sort_unstable_by_key(|&(n, _)| n);
        SparseRow { base, racks: listed, on_node }
    }

    /// α · seconds to read `bytes` across racks (uniform bandwidths).
    fn cross_read(&self, bytes: u64) -> f64 {
        self.alpha * bytes as f64 * BYTES_TO_MEGABITS / self.ix.bandwidths.between(0, 1)
    }

    /// Pending task `t`'s cost on `node`, in seconds × α (lsap-sched eq. 1, DLC(t, node)):
    /// for a map 0 on a replica's node (or without replicas), else α · input_bytes · 8 /
    /// (10⁶ · max_r bw(rack(r), rack(node))) with bw in Mbit/s; for a reduce
    /// α · Σ_s bytes(s) · 8 / (10⁶ · bw(rack(s), rack(node))) over its sources s ≠ `node`.
    /// Equal to `self.row(t).at(node, rack)`.
    ///
    /// # Complexity
    /// O(replicas) time and O(1) space for a map, instead of building the whole row; a reduce
    /// goes through [`LocalityCost::row`].
    ///
    /// # Errors
    /// None: bandwidths are validated > 0, so the cost is finite. `t` must be a pending
    /// position and `node` a node index (else it panics).
    ///
    /// # Examples
    /// The module docs' example: a 128 MiB block (134,217,728 B) with its one replica on n1
    /// costs 0 there, 134,217,728 · 8 / (10⁶ · 1,000) = 1.074 s on n2 in the same rack, and
    /// 134,217,728 · 8 / (10⁶ · 100) = 10.737 s on n3 across racks (the default bandwidths,
    /// α = 1). A reduce pulling 100 MB from n1 and 100 MB from n3 costs 0.8 + 8 = 8.8 s on n2.
    /// ```
    /// use placer_solver::{LocalityCost, Indexed};
    /// let req = placer_models::parse_request(br#"{"schema_version": 1,
    ///   "cluster": {"racks": [{"id": "r1"}, {"id": "r2"}],
    ///     "nodes": [{"id": "n1", "rack": "r1"}, {"id": "n2", "rack": "r1"},
    ///               {"id": "n3", "rack": "r2"}]},
    ///   "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}],
    ///   "pending": [
    ///     {"id": "m", "job": "j", "kind": "map", "input_bytes": 134217728, "replicas": ["n1"]},
    ///     {"id": "r", "job": "j", "kind": "reduce", "shuffle": [
    ///       {"node": "n1", "bytes": 100000000}, {"node": "n3", "bytes": 100000000}]}]}"#)
    ///   .unwrap();
    /// placer_models::validate(&req).unwrap();
    /// let ix = Indexed::new(&req);
    /// let model = LocalityCost::new(&ix);
    /// let (m, r, n1, n2, n3) = (0, 1, 0, 1, 2); // pending positions, node indices
    /// assert_eq!(model.cost(m, n1), 0.0);
    /// assert!((model.cost(m, n2) - 1.073_741_824).abs() < 1e-6);
    /// assert!((model.cost(m, n3) - 10.737_418_24).abs() < 1e-6);
    /// assert!((model.cost(r, n2) - 8.8).abs() < 1e-9);
    /// ```
    pub fn cost(&self, t: usize, node: u32) -> f64 {
        let dlc = self.dlc(t, node);
        match self.terms(t) {
            Some(terms) => dlc + terms.at(self.ix.node_rack[node as usize]),
            None => dlc,
        }
    }

    /// [`LocalityCost::cost`] for a run of calls: a reduce whose shuffle sources are stored as
    /// one with `memo`'s task ([`crate::csr::SharedLists::shared`], consecutive reduces of one
    /// job) reuses its row, which depends on the sources alone. The answer prices every
    /// assignment, and a reduce's row costs O(sources + racks · source racks) to build.
    ///
    /// # Complexity
    /// O(log data nodes) when the row is reused, else [`LocalityCost::cost`]'s.
    ///
    /// # Errors
    /// None (as [`LocalityCost::cost`]).
    pub(crate) fn cost_memo(
        &self,
        t: usize,
        node: u32,
        memo: &mut Option<(usize, CostRow)>,
    ) -> f64 {
        if self.ix.req.pending[t].kind != TaskKind::Reduce {
            return self.cost(t, node);
        }
        let rack = self.ix.node_rack[node as usize];
        if !matches!(memo, Some((u, _)) if self.ix.shuffle.shared(*u, t)) {
            *memo = Some((t, self.reduce_row(t)));
        }
        let dlc = memo.as_ref().map_or(0.0, |(_, row)| row.at(node, rack));
        match self.terms(t) {
            Some(terms) => dlc + terms.at(rack),
            None => dlc,
        }
    }

    /// [`LocalityCost::cost`] without the rack terms: DLC(t, node), lsap-sched's eq. 1.
    ///
    /// # Complexity
    /// As [`LocalityCost::cost`].
    ///
    /// # Errors
    /// None (as [`LocalityCost::cost`]).
    ///
    /// # Examples
    /// With a term of 5 s on every rack, the cost of the reduce of [`LocalityCost::cost`]'s
    /// example on n2 is 8.8 + 5 s, its DLC still 8.8 s.
    /// ```
    /// use placer_solver::{LocalityCost, RackTerms, Indexed};
    /// # let req = placer_models::parse_request(br#"{"schema_version": 1,
    /// #   "cluster": {"racks": [{"id": "r1"}, {"id": "r2"}],
    /// #     "nodes": [{"id": "n1", "rack": "r1"}, {"id": "n2", "rack": "r1"},
    /// #               {"id": "n3", "rack": "r2"}]},
    /// #   "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}],
    /// #   "pending": [
    /// #     {"id": "m", "job": "j", "kind": "map", "input_bytes": 134217728, "replicas": ["n1"]},
    /// #     {"id": "r", "job": "j", "kind": "reduce", "shuffle": [
    /// #       {"node": "n1", "bytes": 100000000}, {"node": "n3", "bytes": 100000000}]}]}"#)
    /// #   .unwrap();
    /// let ix = Indexed::new(&req);
    /// let five = RackTerms { default: 5.0, racks: Vec::new() };
    /// let model = LocalityCost::with_rack_terms(&ix, vec![five.clone(), five]).unwrap();
    /// assert!((model.cost(1, 1) - 13.8).abs() < 1e-9);
    /// assert!((model.dlc(1, 1) - 8.8).abs() < 1e-9);
    /// ```
    pub fn dlc(&self, t: usize, node: u32) -> f64 {
        let task = &self.ix.req.pending[t];
        let replicas = &self.ix.replicas[t];
        match task.kind {
            TaskKind::Map if replicas.is_empty() || replicas.contains(&node) => 0.0,
            TaskKind::Map => self.map_read(t, task.input_bytes, self.ix.node_rack[node as usize]),
            TaskKind::Reduce => self.dlc_row(t).at(node, self.ix.node_rack[node as usize]),
        }
    }

    /// A reduce's row as a sum of its parts, never a total minus a share: per destination
    /// rack q, the cross-rack part X(q) = Σ_{p ≠ q} seconds(bytes of rack p, p → q), then
    /// per_rack(q) = X(q) + seconds(bytes of rack q, q → q) and, on a source node n of rack q,
    /// X(q) + seconds(bytes of rack q − bytes(n), q → q). Rack byte sums are exact (u128) and
    /// the local share is subtracted in integers, so a huge in-rack term (a tiny `rack_mbps`)
    /// or bytes ≥ 2⁶³ cannot cancel the cross-rack part.
    fn reduce_row(&self, t: usize) -> CostRow {
        let sources = &self.ix.shuffle[t];
        let bw = &self.ix.bandwidths;
        let rack_of = &self.ix.node_rack;
        let racks = self.ix.racks();
        let seconds = |bytes: u128, from: u32, to: u32| {
            if bytes == 0 {
                0.0
            } else {
                self.alpha * bytes as f64 * BYTES_TO_MEGABITS / bw.between(from, to)
            }
        };
        // Bytes per source rack, then per destination rack: O(sources + racks · source racks).
        let mut rack_bytes = vec![0u128; racks];
        for &(s, bytes) in sources {
            rack_bytes[rack_of[s as usize] as usize] += u128::from(bytes);
        }
        let source_racks: Vec<u32> =
            (0..racks as u32).filter(|&p| rack_bytes[p as usize] > 0).collect();
        let cross: Vec<f64> = (0..racks as u32)
            .map(|q| {
                let others = source_racks.iter().filter(|&&p| p != q);
                others.map(|&p| seconds(rack_bytes[p as usize], p, q)).sum()
            })
            .collect();
        let per_rack = (0..racks as u32)
            .map(|q| cross[q as usize] + seconds(rack_bytes[q as usize], q, q))
            .collect();
        // On a source node its own bytes are local: the rest of its rack's bytes move in-rack.
        let on_node = sources
            .iter()
            .map(|&(n, bytes)| {
                let q = rack_of[n as usize];
                let in_rack = rack_bytes[q as usize] - u128::from(bytes);
                (n, cross[q as usize] + seconds(in_rack, q, q))
            })
            .collect();
        CostRow { per_rack, on_node }
    }

    /// The locality class of pending task `t` on node `node`: for a map, `node` / `rack` /
    /// `remote` by its nearest replica (`none` without replicas); for a reduce, the same test
    /// over all shuffle sources with bytes > 0 (`node` only if all are on the node).
    ///
    /// # Complexity
    /// O(replicas) or O(shuffle sources) time, O(1) space.
    ///
    /// # Errors
    /// None: `t` must be a pending position and `node` a node index (else it panics).
    ///
    /// # Examples
    /// The snapshot of [`LocalityCost::cost`]'s example: the map is node-local on n1,
    /// rack-local on n2 and remote on n3; the reduce, with sources on n1 and n3, is remote
    /// everywhere (no node shares a rack with both).
    /// ```
    /// use placer_models::Locality;
    /// # use placer_solver::{LocalityCost, Indexed};
    /// # let req = placer_models::parse_request(br#"{"schema_version": 1,
    /// #   "cluster": {"racks": [{"id": "r1"}, {"id": "r2"}],
    /// #     "nodes": [{"id": "n1", "rack": "r1"}, {"id": "n2", "rack": "r1"},
    /// #               {"id": "n3", "rack": "r2"}]},
    /// #   "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}],
    /// #   "pending": [
    /// #     {"id": "m", "job": "j", "kind": "map", "input_bytes": 134217728, "replicas": ["n1"]},
    /// #     {"id": "r", "job": "j", "kind": "reduce", "shuffle": [
    /// #       {"node": "n1", "bytes": 100000000}, {"node": "n3", "bytes": 100000000}]}]}"#)
    /// #   .unwrap();
    /// # placer_models::validate(&req).unwrap();
    /// # let ix = Indexed::new(&req);
    /// # let model = LocalityCost::new(&ix);
    /// # let (m, r, n1, n2, n3) = (0, 1, 0, 1, 2); // pending positions, node indices
    /// let classes = [n1, n2, n3].map(|n| model.locality(m, n));
    /// assert_eq!(classes, [Locality::Node, Locality::Rack, Locality::Remote]);
    /// assert!([n1, n2, n3].iter().all(|&n| model.locality(r, n) == Locality::Remote));
    /// ```
    pub fn locality(&self, t: usize, node: u32) -> Locality {
        let rack = self.ix.node_rack[node as usize];
        let rack_of = |n: u32| self.ix.node_rack[n as usize];
        match self.ix.req.pending[t].kind {
            TaskKind::Map => {
                let replicas = &self.ix.replicas[t];
                if replicas.is_empty() {
                    Locality::None
                } else if replicas.contains(&node) {
                    Locality::Node
                } else if replicas.iter().any(|&r| rack_of(r) == rack) {
                    Locality::Rack
                } else {
                    Locality::Remote
                }
            }
            TaskKind::Reduce => {
                let mut sources = self.ix.shuffle[t].iter().filter(|s| s.1 > 0).map(|s| s.0);
                let mut any = false;
                let mut class = Locality::Node;
                for s in &mut sources {
                    any = true;
                    if s != node {
                        if rack_of(s) == rack {
                            class = class.max(Locality::Rack);
                        } else {
                            class = Locality::Remote;
                        }
                    }
                }
                if any {
                    class
                } else {
                    Locality::None
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Racks r1 = {n1, n2} and r2 = {n3}; one reduce pulling `local` bytes from n1 and 5 MB
    /// (5,000,000 B) from n3, at `rack_mbps` in-rack and 100 Mbit/s across racks.
    fn reduce_on_two_racks(local: u64, rack_mbps: f64) -> placer_models::PlaceRequest {
        let body = format!(
            r#"{{"schema_version": 1,
              "cluster": {{"racks": [{{"id": "r1"}}, {{"id": "r2"}}],
                "network": {{"rack_mbps": {rack_mbps:e}, "cross_rack_mbps": 100}},
                "nodes": [{{"id": "n1", "rack": "r1"}}, {{"id": "n2", "rack": "r1"}},
                          {{"id": "n3", "rack": "r2"}}]}},
              "pools": [{{"id": "p"}}], "jobs": [{{"id": "j", "pool": "p"}}],
              "pending": [{{"id": "r", "job": "j", "kind": "reduce", "shuffle": [
                {{"node": "n1", "bytes": {local}}}, {{"node": "n3", "bytes": 5000000}}]}}]}}"#
        );
        let req = placer_models::parse_request(body.as_bytes()).unwrap();
        placer_models::validate(&req).unwrap();
        req
    }

    fn close(got: f64, want: f64) -> bool {
        (got - want).abs() <= 1e-12 * want.abs()
    }

    /// With `rack_mbps` 1e-300 the reduce on n1 (its 1 MB local) still pulls 5 MB
    /// from n3 across racks: 5,000,000 B · 8 / (10⁶ · 100 Mbit/s) = 0.4 s, not 0 (the in-rack
    /// term of 8·10³⁰⁰ s must not swallow it). On n3 it pulls n1's 1 MB across: 0.08 s.
    #[test]
    fn tiny_rack_bandwidth_keeps_the_cross_rack_part() {
        let req = reduce_on_two_racks(1_000_000, 1e-300);
        let ix = Indexed::new(&req);
        let model = LocalityCost::new(&ix);
        let (n1, n2, n3) = (0, 1, 2);
        assert!(close(model.cost(0, n1), 0.4), "{}", model.cost(0, n1));
        assert!(close(model.cost(0, n3), 0.08), "{}", model.cost(0, n3));
        // n2 reads n1's megabyte in-rack: 10⁶ · 8 / (10⁶ · 10⁻³⁰⁰) = 8·10³⁰⁰ s, plus 0.4 s.
        assert!(close(model.cost(0, n2), 8e300));
        assert_eq!(model.row(0).at(n1, 0), model.cost(0, n1));
    }

    /// With 2⁶³ B on n1 (in-rack at 1,000 Mbit/s: 2⁶³ · 8 / 10⁹ = 73,786,976,294.8 s
    /// on n2) the reduce on n1 still costs exactly its cross-rack 0.4 s (total minus local gave
    /// 0.4 ± 1.5·10⁻⁵); on n2 the two parts add.
    #[test]
    fn shuffle_bytes_beyond_two_to_the_63_are_exact() {
        let req = reduce_on_two_racks(1 << 63, 1000.0);
        let ix = Indexed::new(&req);
        let model = LocalityCost::new(&ix);
        let (n1, n2, n3) = (0, 1, 2);
        assert!(close(model.cost(0, n1), 0.4), "{}", model.cost(0, n1));
        let in_rack = 9_223_372_036_854_775_808.0 * 8.0 / 1e9;
        assert!(close(model.cost(0, n2), in_rack + 0.4));
        assert!(close(model.cost(0, n3), 9_223_372_036_854_775_808.0 * 8.0 / 1e8));
    }
}
