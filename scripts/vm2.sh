#!/bin/bash
# Two hosts: boot two orca VMs at once (scripts/vm.sh each, with its own
# orca-emu), joined by the InfiniBand fabric (orca-fabric: switch and
# subnet manager on a UNIX socket) and by a guest network link (QEMU socket
# netdev, UDP on 127.0.0.1), then run CMD in the first guest.  The second
# guest runs tests/lib/peer-agent, so that CMD runs commands there with
# tests/lib/peer (servers of perftest, pingpongs, hostctl of the other
# emulator).
#
#   guest A  10.77.0.1/24, node GUID 0x00ca7afffe0000a1, runs CMD
#   guest B  10.77.0.2/24, node GUID 0x00ca7afffe0000b1, runs the agent
#
# In guest A: ORCA_PEER (the agent, ADDR:PORT), ORCA_PEER_ADDR, ORCA_SELF_ADDR,
# ORCA_FABRIC_CTL (the fabric's control socket, for the host's eyes) and
# ORCA_LINK_IF (the link's interface, also in B) are set.  The addresses
# exist only on the emulated link.
#
# Exit status: CMD's (vm.sh's codes for harness failures); 125 if the
# second guest or the fabric could not be started.  Everything is stopped
# on every exit path.
# shellcheck disable=SC2317  # functions run from traps
set -euo pipefail

PROG=vm2.sh
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
BUILD=${BUILD:-$REPO/build}
TIMEOUT=900
NAME=
FABRIC=1
SM=builtin
TOPOLOGY='' TOPOLOGY_B=''
GUESTLESS=0
ARGS_BOTH=() ARGS_A=() ARGS_B=()
PEER_PORT=7777
ADDR_A=10.77.0.1 ADDR_B=10.77.0.2

usage() {
    cat <<EOF
usage: scripts/vm2.sh [options] [--] CMD...
Boot two orca VMs joined by orca-fabric and a guest network link; run CMD
in the first, with tests/lib/peer reaching the second.

  --name NAME          job name: \$BUILD/vm/NAME (fabric log, the second
                       guest's output), guests NAME-a and NAME-b
  --timeout SECONDS    bound for CMD (default $TIMEOUT)
  --emu-set KEY=VALUE  emulator setting for both devices (repeatable)
  --emu-set-a KEY=VALUE, --emu-set-b KEY=VALUE
                       for one of them (e.g. ece_options=...)
  --no-fabric          no orca-fabric: each port loops back to itself
                       (the guest link and rxe still work)
  --sm builtin|none    orca-fabric's subnet manager (default builtin: LIDs
                       from the fabric); none: a plain switch, for a real
                       SM (OpenSM) in a guest to program
  --topology FILE      orca-fabric --sm none --topology FILE: several
                       switches (README, "Several switches"); pin the
                       guests' port GUIDs ...a2 and ...b2 with 'ca' lines
  --topology-b FILE    a second orca-fabric, as on another machine, with
                       the second guest's port: its 'remote' lines join
                       it to the first one's over TCP on 127.0.0.1.  In
                       both files @TCP1@..@TCP4@ stand for free TCP ports
  --guestless N        N more CA ports on the fabric with no guest behind
                       them: orca-emu processes alone (their firmware's
                       SMA and PMA, port_pin=all), node GUIDs
                       0x00ca7afffe100000 + i*0x100
  --smp N, --mem SIZE  per guest (vm.sh's defaults)
  --kernel debug|6.12|7.3  both guests boot that kernel (vm.sh --kernel)
  --root-a debian13    the first guest is a Debian 13 system (vm.sh --root;
                       orca from its packages), the second as usual
  --bind DIR           vm.sh --bind, for both (a --root guest sees DIR)
  --keep               keep the first guest's job dir (\$BUILD/vm/NAME-a)
EOF
}
say() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { say "error: $*"; exit 125; }

while (($#)); do
    case $1 in
    --name) [[ $# -ge 2 && $2 =~ ^[A-Za-z0-9._-]+$ ]] || die "--name needs [A-Za-z0-9._-]+"
        NAME=$2; shift 2 ;;
    --timeout) [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || die "--timeout needs seconds"
        TIMEOUT=$2; shift 2 ;;
    --emu-set) [[ $# -ge 2 && $2 == *=* ]] || die "--emu-set needs KEY=VALUE"
        ARGS_BOTH+=(--emu-set "$2"); shift 2 ;;
    --emu-set-a) [[ $# -ge 2 && $2 == *=* ]] || die "--emu-set-a needs KEY=VALUE"
        ARGS_A+=(--emu-set "$2"); shift 2 ;;
    --emu-set-b) [[ $# -ge 2 && $2 == *=* ]] || die "--emu-set-b needs KEY=VALUE"
        ARGS_B+=(--emu-set "$2"); shift 2 ;;
    --no-fabric) FABRIC=0; shift ;;
    --sm) [[ $# -ge 2 && $2 =~ ^(builtin|none)$ ]] || die "--sm needs builtin or none"
        SM=$2; shift 2 ;;
    --guestless) [[ $# -ge 2 && $2 =~ ^[0-9]+$ && $2 -le 48 ]] || die "--guestless needs 0..48"
        GUESTLESS=$2; shift 2 ;;
    --topology) [[ $# -ge 2 && -r $2 ]] || die "--topology needs a readable file"
        TOPOLOGY=$(cd "$(dirname "$2")" && pwd -P)/$(basename "$2") SM=none; shift 2 ;;
    --topology-b) [[ $# -ge 2 && -r $2 ]] || die "--topology-b needs a readable file"
        TOPOLOGY_B=$(cd "$(dirname "$2")" && pwd -P)/$(basename "$2"); shift 2 ;;
    --keep) ARGS_A+=(--keep); shift ;;
    --root-a) [[ $# -ge 2 ]] || die "--root-a needs a value"
        ARGS_A+=(--root "$2"); shift 2 ;;
    --bind) [[ $# -ge 2 ]] || die "--bind needs a directory"
        ARGS_BOTH+=(--bind "$2"); shift 2 ;;
    --smp | --mem | --kernel) [[ $# -ge 2 ]] || die "$1 needs a value"
        ARGS_BOTH+=("$1" "$2"); shift 2 ;;
    -h | --help) usage; exit 0 ;;
    --) shift; break ;;
    -*) usage >&2; die "unknown option $1" ;;
    *) break ;;
    esac
done
(($#)) || { usage >&2; die "no command given"; }
if (($# == 1)); then CMD=$1; else CMD=$(printf '%q ' "$@"); fi

BUILD=$(mkdir -p "$BUILD" && cd "$BUILD" && pwd -P)
NAME=${NAME:-vm2-$$}
JOB=$BUILD/vm/$NAME
FABRIC_BIN=${ORCA_FABRIC:-$BUILD/orca-fabric}
if ((FABRIC)) && [[ ! -x $FABRIC_BIN ]]; then
    die "$FABRIC_BIN not built (make build), or use --no-fabric"
fi

RUN='' FABRIC_PID='' FABRIC_B_PID='' B_PID='' RC=125 GL_PIDS=()
alive() { [[ -n $1 ]] && kill -0 "$1" 2>/dev/null; }
stop_pid() {    # stop_pid PID GRACE_SECONDS: TERM, wait, then KILL
    local pid=$1 grace=$2 i
    alive "$pid" || return 0
    kill -TERM "$pid" 2>/dev/null || :
    for ((i = 0; i < grace * 20; i++)); do alive "$pid" || break; sleep 0.05; done
    alive "$pid" && kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null || :
}
cleanup() {
    local rc=$? i
    trap '' INT TERM
    set +e
    if [[ -n $B_PID ]]; then
        # the agent powers its guest off when it sees the stop file
        : > "$BUILD/vm/$NAME-b/stop" 2>/dev/null
        for ((i = 0; i < 400; i++)); do alive "$B_PID" || break; sleep 0.05; done
        stop_pid "$B_PID" 10
    fi
    for i in "${GL_PIDS[@]}"; do stop_pid "$i" 3; done
    stop_pid "$FABRIC_PID" 3
    stop_pid "$FABRIC_B_PID" 3
    [[ -n $RUN ]] && rm -rf "$RUN"
    if ((RC == 0)); then rm -rf "$JOB"; else say "job dir kept: $JOB"; fi
    return "$rc"
}
trap cleanup EXIT
trap 'say "interrupted"; RC=130; exit 130' INT
trap 'say "terminated"; RC=143; exit 143' TERM

rm -rf "$JOB"
mkdir -p "$JOB"
RUN=$(mktemp -d /tmp/orca-vm2.XXXXXX)

# free_ports udp|tcp N: N ports of 127.0.0.1 the kernel has free now
# (bound at once, all N, so that they differ; released on exit)
free_ports() {
    /usr/bin/python3 -c '
import socket, sys
kind = socket.SOCK_DGRAM if sys.argv[1] == "udp" else socket.SOCK_STREAM
s = [socket.socket(socket.AF_INET, kind) for _ in range(int(sys.argv[2]))]
for x in s:
    x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])' "$@"
}

# two free UDP ports on the loopback for the guest link
read -r PORT_A PORT_B < <(free_ports udp 2)

[[ -z $TOPOLOGY_B || -n $TOPOLOGY ]] || die "--topology-b needs --topology"
((FABRIC)) || [[ -z $TOPOLOGY ]] || die "--topology needs the fabric"
# the topologies as run: @TCP1@..@TCP4@ made free TCP ports of 127.0.0.1
if [[ -n $TOPOLOGY ]]; then
    read -r -a TCP < <(free_ports tcp 4)
    for f in a b; do
        src=$TOPOLOGY
        [[ $f == b ]] && src=$TOPOLOGY_B
        [[ -n $src ]] || continue
        sed -e "s/@TCP1@/${TCP[0]}/g" -e "s/@TCP2@/${TCP[1]}/g" -e "s/@TCP3@/${TCP[2]}/g" \
            -e "s/@TCP4@/${TCP[3]}/g" "$src" > "$JOB/topology-$f"
    done
fi

# start_fabric NAME [TOPOLOGY]: orca-fabric with its sockets in $RUN
start_fabric() {
    local name=$1 topo=${2:-} i
    "$FABRIC_BIN" --socket "$RUN/$name.sock" --ctl "$RUN/$name-ctl.sock" \
        --sm "$SM" ${topo:+--topology "$topo"} --log "$JOB/$name.log" \
        > "$JOB/$name.out" 2>&1 < /dev/null &
    STARTED_PID=$!
    for ((i = 0; i < 100; i++)); do [[ -S $RUN/$name.sock ]] && break; sleep 0.05; done
    [[ -S $RUN/$name.sock ]] || { cat "$JOB/$name.out" >&2; die "orca-fabric ($name) did not start"; }
}
FAB_ARGS=() FAB_ARGS_B=()
FABRIC_CTL=
if ((FABRIC)); then
    start_fabric fabric ${TOPOLOGY:+"$JOB/topology-a"}
    FABRIC_PID=$STARTED_PID
    FAB_ARGS=(--emu-set "fabric=$RUN/fabric.sock")
    FAB_ARGS_B=("${FAB_ARGS[@]}")
    FABRIC_CTL=$RUN/fabric-ctl.sock
    if [[ -n $TOPOLOGY_B ]]; then
        start_fabric fabric-b "$JOB/topology-b"
        FABRIC_B_PID=$STARTED_PID
        FAB_ARGS_B=(--emu-set "fabric=$RUN/fabric-b.sock")
    fi
fi
# the guest-less ports: an emulator with no QEMU is a port and its
# firmware, which the SM discovers and programs like any other; the
# firmware answers the SM off the wire (port_pin=all, as for a tenant:
# no host driver passes it the SMPs its QP0 would receive)
EMU_BIN=${ORCA_EMU:-$BUILD/orca-emu}
for ((i = 0; i < GUESTLESS; i++)); do
    ((FABRIC)) || die "--guestless needs the fabric"
    "$EMU_BIN" --socket "$RUN/gl-$i.sock" --ram "$RUN/gl-$i.none" \
        --set "fabric=$RUN/fabric.sock" --set port_pin=all --set "node_guid=$(printf '0x%016x' $((0x00ca7afffe100000 + i * 0x100)))" \
        --log "$JOB/guestless-$i.log" > /dev/null 2>&1 < /dev/null &
    GL_PIDS+=($!)
done
((GUESTLESS)) && say "$GUESTLESS guest-less ports on the fabric (logs $JOB/guestless-*.log)"

say "guests $NAME-a ($ADDR_A) and $NAME-b ($ADDR_B); link 127.0.0.1:$PORT_A <-> 127.0.0.1:$PORT_B; fabric ${FABRIC_CTL:-off}"
# each guest's hostctl reaches the fabric's control socket too
# ('hostctl fabric REQUEST', scripts/vm.sh)
export ORCA_FABRIC_CTL=$FABRIC_CTL
BUILD=$BUILD "$REPO/scripts/vm.sh" --name "$NAME-b" --timeout $((TIMEOUT + 120)) --hostname orca-b \
    --link "$PORT_B:$PORT_A:$ADDR_B/24" "${ARGS_BOTH[@]}" "${FAB_ARGS_B[@]}" \
    --emu-set node_guid=0x00ca7afffe0000b1 "${ARGS_B[@]}" -- \
    "peer-agent $ADDR_B:$PEER_PORT \$ORCA_JOB/stop" > "$JOB/b.out" 2>&1 &
B_PID=$!

set +e
BUILD=$BUILD "$REPO/scripts/vm.sh" --name "$NAME-a" --timeout "$TIMEOUT" --hostname orca-a \
    --link "$PORT_A:$PORT_B:$ADDR_A/24" "${ARGS_BOTH[@]}" "${FAB_ARGS[@]}" \
    --emu-set node_guid=0x00ca7afffe0000a1 "${ARGS_A[@]}" -- \
    "export ORCA_PEER=$ADDR_B:$PEER_PORT ORCA_PEER_ADDR=$ADDR_B ORCA_SELF_ADDR=$ADDR_A ORCA_FABRIC_CTL=$FABRIC_CTL
$CMD"
RC=$?
set -e
if ((RC != 0)); then
    say "--- second guest ($NAME-b), last 40 lines ($JOB/b.out)"
    tail -n 40 "$JOB/b.out" >&2
    if [[ -n $FABRIC_CTL ]]; then
        say "--- fabric logs, last 20 lines ($JOB/fabric*.log)"
        tail -n 20 "$JOB"/fabric*.log "$JOB"/fabric*.out >&2 2>/dev/null
    fi
fi
exit "$RC"
