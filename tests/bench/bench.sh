#!/bin/bash
# Guest side of `make bench` (runs inside the orca VM, see scripts/vm.sh).
#
# Sets up soft-RoCE (rdma_rxe over a veth pair, rxe0), then with
# $ORCA_BUILD/tests/qbench:
#   1. times the query verbs on orca0 and rxe0 in one process, batches
#      interleaved (median ns/call; getppid() floor before and after);
#   2. counts firmware commands per call on orca0 (emulator counters through
#      `hostctl stats`, before/after difference / calls);
#   3. counts syscalls per call on both devices (strace -f -T, marker writes
#      around each verb's calls);
#   4. runs perftest on both devices (tests/bench/perf.sh: latency and
#      bandwidth at 8 B, 4 KiB and 64 KiB, and the orca/rxe ratio);
# and prints the table (also written to $BENCH_OUT/table.txt, default
# $ORCA_JOB/bench/, with the raw data next to it).
# qbench checks the value of every call it makes in steps 1-3 and reports
# how many failed and the first failing value; a verb with any failed call
# on orca0 (or on rxe0, except a verb rxe0 lacks: every call EOPNOTSUPP,
# shown as n/a) is a FAIL row, one "FAIL <verb>: ..." line under the table,
# and every target naming it is FAIL, never MET.
#
# Exit status: 0 when everything was measured (whether or not the targets
# are met), 1 when a measurement failed or a row is FAIL.
# Knobs (environment): BENCH_BATCHES (15), BENCH_BATCH_MS (40),
# BENCH_WARMUP (2000), BENCH_FW_CALLS (1000), BENCH_SC_CALLS (200);
# BENCH_ONLY_PERF=1 runs step 4 alone (the loaded pass of run.sh),
# BENCH_PERF=0 leaves step 4 out.
set -u
export LC_ALL=C

OUT=${BENCH_OUT:-${ORCA_JOB:?not in the orca VM (no ORCA_JOB)}/bench}
QB=${QBENCH:-${ORCA_BUILD:?no ORCA_BUILD}/tests/qbench}
# the query_qp-by-command knob is a debugfs file of the PCI function
PARAM=/sys/kernel/debug/orca/$(basename "$(readlink -f /sys/class/infiniband/orca0/device)")/query_qp_fw
ORCA=orca0 RXE=rxe0
mkdir -p "$OUT" || exit 1
rm -f "$OUT"/*.txt

say() { printf 'bench: %s\n' "$*"; }
fail() { printf 'bench: FAILED: %s\n' "$*" >&2; echo 0 > "$PARAM" 2>/dev/null; exit 1; }
since() { local d=$(((${EPOCHREALTIME/./} - ${1/./}) / 100000)); printf '%d.%d s' $((d / 10)) $((d % 10)); }

[[ -x $QB ]] || fail "$QB not built (make -C tests/bench)"
[[ -e /sys/class/infiniband/$ORCA ]] || fail "no $ORCA (orca.ko not loaded?)"
[[ -w $PARAM ]] || fail "$PARAM is not there or not writable"
command -v strace >/dev/null || fail "strace not installed (make deps)"

# ------------------------------------------------------------ rxe over veth
say "rxe setup: modprobe rdma_rxe veth; veth v0/v1; rdma link add $RXE type rxe netdev v0"
t0=$EPOCHREALTIME
modprobe -a rdma_rxe veth || fail "modprobe rdma_rxe veth"
ip link add v0 type veth peer name v1 || fail "ip link add veth"
{ ip addr add 192.168.77.1/24 dev v0 && ip link set v0 up && ip link set v1 up; } || fail "veth up"
rdma link add $RXE type rxe netdev v0 || fail "rdma link add $RXE"
for ((i = 0; i < 50; i++)); do
    [[ -e /sys/class/infiniband/$RXE ]] && break
    read -rt 0.1 <> <(:) || :
done
[[ -e /sys/class/infiniband/$RXE ]] || fail "$RXE did not appear"
say "rxe setup done ($(since "$t0")); devices: $(cd /sys/class/infiniband && echo *)"

run_perf() {
    say "data path: perftest on $ORCA and $RXE (tests/bench/perf.sh)"
    t0=$EPOCHREALTIME
    perf_ok=1
    "$(dirname "${BASH_SOURCE[0]}")/perf.sh" "$OUT" > "$OUT/perf.log" 2>&1 || perf_ok=0
    say "data path done ($(since "$t0"))"
}
if [[ ${BENCH_ONLY_PERF:-0} == 1 ]]; then
    run_perf
    echo
    cat "$OUT/perf_table.txt" 2> /dev/null
    ((perf_ok)) || fail "some perftest values are missing (see $OUT/perf.txt, perf.log)"
    exit 0
fi

# ------------------------------------------------------------ 1. timing
say "timing: ${BENCH_BATCHES:-15} interleaved batches of ~${BENCH_BATCH_MS:-40} ms per verb and device"
t0=$EPOCHREALTIME
"$QB" time -P "$PARAM" -b "${BENCH_BATCHES:-15}" -t "${BENCH_BATCH_MS:-40}" -w "${BENCH_WARMUP:-2000}" \
    $ORCA $RXE > "$OUT/time.txt" 2> "$OUT/time.err" || { cat "$OUT/time.err" >&2; fail "qbench time"; }
say "timing done ($(since "$t0"))"

# ------------------------------------------------------------ 2. firmware commands
say "firmware commands: ${BENCH_FW_CALLS:-1000} calls per verb on $ORCA between two 'hostctl stats'"
t0=$EPOCHREALTIME
"$QB" fw -P "$PARAM" -n "${BENCH_FW_CALLS:-1000}" -s 'hostctl stats' $ORCA > "$OUT/fw.txt" 2> "$OUT/fw.err" ||
    { cat "$OUT/fw.err" >&2; fail "qbench fw"; }
say "firmware commands done ($(since "$t0"))"

# ------------------------------------------------------------ 3. syscalls
say "syscalls: strace -f -T, ${BENCH_SC_CALLS:-200} calls per verb and device between marker writes"
t0=$EPOCHREALTIME
strace -f -qq -T -s 256 -o "$OUT/strace.txt" "$QB" mark -P "$PARAM" -n "${BENCH_SC_CALLS:-200}" $ORCA $RXE \
    > "$OUT/mark.out" 2>&1 || { cat "$OUT/mark.out" >&2; fail "strace qbench mark"; }
# MARK <verb> <dev> <failed> <calls> <first failure>: the calls of that loop
grep '^MARK ' "$OUT/mark.out" > "$OUT/mark.txt"
# SC <verb> <dev> <syscalls/call> <name=n/call,...|-> <mean us per syscall|->
awk '
function flush(   k, b, s) {
    b = ""
    for (k in cnt) b = b (b == "" ? "" : ",") k "=" sprintf("%.3g", cnt[k] / n)
    printf "SC %s %s %.3f %s %s\n", verb, dev, tot / n, b == "" ? "-" : b,
        tot ? sprintf("%.1f", tsum * 1e6 / tot) : "-"
}
/QBMARK begin/ {
    match($0, /QBMARK begin [^ ]+ [^ ]+ [0-9]+/)
    split(substr($0, RSTART, RLENGTH), f, " ")
    verb = f[3]; dev = f[4]; n = f[5] + 0; inseg = 1; tot = 0; tsum = 0
    split("", cnt)
    next
}
/QBMARK end/ { if (inseg && n) flush(); inseg = 0; next }
inseg {
    l = $0
    sub(/^[0-9]+ +/, "", l)
    if (l !~ /^[a-z_0-9]+\(/) next          # signals, exits, resumed halves
    name = l; sub(/\(.*/, "", name)
    cnt[name]++; tot++
    if (match(l, /<[0-9.]+>$/)) tsum += substr(l, RSTART + 1, RLENGTH - 2)
}' "$OUT/strace.txt" > "$OUT/syscalls.txt"
say "syscalls done ($(since "$t0"))"

v=$(< "$PARAM")
[[ $v == N || $v == 0 ]] || { echo 0 > "$PARAM"; fail "query_qp_fw was left at '$v' (reset to 0)"; }

# ------------------------------------------------------------ table
cat "$OUT/time.txt" "$OUT/fw.txt" "$OUT/syscalls.txt" "$OUT/mark.txt" > "$OUT/data.txt"
awk -v orca=$ORCA -v rxe=$RXE -v kver="$(uname -r)" -v nb="${BENCH_BATCHES:-15}" -v bms="${BENCH_BATCH_MS:-40}" '
$1 == "RES" { med[$2, $3] = $4; mn[$2, $3] = $5; mx[$2, $3] = $6; rc[$2, $3] = $7; calls[$2, $3] = $8; nbat[$2, $3] = $9
              if ($2 == "getppid") fl[++nfl] = $4
              tally($2, $3, $10, $11, $12) }
$1 == "FW"  { fw[$2] = $4; fwop[$2] = $5; if ($2 != "idle") tally($2, $3, $6, $7, $8) }
$1 == "SC"  { sc[$2, $3] = $4; scb[$2, $3] = $5; sct[$2, $3] = $6 }
$1 == "MARK" { tally($2, $3, $4, $5, $6) }
# every loop of qbench: <failed> of <calls> calls failed, the first with <first>
function tally(v, d, f, c, first,   k) {
    k = v SUBSEP d
    if (f !~ /^[0-9]+$/ || c !~ /^[0-9]+$/ || c == 0) { bad[k] = 1; return }
    nf[k] += f; nc[k] += c
    if (f > 0 && !(k in ff)) ff[k] = first
}
# "ok"; "n/a": every call on the reference device failed with EOPNOTSUPP
# (rxe lacks the verb); "FAIL": a call failed, or (data_in_order on orca)
# the answer was not 1, what the default device says of an RDMA WRITE (a
# provider without the op answers 0 with no syscall); "?": not checked
function state(v, d,   k) {
    k = v SUBSEP d
    if (!(k in nc) || (k in bad)) return "?"
    if (nf[k] == 0) return (v == "data_in_order" && d == orca && rc[k] != 1) ? "FAIL" : "ok"
    if (d == rxe && nf[k] == nc[k] && ff[k] ~ /^95(:|$)/) return "n/a"
    return "FAIL"
}
function row(v,   so, sr) {
    so = state(v, orca); sr = state(v, rxe)
    if (so == "FAIL" || sr == "FAIL") return "FAIL"
    if (so == "?" || sr == "?") return "?"
    return "ok"
}
function why(v,   s, j, d, k) {     # what failed, for a FAIL row
    s = ""
    for (j = 1; j <= 2; j++) {
        d = j == 1 ? orca : rxe; k = v SUBSEP d
        if (state(v, d) != "FAIL") continue
        if (nf[k] == 0)
            s = s (s == "" ? "" : "; ") sprintf("%s answered %s in all %d calls, not 1", d, rc[k], nc[k])
        else
            s = s (s == "" ? "" : "; ") sprintf("%s: %d of %d calls failed, first rc %s", d, nf[k], nc[k], ff[k])
    }
    return s
}
function have(a, k) { return (k in a) }
function num(a, k, fmt) { return (k in a) ? sprintf(fmt, a[k]) : "?" }
function sys(v, d,   b) {
    if (!((v SUBSEP d) in sc)) return "?"
    b = scb[v, d]; gsub(/=[0-9.e+-]+/, "", b)
    return sprintf("%.2f", sc[v, d]) (b == "-" ? "" : " (" b ")")
}
function ratio(v, rv) {
    if (row(v) == "FAIL") return "FAIL"
    if (state(rv, rxe) == "n/a") return "n/a"
    if ((v SUBSEP orca) in med && (rv SUBSEP rxe) in med && med[rv, rxe] > 0)
        return sprintf("%.3fx", med[v, orca] / med[rv, rxe])
    return "?"
}
END {
    nv = split("query_qp query_qp_fw query_device_ex query_port query_ece data_in_order", V, " ")
    label["query_qp"] = "ibv_query_qp"; label["query_qp_fw"] = "ibv_query_qp (fw path)"
    label["query_device_ex"] = "ibv_query_device_ex"; label["query_port"] = "ibv_query_port"
    label["query_ece"] = "ibv_query_ece"; label["data_in_order"] = "ibv_query_qp_data_in_order"
    printf "orca bench: %s vs %s (soft-RoCE over veth), one VM boot (QEMU TCG, guest kernel %s)\n", orca, rxe, kver
    printf "ns/call = median of %d batches (~%s ms each) per device, %s and %s batches interleaved\n", nb, bms, orca, rxe
    printf "getppid() floor: %s ns/call at start, %s ns/call at end\n\n", fl[1], fl[2]
    fmt = "%-28s | %12s | %11s | %14s | %17s | %18s | %17s | %5s\n"
    printf fmt, "verb", "orca ns/call", "rxe ns/call", "orca/rxe ratio", "orca fw cmds/call", "orca syscalls/call", "rxe syscalls/call", "calls"
    line = sprintf(fmt, "", "", "", "", "", "", "", ""); gsub(/ /, "-", line); gsub(/\|/, "+", line); printf "%s", line
    for (i = 1; i <= nv; i++) {
        v = V[i]; rv = v; na = state(rv, rxe) == "n/a"
        if (na) nna++
        printf fmt, label[v], num(med, v SUBSEP orca, "%.1f"), na ? "n/a" : num(med, rv SUBSEP rxe, "%.1f"), ratio(v, rv),
            num(fw, v, "%.3f"), sys(v, orca), na ? "n/a" : sys(rv, rxe), row(v)
    }
    printf "(rxe fw cmds/call: - ; fw path row: orca0 with query_qp_fw=1, against rxe0 query_qp batches interleaved with those)\n"
    printf "(calls: ok = every call of the verb in the timing, firmware-command and syscall loops succeeded on both devices)\n"
    if (nna) printf "(n/a: every call on %s failed with EOPNOTSUPP: %s lacks the verb, nothing to compare with)\n", rxe, rxe
    for (i = 1; i <= nv; i++)
        if (row(V[i]) == "FAIL")
            printf "FAIL %s: %s\n", label[V[i]], why(V[i])

    printf "\ntargets:\n"
    t["query_qp"] = 1.10; t["query_device_ex"] = 1.05; t["query_port"] = 1.10
    split("query_qp query_device_ex query_port", T, " ")
    for (i = 1; i <= 3; i++) {
        v = T[i]
        if (row(v) == "FAIL")
            printf "  %-42s %-8s %s\n", label[v] " <= " sprintf("%.2f", t[v]) "x rxe", "-", "FAIL (" why(v) ")"
        else if (state(v, rxe) == "n/a")
            printf "  %-42s %-8s %s\n", label[v] " <= " sprintf("%.2f", t[v]) "x rxe", "n/a", "NOT MEASURED (" rxe " lacks it)"
        else if ((v SUBSEP orca) in med && (v SUBSEP rxe) in med) {
            r = med[v, orca] / med[v, rxe]
            printf "  %-42s %-8s %s\n", label[v] " <= " sprintf("%.2f", t[v]) "x rxe", sprintf("%.3fx", r), (r <= t[v] ? "MET" : "MISSED")
        } else printf "  %-42s %-8s %s\n", label[v] " <= " t[v] "x rxe", "?", "NOT MEASURED"
    }
    split("query_ece data_in_order", T, " ")
    for (i = 1; i <= 2; i++) {
        v = T[i]
        if (state(v, orca) == "FAIL")
            printf "  %-42s %-8s %s\n", label[v] " 0 syscalls", (v SUBSEP orca) in sc ? sprintf("%.2f", sc[v, orca]) : "-", "FAIL (" why(v) ")"
        else if ((v SUBSEP orca) in sc)
            printf "  %-42s %-8s %s\n", label[v] " 0 syscalls", sprintf("%.2f", sc[v, orca]), (sc[v, orca] == 0 ? "MET" : "MISSED")
        else printf "  %-42s %-8s %s\n", label[v] " 0 syscalls", "?", "NOT MEASURED"
    }
    if (state("query_port", orca) == "FAIL")
        printf "  %-42s %-8s %s\n", "ibv_query_port 0 fw cmds/call", ("query_port" in fw) ? sprintf("%.3f", fw["query_port"]) : "-", "FAIL (" why("query_port") ")"
    else if ("query_port" in fw)
        printf "  %-42s %-8s %s\n", "ibv_query_port 0 fw cmds/call", sprintf("%.3f", fw["query_port"]), (fw["query_port"] == 0 ? "MET" : "MISSED")
    else printf "  %-42s %-8s %s\n", "ibv_query_port 0 fw cmds/call", "?", "NOT MEASURED"

    printf "\ndetails: probe rc | median [min..max] ns/call | calls x batches | syscalls per call | strace -T mean us/syscall | fw ops per call | calls failed of all (first rc)\n"
    for (i = 1; i <= nv; i++) {
        v = V[i]
        split(orca " " rxe, D, " ")
        for (j = 1; j <= 2; j++) {
            d = D[j]; k = v SUBSEP d
            if (!(k in med)) continue
            printf "  %-16s %-6s rc=%-3s %9.1f [%.1f..%.1f] %7d x %d | %s | %s us | %s | %s\n", v, d, rc[k], med[k], mn[k], mx[k],
                calls[k], nbat[k], have(scb, k) ? scb[k] : "?", have(sct, k) ? sct[k] : "?",
                d == orca ? (have(fwop, v) ? fwop[v] : "?") : "-",
                have(nc, k) ? sprintf("%d of %d%s", nf[k], nc[k], nf[k] ? " (" ff[k] ")" : "") : "?"
        }
    }
    if ("idle" in fw) printf "  idle interval (two hostctl stats, no calls): %d fw cmds (%s)\n", fw["idle"], fwop["idle"]
}' "$OUT/data.txt" > "$OUT/table.txt" || fail "table (awk)"

# ------------------------------------------------------------ 4. data path
perf_ok=1
[[ ${BENCH_PERF:-1} == 0 ]] || run_perf

echo
cat "$OUT/table.txt" "$OUT/perf_table.txt" 2> /dev/null
# every call succeeded?  everything measured?
nfail=$(grep -c '^FAIL ' "$OUT/table.txt")
((nfail == 0)) || fail "$nfail verb row(s) FAIL: calls failed (the FAIL lines of $OUT/table.txt)"
if [[ ! -s $OUT/table.txt ]] || grep -q '?' "$OUT/table.txt" || grep -q 'NOT MEASURED' "$OUT/table.txt"; then
    fail "some values are missing (see $OUT/data.txt)"
fi
((perf_ok)) || fail "some perftest values are missing (see $OUT/perf.txt, perf.log)"
exit 0
