#!/bin/bash
# Host side of `make bench`: one VM boot (scripts/vm.sh --name bench) running
# tests/bench/bench.sh, then copies the table and raw data from the job dir to
# $RESULTS (default $BUILD/results/bench).  While the VM runs, samples (once a
# second) whether other QEMU processes share the cores and says so at the end:
# the timings of such a run are suspect.
# Exit status: vm.sh's (that of bench.sh: 0 = measured, whatever the targets).
set -u
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
BUILD=${BUILD:-$REPO/build}
RESULTS=${RESULTS:-$BUILD/results/bench}
NAME=bench

others() {   # QEMU processes that are not this run's VM
    local p n=0 cmd
    for p in $(pgrep -f '^qemu-system' 2>/dev/null); do
        cmd=$(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null) || continue
        [[ $cmd == *"/orca-vm-$NAME."* ]] || n=$((n + 1))
    done
    echo "$n"
}

rm -rf "$RESULTS"
mkdir -p "$RESULTS"
start=$EPOCHREALTIME
(   # sampler: "<seconds> <other VMs> <loadavg 1 min>"
    trap 'exit 0' TERM
    while :; do
        read -r la _ < /proc/loadavg
        echo "${EPOCHREALTIME%.*} $(others) $la"
        sleep 1
    done
) > "$RESULTS/host-load.txt" &
sampler=$!

BUILD=$BUILD "$REPO/scripts/vm.sh" --name "$NAME" --keep -- "$REPO/tests/bench/bench.sh"
rc=$?

kill "$sampler" 2>/dev/null
wait "$sampler" 2>/dev/null
wall=$(( (${EPOCHREALTIME/./} - ${start/./}) / 100000 ))
cp -p "$BUILD/vm/$NAME"/bench/*.txt "$BUILD/vm/$NAME"/console.log "$RESULTS"/ 2>/dev/null
((rc != 0)) || rm -rf "${BUILD:?}/vm/$NAME"     # kept for copying; on failure keep it
busy=$(awk '$2 > 0' "$RESULTS/host-load.txt" | wc -l)
total=$(wc -l < "$RESULTS/host-load.txt")
maxla=$(awk 'BEGIN { m = 0 } $3 > m { m = $3 } END { print m }' "$RESULTS/host-load.txt")
echo
echo "bench: wall time $((wall / 10)).$((wall % 10)) s; results in $RESULTS (table.txt, data.txt, strace.txt; the VM job dir is removed once copied, kept on failure)"
if ((busy > 0)); then
    echo "bench: WARNING: another QEMU VM was running during $busy of $total one-second samples (max load $maxla): timings may be disturbed; repeat"
else
    echo "bench: no other QEMU VM seen during the run ($total samples, max load $maxla)"
fi
if ((rc != 0)); then
    echo "bench: measurement FAILED (exit status $rc)" >&2
elif [[ ! -s $RESULTS/table.txt ]]; then
    echo "bench: no table produced" >&2
    rc=1
fi
exit "$rc"
