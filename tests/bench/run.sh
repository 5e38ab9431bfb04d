#!/bin/bash
# Host side of `make bench`: one VM boot (scripts/vm.sh --name bench) running
# tests/bench/bench.sh, then copies the table and raw data from the job dir to
# $RESULTS (default $BUILD/results/bench).  While the VM runs, samples (once a
# second) whether other QEMU processes share the cores and says so at the end:
# the timings of such a run are suspect.
# Then QP scale (BENCH_SCALE=0 leaves it out): tests/bench/qscale.c in a
# boot of its own with up to 65,536 QPs ($RESULTS/qscale_table.txt).
# Last (BENCH_ULP=0 leaves it out), the kernel ULPs between two guests
# under OpenSM: IPoIB iperf3 and NVMe/RDMA fio on orca0 next to rxe0
# (tests/bench/ulp.sh, $RESULTS/ulp_table.txt).
# Then (BENCH_TWOHOST=0 leaves it out) the two-host part: scripts/vm2.sh
# with tests/bench/twohost.sh, perftest between two guests on orca0
# (through orca-fabric) and on rxe0 (over the guest link), and a table of
# orca two-host next to orca one-host and rxe two-host, ib_*_bw 64 KiB
# as fractions of streaming memcpy and of one host, and the 8 B latency
# median, mean and p99 ($RESULTS/twohost_table.txt).  After the ULP part,
# issue 38's two-host targets, each MET or MISSED, from both parts
# ($RESULTS/twohost_targets.txt, appended to twohost_table.txt).
# Last (BENCH_FABRIC=0 leaves it out), fabric scale: OpenSM over fat
# trees of orca-fabric switches and guest-less ports, against ibsim, and
# RC across 1, 3 and 5 switches (tests/bench/fabric.sh,
# $RESULTS/fabric_scale_table.txt; alone: make bench BENCH_ONLY=fabric).
# Exit status: vm.sh's (that of bench.sh: 0 = measured, whatever the
# targets; 1 also when a query-verb row is FAIL, i.e. calls of that verb
# failed; the summary after the first boot counts and lists such rows), or
# vm2.sh's if that failed.
# The copies per payload byte in the memcpy tables are counted from the
# code of the emulator and orca-fabric, by design, not measured, unless
# $RESULTS/copies.txt has them ("COPIES path N description" lines, read
# into the two-host memcpy table, one line per path).
set -u
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
BUILD=${BUILD:-$REPO/build}
RESULTS=${RESULTS:-$BUILD/results/bench}
NAME=bench
# shellcheck source=tests/bench/twohost-table.sh disable=SC1091
. "$REPO/tests/bench/twohost-table.sh"

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

# the host's memcpy: what the device's copies can reach (memcpy_bw.c)
"$BUILD/tests/memcpy_bw" > "$RESULTS/memcpy.txt" 2>&1 ||
    echo "bench: memcpy_bw failed: $(cat "$RESULTS/memcpy.txt")" >&2
# the device alone, a host process with no guest posting or polling
# (emulator/tests/bench_dp.c): how much of the limit the device leaves
for c in write64k write64k-stream; do
    "$BUILD/orca-emu-bench-dp" 1.5 "$c" || echo "bench: orca-emu-bench-dp $c failed" >&2
done > "$RESULTS/device.txt" 2>&1
# the two-host path without guests (emulator/tests/bench_fabric.c): two
# devices on orca-fabric, the direct link, the rings through the fabric
# and the socket
for args in 64 "64 nodirect" 0; do
    # shellcheck disable=SC2086  # two words: slots and the path
    "$BUILD/orca-emu-bench-fabric" "$BUILD/orca-fabric" 2 $args | grep '^BENCH_FABRIC' ||
        echo "bench: orca-emu-bench-fabric $args failed" >&2
done > "$RESULTS/fabric_link.txt" 2>&1
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
# query-verb rows whose calls failed (bench.sh: "FAIL <verb>: ...")
nfail=$(grep -c '^FAIL ' "$RESULTS/table.txt" 2>/dev/null)
if ((nfail > 0)); then
    echo "bench: $nfail query-verb row(s) FAIL, calls of the verb failed (table.txt):" >&2
    grep '^FAIL ' "$RESULTS/table.txt" >&2
    ((rc == 0)) && rc=1
fi

# memcpy_table, twohost_table, twohost_targets: the tables built from the
# raw data (tests/bench/twohost-table.sh, tested by
# tests/bench/twohost-table-test.sh on canned data).
if [[ -s $RESULTS/perf.txt && -s $RESULTS/memcpy.txt ]]; then
    memcpy_table "$RESULTS/perf.txt" "$RESULTS/memcpy.txt" "one host" \
        "$RESULTS/device.txt" > "$RESULTS/memcpy_table.txt"
    cat "$RESULTS/memcpy_table.txt"
fi

# ------------------------------------------------------------ two hosts
# The data path again beside two busy loops on the host, as CI machines
# are shared (issue 24: the tail with the machine busy); leave out with
# BENCH_LOADED=0.
if [[ ${BENCH_LOADED:-1} != 0 ]]; then
    loops=()
    for _ in 1 2; do
        (while :; do :; done) &
        loops+=($!)
    done
    "$BUILD/tests/memcpy_bw" > "$RESULTS/memcpy_loaded.txt" 2>&1 ||
        echo "bench: memcpy_bw failed: $(cat "$RESULTS/memcpy_loaded.txt")" >&2
    BUILD=$BUILD "$REPO/scripts/vm.sh" --name bench-loaded --keep -- \
        env BENCH_ONLY_PERF=1 "$REPO/tests/bench/bench.sh"
    rc3=$?
    kill "${loops[@]}" 2> /dev/null
    wait "${loops[@]}" 2> /dev/null
    cp -p "$BUILD/vm/bench-loaded/bench/perf.txt" "$RESULTS/perf_loaded.txt" 2>/dev/null
    cp -p "$BUILD/vm/bench-loaded/bench/perf_table.txt" "$RESULTS/perf_loaded_table.txt" 2>/dev/null
    ((rc3 != 0)) || rm -rf "${BUILD:?}/vm/bench-loaded"
    echo
    echo "the same beside two busy loops on the host (BENCH_LOADED=0 leaves it out):"
    cat "$RESULTS/perf_loaded_table.txt" 2> /dev/null || echo "bench: the loaded pass produced no table" >&2
    if [[ -s $RESULTS/perf_loaded.txt && -s $RESULTS/memcpy_loaded.txt ]]; then
        memcpy_table "$RESULTS/perf_loaded.txt" "$RESULTS/memcpy_loaded.txt" \
            "one host beside two busy loops" > "$RESULTS/memcpy_loaded_table.txt"
        cat "$RESULTS/memcpy_loaded_table.txt"
    fi
    ((rc3 == 0)) || rc=1
fi

# ------------------------------------------------------------ QP scale
# One RC QP measured while up to 65,536 more, each connected and in RTS,
# are created beside it (tests/bench/qscale.c), in a boot whose device
# offers that many QPs and whose guest has room for their rings;
# BENCH_SCALE=0 leaves it out.
if [[ ${BENCH_SCALE:-1} != 0 ]]; then
    qscale=$BUILD/tests/qscale
    BUILD=$BUILD "$REPO/scripts/vm.sh" --name bench-scale --mem 4608M --emu-set max_qp=65540 \
        --timeout 1800 -- "$qscale" -d orca0 > "$RESULTS/qscale.txt" 2>&1
    rc5=$?
    if ((rc5 == 0)) && grep -q '^QSCALE ' "$RESULTS/qscale.txt"; then
        awk '
        $1 == "QSCALE" {
            for (i = 2; i <= NF; i++) if (split($i, kv, "=") == 2) f[kv[1]] = kv[2]
            row[++n] = sprintf("%8s | %12s | %11s | %12s | %9s | %11s", f["qps"], f["create_us"], f["query_ns"], f["write_ns"], f["slab_b"], f["mem_b"])
            if (n == 1) { q1 = f["query_ns"]; w1 = f["write_ns"] }
            qn = f["query_ns"]; wn = f["write_ns"]; last = f["qps"]
        }
        END {
            print "\nQP scale: one RC QP measured while more, each connected to itself and in RTS, are created beside it (tests/bench/qscale.c)"
            print "create = us per QP added (create, INIT, RTR, RTS); query_qp and an 8 B RDMA WRITE posted and polled = median ns; memory = bytes per QP added"
            printf "%8s | %12s | %11s | %12s | %9s | %11s\n", "QPs", "create us/QP", "query_qp ns", "8 B WRITE ns", "slab B/QP", "all B/QP"
            for (i = 1; i <= n; i++) print row[i]
            if (n > 1 && q1 > 0 && w1 > 0)
                printf "at %s QPs against 1: query_qp %.2fx, WRITE %.2fx (flat = 1x)\n", last, qn / q1, wn / w1
        }' "$RESULTS/qscale.txt" > "$RESULTS/qscale_table.txt"
        cat "$RESULTS/qscale_table.txt"
    else
        echo "bench: QP-scale measurement FAILED (vm.sh exit status $rc5):" >&2
        grep -E 'QSCALE|vm.sh:' "$RESULTS/qscale.txt" | tail -n 5 >&2
        ((rc == 0)) && rc=1
    fi
fi

if [[ ${BENCH_TWOHOST:-1} != 0 ]]; then
    # by design, from the code (emulator/orca_fabric*.c, fabric/fabric_shm.c,
    # fabric_direct.c, fabric_sm.c): what each path copies of a payload byte
    cat > "$RESULTS/copies.txt" <<'EOF'
COPIES two-hosts-direct 2 encoding from guest memory into the direct link's ring to the other emulator; placement from that ring (the default with the built-in SM, after the first packet; a payload that is not in one piece of guest memory is gathered first: 3)
COPIES two-hosts-rings 3 encoding from guest memory into the ring to orca-fabric; orca-fabric from that ring into the other port's; placement from the ring (no ICRC in a ring; a payload that is not in one piece of guest memory is gathered first: 4)
COPIES two-hosts-socket 7 encoding from guest memory into the egress queue; the socket to orca-fabric, in and out; orca-fabric's egress queue; the socket to the other emulator, in and out; placement from the receive buffer (cfg fabric_ring_slots=0)
COPIES one-host 2 the looped-back packet's own copy; placement
EOF
    BUILD=$BUILD "$REPO/scripts/vm2.sh" --name bench2 --keep --timeout 2400 -- \
        "$REPO/tests/bench/twohost.sh"
    rc2=$?
    cp -p "$BUILD/vm/bench2-a/bench2/perf.txt" "$RESULTS/perf2.txt" 2>/dev/null
    cp -p "$BUILD/vm/bench2-a/bench2/perf_table.txt" "$RESULTS/perf2_table.txt" 2>/dev/null
    cp -p "$BUILD/vm/bench2-a/bench2/drops.txt" "$RESULTS/twohost_drops.txt" 2>/dev/null
    ((rc2 != 0)) || rm -rf "${BUILD:?}/vm/bench2-a"
    if [[ -s $RESULTS/perf2.txt && -s $RESULTS/perf.txt ]]; then
        twohost_table "$RESULTS/perf.txt" "$RESULTS/perf2.txt" "$RESULTS/memcpy.txt" \
            > "$RESULTS/twohost_table.txt"
        echo
        cat "$RESULTS/twohost_table.txt"
        memcpy_table "$RESULTS/perf2.txt" "$RESULTS/memcpy.txt" "two hosts" "" \
            "$RESULTS/copies.txt" > "$RESULTS/memcpy2_table.txt"
        cat "$RESULTS/memcpy2_table.txt"
        echo "the link alone, no guests (emulator/tests/bench_fabric.c: 64 KiB RDMA WRITEs between two devices on orca-fabric; CPU ns per 4 KiB packet):"
        cat "$RESULTS/fabric_link.txt" 2>/dev/null
        echo "two hosts: each emulator's transport counters after the run (retries, window and egress waits, drops):"
        cat "$RESULTS/twohost_drops.txt" 2>/dev/null
    else
        echo "bench: two-host measurement FAILED (vm2.sh exit status $rc2)" >&2
        ((rc == 0)) && rc=${rc2:-1}
        ((rc == 0)) && rc=1
    fi
fi
# ------------------------------------------------------------ kernel ULPs
# IPoIB iperf3 and NVMe/RDMA fio on orca0 next to the guest link and rxe0,
# under OpenSM (tests/bench/ulp.sh); BENCH_ULP=0 leaves it out.
if [[ ${BENCH_ULP:-1} != 0 ]]; then
    BUILD=$BUILD "$REPO/scripts/vm2.sh" --name bench-ulp --sm none --keep --timeout 1200 -- \
        "$REPO/tests/bench/ulp.sh"
    rc4=$?
    cp -p "$BUILD/vm/bench-ulp-a/bench-ulp/ulp.txt" "$BUILD/vm/bench-ulp-a/bench-ulp/ulp_table.txt" \
        "$RESULTS"/ 2>/dev/null
    ((rc4 != 0)) || rm -rf "${BUILD:?}/vm/bench-ulp-a"
    echo
    if [[ $rc4 == 0 && -s $RESULTS/ulp_table.txt ]]; then
        cat "$RESULTS/ulp_table.txt"
    else
        echo "bench: kernel-ULP measurement FAILED (vm2.sh exit status $rc4)" >&2
        ((rc == 0)) && rc=1
    fi
fi
# ------------------------------------------------------------ two-host targets
# Issue 38's targets for two hosts, from this run's two-host perftest
# (perf2.txt against perf.txt) and kernel ULPs (ulp.txt), once both parts
# have run: $RESULTS/twohost_targets.txt, appended to twohost_table.txt.
# A part left out or failed makes its targets "MISSED (no data)"; the
# exit status does not depend on the targets.
if [[ ${BENCH_TWOHOST:-1} != 0 || ${BENCH_ULP:-1} != 0 ]]; then
    twohost_targets "$RESULTS/perf.txt" "$RESULTS/perf2.txt" "$RESULTS/ulp.txt" \
        > "$RESULTS/twohost_targets.txt"
    cat "$RESULTS/twohost_targets.txt" >> "$RESULTS/twohost_table.txt"
    cat "$RESULTS/twohost_targets.txt"
fi
# ------------------------------------------------------------ fabric scale
# OpenSM over fat trees of 16 .. 1024 guest-less ports, against ibsim, and
# RC across 1, 3 and 5 switches (tests/bench/fabric.sh,
# $RESULTS/fabric_scale_table.txt); BENCH_FABRIC=0 leaves it out.
if [[ ${BENCH_FABRIC:-1} != 0 ]]; then
    echo
    if ! BUILD=$BUILD RESULTS=$RESULTS "$REPO/tests/bench/fabric.sh"; then
        echo "bench: fabric measurement FAILED (see $RESULTS/fabric_scale_table.txt)" >&2
        ((rc == 0)) && rc=1
    fi
fi
exit "$rc"
