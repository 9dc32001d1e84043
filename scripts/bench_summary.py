#!/usr/bin/env python3
"""The main job's closing lines (scripts/bench.sh): what papcoll changed in the runs above.

    bench_summary.py --machine FILE... [--sim FILE] [--report FILE] --png OUT

--machine: papcoll-bench JSON files of this machine's runs (one configuration each, with a
`native` row); --sim: the simulated run's JSON (SimGrid SMPI); --report: the straggler report of
one of the runs (PAPCOLL_REPORT, docs/report-format.md). Prints, per case, papcoll-bench's own
verdict of `auto` against the MPI library's collective (the `verdicts` array of its JSON: one
formula, in papcoll-bench), the straggler report in two lines, and draws OUT: mean elapsed time
and P/delta per algorithm for every case, this machine's and the simulated one's side by side.
Exit status 0; 1 when a file is missing or unreadable or a case has no verdict for `auto`.
"""
import argparse
import json
import os
import sys

# Colours of the picture: the MPI library grey, auto in the accent colour, the algorithms auto
# chooses among in a muted blue.
COLOURS = {"native": "#7f7f7f", "auto": "#d95f02"}
OTHER_COLOUR = "#7570b3"
OP_WORDS = {"allreduce": "all-reduce", "reduce": "reduce", "bcast": "broadcast"}
LIBRARY_CALL = {"allreduce": "MPI_Allreduce", "reduce": "MPI_Reduce", "bcast": "MPI_Bcast"}


def load(path):
    with open(path) as f:
        doc = json.load(f)
    if doc.get("benchmark") != "papcoll-bench":
        raise ValueError("%s: not a papcoll-bench JSON file" % path)
    return doc


def case_title(doc, simulated):
    """'all-reduce, one rank 20 ms late' for the JSON's (only) configuration."""
    cfg = doc["config"]
    delay = cfg["max_delays_ms"][0]
    if cfg["mode"] == "none" or delay == 0:
        when = "balanced"
    elif cfg["mode"] == "one-late":
        when = "one rank %g ms late" % delay
    else:
        when = "%s %g ms" % (cfg["mode"], delay)
    return "%s, %s" % (OP_WORDS.get(cfg["op"], cfg["op"]), when)


def auto_verdict(doc):
    """papcoll-bench's verdict of the `auto` row against `native`, or None."""
    for v in doc.get("verdicts", []):
        if v.get("algorithm") == "auto":
            return v
    return None


def rows_of(doc):
    """The JSON's result rows in table order (one configuration)."""
    return [r for r in doc["results"] if r.get("mean_elapsed_ms") is not None]


def straggler_lines(report, run_label):
    """Two lines from the straggler report: who was late and by how much, what it cost the
    others, and what auto ran for it."""
    comms = report.get("communicators", [])
    if not comms:
        return ["straggler report: no collective was recorded"]
    c = comms[0]
    ranks = {r["rank"]: r for r in c.get("ranks", [])}
    if not c.get("stragglers"):
        return ["straggler report: %s recorded %d calls and no lateness" % (
            c.get("name", "communicator"), c.get("calls", 0))]
    late = ranks[c["stragglers"][0]]
    others = [r for k, r in ranks.items() if k != late["rank"]]
    waited = sum(r.get("wait_total_s", 0.0) for r in others)
    in_coll = sum(r.get("time_in_collective_s", 0.0) for r in others)
    lines = [
        "straggler report of the %s: rank %d was late by %.1f ms on average (median %.1f, p95 "
        "%.1f), last in %.0f %% of %d calls;" % (
            run_label, late["rank"], 1e3 * late["lateness_s"]["mean"],
            1e3 * late["lateness_s"]["median"], 1e3 * late["lateness_s"]["p95"],
            100 * late.get("last_share", 0.0), c.get("calls", 0)),
        "  the %d other ranks waited %.2f s for later ranks in all, %.0f %% of their %.2f s in "
        "papcoll's collectives" % (len(others), waited, 100 * waited / in_coll if in_coll else 0,
                                   in_coll),
    ]
    return lines


def draw(cases, out_path):
    """cases: (title, doc, simulated). Top row mean elapsed with its standard deviation over the
    iterations, bottom row P/delta, one column per case."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(cases)
    fig, axes = plt.subplots(2, n, figsize=(3.3 * n + 0.6, 6.2), squeeze=False,
                             constrained_layout=True)
    for j, (title, doc, simulated) in enumerate(cases):
        rows = rows_of(doc)
        names = [r["algorithm"] for r in rows]
        colours = [COLOURS.get(a, OTHER_COLOUR) for a in names]
        x = range(len(rows))
        top, bottom = axes[0][j], axes[1][j]
        top.bar(x, [r["mean_elapsed_ms"] for r in rows], color=colours,
                yerr=[r.get("stddev_ms") or 0 for r in rows], capsize=3, error_kw={"lw": 0.8})
        bottom.bar(x, [r.get("post_arrival_over_delta") or 0 for r in rows], color=colours)
        cfg = doc["config"]
        where = ("simulated: SMPI %s, %d ranks" % (cfg.get("platform", "?"), cfg["p"]) if simulated
                 else "this machine: %d ranks, %s" % (cfg["p"],
                                                     cfg.get("mpi_library", "MPI").split(",")[0]))
        v = auto_verdict(doc)
        ratio = ("auto %.2fx %s" % (v["ratio"], LIBRARY_CALL.get(cfg["op"], "native"))
                 if v is not None and v.get("ratio") is not None else "auto: no verdict")
        top.set_title("%s\n%s\n%s" % (title, where, ratio), fontsize=9)
        if simulated:
            for ax in (top, bottom):
                ax.set_facecolor("#eef3f8")
        for ax in (top, bottom):
            ax.set_xticks(list(x))
            ax.set_xticklabels(names, rotation=45, ha="right", fontsize=8)
            ax.tick_params(axis="y", labelsize=8)
        if j == 0:
            top.set_ylabel("mean elapsed (ms)\n(own arrival to own finish)")
            bottom.set_ylabel("P / delta\n(after the last arrival, in messages)")
    fig.suptitle("papcoll-bench: the MPI library's collective (native, grey), papcoll's auto "
                 "(orange) and papcoll's other algorithms (blue); simulated cases shaded",
                 fontsize=10)
    fig.savefig(out_path, dpi=100)
    plt.close(fig)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--machine", nargs="+", default=[], metavar="FILE")
    ap.add_argument("--sim", metavar="FILE")
    ap.add_argument("--sim-platform", default="?", metavar="NAME",
                    help="the simulated run's platform (sim/platforms/NAME.xml)")
    ap.add_argument("--sim-note", default="", metavar="TEXT",
                    help="what the simulated run is (ranks, network, delay), for its heading")
    ap.add_argument("--machine-note", default="", metavar="TEXT",
                    help="what this machine's runs are, for their heading")
    ap.add_argument("--report", metavar="FILE")
    ap.add_argument("--report-run", default="run with one rank late", metavar="TEXT")
    ap.add_argument("--png", required=True, metavar="OUT")
    args = ap.parse_args(argv)

    ok = True
    cases = []
    print("== What papcoll changed (papcoll-bench's verdicts: auto against the MPI library's "
          "collective; below 1x papcoll is faster)")
    if args.machine:
        print("On this machine%s:" % (" (%s)" % args.machine_note if args.machine_note else ""))
    for path in args.machine:
        doc = load(path)
        title = case_title(doc, False)
        cases.append((title, doc, False))
        v = auto_verdict(doc)
        if v is None:
            print("  %s: no verdict for auto in %s" % (title, path))
            ok = False
        else:
            print("  %s" % v["text"])
    if args.sim:
        doc = load(args.sim)
        doc["config"]["platform"] = args.sim_platform
        title = case_title(doc, True)
        cases.append((title, doc, True))
        print("Simulated with SimGrid SMPI (%s):" % (args.sim_note or args.sim_platform))
        v = auto_verdict(doc)
        if v is None:
            print("  %s: no verdict for auto in %s" % (title, args.sim))
            ok = False
        else:
            print("  %s" % v["text"])
    if args.report:
        with open(args.report) as f:
            report = json.load(f)
        for line in straggler_lines(report, args.report_run):
            print(line)
        print("  the whole report: /usr/bin/python3 scripts/papcoll-report %s --png %s" % (
            args.report, os.path.splitext(args.report)[0] + ".png"))
    if cases:
        draw(cases, args.png)
        print("picture (mean elapsed and P/delta per algorithm, every case above): %s" % args.png)
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (OSError, ValueError, KeyError) as e:
        print("bench_summary: %s" % e, file=sys.stderr)
        sys.exit(1)
