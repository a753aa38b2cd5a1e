"""Sessions under churn: epochs of 1% change posted as deltas, end to end, against LEMON.

Not part of the build: it needs a scratch venv with numpy (and ``pylmcf`` for LEMON's warm
re-solve), the LEMON peer (``benches/peers/build-lemon.sh``) and a release build of placer:

    cargo build --release --no-default-features
    benches/peers/build-lemon.sh
    $VENV/bin/pip install numpy pylmcf
    $VENV/bin/python benches/peers/session_churn.py [--placer target/release/placer]

For each snapshot (``placer gen snapshot --rack-size R --map-slots 4 --replication 3
--rack-aware --seed 1`` with nodes / R / idle / tasks = 2,500 / 20 / 0.5 / 5,000,
12,500 / 20 / 0.25 / 20,000 and 100,000 / 40 / 0.25 / 150,000) it starts ``placer serve`` on
loopback, creates a session with the snapshot (``POST /v1/sessions``), then posts one delta
per epoch, as a master would (``numpy.random.default_rng(7)`` draws the choices):

* every task the last answer placed starts: removed from ``pending``, upserted into
  ``running`` on its node (it takes that slot);
* k = ``--churn`` × pending (1%: 1,500 of 150,000) running tasks end: removed from ``running``
  (they free their slots);
* k new pending maps arrive, each a copy of a drawn pending map (same replicas and size) under
  a new id;
* ``now_s`` moves 3 s.

The first delta starts everything the snapshot's own answer placed (the idle slots of the
generated snapshot: 25% or 50% of the cluster) and is reported apart. From the second on the
cluster is in its steady state: k slots free up, k tasks arrive, and about k are placed, which
is the 1% churn. Each delta is timed end to end on the client (``time.perf_counter`` from the first byte sent
to the last byte read, on a kept-alive connection), with the server's ``stats.solve_ms``
beside it. After the last delta the script keeps the equivalent full snapshot (its own copy,
by the documented rules) and measures, in the same run:

* ``POST /place`` with that snapshot on the same server: the cold request end to end; its
  objective and placement count must equal the session's last answer (exit 1 if not);
* LEMON 1.3.1 ``NetworkSimplex`` cold on that snapshot's aggregated network
  (``peers.build_network``; ``lemon_mcf --algo ns``, ``run()`` alone);
* pylmcf's warm re-solve of the last delta: one graph over the union of the two epochs'
  tasks and every node (a task absent from an epoch, or a node without a free slot, has
  capacity 0 there, so both epochs have the same arcs), solved on the epoch before the last
  delta, given the last epoch's capacities and supplies, and solved again (``solve()`` restarts
  from the kept basis); its objective must equal placer's.

``--incremental`` creates the sessions with ``?incremental=true`` (the exact engine's state
kept across epochs); by default they are solved as ``POST /place`` solves.

Memory: the server's ``placer_memory_held_bytes`` (the sessions' estimate in the admission
ledger) and its resident set (``VmRSS``) after the session is created and after the last delta.
Prints a markdown table; ``--json`` writes the raw figures.
"""

from __future__ import annotations

import argparse
import http.client
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers  # noqa: E402  (the aggregated network and the LEMON runner)

SIZES = [(2500, 20, 0.5, 5000), (12500, 20, 0.25, 20000), (100000, 40, 0.25, 150000)]


class Server:
    """``placer serve`` on a free loopback port, stopped on exit."""

    def __init__(self, placer: Path, log: Path):
        self.log = open(log, "w")
        self.proc = subprocess.Popen(
            [str(placer), "serve", "--addr", "127.0.0.1:0", "--body-limit", "1000000000"],
            stderr=self.log, stdout=subprocess.DEVNULL)
        addr = None
        for _ in range(300):
            text = Path(log).read_text()
            m = re.search(r"placer listening on http://([0-9.]+:[0-9]+)", text)
            if m:
                addr = m.group(1)
                break
            if self.proc.poll() is not None:
                sys.exit(f"placer serve exited:\n{text}")
            time.sleep(0.1)
        if addr is None:
            sys.exit("placer serve did not print its address")
        host, port = addr.split(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=600)

    def post(self, path: str, body: bytes) -> tuple[int, bytes, float]:
        t0 = time.perf_counter()
        self.conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
        resp = self.conn.getresponse()
        data = resp.read()
        return resp.status, data, time.perf_counter() - t0

    def delete(self, path: str) -> int:
        self.conn.request("DELETE", path)
        resp = self.conn.getresponse()
        resp.read()
        return resp.status

    def get(self, path: str) -> bytes:
        self.conn.request("GET", path)
        return self.conn.getresponse().read()

    def held_bytes(self) -> int:
        text = self.get("/metrics").decode()
        m = re.search(r"^placer_memory_held_bytes ([0-9.e+]+)$", text, re.M)
        return int(float(m.group(1))) if m else -1

    def rss_kb(self) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return -1

    def close(self):
        self.proc.terminate()
        self.proc.wait()
        self.log.close()


def churn_delta(snap: dict, answer: dict, epoch: int, k: int, rng) -> dict:
    """The delta of one epoch (see the module docs) against ``snap``, the equivalent full
    snapshot, which it does not change: every task ``answer`` placed starts, ``k`` running
    tasks end, ``k`` new pending maps arrive."""
    by_id = {t["id"]: t for t in snap["pending"]}
    now = snap.get("now_s", 0.0) + 3.0
    started = [{"id": a["task"], "job": by_id[a["task"]]["job"], "kind": "map",
                "node": a["node"], "started_s": now} for a in answer["assignments"]]
    running = snap["running"]
    ending = [running[i]["id"] for i in sorted(rng.choice(len(running), size=min(k, len(running)),
                                                          replace=False))]
    templates = rng.choice(len(snap["pending"]), size=k, replace=True)
    new = []
    for i, j in enumerate(templates):
        t = dict(snap["pending"][int(j)])
        t["id"] = f"e{epoch}-m{i}"
        new.append(t)
    return {"now_s": now,
            "remove": {"pending": [a["task"] for a in answer["assignments"]], "running": ending},
            "upsert": {"pending": new, "running": started}}


def apply(snap: dict, changes: dict) -> dict:
    """The documented rules on a JSON snapshot: remove, then upsert (in place or appended)."""
    out = dict(snap)
    for key in ("pending", "running"):
        gone = set(changes.get("remove", {}).get(key, []))
        items = [e for e in snap[key] if e["id"] not in gone]
        at = {e["id"]: i for i, e in enumerate(items)}
        for e in changes.get("upsert", {}).get(key, []):
            if e["id"] in at:
                items[at[e["id"]]] = e
            else:
                at[e["id"]] = len(items)
                items.append(e)
        out[key] = items
    if "now_s" in changes:
        out["now_s"] = changes["now_s"]
    return out


def union_networks(old: dict, new: dict) -> tuple[peers.Network, peers.Network]:
    """The aggregated networks of two snapshots of one cluster on the same arcs: every node
    (capacity = its free map slots, maybe 0) and the union of both epochs' pending maps (a task
    absent from an epoch has S → task capacity 0 there), each task with arcs to its replica
    nodes, to the racks holding a replica when an in-rack read is cheaper, and to the cluster
    vertex, at placer's costs (``peers.build_network``'s)."""
    cluster = old["cluster"]
    net = cluster["network"]
    alpha = float(old["policy"].get("alpha", 1.0))
    rack_ix = {r["id"]: i for i, r in enumerate(cluster["racks"])}
    node_ix = {n["id"]: i for i, n in enumerate(cluster["nodes"])}
    node_rack = np.array([rack_ix[n["rack"]] for n in cluster["nodes"]], dtype=np.int64)
    slots = np.array([n["map_slots"] for n in cluster["nodes"]], dtype=np.int64)
    n_racks, n_nodes = len(cluster["racks"]), len(cluster["nodes"])

    def free(snap):
        f = slots.copy()
        for t in snap["running"]:
            if t["kind"] == "map":
                f[node_ix[t["node"]]] -= 1
        return np.maximum(f, 0)

    tasks, seen = [], set()
    for t in old["pending"] + new["pending"]:
        if t["kind"] == "map" and t["id"] not in seen:
            seen.add(t["id"])
            tasks.append(t)
    present = [{t["id"] for t in s["pending"] if t["kind"] == "map"} for s in (old, new)]
    rack_bw, cross_bw = float(net["rack_mbps"]), float(net["cross_rack_mbps"])
    S, T, C = 0, 1, 2
    node_v0 = 3 + n_racks
    task_v0 = node_v0 + n_nodes
    vertices = task_v0 + len(tasks)
    cap = len(tasks)
    tails, heads, secs, owner = [], [], [], []  # owner: task index of S → task arcs, else -1
    for i, t in enumerate(tasks):
        v = task_v0 + i
        tails.append(S), heads.append(v), secs.append(0.0), owner.append(i)
        reps = sorted({node_ix[r] for r in t["replicas"]})
        b = t["input_bytes"]
        in_rack = alpha * b * peers.BYTES_TO_MEGABITS / rack_bw
        cross = alpha * b * peers.BYTES_TO_MEGABITS / cross_bw
        if not reps:
            tails.append(v), heads.append(C), secs.append(0.0), owner.append(-1)
            continue
        holding = sorted({int(node_rack[r]) for r in reps})
        for r in reps:
            tails.append(v), heads.append(node_v0 + r), secs.append(0.0), owner.append(-1)
        base = in_rack if len(holding) == n_racks else cross
        if len(holding) < n_racks and in_rack < cross:
            for q in holding:
                tails.append(v), heads.append(3 + q), secs.append(in_rack), owner.append(-1)
        tails.append(v), heads.append(C), secs.append(base), owner.append(-1)
    first_node_arc = len(tails)
    for n in range(n_nodes):
        tails += [node_v0 + n, 3 + int(node_rack[n])]
        heads += [T, node_v0 + n]
        secs += [0.0, 0.0]
        owner += [-1, -1]
    for q in range(n_racks):
        tails.append(C), heads.append(3 + q), secs.append(0.0), owner.append(-1)
    units = np.floor(np.asarray(secs) * 1e9 + 0.5).astype(np.int64)
    tails_a, heads_a = np.asarray(tails, dtype=np.int32), np.asarray(heads, dtype=np.int32)
    owner_a = np.asarray(owner)
    nets = []
    for snap, ids in zip((old, new), present):
        f = free(snap)
        caps = np.full(len(tails), 1, dtype=np.int64)
        on = np.array([t["id"] in ids for t in tasks])
        s_arcs = owner_a >= 0
        caps[s_arcs] = on[owner_a[s_arcs]].astype(np.int64)
        node_caps = np.empty(2 * n_nodes, dtype=np.int64)
        node_caps[0::2] = np.minimum(f, cap)
        node_caps[1::2] = cap
        caps[first_node_arc:first_node_arc + 2 * n_nodes] = node_caps
        caps[first_node_arc + 2 * n_nodes:] = cap
        want = int(min(on.sum(), f.sum()))
        nets.append(peers.Network(vertices, tails_a, heads_a, caps, units, 1e9, want))
    return nets[0], nets[1]


def pylmcf_warm(old: peers.Network, new: peers.Network) -> dict:
    import pylmcf
    order = np.lexsort((old.heads, old.tails))
    tails = np.ascontiguousarray(old.tails[order])
    heads = np.ascontiguousarray(old.heads[order])

    def load(g, net):
        g.set_edge_capacities(np.ascontiguousarray(net.caps[order]))
        g.set_edge_costs(np.ascontiguousarray(net.units[order]))
        g.set_node_supply(net.supplies())

    g = pylmcf.Graph(old.vertices, tails, heads)
    load(g, old)
    g.solve()
    t0 = time.perf_counter()
    load(g, new)
    t1 = time.perf_counter()
    g.solve()
    t2 = time.perf_counter()
    c = pylmcf.Graph(new.vertices, tails, heads)
    load(c, new)
    t3 = time.perf_counter()
    c.solve()
    t4 = time.perf_counter()
    return {"update_s": t1 - t0, "warm_s": t2 - t1, "cold_s": t4 - t3,
            "objective": g.total_cost() / new.per_second,
            "cold_objective": c.total_cost() / new.per_second}


def main() -> int:
    here = Path(__file__).resolve().parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--placer", type=Path, default=here.parent.parent / "target/release/placer")
    ap.add_argument("--lemon", type=Path,
                    default=here.parent.parent / "target/peers-lemon/lemon_mcf")
    ap.add_argument("--epochs", type=int, default=6, help="deltas, the first reported apart")
    ap.add_argument("--churn", type=float, default=0.01)
    ap.add_argument("--max-nodes", type=int, default=100000)
    ap.add_argument("--repeats", type=int, default=3, help="LEMON's cold solves")
    ap.add_argument("--no-lemon", action="store_true")
    ap.add_argument("--incremental", action="store_true",
                    help="create the sessions with ?incremental=true (the engine's state kept)")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--dump", type=Path, default=None,
                    help="write each size's last equivalent full snapshot here")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="session-churn-"))
    server = Server(args.placer, work / "server.log")
    rows = []
    try:
        for nodes, rack, idle, n_tasks in SIZES:
            if nodes > args.max_nodes:
                continue
            rng = np.random.default_rng(7)
            body = subprocess.run(
                [str(args.placer), "gen", "snapshot", "--nodes", str(nodes), "--rack-size",
                 str(rack), "--map-slots", "4", "--idle", str(idle), "--tasks", str(n_tasks),
                 "--replication", "3", "--rack-aware", "--seed", "1"],
                check=True, capture_output=True).stdout
            snap = json.loads(body)
            snap.setdefault("policy", {})["algorithm"] = "lsap"
            body = json.dumps(snap).encode()
            rss0 = server.rss_kb()
            create = "/v1/sessions?incremental=true" if args.incremental else "/v1/sessions"
            status, data, create_s = server.post(create, body)
            if status != 201:
                sys.exit(f"create: {status} {data[:300]!r}")
            created = json.loads(data)
            sid, answer = created["session"], created["answer"]
            held, rss1 = server.held_bytes(), server.rss_kb()
            walls, solves, sizes = [], [], []
            k = max(1, int(round(args.churn * len(snap["pending"]))))
            placed_per_epoch = []
            before = snap
            for e in range(1, args.epochs + 1):
                changes = churn_delta(snap, answer, e, k, rng)
                delta = json.dumps({"base_epoch": e - 1, "changes": changes}).encode()
                status, data, wall = server.post(f"/v1/sessions/{sid}/place", delta)
                if status != 200:
                    sys.exit(f"delta {e}: {status} {data[:300]!r}")
                answer = json.loads(data)["answer"]
                before, snap = snap, apply(snap, changes)
                walls.append(wall), solves.append(answer["stats"]["solve_ms"] / 1e3)
                placed_per_epoch.append(len(answer["assignments"]))
                sizes.append(len(delta))
            held2, rss2 = server.held_bytes(), server.rss_kb()
            full = json.dumps(snap).encode()
            if args.dump:
                args.dump.mkdir(parents=True, exist_ok=True)
                (args.dump / f"steady-{nodes}.json").write_bytes(full)
            status, data, cold_wall = server.post("/place", full)
            cold = json.loads(data)
            for key in ("objective",):
                a, b = answer["stats"][key], cold["stats"][key]
                if abs(a - b) > 1e-9 * max(1.0, abs(b)) + 1e-9 * len(answer["assignments"]):
                    sys.exit(f"{nodes} nodes: session objective {a} != /place {b}")
            if len(answer["assignments"]) != len(cold["assignments"]):
                sys.exit(f"{nodes} nodes: session placed {len(answer['assignments'])}, "
                         f"/place {len(cold['assignments'])}")
            row = {"nodes": nodes, "tasks": n_tasks, "epochs": args.epochs,
                   "delta_bytes_all": sizes, "placed_per_epoch": placed_per_epoch, "snapshot_bytes": len(full),
                   "create_s": create_s, "delta_wall_s": walls, "delta_solve_s": solves,
                   "place_wall_s": cold_wall, "place_solve_s": cold["stats"]["solve_ms"] / 1e3,
                   "objective": cold["stats"]["objective"], "placed": len(cold["assignments"]),
                   "held_bytes": [held, held2], "rss_kb": [rss0, rss1, rss2]}
            if not args.no_lemon:
                net = peers.build_network(snap)
                f = work / "lemon.min"
                net.write_dimacs(f)
                out = peers.run_lemon(args.lemon, f, args.repeats, algo="ns")
                f.unlink()
                ns = out["network_simplex"]
                row["lemon_cold_s"] = statistics.median(ns["solve"])
                row["lemon_objective"] = ns["objective"] / net.per_second
                try:
                    old_net, new_net = union_networks(before, snap)
                    row["pylmcf"] = pylmcf_warm(old_net, new_net)
                except ImportError:
                    row["pylmcf"] = None
            rows.append(row)
            server.delete(f"/v1/sessions/{sid}")
            print(json.dumps({k: v for k, v in row.items()}, default=str), file=sys.stderr)
    finally:
        server.close()
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    print("| nodes | steady delta (median) | delta end to end (median) | its solve_ms | "
          "first delta end to end | POST /place end to end | its solve_ms | "
          "LEMON NS cold solve | pylmcf warm re-solve | held / RSS growth |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        lw = r.get("pylmcf") or {}
        steady = r["delta_wall_s"][1:] or r["delta_wall_s"]
        steady_solve = r["delta_solve_s"][1:] or r["delta_solve_s"]
        print(f"| {r['nodes']:,} | {statistics.median(r['delta_bytes_all'][1:] or r['delta_bytes_all']) / 1e3:.0f} kB | "
              f"{statistics.median(steady) * 1e3:.1f} ms | "
              f"{statistics.median(steady_solve) * 1e3:.1f} ms | "
              f"{r['delta_wall_s'][0] * 1e3:.1f} ms | "
              f"{r['place_wall_s'] * 1e3:.1f} ms | {r['place_solve_s'] * 1e3:.1f} ms | "
              f"{r.get('lemon_cold_s', float('nan')) * 1e3:.1f} ms | "
              f"{lw.get('warm_s', float('nan')) * 1e3:.1f} ms | "
              f"{r['held_bytes'][1] / 1e6:.0f} MB / {(r['rss_kb'][2] - r['rss_kb'][0]) / 1e3:.0f} MB |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
