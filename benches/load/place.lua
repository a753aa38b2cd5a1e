-- wrk script: POST one snapshot file to /place (docs/operations/serving.md) on every
-- request and tally the answers by status. The file is wrk's script argument:
--   wrk -t2 -c32 -d20s --latency -s place.lua http://127.0.0.1:18080/place -- snapshot.json
-- done() prints machine-readable lines (`LOAD key value`) that run.sh turns into a table.

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  local path = args[1]
  if path == nil then
    error("usage: wrk ... -s place.lua URL -- SNAPSHOT.json")
  end
  local f = assert(io.open(path, "rb"))
  wrk.body = f:read("*a")
  f:close()
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  statuses = {}
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local total = {}
  for _, thread in ipairs(threads) do
    local s = thread:get("statuses")
    for code, n in pairs(s or {}) do
      total[code] = (total[code] or 0) + n
    end
  end
  local ok, other = 0, 0
  for code, n in pairs(total) do
    io.write(string.format("LOAD status_%d %d\n", code, n))
    if code >= 200 and code < 300 then ok = ok + n else other = other + n end
  end
  local seconds = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format("LOAD seconds %.3f\n", seconds))
  io.write(string.format("LOAD requests %d\n", summary.requests))
  io.write(string.format("LOAD req_per_s %.1f\n", summary.requests / seconds))
  io.write(string.format("LOAD ok %d\n", ok))
  io.write(string.format("LOAD goodput %.1f\n", ok / seconds))
  io.write(string.format("LOAD non2xx %d\n", other))
  io.write(string.format("LOAD socket_errors %d\n", e.connect + e.read + e.write + e.timeout))
  io.write(string.format("LOAD timeouts %d\n", e.timeout))
  io.write(string.format("LOAD p50_ms %.2f\n", latency:percentile(50) / 1e3))
  io.write(string.format("LOAD p99_ms %.2f\n", latency:percentile(99) / 1e3))
end
