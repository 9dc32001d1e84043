#!/usr/bin/env python3
"""Data-parallel training with PyTorch DistributedDataParallel and stragglers: DDP's own
allreduce_hook (Gloo) against papcoll's exact comm hook and its bounded-staleness hook
(docs/training.md).

    mpirun -np 4 python examples/train_torch.py --variants ddp,papcoll,stale1 \\
        --stragglers random,persistent --delay-ms 50 --epochs 12 --repeats 3 \\
        --json results.json --plot accuracy.png

A small CNN (two 3x3 convolutions, max-pooling, two linear layers; 38 890 float32 parameters,
one DDP bucket) on scikit-learn's digits (8x8 images: 1 437 training, 360 test images, fixed
split), plain SGD with momentum, 16 images per rank per step. Every variant starts from the same
weights and sees the same batches in the same order (fixed seeds; step s gives rank r rows r::p
of the step's slice of the epoch's permutation), so they differ only in the gradient all-reduce:

  ddp       DDP with torch's default_hooks.allreduce_hook over the Gloo process group
  papcoll   papcoll.torch's exact hook (papcoll.allreduce, algorithm auto, arrival history);
            papcoll-ALGO: with that algorithm and no monitor (papcoll-native: MPI_Allreduce)
  staleS    papcoll.torch's bounded-staleness hook with staleness S (e.g. stale1): a step's
            all-reduce does not wait for ranks later than --deadline-ms after the first; their
            gradients join a later step, at most S steps later

Stragglers (--stragglers, one or more, each a separate set of runs): "random": one rank, drawn
anew each step (the same draw on every rank), sleeps --delay-ms before its forward pass;
"persistent": rank 1 does so every step; "none".

Measured per run: time per step (rank 0's, median over the steps), total training time (from a
barrier before the first step to one after the last), test accuracy every --eval-every steps
against rank 0's training time (parameters copied at that point, evaluated after the run: they are
the same on every rank), final accuracy, the time to reach the target accuracy (the "ddp" run's
final accuracy of the same repeat minus --target-slack), and from papcoll's straggler report
(PAPCOLL_REPORT, set below when --report is given) each rank's share of the steps in which it
arrived last and how often the rank that arrived last was the injected one. With --repeats R the
variants run interleaved R times; the summary gives medians and ratios to "ddp".
"""
import argparse
import json
import os
import statistics
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


def _arg_value(argv, name):
    for i, a in enumerate(argv):
        if a == name and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith(name + "="):
            return a[len(name) + 1:]
    return None


# libpapcoll reads PAPCOLL_REPORT once, when it is loaded: set it before papcoll is imported. Every
# call of a run is logged (PAPCOLL_REPORT_SAMPLES), so every step can be named.
if _arg_value(sys.argv[1:], "--report") and not os.environ.get("PAPCOLL_REPORT"):
    os.environ["PAPCOLL_REPORT"] = _arg_value(sys.argv[1:], "--report")
    os.environ.setdefault("PAPCOLL_REPORT_SAMPLES", "65536")

import numpy as np  # noqa: E402
from mpi4py import MPI  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks  # noqa: E402
from torch.nn.parallel import DistributedDataParallel as DDP  # noqa: E402

import papcoll  # noqa: E402
import papcoll.torch as ptorch  # noqa: E402


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", default="ddp,papcoll,stale1")
    ap.add_argument("--stragglers", default="random", help="comma-separated: random, persistent, none")
    ap.add_argument("--delay-ms", type=float, default=50.0)
    ap.add_argument("--deadline-ms", type=float, default=2.0,
                    help="staleS: how long a step waits for the others after the first rank")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--batch", type=int, default=16, help="images per rank per step")
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--papcoll-wait", choices=("auto", "spin", "sleep"), default="auto",
                    help="the exact hook's wait (docs/training.md): auto = sleep when ranks "
                         "share cores")
    ap.add_argument("--eval-every", type=int, default=4, help="steps between accuracy points")
    ap.add_argument("--target-slack", type=float, default=0.01,
                    help="target accuracy = ddp's final accuracy minus this")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--json", default=None, help="write everything as JSON to FILE (rank 0)")
    ap.add_argument("--plot", default=None, help="draw accuracy against time to FILE (PNG)")
    ap.add_argument("--report", metavar="FILE", default=None,
                    help="papcoll's straggler report of every papcoll call, written to FILE after "
                         "each run (cumulative); its per-step \"arrived last\" is summarised")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    args.variants = args.variants.split(",")
    args.stragglers = args.stragglers.split(",")
    for v in args.variants:
        if v not in ("ddp", "papcoll") and not v.startswith("papcoll-") and \
                not (v.startswith("stale") and v[5:].isdigit()):
            ap.error("unknown variant %r" % v)
    return args


def load_data(seed):
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    d = load_digits()
    X = (d.data / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)
    y = d.target.astype(np.int64)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, random_state=seed, stratify=y)
    return (torch.from_numpy(Xtr), torch.from_numpy(Xte), torch.from_numpy(ytr),
            torch.from_numpy(yte))


class CNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(1, 16, 3, padding=1)
        self.c2 = torch.nn.Conv2d(16, 32, 3, padding=1)
        self.f1 = torch.nn.Linear(32 * 4 * 4, 64)
        self.f2 = torch.nn.Linear(64, 10)

    def forward(self, x):
        x = F.relu(self.c1(x))
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.f2(F.relu(self.f1(x.flatten(1))))


def late_rank(mode, step, p, seed):
    if mode == "none" or p < 2:
        return None
    if mode == "persistent":
        return 1
    return int(np.random.default_rng([seed, step]).integers(p))


def accuracy(model, params, X, y):
    with torch.no_grad():
        for q, v in zip(model.parameters(), params):
            q.copy_(v)
        return float((model(X).argmax(1) == y).float().mean())


def train(comm, args, variant, mode, data):
    rank, p = comm.Get_rank(), comm.Get_size()
    Xtr, Xte, ytr, yte = data
    torch.manual_seed(args.seed)
    net = CNN()
    model = DDP(net)
    state = None
    # The synchronous hooks are timed (entry and completion on the machine's monotonic clock,
    # common to the ranks of one host) for P, the post-arrival time (docs/papcoll-bench.md): per
    # step, the mean over ranks of (own completion - the last rank's entry).
    spans, ran = [], set()

    def timed(hook):
        def run(st, bucket):
            t = time.monotonic()
            fut = hook(st, bucket)
            fut.wait()                  # one bucket: DDP would wait for it right after anyway
            spans.append((t, time.monotonic()))
            if st is not None:
                ran.add(papcoll.last_algorithm())
            return fut
        return run

    if variant == "ddp":
        model.register_comm_hook(None, timed(default_hooks.allreduce_hook))
    elif variant.startswith("papcoll"):
        # "papcoll": auto with the arrival history; "papcoll-ALGO": that algorithm, no monitor.
        algorithm = variant[len("papcoll-"):] if "-" in variant else "auto"
        state = ptorch.PapcollHook(comm, algorithm=algorithm,
                                   monitor="history" if algorithm == "auto" else None,
                                   wait=args.papcoll_wait)
        model.register_comm_hook(state, timed(ptorch.allreduce_hook))
    else:
        state = ptorch.register(model, comm, staleness=int(variant[5:]),
                                deadline=args.deadline_ms / 1000.0)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    global_batch = args.batch * p
    steps_per_epoch = len(Xtr) // global_batch
    delay = args.delay_ms / 1000.0
    points, step_ends, injected = [], [], []
    snap = lambda: [q.detach().clone() for q in model.parameters()]  # noqa: E731
    step = 0
    comm.Barrier()
    t0 = time.perf_counter()
    points.append((0.0, 0, snap()))
    for epoch in range(args.epochs):
        order = np.random.default_rng([args.seed, epoch]).permutation(len(Xtr))
        for s in range(steps_per_epoch):
            rows = torch.from_numpy(order[s * global_batch:(s + 1) * global_batch][rank::p])
            late = late_rank(mode, step, p, args.seed)
            injected.append(late)
            if late == rank:
                time.sleep(delay)
            opt.zero_grad()
            F.cross_entropy(model(Xtr[rows]), ytr[rows]).backward()
            opt.step()
            step += 1
            now = time.perf_counter() - t0
            step_ends.append(now)
            if rank == 0 and step % args.eval_every == 0:
                points.append((now, step, snap()))
    flushed = 0
    if state is not None:
        flushed = state.flush()
        if flushed:
            opt.step()
    comm.Barrier()
    total = time.perf_counter() - t0
    final = snap()
    points.append((total, step, final))
    contributions = list(state.contributions) if state is not None else []
    calls = state.calls if state is not None else 0
    if state is not None:
        state.close()
    out = {"variant": variant, "stragglers": mode, "steps": step, "total_s": total,
           "calls": calls, "flushed": flushed, "injected": injected, "ran": sorted(ran),
           "wait": getattr(state, "wait", None)}
    gaps = np.diff([0.0] + step_ends)
    out["step_ms"] = 1000.0 * total / max(step, 1)     # what the summary compares
    out["step_ms_median"] = 1000.0 * float(np.median(gaps))
    if spans:
        every = comm.allgather(spans)
        post = [np.mean([every[q][k][1] for q in range(p)]) - max(every[q][k][0] for q in range(p))
                for k in range(len(spans))]
        out["post_arrival_ms"] = 1000.0 * float(np.mean(post))
        out["post_arrival_ms_median"] = 1000.0 * float(np.median(post))
    if contributions:
        out["contributions_mean"] = float(np.mean(contributions))
        out["steps_without_someone"] = int(sum(1 for n in contributions if n < p))
    if rank == 0:
        out["curve"] = [(t, k, accuracy(net, ps, Xte, yte)) for t, k, ps in points]
        out["final_accuracy"] = out["curve"][-1][2]
    # Every rank holds the same parameters, whatever the hook.
    digest = float(sum(q.double().sum() for q in final))
    out["same_parameters_on_every_rank"] = len(set(comm.allgather(digest))) == 1
    return out


def report_summary(path, comm_size, runs_before, run):
    """The straggler report's per-step view of one run: its calls are the last run["calls"] of
    the report's MPI_COMM_WORLD (every papcoll call of every earlier run came before them)."""
    with open(path) as f:
        rep = json.load(f)
    world = next(c for c in rep["communicators"] if c["name"] == "MPI_COMM_WORLD")
    last = world.get("last_arrivals", {"calls": [], "ranks": []})
    first_call = runs_before + 1
    named = {c: r for c, r in zip(last["calls"], last["ranks"])
             if first_call <= c < first_call + run["calls"]}
    shares = [0] * comm_size
    hits = considered = 0
    for i, late in enumerate(run["injected"]):
        c = first_call + i                     # one bucket: one call per step
        if c not in named:
            continue
        shares[named[c]] += 1
        if late is not None:
            considered += 1
            hits += named[c] == late
    logged = max(1, len(named))
    return {"arrived_last_share": [s / logged for s in shares], "logged_steps": len(named),
            "named_the_injected_rank": hits / considered if considered else None,
            "steps_with_an_injected_rank": considered}


def time_to(curve, target):
    for t, _, acc in curve:
        if acc >= target:
            return t
    return None


def main(argv=None, comm=MPI.COMM_WORLD):
    args = parse_args(argv)
    torch.set_num_threads(1)
    ptorch.init_process_group(comm)
    rank, p = comm.Get_rank(), comm.Get_size()
    data = load_data(args.seed)
    say = print if rank == 0 else (lambda *a, **k: None)
    n_params = sum(q.numel() for q in CNN().parameters())
    say("train_torch: p=%d, CNN with %d parameters, %d train / %d test images, batch %d per rank, "
        "%d epochs, stragglers %s, delay %.0f ms, deadline %.1f ms" %
        (p, n_params, len(data[0]), len(data[1]), args.batch, args.epochs,
         ",".join(args.stragglers), args.delay_ms, args.deadline_ms))
    # delta = alpha + n beta, one message of the whole gradient under papcoll's measured network
    # parameters (papcoll.calibrate: collective, settled before any timed step).
    net = papcoll.calibrate(comm)
    delta = net["alpha"] + 4 * n_params * net["beta"]
    say("network (papcoll.calibrate, %s): alpha %.2f us, beta %.3f ns/B; delta (%d B) %.3f ms" %
        (net["source"], 1e6 * net["alpha"], 1e9 * net["beta"], 4 * n_params, 1e3 * delta))
    runs, papcoll_calls = [], 0
    for rep in range(args.repeats):
        for mode in args.stragglers:
            for variant in args.variants:
                r = train(comm, args, variant, mode, data)
                r["repeat"] = rep
                if args.report and r["calls"]:
                    t = time.perf_counter()
                    papcoll.write_report(args.report)  # collective; cumulative
                    written = time.perf_counter() - t
                    if rank == 0:
                        r["report"] = report_summary(args.report, p, papcoll_calls, r)
                        r["report"]["write_s"] = written
                papcoll_calls += r["calls"]
                runs.append(r)
                if rank == 0 and not args.quiet:
                    extra = ""
                    if "report" in r:
                        rs = r["report"]
                        extra = ", arrived last: %s" % " ".join(
                            "%d:%.0f%%" % (q, 100 * s) for q, s in
                            enumerate(rs["arrived_last_share"]))
                        if rs["named_the_injected_rank"] is not None:
                            extra += " (the injected rank in %.1f %% of %d steps)" % (
                                100 * rs["named_the_injected_rank"],
                                rs["steps_with_an_injected_rank"])
                    say("  %-10s %-10s run %d: %.3f s, %.1f ms per step, accuracy %.4f%s%s"
                        % (mode, variant, rep, r["total_s"], r["step_ms"],
                           r["final_accuracy"],
                           "" if "contributions_mean" not in r else
                           ", %.2f gradients per step, %d steps went on without someone" %
                           (r["contributions_mean"], r["steps_without_someone"]), extra))
    if rank != 0:
        return None
    summary = {}
    for mode in args.stragglers:
        ref = {r["repeat"]: r for r in runs if r["stragglers"] == mode and r["variant"] == "ddp"}
        for variant in args.variants:
            mine = [r for r in runs if r["stragglers"] == mode and r["variant"] == variant]
            for r in mine:
                if r["repeat"] in ref:
                    target = ref[r["repeat"]]["final_accuracy"] - args.target_slack
                    r["target_accuracy"] = target
                    r["time_to_target_s"] = time_to(r["curve"], target)
            s = {"median_total_s": statistics.median(r["total_s"] for r in mine),
                 "median_step_ms": statistics.median(r["step_ms"] for r in mine),
                 "final_accuracy": [r["final_accuracy"] for r in mine],
                 "same_parameters_on_every_rank": all(r["same_parameters_on_every_rank"]
                                                      for r in mine)}
            if all("post_arrival_ms" in r for r in mine) and mine:
                s["median_post_arrival_ms"] = statistics.median(r["post_arrival_ms"] for r in mine)
                s["post_arrival_over_delta"] = s["median_post_arrival_ms"] / 1000.0 / delta
            tt = [r.get("time_to_target_s") for r in mine]
            if all(t is not None for t in tt) and tt:
                s["median_time_to_target_s"] = statistics.median(tt)
            if all("report" in r for r in mine) and mine:
                s["arrived_last_share"] = [statistics.median(r["report"]["arrived_last_share"][q]
                                                             for r in mine) for q in range(p)]
                named = [r["report"]["named_the_injected_rank"] for r in mine]
                if all(x is not None for x in named):
                    s["named_the_injected_rank"] = min(named)
            summary["%s/%s" % (mode, variant)] = s
        base = summary.get("%s/ddp" % mode)
        if base:
            for variant in args.variants:
                s = summary["%s/%s" % (mode, variant)]
                s["ddp_over_variant_total"] = base["median_total_s"] / s["median_total_s"]
                s["ddp_over_variant_step"] = base["median_step_ms"] / s["median_step_ms"]
                pairs = [(a["time_to_target_s"], b["time_to_target_s"])
                         for a in runs for b in runs
                         if a["stragglers"] == mode == b["stragglers"] and a["variant"] == "ddp"
                         and b["variant"] == variant and a["repeat"] == b["repeat"]
                         and a.get("time_to_target_s") and b.get("time_to_target_s")]
                if pairs:
                    s["ddp_over_variant_time_to_target"] = statistics.median(a / b for a, b in pairs)
    say("summary (median of %d repeat%s; ratios: ddp / variant):" %
        (args.repeats, "s" if args.repeats > 1 else ""))
    for key, s in summary.items():
        say("  %-22s step %6.1f ms  %s total %6.2f s  to target %s  accuracy %s  %s%s" % (
            key, s["median_step_ms"],
            "P %.3f ms (%.2f delta)" % (s["median_post_arrival_ms"], s["post_arrival_over_delta"])
            if "median_post_arrival_ms" in s else "",
            s["median_total_s"],
            "%.2f s" % s["median_time_to_target_s"] if "median_time_to_target_s" in s else "-",
            ",".join("%.4f" % a for a in s["final_accuracy"]),
            "" if "ddp_over_variant_total" not in s else
            "ratios: step %.3f, total %.3f, to target %s" % (
                s["ddp_over_variant_step"], s["ddp_over_variant_total"],
                "%.3f" % s["ddp_over_variant_time_to_target"]
                if "ddp_over_variant_time_to_target" in s else "-"),
            "" if "arrived_last_share" not in s else "  arrived last: " + " ".join(
                "%d:%.0f%%" % (q, 100 * x) for q, x in enumerate(s["arrived_last_share"]))))
    result = {"p": p, "args": vars(args), "parameters": n_params, "runs": runs, "network": net,
              "delta_ms": 1000.0 * delta,
              "summary": summary, "torch": torch.__version__,
              "mpi": MPI.Get_library_version().splitlines()[0]}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    if args.plot:
        plot(result, args.plot)
    return result


def plot(result, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    modes = result["args"]["stragglers"]
    fig, axes = plt.subplots(1, len(modes), figsize=(5.5 * len(modes), 4), squeeze=False)
    colors = {"ddp": "tab:gray", "papcoll": "tab:blue"}
    for ax, mode in zip(axes[0], modes):
        for variant in result["args"]["variants"]:
            mine = [r for r in result["runs"] if r["stragglers"] == mode and r["variant"] == variant]
            for i, r in enumerate(mine):
                t = [c[0] for c in r["curve"]]
                a = [100 * c[2] for c in r["curve"]]
                color = colors.get(variant, "tab:red")
                ax.plot(t, a, color=color, alpha=1.0 if i == 0 else 0.35,
                        lw=1.6 if i == 0 else 0.8, label=variant if i == 0 else None)
                ax.plot(t[-1:], a[-1:], "o", color=color, alpha=1.0 if i == 0 else 0.35, ms=4)
            targets = [r["target_accuracy"] for r in mine if "target_accuracy" in r]
        if targets:
            ax.axhline(100 * statistics.median(targets), color="k", ls=":", lw=0.8,
                       label="target (ddp final - 1 pt)")
        ax.set_ylim(80, 100)
        ax.set_xlabel("training time (s, rank 0); o: end of the run")
        ax.set_ylabel("test accuracy (%)")
        ax.set_title("%d ranks, straggler: %s, %.0f ms" % (result["p"], mode,
                                                           result["args"]["delay_ms"]))
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1:])
