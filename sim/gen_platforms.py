#!/usr/bin/python3
"""Writes sim/platforms/<name>.{xml,hostfile,cfg} for every SMPI platform.

The generated files are committed, so runs need no generation; edit the
table below and rerun this script to change a platform. Parameters and their
sources are documented in sim/README.md.

xml      SimGrid platform: <cluster core=...>; inter-node links bw/lat, node
         inside modelled by loopback_bw/loopback_lat.
hostfile "host:ranks" per node (SMPI places ranks in order, filling nodes).
cfg      extra --cfg options for sim/run: LogGP-style per-message CPU
         overheads (smpi/os, smpi/or, smpi/ois: "size:seconds:seconds_per_byte"
         sections separated by ';', the section with the largest size <= the
         message size applies) and SMPI's latency/bandwidth correction
         factors (1 = take the XML numbers literally); and collx's rates for
         local work, "collx:copy_bw=B" and "collx:reduce_bw=B" (bytes per
         second of one core's memcpy and of MPI_Reduce_local's vector),
         which sim/run exports as COLLX_SMPI_COPY_BW / COLLX_SMPI_REDUCE_BW
         (with simulate-computation off, local work is otherwise free);
         and what a node's synchronization and collx's own work cost on
         real cores (NODE below: collx:sync, collx:sync_rank, collx:call ->
         COLLX_SMPI_SYNC, _SYNC_RANK, _CALL), or SMPI shows node phases
         for free (issue 61; sim/README.md, "Node synchronization").
"""
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "platforms")
ROOT = os.path.dirname(HERE)

# LogGP overheads (seconds, seconds/byte) by message size.
# Eager messages (<= 8 KiB) are copied through bounce buffers (per-byte
# cost, ~1.6 GB/s memcpy on a 2010 Opteron); rendezvous is zero-copy RDMA.
# Calibrated against Traff Table 1 (see sim/README.md).
IB_QDR_OVH = {
    "os":  "0:1.0e-6:6e-10;8192:2.0e-6:0",
    "ois": "0:1.0e-6:6e-10;8192:2.0e-6:0",
    "or":  "0:1.6e-6:6e-10;8192:3.0e-6:0",
}
IB_FAST_OVH = {"os": "0:0.5e-6:0;8192:1.0e-6:5e-11",
               "ois": "0:0.5e-6:0;8192:1.0e-6:5e-11",
               "or": "0:0.8e-6:0;8192:1.5e-6:5e-11"}
# The same with one core moving at most 4 GB/s through the NIC (a third of
# the fat tree's 12 GB/s node link): the case for several senders per node.
IB_SLOW_CORE_OVH = {"os": "0:0.5e-6:0;8192:1.0e-6:2.5e-10",
                    "ois": "0:0.5e-6:0;8192:1.0e-6:2.5e-10",
                    "or": "0:0.8e-6:0;8192:1.5e-6:2.5e-10"}
TCP_OVH = {"os": "0:6e-6:0;65536:10e-6:2e-10",
           "ois": "0:6e-6:0;65536:10e-6:2e-10",
           "or": "0:8e-6:0;65536:12e-6:2e-10"}
UNIT = ["--cfg=smpi/lat-factor:0:1", "--cfg=smpi/bw-factor:0:1"]
# The same factors (1) where the node route has factor tables of its own:
# SimGrid refuses factor options beside factor callbacks, and its SMPI
# model's defaults are GigE's, so the plain model (CM02, factors 1) with
# SMPI's weight-S.
UNIT_WITH_ROUTES = ["--cfg=network/model:CM02", "--cfg=network/weight-S:8775"]
# SimGrid's default factors were fitted on a GigE cluster: keep them there.
GIGE = []

# One node's costs from real cores (issue 74): the platforms for
# predictions at scale (node=CALIBRATED) take their node from a collx
# calibrate record of real cores here: the loopback, the node route's
# overheads and factors (collx:route_node, which a program linked with
# collx registers with SimGrid), collx's local rates and synchronization.
# Their network stays as published (the global smpi/os, or, the links),
# which also serves SMPI alone. The papers' platforms keep the node fitted
# to the paper's measured tables (their machines are not here to measure).
CALIBRATED = "docs/results/calibrate/call-p2/openmpi/calibrated"

PLATFORMS = {
    "tryton-1gbe-48": dict(
        doc="PAP paper 5.1: 48 Tryton nodes, 1 rank each, one 1 Gbps Ethernet switch",
        clusters=[dict(id="tryton", n=48, cores=1, bw="125MBps", lat="15us")],
        # Factors 1: calibrated on the paper's own baseline (LIN scatter, 2M
        # floats, 0 ms: 65 ms on Tryton). SimGrid's GigE factors charge
        # ~350 us latency per large message and give 88 ms; factors 1 give 69.
        lo=("10GBps", "1us"), ovh=TCP_OVH, factors=UNIT, ppn=1, mem=(8e9, 8e9)),
    "ib-qdr-36x16": dict(
        doc="Traff Tables 1-3: 36 nodes x 2x8-core Opteron 6134, QDR InfiniBand",
        clusters=[dict(id="qdr", n=36, cores=16, bw="3.2GBps", lat="0.7us")],
        lo=("4GBps", "0.25us"), ovh=IB_QDR_OVH, factors=UNIT, ppn=16, mem=(4e9, 4e9)),
    "opa-400x16": dict(
        doc="Traff Tables 4-11 scale (p=1600..6400): 400 nodes x 16 cores, 100 Gbps Omni-Path class",
        clusters=[dict(id="opa", n=400, cores=16, bw="10GBps", lat="0.5us")],
        lo=("6GBps", "0.2us"), ovh=IB_FAST_OVH, factors=UNIT, ppn=16, mem=(10e9, 10e9)),
    "cse-2switch-30x8": dict(
        doc="Topology paper 5: 30 nodes x 8 cores, 1 Gbps, two switches of 15 joined by one 1 Gbps uplink",
        clusters=[dict(id="cseA", n=15, cores=8, bw="125MBps", lat="15us"),
                  dict(id="cseB", n=15, cores=8, bw="125MBps", lat="15us")],
        uplink=("125MBps", "20us"), rr=(4, 8, 16, 30),
        lo=("5GBps", "0.5us"), ovh=TCP_OVH, factors=GIGE, ppn=8, mem=(5e9, 5e9)),
    "ib-6x8": dict(
        doc="RMA paper 3, cluster 1: 6 nodes x 2x4-core Xeon E5620, QDR InfiniBand (MVAPICH2)",
        clusters=[dict(id="ib", n=6, cores=8, bw="3.2GBps", lat="0.7us")],
        lo=("5GBps", "0.25us"), ovh=IB_QDR_OVH, factors=UNIT, ppn=8, mem=(5e9, 5e9)),
    "gige-18x8": dict(
        doc="RMA paper 3, cluster 2: 18 nodes x 2x4-core Xeon E5420, Gigabit Ethernet (MPICH)",
        clusters=[dict(id="gige", n=18, cores=8, bw="125MBps", lat="15us")],
        lo=("4GBps", "0.5us"), ovh=TCP_OVH, factors=GIGE, ppn=8, mem=(3e9, 3e9)),
    "fattree-256x16": dict(
        doc="Hierarchical paper scale: 256 nodes x 16 cores (4096 ranks), 2-level full-bisection fat tree, 100 Gbps",
        clusters=[dict(id="ft", n=256, cores=16, bw="12GBps", lat="0.5us",
                       topo=("FAT_TREE", "2;16,16;1,16;1,1"))],
        lo=("8GBps", "0.2us"), ovh=IB_FAST_OVH, factors=UNIT, ppn=16, mem=(10e9, 10e9), node=CALIBRATED),
    "fattree-256x16-slowcore": dict(
        doc="fattree-256x16 where one core injects at most 4 GB/s (a third of the node link): several senders per node",
        clusters=[dict(id="ft", n=256, cores=16, bw="12GBps", lat="0.5us",
                       topo=("FAT_TREE", "2;16,16;1,16;1,1"))],
        lo=("8GBps", "0.2us"), ovh=IB_SLOW_CORE_OVH, factors=UNIT, ppn=16, mem=(10e9, 10e9), node=CALIBRATED),
    # Held out from the tuner's development (issue 52): its targets are
    # checked here, on a machine the tuner never saw while it was written.
    "roce-torus-32x8": dict(
        doc="held-out check platform: 32 nodes x 8 cores, 25 GbE RoCE, 4x8 2-D torus (not used to develop the tuner)",
        clusters=[dict(id="rt", n=32, cores=8, bw="3.1GBps", lat="1.5us",
                       topo=("TORUS", "4,8"))],
        lo=("6GBps", "0.3us"), ovh=IB_SLOW_CORE_OVH, factors=UNIT, ppn=8, mem=(6e9, 6e9), node=CALIBRATED),
    # The second held-out platform (issue 52): roce-torus-32x8 taught the
    # decision rule one fix, so the targets are checked again on a machine
    # the tuner has not seen: 12 ranks per node (none before), TCP
    # overheads on 10 GbE, a 2:1 oversubscribed fat tree.
    "eth10g-ft-48x12": dict(
        doc="held-out check platform: 48 nodes x 12 cores, 10 GbE with TCP overheads, fat tree of 4 leaf switches of 12 nodes, 6 uplinks each (2:1) (not used to develop the tuner)",
        clusters=[dict(id="ef", n=48, cores=12, bw="1.25GBps", lat="4us",
                       topo=("FAT_TREE", "2;12,4;1,6;1,1"))],
        lo=("5GBps", "0.4us"), ovh=TCP_OVH, factors=UNIT, ppn=12, mem=(5e9, 5e9), node=CALIBRATED),
    # An Ethernet cluster of 1024 ranks (issue 63: programs nobody here wrote
    # at 256 and 1024 ranks on a fat tree and on Ethernet): eth10g-ft-48x12's
    # network and overheads, 64 nodes of 16 cores, 4 leaf switches of 16
    # nodes with 8 uplinks each (2:1).
    "eth10g-ft-64x16": dict(
        doc="Ethernet cluster for programs at 1024 ranks: 64 nodes x 16 cores, 10 GbE with TCP overheads, fat tree of 4 leaf switches of 16 nodes, 8 uplinks each (2:1)",
        clusters=[dict(id="eg", n=64, cores=16, bw="1.25GBps", lat="4us",
                       topo=("FAT_TREE", "2;16,4;1,8;1,1"))],
        lo=("5GBps", "0.4us"), ovh=TCP_OVH, factors=UNIT, ppn=16, mem=(5e9, 5e9), node=CALIBRATED),
}




def calibrated_node(base):
    """What a calibration record fixes of one node: {lo, mem, node,
    route_node, source}."""
    path = os.path.join(ROOT, base)
    with open(path + ".cfg") as f:
        opts = dict(line.strip()[len("collx:"):].split("=", 1) for line in f
                    if line.startswith("collx:"))
    with open(path + ".xml") as f:
        xml = f.read()
    with open(path + ".calibration.json") as f:
        rec = json.load(f)
    lo = (re.search(r'loopback_bw="([^"]+)"', xml).group(1),
          re.search(r'loopback_lat="([^"]+)"', xml).group(1))
    check = rec["check"]
    return dict(lo=lo, mem=(float(opts["copy_bw"]), float(opts["reduce_bw"])),
                node={k: float(opts[k]) for k in ("sync", "sync_rank", "call", "mpi_call")},
                route_node=opts["route_node"], probe=rec.get("probe"),
                source=dict(dir=os.path.dirname(base), against=check["against"],
                            date=check["date"], summary=check["summary"]))


def errors(summary):
    return ("median |error| %.1f %%, worst %.0f %% (%s), the fastest right at %d of %d points"
            % (100 * summary["median_abs_error"], 100 * summary["worst_abs_error"],
               summary.get("worst_case", "?"), summary.get("fastest_right", 0),
               summary.get("fastest_cases", 0)))


def cluster_xml(c, lo, ind="  "):
    topo = ""
    if "topo" in c:
        topo = ' topology="%s" topo_parameters="%s"' % c["topo"]
    return ('%s<cluster id="%s" prefix="%s-" suffix="" radical="0-%d" speed="1Gf" '
            'core="%d" bw="%s" lat="%s" sharing_policy="SPLITDUPLEX" '
            'loopback_bw="%s" loopback_lat="%s"%s/>\n'
            % (ind, c["id"], c["id"], c["n"] - 1, c["cores"], c["bw"], c["lat"],
               lo[0], lo[1], topo))


# A node's synchronization and collx's own work per call, measured on real
# cores by bench/node_sync (two ranks on a 2-core Xeon, KVM, 2026-11-27:
# exchange of 2 ranks 0.21-0.29 us, one-way handoff 0.14-0.19 us, collx's
# work per call 0.12-0.18 us; sim/README.md). sync_rank, what each rank
# more adds to an exchange, needs a machine with more cores: 30 ns, one
# more line read from a neighbour core, until node_sync measures it.
NODE = {"sync": 2.2e-7, "sync_rank": 3e-8, "call": 1.5e-7}


def write(name, P):
    node = calibrated_node(P["node"]) if P.get("node") else None
    if node:
        P = dict(P, lo=node["lo"], mem=node["mem"],
                 factors=UNIT_WITH_ROUTES if P["factors"] == UNIT else P["factors"])
    head = ("<?xml version='1.0'?>\n"
            '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
            "<!-- generated by sim/gen_platforms.py: %s -->\n"
            '<platform version="4.1">\n' % P["doc"])
    cl = P["clusters"]
    if len(cl) == 1:
        body = cluster_xml(cl[0], P["lo"])
    else:
        # two switches (one cluster each) joined by a single uplink
        bw, lat = P["uplink"]
        body = '  <zone id="world" routing="Full">\n'
        for c in cl:
            body += cluster_xml(c, P["lo"], "    ")
        body += '    <link id="uplink" bandwidth="%s" latency="%s"/>\n' % (bw, lat)
        a, b = cl[0]["id"], cl[1]["id"]
        body += ('    <zoneRoute src="%s" dst="%s" gw_src="%s-%s_router" '
                 'gw_dst="%s-%s_router">\n      <link_ctn id="uplink"/>\n'
                 '    </zoneRoute>\n  </zone>\n' % (a, b, a, a, b, b))
    with open(os.path.join(OUT, name + ".xml"), "w") as f:
        f.write(head + body + "</platform>\n")
    with open(os.path.join(OUT, name + ".hostfile"), "w") as f:
        for c in cl:
            for i in range(c["n"]):
                f.write("%s-%d:%d\n" % (c["id"], i, P["ppn"]))
    record = os.path.join(OUT, name + ".calibration.json")
    old = {}
    if node and os.path.exists(record):
        with open(record) as f:
            old = json.load(f)
        if old.get("node_from", {}).get("dir") != node["source"]["dir"]:
            old = {}   # a check of another node says nothing of this one
    with open(os.path.join(OUT, name + ".cfg"), "w") as f:
        f.write("# generated by sim/gen_platforms.py; one option per line\n")
        if node:
            f.write("# one node: collx calibrate on %s (%s), checked there on %s: %s\n"
                    % (node["source"]["against"], node["source"]["dir"],
                       node["source"]["date"], errors(node["source"]["summary"])))
            if "check" in old:   # collx calibrate --check-only of this platform
                f.write("# this platform checked against %s on %s: %s\n"
                        % (old["check"]["against"], old["check"]["date"],
                           errors(old["check"]["summary"])))
            f.write("# between nodes: as published (sim/README.md), never compared with a "
                    "real network\n")
        for k in ("os", "ois", "or"):
            f.write("--cfg=smpi/%s:%s\n" % (k, P["ovh"][k]))
        for o in P["factors"]:
            f.write(o + "\n")
        f.write("collx:copy_bw=%.6g\ncollx:reduce_bw=%.6g\n" % P["mem"])
        consts = node["node"] if node else NODE
        for k in consts:
            f.write("collx:%s=%.6g\n" % (k, consts[k]))
        if node:
            f.write("collx:route_node=%s\n" % node["route_node"])
    if node:   # what collx predict says of the platform (calibrate/platform.py)
        rec = {"schema": "collx-calibration/1", "name": name, "node_from": node["source"]}
        if node["probe"]:   # a check on one node waits for the machine to be as fitted
            rec["probe"] = node["probe"]
        if "check" in old:   # collx calibrate --check-only of this platform
            rec["check"] = old["check"]
        with open(record, "w") as f:
            json.dump(rec, f, indent=1, sort_keys=True)
            f.write("\n")
    elif os.path.exists(record):
        os.remove(record)


def write_placements(name, P):
    """Two-switch platforms: the placements users get besides block (the
    default hostfile: nodes in switch order, ranks fill a node).
    NAME.scattered.hostfile: nodes taken alternately from the two switches
    (a scheduler's scattered allocation), ranks fill a node.
    NAME.rrN.hostfile: the first N nodes of the block allocation, ranks
    dealt round-robin over them (mpirun --map-by node)."""
    a, b = P["clusters"]
    ppn = P["ppn"]
    hosts = ["%s-%d" % (c["id"], i) for c in (a, b) for i in range(c["n"])]
    alt = []
    for i in range(max(a["n"], b["n"])):
        alt += ["%s-%d" % (c["id"], i) for c in (a, b) if i < c["n"]]
    with open(os.path.join(OUT, name + ".scattered.hostfile"), "w") as f:
        f.writelines("%s:%d\n" % (h, ppn) for h in alt)
    for n in P.get("rr", ()):
        with open(os.path.join(OUT, "%s.rr%d.hostfile" % (name, n)), "w") as f:
            f.writelines("%s:1\n" % h for k in range(ppn) for h in hosts[:n])


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    for name, P in PLATFORMS.items():
        write(name, P)
        if len(P["clusters"]) == 2:
            write_placements(name, P)
        print("wrote", name)
