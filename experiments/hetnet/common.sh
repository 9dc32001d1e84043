# Shared settings of the hetnet experiment (sourced by setup.sh, teardown.sh, mpirun.sh, run.sh).
# Everything can be overridden from the environment; see docs/hetnet.md.
#
# Names: one network namespace per MPI rank, ${HETNET_PREFIX}0 .. ${HETNET_PREFIX}<N-1>, and one
# "switch" namespace ${HETNET_PREFIX}sw that holds every bridge and the mpirun process. Nothing
# is created in (or removed from) the main namespace.

HETNET_PREFIX=${HETNET_PREFIX:-pcn}
HETNET_SWITCH_NS=${HETNET_SWITCH_NS:-${HETNET_PREFIX}sw}
# The emulated network: rank i is 10.78.0.(i+1), the switch namespace 10.78.0.254.
HETNET_NET=${HETNET_NET:-10.78.0}
HETNET_SUBNET=${HETNET_SUBNET:-${HETNET_NET}.0/24}
HETNET_SWITCH_IP=${HETNET_SWITCH_IP:-${HETNET_NET}.254}
# Clusters and their uplinks to the core switch (one rate per cluster, tc syntax; both directions
# of an uplink get the rate). Inside a cluster the links are left unshaped (veth speed, bounded
# by the CPU). Two clusters' ranks talk through both uplinks, so the pair's rate is the smaller.
HETNET_UPLINKS=${HETNET_UPLINKS:-200mbit,100mbit,50mbit}
# Which cluster each rank sits on: roundrobin (rank i on cluster i mod k, the default) or block
# (contiguous ranges, the first clusters one rank larger when k does not divide N).
HETNET_LAYOUT=${HETNET_LAYOUT:-roundrobin}

hetnet_num_clusters() {
  local IFS=,; set -- $HETNET_UPLINKS; echo $#
}

# hetnet_uplink_rate C: the uplink rate of cluster C.
hetnet_uplink_rate() {
  local IFS=,; local rates=($HETNET_UPLINKS); echo "${rates[$1]}"
}

# hetnet_cluster_of RANK N: the cluster of RANK among N ranks under HETNET_LAYOUT.
hetnet_cluster_of() {
  local r=$1 n=$2 k; k=$(hetnet_num_clusters)
  case $HETNET_LAYOUT in
    roundrobin) echo $(( r % k )) ;;
    block)
      local base=$(( n / k )) extra=$(( n % k )) c start=0 size
      for (( c = 0; c < k; c++ )); do
        size=$(( base + (c < extra ? 1 : 0) ))
        if (( r < start + size )); then echo $c; return; fi
        start=$(( start + size ))
      done
      echo $(( k - 1 )) ;;
    *) echo "hetnet: HETNET_LAYOUT must be roundrobin or block, not '$HETNET_LAYOUT'" >&2; return 1 ;;
  esac
}

# The namespaces this experiment owns (exact names only: the prefix followed by digits or "sw").
hetnet_own_namespaces() {
  ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${HETNET_PREFIX}([0-9]+|sw)\$" || true
}
