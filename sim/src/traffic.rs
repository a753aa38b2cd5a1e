//! Measured cross-rack traffic, as a master's network monitor sees it (ShuffleWatcher, Ahmad et
//! al., §3.1: NetSat "periodically determines each node's cross-rack traffic of all jobs due
//! to the Shuffle, remote Map input reads, and Reduce output writes"; Figs. 1 and 10: the
//! cross-rack Shuffle rate over time).
//!
//! Every cross-rack flow of `network.rs` moves its bytes at a piecewise-constant rate, so the
//! bytes that crossed a rack boundary are the integral of the rack's aggregate flow rate. The
//! meter keeps, per rack and direction (out of the rack, into it), the aggregate rate of the
//! cross-rack flows in progress and the bytes integrated up to the last change; the network
//! tells it each change of a cross-rack flow's rate (start, rebalance, end). A rack's bytes up
//! to time t are then `bytes + rate · (t − since)`: O(1) per rate change and per read, with no
//! scan of the flows. When a direction's last flow ends its rate is set to exactly 0, so that
//! float drift never shows as traffic on an idle link. Reads that take no simulated time (a
//! trace's measured attempt times contain them) count as a lump at their start.
//!
//! The same integral, over the whole cluster, fills the time series of Figs. 1 and 10: bytes
//! per bucket of [`SERIES_BUCKET_S`] = 60 s of simulated time (the paper plots minutes over a
//! 4-hour run), cross-rack shuffle and all cross-rack traffic (shuffle + remote map input).
//! Bucket k covers `[k · w, (k + 1) · w)`; a rate spanning several buckets is split at their
//! edges. Memory is O(run time / w) and at most [`SERIES_MAX_BUCKETS`]: past that the width
//! doubles and neighbouring buckets merge (a run longer than ~45 days at 60 s), so no input can
//! make the series grow without bound. Idle stretches cost nothing (no rate, no work).
//!
//! NetSat's measure ([`NetSatMeasure`]): what the snapshots report is the bytes that crossed
//! (`delivered`, the default), or, with `offered`, the integral of the same flows' offered
//! rates (`network.rs`: each flow's rate on its unshaped links alone), i.e. the demand on the
//! rack's shaped links, which a link losing goodput hides from the delivered measure. The
//! offered integrals are kept only when asked for, in the same O(1) per change.
//!
//! Example: one 1 GB cross-rack flow at 100 Mbit/s (12.5 MB/s) from t = 0 runs 80 s: the
//! source rack's out-bytes at t = 40 s are 500 MB (100 Mbit/s over those 40 s); the series has
//! 750 MB in bucket 0 ([0, 60 s)) and 250 MB in bucket 1.

/// Width of a time-series bucket, s (until [`SERIES_MAX_BUCKETS`] forces wider ones).
pub const SERIES_BUCKET_S: f64 = 60.0;

/// Most buckets of a time series; beyond, the width doubles and buckets merge in pairs.
pub const SERIES_MAX_BUCKETS: usize = 1 << 16;

/// Bytes moved at an aggregate rate that changes at known times.
#[derive(Clone, Copy, Debug, Default)]
struct Integrator {
    /// Bytes up to `since`.
    bytes: f64,
    /// Bytes/s since `since`.
    rate: f64,
    since: f64,
    /// Flows contributing to `rate`.
    flows: u32,
}

impl Integrator {
    /// Bytes moved up to `t` (≥ `since`; earlier reads the value at `since`).
    fn bytes_at(&self, t: f64) -> f64 {
        self.bytes + self.rate * (t - self.since).max(0.0)
    }

    /// From `now` on the rate is `delta` more and `flows` changes by `dflows`.
    fn change(&mut self, now: f64, delta: f64, dflows: i32) {
        self.bytes = self.bytes_at(now);
        self.since = self.since.max(now);
        self.flows = self.flows.saturating_add_signed(dflows);
        self.rate = if self.flows == 0 { 0.0 } else { (self.rate + delta).max(0.0) };
    }
}

/// The cluster's cross-rack bytes per time bucket.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TrafficSeries {
    /// Bucket width, s ([`SERIES_BUCKET_S`], doubled for very long runs).
    pub bucket_s: f64,
    /// Cross-rack shuffle bytes per bucket (bucket k covers `[k · bucket_s, (k + 1) ·
    /// bucket_s)` of simulated time).
    pub shuffle_bytes: Vec<f64>,
    /// All cross-rack bytes per bucket (shuffle + remote map input).
    pub total_bytes: Vec<f64>,
}

impl Default for TrafficSeries {
    fn default() -> Self {
        Self { bucket_s: SERIES_BUCKET_S, shuffle_bytes: Vec::new(), total_bytes: Vec::new() }
    }
}

impl TrafficSeries {
    /// The bucket holding time `t` (≥ 0), after widening the buckets until it fits (a time
    /// that is not finite, which the engine never has, counts in bucket 0).
    fn bucket(&mut self, t: f64) -> usize {
        let t = if t.is_finite() { t } else { 0.0 };
        loop {
            let k = (t.max(0.0) / self.bucket_s).floor();
            if k < SERIES_MAX_BUCKETS as f64 {
                let k = k as usize;
                if k >= self.total_bytes.len() {
                    self.total_bytes.resize(k + 1, 0.0);
                    self.shuffle_bytes.resize(k + 1, 0.0);
                }
                return k;
            }
            self.widen();
        }
    }

    /// Doubles the bucket width, merging buckets 2i and 2i + 1.
    fn widen(&mut self) {
        for v in [&mut self.total_bytes, &mut self.shuffle_bytes] {
            let merged: Vec<f64> = v.chunks(2).map(|c| c.iter().sum()).collect();
            *v = merged;
        }
        self.bucket_s *= 2.0;
    }

    /// Adds `(shuffle, total)` bytes/s over `[from, to)`, split at bucket edges.
    fn spread(&mut self, from: f64, to: f64, shuffle: f64, total: f64) {
        if to <= from || (shuffle <= 0.0 && total <= 0.0) {
            return;
        }
        let last = self.bucket(to);
        let mut k = self.bucket(from).min(last);
        let mut t = from;
        while t < to && k <= last {
            let end = (((k + 1) as f64) * self.bucket_s).min(to);
            let dt = (end - t).max(0.0);
            self.shuffle_bytes[k] += shuffle * dt;
            self.total_bytes[k] += total * dt;
            t = end;
            k += 1;
        }
    }

    /// Adds `(shuffle, total)` bytes at time `t`.
    fn lump(&mut self, t: f64, shuffle: f64, total: f64) {
        let k = self.bucket(t);
        self.shuffle_bytes[k] += shuffle;
        self.total_bytes[k] += total;
    }
}

/// What the snapshots report as a rack's cross-rack traffic (`racks[].cross_rack_traffic_mbps`,
/// NetSat's input; module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NetSatMeasure {
    /// The bytes that crossed the rack's boundary.
    #[default]
    Delivered,
    /// The cross-rack flows' offered rates: what they would move if the shaped links did not
    /// hold them back.
    Offered,
}

/// The meter of one run.
#[derive(Clone, Debug, Default)]
pub(crate) struct TrafficMeter {
    /// Per rack: bytes that left it across racks.
    out: Vec<Integrator>,
    /// Per rack: bytes that entered it across racks.
    into: Vec<Integrator>,
    /// Per rack: offered bytes out of it and into it (empty unless offered rates are told).
    offered_out: Vec<Integrator>,
    offered_into: Vec<Integrator>,
    /// The cluster's cross-rack shuffle and total, for the series.
    shuffle: Integrator,
    total: Integrator,
    series: TrafficSeries,
}

impl TrafficMeter {
    /// A meter for `racks` racks.
    pub fn new(racks: usize) -> Self {
        Self {
            out: vec![Integrator::default(); racks],
            into: vec![Integrator::default(); racks],
            ..Self::default()
        }
    }

    /// Brings the series up to `now` at the current cluster rates.
    fn accrue(&mut self, now: f64) {
        let since = self.total.since;
        self.series.spread(since, now, self.shuffle.rate, self.total.rate);
    }

    /// A cross-rack flow from `src` to `dst` rack (a reduce's shuffle or not) changed its rate
    /// by `delta` bytes/s at `now`; `dflows` is +1 when it starts, −1 when it ends, else 0.
    pub fn rate_changed(
        &mut self,
        now: f64,
        (src, dst): (usize, usize),
        shuffle: bool,
        delta: f64,
        dflows: i32,
    ) {
        self.accrue(now);
        if let Some(i) = self.out.get_mut(src) {
            i.change(now, delta, dflows);
        }
        if let Some(i) = self.into.get_mut(dst) {
            i.change(now, delta, dflows);
        }
        self.total.change(now, delta, dflows);
        if shuffle {
            self.shuffle.change(now, delta, dflows);
        } else {
            // Keep the shuffle integrator's clock with the total's (they share the series).
            self.shuffle.change(now, 0.0, 0);
        }
    }

    /// A cross-rack flow's offered rate changed by `delta` bytes/s at `now` (`dflows` as in
    /// [`TrafficMeter::rate_changed`]).
    pub fn offered_changed(
        &mut self,
        now: f64,
        (src, dst): (usize, usize),
        delta: f64,
        dflows: i32,
    ) {
        let racks = self.out.len();
        if self.offered_out.len() != racks {
            self.offered_out = vec![Integrator::default(); racks];
            self.offered_into = vec![Integrator::default(); racks];
        }
        if let Some(i) = self.offered_out.get_mut(src) {
            i.change(now, delta, dflows);
        }
        if let Some(i) = self.offered_into.get_mut(dst) {
            i.change(now, delta, dflows);
        }
    }

    /// `bytes` crossed from rack `src` to `dst` at `now` in no time.
    pub fn lump(&mut self, now: f64, (src, dst): (usize, usize), shuffle: bool, bytes: f64) {
        if let Some(i) = self.out.get_mut(src) {
            i.bytes += bytes;
        }
        if let Some(i) = self.into.get_mut(dst) {
            i.bytes += bytes;
        }
        // What takes no time was offered as much as delivered.
        if let Some(i) = self.offered_out.get_mut(src) {
            i.bytes += bytes;
        }
        if let Some(i) = self.offered_into.get_mut(dst) {
            i.bytes += bytes;
        }
        self.series.lump(now, if shuffle { bytes } else { 0.0 }, bytes);
    }

    /// Bytes that left and entered rack `rack` across racks up to `now` (0 for a rack it does
    /// not know).
    pub fn rack_bytes(&self, rack: usize, now: f64) -> (f64, f64) {
        let at = |v: &[Integrator]| v.get(rack).map_or(0.0, |i| i.bytes_at(now));
        (at(&self.out), at(&self.into))
    }

    /// Bytes out of and into rack `rack` up to `now` by `measure`: [`TrafficMeter::rack_bytes`],
    /// or the offered integrals (0 when no offered rate was ever told).
    pub fn rack_measure(&self, rack: usize, now: f64, measure: NetSatMeasure) -> (f64, f64) {
        match measure {
            NetSatMeasure::Delivered => self.rack_bytes(rack, now),
            NetSatMeasure::Offered => {
                let at = |v: &[Integrator]| v.get(rack).map_or(0.0, |i| i.bytes_at(now));
                (at(&self.offered_out), at(&self.offered_into))
            }
        }
    }

    /// The series up to `end` (its last bucket holds `end`, when anything crossed racks).
    pub fn series(&mut self, end: f64) -> TrafficSeries {
        self.accrue(end.max(self.total.since));
        self.total.change(end, 0.0, 0);
        self.shuffle.change(end, 0.0, 0);
        if !self.series.total_bytes.is_empty() {
            self.series.bucket(end);
        }
        self.series.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-6 * b.abs().max(1.0)
    }

    #[test]
    fn module_doc_example_one_flow_over_two_buckets() {
        // 1 GB at 12.5 MB/s from t = 0 ends at 80 s.
        let mut m = TrafficMeter::new(2);
        m.rate_changed(0.0, (0, 1), true, 12.5e6, 1);
        assert!(close(m.rack_bytes(0, 40.0).0, 500e6));
        assert!(close(m.rack_bytes(1, 40.0).1, 500e6));
        assert_eq!(m.rack_bytes(0, 40.0).1, 0.0, "nothing entered rack 0");
        m.rate_changed(80.0, (0, 1), true, -12.5e6, -1);
        assert!(close(m.rack_bytes(0, 500.0).0, 1e9), "no bytes after the flow ended");
        let s = m.series(120.0);
        assert_eq!(s.bucket_s, 60.0);
        assert_eq!(s.total_bytes.len(), 3, "buckets [0, 60), [60, 120), [120, 180)");
        assert!(close(s.shuffle_bytes[0], 750e6) && close(s.shuffle_bytes[1], 250e6));
        assert_eq!(s.total_bytes[2], 0.0);
    }

    #[test]
    fn rate_is_exactly_zero_once_the_last_flow_ends() {
        let mut m = TrafficMeter::new(2);
        m.rate_changed(0.0, (0, 1), false, 0.1, 1);
        m.rate_changed(0.0, (0, 1), false, 0.2, 1);
        m.rate_changed(1.0, (0, 1), false, -0.1, -1);
        m.rate_changed(2.0, (0, 1), false, -0.2000000001, -1);
        let at2 = m.rack_bytes(0, 2.0).0;
        assert_eq!(m.rack_bytes(0, 1e6).0, at2);
        let s = m.series(10.0);
        assert_eq!(s.shuffle_bytes.iter().sum::<f64>(), 0.0, "map input is not shuffle");
    }

    #[test]
    fn offered_bytes_integrate_apart_from_delivered() {
        // A flow offered 25 MB/s but delivered 12.5 MB/s for 40 s: 1 GB offered, 500 MB moved.
        let mut m = TrafficMeter::new(2);
        m.rate_changed(0.0, (0, 1), true, 12.5e6, 1);
        m.offered_changed(0.0, (0, 1), 25e6, 1);
        let offered = NetSatMeasure::Offered;
        assert!(close(m.rack_measure(0, 40.0, offered).0, 1e9));
        assert!(close(m.rack_measure(1, 40.0, offered).1, 1e9));
        assert!(close(m.rack_measure(0, 40.0, NetSatMeasure::Delivered).0, 500e6));
        m.offered_changed(40.0, (0, 1), -25e6, -1);
        assert!(close(m.rack_measure(0, 100.0, offered).0, 1e9), "nothing offered after");
        assert_eq!(TrafficMeter::new(2).rack_measure(0, 9.0, offered), (0.0, 0.0));
    }

    #[test]
    fn very_long_runs_widen_the_buckets() {
        let mut m = TrafficMeter::new(2);
        m.lump(0.0, (0, 1), false, 5.0);
        let end = SERIES_BUCKET_S * SERIES_MAX_BUCKETS as f64 * 3.0;
        m.lump(end, (1, 0), true, 7.0);
        let s = m.series(end);
        assert!(s.total_bytes.len() <= SERIES_MAX_BUCKETS);
        assert_eq!(s.bucket_s, SERIES_BUCKET_S * 4.0);
        assert_eq!(s.total_bytes.iter().sum::<f64>(), 12.0);
        assert_eq!(s.shuffle_bytes.iter().sum::<f64>(), 7.0);
        assert_eq!(s.total_bytes[0], 5.0);
    }
}
