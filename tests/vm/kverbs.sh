#!/bin/bash
# Guest test: kernel verbs (issue 22, slice 1).  orca is a kernel verbs
# provider now: ib_core attaches kernel clients to it.  The test module
# build/ktest/orca_kverbs_test.ko uses orca0 as a kernel consumer does
# (a PD with ib_core's local_dma_lkey, CQs polled directly and by ib_core,
# RC and UD QPs on driver rings, SEND/SEND_WITH_IMM/inline with every
# byte checked, completion events, a bad lkey, ib_drain_qp) and prints
# one TAP line per check into the kernel log; they are relayed here.
# The first run has the device hand out the lowest free number (hostctl
# reuse-handles 1), so that a QP created after a destroy gets its QPN.
# Then the same again after a reload of orca (rings and lists start over);
# then the module's dead=1 run: the device's health turns fatal under
# kernel QPs with work outstanding, and all of it completes flushed (the
# steps of ib_drain_qp); the dead device unloads and a reload brings it
# back; and no oops, WARNING or sanitizer report in the log.
# Prints TAP; exit status = number of failures.
#   ORCA_DEV (orca0), ORCA_KO, ORCA_BUILD, ORCA_KTEST (the module; the
#   debug kernel's is build/ktest-debug/)
set -u
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lib/tap.sh
. "$here/../lib/tap.sh"
# shellcheck source=tests/lib/ibdev.sh
. "$here/../lib/ibdev.sh"
# shellcheck source=tests/lib/klog.sh
. "$here/../lib/klog.sh"

dev=${ORCA_DEV:-orca0}
ko=${ORCA_KO:?ORCA_KO not set (run in the orca VM)}
build=${ORCA_BUILD:-$here/../../build}
ktest=${ORCA_KTEST:-$build/ktest/orca_kverbs_test.ko}

# The module's checks, counted in tests/kmod/orca_kverbs_test.c: every
# check() a run makes when each passes (a sub-test that stops running
# makes the count fall short); reuse=1 adds one
KVERBS_CHECKS=68
KVERBS_DEAD_CHECKS=20
KVERBS_SLOW_CHECKS=11
KVERBS_CQN_CHECKS=10

# One load of the module (kverbs_run WHAT EXPECTED [dead=1] [reuse=1]);
# its TAP lines become diagnostics, and the load one test: all of its
# checks passed, exactly EXPECTED of them, the plan it printed.  With
# dead=1 the device's health is made fatal once the module waits for it.
# Its waits are bounded by ORCA_WAIT.
kverbs_run() {
    local what=$1 expected=$2 id rc lines n bad planned pid
    shift 2
    id=$(now_us)
    last_id=$id
    echo "kverbs: run $id" > /dev/kmsg
    insmod "$ktest" dev="$dev" run="$id" wait_ms=$((ORCA_WAIT * 1000)) "$@" 2> /dev/null &
    pid=$!
    if [[ $* == *dead=1* ]]; then
        wait_until "$ORCA_WAIT" klog_has "orca_kverbs\[$id\]: waiting for the device to die"
        hostctl fatal > /dev/null
    fi
    if [[ $* == *slow=1* ]]; then
        wait_until "$ORCA_WAIT" klog_has "orca_kverbs\[$id\]: waiting for the device to stop" &&
            wait_until "$ORCA_WAIT" klog_has "dead device stopped (reset acknowledged)"
        echo 1 > /sys/module/orca_kverbs_test/parameters/go
    fi
    if [[ $* == *cqn=1* ]]; then
        # the held completion interrupt out, and taken by the driver
        wait_until "$ORCA_WAIT" klog_has "orca_kverbs\[$id\]: waiting for the completion interrupt"
        local irqs0
        irqs0=$(comp_irqs)
        hostctl comp-irq-hold 0 > /dev/null
        # shellcheck disable=SC2317  # called by wait_until
        irq_taken() { (($(comp_irqs) > irqs0)); }
        wait_until "$ORCA_WAIT" irq_taken || diag "the completion interrupt count stayed $irqs0"
        echo 1 > /sys/module/orca_kverbs_test/parameters/go
    fi
    wait "$pid"
    rc=$?
    rmmod orca_kverbs_test 2> /dev/null
    lines=$(klog_since "kverbs: run $id" | sed -n "s/.*orca_kverbs\[$id\]: //p")
    n=$(grep -c '^ok ' <<< "$lines")
    bad=$(grep -c '^not ok ' <<< "$lines")
    planned=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' <<< "$lines")
    diag "$(grep -E '^not ok' <<< "$lines" | head -n 8)"
    ((rc == 0 && bad == 0 && n == ${planned:-0} && n == expected))
    ok $? "$what: $n of ${planned:-?} checks passed, $bad failed, $expected expected (insmod exit $rc)"
}
# shellcheck disable=SC2317  # called by wait_until
klog_has() { klog_since "kverbs: run $id" | grep -q -- "$1"; }
# the interrupts the driver took on its completion vector, all CPUs
comp_irqs() { awk '/orca-comp/ { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i } END { print n + 0 }' /proc/interrupts; }
reload() { rmmod orca && hostctl misbehave clear > /dev/null && insmod "$ko" && wait_dev 1; }

plan 13
mark="kverbs: $(now_us)"
echo "$mark" > /dev/kmsg
[[ -r $ktest ]]
ok $? "the test module is built ($ktest)"
hostctl reuse-handles 1 > /dev/null
kverbs_run "kernel verbs on $dev, numbers reused at once" $((KVERBS_CHECKS + 1)) reuse=1
# a CQ in a destroyed CQ's number, with an event of the old one held back
hostctl comp-irq-hold 1 > /dev/null
kverbs_run "a CQ given a destroyed CQ's number gets none of its events" "$KVERBS_CQN_CHECKS" cqn=1
hostctl comp-irq-hold 0 > /dev/null
hostctl reuse-handles 0 > /dev/null
reload
ok $? "orca reloaded ($WAITED s)"
# the kicks the driver rang for the module's posts, each seen by the device
cnt=/sys/class/infiniband/$dev/ports/1/hw_counters/kernel_kicks
kk0=$(< "$cnt") db0=$(emu_stat db_writes)
kverbs_run "kernel verbs on $dev after a reload" "$KVERBS_CHECKS"
sleep 0.05 # past the hw_counters lifespan (10 ms)
kk1=$(< "$cnt")
# shellcheck disable=SC2317  # called by wait_until
all_seen() { db1=$(emu_stat db_writes) && ((db1 - db0 >= kk1 - kk0)); }
wait_until "$ORCA_WAIT" all_seen
((kk1 > kk0 && db1 - db0 >= kk1 - kk0))
ok $? "hw_counters/kernel_kicks counts the kernel QPs' kicks: $kk0 -> $kk1; the device's db_writes $db0 -> $db1"
kverbs_run "the device dies under kernel QPs with work outstanding" "$KVERBS_DEAD_CHECKS" dead=1
reload
ok $? "rmmod of the dead device, reload: $dev back ($WAITED s)"

# A device slow, not dead: its commands time out after 1 s while it
# sleeps 4 s in the placement of a SEND into a kernel QP's receive.
rmmod orca && insmod "$ko" cmd_timeout_ms=1000 && wait_dev 1
ok $? "orca reloaded with cmd_timeout_ms=1000"
hostctl place-delay 4000000 > /dev/null
kverbs_run "a device declared dead while it places a SEND" "$KVERBS_SLOW_CHECKS" slow=1
hostctl place-delay 0 > /dev/null
# the receive's completion (IB_WC_WR_FLUSH_ERR is 5) against the stop
lines=$(klog_since "kverbs: run $last_id")
done_at=$(grep -n "orca_kverbs\[$last_id\]: # the receive completed" <<< "$lines" | head -n 1)
status=$(sed -n 's/.*# the receive completed: 1, status \(-\?[0-9]*\)$/\1/p' <<< "${done_at#*:}")
done_at=${done_at%%:*}
stop_at=$(grep -n "dead device stopped (reset acknowledged)" <<< "$lines" | head -n 1)
stop_at=${stop_at%%:*}
[[ $status == 0 ]] || [[ $status == 5 && -n $stop_at && $stop_at -lt ${done_at:-0} ]]
ok $? "no flush before the device stopped (the receive's status ${status:-none} at log line ${done_at:-none}, the stop at line ${stop_at:-none})"
reload
ok $? "reload after the slow device: $dev back ($WAITED s)"
oops=$(klog_oopses "$mark")
[[ -z $oops ]]
ok $? "no oops, WARNING or sanitizer report in the kernel log"
diag "$(head -n 12 <<< "$oops")"
done_testing
