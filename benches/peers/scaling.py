"""Solve time and peak memory against cluster size, placer against OR-tools and LEMON.

Not part of the build: it needs the scratch venv of ``peers.py`` (numpy, scipy, lapx, ortools)
plus matplotlib, the LEMON peer (``benches/peers/build-lemon.sh``) and a release build of placer:

    cargo build --release --no-default-features
    benches/peers/build-lemon.sh
    $VENV/bin/python benches/peers/scaling.py [--placer target/release/placer] [--out docs]

For each row of ``SIZES`` (nodes, rack size, idle fraction, pending maps) it generates
``placer gen snapshot --nodes N --rack-size R --map-slots 4 --idle I --tasks T --replication 3
--rack-aware --seed 1`` and measures, ``--repeats`` times (3), in one run:

* placer: ``placer place FILE --algorithm lsap --solver flow`` under ``/usr/bin/time -f %M``:
  ``stats.solve_ms`` (validate, index, costs, network and solve: everything after parsing),
  and the process's peak RSS (parse included);
* OR-tools ``SimpleMinCostFlow`` on the same aggregated network, built by ``peers.py``'s
  ``build_ortools`` (no second copy of the builder) in a child process
  (``peers.py --ortools-one FILE``): the solve call alone, the graph build, the child's peak
  RSS, and what the build and solve added to it on top of the parsed JSON;
* LEMON 1.3.1 (Debian's liblemon-dev) ``NetworkSimplex`` (block search) and ``CostScaling``
  (partial augment) on the same network, written as DIMACS by ``peers.py``'s
  ``Network.write_dimacs`` and solved by ``lemon_mcf`` (``peers.run_lemon``): graph build and
  ``run()`` alone, and that process's peak RSS (both solvers, one after the other).

Timings are the minimum over the repeats; each ratio is a peer's solve over placer's
``solve_ms``, all from the same run. Objectives must agree to 1e-6 relative (exit 1 if not).
Writes ``scaling.md`` (the table), ``scaling.json`` (the rows), ``scaling.png`` and
``scaling.svg`` (log-log: time against nodes, and peak RSS against nodes) into ``--out``;
``--replot`` redraws the figure from ``scaling.json`` alone.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import RTOL, build_network, place_row, placer_cmd, run_lemon  # noqa: E402

# (nodes, rack size, idle fraction, pending maps): the target rows (2,500 / 0.5 / 5,000,
# 12,500 / 0.25 / 20,000, 100,000 in racks of 40 / 0.25 / 150,000) and sizes between them
# with the same shape (twice the nodes in tasks at half idle, 1.5-1.6 times at a quarter).
SIZES = [
    (500, 20, 0.5, 1000),
    (1000, 20, 0.5, 2000),
    (2500, 20, 0.5, 5000),
    (5000, 20, 0.25, 8000),
    (12500, 20, 0.25, 20000),
    (25000, 40, 0.25, 40000),
    (50000, 40, 0.25, 75000),
    (100000, 40, 0.25, 150000),
]


def ortools_child(snap_file: Path, repeats: int) -> dict:
    """``peers.py --ortools-one`` in a child process (its own peak RSS)."""
    here = Path(__file__).resolve().parent
    out = subprocess.run([sys.executable, str(here / "peers.py"), "--ortools-one", str(snap_file),
                          "--repeats", str(repeats)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def plot(rows: list[dict], out: Path) -> None:
    """The log-log figure: solve time and peak RSS against nodes, as PNG and SVG in ``out``."""
    xs = [r["nodes"] for r in rows]
    fig, (ax_t, ax_m) = plt.subplots(1, 2, figsize=(10, 4))
    ax_t.loglog(xs, [r["placer_solve"] for r in rows], "o-", label="placer place (solve_ms)")
    ax_t.loglog(xs, [r["ortools_solve"] for r in rows], "s-", label="OR-tools min-cost flow (solve)")
    lemon = [r for r in rows if "lemon_ns_solve" in r]
    if lemon:
        lx = [r["nodes"] for r in lemon]
        ax_t.loglog(lx, [r["lemon_ns_solve"] for r in lemon], "^-", label="LEMON NetworkSimplex (run)")
        ax_t.loglog(lx, [r["lemon_cs_solve"] for r in lemon], "v-", label="LEMON CostScaling (run)")
    ax_t.set_xlabel("nodes")
    ax_t.set_ylabel("seconds")
    ax_t.set_title("Solve time (min of runs)")
    ax_t.grid(True, which="both", alpha=0.3)
    ax_t.legend(fontsize=8, loc="upper left")
    ax_m.loglog(xs, [r["placer_rss_mb"] for r in rows], "o-", label="placer place (whole process)")
    ax_m.loglog(xs, [r["ortools_rss_mb"] for r in rows], "s-",
                label="OR-tools child (Python, parsed JSON, graph, solve)")
    if lemon:
        ax_m.loglog(lx, [r["lemon_rss_mb"] for r in lemon], "^-",
                    label="LEMON process (DIMACS parse, graph, both solvers)")
    ax_m.set_xlabel("nodes")
    ax_m.set_ylabel("MB")
    ax_m.set_title("Peak RSS")
    ax_m.grid(True, which="both", alpha=0.3)
    ax_m.legend(fontsize=8, loc="upper left")
    fig.suptitle("placer vs OR-tools and LEMON, lsap, rack-aware replication 3, seed 1")
    fig.tight_layout()
    plt.rcParams["svg.hashsalt"] = "placer"
    fig.savefig(out / "scaling.png", dpi=80)
    fig.savefig(out / "scaling.svg", metadata={"Date": None})


def main() -> int:
    here = Path(__file__).resolve().parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--placer", type=Path, default=here.parent.parent / "target/release/placer")
    ap.add_argument("--out", type=Path, default=here.parent.parent / "docs")
    ap.add_argument("--work", type=Path, default=None, help="scratch dir for the snapshots")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--max-nodes", type=int, default=100000)
    ap.add_argument("--lemon", type=Path, default=here.parent.parent / "target/peers-lemon/lemon_mcf",
                    help="the LEMON peer built by build-lemon.sh")
    ap.add_argument("--replot", action="store_true",
                    help="only redraw the figure from OUT/scaling.json")
    args = ap.parse_args()
    if args.replot:
        plot(json.loads((args.out / "scaling.json").read_text()), args.out)
        return 0
    work = args.work or Path(tempfile.mkdtemp(prefix="placer-scaling-"))
    work.mkdir(parents=True, exist_ok=True)
    args.out.mkdir(parents=True, exist_ok=True)
    load_before = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()

    rows = []
    ok = True
    for nodes, rack, idle, tasks in SIZES:
        if nodes > args.max_nodes:
            continue
        snap_file = work / f"scale{nodes}.json"
        if not snap_file.exists():
            with open(snap_file, "w") as f:
                subprocess.run(placer_cmd(args.placer, "gen", "snapshot", "--nodes", str(nodes),
                                          "--rack-size", str(rack), "--map-slots", "4",
                                          "--idle", str(idle), "--tasks", str(tasks),
                                          "--replication", "3", "--rack-aware", "--seed", "1"),
                               stdout=f, check=True)
        print(f"# {nodes} nodes", file=sys.stderr)
        p = place_row(str(nodes), snap_file, "flow", args.placer, args.repeats)
        o = ortools_child(snap_file, args.repeats)
        with open(snap_file) as f:
            net = build_network(json.load(f))
        net_file = work / f"scale{nodes}.min"
        net.write_dimacs(net_file)
        lem = run_lemon(args.lemon, net_file, args.repeats)
        net_file.unlink()
        ns, cs = lem["network_simplex"], lem["cost_scaling"]
        diff = max(abs(x - p.objective) / max(abs(p.objective), 1e-300)
                   for x in [o["objective"], ns["objective"] / net.per_second,
                             cs["objective"] / net.per_second])
        ok &= diff <= RTOL and ns["flow"] == net.want and cs["flow"] == net.want
        rows.append({
            "nodes": nodes, "rack": rack, "idle": idle, "tasks": tasks,
            "objective": p.objective, "diff": diff,
            "placer_solve": min(p.solve), "placer_wall": min(p.wall),
            "placer_rss_mb": max(p.rss) / 1024,
            "ortools_build": min(o["build"]), "ortools_solve": min(o["solve"]),
            "ortools_rss_mb": o["rss_peak_kb"] / 1024,
            "ortools_added_mb": (o["rss_peak_kb"] - o["rss_loaded_kb"]) / 1024,
            "lemon_ns_build": min(ns["build"]), "lemon_ns_solve": min(ns["solve"]),
            "lemon_cs_build": min(cs["build"]), "lemon_cs_solve": min(cs["solve"]),
            "lemon_rss_mb": lem["rss_kb"] / 1024,
            "note": o["note"],
        })
    load_after = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()

    def ms(x: float) -> str:
        return f"{x * 1e3:.1f} ms" if x < 1 else f"{x:.2f} s"

    lines = [
        f"load before: {load_before}  ",
        f"load after: {load_after}  ",
        f"min of {args.repeats} runs each; ratio = peer's solve / placer solve_ms (same run)",
        "",
        "| nodes | rack size | idle | tasks | objective (s) | placer solve_ms | placer wall "
        "| placer peak RSS | OR-tools build | OR-tools solve | ratio | OR-tools peak RSS "
        "(+ graph and solve) | network |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    lemon_lines = [
        "| nodes | placer solve_ms | LEMON build | NetworkSimplex run | ratio | CostScaling run "
        "| ratio | OR-tools solve | ratio | LEMON peak RSS |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['nodes']:,} | {r['rack']} | {r['idle']} | {r['tasks']:,} | {r['objective']:.12g} "
            f"| {ms(r['placer_solve'])} | {ms(r['placer_wall'])} | {r['placer_rss_mb']:.1f} MB "
            f"| {ms(r['ortools_build'])} | {ms(r['ortools_solve'])} "
            f"| {r['ortools_solve'] / r['placer_solve']:.1f}× | {r['ortools_rss_mb']:.0f} MB "
            f"(+{r['ortools_added_mb']:.0f} MB) | {r['note']} |")
        ps = r["placer_solve"]
        lemon_lines.append(
            f"| {r['nodes']:,} | {ms(ps)} | {ms(r['lemon_ns_build'])} | {ms(r['lemon_ns_solve'])} "
            f"| {r['lemon_ns_solve'] / ps:.1f}× | {ms(r['lemon_cs_solve'])} "
            f"| {r['lemon_cs_solve'] / ps:.1f}× | {ms(r['ortools_solve'])} "
            f"| {r['ortools_solve'] / ps:.1f}× | {r['lemon_rss_mb']:.1f} MB |")
    table = "\n".join(lines + [""] + lemon_lines) + "\n"
    (args.out / "scaling.md").write_text(table)
    print(table)

    (args.out / "scaling.json").write_text(json.dumps(rows, indent=1) + "\n")
    plot(rows, args.out)
    if not ok:
        print(f"OBJECTIVE MISMATCH above {RTOL:g} relative", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
