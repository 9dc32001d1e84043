#!/usr/bin/env bash
# The whole hetnet experiment: for every p, build the emulated network (setup.sh), measure the
# per-pair link model over it (papcoll-model measure), run papcoll-bench --op scatterv and
# --op gatherv with every tree and the measured model, and finally tear the network down and
# write a markdown summary (summarize.py). See docs/hetnet.md.
#
# usage: sudo experiments/hetnet/run.sh [OUTDIR]      (default: /tmp/hetnet-results/<date-time>)
#
# Settings (environment; the network's own in common.sh):
#   HETNET_PS       process counts                    (default "4 8")
#   HETNET_REPEATS  whole repetitions (model + bench)  (default 1)
#   HETNET_SIZE     --size: elements in all           (default 512K floats = 2 MiB)
#   HETNET_DISTS    --counts-dist values               (default "cpu-speed ratio:10")
#   HETNET_ITERS    --iters, HETNET_WARMUP --warmup    (default 25, 3)
#   HETNET_ALGOS    --algo                             (default: every scatterv/gatherv tree)
#   HETNET_MODEL_SIZES     papcoll-model --sizes       (default 1,16K,128K,256K)
#   HETNET_MODEL_REPS      papcoll-model --reps        (default 5)
#   HETNET_MODEL_BUDGET_S  papcoll-model --budget-s    (default 90)
#   HETNET_BIN      directory of papcoll-bench and papcoll-model (default: build/bin if its
#                   papcoll-bench knows --op scatterv and papcoll-model is there, else build-het/bin)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
. "$here/common.sh"

PS=${HETNET_PS:-4 8}
REPEATS=${HETNET_REPEATS:-1}
SIZE=${HETNET_SIZE:-512K}
DISTS=${HETNET_DISTS:-cpu-speed ratio:10}
ITERS=${HETNET_ITERS:-25}
WARMUP=${HETNET_WARMUP:-3}
ALGOS=${HETNET_ALGOS:-linear,binomial,binomial-minfirst,binomial-maxfirst,traff,traff-model,auto,native}
MODEL_SIZES=${HETNET_MODEL_SIZES:-1,16K,128K,256K}
MODEL_REPS=${HETNET_MODEL_REPS:-5}
MODEL_BUDGET_S=${HETNET_MODEL_BUDGET_S:-90}
OUT=${1:-/tmp/hetnet-results/$(date +%Y%m%d-%H%M%S)}

if [[ -z ${HETNET_BIN:-} ]]; then
  HETNET_BIN=$repo/build/bin
  if [[ ! -x $HETNET_BIN/papcoll-model ]] ||
     ! "$HETNET_BIN/papcoll-bench" --help 2>&1 | grep -q scatterv; then
    HETNET_BIN=$repo/build-het/bin
  fi
fi
for tool in papcoll-bench papcoll-model; do
  [[ -x $HETNET_BIN/$tool ]] || {
    echo "run.sh: no $HETNET_BIN/$tool; build one with: bash scripts/build.sh build-het" >&2; exit 1; }
done
[[ $(id -u) == 0 ]] || { echo "run.sh: needs root (network namespaces, tc)" >&2; exit 1; }

mkdir -p "$OUT"
trap '"$here/teardown.sh" >/dev/null' EXIT
start=$(date +%s)
{
  echo "date: $(date -Is)"
  echo "host: $(uname -srm), $(nproc) cores"
  echo "binaries: $HETNET_BIN (papcoll-bench built $(date -r "$HETNET_BIN/papcoll-bench" -Is))"
  echo "uplinks: $HETNET_UPLINKS, layout: $HETNET_LAYOUT"
  echo "ps: $PS, repeats: $REPEATS, size: $SIZE, dists: $DISTS, iters: $ITERS, warmup: $WARMUP"
  echo "algos: $ALGOS"
  echo "model: --sizes $MODEL_SIZES --reps $MODEL_REPS --budget-s $MODEL_BUDGET_S"
  git -C "$repo" rev-parse HEAD 2>/dev/null | sed 's/^/commit: /' || true
} > "$OUT/config.txt"
cat "$OUT/config.txt"

for (( rep = 1; rep <= REPEATS; rep++ )); do
  for p in $PS; do
    dir=$OUT/run$rep/p$p
    mkdir -p "$dir"
    "$here/setup.sh" "$p" | tee "$dir/topology.txt"
    # The rank -> cluster map and the uplink rates, for summarize.py.
    {
      echo "uplinks $HETNET_UPLINKS"
      echo -n "clusters"
      for (( i = 0; i < p; i++ )); do echo -n " $(hetnet_cluster_of $i $p)"; done
      echo
    } > "$dir/layout.txt"

    echo "== run $rep, p=$p: measuring the link model"
    "$here/mpirun.sh" "$p" "$HETNET_BIN/papcoll-model" measure --out "$dir/model.txt" \
      --sizes "$MODEL_SIZES" --reps "$MODEL_REPS" --budget-s "$MODEL_BUDGET_S" 2>&1 |
      tee "$dir/model.log"
    "$HETNET_BIN/papcoll-model" show "$dir/model.txt" --p "$p" > "$dir/model-show.txt"

    for op in scatterv gatherv; do
      for dist in $DISTS; do
        tag=$op-${dist//:/}
        echo "== run $rep, p=$p: $op, --counts-dist $dist"
        # A failing bench (a wrong result, an error) is recorded and the run goes on; the
        # summary marks the algorithm's 'correct' column.
        rc=0
        "$here/mpirun.sh" "$p" "$HETNET_BIN/papcoll-bench" --op "$op" --algo "$ALGOS" \
          --size "$SIZE" --mode none --max-delay 0 --iters "$ITERS" --warmup "$WARMUP" \
          --counts-dist "$dist" --model "$dir/model.txt" --json "$dir/$tag.json" --quiet \
          2>&1 | tee "$dir/$tag.txt" || rc=$?
        (( rc == 0 )) || echo "run $rep p=$p $tag: papcoll-bench exit $rc" | tee -a "$OUT/failures.txt"
      done
    done
  done
done
"$here/teardown.sh" >/dev/null
trap - EXIT

echo "wall time: $(( $(date +%s) - start )) s" | tee -a "$OUT/config.txt"
python3 "$here/summarize.py" "$OUT" > "$OUT/summary.md"
echo "== summary: $OUT/summary.md"
cat "$OUT/summary.md"
