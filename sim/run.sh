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
# Every simulated rank is a thread of one process, so they share glibc's heap, and SMPI charges a
# rank the CPU time of its own malloc and free. With glibc's fastbins a request that is not small
# first consolidates every small chunk that any rank has freed (malloc_consolidate), so the charge
# grows with the number of ranks and lands, milliseconds at a time, on whichever rank asked: a
# cost of simulating 1024 processes in one heap that no cluster has (docs/smpi.md,
# "Computation"). Without fastbins a small free goes to the thread cache (one for all ranks) or
# straight back to the bins, and no request walks the others' garbage.
export GLIBC_TUNABLES="${GLIBC_TUNABLES:+$GLIBC_TUNABLES:}glibc.malloc.mxfast=0"
# SMPI's file behind folded allocations goes to /dev/shm rather than a disk /tmp
# (sim/shmalloc_tmpfs.c says why), built once per version of that file.
shim_src="$(dirname "$0")/shmalloc_tmpfs.c"
if [[ -d /dev/shm && -w /dev/shm ]] && command -v cc >/dev/null; then
  shim_dir="${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/papcoll"
  shim="$shim_dir/shmalloc_tmpfs-$(cksum <"$shim_src" | cut -d' ' -f1).so"
  if [[ ! -f $shim ]]; then
    { mkdir -p "$shim_dir" && cc -shared -fPIC -O2 -o "$shim.$$" "$shim_src" -ldl &&
        mv "$shim.$$" "$shim"; } 2>/dev/null ||
      echo "$0: could not build $shim_src into $shim_dir; SMPI's file stays in /tmp" >&2
  fi
  [[ -f $shim ]] && export LD_PRELOAD="$shim${LD_PRELOAD:+:$LD_PRELOAD}"
fi
# A platform whose nodes SMPI cannot see (opa-32x32: every rank a host of its own, a node a zone of
# hosts; MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) groups by host) names them in NAME.nodes, a
# PAPCOLL_NODES value (docs/ARCHITECTURE.md, "Nodes"); one set by the caller wins.
nodes_file=${platform%.xml}.nodes
if [[ -z ${PAPCOLL_NODES:-} && -f $nodes_file ]]; then
  PAPCOLL_NODES=$(<"$nodes_file")
  export PAPCOLL_NODES
fi
read -r -a flags <<<"${SMPIRUN_FLAGS:-}"
exec smpirun "${flags[@]}" -platform "$platform" -hostfile "$hosts" -np "$np" "${quiet[@]}" "$@"
