//! Copy-compute splitting admission, CPAC (FAIR, Zaharia et al., §5.2): "Each job can also only
//! have maxComputing reduces performing copies on each node." A new reducer starts in its copy
//! phase, so placing job j's reduce on node n needs copying(j, n) < `max_computing(n)`; the
//! node's total is capped separately by `max_reducers` (its reducer capacity, see
//! [`crate::index::Indexed::free`]). Nodes without CPAC fields are unlimited here.

use crate::index::Indexed;
use std::collections::HashMap;

/// Copy-phase reducers launched this epoch per (job, node), on top of the running ones.
#[derive(Clone, Debug, Default)]
pub struct Copies {
    launched: HashMap<(u32, u32), u32>,
}

impl Copies {
    /// How many more reducers job `j` may start on `node` now, in reducers:
    /// `max_computing(node)` − copy-phase reducers of j running there − those launched this
    /// epoch (floored at 0); `u32::MAX` on a node without CPAC.
    ///
    /// # Complexity
    /// O(1) expected (two hash lookups).
    ///
    /// # Errors
    /// None: `node` must be a node index (else it panics).
    ///
    /// # Examples
    /// FAIR §5.2: node c has 2 reduce slots and room for 6 reducers (`max_reducers`), so
    /// `max_computing` defaults to 2; job j already has one reducer copying there. It may
    /// start 2 − 1 = 1 more, and none after launching it. Node d has no CPAC fields.
    /// ```
    /// use placer_solver::{fair::cpac::Copies, Indexed};
    /// let req = placer_models::parse_request(br#"{"schema_version": 1,
    ///   "cluster": {"racks": [{"id": "r"}], "nodes": [
    ///     {"id": "c", "rack": "r", "reduce_slots": 2, "max_reducers": 6},
    ///     {"id": "d", "rack": "r", "reduce_slots": 2}]},
    ///   "pools": [{"id": "p"}], "jobs": [{"id": "j", "pool": "p"}],
    ///   "running": [{"id": "j-r-0", "job": "j", "kind": "reduce", "node": "c"}]}"#).unwrap();
    /// placer_models::validate(&req).unwrap();
    /// let ix = Indexed::new(&req);
    /// let (j, c, d) = (0, 0, 1);
    /// let mut copies = Copies::default();
    /// assert_eq!(copies.room(&ix, j, c), 1);
    /// copies.launch(j, c);
    /// assert_eq!(copies.room(&ix, j, c), 0);
    /// assert_eq!(copies.room(&ix, j, d), u32::MAX);
    /// ```
    pub fn room(&self, ix: &Indexed<'_>, j: u32, node: u32) -> u32 {
        let room = ix.copy_room(j, node);
        if room == u32::MAX {
            return room;
        }
        room.saturating_sub(self.launched.get(&(j, node)).copied().unwrap_or(0))
    }

    /// Records a reducer of job `j` placed on `node` (it starts in its copy phase). O(1)
    /// expected; infallible. See [`Copies::room`]'s example.
    pub fn launch(&mut self, j: u32, node: u32) {
        *self.launched.entry((j, node)).or_insert(0) += 1;
    }
}
