"""What run_history_sampling.py and run_history_sites.py share: an unmodified program under
LD_PRELOAD with PAPCOLL_VERBOSE (whose summary at MPI_Finalize counts the calls per operation and
algorithm, over all ranks) and fixed network parameters (the tests are about the history's
decisions, not about what a loaded machine's calibration says a message costs,
docs/calibration.md)."""
import os
import re
import subprocess
import sys


def run_verbose(who, argv, program_args=()):
    """argv: MPIEXEC NP PROGRAM LIBRARY [MPIRUN FLAGS...]. Exits with a message when the job
    fails or does not end within 240 s; else returns (np, the completed process)."""
    mpiexec, np_, program, library = argv[:4]
    flags = argv[4:]
    env = dict(os.environ, PAPCOLL_VERBOSE="1", PAPCOLL_NETWORK="5e-6,1e-9")
    cmd = [mpiexec, *flags, "-np", np_, "-x", "LD_PRELOAD=" + library, "-x", "PAPCOLL_VERBOSE",
           "-x", "PAPCOLL_NETWORK", program, *program_args]
    try:
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=240)
    except subprocess.TimeoutExpired:
        sys.exit(f"{who}: {' '.join(cmd)} did not end within 240 s")
    sys.stderr.write(out.stderr)
    if out.returncode != 0:
        sys.exit(f"{who}: {' '.join(cmd)} exited {out.returncode}")
    return int(np_), out


def summary_calls(stderr, functions):
    """The summary's calls per algorithm, summed over the MPI functions named (e.g.
    ("Allreduce",))."""
    calls = {}
    names = "|".join(functions)
    for m in re.finditer(r"^\s+MPI_(?:%s)\s+(\S+)\s+(\d+)\s" % names, stderr, re.M):
        calls[m.group(1)] = calls.get(m.group(1), 0) + int(m.group(2))
    return calls
