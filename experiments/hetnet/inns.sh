#!/usr/bin/env bash
# Rank wrapper: runs "$@" in the network namespace of this MPI rank (pcn<rank>). mpirun starts
# it in the switch namespace; every TCP connection the rank then opens (MPI's btl/tcp, the
# PMIx client's connection to the daemon) goes over the emulated network.
: "${OMPI_COMM_WORLD_RANK:?inns.sh must be started by mpirun (Open MPI)}"
exec ip netns exec "${HETNET_PREFIX:-pcn}${OMPI_COMM_WORLD_RANK}" "$@"
