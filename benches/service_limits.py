#!/usr/bin/env python3
"""Black-box limits of `placer serve` (rows A1-A10 of BENCHMARKS.md, "Limits per route"), against a built binary.

usage: python3 benches/service_limits.py --bin PATH [--rows A1,A2,...] [--out FILE.json]
                                         [--data DIR] [--big-snapshot FILE]

Each row starts `PATH serve --addr 127.0.0.1:0 ...` afresh (one process per measurement, so
`VmHWM` from /proc/PID/status is that measurement's peak), reads the bound address from the
stderr line `placer listening on http(s)://ADDR`, measures, kills the server and prints one
line. A JSON summary of every row goes to stdout at the end (and to --out). Progress goes to
stderr.

A refusal (503, 413, 408, or the server closing the connection) is an outcome to record, not
a harness failure: status codes, `Retry-After` and connection errors are reported as seen.

Rows (BENCHMARKS.md, "Limits per route", same shapes as the measurements there):
  A1  prioritize, `placer.io/replicas` of 80,000 distinct names (~1 MB), 100 NodeNames: wall time
      and status; then a client that gives up after 2 s, and how long the server's CPU keeps
      running afterwards (utime+stime of /proc/PID/stat).
  A2  prioritize with 4,000,000 NodeNames (~43 MB), --max-memory 4e9: status, time, peak RSS.
  A3  filter with a ~65 KB gzip body inflating to just under 64 MiB (NodeNames of short names),
      --max-memory 4e9: one request, then 4 at once (fresh server): status, peak RSS.
  A4  filter with ~32 MB of NodeNames while the pod's pool is held at its fair share by the
      latest /place answer, --max-memory 4e9: bytes in, bytes out, ratio, peak RSS.
  A5  120 POSTs of a ~4.1 MB snapshot with long pool ids (1,000 pools, 2,000-character ids),
      --max-memory 4e9: VmRSS after, peak, and one `GET /v1/epochs` answer's size and status.
  A6  32 concurrent gzip bombs on /place (~65 KB -> just under 64 MiB, a JSON object with one
      huge string), --max-memory 1e9: peak RSS, status histogram, Retry-After presence.
  A7  two SIGTERMs 0.2 s apart during a long solve (`gen snapshot --nodes 100000 ...`): time
      from the second signal to exit, exit status.
  A8  (a) SIGHUP with the config replaced by a 20 MB invalid TOML, SIGTERM 0.1 s later: time
      to exit; (b) the config path replaced by a named pipe, SIGHUP, SIGTERM: exits or not
      (20 s cap, then SIGKILL).
  A9  `placer_config_generation` in /metrics right after start (no --config).
  A10 server started with RLIMIT_NOFILE soft 1024 (as under `ulimit -n 1024`): its `Max open
      files` soft limit, then 2,048 slow clients (POST /place head with Content-Length 1000000
      and 10 body bytes) and 10 other small POSTs of examples/snapshot.json: how many get 200
      within 3 s.

Generated data is cached under --data (default /tmp/placer-service-limits) and built with a
fixed seed, so before and after runs read the same bytes. Timings are wall-clock on whatever
the machine is doing (each row records the load average when it started); memory figures
(VmHWM/VmRSS) do not depend on load.

Python 3.11 standard library only. Loopback only.
"""

import argparse
import collections
import concurrent.futures
import gzip
import http.client
import json
import os
import random
import re
import resource
import selectors
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

SEED = 29
BODY_LIMIT = 64 * 1024 * 1024  # placer's default --body-limit (decoded)
MEM_4G = 4_000_000_000
MEM_1G = 1_000_000_000
CLK_TCK = os.sysconf("SC_CLK_TCK")
HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE_SNAPSHOT = os.path.join(HERE, "..", "examples", "snapshot.json")
LISTEN_RE = re.compile(r"placer listening on (https?)://(\S+)")


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# /proc readers


def proc_status(pid):
    """VmHWM, VmRSS (bytes) and Threads of a live process, or {} if it is gone."""
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmHWM", "VmRSS"):
                    out[k] = int(v.split()[0]) * 1024
                elif k == "Threads":
                    out[k] = int(v)
    except (FileNotFoundError, ProcessLookupError, ValueError):
        pass
    return out


def proc_cpu_s(pid):
    """utime + stime of a live process in seconds, or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = stat.rsplit(")", 1)[1].split()
    # fields[0] is field 3 (state); utime is field 14, stime 15
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def proc_nofile(pid):
    try:
        with open(f"/proc/{pid}/limits") as f:
            for line in f:
                if line.startswith("Max open files"):
                    parts = line.split()
                    return {"soft": parts[3], "hard": parts[4]}
    except FileNotFoundError:
        pass
    return None


def proc_fd_count(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


def host_info():
    mem = None
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal"):
                mem = int(line.split()[1]) * 1024
    return {"cores": os.cpu_count(), "mem_total_bytes": mem, "loadavg": list(os.getloadavg())}


def mb(n):
    return None if n is None else round(n / 1e6, 1)


# ---------------------------------------------------------------------------------------------
# The server under test


class Server:
    """One `placer serve` process. Its stderr is drained by a thread (so logging never blocks
    the server) and its memory is sampled every 50 ms, so the peak survives the process."""

    def __init__(self, binary, args=(), preexec_fn=None, ready_timeout=60.0):
        self.argv = [binary, "serve", "--addr", "127.0.0.1:0", *map(str, args)]
        env = dict(os.environ)
        env.setdefault("RUST_LOG", "info")
        self.proc = subprocess.Popen(
            self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            preexec_fn=preexec_fn, env=env)
        self.pid = self.proc.pid
        self.lines = collections.deque(maxlen=400)
        self.line_count = 0
        self.addr = None
        self.scheme = "http"
        self._ready = threading.Event()
        self.hwm = 0
        self.max_rss = 0
        self._stop = threading.Event()
        threading.Thread(target=self._drain, daemon=True).start()
        if not self._ready.wait(ready_timeout) or self.addr is None:
            tail = "\n".join(list(self.lines)[-10:])
            self.kill()
            raise RuntimeError(f"server did not print its address: {tail}")
        host, _, port = self.addr.rpartition(":")
        self.host, self.port = host.strip("[]"), int(port)
        threading.Thread(target=self._sample, daemon=True).start()
        # the address is printed once bound; wait until the app answers too
        t = time.monotonic()
        while time.monotonic() - t < 10 and request(self, "GET", "/healthz", timeout=2)["status"] != 200:
            time.sleep(0.05)

    def _drain(self):
        for raw in self.proc.stderr:
            line = raw.decode(errors="replace").rstrip("\n")
            self.lines.append(line[:600])
            self.line_count += 1
            if self.addr is None:
                m = LISTEN_RE.search(line)
                if m:
                    self.scheme, self.addr = m.group(1), m.group(2)
                    self._ready.set()
        self._ready.set()

    def _sample(self):
        while not self._stop.is_set() and self.proc.poll() is None:
            st = proc_status(self.pid)
            self.hwm = max(self.hwm, st.get("VmHWM", 0))
            self.max_rss = max(self.max_rss, st.get("VmRSS", 0))
            time.sleep(0.05)

    def peak(self):
        """VmHWM now (the process's own high-water mark), or the last sampled one if gone."""
        st = proc_status(self.pid)
        self.hwm = max(self.hwm, st.get("VmHWM", 0))
        return self.hwm

    def rss(self):
        return proc_status(self.pid).get("VmRSS")

    def alive(self):
        return self.proc.poll() is None

    def signal(self, sig):
        try:
            os.kill(self.pid, sig)
        except ProcessLookupError:
            pass

    def wait(self, timeout):
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self):
        self._stop.set()
        if self.proc.poll() is None:
            self.signal(signal.SIGKILL)
            self.proc.wait()

    def log_matches(self, pattern, limit=5):
        rx = re.compile(pattern)
        return [l for l in self.lines if rx.search(l)][:limit]

    def exit_info(self):
        rc = self.proc.returncode
        if rc is None:
            return {"exited": False}
        if rc < 0:
            return {"exited": True, "exit_code": None, "signal": signal.Signals(-rc).name}
        return {"exited": True, "exit_code": rc, "signal": None}


# ---------------------------------------------------------------------------------------------
# A raw HTTP/1.1 client that survives early answers, resets and slow servers


def connect(server, timeout):
    sock = socket.create_connection((server.host, server.port), timeout=timeout)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if server.scheme == "https":
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        sock = ctx.wrap_socket(sock, server_hostname=server.host)
    return sock


def request(server, method, path, body=b"", headers=None, timeout=60.0, keep_body=1 << 20,
            count=None, give_up_after=None, keep_tail=0):
    """One request on a fresh connection. The body is sent by a thread while the answer is
    read, so a server that answers (413, 503) before the upload ends is heard. Returns a dict:
    status, retry_after, headers of interest, body (first `keep_body` bytes), body_bytes,
    t_head_s / t_total_s from the start, error (a connection error or 'timeout'), sent bytes,
    and `count`: occurrences of that byte string in the answer (counted while streaming).
    `give_up_after`: close the connection after that many seconds, like a client timeout."""
    res = {"status": None, "error": None, "sent_bytes": 0, "body_bytes": 0}
    body = body or b""
    hdrs = {"Host": f"{server.host}:{server.port}", "Content-Length": str(len(body)),
            "Connection": "close"}
    if body:
        hdrs["Content-Type"] = "application/json"
    hdrs.update(headers or {})
    head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in hdrs.items()) + "\r\n"
    t0 = time.monotonic()
    deadline = give_up_after if give_up_after is not None else timeout
    try:
        sock = connect(server, timeout=deadline)
    except OSError as e:
        res["error"] = f"connect: {e.__class__.__name__}: {e}"
        res["t_total_s"] = round(time.monotonic() - t0, 3)
        return res
    sock.settimeout(None)
    fired = threading.Event()

    def watchdog():
        fired.set()
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    timer = threading.Timer(max(0.0, deadline - (time.monotonic() - t0)), watchdog)
    timer.daemon = True
    timer.start()
    send_err = []

    def sender():
        try:
            sock.sendall(head.encode())
            res["sent_bytes"] = 0
            view = memoryview(body)
            step = 1 << 20
            for i in range(0, len(body), step):
                sock.sendall(view[i:i + step])
                res["sent_bytes"] = min(len(body), i + step)
        except OSError as e:
            send_err.append(f"{e.__class__.__name__}: {e}")

    st = threading.Thread(target=sender, daemon=True)
    st.start()
    kept = bytearray()
    hits = 0
    tail = b""
    try:
        resp = http.client.HTTPResponse(sock, method=method)
        resp.begin()
        res["t_head_s"] = round(time.monotonic() - t0, 3)
        res["status"] = resp.status
        res["retry_after"] = resp.getheader("Retry-After")
        res["content_type"] = resp.getheader("Content-Type")
        res["connection"] = resp.getheader("Connection")
        while True:
            chunk = resp.read(1 << 20)
            if not chunk:
                break
            res["body_bytes"] += len(chunk)
            if len(kept) < keep_body:
                kept += chunk[: keep_body - len(kept)]
            if keep_tail:
                res["tail"] = (res.get("tail", b"") + chunk)[-keep_tail:]
            if count:
                buf = tail + chunk
                hits += buf.count(count)
                # the last len-1 bytes cannot hold a whole match: no match is counted twice
                tail = buf[-(len(count) - 1):] if len(count) > 1 else b""
    except (OSError, http.client.HTTPException, ValueError) as e:
        if fired.is_set():
            res["error"] = "timeout" if give_up_after is None else "gave_up"
        else:
            res["error"] = f"{e.__class__.__name__}: {e}"
    finally:
        timer.cancel()
        res["t_total_s"] = round(time.monotonic() - t0, 3)
        try:
            sock.close()
        except OSError:
            pass
    st.join(5)
    if send_err and res["status"] is None and res["error"] is None:
        res["error"] = "send: " + send_err[0]
    if send_err:
        res["send_error"] = send_err[0]
    if fired.is_set() and res["error"] is None and res["status"] is not None:
        res["error"] = "timeout_while_reading_body" if give_up_after is None else "gave_up"
    res["body"] = bytes(kept)
    if count:
        res["count"] = hits
    return res


def brief(res, keep_body_text=False):
    """A request result for the JSON report (no raw body unless it is a short JSON error)."""
    out = {k: v for k, v in res.items() if k not in ("body", "tail")}
    body = res.get("body") or b""
    if res.get("status") and res["status"] >= 400 and len(body) < 2000:
        try:
            out["error_code"] = json.loads(body)["error"]["code"]
        except (ValueError, KeyError, TypeError):
            out["body_head"] = body[:200].decode(errors="replace")
    elif keep_body_text:
        out["body_head"] = body[:200].decode(errors="replace")
    return out


def hold_slow_clients(server, head, n, connect_wait_s=1.5):
    """Open `n` connections at once (non-blocking connects, so a full listen backlog does not
    serialize them) and send `head` on each as soon as it connects. Returns (sockets that sent
    the head, Counter of the others' fates). Connections still connecting after
    `connect_wait_s` are left open (the kernel keeps retrying their SYN) and counted as
    `connect_pending`."""
    if server.scheme == "https":  # TLS handshakes: blocking, in threads
        socks, failed, lock = [], collections.Counter(), threading.Lock()

        def one(_):
            try:
                sk = connect(server, timeout=connect_wait_s)
                sk.sendall(head)
                with lock:
                    socks.append(sk)
            except OSError as e:
                with lock:
                    failed[e.__class__.__name__] += 1
        with concurrent.futures.ThreadPoolExecutor(64) as ex:
            list(ex.map(one, range(n)))
        return socks, failed
    sel = selectors.DefaultSelector()
    pending, socks, failed = {}, [], collections.Counter()
    for _ in range(n):
        sk = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sk.setblocking(False)
        rc = sk.connect_ex((server.host, server.port))
        if rc not in (0, 115):  # 115 = EINPROGRESS
            failed[os.strerror(rc)] += 1
            sk.close()
            continue
        pending[sk.fileno()] = sk
        sel.register(sk, selectors.EVENT_WRITE)
    t = time.monotonic()
    while pending and time.monotonic() - t < connect_wait_s:
        for key, _ in sel.select(timeout=0.1):
            sk = key.fileobj
            sel.unregister(sk)
            del pending[sk.fileno()]
            err = sk.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if err:
                failed[os.strerror(err)] += 1
                sk.close()
                continue
            try:
                sk.send(head)
                socks.append(sk)
            except OSError as e:
                failed[e.__class__.__name__] += 1
                sk.close()
    sel.close()
    if pending:
        failed["connect_pending"] += len(pending)
        socks.extend(pending.values())  # still holding a slot in the kernel's SYN queue
    return socks, failed


def get_metrics(server, timeout=5.0):
    r = request(server, "GET", "/metrics", timeout=timeout, keep_body=1 << 22)
    return r.get("body", b"").decode(errors="replace") if r["status"] == 200 else ""


def metric_value(text, name):
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            try:
                return float(line.rsplit(None, 1)[1])
            except (ValueError, IndexError):
                return None
    return None


def histogram(results):
    h = collections.Counter()
    for r in results:
        key = str(r["status"]) if r["status"] is not None else ":".join((r["error"] or "no_answer").split(":")[:2])
        h[key] += 1
    return dict(sorted(h.items()))


# ---------------------------------------------------------------------------------------------
# Data (cached, seeded)


class Data:
    def __init__(self, root):
        self.root = root
        os.makedirs(root, exist_ok=True)

    def cached(self, name, build):
        path = os.path.join(self.root, name)
        if not os.path.exists(path):
            log(f"building {path}")
            data = build()
            tmp = path + ".tmp"
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        with open(path, "rb") as f:
            return f.read()


def pod(pool=None, replicas=None, input_bytes=None, name="m-0", namespace="default"):
    ann = {}
    if replicas is not None:
        ann["placer.io/replicas"] = replicas
    if input_bytes is not None:
        ann["placer.io/input-bytes"] = input_bytes
    if pool is not None:
        ann["placer.io/pool"] = pool
    return {"metadata": {"name": name, "namespace": namespace, "annotations": ann}}


def names_args_bytes(pod_obj, names_json_items):
    """`{"Pod": ..., "Nodes": null, "NodeNames": [...]}` with the list given as JSON text."""
    head = json.dumps({"Pod": pod_obj, "Nodes": None})[:-1] + ', "NodeNames": ['
    return head.encode() + names_json_items + b"]}"


def build_a1():
    rng = random.Random(SEED)
    names = [f"node-{i:07d}" for i in range(80_000)]
    rng.shuffle(names)
    offered = names[:50] + [f"other-{i:03d}" for i in range(50)]
    args = {"Pod": pod(replicas=",".join(names), input_bytes="128Mi"), "Nodes": None,
            "NodeNames": offered}
    return json.dumps(args).encode()


def build_a2():
    items = ",".join(f'"n{i}"' for i in range(4_000_000)).encode()
    return names_args_bytes(pod(replicas="n1,n2000000,n3999999", input_bytes="128Mi"), items)


def build_gzip_under_limit(prefix, unit, suffix):
    """A gzip stream whose decoded JSON is prefix + unit,unit,...,unit + spaces + suffix, of
    exactly BODY_LIMIT - 64 bytes (just under the 64 MiB body limit)."""
    target = BODY_LIMIT - 64
    room = target - len(prefix) - len(suffix)
    n = (room + 1) // (len(unit) + 1)
    core = (unit + b",") * (n - 1) + unit
    pad = b" " * (room - len(core))
    doc = prefix + core + pad + suffix
    assert len(doc) == target, (len(doc), target)
    return gzip.compress(doc, compresslevel=9, mtime=0)


def build_a3():
    prefix = names_args_bytes(pod(), b"")[:-2]  # ... "NodeNames": [
    return build_gzip_under_limit(prefix, b'"a"', b"]}")


def build_a4_args():
    # ~32 MB: 2,900,000 names of 8 characters, 11 bytes each with quotes and comma
    items = ",".join(f'"n{i:07d}"' for i in range(2_900_000)).encode()
    return names_args_bytes(pod(pool="default"), items)


def a4_snapshot():
    """2 map slots in all; pools `default` and `other` of equal weight; `default` runs 1 map
    with 10 pending, `other` 10 pending: `default` is at its fair share (1) and wants more."""
    pending = [{"id": f"jd-m-{i}", "job": "jd", "kind": "map"} for i in range(10)]
    pending += [{"id": f"jo-m-{i}", "job": "jo", "kind": "map"} for i in range(10)]
    return {
        "schema_version": 1, "now_s": 100.0,
        "cluster": {"racks": [{"id": "r1"}],
                    "nodes": [{"id": "n1", "rack": "r1", "map_slots": 2, "reduce_slots": 0}]},
        "pools": [{"id": "default", "weight": 1.0}, {"id": "other", "weight": 1.0}],
        "jobs": [{"id": "jd", "pool": "default"}, {"id": "jo", "pool": "other"}],
        "pending": pending,
        "running": [{"id": "jd-m-run", "job": "jd", "kind": "map", "node": "n1", "started_s": 50.0}],
    }


def build_a5():
    """~4.1 MB: 1,000 pools with 2,000-character ids, one job and one pending map each, one
    node with one free map slot. (Pool ids appear twice, in `pools` and `jobs[].pool`, so
    2,000 characters give 4.1 MB; 4,000 would give 8 MB.)"""
    rng = random.Random(SEED)
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
    pools, jobs, pending = [], [], []
    for i in range(1000):
        pid = f"p{i:04d}-" + "".join(rng.choice(alphabet) for _ in range(2000 - 6))
        pools.append({"id": pid, "weight": 1.0})
        jobs.append({"id": f"j{i}", "pool": pid})
        pending.append({"id": f"t{i}", "job": f"j{i}", "kind": "map"})
    snap = {"schema_version": 1, "now_s": 10.0,
            "cluster": {"racks": [{"id": "r1"}],
                        "nodes": [{"id": "n1", "rack": "r1", "map_slots": 1, "reduce_slots": 0}]},
            "pools": pools, "jobs": jobs, "pending": pending, "running": []}
    return json.dumps(snap).encode()


def build_a6():
    """A /place gzip bomb: a JSON object with one huge string, just under 64 MiB decoded."""
    target = BODY_LIMIT - 64
    prefix, suffix = b'{"x": "', b'"}'
    doc = prefix + b"a" * (target - len(prefix) - len(suffix)) + suffix
    return gzip.compress(doc, compresslevel=9, mtime=0)


# ---------------------------------------------------------------------------------------------
# Rows


class Rows:
    def __init__(self, binary, data, big_snapshot):
        self.bin = binary
        self.data = data
        self.big = big_snapshot
        self.servers = []

    def serve(self, *args, **kw):
        s = Server(self.bin, args, **kw)
        self.servers.append(s)
        log(f"  server pid {s.pid} on {s.scheme}://{s.addr} ({' '.join(map(str, args)) or 'defaults'})")
        return s

    def done(self, s):
        s.kill()
        if s in self.servers:
            self.servers.remove(s)

    def cleanup(self):
        for s in list(self.servers):
            self.done(s)

    # A1 -------------------------------------------------------------------------------------
    def A1(self):
        body = self.data.cached("a1_prioritize_80k_replicas.json", build_a1)
        out = {"body_bytes": len(body), "replicas": 80_000, "node_names": 100}
        s = self.serve()
        log(f"  A1 prioritize, {len(body)} B body, waiting up to 45 s")
        cpu0 = proc_cpu_s(s.pid)
        r = request(s, "POST", "/k8s/v1/prioritize", body, timeout=45)
        out["answer"] = brief(r)
        out["status"] = r["status"]
        out["wall_s"] = r["t_total_s"] if r["status"] is not None else None
        out["server_cpu_s"] = round((proc_cpu_s(s.pid) or 0) - (cpu0 or 0), 2)
        if r["status"] == 200:
            try:
                scores = json.loads(r["body"])
                out["scores"] = len(scores)
                out["score_histogram"] = dict(collections.Counter(str(x["Score"]) for x in scores))
            except (ValueError, KeyError, TypeError):
                pass
        out["peak_rss_bytes"] = s.peak()
        self.done(s)

        # a client that gives up after 2 s: how long does the server keep computing? Busy =
        # the process's utime+stime grows by >= 0.02 s per 0.2 s poll (10 % of a core: on a
        # loaded machine the server may get well under one core); idle for 3 s = stopped.
        s = self.serve()
        log("  A1 client giving up after 2 s; watching the server's CPU (up to 75 s)")
        cpu0 = proc_cpu_s(s.pid)
        r = request(s, "POST", "/k8s/v1/prioritize", body, give_up_after=2.0)
        t_left = time.monotonic()
        cpu_left = proc_cpu_s(s.pid)
        prev = (t_left, cpu_left)
        last_busy = None
        cpu_at_last_busy = cpu_left
        while time.monotonic() - t_left < 75:
            time.sleep(0.2)
            now, cpu = time.monotonic(), proc_cpu_s(s.pid)
            if cpu is None:
                break
            if cpu - prev[1] >= 0.02:
                last_busy, cpu_at_last_busy = now, cpu
            prev = (now, cpu)
            if now - (last_busy or t_left) >= 3.0:
                break
        out["gave_up"] = {
            "client": brief(r),
            "client_gave_up_after_s": r["t_total_s"],
            "server_busy_after_client_left_s": round(last_busy - t_left, 1) if last_busy else 0.0,
            "server_cpu_s_after_client_left": round(cpu_at_last_busy - cpu_left, 2),
            "server_cpu_s_before_client_left": round(cpu_left - cpu0, 2),
            "watch_capped": time.monotonic() - t_left >= 75,
            "log": s.log_matches(r"k8s", 3),
        }
        # the server's own request log, once the work ended: its duration and status
        m = re.search(r"status=(\d+) duration_ms=([\d.]+)", " ".join(out["gave_up"]["log"]))
        out["gave_up"]["server_logged"] = {"status": int(m.group(1)), "duration_s": round(float(m.group(2)) / 1000, 1)} if m else None
        self.done(s)
        g = out["gave_up"]
        shown = f"{out['wall_s']} s" if out["status"] is not None else f"no answer in {out['answer']['t_total_s']} s"
        if g["client"]["status"] is None:
            who = "client gone at 2 s"
        else:
            who = f"2 s client answered {g['client']['status']} in {g['client']['t_total_s']} s"
        logged = (f"; logged {g['server_logged']['status']} after {g['server_logged']['duration_s']} s"
                  if g["server_logged"] else "")
        out["line"] = (f"status {out['status']} {shown} (server CPU {out['server_cpu_s']} s); {who} -> server busy "
                       f"{g['server_busy_after_client_left_s']} s more{' (capped)' if g['watch_capped'] else ''} "
                       f"(CPU {g['server_cpu_s_after_client_left']} s{logged})")
        return out

    # A2 -------------------------------------------------------------------------------------
    def A2(self):
        body = self.data.cached("a2_prioritize_4M_names.json", build_a2)
        s = self.serve("--max-memory", MEM_4G)
        log(f"  A2 prioritize, {len(body) / 1e6:.1f} MB body (up to 115 s)")
        cpu0 = proc_cpu_s(s.pid)
        r = request(s, "POST", "/k8s/v1/prioritize", body, timeout=115, keep_body=4096)
        cpu = round((proc_cpu_s(s.pid) or 0) - (cpu0 or 0), 1)
        out = {"body_bytes": len(body), "node_names": 4_000_000, "max_memory_bytes": MEM_4G,
               "answer": brief(r), "status": r["status"], "retry_after": r.get("retry_after"),
               "wall_s": r["t_total_s"], "answer_bytes": r["body_bytes"],
               "server_cpu_s": cpu, "peak_rss_bytes": s.peak()}
        self.done(s)
        shown = f"in {out['wall_s']} s" if r["status"] is not None else f"({r['error']} after {out['wall_s']} s, server CPU {cpu} s)"
        out["line"] = (f"status {out['status']} {shown}, peak {mb(out['peak_rss_bytes'])} MB "
                       f"(budget {mb(MEM_4G)} MB), answer {mb(out['answer_bytes'])} MB")
        return out

    # A3 -------------------------------------------------------------------------------------
    def A3(self):
        body = self.data.cached("a3_filter_names.json.gz", build_a3)
        hdrs = {"Content-Encoding": "gzip"}
        out = {"gzip_bytes": len(body), "decoded_bytes": BODY_LIMIT - 64, "max_memory_bytes": MEM_4G}
        s = self.serve("--max-memory", MEM_4G)
        log(f"  A3 one gzip filter, {len(body)} B -> {BODY_LIMIT - 64} B")
        r = request(s, "POST", "/k8s/v1/filter", body, hdrs, timeout=90, keep_body=4096)
        out["one"] = {"answer": brief(r), "status": r["status"], "wall_s": r["t_total_s"],
                      "answer_bytes": r["body_bytes"], "peak_rss_bytes": s.peak()}
        self.done(s)
        s = self.serve("--max-memory", MEM_4G)
        log("  A3 four at once")
        with concurrent.futures.ThreadPoolExecutor(4) as ex:
            rs = list(ex.map(lambda _: request(s, "POST", "/k8s/v1/filter", body, hdrs, timeout=100,
                                               keep_body=4096), range(4)))
        out["four"] = {"statuses": histogram(rs),
                       "retry_after": [r.get("retry_after") for r in rs],
                       "wall_s": max(r["t_total_s"] for r in rs),
                       "answers": [brief(r) for r in rs], "peak_rss_bytes": s.peak()}
        self.done(s)
        out["line"] = (f"one: status {out['one']['status']}, peak {mb(out['one']['peak_rss_bytes'])} MB; "
                       f"4 at once: {out['four']['statuses']}, peak {mb(out['four']['peak_rss_bytes'])} MB "
                       f"(budget {mb(MEM_4G)} MB; {len(body)} B gzip)")
        return out

    # A4 -------------------------------------------------------------------------------------
    def A4(self):
        body = self.data.cached("a4_filter_32MB_names.json", build_a4_args)
        s = self.serve("--max-memory", MEM_4G)
        out = {"max_memory_bytes": MEM_4G, "node_names": 2_900_000}
        snap = json.dumps(a4_snapshot()).encode()
        p = request(s, "POST", "/place", snap, timeout=30, keep_body=1 << 22)
        out["place_status"] = p["status"]
        held = None
        try:
            pools = {x["id"]: x for x in json.loads(p["body"])["pools"]}
            d = pools["default"]
            fs, ra, dm = d.get("fair_share", {}).get("map"), d["running_after"]["map"], d["demand"]["map"]
            held = fs is not None and dm > fs and ra >= fs
            out["pool_default"] = {"fair_share_map": fs, "running_after_map": ra, "demand_map": dm,
                                   "held_at_fair_share": held}
        except (ValueError, KeyError, TypeError) as e:
            out["pool_default"] = {"error": f"cannot read pools: {e}",
                                   "body_head": p["body"][:300].decode(errors="replace")}
        log(f"  A4 default pool held: {held}; filter with {len(body) / 1e6:.1f} MB")
        r = request(s, "POST", "/k8s/v1/filter", body, timeout=100, keep_body=1 << 16,
                    count="at or over its fair share".encode())
        out.update({"answer": brief(r), "status": r["status"], "retry_after": r.get("retry_after"),
                    "wall_s": r["t_total_s"], "bytes_in": len(body), "bytes_out": r["body_bytes"],
                    "ratio_out_in": round(r["body_bytes"] / len(body), 2),
                    "reasons_in_answer": r.get("count"), "peak_rss_bytes": s.peak()})
        self.done(s)
        out["line"] = (f"pool held {held}; status {out['status']}: {mb(out['bytes_in'])} MB in, "
                       f"{mb(out['bytes_out'])} MB out ({out['ratio_out_in']}x, {out['reasons_in_answer']} reasons), "
                       f"peak {mb(out['peak_rss_bytes'])} MB (budget {mb(MEM_4G)} MB), {out['wall_s']} s")
        return out

    # A5 -------------------------------------------------------------------------------------
    def A5(self):
        body = self.data.cached("a5_long_pool_ids.json", build_a5)
        s = self.serve("--max-memory", MEM_4G)
        out = {"snapshot_bytes": len(body), "posts": 120, "max_memory_bytes": MEM_4G,
               "rss_at_start_bytes": s.rss()}
        statuses = []
        t0 = time.monotonic()
        for i in range(120):
            r = request(s, "POST", "/place", body, timeout=60, keep_body=2048)
            statuses.append(r)
            if i % 20 == 19:
                log(f"  A5 {i + 1}/120 posted, RSS {mb(s.rss())} MB")
        out["post_statuses"] = histogram(statuses)
        out["posts_wall_s"] = round(time.monotonic() - t0, 1)
        out["first_error"] = next((brief(r) for r in statuses if r["status"] != 200), None)
        time.sleep(1.0)
        out["rss_after_bytes"] = s.rss()
        out["peak_before_epochs_get_bytes"] = s.peak()
        # one GET /v1/epochs; the answer may be hundreds of MB: count it, keep its ends
        g = request(s, "GET", "/v1/epochs", timeout=100, keep_body=1 << 16, keep_tail=1 << 16,
                    count=b'"request_id":')
        head = g["body"]
        out["epochs"] = {"status": g["status"], "bytes": g["body_bytes"], "wall_s": g["t_total_s"],
                         "error": g["error"], "content_type": g.get("content_type")}
        if g["body_bytes"] <= len(head):
            try:
                page = json.loads(head)
                out["epochs"]["keys"] = sorted(page) if isinstance(page, dict) else None
                out["epochs"]["records"] = len(page.get("epochs", []))
                out["epochs"]["omitted"] = page.get("omitted")
                for k in ("capacity", "last_seq", "next", "next_since", "truncated", "bytes_limit"):
                    if k in page:
                        out["epochs"][k] = page[k]
            except (ValueError, AttributeError):
                out["epochs"]["body_head"] = head[:300].decode(errors="replace")
        else:  # too big to parse here: look for the top-level fields at both ends
            ends = head + b" ... " + g.get("tail", b"")
            for k in ("capacity", "last_seq", "omitted"):
                m = re.search(rb'"' + k.encode() + rb'"\s*:\s*(-?\d+|null|true|false)', ends)
                out["epochs"][k] = json.loads(m.group(1)) if m else None
            out["epochs"]["records"] = g.get("count")
            out["epochs"]["note"] = "answer over 64 KiB: fields read from its first and last 64 KiB"
        out["rss_after_epochs_get_bytes"] = s.rss()
        out["peak_rss_bytes"] = s.peak()
        self.done(s)
        out["line"] = (f"posts {out['post_statuses']}; RSS after {mb(out['rss_after_bytes'])} MB, peak "
                       f"{mb(out['peak_rss_bytes'])} MB; GET /v1/epochs {out['epochs']['status']} "
                       f"{mb(out['epochs']['bytes'])} MB, {out['epochs'].get('records')} records, "
                       f"omitted={'absent' if out['epochs'].get('omitted') is None else out['epochs']['omitted']}")
        return out

    # A6 -------------------------------------------------------------------------------------
    def A6(self):
        body = self.data.cached("a6_place_bomb.json.gz", build_a6)
        s = self.serve("--max-memory", MEM_1G)
        log(f"  A6 32 concurrent gzip bombs of {len(body)} B -> {BODY_LIMIT - 64} B")
        hdrs = {"Content-Encoding": "gzip"}
        barrier = threading.Barrier(32)

        def one(_):
            barrier.wait()
            return request(s, "POST", "/place", body, hdrs, timeout=100, keep_body=4096)

        with concurrent.futures.ThreadPoolExecutor(32) as ex:
            rs = list(ex.map(one, range(32)))
        codes = collections.Counter()
        for r in rs:
            if r["status"] is not None:
                codes[f"{r['status']} {brief(r).get('error_code', '')}".strip()] += 1
        out = {"gzip_bytes": len(body), "decoded_bytes": BODY_LIMIT - 64, "max_memory_bytes": MEM_1G,
               "statuses": histogram(rs), "status_codes": dict(codes),
               "retry_after_present": sum(1 for r in rs if r.get("retry_after") is not None),
               "retry_after_values": sorted({r.get("retry_after") for r in rs if r.get("retry_after")}),
               "wall_s": max(r["t_total_s"] for r in rs), "peak_rss_bytes": s.peak(),
               "errors": sorted({r["error"] for r in rs if r["error"]})[:5]}
        self.done(s)
        out["line"] = (f"peak {mb(out['peak_rss_bytes'])} MB (budget {mb(MEM_1G)} MB); {out['status_codes']}"
                       f"{'; ' + str(out['statuses']) if len(out['status_codes']) != len(out['statuses']) else ''}"
                       f"; Retry-After on {out['retry_after_present']}/32; {out['wall_s']} s")
        return out

    # A7 -------------------------------------------------------------------------------------
    def A7(self):
        big = self.big
        if not os.path.exists(big):
            log(f"  A7 generating {big}")
            tmp = big + ".tmp"
            with open(tmp, "wb") as f:
                subprocess.run([self.bin, "gen", "snapshot", "--nodes", "100000", "--rack-size", "40",
                                "--map-slots", "2", "--idle", "0.25", "--tasks", "150000",
                                "--replication", "3", "--rack-aware", "--seed", "1"],
                               stdout=f, check=True)
            os.replace(tmp, big)
        with open(big, "rb") as f:
            body = f.read()
        s = self.serve()
        out = {"snapshot_bytes": len(body)}
        box = {}
        client = threading.Thread(
            target=lambda: box.update(r=request(s, "POST", "/place", body, timeout=180, keep_body=4096)),
            daemon=True)
        t_post = time.monotonic()
        client.start()
        in_flight_at = None
        while time.monotonic() - t_post < 60 and client.is_alive():
            if metric_value(get_metrics(s), "placer_solves_in_flight") == 1:
                in_flight_at = time.monotonic()
                break
            time.sleep(0.05)
        out["in_flight_seen_after_s"] = round(in_flight_at - t_post, 2) if in_flight_at else None
        if in_flight_at is None:
            out["error"] = "never saw placer_solves_in_flight 1"
            out["client"] = brief(box["r"]) if "r" in box else None
            self.done(s)
            out["line"] = "could not catch a solve in flight"
            return out
        s.signal(signal.SIGTERM)
        t1 = time.monotonic()
        time.sleep(0.2)
        s.signal(signal.SIGTERM)
        t2 = time.monotonic()
        log("  A7 two SIGTERMs sent; waiting up to 100 s for exit")
        rc = s.wait(100)
        t_exit = time.monotonic()
        out["second_sigterm_to_exit_s"] = round(t_exit - t2, 2) if rc is not None else None
        out["first_sigterm_to_exit_s"] = round(t_exit - t1, 2) if rc is not None else None
        out["signals_after_post_s"] = round(t1 - t_post, 2)
        if rc is None:
            out["killed_after_s"] = 100
            s.kill()
        out.update(s.exit_info())
        client.join(10)
        r = box.get("r")
        out["client"] = brief(r) if r else None
        out["log"] = s.log_matches(r"(?i)stop|signal|drain|shut", 6)
        self.done(s)
        out["line"] = (f"2nd SIGTERM -> exit {out['second_sigterm_to_exit_s']} s "
                       f"(exit {out.get('exit_code')}{', ' + out['signal'] if out.get('signal') else ''}); "
                       f"client: {r['status'] if r else None} {r['error'] if r and r['error'] else ''}".rstrip())
        return out

    # A8 -------------------------------------------------------------------------------------
    def _reload_then_term(self, replace, cap_s):
        """Start with a valid small config, `replace(path)` it, SIGHUP, SIGTERM 0.1 s later:
        how long from SIGTERM to exit (SIGKILL after `cap_s`)."""
        with tempfile.TemporaryDirectory(prefix="placer-a8-") as d:
            cfg = os.path.join(d, "placer.toml")
            with open(cfg, "w") as f:
                f.write("body_limit = 1000000\n")
            s = self.serve("--config", cfg)
            time.sleep(1.0)  # signal handlers installed, first mtime check done
            info = replace(cfg, d) or {}
            s.signal(signal.SIGHUP)
            time.sleep(0.1)
            s.signal(signal.SIGTERM)
            t = time.monotonic()
            rc = s.wait(cap_s)
            out = dict(info)
            out["sigterm_to_exit_s"] = round(time.monotonic() - t, 2) if rc is not None else None
            out["exited_by_itself"] = rc is not None
            if rc is None:
                out["killed_after_s"] = cap_s
                s.kill()
            out.update(s.exit_info())
            out["log"] = s.log_matches(r"(?i)config|reload|toml|fifo|regular|SIGHUP", 4)
            stamps = [re.match(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:(\d\d\.\d+))Z", l) for l in out["log"]]
            stamps = [float(m.group(2)) for m in stamps if m]
            if len(stamps) >= 2:
                out["reload_logged_s"] = round((stamps[-1] - stamps[0]) % 60, 2)
            self.done(s)
            return out

    def A8(self):
        def big_bad(lines_fn, what):
            def replace(cfg, d):
                bad = os.path.join(d, "bad.toml")
                with open(bad, "wb") as f:
                    f.write(lines_fn())
                size = os.path.getsize(bad)
                os.replace(bad, cfg)
                return {"config": what, "config_bytes": size}
            return replace

        comment = b"# comment comment comment comment comment comment comment comment\n"
        out = {}
        log("  A8 (a) 20 MB of unknown keys")
        out["a_keys"] = self._reload_then_term(
            big_bad(lambda: b"".join(b"k%d = 1\n" % i for i in range(20_000_000 // 12)),
                    "20 MB of unknown-key lines `kN = 1` (invalid: unknown key)"), 60)
        log("  A8 (a') 20 MB of comments + body_limit = \"x\"")
        out["a_comments"] = self._reload_then_term(
            big_bad(lambda: comment * (20_000_000 // len(comment)) + b'body_limit = "x"\n',
                    '20 MB of `# comment` lines + body_limit = "x" (invalid type)'), 60)

        def to_fifo(cfg, d):
            fifo = os.path.join(d, "fifo")
            os.mkfifo(fifo)
            os.replace(fifo, cfg)  # atomic: the path is never missing
            return {"config": "named pipe (mkfifo at the config path after start)"}

        log("  A8 (b) config path becomes a named pipe")
        out["b_named_pipe"] = self._reload_then_term(to_fifo, 20)

        def fmt(x):
            if not x["exited_by_itself"]:
                return f"no exit within {x['killed_after_s']} s, SIGKILLed"
            return f"exit {x['sigterm_to_exit_s']} s (status {x.get('exit_code')}{x.get('signal') or ''})"
        out["line"] = (f"(a) 20 MB unknown keys: SIGTERM -> {fmt(out['a_keys'])}; "
                       f"(a') 20 MB comments: {fmt(out['a_comments'])}; (b) named pipe: {fmt(out['b_named_pipe'])}")
        return out

    # A9 -------------------------------------------------------------------------------------
    def A9(self):
        s = self.serve()
        text = get_metrics(s)
        self.done(s)
        lines = [l for l in text.splitlines() if "placer_config_generation" in l]
        value = metric_value(text, "placer_config_generation")
        out = {"metrics_bytes": len(text), "present": value is not None, "value": value, "lines": lines}
        out["line"] = f"placer_config_generation {'= %g' % value if value is not None else 'absent'}"
        return out

    # A10 ------------------------------------------------------------------------------------
    def A10(self):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = 2048 + 512
        if soft < want:  # the harness itself must hold 2,048 sockets
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))

        def child_limit():
            resource.setrlimit(resource.RLIMIT_NOFILE, (1024, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

        s = self.serve(preexec_fn=child_limit)
        out = {"server_nofile": proc_nofile(s.pid), "child_started_with_soft": 1024,
               "harness_nofile": list(resource.getrlimit(resource.RLIMIT_NOFILE))}
        with open(EXAMPLE_SNAPSHOT, "rb") as f:
            small = f.read()
        head = (f"POST /place HTTP/1.1\r\nHost: {s.host}:{s.port}\r\nContent-Type: application/json\r\n"
                "Content-Length: 1000000\r\n\r\n").encode() + b'{"schema_v'
        t0 = time.monotonic()
        socks, failed = hold_slow_clients(s, head, 2048)
        t_setup = time.monotonic()
        out["slow_clients"] = len(socks)
        out["slow_clients_not_connected"] = dict(failed)
        out["slow_setup_s"] = round(t_setup - t0, 2)
        out["server_fds_with_slow_clients"] = proc_fd_count(s.pid)
        log(f"  A10 {len(socks)} slow clients sent their head ({out['server_fds_with_slow_clients']} server fds); 10 posts")

        def post(i):
            time.sleep(0.2 * i)
            return request(s, "POST", "/place", small, timeout=3.0, keep_body=4096)

        with concurrent.futures.ThreadPoolExecutor(10) as ex:
            rs = list(ex.map(post, range(10)))
        ok = [r for r in rs if r["status"] == 200 and r["error"] is None and r["t_total_s"] <= 3.0]
        out["posts"] = {"ok_within_3s": len(ok), "of": 10, "statuses": histogram(rs),
                        "times_s": [r["t_total_s"] for r in rs]}
        out["posts_done_after_slow_setup_s"] = round(time.monotonic() - t_setup, 2)
        # what became of the slow clients by now
        sel = selectors.DefaultSelector()
        for sk in socks:
            sk.setblocking(False)
            sel.register(sk, selectors.EVENT_READ)
        answered = collections.Counter()
        for key, _ in sel.select(timeout=0.2):
            try:
                data = key.fileobj.recv(256)
                answered[data.split(b"\r\n", 1)[0].decode(errors="replace") if data else "closed"] += 1
            except OSError as e:
                answered[e.__class__.__name__] += 1
        sel.close()
        out["slow_clients_answered_by_now"] = dict(answered)
        out["log"] = s.log_matches(r"(?i)open files|too many|EMFILE|nofile|rlimit", 4)
        for sk in socks:
            sk.close()
        self.done(s)
        nf = out["server_nofile"] or {}
        out["line"] = (f"server Max open files soft {nf.get('soft')} (hard {nf.get('hard')}); "
                       f"{len(socks)} slow clients: {len(ok)}/10 posts 200 within 3 s")
        return out


# ---------------------------------------------------------------------------------------------


ALL_ROWS = ["A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "A9", "A10"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="placer binary (release build)")
    ap.add_argument("--rows", default=",".join(ALL_ROWS), help="comma-separated, e.g. A1,A4")
    ap.add_argument("--out", help="write the JSON summary here too")
    ap.add_argument("--data", default="/tmp/placer-service-limits", help="cache of generated bodies")
    ap.add_argument("--big-snapshot", default="/tmp/big.json",
                    help="A7's snapshot (generated with `BIN gen snapshot ...` if absent)")
    a = ap.parse_args()
    binary = os.path.abspath(a.bin)
    rows = [r.strip().upper() for r in a.rows.split(",") if r.strip()]
    unknown = [r for r in rows if r not in ALL_ROWS]
    if unknown:
        ap.error(f"unknown rows {unknown}; known: {ALL_ROWS}")
    runner = Rows(binary, Data(a.data), a.big_snapshot)
    summary = {"bin": binary, "bin_mtime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(os.path.getmtime(binary))),
               "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "host": host_info(),
               "note": "timings are wall-clock on a shared machine (see each row's loadavg); memory is VmHWM/VmRSS",
               "rows": {}}
    lines = []
    for row in rows:
        log(f"{row} ...")
        t = time.monotonic()
        load = list(os.getloadavg())
        try:
            res = getattr(runner, row)()
        except Exception as e:  # a harness failure on one row must not lose the others
            import traceback
            traceback.print_exc()
            res = {"harness_error": f"{e.__class__.__name__}: {e}", "line": f"HARNESS ERROR {e}"}
        finally:
            tails = [list(s.lines)[-5:] for s in runner.servers]
            runner.cleanup()
        res["row_wall_s"] = round(time.monotonic() - t, 1)
        res["loadavg_at_start"] = load
        if "harness_error" in res:
            res["server_log_tail"] = tails
        summary["rows"][row] = res
        line = f"{row:<4} {res['line']}"
        lines.append(line)
        log(f"{line}  [{res['row_wall_s']} s]")
    summary["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    print("\n".join(lines))
    text = json.dumps(summary, indent=2, default=str)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
