#!/bin/bash
# Guest test, first guest of scripts/vm2.sh with the fabric's built-in SM
# (its default): the direct link between the two emulators (README,
# "Direct links between emulators"; emulator/orca_fabric_direct.c).
#  - an ibv_rc_pingpong between the hosts opens it: one at each emulator
#    and at the fabric, packets through it both ways, what one sent
#    through it the other received (hostctl stats fabric_direct_*);
#  - the switch's counters of both LIDs (hostctl fabric stats) count
#    every packet each device sent, through the link or not;
#  - ib_write_bw 64 KiB between the hosts goes through it, with no
#    retransmission;
#  - the other port down (hostctl port-down there): the link is gone at
#    both emulators and at the fabric; port-up: the next pingpong opens a
#    new one.
# Prints TAP.  ORCA_DEV (orca0), ORCA_DIRECT_TIMEOUT (120 s per run).
# (the functions wait_until calls look unreachable to shellcheck)
# shellcheck disable=SC2317
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"
# shellcheck source=tests/lib/pair.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pair.sh"

dev=${ORCA_DEV:-orca0}
limit=${ORCA_DIRECT_TIMEOUT:-120}
port=18900
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plan 10
ip link set lo up

# counters: this emulator's, the other's, the fabric's (tests/lib/pair.sh)
here() { emu_stat_on here "$1"; }
there() { emu_stat_on peer "$1"; }
lid() { ibv_devinfo -d "$dev" -i 1 | sed -n 's/^[[:space:]]*port_lid:[[:space:]]*//p' | head -n 1; }
rlid() { peer "ibv_devinfo -d $dev -i 1" | sed -n 's/^[[:space:]]*port_lid:[[:space:]]*//p' | head -n 1; }

# pair PROG ARGS...: server on the peer, client here; sets crc src
pair() {
    local p=$1
    shift
    port=$((port + 1))
    pair_server "$tmp/server" "$port" timeout -k 5 "$limit" "$p" -d "$dev" -p "$port" "$@" ||
        diag "$p: the server did not listen"
    timeout -k 5 "$limit" "$p" -d "$dev" -p "$port" "$@" "$(pair_server_addr)" > "$tmp/client" 2>&1
    crc=$?
    wait "$PAIR_SPID"
    src=$?
    ((crc || src)) && diag "$p: client rc $crc, server rc $src" "$(tail -n 5 "$tmp/client")" "$(tail -n 5 "$tmp/server")"
}

peer --wait 180 true
active() { [[ $(ibv_devinfo -d "$dev" -i 1) == *PORT_ACTIVE* && $(peer "ibv_devinfo -d $dev -i 1") == *PORT_ACTIVE* ]]; }
wait_until "$ORCA_WAIT" active
[[ $(fabric_stat direct_links) == 0 && $(here fabric_direct_links) == 0 ]]
ok $? "before any traffic between the hosts: no direct link (fabric $(fabric_stat direct_links), here $(here fabric_direct_links))"

pair ibv_rc_pingpong -s 4096 -n 100 -c
links=$(here fabric_direct_links) rlinks=$(there fabric_direct_links) flinks=$(fabric_stat direct_links)
((crc == 0 && src == 0 && links == 1 && rlinks == 1 && flinks == 1))
ok $? "ibv_rc_pingpong -c between the hosts opened a direct link: here $links, there $rlinks, at the fabric $flinks"
tx=$(here fabric_direct_tx_pkts) rx=$(here fabric_direct_rx_pkts)
rtx=$(there fabric_direct_tx_pkts) rrx=$(there fabric_direct_rx_pkts)
((tx > 0 && rtx > 0 && tx == rrx && rtx == rx))
ok $? "packets through it both ways: sent here $tx, received there $rrx; sent there $rtx, received here $rx"
la=$(lid) lb=$(rlid)
fin=$(fabric_stat "lid${la}_in") fout=$(fabric_stat "lid${lb}_in")
sent=$(here fabric_tx_pkts) rsent=$(there fabric_tx_pkts)
[[ -n $fin && $fin == "$sent" && $fout == "$rsent" ]]
ok $? "the switch counts every packet each device sent: LID $la in $fin (it sent $sent), LID $lb in $fout (it sent $rsent)"

r0=$(here retries) t0=$tx
pair ib_write_bw -s 65536 -n 2000
t1=$(here fabric_direct_tx_pkts) r1=$(here retries)
((crc == 0 && src == 0 && t1 - t0 >= 2000 * 16 && r1 == r0))
ok $? "ib_write_bw 64 KiB between the hosts: rc $crc/$src, $((t1 - t0)) packets through the link (2000 x 16 at least), retransmissions $r0 -> $r1: $(grep -A1 '#bytes' "$tmp/client" | tail -n 1)"

opened=$(fabric_stat direct_opened)
peer hostctl port-down > /dev/null
gone() { [[ $(here fabric_direct_links) == 0 && $(there fabric_direct_links) == 0 && $(fabric_stat direct_links) == 0 ]]; }
wait_until "$ORCA_WAIT" gone
ok $? "the other port down: the link is gone here ($(here fabric_direct_links)), there ($(there fabric_direct_links)) and at the fabric ($(fabric_stat direct_links)) after $WAITED s"
peer hostctl port-up > /dev/null
wait_until "$ORCA_WAIT" active
ok $? "port-up: both ports ACTIVE again after $WAITED s"
pair ibv_rc_pingpong -s 4096 -n 50 -c
((crc == 0 && src == 0))
ok $? "ibv_rc_pingpong -c between the hosts after port-up"
[[ $(here fabric_direct_links) == 1 && $(fabric_stat direct_links) == 1 && $(fabric_stat direct_opened) == $((opened + 1)) ]]
ok $? "a new direct link: here $(here fabric_direct_links), at the fabric $(fabric_stat direct_links), opened $opened -> $(fabric_stat direct_opened)"
[[ $(here fabric_queue_drops) == 0 && $(there fabric_queue_drops) == 0 && $(fabric_stat queue_drops) == 0 ]]
ok $? "nothing dropped for want of room: here $(here fabric_queue_drops), there $(there fabric_queue_drops), at the switch $(fabric_stat queue_drops)"
done_testing
