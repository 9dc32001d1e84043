#!/usr/bin/env python3
"""What the straggler report and the watchdog cost a balanced program (docs/report-format.md
"Cost"): papcoll-loop (a plain MPI program calling one collective back to
back) under LD_PRELOAD=libpapcoll-intercept.so in three configurations, interleaved per round:

  board-off   PAPCOLL_BOARD=0: no call board, no report, no watchdog (nothing observed at all)
  off         the defaults: the call board only (a rank's refusal is settled through it)
  on          PAPCOLL_REPORT=FILE and PAPCOLL_TIMEOUT=60 (the report recorded, the watchdog armed)

Each run is papcoll-loop's 9 repeats of 2000 calls; it gives the median repeat and the fastest
(the fastest is the steadier figure on a machine shared with other work). Prints, per
configuration, the median over the rounds of both, and the medians of the per-round ratios on/off
and off/board-off.

  /usr/bin/python3 scripts/observe_tax.py [--build build] [--np 4] [--op allreduce] [--bytes 8]
      [--rounds 7] [--env VAR=VALUE ...]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run(build, np_, op, size, env_extra):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env.update(env_extra)
    cmd = ["bash", os.path.join(HERE, "mpirun.sh"), "-np", str(np_),
           "-x", "LD_PRELOAD=" + os.path.join(build, "lib", "libpapcoll-intercept.so")]
    for k in env_extra:
        cmd += ["-x", k]
    cmd += [os.path.join(build, "bin", "papcoll-loop"), op, str(size), "2000", "9"]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        sys.exit("observe_tax: %s failed:\n%s" % (" ".join(cmd), out.stderr))
    f = out.stdout.split()
    return float(f[2]), float(f[3])  # median and fastest repeat, us per call


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--np", type=int, default=4)
    ap.add_argument("--op", default="allreduce")
    ap.add_argument("--bytes", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--env", action="append", default=[])
    a = ap.parse_args()
    base = dict(e.split("=", 1) for e in a.env)
    with tempfile.TemporaryDirectory() as tmp:
        configs = {
            "board-off": dict(base, PAPCOLL_BOARD="0"),
            "off": dict(base),
            "on": dict(base, PAPCOLL_REPORT=os.path.join(tmp, "r.json"), PAPCOLL_TIMEOUT="60"),
        }
        times = {k: [] for k in configs}
        fastest = {k: [] for k in configs}
        for r in range(a.rounds):
            for k, env in configs.items():
                med, low = run(a.build, a.np, a.op, a.bytes, env)
                times[k].append(med)
                fastest[k].append(low)
            print("round %d: %s" % (r + 1, ", ".join("%s %.2f (fastest %.2f) us" % (
                k, times[k][-1], fastest[k][-1]) for k in configs)), flush=True)
    print("| %s %d B, %d ranks, %d rounds | median repeat, us/call | fastest repeat, us/call |"
          % (a.op, a.bytes, a.np, a.rounds))
    print("|---|---|---|")
    for k in configs:
        print("| %s | %.2f | %.2f |" % (k, statistics.median(times[k]),
                                        statistics.median(fastest[k])))
    for name, t in (("median repeat", times), ("fastest repeat", fastest)):
        for hi, lo in (("on", "off"), ("off", "board-off")):
            ratios = [x / y for x, y in zip(t[hi], t[lo])]
            print("%s / %s (%s): median of per-round ratios %.3f (rounds: %s)"
                  % (hi, lo, name, statistics.median(ratios), " ".join("%.3f" % x for x in ratios)))

if __name__ == "__main__":
    main()
