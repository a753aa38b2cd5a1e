//! RAS's epoch problem (Polo et al. §3.4, eqs. 4–6) solved exactly as a mixed-integer program
//! by HiGHS through `good_lp`: the reference the `ras` heuristic (Algorithm 1) is measured
//! against on small instances, `policy.solver: mip`.
//!
//! # Formulation
//!
//! Sets: task classes c (pending tasks of one job, kind and demand; [`RasProblem::classes`]),
//! nodes n, resources r, active jobs j. Data (each in the nodes' own units per resource):
//! d_{c,r} the demand of one task of c, Ω_{n,r} the capacity, h_{n,r} = Ω_{n,r} − used_{n,r}
//! (plus the room's 1e-9 relative tolerance, `crate::room::Room::headroom`) the room left
//! after the running tasks, σ_{n,kind} the free slots when they cap the node.
//!
//! Variables:
//! - x_{c,n} ∈ ℤ, 0 ≤ x_{c,n} ≤ ub_{c,n}: tasks of c placed on n (tasks), where ub is the
//!   least of |c|, σ_{n,kind(c)} and ⌊h_{n,r} / d_{c,r}⌋ over r with d_{c,r} > 0 (0 when some
//!   such h_{n,r} < 0: no new task that needs r fits), and 0 on a node outside the class's
//!   topology domain in a gang round ([`crate::ras::TaskClass::allows`]);
//! - z^M_{j,k} ∈ {0, 1} for k = 1..P^M_j, "at least k of j's maps placed", where P^M_j =
//!   Σ_{c: maps of j} min(|c|, Σ_n ub_{c,n}) (tasks); likewise z^R_{j,k} for reduces;
//! - t ∈ ℝ, t ≤ 1: the least utility (dimensionless).
//!
//! Constraints:
//! - supply: Σ_n x_{c,n} ≤ |c|;
//! - room (eq. 6): Σ_c x_{c,n} · d_{c,r} ≤ h_{n,r} for every n, r, over c with d_{c,r} > 0;
//! - slots: Σ_{c of kind} x_{c,n} ≤ σ_{n,kind} unless the node is uncapped
//!   (`crate::room::UNCAPPED`);
//! - the limits every policy keeps: Σ_c x_{c,n} · o_c ≤ D_n on a node with intermediate
//!   space D_n (bytes; o_c a map's output, FAIR §5.4), and Σ_{c: reduces of j} x_{c,n} ≤ the
//!   job's copy room on a CPAC node (FAIR §5.2); ub_{c,n} also respects both;
//! - ladders ([`super::ladder`]): z_{j,k} ≥ z_{j,k+1} and Σ_k z_{j,k} = Σ_{c of j, kind} Σ_n
//!   x_{c,n}, per kind, so that z is the unary code of j's placed count;
//! - utility (eqs. 1–3): u_j = U_M + U_R with U_M = u_M(s_run) + Σ_k z^M_{j,k} ·
//!   (u_M(s_run + k) − u_M(s_run + k − 1)) and U_R likewise from r_run: exact for the step
//!   functions u_M and u_R of integer counts although they are not concave. −∞ (u_M at 0
//!   maps when s_req ≥ 1) is replaced by the finite floor F = −(M_M + M_R) − 1, where M_M
//!   and M_R bound the finite |u_M| and |u_R|: every finite u_j is ≥ −(M_M + M_R) > F ≥
//!   F + u_R, so −∞ stays below every finite value. The result's utilities are recomputed
//!   from the counts, −∞ included.
//!
//! Objective, lexicographic in two solves:
//! 1. eq. 4: maximise t subject to t ≤ u_j for every active job; t* is the least utility of
//!    the counts found, recomputed exactly;
//! 2. eq. 5: with u_j ≥ t* − [`UTILITY_TOLERANCE`] for every active job (no constraint when
//!    t* = −∞: every placement then has a job at −∞), maximise the packing
//!    Σ_{n,r: Ω>0} (used_{n,r} + Σ_c x_{c,n} d_{c,r}) / Ω_{n,r} ([`RasProblem::packing`];
//!    dimensionless), the used share of every (node, resource) summed.
//!
//! HiGHS runs single-threaded with a fixed seed, both MIP gaps at (nearly) zero and presolve
//! off: the same problem gets the same answer, unless a limit cuts a solve short. Stage 2
//! starts from stage 1's answer; stage 1 gets no start. Both choices come from the
//! brute-force property test: with "nothing placed" as stage 1's start HiGHS once stopped
//! there and called it optimal (a job with zero demand could have joined an overcommitted
//! node), and with presolve on it failed ("Error") on about 2% of tiny stage-2 models.

use super::ladder::Ladders;
use crate::error::SolveError;
use crate::ras::{Counts, RasProblem};
use crate::room::{Room, UNCAPPED};
use good_lp::solvers::highs::{highs, HighsProblem};
use good_lp::{
    variable, Expression, ProblemVariables, ResolutionError, Solution, SolutionStatus, SolverModel,
    Variable,
};
use placer_models::{Status, TaskKind};

/// The most variables the MIP reference builds: task classes × nodes integer counts plus the
/// ladders' binary indicators. Above it, `422 problem_too_large` at `policy.solver`: HiGHS's
/// branch and bound is exponential in the worst case, and the reference is for small
/// instances.
pub const MAX_VARIABLES: usize = 20_000;

/// How far below stage 1's least utility stage 2 may let a job's utility go (dimensionless):
/// HiGHS's feasibility tolerance, not a trade of utility for packing.
pub const UTILITY_TOLERANCE: f64 = 1e-7;

/// HiGHS's absolute MIP gap (the objectives' units): far below any two distinct utilities or
/// packings of a small instance, so that an answer within the gap is the optimum.
const ABSOLUTE_GAP: f64 = 1e-9;

/// HiGHS's random seed: fixed, for the same answer every run.
const SEED: i32 = 0;

/// Budgets of one [`solve`]; none by default.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MipLimits {
    /// Wall-clock seconds of HiGHS in all, split evenly between the two stages. The only
    /// clock in the solver crate: an answer cut short by it is `time_limited` and may depend
    /// on the machine's speed.
    pub time_limit_s: Option<f64>,
    /// Branch-and-bound nodes per stage: a deterministic budget (`time_limited` too when hit).
    pub max_nodes: Option<u32>,
}

/// The MIP reference's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct MipSolution {
    /// Tasks of each class per node.
    pub counts: Counts,
    /// RAS eq. 4's objective at `counts` ([`RasProblem::min_utility`]; −∞ possible, `None`
    /// when no job is active).
    pub min_utility: Option<f64>,
    /// RAS eq. 5's packing at `counts` ([`RasProblem::packing`]; dimensionless).
    pub packing: f64,
    /// `optimal`; `time_limited` when a limit of [`MipLimits`] cut a stage short; `heuristic`
    /// when HiGHS's tolerances admitted a count the room refuses and tasks were taken back.
    pub status: Status,
}

/// RAS's epoch problem solved exactly: the counts per (class, node) that maximise the least
/// utility of the active jobs (eq. 4), then the packing (eq. 5), within every node's room and
/// slots (eq. 6). See the module docs for the formulation and its units.
///
/// # Complexity
/// A model of O(classes · nodes + Σ_j placeable tasks of j) variables and
/// O(classes + nodes · (resources + 2) + Σ_j placeable) rows, built in O(classes · nodes ·
/// resources); HiGHS's branch and bound is exponential in the worst case (hence
/// [`MAX_VARIABLES`] and [`MipLimits`]).
///
/// # Errors
/// [`SolveError::ProblemTooLarge`] at `policy.solver` above [`MAX_VARIABLES`];
/// [`SolveError::EngineFailed`] when HiGHS fails without a limit to blame.
///
/// # Examples
/// RAS Table 2's Sort on one TaskTracker normalised to 100: a map takes CPU 30, I/O 45 and
/// memory 25, so two of three fit (I/O 90); with no goal s_req = 1 and s_pend = 3, so
/// u = (2 − 1) / (3 − 1) = 0.5, and the packing is 0.6 + 0.9 + 0.5 = 2.
/// ```
/// use placer_solver::{Indexed, mip, ras::RasProblem};
/// let req = placer_models::parse_request(br#"{"schema_version": 1,
///   "cluster": {"racks": [{"id": "r"}], "nodes": [{"id": "tt", "rack": "r",
///     "resources": {"cpu": 100, "io": 100, "mem": 100}}]},
///   "pools": [{"id": "p"}],
///   "jobs": [{"id": "sort", "pool": "p", "profile": {"map": {"cpu": 30, "io": 45, "mem": 25}}}],
///   "pending": [{"id": "m1", "job": "sort", "kind": "map"}, {"id": "m2", "job": "sort", "kind": "map"},
///               {"id": "m3", "job": "sort", "kind": "map"}]}"#).unwrap();
/// placer_models::validate(&req).unwrap();
/// let problem = RasProblem::of(&Indexed::new(&req));
/// let answer = mip::solve(&problem, mip::MipLimits::default()).unwrap();
/// assert_eq!(answer.counts.x, [[2]]);
/// assert_eq!(answer.min_utility, Some(0.5));
/// assert!((answer.packing - 2.0).abs() < 1e-12);
/// assert_eq!(answer.status, placer_models::Status::Optimal);
/// ```
pub fn solve(problem: &RasProblem, limits: MipLimits) -> Result<MipSolution, SolveError> {
    let nodes = problem.room.nodes();
    let classes = problem.classes.len();
    // The counts alone first: no bound is computed for a problem refused anyway.
    let cells = classes as u64 * nodes as u64;
    if cells > MAX_VARIABLES as u64 {
        return Err(too_large(classes, nodes, None));
    }
    let ub: Vec<Vec<u32>> =
        (0..classes).map(|c| (0..nodes).map(|n| upper_bound(problem, c, n)).collect()).collect();
    let placeable = placeable(problem, &ub);
    let binaries: u64 = placeable
        .iter()
        .zip(&problem.active)
        .filter(|(_, &a)| a)
        .map(|(p, _)| u64::from(p[0]) + u64::from(p[1]))
        .sum();
    if cells + binaries > MAX_VARIABLES as u64 {
        return Err(too_large(classes, nodes, Some(binaries)));
    }
    let zero = Counts::zero(classes, nodes);
    if !problem.active.contains(&true) || ub.iter().flatten().all(|&u| u == 0) {
        return Ok(answer(problem, zero, Status::Optimal));
    }
    let ladders = Ladders::of(problem, &placeable);
    let stages = Stages { problem, ub: &ub, ladders: &ladders, limits };

    // Stage 1 (eq. 4): the best least utility.
    let (first, limited) = match stages.run(Stage::Utility, None) {
        Ok(found) => found,
        Err(_) if limits.time_limit_s.is_some() || limits.max_nodes.is_some() => {
            return Ok(answer(problem, zero, Status::TimeLimited));
        }
        Err(e) => return Err(failed(&e)),
    };
    let (first, repaired) = admit(problem, first);
    let best = problem.min_utility(&first).unwrap_or(f64::NEG_INFINITY);
    let floor = best.is_finite().then_some(best - UTILITY_TOLERANCE);
    // Stage 2 (eq. 5): the best packing without lowering it. When no placeable task demands
    // anything, every placement packs the same and stage 1's answer is already best.
    let packs =
        problem.classes.iter().zip(&ub).any(|(class, row)| {
            class.demand.iter().any(|&d| d > 0.0) && row.iter().any(|&u| u > 0)
        });
    if !packs {
        let status = if limited {
            Status::TimeLimited
        } else if repaired {
            Status::Heuristic
        } else {
            Status::Optimal
        };
        return Ok(answer(problem, first, status));
    }
    let (second, limited_again, repaired_again) =
        match stages.run(Stage::Packing(floor), Some(&first)) {
            Ok((second, limited_again)) => {
                let (second, repaired_again) = admit(problem, second);
                (second, limited_again, repaired_again)
            }
            Err(_) if limits.time_limit_s.is_some() || limits.max_nodes.is_some() => {
                (first.clone(), true, false)
            }
            Err(e) => return Err(failed(&e)),
        };
    let kept = problem.min_utility(&second).unwrap_or(f64::NEG_INFINITY);
    let counts = if floor.is_some_and(|f| kept < f) { first } else { second };
    let status = if limited || limited_again {
        Status::TimeLimited
    } else if repaired || repaired_again {
        Status::Heuristic
    } else {
        Status::Optimal
    };
    Ok(answer(problem, counts, status))
}

/// The answer for `counts`, its utilities and packing recomputed exactly.
fn answer(problem: &RasProblem, counts: Counts, status: Status) -> MipSolution {
    MipSolution {
        min_utility: problem.min_utility(&counts),
        packing: problem.packing(&counts),
        counts,
        status,
    }
}

/// `problem_too_large` at `policy.solver`, with the sizes (`binaries` once known).
fn too_large(classes: usize, nodes: usize, binaries: Option<u64>) -> SolveError {
    let cells = classes as u64 * nodes as u64;
    let sizes = match binaries {
        Some(b) => format!("+ {b} utility indicators = {} variables", cells + b),
        None => format!("= {cells} variables before its utility indicators"),
    };
    SolveError::ProblemTooLarge {
        path: "policy.solver".to_owned(),
        message: format!(
            "the MIP reference needs {classes} task classes × {nodes} nodes {sizes}, over its \
             limit of {MAX_VARIABLES}"
        ),
    }
}

/// HiGHS's failure as an error at `policy.solver`.
fn failed(e: &ResolutionError) -> SolveError {
    SolveError::EngineFailed { path: "policy.solver".to_owned(), message: e.to_string() }
}

/// ub_{c,n}: the most tasks of class `c` node `n` can take by itself (module docs).
fn upper_bound(problem: &RasProblem, c: usize, n: usize) -> u32 {
    let class = &problem.classes[c];
    if !class.allows(n) {
        return 0;
    }
    let room = &problem.room;
    let mut ub = u32::try_from(class.tasks.len()).unwrap_or(u32::MAX);
    let slots = room.slots_left[n][class.kind.slot()];
    if slots != UNCAPPED {
        ub = ub.min(slots);
    }
    if let (Some(disk), true) = (problem.disk[n], class.output > 0) {
        ub = ub.min(u32::try_from(disk / class.output).unwrap_or(u32::MAX));
    }
    if class.kind == TaskKind::Reduce {
        ub = ub.min(problem.copy_room(class.job, n));
    }
    for (k, &d) in class.demand.iter().enumerate() {
        if d > 0.0 {
            let fit = (room.headroom(n, k) / d).floor();
            if fit < 0.0 {
                return 0;
            }
            if fit < f64::from(ub) {
                ub = fit as u32;
            }
        }
    }
    ub
}

/// P_j per kind: how many of job j's tasks of each kind the bounds let this epoch place.
fn placeable(problem: &RasProblem, ub: &[Vec<u32>]) -> Vec<[u32; 2]> {
    let mut placeable = vec![[0u32; 2]; problem.needs.len()];
    for (class, row) in problem.classes.iter().zip(ub) {
        let reach: u64 = row.iter().map(|&u| u64::from(u)).sum();
        let most = reach.min(class.tasks.len() as u64);
        let p = &mut placeable[class.job as usize][class.kind.slot()];
        *p = p.saturating_add(u32::try_from(most).unwrap_or(u32::MAX));
    }
    placeable
}

/// Counts as the room admits them, class by class in order, one task at a time (the order
/// [`RasProblem::feasible`] checks): unchanged when feasible; otherwise what HiGHS's
/// tolerances let through is taken back, and the flag says so.
fn admit(problem: &RasProblem, counts: Counts) -> (Counts, bool) {
    if problem.feasible(&counts) {
        return (counts, false);
    }
    let mut room: Room = problem.room.clone();
    let mut x = counts.x;
    for (class, row) in problem.classes.iter().zip(&mut x) {
        let mut left = class.tasks.len();
        for (n, k) in row.iter_mut().enumerate() {
            let mut kept = 0;
            while kept < *k && left > 0 && room.fits(n, class.kind, &class.demand) {
                room.take(n, class.kind, &class.demand);
                kept += 1;
                left -= 1;
            }
            *k = kept;
        }
    }
    (Counts { x }, true)
}

/// Which objective a solve has.
#[derive(Clone, Copy)]
enum Stage {
    /// Eq. 4: maximise t ≤ u_j.
    Utility,
    /// Eq. 5: maximise the packing with u_j ≥ the floor, if any.
    Packing(Option<f64>),
}

/// What both stages share.
struct Stages<'a> {
    problem: &'a RasProblem,
    ub: &'a [Vec<u32>],
    ladders: &'a Ladders,
    limits: MipLimits,
}

/// One stage's model: the variables, and each active job's utility as an expression.
struct Model {
    vars: ProblemVariables,
    /// x_{c,n}, `None` where ub_{c,n} = 0.
    x: Vec<Vec<Option<Variable>>>,
    /// z per job and kind.
    z: Vec<[Vec<Variable>; 2]>,
    /// t, the least utility.
    t: Variable,
    /// u_j per job (`None` for inactive jobs).
    utility: Vec<Option<Expression>>,
}

impl Stages<'_> {
    /// Solves one stage, from the feasible point `start` when given: the counts, and whether
    /// a limit cut the solve short.
    fn run(&self, stage: Stage, start: Option<&Counts>) -> Result<(Counts, bool), ResolutionError> {
        let Model { vars, x, z, t, utility } = self.model();
        let objective = match stage {
            Stage::Utility => Expression::from(t),
            Stage::Packing(_) => self.packing(&x),
        };
        let mut lp: HighsProblem = vars.maximise(objective).using(highs);
        lp = self.options(lp);
        self.constrain(&mut lp, &x, &z);
        for (j, u) in utility.into_iter().enumerate() {
            let Some(u) = u else { continue };
            // A job with nothing placeable has a constant utility, which stage 1's least
            // already satisfies: no row without variables.
            let fixed = self.ladders.of_job[j].iter().all(|l| l.steps.is_empty());
            match stage {
                Stage::Utility => {
                    lp.add_constraint(u.geq(t));
                }
                Stage::Packing(Some(floor)) if !fixed => {
                    lp.add_constraint(u.geq(floor));
                }
                Stage::Packing(_) => {}
            }
        }
        let solution = match start {
            Some(start) => {
                let values = self.start(&x, &z, t, start);
                good_lp::WithInitialSolution::with_initial_solution(lp, values).solve()?
            }
            None => lp.solve()?,
        };
        let limited = matches!(solution.status(), SolutionStatus::TimeLimit);
        let counts = Counts {
            x: x.iter()
                .map(|row| {
                    row.iter()
                        .map(|v| v.map_or(0, |v| solution.value(v).round().max(0.0) as u32))
                        .collect()
                })
                .collect(),
        };
        Ok((counts, limited))
    }

    /// The variables and the utility expressions (module docs).
    fn model(&self) -> Model {
        let problem = self.problem;
        let mut vars = ProblemVariables::new();
        let x: Vec<Vec<Option<Variable>>> = self
            .ub
            .iter()
            .map(|row| {
                row.iter()
                    .map(|&u| (u > 0).then(|| vars.add(variable().integer().min(0).max(u))))
                    .collect()
            })
            .collect();
        let z: Vec<[Vec<Variable>; 2]> = self
            .ladders
            .of_job
            .iter()
            .map(|[m, r]| {
                [m, r].map(|l| l.steps.iter().map(|_| vars.add(variable().binary())).collect())
            })
            .collect();
        let t = vars.add(variable().min(self.ladders.floor - 2.0).max(1.0));
        let utility = (0..problem.needs.len())
            .map(|j| {
                problem.active[j].then(|| {
                    let mut u = Expression::from(0.0);
                    for (ladder, zs) in self.ladders.of_job[j].iter().zip(&z[j]) {
                        u += ladder.base;
                        for (&step, &zk) in ladder.steps.iter().zip(zs) {
                            u.add_mul(step, zk);
                        }
                    }
                    u
                })
            })
            .collect();
        Model { vars, x, z, t, utility }
    }

    /// The packing's variable part: Σ_{c,n} x_{c,n} Σ_{r: Ω>0} d_{c,r} / Ω_{n,r}.
    fn packing(&self, x: &[Vec<Option<Variable>>]) -> Expression {
        let room = &self.problem.room;
        let r = room.resources();
        let mut packing = Expression::from(0.0);
        for (class, row) in self.problem.classes.iter().zip(x) {
            for (n, v) in row.iter().enumerate() {
                let Some(v) = *v else { continue };
                let share: f64 = class
                    .demand
                    .iter()
                    .zip(&room.capacity[n * r..(n + 1) * r])
                    .filter(|(_, &cap)| cap > 0.0)
                    .map(|(d, cap)| d / cap)
                    .sum();
                packing.add_mul(share, v);
            }
        }
        packing
    }

    /// Supply, room, slots and ladder rows (module docs).
    fn constrain(
        &self,
        lp: &mut HighsProblem,
        x: &[Vec<Option<Variable>>],
        z: &[[Vec<Variable>; 2]],
    ) {
        let problem = self.problem;
        let room = &problem.room;
        for ((class, row), bounds) in problem.classes.iter().zip(x).zip(self.ub) {
            let reach: u64 = bounds.iter().map(|&u| u64::from(u)).sum();
            if reach > class.tasks.len() as u64 {
                let tasks = class.tasks.len() as f64;
                let placed: Expression = row.iter().flatten().copied().sum();
                lp.add_constraint(placed.leq(tasks));
            }
        }
        for n in 0..room.nodes() {
            for k in 0..room.resources() {
                let mut load = Expression::from(0.0);
                let mut any = false;
                for (class, row) in problem.classes.iter().zip(x) {
                    if let (Some(v), d) = (row[n], class.demand[k]) {
                        if d > 0.0 {
                            load.add_mul(d, v);
                            any = true;
                        }
                    }
                }
                if any {
                    lp.add_constraint(load.leq(room.headroom(n, k)));
                }
            }
            // Intermediate space (FAIR §5.4): Σ_c x_{c,n} · output_c ≤ disk_n.
            if let Some(disk) = problem.disk[n] {
                let mut written = Expression::from(0.0);
                let mut any = false;
                for (class, row) in problem.classes.iter().zip(x) {
                    if let (Some(v), true) = (row[n], class.output > 0) {
                        written.add_mul(class.output as f64, v);
                        any = true;
                    }
                }
                if any {
                    lp.add_constraint(written.leq(disk as f64));
                }
            }
            // CPAC (FAIR §5.2): per job, Σ of its reduce classes' x_{c,n} ≤ its copy room.
            if problem.copy_limit[n].is_some() {
                let mut per_job: std::collections::BTreeMap<u32, Expression> =
                    std::collections::BTreeMap::new();
                for (class, row) in problem.classes.iter().zip(x) {
                    if let (Some(v), TaskKind::Reduce) = (row[n], class.kind) {
                        *per_job.entry(class.job).or_insert_with(|| Expression::from(0.0)) += v;
                    }
                }
                for (job, copies) in per_job {
                    lp.add_constraint(copies.leq(f64::from(problem.copy_room(job, n))));
                }
            }
            for kind in TaskKind::ALL {
                let slots = room.slots_left[n][kind.slot()];
                if slots == UNCAPPED {
                    continue;
                }
                let on: Expression = problem
                    .classes
                    .iter()
                    .zip(x)
                    .filter(|(class, _)| class.kind == kind)
                    .filter_map(|(_, row)| row[n])
                    .sum();
                lp.add_constraint(on.leq(f64::from(slots)));
            }
        }
        for (j, zs) in z.iter().enumerate() {
            for kind in TaskKind::ALL {
                let steps = &zs[kind.slot()];
                if steps.is_empty() {
                    continue;
                }
                for pair in steps.windows(2) {
                    lp.add_constraint(Expression::from(pair[0]).geq(pair[1]));
                }
                let placed: Expression = problem
                    .classes
                    .iter()
                    .zip(x)
                    .filter(|(class, _)| class.job as usize == j && class.kind == kind)
                    .flat_map(|(_, row)| row.iter().flatten().copied())
                    .sum();
                let indicated: Expression = steps.iter().copied().sum();
                lp.add_constraint(indicated.eq(placed));
            }
        }
    }

    /// A feasible start: `start`'s counts, their ladders' indicators, t at their least
    /// (floored) utility.
    fn start(
        &self,
        x: &[Vec<Option<Variable>>],
        z: &[[Vec<Variable>; 2]],
        t: Variable,
        start: &Counts,
    ) -> Vec<(Variable, f64)> {
        let mut values = Vec::new();
        for (row, counts) in x.iter().zip(&start.x) {
            for (v, &k) in row.iter().zip(counts) {
                if let Some(v) = v {
                    values.push((*v, f64::from(k)));
                }
            }
        }
        let placed = self.problem.allocated(start);
        let mut least = 1.0_f64;
        for (j, zs) in z.iter().enumerate() {
            if !self.problem.active[j] {
                continue;
            }
            let mut u = 0.0;
            for kind in 0..2 {
                let more = placed[j][kind] - self.problem.running[j][kind];
                let ladder = &self.ladders.of_job[j][kind];
                u += ladder.base;
                for (k, (&zk, &step)) in zs[kind].iter().zip(&ladder.steps).enumerate() {
                    let on = (k as u32) < more;
                    values.push((zk, if on { 1.0 } else { 0.0 }));
                    if on {
                        u += step;
                    }
                }
            }
            least = least.min(u);
        }
        values.push((t, least));
        values
    }

    /// Single thread, fixed seed, (nearly) zero gaps, the limits, no output.
    fn options(&self, lp: HighsProblem) -> HighsProblem {
        let mut lp = lp
            .set_threads(1)
            .set_option("random_seed", SEED)
            .set_option("mip_rel_gap", 0.0)
            .set_option("mip_abs_gap", ABSOLUTE_GAP)
            .set_option("presolve", "off");
        if let Some(s) = self.limits.time_limit_s {
            lp = lp.set_time_limit((s / 2.0).max(0.0));
        }
        if let Some(nodes) = self.limits.max_nodes {
            lp = lp.set_option("mip_max_nodes", i32::try_from(nodes).unwrap_or(i32::MAX));
        }
        lp
    }
}
