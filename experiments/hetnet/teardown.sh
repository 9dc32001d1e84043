#!/usr/bin/env bash
# Removes everything setup.sh made: the namespaces pcn<i> and pcnsw (deleting a namespace
# deletes its veths, bridges and qdiscs with it). Touches nothing else: the main namespace's
# interfaces, routes and qdiscs are never changed. Safe to run when nothing is set up.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

for ns in $(hetnet_own_namespaces); do
  # A process still running in a namespace (an mpirun left behind) keeps nothing alive that
  # would stop the deletion; its interfaces go away with the namespace's last reference.
  ip netns delete "$ns" && echo "hetnet: deleted namespace $ns"
done
exit 0
