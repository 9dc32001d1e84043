#!/usr/bin/env bash
# Runs an SMPI-built program on a simulated platform (docs/smpi.md):
#   sim/run.sh PLATFORM NP PROGRAM [ARGS...]
# PLATFORM is a name from sim/platforms/ (gige-48, g5k-2sites-39, ...) or a path to an XML file
# with a PLATFORM.hosts hostfile beside it (one host per line, in rank order). ARGS of the form
# --cfg=... or --log=... go to SimGrid (smpirun takes them anywhere), the rest to PROGRAM.
# SimGrid's informational log lines are silenced; SMPI_LOG=verbose keeps them. SMPIRUN_FLAGS
# holds smpirun's own options, which must come before the program (e.g. "-trace -trace-file F").
set -euo pipefail
if (($# < 3)); then
  echo "usage: $0 PLATFORM NP PROGRAM [ARGS...]" >&2
  exit 2
fi
platform=$1 np=$2
shift 2
if [[ ! -f $platform ]]; then
  platform="$(dirname "$0")/platforms/$platform.xml"
fi
hosts=${platform%.xml}.hosts
for f in "$platform" "$hosts"; do
  [[ -f $f ]] || { echo "$0: no such file: $f" >&2; exit 2; }
done

quiet=()
if [[ ${SMPI_LOG:-} != verbose ]]; then
  # Configuration echoes, collective-selector notices, and the per-rank notices SMPI prints
  # when a rank exits non-zero (papcoll-bench's own message says why).
  quiet=(--log=xbt_cfg.thres:warning --log=smpi_coll.thres:warning
         --log=smpi_colls.thres:warning --log=smpi_kernel.thres:error)
fi
read -r -a flags <<<"${SMPIRUN_FLAGS:-}"
exec smpirun "${flags[@]}" -platform "$platform" -hostfile "$hosts" -np "$np" "${quiet[@]}" "$@"
