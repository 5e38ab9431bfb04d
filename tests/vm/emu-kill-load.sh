#!/bin/bash
# Guest test: the firmware (orca-emu) dies under load (issue 10 section 2).
# Traffic runs (ibv_rc_pingpong server and client over 127.0.0.1, and the
# verbs fuzzer, tests/fuzz/verbs_fuzz.c, with its forked children), then the
# emulator is killed.  The driver must mark the device dead and say so,
# deliver IBV_EVENT_DEVICE_FATAL to open contexts (ibv_asyncwatch), make
# verbs fail instead of hanging: a new application fails fast (no command
# waits for its timeout: the driver's fw_cmd_timeouts does not move), the
# fuzzer runs its remaining calls to a normal exit; once the old traffic is
# killed every object is released (rdma res back at its start values), no
# oops/WARNING, and rmmod works.
#
# Here the firmware stays dead; tests/vm/emu-restart.sh has it boot again
# (orca-emu --restart-after) and the device recovered.
#
# Every wait is for a condition, bounded by ORCA_DEAD_BOUND (default
# ORCA_WAIT, 120 s: it costs time only when the test fails); times are
# diagnostics, never pass conditions.
# Prints TAP; exit status = number of failures.
#   ORCA_DEV (orca0), ORCA_DEAD_BOUND (ORCA_WAIT)
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
build=${ORCA_BUILD:-$here/../../build}
fuzz=$build/tests/fuzz/verbs_fuzz
log=${ORCA_JOB:-/tmp}
seed=${ORCA_FUZZ_SEED:-$(( ${EPOCHREALTIME/./} % 1000000007 ))}
kinds=(pd cq qp mr ctx)
cnt=/sys/class/infiniband/$dev/ports/1/hw_counters
plan $((9 + ${#kinds[@]}))

_pair_rts() {   # both QPs of ibv_rc_pingpong in RTS: the pair is connected
    (($(rdma res show qp link "$dev" 2>/dev/null | grep -c 'state RTS .*comm ibv_rc_pingpong') >= 2))
}
_async_fatal() { grep -qEi 'catastrophic|fatal' "$log/asyncwatch.log"; }

res_mark_start
mark="emu-kill-load: start $EPOCHREALTIME"
echo "$mark" > /dev/kmsg
ip link set lo up 2>/dev/null

# 1: load
stdbuf -oL ibv_asyncwatch -d "$dev" > "$log/asyncwatch.log" 2>&1 &
watch=$!
ibv_rc_pingpong -d "$dev" -p 18790 -n 100000000 > "$log/pp-srv.log" 2>&1 &
srv=$!
wait_until "$bound" listening_or_ended 18790 "$srv"
listening 18790 || diag "the server did not listen ($WAITED s): $(< "$log/pp-srv.log")"
ibv_rc_pingpong -d "$dev" -p 18790 -n 100000000 127.0.0.1 > "$log/pp-cli.log" 2>&1 &
cli=$!
wait_until "$bound" _pair_rts
prc=$?
diag "the pingpong pair connected in $WAITED s"
# (unbounded until signalled after the kill: running when the device dies)
setsid "$fuzz" -d "$dev" --seed "$seed" --calls 1000000000 --after-usr1 20000 \
    > "$log/fuzz-emu-kill.log" 2>&1 &
fz=$!
# (the load runs a moment before the kill; no pass condition on time)
sleep_s 5
((prc == 0)) && kill -0 "$srv" 2>/dev/null && kill -0 "$cli" 2>/dev/null && kill -0 "$fz" 2>/dev/null
ok $? "traffic running: ibv_rc_pingpong pair connected and verbs_fuzz seed $seed"

# 2: firmware death (the driver's counters read while it is alive)
o0=$(< "$cnt/fw_cmd_timeouts")
out=$(hostctl kill 2>&1)
diag "hostctl kill -> $out"
t0=$(now_us)
if hostctl ping > /dev/null 2>&1; then
    fail "emulator is dead after 'kill' (ping still answered)"
else
    pass "emulator is dead after 'kill'"
fi

# 3: a new application fails fast: the driver finds the device dead (its
# heartbeat stopped) instead of letting each command wait for its timeout
# (cmd_timeout_ms, 30 s): no command timed out, the fuzzer's included.
# The running pair does not end by itself and is not expected to: it
# polls its CQs in userspace, where no completion will come from a dead
# device, and does not watch async events.
t1=$(now_us)
out=$(timeout -k 2 "$bound" ibv_rc_pingpong -d "$dev" -p 18791 -n 10 2>&1)
rc=$?
took=$(secs_since "$t1")
o1=$(< "$cnt/fw_cmd_timeouts")
((rc != 0 && rc != 124 && rc != 137)) && [[ -n $o0 && $o1 == "$o0" ]]
ok $? "a new ibv_rc_pingpong fails on the dead device, no command waiting for its timeout (exit $rc; fw_cmd_timeouts $o0 -> $o1)"
diag "${out%%$'\n'*}" "(it took $took s)"
kill -0 "$cli" 2>/dev/null && kill -0 "$srv" 2>/dev/null &&
    diag "the running pair still polls its CQs (no completions from a dead device): killed"
kill -9 "$cli" "$srv" 2>/dev/null
wait "$cli" "$srv" 2>/dev/null

# 4: the fuzzer runs its last 20000 calls against the dead device, to a normal exit
fuzz_finish "$fz" "$bound"
frc=$?
took=$(secs_since "$t0")
((frc == 0))
ok $? "verbs_fuzz exits normally after the firmware died (exit $frc, $took s after the kill)"
diag "$(grep -E '^# (SIGUSR1|steps|children|errno histogram|verbs_fuzz)' "$log/fuzz-emu-kill.log")"
((frc == 0)) || diag "$(grep -A 24 'fatal signal' "$log/fuzz-emu-kill.log")"
wait_until "$bound" ended "-$fz"
ok $? "no fuzzer child left ($WAITED s after the fuzzer)"
kill -9 -- "-$fz" 2>/dev/null

# 5: the driver said so, and told the contexts
hits=$(klog_since "$mark" | grep -i orca | grep -iE 'dead|not responding|heartbeat')
[[ -n $hits ]]
ok $? "dmesg has the driver's device-dead line"
diag "${hits%%$'\n'*}"
# ibv_event_type_str(IBV_EVENT_DEVICE_FATAL) is "local catastrophic error"
wait_until "$bound" _async_fatal
kill "$watch" 2>/dev/null
wait "$watch" 2>/dev/null
ev=$(grep -Ei 'catastrophic|fatal' "$log/asyncwatch.log" | head -1)
[[ -n $ev ]]
ok $? "ibv_asyncwatch got IBV_EVENT_DEVICE_FATAL (${ev:-nothing: $(tail -2 "$log/asyncwatch.log")})"

# 6: every object released
res_settle
for k in "${kinds[@]}"; do
    is "${RES[$k]:-missing}" "${START[$k]}" "rdma res $dev $k back to its start value (${START[$k]} -> ${RES[$k]:-missing})"
done

# 7: kernel log clean, rmmod works
hits=$(klog_oopses "$mark")
[[ -z $hits ]]
ok $? "no oops, BUG or WARNING since the start"
[[ -z $hits ]] || diag "$(head -30 <<< "$hits")"
t0=$(now_us)
out=$(timeout -k 5 "$bound" rmmod orca 2>&1)
rc=$?
ok "$rc" "rmmod orca after firmware death under load ($(secs_since "$t0") s)"
((rc == 0)) || diag "$out"

done_testing
