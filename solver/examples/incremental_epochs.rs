//! The incremental engine against cold structured solves over epochs of 1% churn (Firmament,
//! Gog et al., OSDI 2016, §5: consecutive rounds differ little; lsap-sched's eq. 1 costs).
//!
//! A synthetic cluster shaped as `placer gen snapshot --nodes N --rack-size R --map-slots 4
//! --idle 0.25 --tasks T --replication 3 --rack-aware --seed 1` would shape it, its task arcs
//! drawn directly from a seeded xorshift (no snapshot, no cost model): N nodes in racks of R,
//! a quarter of the 4·N map slots free (spread at random), T pending maps, each with 3
//! replicas rack-aware (one node in a rack, two in another), cost 0 on a replica node, 1 s
//! (10⁹ units) on a replica's rack, 4 s anywhere else. Epoch 0 builds the incremental state
//! from nothing and solves cold once. Each later epoch: 1% of the pending tasks, among those
//! placed, start (they leave the list and take their slot), as many running tasks finish
//! (a random node gains a slot) and 1% new tasks arrive; then the incremental engine
//! reoptimizes and a cold `structured::solve_warm` solves the same tasks and slots; the
//! objectives (placed, cost in units) must be equal.
//!
//! With `quota` as the sixth argument the network has lsap_quota's front
//! ([`structured::Quotas`]): 4 pools of weights 1–4, jobs of 50 tasks (job j in pool j mod 4,
//! new tasks in a random job), each job a delay level (j mod 3: a rack arc costs one unit
//! more beyond level 0, the cluster arc beyond level 1), costs in µs × the scale
//! (2 · tasks + 1 rounded up to a power of two, as the kept flow of `exact::structured`
//! has it). Each epoch the pools' units are set again: lsap_quota's D-optimal counts
//! (`policy::share_box`) for the free slots, the pools' pending tasks and their running
//! ones (three of every node's four slots at first, split by weight; a task that starts adds
//! one to its pool, one that finishes takes one from a pool drawn by its running count);
//! every job's share is ⌈0.9 · slots / jobs⌉; and one job's level moves (its tasks are
//! replaced).
//!
//! `cargo run --release -p placer-solver --example incremental_epochs -- NODES RACK_SIZE
//! TASKS [EPOCHS] [SEED] [quota]`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]
use placer_solver::flow::incremental::{IncrementalFlow, JobHandle, TaskHandle};
use placer_solver::flow::structured::{self, Quotas, Slots, TaskArcs};
use placer_solver::policy::share_box;
use std::time::Instant;

const RACK_COST: i64 = 1_000_000_000;
const REMOTE_COST: i64 = 4_000_000_000;
/// Under quotas: pools' weights, and tasks per job.
const WEIGHTS: [u64; 4] = [1, 2, 3, 4];
const JOB_TASKS: usize = 50;

/// lsap_quota's front for `slots` free slots, `running` and `per_pool` pending tasks per pool
/// (see the module doc): the policy's own D-optimal pool counts.
fn front(slots: u64, running: &[u64], per_pool: &[u64], job_pool: &[u32]) -> Quotas {
    let weight = WEIGHTS.map(|w| w as f64);
    let active = [true; WEIGHTS.len()];
    let b = share_box(&weight, running, per_pool, &active, slots);
    let jobs = job_pool.len() as u64;
    Quotas {
        must: b.must,
        flex: b.flex.into_iter().zip(b.group).collect(),
        groups: b.groups,
        job_pool: job_pool.to_vec(),
        job_share: vec![(9 * slots).div_ceil(10 * jobs); job_pool.len()],
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize, default: u64| args.get(i).map_or(default, |x| x.parse().expect("number"));
    let nodes = arg(1, 2_500) as usize;
    let rack_size = arg(2, 20) as usize;
    let tasks = arg(3, 5_000) as usize;
    let epochs = arg(4, 10) as usize;
    let mut x = arg(5, 1) | 1;
    let quota = args.get(6).is_some_and(|a| a == "quota");
    let jobs = if quota { tasks.div_ceil(JOB_TASKS) } else { 1 };
    let job_pool: Vec<u32> = (0..jobs as u32).map(|j| j % WEIGHTS.len() as u32).collect();
    let mut level: Vec<u8> = (0..jobs).map(|j| (j % 3) as u8).collect();
    // Running tasks per pool: three of every node's four slots, split by weight.
    let sum_w: u64 = WEIGHTS.iter().sum();
    let mut running: Vec<u64> = WEIGHTS.iter().map(|w| 3 * nodes as u64 * w / sum_w).collect();
    // Under quotas: µs × the scale (locality first, then the unit surcharges).
    let (unit, scale) =
        if quota { (1_000, ((2 * tasks + 1) as u64).next_power_of_two() as i64) } else { (1, 1) };
    let mut next = move |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m.max(1)
    };
    let racks = nodes.div_ceil(rack_size);
    let node_rack: Vec<u32> = (0..nodes).map(|n| (n / rack_size) as u32).collect();
    let mut free = vec![0u32; nodes];
    for _ in 0..nodes {
        // A quarter of 4 slots per node: one free slot per node on average.
        let n = next(nodes as u64) as usize;
        if free[n] < 4 {
            free[n] += 1;
        }
    }
    let task = |next: &mut dyn FnMut(u64) -> u64, job: u32, level: u8| {
        let late = |class: u8| i64::from(quota && class > level);
        let a = next(racks as u64) as usize;
        let mut b = next(racks as u64) as usize;
        if racks > 1 && b == a {
            b = (a + 1) % racks;
        }
        let in_rack = |q: usize, next: &mut dyn FnMut(u64) -> u64| {
            let size = rack_size.min(nodes - q * rack_size);
            (q * rack_size + next(size as u64) as usize) as u32
        };
        let first = in_rack(a, next);
        let (second, mut third) = (in_rack(b, next), in_rack(b, next));
        if third == second && rack_size > 1 {
            third =
                (b * rack_size) as u32 + (third + 1 - (b * rack_size) as u32) % rack_size as u32;
        }
        let mut on_node = vec![(first, 0), (second, 0), (third, 0)];
        on_node.sort_unstable();
        on_node.dedup();
        let rack = RACK_COST / unit * scale + late(1);
        let mut listed = vec![(a as u32, rack), (b as u32, rack)];
        listed.sort_unstable();
        listed.dedup();
        let base = Some(REMOTE_COST / unit * scale + late(2));
        TaskArcs { offset: 0, on_node, racks: listed, base, job }
    };
    let per_pool = |pending: &[(TaskHandle, TaskArcs)]| {
        let mut count = vec![0u64; WEIGHTS.len()];
        for (_, arcs) in pending {
            count[job_pool[arcs.job as usize] as usize] += 1;
        }
        count
    };
    let mut pending: Vec<(TaskHandle, TaskArcs)> = Vec::with_capacity(tasks);
    let start = Instant::now();
    // Fewer free slots than tasks: the build fills slots (each searches for its best task).
    let filling = free.iter().map(|&f| f as usize).sum::<usize>() <= tasks;
    let mut flow = if filling {
        IncrementalFlow::filling_slots(&node_rack, racks)
    } else {
        IncrementalFlow::new(&node_rack, racks)
    };
    if quota {
        flow = flow.with_quotas();
        for &p in &job_pool {
            flow.add_job(p, 0);
        }
    }
    for (n, &f) in free.iter().enumerate() {
        flow.set_free(n as u32, f);
    }
    for i in 0..tasks {
        let job = (i / JOB_TASKS) as u32 % jobs as u32;
        let arcs = task(&mut next, job, level[job as usize]);
        pending.push((flow.add_task(arcs.clone()), arcs));
    }
    // Sets the front for this epoch's slots and tasks (O(pools + jobs)).
    let set_front = |flow: &mut IncrementalFlow,
                     free: &[u32],
                     running: &[u64],
                     pending: &[(TaskHandle, TaskArcs)]| {
        let slots = free.iter().map(|&f| u64::from(f)).sum();
        let q = front(slots, running, &per_pool(pending), &job_pool);
        flow.set_groups(q.groups);
        for (p, (&m, &(f, g))) in q.must.iter().zip(&q.flex).enumerate() {
            flow.set_pool(p as u32, m, f, g);
        }
        for (j, &s) in q.job_share.iter().enumerate() {
            flow.set_job_share(JobHandle(j as u32), s);
        }
        q
    };
    if quota {
        set_front(&mut flow, &free, &running, &pending);
    }
    assert!(flow.reoptimize(None));
    let build_ms = start.elapsed().as_secs_f64() * 1e3;
    let cold = |free: &[u32], running: &[u64], pending: &[(TaskHandle, TaskArcs)]| {
        let slots = Slots { node_rack: &node_rack, free, racks };
        let total = free.iter().map(|&f| u64::from(f)).sum();
        let q = quota.then(|| front(total, running, &per_pool(pending), &job_pool));
        let start = Instant::now();
        let answer = structured::solve_warm(
            slots,
            pending.len(),
            |i| pending[i].1.clone(),
            q.as_ref(),
            None,
            None,
        );
        let ms = start.elapsed().as_secs_f64() * 1e3;
        let mut cost = 0i128;
        for ((_, arcs), node) in pending.iter().zip(&answer.node_of_task) {
            let Some(n) = *node else { continue };
            let q = node_rack[n as usize];
            let on_node = arcs.on_node.iter().find(|p| p.0 == n).map(|p| p.1);
            let on_rack = arcs.racks.iter().find(|p| p.0 == q).map(|p| p.1);
            cost += i128::from([on_node, on_rack, arcs.base].into_iter().flatten().min().unwrap());
        }
        if let Some(q) = &q {
            // The job surcharges: one unit per task beyond its job's share.
            let mut per_job = vec![0u64; q.job_share.len()];
            for ((_, arcs), node) in pending.iter().zip(&answer.node_of_task) {
                per_job[arcs.job as usize] += u64::from(node.is_some());
            }
            let beyond = per_job.iter().zip(&q.job_share).map(|(&c, &s)| c.saturating_sub(s));
            cost += i128::from(beyond.sum::<u64>());
        }
        (answer.node_of_task.iter().flatten().count() as u64, cost, ms)
    };
    let (placed, cost, cold_ms) = cold(&free, &running, &pending);
    assert_eq!((flow.placed(), flow.total_cost()), (placed, cost), "epoch 0");
    println!(
        "nodes {nodes}, racks of {rack_size}, tasks {tasks}, free slots {}, {}",
        free.iter().sum::<u32>(),
        if quota { format!("quotas: 4 pools, {jobs} jobs") } else { "no quotas".to_owned() }
    );
    println!("epoch,placed,cost_units,incremental_ms,placement_ms,diff_ms,cold_ms,settled,equal");
    println!("0,{placed},{cost},{build_ms:.2},-,-,{cold_ms:.2},{},true", flow.settled_total());
    let churn = (tasks / 100).max(1);
    let (mut inc, mut out, mut colds) = (Vec::new(), Vec::new(), Vec::new());
    let mut diffs = Vec::new();
    for epoch in 1..=epochs {
        // 1% of the placed tasks start: they leave the pending list and take their slot.
        let at = flow.placement();
        let mut started = 0;
        let mut tries = 0;
        while started < churn && tries < 100 * churn {
            tries += 1;
            let i = next(pending.len() as u64) as usize;
            let Some(n) = at[pending[i].0 .0 as usize] else { continue };
            let (h, arcs) = pending.swap_remove(i);
            if free[n as usize] == 0 {
                // Already taken by an earlier start this epoch (the placement is last epoch's).
                pending.push((h, flow.arcs(h).cloned().unwrap()));
                continue;
            }
            flow.remove_task(h);
            running[job_pool[arcs.job as usize] as usize] += 1;
            free[n as usize] -= 1;
            flow.set_free(n, free[n as usize]);
            started += 1;
        }
        // As many running tasks finish: a random node gains a slot.
        for _ in 0..started {
            // Of a pool drawn by its running tasks.
            let mut r = next(running.iter().sum());
            let mut p = 0;
            while r >= running[p] {
                r -= running[p];
                p += 1;
            }
            running[p] -= 1;
            let n = next(nodes as u64) as usize;
            free[n] += 1;
            flow.set_free(n as u32, free[n]);
        }
        // 1% new tasks arrive.
        for _ in 0..churn {
            let job = next(jobs as u64) as u32;
            let arcs = task(&mut next, job, level[job as usize]);
            pending.push((flow.add_task(arcs.clone()), arcs));
        }
        // Under quotas: one job's delay level moves, its tasks' surcharges with it.
        if quota {
            let j = next(jobs as u64) as u32;
            level[j as usize] = (level[j as usize] + 1) % 3;
            // Costs are locality × scale + surcharge (< scale).
            let locality = |c: i64| c / scale * scale;
            for (h, arcs) in pending.iter_mut().filter(|(_, a)| a.job == j) {
                let late = |class: u8| i64::from(class > level[j as usize]);
                for r in &mut arcs.racks {
                    r.1 = locality(r.1) + late(1);
                }
                arcs.base = arcs.base.map(|b| locality(b) + late(2));
                *h = flow.replace_task(*h, arcs.clone()).unwrap();
            }
        }
        // What the exact layer's diff does besides the engine: compare every task's arcs with
        // the kept ones and set every node's free slots (no change here).
        let start = Instant::now();
        let mut changed = 0usize;
        for (h, arcs) in &pending {
            changed += usize::from(flow.arcs(*h) != Some(&arcs.clone()));
        }
        for (n, &f) in free.iter().enumerate() {
            flow.set_free(n as u32, f);
        }
        if quota {
            set_front(&mut flow, &free, &running, &pending);
        }
        let diff_ms = start.elapsed().as_secs_f64() * 1e3;
        assert_eq!(changed, 0);
        let settled_before = flow.settled_total();
        let start = Instant::now();
        assert!(flow.reoptimize(None));
        let inc_ms = start.elapsed().as_secs_f64() * 1e3;
        let start = Instant::now();
        let _ = flow.placement();
        let out_ms = start.elapsed().as_secs_f64() * 1e3;
        let settled = flow.settled_total() - settled_before;
        let (placed, cost, cold_ms) = cold(&free, &running, &pending);
        let equal = (flow.placed(), flow.total_cost()) == (placed, cost);
        assert!(
            equal,
            "epoch {epoch}: incremental {} {} cold {placed} {cost}",
            flow.placed(),
            flow.total_cost()
        );
        println!(
            "{epoch},{placed},{cost},{inc_ms:.3},{out_ms:.2},{diff_ms:.2},{cold_ms:.2},{},{equal}",
            settled
        );
        inc.push(inc_ms);
        out.push(out_ms);
        diffs.push(diff_ms);
        colds.push(cold_ms);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    println!(
        "median over {epochs} epochs: incremental {:.3} ms, placement {:.2} ms, diff {:.2} ms, \
         cold {:.2} ms, build {build_ms:.1} ms, state {:.1} MB",
        median(&mut inc),
        median(&mut out),
        median(&mut diffs),
        median(&mut colds),
        flow.heap_bytes() as f64 / 1e6
    );
}
