#!/bin/bash
# Guest test: orca in a guest whose streaming DMA mappings bounce through
# swiotlb (booted with swiotlb=force, as a confidential guest's do).  The
# doorbell hint and the kick rings are pages the CPU, a user's mapping and
# the device share with no syncs: through a bounce buffer the device would
# work on a copy, so the driver leaves both out and says so once each
# (review-kverbs 7); the device still probes, a user context still opens
# (the provider kicks instead), and orca unloads with nothing reported.
# (User rings and regions are pinned user memory mapped for the device:
# bounced, no RDMA device moves data, so no traffic is tried here.)
# Prints TAP; exit status = number of failures.
#   ORCA_DEV (orca0)
set -u
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lib/tap.sh
. "$here/../lib/tap.sh"
# shellcheck source=tests/lib/ibdev.sh
. "$here/../lib/ibdev.sh"
# shellcheck source=tests/lib/klog.sh
. "$here/../lib/klog.sh"

dev=${ORCA_DEV:-orca0}
plan 6
grep -qw 'swiotlb=force' /proc/cmdline
ok $? "the guest bounces its streaming DMA mappings (swiotlb=force: $(dmesg | grep -m1 -i 'software io tlb' | sed 's/^\[[^]]*\] //'))"
wait_dev 1
ok $? "$dev probed ($WAITED s)"
mark="swiotlb: $(now_us)"
echo "$mark" > /dev/kmsg
out=$(timeout -k 5 60 ibv_devinfo -d "$dev" 2>&1)
rc=$?
((rc == 0)) && [[ $out == *"hca_id:"*"$dev"* ]]
ok $? "ibv_devinfo opens a context on $dev (exit $rc)"
log=$(klog_ours)
hint=$(grep -c "the doorbell hint left out: its DMA mapping needs syncs" <<< "$log")
ring=$(grep -c "kick rings left out: their DMA mapping needs syncs" <<< "$log")
((hint == 1))
ok $? "the doorbell hint is left out, said once ($hint)"
((ring == 1))
ok $? "kick rings are left out, said once ($ring)"
oops=$(klog_oopses "$mark")
rmmod orca && [[ -z $oops ]] && [[ -z $(klog_oopses "$mark") ]]
ok $? "rmmod orca; no oops, WARNING or sanitizer report"
diag "$(head -n 12 <<< "$oops")"
done_testing
