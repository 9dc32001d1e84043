#!/usr/bin/env python3
"""Late-fold under the cost model (docs/algorithms.md, "late-fold: measured"): P and P/delta of
all-reduce or reduce algorithms at p = 48, 4 MiB, Hockney alpha = 22e-6 s, beta = 8e-9 s/B (gige-48's
parameters, gamma 0), for the delay modes of papcoll-bench at D = 50 ms: none, one-late (rank 1),
k-late:2 (ranks 3, 17), staggered:3 (ranks 3, 17, 31 late by D/3, 2D/3, D). Each figure is one
`papcoll-sched cost ALGO --p 48 --bytes 4194304 --alpha 22e-6 --beta 8e-9 --arrivals ...`.

  /usr/bin/python3 sim/experiments/late_fold_cost.py [build/bin/papcoll-sched] [allreduce|reduce] [ALGOS]
"""
import json
import subprocess
import sys

P, NBYTES, ALPHA, BETA, D = 48, 4 << 20, 22e-6, 8e-9, 0.05
DELTA = ALPHA + BETA * NBYTES


def pattern(kind):
    a = [0.0] * P
    if kind == "one-late":
        a[1] = D
    elif kind == "k-late:2":
        a[3] = a[17] = D
    elif kind == "staggered:3":
        for i, r in enumerate((3, 17, 31)):
            a[r] = D * (i + 1) / 3
    return a


def main():
    sched = sys.argv[1] if len(sys.argv) > 1 else "build/bin/papcoll-sched"
    coll = sys.argv[2] if len(sys.argv) > 2 else "allreduce"
    default = "late-fold,prr,ring,rabenseifner" if coll == "allreduce" else "late-fold,clairvoyant,binomial"
    algos = (sys.argv[3] if len(sys.argv) > 3 else default).split(",")
    print(f"# {coll}, p={P}, {NBYTES} bytes, alpha={ALPHA} beta={BETA}, D={D * 1e3:g} ms, "
          f"delta={DELTA * 1e3:.2f} ms")
    for kind in ["none", "one-late", "k-late:2", "staggered:3"]:
        a = pattern(kind)
        for algo in algos:
            cmd = [sched, "cost", algo, "--p", str(P), "--bytes", str(NBYTES), "--alpha", str(ALPHA),
                   "--beta", str(BETA), "--arrivals", ",".join(map(repr, a)), "--format", "json"]
            if coll != "allreduce":
                cmd[3:3] = ["--collective", coll, "--root", "0"]
            ranks = json.loads(subprocess.run(cmd, check=True, capture_output=True,
                                              text=True).stdout)["ranks"]
            finish = [r["finish"] for r in ranks]
            post = sum(finish) / P - max(a)
            elapsed = sum(r["elapsed"] for r in ranks) / P
            line = (f"{kind:12s} {algo:14s} mean_elapsed {elapsed * 1e3:8.2f} ms  "
                    f"P {post * 1e3:7.2f} ms  P/delta {post / DELTA:5.3f}")
            if coll != "allreduce":
                root = finish[0] - max(a)
                line += f"  root {root * 1e3:7.2f} ms after the last arrival ({root / DELTA:5.3f} delta)"
            print(line)


if __name__ == "__main__":
    main()
