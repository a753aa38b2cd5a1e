#!/usr/bin/env bash
# Load benchmark of `placer serve` (docs/operations/serving.md, "Load benchmark"): wrk POSTs the
# example snapshot and a generated 500-node snapshot to /place at 32 and 256 connections, then
# repeats the example at 32 connections while 4 slow clients hold half-sent bodies open. Prints
# a markdown table: req/s, goodput (2xx/s), non-2xx and 503 counts, socket errors, p50/p99
# latency and the server's peak RSS (VmHWM; a fresh server per row).
#
# One command, fixed seeds:  benches/load/run.sh
# Environment (all optional): PLACER_BIN (skip the build), DURATION (20s), THREADS (2),
# CONNECTIONS ("32 256"), PORT (18080), WRK_TIMEOUT (10s), SERVE_ARGS (extra `placer serve`
# flags, e.g. "--max-in-flight 4"). Needs wrk, curl and python3. Loopback traffic only.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
DURATION=${DURATION:-20s}
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-"32 256"}
PORT=${PORT:-18080}
WRK_TIMEOUT=${WRK_TIMEOUT:-10s}
SERVE_ARGS=${SERVE_ARGS:-}
GEN_ARGS="--nodes 500 --rack-size 20 --map-slots 2 --idle 0.5 --tasks 1000 --replication 3 --rack-aware --seed 1"

for tool in wrk curl python3; do
  command -v "$tool" >/dev/null 2>&1 || { echo "run.sh: $tool is required (apt-get install $tool)" >&2; exit 2; }
done

bin=${PLACER_BIN:-}
if [ -z "$bin" ]; then
  # Without HiGHS (`mip`): the benchmark never asks for `solver: mip`.
  (cd "$root" && cargo build --release --no-default-features --bin placer >&2)
  target=${CARGO_TARGET_DIR:-target}
  case "$target" in /*) ;; *) target="$root/$target" ;; esac
  bin="$target/release/placer"
fi

tmp=$(mktemp -d)
server=""
slow=""
cleanup() {
  [ -n "$slow" ] && kill "$slow" 2>/dev/null || true
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

url="http://127.0.0.1:$PORT"
example="$root/examples/snapshot.json"
big="$tmp/snapshot-500.json"
# shellcheck disable=SC2086
"$bin" gen snapshot $GEN_ARGS >"$big"

start_server() {
  # shellcheck disable=SC2086
  "$bin" serve --addr "127.0.0.1:$PORT" $SERVE_ARGS >"$tmp/serve.log" 2>&1 &
  server=$!
  for _ in $(seq 100); do
    curl -sf "$url/healthz" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "run.sh: the server did not come up:" >&2
  cat "$tmp/serve.log" >&2
  exit 1
}

stop_server() {
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  server=""
}

peak_rss_mib() {
  awk '/^VmHWM:/ { printf "%.1f", $2 / 1024 }' "/proc/$server/status"
}

# Runs wrk on one snapshot; prints the table's columns after the first two.
measure() {
  local file=$1 conns=$2
  wrk -t"$THREADS" -c"$conns" -d"$DURATION" --timeout "$WRK_TIMEOUT" --latency \
    -s "$here/place.lua" "$url/place" -- "$file" >"$tmp/wrk.out" 2>&1 || {
    cat "$tmp/wrk.out" >&2
    exit 1
  }
  awk '/^LOAD / { v[$2] = $3 }
       END { printf "%s | %s | %d | %d | %d | %s | %s", v["req_per_s"], v["goodput"],
             v["non2xx"], v["status_503"], v["socket_errors"], v["p50_ms"], v["p99_ms"] }' \
    "$tmp/wrk.out"
}

echo "placer load benchmark: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'), \
wrk -t$THREADS -d$DURATION --timeout $WRK_TIMEOUT, serve args: '${SERVE_ARGS}', $(nproc) cores"
echo "500-node snapshot: placer gen snapshot $GEN_ARGS ($(wc -c <"$big") bytes)"
echo
echo "| snapshot | conns | req/s | goodput (2xx/s) | non-2xx | 503 | socket errors | p50 ms | p99 ms | peak RSS MiB |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for name in example 500-node; do
  if [ "$name" = example ]; then file=$example; else file=$big; fi
  for conns in $CONNECTIONS; do
    start_server
    cols=$(measure "$file" "$conns")
    echo "| $name | $conns | $cols | $(peak_rss_mib) |"
    stop_server
  done
done

# Slow clients: 4 connections announce 1000 body bytes, send 100 and go silent, for the whole
# wrk run plus a probe; then a plain POST /place must still be answered.
start_server
secs=$(( ${DURATION%s} + 10 ))
python3 "$here/slow_client.py" 127.0.0.1 "$PORT" 4 "$secs" >"$tmp/slow.out" 2>&1 &
slow=$!
sleep 1
cols=$(measure "$example" 32)
echo "| example + 4 slow clients | 32 | $cols | $(peak_rss_mib) |"
probe=$(curl -s -o /dev/null -w '%{http_code} in %{time_total}s' --max-time 10 \
  -H 'Content-Type: application/json' --data-binary "@$example" "$url/place" || true)
wait "$slow" || true
slow=""
stop_server
echo
echo "Slow-client check: POST /place after the wrk run, slow clients still connected: ${probe:-no answer}"
sed 's/^SLOW /- slow client /' "$tmp/slow.out"
