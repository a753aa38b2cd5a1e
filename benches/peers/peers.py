"""placer against peer solvers on the same problems: scipy, lapx, OR-tools and LEMON.

Not part of the build and not a project dependency: it needs a scratch Python venv with
numpy, scipy, lapx (imported as ``lap``) and ortools, the LEMON peer built by
``build-lemon.sh``, and a release build of placer:

    cargo build --release
    python -m venv $VENV && $VENV/bin/pip install numpy scipy lapx ortools
    benches/peers/build-lemon.sh
    $VENV/bin/python benches/peers/peers.py [--placer target/release/placer] [--work DIR]

For each generated snapshot (``placer gen snapshot --rack-size 20 --map-slots 4 --replication 3
--rack-aware --seed 1`` with nodes / idle / tasks = 500 / 0.5 / 1,000, 2,500 / 0.5 / 5,000 and
12,500 / 0.25 / 20,000) it times

* placer: ``placer place FILE --algorithm lsap --solver flow`` (and ``--solver jv`` up to
  2,500 nodes): ``stats.solve_ms`` from the answer, wall time of the process, and peak RSS
  from ``/usr/bin/time -f %M``;
* dense peers on ``placer export-matrix`` (the pending × free-slot cost matrix, seconds):
  ``scipy.optimize.linear_sum_assignment``, ``lap.lapjv`` (lapx; a rectangular matrix is
  zero-padded to square by ``extend_cost=True``, which leaves the optimum unchanged since
  every real row or column is still matched) and ``placer lsap`` on the same file. Only the
  solver call is timed (``time.perf_counter`` around it); the objective is the sum of the
  matrix entries at the returned assignment. Dense runs stop at ``--dense-max-nodes`` (2,500
  by default): at 12,500 nodes the matrix is 20,000 × 12,500 f64 = 2 GB, ``placer place
  --solver jv`` refuses it (``problem_too_large``), and the dense solvers need minutes on it;
* OR-tools ``SimpleMinCostFlow.SolveMaxFlowWithMinCost`` on the aggregated network placer's
  flow engine solves (``solver/src/flow/structured.rs``): S → task (cap 1) → replica nodes
  (cost 0) / the racks holding a replica (in-rack read) / a cluster vertex (cross-rack read);
  cluster → every rack, rack → its nodes (uncapped, cost 0); node → T (its free slots). Only
  nodes with a free slot are vertices, as in placer. Costs are placer's (``solver/src/cost.rs``:
  alpha · input_bytes · 8 / 10⁶ / Mbit/s, in seconds) as integers at placer's quantum
  (``solver/src/quantum.rs``: 1 ns unless that could overflow), built from the snapshot
  JSON in Python. Graph build (from the parsed JSON to a loaded solver) and solve are timed
  separately;
* LEMON 1.3.1 (Debian's liblemon-dev) ``NetworkSimplex`` and ``CostScaling`` on the same
  network (``build_network``, written as DIMACS by ``Network.write_dimacs``; S sends
  min(tasks, free slots) units to T, the flow OR-tools' max-flow solve finds), solved by
  ``lemon_mcf`` (``lemon_mcf.cpp``): the C++ graph build and ``run()`` timed apart;

then a dense uniform-random f64 matrix (``numpy.random.default_rng(3).random((n, n))``, written
in the ``.lsap`` format) at n = 1,000 and 3,000: ``placer lsap`` against scipy and lapjv.

Every timing is the minimum of ``--repeats`` runs (3). All objectives of a problem must agree
with the first one to 1e-6 relative; the script prints a markdown table and exits 1 if any
does not.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import lap
import numpy as np
from ortools.graph.python import min_cost_flow
from scipy.optimize import linear_sum_assignment

SNAPSHOTS = [(500, 0.5, 1000), (2500, 0.5, 5000), (12500, 0.25, 20000)]
RANDOM_SIZES = [1000, 3000]
RTOL = 1e-6
BYTES_TO_MEGABITS = 8.0 / 1e6


def placer_cmd(placer: Path, *args: str) -> list[str]:
    """Waits for the binary (it may be being rebuilt) and returns the command line."""
    for _ in range(120):
        if placer.exists():
            return [str(placer), *args]
        time.sleep(5)
    sys.exit(f"placer binary not found: {placer}")


def run_placer(placer: Path, *args: str) -> tuple[str, float, int]:
    """Runs placer under /usr/bin/time; returns (stdout, wall seconds, peak RSS in KB)."""
    cmd = ["/usr/bin/time", "-f", "%M", *placer_cmd(placer, *args)]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr}")
    rss = int(p.stderr.strip().splitlines()[-1])
    return p.stdout, wall, rss


def read_lsap(path: Path) -> np.ndarray:
    with open(path, "rb") as f:
        rows, cols = struct.unpack("<QQ", f.read(16))
    return np.fromfile(path, dtype="<f8", offset=16).reshape(rows, cols)


def write_lsap(path: Path, m: np.ndarray) -> None:
    with open(path, "wb") as f:
        f.write(struct.pack("<QQ", *m.shape))
        f.write(np.ascontiguousarray(m, dtype="<f8").tobytes())


class Row:
    """One table row; timings are lists over repeats (min is reported)."""

    def __init__(self, problem: str, solver: str):
        self.problem, self.solver = problem, solver
        self.objective: float | None = None
        self.build: list[float] = []
        self.solve: list[float] = []
        self.wall: list[float] = []
        self.rss: list[int] = []
        self.note = ""


def fmt_s(xs: list[float]) -> str:
    if not xs:
        return ""
    s = min(xs)
    return f"{s * 1e3:.1f} ms" if s < 1.0 else f"{s:.2f} s"


def time_dense(fn, m: np.ndarray, repeats: int) -> tuple[float, list[float]]:
    """Times fn(m) -> (rows, cols); returns (objective, times)."""
    times, obj = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        r, c = fn(m)
        times.append(time.perf_counter() - t0)
        obj = float(m[r, c].sum())
    return obj, times


def scipy_solve(m):
    return linear_sum_assignment(m)


def lapjv_solve(m):
    x, _ = lap.lapjv(m, extend_cost=True, return_cost=False)
    r = np.nonzero(x >= 0)[0]
    return r, x[r]


def dense_peers(problem: str, m: np.ndarray, lsap_file: Path, placer: Path, repeats: int) -> list[Row]:
    rows = []
    for name, fn in [("scipy linear_sum_assignment", scipy_solve), ("lapx lapjv", lapjv_solve)]:
        row = Row(problem, name)
        row.objective, row.solve = time_dense(fn, m, repeats)
        rows.append(row)
    row = Row(problem, "placer lsap (f64 JV)")
    for _ in range(repeats):
        out, wall, rss = run_placer(placer, "lsap", str(lsap_file))
        ans = json.loads(out)
        row.objective = float(ans["objective"])
        row.solve.append(float(ans["seconds"]))
        row.wall.append(wall)
        row.rss.append(rss)
    rows.append(row)
    return rows


class Network:
    """placer's aggregated network as arrays: arc k goes tails[k] → heads[k] with capacity
    caps[k] and integer cost units[k] (at ``per_second`` units per second); vertex S = 0
    supplies ``want`` = min(tasks, free slots) units to T = 1 (the flow a max-flow-min-cost
    solve sends, since every task reaches every node through the cluster vertex)."""

    def __init__(self, vertices: int, tails: np.ndarray, heads: np.ndarray, caps: np.ndarray,
                 units: np.ndarray, per_second: float, want: int):
        self.vertices, self.tails, self.heads = vertices, tails, heads
        self.caps, self.units, self.per_second, self.want = caps, units, per_second, want

    def supplies(self) -> np.ndarray:
        s = np.zeros(self.vertices, dtype=np.int64)
        s[0], s[1] = self.want, -self.want
        return s

    def same_arcs(self, other: "Network") -> bool:
        return (self.vertices == other.vertices and np.array_equal(self.tails, other.tails)
                and np.array_equal(self.heads, other.heads))

    def write_dimacs(self, path: Path) -> None:
        """DIMACS min-cost flow (1-based): ``p min N M``, ``n ID SUPPLY``, ``a U V 0 CAP COST``."""
        with open(path, "w") as f:
            f.write(f"c placer's aggregated network, {1e9 / self.per_second:g} ns per cost unit\n"
                    f"p min {self.vertices} {len(self.tails)}\n"
                    f"n 1 {self.want}\nn 2 {-self.want}\n")
            cols = np.column_stack([self.tails + 1, self.heads + 1, self.caps, self.units])
            np.savetxt(f, cols, fmt="a %d %d 0 %d %d")

    def write_delta(self, new: "Network", path: Path) -> int:
        """The changes from this network to ``new`` (same arcs) in ``lemon_mcf``'s delta syntax
        (``a K 0 CAP COST``, ``n ID SUPPLY``); returns the number of arcs changed."""
        changed = np.nonzero((self.caps != new.caps) | (self.units != new.units))[0]
        with open(path, "w") as f:
            for k in changed:
                f.write(f"a {k + 1} 0 {new.caps[k]} {new.units[k]}\n")
            if new.want != self.want:
                f.write(f"n 1 {new.want}\nn 2 {-new.want}\n")
        return len(changed)


def build_network(snap: dict) -> Network:
    """placer's aggregated network of a snapshot's map tasks, as arrays (see ``Network``)."""
    cluster = snap["cluster"]
    net = cluster["network"]
    if net.get("rack_pairs"):
        raise NotImplementedError("rack_pairs overrides")
    alpha = float(snap["policy"].get("alpha", 1.0))
    rack_ix = {r["id"]: i for i, r in enumerate(cluster["racks"])}
    node_ix = {n["id"]: i for i, n in enumerate(cluster["nodes"])}
    node_rack = np.array([rack_ix[n["rack"]] for n in cluster["nodes"]], dtype=np.int64)
    free = np.array([n["map_slots"] for n in cluster["nodes"]], dtype=np.int64)
    for t in snap["running"]:
        if t["kind"] == "map":
            free[node_ix[t["node"]]] -= 1
    free = np.maximum(free, 0)
    tasks = [t for t in snap["pending"] if t["kind"] == "map"]
    n_tasks, n_racks = len(tasks), len(cluster["racks"])
    cap = n_tasks
    rack_bw, cross_bw = float(net["rack_mbps"]), float(net["cross_rack_mbps"])

    # Vertices as in structured.rs: S, T, cluster, racks, nodes with a free slot, tasks.
    S, T, C = 0, 1, 2
    nodes = np.nonzero(free > 0)[0]
    node_v = np.full(len(free), -1, dtype=np.int64)
    node_v[nodes] = 3 + n_racks + np.arange(len(nodes))
    task_v0 = 3 + n_racks + len(nodes)
    vertices = task_v0 + n_tasks
    rack_has_node = np.zeros(n_racks, dtype=bool)
    rack_has_node[node_rack[nodes]] = True

    # Per-task costs in seconds (solver/src/cost.rs, uniform bandwidths): 0 on a replica node,
    # in-rack read on the racks holding a replica, cross-rack read (base) anywhere else.
    tails, heads, caps, secs = [], [], [], []
    max_cost = 0.0
    for i, t in enumerate(tasks):
        v = task_v0 + i
        tails.append(S), heads.append(v), caps.append(1), secs.append(0.0)
        reps = [node_ix[r] for r in t["replicas"]]
        if not reps:
            tails.append(v), heads.append(C), caps.append(1), secs.append(0.0)
            continue
        b = t["input_bytes"]
        in_rack = alpha * b * BYTES_TO_MEGABITS / rack_bw
        cross = alpha * b * BYTES_TO_MEGABITS / cross_bw
        holding = sorted({int(node_rack[r]) for r in reps})
        for r in sorted(set(reps)):
            if node_v[r] >= 0:
                tails.append(v), heads.append(int(node_v[r])), caps.append(1), secs.append(0.0)
        if len(holding) == n_racks:
            base = in_rack
        else:
            base = cross
            if in_rack < cross:
                for q in holding:
                    if rack_has_node[q]:
                        tails.append(v), heads.append(3 + q), caps.append(1), secs.append(in_rack)
        tails.append(v), heads.append(C), caps.append(1), secs.append(base)
        max_cost = max(max_cost, base)
    # quantum.rs: 1 ns unless max_cost · 1e9 exceeds 2^61 / (vertices + 2).
    limit = float((1 << 61) // (vertices + 2))
    per_second = 1e9 if max_cost * 1e9 <= limit else 0.5 * limit / max_cost
    for n in nodes:
        tails += [int(node_v[n]), 3 + int(node_rack[n])]
        heads += [T, int(node_v[n])]
        caps += [int(min(free[n], cap)), cap]
        secs += [0.0, 0.0]
    for q in np.nonzero(rack_has_node)[0]:
        tails.append(C), heads.append(3 + int(q)), caps.append(cap), secs.append(0.0)
    # Rust's f64::round (half away from zero) on non-negative costs.
    units = np.floor(np.asarray(secs) * per_second + 0.5).astype(np.int64)
    return Network(vertices, np.asarray(tails, dtype=np.int32), np.asarray(heads, dtype=np.int32),
                   np.asarray(caps, dtype=np.int64), units, per_second,
                   min(n_tasks, int(free[nodes].sum())))


def build_ortools(snap: dict):
    """placer's aggregated network as an OR-tools SimpleMinCostFlow; returns (solver, quantum,
    the flow a max-flow solve must send)."""
    net = build_network(snap)
    mcf = min_cost_flow.SimpleMinCostFlow()
    mcf.add_arcs_with_capacity_and_unit_cost(net.tails, net.heads, net.caps, net.units)
    # S offers every task; SolveMaxFlowWithMinCost sends as much as fits.
    n_tasks = int(np.count_nonzero(net.tails == 0))
    supplies = np.zeros(net.vertices, dtype=np.int64)
    supplies[0], supplies[1] = n_tasks, -n_tasks
    mcf.set_nodes_supplies(np.arange(net.vertices, dtype=np.int32), supplies)
    return mcf, net.per_second, net.want


def ortools_row(problem: str, snap: dict, repeats: int) -> Row:
    row = Row(problem, "OR-tools SimpleMinCostFlow (aggregated network)")
    for _ in range(repeats):
        t0 = time.perf_counter()
        mcf, per_second, want = build_ortools(snap)
        t1 = time.perf_counter()
        status = mcf.solve_max_flow_with_min_cost()
        t2 = time.perf_counter()
        if status != mcf.OPTIMAL:
            sys.exit(f"OR-tools status {status} on {problem}")
        if mcf.maximum_flow() != want:
            sys.exit(f"OR-tools placed {mcf.maximum_flow()} of {want} on {problem}")
        row.build.append(t1 - t0)
        row.solve.append(t2 - t1)
        row.objective = mcf.optimal_cost() / per_second
        row.note = f"{mcf.num_nodes()} vertices, {mcf.num_arcs()} arcs, quantum {1e9 / per_second:g} ns"
    return row


def run_lemon(lemon: Path, network_file: Path, repeats: int, delta: Path | None = None,
              algo: str = "both") -> dict:
    """``lemon_mcf`` (``build-lemon.sh``) on a DIMACS network, under ``/usr/bin/time``: its JSON
    answer plus ``rss_kb``, the process's peak RSS."""
    if not lemon.exists():
        sys.exit(f"{lemon} not found: run benches/peers/build-lemon.sh (or pass --lemon)")
    cmd = ["/usr/bin/time", "-f", "%M", str(lemon), str(network_file), "--repeats", str(repeats),
           "--algo", algo]
    if delta is not None:
        cmd += ["--delta", str(delta)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr}")
    out = json.loads(p.stdout)
    out["rss_kb"] = int(p.stderr.strip().splitlines()[-1])
    return out


LEMON_ALGOS = [("network_simplex", "LEMON NetworkSimplex"), ("cost_scaling", "LEMON CostScaling")]


def lemon_rows(problem: str, snap: dict, lemon: Path, work: Path, repeats: int) -> list[Row]:
    """LEMON's NetworkSimplex and CostScaling on the same aggregated network (written as DIMACS;
    the file write is not timed). "build" = graph, maps and solver from the parsed arrays in
    C++; "solve" = ``run()`` alone."""
    net = build_network(snap)
    network_file = work / "lemon.min"
    net.write_dimacs(network_file)
    out = run_lemon(lemon, network_file, repeats)
    network_file.unlink()
    rows = []
    for key, name in LEMON_ALGOS:
        r = out[key]
        if r["flow"] != net.want:
            sys.exit(f"{name} sent {r['flow']} of {net.want} on {problem}")
        row = Row(problem, name)
        row.objective = r["objective"] / net.per_second
        row.build, row.solve = r["build"], r["solve"]
        row.rss = [out["rss_kb"]]
        row.note = f"{out['nodes']:,} vertices, {out['arcs']:,} arcs (RSS: both solvers' process)"
        rows.append(row)
    return rows


def ortools_one(snap_file: Path, repeats: int) -> dict:
    """OR-tools on one snapshot file, in this process: build and solve times (lists over
    repeats), objective, network size, and this process's peak RSS in KB after loading the
    JSON and at the end (ru_maxrss is a high-water mark, so the difference is what the graph
    build and the solve added on top of the parsed snapshot). Used by scaling.py, which runs it
    as a child process (``peers.py --ortools-one FILE``) to measure each size apart."""
    with open(snap_file) as f:
        snap = json.load(f)
    rss_loaded = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    row = ortools_row(str(snap_file), snap, repeats)
    return {"build": row.build, "solve": row.solve, "objective": row.objective, "note": row.note,
            "rss_loaded_kb": rss_loaded,
            "rss_peak_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}


def place_row(problem: str, snap_file: Path, engine: str, placer: Path, repeats: int) -> Row:
    row = Row(problem, f"placer place --solver {engine}")
    for _ in range(repeats):
        out, wall, rss = run_placer(placer, "place", str(snap_file), "--algorithm", "lsap",
                                    "--solver", engine)
        stats = json.loads(out)["stats"]
        row.objective = float(stats["objective"])
        row.solve.append(float(stats["solve_ms"]) / 1e3)
        row.wall.append(wall)
        row.rss.append(rss)
        row.note = f"{stats['assigned']} placed, {stats['node_local']} node-local"
    return row


def main() -> int:
    here = Path(__file__).resolve().parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--placer", type=Path, default=here.parent.parent / "target/release/placer")
    ap.add_argument("--work", type=Path, default=None, help="scratch dir (default: a temp dir)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--dense-max-nodes", type=int, default=2500)
    ap.add_argument("--nodes", default=",".join(str(n) for n, _, _ in SNAPSHOTS),
                    help="which snapshots (comma-separated node counts)")
    ap.add_argument("--lemon", type=Path,
                    default=here.parent.parent / "target/peers-lemon/lemon_mcf",
                    help="the LEMON peer built by build-lemon.sh")
    ap.add_argument("--ortools-one", type=Path, default=None,
                    help="only OR-tools on this snapshot file; print JSON (see ortools_one)")
    args = ap.parse_args()
    if args.ortools_one is not None:
        print(json.dumps(ortools_one(args.ortools_one, args.repeats)))
        return 0
    work = args.work or Path(tempfile.mkdtemp(prefix="placer-peers-"))
    work.mkdir(parents=True, exist_ok=True)
    wanted = {int(x) for x in args.nodes.split(",") if x}
    load_before = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"# load before: {load_before}", file=sys.stderr)

    rows: list[Row] = []
    groups: list[list[Row]] = []
    for nodes, idle, n_tasks in SNAPSHOTS:
        if nodes not in wanted:
            continue
        problem = f"{nodes:,} nodes, {n_tasks:,} tasks"
        snap_file = work / f"s{nodes}.json"
        with open(snap_file, "w") as f:
            subprocess.run(placer_cmd(args.placer, "gen", "snapshot", "--nodes", str(nodes),
                                      "--rack-size", "20", "--map-slots", "4", "--idle", str(idle),
                                      "--tasks", str(n_tasks), "--replication", "3", "--rack-aware",
                                      "--seed", "1"), stdout=f, check=True)
        print(f"# {problem}", file=sys.stderr)
        g = [place_row(problem, snap_file, "flow", args.placer, args.repeats)]
        with open(snap_file) as f:
            snap = json.load(f)
        g.append(ortools_row(problem, snap, args.repeats))
        g.extend(lemon_rows(problem, snap, args.lemon, work, args.repeats))
        if nodes <= args.dense_max_nodes:
            g.append(place_row(problem, snap_file, "jv", args.placer, args.repeats))
            lsap_file = work / f"s{nodes}.lsap"
            subprocess.run(placer_cmd(args.placer, "export-matrix", str(snap_file), str(lsap_file)),
                           check=True)
            m = read_lsap(lsap_file)
            g.extend(dense_peers(problem + f" (dense {m.shape[0]:,} × {m.shape[1]:,})", m,
                                 lsap_file, args.placer, args.repeats))
            del m
            lsap_file.unlink()
        groups.append(g)

    for n in RANDOM_SIZES:
        problem = f"uniform random {n:,} × {n:,}"
        print(f"# {problem}", file=sys.stderr)
        m = np.random.default_rng(3).random((n, n))
        lsap_file = work / f"rand{n}.lsap"
        write_lsap(lsap_file, m)
        g = dense_peers(problem, m, lsap_file, args.placer, args.repeats)
        groups.append([g[2], g[0], g[1]])
        lsap_file.unlink()

    load_after = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    ok = True
    print(f"load before: {load_before}\nload after:  {load_after}\n"
          f"min of {args.repeats} runs each\n")
    print("| problem | solver | objective (s) | rel. diff | build | solve | wall | peak RSS | note |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|")
    for g in groups:
        ref = g[0].objective
        for r in g:
            diff = abs(r.objective - ref) / max(abs(ref), 1e-300)
            ok &= diff <= RTOL
            rss = f"{max(r.rss) / 1024:.1f} MB" if r.rss else ""
            print(f"| {r.problem} | {r.solver} | {r.objective:.12g} | {diff:.1e} | {fmt_s(r.build)} "
                  f"| {fmt_s(r.solve)} | {fmt_s(r.wall)} | {rss} | {r.note} |")
    if not ok:
        print(f"\nOBJECTIVE MISMATCH above {RTOL:g} relative", file=sys.stderr)
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
