//! One epoch as a policy sees it (docs/architecture.md, "The epoch pipeline", the steps before
//! the policy places): the indexed snapshot, the locality cost model (lsap-sched eq. 1), the
//! water-filling fair shares (FAIR App. A), the pools' starvation (design doc §3.3) and the exact
//! engine asked for. Typed data, computed once by the pipeline and shared by every policy.

use crate::cancel::Cancel;
use crate::cost::LocalityCost;
use crate::fair::fair_shares::FairShares;
use crate::fair::starvation::Starvation;
use crate::index::Indexed;
use crate::warm::WarmStart;
use placer_models::SolverEngine;

/// The context of one `place` call.
#[derive(Clone, Copy, Debug)]
pub struct Epoch<'e, 'a> {
    /// The validated snapshot with every reference resolved.
    pub ix: &'e Indexed<'a>,
    /// The locality cost of every pending task on every node.
    pub model: &'e LocalityCost<'e, 'a>,
    /// Fair shares per pool and job and kind.
    pub shares: &'e FairShares,
    /// Starvation of every pool before this epoch's placement.
    pub starvation: &'e Starvation,
    /// `policy.solver`.
    pub engine: SolverEngine,
    /// The caller's deadline ([`PlaceOptions::cancel`](crate::PlaceOptions)): exact policies
    /// pass it to their engines and answer `time_limited` when cut; `None` = run to the end.
    pub cancel: Option<&'e Cancel>,
    /// Labels kept across epochs ([`PlaceOptions::warm`](crate::PlaceOptions)): exact policies
    /// pass it to the structured flow; `None` = every solve starts cold.
    pub warm: Option<&'e WarmStart>,
}

impl<'e> Epoch<'e, '_> {
    /// The deadline's token and the store of labels, as the exact layer takes them.
    pub fn control(&self) -> crate::exact::Control<'e> {
        crate::exact::Control { cancel: self.cancel, warm: self.warm }
    }
}
