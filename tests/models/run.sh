#!/bin/bash
# Run the ties' programs (tests/models/Makefile) as one TAP stream: their
# tests renumbered, one plan; a program that ends without its plan, or
# with a status its failures do not explain, is one more failure.
#
# usage: tests/models/run.sh PROGRAM...
set -uo pipefail
n=0 failed=0
for prog in "$@"; do
    out=$("$prog" 2> /dev/null)
    rc=$?
    plans=0 bad=0
    while IFS= read -r line; do
        case $line in
        "ok "*|"not ok "*)
            n=$((n + 1))
            [[ $line == not* ]] && bad=$((bad + 1))
            # shellcheck disable=SC2001
            sed "s/^\(not \)\?ok [0-9]*/\1ok $n/" <<< "$line"
            ;;
        1..*) plans=$((plans + 1)) ;;
        *) printf '%s\n' "$line" ;;
        esac
    done <<< "$out"
    failed=$((failed + bad))
    if ((plans != 1 || (rc != 0) != (bad != 0))); then
        n=$((n + 1)) failed=$((failed + 1))
        echo "not ok $n - $(basename "$prog") ended with status $rc after $bad failures, $plans plans"
    fi
done
echo "1..$n"
exit $((failed > 0))
