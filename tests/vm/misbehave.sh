#!/bin/bash
# Guest test: a device that breaks the protocol (hostctl misbehave ...).
# Each fault must get a clear kernel log line and, where it matters, an
# errno; never an oops, a hang or a WARNING.  Prints TAP; exit status =
# number of failures.
#
#  1. stale-cpl: a completion for a token nobody has outstanding is
#     counted (fw_stale_completions) and ignored; the device keeps working.
#  2. dup-cpl: a command completed twice: the second is stale.
#  3. long-cpl: a completion claiming more output than was offered fails
#     that command with EIO (fw_cmd_errors), nothing is copied.
#  4. bad-eqe: an event of an unknown type is logged and skipped.
#  5. irq-storm: 20000 interrupts with nothing new on both vectors:
#     nothing disabled ("nobody cared"), commands still complete.
#  6. health fatal while a command is outstanding: the command fails
#     within 5 s, the device is declared dead, users get DEVICE_FATAL.
#  7. eq-jump: an event producer index past the ring: dead, logged.
#  8. magic-change / fw-version-change: another firmware behind the
#     function is noticed with nobody calling a verb (health poll).
#  After each fatal case rmmod works and a reload brings orca0 back.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"

ko=${ORCA_KO:?ORCA_KO not set (run in the orca VM)}
dev=${ORCA_DEV:-orca0}
cnt=/sys/class/infiniband/$dev/ports/1/hw_counters
plan 28

klog_mark() { dmesg | wc -l; }
klog_since() { dmesg | tail -n +"$(($1 + 1))"; }
logged() {   # logged MARK PATTERN DESC: a kernel line since MARK matches
    local out
    out=$(klog_since "$1" | grep -E -- "$2")
    [[ -n $out ]]
    ok $? "$3"
    if [[ -n $out ]]; then diag "${out%%$'\n'*}"; else diag "$(klog_since "$1" | tail -5)"; fi
}
counter() { sleep_s 0.05; cat "$cnt/$1" 2> /dev/null || echo -1; }
alive() {   # one firmware command (QUERY_COUNTERS) goes through
    local a b
    a=$(counter dev_cmds)
    b=$(counter dev_cmds)
    ((a >= 0 && b > a))
}
is_dead() { dmesg | tail -n +"$(($1 + 1))" | grep -q "device dead"; }
wait_dead() {   # wait_dead MARK SECONDS
    local i
    for ((i = 0; i < $2 * 10; i++)); do
        is_dead "$1" && return 0
        sleep_s 0.1
    done
    return 1
}
reload() {   # rmmod, undo the fault, insmod, orca0 back and alive
    local i
    timeout -k 5 60 rmmod orca || return 1
    hostctl misbehave clear > /dev/null
    insmod "$ko" || return 1
    for ((i = 0; i < 100; i++)); do
        [[ -e /sys/class/infiniband/$dev ]] && break
        sleep_s 0.1
    done
    alive
}

# ---------------------------------------------------------------- 1
m=$(klog_mark)
s0=$(counter fw_stale_completions)
hostctl misbehave stale-cpl > /dev/null
sleep_s 0.2
s1=$(counter fw_stale_completions)
((s1 == s0 + 1))
ok $? "stale completion counted ($s0 -> $s1)"
logged "$m" "stale completion, token 0xbeef" "stale completion logged"
alive
ok $? "device works after a stale completion"

# ---------------------------------------------------------------- 2
s0=$(counter fw_stale_completions)
hostctl misbehave dup-cpl > /dev/null
alive
ok $? "a command completed twice still completes"
s1=$(counter fw_stale_completions)
((s1 >= s0 + 1))
ok $? "the duplicate is counted as stale ($s0 -> $s1)"

# ---------------------------------------------------------------- 3
m=$(klog_mark)
e0=$(counter fw_cmd_errors)
hostctl misbehave long-cpl > /dev/null
counter dev_cmds > /dev/null
e1=$(counter fw_cmd_errors)
((e1 == e0 + 1))
ok $? "a completion with more output than offered fails its command ($e0 -> $e1 errors)"
logged "$m" "device wrote [0-9]+ bytes, [0-9]+ expected" "the length mismatch is logged"
alive
ok $? "device works after an over-long completion"

# ---------------------------------------------------------------- 4
m=$(klog_mark)
hostctl misbehave bad-eqe > /dev/null
sleep_s 0.2
logged "$m" "unknown event type 0x7e" "unknown event type logged"
alive
ok $? "device works after an unknown event"

# ---------------------------------------------------------------- 5
m=$(klog_mark)
i0=$(awk '/orca/ { s = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; t += s } END { print t + 0 }' /proc/interrupts)
out=$(hostctl misbehave irq-storm 20000)
ok $? "irq-storm 20000: $out"
sleep_s 1
i1=$(awk '/orca/ { s = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; t += s } END { print t + 0 }' /proc/interrupts)
diag "orca interrupts $i0 -> $i1"
miss0=$(counter fw_missed_irqs)
alive
ok $? "commands complete after the storm"
miss1=$(counter fw_missed_irqs)
((miss1 == miss0))
ok $? "by interrupt, not by the waiter's re-poll (fw_missed_irqs $miss0 -> $miss1)"
! klog_since "$m" | grep -qE "nobody cared|Disabling IRQ"
ok $? "no interrupt was disabled as spurious"

# ---------------------------------------------------------------- 6
m=$(klog_mark)
hostctl cmd-delay 5000 > /dev/null
t0=$(now_us)
( sleep_s 0.05; cat "$cnt/dev_cmds" > /dev/null 2>&1 ) &
bg=$!
sleep_s 0.5
hostctl fatal > /dev/null
wait "$bg"
took=$(secs_since "$t0")
hostctl cmd-delay 0 > /dev/null
wait_dead "$m" 5
ok $? "health fatal with a command outstanding: device dead (the command returned after $took s)"
[[ ${took%%.*} -lt 5 ]]
ok $? "the outstanding command did not wait for its 5 s late completion ($took s)"
logged "$m" "device dead \\((firmware health is fatal|device reported a fatal error)\\)" "fatal health logged"
reload
ok $? "rmmod, reload: $dev works again"

# ---------------------------------------------------------------- 7
m=$(klog_mark)
hostctl misbehave eq-jump 5 > /dev/null
counter dev_cmds > /dev/null
wait_dead "$m" 5
ok $? "event producer index past the ring: device dead"
logged "$m" "event queue producer index out of range" "the bad producer index is logged"
reload
ok $? "rmmod, reload: $dev works again"

# ---------------------------------------------------------------- 8
for kind in magic-change fw-version-change; do
    m=$(klog_mark)
    t0=$(now_us)
    hostctl misbehave "$kind" > /dev/null
    wait_dead "$m" 5
    ok $? "$kind: noticed with no verb called ($(secs_since "$t0") s)"
    logged "$m" "firmware changed under the driver" "$kind: logged"
    reload
    ok $? "$kind: rmmod, reload: $dev works again"
done

# ---------------------------------------------------------------- the whole run
hits=$(dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|Call Trace|nobody cared')
[[ -z $hits ]]
ok $? "no WARNING, BUG, Oops or disabled IRQ in the whole run"
[[ -z $hits ]] || diag "$hits"
done_testing
