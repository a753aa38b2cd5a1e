//! A shaped link that loses goodput when many TCP flows share it (TCP throughput collapse,
//! "incast": Phanishayee et al., FAST 2008; Vasudevan et al., SIGCOMM 2009; Chen et al.,
//! WREN 2009), for the what-if simulator's shaped cross-rack links (`network.rs`).
//!
//! What the sources say (quoted facts, not their figures): many senders whose data meets at one
//! link "together send enough data to overload the switch buffers on the client's link" and
//! the client sees "much lower read bandwidth than should be provided by the available network
//! links" (Phanishayee et al., abstract); "inbound data overfills small switch buffers, leading
//! to TCP timeouts lasting hundreds of milliseconds", and throughput "is reduced by up to 90%"
//! (Vasudevan et al., abstract); the minimum retransmission timeout of common operating systems
//! is 200 ms (Linux's `TCP_RTO_MIN`), far above a datacenter's round-trip times. Chen et al.
//! add that goodput, after collapsing, partly recovers as senders grow further; this model
//! does not reproduce that recovery.
//!
//! The model (placer's; its parameters are placer's assumption, only the 90 % floor is a
//! quoted figure): a shaped link of capacity C carrying n concurrent flows delivers
//! `C · g(n)` bytes/s in all, with
//!
//! ```text
//! g(n) = 1                                      for n ≤ n0
//! g(n) = max(floor, 1 / (1 + β · (n − n0)))     for n > n0
//! ```
//!
//! Defaults: n0 = 8 flows, β = 0.05 per flow beyond n0, floor = 0.1 (Vasudevan et al.'s "up to
//! 90%"): g(18) = 2/3, g(28) = 1/2, g(188) = 0.1. Timeouts (`rto_s`, default 0.2 s, Linux's
//! minimum RTO): a flow that joins a shaped link already carrying n0 or more flows loses its
//! first window and waits `rto_s` before it moves a byte (and before it counts on any link);
//! the goodput lost to the timeouts of flows already running is what `g` stands for. `rto_s`
//! = 0 leaves only `g`.

use crate::error::SimError;
use serde::{Deserialize, Serialize};

/// The goodput curve of the shaped links and the timeout of a flow joining a crowded one
/// (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Goodput {
    /// Flows a shaped link carries at full capacity (≥ 1).
    pub n0: u32,
    /// Loss per flow beyond `n0` (≥ 0; 0 keeps full capacity).
    pub beta: f64,
    /// The least fraction of the capacity a crowded link delivers, in (0, 1].
    pub floor: f64,
    /// The stall of a flow that joins a shaped link already carrying `n0` or more flows, s
    /// (≥ 0; 0: no stall).
    pub rto_s: f64,
}

impl Default for Goodput {
    fn default() -> Self {
        Self { n0: 8, beta: 0.05, floor: 0.1, rto_s: 0.2 }
    }
}

impl Goodput {
    /// The fraction `g(n)` of a shaped link's capacity that `n` concurrent flows get, in
    /// `[floor, 1]` (module docs).
    ///
    /// # Complexity
    /// O(1).
    ///
    /// # Errors
    /// None; a config out of its domain is refused by [`Goodput::validate`] first.
    ///
    /// # Example
    /// ```
    /// use placer_sim::Goodput;
    /// let g = Goodput::default(); // n0 = 8, β = 0.05, floor = 0.1
    /// assert_eq!(g.factor(8), 1.0);
    /// assert_eq!(g.factor(28), 0.5); // 1 / (1 + 0.05 · 20)
    /// assert_eq!(g.factor(1000), 0.1);
    /// ```
    pub fn factor(&self, n: usize) -> f64 {
        let n0 = self.n0 as usize;
        if n <= n0 {
            return 1.0;
        }
        (1.0 / (1.0 + self.beta * (n - n0) as f64)).max(self.floor).min(1.0)
    }

    /// Whether a flow joining a shaped link that carries `n` flows before it stalls.
    pub fn stalls(&self, n: usize) -> bool {
        self.rto_s > 0.0 && n >= self.n0 as usize
    }

    /// Checks every field's domain; the error names the first bad field.
    ///
    /// # Errors
    /// [`SimError::Config`] naming `goodput.<field>`.
    pub fn validate(&self) -> Result<(), SimError> {
        if self.n0 == 0 {
            return Err(SimError::config("goodput.n0", "must be ≥ 1"));
        }
        if !(self.beta.is_finite() && self.beta >= 0.0) {
            return Err(SimError::config(
                "goodput.beta",
                format!("must be a finite number ≥ 0, got {}", self.beta),
            ));
        }
        if !(self.floor > 0.0 && self.floor <= 1.0) {
            return Err(SimError::config(
                "goodput.floor",
                format!("must be in (0, 1], got {}", self.floor),
            ));
        }
        if !(self.rto_s.is_finite() && self.rto_s >= 0.0) {
            return Err(SimError::config(
                "goodput.rto_s",
                format!("must be a finite number ≥ 0, got {}", self.rto_s),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_doc_values_of_g() {
        let g = Goodput::default();
        assert_eq!(g.factor(0), 1.0);
        assert_eq!(g.factor(8), 1.0);
        assert!((g.factor(18) - 2.0 / 3.0).abs() < 1e-15);
        assert_eq!(g.factor(28), 0.5);
        assert_eq!(g.factor(188), 0.1);
        assert_eq!(g.factor(10_000), 0.1, "Vasudevan et al.'s 90 % loss is the floor");
        assert!(!g.stalls(7) && g.stalls(8));
        assert!(!Goodput { rto_s: 0.0, ..g }.stalls(100));
    }

    #[test]
    fn g_never_rises_with_more_flows() {
        let g = Goodput { n0: 3, beta: 0.3, floor: 0.2, rto_s: 0.0 };
        let mut last = 1.0;
        for n in 0..200 {
            let f = g.factor(n);
            assert!(f <= last && (0.2..=1.0).contains(&f), "g({n}) = {f}");
            last = f;
        }
    }

    #[test]
    fn validate_names_the_field() {
        let bad = [
            (Goodput { n0: 0, ..Goodput::default() }, "goodput.n0"),
            (Goodput { beta: -1.0, ..Goodput::default() }, "goodput.beta"),
            (Goodput { floor: 0.0, ..Goodput::default() }, "goodput.floor"),
            (Goodput { floor: 1.5, ..Goodput::default() }, "goodput.floor"),
            (Goodput { rto_s: f64::NAN, ..Goodput::default() }, "goodput.rto_s"),
        ];
        for (g, field) in bad {
            let e = g.validate().unwrap_err();
            assert!(e.to_string().contains(field), "{e}");
        }
        assert!(Goodput::default().validate().is_ok());
    }
}
