"""The PNG: which ranks and which phases lose time, in one glance.

Left: a heatmap of the mean lateness of each rank (rows) in each window of consecutive calls
(columns), in ms after the earliest rank, and beside it, row by row, each rank's mean lateness
over all calls (the latest rank in red, its row label too): a straggler is a dark row and the
longest bar even where the machine's noise speckles the heatmap. The figure's title names it. Right, top:
the time each rank lost waiting for later ranks, summed over the calls. Right, bottom: the
distribution of the per-call waiting time.
"""
import math

from .load import pick_communicator
from .summary import comm_title


def _lateness_matrix(comm):
    windows = comm.get("windows", [])
    p = comm.get("size", 0)
    rows = [[math.nan] * len(windows) for _ in range(p)]
    for j, w in enumerate(windows):
        for r, x in enumerate(w.get("lateness_s", [])[:p]):
            rows[r][j] = math.nan if x is None else 1e3 * x
    return rows, windows


def draw(doc, out_path, comm_id=None, top=5):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    comm = pick_communicator(doc, comm_id)
    if comm is None:
        raise ValueError("the report has no communicator to draw")
    p = comm["size"]
    rows, windows = _lateness_matrix(comm)
    ranks = comm.get("ranks", [])
    stragglers = comm.get("stragglers", [])[:max(1, top)]

    fig = plt.figure(figsize=(14, 4.8 + 0.12 * min(p, 64)), constrained_layout=True)
    grid = fig.add_gridspec(2, 3, width_ratios=[2.2, 0.45, 1])
    ax = fig.add_subplot(grid[:, 0])
    axm = fig.add_subplot(grid[:, 1], sharey=ax)
    m = np.array(rows, dtype=float) if rows and windows else np.zeros((max(p, 1), 1))
    finite = m[np.isfinite(m)]
    vmax = float(np.percentile(finite, 99)) if finite.size else 1.0
    im = ax.imshow(np.ma.masked_invalid(m), aspect="auto", interpolation="nearest", cmap="magma_r",
                   vmin=0, vmax=vmax if vmax > 0 else 1.0, origin="lower")
    fig.colorbar(im, ax=[ax, axm], label="mean lateness after the earliest rank (ms)")
    ax.set_ylabel("rank")
    if windows:
        ticks = np.linspace(0, len(windows) - 1, min(len(windows), 8)).round().astype(int)
        ax.set_xticks(ticks)
        ax.set_xticklabels([str(windows[t]["first_call"]) for t in ticks])
    sizes = sorted({w["last_call"] - w["first_call"] + 1 for w in windows})
    ax.set_xlabel("call (first call of each window of %s)" % (
        "-" if not sizes else "1 call" if sizes == [1] else "%d calls" % sizes[0]
        if len(sizes) == 1 else "%d-%d calls" % (sizes[0], sizes[-1])))
    if p <= 32:
        ax.set_yticks(range(p))

    def mean_ms(r):
        return 1e3 * ((ranks[r]["lateness_s"]["mean"] or 0.0) if r < len(ranks) else 0.0)

    latest = stragglers[0] if stragglers and ranks else None
    if latest is not None:
        s = ranks[latest]
        head = "straggler: rank %d%s, %.3g ms late on average, last in %s of the calls" % (
            latest, "" if s.get("world_rank") in (None, latest) else
            " (world rank %d)" % s["world_rank"], mean_ms(latest),
            "%.0f %%" % (100 * s["last_share"]) if s.get("last_share") is not None else "-")
        rest = ", ".join("rank %d (%.3g ms)" % (r, mean_ms(r)) for r in stragglers[1:3])
        fig.suptitle("%s: %s%s" % (comm_title(comm), head, "; next: " + rest if rest else ""),
                     fontsize=11)
    else:
        fig.suptitle(comm_title(comm), fontsize=11)
    ax.set_title("lateness per rank over calls", fontsize=10)
    if latest is not None and p <= 32:
        for label in ax.get_yticklabels():
            if label.get_text() == str(latest):
                label.set_color("tab:red")
                label.set_fontweight("bold")

    axm.barh(range(p), [mean_ms(r) for r in range(p)], height=0.6,
             color=["tab:red" if r == latest else "tab:gray" for r in range(p)])
    axm.set_xlabel("mean lateness,\nall calls (ms)")
    axm.set_title("who is late", fontsize=10)
    axm.tick_params(axis="y", labelleft=False)
    axm.set_xlim(left=0)

    ax2 = fig.add_subplot(grid[0, 2])
    waited = [ranks[r].get("wait_total_s") or 0.0 for r in range(p)] if ranks else [0.0] * p
    colors = ["tab:red" if r in stragglers[:1] else "tab:blue" for r in range(p)]
    ax2.barh(range(p), waited, color=colors)
    ax2.set_xlabel("time lost waiting for later ranks, all calls (s)")
    ax2.set_ylabel("rank")
    if p <= 32:
        ax2.set_yticks(range(p))
    ax2.set_title("who waits (red: the latest rank)", fontsize=10)

    ax3 = fig.add_subplot(grid[1, 2])
    edges = doc.get("wait_histogram_upper_edges_s", [])
    if edges and ranks:
        lows = [edges[0] / 10] + edges  # a lower edge for every bin; the last bin is open
        centers = [math.sqrt(lo * hi) for lo, hi in zip(lows[:-1], lows[1:])] + [lows[-1] * 3]
        total = np.zeros(len(centers))
        for r in range(p):
            h = np.array((ranks[r].get("wait_histogram") or [0] * len(centers))[:len(centers)],
                         dtype=float)
            total[:len(h)] += h
        weights = [c * t for c, t in zip(centers, total)]  # time lost in each bin
        ax3.bar(range(len(centers)), weights, color="tab:gray")
        labels = [("%.0e" % c).replace("e-0", "e-").replace("e+0", "e") for c in centers]
        step = max(1, len(centers) // 8)
        ax3.set_xticks(range(0, len(centers), step))
        ax3.set_xticklabels(labels[::step], fontsize=7)
        ax3.set_xlabel("waiting time of one rank in one call (s)")
        ax3.set_ylabel("time lost (s)")
        ax3.set_title("where the waiting time goes (all ranks)", fontsize=10)
    else:
        ax3.set_axis_off()
    fig.savefig(out_path, dpi=110)
    plt.close(fig)
    return out_path
