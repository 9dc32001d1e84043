#!/usr/bin/env python3
"""All-reduce experiments of Proficz's paper (../shared/papers/allreduce-slt-prr.txt) on the
simulated 48-node GigE cluster (gige-48, calibrated on Table 3's ring):

  table3  1M floats, 48 ranks, one late rank, delays 0..1000 ms: ring, Rabenseifner, SLT, PRR,
          native (SMPI's own MPI_Allreduce with the ompi selector)
  prr50   ring vs PRR at 10 and 50 ms, network only (with and without the platform's tau), and
          PRR with papcoll's own calibration (network only and charged)
  table4  ring vs PRR, sizes 128K..8M floats (full mode: 4M and 8M are the group table4-big)
  netonly network-only calibration point; Rabenseifner at 32 and 48 ranks against SMPI's own
          all-reduce algorithms (rab_rdb, rab2, lr, ...)
  fig12   scaling, one rank 100 ms late, 1M floats, 4..48 ranks (full: also 64 and 128)
  scale   scaling beyond the paper: 1M floats, one rank 100 ms late, computation charged, the
          platform's Hockney parameters, ring vs PRR vs SLT vs native on gige-128, gige-512 and
          gige-1024 (quick: 128 only), with the simulation's wall time; from 512 ranks timing only
          (papcoll-bench --no-check) with buffers folded (smpi/auto-shared-malloc-thresh)

If papcoll-bench takes --alpha/--beta/--gamma, SLT and PRR are also run with the platform's
Hockney parameters (variants "slt+tau", "prr+tau"); otherwise papcoll's defaults are what the
arrival-aware schedules use to turn arrival times into rounds (see docs/results.md).

  /usr/bin/python3 sim/experiments/allreduce.py [--quick] [--only table3,netonly,prr50,table4,table4-big,fig12]
"""
import sys

from common import Experiment, PLATFORM_HOCKNEY, parse_args, size_arg, wants
from plots import plot_allreduce

PAPER = {
    "source": "Proficz, Improving all-reduce collective operations for imbalanced process "
              "arrival patterns, Tables 3 and 4 (48 nodes, 1 Gbps Ethernet, one process late)",
    "table3": {
        "delays_ms": [0, 1, 5, 10, 50, 100, 500, 1000],
        "mean_ms": {
            "ring": [67.8, 67.6, 70.1, 75.6, 115.9, 165.5, 558.6, 1047.0],
            "rabenseifner": [76.3, 75.9, 82.9, 85.7, 125.0, 181.6, 572.0, 1061.8],
            "slt": [90.3, 90.3, 89.7, 89.7, 101.0, 149.8, 542.1, 1031.9],
            "prr": [70.9, 70.8, 71.1, 73.0, 101.0, 149.7, 541.7, 1031.5],
        },
    },
    "table4": {  # one process delayed: e_PRR - e_ring (ms) and speedup, per size in Kfloats
        "delays_ms": [0, 1, 5, 10, 50, 100, 500, 1000],
        "diff_ms": {
            "128": [1.0, 1.5, -5.0, -4.1, -4.3, -3.2, -0.9, -0.8],
            "512": [-1.0, -0.3, -10.3, -12.6, -16.4, -11.6, -1.5, -1.7],
            "1024": [2.9, 3.7, 1.2, -3.2, -14.1, -15.2, -15.8, -16.0],
            "2048": [7.8, 6.4, 3.4, -1.7, -8.5, -23.9, -27.1, -27.7],
            "4096": [7.6, 6.0, 5.2, 2.8, -20.9, -29.6, -38.1, -46.8],
            "8192": [5.8, 17.0, 13.7, 11.7, -29.0, -52.1, -75.7, -82.1],
        },
        "speedup": {
            "128": [0.85, 0.78, 1.53, 1.26, 1.08, 1.03, 1.00, 1.00],
            "512": [1.04, 1.01, 1.37, 1.41, 1.26, 1.10, 1.00, 1.00],
            "1024": [0.96, 0.95, 0.98, 1.04, 1.14, 1.10, 1.03, 1.02],
            "2048": [0.93, 0.94, 0.97, 1.02, 1.06, 1.13, 1.05, 1.03],
            "4096": [0.96, 0.97, 0.97, 0.99, 1.10, 1.12, 1.06, 1.04],
            "8192": [0.98, 0.95, 0.96, 0.97, 1.08, 1.14, 1.10, 1.07],
        },
    },
    "fig12": "one process 100 ms late, 1M floats, 4..48 nodes: PRR and SLT keep a stable "
             "speed-up over the ring; Rabenseifner behaves differently at 32 (a power of two). "
             "Only the figure's shape is in the text.",
}

# Runs at 1024 simulated ranks done by hand (docs/smpi.md, "1024 simulated ranks"): gige-1024,
# ompi selector, 2 measured iterations after 1 warm-up. Ring/PRR/SLT cannot run there (O(p^2)
# schedules per rank).
EXISTING_1024 = [
    {"op": "allreduce", "what": "1K floats, no delay", "results_ms": {
        "recursive-doubling": 1.31, "native": 0.75}, "sim_wall_s": 474},
    {"op": "allreduce", "what": "1K floats, one rank 5 ms late", "results_ms": {
        "recursive-doubling": 5.62, "native": 5.47}, "sim_wall_s": 307},
    {"op": "bcast", "what": "4K floats, no delay", "results_ms": {
        "circulant": 1.28, "binomial": 3.97, "native": 4.78}, "sim_wall_s": 327},
    {"op": "bcast", "what": "4K floats, one rank 5 ms late", "results_ms": {
        "circulant": 5.96, "binomial": 3.98, "native": 4.65}, "sim_wall_s": 334},
]


# The rows without the platform's parameters run with papcoll's default Hockney parameters (the
# "papcoll's defaults" rows of docs/results.md); papcoll would otherwise measure the network
# itself at the first collective (docs/calibration.md): the `+cal` rows.
DEFAULTS = {"PAPCOLL_CALIBRATION": "off"}

def main():
    args = parse_args(__doc__.splitlines()[0])
    quick = args.quick
    exp = Experiment("allreduce", args, PAPER)
    exp.doc["existing_1024"] = EXISTING_1024
    alpha, beta, gamma = PLATFORM_HOCKNEY["gige"]
    tau = ["--alpha", repr(alpha), "--beta", repr(beta), "--gamma", repr(gamma)]
    hockney = exp.doc["bench_hockney_options"]
    if not hockney:
        exp.doc["notes"].append("papcoll-bench has no --alpha/--beta/--gamma: SLT and PRR ran "
                                "with papcoll's default Hockney parameters only")
    it = ["--iters", "3", "--warmup", "1"] if quick else ["--iters", "12", "--warmup", "2"]

    if wants(args, "table3"):
        delays = [0, 10, 50, 100] if quick else PAPER["table3"]["delays_ms"]
        common = ["--op", "allreduce", "--size", "1M", "--mode", "one-late",
                  "--max-delay", ",".join(map(str, delays))] + it
        exp.run("table3", "gige-48", 48,
                common + ["--algo", "ring,rabenseifner,slt,prr,native"], env=DEFAULTS)
        if hockney:
            for alg in ("prr", "slt"):
                exp.run("table3", "gige-48", 48, common + ["--algo", alg] + tau,
                        variant=alg + "+tau")
    if wants(args, "netonly"):
        # Network only (deterministic): the calibration point, and Rabenseifner at p = 32 (a
        # power of two) and 48 against SMPI's own all-reduce algorithms (docs/results.md).
        net = ["--op", "allreduce", "--size", "1M", "--mode", "none", "--max-delay", "0",
               "--iters", "2", "--warmup", "1"]
        for p in (32, 48):
            exp.run("netonly", "gige-48", p, net + ["--algo", "ring,rabenseifner,native"],
                    cfg=["--cfg=smpi/simulate-computation:no"])
        # (SMPI 3.32's "mpich" selector aborts here, so it is not in the list.)
        smpi_algos = ["rab_rdb", "rab2", "lr"] if quick else \
            ["rab_rdb", "rab2", "mvapich2_rs", "lr", "ompi_ring_segmented", "rdb"]
        for name in smpi_algos:
            exp.run("smpi-allreduce", "gige-48", 48, net + ["--algo", "native"],
                    cfg=["--cfg=smpi/simulate-computation:no", f"--cfg=smpi/allreduce:{name}"],
                    variant="smpi:" + name, group="netonly")

    if wants(args, "prr50"):
        # The PRR-at-50-ms question in isolation (docs/results.md): network only, so papcoll's
        # schedule generation (charged as computation otherwise) is left out.
        common = ["--op", "allreduce", "--size", "1M", "--mode", "one-late", "--max-delay",
                  "10,50", "--iters", "3" if quick else "8", "--warmup", "1"]
        net = ["--cfg=smpi/simulate-computation:no"]
        exp.run("prr50", "gige-48", 48, common + ["--algo", "ring,prr"], cfg=net, env=DEFAULTS)
        if hockney:
            exp.run("prr50", "gige-48", 48, common + ["--algo", "prr"] + tau, cfg=net,
                    variant="prr+tau")
        # Neither papcoll's defaults nor the platform's parameters: papcoll measures the network
        # itself at the first collective (docs/calibration.md), network only and with
        # the computation charged (the ring of the charged row is table3's).
        cal = {"PAPCOLL_CALIBRATION": "always"}
        exp.run("prr50", "gige-48", 48, common + ["--algo", "prr"], cfg=net, variant="prr+cal",
                env=cal)
        exp.run("prr50", "gige-48", 48, common + ["--algo", "prr"], variant="prr+cal-charged",
                env=cal)

    if wants(args, "table4") or wants(args, "table4-big"):
        sizes = [128 << 10, 1 << 20, 4 << 20] if quick else \
            [128 << 10, 512 << 10, 1 << 20, 2 << 20, 4 << 20, 8 << 20]
        delays = [0, 10, 50] if quick else PAPER["table4"]["delays_ms"]
        # Simulated times vary little between iterations (computation only), and 8M floats at
        # 48 ranks is slow to simulate: few iterations even in full mode.
        it4 = ["--iters", "2", "--warmup", "1"] if quick else ["--iters", "3", "--warmup", "1"]
        for n in sizes:
            # 4M and 8M floats (full mode) are slow to simulate (about 5 and 10 min): their own
            # group, so that --only table4 or --only table4-big re-runs one half.
            group = "table4-big" if n >= (4 << 20) and not quick else "table4"
            if not wants(args, group):
                continue
            common = ["--op", "allreduce", "--size", size_arg(n), "--mode", "one-late",
                      "--max-delay", ",".join(map(str, delays))] + it4
            exp.run("table4", "gige-48", 48, common + ["--algo", "ring,prr"], group=group,
                    env=DEFAULTS)
            if hockney:
                exp.run("table4", "gige-48", 48, common + ["--algo", "prr"] + tau,
                        variant="prr+tau", group=group)

    if wants(args, "fig12"):
        ps = [4, 16, 48] if quick else [4, 6, 8, 10, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 64,
                                        128]
        it12 = ["--iters", "2", "--warmup", "1"] if quick else ["--iters", "4", "--warmup", "1"]
        for p in ps:
            platform = "gige-48" if p <= 48 else "gige-128"
            common = ["--op", "allreduce", "--size", "1M", "--mode", "one-late",
                      "--max-delay", "100"] + it12
            exp.run("fig12", platform, p, common + ["--algo", "ring,rabenseifner,slt,prr,native"],
                    env=DEFAULTS)
            if hockney:
                exp.run("fig12", platform, p, common + ["--algo", "prr"] + tau, variant="prr+tau")

    if wants(args, "scale") and hockney:
        # Every simulated rank keeps its buffers: 1M floats is 16 MiB or more per rank in
        # papcoll-bench alone, too much for 512 and 1024 ranks here. From 512 ranks SimGrid
        # folds every allocation of 64 KiB or more onto shared memory, so the data is meaningless
        # and papcoll-bench times without checking (--no-check); the schedules, messages and
        # computation are the same.
        points = [(128, "gige-128")] if quick else \
            [(128, "gige-128"), (512, "gige-512"), (1024, "gige-1024")]
        for p, platform in points:
            fold = p >= 512
            common = ["--op", "allreduce", "--size", "1M", "--mode", "one-late",
                      "--max-delay", "100", "--iters", "2", "--warmup", "1",
                      "--algo", "ring,prr,slt,native"] + tau + (["--no-check"] if fold else [])
            cfg = ["--cfg=smpi/auto-shared-malloc-thresh:65536"] if fold else []
            exp.run("scale", platform, p, common, cfg=cfg)

    return exp.finish(plot_allreduce)


if __name__ == "__main__":
    sys.exit(main())
