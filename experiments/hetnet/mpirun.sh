#!/usr/bin/env bash
# mpirun for the emulated network: usage  experiments/hetnet/mpirun.sh N prog args...
#
# mpirun (and its daemon) run in the switch namespace, where 10.78.0.254 reaches every rank;
# each rank is started through inns.sh in its own namespace. Open MPI uses only TCP (btl self,tcp)
# on the emulated subnet; PMIx 4 connects clients to the daemon over TCP only, so its TCP
# component must listen on that subnet and accept remote connections.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
N=${1:?usage: mpirun.sh N prog args...}; shift
export HETNET_PREFIX
export PMIX_MCA_ptl_tcp_if_include=$HETNET_SUBNET
export PMIX_MCA_ptl_tcp_remote_connections=1
exec ip netns exec "$HETNET_SWITCH_NS" mpirun --allow-run-as-root --oversubscribe --bind-to none \
  --timeout "${HETNET_MPIRUN_TIMEOUT:-900}" \
  -x PMIX_MCA_ptl_tcp_if_include -x PMIX_MCA_ptl_tcp_remote_connections -x HETNET_PREFIX \
  --mca btl self,tcp --mca btl_tcp_if_include "$HETNET_SUBNET" \
  --mca oob_tcp_if_include "$HETNET_SUBNET" \
  -np "$N" "$here/inns.sh" "$@"
