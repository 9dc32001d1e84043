#!/usr/bin/env bash
# Configures and builds papcoll into build/ (or $1) with CMake + Ninja; extra args go to CMake.
# PAPCOLL_BUILD_TARGETS (space-separated) builds only those targets instead of all.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
if [[ ! -f "$dir/build.ninja" ]]; then
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
fi
# shellcheck disable=SC2086  # word splitting of the target list is wanted
ninja -C "$dir" ${PAPCOLL_BUILD_TARGETS:-} >/dev/null
