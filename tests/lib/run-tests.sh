#!/bin/bash
# Guest-side TAP runner: run test programs/scripts one after another, pass
# their TAP through and print a summary comment per suite.
#
# usage: run-tests.sh TEST...
#   Each TEST is one word: a path, optionally followed by arguments separated
#   by blanks ("$BUILD/tests/verbs_limits -d orca0 --max-qp 8").  The path
#   may be a glob ("$BUILD/tests/verbs_* -d orca0"): one suite per executable
#   match; a pattern matching nothing is a failure.  A TEST prefixed with
#   "status:" is not TAP: its output becomes comments and it counts as one
#   test that passes iff it exits 0 ("status:$BUILD/tests/orca-demo -d orca0").
#   ORCA_TEST_TIMEOUT (default 300) bounds each suite in seconds; it is
#   exported, so that a suite can bound its own steps within it.
#
# Output is TAP: test lines ("ok"/"not ok"), plans and comments are passed
# through; any other output of a test is turned into a "# " comment so that it
# cannot be mistaken for a result.  A suite that crashed is reported with an
# extra "not ok - <suite>: ..." line: non-zero exit status without any failed
# test, a timeout, no test lines at all, a plan that does not match, or a
# "Bail out!".  Exit status: 0 if every suite passed, 1 otherwise.
# Only builtins in the per-line loop (fork+exec costs ~57 ms in the TCG guest).
set -u
shopt -s lastpipe

# ORCA_BOUND_SCALE (scripts/vm.sh): a guest beside another gets N times the bound
limit=$((${ORCA_TEST_TIMEOUT:-300} * ${ORCA_BOUND_SCALE:-1}))
export ORCA_TEST_TIMEOUT=$limit
suites=0 bad_suites=0 all_pass=0 all_fail=0 all_skip=0

elapsed() {  # $1 = start $EPOCHREALTIME -> "S.mmm"
    local d=$(((${EPOCHREALTIME/./} - ${1/./}) / 1000))
    printf '%d.%03d' $((d / 1000)) $((d % 1000))
}

# Expand glob patterns in the program path ("$BUILD/tests/verbs_* -d orca0"):
# one suite per executable match, the same arguments for each.  A pattern
# that matches nothing stays as it is and is reported as missing.
specs=()
for spec in "$@"; do
    prefix=''
    if [[ $spec == status:* ]]; then prefix=status: spec=${spec#status:}; fi
    read -r -a argv <<< "$spec"
    ((${#argv[@]})) || continue
    if [[ ${argv[0]} == *[*?[]* ]]; then
        n=0
        shopt -s nullglob
        # shellcheck disable=SC2206  # intended: glob expansion of the pattern
        matches=(${argv[0]})
        shopt -u nullglob
        for m in "${matches[@]}"; do
            [[ -f $m && -x $m ]] || continue
            specs+=("$prefix$m${spec:${#argv[0]}}")
            n=$((n + 1))
        done
        ((n)) || specs+=("$prefix$spec")
    else
        specs+=("$prefix$spec")
    fi
done

for spec in "${specs[@]}"; do
    status_only=0
    if [[ $spec == status:* ]]; then status_only=1 spec=${spec#status:}; fi
    read -r -a argv <<< "$spec"
    name=${argv[0]##*/}
    suites=$((suites + 1))
    pass=0 fail=0 skip=0 plan='' bail=0 rc=0
    echo "# ---- suite $name: $spec"
    t0=$EPOCHREALTIME
    if [[ ! -f ${argv[0]} || ! -x ${argv[0]} ]]; then
        echo "not ok - $name: ${argv[0]} does not exist or is not executable"
        fail=1 rc=127
    elif ((status_only)); then
        timeout -k 5 "$limit" "${argv[@]}" 2>&1 < /dev/null |
            while IFS= read -r line || [[ -n $line ]]; do printf '# %s\n' "$line"; done
        rc=${PIPESTATUS[0]}
        if ((rc == 0)); then
            echo "ok - $name exits with status 0"
            pass=1
        elif ((rc == 124 || rc == 137)); then
            echo "not ok - $name: timed out after $limit s"
            fail=1
        else
            echo "not ok - $name exits with status 0 (got $rc)"
            fail=1
        fi
    else
        timeout -k 5 "$limit" "${argv[@]}" 2>&1 < /dev/null |
            while IFS= read -r line || [[ -n $line ]]; do
                case $line in
                ok | "ok "* | "not ok" | "not ok "*)
                    lc=${line,,}
                    if [[ $lc =~ \#[[:space:]]*(skip|todo) ]]; then
                        skip=$((skip + 1))
                    elif [[ $line == ok* ]]; then
                        pass=$((pass + 1))
                    else
                        fail=$((fail + 1))
                    fi
                    printf '%s\n' "$line" ;;
                1..*)
                    plan=${line#1..}
                    plan=${plan%%[!0-9]*}
                    printf '%s\n' "$line" ;;
                "Bail out!"*)
                    bail=1
                    printf '%s\n' "$line" ;;
                "#"* | "") printf '%s\n' "$line" ;;
                *) printf '# %s\n' "$line" ;;
                esac
            done
        rc=${PIPESTATUS[0]}
        ran=$((pass + fail + skip))
        if ((rc == 124 || rc == 137)); then
            echo "not ok - $name: timed out after $limit s"
            fail=$((fail + 1))
        elif ((bail)); then
            echo "not ok - $name: bailed out"
            fail=$((fail + 1))
        elif ((ran == 0)) && [[ $plan == 0 ]]; then
            echo "ok - $name # SKIP whole suite skipped (1..0)"
            skip=$((skip + 1))
        elif ((ran == 0)); then
            echo "not ok - $name: produced no test results (exit status $rc)"
            fail=$((fail + 1))
        elif ((rc != 0 && fail == 0)); then
            echo "not ok - $name: exited with status $rc but reported no failure"
            fail=$((fail + 1))
        elif [[ -n $plan ]] && ((plan != ran)); then
            echo "not ok - $name: planned $plan tests but ran $ran"
            fail=$((fail + 1))
        fi
    fi
    echo "# suite $name: $pass passed, $fail failed, $skip skipped (exit $rc, $(elapsed "$t0") s)"
    all_pass=$((all_pass + pass)) all_fail=$((all_fail + fail)) all_skip=$((all_skip + skip))
    ((fail)) && bad_suites=$((bad_suites + 1))
done
echo "# run-tests: $suites suites ($bad_suites failed); tests $all_pass passed, $all_fail failed, $all_skip skipped"
((suites > 0 && bad_suites == 0))
