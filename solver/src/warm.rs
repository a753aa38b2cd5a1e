//! Warm starts across epochs (Firmament, Gog et al., OSDI 2016, §5: consecutive
//! scheduling rounds differ little, so the min-cost-flow solver starts from the previous
//! round's state instead of from scratch). A [`WarmStart`] keeps, per task kind, either of two
//! states. The whole flow of the incremental engine ([`crate::flow::incremental`]), its
//! potentials and which pending task id each of its tasks is (under `lsap_quota` and
//! `lsap_shuffle` also its quota front: pools and jobs by id); the next epoch's tasks are
//! diffed against it and only the change is repaired. When that flow is not used (an epoch
//! whose cluster layout is new, maps with explicit disk-admission arcs, a cut): the dual
//! labels that the last structured solve left on the network's lasting vertices (source,
//! sink, cluster, racks, nodes; [`Potentials`]) and the cost unit they are in; the next solve
//! of that kind rescales them to its own unit and starts from them
//! ([`crate::flow::structured::solve_warm`]). The placement stays a least-cost one either
//! way.
//!
//! The service stays stateless: a `place` call uses a store only when its caller passes one
//! in [`crate::PlaceOptions::warm`]. The simulator does (`placer whatif --warm-start`); each
//! run has its own store, so runs stay independent and deterministic.

use crate::exact::structured::KeptFlow;
use crate::flow::structured::Potentials;
use placer_models::TaskKind;
use std::sync::{Arc, Mutex};

/// A store of the last labels per task kind, and of the incremental engine's flow per task
/// kind, shared by its clones (a handle).
#[derive(Clone, Debug, Default)]
pub struct WarmStart(Arc<Mutex<Store>>);

/// What a [`WarmStart`] holds.
#[derive(Debug, Default)]
struct Store {
    /// Per task kind: labels (quota objectives).
    labels: [Option<Stored>; 2],
    /// Per task kind: the kept flow (locality and offset objectives).
    flows: [Option<Box<KeptFlow>>; 2],
    /// Per task kind: the cluster fingerprint and cost unit of the last solve that could have
    /// kept a flow (see [`WarmStart::layout_repeats`]).
    layouts: [Option<(u64, u64)>; 2],
}

/// Labels and the integer cost units per second they were computed in.
#[derive(Clone, Debug)]
struct Stored {
    units_per_second: f64,
    labels: Potentials,
}

impl PartialEq for WarmStart {
    /// Two handles are equal when they share one store.
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for WarmStart {}

impl WarmStart {
    /// An empty store: the first solve of each kind starts cold.
    pub fn new() -> Self {
        Self::default()
    }

    /// The labels last left for `kind`, rescaled from their cost unit to `units_per_second`;
    /// `None` when there are none yet.
    ///
    /// Complexity: O(racks + nodes).
    pub fn take(&self, kind: TaskKind, units_per_second: f64) -> Option<Potentials> {
        let store = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let stored = store.labels[kind.slot()].as_ref()?;
        Some(stored.labels.rescaled(units_per_second / stored.units_per_second))
    }

    /// Keeps `labels`, in `units_per_second`, for the next solve of `kind`.
    ///
    /// Complexity: O(1).
    pub fn put(&self, kind: TaskKind, units_per_second: f64, labels: Potentials) {
        let mut store = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        store.labels[kind.slot()] = Some(Stored { units_per_second, labels });
    }

    /// Takes the flow kept for `kind` out of the store (the caller puts it back when done).
    ///
    /// Complexity: O(1).
    pub(crate) fn take_flow(&self, kind: TaskKind) -> Option<Box<KeptFlow>> {
        let mut store = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        store.flows[kind.slot()].take()
    }

    /// Keeps `flow` for the next solve of `kind`.
    ///
    /// Records `(fingerprint, units_per_second)` as the layout of this solve of `kind` and
    /// tells whether the previous solve of `kind` had the same one. A kept flow is built only
    /// on a layout seen twice in a row: a caller whose nodes come in a new order each epoch
    /// (the simulator's shuffled heartbeats) would otherwise pay a build every epoch and never
    /// reuse it.
    ///
    /// Complexity: O(1).
    pub(crate) fn layout_repeats(&self, kind: TaskKind, fingerprint: u64, units: f64) -> bool {
        let mut store = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let layout = Some((fingerprint, units.to_bits()));
        std::mem::replace(&mut store.layouts[kind.slot()], layout) == layout
    }

    /// Complexity: O(1).
    pub(crate) fn put_flow(&self, kind: TaskKind, flow: Box<KeptFlow>) {
        let mut store = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        store.flows[kind.slot()] = Some(flow);
    }

    /// An estimate of the heap memory the store holds, in bytes (labels, kept flows and
    /// their task ids), for a session's memory accounting.
    ///
    /// # Complexity
    /// O(tasks kept).
    ///
    /// # Errors
    /// None.
    ///
    /// # Examples
    /// ```
    /// use placer_solver::WarmStart;
    /// assert_eq!(WarmStart::new().heap_bytes(), 0);
    /// ```
    pub fn heap_bytes(&self) -> usize {
        let store = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let labels: usize = store
            .labels
            .iter()
            .flatten()
            .map(|s| 8 * (s.labels.racks.capacity() + s.labels.nodes.capacity()))
            .sum();
        let flows: usize = store.flows.iter().flatten().map(|f| f.heap_bytes()).sum();
        labels + flows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Labels put at 10⁹ units per second come back at 10⁶ divided by 1,000.
    #[test]
    fn labels_are_rescaled_to_the_next_unit() {
        let warm = WarmStart::new();
        assert_eq!(warm.take(TaskKind::Map, 1e9), None);
        let labels = Potentials {
            source: 5_000,
            sink: -2_000,
            cluster: 1_499,
            racks: vec![3_000],
            nodes: vec![-1_000, 0],
        };
        warm.put(TaskKind::Map, 1e9, labels);
        let back = warm.take(TaskKind::Map, 1e6).expect("stored");
        assert_eq!((back.source, back.sink, back.cluster), (5, -2, 1));
        assert_eq!((back.racks, back.nodes), (vec![3], vec![-1, 0]));
        assert_eq!(warm.take(TaskKind::Reduce, 1e9), None);
        assert_eq!(warm.clone(), warm);
        assert_ne!(WarmStart::new(), warm);
    }
}
