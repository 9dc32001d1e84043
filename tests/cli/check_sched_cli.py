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
check(s["format"] == "papcoll-schedule/2" and s["collective"] == "allreduce", "schedule header")
check(s["algorithm"] == "prr" and s["p"] == 8 and s["root"] is None and s["blocks"] == 8, "fields")
check(len(s["ranks"]) == 8 and all(r["rank"] == i for i, r in enumerate(s["ranks"])), "ranks")
for r in s["ranks"]:
    for st in r["steps"]:
        for op in st["ops"]:
            check(op["kind"] in ("send", "recv"), "op kind")
            check(("combine" in op) == (op["kind"] == "recv"), "combine only on receives")

check(all("paced_bytes" not in r and not any(op.get("paced") for st in r["steps"]
                                              for op in st["ops"]) for r in s["ranks"]),
      "PRR paces nothing")
# late-fold paces its first phase (docs/schedule-format.md, paced): the sends of every rank's
# rounds below one round, and no receive; the size they are synchronous from is alpha / beta.
lf = json.loads(run("show", "late-fold", "--p", "8", "--arrivals", "0,0.05,0,0,0,0,0,0",
                    "--alpha", "22us", "--beta", "8e-9", "--format", "json").stdout)
paced_rounds = {st["round"] for r in lf["ranks"] for st in r["steps"]
                for op in st["ops"] if op.get("paced")}
check(len(paced_rounds) > 0 and all(op["kind"] == "send" for r in lf["ranks"]
                                    for st in r["steps"] for op in st["ops"] if op.get("paced")),
      "late-fold paces sends only")
until = max(paced_rounds) + 1
check(all(op.get("paced", False) == (op["kind"] == "send" and st["round"] < until)
          for r in lf["ranks"] for st in r["steps"] for op in st["ops"]),
      f"late-fold paces every send below round {until} and none after")
check({r.get("paced_bytes") for r in lf["ranks"] if any(op.get("paced") for st in r["steps"]
                                                        for op in st["ops"])} == {2750},
      "late-fold's paced sends synchronous from alpha / beta = 2750 bytes")

# On one node late-fold is flat in arrival order (docs/algorithms.md, "One node"): every rank but
# the root sends its whole buffer once, the root reduces them in arrival order (ties by rank).
flat = json.loads(run("show", "late-fold", "--collective", "reduce", "--p", "4", "--blocks", "8",
                      "--arrivals", "0,0.02,0,0", "--one-node", "1", "--format", "json").stdout)
ops = {r["rank"]: [op for st in r["steps"] for op in st["ops"]] for r in flat["ranks"]}
check([(op["kind"], op["peer"]) for op in ops[0]] == [("recv", 2), ("recv", 3), ("recv", 1)],
      f"flat root {ops[0]}")
check(all([(op["kind"], op["peer"], len(op["blocks"])) for op in ops[r]] == [("send", 0, 8)]
          for r in (1, 2, 3)), "flat senders")
run("verify", "late-fold", "--p", "1..12", "--one-node", "1", "--random-arrivals", "3")
run("show", "prr", "--p", "4", "--one-node", "2", expect=2)

# The paper's worked example (Proficz, Figs. 6 and 8): PRR, p=4, rank 0 two tau late, every
# message one tau.
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

# Reduce: the collective is inferred for names only reduce has; every reduce generator
# verifies for every root; Clairvoyant's implementations give the same schedule.
s = json.loads(run("show", "clairvoyant", "--p", "4", "--blocks", "4", "--arrivals", "0,0,0,1.1",
                   "--round-time", "1", "--root", "0", "--format", "json").stdout)
check(s["collective"] == "reduce" and s["algorithm"] == "clairvoyant" and s["root"] == 0, "clv header")
r0 = [op for st in s["ranks"][0]["steps"] for op in st["ops"]]
check({"kind": "recv", "peer": 1, "blocks": [0], "combine": "reduce"} == r0[0], f"Sect. 4.2 example {r0[:2]}")
shows = [run("show", "clairvoyant", "--p", "12", "--arrivals", ",".join(str(0.3 * i % 2) for i in range(12)),
             "--round-time", "0.25", "--root", "5", "--impl", impl, "--format", "json").stdout
         for impl in ("linear", "pairing", "segtree")]
check(shows[0] == shows[1] == shows[2], "clairvoyant implementations agree")
out = run("verify", "all", "--collective", "reduce", "--p", "1..12", "--root", "all",
          "--random-arrivals", "2", "--blocks", "1..3").stdout
check(out.startswith("ok: "), "verify all reduce, all roots")
out = run("verify", "clairvoyant", "--p", "1..40", "--random-arrivals", "3", "--round-time", "1e-5").stdout
check(out.startswith("ok: "), "verify clairvoyant")
c = json.loads(run("cost", "clairvoyant", "--p", "4", "--blocks", "4", "--arrivals", "0,0,0,1.1",
                   "--round-time", "1", "--alpha", "1", "--beta", "0", "--bytes", "4", "--format", "json").stdout)
check(len(c["ranks"]) == 4 and c["ranks"][3]["arrival"] == 1.1, "clairvoyant cost")
check({"clairvoyant", "radix-k", "binomial"} <= set(run("list").stdout.split()), "reduce in list")
b = json.loads(run("bench", "clairvoyant", "--p", "4..16", "--runs", "2", "--json").stdout)
check(len(b["results"]) == 3 * 3 * 2 and b["identical"] is True, "bench results")
check(all({"impl", "p", "blocks", "dist", "runs", "mean_ms", "bits_per_pair"} <= set(x) for x in b["results"]),
      "bench keys")
check({"linear/segtree", "pairing/segtree"} <= set(b["ratios"][0]), "bench ratios")
b = json.loads(run("bench", "clairvoyant", "--p", "32", "--blocks", "8", "--dist", "skewed", "--runs", "1",
                   "--impl", "segtree", "--json").stdout)
check([(x["impl"], x["p"], x["blocks"], x["dist"]) for x in b["results"]] == [("segtree", 32, 8, "skewed")],
      "bench one cell")
for bad in (["show", "clairvoyant", "--p", "4", "--impl", "fast"],
            ["show", "clairvoyant", "--p", "4", "--root", "4"],
            ["show", "clairvoyant", "--p", "4", "--round-time", "0"],
            ["show", "ring", "--p", "4", "--impl", "linear"],
            ["bench", "clairvoyant", "--runs", "2"],
            ["bench", "clairvoyant", "--p", "8", "--dist", "normal"]):
    p = run(*bad, expect=2)
    check("papcoll-sched:" in p.stderr, f"message for {bad}")

# library: the MPI library's algorithm and the model's time (docs/papcoll-sched.md, "library"):
# SMPI's ompi selector runs rab_rdb for 1M floats at 48 ranks, 121.2 ms in the simulation.
lib = json.loads(run("library", "allreduce", "--p", "48", "--bytes", "4194304", "--library",
                     "smpi-ompi", "--alpha", "22e-6", "--beta", "8e-9", "--format", "json").stdout)
check(lib["algorithm"] == "rab_rdb" and abs(lib["balanced_s"] - 0.1212) < 0.002, f"library {lib}")
late = json.loads(run("library", "allreduce", "--p", "48", "--bytes", "4194304", "--library",
                      "smpi-ompi", "--alpha", "22e-6", "--beta", "8e-9", "--late", "1:0.05",
                      "--format", "json").stdout)
check(late["predicted_s"] > late["balanced_s"] + 0.04, f"library one late {late}")
text = run("library", "reduce", "--p", "48", "--bytes", "16384", "--library", "smpi-ompi").stdout
check("ompi_binomial in segments of 1024 bytes" in text, f"library text {text!r}")
for bad in (["library"], ["library", "alltoall", "--p", "4", "--bytes", "8"],
            ["library", "bcast", "--p", "4"], ["library", "bcast", "--p", "4", "--bytes", "8",
                                                "--library", "intel"],
            ["library", "bcast", "--p", "4", "--bytes", "8", "--late", "4:1"]):
    p = run(*bad, expect=2)
    check("papcoll-sched: library:" in p.stderr, f"message for {bad}")

# auto: the verdict auto takes in SMPI on opa-32x32 with one rank 1 ms late, from what the run
# measured once per communicator (docs/papcoll-sched.md, "auto"; selection_test.cpp has the same
# inputs): the node exchange's copies side by side, two-level-rsag; queued on each rank's port,
# the library's collective. Without a timed exchange two-level-rsag is not costed there.
OPA = ["auto", "allreduce", "--p", "1024", "--bytes", "4194304", "--library", "smpi-ompi",
       "--alpha", "1e-6", "--beta", "8e-11", "--gamma", "1e-12", "--nodes", "32",
       "--intra-alpha", "6.45e-6", "--intra-beta", "1.26e-10", "--late", "1:0.001",
       "--step-overhead", "19.2e-6", "--format", "json"]
side = json.loads(run(*OPA, "--exchange", "9.21e-6,1.33e-11").stdout)
check(side["auto"] == "two-level-rsag" and side["why"] == "aware" and side["gain"] > 0.02,
      f"auto, opa-32x32 side by side {side}")
rows = {r["algorithm"]: r for r in side["estimates"]}
check(rows["two-level-rsag"]["weighed"] and not rows["relay-fold"]["weighed"] and rows["relay-fold"]["estimate_s"] is None
      and abs(rows["two-level-rsag"]["estimate_s"] - side["best_aware_s"]) < 1e-9,
      f"auto estimates {rows}")
queued = json.loads(run(*OPA, "--exchange", "9.04e-6,6.72e-11").stdout)
check(queued["auto"] == "native" and queued["best_aware_s"] > side["best_aware_s"],
      f"auto, opa-32x32 queued {queued}")
untimed = json.loads(run(*OPA).stdout)
check(untimed["auto"] == "native" and untimed["best_aware"] != "two-level-rsag",
      f"auto, opa-32x32 untimed {untimed}")
text = run("auto", "bcast", "--p", "48", "--bytes", "16384", "--alpha", "22e-6", "--beta",
           "8e-9", "--late", "3:0.05").stdout
check(text.startswith("auto bcast p=48 bytes=16384 (generic): ") and "estimates" in text,
      f"auto text {text!r}")
for bad in (["auto"], ["auto", "scatterv", "--p", "4", "--bytes", "8"],
            ["auto", "allreduce", "--p", "4", "--bytes", "8", "--exchange", "1e-6"],
            ["auto", "allreduce", "--p", "4", "--bytes", "8", "--step-overhead", "-1"],
            ["auto", "allreduce", "--p", "4", "--bytes", "8", "--blocks", "0"]):
    p = run(*bad, expect=2)
    check("papcoll-sched: auto:" in p.stderr, f"message for {bad}")

print("sched CLI: all checks passed" if not failures else f"sched CLI: {failures} failure(s)")
sys.exit(1 if failures else 0)
