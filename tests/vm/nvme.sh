#!/bin/bash
# Guest test, first guest of scripts/vm2.sh --sm none, after ipoib.sh (ib0
# up on both hosts, 10.78.0.1 here, 10.78.0.2 there): NVMe over Fabrics
# on RDMA between the hosts, on orca0.
#  - the other host is the target: nvmet-rdma, a subsystem whose
#    namespace is a file in its /tmp (tmpfs, so buffered_io), a port on
#    10.78.0.2:4420;
#  - this host discovers it (nvme discover: the subsystem's NQN in the
#    discovery log), connects (nvme-rdma: a controller and a namespace
#    block device appear), and fio writes random blocks of 4 KiB to
#    256 KiB with crc32c verification, reading every block back;
#  - the queues are rdma_cm's RC QPs, their IDs [nvme_rdma]'s here and
#    [nvmet_rdma]'s there;
#    the host registered its buffers by fast registration (REG_MR WQEs,
#    the device's counter) and the target invalidated them with
#    SEND_WITH_INV (remote invalidations counted by this device), and
#    the host logged no bogus remote invalidation;
#  - nvme disconnect removes the controller; the target is taken down.
#  No kernel warning on either host.  Prints TAP.  ORCA_DEV (orca0);
#  ORCA_NVME_FIO_MIB: the size (make soak: bigger).
# (the functions wait_until calls look unreachable to shellcheck)
# shellcheck disable=SC2317
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"
# shellcheck source=tests/lib/pair.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pair.sh"
# shellcheck source=tests/lib/klog.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/klog.sh"
# shellcheck source=tests/lib/nvmet.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/nvmet.sh"

dev=${ORCA_DEV:-orca0}
ip_b=10.78.0.2
nqn=nqn.2026-11.org.orca:t0
hostnqn=nqn.2026-11.org.orca:host-a
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mark="orca-nvme-test-$$"
klog_mark_both "$mark"
plan 12
if ! pair_remote; then
    echo "Bail out! nvme.sh needs the second guest of scripts/vm2.sh"
    exit 1
fi

# rdma_cm's kernel users: their QPs are [rdma_cm]'s, their IDs their own.
# res_of WHERE TYPE PATTERN: how many lines of rdma res show TYPE match
# (pair.sh's res_count: nothing and status 1 if rdma fails, never 0)
res_of() { res_count "$@"; }

# the target, in one peer line: module, configfs, a 128 MiB file namespace
# ORCA_NVME_FIO_MIB (64): fio's span (make soak: more); the namespace is twice that
fio_mib=$(pos_int "${ORCA_NVME_FIO_MIB:-}" 64)
t=$(nvmet_up_line "$nqn" /tmp/nvmet-ns0.img $((2 * fio_mib))M 4420 "1:$ip_b")
peer "$t" > "$tmp/target" 2>&1
rc=$?
ok $rc "nvmet-rdma target on the other host: $nqn, a file namespace, port $ip_b:4420"
((rc)) && diag "$(cat "$tmp/target")"
peer "dmesg | grep -c 'enabling port 1 ($ip_b:4420)'" > "$tmp/enabled" 2>&1
[[ $(< "$tmp/enabled") -ge 1 ]]
ok $? "the target says: enabling port 1 ($ip_b:4420)"

modprobe nvme-rdma
timeout -k 5 120 nvme discover -t rdma -a "$ip_b" -s 4420 --hostnqn="$hostnqn" > "$tmp/disc" 2>&1
rc=$?
[[ $rc == 0 ]] && grep -q "subnqn: *$nqn" "$tmp/disc"
ok $? "nvme discover over RDMA finds $nqn (exit $rc)"
((rc)) && diag "$(tail -n 5 "$tmp/disc")"

fr0=$(emu_stat_on here fast_regs) ri0=$(emu_stat_on here mr_remote_invalidations)
t0=$(now_us)
timeout -k 5 120 nvme connect -t rdma -a "$ip_b" -s 4420 -n "$nqn" --hostnqn="$hostnqn" > "$tmp/conn" 2>&1
rc=$?
ns=''
find_ns() { ns=$(nvme_ns_of "$nqn"); }
wait_until "$ORCA_WAIT" find_ns
[[ $rc == 0 && -n $ns ]] && klog_since "$mark" | grep -q "new ctrl: NQN \"$nqn\", addr $ip_b:4420"
ok $? "nvme connect: controller and namespace ${ns:-none} after $(secs_since "$t0") s (exit $rc)"
((rc)) && diag "$(tail -n 5 "$tmp/conn")" "$(klog_since "$mark" | tail -n 8)"
qa=$(res_of here qp 'type RC .*comm \[rdma_cm\]') qb=$(res_of peer qp 'type RC .*comm \[rdma_cm\]')
ca=$(res_of here cm_id 'comm \[nvme_rdma\]') cb=$(res_of peer cm_id 'comm \[nvmet_rdma\]')
nums "$qa" "$qb" "$ca" "$cb" && ((qa >= 2 && qb >= 2 && ca >= 2 && cb >= 2))
rc=$?
ok $rc "admin and I/O queues: $qa RC QPs and $ca rdma_cm IDs of [nvme_rdma] here, $qb and $cb of [nvmet_rdma] there"
((rc)) && diag "$(rdma res show cm_id)" "$(peer rdma res show cm_id)"

if [[ -n $ns ]]; then
    t0=$(now_us)
    timeout -k 5 $((600 + 4 * fio_mib)) fio --name=orca-verify --filename="$ns" --ioengine=libaio --direct=1 \
        --rw=randwrite --bsrange=4k-256k --iodepth=16 --size="${fio_mib}m" --verify=crc32c \
        --verify_fatal=1 --do_verify=1 --output="$tmp/fio" > /dev/null 2>&1
    rc=$?
    secs=$(secs_since "$t0")
else
    rc=1 secs=0
fi
[[ $rc == 0 ]] && grep -q 'err= 0' "$tmp/fio" && ! grep -qi 'verify: bad' "$tmp/fio"
ok $? "fio random writes of 4k-256k, $fio_mib MiB, every block read back and crc32c-verified: exit $rc in $secs s"
((rc)) && [[ -e $tmp/fio ]] && diag "$(tail -n 12 "$tmp/fio")"
grep -E '^ +(write|read):' "$tmp/fio" 2> /dev/null | while read -r l; do diag "$l"; done
# a delta only from two queries that worked
fr1=$(emu_stat_on here fast_regs) ri1=$(emu_stat_on here mr_remote_invalidations)
fr='query failed' ri='query failed'
nums "$fr0" "$fr1" && fr=$((fr1 - fr0))
nums "$ri0" "$ri1" && ri=$((ri1 - ri0))
nums "$fr" && ((fr > 0))
ok $? "the host registered its I/O buffers by fast registration: $fr REG_MR WQEs on this device"
nums "$ri" && ((ri > 0))
ok $? "the target invalidated them with SEND_WITH_INV: $ri remote invalidations on this device"
! klog_since "$mark" | grep -qi 'bogus remote invalidation'
ok $? "no bogus remote invalidation in the host's log"

nvme disconnect -n "$nqn" > "$tmp/disc2" 2>&1
rc=$?
gone() { ! find_ns; }
wait_until "$ORCA_WAIT" gone
[[ $rc == 0 ]] && grep -q 'disconnected 1 controller' "$tmp/disc2" && gone
ok $? "nvme disconnect: $(< "$tmp/disc2")"

t=$(nvmet_down_line "$nqn" /tmp/nvmet-ns0.img 1)
peer "$t" > "$tmp/down" 2>&1
rc=$?
modprobe -r nvme-rdma 2> /dev/null
# each count from a query that worked: a failed one is no "nothing left"
lb=$(res_of peer cm_id nvmet_rdma) la=$(res_of here cm_id nvme_rdma)
nums "$lb" "$la" && ((lb == 0 && la == 0 && rc == 0))
ok $? "target taken down and modules unloaded: no rdma_cm ID of either left (${la:-query failed} here, ${lb:-query failed} there; exit $rc)"
((rc)) && diag "$(cat "$tmp/down")"

ok_no_oopses_both "$mark"
done_testing
