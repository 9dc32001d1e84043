#!/usr/bin/env bash
# Real multi-node runs on one machine (docs/multinode.md): every emulated node is a network
# namespace with a host name of its own, holding an Open MPI daemon (orted, started through
# rsh_agent.sh as ssh would start it on a real node) and that node's ranks. Ranks of one node talk
# over shared memory (btl vader), ranks of two nodes over TCP through a bridge (btl tcp), the
# links between nodes rate-limited so that they are slower than shared memory. Open MPI itself
# decides what a node is (MPI_Comm_split_type splits by daemon), as on a cluster.
#
#   switch namespace <prefix>sw: bridge br0 10.79.0.254, mpirun runs here
#     |  veth s<i> -- v<i>, tbf at MULTINODE_RATE each way
#   node namespace <prefix>n<i>: 10.79.0.(i+1), host name mnode<i>, orted + its ranks
#
# Runs every program of PROGRAM_LIST (default programs.txt beside this script: one line per
# program, its name in BIN_DIR and its arguments) on MULTINODE_NODES x MULTINODE_RANKS_PER_NODE
# ranks (default 3 x 2), ranks of a node consecutive, with PAPCOLL_TEST_EXPECT_NODES set to that
# layout (test_node_layout checks that MPI detects it). Exit 0 when every program passed, 1
# otherwise, 77 with "SKIPPED: <reason>" when namespaces cannot be made here (not root, no `ip
# netns`, no `unshare`). Namespaces are named after this script's process id, removed on exit,
# failure, timeout or signal; a run killed outright leaves them behind, and the next run removes
# those whose process is gone.
#
# usage: tests/multinode/multinode.sh BIN_DIR [PROGRAM_LIST]
# settings: MULTINODE_NODES (2..16, default 3), MULTINODE_RANKS_PER_NODE (1..8, default 2),
#   MULTINODE_RATE (tc rate between nodes, default 1gbit; "none": unshaped veth),
#   MULTINODE_BURST (the token bucket's size, default 256kb),
#   MULTINODE_TIMEOUT (seconds per program, default 120), MULTINODE_VERBOSE=1 (programs' output
#   also when they pass).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:?usage: multinode.sh BIN_DIR [PROGRAM_LIST]}
list=${2:-$here/programs.txt}
nodes=${MULTINODE_NODES:-3}
per=${MULTINODE_RANKS_PER_NODE:-2}
rate=${MULTINODE_RATE:-1gbit}
burst=${MULTINODE_BURST:-256kb}
limit=${MULTINODE_TIMEOUT:-120}
net=10.79.0

skip() { echo "SKIPPED: $*"; exit 77; }
[[ $nodes =~ ^[0-9]+$ ]] && (( nodes >= 2 && nodes <= 16 )) ||
  { echo "multinode.sh: MULTINODE_NODES must be 2..16, not '$nodes'" >&2; exit 2; }
[[ $per =~ ^[0-9]+$ ]] && (( per >= 1 && per <= 8 )) ||
  { echo "multinode.sh: MULTINODE_RANKS_PER_NODE must be 1..8, not '$per'" >&2; exit 2; }
[[ -d $bin ]] || { echo "multinode.sh: no build folder $bin" >&2; exit 2; }
[[ -r $list ]] || { echo "multinode.sh: cannot read $list" >&2; exit 2; }

# What the emulation needs; without it the test is skipped, never failed.
(( $(id -u) == 0 )) || skip "not root: network namespaces need root (CAP_SYS_ADMIN)"
for tool in ip unshare mpirun orted timeout; do
  command -v "$tool" >/dev/null 2>&1 || skip "no '$tool' on PATH"
done
[[ $(mpirun --version 2>&1) == *"Open MPI"* ]] ||
  skip "mpirun is not Open MPI's (the emulated nodes use Open MPI's rsh launcher)"

prefix="pcmn$$-"
sw="${prefix}sw"
own_namespaces() { ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${prefix}(sw|n[0-9]+)\$"; }

# Namespaces left by earlier runs that were killed outright (their process is gone).
for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^pcmn[0-9]+-(sw|n[0-9]+)$'); do
  pid=${ns#pcmn}
  pid=${pid%%-*}
  kill -0 "$pid" 2>/dev/null || ip netns delete "$ns" 2>/dev/null
done

cleanup() {
  # Processes this run started in its namespaces (a daemon or rank outliving a killed mpirun),
  # then the namespaces; deleting a namespace deletes its veths, bridge and qdiscs.
  for ns in $(own_namespaces); do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
  done
  for ns in $(own_namespaces); do ip netns delete "$ns" 2>/dev/null; done
  [[ -n ${work:-} ]] && rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ip netns add "$sw" 2>/dev/null || skip "'ip netns add' failed (no permission for network namespaces here)"
unshare --uts true 2>/dev/null || skip "'unshare --uts' failed (no UTS namespaces here)"
work=$(mktemp -d /tmp/multinode.XXXXXX)

fail_setup() { echo "multinode.sh: set-up failed: $*" >&2; exit 1; }
in_sw() { ip netns exec "$sw" "$@"; }
ip -n "$sw" link set lo up || fail_setup "lo in $sw"
ip -n "$sw" link add br0 type bridge stp_state 0 forward_delay 0 || fail_setup "bridge"
ip -n "$sw" addr add "$net.254/24" dev br0
ip -n "$sw" link set br0 up
shaped=0
for (( i = 0; i < nodes; i++ )); do
  ns="${prefix}n$i"
  ip netns add "$ns" || fail_setup "namespace $ns"
  ip -n "$ns" link set lo up
  ip -n "$sw" link add "s$i" type veth peer name "v$i" netns "$ns" || fail_setup "veth of node $i"
  ip -n "$sw" link set "s$i" master br0
  ip -n "$sw" link set "s$i" up
  ip -n "$ns" addr add "$net.$((i + 1))/24" dev "v$i"
  ip -n "$ns" link set "v$i" up
  if [[ $rate != none ]]; then
    # Both directions of a node's link: its egress on v<i>, its ingress as the bridge's egress
    # on s<i>. The bucket holds a few TCP super-packets: with hetnet's bucket of two frames
    # (right for its 50-200 Mbit/s) small messages waited 1.1-1.4 ms here at 1 Gbit/s.
    if ip netns exec "$ns" tc qdisc replace dev "v$i" root tbf rate "$rate" burst "$burst" \
         latency 50ms 2>/dev/null &&
       in_sw tc qdisc replace dev "s$i" root tbf rate "$rate" burst "$burst" latency 50ms 2>/dev/null; then
      shaped=$((shaped + 1))
    fi
  fi
done
# Every node reaches the switch: a connection to a closed port is refused at once when the path
# works (no ping needed).
for (( i = 0; i < nodes; i++ )); do
  ok=0
  for _ in $(seq 20); do
    rc=0
    ip netns exec "${prefix}n$i" timeout 1 bash -c ": </dev/tcp/$net.254/9" >/dev/null 2>&1 || rc=$?
    if (( rc != 124 )); then ok=1; break; fi
  done
  (( ok )) || fail_setup "node $i cannot reach $net.254"
done
hostfile="$work/hostfile"
for (( i = 0; i < nodes; i++ )); do echo "$net.$((i + 1)) slots=$per"; done >"$hostfile"
links="links between nodes ${rate}"
[[ $rate == none ]] && links="links between nodes unshaped"
(( shaped < nodes )) && [[ $rate != none ]] && links="links between nodes unshaped (tc tbf unavailable)"
echo "multinode: $nodes nodes x $per ranks (namespaces ${prefix}*), $links"

export MULTINODE_NS="$prefix" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
np=$((nodes * per))
passed=0 failed=0
while read -r name args; do
  [[ -z $name || $name == \#* ]] && continue
  prog="$bin/$name"
  if [[ ! -x $prog ]]; then
    echo "FAIL $name: no program $prog"
    failed=$((failed + 1))
    continue
  fi
  log="$work/$name.log"
  start=$SECONDS
  # mpirun's own --timeout ends a hung job and its daemons; the outer timeout is the backstop.
  # shellcheck disable=SC2086  # the program's arguments split as written in the list
  timeout --kill-after=10 $((limit + 20)) ip netns exec "$sw" mpirun --timeout "$limit" \
    --hostfile "$hostfile" -np "$np" --map-by slot --bind-to none --mca mpi_yield_when_idle 1 \
    --mca plm_rsh_agent "$here/rsh_agent.sh" --mca plm_rsh_no_tree_spawn 1 \
    --mca btl self,vader,tcp --mca btl_vader_single_copy_mechanism none \
    --mca btl_tcp_if_include "$net.0/24" --mca oob_tcp_if_include "$net.0/24" \
    -x PAPCOLL_TEST_EXPECT_NODES="block:$per" \
    "$prog" $args </dev/null >"$log" 2>&1
  rc=$?
  secs=$((SECONDS - start))
  if (( rc == 0 )); then
    echo "PASS $name ($secs s)"
    passed=$((passed + 1))
    [[ ${MULTINODE_VERBOSE:-0} == 1 ]] && sed 's/^/    /' "$log"
  else
    echo "FAIL $name: exit status $rc after $secs s; its output:"
    tail -n 60 "$log" | sed 's/^/    /'
    failed=$((failed + 1))
  fi
  # A job that timed out may leave daemons behind: none survive into the next program.
  for ns in $(own_namespaces); do
    [[ $ns == "$sw" ]] && continue
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
  done
done <"$list"
echo "multinode: $passed passed, $failed failed"
(( failed == 0 && passed > 0 ))
