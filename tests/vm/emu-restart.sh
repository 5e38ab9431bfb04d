#!/bin/bash
# Guest test: the firmware dies under load and boots again (issue 10
# section 2, "an emulator killed and restarted under load").
#
# vm.sh --emu-restart MS runs orca-emu as a PCI function that outlives its
# firmware (orca-emu --restart-after): BAR2, the doorbell and MSI-X
# eventfds and the control socket stay, the firmware is a child process
# that 'hostctl kill' SIGKILLs and that boots again MS ms later at
# power-on state with the next generation.
#
# Twice, under load (an ibv_rc_pingpong pair and the verbs fuzzer): the
# firmware is killed; the driver marks the device dead with a log line,
# the contexts get IBV_EVENT_DEVICE_FATAL; the firmware comes back with
# the next generation; the old traffic ends and every object is released
# (rdma res); orca0 comes back on the new firmware and data moves again:
#   round 1, orca's fw_recovery=1 (the default): the driver sees the new
#     firmware and re-creates the device by itself (mlx5's recovery);
#   round 2, fw_recovery=0: the device stays dead (a new application
#     fails without a command sent to the device, even though the
#     firmware is up) until the administrator removes and rescans the PCI
#     function.
# Then: no oops/WARNING in the log, rmmod works, and insmod brings orca0
# back (vm-debug runs more tests after this one).
#
# Every wait is for a condition, bounded by ORCA_DEAD_BOUND (default
# ORCA_WAIT, 120 s: it costs time only when the test fails); the time
# taken is a diagnostic, never a pass condition.  "Fails fast" is what the
# driver counted: no firmware command posted (fw_cmds), none timed out
# (fw_cmd_timeouts).
# Prints TAP; exit status = number of failures.
#   ORCA_DEV (orca0), ORCA_DEAD_BOUND (ORCA_WAIT), ORCA_RESTART_FUZZ_CALLS
#   (steps of the fuzzer on the dead device: 20000; make check's
#   vm-emu-restart: 10000).  The fuzzer runs until the test has seen the
#   device die and signals it (verbs_fuzz --after-usr1), so it is running
#   when the firmware dies however fast or slow the host is.
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
bound=${ORCA_DEAD_BOUND:-$ORCA_WAIT}
rounds=2
param=/sys/module/orca/parameters/fw_recovery
build=${ORCA_BUILD:-$here/../../build}
fuzz=$build/tests/fuzz/verbs_fuzz
log=${ORCA_JOB:-/tmp}
seed=${ORCA_FUZZ_SEED:-$(( ${EPOCHREALTIME/./} % 1000000007 ))}
fuzz_calls=${ORCA_RESTART_FUZZ_CALLS:-20000}
kinds=(pd cq qp mr ctx)
cnt=/sys/class/infiniband/$dev/ports/1/hw_counters
plan $((2 * (9 + ${#kinds[@]}) + 1 + 4 + 3))

generation() {   # the firmware's generation, from the control socket
    local out
    out=$(HOSTCTL_TIMEOUT=30 hostctl ping 2>/dev/null) || return 1
    [[ $out =~ generation=([0-9]+) ]] || return 1
    printf '%s' "${BASH_REMATCH[1]}"
}
_klog_hit() { hit=$(klog_since "$1" | grep -E "$2" | head -1); [[ -n $hit ]]; }
klog_wait() {   # klog_wait MARK REGEX: hit = the first such line, within $bound s
    wait_until "$bound" _klog_hit "$@"
}
_new_generation() { gen1=$(generation) && [[ -n $gen0 && $gen1 -gt $gen0 ]]; }
_pair_rts() {   # both QPs of ibv_rc_pingpong in RTS: the pair is connected
    (($(rdma res show qp link "$dev" 2>/dev/null | grep -c 'state RTS .*comm ibv_rc_pingpong') >= 2))
}
# a pingpong pair that moves data and checks it (-c), in the background;
# the client starts once the server listens, and the pair is up once both
# QPs are in RTS (within $bound s; status 1 if not)
start_pair() {   # start_pair PORT
    ibv_rc_pingpong -d "$dev" -p "$1" -c -n 100000000 > "$log/rs-srv.log" 2>&1 &
    srv=$!
    wait_until "$bound" listening_or_ended "$1" "$srv"
    listening "$1" || diag "the server did not listen on port $1 ($WAITED s): $(< "$log/rs-srv.log")"
    ibv_rc_pingpong -d "$dev" -p "$1" -c -n 100000000 127.0.0.1 > "$log/rs-cli.log" 2>&1 &
    cli=$!
    wait_until "$bound" _pair_rts
}
_async_fatal() { grep -qEi 'catastrophic|fatal' "$log/rs-async.log"; }
_port_active() { ibv_devinfo -d "$dev" 2>/dev/null | grep -q 'state:.*PORT_ACTIVE'; }

ip link set lo up 2>/dev/null
bdf=$(basename "$(readlink -f "/sys/class/infiniband/$dev/device")")
res_mark_start
first=$(now_us)
mark0="emu-restart: start $first"
echo "$mark0" > /dev/kmsg

for ((r = 1; r <= rounds; r++)); do
    mark="emu-restart: round $r $(now_us)"
    echo "$mark" > /dev/kmsg
    gen0=$(generation)
    echo $((r == 1)) > "$param"
    # 1: load
    stdbuf -oL ibv_asyncwatch -d "$dev" > "$log/rs-async.log" 2>&1 &
    watch=$!
    start_pair $((18800 + r))
    prc=$?
    diag "round $r: the pingpong pair connected in $WAITED s"
    setsid "$fuzz" -d "$dev" --seed $((seed + r)) --calls 1000000000 --after-usr1 "$fuzz_calls" \
        > "$log/rs-fuzz-$r.log" 2>&1 &
    fz=$!
    # (the load runs a moment before the kill; no pass condition on time)
    sleep_s 4
    ((prc == 0)) && kill -0 "$srv" 2>/dev/null && kill -0 "$cli" 2>/dev/null && kill -0 "$fz" 2>/dev/null
    ok $? "round $r: traffic on $dev (firmware generation ${gen0:-?}): rc_pingpong pair connected and verbs_fuzz seed $((seed + r))"

    # 2: the firmware dies
    out=$(hostctl kill 2>&1)
    ok $? "round $r: firmware killed (hostctl kill -> $out)"
    t0=$(now_us)

    # 3: the driver notices (heartbeat, or a new generation) and says so
    klog_wait "$mark" 'orca .*device dead'
    ok $? "round $r: the driver marks the device dead within $bound s ($(secs_since "$t0") s)"
    diag "${hit:-no 'device dead' line}"

    # 4: the firmware is back, as the next generation
    gen1=''
    wait_until "$bound" _new_generation
    [[ -n $gen0 && -n $gen1 && $gen1 -gt $gen0 ]]
    ok $? "round $r: the firmware booted again: generation $gen0 -> $gen1 ($(secs_since "$t0") s after the kill)"

    # 5: contexts told, old traffic ends
    wait_until "$bound" _async_fatal
    ok $? "round $r: ibv_asyncwatch got IBV_EVENT_DEVICE_FATAL ($(secs_since "$t0") s after the kill, bound $bound s)"
    _async_fatal || diag "ibv_asyncwatch printed: $(tail -3 "$log/rs-async.log")"
    kill "$watch" 2>/dev/null
    wait "$watch" 2>/dev/null
    # the device is dead: the fuzzer makes its last steps on it and ends
    fuzz_finish "$fz" "$bound"
    frc=$?
    ((frc == 0))
    ok $? "round $r: verbs_fuzz runs to a normal exit on the dead device (exit $frc)"
    diag "$(grep -E '^# (SIGUSR1|steps|children)' "$log/rs-fuzz-$r.log")"
    # a crash: the fuzzer's own report (signal, operation, seed, backtrace)
    ((frc == 0)) || diag "$(grep -A 24 'fatal signal' "$log/rs-fuzz-$r.log")"

    if ((r == 1)); then
        # 6a: the driver re-creates the device on the new firmware
        klog_wait "$mark" "orca .*recovered as $dev"
        ok $? "round $r: fw_recovery=1: the driver re-creates $dev by itself ($(secs_since "$t0") s after the kill)"
        diag "$(klog_since "$mark" | grep -E 'orca .*(booted again|recover)')"
    else
        # 6b: fw_recovery=0: the device stays dead on a live firmware
        klog_wait "$mark" 'orca .*firmware is back; fw_recovery=0'
        ok $? "round $r: fw_recovery=0: the driver sees the firmware back and says how to recover"
        diag "$hit"
        # Fast = refused by the driver without the device: no firmware
        # command posted (fw_cmds), none waited for its timeout
        # (fw_cmd_timeouts).  A dead device's counters are the driver's
        # own; reading them posts nothing.
        c0=$(< "$cnt/fw_cmds") o0=$(< "$cnt/fw_cmd_timeouts")
        t1=$(now_us)
        out=$(timeout -k 2 "$bound" ibv_rc_pingpong -d "$dev" -p 18799 -n 10 2>&1)
        rc=$?
        took=$(secs_since "$t1")
        c1=$(< "$cnt/fw_cmds") o1=$(< "$cnt/fw_cmd_timeouts")
        ((rc != 0 && rc != 124 && rc != 137)) && [[ -n $c0 && $c1 == "$c0" && -n $o0 && $o1 == "$o0" ]]
        ok $? "round $r: the device stays dead: a new ibv_rc_pingpong fails with no command sent to the device (exit $rc; fw_cmds $c0 -> $c1, fw_cmd_timeouts $o0 -> $o1)"
        diag "${out%%$'\n'*}" "(it took $took s)"
    fi
    kill -9 "$cli" "$srv" 2>/dev/null
    wait "$cli" "$srv" 2>/dev/null
    wait_until "$bound" ended "-$fz"
    kill -9 -- "-$fz" 2>/dev/null
    if ((r == 2)); then
        # 7: the administrator's recovery: PCI remove and rescan
        timeout -k 5 "$bound" sh -c "echo 1 > /sys/bus/pci/devices/$bdf/remove"
        rc=$?
        wait_dev 0 "$bound" || rc=1
        ok "$rc" "round $r: PCI remove of $bdf finishes and $dev goes ($WAITED s)"
        echo 1 > /sys/bus/pci/rescan
        wait_dev 1 "$bound"
        ok $? "round $r: PCI rescan: $dev is back ($WAITED s)"
    fi
    res_settle
    for k in "${kinds[@]}"; do
        is "${RES[$k]:-missing}" "${START[$k]}" "round $r: rdma res $dev $k at ${START[$k]}"
    done

    hit=$(klog_since "$mark" | grep -E 'orca .*firmware [0-9]+\.[0-9]+\.[0-9]+' | tail -1)
    [[ -n $hit ]]
    ok $? "round $r: the driver probed the new firmware"
    diag "$hit"
    wait_until "$bound" _port_active || diag "port 1 of $dev not ACTIVE within $bound s"
    ibv_rc_pingpong -d "$dev" -p $((18810 + r)) -c -n 2000 > "$log/rs-srv2.log" 2>&1 &
    s2=$!
    wait_until "$bound" listening_or_ended $((18810 + r)) "$s2"
    out=$(timeout -k 2 "$bound" ibv_rc_pingpong -d "$dev" -p $((18810 + r)) -c -n 2000 127.0.0.1 2>&1)
    rc=$?
    wait "$s2" || rc=$((rc ? rc : 1))
    ok "$rc" "round $r: data moves on the recovered device (ibv_rc_pingpong -c, 2000 iterations)"
    ((rc == 0)) || diag "$out" "$(cat "$log/rs-srv2.log")"
    out=$(generation)
    is "$out" "$gen1" "round $r: the recovered device runs on the restarted firmware (generation)"
done

hits=$(klog_oopses "$mark0")
[[ -z $hits ]]
ok $? "no oops, BUG or WARNING in $rounds kill/restart rounds ($(secs_since "$first") s)"
[[ -z $hits ]] || diag "$(head -30 <<< "$hits")"
out=$(timeout -k 5 "$bound" rmmod orca 2>&1)
ok $? "rmmod orca after the restarts"
[[ -z $out ]] || diag "$out"
# loaded again for whatever runs next in this boot
insmod "${ORCA_KO:?ORCA_KO not set (run in the orca VM)}" && wait_dev 1 "$bound"
ok $? "insmod: $dev is back"

done_testing
