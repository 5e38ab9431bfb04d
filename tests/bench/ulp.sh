#!/bin/bash
# Guest side of make bench's kernel-ULP part (first guest of scripts/vm2.sh
# --sm none): the kernel's RDMA clients on orca0 next to the same on rxe0
# over the guest link, in one boot, as ratios.
#   - IPoIB: iperf3 TCP over ib0 (orca0, datagram and connected mode)
#     next to iperf3 over the guest link's netdev, the one rxe0 runs on
#     (what IP between the hosts gets without orca);
#   - NVMe/RDMA: an nvmet-rdma target on the other guest with two ports,
#     its IPoIB address (the queues on orca0) and its guest-link address
#     (on rxe0); fio from this guest through each: 4 KiB random reads
#     (IOPS) and 128 KiB sequential reads (MB/s), the same seconds each.
# OpenSM is brought up first (tests/vm/opensm.sh, bringup scope).
# Writes $ORCA_JOB/bench-ulp/ulp.txt (ULP lines) and ulp_table.txt.
# Knobs: BENCH_ULP_SECS (5, per measurement).
set -u
export LC_ALL=C
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
T=$here/..
OUT=$ORCA_JOB/bench-ulp
secs=${BENCH_ULP_SECS:-5}
mkdir -p "$OUT"
: > "$OUT/ulp.txt"
# shellcheck source=tests/lib/tap.sh
. "$T/lib/tap.sh"
# shellcheck source=tests/lib/pair.sh
. "$T/lib/pair.sh"
# shellcheck source=tests/lib/nvmet.sh
. "$T/lib/nvmet.sh"
say() { printf 'bench-ulp: %s\n' "$*"; }
die() { say "FAILED: $*"; exit 1; }
rec() { echo "ULP $*" >> "$OUT/ulp.txt"; }   # rec NAME DEVICE VALUE UNIT

ORCA_OPENSM_SCOPE=bringup "$T/vm/opensm.sh" > "$OUT/opensm.log" 2>&1 ||
    die "OpenSM bring-up ($OUT/opensm.log)"
link_b=$(pair_server_addr)
{ modprobe ib_ipoib && peer "modprobe ib_ipoib"; } || die "ib_ipoib"
{ ip addr replace 10.78.0.1/24 dev ib0 && ip link set ib0 up &&
    peer "ip addr replace 10.78.0.2/24 dev ib0 && ip link set ib0 up"; } || die "ib0"
carrier() { [[ $(< /sys/class/net/ib0/carrier) == 1 ]] 2> /dev/null && [[ $(peer "cat /sys/class/net/ib0/carrier") == 1 ]]; }
wait_until 60 carrier || die "no carrier on ib0"
{ modprobe rdma_rxe && peer "modprobe rdma_rxe && rdma link add rxe0 type rxe netdev \$ORCA_LINK_IF" &&
    rdma link add rxe0 type rxe netdev "$ORCA_LINK_IF"; } || die "rxe0"

iperf() {   # iperf NAME DEVICE ADDR: Mbit/s received, iperf3 for $secs
    local v
    peer "iperf3 -s -D -1 -p 5301; for i in \$(seq 100); do ss -Hltn 'sport = :5301' | grep -q . && break; sleep 0.1; done"
    v=$(timeout 120 iperf3 -c "$3" -p 5301 -t "$secs" -f m 2>&1 | awk '/receiver$/ { print $7 }')
    rec "$1" "$2" "${v:-?}" Mbit/s
    say "$1 on $2: ${v:-?} Mbit/s"
}
iperf iperf3 ib0-datagram 10.78.0.2
echo connected > /sys/class/net/ib0/mode && ip link set ib0 mtu 65520 &&
    peer "echo connected > /sys/class/net/ib0/mode && ip link set ib0 mtu 65520"
iperf iperf3 ib0-connected 10.78.0.2
echo datagram > /sys/class/net/ib0/mode && peer "echo datagram > /sys/class/net/ib0/mode"
iperf iperf3 guest-link "$link_b"

# the target: one subsystem, a port on each device's address
nqn=nqn.2026-11.org.orca:bench
t=$(nvmet_up_line "$nqn" /tmp/bench-ns.img 256M 4420 1:10.78.0.2 "2:$link_b")
peer "$t" > "$OUT/target.log" 2>&1 || die "nvmet target ($OUT/target.log)"
modprobe nvme-rdma || die "nvme-rdma"
has_ns() { nvme_ns_of "$nqn" > /dev/null; }
fio_on() {   # fio_on DEVICE ADDR: IOPS of 4 KiB random reads, MB/s of 128 KiB reads
    local ns iops bw
    nvme connect -t rdma -a "$2" -s 4420 -n "$nqn" > /dev/null 2>&1 || { say "nvme connect $2 failed"; return 1; }
    wait_until 60 has_ns
    ns=$(nvme_ns_of "$nqn")
    iops=$(fio --name=r4k --filename="$ns" --ioengine=libaio --direct=1 --rw=randread --bs=4k \
        --iodepth=16 --time_based --runtime="$secs" --size=256m --output-format=terse --terse-version=3 2> /dev/null |
        awk -F';' '{ print $8 }')
    bw=$(fio --name=s128k --filename="$ns" --ioengine=libaio --direct=1 --rw=read --bs=128k \
        --iodepth=8 --time_based --runtime="$secs" --size=256m --output-format=terse --terse-version=3 2> /dev/null |
        awk -F';' '{ printf "%.1f", $7 / 1024 }')
    nvme disconnect -n "$nqn" > /dev/null 2>&1
    wait_until 60 eval '! has_ns'
    rec nvme-randread-4k "$1" "${iops:-?}" IOPS
    rec nvme-read-128k "$1" "${bw:-?}" MB/s
    say "NVMe/RDMA on $1: ${iops:-?} IOPS (4 KiB random), ${bw:-?} MB/s (128 KiB)"
}
fio_on orca0 10.78.0.2
fio_on rxe0 "$link_b"

awk '
$1 == "ULP" { v[$2, $3] = $4; u[$2] = $5 }
function r(a, b) { return (a == "" || b == "" || a == "?" || b == "?" || b <= 0) ? "?" : sprintf("%.2fx", a / b) }
END {
    print "kernel ULPs between two guests (scripts/vm2.sh --sm none, OpenSM): orca0 next to rxe0 / the guest link in the same boot"
    fmt = "%-26s | %-12s | %12s | %12s | %9s\n"
    printf fmt, "measure", "unit", "orca0", "rxe0/link", "orca/rxe"
    printf fmt, "iperf3 TCP, ib0 datagram", u["iperf3"], v["iperf3", "ib0-datagram"], v["iperf3", "guest-link"], r(v["iperf3", "ib0-datagram"], v["iperf3", "guest-link"])
    printf fmt, "iperf3 TCP, ib0 connected", u["iperf3"], v["iperf3", "ib0-connected"], v["iperf3", "guest-link"], r(v["iperf3", "ib0-connected"], v["iperf3", "guest-link"])
    printf fmt, "NVMe/RDMA 4 KiB randread", u["nvme-randread-4k"], v["nvme-randread-4k", "orca0"], v["nvme-randread-4k", "rxe0"], r(v["nvme-randread-4k", "orca0"], v["nvme-randread-4k", "rxe0"])
    printf fmt, "NVMe/RDMA 128 KiB read", u["nvme-read-128k"], v["nvme-read-128k", "orca0"], v["nvme-read-128k", "rxe0"], r(v["nvme-read-128k", "orca0"], v["nvme-read-128k", "rxe0"])
    print "(iperf3 over ib0 is compared with iperf3 over the guest link itself, the netdev rxe0 runs on; higher is better for orca)"
}' "$OUT/ulp.txt" > "$OUT/ulp_table.txt"
cat "$OUT/ulp_table.txt"
