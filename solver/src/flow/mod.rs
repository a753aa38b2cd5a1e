//! Min-cost flow (docs/architecture.md, "The exact engines": the Quincy/Firmament-style network).
//! This build uses it where an assignment has side capacities a dense LSAP cannot express:
//! copy-compute splitting's per-(job, node) reducer caps (FAIR §5.2).
//!
//! One graph type, [`Network`] (compressed sparse rows laid out by a two-pass
//! [`FlowBuilder`], the `graph` module), solved by successive shortest paths (the `ssp`
//! module: [`Network::solve`], [`Network::solve_fixed_sink`] and its warm start); the
//! structured placement network on top of it ([`structured`]), the zero-cost matching that
//! seeds it (`zero_matching`), and the dense adapter the conformance tests run
//! ([`dense_adapter`]).

pub mod dense_adapter;
pub(crate) mod graph;
pub mod incremental;
pub(crate) mod ssp;
pub mod structured;
pub(crate) mod zero_matching;

pub use graph::{FlowBuilder, Network};
pub use ssp::{FlowResult, HUB_DEGREE};
