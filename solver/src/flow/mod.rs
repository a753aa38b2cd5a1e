//! Min-cost flow (DESIGN.md §The epoch pipeline, step 5: the Quincy/Firmament-style network).
//! This build uses it where an assignment has side capacities a dense LSAP cannot express:
//! copy-compute splitting's per-(job, node) reducer caps (FAIR §5.2).

pub mod dense_adapter;
pub mod ssp;
pub mod structured;
pub(crate) mod zero_matching;
