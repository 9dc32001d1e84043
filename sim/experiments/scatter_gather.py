#!/usr/bin/env python3
"""Scatterv/gatherv experiments of Dichev, Rychkov and Lastovetsky
(../shared/papers/hetero-scatter-gather.txt, Sect. 3, Fig. 3) on the Grid'5000-like
g5k-2sites-39 (39 nodes, 5 clusters, 2 sites), root 0, portions from CPU speeds (papcoll-bench
--counts-dist cpu-speed; full mode also ratio:100), all ranks arriving together:

  plain trees   linear, binomial, traff, native (SMPI's MPI_Scatterv/Gatherv, ompi selector)
  model-based   binomial-minfirst, binomial-maxfirst, traff-model, auto, with
                  +platform  a per-pair Hockney model derived from the platform file (below)
                  +homog     one alpha and beta for every pair (what `papcoll-model homogeneous`
                             writes: 40 us, 8 ns/B, the platform's intra-cluster figures)

Each twice: ranks on the hosts in the platform's order (clusters in rank order, so a plain tree is
already topology-friendly) and in a random order (part name + "-shuffled"; rank 0 stays on the
first host), with the platform model of that placement.

And once more, shuffled, with 64 KiB TCP windows (part name + "-shuffled-tcp64k", --only tcp64k):
the inter-site links then carry 6.4 MB/s per flow, as TCP over a 10 ms round trip did.

  /usr/bin/python3 sim/experiments/scatter_gather.py [--quick] [--only scatterv,gatherv,tcp64k]
"""
import os
import random
import shutil
import sys

from common import Experiment, parse_args, wants
from plots import plot_scatter_gather

PAPER = {
    "source": "Dichev, Rychkov, Lastovetsky, Two algorithms of irregular scatter/gather "
              "operations for heterogeneous platforms, Sect. 3, Fig. 3 (Grid'5000, 39 nodes, "
              "5 clusters, 2 sites, MPICH2 over TCP)",
    "claim": "on heterogeneous networks both model-based algorithms clearly outperform their "
             "non-model-based counterparts: time reductions for scatterv and gatherv of up to 75% "
             "for the binomial algorithm (minimum-first mapping) and up to 60% for Träff's",
    "hcl": "on the homogeneous 14-node HCL cluster: model-based binomial maximum-first 25-35% "
           "faster than the arbitrary binomial tree for larger messages; modified Träff similar "
           "to the original",
}

# g5k-2sites-39 (sim/platforms/g5k-2sites-39.xml, README): cluster -> (first rank, nodes, site,
# private link latency s, private bandwidth B/s, uplink latency s, uplink bandwidth B/s).
CLUSTERS = [("s1-a", 0, 12, 1, 20e-6, 125e6, 50e-6, 1.25e9),
            ("s1-b", 12, 8, 1, 5e-6, 1.25e9, 20e-6, 1.25e9),
            ("s1-c", 20, 6, 1, 50e-6, 125e6, 100e-6, 125e6),
            ("s2-a", 26, 8, 2, 30e-6, 125e6, 50e-6, 1.25e9),
            ("s2-b", 34, 5, 2, 60e-6, 125e6, 100e-6, 125e6)]
INTERSITE = (5e-3, 1.25e9)


def platform_model(path, placement, intersite_bw=None):
    """Per-pair Hockney model of g5k-2sites-39 from its links: alpha = sum of the latencies on
    the route, beta = 1 / the smallest bandwidth on it (no contention). placement[rank] is the
    host index (line of the platform's hostfile) the rank runs on."""
    host_cluster = {}
    for c in CLUSTERS:
        for h in range(c[1], c[1] + c[2]):
            host_cluster[h] = c
    where = {r: host_cluster[h] for r, h in enumerate(placement)}
    p = len(where)
    lines = ["papcoll-model 1", "# g5k-2sites-39, derived from the platform file by "
             "sim/experiments/scatter_gather.py", f"p {p}"]
    for i in range(p):
        for j in range(p):
            if i == j:
                continue
            a, b = where[i], where[j]
            lat = a[4] + b[4]
            bw = min(a[5], b[5])
            if a[0] != b[0]:
                lat += a[6] + b[6]
                bw = min(bw, a[7], b[7])
                if a[3] != b[3]:
                    lat += INTERSITE[0]
                    bw = min(bw, INTERSITE[1], intersite_bw or INTERSITE[1])
            lines.append(f"{i} {j} {lat:.9g} {1.0 / bw:.9g}")
    lines.append("end")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def shuffled_platform(out, seed=7):
    """A copy of g5k-2sites-39 whose hostfile puts the ranks on the hosts in a random order
    (rank 0, the root, stays on the first host): the placement an MPI launcher gives when it
    knows nothing of the network. Returns (platform path, placement)."""
    src = os.path.join(os.path.dirname(__file__), "..", "platforms", "g5k-2sites-39")
    with open(src + ".hosts") as f:
        hosts = [h.strip() for h in f if h.strip()]
    rest = list(range(1, len(hosts)))
    random.Random(seed).shuffle(rest)
    placement = [0] + rest
    dst = os.path.join(out, "g5k-2sites-39-shuffled")
    shutil.copyfile(src + ".xml", dst + ".xml")
    with open(dst + ".hosts", "w") as f:
        f.write("".join(hosts[h] + "\n" for h in placement))
    return dst + ".xml", placement


def homogeneous_model(path, p=39, alpha=40e-6, beta=8e-9):
    with open(path, "w") as f:
        f.write(f"papcoll-model 1\np {p}\ndefault {alpha:.9g} {beta:.9g}\nend\n")
    return path


def main():
    args = parse_args(__doc__.splitlines()[0])
    quick = args.quick
    exp = Experiment("scatter_gather", args, PAPER)
    homog = homogeneous_model(os.path.join(args.out, "g5k-homogeneous.model"))
    shuffled_xml, shuffled = shuffled_platform(args.out)
    # (part suffix, group for --only, platform, placement, extra SimGrid settings, inter-site
    # bandwidth for the model). "-tcp64k": the shuffled placement with TCP windows of 64 KiB
    # (SimGrid's network/TCP-gamma bounds a flow to window / (2 x route latency): 6.4 MB/s
    # between the sites, unchanged inside them), the WAN behaviour of 2010-era TCP that a clean
    # 10 Gbps inter-site pipe leaves out.
    win = 65536
    placements = [("", None, "g5k-2sites-39", list(range(39)), [], None),
                  ("-shuffled", None, shuffled_xml, shuffled, [], None),
                  ("-shuffled-tcp64k", "tcp64k", shuffled_xml, shuffled,
                   [f"--cfg=network/TCP-gamma:{win}"], win / (2 * 5.13e-3))]
    exp.doc["models"] = {"homog": os.path.basename(homog)}
    exp.doc["shuffled_placement"] = shuffled
    it = ["--iters", "3", "--warmup", "1"] if quick else ["--iters", "10", "--warmup", "2"]
    sizes = "64K,1M" if quick else "4K,64K,256K,1M,4M"
    dists = ["cpu-speed"] if quick else ["cpu-speed", "ratio:100"]
    model_based = "binomial-minfirst,binomial-maxfirst,traff-model,auto"
    for op in ("scatterv", "gatherv"):
        for suffix, group, platform, placement, cfg, isbw in placements:
            group = op if group is None else group
            if not wants(args, group):
                continue
            plat = platform_model(os.path.join(args.out, f"g5k-2sites-39{suffix}.model"),
                                  placement, isbw)
            exp.doc["models"]["platform" + suffix] = os.path.basename(plat)
            for dist in dists:
                part = op + suffix + ("" if dist == "cpu-speed" else "-" + dist.replace(":", ""))
                base = ["--op", op, "--mode", "none", "--max-delay", "0", "--size", sizes,
                        "--counts-dist", dist, "--dtype", "double"] + it
                exp.run(part, platform, 39, base + ["--algo", "linear,binomial,traff,native"],
                        cfg=cfg, group=group)
                for tag, model in (("platform", plat), ("homog", homog)):
                    rows = exp.run(part, platform, 39,
                                   base + ["--algo", model_based, "--model", model],
                                   cfg=cfg, variant=tag, group=group)
                    for r in rows:
                        r["variant"] = f"{r['algorithm']}+{tag}"
                exp.save()
    return exp.finish(plot_scatter_gather)


if __name__ == "__main__":
    sys.exit(main())
