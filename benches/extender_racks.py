#!/usr/bin/env python3
"""Scheduler-extender calls at cluster scale (docs/operations/kubernetes-extender.md): the
`Nodes`-mode body size per node against the images each node lists (the body-limit formula),
and the wall time of `prioritize` and `filter` in `NodeNames` mode with a node -> rack map
file (`--k8s-rack-map`) and in `Nodes` mode.

Node objects are `server/tests/k8s/node.json` with `IMAGES` image entries in the form kubelet
reports them (`{"names": ["REGISTRY/REPO@sha256:<64 hex>", "REGISTRY/REPO:TAG"], "sizeBytes":
N}`), racks of 40 nodes, the pod of `server/tests/k8s/pod.json` with its block on 3 nodes of
3 racks. Each timed call is one HTTP request on loopback over a fresh connection (as
kube-scheduler's extender client sends them); the script prints min and median of `--calls`
calls, and checks the answers (scores 10 / 9 / 0 by rack).

    python3 benches/extender_racks.py --bin target/release/placer [--nodes 5000] [--calls 9]
"""
import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
RACK = 40


def start(bin_path, *extra):
    p = subprocess.Popen([bin_path, "serve", "--addr", "127.0.0.1:0", *extra],
                         stderr=subprocess.PIPE, text=True)
    for line in p.stderr:
        m = re.search(r"listening on https?://(\S+)", line)
        if m:
            return p, m.group(1)
    raise SystemExit("the server did not start")


def post(addr, path, body):
    """(status, answer body, seconds) of one POST on a fresh connection."""
    host, port = addr.rsplit(":", 1)
    t0 = time.perf_counter()
    s = socket.create_connection((host, int(port)))
    s.sendall(f"POST {path} HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
              f"Connection: close\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
    out = bytearray()
    while True:
        d = s.recv(1 << 20)
        if not d:
            break
        out += d
    dt = time.perf_counter() - t0
    s.close()
    head, _, rest = bytes(out).partition(b"\r\n\r\n")
    if b"chunked" in head.lower():
        body_out, rest2 = bytearray(), rest
        while True:
            size_line, _, rest2 = rest2.partition(b"\r\n")
            size = int(size_line, 16)
            if size == 0:
                break
            body_out += rest2[:size]
            rest2 = rest2[size + 2:]
        rest = bytes(body_out)
    return int(head[9:12]), rest, dt


def image(i):
    digest = ("%064x" % (i * 0x9E3779B97F4A7C15 % (1 << 256)))[:64]
    repo = f"registry.example.com/team-{i % 17}/service-{i}"
    return {"names": [f"{repo}@sha256:{digest}", f"{repo}:v1.{i % 30}.{i % 7}"],
            "sizeBytes": 10_000_000 + 7919 * i}


def node(template, i, images):
    n = json.loads(template.replace("NAME", f"n{i}"))
    n["metadata"]["labels"]["topology.kubernetes.io/rack"] = f"r{i // RACK}"
    n["status"]["images"] = [image(i * 1000 + k) for k in range(images)]
    return n


def pod(replicas):
    p = json.load(open(os.path.join(ROOT, "server/tests/k8s/pod.json")))
    p["metadata"]["annotations"]["placer.io/replicas"] = ",".join(replicas)
    return p


def timed(addr, path, body, calls, check):
    times = []
    for _ in range(calls):
        status, answer, dt = post(addr, path, body)
        if status != 200:
            raise SystemExit(f"{path}: status {status}: {answer[:300]!r}")
        check(json.loads(answer))
        times.append(dt)
    return min(times), statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--calls", type=int, default=9)
    ap.add_argument("--images", type=int, default=50, help="images per node in the Nodes-mode call")
    a = ap.parse_args()
    template = open(os.path.join(ROOT, "server/tests/k8s/node.json")).read()
    n = a.nodes

    # 1. Bytes per Node object against its images (compact JSON, as Go encodes it).
    print("| images per node | bytes per Node object |")
    print("|---:|---:|")
    sizes = {}
    for k in [0, 10, 50, 100]:
        sizes[k] = len(json.dumps(node(template, 1234, k), separators=(",", ":")))
        print(f"| {k} | {sizes[k]:,} |")
    per_image = (sizes[100] - sizes[0]) / 100
    print(f"\nper image: {per_image:.0f} bytes; without images: {sizes[0]:,} bytes\n")

    replicas = ["n5", f"n{n // 2 + 3}", f"n{n - 7}"]
    replica_racks = {int(r[1:]) // RACK for r in replicas}
    names = [f"n{i}" for i in range(n)]
    expected = {f"n{i}": (10 if f"n{i}" in replicas else 9 if i // RACK in replica_racks else 0)
                for i in range(n)}

    def check_scores(answer):
        got = {h["Host"]: h["Score"] for h in answer}
        assert got == expected, "scores differ from the racks'"

    def check_filter(answer):
        assert answer["Error"] == "" and not answer["FailedAndUnresolvableNodes"], answer["Error"]

    with tempfile.TemporaryDirectory() as tmp:
        rack_map = os.path.join(tmp, "racks.txt")
        with open(rack_map, "w") as f:
            f.writelines(f"n{i} r{i // RACK}\n" for i in range(n))
        names_body = json.dumps({"Pod": pod(replicas), "Nodes": None, "NodeNames": names},
                                separators=(",", ":")).encode()
        items = [node(template, i, a.images) for i in range(n)]
        nodes_body = json.dumps({"Pod": pod(replicas), "Nodes": {"metadata": {}, "items": items},
                                 "NodeNames": None}, separators=(",", ":")).encode()
        del items
        print(f"NodeNames body: {len(names_body):,} bytes; Nodes body ({a.images} images per node): "
              f"{len(nodes_body):,} bytes ({len(nodes_body) / (1 << 20):.1f} MiB, "
              f"{len(nodes_body) / n:,.0f} per node)\n")
        print("| call | body | min | median |")
        print("|---|---:|---:|---:|")
        def check_no_racks(answer):
            # Without a map every node is a rack of its own: replicas 10, the rest 0.
            got = {h["Host"]: h["Score"] for h in answer}
            assert got == {h: (10 if h in replicas else 0) for h in names}, "scores without racks"

        for label, extra, check_prio in [
            (f"rack map of {n:,} nodes", ["--k8s-rack-map", rack_map], check_scores),
            ("no rack map", [], check_no_racks),
        ]:
            p, addr = start(a.bin, *extra)
            try:
                for verb, check in [("prioritize", check_prio), ("filter", check_filter)]:
                    lo, med = timed(addr, f"/k8s/v1/{verb}", names_body, a.calls, check)
                    print(f"| `{verb}`, NodeNames, {label} | {len(names_body) / 1e3:,.0f} KB "
                          f"| {lo * 1e3:.1f} ms | {med * 1e3:.1f} ms |", flush=True)
            finally:
                p.kill()
                p.wait()
        limit = str(max(64 << 20, 2 * len(nodes_body)))
        p, addr = start(a.bin, "--body-limit", limit)
        try:
            calls = max(3, a.calls // 3)
            for verb, check in [("prioritize", check_scores), ("filter", check_filter)]:
                lo, med = timed(addr, f"/k8s/v1/{verb}", nodes_body, calls, check)
                print(f"| `{verb}`, Nodes, {a.images} images per node | {len(nodes_body) / 1e6:,.1f} MB "
                      f"| {lo:.2f} s | {med:.2f} s |", flush=True)
        finally:
            p.kill()
            p.wait()


if __name__ == "__main__":
    main()
