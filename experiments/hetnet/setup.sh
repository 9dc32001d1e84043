#!/usr/bin/env bash
# Builds the emulated heterogeneous network for N MPI ranks (default 8) on this machine:
#
#   rank i: namespace pcn<i>, interface v<i> = 10.78.0.(i+1)/24
#        |  veth, unshaped (intra-cluster: as fast as the CPU moves bytes)
#   cluster c: bridge brc<c>  ----  uplink veth pair (up<c> | dn<c>), shaped with tbf to the
#        |                          cluster's rate in both directions
#   core: bridge brcore, 10.78.0.254 (mpirun runs here)
#
# All bridges live in the switch namespace pcnsw. Ranks of one cluster talk through their
# cluster's bridge only (unshaped); ranks of two clusters go up one uplink and down the other, so
# their rate is the smaller of the two and every flow between two clusters shares both uplinks.
# netem (latency) is not available in this kernel, so only bandwidth is shaped.
#
# Idempotent: an existing set-up of this experiment is torn down first (teardown.sh). Only the
# namespaces pcn<i> and pcnsw are touched: every veth is created directly in them, never in the
# main namespace. Settings (common.sh): HETNET_UPLINKS, HETNET_LAYOUT.
#
# usage: sudo experiments/hetnet/setup.sh [N]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

N=${1:-8}
if ! [[ $N =~ ^[0-9]+$ ]] || (( N < 2 || N > 250 )); then
  echo "setup.sh: N must be a number of ranks in 2..250, not '$N'" >&2; exit 2
fi
K=$(hetnet_num_clusters)
sw=$HETNET_SWITCH_NS
in_sw() { ip netns exec "$sw" "$@"; }

"$here/teardown.sh" >/dev/null

# The switch namespace: the core bridge, one bridge per cluster, and the uplinks between them.
ip netns add "$sw"
ip -n "$sw" link set lo up
ip -n "$sw" link add brcore type bridge stp_state 0 forward_delay 0
ip -n "$sw" addr add "$HETNET_SWITCH_IP/24" dev brcore
ip -n "$sw" link set brcore up
for (( c = 0; c < K; c++ )); do
  rate=$(hetnet_uplink_rate $c)
  ip -n "$sw" link add brc$c type bridge stp_state 0 forward_delay 0
  ip -n "$sw" link set brc$c up
  # up<c> is the cluster side (its egress: cluster -> core), dn<c> the core side (core -> cluster).
  ip -n "$sw" link add up$c type veth peer name dn$c
  ip -n "$sw" link set up$c master brc$c
  ip -n "$sw" link set dn$c master brcore
  for dev in up$c dn$c; do
    # A token bucket at the cluster's rate. tbf splits TCP's 64 KiB TSO/GSO super-packets that
    # exceed its bucket into frames, so with a bucket of two frames the link sends at its rate
    # from the first byte, like a real link: a large bucket (or htb, which passes super-packets
    # whole) lets messages of up to 64 KiB through at veth speed and makes a ping-pong model
    # overestimate the rate several times. The queue holds 100 ms at the rate.
    in_sw tc qdisc replace dev $dev root tbf rate "$rate" burst 3200 latency 100ms
    ip -n "$sw" link set $dev up
  done
done

# One namespace per rank, its veth to its cluster's bridge.
for (( i = 0; i < N; i++ )); do
  ns=${HETNET_PREFIX}$i
  c=$(hetnet_cluster_of $i $N)
  ip netns add "$ns"
  ip -n "$ns" link set lo up
  ip -n "$sw" link add s$i type veth peer name v$i netns "$ns"
  ip -n "$sw" link set s$i master brc$c
  ip -n "$sw" link set s$i up
  ip -n "$ns" addr add "$HETNET_NET.$((i + 1))/24" dev v$i
  ip -n "$ns" link set v$i up
done

# Check that every rank reaches the switch address: a TCP connection to a closed port there is
# refused at once when the path works and times out when it does not (no ping needed).
for (( i = 0; i < N; i++ )); do
  ok=0
  for _ in $(seq 20); do
    rc=0; ip netns exec ${HETNET_PREFIX}$i timeout 1 bash -c ": </dev/tcp/$HETNET_SWITCH_IP/9" \
      >/dev/null 2>&1 || rc=$?
    if (( rc != 124 )); then ok=1; break; fi
  done
  (( ok )) || { echo "setup.sh: rank $i cannot reach $HETNET_SWITCH_IP" >&2; exit 1; }
done

echo "hetnet: $N ranks, $K clusters, layout $HETNET_LAYOUT, uplinks $HETNET_UPLINKS"
for (( c = 0; c < K; c++ )); do
  members=()
  for (( i = 0; i < N; i++ )); do
    [[ $(hetnet_cluster_of $i $N) == "$c" ]] && members+=("$i")
  done
  echo "  cluster $c (uplink $(hetnet_uplink_rate $c)): ranks ${members[*]:-none}"
done
