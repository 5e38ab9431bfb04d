#!/bin/bash
# Guest test: a dead device is a stopped device (issue 20, review-driver
# finding 1).  An RDMA WRITE stream runs between two processes on orca0
# (ib_write_bw, server and client in this guest) while the device dies.
#
#  1. A slow device: cmd-delay holds a command's completion far past
#     cmd_timeout_ms=1000, so the driver declares the device dead while
#     its data path still runs.  The driver resets it: the device's DMA
#     writes stop (over 20 of its heartbeat ticks) while both processes
#     still have their memory registered; they are killed, and the unload
#     leaks nothing.  Before the fix the WRITEs went on, and on into the
#     pages that the processes' exit gave back.
#  2. A stalled device (hang): the driver declares it dead (heartbeat) and
#     cannot reset it.  The processes are killed: the memory the device
#     could still reach stays pinned (held).  The device wakes, performs
#     the pending reset first, and the driver, seeing the acknowledgment,
#     gives the held memory back (its log line counts them); no DMA write
#     over 20 device ticks after waking (the device must tick them: one
#     that never ticks again fails); rmmod exits 0 and leaks nothing (no
#     'leaking' line); orca loads again; no WARNING or oops.
# Every wait is for a condition bounded by ORCA_WAIT; times are diagnostics.
# Prints TAP; exit status = number of failures.   ORCA_DEV (orca0), ORCA_KO
# (the functions wait_until calls look unreachable to shellcheck)
# shellcheck disable=SC2317
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
port=18790
plan 19

writes_above() { local w; w=$(emu_stat dma_writes) && ((w > $1)); }
logged() { klog_since "$mark" | grep -qE "$1"; }
new_mark() { mark="dead-dma: $1 $(now_us)"; echo "$mark" > /dev/kmsg; }

# stream: an ib_write_bw pair on $port, both in the background (spids);
# status 0 once the device's DMA writes climb
stream() {
    local w0
    port=$((port + 1))
    ib_write_bw -d "$dev" -p "$port" -D 300 > /dev/null 2>&1 &
    spids=($!)
    wait_until "$ORCA_WAIT" listening_or_ended "$port" "${spids[0]}" || return 1
    w0=$(emu_stat dma_writes) || return 1
    ib_write_bw -d "$dev" -p "$port" -D 300 127.0.0.1 > /dev/null 2>&1 &
    spids+=($!)
    wait_until "$ORCA_WAIT" writes_above "$((w0 + 1000))"
}
# stop_stream: kill both; status 0 once both have exited
both_ended() { ended "${spids[0]}" && ended "${spids[1]}"; }
stop_stream() {
    local rc
    kill -9 "${spids[@]}" 2>/dev/null
    wait_until "$ORCA_WAIT" both_ended
    rc=$?
    { wait "${spids[@]}"; } 2> /dev/null
    return $rc
}

# ---------------------------------------------------------------- 1
rmmod orca 2>/dev/null
new_mark slow
insmod "$ko" cmd_timeout_ms=1000 && wait_dev 1
ok $? "orca loads with cmd_timeout_ms=1000"
stream
ok $? "ib_write_bw streams RDMA WRITEs on $dev (dma_writes $(emu_stat dma_writes), $WAITED s)"
hostctl cmd-delay 600000 > /dev/null
fw_verb
logged 'device dead \(command timeout\)'
ok $? "a command the slow device answers late times out: the device is dead"
wait_until "$ORCA_WAIT" logged 'dead device stopped \(reset acknowledged\)'
ok $? "the driver resets the dead device ($WAITED s)"
! ended "${spids[0]}" && ! ended "${spids[1]}"
ok $? "both ib_write_bw processes still run, their memory registered"
w0=$(emu_stat dma_writes)
hb0=$(heartbeat)
wait_until "$ORCA_WAIT" ticked "${hb0:-0}" 20
w1=$(emu_stat dma_writes)
nums "$w0" "$hb0" && [[ $w0 == "$w1" ]] && ticked "$hb0" 20
ok $? "no DMA write over 20 device ticks after the reset (dma_writes $w0 -> $w1)"
stop_stream
ok $? "both processes exit when killed"
w2=$(emu_stat dma_writes)
[[ $w2 == "$w1" ]]
ok $? "no DMA write after they gave their memory back (dma_writes $w1 -> $w2)"
hostctl cmd-delay 0 > /dev/null
timeout -k 5 "$ORCA_WAIT" rmmod orca && ! logged 'leaking'
ok $? "rmmod: nothing leaked"
out=$(klog_oopses "$mark")
[[ -z $out ]]
ok $? "slow dead device: no WARNING or oops"
diag "$out"

# ---------------------------------------------------------------- 2
new_mark stalled
insmod "$ko" && wait_dev 1
ok $? "orca loads with the defaults"
stream
ok $? "ib_write_bw streams RDMA WRITEs again ($WAITED s)"
hostctl hang > /dev/null
wait_until "$ORCA_WAIT" logged 'dead device did not acknowledge the reset'
ok $? "the stalled device is declared dead and does not acknowledge the reset ($WAITED s)"
stop_stream
ok $? "both processes exit when killed (the driver holds their memory)"
hostctl stall 1 > /dev/null   # wake up in 1-2 ticks
re='dead device stopped \(reset acknowledged\): ([0-9]+) held'
wait_until "$ORCA_WAIT" logged "$re"
line=$(klog_since "$mark" | grep -oE "$re")
[[ $line =~ $re ]] && ((BASH_REMATCH[1] >= 3))
ok $? "the device wakes and acknowledges the reset: the held memory goes back ($line, $WAITED s)"
# the window: 20 ticks counted by the device from the first dma_writes
# read, which must all have passed (a device that never ticks again fails)
w0=$(emu_stat dma_writes)
hb0=$(heartbeat)
wait_until "$ORCA_WAIT" ticked "${hb0:-0}" 20
rc=$?
w1=$(emu_stat dma_writes)
((rc == 0)) && nums "$w0" "$hb0" && [[ $w0 == "$w1" ]] && ticked "$hb0" 20
ok $? "no DMA write over 20 device ticks after waking (dma_writes $w0 -> $w1, heartbeat ${hb0:-failed} -> $(heartbeat || echo failed))"
timeout -k 5 "$ORCA_WAIT" rmmod orca
rc=$?
((rc == 0)) && ! logged 'leaking'
ok $? "rmmod: nothing leaked (exit $rc)"
logged 'leaking' && diag "$(klog_since "$mark" | grep -E 'leaking')"
insmod "$ko" && wait_dev 1
ok $? "orca loads again"
out=$(klog_oopses "$mark")
[[ -z $out ]]
ok $? "stalled dead device: no WARNING or oops"
diag "$out"
done_testing
