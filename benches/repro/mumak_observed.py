"""What the real 2009 cluster did with the Mumak 19-job Rumen trace (MAPREDUCE-728), for the
BENCHMARKS.md reproduction of the 19-job replay.

Usage: python3 benches/repro/mumak_observed.py [datasets/tests/data/19-jobs.trace.json.gz]

Prints (stdlib only):
- the locality the real scheduler achieved on successful map attempts of tasks with replica
  locations (attempt host == a preferred host: node; same rack: rack; else off-rack), in all
  and per job, and for the successful and the failed jobs apart;
- the job response times the trace logged (finishTime - submitTime), mean and median, for all
  19 jobs and for the successful ones, and the span from the first submit to the last finish;
- the slots per node the real cluster had, inferred as the most map (reduce) attempts any host
  ran at the same time (host names with and without their /rack/ prefix are the same host);
- the FAILED and KILLED attempts placer's Rumen reader keeps as retries (datasets/src/rumen.rs:
  both times known, > 0 and finish >= start, and not the attempt the task's time comes from,
  i.e. its SUCCESS attempt, else its last attempt with valid times), by result and task kind.
"""
import collections
import gzip
import json
import statistics
import sys


def jobs(path):
    text = gzip.open(path, "rt").read()
    dec, i = json.JSONDecoder(), 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return
        job, i = dec.raw_decode(text, i)
        yield job


def host(name):
    """'/rack/host' or 'host', with Rumen's escaped dots, to (rack or None, host)."""
    parts = name.replace("\\", "").strip("/").split("/")
    return (parts[0] if len(parts) == 2 else None), parts[-1]


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "datasets/tests/data/19-jobs.trace.json.gz"
    all_jobs = list(jobs(path))
    rack_of = {}
    for j in all_jobs:
        for t in j.get("mapTasks") or []:
            for loc in t.get("preferredLocations") or []:
                rack, h = loc["layers"][0].replace("\\", ""), loc["layers"][1].replace("\\", "")
                rack_of[h] = rack
            for a in t.get("attempts") or []:
                r, h = host(a.get("hostName") or "/")
                if r:
                    rack_of[h] = r

    loc = collections.Counter()
    per_job = collections.defaultdict(collections.Counter)
    for j in all_jobs:
        for t in j.get("mapTasks") or []:
            prefs = [(l["layers"][0].replace("\\", ""), l["layers"][1].replace("\\", ""))
                     for l in t.get("preferredLocations") or []]
            if not prefs:
                continue
            for a in t.get("attempts") or []:
                if a.get("result") != "SUCCESS" or not a.get("hostName"):
                    continue
                r, h = host(a["hostName"])
                r = r or rack_of.get(h)
                if h in {p[1] for p in prefs}:
                    kind = "node"
                elif r is not None and r in {p[0] for p in prefs}:
                    kind = "rack"
                else:
                    kind = "off-rack"
                loc[kind] += 1
                per_job[(j["jobID"], j.get("outcome"))][kind] += 1
    n = sum(loc.values())
    print("real locality, successful map attempts with locations: "
          + ", ".join(f"{k} {loc[k]} ({100 * loc[k] / n:.1f}%)" for k in ("node", "rack", "off-rack")))

    print("per job (id, outcome: node / rack / off-rack):")
    for (jid, outcome), c in sorted(per_job.items()):
        print(f"  {jid} {outcome}: {c['node']} / {c['rack']} / {c['off-rack']}")
    for outcome in ("SUCCESS", "FAILED"):
        c = sum((v for k, v in per_job.items() if k[1] == outcome), collections.Counter())
        m = sum(c.values())
        print(f"  {outcome} jobs together: node {100 * c['node'] / m:.1f}%, "
              f"rack {100 * c['rack'] / m:.1f}%, off-rack {100 * c['off-rack'] / m:.1f}% of {m}")

    def response(sel):
        r = [(j["finishTime"] - j["submitTime"]) / 1000 for j in all_jobs if sel(j)]
        return f"{len(r)} jobs, mean {statistics.mean(r):.1f} s, median {statistics.median(r):.1f} s"

    print("real response (finish - submit):", response(lambda j: True))
    print("  successful jobs only:", response(lambda j: j.get("outcome") == "SUCCESS"))
    span = (max(j["finishTime"] for j in all_jobs) - min(j["submitTime"] for j in all_jobs)) / 1000
    print(f"first submit to last finish: {span:.0f} s")

    for kind in ("mapTasks", "reduceTasks"):
        events = collections.defaultdict(list)
        for j in all_jobs:
            for t in j.get(kind) or []:
                for a in t.get("attempts") or []:
                    st, fi = a.get("startTime", -1), a.get("finishTime", -1)
                    if a.get("hostName") and st > 0 and fi >= st:
                        h = host(a["hostName"])[1]
                        events[h] += [(st, 1), (fi, -1)]
        peak = collections.Counter()
        for ev in events.values():
            ev.sort()
            c = m = 0
            for _, d in ev:
                c += d
                m = max(m, c)
            peak[m] += 1
        print(f"{kind}: hosts by most concurrent attempts: {dict(sorted(peak.items()))}")

    def valid(a):
        st, fi = a.get("startTime", -1), a.get("finishTime", -1)
        return st > 0 and fi > 0 and fi >= st

    results, kept = collections.Counter(), collections.Counter()
    for j in all_jobs:
        for kind in ("mapTasks", "reduceTasks"):
            for t in j.get(kind) or []:
                atts = t.get("attempts") or []
                results.update(a.get("result") for a in atts)
                ok = [k for k, a in enumerate(atts) if valid(a)]
                success = next((k for k, a in enumerate(atts) if a.get("result") == "SUCCESS"), None)
                described = success if success is not None else (ok[-1] if ok else None)
                for k in ok:
                    if k != described and atts[k].get("result") in ("FAILED", "KILLED"):
                        kept[(atts[k]["result"], kind)] += 1
    print(f"attempts by result: {dict(sorted(results.items()))}")
    print(f"kept as retries (result, kind): {dict(sorted(kept.items()))}, "
          f"{sum(kept.values())} in all")


main()
