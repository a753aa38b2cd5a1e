#!/usr/bin/env python3
"""How far past its deadline `POST /place` answers, idle and under load (docs/operations/
serving.md, "Deadlines and the anytime answer").

Starts `BIN serve` on a free loopback port, generates a 12,500-node snapshot (racks of 20, 25%
idle, 20,000 pending maps, seed 1), then posts it `--probes` times with `?deadline_ms=D`: first
on an idle server, then while `--load` other clients post the same snapshot without a deadline
in a loop. For each probe it records the time from the last body byte sent to the answer's
last byte (the client's view), the answer's `stats.solve_ms` and `stats.status`, and prints
the overshoot (wall - D) at the median, p95 and max.

    python3 benches/deadline_overshoot.py --bin target/release/placer [--deadline-ms 10]
"""
import argparse, json, re, socket, statistics, subprocess, sys, tempfile, threading, time


def start(bin_path):
    p = subprocess.Popen([bin_path, "serve", "--addr", "127.0.0.1:0"], stderr=subprocess.PIPE, text=True)
    for line in p.stderr:
        m = re.search(r"listening on https?://(\S+)", line)
        if m:
            threading.Thread(target=lambda: [None for _ in p.stderr], daemon=True).start()
            return p, m.group(1)
    raise SystemExit("the server did not start")


def post(addr, path, body):
    host, port = addr.rsplit(":", 1)
    s = socket.create_connection((host, int(port)))
    s.sendall(f"POST {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Length: {len(body)}\r\n\r\n".encode())
    s.sendall(body)
    sent = time.perf_counter()
    out = bytearray()
    while True:
        d = s.recv(1 << 20)
        if not d:
            break
        out += d
    wall = time.perf_counter() - sent
    s.close()
    head, _, payload = bytes(out).partition(b"\r\n\r\n")
    return int(head[9:12]), wall, payload


def probes(addr, body, deadline_ms, n):
    rows = []
    for _ in range(n):
        status, wall, payload = post(addr, f"/place?deadline_ms={deadline_ms}", body)
        stats = json.loads(payload).get("stats", {}) if status == 200 else {}
        rows.append((wall * 1e3, stats.get("solve_ms"), stats.get("status"), status))
    return rows


def summary(name, rows, deadline_ms):
    over = sorted(r[0] - deadline_ms for r in rows)
    solve = sorted(r[1] for r in rows if r[1] is not None)
    statuses = {}
    for r in rows:
        statuses[r[2]] = statuses.get(r[2], 0) + 1
    p95 = over[min(len(over) - 1, int(0.95 * len(over)))]
    print(f"{name:6s} n={len(rows)} overshoot ms: median {statistics.median(over):.1f} p95 {p95:.1f} "
          f"max {over[-1]:.1f}; solve_ms median {statistics.median(solve):.1f}; status {statuses}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--deadline-ms", type=int, default=10)
    ap.add_argument("--probes", type=int, default=30)
    ap.add_argument("--load", type=int, default=4)
    a = ap.parse_args()
    snap = subprocess.run([a.bin, "gen", "snapshot", "--nodes", "12500", "--rack-size", "20", "--map-slots", "2",
                           "--idle", "0.25", "--tasks", "20000", "--replication", "3", "--rack-aware", "--seed", "1"],
                          check=True, capture_output=True).stdout
    print(f"snapshot: {len(snap) / 1e6:.1f} MB, deadline {a.deadline_ms} ms", file=sys.stderr)
    p, addr = start(a.bin)
    try:
        post(addr, "/place", snap)  # warm up
        summary("idle", probes(addr, snap, a.deadline_ms, a.probes), a.deadline_ms)
        stop = threading.Event()

        def loader():
            while not stop.is_set():
                post(addr, "/place", snap)

        threads = [threading.Thread(target=loader, daemon=True) for _ in range(a.load)]
        for t in threads:
            t.start()
        time.sleep(1)
        summary(f"load{a.load}", probes(addr, snap, a.deadline_ms, a.probes), a.deadline_ms)
        stop.set()
        for t in threads:
            t.join()
    finally:
        p.kill()
        p.wait()


if __name__ == "__main__":
    main()
