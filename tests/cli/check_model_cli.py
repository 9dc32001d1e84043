#!/usr/bin/env python3
"""End-to-end checks of papcoll-model: homogeneous and show, their errors and exit codes, and a
short measure under mpirun whose file must validate for its p.
usage: check_model_cli.py PAPCOLL_MODEL MPIEXEC [MPIRUN FLAGS...]"""
import os
import subprocess
import sys
import tempfile

tool, mpiexec, flags = sys.argv[1], sys.argv[2], sys.argv[3:]
failures = 0


def run(*args, expect=0, prefix=()):
    global failures
    p = subprocess.run([*prefix, tool, *args], capture_output=True, text=True, timeout=300)
    if p.returncode != expect:
        failures += 1
        print(f"FAIL: {' '.join(args)} exited {p.returncode}, expected {expect}\n{p.stdout}{p.stderr}")
    return p


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", what)


with tempfile.TemporaryDirectory() as d:
    flat = os.path.join(d, "flat.model")
    run("homogeneous", "--p", "6", "--alpha", "5e-6", "--beta", "1e-9", "--out", flat)
    text = open(flat).read()
    check(text.startswith("papcoll-model 1\n") and "default 5e-06 1e-09" in text, "homogeneous file")
    out = run("show", flat, "--p", "6").stdout
    check("valid, p=6, homogeneous" in out, "show homogeneous: " + out)
    e = run("show", flat, "--p", "5", expect=1).stderr
    check("the model is for p=6 ranks but there are 5" in e, "show wrong p: " + e)
    e = run("homogeneous", "--p", "4", "--alpha", "-1", "--beta", "1e-9", "--out", flat,
            expect=2).stderr
    check("alpha is negative" in e, "negative alpha: " + e)
    run("homogeneous", "--p", "4", "--alpha", "1e-6", "--out", flat, expect=2)
    run("frobnicate", expect=2)
    run("show", expect=2)
    run("--help")
    bad = os.path.join(d, "bad.model")
    with open(bad, "w") as f:
        f.write("papcoll-model 1\np 2\n0 1 1e-6 nan\n1 0 1e-6 1e-9\nend\n")
    e = run("show", bad, expect=1).stderr
    check("line 3: beta of link 0 -> 1 is NaN" in e, "NaN: " + e)
    run("show", os.path.join(d, "missing.model"), expect=1)

    measured = os.path.join(d, "measured.model")
    prefix = (mpiexec, *flags, "-np", "3")
    p = run("measure", "--out", measured, "--sizes", "1,4K,32K", "--reps", "3", "--max-sweeps",
            "4", "--budget-s", "20", prefix=prefix)
    check("wrote" in p.stdout, "measure output: " + p.stdout)
    out = run("show", measured, "--p", "3").stdout
    check("valid, p=3, per-pair links" in out, "measured file: " + out)
    text = open(measured).read()
    check("# measured by papcoll-model measure" in text and text.count("\n") > 8, "comments")
    run("measure", "--out", measured, "--sizes", "64", expect=2, prefix=prefix)

print("papcoll-model CLI:", "OK" if failures == 0 else f"{failures} failures")
sys.exit(1 if failures else 0)
