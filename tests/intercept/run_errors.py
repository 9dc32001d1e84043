#!/usr/bin/env python3
"""The interposition library follows the communicator's error handler when papcoll's code cannot
be returned under the MPI signature (errors.cpp, docs/intercept.md): one rank's NULL send buffer
on a communicator's first MPI_Allreduce, which papcoll runs (PAPCOLL_ALLREDUCE=ring).

  return    MPI_ERRORS_RETURN: the erring rank gets MPI_ERR_ARG, every other rank MPI_ERR_OTHER
            (their result lacks its data); a valid call afterwards is exact
  handler   a user handler is called once per rank with that class
  fatal     the default handler: the job aborts, papcoll's message naming the erring rank on
            stderr
  mismatch  PAPCOLL_ALLREDUCE=ring on the last rank only (the others' 8-byte MPI_Allreduce goes to
            the MPI library): the call hangs, and with PAPCOLL_TIMEOUT=2 the watchdog's line
            names the disagreement ("ranks 0-2 'native'; rank 3 'ring'") within 2 s of it

  run_errors.py MPIEXEC PROGRAM INTERCEPT_LIB [mpirun flags...]
"""
import os
import re
import subprocess
import sys

MPIEXEC, PROGRAM, LIB = sys.argv[1:4]
FLAGS = sys.argv[4:]
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)
    return ok


def run(np_, mode):
    env = dict(os.environ, PAPCOLL_ALLREDUCE="ring")
    cmd = [MPIEXEC] + FLAGS + ["-np", str(np_), "-x", "LD_PRELOAD=" + LIB, "-x",
                               "PAPCOLL_ALLREDUCE", PROGRAM, mode]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)


for np_ in (2, 4):
    for mode in ("return", "handler"):
        r = run(np_, mode)
        check(r.returncode == 0, "%s at %d ranks:\n%s%s" % (mode, np_, r.stdout, r.stderr[-3000:]))
    r = run(np_, "fatal")
    check(r.returncode != 0, "fatal at %d ranks: the job aborts" % np_)
    check("papcoll-intercept: MPI_Allreduce failed" in r.stderr and "rank 1 (" in r.stderr,
          "fatal at %d ranks: papcoll's message names rank 1:\n%s" % (np_, r.stderr[-3000:]))
# The last rank alone names "ring" (mpirun's MPMD form gives it its own environment).
np_ = 4
env = dict(os.environ, PAPCOLL_TIMEOUT="2", PAPCOLL_TIMEOUT_ACTION="abort")
# Open MPI's -x applies to its own application context: each gets the full environment.
common = ["-x", "LD_PRELOAD=" + LIB, "-x", "PAPCOLL_TIMEOUT", "-x", "PAPCOLL_TIMEOUT_ACTION"]
cmd = ([MPIEXEC] + FLAGS + common + ["-np", str(np_ - 1), PROGRAM, "mismatch", ":"] + common +
       ["-np", "1", "-x", "PAPCOLL_ALLREDUCE=ring", PROGRAM, "mismatch"])
r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
lines = [l for l in r.stderr.splitlines() if l.startswith("papcoll watchdog:") and "disagree" in l]
want = "the ranks disagree on the algorithm: ranks 0-2 'native'; rank 3 'ring'"
if check(len(lines) >= 1 and want in lines[0],
         "mismatch under LD_PRELOAD: the watchdog says '%s':\n%s%s" % (want, r.stdout[-2000:],
                                                                     r.stderr[-3000:])):
    waited = re.search(r"has waited ([0-9.]+) s", lines[0])
    check(waited is not None and float(waited.group(1)) <= 4.0,
          "mismatch under LD_PRELOAD: within 2 s of the timeout (%s)" % lines[0])
check(r.returncode != 0, "mismatch under LD_PRELOAD: the job ends through the watchdog's abort")
if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("all passed")
