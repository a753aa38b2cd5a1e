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
//! `cargo run --release -p placer-solver --example incremental_epochs -- NODES RACK_SIZE
//! TASKS [EPOCHS] [SEED]`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]
use placer_solver::flow::incremental::{IncrementalFlow, TaskHandle};
use placer_solver::flow::structured::{self, Slots, TaskArcs};
use std::time::Instant;

const RACK_COST: i64 = 1_000_000_000;
const REMOTE_COST: i64 = 4_000_000_000;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize, default: u64| args.get(i).map_or(default, |x| x.parse().expect("number"));
    let nodes = arg(1, 2_500) as usize;
    let rack_size = arg(2, 20) as usize;
    let tasks = arg(3, 5_000) as usize;
    let epochs = arg(4, 10) as usize;
    let mut x = arg(5, 1) | 1;
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
    let task = |next: &mut dyn FnMut(u64) -> u64| {
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
        let mut listed = vec![(a as u32, RACK_COST), (b as u32, RACK_COST)];
        listed.sort_unstable();
        listed.dedup();
        TaskArcs { offset: 0, on_node, racks: listed, base: Some(REMOTE_COST), job: 0 }
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
    for (n, &f) in free.iter().enumerate() {
        flow.set_free(n as u32, f);
    }
    for _ in 0..tasks {
        let arcs = task(&mut next);
        pending.push((flow.add_task(arcs.clone()), arcs));
    }
    assert!(flow.reoptimize(None));
    let build_ms = start.elapsed().as_secs_f64() * 1e3;
    let cold = |free: &[u32], pending: &[(TaskHandle, TaskArcs)]| {
        let slots = Slots { node_rack: &node_rack, free, racks };
        let start = Instant::now();
        let answer = structured::solve_warm(
            slots,
            pending.len(),
            |i| pending[i].1.clone(),
            None,
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
        (answer.node_of_task.iter().flatten().count() as u64, cost, ms)
    };
    let (placed, cost, cold_ms) = cold(&free, &pending);
    assert_eq!((flow.placed(), flow.total_cost()), (placed, cost), "epoch 0");
    println!(
        "nodes {nodes}, racks of {rack_size}, tasks {tasks}, free slots {}",
        free.iter().sum::<u32>()
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
            let (h, _) = pending.swap_remove(i);
            if free[n as usize] == 0 {
                // Already taken by an earlier start this epoch (the placement is last epoch's).
                pending.push((h, flow.arcs(h).cloned().unwrap()));
                continue;
            }
            flow.remove_task(h);
            free[n as usize] -= 1;
            flow.set_free(n, free[n as usize]);
            started += 1;
        }
        // As many running tasks finish: a random node gains a slot.
        for _ in 0..started {
            let n = next(nodes as u64) as usize;
            free[n] += 1;
            flow.set_free(n as u32, free[n]);
        }
        // 1% new tasks arrive.
        for _ in 0..churn {
            let arcs = task(&mut next);
            pending.push((flow.add_task(arcs.clone()), arcs));
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
        let (placed, cost, cold_ms) = cold(&free, &pending);
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
