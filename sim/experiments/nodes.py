#!/usr/bin/env python3
"""Many-core nodes (docs/smpi.md, "Platforms of many-core nodes"): the MPI library's all-reduce
algorithms, one at a time, against papcoll's on platforms of several ranks per node. 1M floats,
computation charged, papcoll with the platform's Hockney parameters (--alpha 22e-6 --beta 8e-9).

  native-8x6    gige-8x6 (48 ranks): SMPI's MPI_Allreduce with each of its algorithms forced
                (--cfg=smpi/allreduce:NAME; the ompi and mpich selectors themselves too), all
                ranks on time and one rank 50 ms late; an algorithm that crashes SimGrid is
                recorded with its error
  papcoll-8x6   gige-8x6: ring, prr, late-fold, relay-fold, two-level, auto, the same two cases
  native-16x8   gige-16x8 (128 ranks): the ompi and mpich selectors, on time and one rank
                100 ms late
  others-16x8   gige-16x8: lr (the best native on gige-8x6) and two of SMPI's SMP-aware
                algorithms (which need a power-of-two number of ranks per node), the same
  papcoll-16x8  gige-16x8: ring, prr, late-fold, relay-fold, two-level, auto, the same two cases
  sweep-8x6     gige-8x6: all-reduce and reduce of 1M floats, broadcast of 4 MiB and 16 KiB,
                all-gatherv of 4 MiB; on time and one rank late, rand-late, k-late:4 (50 ms); every
                papcoll row, auto and native
  sweep-16x8    gige-16x8 (128 ranks): the same at 100 ms
                (sweep-8x6-reduce, library-64x16-reduce and the like: one collective of a part)
  sweep-64x16   gige-64x16 (1024 ranks): the sweeps' collectives, sizes and arrival modes
                (100 ms) with auto, native and the papcoll rows that can be fastest at this size
                (ROWS_64X16, and why the others are left out); buffers folded and results
                unchecked (sweep-64x16-bcast and the like: one collective)
  library-64x16 gige-64x16 (1024 ranks): auto against the library (native) only, every collective
                of the sweeps, on time and one rank 100 ms late; buffers folded and results
                unchecked at this size (every papcoll row in one simulation would take hours)
  library-64x16-late  the same with k-late:4 (100 ms), and rand-late for the all-reduce
  native-64x16  gige-64x16 (1024 ranks): SMPI's MPI_Allreduce under the ompi and mpich
                selectors and each of its two-level algorithms forced (mvapich2_two_level,
                smp_rsag, smp_rsag_rab, smp_rdb), on time and one rank 100 ms late; buffers
                folded, results unchecked; an algorithm that crashes SimGrid is recorded with its
                error
  native-bcast-64x16  gige-64x16 (1024 ranks): broadcasts of 4 MiB and 16 KiB with one rank
                5 ms late, SMPI's MPI_Bcast with each of its algorithms forced
                (--cfg=smpi/bcast:NAME, the ompi and mpich selectors too), auto beside the ompi
                selector's; buffers folded, results unchecked
  native-32x32  opa-32x32 (1024 ranks, 100 Gbps between nodes, 32 per node): SMPI's
                MPI_Allreduce under the ompi and mpich selectors and its two-level algorithms
                forced, on time and one rank 1 ms late; buffers folded, results unchecked
  papcoll-32x32 opa-32x32: ROWS_32X32, auto and native, the same two cases
  scale-64x16   gige-64x16 (1024 ranks): one native all-reduce (the ompi selector), on time,
                1 measured iteration after 1 warm-up, buffers folded and results unchecked (as in
                docs/smpi.md, "Scale"): the simulation's wall time and memory

Simulations of 128 ranks or more take /tmp/papcoll-smpi.lock (common.py).

  /usr/bin/python3 sim/experiments/nodes.py [--quick] [--only native-8x6,papcoll-8x6,...]
"""
from common import Experiment, PLATFORM_HOCKNEY, parse_args, wants

# SMPI 3.32's all-reduce algorithms (smpirun --cfg=smpi/allreduce:help lists them). "ompi" and
# "mpich" are the selectors: for 4 MiB at 48, 128 and 1024 ranks the ompi selector (Open MPI's
# decision table as of 2022) runs "rab_rdb", the mpich selector "mvapich2_two_level" on every
# commutative op (SimGrid's src/smpi/colls/smpi_{openmpi,mpich}_selector.cpp).
NATIVE_ALL = ["ompi", "mpich", "lr", "mvapich2_two_level", "smp_rsag", "smp_rsag_rab",
              "smp_rsag_lr", "smp_rdb", "smp_binomial", "smp_binomial_pipeline", "rab_rdb", "rdb",
              "rab1", "rab2", "rab", "redbcast", "ompi_ring_segmented", "mvapich2", "mvapich2_rs",
              "impi"]
NATIVE_QUICK = ["ompi", "mpich", "mvapich2_two_level", "smp_rsag", "smp_rsag_rab", "smp_rdb"]
# SMPI 3.32's broadcasts that run on gige-64x16 (smpirun --cfg=smpi/bcast:help): the selectors,
# MVAPICH2's two-level knomial one, SMPI's SMP-aware ones and Open MPI's pipeline. The fastest
# of them at 1024 ranks was mvapich2 for both sizes (docs/results.md).
BCAST_ALL = ["ompi", "mpich", "mvapich2", "SMP_binomial", "SMP_linear", "scatter_LR_allgather",
             "ompi_pipeline", "NTSL"]
BCAST_QUICK = ["ompi", "mvapich2"]
PAPCOLL = "ring,prr,late-fold,relay-fold,two-level,auto"
# The all-reduce rows papcoll-32x32 runs beside auto and native.
ROWS_32X32 = "two-level,two-level-rsag,relay-fold,rabenseifner"
# The rows sweep-64x16 runs beside auto and native: the two-level rows and the flat rows of
# O(n + log p) bandwidth-optimal rounds with a plan each rank makes for itself. Left out:
# relay-fold's and Rabenseifner's all-reduce (flat, they put a node's sixteen streams on its
# link: 779-1064 ms here against two-level-rsag's 69.5-139.4, 20 minutes of simulation), PRR,
# SLT, the rings and the
# pipelines (Theta(p) rounds; the ring all-gatherv, costed on nodes, is estimated 1.6x
# two-level's here), late-fold and Clairvoyant (a global plan per pattern, about a second per
# rank at 1024), the whole-vector trees and butterflies (log p whole buffers), the arrival-aware
# broadcast and all-gatherv (flat rows, not auto's on nodes), scatter-allgather (the library's
# own broadcast at this size); each is minutes of simulation at 1024 ranks (a simulation of six
# rows takes about ten) and far behind (gige-1024, docs/results.md "At scale").
ROWS_64X16 = {
    "allreduce": "two-level,two-level-rsag",
    "reduce": "two-level,relay-fold",
    "bcast": "two-level,circulant",
    "allgatherv": "two-level,circulant",
}


def iters_for(size, op=None, np=48):
    """Measured iterations of a sweep's simulation: 2, and 10 for the 16 KiB broadcast, whose
    0.4 ms calls vary by 0.02 ms from one iteration to the next (the 2 % the sweeps compare at).
    At 1024 ranks the broadcasts vary more: the 16 KiB one's 0.6 ms calls by 0.07 ms (one
    iteration in five 0.15-0.35 ms longer, for every variant), so 40 iterations (over 20 the
    mean of auto, which runs the two-level row's own schedule, came out 3.1 % above the row's,
    over 40 0.2 %); the 4 MiB one's by about 1 ms in 38, so 4."""
    if np >= 1024 and op == "bcast":
        return "40" if size == "16KiB" else "4"
    return "10" if size == "16KiB" else "2"


def main():
    args = parse_args(__doc__.splitlines()[0])
    exp = Experiment("nodes", args, notes=[
        "platforms of many-core nodes: sim/platforms/README.md; loopback 0.5 us, 8 GB/s, FATPIPE"])
    alpha, beta, gamma = PLATFORM_HOCKNEY["gige"]
    tau = ["--alpha", repr(alpha), "--beta", repr(beta), "--gamma", repr(gamma)]
    it = ["--iters", "2" if args.quick else "3", "--warmup", "1"]
    base = ["--op", "allreduce", "--size", "1M", "--mode", "one-late"]
    if wants(args, "native-8x6"):
        for name in NATIVE_QUICK if args.quick else NATIVE_ALL:
            exp.run("native-8x6", "gige-8x6", 48,
                    base + ["--max-delay", "0,50", "--algo", "native"] + it + tau,
                    cfg=[f"--cfg=smpi/allreduce:{name}"], variant=name)
    if wants(args, "papcoll-8x6"):
        exp.run("papcoll-8x6", "gige-8x6", 48,
                base + ["--max-delay", "0,50", "--algo", PAPCOLL] + it + tau)
    # SMPI's SMP-aware all-reduces need a power-of-two number of ranks per node (and of ranks):
    # on gige-8x6 they stall or stop; gige-16x8 has 8 per node.
    for part, names in (("native-16x8", ["ompi"] if args.quick else ["ompi", "mpich"]),
                        ("others-16x8", [] if args.quick else ["lr", "smp_rsag_rab", "smp_rdb"])):
        if not wants(args, part):
            continue
        for name in names:
            exp.run(part, "gige-16x8", 128,
                    base + ["--max-delay", "0,100", "--algo", "native", "--iters", "2",
                            "--warmup", "1"] + tau,
                    cfg=[f"--cfg=smpi/allreduce:{name}"], variant=name)
    if wants(args, "papcoll-16x8"):
        exp.run("papcoll-16x8", "gige-16x8", 128,
                base + ["--max-delay", "0,100", "--algo", PAPCOLL, "--iters", "2",
                        "--warmup", "1"] + tau)
    # The four collectives under every arrival mode, every papcoll row ("all") with auto and the
    # MPI library's collective (native, SMPI's ompi selector), in one simulation per collective,
    # mode and size: what docs/results.md's many-core table reads.
    for part, platform, np, delay in (("sweep-8x6", "gige-8x6", 48, 50),
                                      ("sweep-16x8", "gige-16x8", 128, 100)):
        for op, size in (("allreduce", "1M"), ("reduce", "1M"), ("bcast", "4MiB"),
                         ("bcast", "16KiB"), ("allgatherv", "4MiB")):
            # --only sweep-8x6 runs them all, --only sweep-8x6-reduce one collective.
            group = f"{part}-{op}"
            if not (wants(args, part) or wants(args, group)):
                continue
            for mode in ("one-late", "rand-late", "k-late:4"):
                delays = f"0,{delay}" if mode == "one-late" else str(delay)
                exp.run(part, platform, np,
                        ["--op", op, "--size", size, "--mode", mode, "--max-delay", delays,
                         "--algo", "all", "--iters", iters_for(size), "--warmup", "1"] + tau,
                        variant=f"{op}-{size}-{mode}", group=group)
    for op, size in (("allreduce", "1M"), ("reduce", "1M"), ("bcast", "4MiB"),
                     ("bcast", "16KiB"), ("allgatherv", "4MiB")):
        group = f"sweep-64x16-{op}"
        if not (wants(args, "sweep-64x16") or wants(args, group)):
            continue
        for mode in ("one-late", "rand-late", "k-late:4"):
            exp.run("sweep-64x16", "gige-64x16", 1024,
                    ["--op", op, "--size", size, "--mode", mode,
                     "--max-delay", "0,100" if mode == "one-late" else "100",
                     "--algo", f"{ROWS_64X16[op]},auto,native", "--iters", iters_for(size, op, 1024),
                     "--warmup", "1",
                     "--no-check"] + tau,
                    cfg=["--cfg=smpi/auto-shared-malloc-thresh:65536"],
                    variant=f"{op}-{size}-{mode}", group=group)
    for part in ("library-64x16", "library-64x16-late"):
        for op, size in (("allreduce", "1M"), ("reduce", "1M"), ("bcast", "4MiB"),
                         ("bcast", "16KiB"), ("allgatherv", "4MiB")):
            # --only library-64x16 runs them all, --only library-64x16-reduce one collective.
            if not (wants(args, part) or wants(args, f"{part}-{op}")):
                continue
            modes = ["one-late"] if part == "library-64x16" else \
                ["k-late:4"] + (["rand-late"] if op == "allreduce" else [])
            for mode in modes:
                delays = "0,100" if mode == "one-late" else "100"
                exp.run(part, "gige-64x16", 1024,
                        ["--op", op, "--size", size, "--mode", mode, "--max-delay", delays,
                         "--algo", "auto,native", "--iters", "2", "--warmup", "1",
                         "--no-check"] + tau,
                        cfg=["--cfg=smpi/auto-shared-malloc-thresh:65536"],
                        variant=f"{op}-{size}-{mode}")
    if wants(args, "native-64x16"):
        for name in NATIVE_QUICK:
            exp.run("native-64x16", "gige-64x16", 1024,
                    base + ["--max-delay", "0,100", "--algo", "native", "--iters", "2",
                            "--warmup", "1", "--no-check"] + tau,
                    cfg=[f"--cfg=smpi/allreduce:{name}",
                         "--cfg=smpi/auto-shared-malloc-thresh:65536"], variant=name)
    opa = ["--alpha", repr(PLATFORM_HOCKNEY["opa-36"][0]), "--beta",
           repr(PLATFORM_HOCKNEY["opa-36"][1]), "--gamma", repr(PLATFORM_HOCKNEY["opa-36"][2])]
    for part, names in (("native-32x32", NATIVE_QUICK), ("papcoll-32x32", [None])):
        if not wants(args, part):
            continue
        for name in names:
            exp.run(part, "opa-32x32", 1024,
                    base + ["--max-delay", "0,1", "--algo",
                            "native" if name else f"{ROWS_32X32},auto,native", "--iters", "2",
                            "--warmup", "1", "--no-check"] + opa,
                    cfg=([f"--cfg=smpi/allreduce:{name}"] if name else []) +
                    ["--cfg=smpi/auto-shared-malloc-thresh:65536"], variant=name or "rows")
    if wants(args, "native-bcast-64x16"):
        for size in ("4MiB", "16KiB"):
            for name in BCAST_QUICK if args.quick else BCAST_ALL:
                exp.run("native-bcast-64x16", "gige-64x16", 1024,
                        ["--op", "bcast", "--size", size, "--mode", "one-late", "--max-delay",
                         "5", "--algo", "auto,native" if name == "ompi" else "native",
                         "--iters", "2", "--warmup", "1", "--no-check"] + tau,
                        cfg=[f"--cfg=smpi/bcast:{name}",
                             "--cfg=smpi/auto-shared-malloc-thresh:65536"],
                        variant=f"{size}-{name}")
    if wants(args, "scale-64x16"):
        exp.run("scale-64x16", "gige-64x16", 1024,
                ["--op", "allreduce", "--size", "1M", "--mode", "none", "--algo", "native",
                 "--iters", "1", "--warmup", "1", "--no-check"] + tau,
                cfg=["--cfg=smpi/auto-shared-malloc-thresh:65536"], variant="ompi")
    return exp.finish()


if __name__ == "__main__":
    raise SystemExit(main())
