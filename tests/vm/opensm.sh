#!/bin/bash
# Guest test, first guest of scripts/vm2.sh --sm none: two hosts, one orca
# device each, cabled to orca-fabric as a plain switch, and the real
# OpenSM (Debian's opensm 3.3.23) in this guest managing the subnet
# through QP0/QP1 and the device's SMA; infiniband-diags look at it.
#  - before any SM both ports are INIT with LID 0 (the cable is in, the
#    link trained, nobody programmed the port);
#  - OpenSM, with an M_Key (m_key_protection_level 1, as every OpenSM
#    of this script), logs SUBNET UP with no initialization error; both
#    ports are ACTIVE with distinct LIDs and this port's LID as SM LID;
#    the other port holds the M_Key, which a Get without it reads as 0;
#    IsSM on this port only (ib_umad's issm), IsCM on both (ib_cm);
#  - sminfo from the other host names this OpenSM master; ibnetdiscover
#    finds 2 CAs and 1 switch, each CA in its own switch port; smpquery
#    answers by LID and by directed route, through the switch; ibroute
#    shows the LFT OpenSM wrote; saquery returns path records;
#  - the port counters (sysfs, read through MAD_IFC without a packet)
#    differ by exactly what an ibv_rc_pingpong put on the wire, from the
#    IBA header sizes, and perfquery by LID reads them;
#  - OpenSM killed: IsSM goes, the ports stay ACTIVE, traffic goes on;
#    OpenSM started on the other host takes over as master, LIDs kept;
#  - OpenSM back here with a guid2lid file of another LID for this port:
#    the port gets it, this host's context sees IBV_EVENT_LID_CHANGE and
#    the other's IBV_EVENT_SM_CHANGE, and a new connection works;
#  - ibping answered by a vendor-class agent (ibping -S).
# Leaves an OpenSM master on this host for the scripts after it
# (twohost.sh, perftest.sh, lossy.sh).  Prints TAP.
#   ORCA_DEV (orca0), ORCA_OPENSM_SCOPE: all (default) or bringup (SUBNET
#   UP and the ports only)
# (the functions wait_until calls look unreachable to shellcheck)
# shellcheck disable=SC2317
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"
# shellcheck source=tests/lib/pair.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pair.sh"

dev=${ORCA_DEV:-orca0}
scope=${ORCA_OPENSM_SCOPE:-all}
[[ $scope == all || $scope == bringup ]] || { echo "Bail out! ORCA_OPENSM_SCOPE must be all or bringup"; exit 1; }
port=18700
tmp=$(mktemp -d)
# OpenSM's cache (guid2lid) and logs: the guests see the host's / read-only
osm=/tmp/orca-opensm
mkdir -p "$osm"
trap 'rm -rf "$tmp"' EXIT
if [[ $scope == all ]]; then plan 27; else plan 6; fi

peer --wait 180 true
ok $? "the second guest answers over the guest link ($ORCA_PEER)"

# shellcheck source=tests/lib/sm.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/sm.sh"
# every OpenSM of this script protects the ports with one M_Key, at level
# 1: a Get without it is answered, with M_Key 0 in place of the key
sm_keys=("m_key $SM_MKEY" "m_key_protection_level 1" "m_key_lease_period 0")
cap() { printf '%d' "$(pattr cap_mask)"; }
rcap() { printf '%d' "$(rattr cap_mask)"; }
IS_SM=$((1 << 1)) IS_CM=$((1 << 16))
# rc_pp ARGS...: ibv_rc_pingpong ARGS between the hosts, server on the
# other; status 0 if both ends exit 0, the client's output in $tmp/client
rc_pp() {
    local crc
    port=$((port + 1))
    pair_server "$tmp/server" "$port" timeout -k 5 60 ibv_rc_pingpong -d "$dev" -p "$port" "$@" ||
        diag "the pingpong server did not listen"
    timeout -k 5 60 ibv_rc_pingpong -d "$dev" -p "$port" "$@" "$(pair_server_addr)" > "$tmp/client" 2>&1
    crc=$?
    wait "$PAIR_SPID" && ((crc == 0))
}

modprobe ib_umad && modprobe ib_cm && peer "modprobe ib_umad && modprobe ib_cm"
[[ $? == 0 && -c /dev/infiniband/umad0 && -c /dev/infiniband/issm0 ]]
ok $? "ib_umad and ib_cm on both hosts: /dev/infiniband/umad0 and issm0"
s=$(state_of "$(pattr state)") rs=$(state_of "$(rattr state)")
[[ $s == INIT && $rs == INIT && $(lid_of "$(pattr lid)") == 0 ]]
ok $? "before an SM: both ports INIT ($s, $rs), LID $(pattr lid), physical state $(pattr phys_state)"

# OpenSM on this host's port, in the background for the scripts after us
ga=$(port_guid) gb=$(rport_guid)
xa=$ga xb=$gb
t0=$(now_us)
sm_start here "$ga" "$osm/a.log" "${sm_keys[@]}"
subnet_up() { sm_up "$osm/a.log"; }
wait_until "$ORCA_WAIT" subnet_up
subnet_up
ok $? "OpenSM on port $ga: SUBNET UP after $(secs_since "$t0") s"
bad=$(grep -E 'ERRORS DURING INITIALIZATION|ERR (3119|3120|0F10)' "$osm/a.log")
[[ -z $bad ]]
ok $? "OpenSM logged no initialization error"
[[ -n $bad ]] && diag "$(head -n 5 <<< "$bad")" "$(tail -n 20 "$osm/a.log")"
both_active() { [[ $(state_of "$(pattr state)") == ACTIVE && $(state_of "$(rattr state)") == ACTIVE ]]; }
wait_until "$ORCA_WAIT" both_active
la=$(lid_of "$(pattr lid)") lb=$(lid_of "$(rattr lid)")
sa=$(lid_of "$(pattr sm_lid)") sb=$(lid_of "$(rattr sm_lid)")
both_active && [[ $la != 0 && $lb != 0 && $la != "$lb" && $sa == "$la" && $sb == "$la" ]]
ok $? "both ports ACTIVE, LIDs $la and $lb, SM LID $sa / $sb (this port)"
[[ $scope == all ]] || done_testing

# the other port holds the SM's M_Key: with it smpquery reads it, without
# it (protection level 1) the port answers with 0 in its place
timeout 30 smpquery -K -y "$SM_MKEY" portinfo "$lb" > "$tmp/with" 2>&1
timeout 30 smpquery -K portinfo "$lb" > "$tmp/without" 2>&1
kw=$(sed -n 's/^Mkey:\.*//p' "$tmp/with") ko=$(sed -n 's/^Mkey:\.*//p' "$tmp/without")
pw=$(sed -n 's/^ProtectBits:\.*//p' "$tmp/with")
[[ $kw == "$(printf '0x%016x' "$SM_MKEY")" && $ko == 0x0000000000000000 && $pw == 1 ]]
ok $? "the other port holds OpenSM's M_Key at protection level $pw: $kw with the key, $ko without"
[[ -n $kw ]] || diag "$(cat "$tmp/with" "$tmp/without")"

is_sm() { (( $(cap) & IS_SM )); }
wait_until "$ORCA_WAIT" is_sm
(( ($(cap) & IS_SM) && ($(cap) & IS_CM) && !($(rcap) & IS_SM) && ($(rcap) & IS_CM) ))
ok $? "capability masks: this port $(pattr cap_mask) (IsSM, IsCM), the other $(rattr cap_mask) (IsCM)"
ibstat "$dev" > "$tmp/ibstat" 2>&1
grep -q 'State: Active' "$tmp/ibstat" && grep -q 'Physical state: LinkUp' "$tmp/ibstat" &&
    grep -q "SM lid: $la\$" "$tmp/ibstat"
ok $? "ibstat: $(grep -E 'State|SM lid|Capability' "$tmp/ibstat" | tr -s '\t\n' '  ')"

peer "timeout 30 sminfo" > "$tmp/sminfo" 2>&1
grep -q "sm lid $la sm guid $xa, .*SMINFO_MASTER" "$tmp/sminfo"
ok $? "sminfo from the other host: $(< "$tmp/sminfo")"

timeout 60 ibnetdiscover > "$tmp/net" 2>&1
nca=$(grep -c '^Ca' "$tmp/net") nsw=$(grep -c '^Switch' "$tmp/net")
# the switch's lines name each CA's node GUID in a port of its own
nga=$(tr -d : < "/sys/class/infiniband/$dev/node_guid") ngb=$(peer "tr -d : < /sys/class/infiniband/$dev/node_guid")
pa=$(sed -n "s/^\[\([0-9]*\)\][[:space:]]*\"H-$nga\".*/\1/p" "$tmp/net")
pb=$(sed -n "s/^\[\([0-9]*\)\][[:space:]]*\"H-$ngb\".*/\1/p" "$tmp/net")
[[ $nca == 2 && $nsw == 1 && -n $pa && -n $pb && $pa != "$pb" ]]
ok $? "ibnetdiscover: $nca CAs, $nsw switch; this host in switch port $pa, the other in $pb"
((nca == 2 && nsw == 1)) || diag "$(cat "$tmp/net")"
swlid=$(sed -n 's/^Switch.*base port 0 lid \([0-9]*\).*/\1/p' "$tmp/net")

timeout 30 smpquery nodeinfo "$lb" > "$tmp/q" 2>&1 &&
    grep -q 'NodeType:.*Channel Adapter' "$tmp/q" && grep -q "^Guid:.*0x$ngb" "$tmp/q"
ok $? "smpquery nodeinfo by LID $lb: the other host's CA ($(grep '^Guid' "$tmp/q"))"
timeout 30 smpquery -D nodeinfo 0,1 > "$tmp/q" 2>&1 && grep -q 'NodeType:.*Switch' "$tmp/q" &&
    grep -q "LocalPort:.*$pa\$" "$tmp/q"
ok $? "smpquery -D nodeinfo 0,1: the switch, entered by its port $pa"
timeout 30 smpquery -D portinfo "0,1,$pb" > "$tmp/q" 2>&1 && grep -q "^Lid:.*$lb\$" "$tmp/q" &&
    grep -q 'LinkState:.*Active' "$tmp/q"
ok $? "smpquery -D portinfo 0,1,$pb: the other host's port through the switch, LID $lb, Active"
timeout 30 ibroute "$swlid" > "$tmp/q" 2>&1
grep -Eq "^0x0*$(printf '%x' "$la") 0*$pa " "$tmp/q" && grep -Eq "^0x0*$(printf '%x' "$lb") 0*$pb " "$tmp/q"
ok $? "ibroute $swlid: OpenSM's LFT sends LID $la to port $pa and LID $lb to port $pb"
grep -Eq "^0x" "$tmp/q" || diag "$(head -n 20 "$tmp/q")"
timeout 30 saquery -p > "$tmp/q" 2>&1
grep -Eq "dlid\.+$lb\$" "$tmp/q" && grep -Eq "dlid\.+$la\$" "$tmp/q"
ok $? "saquery -p: OpenSM's SA returns path records to both ports ($(grep -c 'PathRecord dump' "$tmp/q") records)"

# the counters: OpenSM paused so that only the pingpong moves them.  This
# port's through sysfs (ib_core reads them by MAD_IFC, no packet), the
# other's by perfquery over the fabric (QP1 to its PMA)
sysfs_counters() {   # sysfs_counters PREFIX: this port's
    local c
    for c in port_xmit_data port_rcv_data port_xmit_packets port_rcv_packets; do
        printf -v "${1}_$c" '%s' "$(pattr "counters/$c")"
    done
}
perf_counters() {    # perf_counters PREFIX: the other port's
    local c
    timeout 30 perfquery -x "$lb" 1 > "$tmp/pq" 2>&1
    for c in PortXmitData PortRcvData PortXmitPkts PortRcvPkts; do
        printf -v "${1}_$c" '%s' "$(sed -n "s/^$c:\.*//p" "$tmp/pq")"
    done
}
sw_counters() {      # sw_counters PREFIX: this host's switch port's
    local c
    timeout 30 perfquery -x "$swlid" "$pa" > "$tmp/pqs" 2>&1
    for c in PortXmitPkts PortRcvPkts; do
        printf -v "${1}_sw_$c" '%s' "$(sed -n "s/^$c:\.*//p" "$tmp/pqs")"
    done
}
pkill -STOP -x opensm
sleep_s 2
# perfquery's MADs cross this port too: its reads are outside the window
sw_counters c0
perf_counters c0
sysfs_counters c0
rc_pp -m 1024 -s 4096 -n 100
crc=$?
sysfs_counters c1
perf_counters c1
sw_counters c1
pkill -CONT -x opensm
# IBA 16.1.3.5: data counted in 4-byte words from LRH to ICRC.  Each side
# sends 100 messages of 4 packets (LRH 8, BTH 12, 1024 bytes, ICRC 4) and
# ACKs the other's 100 (LRH 8, BTH 12, AETH 4, ICRC 4).  A perfquery is
# two MADs, ClassPortInfo then PortCountersExtended: between the two
# reads the other port also sent the first's last answer and the second's
# ClassPortInfo answer, and received the second's two requests: two MADs
# each way (LRH 8, BTH 12, DETH 8, 256 bytes, ICRC 4).
words=$(( (100 * 4 * (8 + 12 + 1024 + 4) + 100 * (8 + 12 + 4 + 4)) / 4 )) pkts=$((100 * 4 + 100))
mad=$(( 2 * (8 + 12 + 8 + 256 + 4) / 4 ))
d() { echo $(( ${!2} - ${!1} )); }
# shellcheck disable=SC2154  # set by counters()
got="here xmit $(d c0_port_xmit_data c1_port_xmit_data) rcv $(d c0_port_rcv_data c1_port_rcv_data) words, $(d c0_port_xmit_packets c1_port_xmit_packets) packets"
[[ $crc == 0 && $got == "here xmit $words rcv $words words, $pkts packets" ]]
ok $? "this port's counters moved by exactly the pingpong: $got (expected $words words, $pkts packets)"
got="xmit $(d c0_PortXmitData c1_PortXmitData) rcv $(d c0_PortRcvData c1_PortRcvData) words, $(d c0_PortXmitPkts c1_PortXmitPkts) / $(d c0_PortRcvPkts c1_PortRcvPkts) packets"
[[ $got == "xmit $((words + mad)) rcv $((words + mad)) words, $((pkts + 2)) / $((pkts + 2)) packets" ]]
ok $? "perfquery -x $lb 1, twice: the other port's moved by the pingpong and two MADs each way: $got"
# the switch port this host is cabled to counts the pingpong's packets
# too: the two emulators pass them each other on a direct link, around
# orca-fabric's process (README, "Direct links between emulators"), and
# the switch adds them to its PMA counters; the perfquery reads in the
# window add their MADs, three each way
# shellcheck disable=SC2154  # set by sw_counters()
rcv=$(d c0_sw_PortRcvPkts c1_sw_PortRcvPkts) xmt=$(d c0_sw_PortXmitPkts c1_sw_PortXmitPkts)
opened=$(hostctl fabric stats | tr ' ' '\n' | sed -n 's/^direct_opened=//p')
((rcv >= pkts && rcv <= pkts + 8 && xmt >= pkts && xmt <= pkts + 8 && opened >= 1))
ok $? "perfquery -x $swlid $pa: this host's switch port moved by the pingpong's $pkts packets and a few MADs: rcv $rcv, xmit $xmt; direct links opened by the switch: $opened"

# ibping: a vendor-class agent (ibping -S) on the other host answers
peer "setsid ibping -S > /tmp/orca-ibping.out 2>&1 < /dev/null &"
# up once its agent answers one ping (not after a fixed pause)
pong() { timeout 10 ibping -c 1 "$lb" > /dev/null 2>&1; }
wait_until "$ORCA_WAIT" pong
diag "the ibping server answered after $WAITED s"
timeout 30 ibping -c 3 "$lb" > "$tmp/q" 2>&1
grep -q '3 packets transmitted, 3 received' "$tmp/q"
ok $? "ibping -c 3 $lb: $(grep -m1 -i 'pong' "$tmp/q"); $(grep 'transmitted' "$tmp/q")"
peer "pkill -x ibping"

# the SM goes: its port is no SM any more, the subnet keeps working
pkill -TERM -x opensm
no_sm() { ! pgrep -x opensm > /dev/null && (( !($(cap) & IS_SM) )); }
wait_until "$ORCA_WAIT" no_sm
no_sm && both_active && [[ $(lid_of "$(pattr lid)") == "$la" && $(lid_of "$(rattr lid)") == "$lb" ]]
ok $? "OpenSM stopped: IsSM cleared ($(pattr cap_mask)), both ports still ACTIVE with LIDs $la, $lb"
rc_pp -n 20 -c
ok $? "traffic goes on without an SM: ibv_rc_pingpong -c between the hosts"

# OpenSM on the other host takes over
t0=$(now_us)
sm_start peer "$gb" "$osm/b.log" "${sm_keys[@]}"
b_master() { [[ $(lid_of "$(pattr sm_lid)") == "$lb" ]] && peer "grep -q 'SUBNET UP' $osm/b.log"; }
wait_until "$ORCA_WAIT" b_master
b_master
ok $? "OpenSM on the other host: SUBNET UP, SM LID $lb here after $(secs_since "$t0") s"
b_master || diag "SM LID here $(pattr sm_lid)" "$(peer "tail -n 30 $osm/b.log.out $osm/b.log")"
timeout 30 sminfo > "$tmp/sminfo" 2>&1
grep -q "sm lid $lb sm guid $xb, .*SMINFO_MASTER" "$tmp/sminfo" && both_active &&
    [[ $(lid_of "$(pattr lid)") == "$la" && $(lid_of "$(rattr lid)") == "$lb" ]]
ok $? "sminfo: $(< "$tmp/sminfo"); LIDs kept ($la, $lb)"

# a new LID: OpenSM back here, its guid2lid file giving this port another
peer "pkill -TERM -x opensm"
b_gone() { ! peer "pgrep -x opensm" > /dev/null; }
wait_until "$ORCA_WAIT" b_gone
na=$((la + 32))
# (OpenSM reads the GUID as 16 hex digits)
printf '0x%016x 0x%04x 0x%04x\n' "$ga" "$na" "$na" > "$osm/guid2lid"
stdbuf -oL timeout $((2 * ORCA_WAIT)) ibv_asyncwatch -d "$dev" > "$tmp/ev_a" 2>&1 &
wa=$!
peer "stdbuf -oL timeout $((2 * ORCA_WAIT)) ibv_asyncwatch -d $dev" > "$tmp/ev_b" 2>&1 &
wb=$!
watching() { grep -q 'async event FD' "$tmp/ev_a" && grep -q 'async event FD' "$tmp/ev_b"; }
# the other host's sees the SM move (its SM LID changes), this one its LID
wait_until "$ORCA_WAIT" watching || diag "ibv_asyncwatch did not start: $(cat "$tmp/ev_a" "$tmp/ev_b")"
t0=$(now_us)
sm_start here "$ga" "$osm/c.log" "${sm_keys[@]}"
new_lids() { both_active && [[ $(lid_of "$(pattr lid)") == "$na" && $(lid_of "$(rattr sm_lid)") == "$na" ]]; }
wait_until "$ORCA_WAIT" new_lids
new_lids || diag "$(grep -E 'ERR|0x02 ->' "$osm/c.log" | tail -n 20)"
new_lids
ok $? "OpenSM with a guid2lid of another LID: this port ACTIVE with LID $(lid_of "$(pattr lid)") (wanted $na), the other's SM LID $(lid_of "$(rattr sm_lid)") after $(secs_since "$t0") s"
lid_event() { grep -q 'LID_CHANGE' "$tmp/ev_a" && grep -q 'SM_CHANGE' "$tmp/ev_b"; }
wait_until "$ORCA_WAIT" lid_event
lid_event
ok $? "events: here $(grep -o 'IBV_EVENT_[A-Z_]*' "$tmp/ev_a" | tr '\n' ' '), there $(grep -o 'IBV_EVENT_[A-Z_]*' "$tmp/ev_b" | tr '\n' ' ')"
kill "$wa" "$wb" 2>/dev/null
wait "$wa" "$wb" 2>/dev/null
rc_pp -n 20 -c
crc=$?
# the direct link of the old LIDs went with the LFTs the SM rewrote: the
# new connection got a new one
reopened=$(hostctl fabric stats | tr ' ' '\n' | sed -n 's/^direct_opened=//p')
((crc == 0 && reopened > opened))
ok $? "a new connection over the new LIDs: ibv_rc_pingpong -c ($(grep -m1 'local address' "$tmp/client")); direct links opened $opened -> $reopened"
done_testing
