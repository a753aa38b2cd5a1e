//! The goal plan behind placer's s_req (RAS, Polo et al. §3.2's Job Completion Time Estimator,
//! with an ordering by goal the paper does not have): the share of the cluster each job with a
//! completion-time goal must hold *now*, from a plan of every such job over time.
//!
//! **placer's departure from the paper.** RAS eq. 2 takes s_req = ⌈remaining · mean / (goal −
//! now)⌉: each job spreads its remaining work evenly up to its own goal, whatever the others
//! need, and eq. 4's max-min then honours every such claim equally. On RAS's Experiment 2 at
//! the calibrated load that made every job in the J2–J5 window equally short (J1, 1,440 maps
//! with 740 s of slack, claimed half the cluster there) and `ras` met 2 goals of 9 where `drf`
//! met 3 and `fair` 5 (BENCHMARKS.md, "RAS at the paper's load"). placer keeps the utility
//! (eqs. 1–3) and the max-min (eq. 4) and changes only s_req: it is the job's share of the
//! cluster now in a plan that serves the goals earliest first.
//!
//! The plan (a fluid model of the cluster, shares in [0, 1]):
//! - A job j's maps run at most C_j at once on the whole, empty cluster (its concurrency, the
//!   caller's count: Σ over nodes of how many of its maps fit one). Its work is W_j = s_pend ·
//!   m_j / C_j cluster-seconds (m_j its map length, s) and it can use at most a share
//!   min(1, s_pend / C_j) of the cluster (all its maps at once). A job with work 0 (no length
//!   known) still holds its share for [`MIN_HOLD_S`].
//! - Earliest goal first (then earlier arrival), each job takes as much as it can use of what
//!   the jobs before it leave, as early as possible (EDF). Its s_req is its share at `now` · C_j,
//!   rounded up, clamped to [1, s_pend].
//! - A job that cannot meet its goal even alone (goal passed, or now + W_j / share > goal) and a
//!   job the plan cannot fit (Moore and Hodgson's rule: when the job just added would end after
//!   its goal, the job of most work so far leaves the plan, until it fits) are left out. Each
//!   then goes back, earliest goal first, at its place by goal when every planned job still
//!   meets its goal with it there (it uses their slack), else to the end, on what the others
//!   leave: a job that can no longer meet its goal does not starve the others, and the plan
//!   keeps as many goals as it can.
//!
//! So a job with slack yields while earlier goals need the room (its s_req falls to 1, and
//! eq. 2's linear part above s_req still gives it what nobody needs), and an urgent job asks
//! for all it can use.

/// How long a job with no known work holds its share in the plan, s: its share now counts
/// against the later jobs'.
pub const MIN_HOLD_S: f64 = 1.0;

/// One job with a completion-time goal, as the plan sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GoalJob {
    /// The goal, absolute (s, the snapshot's clock).
    pub goal_s: f64,
    /// Maps still to run (pending or running), s_pend ≥ 1.
    pub s_pend: u32,
    /// C_j: how many of its maps the whole empty cluster runs at once (> 0).
    pub concurrency: f64,
    /// Its map length, s (the observed mean, or a lower bound; ≥ 0).
    pub map_s: f64,
    /// Tie-break between equal goals: lower first (arrival order).
    pub rank: u32,
}

impl GoalJob {
    /// Its largest share of the cluster: min(1, s_pend / C_j).
    fn cap(&self) -> f64 {
        (f64::from(self.s_pend) / self.concurrency).min(1.0)
    }

    /// Its work in cluster-seconds, at least its cap held [`MIN_HOLD_S`].
    fn work(&self) -> f64 {
        (f64::from(self.s_pend) * self.map_s / self.concurrency).max(self.cap() * MIN_HOLD_S)
    }
}

/// The free share of the cluster from each segment's start (s) to the next one's; the last
/// segment lasts for ever. Free shares never decrease along the plan (each job takes room from
/// `now` on).
#[derive(Clone, Debug)]
struct Profile {
    segments: Vec<(f64, f64)>,
}

impl Profile {
    fn empty(now_s: f64) -> Self {
        Self { segments: vec![(now_s, 1.0)] }
    }

    /// Fills `work` at a rate of at most `cap` as early as possible: (finish, rate at now).
    fn take(&mut self, cap: f64, work: f64) -> (f64, f64) {
        let rate_now = cap.min(self.segments[0].1).max(0.0);
        let mut left = work;
        let mut out: Vec<(f64, f64)> = Vec::with_capacity(self.segments.len() + 1);
        let mut finish = f64::INFINITY;
        let n = self.segments.len();
        for i in 0..n {
            let (start, free) = self.segments[i];
            if left <= 0.0 {
                out.push((start, free));
                continue;
            }
            let end = if i + 1 < n { self.segments[i + 1].0 } else { f64::INFINITY };
            let rate = cap.min(free).max(0.0);
            if rate <= 0.0 {
                out.push((start, free));
                continue;
            }
            let done_at = start + left / rate;
            if done_at < end {
                out.push((start, (free - rate).max(0.0)));
                out.push((done_at, free));
                finish = done_at;
                left = 0.0;
            } else {
                out.push((start, (free - rate).max(0.0)));
                left -= rate * (end - start);
            }
        }
        self.segments = out;
        (finish, rate_now)
    }
}

/// Each job's s_req now from the goal plan (module docs): ⌈share now · C_j⌉ in [1, s_pend].
///
/// Units: seconds; counts; shares of the cluster.
///
/// # Complexity
/// O(n log n + n² · (1 + jobs the plan drops)) for n jobs: each job added walks a profile of
/// O(n) segments, and each job dropped rebuilds it.
///
/// # Errors
/// None: a job with a non-finite or non-positive concurrency stays out of the plan (s_req 1),
/// a non-finite or negative length reads as 0 (no work), s_pend 0 gives 0.
///
/// # Examples
/// RAS Experiment 2's J1 (Sort, goal 3,000 s, 1,202 maps of 47 s left, 40 at once) and J5
/// (Select, goal 950 s, 80 maps of 31 s, 100 at once) at 500 s: J5 takes the 0.8 of the cluster
/// its 80 maps fill and ends at 531 s; J1, with slack, needs the other 0.2 now, 8 maps, instead
/// of eq. 2's ⌈1,202 · 47 / 2,500⌉ = 23.
/// ```
/// use placer_solver::ras::plan::{required_now, GoalJob};
/// let j1 = GoalJob { goal_s: 3000.0, s_pend: 1202, concurrency: 40.0, map_s: 47.0, rank: 0 };
/// let j5 = GoalJob { goal_s: 950.0, s_pend: 80, concurrency: 100.0, map_s: 31.0, rank: 4 };
/// assert_eq!(required_now(&[j1, j5], 500.0), vec![8, 80]);
/// ```
pub fn required_now(jobs: &[GoalJob], now_s: f64) -> Vec<u32> {
    let usable = |j: &GoalJob| j.s_pend > 0 && j.concurrency.is_finite() && j.concurrency > 0.0;
    let jobs: Vec<GoalJob> = jobs
        .iter()
        .map(|j| GoalJob { map_s: if j.map_s.is_finite() { j.map_s.max(0.0) } else { 0.0 }, ..*j })
        .collect();
    let mut order: Vec<usize> = (0..jobs.len()).filter(|&i| usable(&jobs[i])).collect();
    order.sort_by(|&a, &b| {
        jobs[a].goal_s.total_cmp(&jobs[b].goal_s).then(jobs[a].rank.cmp(&jobs[b].rank))
    });
    // Jobs that miss even alone go last.
    let alone_ok = |j: &GoalJob| now_s + j.work() / j.cap() <= j.goal_s;
    let mut last: Vec<usize> = Vec::new();
    let mut accepted: Vec<usize> = Vec::new();
    let mut profile = Profile::empty(now_s);
    for &k in &order {
        if !alone_ok(&jobs[k]) {
            last.push(k);
            continue;
        }
        loop {
            let mut trial = profile.clone();
            let (finish, _) = trial.take(jobs[k].cap(), jobs[k].work());
            if finish <= jobs[k].goal_s {
                profile = trial;
                accepted.push(k);
                break;
            }
            // Moore–Hodgson: the job of most work (k included) leaves the plan.
            let out = accepted
                .iter()
                .copied()
                .chain(std::iter::once(k))
                .max_by(|&a, &b| {
                    jobs[a].work().total_cmp(&jobs[b].work()).then(jobs[a].rank.cmp(&jobs[b].rank))
                })
                .unwrap_or(k);
            last.push(out);
            if out == k {
                break;
            }
            accepted.retain(|&a| a != out);
            profile = Profile::empty(now_s);
            for &a in &accepted {
                profile.take(jobs[a].cap(), jobs[a].work());
            }
        }
    }
    last.sort_by(|&a, &b| {
        jobs[a].goal_s.total_cmp(&jobs[b].goal_s).then(jobs[a].rank.cmp(&jobs[b].rank))
    });
    // Each job left out goes back at its place by goal when every planned job still meets its
    // goal there, else to the end.
    let key = |j: usize| (jobs[j].goal_s, jobs[j].rank);
    let mut sequence = accepted;
    let mut tail: Vec<usize> = Vec::new();
    for &d in &last {
        let at = sequence
            .iter()
            .position(|&a| key(a).0.total_cmp(&key(d).0).then(key(a).1.cmp(&key(d).1)).is_gt())
            .unwrap_or(sequence.len());
        let mut trial = sequence.clone();
        trial.insert(at, d);
        let mut profile = Profile::empty(now_s);
        let keeps = trial.iter().all(|&a| {
            let (finish, _) = profile.take(jobs[a].cap(), jobs[a].work());
            a == d || finish <= jobs[a].goal_s
        });
        if keeps {
            sequence = trial;
        } else {
            tail.push(d);
        }
    }
    let mut plan = Profile::empty(now_s);
    let mut req: Vec<u32> = jobs.iter().map(|j| j.s_pend.min(1)).collect();
    for &j in sequence.iter().chain(&tail) {
        let (_, rate) = plan.take(jobs[j].cap(), jobs[j].work());
        let want = (rate * jobs[j].concurrency - 1e-9).ceil();
        req[j] =
            if want >= f64::from(jobs[j].s_pend) { jobs[j].s_pend } else { (want.max(1.0)) as u32 };
    }
    req
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(goal_s: f64, s_pend: u32, concurrency: f64, map_s: f64, rank: u32) -> GoalJob {
        GoalJob { goal_s, s_pend, concurrency, map_s, rank }
    }

    /// Alone, a job that can make its goal asks for all it can use at once.
    #[test]
    fn alone_asks_for_its_full_share() {
        assert_eq!(required_now(&[job(3000.0, 1440, 40.0, 47.0, 0)], 0.0), vec![40]);
        assert_eq!(required_now(&[job(950.0, 80, 100.0, 31.0, 0)], 500.0), vec![80]);
    }

    /// Two jobs that each fill the cluster: the earlier goal takes it all now, the later one
    /// asks for one map (eq. 2's floor); swapping their ranks does not matter, goals decide.
    #[test]
    fn earlier_goal_first() {
        let a = job(1000.0, 100, 100.0, 100.0, 1);
        let b = job(500.0, 100, 100.0, 100.0, 0);
        assert_eq!(required_now(&[a, b], 0.0), vec![1, 100]);
        let b_later = job(500.0, 100, 100.0, 100.0, 2);
        assert_eq!(required_now(&[a, b_later], 0.0), vec![1, 100]);
    }

    /// A job past its goal goes first while the other keeps its goal (60 s of work, then
    /// the other's 60 s end at 320 s ≤ 400 s), and last when it would not (goal 300 s).
    #[test]
    fn a_missed_goal_uses_only_the_others_slack() {
        let late = job(100.0, 50, 50.0, 60.0, 0);
        let fine = job(400.0, 50, 50.0, 60.0, 1);
        assert_eq!(required_now(&[late, fine], 200.0), vec![50, 1]);
        let tight = job(300.0, 50, 50.0, 60.0, 1);
        assert_eq!(required_now(&[late, tight], 200.0), vec![1, 50]);
    }

    /// Moore–Hodgson: three jobs of which two fit their goals; the one of most work leaves
    /// the plan, and the two others keep theirs. Each fills the cluster (C = s_pend): works
    /// 100, 300 and 100 s, goals 150, 350, 250 s. EDF: A ends at 100, B at 400 > 350: B (most
    /// work) leaves; C then ends at 200 ≤ 250. Now A takes the whole cluster, B and C wait.
    #[test]
    fn the_largest_job_leaves_an_infeasible_plan() {
        let a = job(150.0, 10, 10.0, 100.0, 0);
        let b = job(350.0, 10, 10.0, 300.0, 1);
        let c = job(250.0, 10, 10.0, 100.0, 2);
        assert_eq!(required_now(&[a, b, c], 0.0), vec![10, 1, 1]);
    }

    /// Shares add up: a job that fills half the cluster leaves the other half to the next.
    #[test]
    fn the_next_job_gets_what_the_first_leaves() {
        let half = job(100.0, 20, 40.0, 50.0, 0);
        let next = job(1000.0, 400, 40.0, 50.0, 1);
        assert_eq!(required_now(&[half, next], 0.0), vec![20, 20]);
    }

    /// Degenerate inputs never panic: no concurrency gives eq. 2's floor of 1.
    #[test]
    fn degenerate_inputs() {
        assert_eq!(required_now(&[job(10.0, 0, 4.0, 1.0, 0)], 0.0), vec![0]);
        assert_eq!(required_now(&[job(10.0, 3, 0.0, 1.0, 0)], 0.0), vec![1]);
        assert_eq!(required_now(&[job(10.0, 3, f64::INFINITY, 1.0, 0)], 0.0), vec![1]);
        // No work: alone it still asks for all its 3 maps (share 3 / 4 of the cluster).
        assert_eq!(required_now(&[job(10.0, 3, 4.0, f64::NAN, 0)], 0.0), vec![3]);
        assert_eq!(required_now(&[], 0.0), Vec::<u32>::new());
    }
}
