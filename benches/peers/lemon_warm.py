"""Warm re-solves after a small change: LEMON and pylmcf against cold solves and placer's cold.

Not part of the build: it needs the scratch venv of ``peers.py`` (numpy, ortools) plus
``pylmcf`` (LEMON's network simplex with warm restarts), the LEMON peer
(``benches/peers/build-lemon.sh``) and a release build of placer:

    cargo build --release --no-default-features
    benches/peers/build-lemon.sh
    $VENV/bin/pip install pylmcf
    $VENV/bin/python benches/peers/lemon_warm.py [--placer target/release/placer]

For each snapshot (``placer gen snapshot --rack-size R --map-slots 4 --replication 3
--rack-aware --seed 1`` with nodes / R / idle / tasks = 2,500 / 20 / 0.5 / 5,000,
12,500 / 20 / 0.25 / 20,000 and 100,000 / 40 / 0.25 / 150,000) and each delta:

* ``costs``: 1% of the pending maps (drawn with ``numpy.random.default_rng(7)``) get their
  ``input_bytes`` multiplied by a factor drawn uniformly from [0.5, 1.5): their in-rack and
  cross-rack arcs change cost;
* ``slots``: a background map starts on 1% of the nodes that have at least two free map slots
  (so every node keeps a vertex): their node → sink capacity drops by one, and where slots are
  fewer than tasks, the flow sent drops with them;

it builds placer's aggregated network (``peers.build_network``) before and after (the arcs are
the same, only capacities, costs and the flow value change; checked) and measures, ``--repeats``
times (3):

* LEMON 1.3.1 ``NetworkSimplex`` and ``CostScaling`` (``lemon_mcf --delta``; CostScaling up to
  ``--cs-max-nodes``, 12,500 by default): the changed
  network solved cold by a fresh object (build, run), and the object that solved the network
  before the delta given the new values and run again (update, rerun). LEMON 1.3.1's ``run()``
  restarts from ``init()`` on every call (zero flow, artificial spanning tree), so the rerun
  keeps allocations and nothing of the previous basis;
* pylmcf's ``Graph`` (its own copy of LEMON's network simplex with ``warmRun()``): cold = a
  fresh graph of the changed network and ``solve()``; warm = the graph that solved the network
  before, ``set_edge_costs`` / ``set_edge_capacities`` / ``set_node_supply`` with the changed
  values (update), then ``solve()``, which restarts from the kept basis (its
  ``warm_start_count`` / ``cold_start_count`` counters say which path it took);
* placer cold on the changed snapshot (``placer place FILE --algorithm lsap --solver flow``,
  ``stats.solve_ms``): ``placer place`` has no warm path (warm starts exist only inside the
  simulator, ``placer whatif --warm-start``, and in the solver crate's ``warm_epochs`` example);
* OR-tools cold on the changed network (``peers.ortools_row``).

Timings are the median of the repeats. All objectives of a row must agree with placer's to
1e-6 relative (exit 1 if not). Prints a markdown table.
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pylmcf

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import RTOL, Network, build_network, ortools_row, place_row, placer_cmd, run_lemon  # noqa: E402

SIZES = [(2500, 20, 0.5, 5000), (12500, 20, 0.25, 20000), (100000, 40, 0.25, 150000)]
SHARE = 0.01


def delta_costs(snap: dict, rng: np.random.Generator) -> dict:
    """1% of the pending maps' input sizes scaled by a factor in [0.5, 1.5)."""
    new = copy.deepcopy(snap)
    maps = [t for t in new["pending"] if t["kind"] == "map"]
    for i in sorted(rng.choice(len(maps), size=max(1, int(len(maps) * SHARE)), replace=False)):
        maps[i]["input_bytes"] = int(maps[i]["input_bytes"] * rng.uniform(0.5, 1.5))
    return new


def delta_slots(snap: dict, rng: np.random.Generator) -> dict:
    """A background map starts on 1% of the nodes with at least two free map slots."""
    new = copy.deepcopy(snap)
    busy: dict[str, int] = {}
    for t in new["running"]:
        if t["kind"] == "map":
            busy[t["node"]] = busy.get(t["node"], 0) + 1
    roomy = [n["id"] for n in new["cluster"]["nodes"] if n["map_slots"] - busy.get(n["id"], 0) >= 2]
    template = next(t for t in new["running"] if t["kind"] == "map")
    n_nodes = len(new["cluster"]["nodes"])
    for k, i in enumerate(sorted(rng.choice(len(roomy), size=max(1, int(n_nodes * SHARE)),
                                            replace=False))):
        t = dict(template)
        t["id"], t["node"] = f"delta-m-{k}", roomy[i]
        new["running"].append(t)
    return new


DELTAS = [("costs", "1% of tasks' input sizes × U[0.5, 1.5)", delta_costs),
          ("slots", "1% of nodes lose a free slot", delta_slots)]


class Sorted:
    """A network's arcs in pylmcf's order (sorted by tail, then head): ``perm[j]`` is the
    network's index of the j-th sorted arc."""

    def __init__(self, net: Network):
        self.perm = np.lexsort((net.heads, net.tails))
        self.tails = np.ascontiguousarray(net.tails[self.perm])
        self.heads = np.ascontiguousarray(net.heads[self.perm])

    def load(self, g, net: Network) -> None:
        g.set_edge_capacities(np.ascontiguousarray(net.caps[self.perm]))
        g.set_edge_costs(np.ascontiguousarray(net.units[self.perm]))
        g.set_node_supply(net.supplies())


def pylmcf_times(old: Network, new: Network, repeats: int) -> dict:
    order = Sorted(old)
    out = {"build": [], "solve": [], "update": [], "warm": [], "paths": []}
    for _ in range(repeats):
        t0 = time.perf_counter()
        g = pylmcf.Graph(new.vertices, order.tails, order.heads)
        order.load(g, new)
        t1 = time.perf_counter()
        g.solve()
        t2 = time.perf_counter()
        out["build"].append(t1 - t0), out["solve"].append(t2 - t1)
        out["cold_objective"] = g.total_cost() / new.per_second

        w = pylmcf.Graph(old.vertices, order.tails, order.heads)
        order.load(w, old)
        w.solve()
        before = (w.warm_start_count(), w.cold_start_count())
        t3 = time.perf_counter()
        order.load(w, new)
        t4 = time.perf_counter()
        w.solve()
        t5 = time.perf_counter()
        out["update"].append(t4 - t3), out["warm"].append(t5 - t4)
        out["warm_objective"] = w.total_cost() / new.per_second
        out["paths"].append((w.warm_start_count() - before[0], w.cold_start_count() - before[1],
                             w.dual_repair_count(), w.primal_repair_count()))
    return out


def med(xs: list[float]) -> float:
    return statistics.median(xs)


def ms(x: float) -> str:
    return f"{x * 1e3:.1f} ms" if x < 1 else f"{x:.2f} s"


def main() -> int:
    here = Path(__file__).resolve().parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--placer", type=Path, default=here.parent.parent / "target/release/placer")
    ap.add_argument("--lemon", type=Path, default=here.parent.parent / "target/peers-lemon/lemon_mcf")
    ap.add_argument("--work", type=Path, default=None, help="scratch dir for the snapshots")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--max-nodes", type=int, default=100000)
    ap.add_argument("--no-ortools", action="store_true", help="skip OR-tools' cold solves")
    ap.add_argument("--cs-max-nodes", type=int, default=12500,
                    help="LEMON CostScaling only up to this size (it needs minutes per solve at "
                         "100,000 nodes on 2 cores; scaling.py times it cold)")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="placer-warm-"))
    work.mkdir(parents=True, exist_ok=True)
    load_before = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()

    ok = True
    lines = []
    for nodes, rack, idle, tasks in SIZES:
        if nodes > args.max_nodes:
            continue
        snap_file = work / f"warm{nodes}.json"
        if not snap_file.exists():
            with open(snap_file, "w") as f:
                subprocess.run(placer_cmd(args.placer, "gen", "snapshot", "--nodes", str(nodes),
                                          "--rack-size", str(rack), "--map-slots", "4",
                                          "--idle", str(idle), "--tasks", str(tasks),
                                          "--replication", "3", "--rack-aware", "--seed", "1"),
                               stdout=f, check=True)
        with open(snap_file) as f:
            snap = json.load(f)
        old = build_network(snap)
        base_file = work / f"warm{nodes}.min"
        old.write_dimacs(base_file)
        for name, what, make in DELTAS:
            print(f"# {nodes} nodes, delta {name}", file=sys.stderr)
            new_snap = make(snap, np.random.default_rng(7))
            new_file = work / f"warm{nodes}-{name}.json"
            new_file.write_text(json.dumps(new_snap))
            new = build_network(new_snap)
            if not old.same_arcs(new):
                sys.exit(f"delta {name} changed the arcs at {nodes} nodes")
            delta_file = work / f"warm{nodes}-{name}.delta"
            changed = old.write_delta(new, delta_file)

            p = place_row(str(nodes), new_file, "flow", args.placer, args.repeats)
            with_cs = nodes <= args.cs_max_nodes
            lem = run_lemon(args.lemon, base_file, args.repeats, delta_file,
                            "both" if with_cs else "ns")
            py = pylmcf_times(old, new, args.repeats)
            o = None if args.no_ortools else ortools_row(str(nodes), new_snap, args.repeats)
            ns = lem["network_simplex"]
            objectives = {
                "NS cold": ns["cold_objective"] / new.per_second,
                "NS rerun": ns["rerun_objective"] / new.per_second,
                "pylmcf cold": py["cold_objective"], "pylmcf warm": py["warm_objective"],
            }
            cs = lem.get("cost_scaling")
            if cs is not None:
                objectives["CS cold"] = cs["cold_objective"] / new.per_second
                objectives["CS rerun"] = cs["rerun_objective"] / new.per_second
            if o is not None:
                objectives["OR-tools"] = o.objective
            for k, v in objectives.items():
                diff = abs(v - p.objective) / max(abs(p.objective), 1e-300)
                if diff > RTOL:
                    ok = False
                    print(f"OBJECTIVE MISMATCH {k}: {v} against placer's {p.objective}",
                          file=sys.stderr)
            paths = sorted(set(py["paths"]))
            lines.append(
                f"| {nodes:,} | {what} ({changed:,} arcs{', flow ' + format(new.want, ',') if new.want != old.want else ''}) "
                f"| {p.objective:.12g} | {ms(med(p.solve))} "
                f"| {ms(med(o.solve)) if o else ''} "
                f"| {ms(med(ns['cold_solve']))} | {ms(med(ns['rerun']))} "
                f"| {ms(med(cs['cold_solve'])) if cs else '—'} | {ms(med(cs['rerun'])) if cs else '—'} "
                f"| {ms(med(py['solve']))} | {ms(med(py['warm']))} (+{ms(med(py['update']))} update) "
                f"| {med(py['warm']) / med(py['solve']):.2f} "
                f"| {med(py['warm']) / med(p.solve):.2f} | {paths} |")
            print(lines[-1], file=sys.stderr)
        base_file.unlink()
    load_after = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"load before: {load_before}  \nload after: {load_after}  \n"
          f"median of {args.repeats} runs each\n")
    print("| nodes | delta | objective after (s) | placer cold solve_ms | OR-tools cold "
          "| LEMON NS cold run | LEMON NS rerun | LEMON CS cold run | LEMON CS rerun "
          "| pylmcf cold solve | pylmcf warm solve | pylmcf warm / cold | pylmcf warm / placer "
          "| pylmcf paths (warm, cold, dual, primal) |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    print("\n".join(lines))
    if not ok:
        print(f"OBJECTIVE MISMATCH above {RTOL:g} relative", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
