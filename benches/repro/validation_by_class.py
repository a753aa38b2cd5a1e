"""The Mumak validation's error split by what decides a job's time, from a `placer whatif
--out DIR` replay of a Rumen trace (DIR/jobs/policy=*/part-0.csv: every job's maps, reduces,
outcome, simulated and real response).

Usage: python3 benches/repro/validation_by_class.py DIR [MIN_TASKS]

Classes (per policy):
- replay-dominated: jobs of at least MIN_TASKS tasks (default 500). Their time is mostly the
  trace's own measured attempt times run in waves, so a small error says little about the
  scheduler model;
- scheduling-sensitive: successful jobs of fewer tasks, whose time is mostly waiting for
  slots, heartbeats, setup and phase changes: where a scheduler model shows;
- other: the remaining (failed) small jobs.

Prints a Markdown table: per class the job count, the median and mean |error| and the signed
mean error in % (negative: the simulator is faster than reality), and how many errors are
negative. error = (simulated − real) / real.
"""
import csv
import glob
import os
import statistics
import sys


def classify(row, min_tasks):
    tasks = int(row["maps"]) + int(row["reduces"])
    if tasks >= min_tasks:
        return "replay-dominated"
    return "scheduling-sensitive" if row["class"] == "SUCCESS" else "other"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    min_tasks = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    paths = sorted(glob.glob(os.path.join(sys.argv[1], "jobs", "policy=*", "part-0.csv")))
    if not paths:
        sys.exit(f"no jobs/policy=*/part-0.csv under {sys.argv[1]}")
    print("| policy | class | jobs | median abs. error | mean abs. error | signed mean | negative |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for path in paths:
        policy = os.path.basename(os.path.dirname(path)).split("=", 1)[1]
        errors = {}
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                real, sim = row.get("observed_response_s"), row.get("response_s")
                if not real or not sim:
                    continue
                e = 100.0 * (float(sim) - float(real)) / float(real)
                errors.setdefault(classify(row, min_tasks), []).append(e)
        every = [e for v in errors.values() for e in v]
        for name in ["replay-dominated", "scheduling-sensitive", "other", "all"]:
            v = every if name == "all" else errors.get(name, [])
            if not v:
                continue
            a = [abs(e) for e in v]
            print(
                f"| {policy} | {name} | {len(v)} | {statistics.median(a):.1f}% | "
                f"{statistics.mean(a):.1f}% | {statistics.mean(v):+.1f}% | "
                f"{sum(e < 0 for e in v)} of {len(v)} |"
            )


if __name__ == "__main__":
    main()
