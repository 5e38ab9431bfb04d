#!/bin/bash
# Guest test, first guest of scripts/vm2.sh --sm none, after ipoib.sh (ib0
# up on both hosts, 10.78.0.1 here, 10.78.0.2 there): the RDMA connection
# manager on orca0.  rdma_cm resolves the IPoIB address to the other
# port's GID (ARP over ib0), asks OpenSM's SA for the path, and connects
# through ib_cm's REQ/REP/RTU on QP1; each tool then moves data on the
# QPs it made through the orca provider.  Servers run on the other host.
#  - rping -V: ten pings, each buffer verified by the server;
#  - ucmatose (RC), udaddy (UD, SIDR), rdma_server/rdma_client: both ends
#    report success, and the port counters of both ends (PortRcvData,
#    PortRcvPkts) rose by at least what each tool sent there (none of them
#    checks its payload, ucmatose and udaddy not even the completions);
#  - mckey: the receiver and the sender join 239.1.1.1 (an IB group the SA
#    creates), every message sent reaches the receiver, whose counters
#    rose by at least the 50 KiB sent;
#  - perftest with -R: ib_send_bw, ib_write_bw, ib_read_lat, ib_send_lat
#    over UD: a result row, both ends exit 0, the counters rose by at
#    least what each test moves;
#  - ECE through the CM (tests/tools/cm_ece): each side's QP, made by
#    rdma_create_qp(), ends with the options both devices offer
#    (ORCA_ECE_EXPECT): the server saw the client's offer in the REQ, the
#    client's QP took what the REP accepted.
# Prints TAP.  ORCA_DEV (orca0), ORCA_ECE_EXPECT (0xf),
# ORCA_RDMACM_SCOPE: all (default) or ece (IPoIB brought up here if
# ipoib.sh did not run, then the ECE check only).
# (the functions wait_until calls look unreachable to shellcheck)
# shellcheck disable=SC2317
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"
# shellcheck source=tests/lib/pair.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pair.sh"

dev=${ORCA_DEV:-orca0}
ece_expect=${ORCA_ECE_EXPECT:-0xf}
scope=${ORCA_RDMACM_SCOPE:-all}
build=${ORCA_BUILD:-$(dirname "${BASH_SOURCE[0]}")/../../build}
ip_a=10.78.0.1 ip_b=10.78.0.2
limit=120
port=19700
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [[ $scope == ece ]]; then plan 2; else plan 11; fi
if ! pair_remote; then
    echo "Bail out! rdmacm.sh needs the second guest of scripts/vm2.sh"
    exit 1
fi
export PAIR_RDMA_CM=1
# ib_cm's counters of the port (in the port's sysfs directory): GROUP
# NAME, e.g. cm_tx_msgs req; nothing (status 1) if there is no such counter
cm_count() { cat "/sys/class/infiniband/$dev/ports/1/$1/$2" 2> /dev/null; }
# first transmissions of a message: sent minus retransmitted
cm_first() {
    local m r
    m=$(cm_count cm_tx_msgs "$1") && r=$(cm_count cm_tx_retries "$1") && nums "$m" "$r" &&
        echo $((m - r))
}
req0=$(cm_first req) sidr0=$(cm_first sidr_req)
dreq0=$(cm_count cm_tx_msgs dreq) rdreq0=$(cm_count cm_rx_msgs dreq)

# cm SERVER ARGS... -- CLIENT ARGS...: the rdma_cm server on the other
# host, listening on $port, then the client here; sets crc and src (the
# exit statuses) and secs
cm() {
    local sargs=() t0
    while (($#)) && [[ $1 != -- ]]; do sargs+=("$1"); shift; done
    shift
    pair_server "$tmp/server" "$port" timeout -k 5 "$limit" "${sargs[@]}" ||
        diag "${sargs[0]}: the server did not listen" "$(tail -n 5 "$tmp/server")"
    t0=$(now_us)
    timeout -k 5 "$limit" "$@" > "$tmp/client" 2>&1
    crc=$?
    wait "$PAIR_SPID"
    src=$?
    secs=$(secs_since "$t0")
}
# both_ok DESC [RC]: both exited 0 (and RC, a check of their output, is 0),
# else the ends' last lines
both_ok() {
    [[ $crc == 0 && $src == 0 && ${2:-0} == 0 ]]
    local rc=$?
    ok $rc "$1 (client and server exit 0, $secs s)"
    ((rc)) && diag "client rc $crc, server rc $src" "$(tail -n 8 "$tmp/client")" "$(tail -n 8 "$tmp/server")"
}

# What a tool moved, by the port counters of both ends (PMA PortRcvData, in
# 4-octet words, and PortRcvPkts): most tools here check no payload of
# their own (ucmatose and udaddy do not even look at the completions'
# status), so a transfer that failed would still print its last message.
# The counters rise by headers and by the subnet's own traffic too, so
# "at least" the payload is the bound; the sizes below are chosen well
# above that traffic over a few seconds (SM sweeps, IPoIB).
ctr_here() { cat "/sys/class/infiniband/$dev/ports/1/counters/$1" 2> /dev/null; }
ctr_there() { peer "cat /sys/class/infiniband/$dev/ports/1/counters/$1" 2> /dev/null; }
snap() {
    moved_msg='the counters were not read (an earlier check failed)'
    s_d=$(ctr_here port_rcv_data) s_p=$(ctr_here port_rcv_packets)
    s_rd=$(ctr_there port_rcv_data) s_rp=$(ctr_there port_rcv_packets)
}
# moved BYTES_HERE PKTS_HERE BYTES_THERE PKTS_THERE: since snap, this port
# received at least BYTES_HERE in PKTS_HERE packets and the other one so
# much; moved_msg says what they did receive
moved() {
    local d p rd rp
    d=$(ctr_here port_rcv_data) p=$(ctr_here port_rcv_packets)
    rd=$(ctr_there port_rcv_data) rp=$(ctr_there port_rcv_packets)
    if ! nums "$s_d" "$s_p" "$s_rd" "$s_rp" "$d" "$p" "$rd" "$rp"; then
        moved_msg="a port counter could not be read ($s_d $s_p $s_rd $s_rp -> $d $p $rd $rp)"
        return 1
    fi
    moved_msg="received here $(((d - s_d) * 4)) B in $((p - s_p)) packets (at least $1 B, $2), there $(((rd - s_rd) * 4)) B in $((rp - s_rp)) (at least $3 B, $4)"
    (((d - s_d) * 4 >= $1 && p - s_p >= $2 && (rd - s_rd) * 4 >= $3 && rp - s_rp >= $4))
}

# ECE through the CM: the QPs end with the intersection of the offers
cm_ece_check() {
    local srv cli got
    port=$((port + 1))
    cm "$build/tests/cm_ece" --server "$ip_b" "$port" -- "$build/tests/cm_ece" --client "$ip_b" "$port"
    srv=$(grep 'cm_ece: server: remote' "$tmp/server") cli=$(grep 'cm_ece: client:' "$tmp/client")
    got=0
    [[ $srv =~ QP\ (0x[0-9a-f]+) ]] && (( BASH_REMATCH[1] == ece_expect )) && got=$((got + 1))
    [[ $cli =~ QP\ (0x[0-9a-f]+) ]] && (( BASH_REMATCH[1] == ece_expect )) && got=$((got + 1))
    [[ $srv =~ offered\ (0x[0-9a-f]+) ]] && (( (BASH_REMATCH[1] & ece_expect) == ece_expect )) && got=$((got + 1))
    [[ $crc == 0 && $src == 0 && $got == 3 ]]
    ok $? "ECE over rdma_cm: the REQ carried the client's offer, the REP the accepted options, both QPs $ece_expect (${srv#cm_ece: }; ${cli#cm_ece: })"
    ((crc || src)) && diag "$(tail -n 4 "$tmp/client")" "$(tail -n 4 "$tmp/server")"
}

if [[ $scope == ece ]]; then
    carrier() { [[ $(cat /sys/class/net/ib0/carrier 2> /dev/null) == 1 ]] &&
        [[ $(peer "cat /sys/class/net/ib0/carrier") == 1 ]]; }
    modprobe ib_ipoib && peer "modprobe ib_ipoib" &&
        ip addr replace "$ip_a/24" dev ib0 && ip link set ib0 up &&
        peer "ip addr replace $ip_b/24 dev ib0 && ip link set ib0 up" &&
        wait_until "$ORCA_WAIT" carrier
    ok $? "IPoIB up on both hosts for rdma_cm"
    cm_ece_check
    done_testing
fi

port=$((port + 1))
cm rping -s -a "$ip_b" -p "$port" -v -V -C 10 -- rping -c -a "$ip_b" -p "$port" -v -V -C 10
n=$(grep -c '^ping data: rdma-ping-[0-9]' "$tmp/client")
[[ $crc == 0 && $src == 0 && $n == 10 ]] && ! grep -qi 'mismatch' "$tmp/client" "$tmp/server"
ok $? "rping -V -C 10 to $ip_b: $n verified pings (client rc $crc, server rc $src, $secs s)"

# ucmatose: 50 messages of 4 KiB each way on one RC connection
port=$((port + 1))
snap
cm ucmatose -b "$ip_b" -p "$port" -C 50 -S 4096 -- ucmatose -s "$ip_b" -p "$port" -C 50 -S 4096
grep -q 'return status 0' "$tmp/client" && grep -q 'return status 0' "$tmp/server" &&
    moved $((50 * 4096)) 50 $((50 * 4096)) 50
both_ok "ucmatose (RC over rdma_cm), 50 x 4 KiB each way: return status 0 on both ends, $moved_msg" $?

# udaddy's -p is the port space: its rdma_cm port is fixed, 7174;
# 50 datagrams of 1 KiB each way
saved=$port port=7174
snap
cm udaddy -b "$ip_b" -C 50 -S 1024 -- udaddy -s "$ip_b" -C 50 -S 1024
port=$saved
grep -q 'data transfers complete' "$tmp/client" && grep -q 'data transfers complete' "$tmp/server" &&
    moved $((50 * 1024)) 50 $((50 * 1024)) 50
both_ok "udaddy (UD, SIDR over rdma_cm), 50 x 1 KiB each way: data transfers complete on both ends, $moved_msg" $?

# rdma_server / rdma_client exchange one 16-byte message each way and
# check nothing of it: this one is about librdmacm's rdma_* calls
port=$((port + 1))
snap
cm rdma_server -s "$ip_b" -p "$port" -- rdma_client -s "$ip_b" -p "$port"
moved 16 1 16 1
both_ok "rdma_server / rdma_client (librdmacm's rdma_* calls, one 16-byte message each way: $moved_msg)" $?

# mckey: no listener; the receiver says it joined before the sender sends
: > "$tmp/server"
snap
peer "timeout -k 5 $limit stdbuf -oL mckey -m 239.1.1.1 -b $ip_b -p 0x111 -C 50 -S 1024" > "$tmp/server" 2>&1 &
spid=$!
joined() { grep -q 'joined dgid' "$tmp/server" || ended "$spid"; }
wait_until "$ORCA_WAIT" joined
t0=$(now_us)
timeout -k 5 "$limit" mckey -m 239.1.1.1 -b "$ip_a" -s -C 50 -S 1024 > "$tmp/client" 2>&1
crc=$?
wait "$spid"
src=$?
secs=$(secs_since "$t0")
mlid=$(grep -o 'mlid 0x[0-9a-f]*' "$tmp/server")
[[ $crc == 0 && $src == 0 ]] && grep -q 'data transfers complete' "$tmp/server" &&
    grep -q 'return status 0' "$tmp/server" && [[ -n $mlid ]] && moved 0 0 $((50 * 1024)) 50
ok $? "mckey: 50 x 1 KiB to 239.1.1.1 ($(grep -o 'dgid: [0-9a-f:]*' "$tmp/server"), $mlid) reached the receiver, $moved_msg (client rc $crc, server rc $src)"
((crc || src)) && diag "$(tail -n 6 "$tmp/client")" "$(tail -n 6 "$tmp/server")"

# perftest over rdma_cm QPs
pt() {   # pt DESC PROG ARGS...: server there, client here, both with -R
    local d=$1 p=$2
    shift 2
    port=$((port + 1))
    snap
    cm "$p" -d "$dev" -R -p "$port" "$@" -- "$p" -d "$dev" -R -p "$port" "$@" "$ip_b"
    row=$(grep -A1 '#bytes' "$tmp/client" | tail -n 1 | tr -s ' ')
    [[ $crc == 0 && $src == 0 && $row =~ ^\ ?[0-9]+\ +[0-9]+ ]] && moved "${want[@]}"
    ok $? "$d -R:$row (client rc $crc, server rc $src), $moved_msg"
    ((crc || src)) && diag "$(tail -n 6 "$tmp/client")" "$(tail -n 6 "$tmp/server")"
}
# what each must have moved (moved's arguments): 200 messages of 64 KiB
# there; 100 reads of 2 bytes, answered here; 100 UD pings each way
want=(0 0 $((200 * 65536)) 200)
pt ib_send_bw ib_send_bw -n 200 -s 65536
pt ib_write_bw ib_write_bw -n 200 -s 65536
want=(200 100 0 100)
pt ib_read_lat ib_read_lat -n 100 -s 2
want=(200 100 200 100)
pt "ib_send_lat -c UD" ib_send_lat -c UD -n 100 -s 2
cm_ece_check

# the connections went through this host's ib_cm on orca0: a REQ for
# each connection (rping, ucmatose, rdma_client, three perftests, cm_ece:
# at least 7, retransmissions not counted; perftest makes more than one),
# exactly one SIDR REQ for each UD one (udaddy, ib_send_lat -c UD: 2), and
# each RC connection ended with a DREQ, sent from here or received here (7
# at least: both ends may send one)
req1=$(cm_first req) sidr1=$(cm_first sidr_req)
dreq1=$(cm_count cm_tx_msgs dreq) rdreq1=$(cm_count cm_rx_msgs dreq)
nums "$req0" "$req1" "$sidr0" "$sidr1" "$dreq0" "$dreq1" "$rdreq0" "$rdreq1"
rc=$?
req=$((req1 - req0)) sidr=$((sidr1 - sidr0)) dreq=$((dreq1 - dreq0)) rdreq=$((rdreq1 - rdreq0))
((rc == 0 && req >= 7 && sidr == 2 && dreq + rdreq >= 7))
rc=$?
ok $rc "ib_cm on $dev port 1: $req REQs and $sidr SIDR REQs first sent (at least 7, exactly 2), DREQs $dreq sent and $rdreq received (at least 7, one per RC connection)"
((rc)) && diag "$(ls "/sys/class/infiniband/$dev/ports/1/")"
done_testing
