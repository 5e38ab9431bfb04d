#!/bin/bash
# Guest test: the driver against a device that misbehaves (tests/lib/hostctl
# drives the emulator).  Prints TAP; exit status = number of failures.
#
#  1. cmd_timeout_ms outside 100..600000 is refused at load time.
#  2. Impossible capabilities (caps-override) refuse the probe with a log
#     line, before anything is sized from them: no WARNING, no orca0.
#  3. A device that stalls with a command outstanding (its completion
#     held by cmd-delay, then hang until the test wakes it with stall 1):
#     the driver declares it dead; rmmod gets no reset acknowledgement,
#     so it leaks the DMA memory instead of freeing it; the device,
#     waking up, resets before anything else: no DMA write after rmmod,
#     over 20 of its heartbeat ticks after waking.
#  4. A slow but alive device (cmd-delay, holding each completion far
#     past the command timeout): a command times out; the reset of the
#     dead device (or rmmod's) is acknowledged and drops the late
#     completion (the device's pending count goes to 0): no DMA write
#     after rmmod, nothing leaked.
#  5. The module loads and works again afterwards.
# Every wait is for a condition, bounded by ORCA_WAIT (120 s: it costs
# time only when the test fails); "after the device woke up" is counted in
# the device's own heartbeat ticks, not in the guest's seconds; times are
# diagnostics, never pass conditions.
# (the functions wait_until calls look unreachable to shellcheck)
# shellcheck disable=SC2317
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"
# shellcheck source=tests/lib/ibdev.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/ibdev.sh"

ko=${ORCA_KO:?ORCA_KO not set (run in the orca VM)}
dev=${ORCA_DEV:-orca0}
plan 30

klog_mark() { dmesg | wc -l; }
# refused FIELD VALUE: the probe's log line for the capability, since $m
refused() { klog_since "$m" | grep -qE "device reports ($1 = $2|$2 GIDs)"; }
klog_since() { dmesg | tail -n +"$(($1 + 1))"; }
no_oops() {   # no_oops MARK DESC
    local out
    out=$(klog_since "$1" | grep -E 'WARNING:|BUG:|Oops|general protection|Call Trace')
    [[ -z $out ]]
    ok $? "$2"
    [[ -z $out ]] || diag "$out"
}
reload() { rmmod orca 2>/dev/null; insmod "$ko" "$@"; }

# ---------------------------------------------------------------- 1
rmmod orca
for v in 0 99 600001; do
    m=$(klog_mark)
    insmod "$ko" cmd_timeout_ms=$v 2>/dev/null
    rc=$?
    [[ $rc != 0 && ! -e /sys/module/orca ]] &&
        klog_since "$m" | grep -q "cmd_timeout_ms=$v is outside 100..600000"
    ok $? "insmod cmd_timeout_ms=$v is refused with a log line"
    rmmod orca 2>/dev/null
done

# ---------------------------------------------------------------- 2
for lie in "max_qp 4294967294" "max_qp 2147483647" "max_cqe 2147483648" \
           "phys_port_cnt 2" "gid_tbl_len 65535"; do
    m=$(klog_mark)
    hostctl caps-override $lie > /dev/null
    insmod "$ko"
    set -- $lie
    # (the probe runs within insmod; the log line is waited for all the same)
    wait_until "$ORCA_WAIT" refused "$1" "$2" &&
        [[ ! -e /sys/class/infiniband/$dev ]]
    ok $? "device reporting $1 = $2: probe refused with a log line"
    no_oops "$m" "  ... and no WARNING or oops"
    hostctl caps-override clear > /dev/null
    rmmod orca
done

# ---------------------------------------------------------------- 3
m=$(klog_mark)
insmod "$ko" cmd_timeout_ms=2000 && wait_dev
ok $? "orca loads with cmd_timeout_ms=2000"
resets0=$(emu_stat func_resets)
# A command outstanding for sure: the device holds its completion
# (cmd-delay, 10 min) and then stalls until told otherwise (hang), so
# nothing here races the device's own clock.
hostctl cmd-delay 600000 > /dev/null
t0=$(now_us)
fw_verb &
vpid=$!
held() { local p; p=$(emu_stat pending) && ((p >= 1)); }
wait_until "$ORCA_WAIT" held
diag "the device holds a command's completion (pending $(emu_stat pending), after $WAITED s); now it stalls"
hostctl hang > /dev/null
wait "$vpid"
rc=$?
[[ $rc != 0 && $rc != 124 ]]
ok $? "a command to the stalled device fails ($(secs_since "$t0") s)"
timeout -k 5 "$ORCA_WAIT" rmmod orca
ok $? "rmmod while the device stalls"
klog_since "$m" | grep -q "leaking the command queue"
ok $? "no reset acknowledgement: the driver leaks the queues instead of freeing them"
w0=$(emu_stat dma_writes)
hb0=$(heartbeat)
hostctl cmd-delay 0 > /dev/null
hostctl stall 1 > /dev/null   # wake up in 1-2 ticks
# the device runs 20 heartbeat ticks (2 s of its time) after waking
woke() { ticked "${hb0:-0}" 20 && (($(emu_stat func_resets) > resets0)); }
wait_until "$ORCA_WAIT" woke
diag "the device woke up and ran 20 ticks: $(hostctl ping) ($WAITED s)"
w1=$(emu_stat dma_writes)
resets1=$(emu_stat func_resets)
[[ -n $hb0 && -n $w0 && $w0 == "$w1" ]] && ticked "$hb0" 20
ok $? "after the device woke up: no DMA write since rmmod (dma_writes $w0 -> $w1, heartbeat $hb0 -> $(heartbeat))"
(( resets1 == resets0 + 1 ))
ok $? "the device performed the pending reset first (func_resets $resets0 -> $resets1)"
no_oops "$m" "stalled device: no WARNING or oops"

# ---------------------------------------------------------------- 4
m=$(klog_mark)
insmod "$ko" cmd_timeout_ms=1000 && wait_dev
ok $? "orca loads again after the stall"
# the device answers each command 10 min late: the 1000 ms timeout comes
# first however slow the machine is; the answer stays held (pending)
resets0=$(emu_stat func_resets)
hostctl cmd-delay 600000 > /dev/null
t0=$(now_us)
fw_verb
rc=$?
[[ $rc != 0 && $rc != 124 ]] && klog_since "$m" | grep -q "timed out after 1000 ms"
ok $? "a command the slow device answers late times out ($(secs_since "$t0") s)"
# the driver resets a dead device at once (tests/vm/dead-dma.sh), so the
# held completion may be gone already; rmmod resets it in any case
p0=$(emu_stat pending)
timeout -k 5 "$ORCA_WAIT" rmmod orca
ok $? "rmmod after the timeout"
! klog_since "$m" | grep -q "leaking"
ok $? "the slow device acknowledged the reset: nothing leaked"
p1=$(emu_stat pending)
resets1=$(emu_stat func_resets)
w0=$(emu_stat dma_writes)
hb0=$(heartbeat)
wait_until "$ORCA_WAIT" ticked "${hb0:-0}" 20
w1=$(emu_stat dma_writes)
[[ $p1 == 0 && $resets1 -gt $resets0 && -n $hb0 && -n $w0 && $w0 == "$w1" ]] && ticked "$hb0" 20
ok $? "the late completion was dropped: held $p0 -> $p1 by a reset (func_resets $resets0 -> $resets1), no DMA write since rmmod over 20 device ticks (dma_writes $w0 -> $w1)"
hostctl cmd-delay 0 > /dev/null
no_oops "$m" "slow device: no WARNING or oops"

# ---------------------------------------------------------------- 5
insmod "$ko" && wait_dev
ok $? "orca loads with the defaults afterwards"
c0=$(< "/sys/class/infiniband/$dev/ports/1/hw_counters/fw_cmds")
ibv_devinfo -d "$dev" > /dev/null
ok $? "ibv_devinfo -d $dev works"
c1=$(< "/sys/class/infiniband/$dev/ports/1/hw_counters/fw_cmds")
(( c1 > c0 ))
ok $? "hw_counters/fw_cmds counts the firmware commands ($c0 -> $c1)"
out=$(rdma statistic show link "$dev/1" 2>&1)
[[ $out == *fw_cmds* && $out == *async_events_lost* ]]
ok $? "rdma statistic show link $dev/1 lists the transport counters"
[[ $out == *fw_cmds* ]] || diag "$out"
done_testing
