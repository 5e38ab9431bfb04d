#!/bin/bash
# Guest test (vm-twohost-ece, last): partitions that hold although a
# host's root rewrites its own P_Key table.  The second host's policy
# pins its LID and SM rights but leaves its P_Keys to the SM, as a
# physical port's are (port_pin=lid,sm); OpenSM, restarted here with a
# partitions.conf, puts this port in 0x8001 and the other in 0x8002 (both
# full members of the default, limited members of 0x0003) and copies each CA's table into its
# switch port, enforcing both ways (part_enforce both), as it does for a
# switch whose SwitchInfo says PartitionEnforcementCap.  Then:
#  - IPoIB (up since rdmacm.sh) rejoins its groups at this new SM: both
#    ports in the broadcast group of its SA, ping over ib0 after a
#    neighbour flush;
#  - smpquery shows the enforcement the switch does: SwitchInfo's
#    PartEnforceCap and In/OutboundPartEnf, the tenant's switch port's
#    PartEnforceInb/Outb and P_Keys;
#  - the default partition carries UD between the hosts (ud_probe: each
#    of 50 probes in, checked, counted once a marker sent behind them is
#    in, so no pause decides anything);
#  - the tenant's root puts 0x8001 in its own table (tests/tools/pkey_set,
#    a local SMP through ib_umad): the SMA takes it, and its 50 probes to
#    this host's QP in 0x8001 are dropped where they enter the switch
#    (PortRcvConstraintErrors of its switch port, perfquery), none in;
#  - this host's 50 probes in 0x8001 to the tenant's QP on that P_Key are
#    dropped where they would leave the switch (PortXmitConstraintErrors);
#  - the switch tells the SM: OpenSM's log has trap 259 ("Bad P_Key
#    switch external port") from the switch's LID;
#  - the CAs check what the switch does not: both ports are limited
#    members of 0x0003, whose packets the switch passes (it judges the
#    partition, not the membership); this port drops the tenant's 50
#    (two limited members), counts them in its P_KeyViolations and
#    traps 257 to the SM; 50 probes in the default partition with a
#    wrong Q_Key are dropped here too, counted in Q_KeyViolations and
#    trapped as 258;
#  - the tenant restores its table; both ports ACTIVE, the default
#    partition still carries all 50;
#  - OpenSM runs with sweep_interval 0 (it sweeps only when told): the
#    tenant's link goes down and up (hostctl port-down / port-up in its
#    emulator) and only the switch's trap 128 makes OpenSM bring the port
#    back to ACTIVE.
# Run in the first guest of
#   scripts/vm2.sh --sm none --emu-set-b port_pin=lid,sm
# after tenant.sh (the ports hold its OpenSM's M_Key).  Prints TAP; exit
# status = number of failures.
# shellcheck disable=SC2317  # conditions called through wait_until
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
# shellcheck source=tests/lib/tap.sh
. "$HERE/../lib/tap.sh"
# shellcheck source=tests/lib/pair.sh
. "$HERE/../lib/pair.sh"
# shellcheck source=tests/lib/sm.sh
. "$HERE/../lib/sm.sh"

dev=${ORCA_DEV:-orca0}
build=${ORCA_BUILD:-$HERE/../../build}
probe=$build/tests/ud_probe
pkey_set=$build/tests/pkey_set
osm=/tmp/orca-opensm
port=19100
N=50
PA=0x8001 PB=0x8002 PL=0x0003
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plan 15

pair_remote || { echo "Bail out! run in the first guest of scripts/vm2.sh"; exit 1; }
peer --wait "$ORCA_WAIT" true > /dev/null 2>&1 || { echo "Bail out! the second guest does not answer"; exit 1; }
[[ -x $probe && -x $pkey_set ]] || { echo "Bail out! no $probe or $pkey_set (make -C tests)"; exit 1; }
klog_mark_both "orca-test: partition.sh start"
both_active() { [[ $(state_of "$(pattr state)") == ACTIVE && $(state_of "$(rattr state)") == ACTIVE ]]; }

# has_pkey WHERE KEY: KEY in port 1's table here / there (sysfs)
has_pkey() {
    local cmd="cat /sys/class/infiniband/$dev/ports/1/pkeys/* 2> /dev/null" t
    # (all of it first: grep -q would close the pipe on peer)
    if [[ $1 == here ]]; then t=$(eval "$cmd"); else t=$(peer "$cmd"); fi
    grep -qx "$2" <<< "$t"
}
# probe FROM KEY [ARG...]: ud_probe with N probes on P_Key KEY from FROM
# (here or peer) to the other host, the sender given ARGs too (--qkey Q);
# the server's line into $tmp/probe.  Exit status: the server's (0: the
# marker came in, every probe in was right)
probe() {
    local from=$1 key=$2 src
    shift 2
    port=$((port + 1))
    if [[ $from == peer ]]; then
        "$probe" -d "$dev" --server "$port" --pkey "$key" -n "$N" > "$tmp/probe" 2>&1 &
        local s=$!
        wait_until "$ORCA_WAIT" listening_or_ended "$port" "$s"
        peer "timeout -k 5 120 $probe -d $dev --connect $ORCA_SELF_ADDR:$port --pkey $key -n $N $*" > "$tmp/sender" 2>&1
        wait "$s"
        src=$?
    else
        pair_server "$tmp/probe" "$port" timeout -k 5 120 "$probe" -d "$dev" --server "$port" --pkey "$key" -n "$N" ||
            diag "the probe server did not listen"
        timeout -k 5 120 "$probe" -d "$dev" --connect "$ORCA_PEER_ADDR:$port" --pkey "$key" -n "$N" "$@" > "$tmp/sender" 2>&1
        wait "$PAIR_SPID"
        src=$?
    fi
    return "$src"
}
# received: the count the last probe's server printed; said: its line
received() { sed -n 's/.*received \([0-9]*\) of.*/\1/p' "$tmp/probe"; }
said() { grep -h 'received' "$tmp/probe"; }
# swcount NAME: the tenant's switch port's PortCounters field NAME
swcount() { perfquery "$swlid" "$pb" 2> /dev/null | sed -n "s/^$1:\.*//p"; }
# viol NAME: this port's PortInfo field NAME (PkeyViolations, QkeyViolations)
viol() { smpquery -y "$SM_MKEY" portinfo "$(lid_of "$(pattr lid)")" 2> /dev/null | sed -n "s/^$1:\.*//p"; }

# ---------------------------------------------------------------- the SM
cat > "$osm/partitions.conf" <<EOF
Default=0x7fff, ipoib : ALL=full ;
tenant_a=$PA : $(port_guid)=full ;
tenant_b=$PB : $(rport_guid)=full ;
shared_limited=$PL : $(port_guid)=limited, $(rport_guid)=limited ;
EOF
pkill -TERM -x opensm
gone() { ! pgrep -x opensm > /dev/null; }
wait_until "$ORCA_WAIT" gone
t0=$(now_us)
sm_start here "$(port_guid)" "$osm/partition.log" "m_key $SM_MKEY" "m_key_protection_level 2" \
    "m_key_lease_period 0" "partition_config_file $osm/partitions.conf" "part_enforce both" \
    "sweep_interval 0"
tables() {
    sm_up "$osm/partition.log" && both_active && has_pkey here "$PA" && has_pkey peer "$PB" &&
        has_pkey here 0xffff && has_pkey peer 0xffff && ! has_pkey here "$PB" && ! has_pkey peer "$PA" &&
        has_pkey here "$PL" && has_pkey peer "$PL"
}
wait_until "$ORCA_WAIT" tables
tables
ok $? "OpenSM with partitions.conf (this port $PA, the other $PB, both full in the default, limited in $PL): SUBNET UP and both tables so after $(secs_since "$t0") s"
tables || diag "here: $(cat /sys/class/infiniband/"$dev"/ports/1/pkeys/* | sort -u | tr '\n' ' ')" \
    "$(tail -n 20 "$osm/partition.log" "$osm/partition.log.out" 2> /dev/null)"

# IPoIB rejoins at the new SM: its first sweep asks each port to
# reregister (ClientReregister, in the ports' CapabilityMask), ib_sa
# tells IPoIB, which joins its groups again; the new SA then has both
# ports in the broadcast group and ARP crosses the switch.  (rdmacm.sh
# left ib0 up, 10.78.0.1 here and .2 there.)
bcast=ff12:401b:ffff::ffff:ffff
# the broadcast group's member GIDs, as the SA has them (its records
# name members to a trusted requester only: OpenSM's SM_Key, 1 by default)
bmembers() {
    saquery --smkey 1 -m 2> /dev/null | sed 's/^[[:space:]]*//; s/\.\.*/ /' |
        awk -v g="$bcast" '$1 == "MGID" { m = $2 } $1 == "PortGid" && m == g { print $2 }' | sort -u
}
joined() { (($(bmembers | wc -l) >= 2)); }
if [[ -e /sys/class/net/ib0 ]] && peer "test -e /sys/class/net/ib0"; then
    wait_until "$ORCA_WAIT" joined
    ip neigh flush dev ib0
    peer "ip neigh flush dev ib0"
    joined && timeout 30 ping -c 3 -W 5 10.78.0.2 > "$tmp/ping" 2>&1
    ok $? "IPoIB rejoined at the new SM: members of $bcast in its SA $(bmembers | tr '\n' ' '), $(grep -so '[0-9]* received' "$tmp/ping") of 3 pings after a neighbour flush"
    joined || diag "$(saquery --smkey 1 -m 2>&1 | grep -E 'MGID|PortGid|JoinState')" \
        "$(grep -h 'client-reregister' "$ORCA_JOB/emu.log" "${ORCA_JOB%-a}-b/emu.log" 2> /dev/null)" \
        "$(peer "dmesg | grep -i -E 'ib0|ipoib|multicast' | tail -n 8")"
else
    skip "IPoIB rejoined at the new SM" "no ib0 on both hosts (rdmacm.sh brings it up)"
fi

# ---------------------------------------------------------------- the switch
# (the ports' PortInfo needs the M_Key at protection level 2)
timeout 60 ibnetdiscover -y "$SM_MKEY" > "$tmp/net" 2>&1
ngb=$(peer "tr -d : < /sys/class/infiniband/$dev/node_guid")
pb=$(sed -n "s/^\[\([0-9]*\)\][[:space:]]*\"H-$ngb\".*/\1/p" "$tmp/net")
swlid=$(sed -n 's/^Switch.*base port 0 lid \([0-9]*\).*/\1/p' "$tmp/net")
timeout 30 smpquery -y "$SM_MKEY" switchinfo "$swlid" > "$tmp/si" 2>&1
timeout 30 smpquery -y "$SM_MKEY" portinfo "$swlid" "$pb" > "$tmp/pi" 2>&1
timeout 30 smpquery -y "$SM_MKEY" pkeys "$swlid" "$pb" > "$tmp/pk" 2>&1
field() { sed -n "s/^$1:\.*//p" "$2"; }
[[ -n $pb && -n $swlid && $(field PartEnforceCap "$tmp/si") == 64 && $(field InboundPartEnf "$tmp/si") == 1 &&
    $(field OutboundPartEnf "$tmp/si") == 1 ]]
rc=$?
((rc)) && diag "$(cat "$tmp/net" "$tmp/si")"
((rc == 0))
ok $? "smpquery switchinfo $swlid: PartEnforceCap $(field PartEnforceCap "$tmp/si"), InboundPartEnf $(field InboundPartEnf "$tmp/si"), OutboundPartEnf $(field OutboundPartEnf "$tmp/si") (the tenant in switch port ${pb:-?})"
[[ $(field PartEnforceInb "$tmp/pi") == 1 && $(field PartEnforceOutb "$tmp/pi") == 1 &&
    $(field FilterRawInb "$tmp/pi") == 0 ]] && grep -qi "$PB" "$tmp/pk" && grep -qi 0xffff "$tmp/pk" &&
    ! grep -qi "$PA" "$tmp/pk"
ok $? "the tenant's switch port enforces both ways (PartEnforceInb $(field PartEnforceInb "$tmp/pi"), PartEnforceOutb $(field PartEnforceOutb "$tmp/pi")) with its CA's P_Keys: $(grep -o '0x[0-9a-f]\{4\}' "$tmp/pk" | grep -v 0x0000 | tr '\n' ' ')"

# ---------------------------------------------------------------- traffic
probe peer 0xffff
rc=$?
((rc == 0 && $(received) == N))
ok $? "the default partition carries UD from the tenant: $(said)"

# ---------------------------------------------------------------- attacks
# the tenant's root takes this host's partition into a free entry
idx=$(peer "cd /sys/class/infiniband/$dev/ports/1/pkeys && grep -lx 0x0000 * | sort -n | head -n 1")
peer "$pkey_set -d $dev ${idx:-1} $PA" > "$tmp/set" 2>&1
rc=$?
((rc == 0)) && has_pkey peer "$PA"
ok $? "the tenant's root puts $PA in its own entry $idx (pkey_set, a local SMP): $(cat "$tmp/set")"

r0=$(swcount PortRcvConstraintErrors)
probe peer "$PA"
rc=$?
r1=$(swcount PortRcvConstraintErrors)
[[ $r0 =~ ^[0-9]+$ && $r1 =~ ^[0-9]+$ ]] && ((rc == 0 && $(received) == 0 && r1 >= r0 + N))
ok $? "its $N probes in $PA stop where they enter the switch: $(said); PortRcvConstraintErrors of switch port $pb $r0 -> $r1"
((rc == 0)) || diag "$(cat "$tmp/sender")"

# the switch's trap 259, which OpenSM logs (and represses)
trapped() { grep -q "num:$1 .*from LID:$swlid " "$osm/partition.log"; }
wait_until "$ORCA_WAIT" trapped 259
trapped 259
ok $? "the switch trapped it to the SM: $(grep -m1 'num:259' "$osm/partition.log" | sed 's/.*-> //')"

x0=$(swcount PortXmitConstraintErrors)
probe here "$PA"
rc=$?
x1=$(swcount PortXmitConstraintErrors)
[[ $x0 =~ ^[0-9]+$ && $x1 =~ ^[0-9]+$ ]] && ((rc == 0 && $(received) == 0 && x1 >= x0 + N))
ok $? "this host's $N probes in $PA to the tenant's QP on it stop where they would leave the switch: $(said); PortXmitConstraintErrors $x0 -> $x1"
((rc == 0)) || diag "$(cat "$tmp/sender")"

# ---------------------------------------------------------------- the CAs
# what the switch lets through and the end port must drop (IBA 10.9.3):
# two limited members of one partition, and a wrong Q_Key
la=$(lid_of "$(pattr lid)")
catrap() { grep -q "num:$1 .*from LID:$la " "$osm/partition.log"; }
v0=$(viol PkeyViolations)
probe peer "$PL"
rc=$?
v1=$(viol PkeyViolations)
# (a trap only for what was dropped)
[[ $v1 =~ ^[0-9]+$ ]] && ((v1 > v0)) && wait_until "$ORCA_WAIT" catrap 257
[[ $v0 =~ ^[0-9]+$ && $v1 =~ ^[0-9]+$ ]] && ((rc == 0 && $(received) == 0 && v1 >= v0 + N)) && catrap 257
ok $? "the tenant's $N probes in $PL (both limited members) cross the switch and stop at this port: $(said); its PkeyViolations $v0 -> $v1, trap 257 to the SM: $(grep -m1 'num:257' "$osm/partition.log" | sed 's/.*-> //')"
((rc == 0)) || diag "$(cat "$tmp/sender")"

v0=$(viol QkeyViolations)
probe peer 0xffff --qkey 0x0badf00d
rc=$?
v1=$(viol QkeyViolations)
[[ $v1 =~ ^[0-9]+$ ]] && ((v1 > v0)) && wait_until "$ORCA_WAIT" catrap 258
[[ $v0 =~ ^[0-9]+$ && $v1 =~ ^[0-9]+$ ]] && ((rc == 0 && $(received) == 0 && v1 >= v0 + N)) && catrap 258
ok $? "its $N probes with a wrong Q_Key stop at this port's QP: $(said); QkeyViolations $v0 -> $v1, trap 258 to the SM: $(grep -m1 'num:258' "$osm/partition.log" | sed 's/.*-> //')"
((rc == 0)) || diag "$(cat "$tmp/sender")"

# ---------------------------------------------------------------- after
peer "$pkey_set -d $dev ${idx:-1} 0x0000" > "$tmp/set" 2>&1
rc=$?
((rc == 0)) && ! has_pkey peer "$PA"
ok $? "the tenant's table back as the SM made it: $(cat "$tmp/set")"

probe peer 0xffff
rc=$?
((rc == 0 && $(received) == N)) && both_active
ok $? "both ports ACTIVE and the default partition still carries all: $(said)"

# trap 128: the tenant's link down and up, and OpenSM sweeps only when
# the switch says so
n128=$(grep -c 'num:128 ' "$osm/partition.log")
peer "hostctl port-down" > /dev/null
down() { [[ $(state_of "$(rattr state)") == DOWN ]]; }
wait_until "$ORCA_WAIT" down
peer "hostctl port-up" > /dev/null
t0=$(now_us)
wait_until "$ORCA_WAIT" both_active
both_active && (($(grep -c 'num:128 ' "$osm/partition.log") > n128))
ok $? "the tenant's link down and up: ACTIVE again after $(secs_since "$t0") s through the switch's trap 128 (sweep_interval 0): $(grep -m1 'num:128' "$osm/partition.log" | sed 's/.*-> //')"

ok_no_oopses_both "orca-test: partition.sh start"
done_testing
