#!/usr/bin/env python3
"""The calibration end to end at 4 ranks (docs/calibration.md): test_calibration's phases, one
mpirun job each, since PAPCOLL_CALIBRATION and PAPCOLL_NETWORK are read once per process. What
carries over between jobs is the cache file, which this script corrupts, replaces by a foreign
one and checks: measured values are written, reused bit for bit, and measured over (with a
warning) when the file does not match.
usage: run_calibration_test.py TEST_CALIBRATION MPIEXEC [MPIRUN FLAGS...]"""
import glob
import os
import subprocess
import sys
import tempfile

program, mpiexec, flags = sys.argv[1], sys.argv[2], sys.argv[3:]
NP = 4
failures = 0


def check(ok, what):
    global failures
    if not ok:
        failures += 1
        print("FAIL:", what)
    return ok


def run(phase, env):
    exports = [x for k in env for x in ("-x", k)]
    cmd = [mpiexec, *flags, *exports, "-np", str(NP), program, phase]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, **env))
    except subprocess.TimeoutExpired:
        check(False, f"{phase}: did not finish in 120 s (hang?)")
        return None
    print(f"--- {phase} {env}\n{p.stdout}{p.stderr}", end="")
    check(p.returncode == 0, f"{phase}: exit status {p.returncode}")
    return p


def values(p):
    lines = [l for l in p.stdout.splitlines() if l.startswith("values: ")] if p else []
    return lines[0] if lines else None


with tempfile.TemporaryDirectory() as d:
    base = {"PAPCOLL_CALIBRATION_CACHE": d, "PAPCOLL_CALIBRATION": "auto"}
    for k in ("PAPCOLL_NETWORK", "PAPCOLL_CALIBRATION_BUDGET_MS"):
        os.environ.pop(k, None)

    # Measured, and written to the cache file.
    m = run("measure", dict(base, PAPCOLL_CALIBRATION="always"))
    files = glob.glob(os.path.join(d, "calibration-*.txt"))
    check(len(files) == 1, f"one cache file written, found {files}")
    path = files[0] if files else os.path.join(d, "missing")
    text = open(path).read() if os.path.exists(path) else ""
    check(text.startswith("papcoll-calibration 1\n") and "\nend\n" in text, f"cache file: {text}")
    check(not glob.glob(os.path.join(d, "*.tmp.*")), "no temporary file left behind")

    # Reused: the same values bit for bit, nothing measured.
    r = run("reuse", base)
    check(values(m) is not None and values(r) == values(m),
          f"reuse: values {values(r)} differ from the measured {values(m)}")

    # Corrupt, truncated, foreign: a warning, measured again, the file rewritten.
    lines = text.splitlines(keepends=True)
    variants = {
        "corrupt": "papcoll-calibration 1\nkey zz\n",
        "truncated": "".join(lines[:len(lines) // 2]),
        "foreign ranks": "".join(l if not l.startswith("ranks ") else "ranks 5\n" for l in lines),
        "foreign library": "".join(l if not l.startswith("library ") else "library MPICH 4.0\n"
                                   for l in lines),
        "garbage": "\x00\x01binary\xff",
    }
    for name, bad in variants.items():
        with open(path, "w", encoding="latin-1") as f:
            f.write(bad)
        p = run("remeasure", base)
        if p is None:
            continue
        check("calibration cache ignored" in p.stderr, f"{name}: warning on stderr: {p.stderr}")
        if name.startswith("foreign"):
            check("foreign" in p.stderr, f"{name}: the warning says foreign: {p.stderr}")
        now = open(path).read()
        check(now.startswith("papcoll-calibration 1\n") and now != bad, f"{name}: file rewritten")
    r2 = run("reuse", base)  # the rewritten file is valid again
    check(r2 is not None and values(r2) is not None, "reuse after remeasure")

    # The overrides win over the cache file; unusable ones are warned about.
    p = run("network", dict(base, PAPCOLL_NETWORK="2e-5,8e-9,1e-10", PAPCOLL_VERBOSE="1"))
    if p is not None:  # PAPCOLL_VERBOSE: rank 0 of each settled communicator says what it holds
        check("papcoll: network of a communicator of 4 rank(s) on 1 node(s): alpha=2e-05 s "
              "beta=8e-09 s/B" in p.stderr and "PAPCOLL_NETWORK" in p.stderr,
              f"PAPCOLL_VERBOSE line: {p.stderr}")
    run("off", dict(base, PAPCOLL_CALIBRATION="off"))
    model = os.path.join(d, "net.model")
    with open(model, "w") as f:
        f.write(f"papcoll-model 1\np {NP}\ndefault 7e-06 3e-09\nend\n")
    run("model", dict(base, PAPCOLL_NETWORK=model))
    for bad in ("1e-6,nan", "1e-6,-2e-9", "5us,1e-9", "1e-6", "nan,1e-9", "/no/such.model"):
        p = run("errors", dict(base, PAPCOLL_CALIBRATION="always", PAPCOLL_NETWORK=bad))
        if p is not None:
            check(f"PAPCOLL_NETWORK={bad} ignored" in p.stderr, f"{bad}: warning: {p.stderr}")
    p = run("reuse", dict(base, PAPCOLL_CALIBRATION="sometimes"))  # taken as auto
    if p is not None:
        check("PAPCOLL_CALIBRATION=sometimes is not auto, always or off" in p.stderr,
              f"bad mode: warning: {p.stderr}")

print("run_calibration_test:", "OK" if failures == 0 else f"{failures} failure(s)")
sys.exit(1 if failures else 0)
