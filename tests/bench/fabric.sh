#!/bin/bash
# Host side of `make bench BENCH_ONLY=fabric` (and the fabric part of
# `make bench`): OpenSM's time to bring up a fat tree of orca-fabric
# switches and guest-less CA ports, and the cost of those ports, for
# FABRIC_SIZES guest-less ports (default 16 64 256 1024; empty: none), next to OpenSM
# over ibsim on the same topology; then one RC stream across 1, 3 and 5
# switches (FABRIC_HOPS, default "1 3 5"; empty: none).
#
# Per size: scripts/fattree.py makes the tree (the guest's port and N
# guest-less ones, all pinned to leaves), scripts/topo2ibnet.py the same
# for ibsim; one orca-fabric process holds every switch, N orca-emu
# processes with no QEMU are the ports (as scripts/vm2.sh --guestless);
# one guest (scripts/vm.sh) runs tests/bench/fabric-guest.sh: OpenSM with
# routing_engine ftree to SUBNET UP, ibnetdiscover, a heavy sweep on
# SIGHUP, then ibsim + OpenSM on the same guest.  Here: the emulators'
# and the fabric's memory (PSS, shared pages split) and CPU time, while
# idle (5 s before the guest boots) and for OpenSM's bring-up and sweep
# (sampled once a second; the window's start and end from the guest).
#
# The hop rows: scripts/vm2.sh with a chain of 1, 3 or 5 switches
# (tests/bench/fabric-hops.sh in the first guest), ib_write_bw RC.
#
# Writes $RESULTS/fabric_scale_table.txt (and fabric-*.txt, the raw
# keys, fattree-*.topo and .net, the topologies); exit status 0 when
# every size came up whole and every hop row measured, 1 otherwise.
set -u
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
BUILD=${BUILD:-$REPO/build}
RESULTS=${RESULTS:-$BUILD/results/bench}
SIZES=${FABRIC_SIZES-16 64 256 1024}
HOPS=${FABRIC_HOPS-1 3 5}
GUEST_NODE=0x00ca7afffe0000a1           # its port GUID: + 1
EMU=$BUILD/orca-emu
FABRIC=$BUILD/orca-fabric
mkdir -p "$RESULTS"
status=0
say() { printf 'bench fabric: %s\n' "$*" >&2; }

RUN=
FAB_PID=
cleanup() {
    [[ -n $FAB_PID ]] && kill -TERM -- "-$FAB_PID" 2> /dev/null
    FAB_PID=
    [[ -n $RUN ]] && rm -rf "$RUN"
    RUN=
}
trap cleanup EXIT

# the fabric and N guest-less ports, in a process group of their own
start_fabric() {   # start_fabric TOPOLOGY N
    local topo=$1 n=$2
    RUN=$(mktemp -d /tmp/orca-bench-fabric.XXXXXX)
    # shellcheck disable=SC2016   # the inner script's own variables
    setsid bash -c '
        run=$1 fabric=$2 emu=$3 topo=$4 n=$5
        "$fabric" --socket "$run/fab.sock" --ctl "$run/fab.ctl" --sm none \
            --topology "$topo" --log "$run/fabric.log" &
        for ((i = 0; i < 100 && ! -S $run/fab.sock; i++)); do sleep 0.1; done
        for ((i = 0; i < n; i++)); do
            "$emu" --socket "$run/gl-$i.sock" --ram "$run/gl-$i.none" \
                --set "fabric=$run/fab.sock" --set port_pin=all \
                --set "node_guid=$(printf "0x%016x" $((0x00ca7afffe100000 + i * 0x100)))" \
                --log "$run/gl-$i.log" > /dev/null 2>&1 < /dev/null &
        done
        wait' _ "$RUN" "$FABRIC" "$EMU" "$topo" "$n" > /dev/null 2>&1 < /dev/null &
    FAB_PID=$!
}
fab_stat() { "$EMU" --ctl-send "$RUN/fab.ctl" stats 2> /dev/null | tr ' ' '\n' | sed -n "s/^$1=//p"; }
# the processes of this run: the fabric and its emulators
our_pids() { pgrep -g "$FAB_PID" -f '^/.*/orca-(emu|fabric) '; }
cpu_us() {   # CPU time of our processes so far (schedstat: ns on a CPU)
    local pids
    mapfile -t pids < <(our_pids)
    ((${#pids[@]})) || { echo 0; return; }
    (cd /proc && cat "${pids[@]/%//schedstat}" 2> /dev/null) |
        awk '{ t += $1 } END { printf "%d\n", t / 1000 }'
}
pss_kib() {   # what our emulators (not the fabric) hold, shared pages split
    local pids
    mapfile -t pids < <(pgrep -g "$FAB_PID" -f '^/.*/orca-emu ')
    ((${#pids[@]})) || { echo 0; return; }
    (cd /proc && cat "${pids[@]/%//smaps_rollup}" 2> /dev/null) | awk '/^Pss:/ { t += $2 } END { print t + 0 }'
}
key() { sed -n "s/^$1=//p" "$2" | tail -n 1; }

rows=()
for n in $SIZES; do
    cas=$((n + 1))
    raw=$RESULTS/fabric-$n.txt
    # where the guest sees it too (its /tmp is its own): the build tree
    topo=$BUILD/bench-fabric/fattree-$cas.topo
    mkdir -p "${topo%/*}"
    "$REPO/scripts/fattree.py" "$cas" --first $((GUEST_NODE + 1)) > "$topo"
    switches=$(grep -c '^switch' "$topo")
    net=-
    if "$REPO/scripts/topo2ibnet.py" "$topo" > "$topo.net" 2> /dev/null; then net=$topo.net; fi
    start_fabric "$topo" "$n"
    end=$((SECONDS + 120 + n / 4))
    until [[ $(fab_stat ports) == "$n" ]] || ((SECONDS > end)); do sleep 0.5; done
    if [[ $(fab_stat ports) != "$n" ]]; then
        say "$n ports: only $(fab_stat ports) connected"
        rows+=("$(printf '%6d %6d  FAIL: only %s of the guest-less ports connected' "$cas" "$switches" "$(fab_stat ports)")")
        status=1; cleanup; continue
    fi
    c0=$(cpu_us); sleep 5; c1=$(cpu_us)
    idle_us=$(( (c1 - c0) / 5 / n ))     # CPU us per second per port
    # the sampler: "epoch cpu_us" once a second while the guest runs
    ( while :; do echo "$EPOCHREALTIME $(cpu_us)"; sleep 1; done ) > "$RUN/cpu.txt" 2> /dev/null &
    sampler=$!
    name=bench-fabric-$n
    say "$n guest-less ports, $switches switches: booting $name"
    env BUILD="$BUILD" "$REPO/scripts/vm.sh" --name "$name" --keep --timeout $((1200 + 4 * n)) \
        --emu-set "fabric=$RUN/fab.sock" --emu-set "node_guid=$GUEST_NODE" -- \
        "$REPO/tests/bench/fabric-guest.sh" "$cas" "$switches" "$net" "$BUILD/vm/$name/fabric.txt"
    rc=$?
    kill "$sampler" 2> /dev/null; wait "$sampler" 2> /dev/null
    pss=$(pss_kib)
    rss_fab=$(awk '/^VmRSS/ { print $2 }' "/proc/$(pgrep -g "$FAB_PID" -f '^/.*/orca-fabric ')/status" 2> /dev/null)
    cp "$BUILD/vm/$name/fabric.txt" "$raw" 2> /dev/null || : > "$raw"
    {
        echo "pss_kib=$pss"; echo "fabric_rss_kib=${rss_fab:-0}"; echo "idle_cpu_us_per_s_per_port=$idle_us"
    } >> "$raw"
    # CPU from OpenSM's start to the sweep's end, from the samples
    t0=$(key t_start "$raw") t1=$(key t_swept "$raw")
    work_ms=-
    if [[ -n $t0 && -n $t1 ]]; then
        work_ms=$(awk -v a="$t0" -v b="$t1" -v n="$n" '
            $1 <= a { s = $2 } $1 >= b && e == "" { e = $2 }
            END { if (s == "" || e == "") print "-"; else printf "%.2f", (e - s) / 1000 / n }' "$RUN/cpu.txt")
    fi
    echo "work_cpu_ms_per_port=$work_ms" >> "$raw"
    # ibsim's cost where orca's emulators run, natively on this host (its
    # times in the guest are the ones set beside OpenSM's over orca)
    [[ $net != - ]] && "$REPO/tests/bench/ibsim.sh" "$net" 2> /dev/null | sed 's/^/host_/' >> "$raw"
    ((rc == 0)) && rm -rf "${BUILD:?}/vm/$name"
    cleanup
    mv -f "$topo" "$topo.net" "$RESULTS"/ 2> /dev/null
    up=$(awk -v a="$t0" -v b="$(key t_up "$raw")" 'BEGIN { if (a != "" && b != "") printf "%.1f", b - a; else print "-" }')
    sw=$(awk -v a="$(key t_sweep "$raw")" -v b="$t1" 'BEGIN { if (a != "" && b != "") printf "%.1f", b - a; else print "-" }')
    verdict=ok
    ((rc == 0)) || { verdict="FAIL (guest exit $rc: $(key error "$raw"))"; status=1; }
    rows+=("$(printf '%6d %6d %9s %9s %10s %7s %9s %9s %10s %9s %9s %9s  %s' \
        "$cas" "$switches" "$up" "$sw" "$(key routing_engine_used "$raw")" \
        "$((pss / n))" "$idle_us" "$work_ms" \
        "$(key ibsim_subnet_up_s "$raw")" "$(key ibsim_heavy_sweep_s "$raw")" \
        "$(key host_ibsim_rss_per_port_kib "$raw")" "$(key host_ibsim_cpu_ms_per_port "$raw")" "$verdict")")
done

hop_rows=()
for h in $HOPS; do
    raw=$RESULTS/fabric-hops-$h.txt
    topo=$(mktemp /tmp/orca-bench-hops.XXXXXX)
    {   # a chain s1 .. sH, guest A in s1 port 8, guest B in sH port 7
        for ((i = 1; i <= h; i++)); do echo "switch s$i 8"; done
        for ((i = 1; i < h; i++)); do echo "link s$i:2 s$((i + 1)):1"; done
        echo "ca 0x00ca7afffe0000a2 s1:8"
        echo "ca 0x00ca7afffe0000b2 s$h:7"
    } > "$topo"
    say "RC across $h switches"
    env BUILD="$BUILD" "$REPO/scripts/vm2.sh" --name "bench-hops-$h" --topology "$topo" --timeout 900 -- \
        env ORCA_HOPS="$h" "$REPO/tests/bench/fabric-hops.sh" > "$raw" 2>&1
    rc=$?
    rm -f "$topo"
    bw=$(key bw_mb_s "$raw") seen=$(key switches_crossed "$raw")
    if ((rc == 0)) && [[ -n $bw && $seen == "$h" ]]; then
        hop_rows+=("$(printf '%5d %12s %10s  ok' "$h" "$bw" "$(key msg_rate_k "$raw")")")
    else
        hop_rows+=("$(printf '%5d %12s %10s  FAIL (rc %s, ibtracert: %s switches)' "$h" "${bw:--}" - "$rc" "${seen:-?}")")
        status=1
    fi
done

{
    echo "orca fabric scale: OpenSM (in one guest, QEMU TCG) over one orca-fabric process"
    echo "and N orca-emu processes with no QEMU, a 2-level fat tree (scripts/fattree.py),"
    echo "routing_engine ftree; beside it OpenSM through umad2sim over ibsim (OpenSM's MAD"
    echo "simulator) on the same topology (scripts/topo2ibnet.py, tests/bench/ibsim.sh)."
    echo "up_s: OpenSM's start to SUBNET UP; sweep_s: SIGHUP to the next SUBNET UP (a heavy"
    echo "sweep), both in the guest, from OpenSM's log.  KiB/port: the emulators' PSS;"
    echo "idle_us: their and the fabric's CPU us per second per port, no SM; cpu_ms: per"
    echo "port, OpenSM's start to the sweep's end.  ibsim_KiB, ibsim_ms: ibsim's RSS and"
    echo "CPU per port for the same two sweeps, run on this host as orca's emulators are."
    echo
    printf '%6s %6s %9s %9s %10s %7s %9s %9s %10s %9s %9s %9s\n' CAs sw up_s sweep_s engine \
        KiB/port idle_us cpu_ms ibsim_up_s ibsim_swp ibsim_KiB ibsim_ms
    ((${#rows[@]})) && printf '%s\n' "${rows[@]}"
    if ((${#hop_rows[@]})); then
        echo
        echo "one RC stream (ib_write_bw -D 10, 64 KiB messages; MB/s as perftest prints it)"
        echo "between two guests across a chain of switches (switches crossed: ibtracert)"
        printf '%5s %12s %10s\n' sw MB/s kmsg/s
        printf '%s\n' "${hop_rows[@]}"
    fi
} > "$RESULTS/fabric_scale_table.txt"
cat "$RESULTS/fabric_scale_table.txt"
exit "$status"
