#!/bin/bash
# Guest side of `make bench`, data path part (run by bench.sh once rxe0 is
# up).  perftest on orca0 and on rxe0 in the same boot, server
# and client in this guest (exchange on 127.0.0.1; rxe0 addressed by its
# RoCE GID, -x 1): latency (t_typical, the median, and t_avg and the 99%
# percentile, the tail; us) and bandwidth (BW average, MB/s) at 8 B, 4 KiB
# and 64 KiB, and the orca/rxe ratios.
#
# In the first guest of scripts/vm2.sh (ORCA_PEER set) the servers run in
# the other guest (tests/lib/pair.sh) and rxe0 is the guest link's on
# each side: the two-host figures of make bench.
#
#   perf.sh OUTDIR        writes OUTDIR/perf.txt (raw) and perf_table.txt
# Bandwidth runs for a duration (perftest -D: it measures between a
# warm-up and a cool-down margin), not a count: a few hundred 64 KiB
# messages take a few ms, and what they measured was mostly the start.
# Knobs: BENCH_PERF_LAT_ITERS (1000), BENCH_PERF_BW_SECS (2),
# BENCH_PERF_TIMEOUT (120 s).
set -u
export LC_ALL=C
OUT=${1:?usage: perf.sh OUTDIR}
LAT_N=${BENCH_PERF_LAT_ITERS:-1000}
BW_SECS=${BENCH_PERF_BW_SECS:-2}
LIMIT=${BENCH_PERF_TIMEOUT:-120}
ORCA=orca0 RXE=rxe0
port=19000
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"
# shellcheck source=tests/lib/pair.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pair.sh"
WHERE="server and client in the guest"
pair_remote && WHERE="server and client on two hosts (vm2.sh), orca0 through orca-fabric, rxe0 over the guest link"

ip link set lo up
: > "$OUT/perf.txt"

# one server/client pair; prints the client's result row or nothing
run_pair() {  # dev prog size
    local dev=$1 prog=$2 size=$3 args i row
    port=$((port + 1))
    args=(-d "$dev" -p "$port")
    if [[ $prog == *_lat ]]; then args+=(-n "$LAT_N"); else args+=(-D "$BW_SECS"); fi
    [[ $prog != ib_atomic_bw ]] && args+=(-s "$size")
    [[ $dev == "$RXE" ]] && args+=(-x 1)
    pair_server "$OUT/server.out" "$port" timeout -k 5 "$LIMIT" "$prog" "${args[@]}"
    timeout -k 5 "$LIMIT" "$prog" "${args[@]}" "$(pair_server_addr)" > "$OUT/client.out" 2>&1
    wait
    cat "$OUT/server.out" "$OUT/client.out" >> "$OUT/perftest-output.txt"
    grep -A1 '#bytes' "$OUT/client.out" | tail -n 1
}

for prog in ib_send_lat ib_write_lat ib_read_lat ib_write_bw ib_send_bw ib_read_bw ib_atomic_bw; do
    sizes="8 4096 65536"
    [[ $prog == ib_atomic_bw ]] && sizes=8
    for size in $sizes; do
        for dev in $ORCA $RXE; do
            t0=$EPOCHREALTIME
            # a run whose clock calibration failed prints "inf": one retry
            tail=
            for try in 1 2; do
                row=$(run_pair "$dev" "$prog" "$size")
                # lat: bytes iters t_min t_max t_typical t_avg t_stdev p99 p99.9
                # bw: bytes iters peak avg rate
                if [[ $prog == *_lat ]]; then col=5; else col=4; fi
                v=$(awk -v c=$col '{ print $c }' <<< "$row")
                [[ $prog == *_lat ]] &&
                    tail=$(awk '{ printf "mean=%s p99=%s", ($6 ~ /^[0-9.]+$/ ? $6 : "?"), ($8 ~ /^[0-9.]+$/ ? $8 : "?") }' <<< "$row")
                [[ $v =~ ^[0-9.]+$ ]] && break
                v='?'
            done
            echo "PERF $prog $size $dev $v try=$try $(( (${EPOCHREALTIME/./} - ${t0/./}) / 1000 ))ms $tail" >> "$OUT/perf.txt"
            printf 'bench: %s %s B on %s: %s %s\n' "$prog" "$size" "$dev" "$v" "$tail"
        done
    done
done

# ------------------------------------------------------------ where the time goes
# ib_send_lat 8 B on orca0 once more between two 'hostctl stats': how many
# posts kicked the device, how many answers its polling caught; then the
# same with orca reloaded with db_hint=0 (every post kicks: a trapped MMIO
# write under QEMU's big lock and a wake-up of the emulator process each),
# and orca reloaded as it was.  One host only.
stat_of() { tr ' ' '\n' <<< " $1" | sed -n "s/^$2=//p"; }
hint_run() {  # label
    local s0 s1 row v k try
    # a run whose clock calibration failed prints "inf": one retry, as above
    for try in 1 2; do
        s0=$(hostctl stats) || return 1
        row=$(run_pair "$ORCA" ib_send_lat 8)
        s1=$(hostctl stats) || return 1
        v=$(awk '{ print $5 }' <<< "$row")
        [[ $v =~ ^[0-9.]+$ ]] && break
    done
    printf 'HINT %s %s' "$1" "${v:-?}" >> "$OUT/perf.txt"
    for k in db_writes wqes db_poll_catches db_poll_misses db_hint_catches; do
        printf ' %s=%s' "$k" $(( $(stat_of "$s1" $k) - $(stat_of "$s0" $k) )) >> "$OUT/perf.txt"
    done
    echo >> "$OUT/perf.txt"
}
reload_orca() {  # insmod arguments
    local i
    rmmod orca && insmod "${ORCA_KO:?}" "$@" || return 1
    for ((i = 0; i < 100; i++)); do
        ibv_devinfo -d "$ORCA" 2> /dev/null | grep -q PORT_ACTIVE && return 0
        sleep 0.2
    done
    return 1
}
if ! pair_remote && [[ -n ${ORCA_JOB:-} && -n ${ORCA_KO:-} ]]; then
    hint_run on
    if reload_orca db_hint=0; then
        hint_run off
    else
        echo "HINT off ? reload with db_hint=0 failed" >> "$OUT/perf.txt"
    fi
    reload_orca || echo "bench: reloading orca with the defaults failed" >&2
fi

awk -v orca=$ORCA -v rxe=$RXE -v where="$WHERE" '
$1 == "PERF" {
    v[$2, $3, $4] = $5
    for (i = 6; i <= NF; i++) if (split($i, kv, "=") == 2) t[$2, $3, $4, kv[1]] = kv[2]
    if (!(($2, $3) in seen)) { seen[$2, $3] = 1; key[++n] = $2 " " $3 }
}
$1 == "HINT" { hint[$2] = $0 }
END {
    printf "\ndata path: perftest 4.5 on %s vs %s, same boot, %s\n", orca, rxe, where
    printf "latency = t_typical us (lower is better), bandwidth = BW average MB/s (higher is better)\n"
    fmt = "%-13s | %6s | %10s | %10s | %14s\n"
    printf fmt, "program", "bytes", orca, rxe, "orca vs rxe"
    for (i = 1; i <= n; i++) {
        split(key[i], k, " ")
        a = v[k[1], k[2], orca]; b = v[k[1], k[2], rxe]
        r = "?"
        if (a != "?" && b != "?" && a > 0 && b > 0)
            r = k[1] ~ /_lat$/ ? sprintf("%.2fx latency", a / b) : sprintf("%.1fx bandwidth", a / b)
        printf fmt, k[1], k[2], a, b, r
    }
    printf "\nlatency tails: median (t_typical) / mean (t_avg) / 99%% percentile, us\n"
    fmt = "%-13s | %6s | %-24s | %-24s | %s\n"
    printf fmt, "program", "bytes", orca, rxe, "orca vs rxe (median mean p99)"
    for (i = 1; i <= n; i++) {
        split(key[i], k, " ")
        if (k[1] !~ /_lat$/) continue
        printf fmt, k[1], k[2], trio(k[1], k[2], orca), trio(k[1], k[2], rxe), ratios(k[1], k[2])
    }
    a = v["ib_write_bw", 65536, orca]; b = v["ib_write_bw", 65536, rxe]
    printf "\ntargets:\n"
    if (a != "?" && b != "?" && b > 0)
        printf "  %-42s %-8s %s\n", "ib_write_bw 64 KiB >= 20x rxe", sprintf("%.1fx", a / b), (a / b >= 20 ? "MET" : "MISSED")
    else printf "  %-42s %-8s %s\n", "ib_write_bw 64 KiB >= 20x rxe", "?", "NOT MEASURED"
    a = v["ib_send_lat", 8, orca]; b = v["ib_send_lat", 8, rxe]
    if (a != "?" && b != "?" && b > 0)
        printf "  %-42s %-8s %s\n", "ib_send_lat 8 B <= rxe", sprintf("%.2fx", a / b), (a <= b ? "MET" : "MISSED")
    else printf "  %-42s %-8s %s\n", "ib_send_lat 8 B <= rxe", "?", "NOT MEASURED"
    tailtarget("ib_send_lat", 8)
    tailtarget("ib_send_lat", 4096)
    if (("on" in hint) && ("off" in hint)) {
        split(hint["on"], hon, " "); split(hint["off"], hoff, " ")
        if (hon[3] ~ /^[0-9.]+$/ && hoff[3] ~ /^[0-9.]+$/ && hoff[3] > 0)
            printf "  %-42s %-8s %s\n", "median, hint on <= 3x db_hint=0", sprintf("%.2fx", hon[3] / hoff[3]), (hon[3] <= 3 * hoff[3] ? "MET" : "MISSED")
        else printf "  %-42s %-8s %s\n", "median, hint on <= 3x db_hint=0", "?", "NOT MEASURED"
    }
    if ("on" in hint || "off" in hint) {
        printf "\nwhere the time goes: ib_send_lat 8 B on %s again, emulator counters over the run\n", orca
        printf "(kicks = posts that rang the doorbell; caught = answers found by the device polling after a kick)\n"
        hrow("on", "doorbell hint on (default)")
        hrow("off", "doorbell hint off (db_hint=0)")
    }
}
function num(x) { return x ~ /^[0-9.]+$/ }
function trio(p, s, d) {
    return sprintf("%s / %s / %s", v[p, s, d], t[p, s, d, "mean"], t[p, s, d, "p99"])
}
function ratio(a, b) { return (num(a) && num(b) && b > 0) ? sprintf("%.2fx", a / b) : "?" }
function ratios(p, s) {
    return ratio(v[p, s, orca], v[p, s, rxe]) " " ratio(t[p, s, orca, "mean"], t[p, s, rxe, "mean"]) " " ratio(t[p, s, orca, "p99"], t[p, s, rxe, "p99"])
}
# issue 24: median <= 0.5x rxe, mean <= rxe, p99 <= rxe
function tailtarget(p, s,    m, mean, p99, name) {
    name = p " " (s == 8 ? "8 B" : s " B") " median <= 0.5x, mean, p99 <= rxe"
    m = ratio(v[p, s, orca], v[p, s, rxe]); mean = ratio(t[p, s, orca, "mean"], t[p, s, rxe, "mean"])
    p99 = ratio(t[p, s, orca, "p99"], t[p, s, rxe, "p99"])
    if (m == "?" || mean == "?" || p99 == "?") { printf "  %-52s %-20s %s\n", name, m " " mean " " p99, "NOT MEASURED"; return }
    printf "  %-52s %-20s %s\n", name, m " " mean " " p99, ((m + 0 <= 0.5 && mean + 0 <= 1 && p99 + 0 <= 1) ? "MET" : "MISSED")
}
function hrow(k, label,    f, i, kv, c, w) {
    if (!(k in hint)) return
    split(hint[k], f, " ")
    for (i = 4; i in f; i++) { split(f[i], kv, "="); c[kv[1]] = kv[2] }
    w = c["wqes"] + 0
    printf "  %-30s t_typical %7s us, %s kicks for %s send WQEs (%s skipped), %s caught by polling, %s polls missed\n", label, f[3], c["db_writes"], c["wqes"], (w > 0 ? sprintf("%.0f%%", 100 * (w - c["db_writes"]) / w) : "?"), c["db_poll_catches"], c["db_poll_misses"]
}' "$OUT/perf.txt" > "$OUT/perf_table.txt"
cat "$OUT/perf_table.txt"
! grep -q '?' "$OUT/perf_table.txt"
