#!/usr/bin/env bash
# The main job: set-up, build, then what papcoll changes when one rank is late, in four parts
# (docs/quickstart.md has the commands for your own program):
#  1. this machine, real Open MPI, 4 ranks, 1M floats: the MPI library's all-reduce and reduce
#     against papcoll's `auto` and the algorithms `auto` chooses among, balanced and with rank 1
#     20 ms late, iterations interleaved (papcoll-bench, docs/papcoll-bench.md);
#  2. a simulated cluster (SimGrid SMPI, docs/smpi.md): 48 ranks on gige-48, rank 1 50 ms late;
#  3. the straggler report of part 1's all-reduce with rank 1 late (docs/report-format.md);
#  4. the closing lines: papcoll-bench's verdict for `auto` per case, the report in two lines,
#     and a picture of every case, written beside the JSON (scripts/bench_summary.py).
# Extra arguments go to papcoll-bench in part 1 (e.g. --iters 64).
#
# Environment (the CLI suite runs a shortened job, tests/cli/check_main_job.py):
#   PAPCOLL_BENCH_OUT        where the JSON, the report and the picture go (build/bench)
#   PAPCOLL_BENCH_QUICK=1    a few iterations of smaller buffers, 16 simulated ranks: checks the
#                            job's plumbing, its figures mean nothing
#   PAPCOLL_BENCH_BIN        a built papcoll-bench (not built here), or `skip`: no part 1 or 3
#   PAPCOLL_BENCH_SMPI_BIN   a papcoll-bench built for SMPI (not built here), or `skip`: no part 2
# With both given, nothing is installed or built.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${PAPCOLL_BENCH_OUT:-build/bench}
quick=${PAPCOLL_BENCH_QUICK:-0}
start=$SECONDS
hz=$(getconf CLK_TCK)
# Wall time so far, and CPU time of this script and the commands it ran (/proc/PID/stat: utime,
# stime, cutime, cstime): on a machine shared with other jobs the two tell load from work.
elapsed() {
  echo "$((SECONDS - start)) s, $(awk -v hz="$hz" '{ printf "%.0f", ($14 + $15 + $16 + $17) / hz }' \
    "/proc/$$/stat") s of CPU"
}
step() { echo "== $1 ($(elapsed) so far)"; }

bench=${PAPCOLL_BENCH_BIN:-}
smpi_bench=${PAPCOLL_BENCH_SMPI_BIN:-}
if [[ -z $bench || -z $smpi_bench ]]; then
  step "set-up"
  bash scripts/setup.sh
fi
mkdir -p "$out"
# The two builds run side by side: each has a serial configure step and link tail, which the
# other's compiles fill. Each one's output goes to its log, printed if it fails.
builds=() built=""
if [[ -z $bench ]]; then
  # The flags of scripts/test.sh (line tables only), so the suite reuses this configuration. The
  # interposition library is not used here: it is the README's next command (docs/quickstart.md).
  PAPCOLL_BUILD_TARGETS="papcoll-bench papcoll-intercept" bash scripts/build.sh build \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
    >"$out/build.log" 2>&1 &
  builds+=("$!:$out/build.log") built+="${built:+ and }build/ (papcoll-bench, libpapcoll-intercept.so)"
  bench=build/bin/papcoll-bench
fi
if [[ -z $smpi_bench ]]; then
  # Release, as docs/smpi.md's experiments: SMPI charges papcoll's own computation to simulated
  # time, so a Debug build would make the simulated figures slower than a cluster's.
  PAPCOLL_BUILD_TARGETS=papcoll-bench bash scripts/build.sh build-smpi -DPAPCOLL_SMPI=ON \
    -DCMAKE_BUILD_TYPE=Release >"$out/build-smpi.log" 2>&1 &
  builds+=("$!:$out/build-smpi.log") built+="${built:+ and }build-smpi/ (papcoll-bench for SimGrid SMPI)"
  smpi_bench=build-smpi/bin/papcoll-bench
fi
if ((${#builds[@]})); then
  step "build: $built"
  failed=0
  for b in "${builds[@]}"; do
    if ! wait "${b%%:*}"; then
      echo "build failed; its output (${b#*:}):" >&2
      cat "${b#*:}" >&2
      failed=1
    fi
  done
  ((failed == 0)) || exit 1
fi
rm -f "$out"/*.json "$out"/*.png

# Part 1. `--pat history`: papcoll predicts each row's arrivals from its earlier calls, as it does
# for an unmodified program under LD_PRELOAD (docs/intercept.md); warm-up iterations give the
# history its first calls. Each row is the MPI library (native), auto, or what auto may run.
np=4
cores=$(nproc)
size=1M iters=32 warmup=3 delay=20
if [[ $quick == 1 ]]; then size=64K iters=3 warmup=2; fi
algos_allreduce=native,auto,late-fold,prr,slt
algos_reduce=native,auto,late-fold,clairvoyant
machine_json=()
summary_args=()
for op in allreduce reduce; do
  [[ $bench != skip ]] || break
  algos_var=algos_$op
  for mode in balanced one-late; do
    json=$out/$op-$mode.json
    machine_json+=("$json")
    args=(--op "$op" --algo "${!algos_var}" --size "$size" --dtype float --iters "$iters"
          --warmup "$warmup" --pat history --quiet --json "$json")
    if [[ $mode == balanced ]]; then args+=(--mode none); else args+=(--mode one-late --max-delay "$delay"); fi
    step "this machine: $op, $mode, $np ranks on $cores cores"
    report=()
    if [[ $op == allreduce && $mode == one-late ]]; then
      # The straggler report of this run (part 3): papcoll's calls only, written at MPI_Finalize.
      report=(-x "PAPCOLL_REPORT=$out/straggler-report.json")
    fi
    bash scripts/mpirun.sh -np "$np" "${report[@]}" "$bench" "${args[@]}" "$@"
  done
done
if [[ $bench != skip ]]; then
  note="real Open MPI, $np ranks on $cores cores"
  if ((np > cores)); then
    note+=" (oversubscribed: ranks wait for a core, so every time carries the scheduler's noise)"
  fi
  summary_args+=(--machine "${machine_json[@]}" --machine-note "$note"
                 --report "$out/straggler-report.json" --report-run "all-reduce run with rank 1 late")
else
  step "this machine's part left out (PAPCOLL_BENCH_BIN=skip)"
fi

# Part 2. One rank 50 ms late on 48 simulated ranks of 1 Gbps Ethernet; papcoll measures the
# simulated network itself, as it would on a cluster. ring is the paper's baseline: SMPI's
# MPI_Allreduce follows Open MPI's selection, which is slower than the ring at 48 ranks. auto's
# candidates are left out here: each costs about a second of simulation per call (late-fold,
# what auto runs, has 1000 steps per rank), and the verdict names what auto ran.
if [[ $smpi_bench != skip ]]; then
  sim_np=48 sim_size=1M sim_iters=5 sim_warmup=1
  if [[ $quick == 1 ]]; then sim_np=16 sim_size=64K sim_iters=1; fi
  step "simulated: SimGrid SMPI, platform gige-48, $sim_np ranks, allreduce, rank 1 50 ms late"
  sim_json=$out/smpi-gige-48-allreduce-one-late.json
  sim/run.sh gige-48 "$sim_np" "$smpi_bench" --op allreduce --algo native,auto,ring \
    --size "$sim_size" --dtype float --mode one-late --max-delay 50 --iters "$sim_iters" \
    --warmup "$sim_warmup" --pat history --quiet --json "$sim_json"
  summary_args+=(--sim "$sim_json" --sim-platform gige-48
                 --sim-note "$sim_np simulated ranks of 1 Gbps Ethernet (platform gige-48), rank 1 50 ms late, simulated time")
else
  step "simulated part left out (PAPCOLL_BENCH_SMPI_BIN=skip)"
fi

# Parts 3 and 4. Debian's python3 has matplotlib (scripts/setup.sh).
step "summary"
/usr/bin/python3 scripts/bench_summary.py "${summary_args[@]}" --png "$out/bench.png"
echo "== the main job: $(elapsed)"
