#!/usr/bin/env python3
"""Data-parallel training of a small MLP (numpy) on scikit-learn's digits, with the gradients
averaged every step by papcoll.allreduce or by mpi4py's comm.Allreduce (the MPI library's own),
and injected stragglers. The setting of Section 6 of Proficz's SLT/PRR paper (a CNN on CIFAR-10,
parameters averaged after every iteration, edge() called before the last layer) at laptop scale.

    mpirun -np 4 python examples/train_digits.py --variants native,ring,prr --stragglers 1 \
        --delay-ms 20 --epochs 10 --repeats 3 --json results.json

Every variant trains from the same initial weights on the same mini-batches (fixed seeds; the
training set is sharded over the ranks: step s of epoch e gives rank r rows r::p of the s-th slice
of the epoch's permutation), so the variants differ only in the all-reduce. A step: forward pass,
backward pass, all-reduce (sum) of the flat gradient vector in place, divide by p, SGD update on
every rank. A straggler sleeps --delay-ms per step, half before and half after the monitor's
edge(0.5), which is called when the backward pass has done the output layer (about half of the
computation), so the edge estimate predicts its arrival.

Variants: "native" (comm.Allreduce) and any papcoll allreduce algorithm ("auto", "prr", "slt",
"ring", "rabenseifner", ...); with --monitor auto (default) the algorithms that use arrival times
(auto, late-fold, prr, slt) get a papcoll.Monitor (edge mode). Prints per-epoch times, total
time, mean time in the all-reduce per step and the test accuracy per variant and run, then the
medians over --repeats and the ratio native / variant of the median total time; --json FILE (or
- for stdout) writes all of it. Set OMP_NUM_THREADS=1 (done below if unset): the ranks share
the cores.

--report FILE records every papcoll call (PAPCOLL_REPORT, set below before papcoll is loaded when
the environment does not set it) and writes the straggler report to FILE at the end
(papcoll.write_report; docs/report-format.md); `papcoll-report FILE --png OUT` names the ranks
that were late and draws them. It covers the papcoll variants only: native's comm.Allreduce is
mpi4py's, which papcoll does not see (run it under LD_PRELOAD=libpapcoll-intercept.so for that).
"""
import argparse
import hashlib
import json
import os
import statistics
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


def _report_arg(argv):
    """--report FILE from the command line, before argparse: libpapcoll reads PAPCOLL_REPORT once,
    when it is loaded (by `import papcoll`), and records nothing without it."""
    for i, a in enumerate(argv):
        if a == "--report" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--report="):
            return a[len("--report="):]
    return None


if _report_arg(sys.argv[1:]) and not os.environ.get("PAPCOLL_REPORT"):
    os.environ["PAPCOLL_REPORT"] = _report_arg(sys.argv[1:])

import numpy as np  # noqa: E402
from mpi4py import MPI  # noqa: E402

import papcoll  # noqa: E402

USES_ARRIVALS = {"auto", "late-fold", "prr", "slt"}


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", default=None,
                    help="comma-separated: native and/or papcoll algorithms (default: "
                         "--algorithm)")
    ap.add_argument("--algorithm", default="prr", help="one variant (default prr)")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--batch", type=int, default=16, help="samples per rank per step")
    ap.add_argument("--hidden", type=int, default=256, help="units per hidden layer")
    ap.add_argument("--layers", type=int, default=2, help="hidden layers")
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--stragglers", type=int, default=0, help="K: ranks delayed per step")
    ap.add_argument("--delay-ms", type=float, default=0.0, help="D: delay of a straggler, ms")
    ap.add_argument("--straggler-mode", choices=("fixed", "rotate"), default="fixed",
                    help="fixed: ranks 1..K every step; rotate: ranks s..s+K-1 (mod p) at step s")
    ap.add_argument("--monitor", choices=("auto", "on", "off"), default="auto",
                    help="papcoll.Monitor with edge(0.5): auto = for auto/late-fold/prr/slt only")
    ap.add_argument("--repeats", type=int, default=1, help="runs of every variant, interleaved")
    ap.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    ap.add_argument("--json", default=None, help="write results as JSON to FILE ('-': stdout)")
    ap.add_argument("--quiet", action="store_true", help="no per-epoch lines")
    ap.add_argument("--report", metavar="FILE", default=None,
                    help="write papcoll's straggler report of the papcoll variants' calls to FILE "
                         "at the end (read it with papcoll-report FILE --png OUT)")
    args = ap.parse_args(argv)
    args.variants = (args.variants or args.algorithm).split(",")
    return args


def load_data(seed, dtype):
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    digits = load_digits()
    X = (digits.data / 16.0).astype(dtype)
    y = digits.target.astype(np.int64)
    return train_test_split(X, y, test_size=0.2, random_state=seed, stratify=y)


class MLP:
    """64 -> hidden x layers (ReLU) -> 10 (softmax). Parameters and gradients are views into one
    flat vector each, so the gradient is all-reduced in one call."""

    def __init__(self, sizes, seed, dtype):
        self.shapes = []
        for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
            self.shapes += [(fan_in, fan_out), (fan_out,)]
        total = sum(int(np.prod(s)) for s in self.shapes)
        self.theta = np.zeros(total, dtype=dtype)
        self.grad = np.zeros(total, dtype=dtype)
        self.params = self._views(self.theta)
        self.grads = self._views(self.grad)
        rng = np.random.default_rng(seed)
        for i in range(0, len(self.params), 2):
            fan_in = self.shapes[i][0]
            self.params[i][...] = rng.normal(0.0, np.sqrt(2.0 / fan_in), self.shapes[i])

    def _views(self, flat):
        out, at = [], 0
        for s in self.shapes:
            n = int(np.prod(s))
            out.append(flat[at:at + n].reshape(s))
            at += n
        return out

    def forward(self, X):
        acts = [X]
        h = X
        n = len(self.params) // 2
        for i in range(n):
            z = h @ self.params[2 * i] + self.params[2 * i + 1]
            h = np.maximum(z, 0) if i < n - 1 else z
            acts.append(h)
        return acts

    def loss_and_backward(self, X, y, at_half=None):
        """Mean cross-entropy of the batch; gradients into self.grad. at_half() is called when
        the output layer's gradient is done."""
        acts = self.forward(X)
        logits = acts[-1]
        logits = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        prob = e / e.sum(axis=1, keepdims=True)
        m = X.shape[0]
        loss = -np.log(prob[np.arange(m), y] + 1e-12).mean()
        d = prob
        d[np.arange(m), y] -= 1
        d /= m
        n = len(self.params) // 2
        for i in reversed(range(n)):
            self.grads[2 * i][...] = acts[i].T @ d
            self.grads[2 * i + 1][...] = d.sum(axis=0)
            if i > 0:
                d = (d @ self.params[2 * i].T) * (acts[i] > 0)
            if i == n - 1 and at_half is not None:
                at_half()
        return float(loss)

    def accuracy(self, X, y):
        return float((self.forward(X)[-1].argmax(axis=1) == y).mean())


def stragglers_at(step, p, k, mode):
    if k <= 0 or p < 2:
        return set()
    if mode == "fixed":
        return {(1 + i) % p for i in range(k)}
    return {(step + i) % p for i in range(k)}


def train(comm, args, variant, data):
    rank, p = comm.Get_rank(), comm.Get_size()
    X_train, X_test, y_train, y_test = data
    dtype = np.dtype(args.dtype)
    model = MLP([X_train.shape[1]] + [args.hidden] * args.layers + [10], args.seed, dtype)
    use_monitor = variant != "native" and (
        args.monitor == "on" or (args.monitor == "auto" and variant in USES_ARRIVALS))
    mon = papcoll.Monitor(comm) if use_monitor else None
    global_batch = args.batch * p
    steps = len(X_train) // global_batch
    delay = args.delay_ms / 1000.0
    epoch_times, losses, comm_time, picked = [], [], 0.0, set()
    step_no = 0
    comm.Barrier()
    for epoch in range(args.epochs):
        t0 = MPI.Wtime()
        order = np.random.default_rng(args.seed * 1000 + epoch).permutation(len(X_train))
        epoch_loss = 0.0
        for s in range(steps):
            rows = order[s * global_batch:(s + 1) * global_batch][rank::p]
            late = rank in stragglers_at(step_no, p, args.stragglers, args.straggler_mode)
            if mon is not None:
                mon.begin()
            if late:
                time.sleep(delay / 2)

            def at_half():
                if mon is not None:
                    mon.edge(0.5)
                if late:
                    time.sleep(delay / 2)

            epoch_loss += model.loss_and_backward(X_train[rows], y_train[rows], at_half)
            c0 = MPI.Wtime()
            if variant == "native":
                comm.Allreduce(MPI.IN_PLACE, model.grad, op=MPI.SUM)
            else:
                papcoll.allreduce(comm, MPI.IN_PLACE, model.grad, op=MPI.SUM, algorithm=variant,
                                  monitor=mon)
                picked.add(papcoll.last_algorithm())
            comm_time += MPI.Wtime() - c0
            model.theta -= (args.lr / p) * model.grad
            step_no += 1
        comm.Barrier()
        epoch_times.append(MPI.Wtime() - t0)
        losses.append(epoch_loss / max(steps, 1))
    if mon is not None:
        mon.close()
    mean_comm = comm.allreduce(comm_time, op=MPI.SUM) / p / max(step_no, 1)
    digest = hashlib.sha256(model.theta.tobytes()).hexdigest()[:16]
    return {"variant": variant, "monitor": use_monitor, "ran": sorted(picked),
            "epoch_times_s": epoch_times, "total_s": sum(epoch_times), "steps": step_no,
            "mean_allreduce_ms": 1000.0 * mean_comm, "train_loss": losses,
            "test_accuracy": model.accuracy(X_test, y_test), "theta": model.theta.copy(),
            "theta_sha256_16": digest}


def main(argv=None, comm=MPI.COMM_WORLD):
    args = parse_args(argv)
    rank, p = comm.Get_rank(), comm.Get_size()
    data = load_data(args.seed, args.dtype)
    n_params = MLP([data[0].shape[1]] + [args.hidden] * args.layers + [10], 0, args.dtype).theta.size
    say = print if rank == 0 else (lambda *a, **k: None)
    say("train_digits: p=%d, %d train / %d test samples, %d parameters (%s, %d KiB), batch %d "
        "per rank, %d epochs; stragglers %d (%s), delay %.1f ms" %
        (p, len(data[0]), len(data[1]), n_params, args.dtype,
         n_params * np.dtype(args.dtype).itemsize // 1024, args.batch, args.epochs,
         args.stragglers, args.straggler_mode, args.delay_ms))
    runs = []
    for rep in range(args.repeats):
        for variant in args.variants:
            r = train(comm, args, variant, data)
            r["repeat"] = rep
            runs.append(r)
            if not args.quiet:
                say("  %-12s run %d: epochs %s s" % (variant, rep, " ".join(
                    "%.3f" % t for t in r["epoch_times_s"])))
            say("  %-12s run %d: total %.3f s, all-reduce %.3f ms/step, test accuracy %.4f%s" %
                (variant, rep, r["total_s"], r["mean_allreduce_ms"], r["test_accuracy"],
                 "" if variant == "native" else "  (ran: %s%s)" %
                 (",".join(r["ran"]), ", monitor" if r["monitor"] else "")))
    summary = {}
    ref = next((r for r in runs if r["variant"] == "native"), runs[0])
    for variant in args.variants:
        mine = [r for r in runs if r["variant"] == variant]
        diffs = [float(np.max(np.abs(r["theta"].astype(np.float64) - ref["theta"])))
                 for r in mine]
        summary[variant] = {
            "median_total_s": statistics.median(r["total_s"] for r in mine),
            "median_allreduce_ms": statistics.median(r["mean_allreduce_ms"] for r in mine),
            "test_accuracy": [r["test_accuracy"] for r in mine],
            "max_abs_weight_diff_vs_%s" % ref["variant"]: max(diffs),
            "bit_identical_to_%s" % ref["variant"]: all(d == 0.0 for d in diffs),
        }
    if "native" in summary:
        for variant, s in summary.items():
            s["speedup_vs_native"] = summary["native"]["median_total_s"] / s["median_total_s"]
    say("summary (median of %d run%s):" % (args.repeats, "s" if args.repeats > 1 else ""))
    for variant, s in summary.items():
        say("  %-12s total %.3f s, all-reduce %.3f ms/step%s, accuracy %s, max |w - w_%s| = %.3g"
            % (variant, s["median_total_s"], s["median_allreduce_ms"],
               ", speedup vs native %.3f" % s["speedup_vs_native"] if "speedup_vs_native" in s
               else "", ",".join("%.4f" % a for a in s["test_accuracy"]), ref["variant"],
               s["max_abs_weight_diff_vs_%s" % ref["variant"]]))
    for r in runs:
        del r["theta"]
    result = {"p": p, "args": vars(args), "parameters": n_params, "runs": runs,
              "summary": summary, "mpi": MPI.Get_library_version().splitlines()[0]}
    if args.report:
        papcoll.write_report(args.report)  # collective over MPI.COMM_WORLD; rank 0 writes
        say("straggler report: %s (papcoll-report %s --png OUT)" % (args.report, args.report))
    if args.json and rank == 0:
        text = json.dumps(result, indent=1)
        if args.json == "-":
            print(text)
        else:
            with open(args.json, "w") as f:
                f.write(text + "\n")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
