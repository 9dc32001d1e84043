#!/usr/bin/env python3
"""Ranks that disagree on one call (watchdog_mismatch.cpp) under PAPCOLL_TIMEOUT=2 and
PAPCOLL_TIMEOUT_ACTION=abort: the watchdog's line names the disagreement, read from the calls the
ranks published on the call board (which ranks said what), within 2 s of the timeout, on a later
call and on a communicator's first call; the job then ends through MPI_Abort.

  run_watchdog_mismatch.py MPIEXEC PROGRAM [mpirun flags...]
"""
import os
import re
import subprocess
import sys

MPIEXEC, PROGRAM = sys.argv[1:3]
FLAGS = sys.argv[3:]
TIMEOUT = 2.0
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)
    return ok


def case(mode, np_, want):
    env = dict(os.environ, PAPCOLL_TIMEOUT=str(TIMEOUT), PAPCOLL_TIMEOUT_ACTION="abort")
    cmd = [MPIEXEC] + FLAGS + ["-np", str(np_), "-x", "PAPCOLL_TIMEOUT", "-x",
                               "PAPCOLL_TIMEOUT_ACTION", PROGRAM, mode]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    what = "%s at %d ranks" % (mode, np_)
    check(r.returncode != 0, what + ": the job ends through the watchdog's MPI_Abort")
    lines = [l for l in r.stderr.splitlines() if l.startswith("papcoll watchdog:")
             and "disagree" in l]
    if not check(len(lines) >= 1, what + ": a watchdog line names a disagreement:\n" +
                 r.stdout[-2000:] + r.stderr[-3000:]):
        return
    line = lines[0]
    check(want in line, what + ": the line says '%s':\n%s" % (want, line))
    waited = re.search(r"has waited ([0-9.]+) s", line)
    check(waited is not None and float(waited.group(1)) <= TIMEOUT + 2.0,
          what + ": printed within 2 s of the timeout (%s)" % line)


case("algorithm", 4, "the ranks disagree on the algorithm: ranks 0-2 'native'; rank 3 'ring'")
case("algorithm", 2, "the ranks disagree on the algorithm: rank 0 'native'; rank 1 'ring'")
case("first", 3, "the ranks disagree on the algorithm: ranks 0 and 1 'native'; rank 2 'ring'")
case("root", 4, "the ranks disagree on the root: rank 0 0; ranks 1-3 1")
case("root", 3, "the ranks disagree on the root: rank 0 0; ranks 1 and 2 1")
if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("all passed")
