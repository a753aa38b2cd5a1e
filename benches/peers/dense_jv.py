"""placer's dense JV (``placer lsap``) against lapx's JV solvers on the same matrices.

Not part of the build: needs a scratch venv with numpy, scipy and lapx ≥ 0.11 (``lap.lapjvr``,
its Rust JV core; ``lap.lapjv``, Kazmar's lap; ``lap.lapjvc``, Heindl's classic JV) and a
release build of placer:

    $VENV/bin/python benches/peers/dense_jv.py [--placer target/release/placer] [--repeats 7]

With ``--cpu target/release/examples/jv_time`` (``cargo build --release -p placer-solver
--no-default-features --example jv_time``) both sides are timed in CPU time instead, which a
shared machine inflates far less than wall time: placer in-process by that example (thread CPU
time of ``jv::solve_f64``), the peers by ``time.thread_time``.

Matrices: uniform [0, 1) (``numpy.random.default_rng(3).random((n, n))``, n = 1,000 and 3,000,
as in peers.py) and the cluster matrix of ``placer gen snapshot --nodes 500 --rack-size 20
--map-slots 4 --idle 0.5 --tasks 1000 --replication 3 --rack-aware --seed 1`` (1,000²) and of
the 1,000-node one (``--idle 0.5 --tasks 2000``, 2,000²), both through ``placer
export-matrix``. Peers: only the call is timed (``time.perf_counter``), the objective is the sum
of the matrix entries at the returned assignment; placer: the ``seconds`` ``placer lsap``
reports (the solve alone, the matrix already in memory). Runs alternate solvers, min of
``--repeats``; the ratio is placer / lapjvr. Exits 1 if objectives differ by more than 1e-9
relative.
"""

from __future__ import annotations

import argparse
import json
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import lap
import numpy as np
from scipy.optimize import linear_sum_assignment


def write_lsap(path: Path, m: np.ndarray) -> None:
    with open(path, "wb") as f:
        f.write(struct.pack("<QQ", *m.shape))
        f.write(np.ascontiguousarray(m, dtype="<f8").tobytes())


def read_lsap(path: Path) -> np.ndarray:
    with open(path, "rb") as f:
        rows, cols = struct.unpack("<QQ", f.read(16))
    return np.fromfile(path, dtype="<f8", offset=16).reshape(rows, cols)


def peers():
    def lapjvr(m):
        return lap.lapjvr(m, return_cost=False)

    def lapjv(m):
        x, _ = lap.lapjv(m, return_cost=False)
        return np.arange(len(x)), x

    def lapjvc(m):
        return lap.lapjvc(m, return_cost=False)

    return [("lapx lapjvr", lapjvr), ("lapx lapjv", lapjv), ("lapx lapjvc", lapjvc),
            ("scipy", linear_sum_assignment)]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--placer", default="target/release/placer")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--work", default=None)
    ap.add_argument("--cpu", default=None, help="the jv_time example: time CPU, not wall")
    ap.add_argument("--only", default=None, help="semicolon-separated parts of matrix names")
    args = ap.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="dense-jv-"))
    work.mkdir(parents=True, exist_ok=True)
    placer = args.placer

    files: list[tuple[str, Path]] = []
    for nodes, tasks in [(500, 1000), (1000, 2000)]:
        snap, mat = work / f"snap{nodes}.json", work / f"cluster{tasks}.lsap"
        if not mat.exists():
            with open(snap, "w") as f:
                subprocess.run([placer, "gen", "snapshot", "--nodes", str(nodes), "--rack-size",
                                "20", "--map-slots", "4", "--idle", "0.5", "--tasks", str(tasks),
                                "--replication", "3", "--rack-aware", "--seed", "1"],
                               stdout=f, check=True)
            subprocess.run([placer, "export-matrix", str(snap), str(mat)], check=True)
        files.append((f"cluster {tasks:,}²", mat))
    for n in [1000, 3000]:
        mat = work / f"uniform{n}.lsap"
        if not mat.exists():
            write_lsap(mat, np.random.default_rng(3).random((n, n)))
        files.append((f"uniform {n:,}²", mat))
    if args.only:
        keep = args.only.split(";")
        files = [(name, p) for name, p in files if any(k in name for k in keep)]

    bad = False
    print("| matrix | placer lsap | " + " | ".join(n for n, _ in peers()) + " | placer / lapjvr |")
    print("|---|---:|" + "---:|" * len(peers()) + "---:|")
    for name, path in files:
        m = read_lsap(path)
        times: dict[str, list[float]] = {}
        objs: dict[str, float] = {}
        for _ in range(args.repeats):
            if args.cpu:
                out = subprocess.run([args.cpu, str(path), "1"], capture_output=True, text=True,
                                     check=True).stdout
                cpu_ms = float(out.split("cpu ")[1].split(" ms")[0])
                times.setdefault("placer", []).append(cpu_ms / 1e3)
                objs["placer"] = float(out.rsplit("objective ", 1)[1])
            else:
                out = subprocess.run([placer, "lsap", str(path)], capture_output=True, text=True,
                                     check=True)
                res = json.loads(out.stdout)
                times.setdefault("placer", []).append(res["seconds"])
                objs["placer"] = res["objective"]
            clock = time.thread_time if args.cpu else time.perf_counter
            for pname, fn in peers():
                t0 = clock()
                r, c = fn(m)
                times.setdefault(pname, []).append(clock() - t0)
                objs[pname] = float(m[r, c].sum())
        ref = objs["placer"]
        for pname, o in objs.items():
            if abs(o - ref) > 1e-9 * max(1.0, abs(ref)):
                print(f"objective mismatch on {name}: {pname} {o!r} vs placer {ref!r}",
                      file=sys.stderr)
                bad = True
        best = {k: min(v) for k, v in times.items()}
        cells = [f"{best['placer'] * 1e3:.1f} ms"] + [f"{best[p] * 1e3:.1f} ms" for p, _ in peers()]
        print(f"| {name} | " + " | ".join(cells) +
              f" | {best['placer'] / best['lapx lapjvr']:.2f} |")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
