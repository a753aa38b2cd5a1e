//! lsap-sched's cost matrix C(i, j) (Guo, Fox, Zhou §3.2, eq. 1): pending tasks of one kind ×
//! free slots of that kind, where slot j lives on node N(j) and C(i, j) = the locality cost of
//! task i on N(j). Columns are the free slots in node order (a node with k free slots gives k
//! identical columns). The per-task [`CostRow`]s are kept, so the dense matrix is filled in
//! O(rows · cols) with one cost evaluation per (task, node).

use crate::cost::{CostRow, LocalityCost};
use crate::index::{kind_slot, Indexed};
use ndarray::Array2;
use placer_models::TaskKind;

/// The rows, columns and per-task costs of one kind's assignment problem.
#[derive(Debug)]
pub struct CostMatrix {
    /// Pending task position of each row.
    pub tasks: Vec<usize>,
    /// Node index of each column.
    pub slot_nodes: Vec<u32>,
    /// Free slots per node (the column runs).
    free: Vec<u32>,
    node_rack: Vec<u32>,
    rows: Vec<CostRow>,
}

impl CostMatrix {
    /// The problem for `kind`: rows = pending tasks of the kind, columns = its free slots.
    pub fn new(ix: &Indexed<'_>, model: &LocalityCost<'_, '_>, kind: TaskKind) -> Self {
        let tasks = ix.pending_of_kind[kind_slot(kind)].clone();
        let rows = tasks.iter().map(|&t| model.row(t)).collect();
        Self {
            tasks,
            slot_nodes: ix.slot_nodes(kind),
            free: ix.free[kind_slot(kind)].clone(),
            node_rack: ix.node_rack.clone(),
            rows,
        }
    }

    /// (rows, columns).
    pub fn dim(&self) -> (usize, usize) {
        (self.tasks.len(), self.slot_nodes.len())
    }

    /// The largest entry (0 when empty).
    pub fn max_cost(&self) -> f64 {
        self.rows.iter().map(CostRow::max).fold(0.0, f64::max)
    }

    /// The dense matrix with each cost (seconds × α) mapped through `unit`.
    pub fn dense<T: Copy + Default>(&self, unit: impl Fn(f64) -> T) -> Array2<T> {
        let (r, c) = self.dim();
        let mut m = Array2::from_elem((r, c), T::default());
        for (mut out, row) in m.outer_iter_mut().zip(&self.rows) {
            let mut j = 0;
            for (n, &f) in self.free.iter().enumerate() {
                if f == 0 {
                    continue;
                }
                let x = unit(row.at(n as u32, self.node_rack[n]));
                for k in 0..f as usize {
                    out[j + k] = x;
                }
                j += f as usize;
            }
        }
        m
    }
}
