#!/usr/bin/env python3
"""End-to-end checks of papcoll-sched: JSON shapes, exit codes, the documented examples."""
import json
import subprocess
import sys

tool = sys.argv[1]
failures = 0


def run(*args, expect=0):
    global failures
    p = subprocess.run([tool, *args], capture_output=True, text=True, timeout=120)
    if p.returncode != expect:
        failures += 1
        print(f"FAIL: {' '.join(args)} exited {p.returncode}, expected {expect}\n{p.stderr}")
    return p


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", what)


# Schedule JSON has the documented shape.
s = json.loads(run("show", "prr", "--p", "8", "--arrivals", "0,0,0,0.001,0,0,0,0.002",
                   "--format", "json").stdout)
check(s["format"] == "papcoll-schedule/1" and s["collective"] == "allreduce", "schedule header")
check(s["algorithm"] == "prr" and s["p"] == 8 and s["root"] is None and s["blocks"] == 8, "fields")
check(len(s["ranks"]) == 8 and all(r["rank"] == i for i, r in enumerate(s["ranks"])), "ranks")
for r in s["ranks"]:
    for st in r["steps"]:
        for op in st["ops"]:
            check(op["kind"] in ("send", "recv"), "op kind")
            check(("combine" in op) == (op["kind"] == "recv"), "combine only on receives")

# The example: PRR, p=4, rank 0 two tau late, every message one tau.
c = json.loads(run("cost", "prr", "--p", "4", "--blocks", "4", "--arrivals", "2,0,0,0",
                   "--alpha", "1", "--beta", "0", "--bytes", "4", "--format", "json").stdout)
check(set(c) == {"ranks", "mean_elapsed", "max_finish"}, "cost JSON keys")
check(c["ranks"][0] == {"rank": 0, "arrival": 2, "finish": 7, "elapsed": 5}, f"late rank {c['ranks'][0]}")
check(c["max_finish"] == 8 and c["mean_elapsed"] == 7.25, f"prr cost {c}")

# Verify all six algorithms for p = 1..64 with random arrivals.
out = run("verify", "all", "--p", "1..64", "--random-arrivals", "2", "--seed", "11").stdout
check(out.startswith("ok: "), "verify all")
check(set(run("list").stdout.split()) >= {"ring", "rabenseifner", "recursive-doubling", "linear",
                                           "slt", "prr"}, "list")

# Bad input: clear errors, exit 2.
for bad in (["show", "nope", "--p", "4"], ["show", "ring", "--p", "0"],
            ["show", "ring", "--p", "4", "--arrivals", "1,2"],
            ["show", "ring", "--p", "4", "--arrivals", "0,nan,0,0"], ["cost", "ring", "--p", "4"],
            ["show", "ring", "--p", "4", "--bogus", "1"], ["frobnicate", "ring"]):
    p = run(*bad, expect=2)
    check("papcoll-sched:" in p.stderr, f"message for {bad}")

print("sched CLI: all checks passed" if not failures else f"sched CLI: {failures} failure(s)")
sys.exit(1 if failures else 0)
