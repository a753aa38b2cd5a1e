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
    /// How many more reducers job `j` may start on `node` now (`u32::MAX` without CPAC).
    pub fn room(&self, ix: &Indexed<'_>, j: u32, node: u32) -> u32 {
        let room = ix.copy_room(j, node);
        if room == u32::MAX {
            return room;
        }
        room.saturating_sub(self.launched.get(&(j, node)).copied().unwrap_or(0))
    }

    /// Records a reducer of job `j` placed on `node`.
    pub fn launch(&mut self, j: u32, node: u32) {
        *self.launched.entry((j, node)).or_insert(0) += 1;
    }
}
