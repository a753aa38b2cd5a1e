//! Available bandwidth between two racks (lsap-sched §3.2: BW(N1, N2), the input of eq. 1),
//! from `cluster.network`: `rack_mbps` inside a rack, `cross_rack_mbps` across racks, and
//! `rack_pairs` overrides (docs/wire-schema.md, "Rules and decisions").

use placer_models::Network;
use std::collections::HashMap;

/// Above this many rack pairs the overrides are kept in a hash map instead of a dense table
/// (2,048 racks → 32 MiB of f64).
const DENSE_PAIRS_MAX: usize = 1 << 22;

/// Bandwidth lookup by rack index, in Mbit/s. O(1) per lookup; O(racks²) memory only when
/// overrides exist and racks ≤ 2,048, else O(overrides).
#[derive(Clone, Debug)]
pub struct Bandwidths {
    racks: usize,
    rack_mbps: f64,
    cross_rack_mbps: f64,
    overrides: Overrides,
}

#[derive(Clone, Debug)]
enum Overrides {
    None,
    Dense(Vec<f64>),
    Sparse(HashMap<(u32, u32), f64>),
}

impl Bandwidths {
    /// Builds the lookup. `rack_index` maps each `rack_pairs` entry's rack ids to indices (the
    /// snapshot is validated, so every id resolves). A pair `from → to` applies to reads from
    /// `from` into `to`; when only the reverse pair is given it applies both ways.
    pub fn new(net: &Network, racks: usize, rack_index: impl Fn(&str) -> Option<u32>) -> Self {
        let mut pairs: Vec<((u32, u32), f64)> = Vec::new();
        for p in &net.rack_pairs {
            if let (Some(a), Some(b)) = (rack_index(p.from.as_str()), rack_index(p.to.as_str())) {
                pairs.push(((a, b), p.mbps));
            }
        }
        let mut explicit: HashMap<(u32, u32), f64> = HashMap::new();
        for &(k, mbps) in &pairs {
            explicit.insert(k, mbps);
        }
        let mut both = explicit.clone();
        for (&(a, b), &mbps) in &explicit {
            both.entry((b, a)).or_insert(mbps);
        }
        let overrides = if both.is_empty() {
            Overrides::None
        } else if racks.saturating_mul(racks) <= DENSE_PAIRS_MAX {
            let mut dense = vec![f64::NAN; racks * racks];
            for (&(a, b), &mbps) in &both {
                dense[a as usize * racks + b as usize] = mbps;
            }
            Overrides::Dense(dense)
        } else {
            Overrides::Sparse(both)
        };
        Self { racks, rack_mbps: net.rack_mbps, cross_rack_mbps: net.cross_rack_mbps, overrides }
    }

    /// Whether reads inside a rack are at least as fast as across racks and no pair is
    /// overridden: then a task's cost depends only on whether a rack holds its data.
    pub fn uniform(&self) -> bool {
        matches!(self.overrides, Overrides::None) && self.rack_mbps >= self.cross_rack_mbps
    }

    /// Mbit/s for data read from a node of rack `src` by a node of rack `dst`.
    #[inline]
    pub fn between(&self, src: u32, dst: u32) -> f64 {
        let default = if src == dst { self.rack_mbps } else { self.cross_rack_mbps };
        match &self.overrides {
            Overrides::None => default,
            Overrides::Dense(d) => {
                let v = d[src as usize * self.racks + dst as usize];
                if v.is_nan() {
                    default
                } else {
                    v
                }
            }
            Overrides::Sparse(m) => m.get(&(src, dst)).copied().unwrap_or(default),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use placer_models::{RackId, RackPair};

    fn idx(s: &str) -> Option<u32> {
        ["r0", "r1", "r2"].iter().position(|r| *r == s).map(|i| i as u32)
    }

    #[test]
    fn defaults_and_directional_overrides() {
        let net = Network {
            rack_mbps: 1000.0,
            cross_rack_mbps: 100.0,
            rack_pairs: vec![
                RackPair { from: RackId::from("r0"), to: RackId::from("r1"), mbps: 50.0 },
                RackPair { from: RackId::from("r2"), to: RackId::from("r0"), mbps: 10.0 },
                RackPair { from: RackId::from("r0"), to: RackId::from("r2"), mbps: 20.0 },
                RackPair { from: RackId::from("r1"), to: RackId::from("r1"), mbps: 400.0 },
            ],
        };
        let bw = Bandwidths::new(&net, 3, idx);
        assert_eq!(bw.between(0, 0), 1000.0);
        assert_eq!(bw.between(1, 1), 400.0, "from == to overrides rack_mbps");
        assert_eq!(bw.between(0, 1), 50.0);
        assert_eq!(bw.between(1, 0), 50.0, "only r0→r1 given: applies both ways");
        assert_eq!(bw.between(2, 0), 10.0, "both directions given: each its own");
        assert_eq!(bw.between(0, 2), 20.0);
        assert_eq!(bw.between(1, 2), 100.0);
    }
}
