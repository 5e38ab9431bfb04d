#!/bin/bash
# The device model's libFuzzer harnesses (emulator/fuzz/), as TAP.
#
# For each harness (fuzz_cmd: the command queue; fuzz_qp: the QP state
# machine; fuzz_dp: the data path; fuzz_pkt: the packet decoder;
# fuzz_mad: the SMA/PMA library):
#   1. replay its regression corpus, emulator/fuzz/corpus/<name>/: inputs
#      that once crashed it or that reach deep paths; every one must pass;
#   2. fuzz for SECONDS (default $FUZZ_SECONDS or 60) from that corpus with
#      seed $FUZZ_SEED (default: the time, printed); new inputs go to
#      $BUILD/fuzz/work/<name>, crashes to $BUILD/fuzz/artifacts/<name>/
#      with the command that reproduces them.
# Built with clang, -fsanitize=fuzzer,address,undefined: an out-of-bounds
# access, undefined behaviour, a leak or a broken device invariant (an
# abort in the harness) fails the harness.
#
# usage: tests/fuzz/run.sh [SECONDS]        (BUILD from the environment)
set -u
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck source=tests/lib/tap.sh
. "$REPO/tests/lib/tap.sh"

BUILD=${BUILD:-$REPO/build}
SECS=${1:-${FUZZ_SECONDS:-60}}
SEED=${FUZZ_SEED:-$(date +%s)}
names=(cmd qp dp pkt mad switch)
out=$BUILD/fuzz

plan $((1 + 2 * ${#names[@]}))
mkdir -p "$out"
if make -C "$REPO/emulator" BUILD="$BUILD" fuzz > "$out/build.log" 2>&1; then
    pass "build the harnesses (clang, -fsanitize=fuzzer,address,undefined)"
else
    fail "build the harnesses (clang, -fsanitize=fuzzer,address,undefined)"
    diag "$(tail -20 "$out/build.log")"
    echo "Bail out! no fuzzers"
    exit 1
fi
diag "seed $SEED (replay a run with FUZZ_SEED=$SEED), $SECS s per harness"

stat_of() { sed -n "s/^stat::$1: *\([0-9]*\).*/\1/p" "$2" | tail -1; }

for n in "${names[@]}"; do
    bin=$out/fuzz_$n
    corpus=$REPO/emulator/fuzz/corpus/$n
    work=$out/work/$n
    art=$out/artifacts/$n
    log=$out/$n.log
    rm -rf "$work" "$art"
    mkdir -p "$work" "$art"

    shopt -s nullglob
    inputs=("$corpus"/*)
    shopt -u nullglob
    if ((${#inputs[@]} == 0)); then
        fail "fuzz_$n: regression corpus $corpus is empty"
    elif "$bin" -runs=0 "$corpus" > "$out/$n-replay.log" 2>&1; then
        pass "fuzz_$n: its ${#inputs[@]} regression inputs replay clean"
    else
        fail "fuzz_$n: its ${#inputs[@]} regression inputs replay clean"
        diag "$(grep -E 'ERROR|invariant|runtime error|SUMMARY' "$out/$n-replay.log" | head -5)"
    fi

    "$bin" -seed="$SEED" -max_total_time="$SECS" -max_len=1024 -len_control=0 \
        -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$art/" "$work" "$corpus" > "$log" 2>&1
    rc=$?
    execs=$(stat_of number_of_executed_units "$log")
    added=$(stat_of new_units_added "$log")
    cov=$(sed -n 's/.*DONE *cov: \([0-9]*\).*/\1/p' "$log" | tail -1)
    crashes=$(find "$art" -type f | wc -l)
    if ((rc == 0 && crashes == 0)) && [[ -n $execs ]]; then
        pass "fuzz_$n: $SECS s, ${execs} execs, ${added:-0} new inputs, coverage ${cov:-?} edges, 0 crashes"
    else
        fail "fuzz_$n: $SECS s, ${execs:-?} execs, $crashes crash inputs (exit $rc)"
        diag "$(grep -E 'ERROR|invariant|runtime error|SUMMARY|Test unit written' "$log" | head -8)"
        for a in "$art"/*; do
            [[ -e $a ]] && diag "reproduce: $bin $a"
        done
    fi
done
done_testing
