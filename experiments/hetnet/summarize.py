#!/usr/bin/env python3
"""Markdown summary of an experiments/hetnet/run.sh output directory.

usage: summarize.py OUTDIR > OUTDIR/summary.md

Reads OUTDIR/config.txt and, for every OUTDIR/run<r>/p<p>/: layout.txt (rank -> cluster, uplink
rates), model.txt (the measured per-pair model), <op>-<dist>.json and .txt (papcoll-bench).
Prints the measured link speeds against the injected ones and, for every p, operation and counts
distribution, the median time of every algorithm in every run and its reduction against the plain
binomial tree. Figures are the bench's medians over its measured iterations (each iteration's
figure is the average over ranks of the time in the collective); "all runs" is the median of the
per-run medians.
"""
import json
import math
import os
import re
import statistics
import subprocess
import sys

MODEL_BASED = ["binomial-minfirst", "binomial-maxfirst", "traff-model", "auto"]


def rate_mb_s(text):
    """tc rate ('100mbit', '1gbit', '500kbit', '10mbps') -> MB/s (10^6 bytes)."""
    m = re.fullmatch(r"([0-9.]+)\s*([kmgt]?)(bit|bps)", text.strip().lower())
    if not m:
        raise ValueError(f"unknown rate {text!r}")
    scale = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}[m.group(2)]
    value = float(m.group(1)) * scale
    return value / 8e6 if m.group(3) == "bit" else value / 1e6


def read_layout(path):
    uplinks, clusters = [], []
    with open(path) as f:
        for line in f:
            key, _, rest = line.strip().partition(" ")
            if key == "uplinks":
                uplinks = rest.split(",")
            elif key == "clusters":
                clusters = [int(x) for x in rest.split()]
    return uplinks, clusters


def read_model(path):
    links = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 4 and parts[0].isdigit() and parts[1].isdigit():
                links[(int(parts[0]), int(parts[1]))] = (float(parts[2]), float(parts[3]))
    return links


def link_class(i, j, clusters):
    ci, cj = clusters[i], clusters[j]
    return ("intra", ci) if ci == cj else ("inter", min(ci, cj), max(ci, cj))


def class_name(cls):
    if cls[0] == "intra":
        return f"inside cluster {cls[1]}"
    return f"cluster {cls[1]} <-> {cls[2]}"


def injected(cls, uplinks):
    if cls[0] == "intra":
        return None
    return min(rate_mb_s(uplinks[cls[1]]), rate_mb_s(uplinks[cls[2]]))


def fmt(x, digits=1):
    return "-" if x is None else f"{x:.{digits}f}"


def runs_and_ps(out):
    runs = sorted((d for d in os.listdir(out) if re.fullmatch(r"run\d+", d)),
                  key=lambda d: int(d[3:]))
    ps = sorted({int(p[1:]) for r in runs for p in os.listdir(os.path.join(out, r))
                 if re.fullmatch(r"p\d+", p)})
    return runs, ps


def bench_files(out, runs, p):
    tags = set()
    for r in runs:
        d = os.path.join(out, r, f"p{p}")
        if os.path.isdir(d):
            tags |= {f[:-5] for f in os.listdir(d) if f.endswith(".json")}
    order = {"scatterv": 0, "gatherv": 1}
    return sorted(tags, key=lambda t: (order.get(t.split("-")[0], 9), t))


def portions_line(txt_path):
    if not os.path.exists(txt_path):
        return None
    with open(txt_path) as f:
        for line in f:
            if line.startswith("# portions"):
                return line[2:].strip()
    return None


def bench_header(txt_path):
    """(relative portions, total elements, element bytes) from a papcoll-bench text output."""
    weights, total, elem = None, None, None
    sizes = {"float": 4, "int": 4, "double": 8, "long": 8}
    with open(txt_path) as f:
        for line in f:
            if line.startswith("# portions"):
                weights = [float(x) for x in line.split(":")[-1].split()]
            m = re.match(r"## size=\S+ \((\d+) (\w+)", line)
            if m:
                total, elem = int(m.group(1)), sizes.get(m.group(2))
    return weights, total, elem


def proportional_counts(total, weights):
    """papcoll-bench's split (tools/papcoll_bench_counts.cpp): floors, then largest remainders."""
    s = sum(weights)
    exact = [total * w / s for w in weights]
    c = [math.floor(e) for e in exact]
    order = sorted(range(len(weights)), key=lambda i: -(exact[i] - c[i]))  # stable
    k = 0
    while sum(c) < total:
        c[order[k % len(order)]] += 1
        k += 1
    return c


def predictions(binary, op, p, txt_path, model_path, algos):
    """Model-predicted completion (ms, the last rank's) per algorithm, and auto's choice,
    from papcoll-sched with the run's counts and measured model. ({}, None) if unavailable."""
    if not (binary and os.path.exists(binary) and os.path.exists(txt_path)):
        return {}, None
    weights, total, elem = bench_header(txt_path)
    if not weights or not total or not elem:
        return {}, None
    counts = ",".join(map(str, proportional_counts(total, weights)))
    pred, chose = {}, None
    for a in algos:
        if a == "native":
            continue
        r = subprocess.run([binary, "cost", a, "--collective", op, "--p", str(p), "--counts",
                            counts, "--elem-bytes", str(elem), "--model", model_path],
                           capture_output=True, text=True)
        if r.returncode != 0:
            continue
        finish = [float(line.split()[2]) for line in r.stdout.splitlines()
                  if re.fullmatch(r"\d+\s+\S+\s+\S+\s+\S+", line.strip())]
        if finish:
            pred[a] = 1e3 * max(finish)
        m = re.search(r"auto chose (\S+)", r.stderr)
        if m:
            chose = m.group(1)
    return pred, chose


def main():
    out = sys.argv[1]
    runs, ps = runs_and_ps(out)
    print("# hetnet: scatterv/gatherv trees on an emulated heterogeneous network\n")
    print(f"Output of `experiments/hetnet/run.sh` in `{out}` (docs/hetnet.md).\n")
    with open(os.path.join(out, "config.txt")) as f:
        config = f.read()
    print("```\n" + config.rstrip() + "\n```\n")
    m = re.search(r"^binaries: (\S+)", config, re.M)
    sched = os.path.join(m.group(1).strip(), "papcoll-sched") if m else None
    if os.path.exists(os.path.join(out, "failures.txt")):
        with open(os.path.join(out, "failures.txt")) as f:
            print("**Failures:**\n\n```\n" + f.read().rstrip() + "\n```\n")

    # --- the model against the injected rates ---
    print("## Measured link model against the injected rates\n")
    print("Bandwidth = 1/beta of `papcoll-model measure` (MB/s = 10^6 bytes/s), over the ordered "
          "pairs of each class: median (min-max). Injected: the smaller uplink of the two "
          "clusters; inside a cluster nothing is shaped (veth, bounded by the CPU). alpha: half "
          "the round-trip latency, median.\n")
    for p in ps:
        for r in runs:
            d = os.path.join(out, r, f"p{p}")
            if not os.path.exists(os.path.join(d, "model.txt")):
                continue
            uplinks, clusters = read_layout(os.path.join(d, "layout.txt"))
            links = read_model(os.path.join(d, "model.txt"))
            classes = {}
            for (i, j), (alpha, beta) in links.items():
                classes.setdefault(link_class(i, j, clusters), []).append((alpha, beta))
            print(f"**p={p}, {r}** (clusters of ranks 0..{p - 1}: "
                  f"{' '.join(map(str, clusters))}; uplinks {','.join(uplinks)})\n")
            print("| link class | pairs | injected MB/s | measured MB/s | alpha us |")
            print("|---|---:|---:|---:|---:|")
            for cls in sorted(classes, key=lambda c: (c[0] != "intra",) + c[1:]):
                vals = classes[cls]
                bw = [1e-6 / b if b > 0 else float("inf") for _, b in vals]
                al = [a * 1e6 for a, _ in vals]
                inj = injected(cls, uplinks)
                print(f"| {class_name(cls)} | {len(vals)} | {fmt(inj) if inj else 'unshaped'} | "
                      f"{statistics.median(bw):.1f} ({min(bw):.1f}-{max(bw):.1f}) | "
                      f"{statistics.median(al):.0f} |")
            print()

    # --- the benchmark ---
    print("## scatterv and gatherv: median ms per run, reduction against binomial\n")
    print("Each cell: the bench's median over its measured iterations. 'vs binomial' is "
          "1 - t / t_binomial of the all-runs median (negative: slower). 'per run' gives the "
          "range of the per-run reductions. 'predicted': the Hockney prediction with the "
          "first run's measured model (papcoll-sched cost; the last rank's completion, while the "
          "bench averages over ranks), the figure `auto` ranks the trees by.\n")
    verdicts = []
    for p in ps:
        for tag in bench_files(out, runs, p):
            per_run = {}
            algos = []
            correct = {}
            for r in runs:
                path = os.path.join(out, r, f"p{p}", tag + ".json")
                if not os.path.exists(path):
                    continue
                with open(path) as f:
                    doc = json.load(f)
                for res in doc["results"]:
                    a = res["algorithm"]
                    if a not in algos:
                        algos.append(a)
                    per_run.setdefault(a, {})[r] = res["median_ms"]
                    correct[a] = correct.get(a, True) and bool(res["correct"])
            present = [r for r in runs if any(r in v for v in per_run.values())]
            portions = portions_line(os.path.join(out, present[0], f"p{p}", tag + ".txt"))
            op, _, dist = tag.partition("-")
            dist = re.sub(r"^ratio(?=[0-9])", "ratio:", dist)
            d0 = os.path.join(out, present[0], f"p{p}")
            pred, chose = predictions(sched, op, p, os.path.join(d0, tag + ".txt"),
                                      os.path.join(d0, "model.txt"), algos)
            print(f"### {op}, p={p}, {dist}\n")
            if portions:
                print(f"{portions}\n")
            choices = []
            for r in present:
                d = os.path.join(out, r, f"p{p}")
                c = chose if r == present[0] else predictions(
                    sched, op, p, os.path.join(d, tag + ".txt"), os.path.join(d, "model.txt"),
                    ["auto"])[1]
                choices.append(f"{c or '?'} ({r})")
            if any(not c.startswith("?") for c in choices):
                print(f"auto chose, with each run's measured model: {', '.join(choices)}\n")
            head = ("| algorithm | " + " | ".join(present) +
                    " | all runs | vs binomial | per run | predicted | correct |")
            print(head)
            print("|---" * (len(present) + 6) + "|")

            def overall(a):
                vals = [v for v in per_run.get(a, {}).values() if v is not None]
                return statistics.median(vals) if vals else None

            def reductions(a):
                out_ = []
                for r in present:
                    b = per_run.get("binomial", {}).get(r)
                    t = per_run.get(a, {}).get(r)
                    if b and t is not None:
                        out_.append(1 - t / b)
                return out_

            base = overall("binomial")
            for a in algos:
                cells = [fmt(per_run[a].get(r), 2) for r in present]
                t = overall(a)
                red = f"{100 * (1 - t / base):+.0f}%" if base and t is not None else "-"
                rr = reductions(a)
                rng = f"{100 * min(rr):+.0f}..{100 * max(rr):+.0f}%" if rr else "-"
                print(f"| {a} | " + " | ".join(cells) +
                      f" | {fmt(t, 2)} | {red} | {rng} | {fmt(pred.get(a), 2)} | "
                      f"{'yes' if correct[a] else 'NO'} |")
            print()
            best = None
            for a in MODEL_BASED:
                rr = reductions(a)
                if rr and (best is None or min(rr) > best[1]):
                    best = (a, min(rr), 1 - overall(a) / base)
            if best:
                verdicts.append((op, p, dist, best))

    print("## Done-when check: best model-based tree against binomial\n")
    print("Model-based: binomial-minfirst, binomial-maxfirst, traff-model, auto. The tree with the "
          "largest reduction in its worst run; the target is at least 25% in every run.\n")
    print("| op | p | counts | tree | reduction (all runs) | worst run | >= 25% every run |")
    print("|---|---:|---|---|---:|---:|---|")
    for op, p, dist, (a, worst, allruns) in verdicts:
        print(f"| {op} | {p} | {dist} | {a} | {100 * allruns:.0f}% | {100 * worst:.0f}% | "
              f"{'yes' if worst >= 0.25 else 'no'} |")


if __name__ == "__main__":
    main()
