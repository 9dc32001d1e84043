#!/usr/bin/env python3
"""history_sites.cpp under LD_PRELOAD (docs/intercept.md, "No tax on balanced calls"):

  run_history_sites.py MPIEXEC NP PROGRAM LIBRARY [MPIRUN FLAGS...]

Balanced loops over several history sites (two sizes of MPI_Allreduce, an MPI_Reduce with a
moving root, a second communicator): most calls are quiet calls the monitor handed out ahead.
Checks exact results (the program), that the job ends (a rank that decided differently from
the others would leave a measured exchange unmatched: the timeout), and that the PAPCOLL_VERBOSE
summary counts every call the program made on every rank, whichever path it took.
"""
import os
import re
import subprocess
import sys


def main():
    mpiexec, np_, program, library = sys.argv[1:5]
    flags = sys.argv[5:]
    np_ = int(np_)
    env = dict(os.environ, PAPCOLL_VERBOSE="1", PAPCOLL_NETWORK="5e-6,1e-9")
    cmd = [mpiexec, *flags, "-np", str(np_), "-x", "LD_PRELOAD=" + library, "-x",
           "PAPCOLL_VERBOSE", "-x", "PAPCOLL_NETWORK", program, "600"]
    try:
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=240)
    except subprocess.TimeoutExpired:
        sys.exit(f"run_history_sites: {' '.join(cmd)} did not end within 240 s")
    sys.stderr.write(out.stderr)
    if out.returncode != 0:
        sys.exit(f"run_history_sites: {' '.join(cmd)} exited {out.returncode}")
    made = re.search(r"^history_sites (\d+)$", out.stdout, re.M)
    if not made:
        sys.exit("run_history_sites: the program did not say how many calls it made")
    made = int(made.group(1))
    counted = 0
    for m in re.finditer(r"^\s+MPI_(?:Allreduce|Reduce)\s+(\S+)\s+(\d+)\s", out.stderr, re.M):
        counted += int(m.group(2))
    if counted != made * np_:
        sys.exit(f"run_history_sites: the summary counts {counted} calls, the program made "
                 f"{made} per rank ({made * np_} in all)")
    print(f"run_history_sites: ok: {made} calls per rank")


if __name__ == "__main__":
    main()
