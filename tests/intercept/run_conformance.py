#!/usr/bin/env python3
"""Runs the conformance program under LD_PRELOAD=libpapcoll-intercept.so with every algorithm of
every intercepted operation forced in turn (run k forces the k-th name of each operation's list,
cycling), and checks with PAPCOLL_VERBOSE=1 that the forced algorithm really ran (the summary at
MPI_Finalize lists what ran). Then an unknown name must give one warning and the native path.

usage: run_conformance.py MPIEXEC NP CONFORMANCE INTERCEPT_LIB PAPCOLL_SCHED [mpirun flags...]
"""
import os
import re
import subprocess
import sys

OPS = ["allreduce", "reduce", "bcast", "allgatherv"]
MPI_NAMES = {"allreduce": "MPI_Allreduce", "reduce": "MPI_Reduce", "bcast": "MPI_Bcast",
             "allgatherv": "MPI_Allgatherv"}


def algorithms(sched):
    out = subprocess.run([sched, "list"], check=True, capture_output=True, text=True).stdout
    names = {op: [] for op in OPS}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] in names:
            names[parts[0]].append(parts[1])
    for op in OPS:
        names[op] += ["auto", "native"]
    return names


def run(mpiexec, np_, flags, prog, lib, env_vars):
    cmd = [mpiexec, *flags, "-np", str(np_), "-x", "LD_PRELOAD=" + lib]
    for k in env_vars:
        cmd += ["-x", k]
    cmd.append(prog)
    env = dict(os.environ, **env_vars)
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=240)


def summary_rows(stderr):
    rows = set()
    for line in stderr.splitlines():
        m = re.match(r"\s+(MPI_\w+)\s+(\S+)\s+\d+", line)
        if m:
            rows.add((m.group(1), m.group(2)))
    return rows


def main():
    mpiexec, np_, prog, lib, sched = sys.argv[1:6]
    flags = sys.argv[6:]
    names = algorithms(sched)
    runs = max(len(v) for v in names.values())
    failures = 0
    for k in range(runs):
        forced = {op: names[op][k % len(names[op])] for op in OPS}
        env = {"PAPCOLL_" + op.upper(): forced[op] for op in OPS}
        env["PAPCOLL_VERBOSE"] = "1"
        r = run(mpiexec, np_, flags, prog, lib, env)
        label = ", ".join(f"{op}={forced[op]}" for op in OPS)
        rows = summary_rows(r.stderr)
        problems = []
        if r.returncode != 0:
            problems.append(f"exit status {r.returncode}")
        if "papcoll-intercept summary" not in r.stderr:
            problems.append("no papcoll-intercept summary (was the library preloaded?)")
        for op in OPS:
            want = forced[op]
            if want == "auto":
                continue  # papcoll names what auto chose
            ran = {a for (f, a) in rows if f == MPI_NAMES[op]}
            if want not in ran:
                problems.append(f"{MPI_NAMES[op]} never ran {want} (ran: {sorted(ran)})")
        if problems:
            failures += 1
            print(f"FAIL np={np_} [{label}]: " + "; ".join(problems))
            print(r.stdout[-3000:], r.stderr[-6000:])
        else:
            print(f"ok   np={np_} [{label}]: {r.stdout.strip()}")
    # An unknown name: a warning, then MPI's own collective, still correct.
    r = run(mpiexec, np_, flags, prog, lib, {"PAPCOLL_ALLREDUCE": "no-such-algorithm"})
    if r.returncode != 0 or "is not an algorithm of allreduce" not in r.stderr:
        failures += 1
        print(f"FAIL np={np_} unknown name: exit {r.returncode}\n{r.stderr[-3000:]}")
    else:
        print(f"ok   np={np_} unknown name warns and runs natively")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
