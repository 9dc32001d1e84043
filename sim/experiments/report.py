#!/usr/bin/env python3
"""Writes docs/results.md and docs/results/*.png from the experiment JSON under sim/results/:
for each experiment the full run (sim/results/full/NAME.json) if there is one, else the quick
one. The cost-model predictions in the all-reduce discussion come from build-smpi/bin/
papcoll-sched (an ordinary program) when it exists.

  /usr/bin/python3 sim/experiments/report.py [--results DIR] [--out docs/results.md]
  /usr/bin/python3 sim/experiments/report.py --section NAME   (one experiment's section, to stdout)
"""
import argparse
import json
import os
import subprocess
import sys

from common import ROOT, rows_of, slowest_rank_ms
from plots import PLOTTERS, size_label

EXPERIMENTS = ("allreduce", "reduce", "bcast", "arrival", "scatter_gather", "late_fold", "nodes",
               "scale")


def load(results_dir):
    docs = {}
    for name in EXPERIMENTS:
        for mode in ("full", "quick"):
            path = os.path.join(results_dir, mode, name + ".json")
            if os.path.exists(path):
                with open(path) as f:
                    docs[name] = json.load(f)
                docs[name]["_path"] = os.path.relpath(path, ROOT)
                break
    return docs


def fmt(v, digits=1):
    return "-" if v is None else f"{v:.{digits}f}"


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def mean_of(rows, metric=None, **match):
    for r in rows:
        if all(r.get(k) == v for k, v in match.items()):
            return metric(r) if metric else r.get("mean_elapsed_ms")
    return None


# Notes and goals recorded before the docs stopped citing tracker numbers name them; rendered,
# they say what was meant (the JSON under sim/results stays as it was recorded).
RECORDED_TRACKER_REFS = (
    ("issue #18: ", 'docs/algorithms.md "late-fold": '),
    ("(issue #19's fallback)", "(the fallback planned for when 1024 ranks take too long)"),
)


def recorded_text(s):
    for old, new in RECORDED_TRACKER_REFS:
        s = s.replace(old, new)
    return s


def source_line(doc):
    runs = doc["runs"]
    sims = sum(r["wall_s"] for r in runs)
    bad = [r for r in runs if r["rc"] != 0]
    s = (f"Data: `{doc['_path']}` ({doc['mode']} mode, {len(runs)} simulations, "
         f"{sims:.0f} s of simulation wall time on a shared 2-core VM, started {doc['started']})")
    if bad:
        s += f"; **{len(bad)} simulation(s) failed**: " + "; ".join(
            f"`{r['command']}` rc={r['rc']}" for r in bad)
    if any(r.get("correct") is False for run in runs for r in run["rows"]):
        s += "; **some results were incorrect**"
    return s + "."


def cost_model(algo, p, nbytes, alpha, beta, late_s=None, tau=None):
    """Mean elapsed time (ms) that papcoll's cost model predicts, or None."""
    # papcoll-sched needs no MPI: the SMPI build's or the main build's (the same code).
    sched = next((s for s in (os.path.join(ROOT, d, "bin", "papcoll-sched")
                              for d in ("build-smpi", "build")) if os.access(s, os.X_OK)), None)
    if sched is None:
        return None
    cmd = [sched, "cost", algo, "--p", str(p), "--bytes", str(nbytes), "--alpha", repr(alpha),
           "--beta", repr(beta), "--format", "json"]
    if late_s:
        cmd += ["--arrivals", ",".join(repr(late_s) if i == 1 else "0" for i in range(p))]
    if tau:
        cmd += ["--tau", repr(tau)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True)
        return json.loads(out.stdout)["mean_elapsed"] * 1e3
    except (OSError, subprocess.SubprocessError, ValueError, KeyError):
        return None


# ----------------------------------------------------------------------------------- all-reduce

def allreduce_section(doc, png):
    P = doc["paper"]
    t3 = P["table3"]
    rows = rows_of(doc, "table3")
    out = ["## All-reduce (Proficz, Tables 3 and 4, Fig. 12)", "", source_line(doc), ""]
    if doc.get("notes"):
        out += ["Notes: " + "; ".join(recorded_text(n) for n in doc["notes"]) + ".", ""]
    delays = sorted({r["max_delay_ms"] for r in rows})
    variants = [v for v in ("ring", "rabenseifner", "slt", "prr", "slt+tau", "prr+tau", "native")
                if any(r["variant"] == v for r in rows)]
    if rows:
        # calibration
        ring0 = mean_of(rows, variant="ring", max_delay_ms=0)
        net = rows_of(doc, "netonly")
        ring_net = mean_of(net, algorithm="ring", p=48)
        out += ["### Calibration: ring, 48 ranks, 1M floats, no delay", "",
                table(["", "mean elapsed (ms)", "vs paper's 67.8 ms"],
                      [[f"simulated, network only{'' if ring_net else ' (full run only)'}",
                        fmt(ring_net, 2), f"{(ring_net / 67.8 - 1) * 100:+.1f}%" if ring_net else "-"],
                       ["simulated, papcoll's computation charged 1:1", fmt(ring0, 2),
                        f"{(ring0 / 67.8 - 1) * 100:+.1f}%" if ring0 else "-"]]),
                "", "Within 10% of the paper's 67.8 ms, as required: the platform's latency was "
                "fitted on this one number (sim/platforms/README.md); every other figure below is "
                "a prediction.", ""]
        # Table 3 side by side
        hdr = ["algorithm", ""] + [f"{d:g} ms" for d in delays]
        trows = []
        for v in variants:
            base = v.split("+")[0]
            if base in t3["mean_ms"] and "+" not in v:
                pv = dict(zip(t3["delays_ms"], t3["mean_ms"][base]))
                pr = dict(zip(t3["delays_ms"], t3["mean_ms"]["ring"]))
                trows.append([v, "paper"] + [
                    f"{pv[d]:.1f} ({pr[d] / pv[d]:.2f})" if d in pv else "-" for d in delays])
            cells = []
            for d in delays:
                m, ring = mean_of(rows, variant=v, max_delay_ms=d), mean_of(rows, variant="ring",
                                                                            max_delay_ms=d)
                cells.append(f"{m:.1f} ({ring / m:.2f})" if m and ring else fmt(m))
            trows.append([v if "+" in v or base not in t3["mean_ms"] else "", "sim"] + cells)
        out += ["### Table 3: 48 ranks, 1M floats, one late rank", "",
                "Mean elapsed time in ms (speed-up over the ring in brackets). `native` is SMPI's "
                "MPI_Allreduce with Open MPI's selection logic (`smpi/coll-selector:ompi`); "
                "`+tau` rows ran with the platform's Hockney parameters given to papcoll "
                "(`--alpha 22e-6 --beta 8e-9`), the others with papcoll's defaults.", "",
                table(hdr, trows), "", f"![Table 3]({png}/allreduce_table3.png)", ""]
    out += prr_discussion(doc, rows)
    out += rabenseifner_discussion(doc)
    t4 = rows_of(doc, "table4")
    if t4:
        sizes = sorted({r["count"] for r in t4})
        delays4 = sorted({r["max_delay_ms"] for r in t4})
        hdr = ["size (floats)", ""] + [f"{d:g} ms" for d in delays4]
        trows = []
        noisy = []
        pd = P["table4"]
        for c in sizes:
            key = str(c // 1024)
            if key in pd["diff_ms"]:
                pm = dict(zip(pd["delays_ms"], zip(pd["diff_ms"][key], pd["speedup"][key])))
                trows.append([size_label(c), "paper"] + [
                    f"{pm[d][0]:+.1f} ({pm[d][1]:.2f})" if d in pm else "-" for d in delays4])
            for v in ("prr", "prr+tau"):
                cells = []
                for d in delays4:
                    a = mean_of(t4, variant=v, count=c, max_delay_ms=d)
                    b = mean_of(t4, variant="ring", count=c, max_delay_ms=d)
                    mark = ""
                    for vv in (v, "ring"):
                        r = next((r for r in t4 if r["variant"] == vv and r["count"] == c
                                  and r["max_delay_ms"] == d), None)
                        if r and r.get("stddev_ms") and r["mean_elapsed_ms"] and \
                                r["stddev_ms"] > 0.05 * r["mean_elapsed_ms"]:
                            mark = "*"
                            note = (f"{size_label(c)} at {d:g} ms: {vv} mean "
                                    f"{r['mean_elapsed_ms']:.1f} ms, median {r['median_ms']:.1f}, "
                                    f"min {r['min_ms']:.1f}, max {r['max_ms']:.1f}")
                            if note not in noisy:
                                noisy.append(note)
                    cells.append(f"{a - b:+.1f} ({b / a:.2f}){mark}" if a and b else "-")
                if any(c_ != "-" for c_ in cells):
                    trows.append(["", "sim " + v] + cells)
        out += ["### Table 4: PRR against the ring, 48 ranks, one late rank", "",
                "e_PRR - e_ring in ms (speed-up e_ring / e_PRR in brackets). The simulated "
                "rows: `prr` with papcoll's default Hockney parameters, `prr+tau` with the "
                "platform's (see PRR at 10 and 50 ms below).", "",
                table(hdr, trows), ""]
        if noisy:
            out += ["\\* a standard deviation over 5% of the mean in one of the two rows (few "
                    "iterations; single slow iterations come from the computation charged from "
                    "the host's CPU, e.g. first touches of the large buffers): " +
                    "; ".join(noisy) + ".", ""]
        out += [f"![Table 4]({png}/allreduce_table4.png)", ""]
        dmax = max(delays4)
        diffs = []
        for c in sizes:
            a = mean_of(t4, variant="prr+tau", count=c, max_delay_ms=dmax)
            b = mean_of(t4, variant="ring", count=c, max_delay_ms=dmax)
            if a and b:
                diffs.append((c, a - b))
        if len(diffs) >= 2 and str(diffs[0][0] // 1024) in pd["diff_ms"] and \
                str(diffs[-1][0] // 1024) in pd["diff_ms"] and dmax in pd["delays_ms"]:
            i = pd["delays_ms"].index(dmax)
            out += [TABLE4_TEXT.format(
                d=f"{dmax:g}", s0=size_label(diffs[0][0]), s1=size_label(diffs[-1][0]),
                a0=diffs[0][1], a1=diffs[-1][1], p0=pd["diff_ms"][str(diffs[0][0] // 1024)][i],
                p1=pd["diff_ms"][str(diffs[-1][0] // 1024)][i]), ""]
    f12 = rows_of(doc, "fig12")
    if f12:
        ps = sorted({r["p"] for r in f12})
        vs = [v for v in ("ring", "rabenseifner", "slt", "prr", "prr+tau", "native")
              if any(r["variant"] == v for r in f12)]
        trows = []
        for v in vs:
            trows.append([v] + [fmt(mean_of(f12, variant=v, p=p)) for p in ps])
        out += ["### Fig. 12: scaling, 1M floats, one rank 100 ms late", "",
                "Mean elapsed time (ms) per number of ranks (gige-48 up to 48, gige-128 above). "
                "The paper gives only the figure: " + P["fig12"], "",
                table(["algorithm"] + [f"p={p}" for p in ps], trows), "",
                f"![Fig. 12]({png}/allreduce_fig12.png)", ""]
        sp = []
        for p in ps:
            a, b = mean_of(f12, variant="prr+tau" if "prr+tau" in vs else "prr", p=p), \
                mean_of(f12, variant="ring", p=p)
            if a and b:
                sp.append((p, b / a))
        pow2 = [p for p in ps if p & (p - 1) == 0]
        if sp:
            inside = [x for p, x in sp if p <= 48]
            out += [FIG12_TEXT.format(
                lo=min(inside), hi=max(inside), pow2=", ".join(map(str, pow2)),
                last=sp[-1][0], lastsp=sp[-1][1]), ""]
    sc = rows_of(doc, "scale")
    if sc:
        ps = sorted({r["p"] for r in sc})
        vs = [v for v in ("ring", "prr", "slt", "native") if any(r["variant"] == v for r in sc)]
        walls = {run["np"]: run["wall_s"] for run in doc["runs"] if run["part"] == "scale"}
        trows = []
        for p in ps:
            ring = mean_of(sc, variant="ring", p=p)
            cells = [str(p)]
            for v in vs:
                m = mean_of(sc, variant=v, p=p)
                cells.append(fmt(m) + (f" ({ring / m:.3f})" if m and ring and v != "ring" else ""))
            cells.append(f"{walls.get(p, 0) / 60:.0f} min")
            trows.append(cells)
        out += ["### Scaling beyond the paper: 128 to 1024 ranks", "",
                "1M floats, one rank 100 ms late, papcoll's computation charged, the platform's "
                "Hockney parameters given to papcoll; mean elapsed time in ms (speed-up over the "
                "ring in brackets) and the simulation's wall time on the shared 2-core VM. Each "
                "rank builds only its own steps of a call's schedule (docs/algorithms.md, "
                "\"Per-rank generation\"); from 512 ranks the buffers are folded by SimGrid and "
                "results are not checked (docs/smpi.md, \"Scale\").", "",
                table(["ranks"] + vs + ["simulation wall time"], trows), ""]
    ex = doc.get("existing_1024")
    if ex:
        trows = [[e["op"], e["what"], ", ".join(f"{k} {v:g} ms" for k, v in e["results_ms"].items()),
                  f"{e['sim_wall_s']} s"] for e in ex]
        out += ["### 1024 simulated ranks", "",
                "Runs by hand on `gige-1024` (docs/smpi.md, \"1024 simulated ranks\"; 2 measured "
                "iterations after 1 warm-up, `smpi/coll-selector:ompi`), made when every "
                "simulated rank still generated the whole schedule, which ruled out ring, PRR and "
                "SLT there (about 1 TB and a day of CPU); the previous section has them now.", "",
                table(["op", "case", "mean elapsed", "simulation wall time"], trows), ""]
    return out


TABLE4_TEXT = """\
With the platform's tau (`prr+tau`) the simulated PRR has the pattern of the paper's Table 4: a
few ms slower than the ring for delays up to 5 ms, faster from 10 to 50 ms on, and savings that
grow with the message size (at {d} ms: {a0:+.1f} ms at {s0} to {a1:+.1f} ms at {s1}; paper
{p0:+.1f} to {p1:+.1f}). Small messages gain less than in the paper because PRR's per-call
schedule generation (about 5 ms at 48 ranks, charged as computation) is a large part of a 128K
all-reduce. With papcoll's default parameters (`prr`) PRR loses heavily between 5 and 100 ms,
the more so the larger the message: the mis-planned pre-reduction of the next section."""

FIG12_TEXT = """\
Up to 48 ranks the simulation has the paper's shape: PRR (and SLT) keep a stable speed-up over
the ring ({lo:.2f} to {hi:.2f} for PRR), and Rabenseifner, like SMPI's `native` (the same
algorithm, see above), is as fast as the ring only at powers of two ({pow2}) and far slower in
between: the paper's "interesting behaviour at 32 nodes". In these runs, made before each rank
built only its own steps of a schedule, the advantage turned around beyond the paper's range
(PRR {lastsp:.2f} of the ring's speed at {last} ranks): every rank generated PRR's and SLT's
whole O(p^2) schedule at every call, charged as computation. The next section has the same
case from 128 to 1024 ranks with per-rank generation."""


def prr_discussion(doc, rows):
    alpha, beta, nbytes = 22e-6, 8e-9, 4 << 20
    default_tau = 5e-6 + 1.25e-9 * nbytes / 48
    pred = {}
    for d in (0, 10, 50, 100):
        late = d / 1e3 if d else None
        pred[d] = (cost_model("ring", 48, nbytes, alpha, beta, late),
                   cost_model("prr", 48, nbytes, alpha, beta, late),
                   cost_model("prr", 48, nbytes, alpha, beta, late, tau=default_tau))
    net = rows_of(doc, "prr50")

    def sp(a, b):
        return f"{a / b:.2f}" if a and b else "-"

    trows = [["paper (Table 3)", "75.6", "73.0", "1.04", "115.9", "101.0", "1.15"]]
    for label, idx in (("cost model, PRR's tau from the platform (0.72 ms)", 1),
                       ("cost model, PRR's tau from papcoll's defaults (0.114 ms)", 2)):
        trows.append([label, fmt(pred[10][0]), fmt(pred[10][idx]), sp(pred[10][0], pred[10][idx]),
                      fmt(pred[50][0]), fmt(pred[50][idx]), sp(pred[50][0], pred[50][idx])])
    cal = "simulated, network only, calibrated (no `--alpha/--beta`; [calibration.md](calibration.md))"
    for label, src, psrc, v in (
            ("simulated, network only, papcoll's defaults", net, net, "prr"),
            ("simulated, network only, platform's tau (`+tau`)", net, net, "prr+tau"),
            (cal, net, net, "prr+cal"),
            ("simulated, computation charged, papcoll's defaults", rows, rows, "prr"),
            ("simulated, computation charged, platform's tau (`+tau`)", rows, rows, "prr+tau"),
            ("simulated, computation charged, calibrated", rows, net, "prr+cal-charged")):
        r10, r50 = (mean_of(src, variant="ring", max_delay_ms=d) for d in (10, 50))
        p10, p50 = (mean_of(psrc, variant=v, max_delay_ms=d) for d in (10, 50))
        if p10 or p50:
            trows.append([label, fmt(r10), fmt(p10), sp(r10, p10), fmt(r50), fmt(p50),
                          sp(r50, p50)])
    out = ["### PRR at 10 and 50 ms: why the simulation first missed the paper", "",
           table(["48 ranks, 1M floats, rank 1 late by", "ring 10 ms", "PRR 10 ms", "speed-up",
                  "ring 50 ms", "PRR 50 ms", "speed-up"], trows), ""]
    gen = None
    r0, p0 = mean_of(rows, variant="ring", max_delay_ms=0), mean_of(rows, variant="prr+tau",
                                                                    max_delay_ms=0)
    if r0 and p0:
        gen = p0 - r0
    out += [PRR_TEXT.format(
        p10=fmt(pred[10][1]), p10d=fmt(pred[10][2]), r10=fmt(pred[10][0]),
        p50d=fmt(pred[50][2]), r50=fmt(pred[50][0]),
        p100=fmt(pred[100][1]), p100d=fmt(pred[100][2]),
        gen=f"{gen:.1f} ms" if gen is not None else "a few ms")]
    return out + [""]


PRR_TEXT = """\
PRR turns the arrival times into whole rounds of length tau, the time to send and reduce one of
its p blocks (`block_round_time`: alpha + (beta + gamma) x bytes / p), and plans its pre-steps
(Fig. 7 lines 1-6) and the order of every transfer from those rounds. In the rows marked
papcoll's defaults papcoll-bench does not tell papcoll the network and papcoll does not measure it
(`PAPCOLL_CALIBRATION=off`), so tau comes from papcoll's default Hockney parameters (5 us, 1 ns/B,
0.25 ns/B: a network about 6 times faster), 0.114 ms for a 87 KB block, while a block takes
0.72 ms on 1 Gbps Ethernet. A 50 ms delay then looks like 438 rounds instead of 69, a 10 ms
delay like 87 instead of 14: PRR plans a full pre-reduction (every segment reduced over the 47
early ranks, then passed through the late one) and orders the early ranks' transfers for a late
rank much later than it really is, so the late rank arrives into a pipeline that is not ready
for it. The cost model, fed the same mismatch, predicts what the simulation shows ({p10d} ms
against the ring's {r10} at 10 ms, {p50d} against {r50} at 50 ms; the run of 2026-11-23, before
PRR's per-rank generation and its transfer order of docs/algorithms.md, gave 114.8 and 117.5 ms:
no gain at 50 ms); with the right tau it predicts the
paper's figures ({p10} ms at 10 ms; the paper's 101.0 at 50 ms almost to the tenth). From about
100 ms on both taus give the same plan ({p100} and {p100d} ms), which is why the simulation
already agreed with the paper there.

With the platform's parameters given to papcoll (`+tau` rows; papcoll-bench `--alpha 22e-6
--beta 8e-9`) and network only, the simulated PRR has
the paper's advantage at 50 ms, and so has it with papcoll's own measurement of the network
(`+cal` rows: no parameters given, docs/calibration.md). In Table 3's charged runs (2026-11-23,
not re-run since) PRR lost about {gen} to the ring even without a delay (the `+tau` row at 0 ms):
every rank then generated the whole p x 2(p-1)-transfer schedule at every call, charged as
computation on the critical path; since then each rank builds only its own steps, and the
charged calibrated row above (re-run 2026-11-26) is within a few percent of the network-only one.
Conclusion: the paper's PRR result is reproduced once PRR knows the network, which papcoll now
measures itself unless told."""


def rabenseifner_discussion(doc):
    alpha, beta, nbytes = 22e-6, 8e-9, 4 << 20
    r48 = cost_model("rabenseifner", 48, nbytes, alpha, beta)
    r32 = cost_model("rabenseifner", 32, nbytes, alpha, beta)
    ring48 = cost_model("ring", 48, nbytes, alpha, beta)
    net = rows_of(doc, "netonly")
    sim48 = mean_of(net, algorithm="rabenseifner", p=48)
    sim32 = mean_of(net, algorithm="rabenseifner", p=32)
    ring32 = mean_of(net, algorithm="ring", p=32)
    variants = rows_of(doc, "smpi-allreduce")
    out = ["### Rabenseifner at 48 ranks: 124 ms simulated, 76.3 ms in the paper", "",
           RAB_TEXT.format(r48=fmt(r48), r32=fmt(r32), ring48=fmt(ring48),
                           sim48=fmt(sim48) if sim48 else "about 124",
                           sim32=(f", and {fmt(sim32)} ms at p = 32 (ring: {fmt(ring32)})"
                                  if sim32 and ring32 else "")), ""]
    if variants:
        out += ["SMPI's own all-reduce algorithms on the same platform (48 ranks, 1M floats, "
                "network only, `--cfg=smpi/allreduce:NAME`, papcoll-bench `native` row):", "",
                table(["SMPI algorithm", "what it is", "mean elapsed (ms)"],
                      [[v["variant"].split(":", 1)[1],
                        SMPI_ALLREDUCE.get(v["variant"].split(":", 1)[1], ""),
                        fmt(v["mean_elapsed_ms"])] for v in variants]), ""]
    return out


SMPI_ALLREDUCE = {
    "rab_rdb": "Rabenseifner: recursive-halving reduce-scatter, recursive-doubling all-gather "
               "(MPICH's, whole-buffer fold for non-powers of two)",
    "rab2": "reduce-scatter as an all-to-all of p blocks, then all-gather: no power-of-two fold",
    "mvapich2_rs": "MVAPICH2's reduce-scatter + all-gather",
    "lr": "logical ring: reduce-scatter + all-gather ring",
    "ompi_ring_segmented": "Open MPI's segmented ring",
    "rdb": "recursive doubling (whole buffer every round)",
}

RAB_TEXT = """\
papcoll's Rabenseifner folds a non-power-of-two p the way MPICH does (Thakur, Rabenseifner and
Gropp 2005): with p = 48 = 32 + 16, 16 ranks first send their whole 4 MiB buffer to a partner,
the 32 remaining ranks run the reduce-scatter and all-gather, and the whole result goes back to
the 16. On 1 Gbps Ethernet each whole-buffer message costs 33.6 ms, so the cost model predicts
{r48} ms at p = 48 against {r32} ms at p = 32 (ring: {ring48} ms); the simulation gives
{sim48} ms network-only{sim32}. The simulation is right about papcoll's algorithm, and the
platform is not the cause (its one calibrated parameter, the latency, barely matters for these
messages): SMPI's own ports of MPICH's and MVAPICH2's Rabenseifner (`rab_rdb`, `mvapich2_rs`)
take the same 121 ms on it, and so does `native`, because Open MPI's decision table (which SMPI's
`ompi` selector copies) picks that Rabenseifner for 32 to 63 ranks and large messages. A
reduce-scatter/all-gather that works on all 48 ranks without the fold (SMPI's `rab2`: an
all-to-all of 1/p blocks, then an all-gather) takes 67 ms, the ring's time. The paper's 76.3 ms
lies between the two and close to the fold-free one: its Rabenseifner cannot have moved whole
buffers to fold 16 surplus ranks (the two folding messages alone take 67 ms), so it handled the
non-power of two another way; the paper does not say how. Its Fig. 12 remark that Rabenseifner
"behaves interestingly at 32 nodes" is consistent with a cost that changes between powers of two.
Not a calibration matter, then: changing the platform to fit 76.3 would break the ring's fit."""


# --------------------------------------------------------------------------------------- reduce

def reduce_section(doc, png):
    P = doc["paper"]
    out = ["## Reduce (Clairvoyant, Figs. 10 and 11)", "", source_line(doc), "",
           "The paper: " + P["fig10"] + " " + P["fig11"], "",
           "Metric: the paper plots the run time, first arrival to last completion; "
           "papcoll-bench reports the mean elapsed time, own arrival to own completion averaged "
           "over ranks. With random delays most of either figure is waiting for the last rank; "
           "the orderings are comparable, the absolute values are not.", ""]
    for part, key, xlab, fig in (("fig10", "max_delay_ms", "max delay (ms)", "reduce_fig10"),
                                 ("fig11", "p", "p", "reduce_fig11")):
        rows = rows_of(doc, part)
        if not rows:
            continue
        xs = sorted({r[key] for r in rows})
        vs = [v for v in ("clairvoyant", "clairvoyant+tau", "binomial", "rabenseifner", "radix-k",
                          "ring", "native")
              if any(r["variant"] == v for r in rows)]
        trows = [[v] + [fmt(mean_of(rows, variant=v, **{key: x})) for x in xs] for v in vs]
        best = []
        for x in xs:
            m = {v: mean_of(rows, variant=v, **{key: x}) for v in vs}
            m = {k: v for k, v in m.items() if v is not None}
            best.append(min(m, key=m.get) if m else "-")
        trows.append(["**fastest**"] + best)
        title = ("Fig. 10: 48 ranks, 512K floats, random delays" if part == "fig10" else
                 "Fig. 11: 128K floats, random delays up to 50 ms")
        out += [f"### {title}", "", "Mean elapsed time (ms).", "",
                table(["algorithm"] + [f"{xlab} {x:g}" for x in xs], trows), "",
                f"![{part}]({png}/{fig}.png)", ""]
    rows = rows_of(doc, "fig10")
    if any(r["variant"] == "clairvoyant+tau" for r in rows):
        def rng(v):
            ms = [r["mean_elapsed_ms"] for r in rows if r["variant"] == v and r["max_delay_ms"] > 0]
            return f"{min(ms):.0f} to {max(ms):.0f} ms" if ms else "-"
        f11 = rows_of(doc, "fig11")

        def rng11(v):
            ms = [r["mean_elapsed_ms"] for r in f11 if r["variant"] == v]
            return f"{min(ms):.0f} to {max(ms):.0f} ms" if ms else "-"
        # the smallest max delay from which clairvoyant+tau is the fastest at every larger one
        delays = sorted({r["max_delay_ms"] for r in rows})
        from_d = None
        for d in reversed(delays):
            m = {r["variant"]: r["mean_elapsed_ms"] for r in rows if r["max_delay_ms"] == d
                 and r["mean_elapsed_ms"] is not None}
            if m and min(m, key=m.get) in ("clairvoyant", "clairvoyant+tau"):
                from_d = d
            else:
                break
        text = REDUCE_TEXT.format(clv=rng("clairvoyant"), clvtau=rng("clairvoyant+tau"),
                                  ring=rng("ring"), nat=rng("native"), binom=rng("binomial"),
                                  from_d=f"{from_d:g} ms" if from_d is not None else "-")
        if any(r["variant"] == "clairvoyant+tau" for r in f11):
            big = max(r["p"] for r in f11)
            text += REDUCE11_TEXT.format(
                clvtau=rng11("clairvoyant+tau"), binom=rng11("binomial"), nat=rng11("native"),
                ring=rng11("ring"), p=big,
                clv=fmt(mean_of(f11, variant="clairvoyant", p=big), 0))
        out += [text, ""]
    return out


REDUCE11_TEXT = """

In Fig. 11's setting (128K floats, delays up to 50 ms) the same holds: with the platform's d
Clairvoyant stays at {clvtau} from 4 to {p} ranks, nearly flat, while binomial ({binom}),
native ({nat}) and the ring ({ring}) are slower at every size: the paper's "better for a larger
group, sublinear growth". With papcoll's default d it grows linearly, to {clv} ms at {p} ranks."""

REDUCE_TEXT = """\
**Discussion.** Clairvoyant has PRR's problem in a stronger form. Its schedule is a sequence of
rounds of length d, the time to send and reduce one segment, and papcoll computes d from its
Hockney parameters: in the `clairvoyant` row papcoll's defaults (`PAPCOLL_CALIBRATION=off`),
d = 0.06 ms for a 43 KB segment that takes 0.37 ms on 1 Gbps Ethernet. The schedule then
expects ranks to be able to do six times more work before the later ones arrive than they can,
and makes early ranks wait on partners that are still busy: with random delays above zero the
`clairvoyant` row ({clv}) is the slowest of all. papcoll's cost model, given the same wrong d,
predicts the same (145 to 172 ms mean at 50 ms for two random patterns), and with the right d
22 to 24 ms. Given the platform's parameters (`clairvoyant+tau`) Clairvoyant stays at {clvtau}
for every non-zero maximum delay (against {ring} for the ring, {binom} for binomial and {nat}
for native) and is the fastest from {from_d} on (below that the ring is a few ms faster), which
is the paper's finding, and with a larger margin than the paper's "slightly outperforming ring
and native": the figure of merit differs. papcoll-bench's mean elapsed time lets a rank stop
the clock when it has passed its contribution on, which Clairvoyant lets the early ranks do
quickly; the paper's run time (first arrival to last completion) is dominated by the last
arrival and the root, where every algorithm must wait. The ring and radix-k are the fastest
without delays here (the paper does not show that point), and `native` (SMPI's port of Open
MPI's decision: a pipelined or binomial tree) behaves like binomial, as in the paper's
description of Open MPI's default. Now an unmodified run measures the network at
its first collective (docs/calibration.md) and gets about the platform's d without being told."""


# ---------------------------------------------------------------------------------------- bcast

def bcast_section(doc, png):
    P = doc["paper"]
    out = ["## Broadcast and all-gatherv (round-optimal, Figs. 1-3)", "", source_line(doc), "",
           "The paper: " + P["fig1"] + "; " + P["fig2"] + "; " + P["fig3"] + ". Platform: "
           "`opa-36` (36 nodes, 100 Gbps, 1 us), one rank per node, MPI_INT, no delays. `native` "
           "is SMPI's implementation of Open MPI's selection, not Open MPI 4.1.4 itself.", ""]
    figs = []
    for suffix, what in (("", ""), ("-net", ", network only")):
        figs += [("fig1" + suffix, "Fig. 1: broadcast" + what, "bcast_fig1" + suffix),
                 ("fig2-regular" + suffix, "Figs. 2/3: all-gatherv, regular" + what,
                  "allgatherv_regular" + suffix),
                 ("fig2-irregular" + suffix, "Fig. 2: all-gatherv, irregular" + what,
                  "allgatherv_irregular" + suffix),
                 ("fig2-degenerate" + suffix, "Fig. 2: all-gatherv, degenerate" + what,
                  "allgatherv_degenerate" + suffix)]
    for part, title, fig in figs:
        rows = rows_of(doc, part)
        if not rows:
            continue
        xs = sorted({r["count"] for r in rows})
        vs = sorted({r["variant"] for r in rows}, key=lambda v: (v == "native", v))
        trows = [[v] + [fmt(mean_of(rows, variant=v, count=x), 3) for x in xs] for v in vs]
        nat = [mean_of(rows, variant="native", count=x) for x in xs]
        circ = [mean_of(rows, variant="circulant", count=x) for x in xs]
        trows.append(["native / circulant"] + [f"{n / c:.2f}" if n and c else "-"
                                               for n, c in zip(nat, circ)])
        out += [f"### {title}", "", "Mean elapsed time (ms) per total element count.", "",
                table(["algorithm"] + [size_label(x) for x in xs], trows), "",
                f"![{part}]({png}/{fig}.png)", ""]
    f1, f1n = rows_of(doc, "fig1"), rows_of(doc, "fig1-net")
    if f1 and f1n:
        big = max(r["count"] for r in f1)
        small = min(r["count"] for r in f1)

        def g(rows, v, c):
            return mean_of(rows, variant=v, count=c)
        nopt = g(f1, "circulant+nopt", big)
        out += [BCAST_TEXT.format(
            big=size_label(big), small=size_label(small),
            c=fmt(g(f1, "circulant", big), 2), n=fmt(g(f1, "native", big), 2),
            cn=fmt(g(f1n, "circulant", big), 2), nn=fmt(g(f1n, "native", big), 2),
            ch=fmt(g(f1, "chain", big), 2), sa=fmt(g(f1, "scatter-allgather", big), 2),
            bi=fmt(g(f1, "binomial", big), 2),
            cs=fmt(g(f1, "circulant", small), 3), ns=fmt(g(f1, "native", small), 3),
            csn=fmt(g(f1n, "circulant", small), 3), nsn=fmt(g(f1n, "native", small), 3),
            nopt=(f". With the block count that is optimal for opa-36's links "
                  f"(`circulant+nopt`: sqrt((q - 1) beta m / alpha) blocks, 82 at 4M) it takes "
                  f"{nopt:.2f} ms at {size_label(big)}, "
                  f"{g(f1, 'native', big) / nopt:.1f} times faster than `native`"
                  + (" and the fastest broadcast of all" if nopt <= min(
                      g(f1, v, big) or 1e9 for v in ("chain", "scatter-allgather", "binomial",
                                                     "native")) else "")
                  + ": papcoll's rule needs the network's own alpha and beta (and a factor "
                    "measured on a real network)" if nopt else "")), ""]
    return out


BCAST_TEXT = """\
**Discussion.** Broadcast: the round-optimal circulant broadcast beats SMPI's `native` broadcast
from 256K elements on ({c} against {n} ms at {big}; network only {cn} against {nn}), the paper's
shape, and binomial falls far behind for large messages ({bi} ms at {big}). For small messages
`native` wins with papcoll's computation charged ({ns} against {cs} ms at {small}) but not on the
network alone ({nsn} against {csn}): at 100 Gbps and 1 us papcoll's per-call work (argument
checks, the communicator's context, the schedule lookup, the executor's packing) costs more than
the messages, and SMPI charges nothing for its own collectives' internal work. Unlike the paper,
the chain and the scatter-allgather broadcast beat the circulant one for the largest messages
({ch} and {sa} ms at {big}): papcoll picks the circulant's block count from its default Hockney
parameters times a factor of 0.07 measured on an oversubscribed 2-core machine (docs/circulant.md),
which gives far fewer blocks than opa-36's links make optimal{nopt}.

All-gatherv: network only, circulant, Bruck and `native` are equal within a few percent for every
shape and size, and ring is close from 1M on; with computation charged `native` is the fastest
everywhere (papcoll's per-call work again). The paper's headline, Open MPI's MPI_Allgatherv
degenerating by a factor close to 100 on the degenerate problem, does not appear: SMPI's `native`
is SimGrid's reimplementation of Open MPI's selection, not Open MPI 4.1.4's code, and it does not
degenerate here. One oddity is left unexplained: the network-only times of all four algorithms are
identical to the microsecond for the regular, irregular and degenerate shapes, although the
shapes put very different loads on rank 0's link (the runs with computation do differ by shape);
this needs a look at how papcoll-bench's all-gatherv shapes and SMPI's flow model interact before
the network-only all-gatherv numbers are trusted."""


# ----------------------------------------------------------------------------- arrival-aware

ARRIVAL_ORDER = ("auto", "arrival-aware", "circulant", "binomial", "ring", "bruck", "native",
                 "native-arrival_pattern_aware", "native-arrival_pattern_aware_wait",
                 "native-arrival_scatter")


def arrival_variants(rows):
    present = {r["variant"] for r in rows}
    return [v for v in ARRIVAL_ORDER if v in present] + sorted(present - set(ARRIVAL_ORDER))


def arrival_pair_table(rows, late_label):
    """Per variant: one late rank (mean elapsed, P) and balanced (mean elapsed)."""
    out = []
    for v in arrival_variants(rows):
        late = [r for r in rows if r["variant"] == v and r["mode"] == "one-late"]
        even = [r for r in rows if r["variant"] == v and r["mode"] == "none"]
        out.append([v, fmt(late[0]["mean_elapsed_ms"], 2) if late else "-",
                    fmt(late[0].get("post_arrival_ms"), 2) if late else "-",
                    fmt(even[0]["mean_elapsed_ms"], 2) if even else "-"])
    return table(["algorithm", f"{late_label}: mean elapsed (ms)", "P (ms)",
                  "balanced: mean elapsed (ms)"], out)


def arrival_section(doc, png):
    out = ["## Broadcast and all-gatherv that do not wait for late receivers", "",
           source_line(doc), "",
           "papcoll's arrival-aware schedules (docs/circulant.md, \"Arrival-aware broadcast and "
           "all-gatherv\") and `auto` against the circulant schedules, the baselines, SMPI's MPI "
           "library (`native`, Open MPI's selection) and SMPI's ports of Patarasuk and Yuan's "
           "arrival-pattern-aware broadcasts (`native-arrival_pattern_aware`, `..._wait`, "
           "`native-arrival_scatter`: `--cfg=smpi/bcast:NAME`; a run that failed is listed under "
           "its table). 1 Gbps Ethernet, "
           "papcoll given the platform's Hockney parameters (`--alpha 22e-6 --beta 8e-9`), the "
           "arrivals as the oracle pattern, computation charged. P is the post-arrival time "
           "(docs/papcoll-bench.md): negative where ranks finish before the late one arrives.", ""]
    out += [f"Note: {recorded_text(n)}" for n in doc.get("notes", [])]
    out += [""] if doc.get("notes") else []
    parts = [("gige48-bcast", "48 ranks, broadcast of 1M floats (4 MiB) from rank 0",
              "rank 1 20 ms late"),
             ("gige48-allgatherv", "48 ranks, all-gatherv of 1M floats (regular, 87 KB each)",
              "rank 1 20 ms late"),
             ("gige1024-bcast", "broadcast of 4K floats (16 KiB) from rank 0", "rank 1 5 ms late"),
             ("gige512-bcast", "broadcast of 4K floats (16 KiB) from rank 0", "rank 1 5 ms late")]
    for part, title, late in parts:
        rows = rows_of(doc, part)
        if not rows:
            continue
        if part in ("gige1024-bcast", "gige512-bcast"):
            run = next(r for r in doc["runs"] if r["part"] == part)
            title = f"{run['np']} ranks ({run['platform']}), " + title
            walls = [r["wall_s"] for r in doc["runs"] if r["part"] == part]
            title += f"; {len(walls)} simulations of {min(walls):.0f} to {max(walls):.0f} s wall time"
        out += [f"### {title}", "", arrival_pair_table(rows, late), ""]
        for run in doc["runs"]:
            if run["part"] == part and run["rc"] != 0:
                why = (run.get("error") or "").strip().splitlines()
                out += [f"Failed (exit status {run['rc']}, no rows): `{run['command']}`"
                        + (f": {why[-1][:200]}" if why else ""), ""]
    rows = rows_of(doc, "gige48-sweep")
    if rows:
        delays = sorted({r["max_delay_ms"] for r in rows})
        trows = [[v] + [fmt(mean_of(rows, variant=v, max_delay_ms=d), 2) for d in delays]
                 for v in arrival_variants(rows)]
        out += ["### 48 ranks, broadcast of 64K floats (256 KiB), rank 1 late by 0 to 100 ms", "",
                "Mean elapsed time (ms) per delay of rank 1.", "",
                table(["algorithm"] + [f"{d:g} ms" for d in delays], trows), ""]
    out += [ARRIVAL_TEXT, ""]
    return out


ARRIVAL_TEXT = """\
**Discussion.** With one late rank `auto` runs the arrival-aware schedule wherever the late
rank's delay is at least one message of what a rank contributes (the whole buffer for the
broadcast, a portion for the all-gatherv) and the cost model predicts a gain; below that it runs
the circulant one, unchanged. The arrival-aware broadcast leaves the late rank out of the
early ranks' circulant and serves it one message when it comes, so its time is the early group's
broadcast plus, averaged over the ranks, the late rank's message and its server's wait; the
all-gatherv finishes the early ranks' exchange while the late rank computes and then broadcasts
only its portion. At 4 MiB on gige-48 a 20 ms delay is less than one whole-buffer message
(33.6 ms), so `auto` keeps the circulant broadcast there (58.6 ms against 46.8 for the
arrival-aware row, named): the rule's threshold is conservative for a pipelined broadcast, whose
balanced time (45 ms) is not much more than one whole-buffer message. Both broadcast rows take
the Hockney-optimal block count (kBroadcastBlockFactor); before main's calibration work the
circulant row took 0.07 of it and was 3 times slower here (161.8 ms balanced). SMPI's
Patarasuk-Yuan ports are slow in SimGrid 3.32 (0.2 to 0.8 s), and `arrival_scatter` crashes it;
we did not look into why."""


# ------------------------------------------------------------------------------- scatter/gather

def sg_section(doc, png):
    P = doc["paper"]
    out = ["## Scatterv and gatherv on the Grid'5000-like platform (Dichev et al., Fig. 3)", "",
           source_line(doc), "", "The paper: " + P["claim"] + ". " + P["hcl"][0].upper() +
           P["hcl"][1:] + ".", "",
           "Platform `g5k-2sites-39` (39 ranks, 5 clusters, 2 sites, root 0 in `s1-a`), portions "
           "in proportion to stand-in CPU speeds (`--counts-dist cpu-speed`), doubles, no delays. "
           "`+platform`: the per-pair link model derived from the platform file "
           "(`sim/experiments/scatter_gather.py`); `+homog`: one alpha and beta for every pair.",
           ""]
    parts = sorted({run["part"] for run in doc["runs"]},
                   key=lambda p: (p.split("-")[0], "shuffled" in p, "tcp64k" in p, p))
    for part in parts:
        rows = rows_of(doc, part)
        xs = sorted({r["count"] for r in rows})
        order = ["linear", "binomial", "traff", "native"]
        vs = sorted({r["variant"] for r in rows},
                    key=lambda v: (order.index(v) if v in order else 10, v))
        per_rank = all(r.get("per_rank_mean_ms") for r in rows)
        metric = slowest_rank_ms if per_rank else None
        trows = [[v] + [fmt(mean_of(rows, metric, variant=v, count=x), 2) for x in xs]
                 for v in vs]
        for plain, model in (("binomial", "binomial-minfirst+platform"),
                             ("binomial", "binomial-maxfirst+platform"),
                             ("traff", "traff-model+platform")):
            cells = []
            for x in xs:
                a = mean_of(rows, metric, variant=model, count=x)
                b = mean_of(rows, metric, variant=plain, count=x)
                cells.append(f"{(1 - a / b) * 100:+.0f}%" if a and b else "-")
            trows.append([f"reduction {model} vs {plain}"] + cells)
        what = ("completion time: the slowest rank's mean elapsed time (ms), all ranks starting "
                "together" if per_rank else "mean elapsed time (ms)")
        out += [f"### {part}", "", f"{what[0].upper() + what[1:]} per total element count; "
                "reductions are 1 - model/plain (the paper reports up to 75% for "
                "binomial-minfirst, 60% for Träff).", "",
                table(["algorithm"] + [size_label(x) for x in xs], trows), "",
                f"![{part}]({png}/sg_{part}.png)", ""]
    def reds(part, model, plain):
        rows = rows_of(doc, part)
        per_rank = rows and all(r.get("per_rank_mean_ms") for r in rows)
        metric = slowest_rank_ms if per_rank else None
        out_ = []
        for x in sorted({r["count"] for r in rows}):
            a = mean_of(rows, metric, variant=model, count=x)
            b = mean_of(rows, metric, variant=plain, count=x)
            if a and b:
                out_.append((1 - a / b) * 100)
        return f"{min(out_):+.0f}% .. {max(out_):+.0f}%" if out_ else "-"
    trows = []
    for part in parts:
        trows.append([part, reds(part, "binomial-minfirst+platform", "binomial"),
                      reds(part, "traff-model+platform", "traff")])
    out += ["### Discussion", "",
            "Range over the message sizes of the reduction (1 - model/plain) of the completion "
            "time, model-based with the platform's link model against plain:", "",
            table(["part", "binomial-minfirst vs binomial", "traff-model vs Träff"], trows), "",
            SG_TEXT, ""]
    return out


SG_TEXT = """\
What the simulation says about the paper's claim (up to 75% for binomial-minfirst, 60% for Träff
on Grid'5000):

- **The model-based Träff tree mostly gains, as in the paper**: over the plain Träff tree it is
  faster in most settings, by up to about 40% with the platform's links as they are and up to
  about 70% when the wide-area TCP throughput is limited (the `-tcp64k` parts: 64 KiB windows, so
  6.4 MB/s per flow between the sites, as TCP over a 10 ms round trip gave without window
  scaling), where the plain tree, which knows the message sizes but not the links, forwards large
  subtrees over the wide-area link. It is slower in a few cases (gatherv with `ratio:100`
  portions and limited windows, small scatterv messages with shuffled ranks).
- **The min-first binomial mapping reproduces the paper's large gain only in one setting.** With
  the ranks in the platform's order the plain binomial tree is already topology-aware (its
  subtrees are runs of consecutive ranks, i.e. clusters) and the mapping gains nothing or loses;
  with the ranks shuffled over the hosts (an "arbitrary binomial tree", as a launcher that knows
  nothing of the network gives) it gains up to about 20% for large messages and loses for small
  ones; with limited TCP windows it gains up to about 60% with the strongly skewed `ratio:100`
  portions (the paper's second distribution, close to its 75%) but loses badly with the CPU-speed
  portions. Min-first attaches the nearest free node to each new subtree, which leaves the remote
  nodes for the end, where they can become roots of large subtrees behind the slow link; whether
  that costs or pays depends on which portions end up there. The paper's Grid'5000 figures are
  not in its text (Fig. 3 is an image), so its platform cannot be matched more closely.
- **Linear is the fastest scatterv for large messages** (SMPI's `native`, linear-like here, too):
  every scatter tree must push all the data through the root's own 1 Gbps link, which `linear`
  does without forwarding delays, and with limited TCP windows its concurrent flows add up where
  a tree's single flow per edge does not.
- `binomial-maxfirst` is the worst mapping here in almost every case, in line with the paper,
  which recommends max-first only for its homogeneous cluster; with a homogeneous link model
  (`+homog`) the model-based trees reduce to size-only decisions and mostly track the plain ones:
  the gains come from the link model.
- Metric: with all ranks starting together, the completion time is the slowest rank's elapsed
  time; papcoll-bench's headline mean over ranks would flatter gatherv algorithms whose leaves
  return at once (SMPI's `native` gatherv has a mean under 1 ms at 4K although the data crosses a
  5 ms link).

The link figures of `g5k-2sites-39` are assumptions (sim/platforms/README.md: the paper gives
none), so the direction of each effect is the result, not its size."""


HEADER = """\
# Simulated results against the papers (SimGrid SMPI)

Generated by `sim/experiments/report.py` from the JSON of the experiment scripts
(`sim/experiments/`, docs/smpi.md); do not edit by hand. Regenerate with

```sh
sim/experiments/run_all.sh --quick     # about 5 min; without --quick the full sweeps, about 1 hour
/usr/bin/python3 sim/experiments/report.py
```

Every figure is simulated time on the platforms of `sim/platforms/` (SimGrid 3.32), with
papcoll's own computation between MPI calls charged 1:1 from the simulating machine's CPU unless a
row says network only; results were checked correct on every iteration. Quick-mode data has few
iterations (3 after 1 warm-up) and few points: the shapes are meaningful, single values are
not precise to better than a few percent.
"""


def late_fold_section(doc, png):
    """late-fold's figures: P (mean over ranks of finish - last arrival) against delta, one
    whole-buffer message, per delay and mode, and the goals checked."""
    delta = doc["paper"].get("delta_ms")
    out = ["## late-fold: one message after the last arrival", "", source_line(doc), "",
           "Goals (" + recorded_text(doc["paper"].get("source", "")) +
           f"). delta = {fmt(delta, 2)} ms. "
           "P = mean over ranks of (finish - last arrival), in ms with P / delta in brackets; "
           "mean elapsed in ms.", ""]
    for note in doc.get("notes", []):
        out += [f"Note: {recorded_text(note)}", ""]

    def cell(r):
        if r is None:
            return "-"
        pa, po = r.get("post_arrival_ms"), r.get("post_arrival_over_delta")
        return f"{fmt(r['mean_elapsed_ms'], 2)} / {fmt(pa, 2)} ({fmt(po, 2)})"

    def find(rows, **m):
        return next((r for r in rows if all(r.get(k) == v for k, v in m.items())), None)

    rows = rows_of(doc, "one-late")
    if rows:
        delays = sorted({r["max_delay_ms"] for r in rows if r["variant"] != "native"})
        trows = []
        for d in delays:
            lf, prr, ring = (find(rows, variant=v, max_delay_ms=d)
                             for v in ("late-fold", "prr", "ring"))
            vs = (f"{prr['mean_elapsed_ms'] / lf['mean_elapsed_ms']:.3f}" if lf and prr else "-")
            vr = (f"{ring['mean_elapsed_ms'] / lf['mean_elapsed_ms']:.3f}" if lf and ring else "-")
            trows.append([f"{d:g}", cell(lf), cell(prr), cell(ring), vs, vr])
        out += ["### All-reduce, one rank late, 1M floats, 48 ranks (gige-48), computation charged",
                "", "Mean elapsed / P (P / delta); the last two columns are PRR's and the ring's "
                "mean elapsed over late-fold's.", "",
                table(["delay (ms)", "late-fold", "prr", "ring", "prr / late-fold",
                       "ring / late-fold"], trows), ""]
        nat = [r for r in rows if r["variant"] == "native"]
        if nat:
            out += ["`MPI_Allreduce` (SMPI's ompi selector) at " + ", ".join(
                f"{r['max_delay_ms']:g} ms: {cell(r)}" for r in nat) + ".", ""]
    rows = rows_of(doc, "k-late")
    if rows:
        modes = list(dict.fromkeys(r["mode"] for r in rows))
        trows = [[m] + [cell(find(rows, mode=m, algorithm=a)) for a in ("late-fold", "prr", "ring")]
                 for m in modes]
        out += ["### Several late ranks, delay 100 ms", "",
                table(["mode", "late-fold", "prr", "ring"], trows), ""]
    rows = rows_of(doc, "netonly")
    if rows:
        delays = sorted({r["max_delay_ms"] for r in rows})
        trows = [[f"{d:g}"] + [cell(find(rows, algorithm=a, max_delay_ms=d))
                               for a in ("late-fold", "prr", "ring")] for d in delays]
        out += ["### Network only (`--cfg=smpi/simulate-computation:no`), one rank late", "",
                table(["delay (ms)", "late-fold", "prr", "ring"], trows), ""]
    rows = rows_of(doc, "reduce")
    if rows:
        vs = [v for v in ("late-fold", "clairvoyant", "binomial", "native", "native-apa")
              if any(r["variant"] == v for r in rows)]
        delays = sorted({r["max_delay_ms"] for r in rows})
        trows = [[f"{d:g}"] + [cell(find(rows, variant=v, max_delay_ms=d)) for v in vs]
                 for d in delays]
        out += ["### Reduce to rank 0, one rank late, 1M floats, 48 ranks", "",
                "native-apa: `MPI_Reduce` with `--cfg=smpi/reduce:arrival_pattern_aware`.", "",
                table(["delay (ms)"] + vs, trows), ""]
    return out


def by_delay_and_algorithm(run):
    """A simulation's rows per max delay, ascending: (delay, its rows, those rows by algorithm)."""
    by_delay = {}
    for row in run["rows"]:
        by_delay.setdefault(row["max_delay_ms"], []).append(row)
    return [(delay, rs, {x["algorithm"]: x for x in rs}) for delay, rs in sorted(by_delay.items())]


def simgrid_failure(error):
    """What became of a simulation that gave no results, in a few words (its recorded error is the
    tail of SimGrid's output)."""
    error = error or ""
    if "invalid_argument: " in error:
        return "refused: " + error.split("invalid_argument: ", 1)[1].splitlines()[0].strip()
    if "invalid pointer" in error:
        return "crashed: free(): invalid pointer"
    if "WAITING to finish" in error or "Deadlock" in error:
        return "stalled: SimGrid found a deadlock"
    return (error.strip().splitlines() or ["no results"])[-1][:120]


def nodes_section(doc, png):
    """Platforms of many-core nodes (sim/experiments/nodes.py): auto against the MPI library's
    collective and papcoll's fastest row, per collective, size and arrival mode."""
    runs = doc["runs"]
    lines = ["## Nodes of several ranks (gige-8x6, gige-16x8, gige-64x16)", "",
             "Every rank of a node shares the node's one 1 Gbps link; inside a node a FATPIPE loopback "
             "of 0.5 us and 8 GB/s stands for shared memory (sim/platforms/README.md). 1M floats for "
             "the reductions, 4 MiB and 16 KiB broadcasts, a 4 MiB all-gatherv; `--alpha 2.2e-05 "
             "--beta 8e-09` (the links between nodes; papcoll measures those inside a node, "
             "docs/calibration.md), computation charged, 2 measured iterations after 1 warm-up "
             "(10 for the 16 KiB broadcast; at gige-64x16, 40 for it and 4 for the 4 MiB one), in an "
             "order drawn anew each iteration. "
             "`native` is SMPI's `ompi` selector. `auto`/library and `auto`/best: ratios of mean "
             "elapsed time in the same simulation (below 1: `auto` faster); best: papcoll's fastest "
             "row there (not `auto`). P/delta: time after the last arrival over one whole-buffer "
             "message between nodes.", "",
             source_line(doc) + "".join(" Note: " + n + "." for n in doc.get("notes", [])
                                        if not n.startswith("library-64x16")), ""]
    native_all, native_failed = {}, {}
    for r in runs:
        if r["part"] in ("native-8x6", "native-16x8", "others-16x8", "native-64x16",
                         "native-32x32"):
            for row in r["rows"]:
                native_all.setdefault((r["platform"], row["max_delay_ms"]), []).append(
                    (row["mean_elapsed_ms"], r.get("variant")))
            if not r["rows"]:
                native_failed.setdefault(r["platform"], []).append(
                    f"`{r.get('variant')}` ({simgrid_failure(r.get('error'))})")

    def forced_natives(platform):
        out = []
        for delay in sorted({d for (pl, d) in native_all if pl == platform}):
            got = sorted(native_all[(platform, delay)])
            if got:
                out += [f"The MPI library's all-reduce with each of SMPI's algorithms forced "
                        f"({platform}, delay {delay:g} ms, fastest first): " + ", ".join(
                            f"`{v}` {m:.2f}" for m, v in got[:6]) + ".", ""]
        if native_failed.get(platform):
            out += [f"Failed on {platform}: " + "; ".join(native_failed[platform]) + ".", ""]
        return out
    for part, platform in (("sweep-8x6", "gige-8x6"), ("sweep-16x8", "gige-16x8"),
                           ("sweep-64x16", "gige-64x16")):
        sweep = [r for r in runs if r["part"] == part]
        if not sweep:
            continue
        rows = []
        for r in sweep:
            for delay, rs, by in by_delay_and_algorithm(r):
                a, n = by.get("auto"), by.get("native")
                own = [x for x in rs if x["algorithm"] not in ("auto", "native")]
                if a is None or n is None or not own:
                    continue
                best = min(own, key=lambda x: x["mean_elapsed_ms"])
                mode = rs[0]["mode"] if delay else "on time"
                op = f"{rs[0]['op']} {r['variant'].split('-')[1]}"
                rows.append([op, mode, f"{delay:g}", fmt(a["mean_elapsed_ms"], 2),
                             f"{best['algorithm']} {fmt(best['mean_elapsed_ms'], 2)}",
                             fmt(n["mean_elapsed_ms"], 2),
                             fmt(a["mean_elapsed_ms"] / n["mean_elapsed_ms"], 3),
                             fmt(a["mean_elapsed_ms"] / best["mean_elapsed_ms"], 3),
                             fmt(a.get("post_arrival_over_delta"), 2),
                             fmt(n.get("post_arrival_over_delta"), 2), fmt(r["wall_s"], 0)])
        p = sweep[0]["np"]
        lines += [f"### {platform} ({p} ranks), {len(sweep)} simulations", ""]
        if part == "sweep-64x16":
            lines += ["Only the papcoll rows of sim/experiments/nodes.py's ROWS_64X16 (why the "
                      "others are left out: its comment; best is the fastest of those run); "
                      "buffers folded and results unchecked.", ""]
        lines += [table(["collective", "arrivals", "delay ms", "auto ms", "best papcoll row ms",
                         "native ms", "auto/native", "auto/best", "P/delta auto",
                         "P/delta native", "simulation wall s"], rows), ""]
        lines += forced_natives(platform)
    big = [r for r in runs if r["part"].startswith("library-64x16")]
    if big:
        rows = []
        for r in big:
            for delay, rs, by in by_delay_and_algorithm(r):
                a, n = by.get("auto"), by.get("native")
                if a is None or n is None:
                    continue
                ran = ", ".join(f"{k} {v}" for k, v in (a.get("ran_algorithms") or {}).items())
                mode = rs[0]["mode"] if delay else "on time"
                rows.append([f"{rs[0]['op']} {r['variant'].split('-')[1]}", mode, f"{delay:g}",
                             fmt(a["mean_elapsed_ms"], 2), ran, fmt(n["mean_elapsed_ms"], 2),
                             fmt(a["mean_elapsed_ms"] / n["mean_elapsed_ms"], 3),
                             fmt(a.get("post_arrival_over_delta"), 2),
                             fmt(n.get("post_arrival_over_delta"), 2), fmt(r["wall_s"], 0)])
        lines += [f"### gige-64x16 (1024 ranks): `auto` against the library, "
                  f"{len(big)} simulations", "",
                  "Only `auto` and `native` (every papcoll row in one simulation would take hours "
                  "at this size); buffers folded onto shared memory and results unchecked "
                  "(docs/smpi.md, \"Scale\"). What `auto` ran, per measured iteration, is beside it."
                  + "".join(" Note: " + n + "." for n in doc.get("notes", [])
                            if n.startswith("library-64x16")),
                  "", table(["collective", "arrivals", "delay ms", "auto ms", "auto ran",
                             "native ms", "auto/native", "P/delta auto", "P/delta native",
                             "simulation wall s"], rows), ""]
    lines += forced_natives("gige-64x16")
    bcast = [r for r in runs if r["part"] == "native-bcast-64x16"]
    for size in ("4MiB", "16KiB"):
        got, failed, auto = [], [], None
        for r in bcast:
            if not r["variant"].startswith(size + "-"):
                continue
            name = r["variant"][len(size) + 1:]
            by = {x["algorithm"]: x for x in r["rows"]}
            if "native" in by:
                got.append((by["native"]["mean_elapsed_ms"], name))
            else:
                failed.append(f"`{name}` ({simgrid_failure(r.get('error'))})")
            if "auto" in by:
                auto = by["auto"]
        if not got:
            continue
        got.sort()
        line = (f"Broadcast of {size} on gige-64x16, one rank 5 ms late, SMPI's broadcasts "
                f"forced (fastest first, mean elapsed ms): " +
                ", ".join(f"`{v}` {m:.3f}" for m, v in got) + ".")
        if auto is not None:
            ran = ", ".join((auto.get("ran_algorithms") or {}).keys())
            line += (f" `auto` ({ran}) {auto['mean_elapsed_ms']:.3f}, "
                     f"{got[0][0] / auto['mean_elapsed_ms']:.2f}x the fastest native's speed.")
        if failed:
            line += " Failed: " + "; ".join(failed) + "."
        lines += [line, ""]
    opa = [r for r in runs if r["part"] == "papcoll-32x32" and r["rows"]]
    if opa or any(pl == "opa-32x32" for (pl, _) in native_all):
        lines += ["### opa-32x32 (1024 ranks on 32 nodes of 32, 100 Gbps between nodes)", "",
                  "All-reduce of 1M floats, `--alpha 1e-06 --beta 8e-11`, buffers folded and "
                  "results unchecked; P/delta against one whole-buffer message between nodes "
                  "(0.336 ms). Inside a node the platform's loopbacks are fat pipes: every "
                  "transfer keeps 8 GB/s however many run at once, which no node's memory "
                  "sustains, so rows that exchange inside a node at once (two-level-rsag) look "
                  "faster than a node allows (sim/platforms/README.md, \"A node's memory "
                  "bandwidth\": with a 60 GB/s memory bus on four of these nodes two-level-rsag "
                  "goes from 0.69x the library's time to 1.03x on time). `auto` times a "
                  "node-wide exchange once per communicator and weighs two-level-rsag with what "
                  "it took (docs/calibration.md, \"Node exchange\"), so it takes the row here "
                  "and keeps the library where the copies queue (`opa-32x32-ports`). Every row's "
                  "pipeline takes the executor's step overhead in its block count, `auto`'s and "
                  "those named in the options alike (docs/calibration.md, \"Step overhead\"; "
                  "before 2026-11-30 the named rows ran the links' counts: two-level-rsag at "
                  "5248 blocks, P 3.65 ms with one rank late).", ""]
        rows = []
        for r in opa:
            for delay, rs, by in by_delay_and_algorithm(r):
                for x in rs:
                    ran = ", ".join((x.get("ran_algorithms") or {}).keys())
                    rows.append([x["algorithm"] + (f" ({ran})" if x["algorithm"] == "auto" else ""),
                                 "on time" if not delay else f"one rank {delay:g} ms late",
                                 fmt(x["mean_elapsed_ms"], 3), fmt(x.get("post_arrival_ms"), 3),
                                 fmt(x.get("post_arrival_over_delta"), 2), fmt(r["wall_s"], 0)])
        if rows:
            lines += [table(["row", "arrivals", "mean ms", "P ms", "P/delta",
                             "simulation wall s"], rows), ""]
        lines += forced_natives("opa-32x32")
    return lines


def scale_section(doc, png):
    """At scale against the MPI library (sim/experiments/scale.py): auto, the library's collective
    and relay-fold at 128, 512 and 1024 ranks, per arrival mode."""
    lines = ["## At scale: 128 to 1024 ranks against the MPI library", "",
             "One rank per node (gige-128/512/1024), 1M floats, computation charged, `--alpha "
             "2.2e-05 --beta 8e-09 --gamma 1e-12`, 2 measured iterations after 1 warm-up, one "
             "simulation per ranks and arrival mode with the algorithms interleaved in it. `native` "
             "is SMPI's `ompi` selector (Rabenseifner's all-reduce and a binomial reduce at this "
             "size). library/auto: the library's mean elapsed time over `auto`'s (above 1: `auto` "
             "faster). P/delta: the mean time after the last arrival over one whole-buffer message "
             "(delta = 33.6 ms); for the reduce it is negative where most ranks are done before "
             "the late one arrives (only the root waits for it). What `auto` ran is in brackets.",
             "", source_line(doc) + " Notes: " + "; ".join(doc.get("notes", [])) + ".", ""]
    rows = []
    for r in doc["runs"]:
        by = {x["algorithm"]: x for x in r["rows"]}
        a, n, rf = by.get("auto"), by.get("native"), by.get("relay-fold")
        if a is None or n is None:
            rows.append([r["part"], r["np"], r["variant"], "failed", "", "", "", "", "",
                         fmt(r["wall_s"], 0)])
            continue
        ran = (a.get("ran_algorithms") or {})
        ran_s = ", ".join(f"{k} {v}" if len(ran) > 1 else k for k, v in ran.items()) \
            if isinstance(ran, dict) else str(ran)
        rows.append([r["part"], r["np"], r["variant"],
                     f"{fmt(a['mean_elapsed_ms'], 2)}" + (f" ({ran_s})" if ran_s else ""),
                     fmt(n["mean_elapsed_ms"], 2),
                     fmt(rf["mean_elapsed_ms"], 2) if rf else "-",
                     fmt(n["mean_elapsed_ms"] / a["mean_elapsed_ms"], 3),
                     fmt(a.get("post_arrival_over_delta"), 2) + " / " +
                     fmt(n.get("post_arrival_over_delta"), 2) + " / " +
                     (fmt(rf.get("post_arrival_over_delta"), 2) if rf else "-"),
                     fmt(r["wall_s"], 0)])
    lines += [table(["collective", "ranks", "arrivals", "auto ms", "native ms", "relay-fold ms",
                     "library/auto", "P/delta auto / native / relay-fold", "simulation wall s"],
                    rows), ""]
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default=os.path.join(ROOT, "sim", "results"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "results.md"))
    ap.add_argument("--section", choices=EXPERIMENTS,
                    help="print this experiment's section to standard output instead")
    args = ap.parse_args()
    docs = load(args.results)
    if args.section:
        if args.section not in docs:
            print(f"report: no results for {args.section}", file=sys.stderr)
            return 1
        print("\n".join(SECTIONS[args.section](docs[args.section], "results")))
        return 0
    pngdir = os.path.join(os.path.dirname(args.out), "results")
    os.makedirs(pngdir, exist_ok=True)
    rel = os.path.relpath(pngdir, os.path.dirname(args.out))
    lines = [HEADER]
    missing = [n for n in EXPERIMENTS if n not in docs]
    if missing:
        lines += ["Not run yet: " + ", ".join(missing) + ".", ""]
    sections = SECTIONS
    for name in EXPERIMENTS:
        if name in docs:
            try:
                if name in PLOTTERS:
                    PLOTTERS[name](docs[name], pngdir)
            except ImportError as e:
                print(f"report: no plots ({e}); use /usr/bin/python3 with python3-matplotlib",
                      file=sys.stderr)
            lines += sections[name](docs[name], rel)
    extra = os.path.join(os.path.dirname(__file__), "discussion.md")
    if os.path.exists(extra):
        with open(extra) as f:
            lines += [f.read()]
    with open(args.out, "w") as f:
        f.write("\n".join(lines).rstrip() + "\n")
    print(f"report: wrote {os.path.relpath(args.out, ROOT)} and {os.path.relpath(pngdir, ROOT)}/")
    return 0


SECTIONS = {"allreduce": allreduce_section, "reduce": reduce_section, "bcast": bcast_section,
            "arrival": arrival_section, "scatter_gather": sg_section,
            "late_fold": late_fold_section, "nodes": nodes_section,
            "scale": scale_section}

if __name__ == "__main__":
    sys.exit(main())
