#!/bin/bash
# The tables of make bench's two-host part (tests/bench/twohost-table.sh,
# which tests/bench/run.sh sources), on canned data, on the host, no VM:
#  - twohost_targets: issue 38's seven target lines, every one MET on
#    data that meets them all; one value over its bound MISSED on exactly
#    its line; a value "?" or a file absent "MISSED (no data)";
#  - twohost_table: the orca 1host / 2host / rxe table as before, ib_*_bw
#    64 KiB two-host as fractions of streaming memcpy and of one host, the
#    8 B latency median / mean / p99 and their two-host / one-host ratios;
#  - memcpy_table: the copies per payload byte from copies.txt, one line
#    per path, and the sentence by design without it;
#  - the same targets under each other awk found (gawk --posix, busybox).
# The samples are written as their producers write them (perf.sh's echo,
# memcpy_bw.c's printf, ulp.sh's rec); every expected verdict and figure
# below was worked out by hand from the sample numbers.
# Prints TAP; exit status = number of failures.
set -u
export LC_ALL=C
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck source=tests/lib/tap.sh disable=SC1091
. "$REPO/tests/lib/tap.sh"
# shellcheck source=tests/bench/twohost-table.sh disable=SC1091
. "$REPO/tests/bench/twohost-table.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plan 21

# ------------------------------------------------------------ samples
# perf LINE...: perf.sh's record, "prog size dev value ms [mean p99]"
perf() {
    local prog=$1 size=$2 dev=$3 v=$4 ms=$5 try=1 tail=
    [[ $prog == *_lat ]] && tail="mean=$6 p99=$7"
    echo "PERF $prog $size $dev $v try=$try ${ms}ms $tail"
}
rec() { echo "ULP $*"; }   # ulp.sh's record: NAME DEVICE VALUE UNIT

# one host (bench.sh's boot): orca0 and rxe0 in one guest, then HINT lines
one_host() {
    perf ib_send_lat 8 orca0 2.00 1650 2.20 3.00
    perf ib_send_lat 8 rxe0 9.42 2210 10.27 31.83
    perf ib_send_lat 4096 orca0 3.10 1702 3.40 6.02
    perf ib_send_lat 4096 rxe0 14.80 2301 15.92 40.11
    perf ib_write_lat 8 orca0 1.90 1580 2.05 2.80
    perf ib_write_lat 8 rxe0 8.80 2100 9.60 25.10
    perf ib_read_lat 8 orca0 3.50 1720 3.70 5.10
    perf ib_read_lat 8 rxe0 16.20 2440 17.00 44.30
    perf ib_write_bw 8 orca0 31.05 4210
    perf ib_write_bw 8 rxe0 1.52 4380
    perf ib_write_bw 65536 orca0 8000.00 4300
    perf ib_write_bw 65536 rxe0 250.12 4400
    perf ib_send_bw 65536 orca0 3000.00 4300
    perf ib_send_bw 65536 rxe0 150.00 4400
    perf ib_read_bw 65536 orca0 6000.00 4300
    perf ib_read_bw 65536 rxe0 200.00 4400
    perf ib_atomic_bw 8 orca0 5.83 4290
    perf ib_atomic_bw 8 rxe0 0.71 4410
    echo "HINT on 2.05 db_writes=1012 wqes=2000 db_poll_catches=980 db_poll_misses=3 db_hint_catches=988"
    echo "HINT off 20.10 db_writes=2000 wqes=2000 db_poll_catches=0 db_poll_misses=0 db_hint_catches=0"
}
# two hosts (twohost.sh under vm2.sh): SEND_P99 and WRITE_BW vary by case
two_host() {
    perf ib_send_lat 8 orca0 2.60 1900 3.30 "${SEND_P99:-4.50}"
    perf ib_send_lat 8 rxe0 12.50 2600 14.10 60.20
    perf ib_send_lat 4096 orca0 4.00 1950 4.40 8.00
    perf ib_send_lat 4096 rxe0 19.00 2700 20.50 70.00
    perf ib_write_lat 8 orca0 2.50 1800 3.10 4.20
    perf ib_write_lat 8 rxe0 11.40 2500 12.90 51.00
    perf ib_read_lat 8 orca0 4.60 1990 5.00 7.40
    perf ib_read_lat 8 rxe0 20.10 2800 21.30 66.00
    perf ib_write_bw 8 orca0 12.40 4220
    perf ib_write_bw 8 rxe0 0.90 4390
    perf ib_write_bw 65536 orca0 "${WRITE_BW:-4880.00}" 4300
    perf ib_write_bw 65536 rxe0 21.50 4400
    perf ib_send_bw 65536 orca0 1500.00 4300
    perf ib_send_bw 65536 rxe0 13.00 4400
    perf ib_read_bw 65536 orca0 3600.00 4300
    perf ib_read_bw 65536 rxe0 9.00 4400
    perf ib_atomic_bw 8 orca0 2.10 4300
    perf ib_atomic_bw 8 rxe0 0.40 4420
}
# the kernel ULPs (ulp.sh): RXE_128K varies by case
ulp() {
    rec iperf3 ib0-datagram 9412 Mbit/s
    rec iperf3 ib0-connected 21000 Mbit/s
    rec iperf3 guest-link 1800 Mbit/s
    rec nvme-randread-4k orca0 60000 IOPS
    rec nvme-read-128k orca0 4000.0 MB/s
    rec nvme-randread-4k rxe0 15000 IOPS
    rec nvme-read-128k rxe0 "${RXE_128K:-35.2}" MB/s
}
# case DIR: the four files of one run
case_dir() {
    mkdir -p "$1"
    one_host > "$1/perf.txt"
    two_host > "$1/perf2.txt"
    printf 'MEMCPY streaming %.0f\nMEMCPY hot %.0f\n' 10240 30720 > "$1/memcpy.txt"
    ulp > "$1/ulp.txt"
}
targets() { twohost_targets "$1/perf.txt" "$1/perf2.txt" "$1/ulp.txt"; }
count() { grep -c -- "$1" <<< "$2"; }   # count PATTERN TEXT

# the seven target lines, worked out by hand from the samples:
#   ib_write_bw 64 KiB 4880 / 8000 = 0.61       -> 61 %, >= 50 %
#   ib_send_lat 8 B median 2.60 / 2.00 = 1.30   -> <= 1.5
#   mean 3.30 / 2.20 = 1.50, p99 4.50 / 3.00 = 1.50 -> <= 2
#   iperf3 connected 21000 / 1800 = 11.67       -> >= 10
#   128 KiB read 4000.0 / 35.2 = 113.64         -> >= 100
#   4 KiB randread 60000 / 15000 = 4.00         -> >= 3
L1='target: two-host ib_write_bw 64 KiB >= 50 % of one host'
L2='target: two-host ib_send_lat 8 B median <= 1.5x one host'
L3='target: two-host ib_send_lat 8 B mean <= 2x one host'
L4='target: two-host ib_send_lat 8 B p99 <= 2x one host'
L5='target: IPoIB iperf3 connected mode >= 10x the guest link'
L6='target: NVMe/RDMA fio 128 KiB read >= 100x rxe'
L7='target: NVMe/RDMA fio 4 KiB randread >= 3x rxe'
all_met="$L1: 61 % (MET)
$L2: 1.30x (MET)
$L3: 1.50x (MET)
$L4: 1.50x (MET)
$L5: 11.67x (MET)
$L6: 113.64x (MET)
$L7: 4.00x (MET)
targets: 7 MET, 0 MISSED"

# ------------------------------------------------------------ every target met
case_dir "$tmp/met"
out=$(targets "$tmp/met")
is "$(count '^target: ' "$out")" 7 "all met: seven target lines"
is "$(count '^target: .* (MET)$' "$out")" 7 "all met: each of the seven lines MET"
is "$(count 'MISSED' "$out")" 1 "all met: MISSED only in the count line"
is "$(grep -- '^target' <<< "$out")" "$all_met" "all met: the lines, figures and count as worked out by hand"

# ------------------------------------------------------------ one target missed
# p99 6.60 / 3.00 = 2.20 > 2: that line alone MISSED
SEND_P99=6.60 case_dir "$tmp/p99"
out=$(targets "$tmp/p99")
is "$(grep -- MISSED <<< "$out" | grep -v '^targets:')" "$L4: 2.20x (MISSED)" "one missed: the p99 line and no other MISSED"
is "$(count '^target: .* (MET)$' "$out")" 6 "one missed: the other six MET"
is "$(grep '^targets:' <<< "$out")" "targets: 6 MET, 1 MISSED" "one missed: the count"
# at the bound is met: 4000 / 8000 = 50 %
WRITE_BW=4000.00 case_dir "$tmp/bound"
out=$(targets "$tmp/bound")
is "$(grep -F -- "$L1" <<< "$out")" "$L1: 50 % (MET)" "ib_write_bw at exactly 50 % of one host is MET"
# 3900 / 8000 = 48.75 % < 50 %, shown rounded as 49 %
WRITE_BW=3900.00 case_dir "$tmp/bw"
out=$(targets "$tmp/bw")
is "$(grep -- MISSED <<< "$out" | grep -v '^targets:')" "$L1: 49 % (MISSED)" "ib_write_bw at 49 % of one host: that line alone MISSED"

# ------------------------------------------------------------ a value missing
# fio on rxe0 gave nothing: ulp.sh records "?"
RXE_128K='?' case_dir "$tmp/nodata"
out=$(targets "$tmp/nodata")
is "$(grep -- MISSED <<< "$out" | grep -v '^targets:')" "$L6: ? (MISSED (no data))" "a ? value: its line MISSED (no data), no other MISSED"
is "$(grep '^targets:' <<< "$out")" "targets: 6 MET, 1 MISSED" "a ? value: counted MISSED"
# the ULP part left out (no ulp.txt) and ib_write_bw two-host "?"
WRITE_BW='?' case_dir "$tmp/absent"
rm "$tmp/absent/ulp.txt"
out=$(targets "$tmp/absent")
want="$L1: ? (MISSED (no data))
$L5: ? (MISSED (no data))
$L6: ? (MISSED (no data))
$L7: ? (MISSED (no data))"
is "$(grep -F -- '(MISSED (no data))' <<< "$out")" "$want" "ulp.txt absent and a ? in perf2.txt: those four lines MISSED (no data)"
is "$(grep '^targets:' <<< "$out")" "targets: 3 MET, 4 MISSED" "ulp.txt absent: the count"
out=$(twohost_targets "$tmp/none/perf.txt" "$tmp/none/perf2.txt" "$tmp/none/ulp.txt" 2>&1)
is "$(count '(MISSED (no data))$' "$out") $(grep '^targets:' <<< "$out")" "7 targets: 0 MET, 7 MISSED" "no file at all: seven lines MISSED (no data), no awk error"

# ------------------------------------------------------------ the two-host table
out=$(twohost_table "$tmp/met/perf.txt" "$tmp/met/perf2.txt" "$tmp/met/memcpy.txt")
# the table as before: 4880 / 21.50 = 226.98x, 4880 / 8000 = 0.61x
is "$(grep '^ib_write_bw   |  65536 |    8000.00' <<< "$out")" \
    "ib_write_bw   |  65536 |    8000.00 |    4880.00 |      21.50 |       226.98x |         0.61x" \
    "two-host table: the orca 1host / 2host / rxe row as before"
# of streaming 4880 / 10240 = 47.7 %, of one host 61 %; read 3600: 35 %, 60 %; send 1500: 15 %, 50 %
want="ib_write_bw   |  65536 |    4880.00 |         48 % |    8000.00 |        61 %
ib_read_bw    |  65536 |    3600.00 |         35 % |    6000.00 |        60 %
ib_send_bw    |  65536 |    1500.00 |         15 % |    3000.00 |        50 %"
is "$(grep ' %$' <<< "$out")" "$want" "two-host table: ib_*_bw 64 KiB of streaming memcpy and of one host"
# send: 1.30x, 3.30 / 2.20 = 1.50x, 1.50x; write: 2.50 / 1.90 = 1.32x, 3.10 / 2.05 = 1.51x, 4.20 / 2.80 = 1.50x
want="ib_send_lat   |      8 | 2.60 / 3.30 / 4.50       | 2.00 / 2.20 / 3.00       | 12.50 / 14.10 / 60.20    | 1.30x 1.50x 1.50x
ib_write_lat  |      8 | 2.50 / 3.10 / 4.20       | 1.90 / 2.05 / 2.80       | 11.40 / 12.90 / 51.00    | 1.32x 1.51x 1.50x"
is "$(grep '^ib_[a-z]*_lat ' <<< "$out" | grep ' / ')" "$want" "two-host table: 8 B median / mean / p99, orca 2host, 1host, rxe 2host, 2h/1h"

# ------------------------------------------------------------ copies per payload byte
printf '%s\n' "COPIES two-host-shm 4 gather, ring, ring out, placement" \
    "COPIES two-host-fabric 9 gather, encoding, sockets, queue, decoding, placement" > "$tmp/met/copies.txt"
out=$(memcpy_table "$tmp/met/perf2.txt" "$tmp/met/memcpy.txt" "two hosts" "" "$tmp/met/copies.txt")
want="copies per payload byte, two-host-shm: 4 (gather, ring, ring out, placement)
copies per payload byte, two-host-fabric: 9 (gather, encoding, sockets, queue, decoding, placement)"
is "$(grep '^copies' <<< "$out")" "$want" "memcpy table: copies.txt printed one line per path"
out=$(memcpy_table "$tmp/met/perf2.txt" "$tmp/met/memcpy.txt" "two hosts" "" "$tmp/none/copies.txt")
is "$(grep -c '^copies per payload byte: 9 by design, not measured' <<< "$out")" 1 "memcpy table: without copies.txt the sentence by design"

# ------------------------------------------------------------ run.sh and other awks
# run.sh sources the functions and builds the targets after the ULP part
# shellcheck disable=SC2016 # the line as written in run.sh
grep -qxF '. "$REPO/tests/bench/twohost-table.sh"' "$REPO/tests/bench/run.sh" &&
    awk '/^if \[\[ \$\{BENCH_ULP:-1\} != 0 \]\]/ { u = NR } /^ *twohost_targets / && u { t = NR } END { exit !t }' \
        "$REPO/tests/bench/run.sh"
ok $? "run.sh sources twohost-table.sh and calls twohost_targets after the ULP block"
# the met case under each other awk on this machine, through PATH
others=0 bad=
for impl in "gawk --posix" "busybox awk" "original-awk"; do
    read -r bin _ <<< "$impl"
    command -v "$bin" > /dev/null || continue
    [[ $bin == busybox ]] && { busybox awk 'BEGIN {}' 2> /dev/null || continue; }
    mkdir -p "$tmp/bin-$bin"
    printf '#!/bin/sh\nexec %s "$@"\n' "$impl" > "$tmp/bin-$bin/awk"
    chmod +x "$tmp/bin-$bin/awk"
    got=$(PATH=$tmp/bin-$bin:$PATH targets "$tmp/met" | grep '^target')
    [[ $got == "$all_met" ]] || { bad+=" $impl"; diag "$impl:" "$got"; }
    others=$((others + 1))
done
if ((others == 0)); then
    skip "the targets alike under gawk --posix, busybox awk, original-awk" "none of them here"
else
    [[ -z $bad ]]
    ok $? "the targets alike under $others other awk(s)${bad:+ (differ:$bad)}"
fi
done_testing
