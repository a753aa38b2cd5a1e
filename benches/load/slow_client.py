#!/usr/bin/env python3
"""Slow-client probe for `POST /place` (RFC 9112 §6.2: a body announced by Content-Length):
N connections each send the headers with `Content-Length: 1000`, 100 bytes of body and then
nothing. Holds them for SECONDS, then prints one line per connection: whether and when the
server answered or closed it. Traffic goes to a loopback address only.

usage: slow_client.py HOST PORT CONNECTIONS SECONDS
"""
import select
import socket
import sys
import time


def main() -> int:
    host, port, count, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    if not host.startswith("127.") and host not in ("localhost", "::1"):
        print("slow_client: loopback addresses only", file=sys.stderr)
        return 2
    head = (
        f"POST /place HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
        "Content-Length: 1000\r\n\r\n"
    ).encode()
    socks = []
    start = time.monotonic()
    for _ in range(count):
        s = socket.create_connection((host, port), timeout=5)
        s.sendall(head + b'{"schema_version":1,"cluster":{"racks":[' + b" " * 58)
        s.setblocking(False)
        socks.append(s)
    outcome = {}
    while time.monotonic() - start < seconds and len(outcome) < count:
        live = [s for s in socks if s.fileno() not in outcome]
        readable, _, _ = select.select(live, [], [], 0.2)
        for s in readable:
            try:
                data = s.recv(4096)
            except OSError as e:
                data = b""
                note = f"error {e.errno}"
            else:
                first = data.split(b"\r\n", 1)[0].decode(errors="replace")
                note = first if data else "closed"
            outcome[s.fileno()] = f"{note} after {time.monotonic() - start:.1f}s"
    for i, s in enumerate(socks):
        print(f"SLOW conn{i} {outcome.get(s.fileno(), f'still open after {seconds:.0f}s')}")
        s.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
