#!/usr/bin/env python3
"""Broadcast and all-gatherv that do not wait for late receivers: papcoll's
arrival-aware schedules and `auto` against the circulant schedules, the binomial tree, SMPI's
MPI library (`native`, Open MPI's selection) and SMPI's ports of Patarasuk and Yuan's
arrival-pattern-aware broadcasts (`native` with --cfg=smpi/bcast:arrival_pattern_aware, ..._wait),
on the 1 Gbps Ethernet platforms, papcoll told the platform's Hockney parameters, the arrivals
given as the oracle pattern (docs/papcoll-bench.md), computation charged:

  gige48-bcast       48 ranks, 1M floats (4 MiB) from rank 0, rank 1 20 ms late and balanced
  gige48-allgatherv  48 ranks, 1M floats in all (regular: 87 KB each), rank 1 20 ms late and
                     balanced: auto, arrival-aware, circulant, ring, bruck, native
  gige48-sweep       48 ranks, broadcast of 64K floats (256 KiB), rank 1 late by 0..100 ms
  gige1024-bcast     1024 ranks, 4K floats (16 KiB), rank 1 5 ms late and balanced (each
                     simulation 5-10 minutes on the development VM; --quick: gige-128)
  gige512-bcast      the same on 512 ranks (the fallback where 1024 ranks take more than 20
                     minutes of wall time)

  /usr/bin/python3 sim/experiments/arrival.py [--quick] [--only gige48-bcast,...]
"""
import sys

from common import PLATFORM_HOCKNEY, Experiment, parse_args, wants

PAPER = {
    "source": "Patarasuk and Yuan, 'Efficient MPI_Bcast across different process arrival "
              "patterns' (IPDPS 2008); Parsons and Pai (arrival-aware broadcast, up to 14x over a "
              "binomial broadcast under heavy imbalance)",
    "claim": "a late rank of a broadcast only has to receive: the arrival-aware broadcast is "
             "within a constant factor of optimal for any arrival pattern",
}

BCAST_ALGOS = "auto,arrival-aware,circulant,binomial,native"
ALLGATHERV_ALGOS = "auto,arrival-aware,circulant,ring,bruck,native"
# SMPI's Patarasuk-Yuan family. arrival_scatter is run too: where it fails (SimGrid 3.32 crashed
# on it at 48 ranks), the run is recorded with its error and no rows.
SMPI_ARRIVAL_BCASTS = ("arrival_pattern_aware", "arrival_pattern_aware_wait", "arrival_scatter")


def hockney(platform):
    alpha, beta, _ = PLATFORM_HOCKNEY["gige"]
    return ["--alpha", str(alpha), "--beta", str(beta)]


def bcast_runs(exp, part, platform, np, size, delay, it, smpi_variants=SMPI_ARRIVAL_BCASTS):
    for mode in (["--mode", "one-late", "--max-delay", delay], ["--mode", "none"]):
        base = ["--op", "bcast", "--size", size, "--dtype", "float"] + mode + it + hockney(platform)
        exp.run(part, platform, np, ["--algo", BCAST_ALGOS] + base, group=part)
        if mode[1] == "one-late":
            for name in smpi_variants:
                exp.run(part, platform, np, ["--algo", "native"] + base,
                        cfg=[f"--cfg=smpi/bcast:{name}"], variant="native-" + name, group=part)


def main():
    args = parse_args(__doc__.splitlines()[0])
    quick = args.quick
    exp = Experiment("arrival", args, PAPER)
    it = ["--iters", "2", "--warmup", "1"] if quick else ["--iters", "3", "--warmup", "1"]
    if wants(args, "gige48-bcast"):
        bcast_runs(exp, "gige48-bcast", "gige-48", 48, "1M", "20ms", it)
    if wants(args, "gige48-allgatherv"):
        for mode in (["--mode", "one-late", "--max-delay", "20ms"], ["--mode", "none"]):
            exp.run("gige48-allgatherv", "gige-48", 48,
                    ["--op", "allgatherv", "--shape", "regular", "--algo", ALLGATHERV_ALGOS,
                     "--size", "1M", "--dtype", "float"] + mode + it + hockney("gige-48"),
                    group="gige48-allgatherv")
    if wants(args, "gige48-sweep"):
        delays = "0ms,5ms,20ms" if quick else "0ms,1ms,2ms,5ms,10ms,20ms,50ms,100ms"
        exp.run("gige48-sweep", "gige-48", 48,
                ["--op", "bcast", "--algo", BCAST_ALGOS, "--size", "64K", "--dtype", "float",
                 "--mode", "one-late", "--max-delay", delays] + it + hockney("gige-48"),
                group="gige48-sweep")
    if wants(args, "gige1024-bcast"):
        platform, np = ("gige-128", 128) if quick else ("gige-1024", 1024)
        bcast_runs(exp, "gige1024-bcast", platform, np, "4K", "5ms",
                   ["--iters", "2", "--warmup", "1"])
    if wants(args, "gige512-bcast"):
        bcast_runs(exp, "gige512-bcast", "gige-512", 512, "4K", "5ms",
                   ["--iters", "2", "--warmup", "1"])
    return exp.finish()


if __name__ == "__main__":
    sys.exit(main())
