#!/bin/bash
# Guest test: the port counters in sysfs (issue 22).  orca has
# process_mad() now, so ib_core gives port 1 the PMA counter files
# (/sys/class/infiniband/orca0/ports/1/counters/), which it reads through
# MAD_IFC from the device's performance management agent.  Around an
# ibv_rc_pingpong on this one port (server and client on 127.0.0.1) every
# packet the port sends comes back into it: the transmit and receive
# counters move by exactly the same amounts, and by exactly what the
# pingpong puts on the wire (IBA 16.1.3.5: data in 4-byte words from LRH
# to ICRC; the formula is opensm.sh's, with the GRH that -g 0 adds).
# Prints TAP; exit status = number of failures.
#   ORCA_DEV (orca0)
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"

dev=${ORCA_DEV:-orca0}
dir=/sys/class/infiniband/$dev/ports/1/counters
iters=200 size=4096 port=18610
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plan 7

names=(port_xmit_data port_rcv_data port_xmit_packets port_rcv_packets
       unicast_xmit_packets unicast_rcv_packets)
read_counters() {	# array name
    local -n into=$1
    local n
    into=()
    for n in "${names[@]}"; do
        into+=("$(cat "$dir/$n" 2> /dev/null || echo x)")
    done
}

[[ -r $dir/port_xmit_data && -r $dir/port_rcv_packets ]]
ok $? "$dir has the PMA counters"
before=() after=()
read_counters before
[[ ${before[*]} != *x* ]]
ok $? "every counter reads: ${before[*]}"

ip link set lo up
args=(-d "$dev" -g 0 -n "$iters" -s "$size" -p "$port")
timeout -k 5 120 ibv_rc_pingpong "${args[@]}" > "$tmp/server" 2>&1 &
spid=$!
wait_until "$ORCA_WAIT" listening_or_ended "$port" "$spid"
timeout -k 5 120 ibv_rc_pingpong "${args[@]}" 127.0.0.1 > "$tmp/client" 2>&1
crc=$?
wait "$spid"
src=$?
((crc == 0 && src == 0))
ok $? "ibv_rc_pingpong -n $iters -s $size on $dev (client $crc, server $src)"
read_counters after

d=()
for i in "${!names[@]}"; do
    d+=($(( ${after[i]:-0} - ${before[i]:-0} )))
done
diag "deltas: $(for i in "${!names[@]}"; do printf '%s=%s ' "${names[i]}" "${d[i]}"; done)"
# each side sends iters messages of size bytes
# Both sides' traffic crosses this one port: each sends iters messages of
# size / 1024 packets (ibv_rc_pingpong's MTU: LRH 8, GRH 40, BTH 12, 1024
# bytes, ICRC 4) and ACKs the other's iters messages (LRH 8, GRH 40,
# BTH 12, AETH 4, ICRC 4).
mtu=1024 lrh=8 grh=40 bth=12 aeth=4 icrc=4
segs=$(( (size + mtu - 1) / mtu ))
pkts=$(( 2 * iters * (segs + 1) ))
words=$(( 2 * iters * (segs * (lrh + grh + bth + icrc) + size +
                       (lrh + grh + bth + aeth + icrc)) / 4 ))
((d[0] == d[1] && d[2] == d[3]))
ok $? "loopback: what the port sent it received (data ${d[0]} = ${d[1]} words, packets ${d[2]} = ${d[3]})"
((d[0] == words))
ok $? "the data counters moved by exactly the pingpong's words, headers and payload: ${d[0]} (expected $words)"
((d[2] == pkts))
ok $? "the packet counters moved by exactly its packets, $segs per message and an ACK: ${d[2]} (expected $pkts)"
((d[4] == d[2] && d[5] == d[3]))
ok $? "every packet is unicast (${d[4]}, ${d[5]})"
done_testing
