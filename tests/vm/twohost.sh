#!/bin/bash
# Guest test, first guest of scripts/vm2.sh: two hosts, one orca device
# each, joined by orca-fabric; the second guest is driven through
# tests/lib/peer.
#  - the subnet manager gave both ports a LID, distinct, the same SM LID,
#    and the ports are ACTIVE;
#  - ibv_rc_pingpong, ibv_uc_pingpong, ibv_ud_pingpong, ibv_srq_pingpong
#    between the hosts, every received buffer validated (-c);
#  - tests/tools/twohost: SEND, RDMA WRITE/READ, atomics, immediates and UD
#    between the hosts, every byte checked by its receiver, and ECE: both
#    sides read the intersection of the two devices' offers
#    (ORCA_ECE_EXPECT: the expected intersection, given by the stage);
#  - the other port goes down (hostctl port-down on its emulator): its
#    context sees IBV_EVENT_PORT_ERR, an RC client here ends in "transport
#    retry counter exceeded"; port-up: IBV_EVENT_PORT_ACTIVE, the same LID,
#    and traffic again;
#  - rxe over the guest link (the comparison of make bench): rxe0 on each
#    guest, ibv_rc_pingpong -c between them.
# Prints TAP.
#   ORCA_DEV (orca0), ORCA_ECE_EXPECT, ORCA_TWOHOST_TIMEOUT (120 s per run),
#   ORCA_TWOHOST_SCOPE: all (default), or ece: only the LIDs and
#   tests/tools/twohost with its ECE check (vm-twohost-ece, whose devices
#   differ from vm-twohost's in their ECE offers alone)
# (the functions wait_until calls look unreachable to shellcheck)
# shellcheck disable=SC2317
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"
# shellcheck source=tests/lib/pair.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pair.sh"

dev=${ORCA_DEV:-orca0}
limit=${ORCA_TWOHOST_TIMEOUT:-120}
build=${ORCA_BUILD:-$(dirname "${BASH_SOURCE[0]}")/../../build}
port=18800
scope=${ORCA_TWOHOST_SCOPE:-all}
[[ $scope == all || $scope == ece ]] || { echo "Bail out! ORCA_TWOHOST_SCOPE must be all or ece, not '$scope'"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [[ $scope == all ]]; then plan 16; else plan 5; fi

peer --wait 180 true
ok $? "the second guest answers over the guest link ($ORCA_PEER)"

# devinfo FIELD (here) / rdevinfo FIELD (on the peer): port 1's value
devinfo() { ibv_devinfo -d "$dev" -i 1 | sed -n "s/^[[:space:]]*$1:[[:space:]]*//p" | head -n 1; }
rdevinfo() { peer "ibv_devinfo -d $dev -i 1" | sed -n "s/^[[:space:]]*$1:[[:space:]]*//p" | head -n 1; }
# the SM may still be assigning: wait for both ports (up to ORCA_WAIT s)
both_active() { [[ $(devinfo state) == PORT_ACTIVE* && $(rdevinfo state) == PORT_ACTIVE* ]]; }
wait_until "$ORCA_WAIT" both_active
diag "both ports ACTIVE after $WAITED s"
la=$(devinfo port_lid) lb=$(rdevinfo port_lid)
sa=$(devinfo sm_lid) sb=$(rdevinfo sm_lid)
[[ $(devinfo state) == PORT_ACTIVE* && $(rdevinfo state) == PORT_ACTIVE* ]]
ok $? "both ports ACTIVE ($(devinfo state), $(rdevinfo state))"
[[ -n $la && -n $lb && $la != 0 && $lb != 0 && $la != "$lb" && -n $sa && $sa != 0 && $sa == "$sb" ]]
ok $? "the subnet manager gave distinct LIDs ($la, $lb) and one SM LID ($sa, $sb)"

# pp PROG ARGS...: a pingpong between the hosts, server on the peer
pp() {
    local p=$1 t0 crc src
    shift
    port=$((port + 1))
    if ! pair_server "$tmp/server" "$port" timeout -k 5 "$limit" "$p" -d "$dev" -p "$port" "$@"; then
        fail "$p $*: the server on the other host did not listen"
        return
    fi
    t0=$(now_us)
    timeout -k 5 "$limit" "$p" -d "$dev" -p "$port" "$@" "$(pair_server_addr)" > "$tmp/client" 2>&1
    crc=$?
    wait "$PAIR_SPID"
    src=$?
    [[ $crc == 0 && $src == 0 ]]
    ok $? "$p $* between the hosts: both exit 0 in $(secs_since "$t0") s: $(grep -m1 'bytes in' "$tmp/client")"
    ((crc || src)) && diag "client rc $crc, server rc $src" "$(tail -n 5 "$tmp/client")" "$(tail -n 5 "$tmp/server")"
}
if [[ $scope == all ]]; then
    pp ibv_rc_pingpong -s 16384 -n 200 -c
    pp ibv_uc_pingpong -s 4096 -n 200 -c
    pp ibv_ud_pingpong -s 1024 -n 200 -c
    pp ibv_srq_pingpong -s 4096 -n 100 -q 8 -c
fi

# the verbs between the hosts, and ECE
port=$((port + 1))
pair_server "$tmp/server" "$port" timeout -k 5 "$limit" "$build/tests/twohost" -d "$dev" --server "$port" ||
    diag "twohost --server did not listen"
timeout -k 5 "$limit" "$build/tests/twohost" -d "$dev" --connect "$(pair_server_addr):$port" > "$tmp/client" 2>&1
crc=$?
wait "$PAIR_SPID"
src=$?
nf=$(grep -c '^not ok' "$tmp/client")
ns=$(grep -c '^ok .*# SKIP' "$tmp/client")
np=$(($(grep -c '^ok' "$tmp/client") - ns))
grep -E '^(not )?ok|^#' "$tmp/client" | sed 's/^/#   /'
# both devices here offer every verb the tool posts: a skip is a failure
[[ $crc == 0 && $src == 0 && $nf == 0 && $ns == 0 && $np -ge 21 ]]
ok $? "twohost: $np checks passed, $nf failed, $ns skipped between the hosts (client rc $crc, server rc $src)"
((src)) && diag "$(tail -n 20 "$tmp/server")"
if [[ -n ${ORCA_ECE_EXPECT:-} ]]; then
    grep -q "their intersection $ORCA_ECE_EXPECT " "$tmp/client"
    ok $? "ECE: both hosts negotiated $ORCA_ECE_EXPECT ($(grep -o 'offers.*' "$tmp/client"))"
else
    skip "ECE intersection" "no ORCA_ECE_EXPECT given"
fi
[[ $scope == all ]] || done_testing

# the other port down: retries, then errors here; its own events there
peer "stdbuf -oL timeout $((2 * ORCA_WAIT + limit)) ibv_asyncwatch -d $dev" > "$tmp/events" 2>&1 &
watch=$!
# ibv_asyncwatch prints "<dev>: async event FD <n>" once its context is open
events_have() { grep -qi -- "$1" "$tmp/events"; }
wait_until "$ORCA_WAIT" events_have 'async event FD' || diag "ibv_asyncwatch on the other host did not start: $(< "$tmp/events")"
rstate_is() { [[ $(rdevinfo state) == "$1"* ]]; }
peer hostctl port-down > /dev/null
wait_until "$ORCA_WAIT" rstate_is PORT_DOWN
[[ $(rdevinfo state) == PORT_DOWN* && $(devinfo state) == PORT_ACTIVE* ]]
ok $? "port-down on the other host: its port is $(rdevinfo state), ours still $(devinfo state)"
port=$((port + 1))
pair_server "$tmp/server" "$port" timeout -k 5 "$limit" ibv_rc_pingpong -d "$dev" -p "$port" -n 10 ||
    diag "the pingpong server did not listen"
timeout -k 5 "$limit" ibv_rc_pingpong -d "$dev" -p "$port" -n 10 "$(pair_server_addr)" > "$tmp/client" 2>&1
crc=$?
kill "$PAIR_SPID" 2>/dev/null
wait "$PAIR_SPID" 2>/dev/null
((crc != 0)) && grep -q 'retry counter exceeded' "$tmp/client"
ok $? "an RC pingpong to the downed port ends in retries, then 'transport retry counter exceeded' (rc $crc: $(grep -m1 -i 'failed' "$tmp/client"))"
peer hostctl port-up > /dev/null
wait_until "$ORCA_WAIT" rstate_is PORT_ACTIVE
[[ $(rdevinfo state) == PORT_ACTIVE* && $(rdevinfo port_lid) == "$lb" ]]
ok $? "port-up: ACTIVE again with the same LID ($(rdevinfo port_lid))"
wait_until "$ORCA_WAIT" events_have 'port active\|PORT_ACTIVE'
kill "$watch" 2>/dev/null
wait "$watch" 2>/dev/null
grep -qi 'port error\|PORT_ERR' "$tmp/events" && grep -qi 'port active\|PORT_ACTIVE' "$tmp/events"
ok $? "the other host's context saw IBV_EVENT_PORT_ERR, then IBV_EVENT_PORT_ACTIVE: $(grep -i port "$tmp/events" | tr '\n' ';')"
pp ibv_rc_pingpong -s 4096 -n 50 -c

# rxe over the guest link: the comparison make bench makes
modprobe rdma_rxe 2>/dev/null
peer "modprobe rdma_rxe; rdma link add rxe0 type rxe netdev \$ORCA_LINK_IF" > "$tmp/rxe" 2>&1
rrc=$?
rdma link add rxe0 type rxe netdev "$ORCA_LINK_IF" >> "$tmp/rxe" 2>&1
[[ $rrc == 0 && $? == 0 ]]
ok $? "rxe0 on the guest link of both hosts"
dev=rxe0 pp ibv_rc_pingpong -g 1 -s 16384 -n 100 -c
done_testing
