#!/usr/bin/env python3
"""history_sites.cpp under LD_PRELOAD (docs/intercept.md, "No tax on balanced calls"):

  run_history_sites.py MPIEXEC NP PROGRAM LIBRARY [MPIRUN FLAGS...]

Balanced loops over several history sites (two sizes of MPI_Allreduce, an MPI_Reduce with a
moving root, a second communicator): most calls are quiet calls the monitor handed out ahead.
Checks exact results (the program), that the job ends (a rank that decided differently from
the others would leave a measured exchange unmatched: the timeout), and that the PAPCOLL_VERBOSE
summary counts every call the program made on every rank, whichever path it took.
"""
import re
import sys

from verbose_run import run_verbose, summary_calls


def main():
    np_, out = run_verbose("run_history_sites", sys.argv[1:], ["600"])
    made = re.search(r"^history_sites (\d+)$", out.stdout, re.M)
    if not made:
        sys.exit("run_history_sites: the program did not say how many calls it made")
    made = int(made.group(1))
    counted = sum(summary_calls(out.stderr, ("Allreduce", "Reduce")).values())
    if counted != made * np_:
        sys.exit(f"run_history_sites: the summary counts {counted} calls, the program made "
                 f"{made} per rank ({made * np_} in all)")
    print(f"run_history_sites: ok: {made} calls per rank")


if __name__ == "__main__":
    main()
