#!/bin/bash
# Guest test, run last: unloading orca releases everything and the kernel log
# is clean.  Prints TAP; exit status = number of failures.
#   ORCA_DEV (orca0), ORCA_RMMOD_TIMEOUT (ORCA_WAIT, 120 s: a hang guard)
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"
# shellcheck source=tests/lib/klog.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/klog.sh"

dev=${ORCA_DEV:-orca0}
limit=${ORCA_RMMOD_TIMEOUT:-$ORCA_WAIT}
plan 7

if [[ -d /sys/module/orca ]]; then
    pass "orca module is loaded before rmmod"
else
    fail "orca module is loaded before rmmod"
fi

t0=$(now_us)
out=$(timeout -k 5 "$limit" rmmod orca 2>&1)
rc=$?
ok "$rc" "rmmod orca succeeds ($(secs_since "$t0") s)"
((rc == 0)) || diag "rc=$rc" "$out"

[[ ! -e /sys/module/orca ]]
ok $? "/sys/module/orca is gone"
[[ ! -e /sys/class/infiniband/$dev ]]
ok $? "/sys/class/infiniband/$dev is gone"

# builtin scans: no fork per line
hits=''
while IFS= read -r line; do
    [[ ${line,,} == *orca* ]] && hits+="$line"$'\n'
done < /proc/interrupts
[[ -z $hits ]]
ok $? "no orca interrupts left in /proc/interrupts"
[[ -z $hits ]] || diag "$hits"

hits=''
while IFS= read -r line; do
    [[ ${line,,} == *orca* ]] && hits+="$line"$'\n'
done < /proc/iomem
[[ -z $hits ]]
ok $? "no orca region left in /proc/iomem"
[[ -z $hits ]] || diag "$hits"

# The log from stage 2 on (klog_ours), when the first module of ours
# loads: nothing here is expected to warn.  The kernel's own boot before it
# ran none of our code; a report there is shown, not judged.
hits=''
while IFS= read -r line; do
    case $line in
    *"kmemleak: "*) ;;   # the debug kernel's kmemleak: debug-report.sh judges its suspects
    # vm-debug's failslab.sh fails the nth allocation of a thread; when that
    # is a user page fault's page, mm/oom_kill.c says so and the fault is
    # retried: the injected failure itself, not a leak
    *"Huh VM_FAULT_OOM leaked out to the #PF handler. Retrying PF"*) ;;
    *WARNING:* | *BUG:* | *"kernel BUG"* | *Oops* | *"general protection fault"* | \
        *"Call Trace"* | *[Ll]eak* | *UBSAN* | *KASAN* | *"refcount_t:"* | *"list_add corruption"* | \
        *"list_del corruption"* | *"sleeping function called"* | *"scheduling while atomic"*)
        hits+="$line"$'\n' ;;
    esac
done < <(klog_ours)
[[ -z $hits ]]
ok $? "dmesg has no WARN/BUG/Oops/leak lines"
[[ -z $hits ]] || diag "$hits"
boot=$(klog_boot_reports)
[[ -z $boot ]] || diag "the kernel's own boot, before stage 2 loaded anything of ours, reported (not judged here):" "$boot"

done_testing
