//! lsap-sched's cost matrix C(i, j) (Guo, Fox, Zhou §3.2, eq. 1): pending tasks of one kind ×
//! free slots of that kind, where slot j lives on node N(j) and C(i, j) = the locality cost of
//! task i on N(j). Columns are the free slots in node order (a node with k free slots gives k
//! identical columns). The per-task [`CostRow`]s are kept, so the dense matrix is filled in
//! O(rows · cols) with one cost evaluation per (task, node).
//!
//! Size guard: a dense problem of more than [`MAX_DENSE_CELLS`] entries is refused with
//! [`SolveError::ProblemTooLarge`] before anything is allocated. For solving (not for export),
//! a node contributes at most `rows` columns: no assignment can use more of its slots, so the
//! cap changes nothing but the size.

use crate::cost::{CostRow, LocalityCost};
use crate::error::SolveError;
use crate::index::Indexed;
use ndarray::Array2;
use placer_models::TaskKind;

/// The largest dense problem placer builds: 2²⁷ entries (1 GiB of i64).
pub const MAX_DENSE_CELLS: u64 = 1 << 27;

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
    /// The problem for `kind`: rows = pending tasks of the kind of runnable jobs, columns =
    /// its free slots
    /// (each node's capped at the number of rows when `cap_columns`).
    pub fn new(
        ix: &Indexed<'_>,
        model: &LocalityCost<'_, '_>,
        kind: TaskKind,
        cap_columns: bool,
    ) -> Result<Self, SolveError> {
        let tasks = ix.eligible_of_kind[kind.slot()].clone();
        let cap =
            if cap_columns { u32::try_from(tasks.len()).unwrap_or(u32::MAX) } else { u32::MAX };
        let free: Vec<u32> = ix.free[kind.slot()].iter().map(|&f| f.min(cap)).collect();
        let cols: u64 = free.iter().map(|&f| u64::from(f)).sum();
        let cells = (tasks.len() as u64).saturating_mul(cols);
        if cells > MAX_DENSE_CELLS {
            return Err(SolveError::ProblemTooLarge {
                path: "pending".to_owned(),
                message: format!(
                    "{} {} tasks × {cols} free slots = {cells} dense entries; the limit is \
                     {MAX_DENSE_CELLS}",
                    tasks.len(),
                    kind.name()
                ),
            });
        }
        let rows = tasks.iter().map(|&t| model.row(t)).collect();
        let mut slot_nodes = Vec::with_capacity(cols as usize);
        for (n, &f) in free.iter().enumerate() {
            slot_nodes.extend(std::iter::repeat_n(n as u32, f as usize));
        }
        Ok(Self { tasks, slot_nodes, free, node_rack: ix.node_rack.clone(), rows })
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
