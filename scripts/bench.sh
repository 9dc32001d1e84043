#!/usr/bin/env bash
# The main job: build if needed, then the imbalance benchmark (Proficz, Fig. 9) on this machine
# with 4 MPI ranks: 1M floats, no delay and one rank late by 20 ms, every all-reduce algorithm.
# Extra arguments are passed to papcoll-bench (see docs/papcoll-bench.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh build
for mode in none one-late; do
  bash scripts/mpirun.sh -np 4 build/bin/papcoll-bench --op allreduce --size 1M --dtype float \
    --mode "$mode" --max-delay 20 --iters 32 --warmup 3 --pat oracle \
    --json "build/bench-allreduce-$mode.json" "$@"
done
