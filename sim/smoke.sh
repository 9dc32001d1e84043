#!/usr/bin/env bash
# Smoke test of the SimGrid SMPI path (docs/smpi.md), so that it cannot rot: builds the SMPI
# variant into build-smpi/ (or $1) and runs every operation (all-reduce, reduce, broadcast,
# all-gatherv, scatterv, gatherv) at 16 simulated ranks, a couple of
# iterations each. papcoll-bench checks every result against the MPI library's own collective
# and exits 1 on a wrong one or a failed call; smpirun passes that on.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-smpi}
# scripts/test.sh passes a build type of Debug (PAPCOLL_SMPI_BUILD_TYPE): it compiles in about
# half the time, and the smoke runs are tiny. The experiments use the Release build in build-smpi.
# PAPCOLL_BUILD_TARGETS=papcoll-bench (scripts/test.sh) builds only what the runs below use.
bash scripts/build.sh "$dir" -DPAPCOLL_SMPI=ON -DCMAKE_BUILD_TYPE="${PAPCOLL_SMPI_BUILD_TYPE:-Release}"
bench=$dir/bin/papcoll-bench

# Every op with its default algorithms (native included), one late rank so the simulated sleeps
# matter, arrival patterns from the oracle and from the history monitor.
common=(--size 4K --iters 2 --warmup 1 --mode one-late --max-delay 2 --compute-ms 1
        --pat oracle,history --quiet)
run() {
  local platform=$1
  shift
  echo "-- $platform: papcoll-bench $*"
  timeout 300 sim/run.sh "$platform" 16 "$bench" "${common[@]}" "$@" >/dev/null
}
run gige-48 --op allreduce
run gige-48 --op reduce
run g5k-2sites-39 --op bcast
run opa-36 --op allgatherv --shape irregular
# Scatterv and gatherv: portions from (stand-in) CPU speeds; gatherv with a link model file, so
# the model's broadcast and the model-based trees run too.
model=$(mktemp /tmp/papcoll-smoke-XXXXXX.model)
trap 'rm -f "$model"' EXIT
printf 'papcoll-model 1\np 16\ndefault 4e-05 8e-09\n0 1 5e-06 8e-10\nend\n' >"$model"
run g5k-2sites-39 --op scatterv --counts-dist cpu-speed
run g5k-2sites-39 --op gatherv --counts-dist ratio:100 --model "$model"

# Every platform file still loads and routes; on the platforms of many-core nodes 16 ranks fill
# nodes of unequal size (gige-8x6: 6, 6 and 4; the others: one or two nodes).
for platform in gige-128 gige-512 gige-1024 gige-8x6 gige-16x8 gige-64x16 opa-32x32; do
  run "$platform" --op allreduce --algo ring,prr
done

# On nodes of several ranks (not sharing cores) auto times the executor's costs once per
# communicator, and the table says what it took (docs/papcoll-bench.md, "Output").
echo "-- gige-8x6: papcoll-bench --algo auto,native, the executor costs under the table"
out=$(timeout 300 sim/run.sh gige-8x6 16 "$bench" "${common[@]}" --op allreduce --algo auto,native)
grep -Eq "^# executor costs \(papcoll_last_executor_costs\): step overhead [0-9]+\.[0-9]+ us; node exchange [0-9]" <<<"$out" || {
  echo "smoke: no executor costs line (or no node exchange) under auto's table:" >&2
  echo "$out" >&2
  exit 1
}

# sim/run.sh preloads sim/shmalloc_tmpfs.c so that SMPI's file behind folded allocations lives on
# /dev/shm (docs/smpi.md, "Computation"): SMPI's template must come back as an unlinked file
# there, any other template as the caller asked; then a folded simulation through sim/run.sh.
if [[ -d /dev/shm && -w /dev/shm ]]; then
  echo "-- shmalloc_tmpfs preload, then gige-48 with folded allocations"
  shim_dir=$(mktemp -d /tmp/papcoll-smoke-shim-XXXXXX)
  trap 'rm -f "$model"; rm -rf "$shim_dir"' EXIT
  cc -shared -fPIC -O2 -o "$shim_dir/shim.so" sim/shmalloc_tmpfs.c -ldl
  cat >"$shim_dir/check.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static int where(const char* template_name, char* target, size_t size) {
  char name[64], link[64];
  snprintf(name, sizeof name, "%s", template_name);
  const int fd = mkstemp(name);
  if (fd < 0) return -1;
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, target, size - 1);
  target[n < 0 ? 0 : n] = '\0';
  unlink(name); /* the template as mkstemp left it: gone already where the preload took it */
  close(fd);
  return 0;
}
int main(void) {
  char smpi[256], other[256];
  if (where("/tmp/simgrid-shmalloc-XXXXXX", smpi, sizeof smpi) != 0) return 2;
  if (where("/tmp/papcoll-smoke-other-XXXXXX", other, sizeof other) != 0) return 2;
  printf("%s\n%s\n", smpi, other);
  return strncmp(smpi, "/dev/shm/simgrid-shmalloc-", 26) == 0 && strstr(smpi, "(deleted)") &&
                 strncmp(other, "/tmp/papcoll-smoke-other-", 25) == 0
             ? 0
             : 1;
}
EOF
  cc -O2 -o "$shim_dir/check" "$shim_dir/check.c"
  LD_PRELOAD="$shim_dir/shim.so" "$shim_dir/check" || {
    echo "smoke: sim/shmalloc_tmpfs.c did not move SMPI's file to /dev/shm (or moved another)" >&2
    exit 1
  }
  timeout 300 sim/run.sh gige-48 16 "$bench" --op allreduce --size 1M --iters 1 --warmup 1 \
    --no-check --quiet --cfg=smpi/auto-shared-malloc-thresh:65536 >/dev/null
fi

# The monitor thread does not exist under SMPI: papcoll-bench must say so and exit 1.
echo "-- gige-48: papcoll-bench --pat monitor (must fail cleanly)"
out=$(timeout 60 sim/run.sh gige-48 4 "$bench" --size 1K --iters 1 --pat monitor 2>&1) && {
  echo "smoke: --pat monitor unexpectedly succeeded" >&2
  exit 1
}
grep -q "SimGrid SMPI simulates no threads" <<<"$out" || {
  echo "smoke: --pat monitor failed without the expected message:" >&2
  echo "$out" >&2
  exit 1
}
echo "smpi smoke test: OK"
