#!/usr/bin/env python3
"""Reduce experiments of the Clairvoyant paper (Proficz & Ocetkiewicz's comments on Marendic et
al., ../shared/papers/clairvoyant-reduce.txt, Figs. 10 and 11) on gige-48:

  fig10  48 ranks, 512K floats, every rank delayed uniformly in [0, max delay), max delay
         0..500 ms: clairvoyant, binomial, Rabenseifner, radix-k, ring, native
  fig11  random delays up to 50 ms, 128K floats, 4..48 ranks

The paper plots the run time (first arrival to last completion) with the arrival pattern from
its progress monitor; papcoll-bench reports the mean elapsed time (own arrival to own
completion, averaged over ranks) with the oracle's pattern: the orderings are comparable, the
absolute values are not (docs/results.md).

  /usr/bin/python3 sim/experiments/reduce.py [--quick] [--only fig10,fig11]
"""
import sys

from common import Experiment, PLATFORM_HOCKNEY, parse_args, wants
from plots import plot_reduce

PAPER = {
    "source": "Proficz, Ocetkiewicz, Clairvoyant reduce (comments on Marendic et al.), "
              "Sect. 6, Figs. 10 and 11 (Tryton, 1 Gbps Ethernet, Open MPI)",
    "fig10": "48 nodes, 512K floats, max delay 0..0.5 s: Clairvoyant has the shortest run times, "
             "slightly ahead of the ring and native Open MPI; binomial, Rabenseifner and radix-k "
             "much worse. Only the figure's shape is in the text.",
    "fig11": "4..48 nodes, delays up to 50 ms, 128K floats: Clairvoyant gains on the others as "
             "the number of processes grows; its run time grows sublinearly.",
    "metric": "run time: first arrival to last completion (papcoll-bench: mean elapsed time)",
}
ALGOS = "clairvoyant,binomial,rabenseifner,radix-k,ring,native"


# The rows without the platform's parameters run with papcoll's default Hockney parameters, as
# the paper's comparison asks; papcoll would otherwise measure the network itself at the first
# collective (docs/calibration.md), which the `+tau` rows stand for.
DEFAULTS = {"PAPCOLL_CALIBRATION": "off"}

def main():
    args = parse_args(__doc__.splitlines()[0])
    quick = args.quick
    exp = Experiment("reduce", args, PAPER)
    it = ["--iters", "3", "--warmup", "1"] if quick else ["--iters", "12", "--warmup", "2"]
    # Clairvoyant's round time comes from papcoll's Hockney parameters; with a papcoll-bench that
    # takes them, also run it with the platform's ("clairvoyant+tau").
    alpha, beta, gamma = PLATFORM_HOCKNEY["gige"]
    tau = ["--alpha", repr(alpha), "--beta", repr(beta), "--gamma", repr(gamma)]
    hockney = exp.doc["bench_hockney_options"]
    if wants(args, "fig10"):
        delays = [0, 50, 200, 500] if quick else [0, 10, 25, 50, 100, 200, 300, 400, 500]
        common = ["--op", "reduce", "--size", "512K", "--mode", "rand-late",
                  "--max-delay", ",".join(map(str, delays))] + it
        exp.run("fig10", "gige-48", 48, common + ["--algo", ALGOS], env=DEFAULTS)
        if hockney:
            exp.run("fig10", "gige-48", 48, common + ["--algo", "clairvoyant"] + tau,
                    variant="clairvoyant+tau")
    if wants(args, "fig11"):
        ps = [4, 16, 32, 48] if quick else [4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48]
        for p in ps:
            common = ["--op", "reduce", "--size", "128K", "--mode", "rand-late",
                      "--max-delay", "50"] + it
            exp.run("fig11", "gige-48", p, common + ["--algo", ALGOS], env=DEFAULTS)
            if hockney:
                exp.run("fig11", "gige-48", p, common + ["--algo", "clairvoyant"] + tau,
                        variant="clairvoyant+tau")
    return exp.finish(plot_reduce)


if __name__ == "__main__":
    sys.exit(main())
