#!/usr/bin/env bash
# Installs the build tree into a temporary prefix, then builds the consumer project against it
# twice, with find_package(papcoll) and with pkg-config + mpicc, and runs both under mpirun.
# usage: check_install.sh BUILD_DIR SOURCE_DIR MPIEXEC [mpirun flags...]
set -euo pipefail
build=$1 src=$2 mpiexec=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
for f in include/papcoll/papcoll.h lib/cmake/papcoll/papcollConfig.cmake lib/pkgconfig/papcoll.pc \
         lib/libpapcoll-intercept.so bin/papcoll-sched; do
  [[ -e "$work/prefix/$f" || -e "$work/prefix/${f/lib\//lib/x86_64-linux-gnu/}" ]] ||
    { echo "missing after install: $f"; exit 1; }
done
ls "$work/prefix"/lib*/libpapcoll.so.0 >/dev/null
cmake -S "$src/tests/package/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" \
  >/dev/null
cmake --build "$work/consumer" >/dev/null
"$mpiexec" "$@" -np 2 "$work/consumer/consumer"
pcdir=$(dirname "$(ls "$work/prefix"/lib*/pkgconfig/papcoll.pc)")
mpicc "$src/tests/package/consumer/consumer.c" -o "$work/consumer_pc" \
  $(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs papcoll)
"$mpiexec" "$@" -np 2 "$work/consumer_pc"
echo "install, find_package and pkg-config consumers: ok"
