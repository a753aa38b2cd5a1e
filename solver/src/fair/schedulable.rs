//! The one abstraction fair sharing works on, for pools and for jobs alike (Hadoop Fair
//! Scheduler design doc §4.2, `Schedulable`; FAIR, Zaharia et al., §3.1): a weight, a minimum
//! share and a demand, all in slots of one kind.

/// Something that receives a share of slots.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedulable {
    /// Relative weight (≥ 0). Zero: entitled to its min share only, unless every contender
    /// with unmet demand has weight zero (see `water_filling`).
    pub weight: f64,
    /// Guaranteed slots (≥ 0), capped by the demand.
    pub min_share: f64,
    /// Slots it could use now: running + pending tasks (≥ 0).
    pub demand: f64,
}

impl Schedulable {
    /// The min share a schedulable can actually use: min(m, d).
    pub fn usable_min(&self) -> f64 {
        self.min_share.min(self.demand)
    }

    /// Its share at water level r (slots per unit weight): min(d, max(r · w, m)) (design doc
    /// §4.6, the terms of f(r)).
    pub fn share_at(&self, r: f64) -> f64 {
        self.demand.min((r * self.weight).max(self.min_share))
    }
}
