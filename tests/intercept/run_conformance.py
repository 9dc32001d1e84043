#!/usr/bin/env python3
"""Runs the conformance program under LD_PRELOAD=libpapcoll-intercept.so with every algorithm of
every intercepted operation forced in turn (run k forces the k-th name of each operation's list,
cycling), and checks with PAPCOLL_VERBOSE=1 that the forced algorithm really ran (the summary at
MPI_Finalize lists what ran). Then an unknown name must give one warning and the native path; a
link model file (PAPCOLL_MODEL) for NP ranks must drive the model-based scatterv/gatherv trees on
the world communicator and give one warning and MPI's collective on the communicators of other
sizes; a missing model file must give one warning and correct results.

usage: run_conformance.py MPIEXEC NP CONFORMANCE INTERCEPT_LIB PAPCOLL_SCHED [mpirun flags...]
"""
import os
import re
import subprocess
import sys
import tempfile

OPS = ["allreduce", "reduce", "bcast", "allgatherv", "scatterv", "gatherv"]
MPI_NAMES = {"allreduce": "MPI_Allreduce", "reduce": "MPI_Reduce", "bcast": "MPI_Bcast",
             "allgatherv": "MPI_Allgatherv", "scatterv": "MPI_Scatterv",
             "gatherv": "MPI_Gatherv"}


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


def write_model(path, np_):
    """A heterogeneous link model for np_ ranks: rank 0's links slow, the others fast."""
    with open(path, "w") as f:
        f.write(f"papcoll-model 1\np {np_}\ndefault 2e-06 5e-10\n")
        for j in range(1, np_):
            f.write(f"0 {j} 5e-05 4e-09\n{j} 0 5e-05 4e-09\n")
        f.write("end\n")


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
            if op in ("scatterv", "gatherv") and int(np_) == 1 and want != "native":
                continue  # the root's own portion only: nothing for a tree to move ("none")
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
    # A link model for the world communicator: the model-based trees run on it; the split
    # communicator (another size) refuses the model on every rank alike and gets MPI's collective.
    model = os.path.join(tempfile.mkdtemp(prefix="papcoll-conf-"), f"links-{np_}.model")
    write_model(model, int(np_))
    for env, want_warning, want_rows in (
            ({"PAPCOLL_MODEL": model, "PAPCOLL_SCATTERV": "traff-model",
              "PAPCOLL_GATHERV": "auto", "PAPCOLL_VERBOSE": "1"},
             int(np_) > 1, {("MPI_Scatterv", "traff-model")}),
            ({"PAPCOLL_MODEL": model + ".missing", "PAPCOLL_SCATTERV": "binomial-minfirst",
              "PAPCOLL_GATHERV": "binomial", "PAPCOLL_VERBOSE": "1"},
             True, {("MPI_Scatterv", "native"), ("MPI_Gatherv", "binomial")})):
        r = run(mpiexec, np_, flags, prog, lib, env)
        rows = summary_rows(r.stderr)
        warnings = r.stderr.count("papcoll-intercept: PAPCOLL_MODEL=")
        problems = []
        if r.returncode != 0:
            problems.append(f"exit status {r.returncode}")
        if int(np_) > 1 and not want_rows <= rows:
            problems.append(f"summary lacks {sorted(want_rows - rows)} (rows: {sorted(rows)})")
        if want_warning and warnings == 0:
            problems.append("no warning about the model")
        if not want_warning and warnings:
            problems.append("unexpected warning about the model")
        if warnings > int(np_):
            problems.append(f"{warnings} warnings: at most one per process")
        label = f"PAPCOLL_MODEL={os.path.basename(env['PAPCOLL_MODEL'])}"
        if problems:
            failures += 1
            print(f"FAIL np={np_} {label}: " + "; ".join(problems))
            print(r.stdout[-3000:], r.stderr[-6000:])
        else:
            print(f"ok   np={np_} {label}: {r.stdout.strip()}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
