#!/usr/bin/env bash
# Runs every SMPI experiment (sim/experiments/*.py) one after the other, then the report:
#   sim/experiments/run_all.sh [--quick] [EXTRA ARGS FOR EVERY SCRIPT]
# JSON and PNG go to sim/results/quick/ (with --quick) or sim/results/full/; report.py then
# rewrites docs/results.md and docs/results/*.png from them. Installs what is missing first
# (scripts/setup.sh: SimGrid, python3-matplotlib) and builds the SMPI variant into build-smpi/
# (incremental when it exists), so it runs as one command on a fresh machine. Simulations run
# one at a time, under nice.
set -uo pipefail
cd "$(dirname "$0")/../.."
py=/usr/bin/python3
[[ -x $py ]] || py=python3
status=0
start=$SECONDS
bash scripts/setup.sh
bash scripts/build.sh build-smpi -DPAPCOLL_SMPI=ON -DCMAKE_BUILD_TYPE=Release
for exp in allreduce reduce bcast arrival scatter_gather late_fold; do
  t=$SECONDS
  echo "== $exp $*"
  nice -n 10 "$py" sim/experiments/$exp.py "$@" || status=1
  echo "== $exp: $((SECONDS - t)) s"
done
"$py" sim/experiments/report.py || status=1
echo "== all experiments: $((SECONDS - start)) s (status $status)"
exit $status
