"""Shared helpers of the SMPI experiment scripts (sim/experiments/, docs/smpi.md).

Every experiment script runs papcoll-bench under sim/run.sh (one simulation at a time, under
`nice`), keeps the parts of papcoll-bench's JSON that the report needs and writes one JSON
document per experiment to sim/results/{quick,full}/NAME.json, then its plots beside it.
Run with /usr/bin/python3 (Debian's, which has python3-matplotlib).
"""
import argparse
import datetime
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RUN = os.path.join(ROOT, "sim", "run.sh")
TIME = "/usr/bin/time"

# Hockney parameters of the simulated platforms (sim/platforms/README.md): node-to-node latency,
# seconds per byte. gamma: reductions run inside MPI_Reduce_local, which SMPI does not charge.
PLATFORM_HOCKNEY = {
    "gige": (22e-6, 8e-9, 1e-12),
    "opa-36": (1e-6, 8e-11, 1e-12),
}

# Simulations of this many ranks or more take one machine-wide lock, so that only one large
# simulation runs at a time on a shared machine (1024 ranks take up to 20 GB).
LOCKED_RANKS = 128
SMPI_LOCK = "/tmp/papcoll-smpi.lock"

# The status recorded for a simulation that exited 0 without results (a SimGrid deadlock).
NO_RESULTS = 3

# Results kept per papcoll-bench row (samples and per-rank means are dropped to keep files small).
KEEP = ("op", "algorithm", "p", "count", "dtype", "bytes", "mode", "max_delay_ms", "pat",
        "blocks", "iters", "measured_iters", "mean_elapsed_ms", "stddev_ms", "median_ms",
        "min_ms", "max_ms", "speedup_vs_ring", "correct", "error", "per_rank_mean_ms",
        "post_arrival_ms", "post_arrival_stddev_ms", "post_arrival_over_delta", "arrival_lag_ms",
        "ran_algorithms")


def parse_args(description, argv=None):
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--quick", action="store_true",
                    help="few points and iterations: a few minutes on a 2-core machine")
    ap.add_argument("--bench", default=os.path.join(ROOT, "build-smpi", "bin", "papcoll-bench"),
                    help="SMPI-built papcoll-bench (default build-smpi/bin/papcoll-bench)")
    ap.add_argument("--out", default=None,
                    help="output folder (default sim/results/quick or sim/results/full)")
    ap.add_argument("--only", default=None,
                    help="comma-separated parts of the experiment to run (default: all)")
    ap.add_argument("--timeout", type=int, default=3600, help="seconds per simulation")
    ap.add_argument("--note", action="append", default=[],
                    help="a line for the JSON's notes (and the report), e.g. how --bench was built")
    args = ap.parse_args(argv)
    args.mode = "quick" if args.quick else "full"
    if args.out is None:
        args.out = os.path.join(ROOT, "sim", "results", args.mode)
    os.makedirs(args.out, exist_ok=True)
    if not os.access(args.bench, os.X_OK):
        sys.exit(f"{args.bench}: not built; run: bash scripts/build.sh build-smpi "
                 "-DPAPCOLL_SMPI=ON -DCMAKE_BUILD_TYPE=Release")
    return args


def wants(args, part):
    return args.only is None or part in args.only.split(",")


def bench_has_hockney(bench):
    """True if this papcoll-bench takes --alpha/--beta/--gamma (papcoll_options' Hockney
    parameters, in papcoll-bench since these scripts were written); older builds use papcoll's defaults
    (5 us, 1 ns/B, 0.25 ns/B). An SMPI program only starts under smpirun, so its usage text is
    looked up in the binary."""
    try:
        with open(bench, "rb") as f:
            return b"--alpha S" in f.read()
    except OSError:
        return False


class Experiment:
    def __init__(self, name, args, paper=None, notes=None):
        self.name, self.args = name, args
        self.doc = {
            "experiment": name, "mode": args.mode,
            "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "bench": os.path.relpath(args.bench, ROOT),
            "bench_hockney_options": bench_has_hockney(args.bench),
            "host": {"nproc": os.cpu_count(), "loadavg_at_start": os.getloadavg()[0]},
            "paper": paper or {}, "notes": list(notes or []) + list(args.note), "runs": [],
        }
        self.t0 = time.time()
        self.path = os.path.join(args.out, name + ".json")
        if args.only is not None and os.path.exists(self.path):
            # --only re-runs some parts: keep the earlier runs of the others.
            with open(self.path) as f:
                old = json.load(f)
            redo = set(args.only.split(","))
            kept = [r for r in old.get("runs", []) if r.get("group", r["part"]) not in redo]
            self.doc["runs"] = kept
            self.doc["notes"] = list(dict.fromkeys(old.get("notes", []) + self.doc["notes"]))
            self.doc["earlier_wall_s"] = round(sum(r["wall_s"] for r in kept), 1)

    def run(self, part, platform, np, bench_args, cfg=(), variant=None, group=None, env=None):
        """One simulation: papcoll-bench with bench_args on NP ranks of PLATFORM (ENV: extra
        environment variables, e.g. PAPCOLL_CALIBRATION). Returns the kept result rows (each
        tagged with part and variant); failures are recorded, not raised."""
        fd, tmp = tempfile.mkstemp(prefix="papcoll-sim-", suffix=".json")
        os.close(fd)
        # Simulations run at niceness 10 (the machine is shared), not more: a second nice on top
        # of a niced caller would starve them behind other jobs.
        cmd = (["nice", "-n", str(max(0, 10 - os.nice(0))), RUN, platform, str(np), self.args.bench] + list(bench_args) +
               ["--quiet", "--json", tmp] + list(cfg))
        # The simulation's own wall time and peak memory (the largest resident set of the process
        # tree, KB), without the wait for the lock.
        rss_file = tmp + ".rss"
        if os.access(TIME, os.X_OK):
            cmd = [TIME, "-f", "%e %M", "-o", rss_file] + cmd
        if np >= LOCKED_RANKS:
            cmd = ["flock", SMPI_LOCK] + cmd
        shown = " ".join([f"{k}={shlex.quote(v)}" for k, v in (env or {}).items()] +
                         [shlex.quote(c) for c in [os.path.relpath(RUN, ROOT), platform, str(np),
                                                  os.path.relpath(self.args.bench, ROOT)]
                          + list(bench_args) + list(cfg)])
        print(f"[{self.name}/{part}] {shown}", flush=True)
        t = time.time()
        rc, err, output = 0, None, ""
        try:
            proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                                  timeout=self.args.timeout, env=dict(os.environ, **(env or {})))
            rc = proc.returncode
            output = proc.stderr or proc.stdout
            if rc != 0:
                err = output[-2000:]
        except subprocess.TimeoutExpired:
            rc, err = 124, f"timeout after {self.args.timeout} s"
        wall = time.time() - t
        rows, config = [], {}
        try:
            with open(tmp) as f:
                bench = json.load(f)
            config = bench.get("config", {})
            for r in bench.get("results", []):
                row = {k: r.get(k) for k in KEEP}
                row["part"], row["variant"] = part, variant or row["algorithm"]
                rows.append(row)
        except (OSError, ValueError):
            pass
        finally:
            os.unlink(tmp)
        if rc == 0 and not rows:
            # SimGrid ends a simulation whose ranks all wait forever ("Deadlock detected") with
            # status 0: no results is a failure too.
            rc, err = NO_RESULTS, output[-2000:] or "no results"
        max_rss_mb = sim_wall_s = None
        try:
            with open(rss_file) as f:
                fields = f.read().split()
            os.unlink(rss_file)
            sim_wall_s, max_rss_mb = float(fields[-2]), round(int(fields[-1]) / 1024, 1)
        except (OSError, ValueError, IndexError):
            pass
        print(f"    {len(rows)} rows, rc={rc}, {wall:.1f} s wall", flush=True)
        if err:
            print("    " + err.strip().replace("\n", "\n    "), file=sys.stderr, flush=True)
        self.doc["runs"].append({
            "part": part, "group": group or part, "platform": platform, "np": np,
            "variant": variant,
            "command": shown, "rc": rc, "error": err, "wall_s": round(wall, 1),
            "max_rss_mb": max_rss_mb, "simulation_wall_s": sim_wall_s,
            "simulated_wall_s": config.get("wall_s"), "rows": rows})
        self.save()
        return rows

    def save(self):
        self.doc["total_wall_s"] = round(time.time() - self.t0, 1)
        with open(self.path + ".tmp", "w") as f:
            json.dump(self.doc, f, indent=1)
        os.replace(self.path + ".tmp", self.path)

    def finish(self, plot=None):
        self.save()
        print(f"[{self.name}] wrote {os.path.relpath(self.path, ROOT)} "
              f"({self.doc['total_wall_s']:.0f} s)", flush=True)
        if plot is not None:
            try:
                for png in plot(self.doc, self.args.out):
                    print(f"[{self.name}] wrote {os.path.relpath(png, ROOT)}", flush=True)
            except ImportError as e:
                print(f"[{self.name}] no plots ({e}); install python3-matplotlib and run "
                      "/usr/bin/python3", file=sys.stderr)
        bad = [r for r in self.doc["runs"] if r["rc"] != 0]
        return 1 if bad else 0


def rows_of(doc, part=None, **match):
    out = []
    for run in doc.get("runs", []):
        for r in run["rows"]:
            if part is not None and r["part"] != part:
                continue
            if all(r.get(k) == v for k, v in match.items()):
                out.append(r)
    return out


def slowest_rank_ms(row):
    """The largest per-rank mean elapsed time: with all ranks arriving together (--mode none),
    the time until the last rank is done, i.e. the operation's completion time. For rooted
    collectives this is the fair figure (a gatherv sender whose small message is buffered is done
    at once, which pulls the mean over ranks down); None if the row lacks per-rank data."""
    per = [v for v in (row.get("per_rank_mean_ms") or []) if v is not None]
    return max(per) if per else None


def size_arg(n):
    for unit, mult in (("M", 1 << 20), ("K", 1 << 10)):
        if n % mult == 0:
            return f"{n // mult}{unit}"
    return str(n)
