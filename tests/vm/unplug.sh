#!/bin/bash
# Guest test: the device goes away under a process that uses it.
# Prints TAP; exit status = number of failures.
#
#  1. Hot unplug (/sys/bus/pci/devices/BDF/remove) while hold_fatal holds
#     a context, a PD, a CQ, an MR and an RC QP in RTS: the remove
#     finishes (ib_core disassociates the context: orca implements
#     disassociate_ucontext), the process gets IBV_EVENT_DEVICE_FATAL, a
#     new PD is refused, a posted send completes with no success,
#     destroying an SRQ or its QP's CQ before the QP still says EBUSY
#     (the provider's own count: ib_core no longer checks), and it can
#     destroy everything and close; nothing oopses.  A PCI rescan
#     brings orca0 back and it works.  With ORCA_UNPLUG_FUZZ_STEPS=N the
#     verbs fuzzer runs through the remove too, forking often (30 % of
#     steps), and makes N more steps after it: it must end normally, no
#     child crashed.  A child forked after the disassociation that rings
#     an inherited doorbell gets SIGBUS from ib_core (rdma_umap_open zaps
#     the copy); the fuzzer counts that apart, and this test reports it.
#  2. rmmod while in use: the same (ib_core disassociates; the module is
#     not pinned by open contexts), and insmod brings orca0 back.
#  3. Load/unload x ORCA_RELOAD_LOOPS (100) with a context opened and a
#     command run each time: no orca interrupt or region left, and
#     unreclaimable slab does not grow (kmemleak, on the debug kernel,
#     is debug-report.sh's).
# (the functions wait_until calls look unreachable to shellcheck)
# shellcheck disable=SC2317
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"
# shellcheck source=tests/lib/ibdev.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/ibdev.sh"

ko=${ORCA_KO:?ORCA_KO not set (run in the orca VM)}
dev=${ORCA_DEV:-orca0}
hold=${ORCA_BUILD:?}/tests/hold_fatal
loops=${ORCA_RELOAD_LOOPS:-100}
out=${ORCA_JOB:-/tmp}/hold.out
fuzz_steps=${ORCA_UNPLUG_FUZZ_STEPS:-0}
[[ $fuzz_steps =~ ^[0-9]+$ ]] || fuzz_steps=0
fout=${ORCA_JOB:-/tmp}/unplug-fuzz.out
plan $((16 + (fuzz_steps > 0)))

klog_mark() { dmesg | wc -l; }
no_oops() {   # no_oops MARK DESC
    local o
    o=$(dmesg | tail -n +"$(($1 + 1))" | grep -E 'WARNING:|BUG:|Oops|general protection|Call Trace')
    [[ -z $o ]]
    ok $? "$2"
    [[ -z $o ]] || diag "$o"
}
_ready_or_gone() { grep -q '^READY' "$out" || ended "$holder"; }
start_hold() {   # hold_fatal in the background until it says READY
    "$hold" -d "$dev" -t "$ORCA_WAIT" > "$out" 2>&1 &
    holder=$!
    wait_until "$ORCA_WAIT" _ready_or_gone
    grep -q '^READY' "$out" && return 0
    diag "$(cat "$out")"
    return 1
}
# a verb that needs firmware commands: ibv_rc_pingpong's server allocates
# a PD, a CQ and a QP and only then listens for its client
server_up() {
    local rc=0
    wait_dev 1 || return 1
    ibv_rc_pingpong -d "$dev" -p 18779 > /dev/null 2>&1 &
    pp=$!
    wait_until "$ORCA_WAIT" listening_or_ended 18779 "$pp"
    listening 18779 || rc=1
    kill "$pp" 2> /dev/null
    wait "$pp" 2> /dev/null
    return "$rc"
}
check_hold() {   # check_hold WHAT: hold_fatal's verdict
    local rc
    wait "$holder"
    rc=$?
    grep -q '^DEVICE_FATAL$' "$out"
    ok $? "$1: the process got IBV_EVENT_DEVICE_FATAL"
    ((rc == 0))
    ok $? "$1: new objects refused, nothing completes, destroy and close work (exit $rc)"
    diag "$(cat "$out")"
}
bdf=$(basename "$(readlink -f "/sys/class/infiniband/$dev/device")")

# ---------------------------------------------------------------- 1
m=$(klog_mark)
start_hold
ok $? "hold_fatal holds a context and objects on $dev ($bdf)"
if ((fuzz_steps)); then
    # shellcheck disable=SC2086  # ORCA_FUZZ_ARGS: words
    "$ORCA_BUILD/tests/fuzz/verbs_fuzz" -d "$dev" --calls 1000000000 --fork-pct 300 \
        --after-usr1 "$fuzz_steps" ${ORCA_FUZZ_ARGS:-} > "$fout" 2>&1 &
    fuzzer=$!
    sleep_s 3   # a pace, not a bound: the remove meets a fuzzer at work
fi
timeout -k 5 "$ORCA_WAIT" sh -c "echo 1 > /sys/bus/pci/devices/$bdf/remove"
ok $? "PCI remove of $bdf with the context open finishes"
wait_dev 0
ok $? "$dev is gone"
check_hold "hot unplug"
if ((fuzz_steps)); then
    fuzz_finish "$fuzzer" "${ORCA_TEST_TIMEOUT:-300}"  # run-tests bounds it too
    rc=$?
    ((rc == 0)) && grep -q '^# children: .* 0 crashed' "$fout"
    ok $? "verbs_fuzz, forking, through the PCI remove and $fuzz_steps steps after: exit $rc, $(grep -o 'children: [^;]*' "$fout")"
    grep -E 'fatal signal|^# child [0-9]+:|SIGBUS' "$fout" | head -n 20 | while IFS= read -r l; do diag "$l"; done
fi
echo 1 > /sys/bus/pci/rescan
server_up
ok $? "PCI rescan: $dev is back and its verbs work (an ibv_rc_pingpong server set up and listening)"
no_oops "$m" "hot unplug: no WARNING or oops"

# ---------------------------------------------------------------- 2
m=$(klog_mark)
start_hold
ok $? "hold_fatal holds a context and objects again"
timeout -k 5 "$ORCA_WAIT" rmmod orca
ok $? "rmmod orca with the context open finishes"
check_hold "rmmod"
insmod "$ko" && wait_dev 1
ok $? "insmod: $dev is back"
no_oops "$m" "rmmod in use: no WARNING or oops"

# ---------------------------------------------------------------- 3
# the least of five samples 0.2 s apart: SUnreclaim also moves with what
# the rest of the kernel frees late (RCU callbacks, kmemleak's own
# objects), by +-1.5 MB between runs of this very loop (-1500..+1224 kB
# in seven make check runs of 2026-11-29), more than a leak of this size
slab() {
    local i v min=
    for ((i = 0; i < 5; i++)); do
        v=$(awk '/^SUnreclaim:/ { print $2 }' /proc/meminfo)
        [[ -z $min || $v -lt $min ]] && min=$v
        sleep 0.2
    done
    echo "$min"
}
# growth is measured from load $base: from the 10th on a long run (the
# first loads may fill caches once), from the first on a short one
base=$((loops >= 20 ? 10 : 1))
fails=0 sbase=0
t0=$(now_us)
for ((i = 1; i <= loops; i++)); do
    rmmod orca || { fails=$((fails + 1)); break; }
    insmod "$ko" || { fails=$((fails + 1)); break; }
    wait_dev 1 || { fails=$((fails + 1)); break; }
    cat "/sys/class/infiniband/$dev/ports/1/hw_counters/dev_cmds" > /dev/null || fails=$((fails + 1))
    ibv_devinfo -d "$dev" > /dev/null || fails=$((fails + 1))
    ((i == base)) && sbase=$(slab)
done
s_end=$(slab)
((fails == 0))
ok $? "$loops x (rmmod, insmod, context, command): $fails failures ($(secs_since "$t0") s)"
grow=$((s_end - sbase))
((sbase > 0 && loops > base && grow < 1024))
ok $? "unreclaimable slab after load $base: $sbase kB, after $loops: $s_end kB (growth $grow kB < 1024)"
n=$(grep -c orca /proc/interrupts)
((n == 2))
ok $? "exactly orca's 2 interrupts registered after the loop ($n)"
done_testing
