#!/usr/bin/env python3
"""The three CLIs' shared command-line conventions (tools/cli_common.hpp): values with units
(durations 20ms/200us/0.5s, byte counts 4MiB/64K), errors that name the option, --help per
command in one style. Values with units must mean exactly what the plain numbers mean.
usage: check_cli_units.py PAPCOLL_SCHED PAPCOLL_MODEL PAPCOLL_BENCH MPIEXEC [MPIRUN FLAGS...]"""
import json
import os
import subprocess
import sys
import tempfile

sched, model, bench, mpiexec, flags = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
failures = 0


def run(argv, expect=0):
    global failures
    p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    if p.returncode != expect:
        failures += 1
        print(f"FAIL: {' '.join(argv[-8:])} exited {p.returncode}, expected {expect}\n"
              f"{p.stdout[-2000:]}{p.stderr[-2000:]}")
    return p


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", what)


def error(argv, *messages):
    """A usage error (exit 2) whose message has every one of `messages`, once per process."""
    e = run(argv, expect=2).stderr
    for m in messages:
        check(m in e, f"{argv[-6:]}: no '{m}' in: {e}")


# --- papcoll-sched: units mean what the plain numbers mean ----------------------------------
def cost(*args):
    p = run([sched, "cost", "prr", "--p", "4", "--blocks", "4", "--format", "json", *args])
    return json.loads(p.stdout) if p.returncode == 0 else None


plain = cost("--arrivals", "0.002,0,0,0", "--alpha", "0.000005", "--beta", "1e-9", "--bytes", "4096")
units = cost("--arrivals", "2ms,0,0,0", "--alpha", "5us", "--beta", "1e-9", "--bytes", "4KiB")
check(plain is not None and plain == units, f"cost with units {units} != plain {plain}")
check(cost("--arrivals", "2ms,0,0,0", "--alpha", "5us", "--beta", "1e-9", "--bytes", "4K") == plain,
      "--bytes 4K")
shown = [run([sched, "show", "prr", "--p", "4", "--arrivals", a, "--tau", t, "--format", "json"]).stdout
         for a, t in (("0,0,0.5,0", "0.001"), ("0,0,500ms,0", "1ms"), ("0,0,0.5s,0", "1000us"))]
check(shown[0] == shown[1] == shown[2] and shown[0], "show with --arrivals/--tau units")
error([sched, "cost", "prr", "--p", "4", "--alpha", "1", "--beta", "0", "--bytes", "4MB"],
      "papcoll-sched: --bytes needs a number of bytes")
error([sched, "show", "prr", "--p", "4", "--arrivals", "0,5min,0,0"],
      "papcoll-sched: --arrivals needs a finite number of seconds")
error([sched, "show", "prr", "--p", "4", "--tau", "-1ms"], "papcoll-sched: --tau needs")
error([sched, "show", "prr", "--p"], "papcoll-sched: option --p needs a value")
error([sched, "show", "prr", "--p", "4", "--bogus", "1"], "papcoll-sched: unknown option '--bogus'")
error([sched, "show", "prr", "--p", "4", "extra"], "papcoll-sched: unexpected argument 'extra'")
error([sched, "bench", "nothing"], "papcoll-sched: unknown command 'bench nothing'")
error([sched, "verify-circulant", "--from", "1"], "papcoll-sched: needs --from and --to")
top = run([sched, "--help"]).stdout
check(all(c in top for c in ("list", "show", "verify", "cost", "time", "verify-circulant", "bench")),
      "sched --help lists the commands: " + top)
for cmd, opt in ((["show"], "--arrivals"), (["time"], "--pattern"),
                 (["bench", "clairvoyant"], "--dist"), (["verify-circulant"], "--threads")):
    h = run([sched, *cmd, "--help"]).stdout
    check(opt in h and "Usage: papcoll-sched " + " ".join(cmd) in h, f"{cmd} --help: {h}")

# --- papcoll-model ---------------------------------------------------------------------------
with tempfile.TemporaryDirectory() as d:
    a = run([model, "homogeneous", "--p", "3", "--alpha", "5e-6", "--beta", "1e-9", "--out", "-"]).stdout
    b = run([model, "homogeneous", "--p=3", "--alpha=5e-6", "--beta=1e-9", "--out=-"]).stdout
    check(a == b and "default 5e-06 1e-09" in a, "homogeneous --opt=value")
    error([model, "homogeneous", "--p", "3", "--alpha", "1", "--beta", "1", "--out", "-", "--sizes", "1K"],
          "papcoll-model: unknown option '--sizes'")
    error([model, "show", os.path.join(d, "x.model"), "--p"], "papcoll-model: option --p needs a value")
    h = run([model, "measure", "--help"]).stdout
    check("--budget-s" in h and "Usage: papcoll-model measure" in h, "measure --help: " + h)
    mpi = [mpiexec, *flags, "-np", "1"]
    error([*mpi, model, "measure", "--out", os.path.join(d, "m"), "--sizes", "1,4MB"],
          "papcoll-model: --sizes: '4MB' is not a byte count")
    error([*mpi, model, "measure", "--out", os.path.join(d, "m"), "--budget-s", "5min"],
          "papcoll-model: --budget-s: seconds >= 0")

    # --- papcoll-bench (its parser runs before MPI_Init; the rest is tests/tools) --------------
    error([*mpi, bench, "--size", "6B", "--dtype", "long"],
          "papcoll-bench: --size: 6B is not a whole number of long elements (8 bytes each)")
    error([*mpi, bench, "--compute-ms", "2h"], "papcoll-bench: --compute-ms: '2h' is not a duration")
    error([*mpi, bench, "--iters"], "papcoll-bench: option --iters needs a value")
    h = run([*mpi, bench, "--help"]).stdout
    check(all(g in h for g in ("What to measure:", "Iterations and delays:", "Arrival patterns:",
                               "Output:", "--csv FILE", "4MiB")), "bench --help: " + h)

print("CLI units and errors:", "OK" if failures == 0 else f"{failures} failures")
sys.exit(1 if failures else 0)
