#!/usr/bin/env python3
"""Broadcast and all-gatherv experiments of Träff's round-optimal paper
(../shared/papers/round-optimal-bcast.txt, Figs. 1-3) on the Omni-Path-like opa-36 (36 nodes, one
rank per node), MPI_INT, all ranks arriving together:

  fig1             broadcast from rank 0 over sizes: circulant (round-optimal), binomial,
                   scatter-allgather, chain, native (SMPI's MPI_Bcast, ompi selector)
  fig2-regular     all-gatherv, regular problem (Fig. 3's regular all-gather is this shape)
  fig2-irregular   all-gatherv, rank i contributes in proportion to i
  fig2-degenerate  all-gatherv, rank 0 contributes everything
                   (circulant, ring, bruck, native)
  fig1 also: circulant with the Hockney-optimal block count of opa-36 ("circulant+nopt")
  every part also network only (part name + "-net", --cfg=smpi/simulate-computation:no)

  /usr/bin/python3 sim/experiments/bcast.py [--quick] [--only fig1,fig2-regular,...]
"""
import math
import sys

from common import Experiment, parse_args, wants
from plots import plot_bcast

PAPER = {
    "source": "Träff, round-optimal broadcast and all-gatherv on circulant graphs, Figs. 1-3 "
              "(36 dual-socket nodes, Omni-Path, Open MPI 4.1.4, MPI_INT)",
    "fig1": "the new broadcast can be significantly faster than Open MPI 4.1.4's MPI_Bcast, even "
            "with one process per node",
    "fig2": "irregular all-gatherv: the new algorithm is faster; for the degenerate problem Open "
            "MPI's MPI_Allgatherv degenerates, close to 100x slower than the new one, whose time "
            "is largely independent of the problem type",
    "fig3": "regular all-gather: the new all-gatherv is competitive with the native one",
}


# opa-36's Hockney parameters (sim/platforms/README.md) and the block count that minimises the
# circulant broadcast's (n - 1 + q)(alpha + beta m / n): n = sqrt((q - 1) beta m / alpha)
# (docs/circulant.md). papcoll's own rule multiplies it by kPipelineBlockFactor = 0.07, a value
# measured on an oversubscribed 2-core machine, with papcoll's default alpha and beta.
OPA_ALPHA, OPA_BETA, OPA_P = 1e-6, 8e-11, 36


def hockney_blocks(nbytes, per_origin=1):
    q = math.ceil(math.log2(OPA_P))
    n = math.sqrt((q - 1) * OPA_BETA * nbytes / OPA_ALPHA)
    return max(1, round(n / per_origin))


def parse_size(text):
    mult = {"K": 1 << 10, "M": 1 << 20}.get(text[-1], 1)
    return int(text[:-1] if text[-1] in "KM" else text) * mult


def main():
    args = parse_args(__doc__.splitlines()[0])
    quick = args.quick
    exp = Experiment("bcast", args, PAPER)
    it = ["--iters", "3", "--warmup", "1"] if quick else ["--iters", "10", "--warmup", "2"]
    sizes = "1K,16K,256K,4M" if quick else "16,256,1K,4K,16K,64K,256K,1M,4M"
    base = ["--mode", "none", "--max-delay", "0", "--dtype", "int", "--size", sizes] + it
    # Each part twice: as usual (papcoll's computation charged 1:1, which at 100 Gbps is a large
    # share of every papcoll figure), and network only (the algorithms' communication alone,
    # part name + "-net").
    net = ["--cfg=smpi/simulate-computation:no"]
    if wants(args, "fig1"):
        for suffix, cfg in (("", []), ("-net", net)):
            exp.run("fig1" + suffix, "opa-36", 36,
                    ["--op", "bcast", "--algo", "circulant,binomial,scatter-allgather,chain,native"]
                    + base, cfg=cfg, group="fig1")
        # circulant with the block count that is optimal for opa-36's links ("circulant+nopt")
        for size in sizes.split(","):
            n = hockney_blocks(4 * parse_size(size))
            exp.run("fig1", "opa-36", 36,
                    ["--op", "bcast", "--algo", "circulant", "--blocks", str(n), "--mode", "none",
                     "--max-delay", "0", "--dtype", "int", "--size", size] + it,
                    variant="circulant+nopt", group="fig1")
    for shape in ("regular", "irregular", "degenerate"):
        if wants(args, "fig2-" + shape):
            for suffix, cfg in (("", []), ("-net", net)):
                exp.run("fig2-" + shape + suffix, "opa-36", 36,
                        ["--op", "allgatherv", "--shape", shape,
                         "--algo", "circulant,ring,bruck,native"] + base, cfg=cfg,
                        group="fig2-" + shape)
    return exp.finish(plot_bcast)


if __name__ == "__main__":
    sys.exit(main())
