#!/usr/bin/env python3
"""Peak memory of one scheduler-extender call against the extender's memory model
(docs/operations/serving.md, "Limits per route").

For each body shape, starts a fresh `BIN serve` on a free loopback port, posts the body once to
`/k8s/v1/filter` and `/k8s/v1/prioritize`, and reads the server's peak resident memory
(`VmHWM` of /proc/PID/status, less its resident memory before the call). Prints the peak per
body byte and the model's weight (24 × body + 800 × objects + 64 × (commas + containers) +
1 MiB, counted as the server counts it) over the peak: every ratio must stay above 1.

    python3 benches/extender_memory.py --bin target/release/placer
"""
import argparse, json, re, socket, subprocess, time


def start(bin_path):
    p = subprocess.Popen([bin_path, "serve", "--addr", "127.0.0.1:0"], stderr=subprocess.PIPE, text=True)
    for line in p.stderr:
        m = re.search(r"listening on https?://(\S+)", line)
        if m:
            return p, m.group(1)
    raise SystemExit("the server did not start")


def proc_bytes(p, field):
    for line in open(f"/proc/{p.pid}/status"):
        if line.startswith(field):
            return int(line.split()[1]) * 1024
    return 0


def post(addr, path, body):
    host, port = addr.rsplit(":", 1)
    s = socket.create_connection((host, int(port)))
    s.sendall(f"POST {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
    out = bytearray()
    while True:
        d = s.recv(1 << 20)
        if not d:
            break
        out += d
    return int(out[9:12]), len(out)


def shape(body):
    objects = containers = commas = 0
    in_string = escaped = False
    for c in body:
        if in_string:
            if escaped:
                escaped = False
            elif c == 92:
                escaped = True
            elif c == 34:
                in_string = False
            continue
        if c == 34:
            in_string = True
        elif c == 123:
            objects += 1
            containers += 1
        elif c == 91:
            containers += 1
        elif c == 44:
            commas += 1
    return objects, containers, commas


def model(body):
    objects, containers, commas = shape(body)
    return 24 * len(body) + 800 * objects + 64 * (commas + containers) + (1 << 20)


POD = {"metadata": {"name": "p", "namespace": "etl",
                    "annotations": {"placer.io/replicas": "n1,n2", "placer.io/input-bytes": "64Mi"}},
       "spec": {"containers": [{"resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}


def names(n, width):
    return json.dumps({"Pod": POD, "NodeNames": ["n%0*d" % (width, i) for i in range(n)]}).encode()


def nodes(n):
    items = [{"metadata": {"name": f"n{i}", "labels": {"topology.kubernetes.io/rack": f"r{i % 50}"}},
              "status": {"allocatable": {"cpu": "4", "memory": "8Gi"}}} for i in range(n)]
    return json.dumps({"Pod": POD, "Nodes": {"items": items}}).encode()


def minimal_nodes(n):
    return json.dumps({"Pod": POD, "Nodes": {"items": [{"metadata": {"name": f"n{i}"}} for i in range(n)]}}).encode()


def tiny_objects(n):
    return b'{"Pod":{},"NodeNames":["a"],"x":[' + b",".join([b'{"a":0}'] * n) + b"]}"


def numbers(n):
    return b'{"Pod":{},"NodeNames":["a"],"x":[' + b",".join([b"0"] * n) + b"]}"


SHAPES = [
    ("NodeNames, 2M short names", lambda: names(2_000_000, 1)),
    ("NodeNames, 1M 9-char names", lambda: names(1_000_000, 8)),
    ("Nodes, 200k with rack and allocatable", lambda: nodes(200_000)),
    ("Nodes, 500k with a name only", lambda: minimal_nodes(500_000)),
    ("2M objects {\"a\":0} (ignored key)", lambda: tiny_objects(2_000_000)),
    ("5M numbers (ignored key)", lambda: numbers(5_000_000)),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    a = ap.parse_args()
    print("| body | route | body MB | status | peak MB | peak / body | model MB | model / peak |")
    print("|---|---|---|---|---|---|---|---|")
    for name, make in SHAPES:
        body = make()
        weight = model(body)
        routes = ["/k8s/v1/filter", "/k8s/v1/prioritize"] if "ignored" not in name else ["/k8s/v1/filter"]
        for path in routes:
            p, addr = start(a.bin)
            time.sleep(0.3)
            rest = proc_bytes(p, "VmRSS")
            status, _ = post(addr, path, body)
            peak = proc_bytes(p, "VmHWM") - rest
            p.kill()
            p.wait()
            print(f"| {name} | `{path.rsplit('/', 1)[1]}` | {len(body) / 1e6:.1f} | {status} | {peak / 1e6:.0f} | "
                  f"{peak / len(body):.1f} | {weight / 1e6:.0f} | {weight / peak:.2f} |", flush=True)


if __name__ == "__main__":
    main()
