#!/usr/bin/env bash
# The whole test suite: set-up, build, unit + CLI + MPI tests (ctest), then the unit and MPI tests
# again under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
bash scripts/setup.sh
bash scripts/build.sh build
(cd build && ctest --output-on-failure --timeout 300 -j 2)

if [[ "${PAPCOLL_SKIP_SANITIZERS:-0}" != 1 ]]; then
  echo "== sanitizer build (address,undefined)"
  bash scripts/build.sh build-asan -DCMAKE_BUILD_TYPE=Debug -DPAPCOLL_SANITIZE=address,undefined
  # Open MPI's own allocations are reported as leaks at exit; leaks are checked in unit tests only.
  (cd build-asan && ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ctest --output-on-failure --timeout 300 -j 2 -E '_np(5|8)$')
fi
