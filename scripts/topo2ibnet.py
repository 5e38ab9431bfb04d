#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
"""An orca-fabric --topology file (README "Several switches") as a net
file for ibsim, OpenSM's MAD simulator (tests/bench/ibsim.sh).

usage: topo2ibnet.py TOPOLOGY > NETFILE

ibsim reads ibnetdiscover's output, so that is what this writes, with
the same GUIDs, descriptions, vendor and link rates as orca gives the
SM, so that OpenSM finds the same subnet in both:

  vendid=0xca7a
  devid=0x0001
  caguid=0x00ca7afffe100000
  Ca	1 "H-00ca7afffe100000"		# "orca-emu 0x00ca7afffe100000"
  [1](00ca7afffe100001) 	"S-00ca7a0000f00000"[1]		# lid 0 lmc 0 "orca-fabric leaf1" lid 0 4xQDR

  vendid=0xca7a
  devid=0x0000
  switchguid=0x00ca7a0000f00000
  Switch	12 "S-00ca7a0000f00000"		# "orca-fabric leaf1" base port 0 lid 0 lmc 0
  [1]	"H-00ca7afffe100000"[1](00ca7afffe100001) 		# "orca-emu 0x00ca7afffe100000" lid 0 4xQDR

What ibsim 0.10 (ibsim/sim_net.c) makes of it:
- GUIDs come only from the "switchguid=" / "caguid=" lines (a counter
  the next node takes; the "(guid)" of a port line is not read).  A
  switch's node and port 0 GUID are that one; a CA's port N is
  caguid + N, so caguid = the `ca` port GUID - 1, which is orca-emu's
  node GUID (its port GUID is node GUID + 1).
- "vendid=" holds for the next node only, "devid=" until changed:
  both are written before every node.  orca: VendorID 0x00ca7a,
  DeviceID 1 for a CA (orca_cfg.c) and 0 for a switch.
- "base port 0": orca-fabric's switches have a base (not enhanced)
  port 0.  "lid 0": no LID until the SM gives one, as in orca.
- "lid L WxSPEED" after the last quote of a port line sets the
  enabled width and speed: 4xQDR is enabled 1x/4x and SDR/DDR/QDR,
  orca's (orca_mad.c); without it ibsim warns on every port line.
- no '"', '#', '@' or '=' in names or descriptions: the parser takes
  them for quotes, comments, aliases and port options.
- OpenSM (through umad2sim) attaches to the node that $SIM_HOST names
  or else the first node of the file: the CAs come first, in `ca`
  order, so that it is the first `ca` line (scripts/fattree.py --first
  puts the guest's port there, where OpenSM runs over orca).

`remote` lines (cables to another orca-fabric) are left out, their
ports unconnected, and said so on stderr.
"""
import sys

SW_DEFAULT_GUID = 0x00CA7A0000F00000   # emulator/fabric/fabric_switch.h
SW_DESC = "orca-fabric"                # FAB_SW_DESC
VENDOR = 0x00CA7A
CA_DEVICE, SW_DEVICE = 0x0001, 0x0000
MAX_PORTS = 64                         # ORCA_MAD_MAX_PORTS
NAME_MAX = 23                          # FAB_TOPO_NAME - 1
RATE = "4xQDR"


def die(line, msg):
    sys.exit(f"topo2ibnet.py: line {line}: {msg}" if line else f"topo2ibnet.py: {msg}")


def c_number(s):
    """strtoull(s, NULL, 0), as fabric_topo.c reads numbers."""
    if s[:2].lower() == "0x":
        return int(s[2:], 16)
    if len(s) > 1 and s[0] == "0":
        return int(s[1:], 8)
    return int(s, 10)


def parse(path):
    switches = {}    # name -> [index, nports, guid, {port: (kind, peer)}]
    cas = []         # (port GUID, switch name, port)
    remotes = 0

    def end(line, word):
        name, _, port = word.partition(":")
        if name not in switches:
            die(line, f"no switch '{name}' declared before")
        if not port.isdigit() or not 1 <= int(port) <= switches[name][1]:
            die(line, f"switch {name} has no port '{port}'")
        if int(port) in switches[name][3]:
            die(line, f"{word} is cabled already")
        return name, int(port)

    with open(path, encoding="utf-8") as f:
        for line, text in enumerate(f, 1):
            w = text.split("#", 1)[0].split()
            if not w:
                continue
            if w[0] == "switch" and len(w) in (3, 4):
                name = w[1]
                if name in switches or len(name) > NAME_MAX or \
                        any(c in name for c in ':"@='):
                    die(line, f"bad or repeated switch name '{name}'")
                if not w[2].isdigit() or not 1 <= int(w[2]) <= MAX_PORTS:
                    die(line, f"switch {name}: PORTS 1..{MAX_PORTS}")
                try:
                    guid = c_number(w[3]) if len(w) == 4 else SW_DEFAULT_GUID + len(switches)
                except ValueError:
                    die(line, f"switch {name}: bad GUID '{w[3]}'")
                if not 0 < guid < 1 << 64:
                    die(line, f"switch {name}: bad GUID '{w[3]}'")
                switches[name] = [len(switches), int(w[2]), guid, {}]
            elif w[0] == "link" and len(w) == 3:
                a, b = end(line, w[1]), end(line, w[2])
                if a[0] == b[0]:
                    die(line, f"a link from switch {a[0]} to itself")
                switches[a[0]][3][a[1]] = ("sw", b)
                switches[b[0]][3][b[1]] = ("sw", a)
            elif w[0] == "ca" and len(w) == 3:
                try:
                    guid = c_number(w[1])
                except ValueError:
                    guid = 0
                if not 2 <= guid < 1 << 64 or any(guid == c[0] for c in cas):
                    die(line, f"bad or repeated port GUID '{w[1]}'")
                sw, port = end(line, w[2])
                switches[sw][3][port] = ("ca", guid)
                cas.append((guid, sw, port))
            elif w[0] == "remote" and len(w) == 4:
                sw, port = end(line, w[1])
                switches[sw][3][port] = ("remote", None)
                remotes += 1
            else:
                die(line, f"cannot read '{' '.join(w)}'")
    if remotes:
        print(f"topo2ibnet.py: {remotes} remote link(s) left out: "
              "ibsim has no cable to another process, those ports stay down",
              file=sys.stderr)
    # ibsim refuses a node GUID twice ("already exists") and stops
    guids = [s[2] for s in switches.values()] + [g - 1 for g, _, _ in cas]
    if len(set(guids)) != len(guids):
        die(0, "a node GUID twice (a switch's, or a CA's: port GUID - 1)")
    return switches, cas


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: topo2ibnet.py TOPOLOGY > NETFILE")
    switches, cas = parse(sys.argv[1])
    sw_id = {n: f"S-{s[2]:016x}" for n, s in switches.items()}
    sw_desc = {n: f"{SW_DESC} {n}" for n in switches}
    ca_node = {g: g - 1 for g, _, _ in cas}

    def ca_id(g):
        return f"H-{ca_node[g]:016x}"

    def ca_desc(g):
        return f"orca-emu 0x{ca_node[g]:016x}"

    out = [f"# {sys.argv[1]} for ibsim (scripts/topo2ibnet.py): "
           f"{len(cas)} CAs, {len(switches)} switches",
           "# OpenSM attaches to the first node here unless SIM_HOST says", ""]
    for g, sw, port in cas:
        out += [f"vendid=0x{VENDOR:x}", f"devid=0x{CA_DEVICE:04x}",
                f"caguid=0x{ca_node[g]:016x}",
                f'Ca\t1 "{ca_id(g)}"\t\t# "{ca_desc(g)}"',
                f'[1]({g:016x}) \t"{sw_id[sw]}"[{port}]\t\t'
                f'# lid 0 lmc 0 "{sw_desc[sw]}" lid 0 {RATE}', ""]
    for name, (_, nports, guid, peers) in switches.items():
        out += [f"vendid=0x{VENDOR:x}", f"devid=0x{SW_DEVICE:04x}",
                f"switchguid=0x{guid:016x}",
                f'Switch\t{nports} "{sw_id[name]}"\t\t# "{sw_desc[name]}" '
                f"base port 0 lid 0 lmc 0"]
        for port in sorted(peers):
            kind, peer = peers[port]
            if kind == "sw":
                psw, pport = peer
                out.append(f'[{port}]\t"{sw_id[psw]}"[{pport}]\t\t'
                           f'# "{sw_desc[psw]}" lid 0 {RATE}')
            elif kind == "ca":
                out.append(f'[{port}]\t"{ca_id(peer)}"[1]({peer:016x}) \t\t'
                           f'# "{ca_desc(peer)}" lid 0 {RATE}')
        out.append("")
    print("\n".join(out))


if __name__ == "__main__":
    main()
