#!/usr/bin/env python3
"""At scale, against the MPI library (docs/results.md, "At scale"): the all-reduce and the reduce
at 128, 512 and 1024 ranks (gige-128/512/1024, one rank per node), 1M floats, computation
charged, papcoll-bench with the platform's Hockney parameters: `auto`, the MPI library's own
collective (`native`, SMPI's ompi selector) and relay-fold, for one rank 100 ms late, random
lateness up to 100 ms (rand-late), four ranks 100 ms late (k-late:4) and balanced. One simulation
per (ranks, pattern), the algorithms interleaved in it; from 512 ranks every allocation of 64 KiB
or more is folded onto shared memory and results are not checked (docs/smpi.md, "Scale").

    /usr/bin/python3 sim/experiments/scale.py [--quick] [--only allreduce,reduce]
    /usr/bin/python3 sim/experiments/scale.py --only reduce:one-late   (one pattern)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import Experiment, parse_args, wants, PLATFORM_HOCKNEY  # noqa: E402

MODES = [("one-late", "100"), ("rand-late", "100"), ("k-late:4", "100"), ("none", "0")]


def main():
    args = parse_args(__doc__)
    quick = args.mode == "quick"
    exp = Experiment("scale", args, notes=[
        "1M floats, computation charged, --alpha 22e-6 --beta 8e-9 --gamma 1e-12 (the gige links)",
        "one simulation per ranks and pattern, 2 measured iterations after 1 warm-up"])
    alpha, beta, gamma = PLATFORM_HOCKNEY["gige"]
    tau = ["--alpha", str(alpha), "--beta", str(beta), "--gamma", str(gamma)]
    points = [(128, "gige-128")] if quick else \
        [(128, "gige-128"), (512, "gige-512"), (1024, "gige-1024")]
    parts = [("allreduce", "auto,native,relay-fold"), ("reduce", "auto,native,relay-fold")]
    for op, algos in parts:
        for p, platform in points:
            fold = p >= 512
            for mode, delay in (MODES if op == "allreduce" else MODES[:1] + MODES[3:]):
                # --only reduce runs every pattern of the reduce, --only reduce:one-late one.
                if not (wants(args, op) or wants(args, f"{op}:{mode}")):
                    continue
                common = ["--op", op, "--size", "1M", "--mode", mode, "--max-delay", delay,
                          "--iters", "2", "--warmup", "1", "--algo", algos] + tau
                if fold:
                    common.append("--no-check")
                cfg = ["--cfg=smpi/auto-shared-malloc-thresh:65536"] if fold else []
                exp.run(op, platform, p, common, cfg=cfg, variant=f"{mode}")
    return exp.finish()


if __name__ == "__main__":
    sys.exit(main())
