#!/usr/bin/python3
"""Writes a platform of many-core nodes in which every rank has a port of its own into its node's
memory (sim/platforms/README.md, "A port per rank"):

    sim/platforms/make_ports_platform.py NAME NODES RANKS_PER_NODE

writes NAME.xml, NAME.hosts (a host per rank, a node's ranks consecutive) and NAME.nodes (the
PAPCOLL_NODES value sim/run.sh passes on, since SMPI sees every host as a node). The links are
opa-32x32's: 12.5 GB/s and 0.5 us each way per node to the switch, 8 GB/s inside a node; what
differs is who shares them. opa-32x32-ports.xml is this script's output for 32 32."""
import sys

if len(sys.argv) != 4:
    sys.exit(__doc__)
name, nodes, ranks = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
CONFIG = [("smpi/host-speed", "1Gf"), ("smpi/coll-selector", "ompi"), ("smpi/test", "1e-7"),
          ("smpi/bw-factor", "0:1"), ("smpi/lat-factor", "0:1"), ("network/crosstraffic", "0")]
x = ["<?xml version='1.0'?>",
     '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
     f"<!-- {nodes} nodes of {ranks} cores, a rank per core, every rank a host of its own with a "
     "port into its",
     "     node's memory: 8 GB/s in and 8 GB/s out (SPLITDUPLEX), shared by all of its copies "
     "inside the",
     "     node, as one core copies one message at a time. Between nodes opa-32x32's links "
     "(0.5 us and",
     "     12.5 GB/s each way per node, shared by the node's ranks), reached without the port "
     "(the NIC",
     "     reads memory itself). Written by make_ports_platform.py; why and the probe: "
     "sim/platforms/",
     '     README.md, "A port per rank". -->',
     '<platform version="4.1">', "  <config>",
     "    <!-- As every papcoll platform (opa-32x32.xml says why). -->"]
x += [f'    <prop id="{k}" value="{v}"/>' for k, v in CONFIG]
x += ["  </config>", '  <zone id="world" routing="Full">']
for n in range(nodes):
    hosts = [f"opa-{n}-{r}" for r in range(ranks)]
    x += [f'    <zone id="node-{n}" routing="Full">']
    x += [f'      <host id="{h}" speed="1Gf"/>' for h in hosts]
    x += [f'      <router id="gw-{n}"/>',
          f'      <link id="nic-{n}" bandwidth="1000GBps" latency="0us" sharing_policy="FATPIPE"/>']
    for r in range(ranks):
        x += [f'      <link id="port-{n}-{r}" bandwidth="8GBps" latency="0.25us" '
              'sharing_policy="SPLITDUPLEX"/>',
              f'      <link id="self-{n}-{r}" bandwidth="8GBps" latency="0.5us" '
              'sharing_policy="FATPIPE"/>']
    for a in range(ranks):
        x += [f'      <route src="{hosts[a]}" dst="{hosts[a]}"><link_ctn id="self-{n}-{a}"/></route>',
              f'      <route src="{hosts[a]}" dst="gw-{n}"><link_ctn id="nic-{n}"/></route>']
        # Symmetrical: SimGrid runs the way back on the other halves (b's up, a's down).
        x += [f'      <route src="{hosts[a]}" dst="{hosts[b]}"><link_ctn id="port-{n}-{a}" '
              f'direction="UP"/><link_ctn id="port-{n}-{b}" direction="DOWN"/></route>'
              for b in range(a + 1, ranks)]
    x += ["    </zone>"]
x += [f'    <link id="net-{n}" bandwidth="12.5GBps" latency="0.5us" sharing_policy="SPLITDUPLEX"/>'
      for n in range(nodes)]
x += [f'    <zoneRoute src="node-{i}" dst="node-{j}" gw_src="gw-{i}" gw_dst="gw-{j}" '
      f'symmetrical="NO"><link_ctn id="net-{i}" direction="UP"/><link_ctn id="net-{j}" '
      'direction="DOWN"/></zoneRoute>' for i in range(nodes) for j in range(nodes) if i != j]
x += ["  </zone>", "</platform>", ""]
with open(name + ".xml", "w") as f:
    f.write("\n".join(x))
with open(name + ".hosts", "w") as f:
    f.write("".join(f"opa-{n}-{r}\n" for n in range(nodes) for r in range(ranks)))
with open(name + ".nodes", "w") as f:
    f.write(f"block:{ranks}\n")
