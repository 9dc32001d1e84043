#!/usr/bin/env python3
"""papcoll-sched time's figures (docs/papcoll-sched.md, "time") are consistent: the peak of live
bytes within what the first call allocated, and `kept` (what the process's first call leaves
allocated once its schedule is gone) is the row's memos: a two-level row keeps its plan of the
pattern, a row without a plan keeps next to nothing.
usage: check_sched_time.py PAPCOLL_SCHED"""
import json
import subprocess
import sys

sched = sys.argv[1]
failures = 0


def figures(*argv):
    p = subprocess.run([sched, "time", *argv, "--calls", "3", "--format", "json"],
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise SystemExit(f"FAIL: {argv} exited {p.returncode}: {p.stderr[-2000:]}")
    return json.loads(p.stdout)


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", what)


nodes = ["--p", "256", "--nodes", "16", "--intra-alpha", "0.5us", "--intra-beta", "1.25e-10"]
for algo, pattern in [("two-level-rsag", "one-late"), ("two-level", "random"), ("prr", "one-late")]:
    f = figures(algo, *(nodes if algo.startswith("two-level") else ["--p", "256"]),
                "--pattern", pattern)
    check(0 < f["peak_bytes"] <= f["allocated_bytes"], f"{algo}: peak {f['peak_bytes']} "
          f"against allocated {f['allocated_bytes']}")
    check(0 <= f["kept_bytes"] <= f["peak_bytes"], f"{algo}: kept {f['kept_bytes']} "
          f"against peak {f['peak_bytes']}")
    if algo.startswith("two-level"):
        # The plan: at least who leads each of the 16 nodes and its ready time.
        check(f["kept_bytes"] >= 16 * (4 + 8), f"{algo}: kept {f['kept_bytes']} holds no plan")
    else:
        check(f["kept_bytes"] < 1024, f"{algo}: kept {f['kept_bytes']} bytes with no memo")
    print(f"{algo} {pattern}: first {f['first_call_us']} us, allocated {f['allocated_bytes']}, "
          f"peak {f['peak_bytes']}, kept {f['kept_bytes']}")
sys.exit(1 if failures else 0)
