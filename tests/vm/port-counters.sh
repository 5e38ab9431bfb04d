#!/bin/bash
# Guest test: the port counters in sysfs (issue 22).  orca has
# process_mad() now, so ib_core gives port 1 the PMA counter files
# (/sys/class/infiniband/orca0/ports/1/counters/), which it reads through
# MAD_IFC from the device's performance management agent.  Around an
# ibv_rc_pingpong on this one port (server and client on 127.0.0.1) every
# packet the port sends comes back into it: the transmit and receive
# counters move by exactly the same amounts, the data counters (in 4-byte
# words, LRH to ICRC) by at least the payload and by no more than the
# payload plus 100 bytes of headers per packet.
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
payload=$((2 * iters * size))
((d[0] == d[1] && d[2] == d[3]))
ok $? "loopback: what the port sent it received (data ${d[0]} = ${d[1]} words, packets ${d[2]} = ${d[3]})"
((d[0] * 4 >= payload && d[0] * 4 <= payload + 100 * d[2]))
ok $? "the data counters count the payload and headers: ${d[0]} words for $payload payload bytes in ${d[2]} packets"
((d[2] >= 2 * iters))
ok $? "at least one packet per message: ${d[2]} packets for $((2 * iters)) messages"
((d[4] == d[2] && d[5] == d[3]))
ok $? "every packet is unicast (${d[4]}, ${d[5]})"
done_testing
