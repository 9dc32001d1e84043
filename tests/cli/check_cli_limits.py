#!/usr/bin/env python3
"""Adversarial inputs for the CLIs and the link-model reader: every case must end with its exit
status (2 bad usage, 1 an invalid model file, 0 a valid one) and a clear message, never a signal or
a hang, within 1 s of CPU time and a bounded address space (setrlimit RLIMIT_CPU and RLIMIT_AS in
the child: going over the CPU limit is SIGXCPU, over the memory limit an allocation failure).
Prints each case's wall time and peak resident memory (wait4's ru_maxrss; Linux keeps the forking
Python's resident size across exec, so about 10 MiB is the floor of that figure).

usage: check_cli_limits.py PAPCOLL_SCHED PAPCOLL_MODEL
"""
import os
import resource
import signal
import sys
import tempfile
import threading
import time

sched, model = sys.argv[1], sys.argv[2]
failures = 0
MiB = 1 << 20


def spawn(argv, cpu_s, mem):
    """Runs argv with RLIMIT_CPU and RLIMIT_AS; returns (status, stdout, stderr, wall seconds,
    peak resident KiB of this child alone, from wait4)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        pid = os.fork()
        if pid == 0:  # the child: limits, then the tool
            try:
                resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
                resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
                os.dup2(out.fileno(), 1)
                os.dup2(err.fileno(), 2)
                os.execv(argv[0], argv)
            finally:
                os._exit(127)
        # A hang backstop: the CPU limit does not stop a process that waits.
        killer = threading.Timer(60, lambda: os.kill(pid, signal.SIGKILL))
        killer.start()
        _, status, usage = os.wait4(pid, 0)
        killer.cancel()
        wall = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        return (os.waitstatus_to_exitcode(status), out.read().decode(errors="replace"),
                err.read().decode(errors="replace"), wall, usage.ru_maxrss)


def run(tool, args, expect, message, cpu_s=1, mem=512 * MiB, max_rss=None):
    """One case under the limits: exit status, message, peak memory."""
    global failures
    rc, out, err, wall, rss_kb = spawn([tool, *args], cpu_s, mem)
    label = f"{os.path.basename(tool)} {' '.join(args)}"
    problems = []
    if rc < 0:
        problems.append(f"killed by signal {-rc}" + (" (CPU limit)" if -rc == signal.SIGXCPU else ""))
    elif rc != expect:
        problems.append(f"exit status {rc}, expected {expect}")
    if message not in err + out:
        problems.append(f"no '{message}' in the output")
    if max_rss is not None and rss_kb * 1024 > max_rss:
        problems.append(f"peak memory {rss_kb / 1024:.0f} MiB over {max_rss / MiB:.0f} MiB")
    rss = f"{rss_kb / 1024:.1f} MiB"
    if problems:
        failures += 1
        print(f"FAIL {label}: {'; '.join(problems)} ({wall:.2f} s, {rss})\n{err[-1500:]}")
    else:
        print(f"ok   {wall:5.2f} s {rss:>10}  exit {rc}  {label}")


with tempfile.TemporaryDirectory() as d:
    def write(name, text):
        path = os.path.join(d, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    # papcoll-sched: numbers out of range, sizes whose memory would not be bounded.
    usage = 2
    for args, message in (
            (["verify", "ring", "--p", "4", "--seed", "99999999999999999999"], "--seed needs an integer"),
            (["verify", "ring", "--p", "4", "--seed", "-1"], "--seed needs an integer"),
            (["show", "ring", "--p", "100000000"], "--p must be at most 1024"),
            (["show", "ring", "--p", "99999999999999999999"], "--p needs an integer"),
            (["verify", "recursive-doubling", "--p", "2147483647"], "--p must be at most 1024"),
            (["verify", "all", "--p", "1..2147483647"], "--p must be at most 1024"),
            (["show", "ring", "--p", "1024", "--blocks", "2048"], "p * blocks must be at most 2^20"),
            (["show", "circulant-allgatherv", "--p", "64", "--blocks", "1000000"],
             "p * blocks must be at most 2^20"),
            (["time", "circulant-allgatherv", "--p", "2048", "--blocks", "1000000"],
             "blocks in all are more than 2^30"),
            (["show", "circulant-allgatherv", "--p", "64", "--blocks", "1000"],
             "p * blocks must be at most 2^20"),
            (["time", "prr", "--p", "2000000"], "--p must be at most 1048576"),
            (["time", "prr", "--p", "4", "--calls", "99999999999"], "--calls must be in 1..1000000"),
            (["time", "prr", "--p", "4", "--pattern", "random", "--seed", "99999999999999999999"],
             "--seed needs an integer"),
            (["show", "ring", "--p", "4", "--blocks", "99999999999"], "--blocks needs an integer"),
            (["show", "ring", "--p", "4", "--root", "-3"], "--root must be in 0..3"),
            (["cost", "ring", "--p", "4", "--bytes", "1e300", "--alpha", "1", "--beta", "1"],
             "--bytes must be in 0..2^53"),
            (["show", "scatterv-linear", "--p", "4", "--counts", "9223372036854775807,1,1,1"],
             "must total at most 2^53 bytes"),
            (["show", "clairvoyant", "--p", "4", "--arrivals", "0,0,0,1e300", "--round-time", "1e-300"],
             "arrival spread too large"),
            (["verify", "ring", "--p", "4", "--random-arrivals", "99999999999"],
             "--random-arrivals must be in 0..100000"),
            (["verify-circulant", "--from", "1", "--to", "10", "--threads", "2000000000"],
             "--threads must be in 0..256"),
            (["verify-circulant", "--from", "1", "--to", "99999999999"], "--to must be in 1..536870912"),
            (["bench", "clairvoyant", "--p", "1..1073741824", "--runs", "1"],
             "P * N must be at most 2^24"),
            (["bench", "clairvoyant", "--p", "8", "--runs", "99999999999"], "--runs must be in"),
            (["bench", "clairvoyant", "--p", "8", "--seed", "99999999999999999999"],
             "--seed needs an integer")):
        run(sched, args, usage, message)
    # Extreme but valid: answered at once.
    run(sched, ["show", "prr", "--p", "4", "--arrivals", "0,0,0,1e300", "--tau", "1e-300"], 0,
        "allreduce prr")
    # One rank of a million-rank all-gatherv: its rounds, not its p-block messages (which time
    # does not list beyond 256 MiB).
    run(sched, ["time", "circulant-allgatherv", "--p", "1048576", "--blocks", "64", "--calls", "3"],
        0, "ops would list more than 256 MiB", max_rss=128 * MiB)

    # papcoll-model and the model reader.
    claim = write("claim.model", "papcoll-model 1\np 20000\n0 1 1e-6 1e-9\nend\n")  # 42 bytes
    assert os.path.getsize(claim) == 42
    run(model, ["show", claim, "--p", "4"], 1, "the model is for p=20000 ranks but there are 4")
    run(model, ["show", claim], 1, "per-pair links are supported up to p=4096")
    run(model, ["show", "/dev/zero"], 1, "the first line is longer than 4096 bytes")
    run(model, ["show", "/dev/zero", "--p", "4"], 1, "the first line is longer than 4096 bytes")
    blank = write("blank.model", "papcoll-model 1\np 4\ndefault 1e-6 1e-9\n" + "\n" * (2 * MiB))
    run(model, ["show", blank], 1, "longer than 1050112 bytes")
    run(model, ["show", d], 1, "read error")
    run(model, ["homogeneous", "--p", "99999999999999999999", "--alpha", "1", "--beta", "1",
                "--out", "-"], 2, "--p: an integer in 1..65536")
    run(model, ["show", claim, "--p", "99999999999999999999"], 2, "--p: an integer in 1..65536")
    # A valid homogeneous model for 65536 ranks: two numbers, not 65536 x 65536.
    flat = os.path.join(d, "flat.model")
    run(model, ["homogeneous", "--p", "65536", "--alpha", "1e-6", "--beta", "1e-9", "--out", flat],
        0, "")
    run(model, ["show", flat], 0, "valid, p=65536, homogeneous", max_rss=64 * MiB)
    # A valid per-pair model at the limit, p = 4096 (a default and two links): the model's two
    # matrices are 256 MiB; show must not copy them again (the old show held 512 MiB more).
    sparse = write("sparse.model", "papcoll-model 1\np 4096\ndefault 1e-6 1e-9\n"
                   "0 1 5e-6 2e-9\n1 0 4e-6 3e-9\nend\n")
    run(model, ["show", sparse], 0, "valid, p=4096, per-pair links", cpu_s=30, mem=1024 * MiB,
        max_rss=400 * MiB)

print("CLI limits: all cases passed" if not failures else f"CLI limits: {failures} failure(s)")
sys.exit(1 if failures else 0)
