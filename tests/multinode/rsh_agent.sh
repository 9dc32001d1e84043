#!/usr/bin/env bash
# Open MPI's remote shell for the emulated nodes (plm_rsh_agent): mpirun calls it as
#   rsh_agent.sh [options] HOST COMMAND...
# like ssh, and it runs COMMAND (the orted daemon's start line, written for a shell) in HOST's
# network namespace, with a host name of its own (a UTS namespace), as a daemon on a real node
# would run. HOST is a node's address 10.79.0.(i+1); MULTINODE_NS is the namespaces' prefix.
set -euo pipefail
: "${MULTINODE_NS:?rsh_agent.sh is started by mpirun from tests/multinode/multinode.sh}"
while [[ $# -gt 0 && $1 == -* ]]; do shift; done  # ssh-style options (none are needed)
host=${1:?rsh_agent.sh: no host}
shift
node=$(( ${host##*.} - 1 ))
exec ip netns exec "${MULTINODE_NS}n${node}" unshare --uts /bin/sh -c "hostname mnode${node} && $*"
