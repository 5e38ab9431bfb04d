#!/bin/bash
# Guest test, first guest of scripts/vm2.sh --sm none, after ipoib.sh (ib0
# up on both hosts, 10.78.0.1 here, 10.78.0.2 there): NFS over RDMA
# (svcrdma there, xprtrdma here) between the hosts, on orca0.
#  - the other host is the server: nfsd (NFSv4 only) with an RDMA
#    listener on 10.78.0.2:20049 besides its TCP one, exporting a tmpfs
#    of its own as the NFSv4 root;
#  - this host mounts it with NFSv4.2 over RDMA (proto=rdma): the mount
#    says so, and the transport's QPs are rdma_cm's RC QPs on both hosts;
#  - data both ways, each checked byte for byte where it landed: a file
#    of random bytes written here is read there from the server's own
#    tmpfs; one written there is read here through the mount with the
#    page cache dropped; fio random writes of 4 KiB to 1 MiB with O_DIRECT
#    (each one an RPC, its payload moved by RDMA READ or WRITE) and
#    crc32c verification;
#  - the payload crossed the wire on orca0: its port counters grew by
#    more than the bytes written, in each direction; the client registered
#    the pages of its chunks by fast registration (the device counts
#    REG_MR WQEs);
#  - umount, the server taken down, the modules unloaded.
#  No kernel warning on either host.  Prints TAP.  ORCA_DEV (orca0);
#  ORCA_NFS_MIB, ORCA_NFS_FIO_MIB: the sizes (make soak: bigger).
# (the functions wait_until calls look unreachable to shellcheck)
# shellcheck disable=SC2317
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"
# shellcheck source=tests/lib/pair.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pair.sh"
# shellcheck source=tests/lib/klog.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/klog.sh"

dev=${ORCA_DEV:-orca0}
# ORCA_NFS_MIB (24): the file each way; ORCA_NFS_FIO_MIB (32): fio's span
# (make soak: more)
mib=$(pos_int "${ORCA_NFS_MIB:-}" 24) fio_mib=$(pos_int "${ORCA_NFS_FIO_MIB:-}" 32)
ip_b=10.78.0.2
port=20049
export_dir=/tmp/orca-nfs-export
mnt=/tmp/orca-nfs
tmp=$(mktemp -d)
trap 'umount -f "$mnt" 2> /dev/null; rm -rf "$tmp"' EXIT
mark="orca-nfs-test-$$"
klog_mark_both "$mark"
plan 12
if ! pair_remote; then
    echo "Bail out! nfs.sh needs the second guest of scripts/vm2.sh"
    exit 1
fi

counters=/sys/class/infiniband/$dev/ports/1/counters
# port_xmit_data / port_rcv_data count 4-byte words
# (nothing and status 1 if the counter cannot be read)
words() { local w; w=$(< "$counters/$1") && nums "$w" && printf '%s' "$w"; }

# The server.  The guest's / is the host's, read-only: nfsd's state
# (/var/lib/nfs) and the export are tmpfs.  No NFSv3 (no lockd, no statd);
# the v4 grace period shortened, as no client can have state to reclaim.
srv="set -e; modprobe nfsd; modprobe rpcrdma"
srv+="; mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd"
srv+="; mountpoint -q /var/lib/nfs || mount -t tmpfs tmpfs /var/lib/nfs"
srv+="; mkdir -p /var/lib/nfs/v4recovery; touch /var/lib/nfs/etab /var/lib/nfs/rmtab"
srv+="; mkdir -p $export_dir; mount -t tmpfs -o size=$((2 * mib + fio_mib + 64))m tmpfs $export_dir"
srv+="; echo 10 > /proc/fs/nfsd/nfsv4gracetime; echo 10 > /proc/fs/nfsd/nfsv4leasetime"
srv+="; rpcbind; exportfs -o rw,no_root_squash,fsid=0,no_subtree_check 10.78.0.0/24:$export_dir"
srv+="; rpc.mountd -N 3; rpc.nfsd -N 3 4; echo 'rdma $port' > /proc/fs/nfsd/portlist"
srv+="; grep -x 'rdma $port' /proc/fs/nfsd/portlist"
peer "$srv" > "$tmp/server" 2>&1
rc=$?
ok $rc "nfsd there: an RDMA listener on port $port, $export_dir exported as the NFSv4 root"
((rc)) && diag "$(tail -n 8 "$tmp/server")"

modprobe rpcrdma
mkdir -p "$mnt"
t0=$(now_us)
timeout -k 5 120 mount -t nfs -o vers=4.2,proto=rdma,port=$port "$ip_b:/" "$mnt" > "$tmp/mount" 2>&1
rc=$?
opts=$(awk -v m="$mnt" '$2 == m { print $4 }' /proc/mounts)
[[ $rc == 0 && $opts == *proto=rdma* && $opts == *vers=4.2* ]]
ok $? "mount -t nfs -o vers=4.2,proto=rdma $ip_b:/ after $(secs_since "$t0") s: ${opts:-not mounted}"
((rc)) && diag "$(cat "$tmp/mount")" "$(klog_since "$mark" | tail -n 6)"

# pair.sh's res_count: nothing and status 1 if rdma fails, never 0
qa=$(res_count here qp 'type RC .*comm \[rdma_cm\]') qb=$(res_count peer qp 'type RC .*comm \[rdma_cm\]')
nums "$qa" "$qb" && ((qa >= 1 && qb >= 1))
ok $? "the transport: ${qa:-query failed} RC QP(s) of rdma_cm here, ${qb:-query failed} there"

fr0=$(emu_stat_on here fast_regs)
# here -> there: the server reads the file from its own tmpfs
size=$((mib << 20))
head -c "$size" /dev/urandom > "$tmp/up"
x0=$(words port_xmit_data)
t0=$(now_us)
cp "$tmp/up" "$mnt/up" && sync -f "$mnt/up"
rc=$?
secs=$(secs_since "$t0")
x1=$(words port_xmit_data)
want=$(sha256sum < "$tmp/up")
got=$(peer "sha256sum < $export_dir/up")
[[ $rc == 0 && $got == "$want" ]]
ok $? "$mib MiB written here, the server's tmpfs has every byte (sha256 ${want:0:16}), in $secs s"
nums "$x0" "$x1" && ((x1 - x0 >= size / 4))
ok $? "it crossed orca0: port_xmit_data grew by $(((x1 - x0) * 4)) bytes for $size"

# there -> here: written on the server, read through the mount uncached
peer "head -c $size /dev/urandom > $export_dir/down && sha256sum < $export_dir/down" > "$tmp/down.sum" 2>&1
r0=$(words port_rcv_data)
echo 3 > /proc/sys/vm/drop_caches
t0=$(now_us)
got=$(sha256sum < "$mnt/down")
secs=$(secs_since "$t0")
r1=$(words port_rcv_data)
[[ -s $tmp/down.sum && $got == "$(< "$tmp/down.sum")" ]]
ok $? "$mib MiB written there, read here through the mount with no page cache: every byte (sha256 ${got:0:16}), in $secs s"
nums "$r0" "$r1" && ((r1 - r0 >= size / 4))
ok $? "it crossed orca0: port_rcv_data grew by $(((r1 - r0) * 4)) bytes for $size"

t0=$(now_us)
timeout -k 5 $((300 + 4 * fio_mib)) fio --name=orca-nfs --filename="$mnt/fio" --ioengine=libaio --direct=1 \
    --rw=randwrite --bsrange=4k-1m --iodepth=8 --size="${fio_mib}m" --verify=crc32c \
    --verify_fatal=1 --do_verify=1 --output="$tmp/fio" > /dev/null 2>&1
rc=$?
[[ $rc == 0 ]] && grep -q 'err= 0' "$tmp/fio" && ! grep -qi 'verify: bad' "$tmp/fio"
ok $? "fio O_DIRECT random writes of 4k-1m, $fio_mib MiB, every block read back and crc32c-verified: exit $rc in $(secs_since "$t0") s"
((rc)) && [[ -e $tmp/fio ]] && diag "$(tail -n 12 "$tmp/fio")"
grep -E '^ +(write|read):' "$tmp/fio" 2> /dev/null | while read -r l; do diag "$l"; done
grep -E '^[[:space:]]*xprt:' /proc/self/mountstats | while read -r l; do diag "mountstats: $l"; done
fr1=$(emu_stat_on here fast_regs) fr='query failed'
nums "$fr0" "$fr1" && fr=$((fr1 - fr0))
nums "$fr" && ((fr > 0))
ok $? "xprtrdma registered the payload's pages by fast registration: $fr REG_MR WQEs on this device"

umount "$mnt"
ok $? "umount"
dn="rpc.nfsd 0; exportfs -ua; pkill -x rpc.mountd; pkill -x rpcbind; umount $export_dir"
dn+="; rmdir $export_dir; umount /var/lib/nfs; umount /proc/fs/nfsd; modprobe -r nfsd rpcrdma"
peer "$dn" > "$tmp/down" 2>&1
rc=$?
modprobe -r rpcrdma nfsv4 2> /dev/null
# a count from a query that worked: a failed one is no "nothing left"
left=$(res_count peer qp 'comm \[rdma_cm\]')
nums "$left" && ((rc == 0 && left == 0))
ok $? "the server taken down and its modules unloaded: no rdma_cm QP left there (${left:-query failed}; exit $rc)"
((rc)) && diag "$(tail -n 5 "$tmp/down")"

ok_no_oopses_both "$mark"
done_testing
