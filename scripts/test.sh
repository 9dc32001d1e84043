#!/usr/bin/env bash
# The whole test suite: set-up, the format check (PAPCOLL_CHECK_FORMAT=0 skips it), build, unit + CLI + MPI
# tests (ctest), then the executor/API MPI tests and the fast unit tests again under
# AddressSanitizer + UndefinedBehaviorSanitizer, then the progress-monitor and bounded-staleness
# tests (the code with its own threads) under ThreadSanitizer, then the SimGrid SMPI build and smoke
# test (sim/smoke.sh; PAPCOLL_SKIP_SMPI=1 skips it).
set -euo pipefail
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# Each stage's wall time, so that the suite's budget (15 minutes on a 2-core machine) can be
# checked stage by stage.
stage_start=$SECONDS
stage_done() {
  echo "== $1: $((SECONDS - stage_start)) s (suite so far: $SECONDS s)"
  stage_start=$SECONDS
}
bash scripts/setup.sh
stage_done "setup"
# Every C/C++ file as clang-format-14 writes it (.clang-format; scripts/check_format.sh prints the
# command that fixes the files it lists); a misformatted file fails the suite here, before the
# build. PAPCOLL_CHECK_FORMAT=0 skips it.
if [[ "${PAPCOLL_CHECK_FORMAT:-1}" == 1 ]]; then
  bash scripts/check_format.sh
  stage_done "format check"
fi
# Line tables only (-g1, what a test failure's backtrace prints): a third less compile time per
# translation unit than RelWithDebInfo's -g, same code (-O2).
bash scripts/build.sh build "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
stage_done "main build"
(cd build && ctest --output-on-failure --timeout 300 -j 2)
stage_done "ctest (main build)"

if [[ "${PAPCOLL_SKIP_PYTHON:-0}" != 1 ]]; then
  # The Python package: pip install . into build-py/venv, pytest under mpirun (np 4 and 1), a
  # smoke run of examples/train_digits.py (docs/python.md); the torch tests and a smoke run of
  # examples/train_torch.py (docs/training.md), which must find Debian's python3-torch that
  # setup.sh installed (PAPCOLL_REQUIRE_TORCH=1: a missing torch fails them, not skips them).
  PAPCOLL_REQUIRE_TORCH=1 timeout 600 bash scripts/test_python.sh
  stage_done "python"
fi

if [[ "${PAPCOLL_SKIP_SANITIZERS:-0}" != 1 ]]; then
  # The executor and the API (buffers, datatypes, MPI requests) and the generators' unit tests
  # under ASan+UBSan; the slowest randomized unit tests (Clairvoyant equality, circulant ranges,
  # verifying every generator for every p up to 64: 200 s under ASan) already ran above and are
  # left out here to keep the suite under 15 minutes on 2 cores.
  echo "== sanitizer build (address,undefined)"
  # test_monitor_lifecycle and test_monitor_concurrent_free: monitor handles freed, stale, garbage
  # and freed while another thread is inside a collective using them (use-after-free checks).
  # test_stale: the bounded-staleness all-reduce's buffers (the carry, kept results, the
  # caller's receive buffer written by the engine thread). test_peer_errors: one rank's error on
  # every collective, first call and later (the board's reads of other ranks' slots and the
  # stand-in buffers).
  asan_mpi_tests=(test_allreduce test_allreduce_errors test_allreduce_types test_executor test_reduce
                  test_bcast test_allgatherv test_monitor_lifecycle test_monitor_concurrent_free
                  test_peer_errors test_stale)
  if [[ ! -f build-asan/build.ninja ]]; then
    # -g1: line tables only (what the reports print), 6 % less compile time than -g. -O0 stays:
    # at -O1 this build takes 2.4 times as long. One unity batch per target (batch size 0): every
    # source of the library and of the unit tests in one translation unit, so two files' local
    # names that would collide in some batch of the main build's 8 collide here on every change
    # (CMakeLists.txt, "Unity build"); at -O0 it is also quicker, 56 s instead of 70.
    cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DPAPCOLL_SANITIZE=address,undefined \
      -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DCMAKE_C_FLAGS_DEBUG=-g1 -DCMAKE_UNITY_BUILD_BATCH_SIZE=0 >/dev/null
  fi
  ninja -C build-asan papcoll-unit-tests-sanitized "${asan_mpi_tests[@]}" >/dev/null
  stage_done "sanitizer build (address,undefined)"
  export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
  # Two shards side by side (GoogleTest's sharding): one process would leave a core idle.
  unit_filter='All/AllreduceGenerators.*:Verifier.*:CostModel.*:ImbalanceAware.*:SinglePort.*:Predictor.*:HistoryTable.*:Estimate.*:Sanitize.*:PatternError.*:ReduceRegistry.*:CirculantTables.*:BcastBaselines.*:AllgathervBaselines.*:LinkModel*:ScatterGather*-*VerifyForEveryPAndDefaultBlocks*:BcastBaselines.Verify'
  shard_pids=()
  for shard in 0 1; do
    GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=$shard build-asan/bin/papcoll-unit-tests-sanitized \
      --gtest_brief=1 --gtest_filter="$unit_filter" &
    shard_pids+=($!)
  done
  for pid in "${shard_pids[@]}"; do wait "$pid"; done
  # Open MPI's own allocations are reported as leaks at exit, so leak checking is off for MPI runs.
  (cd build-asan && ASAN_OPTIONS=detect_leaks=0 \
    ctest --output-on-failure --timeout 300 -j 2 -R '^test_(allreduce|allreduce_errors|allreduce_types|executor|reduce|bcast|allgatherv|monitor_lifecycle|monitor_concurrent_free|stale)_np(1|2|3|4)$|^test_peer_errors_np3$')
  stage_done "sanitizer tests (address,undefined)"
fi

if [[ "${PAPCOLL_SKIP_SANITIZERS:-0}" != 1 && "${PAPCOLL_SKIP_TSAN:-0}" != 1 ]]; then
  echo "== sanitizer build (thread): the library, the monitor and bounded-staleness tests"
  # The code with its own threads: the progress monitor and the bounded-staleness engine.
  monitor_tests=(test_monitor test_monitor_agreement test_monitor_lifecycle test_monitor_finalize
                 test_monitor_nothread test_monitor_concurrent_free test_monitor_sampling
                 test_stale)
  if [[ ! -f build-tsan/build.ninja ]]; then
    # -O1 -g1 (ThreadSanitizer's documented minimum, line tables only): the build takes 67 s
    # instead of 113 s here, the tests as long as at -O2.
    cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPAPCOLL_SANITIZE=thread \
      "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
      >/dev/null
  fi
  ninja -C build-tsan papcoll "${monitor_tests[@]}" >/dev/null
  stage_done "sanitizer build (thread)"
  # Open MPI, PMIx and libevent are not instrumented: their reports are suppressed (the file
  # explains why and what that hides); papcoll's own frames are checked. exitcode=66 on a report.
  (cd build-tsan && TSAN_OPTIONS="suppressions=$PWD/../tests/tsan-openmpi.supp halt_on_error=0 exitcode=66" \
    ctest --output-on-failure --timeout 300 -j 2 -R '^test_(monitor|stale)' -E '_np(5|8)$')
  stage_done "sanitizer tests (thread)"
fi

if [[ "${PAPCOLL_SKIP_SMPI:-0}" != 1 ]]; then
  # The SimGrid SMPI build and one short simulated run per operation at 16 ranks (docs/smpi.md),
  # so that the simulated-cluster path keeps building and giving correct results.
  echo "== SimGrid SMPI build and smoke test"
  PAPCOLL_SMPI_BUILD_TYPE=Debug PAPCOLL_BUILD_TARGETS=papcoll-bench bash sim/smoke.sh build-smpi-debug
  # The main job's simulated part, shortened (ctest's papcoll_main_job ran the rest).
  /usr/bin/python3 tests/cli/check_main_job.py . build/bin/papcoll-bench \
    --smpi build-smpi-debug/bin/papcoll-bench --only-smpi
  stage_done "SimGrid SMPI build and smoke test"
fi
echo "== the whole suite: $SECONDS s"
