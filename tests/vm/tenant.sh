#!/bin/bash
# Guest test (vm-twohost-ece, first): the second host is a tenant whose port the host
# policy pins (its emulator runs with port_pin=lid,sm, orca.rst "Host
# policy"), and its root attacks the subnet with stock tools while the
# real OpenSM, in this guest, protects every port with an M_Key
# (m_key_protection_level 2).  Each attempt must be refused or dropped
# and show in the tenant emulator's counters, and the tenant's own
# traffic must go on:
#  - OpenSM brings the subnet up through the tenant's firmware, which
#    answers the SM's SMPs itself (pin_smp_answered): the SM reads the
#    tenant port's M_Key with its key, the tenant reads 0 in its place;
#  - ibportstate -D 0 1 lid N on the tenant, N this port's LID (to take
#    it, through its own SMA): refused, the LID stays (pin_mad_refused);
#  - ibportstate to this port's LID, disable, even with the SM's M_Key:
#    the tenant's QP0 sends nothing, this port stays ACTIVE with no M_Key
#    violation (pin_qp0_dropped);
#  - opening issm0 (IsSM, to become an SM): refused (pin_cap_refused);
#  - UD from the tenant with source path bits 0x7f in its address handle
#    (a source LID other than its own): the device cuts them to the LMC
#    the SM gave (0), so every packet here comes from the tenant's LID;
#  - each of those told to the SM by the tenant's firmware as orca's own
#    notice (vendor trap, DeviceID 1, 2, 3), which OpenSM logs;
#  - afterwards: both ports ACTIVE with their LIDs, OpenSM still master,
#    ibv_rc_pingpong -c between the hosts;
#  - a wrong M_Key gets no PortInfo from the tenant's port, whose
#    firmware sends trap 256 to the SM (OpenSM's log).
# Leaves that OpenSM master on this host for the scripts after it
# (twohost.sh, rdmacm.sh in vm-twohost-ece).
# Partitions the switch enforces, and its traps: partition.sh.
# Run in the first guest of
#   scripts/vm2.sh --sm none --emu-set-b port_pin=lid,sm
# Prints TAP; exit status = number of failures.
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
MKEY=$SM_MKEY
tmp=$(mktemp -d)
# OpenSM's cache and logs (the guests see the host's / read-only)
osm=/tmp/orca-opensm
port=18900
trap 'rm -rf "$tmp"' EXIT
plan 14

pair_remote || { echo "Bail out! run in the first guest of scripts/vm2.sh"; exit 1; }
peer --wait "$ORCA_WAIT" true > /dev/null 2>&1 || { echo "Bail out! the second guest does not answer"; exit 1; }
[[ -x $probe ]] || { echo "Bail out! no $probe (make -C tests)"; exit 1; }
klog_mark_both "orca-test: tenant.sh start"
stat0=$(emu_stat_on peer pin_smp_answered)
[[ $stat0 =~ ^[0-9]+$ ]]
ok $? "the tenant's emulator counts what its host policy stops (pin_smp_answered $stat0)"

modprobe ib_umad && modprobe ib_cm && peer "modprobe ib_umad && modprobe ib_cm"
ok $? "ib_umad and ib_cm on both hosts"

# ---------------------------------------------------------------- the SM
ga=$(port_guid)
t0=$(now_us)
sm_start here "$ga" "$osm/opensm.log" "m_key $MKEY" "m_key_protection_level 2" \
    "m_key_lease_period 0"
both_active() { [[ $(state_of "$(pattr state)") == ACTIVE && $(state_of "$(rattr state)") == ACTIVE ]]; }
sm_ready() { sm_up "$osm/opensm.log" && both_active; }
wait_until "$ORCA_WAIT" sm_ready
la=$(lid_of "$(pattr lid)") lb=$(lid_of "$(rattr lid)")
answered=$(emu_stat_on peer pin_smp_answered)
sm_ready && ((la && lb && la != lb && answered > stat0))
ok $? "OpenSM (m_key $MKEY, protection level 2) brought the subnet up through the tenant's firmware: LIDs $la and $lb, $((answered - stat0)) SMPs answered there ($(secs_since "$t0") s)"
sm_ready || diag "$(tail -n 20 "$osm/opensm.log" "$osm/opensm.log.out" 2> /dev/null)"

# the SM sees the tenant port's M_Key with its key; the tenant sees 0
# (-K: smpquery shows keys only when asked)
smpquery -K -y "$MKEY" portinfo "$lb" > "$tmp/sm-view" 2>&1
peer "smpquery -K -D portinfo 0" > "$tmp/own-view" 2>&1
sm_key=$(sed -n 's/^Mkey:\.*//p' "$tmp/sm-view") own_key=$(sed -n 's/^Mkey:\.*//p' "$tmp/own-view")
own_prot=$(sed -n 's/^ProtectBits:\.*//p' "$tmp/own-view")
[[ $sm_key =~ ^0x[0-9a-f]+$ && $own_key =~ ^0x[0-9a-f]+$ ]] &&
    ((sm_key == MKEY && own_key == 0 && own_prot == 2))
ok $? "the tenant's port holds the SM's M_Key (the SM reads $sm_key) and hides it from its host (which reads $own_key, protection $own_prot)"
[[ $sm_key == "$(printf '0x%016x' "$MKEY")" && $own_key == 0x0000000000000000 ]] ||
    diag "$(cat "$tmp/sm-view" "$tmp/own-view")"

# ---------------------------------------------------------------- attacks
# 1. this port's LID for its own, through its own SMA
r0=$(emu_stat_on peer pin_mad_refused)
peer "timeout 30 ibportstate -D 0 1 lid $la" > "$tmp/lid" 2>&1
rc=$?
r1=$(emu_stat_on peer pin_mad_refused)
((rc != 0 && $(lid_of "$(rattr lid)") == lb && r1 > r0))
ok $? "ibportstate -D 0 1 lid $la (this port's) on the tenant: refused (exit $rc), its LID still $(rattr lid), pin_mad_refused $r0 -> $r1"
((rc)) || diag "$(cat "$tmp/lid")"

# 2. this port down, LID-routed, without and with the SM's M_Key
q0=$(emu_stat_on peer pin_qp0_dropped)
smpquery -y "$MKEY" portinfo "$la" > "$tmp/a-before" 2>&1
mv0=$(sed -n 's/^MkeyViolations:\.*//p' "$tmp/a-before")
peer "timeout 30 ibportstate $la 1 disable" > "$tmp/down" 2>&1
rc1=$?
peer "timeout 30 ibportstate -y $MKEY $la 1 disable" >> "$tmp/down" 2>&1
rc2=$?
q1=$(emu_stat_on peer pin_qp0_dropped)
smpquery -y "$MKEY" portinfo "$la" > "$tmp/a-after" 2>&1
mv1=$(sed -n 's/^MkeyViolations:\.*//p' "$tmp/a-after")
[[ $(state_of "$(pattr state)") == ACTIVE && $mv0 =~ ^[0-9]+$ && $mv1 =~ ^[0-9]+$ ]] &&
    ((rc1 && rc2 && q1 >= q0 + 2 && mv1 == mv0))
ok $? "ibportstate $la 1 disable from the tenant, with and without the M_Key: exit $rc1 and $rc2, this port $(state_of "$(pattr state)"), pin_qp0_dropped $q0 -> $q1, M_Key violations here $mv0 -> $mv1"

# 3. IsSM: the tenant's root opens issm0 to become an SM
c0=$(emu_stat_on peer pin_cap_refused)
peer "exec 3< /dev/infiniband/issm0" > "$tmp/issm" 2>&1
rc=$?
c1=$(emu_stat_on peer pin_cap_refused)
((rc != 0 && c1 > c0 && !($(printf '%d' "$(rattr cap_mask)") & 2)))
ok $? "opening issm0 on the tenant: refused (exit $rc: $(tr '\n' ' ' < "$tmp/issm")), IsSM not set ($(rattr cap_mask)), pin_cap_refused $c0 -> $c1"

# 4. another source LID in its packets: UD with path bits 0x7f
port=$((port + 1))
"$probe" -d "$dev" --server "$port" --pkey 0xffff -n 20 > "$tmp/probe" 2>&1 &
ps=$!
wait_until "$ORCA_WAIT" listening_or_ended "$port" "$ps"
peer "timeout -k 5 120 $probe -d $dev --connect $ORCA_SELF_ADDR:$port --pkey 0xffff -n 20 --path-bits 0x7f" > "$tmp/sender" 2>&1
wait "$ps"
rc=$?
grep -q "received 20 of 20 .*; from LID $lb;" "$tmp/probe" && ((rc == 0))
ok $? "UD from the tenant with source path bits 0x7f (LMC $(rattr lid_mask_count)): every packet from its own LID $lb: $(grep -h received "$tmp/probe")"
((rc == 0)) || diag "$(cat "$tmp/sender")"

# each attempt reached the SM all the same: the tenant's firmware sends
# orca's own notices (IsGeneric 0, VendorID 0x00ca7a; DeviceID 1 a Set
# refused, 2 an SMP dropped, 3 IsSM refused), which OpenSM logs
notices() {
    local d
    for d in 1 2 3; do
        grep -qi "Vendor Notice type:2 vend:0x00CA7A dev:$d from LID:$lb " "$osm/opensm.log" || return 1
    done
}
wait_until "$ORCA_WAIT" notices
notices
ok $? "each attempt told to the SM: $(grep -i -o 'Vendor Notice type:2 vend:0x00CA7A dev:[0-9]* from LID:[0-9]*' "$osm/opensm.log" | sort -u | tr '\n' ';')"

# ---------------------------------------------------------------- after
# (this port is protected at level 2 too: a local Get needs the key)
sminfo -y "$MKEY" > "$tmp/sminfo" 2>&1
both_active && [[ $(lid_of "$(pattr lid)") == "$la" && $(lid_of "$(rattr lid)") == "$lb" ]] &&
    grep -q "sm lid $la .*SMINFO_MASTER" "$tmp/sminfo"
ok $? "afterwards: both ports ACTIVE with LIDs $la and $lb, OpenSM master ($(cat "$tmp/sminfo"))"

port=$((port + 1))
pair_server "$tmp/server" "$port" timeout -k 5 60 ibv_rc_pingpong -d orca0 -p "$port" -n 50 -c ||
    diag "the pingpong server did not listen"
timeout -k 5 60 ibv_rc_pingpong -d "$dev" -p "$port" -n 50 -c "$ORCA_PEER_ADDR" > "$tmp/client" 2>&1
crc=$?
wait "$PAIR_SPID"
src=$?
((crc == 0 && src == 0)) && grep -q ' bytes in ' "$tmp/client"
ok $? "the tenant's traffic goes on: ibv_rc_pingpong -c (exit $crc / $src): $(grep ' bytes in ' "$tmp/client")"

# the M_Key still holds there: a wrong key gets no answer, and the
# tenant's firmware tells the SM (trap 256, OpenSM's log)
peer "true" && ! timeout 20 smpquery -y 0x1 portinfo "$lb" > "$tmp/wrong" 2>&1
ok $? "a wrong M_Key still gets no PortInfo from the tenant's port"
trap256() { grep -q "num:256 .*from LID:$lb " "$osm/opensm.log"; }
wait_until "$ORCA_WAIT" trap256
trap256
ok $? "the tenant's firmware trapped the bad M_Key to the SM: $(grep -m1 'num:256' "$osm/opensm.log" | sed 's/.*-> //')"

ok_no_oopses_both "orca-test: tenant.sh start"
done_testing
