#!/usr/bin/env python3
"""The per-rank generation table of docs/algorithms.md ("Per-rank generation"): papcoll-sched time
for every generator at p = 64 .. 16384 (one-late and random patterns for the arrival-aware ones),
first call and repeated call in microseconds, and the schedule's size. Run it on a Release build:

  /usr/bin/python3 scripts/sched_time_table.py build-release/bin/papcoll-sched [--quick]
"""
import json
import subprocess
import sys

PS = [64, 256, 1024, 4096, 16384]
ROWS = [  # (label, papcoll-sched arguments, patterns, largest p)
    ("allreduce ring", ["ring"], ["one-late", "random"], 16384),
    ("allreduce prr", ["prr"], ["one-late", "random"], 16384),
    ("allreduce slt", ["slt"], ["one-late", "random"], 16384),
    ("allreduce linear", ["linear"], ["balanced"], 16384),
    ("allreduce rabenseifner", ["rabenseifner"], ["balanced"], 16384),
    ("allreduce recursive-doubling", ["recursive-doubling"], ["balanced"], 16384),
    ("reduce binomial", ["binomial", "--collective", "reduce"], ["balanced"], 16384),
    ("reduce rabenseifner", ["rabenseifner", "--collective", "reduce"], ["balanced"], 16384),
    ("reduce radix-k", ["radix-k"], ["balanced"], 16384),
    ("reduce ring", ["ring", "--collective", "reduce"], ["balanced"], 16384),
    ("reduce linear", ["linear", "--collective", "reduce"], ["balanced"], 16384),
    ("reduce clairvoyant", ["clairvoyant"], ["random"], 4096),
    ("bcast circulant (n = 64)", ["circulant", "--collective", "bcast", "--blocks", "64"],
     ["balanced"], 16384),
    ("bcast binomial (n = 64)", ["binomial", "--collective", "bcast", "--blocks", "64"],
     ["balanced"], 16384),
    ("bcast scatter-allgather", ["scatter-allgather", "--collective", "bcast"], ["balanced"], 16384),
    ("bcast chain (n = 64)", ["chain", "--collective", "bcast", "--blocks", "64"], ["balanced"],
     16384),
    ("allgatherv circulant (n = 1)", ["circulant", "--collective", "allgatherv", "--blocks", "1"],
     ["balanced"], 16384),
    ("allgatherv circulant (n = 64)",
     ["circulant", "--collective", "allgatherv", "--blocks", "64"], ["balanced"], 16384),
    ("allgatherv ring", ["ring", "--collective", "allgatherv", "--blocks", "1"], ["balanced"],
     16384),
    ("allgatherv bruck", ["bruck", "--collective", "allgatherv", "--blocks", "1"], ["balanced"],
     16384),
    ("allgatherv linear", ["linear", "--collective", "allgatherv", "--blocks", "1"], ["balanced"],
     16384),
]


def run(sched, args, p, pattern, rank, calls):
    cmd = [sched, "time", *args, "--p", str(p), "--pattern", pattern, "--rank", str(rank),
           "--calls", str(calls), "--format", "json"]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def main():
    sched = sys.argv[1]
    quick = "--quick" in sys.argv
    ps = [p for p in PS if not quick or p <= 1024]
    print("| generator | pattern | " + " | ".join(f"p = {p}" for p in ps) + " |")
    print("|---|---|" + "---|" * len(ps))
    for label, args, patterns, largest in ROWS:
        for pattern in patterns:
            cells = []
            for p in ps:
                if p > largest:
                    cells.append("-")
                    continue
                # 11 calls: the median is a call in a running process, whose allocator reuses
                # freed memory; the first of a process also pays the kernel's first touch of every
                # page (at p = 16384 about twice the time). Clairvoyant's first calls take seconds.
                calls = 3 if "clairvoyant" in label else 11
                # Rank 0 and a middle rank (the root of a rooted collective is rank 0): the slower.
                r = max((run(sched, args, p, pattern, rank, calls) for rank in (0, p // 2 + 1)),
                        key=lambda x: x["first_call_us"])
                cells.append(f"{r['first_call_us']:.1f} / {r['repeated_call_us']:.2f}")
            print(f"| {label} | {pattern} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
