#!/bin/bash
# Guest test: the firmware (orca-emu) dies while a context is open.
# Verbs that need the firmware must fail, not hang; once the device is
# known dead they fail without a command sent to it (the driver's fw_cmds
# and fw_cmd_timeouts do not move); the driver must log that the device is
# dead; closing the context and rmmod must work.  Every wait is bounded by
# ORCA_DEAD_BOUND (default ORCA_WAIT, 120 s: it costs time only when the
# test fails); times are diagnostics, never pass conditions.
# Prints TAP; exit status = number of failures.
#   ORCA_DEV (orca0), ORCA_DEAD_BOUND (ORCA_WAIT)
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"

dev=${ORCA_DEV:-orca0}
bound=${ORCA_DEAD_BOUND:-$ORCA_WAIT}
cnt=/sys/class/infiniband/$dev/ports/1/hw_counters
plan 12

# A context holder: opens the device, allocates a PD and a CQ, then executes
# one command per stdin line and answers "<cmd> <seconds> ok|error ...".
read -r -d '' HOLDER <<'PY'
import sys, time
import pyverbs.enums as e
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.cq import CQ
from pyverbs.qp import QPCap, QPInitAttr, QP

def say(*a):
    print(*a, flush=True)

try:
    ctx = Context(name=sys.argv[1])
    pd = PD(ctx)
    cq = CQ(ctx, 16)
except Exception as ex:
    say("setup error", str(ex).replace("\n", " "))
    sys.exit(1)
say("ready")
for line in sys.stdin:
    cmd = line.strip()
    t = time.monotonic()
    try:
        if cmd == "qp":
            cap = QPCap(max_send_wr=4, max_recv_wr=4, max_send_sge=1, max_recv_sge=1)
            qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap))
            qp.close()
            r = "ok"
        elif cmd == "exit":
            break
        else:
            r = "error unknown command"
    except Exception as ex:
        r = "error " + str(ex).replace("\n", " ")
    say("%s %.3f %s" % (cmd, time.monotonic() - t, r))
try:
    ctx.close()
except Exception as ex:
    say("close error", str(ex).replace("\n", " "))
    sys.exit(2)
say("closed")
PY

# holder_cmd CMD TIMEOUT: send CMD, wait for its answer; sets REPLY_LINE.
holder_cmd() {
    REPLY_LINE=''
    { printf '%s\n' "$1" >&"${HOLD[1]}"; } 2>/dev/null || return 1
    IFS= read -r -t "$2" -u "${HOLD[0]}" REPLY_LINE
}

# 1
[[ -e /sys/class/infiniband/$dev ]]
ok $? "$dev is registered"

# 2: context holder up
coproc HOLD { exec python3 -u -c "$HOLDER" "$dev" 2>&1; }
holder_pid=$HOLD_PID    # bash unsets HOLD_PID once the coprocess has exited
line=''
IFS= read -r -t "$bound" -u "${HOLD[0]}" line
if [[ $line == ready ]]; then
    pass "context, PD and CQ open on $dev"
else
    fail "context, PD and CQ open on $dev"; diag "holder said: '$line'"
fi

# 3: baseline: the firmware path works before the kill
holder_cmd qp "$bound"
if [[ $REPLY_LINE == "qp "*" ok" ]]; then
    pass "create/destroy QP works before the kill ($REPLY_LINE)"
else
    fail "create/destroy QP works before the kill"; diag "got: '$REPLY_LINE'"
fi

# 4: kill the firmware through the host agent
out=$(hostctl kill 2>&1)
diag "hostctl kill -> rc=$? $out"
if out2=$(hostctl ping 2>&1); then
    fail "emulator is dead after 'kill' (ping still answered: $out2)"
    diag "falling back to emu-kill-9: $(hostctl emu-kill-9 2>&1)"
else
    pass "emulator is dead after 'kill' (ping fails)"
fi

# 5: first verb that needs the firmware fails within the bound
t0=$(now_us)
if holder_cmd qp "$bound"; then
    took=$(secs_since "$t0")
    if [[ $REPLY_LINE == "qp "*" error"* ]]; then
        pass "create QP fails after firmware death, in $took s (bound $bound s)"
        diag "$REPLY_LINE"
    else
        fail "create QP fails after firmware death (it succeeded in $took s)"; diag "$REPLY_LINE"
    fi
else
    fail "create QP fails after firmware death within $bound s (no answer: hung)"
fi

# 6: once dead, verbs fail fast: the driver refuses them without posting a
# command to the device (fw_cmds) or waiting for one (fw_cmd_timeouts).
# A dead device's hw_counters are the driver's own: reading them posts
# nothing.
c0=$(< "$cnt/fw_cmds") o0=$(< "$cnt/fw_cmd_timeouts")
t0=$(now_us)
if holder_cmd qp "$bound" && [[ $REPLY_LINE == "qp "*" error"* ]]; then
    took=$(secs_since "$t0")
    c1=$(< "$cnt/fw_cmds") o1=$(< "$cnt/fw_cmd_timeouts")
    if [[ -n $c0 && $c1 == "$c0" && -n $o0 && $o1 == "$o0" ]]; then
        pass "second create QP fails fast: no command sent to the dead device (fw_cmds $c0 -> $c1, fw_cmd_timeouts $o0 -> $o1)"
    else
        fail "second create QP fails fast: no command sent to the dead device (fw_cmds $c0 -> $c1, fw_cmd_timeouts $o0 -> $o1)"
    fi
    diag "it took $took s"
else
    fail "second create QP fails fast"; diag "got: '$REPLY_LINE'"
fi

# 7: ibv_devinfo (query_device/query_port) returns, does not hang
t0=$(now_us)
out=$(timeout -k 5 "$bound" ibv_devinfo -d "$dev" 2>&1)
rc=$?
took=$(secs_since "$t0")
if ((rc == 124 || rc == 137)); then
    fail "ibv_devinfo -d $dev returns within $bound s after firmware death (timed out)"
else
    pass "ibv_devinfo -d $dev returns within $bound s after firmware death ($took s, rc=$rc)"
fi
diag "ibv_devinfo rc=$rc:" "$out"

# 8: the driver says so
hits=''
while IFS= read -r l; do
    lc=${l,,}
    [[ $lc == *orca* && ($lc == *dead* || $lc == *"not responding"* || $lc == *unresponsive* ||
        $lc == *heartbeat*) ]] && hits+="$l"$'\n'
done < <(dmesg 2>&1)
[[ -n $hits ]]
ok $? "dmesg has the driver's device-dead line"
diag "$hits"

# 9: closing the context (destroying PD/CQ on a dead device) works
t0=$(now_us)
holder_cmd exit "$bound"
if [[ $REPLY_LINE == closed ]]; then
    pass "context closes on the dead device ($(secs_since "$t0") s)"
else
    fail "context closes on the dead device"; diag "got: '$REPLY_LINE'"
fi
wait_until "$bound" ended "$holder_pid"
kill -0 "$holder_pid" 2>/dev/null && { diag "holder still running; killing it"; kill -9 "$holder_pid"; }
wait "$holder_pid" 2>/dev/null

# 10: rmmod still works
t0=$(now_us)
out=$(timeout -k 5 "$bound" rmmod orca 2>&1)
rc=$?
ok "$rc" "rmmod orca succeeds after firmware death ($(secs_since "$t0") s)"
((rc == 0)) || diag "rc=$rc" "$out"

# 11, 12
[[ ! -e /sys/class/infiniband/$dev ]]
ok $? "/sys/class/infiniband/$dev is gone"
[[ ! -e /sys/module/orca ]]
ok $? "/sys/module/orca is gone"

done_testing
