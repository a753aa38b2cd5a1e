//! RAS's placement algorithm (Polo et al. §3.4, Algorithm 1) for one control cycle: reducers
//! first, spread out; then mappers in rounds that move job slots from the jobs of highest
//! utility to those of lowest while that raises the lowest utility, and greedily fill every
//! node as far as its resources allow (eqs. 4–6).
//!
//! placer's reading, where an epoch differs from RAS's control cycle:
//! - Running tasks are part of P and stay: RAS's Task Scheduler never kills a task to move to
//!   a new placement ("new tasks will only start running as previous tasks complete", §3.5).
//!   Lines 11–19 therefore only take back maps placed in this answer.
//! - Jobs are taken in arrival order (submit time, then snapshot order) in lines 1–8, and
//!   utility ties go to the earlier job. Nodes go in snapshot order in lines 10–24.
//! - Lines 11–19: the job of highest utility with a map placed on the node (job_out) gives
//!   one back while, without it, its utility stays at least the lowest utility of a job that
//!   could use the room (job_in) had before; the last give-back that breaks this is undone
//!   (line 19). Lines 20–23 then hand the node's room, one map at a time, to the job of lowest
//!   utility that fits, until none fits.
//! - Rounds: at most [`ROUNDS`]; they stop early when a round leaves the lowest utility and the
//!   packing where they were ("until the system utility no longer improves").
//! - The limits every policy keeps hold here too: a map's output must fit its node's
//!   intermediate space (FAIR §5.4) and a job's copy-phase reducers its node's CPAC limit
//!   (FAIR §5.2).
//! - Line 26's profile switch is the demand a pending reduce gets (`crate::room`): `reduce`
//!   once its job has no map pending or running, `shuffle` before.

use super::problem::{Counts, RasProblem};
use placer_models::TaskKind;
use std::cmp::Ordering;
use std::collections::HashMap;

/// The most rounds of lines 9–25.
pub const ROUNDS: usize = 4;

/// The state of one run: the counts, the room left, and each job's allocation.
struct Run<'p> {
    p: &'p RasProblem,
    counts: Counts,
    room: crate::room::Room,
    /// Per job, [maps, reduces] running or placed.
    alloc: Vec<[u32; 2]>,
    /// Per class, tasks placed so far.
    placed: Vec<u32>,
    /// Per job, its position in arrival order (tie-break).
    rank: Vec<u32>,
    /// Per node, intermediate space left (`None`: unlimited).
    disk: Vec<Option<u64>>,
    /// Reduces placed per (job, node) on CPAC nodes.
    copies: HashMap<(u32, usize), u32>,
}

impl Run<'_> {
    fn utility(&self, j: usize) -> f64 {
        let a = self.alloc[j];
        self.p.needs[j].utility(a[0], a[1])
    }

    /// Lower utility first, then earlier arrival.
    fn lower(&self, a: usize, b: usize) -> Ordering {
        self.utility(a).total_cmp(&self.utility(b)).then(self.rank[a].cmp(&self.rank[b]))
    }

    fn put(&mut self, c: usize, n: usize) {
        let class = &self.p.classes[c];
        self.room.take(n, class.kind, &class.demand);
        if let Some(d) = &mut self.disk[n] {
            *d = d.saturating_sub(class.output);
        }
        if class.kind == TaskKind::Reduce && self.p.copy_limit[n].is_some() {
            *self.copies.entry((class.job, n)).or_default() += 1;
        }
        self.counts.x[c][n] += 1;
        self.placed[c] += 1;
        self.alloc[class.job as usize][class.kind.slot()] += 1;
    }

    fn unput(&mut self, c: usize, n: usize) {
        let class = &self.p.classes[c];
        self.room.give(n, class.kind, &class.demand);
        if let Some(d) = &mut self.disk[n] {
            *d += class.output;
        }
        if class.kind == TaskKind::Reduce && self.p.copy_limit[n].is_some() {
            if let Some(k) = self.copies.get_mut(&(class.job, n)) {
                *k -= 1;
            }
        }
        self.counts.x[c][n] -= 1;
        self.placed[c] -= 1;
        self.alloc[class.job as usize][class.kind.slot()] -= 1;
    }

    /// The first class of job `j` and `kind` with a task left that fits node `n` now.
    fn fitting(&self, classes: &[Vec<usize>], j: usize, n: usize) -> Option<usize> {
        classes[j].iter().copied().find(|&c| {
            let class = &self.p.classes[c];
            (self.placed[c] as usize) < class.tasks.len()
                && class.allows(n)
                && self.room.fits(n, class.kind, &class.demand)
                && self.disk[n].is_none_or(|d| class.output <= d)
                && (class.kind == TaskKind::Map
                    || self.copies.get(&(class.job, n)).copied().unwrap_or(0)
                        < self.p.copy_room(class.job, n))
        })
    }
}

/// RAS Algorithm 1 on `problem`: how many tasks of each class start on each node.
///
/// Maximises, heuristically, the least utility min_j u_j (eq. 4), then fills the nodes
/// (eq. 5), never beyond any node's room (eq. 6); see the module docs for placer's reading of
/// the pseudo-code. Units: counts of tasks.
///
/// # Complexity
/// O(jobs log jobs + reduce classes · nodes log nodes) for the reducers and, per round,
/// O(nodes · (jobs + placed on the node) · classes per job · resources) for the mappers.
///
/// # Errors
/// None: a task that fits nowhere is simply not counted.
///
/// # Examples
/// Two Sort-like jobs on one TaskTracker normalised to 100, maps of CPU 30 and I/O 45 (RAS
/// Table 2): two maps fit (I/O 90). Each job gets one, which lifts both utilities off −∞.
/// ```
/// use placer_models::{parse_request, validate};
/// use placer_solver::Indexed;
/// use placer_solver::ras::{algorithm::place, RasProblem};
/// let req = parse_request(br#"{"schema_version":1,"now_s":0,
///   "cluster":{"racks":[{"id":"r"}],"nodes":[{"id":"n","rack":"r","resources":{"cpu":100,"io":100}}]},
///   "pools":[{"id":"p"}],
///   "jobs":[{"id":"a","pool":"p","profile":{"map":{"cpu":30,"io":45}}},
///           {"id":"b","pool":"p","profile":{"map":{"cpu":30,"io":45}}}],
///   "pending":[{"id":"a1","job":"a","kind":"map"},{"id":"a2","job":"a","kind":"map"},
///              {"id":"b1","job":"b","kind":"map"},{"id":"b2","job":"b","kind":"map"}],
///   "running":[]}"#).unwrap();
/// validate(&req).unwrap();
/// let problem = RasProblem::of(&Indexed::new(&req));
/// let counts = place(&problem);
/// assert_eq!(counts.x, vec![vec![1], vec![1]]);
/// assert!(problem.min_utility(&counts).unwrap() > f64::NEG_INFINITY);
/// ```
pub fn place(problem: &RasProblem) -> Counts {
    let jobs = problem.needs.len();
    let nodes = problem.room.nodes();
    let mut order: Vec<usize> = (0..jobs).collect();
    let rank = problem.arrival.clone();
    let mut run = Run {
        p: problem,
        counts: Counts::zero(problem.classes.len(), nodes),
        room: problem.room.clone(),
        alloc: problem.running.clone(),
        placed: vec![0; problem.classes.len()],
        rank,
        disk: problem.disk.clone(),
        copies: HashMap::new(),
    };
    let mut of_kind: [Vec<Vec<usize>>; 2] = [vec![Vec::new(); jobs], vec![Vec::new(); jobs]];
    for (c, class) in problem.classes.iter().enumerate() {
        of_kind[class.kind.slot()][class.job as usize].push(c);
    }

    // Lines 1–8: per job, one reducer per node, nodes by fewest reducers, then fewest of the
    // job's.
    let mut reducers: Vec<u32> = vec![0; nodes];
    order.sort_by_key(|&j| run.rank[j]);
    for &j in &order {
        if of_kind[1][j].is_empty() {
            continue;
        }
        let mut mine = vec![0u32; nodes];
        for &c in &of_kind[1][j] {
            let row = &run.counts.x[c];
            {
                for (m, &k) in mine.iter_mut().zip(row) {
                    *m += k;
                }
            }
        }
        let mut tts: Vec<usize> = (0..nodes).collect();
        tts.sort_by_key(|&n| (reducers[n], mine[n], n));
        for n in tts {
            if let Some(c) = run.fitting(&of_kind[1], j, n) {
                run.put(c, n);
                reducers[n] += 1;
            }
        }
    }

    // Lines 9–25: mappers, in rounds.
    let maps = &of_kind[0];
    let has_maps: Vec<usize> = (0..jobs).filter(|&j| !maps[j].is_empty()).collect();
    if has_maps.is_empty() {
        return run.counts;
    }
    let mut last = (problem.min_utility(&run.counts), problem.packing(&run.counts));
    for _ in 0..ROUNDS {
        for n in 0..nodes {
            give_back(&mut run, maps, &has_maps, n);
            fill(&mut run, maps, &has_maps, n);
        }
        let now = (problem.min_utility(&run.counts), problem.packing(&run.counts));
        if now == last {
            break;
        }
        last = now;
    }
    run.counts
}

/// Lines 11–19 on node `n`.
fn give_back(run: &mut Run<'_>, maps: &[Vec<usize>], has_maps: &[usize], n: usize) {
    loop {
        // job_in: the lowest utility among jobs with a map left that could use the node.
        let job_in = has_maps
            .iter()
            .copied()
            .filter(|&j| {
                maps[j].iter().any(|&c| {
                    (run.placed[c] as usize) < run.p.classes[c].tasks.len()
                        && run.p.classes[c].allows(n)
                        && run.room.fits_empty(n, &run.p.classes[c].demand)
                })
            })
            .min_by(|&a, &b| run.lower(a, b));
        // job_out: the highest utility among jobs with a map placed here in this answer.
        let job_out = has_maps
            .iter()
            .copied()
            .filter(|&j| maps[j].iter().any(|&c| run.counts.x[c][n] > 0))
            .max_by(|&a, &b| run.lower(a, b));
        let (Some(job_in), Some(job_out)) = (job_in, job_out) else { return };
        if job_in == job_out {
            return;
        }
        let before = run.utility(job_in);
        let Some(&c) = maps[job_out].iter().rev().find(|&&c| run.counts.x[c][n] > 0) else {
            return;
        };
        run.unput(c, n);
        // Line 18, strictly: job_out must stay above job_in's utility, and job_in must now
        // fit; otherwise line 19 restores the placement. (With ≥, two equal jobs could hand a
        // map back and forth for ever; with >, the sorted utility vector rises at each step.)
        let taker = if run.utility(job_out) > before { run.fitting(maps, job_in, n) } else { None };
        match taker {
            Some(ci) => run.put(ci, n),
            None => {
                run.put(c, n);
                return;
            }
        }
    }
}

/// Lines 20–23 on node `n`: the lowest-utility job that fits gets the next map, until none fits.
fn fill(run: &mut Run<'_>, maps: &[Vec<usize>], has_maps: &[usize], n: usize) {
    let mut candidates: Vec<usize> = has_maps.to_vec();
    loop {
        candidates.retain(|&j| run.fitting(maps, j, n).is_some());
        let Some(j) = candidates.iter().copied().min_by(|&a, &b| run.lower(a, b)) else {
            return;
        };
        let Some(c) = run.fitting(maps, j, n) else { return };
        run.put(c, n);
    }
}
