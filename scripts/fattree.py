#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
"""A two-level fat tree for orca-fabric --topology (README "Several
switches"), every CA port pinned to a leaf.

usage: fattree.py CAS [--down D] [--first GUID ...]

CAS CA ports: the --first port GUIDs (a guest's, in that order), then
the guest-less ports that scripts/vm2.sh --guestless and
tests/bench/fabric.sh start, port i with node GUID
0x00ca7afffe100000 + i * 0x100 (its port GUID that + 1).

Leaves hold D CA ports each (default: 8 up to 64 CAs, 16 up to 256, 32
beyond) and one cable to each of D / 2 spines (2:1, as many clusters
are built), so ceil(CAS / D) leaves, D / 2 spines, and a spine has a
port for each leaf.  Leaf L, CA ports 1..D; its port D + 1 + j to spine
j, spine port L + 1.  Names leafN and spineN from 1; the switch GUIDs
orca-fabric's default (by the order here: leaves first).  OpenSM's
ftree finds the leaves by their CAs, and the roots by rank.
"""
import argparse
import sys

GUESTLESS_NODE_BASE = 0x00CA7AFFFE100000
GUESTLESS_NODE_STEP = 0x100
MAX_PORTS = 64          # emulator/orca_mad.h ORCA_MAD_MAX_PORTS
MAX_SWITCHES = 128      # emulator/fabric/fabric_topo.h FAB_TOPO_MAX_SW


def guestless_port_guid(i):
    return GUESTLESS_NODE_BASE + i * GUESTLESS_NODE_STEP + 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cas", type=int)
    ap.add_argument("--down", type=int)
    ap.add_argument("--first", type=lambda s: int(s, 0), nargs="*", default=[])
    a = ap.parse_args()
    if a.cas < 1 or len(a.first) > a.cas:
        sys.exit("fattree.py: CAS must be >= 1 and >= the --first GUIDs")
    down = a.down or (8 if a.cas <= 64 else 16 if a.cas <= 256 else 32)
    up = max(1, down // 2)
    leaves = -(-a.cas // down)
    if down + up > MAX_PORTS or leaves > MAX_PORTS or leaves + up > MAX_SWITCHES:
        sys.exit(f"fattree.py: {a.cas} CAs by {down} a leaf need {leaves} leaves "
                 f"and {up} spines: past {MAX_PORTS} ports or {MAX_SWITCHES} switches")
    guids = list(a.first)
    guids += [guestless_port_guid(i) for i in range(a.cas - len(guids))]

    print(f"# fattree.py {a.cas}: {leaves} leaves of {down} CA ports, "
          f"{up} spines, each leaf cabled once to each spine")
    for leaf in range(leaves):
        print(f"switch leaf{leaf + 1} {down + up}")
    for spine in range(up):
        print(f"switch spine{spine + 1} {max(leaves, 1)}")
    for leaf in range(leaves):
        for spine in range(up):
            print(f"link leaf{leaf + 1}:{down + 1 + spine} spine{spine + 1}:{leaf + 1}")
    for i, guid in enumerate(guids):
        print(f"ca 0x{guid:016x} leaf{i // down + 1}:{i % down + 1}")


if __name__ == "__main__":
    main()
