#!/usr/bin/env python3
"""ShuffleWatcher Fig. 8 and Table 3 from `placer whatif --workload shuffle-watcher` runs.

Usage: sw_fig8.py DIR [DIR ...]
Each DIR is a run's --out directory (summary.csv, traffic_by_class.csv). Prints, per run, the
three measures of Fig. 8 normalised as the paper does (fair and shuffle_watcher to fair;
delay and shuffle_watcher_relaxed to delay) plus lsap_shuffle against shuffle_watcher, then
Table 3 (traffic by Shuffle class) under fair, and the cross-rack shuffle rate over time
(Figs. 1 and 10) summarised per policy. With several DIRs it also prints the mean of the
ratios over them. Before the ratios it prints each run's load in the steady state (the
submission span): map slots busy, jobs in the system, users holding two or more jobs,
cross-rack use against the bisection and the share of minutes at 80% of it. When every
policy's steady throughput is within 2% of the arrival rate, the throughput columns are
printed as "arrivals": the arrivals set them, not the policy. Standard library only.
"""
import csv
import os
import sys

MEASURES = [
    ("throughput_jobs_per_h", "throughput"),
    ("steady_throughput_jobs_per_h", "steady throughput"),
    ("mean_response_s", "mean turnaround"),
    ("steady_mean_turnaround_s", "steady turnaround"),
    ("cross_rack_gb", "cross-rack GB"),
]
PAIRS = [
    ("fair", "fair"),
    ("shuffle_watcher", "fair"),
    ("delay", "delay"),
    ("shuffle_watcher_relaxed", "delay"),
    ("lsap_quota", "fair"),
    ("lsap_shuffle", "fair"),
    ("lsap_shuffle", "shuffle_watcher"),
]


def summary(path):
    with open(os.path.join(path, "summary.csv"), newline="") as f:
        return {row["policy"]: row for row in csv.DictReader(f)}


def arrival_bound(rows):
    """Whether every policy's steady throughput is within 2% of the arrival rate."""
    return all(
        float(r["steady_throughput_jobs_per_h"]) >= 0.98 * float(r["steady_arrivals_jobs_per_h"])
        for r in rows.values()
    )


def ratios(rows):
    out = {}
    bound = arrival_bound(rows)
    for policy, base in PAIRS:
        if policy in rows and base in rows:
            out[(policy, base)] = [
                float("nan") if bound and "throughput" in key
                else float(rows[policy][key]) / float(rows[base][key]) if float(rows[base][key]) else float("nan")
                for key, _ in MEASURES
            ]
    return out


def load(rows):
    print("\nLoad in the steady state (the submission span)\n")
    print("| policy | map slots busy | jobs in system | users with ≥ 2 jobs | cross-rack use | minutes ≥ 80% | arrivals / h | steady throughput / h |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for policy, r in rows.items():
        f = lambda k: float(r[k])
        print(f"| {policy} | {100 * f('steady_map_slot_utilisation'):.1f}% | {f('steady_jobs_in_system'):.1f} | "
              f"{f('steady_pools_with_two_jobs'):.1f} | {100 * f('steady_cross_rack_use'):.1f}% | "
              f"{100 * f('steady_cross_rack_saturated_share'):.1f}% | {f('steady_arrivals_jobs_per_h'):.1f} | "
              f"{f('steady_throughput_jobs_per_h'):.1f} |")
    if arrival_bound(rows):
        print("\nEvery policy's throughput is within 2% of the arrivals: no throughput ratio.")


def table(title, rats):
    print(f"\n{title}\n")
    print("| policy / baseline | " + " | ".join(name for _, name in MEASURES) + " |")
    print("|---|" + "---:|" * len(MEASURES))
    for (policy, base), values in rats.items():
        cells = ["arrivals" if v != v else f"{v:.3f}" for v in values]
        print(f"| {policy} / {base} | " + " | ".join(cells) + " |")


def main(dirs):
    all_ratios = []
    for d in dirs:
        rows = summary(d)
        print(f"\n## {d}\n")
        print("| policy | " + " | ".join(name for _, name in MEASURES) + " |")
        print("|---|" + "---:|" * len(MEASURES))
        for policy, row in rows.items():
            print(f"| {policy} | " + " | ".join(f"{float(row[k]):.1f}" for k, _ in MEASURES) + " |")
        load(rows)
        r = ratios(rows)
        all_ratios.append(r)
        table("Normalised (Fig. 8)", r)
        path = os.path.join(d, "traffic_by_class.csv")
        if os.path.exists(path):
            print("\nTable 3 under fair (GB)\n")
            print("| class | jobs | total shuffle | cross-rack shuffle | remote map | total cross-rack |")
            print("|---|---:|---:|---:|---:|---:|")
            with open(path, newline="") as f:
                for row in csv.DictReader(f):
                    if row["policy"] == "fair":
                        print(f"| {row['class']} | {row['jobs']} | {float(row['total_shuffle_gb']):.0f} | "
                              f"{float(row['cross_rack_shuffle_gb']):.0f} | {float(row['remote_map_gb']):.0f} | "
                              f"{float(row['total_cross_rack_gb']):.0f} |")
        path = os.path.join(d, "cross_rack_timeseries.csv")
        if os.path.exists(path):
            series = {}
            with open(path, newline="") as f:
                for row in csv.DictReader(f):
                    series.setdefault(row["policy"], []).append(float(row["cross_rack_shuffle_mbps"]))
            print("\nCross-rack shuffle rate per minute (Figs. 1 and 10), Mbit/s\n")
            print("| policy | mean | p95 | max | std / mean | minutes ≥ 4,000 |")
            print("|---|---:|---:|---:|---:|---:|")
            for policy, xs in series.items():
                n = len(xs)
                mean = sum(xs) / n
                std = (sum((x - mean) ** 2 for x in xs) / n) ** 0.5
                p95 = sorted(xs)[min(n - 1, int(0.95 * n))]
                busy = sum(1 for x in xs if x >= 4000)
                print(f"| {policy} | {mean:.0f} | {p95:.0f} | {max(xs):.0f} | {std / mean if mean else 0:.2f} | {busy} |")
    if len(all_ratios) > 1:
        keys = [k for k in all_ratios[0] if all(k in r for r in all_ratios)]
        mean = {k: [sum(r[k][i] for r in all_ratios) / len(all_ratios) for i in range(len(MEASURES))] for k in keys}
        table(f"Mean of the ratios over {len(all_ratios)} runs", mean)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
