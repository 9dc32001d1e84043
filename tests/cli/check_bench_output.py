#!/usr/bin/env python3
"""papcoll-bench's pasteable output (docs/papcoll-bench.md, "Verdict", "CSV"): one verdict line
per papcoll row when native ran, the same figures in the JSON's verdicts and in the CSV, what auto
ran, and --algo all.
usage: check_bench_output.py PAPCOLL_BENCH MPIEXEC [MPIRUN FLAGS...]"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

tool, mpiexec, flags = sys.argv[1], sys.argv[2], sys.argv[3:]
failures = 0


def run(np, *args, expect=0):
    global failures
    cmd = [mpiexec, *flags, "-x", "PAPCOLL_CALIBRATION", "-np", str(np), tool, *args]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, PAPCOLL_CALIBRATION="off"))
    except subprocess.TimeoutExpired:
        failures += 1
        print(f"FAIL: -np {np} {' '.join(args)} did not finish in 120 s (hang?)")
        return subprocess.CompletedProcess(cmd, -1, "", "")
    if p.returncode != expect:
        failures += 1
        print(f"FAIL: -np {np} {' '.join(args)} exited {p.returncode}, expected {expect}\n"
              f"{p.stdout[-3000:]}{p.stderr[-3000:]}")
    return p


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", what)


def close(a, b, rel=1e-6):
    return a is not None and b is not None and abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


LINE = re.compile(
    r"^verdict (?P<case>\S+ \S+ \S+(?: \S+ms)? \S+): (?P<algo>\S+)(?: \((?P<ran>[^)]*)\))? "
    r"(?P<ratio>\d+\.\d\d)x native, (?P<word>faster|slower|within noise) "
    r"\(95% CI (?P<lo>\d+\.\d\d)-(?P<hi>\d+\.\d\d), (?P<n>\d+) paired iterations; "
    r"mean (?P<a>\S+) vs (?P<b>\S+) ms; P/delta (?P<pa>-?\d+\.\d\d) vs (?P<pb>-?\d+\.\d\d)\)$")

with tempfile.TemporaryDirectory() as d:
    js, cs = os.path.join(d, "r.json"), os.path.join(d, "r.csv")
    p = run(4, "--algo", "ring,auto,native", "--pat", "oracle,none", "--size", "64K",
            "--mode", "one-late", "--max-delay", "5ms", "--compute-ms", "2", "--iters", "6",
            "--warmup", "1", "--quiet", "--json", js, "--csv", cs)
    lines = [l for l in p.stdout.splitlines() if l.startswith("verdict ")]
    check(len(lines) == 4, f"{len(lines)} verdict lines, want ring and auto for two pats:\n{p.stdout}")
    if p.returncode == 0:
        doc = json.load(open(js))
        verdicts, results = doc["verdicts"], doc["results"]
        check([v["text"] for v in verdicts] == lines, "JSON verdict texts are the printed lines")
        rows = list(csv.DictReader(open(cs)))
        check(len(rows) == len(results) == 6, f"{len(rows)} CSV rows, {len(results)} results")
        for v, line in zip(verdicts, lines):
            m = LINE.match(line)
            check(m is not None, f"verdict line format: {line}")
            if m is None:
                continue
            what = f"{v['algorithm']}/{v['pat']}"
            check(m["case"] == f"allreduce 64K one-late 5ms {v['pat']}", f"{what}: case {m['case']}")
            check(m["algo"] == v["algorithm"] and int(m["n"]) == v["paired_iters"] == 6, what)
            row = next(r for r in results if r["algorithm"] == v["algorithm"] and r["pat"] == v["pat"])
            nat = next(r for r in results if r["algorithm"] == "native" and r["pat"] == v["pat"])
            # The ratio of means over the paired iterations (all six completed here).
            ratio = sum(row["samples_ms"]) / sum(nat["samples_ms"])
            check(close(v["ratio"], ratio), f"{what}: ratio {v['ratio']} vs samples {ratio}")
            check(close(v["mean_elapsed_ms"], row["mean_elapsed_ms"]) and
                  close(v["baseline_mean_elapsed_ms"], nat["mean_elapsed_ms"]), f"{what}: means")
            check(close(v["post_arrival_over_delta"], row["post_arrival_over_delta"]), f"{what}: P/delta")
            check(v["ratio_ci_low"] <= v["ratio"] <= v["ratio_ci_high"], f"{what}: interval {v}")
            word = ("faster" if v["ratio_ci_high"] < 1 else "slower" if v["ratio_ci_low"] > 1
                    else "within noise")
            check(v["verdict"] == word == m["word"], f"{what}: verdict {v['verdict']} / {m['word']}")
            check(f"{v['ratio']:.2f}" == m["ratio"], f"{what}: printed ratio {m['ratio']}")
            # What papcoll ran: the row's own name for ring, auto's pick (a registry name) for auto.
            ran = row["ran_algorithms"]
            check(sum(ran.values()) == 6, f"{what}: ran {ran}")
            if v["algorithm"] == "ring":
                check(ran == {"ring": 6} and m["ran"] is None and v["ran"] == "ring", f"ring ran {ran}")
            else:
                check(m["ran"] is not None and "auto" not in ran, f"auto ran {ran}, line {line}")
            c = next(r for r in rows if r["algorithm"] == v["algorithm"] and r["pat"] == v["pat"])
            check(c["verdict"] == v["verdict"] and close(float(c["ratio_vs_native"]), v["ratio"], 1e-8)
                  and c["ran"] == v["ran"] and int(c["paired_iters"]) == 6, f"{what}: CSV {c}")
            check(close(float(c["mean_ms"]), row["mean_elapsed_ms"], 1e-8) and
                  close(float(c["P_ms"]), row["post_arrival_ms"], 1e-8), f"{what}: CSV stats {c}")
        # The links inside a node papcoll runs with (PAPCOLL_CALIBRATION=off: none known, 0).
        cfg = doc["config"]
        check(cfg["network_intra_alpha_s"] == 0 and cfg["network_intra_beta_s_per_byte"] == 0,
              f"intra links {cfg['network_intra_alpha_s']}, {cfg['network_intra_beta_s_per_byte']}")
        # What each row's schedules were weighed and sized with beyond alpha and beta
        # (papcoll_last_executor_costs); nothing for the library's collective.
        for r in results:
            ec = r["executor_costs"]
            check(set(ec) == {"step_overhead_s", "exchange_alpha_s", "exchange_beta_s_per_byte"}
                  and all(v >= 0 for v in ec.values()), f"executor costs {ec}")
            if r["algorithm"] == "native":
                check(all(v == 0 for v in ec.values()), f"native executor costs {ec}")
        # The same figures under the table, once, where some papcoll row timed them (not here, on
        # one node whose ranks share cores: then no line).
        timed = [r["executor_costs"] for r in results if any(v > 0 for v in r["executor_costs"].values())]
        printed = [l for l in p.stdout.splitlines() if l.startswith("# executor costs")]
        if timed:
            check(len(printed) == 1 and
                  f"step overhead {timed[0]['step_overhead_s'] * 1e6:.2f} us" in printed[0],
                  f"executor costs line {printed}, timed {timed[0]}")
        else:
            check(printed == [], f"executor costs line without costs: {printed}")
        for c in rows:
            if c["algorithm"] == "native":
                check(c["verdict"] == "" and c["ran"] == "" and c["correct"] == "yes", f"native CSV {c}")

    # No native row: no verdicts, empty verdict cells.
    p = run(2, "--algo", "ring", "--size", "1K", "--iters", "2", "--warmup", "0", "--quiet",
            "--max-delay", "1ms", "--compute-ms", "0", "--json", js, "--csv", cs)
    check("verdict " not in p.stdout, "a verdict without native")
    if p.returncode == 0:
        check(json.load(open(js))["verdicts"] == [], "verdicts without native")
        check(list(csv.DictReader(open(cs)))[0]["verdict"] == "", "CSV verdict without native")

    # Fewer than 5 paired iterations: the ratio, but no interval and no claim.
    p = run(2, "--algo", "ring,native", "--size", "1K", "--iters", "2", "--warmup", "0",
            "--quiet", "--max-delay", "1ms", "--compute-ms", "0")
    check(re.search(r"verdict .*: ring \d+\.\d\dx native, too few iterations \(2 paired", p.stdout),
          "too few iterations: " + p.stdout)

    # --algo all: the registry's names, then auto and native.
    p = run(2, "--op", "reduce", "--algo", "all", "--size", "1K", "--iters", "1", "--warmup", "0",
            "--quiet", "--mode", "none", "--compute-ms", "0", "--json", js)
    if p.returncode == 0:
        algos = json.load(open(js))["config"]["algorithms"]
        check(algos[-2:] == ["auto", "native"] and {"clairvoyant", "binomial", "ring"} <= set(algos)
              and len(set(algos)) == len(algos), f"--algo all: {algos}")
    e = run(1, "--algo", "all,ring", expect=2).stderr
    check("--algo: 'all' takes no other names" in e, e)
    e = run(1, "--csv", os.path.join(d, "no", "such", "dir.csv"), expect=2).stderr
    check("--csv: cannot write" in e, e)

print("papcoll-bench output:", "OK" if failures == 0 else f"{failures} failures")
sys.exit(1 if failures else 0)
