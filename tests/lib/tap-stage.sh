#!/bin/bash
# Host side of the result aggregation used by `make check` (and unit, lint,
# vmtest): run one stage, show its output, record its results.
#
# usage: tap-stage.sh [--cmd] DIR NAME -- CMD...
#
# Runs CMD (stdout+stderr to the terminal and to DIR/NAME.log) and writes
# DIR/NAME.result: "pass fail skip exit seconds note"; NAME is appended to
# DIR/stages (the order for the summary).
#   default  CMD prints TAP.  Top-level "ok"/"not ok" lines are counted;
#            "# SKIP"/"# TODO" directives count as skipped, never as passed.
#            The stage also counts one extra failure if it crashed: non-zero
#            exit status without any failed test, no test lines at all,
#            "Bail out!", or (with exactly one plan line) a plan mismatch.
#   --cmd    CMD prints no TAP; the stage is one test, passed iff CMD exits 0
#            (build steps, deps, lint tools).
# ORCA_STAGE_TIMEOUT (default 3600 s, times ORCA_BOUND_SCALE) bounds the
# stage; processes the stage
# leaves behind (in its process group) are killed when it ends.
# Exit status: 0 if the stage passed, 1 otherwise.
# tests/lib/tap-summary.sh DIR prints the totals of all stages in DIR.
set -uo pipefail

mode=tap
if [[ ${1:-} == --cmd ]]; then mode=cmd; shift; fi
if (($# < 4)) || [[ $3 != -- ]]; then
    echo "usage: tap-stage.sh [--cmd] DIR NAME -- CMD..." >&2
    exit 2
fi
dir=$1 name=$2
limit=$((${ORCA_STAGE_TIMEOUT:-3600} * ${ORCA_BOUND_SCALE:-1}))
shift 3
mkdir -p "$dir"
log=$dir/$name.log
res=$dir/$name.result

bold='' norm=''
if [[ -t 1 ]]; then bold=$'\e[1m' norm=$'\e[0m'; fi
printf '\n%s==> [%s] %s%s\n' "$bold" "$name" "$*" "$norm"
# ORCA_STAGE_QUIET=1 (stages that run beside each other): the log is
# printed whole when the stage ends, not as it grows, one stage at a time
quiet=${ORCA_STAGE_QUIET:-0}
t0=${EPOCHREALTIME/./}
# The command writes to the log file (not a pipe: a process it leaks would
# hold a pipe open forever) under timeout, which makes it the leader of its
# own process group; whatever is left in that group afterwards is killed.
# tail shows the log as it grows and stops when the command has exited.
: > "$log"
timeout -k 30 "$limit" "$@" > "$log" 2>&1 < /dev/null &
cpid=$!
trap 'kill -TERM "$cpid" 2>/dev/null; wait "$cpid"; kill -KILL -- "-$cpid" 2>/dev/null; exit 130' INT TERM
tpid=
if ((quiet)); then
    echo "(the stage's output follows when it ends: $log)"
else
    tail -n +1 -s 0.2 -f --pid="$cpid" "$log" &
    tpid=$!
fi
wait "$cpid"
rc=$?
trap - INT TERM
[[ -n $tpid ]] && wait "$tpid"
if ((quiet)); then
    exec 8>> "$dir/.output.lock"
    flock 8
    printf '\n%s==> [%s] output%s\n' "$bold" "$name" "$norm"
    cat "$log"
fi
kill -KILL -- "-$cpid" 2>/dev/null
secs=$(((${EPOCHREALTIME/./} - t0) / 1000000))
((rc == 124)) && echo "tap-stage: $name timed out after $limit s" | tee -a "$log"

if [[ $mode == cmd ]]; then
    if ((rc == 0)); then
        set -- 1 0 0 "$rc" "$secs" ""
    elif ((rc == 124)); then
        set -- 0 1 0 "$rc" "$secs" "timed out"
    else
        set -- 0 1 0 "$rc" "$secs" "exit status $rc"
    fi
else
    # shellcheck disable=SC2046
    set -- $(awk -v rc="$rc" -v secs="$secs" '
        /^ok([ \t]|$)/ || /^not ok([ \t]|$)/ {
            l = tolower($0)
            if (l ~ /#[ \t]*(skip|todo)/) skip++
            else if ($0 ~ /^ok/) pass++
            else fail++
            next
        }
        /^1\.\.[0-9]+/ { plans++; split(substr($0, 4), a, /[^0-9]/); plan = a[1] + 0; next }
        /^Bail out!/ { bail = 1 }
        END {
            ran = pass + fail + skip; note = "-"
            if (rc == 124) { fail++; note = "timed_out" }
            else if (bail) { fail++; note = "bailed_out" }
            else if (ran == 0 && plans == 1 && plan == 0) { skip++; note = "skipped_1..0" }
            else if (ran == 0) { fail++; note = "no_test_results" }
            else if (rc != 0 && fail == 0) { fail++; note = "crashed:exit_status_" rc }
            else if (plans == 1 && plan != ran) { fail++; note = "plan_" plan "_ran_" ran }
            printf "%d %d %d %d %d %s\n", pass, fail, skip, rc, secs, note
        }' "$log")
    [[ $6 == - ]] && set -- "$1" "$2" "$3" "$4" "$5" ""
fi
pass=$1 fail=$2 skip=$3 note=${6//_/ }
printf '%s %s %s %s %s %s\n' "$pass" "$fail" "$skip" "$rc" "$secs" "$note" > "$res"
grep -qxF -- "$name" "$dir/stages" 2>/dev/null || echo "$name" >> "$dir/stages"
status=passed
((fail)) && status=FAILED
printf '%s<== [%s] %s: %d passed, %d failed, %d skipped (exit %d, %d s)%s%s\n' \
    "$bold" "$name" "$status" "$pass" "$fail" "$skip" "$rc" "$secs" "${note:+; $note}" "$norm"
((fail == 0))
