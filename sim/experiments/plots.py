"""PNG plots of the experiment JSON documents (matplotlib, Agg backend). Used by the experiment
scripts (plots beside their JSON) and by report.py (plots under docs/results/)."""
import os

from common import rows_of, slowest_rank_ms


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _series(rows, x_key, label_key="variant", metric=None):
    series = {}
    for r in rows:
        y = metric(r) if metric else r.get("mean_elapsed_ms")
        if y is None:
            continue
        series.setdefault(r[label_key], []).append((r[x_key], y,
                                                    0.0 if metric else r.get("stddev_ms") or 0.0))
    return {k: sorted(v) for k, v in series.items()}


def line_plot(path, title, rows, x_key, xlabel, paper=None, logx=False, logy=False,
              label_key="variant", ylabel="mean elapsed time (ms)", xfmt=None, metric=None):
    """rows: papcoll-bench rows; paper: {label: [(x, y), ...]} drawn dashed."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    colors = {}
    series = sorted(_series(rows, x_key, label_key, metric).items())
    cmap = plt.get_cmap("tab20") if len(series) > 10 else None
    for i, (label, pts) in enumerate(series):
        xs, ys, es = zip(*pts)
        style = {"color": cmap(i % 20)} if cmap else {}
        if "+homog" in label:
            style["ls"] = ":"
        line = ax.errorbar(xs, ys, yerr=es, marker="o", ms=3, capsize=2, label=f"{label} (sim)",
                           **style)
        colors[label] = line[0].get_color()
    for label, pts in sorted((paper or {}).items()):
        pts = [p for p in pts if p[1] is not None]
        if not pts:
            continue
        xs, ys = zip(*sorted(pts))
        ax.plot(xs, ys, ls="--", marker="x", ms=4, color=colors.get(label),
                label=f"{label} (paper)")
    if logx:
        ax.set_xscale("log", base=2)
    if logy:
        ax.set_yscale("log")
    if xfmt:
        ax.set_xticks(sorted({r[x_key] for r in rows}))
        ax.set_xticklabels([xfmt(x) for x in sorted({r[x_key] for r in rows})], fontsize=7)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def size_label(n):
    for unit, mult in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= mult and n % mult == 0:
            return f"{n // mult}{unit}"
    return str(n)


def table3_plot(path, rows, t3):
    """Left: mean elapsed time; right: speed-up over the ring; paper dashed, x symlog."""
    plt = _plt()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2))
    ring = {r["max_delay_ms"]: r["mean_elapsed_ms"] for r in rows if r["variant"] == "ring"}
    colors = {}
    for label, pts in sorted(_series(rows, "max_delay_ms").items()):
        xs, ys, es = zip(*pts)
        line = a1.errorbar(xs, ys, yerr=es, marker="o", ms=3, capsize=2, label=f"{label} (sim)")
        colors[label] = line[0].get_color()
        sx = [x for x in xs if ring.get(x)]
        a2.plot(sx, [ring[x] / y for x, y in zip(xs, ys) if ring.get(x)], marker="o", ms=3,
                color=colors[label], label=f"{label} (sim)")
    pr = dict(zip(t3["delays_ms"], t3["mean_ms"]["ring"]))
    for label, ys in sorted(t3["mean_ms"].items()):
        a1.plot(t3["delays_ms"], ys, ls="--", marker="x", ms=4, color=colors.get(label),
                label=f"{label} (paper)")
        a2.plot(t3["delays_ms"], [pr[d] / y for d, y in zip(t3["delays_ms"], ys)], ls="--",
                marker="x", ms=4, color=colors.get(label), label=f"{label} (paper)")
    for ax in (a1, a2):
        ax.set_xscale("symlog", linthresh=1)
        ax.set_xlabel("delay of the late rank (ms)")
        ax.grid(alpha=0.3)
    a1.set_yscale("log")
    a1.set_ylabel("mean elapsed time (ms)")
    a2.set_ylabel("speed-up over the ring")
    a2.axhline(1, color="k", lw=0.5)
    a1.set_title("all-reduce, 48 ranks (gige-48), 1M floats, one late rank", fontsize=10)
    a2.set_title("speed-up e_ring / e_alg (Table 3)", fontsize=10)
    a2.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_allreduce(doc, out):
    pngs = []
    paper = doc.get("paper", {})
    rows = rows_of(doc, "table3")
    if rows:
        pngs.append(table3_plot(os.path.join(out, "allreduce_table3.png"), rows,
                                paper["table3"]))
    rows = rows_of(doc, "table4")
    if rows:
        # e_PRR - e_ring per size and delay, paper vs simulated
        plt = _plt()
        fig, ax = plt.subplots(figsize=(7, 4.2))
        by = {}
        for r in rows:
            by[(r["variant"], r["count"], r["max_delay_ms"])] = r["mean_elapsed_ms"]
        delays = sorted({r["max_delay_ms"] for r in rows})
        prr = "prr+tau" if any(r["variant"] == "prr+tau" for r in rows) else "prr"
        for c in sorted({r["count"] for r in rows}):
            xs, ys = [], []
            for d in delays:
                a, b = by.get((prr, c, d)), by.get(("ring", c, d))
                if a is not None and b is not None:
                    xs.append(d)
                    ys.append(a - b)
            if xs:
                line = ax.plot(xs, ys, marker="o", label=f"{size_label(c)} (sim, {prr})")
                pd = paper["table4"]["diff_ms"].get(str(c // 1024))
                if pd:
                    ax.plot(paper["table4"]["delays_ms"], pd, ls="--", marker="x",
                            color=line[0].get_color(), label=f"{size_label(c)} (paper)")
        ax.axhline(0, color="k", lw=0.5)
        ax.set_xscale("symlog", linthresh=1)
        ax.set_xlim(left=0)
        ax.set_xlabel("delay of the late rank (ms)")
        ax.set_ylabel("e_PRR - e_ring (ms)")
        ax.set_title("PRR minus ring, 48 ranks, one late rank (Table 4)", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
        fig.tight_layout()
        pngs.append(os.path.join(out, "allreduce_table4.png"))
        fig.savefig(pngs[-1], dpi=110)
        plt.close(fig)
    rows = rows_of(doc, "fig12")
    if rows:
        pngs.append(line_plot(os.path.join(out, "allreduce_fig12.png"),
                              "all-reduce scaling, 1M floats, one rank 100 ms late (Fig. 12)",
                              rows, "p", "processes", logx=True))
    return pngs


def plot_reduce(doc, out):
    pngs = []
    rows = rows_of(doc, "fig10")
    if rows:
        pngs.append(line_plot(os.path.join(out, "reduce_fig10.png"),
                              "reduce, 48 ranks, 512K floats, random delays (Clairvoyant Fig. 10)",
                              rows, "max_delay_ms", "maximum delay (ms)"))
    rows = rows_of(doc, "fig11")
    if rows:
        pngs.append(line_plot(os.path.join(out, "reduce_fig11.png"),
                              "reduce, 128K floats, random delays up to 50 ms (Fig. 11)",
                              rows, "p", "processes"))
    return pngs


def plot_bcast(doc, out):
    pngs = []
    for suffix, what in (("", ""), ("-net", ", network only")):
        rows = rows_of(doc, "fig1" + suffix)
        if rows:
            pngs.append(line_plot(os.path.join(out, f"bcast_fig1{suffix}.png"),
                                  f"broadcast, 36 ranks (opa-36), MPI_INT{what} (Fig. 1)",
                                  rows, "count", "elements", logx=True, logy=True,
                                  xfmt=size_label))
        for shape in ("regular", "irregular", "degenerate"):
            rows = rows_of(doc, "fig2-" + shape + suffix)
            if rows:
                pngs.append(line_plot(os.path.join(out, f"allgatherv_{shape}{suffix}.png"),
                                      f"all-gatherv, {shape}, 36 ranks (opa-36){what} (Figs. 2-3)",
                                      rows, "count", "elements in all", logx=True, logy=True,
                                      xfmt=size_label))
    return pngs


def plot_scatter_gather(doc, out):
    pngs = []
    for part in sorted({r["part"] for run in doc.get("runs", []) for r in run["rows"]}):
        rows = rows_of(doc, part)
        per_rank = any(r.get("per_rank_mean_ms") for r in rows)
        pngs.append(line_plot(os.path.join(out, f"sg_{part}.png"),
                              f"{part} on g5k-2sites-39 (39 ranks)", rows, "count",
                              "elements in all", logx=True, logy=True, xfmt=size_label,
                              metric=slowest_rank_ms if per_rank else None,
                              ylabel=("completion: slowest rank's mean (ms)" if per_rank
                                      else "mean elapsed time (ms)")))
    return pngs


PLOTTERS = {"allreduce": plot_allreduce, "reduce": plot_reduce, "bcast": plot_bcast,
            "scatter_gather": plot_scatter_gather}
