#!/bin/bash
# Print the results of every stage recorded by tap-stage.sh in DIR (in the
# order the stages ran) and, as the very last line, exactly
#   N passed, N failed, N skipped
# Exit status: 0 only if at least one stage ran and nothing failed.
# The totals are also written to DIR/totals ("P passed F failed S skipped").
#
# usage: tap-summary.sh DIR
set -uo pipefail
dir=${1:?usage: tap-summary.sh DIR}
files=()
if [[ -r $dir/stages ]]; then
    while read -r n; do
        [[ -n $n && -r $dir/$n.result ]] && files+=("$dir/$n.result")
    done < "$dir/stages"
fi
P=0 F=0 S=0 bad=0
echo
echo "==> summary ($dir)"
for f in "${files[@]}"; do
    read -r pass fail skip rc secs note < "$f" || continue
    name=${f##*/}
    name=${name%.result}
    mark=ok
    if ((fail)); then mark=FAIL; bad=$((bad + 1)); fi
    printf '  %-4s %-28s %4d passed %4d failed %4d skipped  %5d s%s\n' \
        "$mark" "$name" "$pass" "$fail" "$skip" "$secs" "${note:+  ($note, exit $rc)}"
    P=$((P + pass)) F=$((F + fail)) S=$((S + skip))
done
if ((${#files[@]} == 0)); then
    echo "  no stage recorded any result"
    F=$((F + 1))
fi
((bad)) && echo "  $bad of ${#files[@]} stages failed; logs: $dir/<stage>.log"
# the time budget (README: make check must fit CI), longest stages first
if ((${#files[@]})); then
    for f in "${files[@]}"; do
        read -r _ _ _ _ secs _ < "$f" || continue
        name=${f##*/}
        printf '%d %s\n' "$secs" "${name%.result}"
    done | sort -rn -k1,1 | awk '
        { s[NR] = $1; n[NR] = $2; t += $1 }
        END {
            printf "\n==> time per stage, longest first: %d s (%.1f min) in all\n", t, t / 60
            for (i = 1; i <= NR; i++)
                printf "  %6d s  %5.1f %%  %s\n", s[i], t ? 100 * s[i] / t : 0, n[i]
        }'
fi
# CI keeps only the tail of the output: name the failed checks here, each
# with its suite and the first diagnostic line under it
for f in "${files[@]}"; do
    read -r pass fail skip rc secs note < "$f" || continue
    ((fail)) || continue
    log=${f%.result}.log
    name=${f##*/}
    [[ -r $log ]] || continue
    awk -v stage="${name%.result}" '
        /^# ---- suite / { suite = $4; sub(/:$/, "", suite); next }
        want && /^#/ { print "      " substr($0, 1, 160); want = 0; next }
        { want = 0 }
        /^not ok/ && n < 12 { print "  " stage ": " (suite ? suite ": " : "") substr($0, 1, 160); want = 1; n++ }
        END { if (n >= 12) print "  " stage ": (more in its log)" }
    ' "$log"
    # a stage that ran out of time names no check: say where it stood and
    # what the guest's hang report (scripts/vm/stage2.sh) saw
    [[ $note == "timed out" || $note == *timed_out* ]] || continue
    awk -v stage="${name%.result}" '
        function say(s) { if (n++ < 30) print "  " stage ": " substr(s, 1, 150) }
        /^# ---- suite / { suite = $0 }
        /^(not )?ok / { last = $0 }
        /^orca-vm watchdog:|^vm.sh: --- no hang report/ {
            say("last suite started: " suite); say("last result: " last); say($0); next }
        /^--- tasks not in interruptible sleep/ { part = "tasks"; k = 0; next }
        /^--- kernel stack of / { part = "stack"; k = 0; if (stacks++ < 3) say($0); next }
        /^--- kernel log/ { part = "log"; next }
        /^vm.sh: --- / { part = ""; next }
        part == "tasks" && k++ < 8 { say($0) }
        part == "stack" && stacks <= 3 && k++ < 6 { say("    " $0) }
        part == "log" && /rcu.*stall|blocked for more than|soft lockup|BUG|WARNING|Oops|NMI backtrace|RIP:/ && logs++ < 6 { say($0) }
    ' "$log"
done
echo "$P passed $F failed $S skipped" > "$dir/totals" 2>/dev/null
echo "$P passed, $F failed, $S skipped"
((F == 0))
