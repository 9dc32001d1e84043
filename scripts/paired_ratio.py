#!/usr/bin/env python3
"""Compares two algorithms of papcoll-bench runs iteration by iteration.

  scripts/paired_ratio.py A B RUN.json [RUN.json ...]

papcoll-bench interleaves its algorithms in every iteration, so iteration i of A and of B saw the
same machine state; the ratio of the two is much less noisy on a shared machine than the ratio of
two medians. Prints, per run, A's and B's median (ms) and the median of A_i / B_i, then the median
of all those ratios pooled over the runs (below 1: A is faster).
"""
import json
import statistics
import sys


def samples(path, a, b):
    with open(path) as f:
        doc = json.load(f)
    by_name = {r["algorithm"]: r for r in doc["results"]}
    return by_name[a]["samples_ms"], by_name[b]["samples_ms"]


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    a, b, pooled = argv[1], argv[2], []
    for path in argv[3:]:
        sa, sb = samples(path, a, b)
        ratios = [x / y for x, y in zip(sa, sb) if y > 0]
        pooled += ratios
        print(f"{path}: {a} {statistics.median(sa):.3f} ms, {b} {statistics.median(sb):.3f} ms, "
              f"median {a}/{b} {statistics.median(ratios):.3f}")
    print(f"pooled over {len(argv) - 3} runs ({len(pooled)} iterations): median {a}/{b} "
          f"{statistics.median(pooled):.3f}")


if __name__ == "__main__":
    main(sys.argv)
