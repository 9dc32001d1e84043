#!/usr/bin/env python3
"""End-to-end checks of papcoll-bench under mpirun: the option parser's errors and exit codes
(--max-delay units, --mode k-late:K / staggered:K and K < p), and every op with every delay mode
at 4 ranks: exit status, the P_ms and P/delta columns, the JSON fields (the old ones kept, the new
ones consistent), and the injected delays, read from the --pat none rows' prediction error,
which is computed from the injected pattern and so exact.
usage: check_bench_cli.py PAPCOLL_BENCH MPIEXEC [MPIRUN FLAGS...]"""
import json
import math
import os
import subprocess
import sys
import tempfile

tool, mpiexec, flags = sys.argv[1], sys.argv[2], sys.argv[3:]
failures = 0

# The JSON fields papcoll-bench wrote before P was added: they must all stay.
OLD_CONFIG_KEYS = {
    "op", "p", "algorithms", "counts", "dtype", "mode", "max_delays_ms", "compute_ms", "pat",
    "pats", "predictor", "window", "ema_alpha", "warmup_messages", "oracle_with_monitor",
    "blocks", "alpha", "beta", "gamma", "seed", "iters", "warmup", "interleaved", "mpi_library",
    "mpi_thread_level", "wall_s"}
OLD_RESULT_KEYS = {
    "op", "algorithm", "p", "count", "dtype", "bytes", "mode", "max_delay_ms", "shape",
    "compute_ms", "pat", "blocks", "seed", "iters", "measured_iters", "mean_elapsed_ms",
    "stddev_ms", "median_ms", "min_ms", "max_ms", "speedup_vs_ring", "correct", "incorrect_iters",
    "error_iters", "error", "prediction_error_ms", "prediction_error_max_ms",
    "prediction_error_samples_ms", "pattern_sources", "per_rank_mean_ms", "samples_ms"}
NEW_RESULT_KEYS = {
    "late_ranks", "delta_ms", "post_arrival_ms", "post_arrival_stddev_ms",
    "post_arrival_median_ms", "post_arrival_over_delta", "arrival_lag_ms",
    "post_arrival_samples_ms"}


def run(np, *args, expect=0, env=None):
    global failures
    exports = [x for k in (env or {}) for x in ("-x", k)]
    cmd = [mpiexec, *flags, *exports, "-np", str(np), tool, *args]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, **(env or {})))
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


def close(a, b, tol):
    return a is not None and b is not None and abs(a - b) <= tol


# --- the parser: every rank rejects a bad command line with status 2, rank 0 says why ----------
for args, msg in [
        (["--max-delay", "5min"], "--max-delay: '5min' is not a duration"),
        (["--max-delay", "-1ms"], "--max-delay: '-1ms' is not a duration"),
        (["--max-delay", "ms"], "--max-delay: 'ms' is not a duration"),
        (["--max-delay", "2h"], "--max-delay: '2h' is not a duration"),
        (["--max-delay", "3601s"], "--max-delay: '3601s' is not a duration"),
        (["--mode", "k-late"], "--mode: 'k-late' is not one of"),
        (["--mode", "k-late:0"], "--mode: 'k-late:0' is not one of"),
        (["--mode", "staggered:x"], "--mode: 'staggered:x' is not one of")]:
    e = run(1, *args, expect=2).stderr
    check(msg in e, f"{args}: {e}")
for mode in ["k-late:4", "staggered:4", "staggered:9"]:
    e = run(4, "--mode", mode, "--iters", "1", expect=2).stderr
    want = f"--mode {mode}: the number of late ranks must be less than the number of ranks (p = 4)"
    check(e.count(want) == 1, f"{mode} at p=4: {e}")
out = run(1, "--help").stdout
check("k-late:K" in out and "staggered:K" in out and "200us" in out, "--help: " + out)

with tempfile.TemporaryDirectory() as d:
    # --- delta from the parameters papcoll runs with (docs/calibration.md) ---------------------
    cache = {"PAPCOLL_CALIBRATION": "always", "PAPCOLL_CALIBRATION_CACHE": os.path.join(d, "cal")}
    for extra, source in [([], "measured"), (["--alpha", "3e-6", "--beta", "2e-10"], "options")]:
        js = os.path.join(d, f"delta-{source}.json")
        p = run(2, "--algo", "prr", "--iters", "1", "--warmup", "0", "--size", "1K", "--quiet",
                "--json", js, *extra, env=cache)
        if p.returncode != 0:
            continue
        cfg = json.load(open(js))["config"]
        check(cfg["delta_params"] == source, f"delta source {cfg['delta_params']}, want {source}")
        check(cfg["delta_alpha_s"] > 0 and cfg["delta_beta_s_per_byte"] > 0, f"delta {cfg}")
        check("# network (papcoll_last_network): alpha=" in p.stdout, f"header: {p.stdout}")
        if source == "options":
            check(cfg["delta_alpha_s"] == 3e-6 and cfg["delta_beta_s_per_byte"] == 2e-10,
                  f"options delta {cfg}")
        else:
            check(cfg["calibration_s"] > 0, f"measured, but calibration_s {cfg['calibration_s']}")

    # --- --max-delay units: plain numbers stay milliseconds ------------------------------------
    js = os.path.join(d, "units.json")
    p = run(2, "--max-delay", "200us,0.005s,3ms,2", "--mode", "none", "--algo", "native",
            "--iters", "1", "--warmup", "0", "--compute-ms", "0", "--size", "1K", "--quiet",
            "--json", js)
    check("max-delay=0.2,5,3,2ms" in p.stdout, "units header: " + p.stdout)
    if p.returncode == 0:
        got = json.load(open(js))["config"]["max_delays_ms"]
        check(len(got) == 4 and all(close(a, b, 1e-12) for a, b in zip(got, [0.2, 5, 3, 2])),
              f"max_delays_ms {got}")

    # --- every delay mode (all-reduce), every op (two modes) at p = 4 --------------------------
    # (Every op with every mode was 30 launches, a minute of the suite; the modes are the
    # benchmark's, the same for every op, and each op's result fields are checked twice.)
    p_ranks, d_ms, size = 4, 5.0, 64 * 1024
    delta_ms = (5e-6 + size * 4 * 1e-9) * 1e3  # papcoll's default alpha, beta; 64K floats
    # Mean over ranks of the injected delay behind the earliest rank, in ms (--pat none's
    # prediction error); None: random.
    injected = {"none": 0.0, "one-late": d_ms / p_ranks, "rand-late": None,
                "k-late:2": 2 * d_ms / p_ranks, "staggered:3": d_ms * (3 + 1) / (2 * p_ranks)}
    late = {"none": 0, "one-late": 1, "rand-late": None, "k-late:2": 2, "staggered:3": 3}
    algos = {"allreduce": "prr", "reduce": "clairvoyant", "bcast": "circulant",
             "allgatherv": "circulant", "scatterv": "traff", "gatherv": "traff"}
    for op, alg in algos.items():
        for mode in injected:
            if op != "allreduce" and mode not in ("one-late", "staggered:3"):
                continue
            js = os.path.join(d, f"{op}-{mode}.json")
            what = f"{op} {mode}"
            # PAPCOLL_CALIBRATION=off: papcoll's default alpha and beta, so delta is known here.
            p = run(p_ranks, "--op", op, "--algo", f"{alg},native", "--pat", "oracle,none",
                    "--mode", mode, "--size", "64K", "--iters", "5", "--warmup", "1",
                    "--max-delay", "5ms", "--compute-ms", "2", "--quiet", "--json", js,
                    env={"PAPCOLL_CALIBRATION": "off"})
            if p.returncode != 0:
                continue
            check(f"mode={mode} " in p.stdout, f"{what}: header: {p.stdout}")
            check("P_ms  P/delta" in p.stdout, f"{what}: no P columns: {p.stdout}")
            doc = json.load(open(js))
            cfg = doc["config"]
            check(OLD_CONFIG_KEYS <= cfg.keys(),
                  f"{what}: config lost {OLD_CONFIG_KEYS - cfg.keys()}")
            check(cfg["mode"] == mode and cfg["late_ranks"] == late[mode],
                  f"{what}: config mode {cfg['mode']} late_ranks {cfg['late_ranks']}")
            check(cfg["delta_alpha_s"] == 5e-6 and cfg["delta_beta_s_per_byte"] == 1e-9 and
                  cfg["delta_params"] == "papcoll-defaults" and
                  cfg["post_arrival_clock"] == "shared", f"{what}: delta config {cfg}")
            rows = doc["results"]
            check(len(rows) == 4, f"{what}: {len(rows)} results")
            for r in rows:
                row = f"{what} {r['algorithm']}/{r['pat']}"
                check(OLD_RESULT_KEYS <= r.keys(), f"{row}: lost {OLD_RESULT_KEYS - r.keys()}")
                check(NEW_RESULT_KEYS <= r.keys(), f"{row}: lacks {NEW_RESULT_KEYS - r.keys()}")
                if not (OLD_RESULT_KEYS | NEW_RESULT_KEYS) <= r.keys():
                    continue
                check(r["correct"] and r["measured_iters"] == 5, f"{row}: correct/iters")
                check(r["mode"] == mode and r["late_ranks"] == late[mode], f"{row}: mode")
                check(close(r["delta_ms"], delta_ms, 1e-9), f"{row}: delta_ms {r['delta_ms']}")
                pa, lag = r["post_arrival_ms"], r["arrival_lag_ms"]
                samples = r["post_arrival_samples_ms"]
                check(len(samples) == 5 and close(pa, sum(samples) / 5, 1e-9),
                      f"{row}: P {pa} vs samples {samples}")
                check(close(r["post_arrival_over_delta"], pa / delta_ms, 1e-9),
                      f"{row}: P/delta {r['post_arrival_over_delta']}")
                # elapsed = P + lag; the two are read on different clocks (MPI_Wtime, steady).
                check(close(r["mean_elapsed_ms"], pa + lag, 0.5),
                      f"{row}: elapsed {r['mean_elapsed_ms']} != P {pa} + lag {lag}")
                check(lag >= 0 and math.isfinite(pa), f"{row}: lag {lag}, P {pa}")
                if r["pat"] == "none" and r["algorithm"] != "native" and injected[mode] is not None:
                    err = r["prediction_error_samples_ms"]
                    check(len(err) == 5 and all(close(x, injected[mode], 1e-6) for x in err),
                          f"{row}: injected delays {err}, expected {injected[mode]} each")

print("papcoll-bench CLI:", "OK" if failures == 0 else f"{failures} failures")
sys.exit(1 if failures else 0)
