#!/usr/bin/env python3
"""RAS (Polo et al., Middleware 2011) Fig. 3 and Table 1 from `placer whatif --workload ras` runs.

Usage: ras_goals.py DIR [DIR ...]
Each DIR is a run's --out directory. Prints, per DIR, every run of summary.csv with its
makespan, mean response, mean cpu / mem / io use, mean concurrent maps and reduces per node
(map_slot_utilisation x map slots / nodes; 4 map and 2 reduce slots per node unless the run's
policy label says `map_slots=N`) and goals met; then, per run whose jobs have goals (RAS
Experiment 2), each job's completion time against its goal next to Table 1's Experiment 2
row. Standard library only.
"""
import csv
import os
import sys

NODES = 20
REDUCE_SLOTS = 2
# Table 1: label -> (Experiment 1 completion, Experiment 2 completion, Experiment 2 goal), s.
TABLE1 = {
    "J1": (3113, 3018, 3000),
    "J2": (648, 896, 850),
    "J3": (1252, 802, 1250),
    "J4": (608, 550, 1100),
    "J5": (623, 560, 950),
    "J6": (3406, 2589, 2600),
    "J7": (4536, 4614, 6000),
    "J8": (3670, 3365, 3400),
    "J9": (4100, 4141, 4250),
}


def map_slots(label):
    for part in label.split("/"):
        if part.startswith("map_slots="):
            return float(part.split("=", 1)[1])
    return 4.0


def pct(x):
    return "-" if x == "" else "%.1f%%" % (100 * float(x))


def summary(dir_):
    rows = list(csv.DictReader(open(os.path.join(dir_, "summary.csv"))))
    print("## %s" % dir_)
    print("| run | makespan s | mean response s | cpu / mem / io use | maps + reduces per node | goals met |")
    print("|---|---:|---:|---|---:|---:|")
    for r in rows:
        slots = map_slots(r["policy"])
        maps = float(r["map_slot_utilisation"]) * slots
        reduces = float(r["reduce_slot_utilisation"]) * REDUCE_SLOTS
        print(
            "| %s | %s | %s | %s / %s / %s | %.2f + %.2f | %s / %s |"
            % (
                r["policy"],
                format(round(float(r["makespan_s"])), ","),
                format(round(float(r["mean_response_s"])), ","),
                pct(r["cpu_utilisation"]),
                pct(r["mem_utilisation"]),
                pct(r["io_utilisation"]),
                maps,
                reduces,
                r["goals_met"],
                r["goals"],
            )
        )
    return rows


def jobs(dir_, policy):
    parts = policy.split("/")
    path = os.path.join(dir_, "jobs", "policy=" + parts[0], *parts[1:], "part-0.csv")
    return list(csv.DictReader(open(path)))


def goals(dir_, rows):
    for r in rows:
        if r["goals"] == "0":
            continue
        print()
        print("### %s: completion time against goal (Table 1, Experiment 2)" % r["policy"])
        print("| job | goal s | placer s | met | paper RAS s |")
        print("|---|---:|---:|---|---:|")
        for j in jobs(dir_, r["policy"]):
            paper = TABLE1.get(j["id"])
            print(
                "| %s | %s | %s | %s | %s |"
                % (
                    j["id"],
                    format(round(float(j["goal_s"])), ","),
                    format(round(float(j["finish_s"])), ",") if j["finish_s"] else "-",
                    "yes" if j["goal_met"] == "true" else "no",
                    format(paper[1], ",") if paper else "-",
                )
            )


def main(dirs):
    if not dirs:
        sys.exit(__doc__)
    for d in dirs:
        rows = summary(d)
        goals(d, rows)
        print()


if __name__ == "__main__":
    main(sys.argv[1:])
