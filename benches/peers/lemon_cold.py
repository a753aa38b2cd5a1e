"""placer's flow engine against LEMON's NetworkSimplex, cold, solve against solve, one run.

Not part of the build: it needs the scratch venv of ``peers.py`` (its imports), the LEMON peer
(``benches/peers/build-lemon.sh``) and a release build of placer:

    cargo build --release --no-default-features
    benches/peers/build-lemon.sh
    $VENV/bin/python benches/peers/lemon_cold.py [--nodes 2500,12500,100000] [--repeats 3]

For each of ``scaling.py``'s rows at these sizes (the same ``placer gen snapshot`` command, seed 1) it
measures, ``--repeats`` times, placer's ``placer place FILE --algorithm lsap --solver flow``
``stats.solve_ms`` (validate, index, costs, network and solve) and LEMON's ``NetworkSimplex``
``run()`` alone on the same aggregated network (``peers.py``'s ``build_network``, written as
DIMACS), plus LEMON's graph build; prints the minimum of each, the ratio LEMON / placer and the
load average before and after. Objectives must agree to 1e-6 relative (exit 1 if not).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import RTOL, build_network, place_row, placer_cmd, run_lemon  # noqa: E402

# scaling.py's rows at these sizes: (nodes, rack size, idle fraction, pending maps).
SIZES = [(2500, 20, 0.5, 5000), (12500, 20, 0.25, 20000), (100000, 40, 0.25, 150000)]


def main() -> int:
    here = Path(__file__).resolve().parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--placer", type=Path, default=here.parent.parent / "target/release/placer")
    ap.add_argument("--lemon", type=Path, default=here.parent.parent / "target/peers-lemon/lemon_mcf")
    ap.add_argument("--nodes", default="2500,12500,100000")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    wanted = {int(x) for x in args.nodes.split(",") if x}
    load = lambda: subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()  # noqa: E731
    print(f"load before: {load()}")
    print("| nodes | tasks | placer solve_ms | LEMON NS run | ratio | LEMON build | objective rel. diff |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    ok = True
    with tempfile.TemporaryDirectory(prefix="placer-lemon-") as work:
        for nodes, rack, idle, tasks in SIZES:
            if nodes not in wanted:
                continue
            snap_file = Path(work) / f"s{nodes}.json"
            with open(snap_file, "w") as f:
                subprocess.run(placer_cmd(args.placer, "gen", "snapshot", "--nodes", str(nodes),
                                          "--rack-size", str(rack), "--map-slots", "4", "--idle",
                                          str(idle), "--tasks", str(tasks), "--replication", "3",
                                          "--rack-aware", "--seed", "1"), stdout=f, check=True)
            placer = place_row(f"{nodes}", snap_file, "flow", args.placer, args.repeats)
            with open(snap_file) as f:
                net = build_network(json.load(f))
            dimacs = Path(work) / f"s{nodes}.dimacs"
            net.write_dimacs(dimacs)
            ns = run_lemon(args.lemon, dimacs, args.repeats, algo="ns")["network_simplex"]
            if ns["flow"] != net.want:
                sys.exit(f"LEMON sent {ns['flow']} of {net.want} at {nodes} nodes")
            objective = float(ns["objective"]) / net.per_second
            diff = abs(objective - placer.objective) / max(abs(placer.objective), 1e-300)
            ok &= diff <= RTOL
            p, run, build = min(placer.solve), min(ns["solve"]), min(ns["build"])
            print(f"| {nodes:,} | {tasks:,} | {p * 1e3:.1f} ms | {run * 1e3:.1f} ms | {run / p:.2f}× "
                  f"| {build * 1e3:.1f} ms | {diff:.1e} |", flush=True)
    print(f"load after: {load()}")
    if not ok:
        print(f"OBJECTIVE MISMATCH above {RTOL:g} relative", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
