#!/bin/bash
# Guest test, first guest of scripts/vm2.sh --topology tests/vm/fabric.topo
# --topology-b tests/vm/fabric-b.topo: four switches in two orca-fabric
# processes as on two machines, this host on s1 (the first), the other on
# s4 (the second), two ways between them of three switches each, the
# second link of each over TCP (s1-s2=s4, s1-s3=s4), and the real OpenSM
# here managing all of it.
#  - OpenSM logs SUBNET UP; both ports ACTIVE with distinct LIDs;
#  - ibnetdiscover finds the four switches (their NodeDescriptions,
#    "orca-fabric sN"), the cables between them that the two topology
#    files describe and no other, the two CAs, each in its pinned
#    port, and the
#    ORCA_GUESTLESS ports with no guest (vm2.sh --guestless), every CA
#    port with a LID from OpenSM;
#  - ibtracert from here to the other port crosses three switches, s1,
#    s2 or s3, and s4, entering each by a port the topology has; s1's
#    LFT (ibroute) sends the other port's LID out of its cable to that
#    middle switch;
#  - ibv_rc_pingpong -c (each buffer checked) across them, its packets
#    over a TCP link each way: the route's there, the way back's (which
#    ibtracert from there names: routes need not be symmetric) back (the
#    first fabric's stats);
#  - s1's end of the cable to the middle switch of that route losing 5 %
#    of what it sends and 2 ms late (hostctl fabric link-faults): an RC
#    WRITE stream (ib_write_bw -n 500) gets through by retransmission,
#    the losses counted;
#  - that cable pulled (hostctl fabric link) under an RC stream
#    (ib_write_bw -D, its QPs' timeout 4.3 s, -u 20): the switches
#    raise PortStateChange and send Trap 128, which OpenSM logs; it
#    sweeps and routes the other way,
#    which ibtracert shows, with the LIDs kept; the stream goes on by
#    retransmission (this device's retries counter rises) and both ends
#    exit 0; a new pingpong crosses the new route;
#  - the cable back: Trap 128 again, OpenSM takes both ends ACTIVE;
#  - OpenSM again with routing_engine ftree, updn (roots s2 and s3, the
#    spines of the fat tree s1, s4 are the leaves of), then minhop (its
#    default, named): each says it configured the switches' tables with
#    that engine, the route crosses three switches, a pingpong -c
#    crosses it;
#  - IPoIB across those three switches: ib0 up on both hosts, iperf3
#    moves all it was asked to; rping -V (rdma_cm over IPoIB's
#    addresses) verifies each of its ten pings.
# Prints TAP.
# (the functions wait_until calls look unreachable to shellcheck)
# shellcheck disable=SC2317
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"
# shellcheck source=tests/lib/pair.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pair.sh"

dev=${ORCA_DEV:-orca0}
guestless=${ORCA_GUESTLESS:-0}
port=18900
tmp=$(mktemp -d)
osm=/tmp/orca-opensm-fabric
mkdir -p "$osm"
trap 'rm -rf "$tmp"' EXIT
plan 23

# shellcheck source=tests/lib/sm.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/sm.sh"

peer --wait 180 true
ok $? "the second guest answers over the guest link ($ORCA_PEER)"
mark="orca-fabric-test-$$"
klog_mark_both "$mark"

rc_pp() {   # as opensm.sh: both ends exit 0, every buffer checked (-c)
    local crc
    port=$((port + 1))
    pair_server "$tmp/server" "$port" timeout -k 5 60 ibv_rc_pingpong -d "$dev" -p "$port" -c "$@" ||
        diag "the pingpong server did not listen"
    timeout -k 5 60 ibv_rc_pingpong -d "$dev" -p "$port" -c "$@" "$(pair_server_addr)" > "$tmp/client" 2>&1
    crc=$?
    wait "$PAIR_SPID" && ((crc == 0))
}
fab() { hostctl fabric "$@"; }

modprobe ib_umad && modprobe ib_cm && peer "modprobe ib_umad && modprobe ib_cm"
ga=$(port_guid) gb=$(rport_guid)
sm_start here "$ga" "$osm/log"
active() { [[ $(state_of "$(pattr state)") == ACTIVE && $(state_of "$(rattr state)") == ACTIVE ]]; }
t0=$(now_us)
wait_until "$ORCA_WAIT" sm_up "$osm/log" && wait_until "$ORCA_WAIT" active
rc=$?
la=$(lid_of "$(pattr lid)") lb=$(lid_of "$(rattr lid)")
((rc == 0 && la > 0 && lb > 0 && la != lb))
ok $? "OpenSM on $ga over four switches: SUBNET UP, both ports ACTIVE, LIDs $la and $lb ($(secs_since "$t0") s)"
((rc)) && diag "$(tail -n 20 "$osm/log")" "$(fab stats)"

# what the SM found: ibnetdiscover's Switch and Ca lines
ibnetdiscover > "$tmp/net" 2>&1
sws=$(grep -c '^Switch' "$tmp/net") cas=$(grep -c '^Ca' "$tmp/net")
names=$(grep -o '"orca-fabric s[0-9]*"' "$tmp/net" | sort -u | tr -d '"' | tr '\n' ',')
# a CA's port line: [1](port guid)	"S-switch"[port]	# lid N lmc 0 ...
lids=$(awk '/^Ca/ { ca = 1; next } /^$/ { ca = 0 } ca && /^\[1\]/ && match($0, /# lid [0-9]+/) {
            split(substr($0, RSTART, RLENGTH), w, " "); if (w[3] > 0) n++ } END { print n + 0 }' "$tmp/net")
[[ $sws == 4 && $cas == $((2 + guestless)) && $lids == "$cas" &&
    $names == "orca-fabric s1,orca-fabric s2,orca-fabric s3,orca-fabric s4," ]]
ok $? "ibnetdiscover: $sws switches ($names), $cas CAs (2 guests, $guestless with no guest), $lids with a LID"
# every cable between switches, as the topology files describe them
# (the default GUID of a switch: 0x00ca7a0000f00000 + its index in its
# file; a remote pair: the two ends naming the same @TCPn@) and as
# ibnetdiscover found them (the switch sections' "[p] "S-guid"[q]"
# lines), each "S-guid[p] S-guid[q]" in order
topo_cables() {
    /usr/bin/python3 - "$@" <<'PY'
import sys
far, out = {}, set()
for path in sys.argv[1:]:
    guid = {}
    def end(w):
        sw, port = w.split(":")
        return "S-%016x[%s]" % (guid[sw], port)
    for line in open(path):
        w = line.split("#")[0].split()
        if w and w[0] == "switch":
            guid[w[1]] = int(w[3], 0) if len(w) > 3 else 0x00ca7a0000f00000 + len(guid)
        elif w and w[0] == "link":
            out.add(" ".join(sorted((end(w[1]), end(w[2])))))
        elif w and w[0] == "remote":
            if w[3] in far:
                out.add(" ".join(sorted((far[w[3]], end(w[1])))))
            else:
                far[w[3]] = end(w[1])
print("\n".join(sorted(out)))
PY
}
net_cables() {
    /usr/bin/python3 - "$1" <<'PY'
import re, sys
me, out = None, set()
for line in open(sys.argv[1]):
    m = re.match(r'Switch\s+\d+\s+"(S-[0-9a-f]+)"', line)
    if m:
        me = m.group(1)
        continue
    if not line.strip():
        me = None
    m = re.match(r'\[(\d+)\]\s+"(S-[0-9a-f]+)"\[(\d+)\]', line)
    if me and m:
        out.add(" ".join(sorted(("%s[%s]" % (me, m.group(1)), "%s[%s]" % (m.group(2), m.group(3))))))
print("\n".join(sorted(out)))
PY
}
here=$(dirname "${BASH_SOURCE[0]}")
topo_cables "$here/fabric.topo" "$here/fabric-b.topo" > "$tmp/cables.want"
net_cables "$tmp/net" > "$tmp/cables.got"
cmp -s "$tmp/cables.want" "$tmp/cables.got" && [[ -s $tmp/cables.want ]]
ok $? "ibnetdiscover's cables between switches are the topology files' $(wc -l < "$tmp/cables.want"): $(tr '\n' ',' < "$tmp/cables.got")"
cmp -s "$tmp/cables.want" "$tmp/cables.got" || diag "$(diff "$tmp/cables.want" "$tmp/cables.got")"
# each CA in its pinned port: s1 port 8, s4 port 8 (ibnetdiscover's
# switch section lists "[8]" followed by the CA's GUID)
sw_guid() { printf '00ca7a0000f0000%d' "$(($1 - 1))"; }
ca_in() {   # ca_in SWITCH-INDEX CA-NODE-GUID: the switch's port 8 holds it
    awk -v sw="\"S-$(sw_guid "$1")\"" -v ca="$2" '
        /^Switch/ { on = index($0, sw) > 0 } on && /^\[8\]/ && index(tolower($0), ca) { f = 1 }
        END { exit !f }' "$tmp/net"
}
nodeguid() { printf '%016x' "$(($1 - 1))"; }   # the CA's node GUID: port GUID - 1
ca_in 1 "$(nodeguid "$ga")" && ca_in 4 "$(nodeguid "$gb")"
ok $? "this CA in s1 port 8, the other in s4 port 8 (their 'ca' lines)"
((rc)) || diag "$(grep -A10 "$(sw_guid 1)" "$tmp/net" | head -n 12)"

# the route: ibtracert by LID lists each switch it crosses
route() {   # [FROM TO]: the "orca-fabric sN" names ibtracert prints, in order
    ibtracert "${1:-$la}" "${2:-$lb}" 2> /dev/null | grep -o '"orca-fabric s[0-9]*"' | tr -d '"' |
        sed 's/orca-fabric //' | tr '\n' ' '
}
r1=$(route)
read -r _ mid _ <<< "$r1"
[[ $r1 == "s1 s2 s4 " || $r1 == "s1 s3 s4 " ]]
ok $? "ibtracert $la $lb: three switches, $r1"

# s1's unicast LFT as OpenSM programmed it (ibroute): the other CA's LID
# goes out of the port to that middle switch (s1:1 to s2, s1:2 to s3)
s1lid=$(awk '/^Switch/ && /"S-00ca7a0000f00000"/ { for (i = 1; i < NF; i++) if ($i == "lid") print $(i + 1) }' "$tmp/net")
timeout 30 ibroute "${s1lid:-0}" > "$tmp/lft" 2>&1
out_port=$(awk -v l="$(printf '0x%04x' "$lb")" '$1 "" == l { print $2 + 0; exit }' "$tmp/lft")
case $mid in s2) want=1 ;; s3) want=2 ;; *) want=none ;; esac
[[ ${out_port:-} == "$want" ]]
ok $? "ibroute $s1lid (s1): LID $lb out of port ${out_port:-none}, its cable to $mid (port $want)"
[[ ${out_port:-} == "$want" ]] || diag "$(grep -i "^$(printf "0x%04x" "$lb")" "$tmp/lft")"

# the middle switch's port 2 is its TCP link to s4 (fabric.topo); the
# way back may be the other one (each LFT is its own: routes need not be
# symmetric), which ibtracert from there says
read -r _ back _ <<< "$(route "$lb" "$la")"
[[ $back == s2 || $back == s3 ]] || back=$mid
tcp_frames() { echo "$(fabric_stat p2_remote_frames_out "$mid") $(fabric_stat p2_remote_frames_in "$back")"; }
read -r out0 in0 <<< "$(tcp_frames)"
rc_pp -n 200 -s 4096
ok $? "ibv_rc_pingpong -c across three switches: $(grep -o '[0-9]* bytes in [0-9.]* seconds' "$tmp/client")"
read -r out1 in1 <<< "$(tcp_frames)"
((out1 - out0 >= 200 && in1 - in0 >= 200))
ok $? "its 200 messages each way crossed a TCP link: there by $mid:2 = s4 (frames out $out0 -> $out1), back by $back:2 = s4 (frames in $in0 -> $in1)"

# the cable between s1 and the middle switch of that route
case $mid in
s2) cut=s1:1 other=s3 ;;
s3) cut=s1:2 other=s2 ;;
*) cut='' other='' ;;
esac

# lossy and slow at s1's end (link-faults on a cable between two
# switches of one fabric): 5 % of what it sends lost, all of it 2 ms
# late; an RC WRITE stream from here gets every message through by
# retransmission.  One way only, and not a pingpong: a pingpong's last
# ACK lost when its sender has already exited (nothing waits for an
# ACK to an ACK) leaves the other end retrying a QP that is gone, which
# is RC, not a fault of the fabric; perftest ends over its TCP socket.
port=$((port + 1))
retries0=$(emu_stat_on here retries)
out=$(fab link-faults "$cut" 50000 2000 2>&1)
pair_server "$tmp/lossy-server" "$port" timeout -k 5 120 ib_write_bw -d "$dev" -p "$port" -n 500 -s 4096 -F ||
    diag "the ib_write_bw server did not listen"
timeout -k 5 120 ib_write_bw -d "$dev" -p "$port" -n 500 -s 4096 -F "$(pair_server_addr)" > "$tmp/lossy-client" 2>&1
crc=$?
wait "$PAIR_SPID"
src=$?
fab link-faults "$cut" 0 0 > /dev/null
retries1=$(emu_stat_on here retries)
sw=${cut%%:*} p=${cut##*:}
lost=$(fabric_stat "p${p}_isl_fault_drops" "$sw") late=$(fabric_stat "p${p}_isl_delayed" "$sw")
((crc == 0 && src == 0 && ${lost:-0} > 0 && ${late:-0} > 0 && retries1 > retries0)) &&
    [[ $out == "ok link-faults $cut 50000 2000" ]]
ok $? "ib_write_bw -n 500 -s 4096 through $cut losing 5 % and 2 ms late ($out): client rc $crc, server rc $src, $lost lost and $late delayed there, retransmissions here $retries0 -> $retries1"
((crc || src)) && diag "client: $(tail -n 4 "$tmp/lossy-client")" "server: $(tail -n 4 "$tmp/lossy-server")"

# the cable pulled
# an RC stream across it, long enough for the pull and the reroute; a
# QP timeout of 4.3 s (-u 20) and 7 retries outlast OpenSM's sweep
bw_secs=12
port=$((port + 1))
retries0=$(emu_stat_on here retries)
pair_server "$tmp/bw-server" "$port" timeout -k 5 $((bw_secs + 60)) \
    ib_write_bw -d "$dev" -p "$port" -u 20 -D "$bw_secs" -F || diag "the ib_write_bw server did not listen"
timeout -k 5 $((bw_secs + 60)) ib_write_bw -d "$dev" -p "$port" -u 20 -D "$bw_secs" -F \
    "$(pair_server_addr)" > "$tmp/bw-client" 2>&1 &
bw_pid=$!
sleep 3
# OpenSM logs each trap it receives: "Received Generic Notice type:1
# num:128 (Link state change) Producer:2 (Switch) from LID:N ..."
traps128() { grep -c 'num:128 ' "$osm/log" 2> /dev/null; }
trap_lids() { grep 'num:128 ' "$osm/log" | tail -n "$1" | grep -o 'from LID:[0-9]*' | sort -u | tr '\n' ' '; }
n128=$(traps128)
out=$(fab link "$cut" down 2>&1)
rerouted() { [[ $(route) == "s1 $other s4 " ]]; }
t0=$(now_us)
[[ -n $cut && $out == "ok link $cut down" ]] && wait_until "$ORCA_WAIT" rerouted
ok $? "the cable $cut pulled ($out) under an RC stream: OpenSM routes $(route)instead, after $(secs_since "$t0") s"
n=$(($(traps128) - n128))
((n > 0))
ok $? "the pull reached OpenSM as Trap 128 (Link state change): $n of them, $(trap_lids "$n")"
wait "$bw_pid"
crc=$?
wait "$PAIR_SPID"
src=$?
retries1=$(emu_stat_on here retries)
((crc == 0 && src == 0 && retries1 > retries0))
ok $? "the RC stream (ib_write_bw -u 20 -D $bw_secs) went on through the reroute: client rc $crc, server rc $src, retransmissions here $retries0 -> $retries1"
((crc || src)) && diag "$(tail -n 5 "$tmp/bw-client")" "$(tail -n 5 "$tmp/bw-server")"
diag "ib_write_bw: $(grep -E '^ *[0-9]+ +[0-9]+ ' "$tmp/bw-client" | tail -n 1)"
[[ $(lid_of "$(pattr lid)") == "$la" && $(lid_of "$(rattr lid)") == "$lb" ]] && active
ok $? "LIDs kept ($la, $lb), both ports ACTIVE"
rc_pp -n 200 -s 4096
ok $? "ibv_rc_pingpong -c the other way round: $(grep -o '[0-9]* bytes in [0-9.]* seconds' "$tmp/client")"

# back: the switch ends INIT at once, OpenSM takes them ACTIVE
n128=$(traps128)
out=$(fab link "$cut" up 2>&1)
sw=${cut%%:*} p=${cut##*:}
both_active() { [[ $(fabric_stat "p${p}_state" "$sw") == active ]]; }
t0=$(now_us)
[[ $out == "ok link $cut up" ]] && wait_until "$ORCA_WAIT" both_active
rc=$?
n=$(($(traps128) - n128))
((rc == 0 && n > 0))
ok $? "the cable $cut back ($out): ACTIVE again after $(secs_since "$t0") s, through Trap 128: $n of them, $(trap_lids "$n")"
((rc == 0 && n > 0)) || diag "$(grep -iE 'notice|trap|sweep' "$osm/log" | tail -n 12)" "$(fab stats "$sw" | tr ' ' '\n' | grep -E '^traps_')"

# OpenSM's routing engines (ftree wants CAs on leaf switches only: the
# guest-less ports are in s1, fabric.topo)
sm_gone() { ! pgrep -x opensm > /dev/null; }
# ftree's and updn's roots: the middle switches, s2 and s3 (their GUIDs,
# as sw_guid)
printf '0x%s\n' "$(sw_guid 2)" "$(sw_guid 3)" > "$osm/roots"
for engine in ftree updn minhop; do
    pkill -TERM -x opensm
    wait_until "$ORCA_WAIT" sm_gone
    log=$osm/log-$engine
    sm_start here "$ga" "$log" "routing_engine $engine" "root_guid_file $osm/roots"
    configured() { grep -q "$engine tables configured on all switches" "$log" 2> /dev/null; }
    t0=$(now_us)
    wait_until "$ORCA_WAIT" sm_up "$log" && wait_until "$ORCA_WAIT" configured && wait_until "$ORCA_WAIT" active
    rc=$?
    r=$(route)
    ((rc == 0)) && [[ $r == "s1 s2 s4 " || $r == "s1 s3 s4 " ]] && rc_pp -n 50 -s 4096
    ok $? "OpenSM with routing_engine $engine: SUBNET UP, its tables on all switches ($(secs_since "$t0") s), route $r, ibv_rc_pingpong -c across"
    ((rc)) && diag "$(tail -n 10 "$log")"
done

# IPoIB and rdma_cm across the three switches of minhop's route
ip_a=10.79.0.1 ip_b=10.79.0.2
carrier() { [[ $(< /sys/class/net/ib0/carrier) == 1 && $(peer "cat /sys/class/net/ib0/carrier") == 1 ]] 2> /dev/null; }
t0=$(now_us)
modprobe ib_ipoib && peer "modprobe ib_ipoib" &&
    ip addr replace "$ip_a/24" dev ib0 && ip link set ib0 up &&
    peer "ip addr replace $ip_b/24 dev ib0 && ip link set ib0 up" &&
    wait_until "$ORCA_WAIT" carrier
ok $? "IPoIB on both hosts: ib0 up with carrier (the broadcast group joined through three switches) after $(secs_since "$t0") s"
peer "iperf3 -s -D -1 -p 5201 --logfile /tmp/iperf3-fabric.out; for i in \$(seq 100); do ss -Hltn 'sport = :5201' | grep -q . && break; sleep 0.1; done"
timeout -k 5 150 iperf3 -c "$ip_b" -p 5201 -n 8M > "$tmp/iperf" 2>&1
rc=$?
# the sender's summary line counts what it sent: 8.00 MBytes
sent=$(awk '$NF == "sender" { for (i = 2; i <= NF; i++) if ($i == "MBytes") printf "%d", $(i - 1) }' "$tmp/iperf")
((rc == 0 && ${sent:-0} >= 8))
ok $? "iperf3 -n 8M over IPoIB across three switches: exit $rc, $(grep -E 'receiver$' "$tmp/iperf" | tr -s ' ' | cut -d' ' -f5-8)"
((rc)) && diag "$(tail -n 5 "$tmp/iperf")"
port=$((port + 1))
PAIR_RDMA_CM=1 pair_server "$tmp/server" "$port" timeout -k 5 120 rping -s -a "$ip_b" -p "$port" -v -V -C 10 ||
    diag "rping: the server did not listen" "$(tail -n 5 "$tmp/server")"
timeout -k 5 120 rping -c -a "$ip_b" -p "$port" -v -V -C 10 > "$tmp/client" 2>&1
crc=$?
wait "$PAIR_SPID"
src=$?
n=$(grep -c '^ping data: rdma-ping-[0-9]' "$tmp/client")
((crc == 0 && src == 0 && n == 10))
ok $? "rping -V -C 10 over rdma_cm across three switches: $n verified pings (client rc $crc, server rc $src)"
ip link set ib0 down; rmmod ib_ipoib; peer "ip link set ib0 down; rmmod ib_ipoib"
ok_no_oopses_both "$mark"
