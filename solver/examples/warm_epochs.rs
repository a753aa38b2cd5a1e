//! Warm starts against cold solves over a run of similar epochs (Firmament's
//! reuse of the previous round's solution, Gog et al., OSDI 2016, §5): from the snapshot FILE,
//! each epoch places its pending maps with `lsap`'s structured flow twice on the same state —
//! cold, and warm through a [`WarmStart`] (under `lsap`: the incremental flow the previous warm
//! epoch kept, diffed by pending id and repaired) — and checks
//! that both cost the same. Then the cold placement's tasks leave the pending list and take
//! their slots, and SLOTS random slots free up (tasks finishing), as in the simulator's steady
//! state. Prints per-epoch engine times (arcs, network and flow; validation and indexing are
//! done once, outside) and their sums.
//! With IDLE = K instead, the cluster stays as the snapshot has it and each epoch's pending
//! list is K tasks drawn anew from the snapshot's (more free slots than tasks: the network is
//! solved reversed, as on an idle cluster whose tasks finish between epochs).
//! With `--quota` (anywhere) the objective is `lsap_quota`'s instead of `lsap`'s: each epoch's
//! quotas from `policy::quotas` on the epoch's state (fair shares of the snapshot), no delay
//! levels, no offsets; the warm path then keeps the incremental flow with its quota front.
//! `cargo run --release -p placer-solver --no-default-features --example warm_epochs -- FILE
//! [EPOCHS] [SLOTS] [SEED] [IDLE] [--quota]`
#![allow(clippy::unwrap_used, clippy::expect_used)]
use placer_models::{SolverEngine, TaskKind};
use placer_solver::exact::{self, Control, Objective, Problem};
use placer_solver::{Indexed, LocalityCost, WarmStart};
use std::time::Instant;

fn main() {
    let quota = std::env::args().any(|a| a == "--quota");
    let args: Vec<String> = std::env::args().filter(|a| a != "--quota").collect();
    let file = args.get(1).expect("usage: warm_epochs FILE [EPOCHS] [SLOTS] [SEED]");
    let epochs: usize = args.get(2).map_or(30, |x| x.parse().expect("EPOCHS"));
    let slots: usize = args.get(3).map_or(50, |x| x.parse().expect("SLOTS"));
    let mut x: u64 = args.get(4).map_or(1, |x| x.parse().expect("SEED")) | 1;
    let idle: Option<usize> = args.get(5).map(|x| x.parse().expect("IDLE"));
    let mut next = |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    let req = placer_models::parse_request(&std::fs::read(file).expect("read")).expect("parse");
    placer_models::validate(&req).expect("valid");
    let mut ix = Indexed::new(&req);
    let nodes = ix.node_rack.len() as u64;
    let all_maps = ix.eligible_of_kind[0].clone();
    if let Some(k) = idle {
        ix.eligible_of_kind[0] =
            (0..k).map(|_| all_maps[next(all_maps.len() as u64) as usize]).collect();
        ix.eligible_of_kind[0].sort_unstable();
        ix.eligible_of_kind[0].dedup();
    }
    let warm = WarmStart::new();
    let (mut cold_total, mut warm_total) = (0.0, 0.0);
    println!("epoch,pending,free_slots,placed,cold_ms,warm_ms");
    for epoch in 0..epochs {
        let model = LocalityCost::new(&ix);
        let quotas = quota.then(|| {
            let shares = placer_solver::fair::fair_shares::compute(&ix);
            placer_solver::policy::quotas(&ix, &shares, TaskKind::Map)
        });
        let levels = vec![2u8; req.pending.len()];
        let objective = match &quotas {
            Some(q) => Objective::Quota { quotas: q, levels: &levels, offsets: &[] },
            None => Objective::Locality,
        };
        let pending = ix.eligible_of_kind[0].len();
        let free: u32 = ix.free[0].iter().sum();
        let run = |store: Option<&WarmStart>| {
            let mut node_of_task = vec![None; req.pending.len()];
            let control = Control { cancel: None, warm: store };
            let start = Instant::now();
            exact::solve(
                Problem {
                    ix: &ix,
                    model: &model,
                    kind: TaskKind::Map,
                    engine: SolverEngine::Auto,
                    objective,
                },
                control,
                &mut node_of_task,
            )
            .expect("solve");
            let ms = start.elapsed().as_secs_f64() * 1e3;
            let cost: f64 = node_of_task
                .iter()
                .enumerate()
                .filter_map(|(t, n)| n.map(|n| model.cost(t, n)))
                .sum();
            (node_of_task, ms, cost)
        };
        let (placed, cold_ms, cold_cost) = run(None);
        let (_, warm_ms, warm_cost) = run(Some(&warm));
        assert!(
            (cold_cost - warm_cost).abs() <= 1e-6 * cold_cost.abs().max(1.0),
            "epoch {epoch}: cold {cold_cost} warm {warm_cost}"
        );
        let count = placed.iter().flatten().count();
        println!("{epoch},{pending},{free},{count},{cold_ms:.3},{warm_ms:.3}");
        if epoch > 0 {
            // The first epoch fills an idle cluster; the steady state is what follows.
            cold_total += cold_ms;
            warm_total += warm_ms;
        }
        drop(model);
        if let Some(k) = idle {
            // Tasks finish between epochs; K new ones arrive.
            let mut drawn: Vec<usize> =
                (0..k).map(|_| all_maps[next(all_maps.len() as u64) as usize]).collect();
            drawn.sort_unstable();
            drawn.dedup();
            ix.eligible_of_kind[0] = drawn;
            continue;
        }
        // The placed tasks start: they leave the pending list and take their slots.
        ix.eligible_of_kind[0].retain(|&t| placed[t].is_none());
        for n in placed.iter().flatten() {
            ix.free[0][*n as usize] -= 1;
        }
        // SLOTS tasks finish somewhere.
        for _ in 0..slots {
            ix.free[0][next(nodes) as usize] += 1;
        }
    }
    let ratio = warm_total / cold_total;
    println!(
        "steady state (epochs 1..{epochs}): cold {cold_total:.1} ms, warm {warm_total:.1} ms, \
         warm/cold {ratio:.3}"
    );
}
