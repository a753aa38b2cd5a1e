"""Job response times per class and policy from a `placer whatif --out DIR` run, for the
BENCHMARKS.md reproductions (FAIR Table 2 size bins of a SWIM day; Mumak job outcomes).

Usage: python3 benches/repro/response_by_class.py DIR [BASELINE]

Reads DIR/jobs/policy=*/part-0.csv (stdlib csv only) and prints a Markdown table: per class
(the per-job `class` column: `bin0` ... `bin8` for SWIM, `SUCCESS`/`FAILED` for Rumen) the job
count, and per policy the mean and median response time in seconds of the finished jobs and the
mean's ratio to BASELINE's (default `fifo`; > 1 means the policy is faster). Unfinished jobs
(empty response_s) are counted in a last column. A final `all` row covers every job.

A second table gives, per class and policy, the node-local and the node-or-rack-local share of
the completed maps that had replicas (maps_node_local, maps_rack_local, maps_remote summed over
the class's jobs), the unit of FAIR's Fig. 4 / Table 3 and of summary.csv.
"""
import csv
import glob
import os
import statistics
import sys


def load(directory):
    runs = {}
    for path in sorted(glob.glob(os.path.join(directory, "jobs", "policy=*", "part-0.csv"))):
        policy = os.path.basename(os.path.dirname(path)).split("=", 1)[1]
        with open(path, newline="") as f:
            runs[policy] = list(csv.DictReader(f))
    return runs


def class_key(name):
    digits = "".join(ch for ch in name if ch.isdigit())
    return (0, int(digits), name) if name.startswith("bin") and digits else (1, 0, name)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    runs = load(sys.argv[1])
    baseline = sys.argv[2] if len(sys.argv) > 2 else "fifo"
    if not runs:
        sys.exit(f"no jobs/policy=*/part-0.csv under {sys.argv[1]}")
    policies = sorted(runs, key=lambda p: (p != baseline, p))
    classes = sorted({r["class"] for rows in runs.values() for r in rows}, key=class_key)

    def stats(rows):
        done = [float(r["response_s"]) for r in rows if r["response_s"]]
        if not done:
            return None, None, len(rows)
        return statistics.mean(done), statistics.median(done), len(rows) - len(done)

    head = ["class", "jobs"]
    for p in policies:
        head += [f"{p} mean (s)", f"{p} median (s)"] + ([] if p == baseline else [f"{baseline} / {p}"])
    head.append("unfinished")
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
    for c in classes + ["all"]:
        cells, unfinished = [], 0
        base_mean = None
        jobs = 0
        for p in policies:
            rows = [r for r in runs[p] if c == "all" or r["class"] == c]
            jobs = len(rows)
            mean, median, missing = stats(rows)
            unfinished += missing
            if p == baseline:
                base_mean = mean
            cells += [f"{mean:.1f}" if mean is not None else "—",
                      f"{median:.1f}" if median is not None else "—"]
            if p != baseline:
                ratio = base_mean / mean if base_mean and mean else None
                cells.append(f"{ratio:.2f}×" if ratio else "—")
        print(f"| {c} | {jobs} | " + " | ".join(cells) + f" | {unfinished} |")

    print()
    head = ["class"] + [f"{p} node / node+rack %" for p in policies]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
    for c in classes + ["all"]:
        cells = []
        for p in policies:
            rows = [r for r in runs[p] if c == "all" or r["class"] == c]
            node = sum(int(r["maps_node_local"]) for r in rows)
            rack = sum(int(r["maps_rack_local"]) for r in rows)
            remote = sum(int(r["maps_remote"]) for r in rows)
            n = node + rack + remote
            cells.append(f"{100 * node / n:.1f} / {100 * (node + rack) / n:.1f}" if n else "—")
        print(f"| {c} | " + " | ".join(cells) + " |")


main()
