#!/usr/bin/env python3
"""What drop-in use costs a balanced program (docs/intercept.md "What a balanced program
pays"): papcoll-loop (a plain MPI program calling one collective back to back) run plainly
and under LD_PRELOAD=libpapcoll-intercept.so with the default `auto` everywhere, interleaved
(native, preloaded, native, preloaded, ...), per operation, size and rank count. Prints the median
time per call of each and their ratio (preloaded / native, the median of the per-round ratios).

  /usr/bin/python3 scripts/drop_in_tax.py [--build build] [--np 4,8] [--ops allreduce,reduce,bcast]
      [--sizes 8,1K,64K,1M,16M] [--rounds 3] [--env VAR=VALUE ...] [--json FILE]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def parse_size(s):
    mult = {"K": 1024, "M": 1 << 20, "G": 1 << 30}
    return int(s[:-1]) * mult[s[-1].upper()] if s[-1].upper() in mult else int(s)


def calls_for(size):
    # Enough calls for a repeat of tens of ms, so timer resolution and scheduling noise average out.
    return max(4, min(2000, int(40e6 / max(size, 4096))))


def run(build, np_, op, size, preload, env_extra):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env.update(env_extra)
    cmd = ["bash", os.path.join(HERE, "mpirun.sh"), "-np", str(np_)]
    if preload:
        cmd += ["-x", "LD_PRELOAD=" + os.path.join(build, "lib", "libpapcoll-intercept.so")]
    for k in env_extra:
        cmd += ["-x", k]
    cmd += [os.path.join(build, "bin", "papcoll-loop"), op, str(size), str(calls_for(size)), "9"]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        sys.exit(f"drop_in_tax: {' '.join(cmd)} failed:\n{out.stderr}")
    return float(out.stdout.split()[2])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--np", default="4,8")
    ap.add_argument("--ops", default="allreduce,reduce,bcast")
    ap.add_argument("--sizes", default="8,1K,64K,1M,16M")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--json")
    a = ap.parse_args()
    env_extra = dict(e.split("=", 1) for e in a.env)
    rows = []
    print("| op | bytes | ranks | native us/call | preloaded us/call | preloaded / native |")
    print("|---|---|---|---|---|---|")
    for np_ in [int(x) for x in a.np.split(",")]:
        for op in a.ops.split(","):
            for s in a.sizes.split(","):
                size = parse_size(s)
                native, pre, ratios = [], [], []
                for _ in range(a.rounds):
                    n = run(a.build, np_, op, size, False, env_extra)
                    p = run(a.build, np_, op, size, True, env_extra)
                    native.append(n)
                    pre.append(p)
                    ratios.append(p / n)
                row = {"op": op, "bytes": size, "np": np_, "native_us": statistics.median(native),
                       "preloaded_us": statistics.median(pre), "ratio": statistics.median(ratios),
                       "ratios": ratios}
                rows.append(row)
                print(f"| {op} | {s} | {np_} | {row['native_us']:.2f} | {row['preloaded_us']:.2f} | "
                      f"{row['ratio']:.3f} |", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"rows": rows, "env": env_extra}, f, indent=1)


if __name__ == "__main__":
    main()
