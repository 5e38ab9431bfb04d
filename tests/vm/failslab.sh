#!/bin/bash
# Guest test for the debug kernel: allocation failures on every path of
# every verb that allocates (build/tests/failnth, /proc/thread-self/
# fail-nth with failslab and fail_page_alloc taking GFP_KERNEL too).
# Every error path must unwind: the verb fails cleanly, nothing stays
# allocated on the device (the emulator's object counts come back), the
# verb works again afterwards, and kmemleak (debug-report.sh, last) finds
# nothing.  Prints TAP; exit status = number of failures.
# (the functions wait_until calls look unreachable to shellcheck)
# shellcheck disable=SC2317
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"

dev=${ORCA_DEV:-orca0}
tool=${ORCA_BUILD:?}/tests/failnth
dbg=/sys/kernel/debug
objs() {   # the emulator's live objects: "qps=N cqs=N pds=N mrs=N"
    local s k out=''
    s=" $(hostctl stats)"
    for k in qps cqs pds mrs; do
        v=${s##* "$k"=}
        out+="$k=${v%% *} "
    done
    printf '%s' "${out% }"
}

if [[ ! -e /proc/thread-self/fail-nth || ! -d $dbg/failslab ]]; then
    plan 1
    skip "allocation-failure injection" "this kernel has no fault injection (run on the debug kernel)"
    exit 0
fi
plan 11
for f in failslab fail_page_alloc; do
    echo N > "$dbg/$f/ignore-gfp-wait"
    echo 0 > "$dbg/$f/verbose"
done
echo N > "$dbg/fail_page_alloc/ignore-gfp-highmem"
echo 0 > "$dbg/fail_page_alloc/min-order"

before=$(objs)
t0=$(now_us)
out=$("$tool" -d "$dev" 2>&1)
rc=$?
secs=$(secs_since "$t0")
n=0
while IFS= read -r line; do
    [[ $line == VERB* ]] || continue
    n=$((n + 1))
    read -r _ name sites failed oks after <<< "$line"
    [[ $after == after=works && ${sites#sites=} -gt 0 && ${failed#failed=} -gt 0 ]]
    ok $? "$name: ${sites#sites=} allocation sites failed in turn: ${failed#failed=} calls failed cleanly, ${oks#ok=} succeeded anyway; then it ${after#after=}"
done <<< "$out"
((n == 8))
ok $? "failnth covered 8 verbs ($n) in $secs s (exit $rc)"
((n == 8)) || diag "$out"
# (the objects go as the files close: waited for, bounded)
objs_back() { after=$(objs); [[ $after == "$before" ]]; }
wait_until "$ORCA_WAIT" objs_back
[[ $after == "$before" ]]
ok $? "nothing left on the device: $before -> $after"
((rc == 0))
ok $? "failnth exit status 0 ($rc)"
for f in failslab fail_page_alloc; do
    echo Y > "$dbg/$f/ignore-gfp-wait"
done
done_testing
