#!/usr/bin/env bash
# Configures and builds papcoll into build/ (or $1) with CMake + Ninja; extra args go to CMake.
# PAPCOLL_BUILD_TARGETS (space-separated) builds only those targets instead of all.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
if [[ ! -f "$dir/build.ninja" ]]; then
  # No build.ninja: nothing was ever generated here, but a configure that failed (smpicxx not
  # yet installed, say) leaves a cache behind whose empty compiler flags a rerun would keep: a
  # "Release" SMPI build then compiled papcoll at -O0.
  rm -rf "$dir/CMakeCache.txt" "$dir/CMakeFiles"
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
fi
# shellcheck disable=SC2086  # word splitting of the target list is wanted
ninja -C "$dir" ${PAPCOLL_BUILD_TARGETS:-} >/dev/null
