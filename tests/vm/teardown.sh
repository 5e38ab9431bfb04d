#!/bin/bash
# Guest test, first guest of scripts/vm2.sh --sm none, after ipoib.sh (ib0
# up on both hosts; OpenSM runs here): the other host unloads orca while
# the kernel's RDMA stack uses it, and loads it again; then the same with
# its device dying first (health fatal) under that load.
#  - load on the other host: IPoIB (ib0 with its address, a ping running
#    against it), an rdma_cm server with a connection open (rping, this
#    host the client), an NVMe/RDMA target with this host's controller
#    connected to it;
#  - rmmod orca there finishes (nothing hangs); every ULP was told: its
#    ib0 and orca0 are gone, the rping connection ended on both sides,
#    this host's NVMe controller lost its queues and tries to reconnect;
#  - insmod orca there: orca0 comes back, OpenSM makes its port ACTIVE,
#    ib0 is back (its address given again) and answers pings; the target's
#    port linked to its subsystem again (nvmet-rdma drops its listener
#    with the device), the NVMe controller here reconnects by itself and a
#    verified write and read go through it;
#  - the same round again, the device there dying first (health fatal):
#    the driver there declares it dead, and the dead device unloads as
#    above (ib_drain_qp() and every ULP's teardown finish on it: the rping
#    server ends; the client here, if it waits for the server, is stopped)
#    and insmod brings it all back;
#  - no kernel warning on either host.
# Prints TAP.  ORCA_DEV (orca0); the other guest's ORCA_KO; ORCA_TEARDOWN_ROUNDS
# (1): how often both rounds run (make soak: more).
# (the functions wait_until calls look unreachable to shellcheck)
# shellcheck disable=SC2317
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"
# shellcheck source=tests/lib/pair.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pair.sh"
# shellcheck source=tests/lib/klog.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/klog.sh"
# shellcheck source=tests/lib/nvmet.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/nvmet.sh"

dev=${ORCA_DEV:-orca0}
ip_b=10.78.0.2
nqn=nqn.2026-11.org.orca:teardown
hostnqn=nqn.2026-11.org.orca:host-a
tmp=$(mktemp -d)
rping_pid='' ping_pid=''
trap 'kill $rping_pid $ping_pid 2> /dev/null; rm -rf "$tmp"' EXIT
mark="orca-teardown-test-$$"
klog_mark_both "$mark"
# ORCA_TEARDOWN_ROUNDS (1): the two rounds that often (make soak: more)
rounds=$(pos_int "${ORCA_TEARDOWN_ROUNDS:-}" 1)
plan $((5 + 21 * rounds))
if ! pair_remote; then
    echo "Bail out! teardown.sh needs the second guest of scripts/vm2.sh"
    exit 1
fi

ctrl=''
find_ctrl() {
    local c
    for c in /sys/class/nvme/nvme*; do
        [[ -e $c/subsysnqn && $(< "$c/subsysnqn") == "$nqn" ]] && ctrl=$c && return 0
    done
    return 1
}
ctrl_state() { [[ -n $ctrl && -e $ctrl/state ]] && cat "$ctrl/state"; }
live() { [[ $(ctrl_state) == live ]]; }

# the load: a target there, its controller here; an rping connection
# and a ping over IPoIB in each round
t=$(nvmet_up_line "$nqn" /tmp/nvmet-td.img 64M 4421 "2:$ip_b")
peer "$t" > "$tmp/target" 2>&1 && modprobe nvme-rdma &&
    timeout -k 5 120 nvme connect -t rdma -a "$ip_b" -s 4421 -n "$nqn" --hostnqn="$hostnqn" \
        --reconnect-delay=2 --ctrl-loss-tmo=600 > "$tmp/conn" 2>&1 &&
    wait_until "$ORCA_WAIT" find_ctrl && wait_until "$ORCA_WAIT" live
rc=$?
ok $rc "load: an NVMe/RDMA controller here ($(ctrl_state)) on a target there"
((rc)) && diag "$(cat "$tmp/target" "$tmp/conn" 2> /dev/null | tail -n 8)"
export PAIR_RDMA_CM=1
rping_port=19900
active() { [[ $(peer "cat /sys/class/infiniband/$dev/ports/1/state" 2> /dev/null) == *ACTIVE ]]; }
ib0_up() { peer "ip addr replace $ip_b/24 dev ib0 && ip link set ib0 up && [ \$(cat /sys/class/net/ib0/carrier) = 1 ]" > /dev/null 2>&1; }
down() { [[ $(ctrl_state) == connecting || $(ctrl_state) == resetting ]]; }
rping_done() { ended "$rping_pid" && ended "$spid"; }
# this round's rping connection, not any rdma_cm ID (the NVMe/RDMA
# controller's are CONNECTed too): here the client's ID to the server's
# port there, there the server's ID on that port
ip_re=${ip_b//./\\.}
cm_open() {
    rdma res show cm_id | grep -qE "state CONNECT .*dst-addr $ip_re:$rping_port( |$)" &&
        peer "rdma res show cm_id" | grep -qE "state CONNECT .*src-addr $ip_re:$rping_port( |$)"
}
ipoib_pings() { ping -q -c 1 -W 2 "$ip_b" > /dev/null 2>&1; }
# a status that says the process was killed (by timeout, or a signal of
# its own fault) and did not end because it was told
killed() { (($1 == 124 || $1 == 134 || $1 == 137 || $1 == 139)); }
# the driver there declared its device dead
peer_dead() { peer ". $_pair_lib/klog.sh && klog_since '$round_mark' | grep -qE 'device dead \((firmware health is fatal|device reported a fatal error)\)'"; }

# round KIND: the other host's orca goes under the load (KIND rmmod: it is
# unloaded; fatal: its device dies first) and comes back
round() {
    local kind=$1 tag=$1${2:+ ($2)} rc t0
    round_mark="$mark-$kind-$r"
    klog_mark_both "$round_mark"
    rping_port=$((rping_port + 1))
    pair_server "$tmp/rping-server" "$rping_port" timeout -k 5 600 rping -s -a "$ip_b" -p "$rping_port" -C 1000000 -S 1024
    spid=$PAIR_SPID
    timeout -k 5 600 rping -c -a "$ip_b" -p "$rping_port" -C 1000000 -S 1024 > "$tmp/rping" 2>&1 &
    rping_pid=$!
    wait_until "$ORCA_WAIT" cm_open && wait_until "$ORCA_WAIT" ipoib_pings && live &&
        ! ended "$rping_pid" && ! ended "$spid"
    ok $? "$tag: the rping connection to $ip_b:$rping_port open on both sides and running, IPoIB pinged, the NVMe controller $(ctrl_state)"
    ping -q -i 0.2 -c 100000 -W 1 "$ip_b" > "$tmp/ping" 2>&1 &
    ping_pid=$!
    # the first replies of this ping, before the device goes
    wait_until "$ORCA_WAIT" ipoib_pings

    if [[ $kind == fatal ]]; then
        t0=$(now_us)
        peer "hostctl fatal" > "$tmp/fatal" 2>&1
        wait_until "$ORCA_WAIT" peer_dead
        ok $? "$tag: health fatal there, the device dead after $(secs_since "$t0") s"
        wait_until "$ORCA_WAIT" down
        diag "$tag: the NVMe controller here: $(ctrl_state) after $(secs_since "$t0") s"
    fi
    t0=$(now_us)
    peer "timeout -k 5 $ORCA_WAIT rmmod orca" > "$tmp/rmmod" 2>&1
    rc=$?
    ok $rc "$tag: rmmod orca on the other host under load: exit $rc after $(secs_since "$t0") s"
    ((rc)) && diag "$(cat "$tmp/rmmod")"
    peer "[ ! -e /sys/class/infiniband/$dev ] && [ ! -e /sys/class/net/ib0 ]"
    ok $? "$tag: there, orca0 and ib0 are gone"
    if [[ $kind == rmmod ]]; then
        # rping -C 1000000 runs far longer than this: both ending within
        # ORCA_WAIT, neither killed, is rdma_cm telling them
        wait_until "$ORCA_WAIT" rping_done
        rc=$?
        wait "$rping_pid"
        crc=$?
        wait "$spid"
        src=$?
        ((rc == 0)) && ! killed "$crc" && ! killed "$src"
        ok $? "$tag: the rping connection ended on both sides, neither killed (client exit $crc, server exit $src): rdma_cm told both ends"
    else
        # a dead device says nothing on the wire: a client here with no
        # WR outstanding waits for the server for good (a peer's reboot)
        wait_until "$ORCA_WAIT" ended "$spid"
        ok $? "$tag: the rping server there ended (rdma_cm told it of the removal)"
        ended "$rping_pid" || diag "$tag: the rping client here waits for its dead peer: stopped"
        kill "$rping_pid" 2> /dev/null
    fi
    wait_until "$ORCA_WAIT" down
    ok $? "$tag: the NVMe controller here lost its target and is $(ctrl_state)"

    # and comes back
    [[ $kind == fatal ]] && peer "hostctl misbehave clear" > /dev/null 2>&1
    t0=$(now_us)
    peer "insmod \$ORCA_KO" > "$tmp/insmod" 2>&1
    rc=$?
    ((rc == 0)) && wait_until "$ORCA_WAIT" active
    ok $? "$tag: insmod orca there, orca0 back and ACTIVE after $(secs_since "$t0") s"
    ((rc)) && diag "$(cat "$tmp/insmod")"
    wait_until "$ORCA_WAIT" ib0_up && ip neigh flush dev ib0 &&
        ping -q -W 5 -c 3 "$ip_b" > "$tmp/ping2" 2>&1
    ok $? "$tag: ib0 back there with its address: $(grep transmitted "$tmp/ping2" 2> /dev/null)"
    # SIGINT: ping prints its statistics
    kill -INT "$ping_pid" 2> /dev/null
    wait "$ping_pid"
    got=$(sed -n 's/.* \([0-9][0-9]*\) received.*/\1/p' "$tmp/ping")
    [[ $got =~ ^[0-9]+$ ]] && ((got > 0))
    ok $? "$tag: the ping over IPoIB through the round had replies: $(grep transmitted "$tmp/ping" 2> /dev/null)"
    # nvmet-rdma drops a port's listener with its device and does not take
    # it up again by itself: the admin's step, the subsystem linked anew
    t0=$(now_us)
    peer "p=$NVMET_CFS/ports/2; rm \$p/subsystems/$nqn && ln -s $NVMET_CFS/subsystems/$nqn \$p/subsystems/$nqn" > "$tmp/relink" 2>&1 ||
        diag "re-linking the target's port: $(cat "$tmp/relink")"
    wait_until "$ORCA_WAIT" live
    ok $? "$tag: the NVMe controller reconnected by itself: $(ctrl_state) after $(secs_since "$t0") s"
    ns=$(nvme_ns_of "$nqn")
    if [[ -n $ns ]]; then
        timeout -k 5 300 fio --name=orca-td --filename="$ns" --ioengine=libaio --direct=1 \
            --rw=randwrite --bs=64k --iodepth=4 --size=8m --verify=crc32c --verify_fatal=1 \
            --output="$tmp/fio" > /dev/null 2>&1
        rc=$?
    else
        rc=1
    fi
    ok $rc "$tag: fio verified writes and reads through it ($ns)"
}
for ((r = 1; r <= rounds; r++)); do
    which=''
    ((rounds > 1)) && which="round $r of $rounds"
    round rmmod "$which"
    round fatal "$which"
done

nvme disconnect -n "$nqn" > "$tmp/disc" 2>&1
rc=$?
((rc == 0)) && ! find_ctrl
ok $? "nvme disconnect: exit $rc, no controller of $nqn left ($(head -n 1 "$tmp/disc"))"
t=$(nvmet_down_line "$nqn" /tmp/nvmet-td.img 2)
peer "$t" > "$tmp/down" 2>&1
rc=$?
((rc == 0)) && peer "[ ! -e $NVMET_CFS/subsystems/$nqn ] && ! grep -q '^nvmet ' /proc/modules"
ok $? "the target there taken down: exit $rc, no subsystem $nqn, nvmet unloaded"
((rc)) && diag "$(cat "$tmp/down")"
modprobe -r nvme-rdma > "$tmp/modr" 2>&1
rc=$?
((rc == 0)) && ! grep -q '^nvme_rdma ' /proc/modules
ok $? "modprobe -r nvme-rdma here: exit $rc, the module gone"
ok_no_oopses_both "$mark"
done_testing
