#!/bin/bash
# Guest test, first guest of scripts/vm2.sh --sm none, after opensm.sh (an
# OpenSM master runs): IP over InfiniBand between the two hosts, on orca0
# and the switch OpenSM programmed.
#  - ib_ipoib attaches to orca0 on both hosts: ib0, a UD QP of [ib_ipoib];
#  - the broadcast group: OpenSM creates ff12:401b:ffff::ffff:ffff with an
#    MTU of 2048, so ib0 comes up in datagram mode with MTU 2048 - 4; both
#    ports are full members in the SA, the switch's MFT (which OpenSM
#    wrote) forwards its MLID to both CA ports, each device has a QP
#    attached;
#  - ping both ways after an ARP flush: the ARP request is the one
#    multicast packet (IPv6 off on ib0 meanwhile) the other device
#    received and delivered to the attached QP (its counters), the other
#    host learned this one's address from it, the reply unicast; ping to 224.0.0.1
#    (another group, created by the join) is answered by the other host;
#  - iperf3 TCP both ways completes with the bytes it was asked for (its
#    rate), and a TCP copy of as many random bytes each way arrives whole
#    (tests/lib/tcp-copy: byte count and SHA-256 at both ends);
#  - connected mode: MTU 65520, a 60000-byte ping with DF set (one RC
#    message, no fragment), RC QPs of [ib_ipoib] on ib_cm, iperf3 both
#    ways; datagram mode again;
#  - ib_ipoib unloaded on both hosts: no group attached in either device,
#    no QP of it left (each count from a query that worked: a failed
#    rdma or hostctl query fails the check, never reads as 0); loaded
#    again, ib0 carries traffic again.  No kernel warning on the way.
# Leaves ib0 up in datagram mode on both hosts, 10.78.0.1 here and
# 10.78.0.2 there, for rdmacm.sh.  Prints TAP.  ORCA_DEV (orca0).
# (the functions wait_until calls look unreachable to shellcheck)
# shellcheck disable=SC2317
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"
# shellcheck source=tests/lib/pair.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pair.sh"
# shellcheck source=tests/lib/klog.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/klog.sh"

dev=${ORCA_DEV:-orca0}
# ORCA_IPERF_MIB (8): what each iperf3 run sends (make soak: more)
iperf_mib=$(pos_int "${ORCA_IPERF_MIB:-}" 8)
ip_a=10.78.0.1 ip_b=10.78.0.2
bcast=ff12:401b:ffff::ffff:ffff
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mark="orca-ipoib-test-$$"
klog_mark_both "$mark"
plan 25

# ipoib_qps WHERE TYPE: the QPs of [ib_ipoib] of that type (pair.sh's
# res_count: nothing and status 1 if rdma fails, never 0)
ipoib_qps() { res_count "$1" qp "type $2 .*comm \[ib_ipoib\]"; }
carrier() { [[ $(< /sys/class/net/ib0/carrier) == 1 ]] 2> /dev/null; }
both_carrier() { carrier && [[ $(peer "cat /sys/class/net/ib0/carrier") == 1 ]]; }
# up: ib_ipoib on both hosts, the addresses, the links up; status 0 once
# both have carrier (the broadcast group joined)
up() {
    modprobe ib_ipoib && peer "modprobe ib_ipoib" || return 1
    ip addr replace "$ip_a/24" dev ib0 && ip link set ib0 up &&
        peer "ip addr replace $ip_b/24 dev ib0 && ip link set ib0 up" || return 1
    wait_until "$ORCA_WAIT" both_carrier
}
# pings ARGS...: ping ARGS to the other host; 0 if no packet was lost
# (each reply may take up to ORCA_WAIT s: a slow guest is no loss)
pings() { ping -q -W "$ORCA_WAIT" "$@" "$ip_b" > "$tmp/ping" 2>&1 && grep -q ' 0% packet loss' "$tmp/ping"; }
ping_summary() { grep -E 'transmitted|rtt' "$tmp/ping" | tr '\n' ' '; }
# iperf ARGS...: iperf3 client here against a one-shot server on the
# other host; 0 if the client exits 0 (a broken connection is an error)
# having sent all it was asked to and its peer received data (iperf3's
# receiver line counts only what was read when the test ended)
iperf() {
    local crc
    peer "iperf3 -s -D -1 -p 5201 --logfile /tmp/iperf3-server.out; for i in \$(seq 100); do ss -Hltn 'sport = :5201' | grep -q . && break; sleep 0.1; done"
    timeout -k 5 $((120 + iperf_mib)) iperf3 -c "$ip_b" -p 5201 -n "${iperf_mib}M" "$@" > "$tmp/iperf" 2>&1
    crc=$?
    ((crc == 0)) && [[ $(iperf_mib_of sender) -ge $iperf_mib ]] &&
        [[ $(iperf_mib_of receiver) -ge 1 ]] && return 0
    diag "iperf3 $* exit $crc" "$(tail -n 5 "$tmp/iperf")" "$(peer 'tail -n 3 /tmp/iperf3-server.out')"
    return 1
}
# iperf_mib_of sender|receiver: the MiB iperf3's summary line counts
iperf_mib_of() {
    awk -v who="$1" '$NF == who {
        for (i = 2; i <= NF; i++) {
            f = 0
            if ($i == "KBytes") f = 1 / 1024
            else if ($i == "MBytes") f = 1
            else if ($i == "GBytes") f = 1024
            if (f) { printf "%d\n", $(i - 1) * f; exit }
        }
    }' "$tmp/iperf"
}
iperf_rate() { grep -E 'receiver$' "$tmp/iperf" | tr -s ' ' | cut -d' ' -f5-8; }
# copies: tests/lib/tcp-copy of iperf_mib MiB of random bytes to the other
# host and back from it; 0 if each arrived whole (byte count and SHA-256
# the same at both ends); copy_msg says what each end counted
copy_port=5301
copy_one() {   # copy_one here|peer: the receiver is the other one
    local bytes=$((iperf_mib << 20)) out=$tmp/copy-$1 snd rcv
    copy_port=$((copy_port + 1))
    if [[ $1 == here ]]; then
        pair_server "$out.rcv" "$copy_port" tcp-copy serve "$copy_port" || return 1
        timeout -k 5 120 tcp-copy send "$ip_b" "$copy_port" "$bytes" > "$out.snd" 2>&1
        wait "$PAIR_SPID"
    else
        tcp-copy serve "$copy_port" > "$out.rcv" 2>&1 &
        local spid=$!
        wait_until "$ORCA_WAIT" listening_or_ended "$copy_port" "$spid"
        peer "timeout -k 5 120 tcp-copy send $ip_a $copy_port $bytes" > "$out.snd" 2>&1
        wait "$spid"
    fi
    snd=$(grep -E '^[0-9]+ [0-9a-f]{64}$' "$out.snd") rcv=$(grep -E '^[0-9]+ [0-9a-f]{64}$' "$out.rcv")
    local way=to sb=${snd%% *} rb=${rcv%% *} dg=differ
    [[ $1 == peer ]] && way=from
    [[ -n $snd && ${snd#* } == "${rcv#* }" ]] && dg=equal
    copy_msg+="$way the other host: ${sb:-no count} B sent, ${rb:-no count} B received, digests $dg; "
    [[ -n $snd && $snd == "$rcv" && $sb == "$bytes" ]]
}
copies() {
    local rc=0
    copy_msg=''
    copy_one here || rc=1
    copy_one peer || rc=1
    ((rc)) && diag "$(tail -n 3 "$tmp"/copy-*)"
    return "$rc"
}
# link_is MTU MODE: ib0 has that MTU and IPoIB mode
link_is() {
    link=$(ip -d link show ib0)
    [[ $link =~ mtu\ ([0-9]+) ]] && lmtu=${BASH_REMATCH[1]}
    [[ $link =~ mode\ (datagram|connected) ]] && lmode=${BASH_REMATCH[1]}
    [[ ${lmtu:-} == "$1" && ${lmode:-} == "$2" ]]
}

t0=$(now_us)
up
ok $? "ib_ipoib on both hosts: ib0 up with carrier (broadcast group joined) after $(secs_since "$t0") s"
ua=$(ipoib_qps here UD) ub=$(ipoib_qps peer UD)
nums "$ua" "$ub" && ((ua == 1 && ub == 1))
ok $? "each host has one UD QP of [ib_ipoib] on $dev port 1 (${ua:-query failed} here, ${ub:-query failed} there)"
link_is 2044 datagram
ok $? "datagram mode, MTU 2044 from the broadcast group's 2048: MTU $lmtu, mode $lmode"

# the SA: the broadcast group and both ports in it (the members' GIDs
# only to a trusted query: OpenSM's default SM_Key is 1)
saquery -g > "$tmp/groups" 2>&1
mlid=$(awk -v g="$bcast" '$0 ~ "MGID\\.+" g "$" { f = 1; next } f && /Mlid/ { sub(/.*\.+/, ""); print; exit }' "$tmp/groups")
[[ -n $mlid ]] && ((mlid >= 0xc000))
ok $? "saquery -g: the broadcast group $bcast, MLID ${mlid:-none}"
gid_a=$(< "/sys/class/infiniband/$dev/ports/1/gids/0")
gid_b=$(peer "cat /sys/class/infiniband/$dev/ports/1/gids/0")
saquery --smkey 1 -m > "$tmp/members" 2>&1
members() { awk -v g="$bcast" '/MGID\.+/ { sub(/.*\.+/, ""); m = ($0 == g) } m && /PortGid/ { sub(/.*\.+/, ""); print }' "$tmp/members"; }
short() { python3 -c 'import ipaddress, sys; print(ipaddress.ip_address(sys.argv[1]))' "$1"; }
sa=$(short "$gid_a") sb=$(short "$gid_b")
members | grep -qx "$sa" && members | grep -qx "$sb"
rc=$?
ok $rc "saquery -m: both ports ($sa, $sb) are members of the broadcast group"
((rc)) && diag "$(head -n 30 "$tmp/members")"
# the switch's MFT: the MLID goes to switch ports 1 and 2 (the two CAs);
# ibroute -M marks a port with an x in the column under its number
to_port() {   # to_port N: row has an x in port N's column of the header
    local pre=${hdr%%" $1 "*}
    [[ $pre != "$hdr" && ${row:${#pre}+1:1} == x ]]
}
hdr='' row=''
if [[ -n $mlid ]]; then
    ibroute -M -D 0,1 "$mlid" "$mlid" > "$tmp/mft" 2>&1
    hdr=$(grep 'Ports:' "$tmp/mft")
    row=$(grep -i "^$mlid " "$tmp/mft")
fi
[[ -n $row ]] && to_port 1 && to_port 2 && ! to_port 3
rc=$?
ok $rc "the switch's multicast forwarding table (ibroute -M) sends MLID ${mlid:-?} to ports 1 and 2, not 3"
((rc)) && diag "$(cat "$tmp/mft")"
ma=$(emu_stat_on here mcast_attached) mb=$(emu_stat_on peer mcast_attached)
nums "$ma" "$mb" && ((ma >= 1 && mb >= 1))
ok $? "both devices have a QP attached to a group ($(emu_stat_on here mcast_groups) and $(emu_stat_on peer mcast_groups) groups)"

# ARP: the request to the broadcast group, delivered by the other device.
# IPv6 is off on ib0 meanwhile (its neighbour discovery and MLD are
# multicast too), and no IPv4 group but all-hosts (never reported) is
# joined, so the one multicast packet the other device receives is the
# ARP request; the other host learned this one's IPoIB address from it.
sysctl -qw net.ipv6.conf.ib0.disable_ipv6=1 && peer "sysctl -qw net.ipv6.conf.ib0.disable_ipv6=1"
ip neigh flush dev ib0
peer "ip neigh flush dev ib0"
r0=$(emu_stat_on peer port_mcast_rcv_pkts) c0=$(emu_stat_on peer mcast_copies)
pings -c 5
ok $? "ping -c 5 $ip_b over ib0: $(ping_summary)"
r1=$(emu_stat_on peer port_mcast_rcv_pkts) c1=$(emu_stat_on peer mcast_copies)
lladdr=$(< /sys/class/net/ib0/address)
learned=$(peer "ip neigh show $ip_a dev ib0")
nums "$r0" "$c0" "$r1" "$c1" && ((r1 - r0 == 1 && c1 - c0 == 1)) && [[ ${learned,,} == *"lladdr ${lladdr,,}"* ]]
ok $? "the ARP request reached the other device as multicast: $((r1 - r0)) multicast packet in (1 expected), $((c1 - c0)) copy to the attached QP (1), the other host learned $ip_a at this ib0's address from it"
[[ ${learned,,} == *"lladdr ${lladdr,,}"* ]] || diag "ib0 address $lladdr; there: ${learned:-no entry}"
sysctl -qw net.ipv6.conf.ib0.disable_ipv6=0 && peer "sysctl -qw net.ipv6.conf.ib0.disable_ipv6=0"
peer "ping -q -W $ORCA_WAIT -c 3 $ip_a" > "$tmp/rping" 2>&1
grep -q ' 0% packet loss' "$tmp/rping"
ok $? "ping from the other host: $(grep transmitted "$tmp/rping")"
# 224.0.0.1: all hosts, its own IB group (ff12:401b:ffff::1)
peer "sysctl -qw net.ipv4.icmp_echo_ignore_broadcasts=0"
ping -q -W "$ORCA_WAIT" -c 3 -I ib0 224.0.0.1 > "$tmp/mping" 2>&1
grep -Eq ' [1-9][0-9]* received' "$tmp/mping"
ok $? "ping 224.0.0.1 on ib0 (group ff12:401b:ffff::1) answered: $(grep transmitted "$tmp/mping")"
peer "sysctl -qw net.ipv4.icmp_echo_ignore_broadcasts=1"

iperf
ok $? "iperf3 -n ${iperf_mib}M to the other host (datagram): $(iperf_rate)"
iperf -R
ok $? "iperf3 -R -n ${iperf_mib}M from the other host (datagram): $(iperf_rate)"
copies
ok $? "TCP copies of ${iperf_mib} MiB each way arrive whole (datagram): $copy_msg"

# connected mode: RC QPs set up through ib_cm, one message per datagram
echo connected > /sys/class/net/ib0/mode && ip link set ib0 mtu 65520 &&
    peer "echo connected > /sys/class/net/ib0/mode && ip link set ib0 mtu 65520"
link_is 65520 connected
ok $? "connected mode, MTU 65520: MTU $lmtu, mode $lmode"
pings -c 3 -s 60000 -M "do"
ok $? "ping -s 60000 -M do (unfragmented) in connected mode: $(ping_summary)"
ra=$(ipoib_qps here RC) rb=$(ipoib_qps peer RC)
nums "$ra" "$rb" && ((ra >= 1 && rb >= 1))
ok $? "RC QPs of [ib_ipoib] on both hosts: ${ra:-query failed} here, ${rb:-query failed} there"
iperf
ok $? "iperf3 -n ${iperf_mib}M in connected mode: $(iperf_rate)"
iperf -R
ok $? "iperf3 -R -n ${iperf_mib}M in connected mode: $(iperf_rate)"
copies
ok $? "TCP copies of ${iperf_mib} MiB each way arrive whole (connected): $copy_msg"
echo datagram > /sys/class/net/ib0/mode && peer "echo datagram > /sys/class/net/ib0/mode"
pings -c 3
ok $? "datagram mode again: ping $(ping_summary), MTU $(< /sys/class/net/ib0/mtu)"

# gone and back
ip link set ib0 down
rmmod ib_ipoib && peer "ip link set ib0 down; rmmod ib_ipoib"
# each count from a query that worked: a failed one is no "nothing left"
gone() { ma=$(emu_stat_on here mcast_attached) mb=$(emu_stat_on peer mcast_attached) && nums "$ma" "$mb" && ((ma == 0 && mb == 0)); }
wait_until "$ORCA_WAIT" gone
ok $? "ib_ipoib unloaded: no group attached in either device (${ma:-query failed} here, ${mb:-query failed} there)"
ua=$(ipoib_qps here UD) ub=$(ipoib_qps peer UD)
nums "$ua" "$ub" && ((ua == 0 && ub == 0))
ok $? "ib_ipoib unloaded: no QP of it on either host (${ua:-query failed} here, ${ub:-query failed} there)"
t0=$(now_us)
up && pings -c 3
ok $? "ib_ipoib loaded again: carrier and ping after $(secs_since "$t0") s: $(ping_summary)"

ok_no_oopses_both "$mark"
done_testing
