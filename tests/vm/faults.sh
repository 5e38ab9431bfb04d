#!/bin/bash
# Guest test: the driver against a device that misbehaves (tests/lib/hostctl
# drives the emulator).  Prints TAP; exit status = number of failures.
#
#  1. cmd_timeout_ms outside 100..600000 is refused at load time.
#  2. Impossible capabilities (caps-override) refuse the probe with a log
#     line, before anything is sized from them: no WARNING, no orca0.
#  3. A device that stalls with a command outstanding (stall): the driver
#     declares it dead; rmmod gets no reset acknowledgement, so it leaks
#     the DMA memory instead of freeing it; the device, waking up, resets
#     before anything else: no DMA write after rmmod.
#  4. A slow but alive device (cmd-delay): a command times out; rmmod's
#     reset is acknowledged and drops the late completion: no DMA write
#     after rmmod, nothing leaked.
#  5. The module loads and works again afterwards.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"

ko=${ORCA_KO:?ORCA_KO not set (run in the orca VM)}
dev=${ORCA_DEV:-orca0}
plan 30

emu_stat() {   # emu_stat KEY: one counter of 'hostctl stats'
    local s
    s=$(hostctl stats) || return 1
    s=" ${s#ok }"
    s=${s##* "$1"=}
    printf '%s' "${s%% *}"
}
klog_mark() { dmesg | wc -l; }
klog_since() { dmesg | tail -n +"$(($1 + 1))"; }
no_oops() {   # no_oops MARK DESC
    local out
    out=$(klog_since "$1" | grep -E 'WARNING:|BUG:|Oops|general protection|Call Trace')
    [[ -z $out ]]
    ok $? "$2"
    [[ -z $out ]] || diag "$out"
}
reload() { rmmod orca 2>/dev/null; insmod "$ko" "$@"; }
# A verb that needs firmware commands (ibv_devinfo no longer does: the
# port mirror): ibv_rc_pingpong's server allocates a PD, a CQ and a QP,
# then waits for a client that never comes (exit 124 = all commands went
# through).
fw_verb() { timeout -k 2 "${1:-30}" ibv_rc_pingpong -d "$dev" -p 18777 > /dev/null 2>&1; }
wait_dev() {   # wait_dev: orca0 appears within 10 s
    local i
    for ((i = 0; i < 100; i++)); do
        [[ -e /sys/class/infiniband/$dev ]] && return 0
        sleep_s 0.1
    done
    return 1
}

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
    sleep_s 0.5
    set -- $lie
    [[ ! -e /sys/class/infiniband/$dev ]] &&
        klog_since "$m" | grep -qE "device reports ($1 = $2|$2 GIDs)"
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
hostctl stall 6000 > /dev/null
t0=$(now_us)
fw_verb
rc=$?
[[ $rc != 0 && $rc != 124 ]]
ok $? "a command to the stalled device fails ($(secs_since "$t0") s)"
rmmod orca
ok $? "rmmod while the device stalls"
klog_since "$m" | grep -q "leaking the command queue"
ok $? "no reset acknowledgement: the driver leaks the queues instead of freeing them"
w0=$(emu_stat dma_writes)
while (( ($(now_us) - t0) / 1000 < 7500 )); do sleep_s 0.2; done
w1=$(emu_stat dma_writes)
resets1=$(emu_stat func_resets)
[[ -n $w0 && $w0 == "$w1" ]]
ok $? "after the device woke up: no DMA write since rmmod (dma_writes $w0 -> $w1)"
(( resets1 == resets0 + 1 ))
ok $? "the device performed the pending reset first (func_resets $resets0 -> $resets1)"
no_oops "$m" "stalled device: no WARNING or oops"

# ---------------------------------------------------------------- 4
m=$(klog_mark)
insmod "$ko" cmd_timeout_ms=1000 && wait_dev
ok $? "orca loads again after the stall"
hostctl cmd-delay 3000 > /dev/null
t0=$(now_us)
fw_verb
rc=$?
[[ $rc != 0 && $rc != 124 ]] && klog_since "$m" | grep -q "timed out after 1000 ms"
ok $? "a command the slow device answers after 3 s times out ($(secs_since "$t0") s)"
rmmod orca
ok $? "rmmod after the timeout"
! klog_since "$m" | grep -q "leaking"
ok $? "the slow device acknowledged the reset: nothing leaked"
w0=$(emu_stat dma_writes)
while (( ($(now_us) - t0) / 1000 < 4500 )); do sleep_s 0.2; done
w1=$(emu_stat dma_writes)
[[ -n $w0 && $w0 == "$w1" ]]
ok $? "the late completion was dropped: no DMA write since rmmod (dma_writes $w0 -> $w1)"
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
